"""Lesson 14's decision table, computed from stored results (synthetic tables here)."""
import math

import numpy as np
import pytest

from lessons_lib.labs import choosing
from lessons_lib.data import load_results, save_results


def bench_table(tmp_path):
    rows = []
    def row(scene, n, s, kind, ms, b, status="ok"):
        rows.append({"suite": "scaled", "scene": scene, "n": n, "structure": s, "kind": kind, "build_ms": ms / 2,
                     "pairs_ms": ms / 2, "total_ms": ms, "pairs": 10, "bytes_per_box": b, "status": status, "note": ""})
    row("random", 100, "grid", "ours", 2.0, 60.0)
    row("random", 100, "tree", "ours", 3.0, 40.0)
    row("random", 100, "slow", "ours", 9.0, 20.0)
    row("random", 100, "broken", "ours", 0.5, 10.0, status="FAILED")
    row("random", 100, "cKDTree", "peer", 8.0, float("nan"))
    row("xline", 100, "tree", "ours", 5.0, 40.0)
    row("xline", 100, "grid", "skipped_one", 1.0, 1.0, status="skipped")
    return load_results(save_results(tmp_path / "b.csv", rows, what="t", command="t"))


def test_ranking_ignores_failed_and_skipped_rows(tmp_path):
    t = bench_table(tmp_path)
    assert choosing.ranking(t, scene="random", n=100) == [("grid", 2.0), ("tree", 3.0), ("slow", 9.0)]
    assert choosing.fastest(t, scene="random", n=100, kind="peer") == ("cKDTree", 8.0)
    assert choosing.fastest(t, scene="random", n=100, kind=None) == ("grid", 2.0)


def test_decision_table(tmp_path):
    rows = {r["scene"]: r for r in choosing.decision_table(bench_table(tmp_path), n=100)}
    r = rows["random"]
    assert (r["fastest"], r["runner_up"], r["peer"], r["speedup"]) == ("grid", "tree", "cKDTree", 4.0)
    assert (r["leanest"], r["leanest_bytes"]) == ("tree", 40.0)  # "slow" is leaner but 4.5x slower
    x = rows["xline"]
    assert x["fastest"] == "tree" and x["runner_up"] == "-" and x["peer"] == "-" and math.isnan(x["speedup"])


def test_speedup_grid(tmp_path):
    structures, scenes, grid = choosing.speedup_grid(bench_table(tmp_path), n=100)
    assert scenes == ["random", "xline"] and structures == ["grid", "tree", "slow"]
    np.testing.assert_allclose(grid[:, 0], [1.0, 1.5, 4.5])
    assert np.isnan(grid[0, 1]) and grid[1, 1] == 1.0


def test_no_rows_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no successful ours row for scene='yline', n=100"):
        choosing.ranking(bench_table(tmp_path), scene="yline", n=100)


def test_moving_verdict(tmp_path):
    scaling = load_results(save_results(tmp_path / "s.csv", [
        {"structure": s, "n": n, "step_ms": ms} for s, n, ms in
        [("grid", 10, 1.0), ("tree", 10, 2.0), ("grid", 20, 4.0), ("tree", 20, 3.0)]], what="t", command="t"))
    rvu = load_results(save_results(tmp_path / "r.csv", [
        {"structure": s, "n": n, "mode": m, "update_ms": u, "pairs_ms": 1.0} for s, n, m, u in
        [("grid", 10, "update", 1.0), ("grid", 10, "rebuild", 2.0), ("tree", 20, "update", 5.0),
         ("tree", 20, "rebuild", 2.0)]], what="t", command="t"))
    rows = choosing.moving_verdict(scaling, rvu)
    assert [(r["n"], r["fastest"], r["runner_up"], r["rebuild_better"]) for r in rows] == [
        (10, "grid", "tree", False), (20, "tree", "grid", True)]
    assert rows[0]["fps"] == 1000.0
    assert choosing.moving_verdict(scaling)[0]["rebuild_better"] is None


def test_decision_table_states_threads_and_a_one_thread_ratio(tmp_path):
    t = bench_table(tmp_path)
    t.meta["machine"] = "x86_64, 2 cores"
    rows = {r["scene"]: r for r in choosing.decision_table(t, n=100)}
    r = rows["random"]
    assert r["threads"] == 1 and r["peer_threads"] == 1  # "grid" is not the counting-sort grid
    assert (r["single"], r["single_ms"], r["single_speedup"]) == ("grid", 2.0, 4.0)


def test_the_counting_sort_grid_searches_on_every_core(tmp_path):
    rows = [{"suite": "scaled", "scene": "random", "n": 100, "structure": s, "kind": k, "build_ms": 0.0,
             "pairs_ms": ms, "total_ms": ms, "pairs": 10, "bytes_per_box": 50.0, "status": "ok", "note": ""}
            for s, k, ms in [("counting_sort_grid", "ours", 1.0), ("uniform_grid", "ours", 3.0),
                             ("cKDTree", "peer", 12.0)]]
    t = load_results(save_results(tmp_path / "c.csv", rows, what="t", command="t"))
    t.meta["machine"] = "x86_64, 2 cores"
    (r,) = choosing.decision_table(t, n=100)
    assert (r["fastest"], r["threads"], r["peer_threads"], r["speedup"]) == ("counting_sort_grid", 2, 1, 12.0)
    assert (r["single"], r["single_speedup"]) == ("uniform_grid", 4.0)


def test_readings(tmp_path):
    read = choosing.readings(bench_table(tmp_path), n=100)
    assert read["within_2x"] == {"random": ["grid", "tree"]}
    assert math.isnan(read["best_tree_ratio"])   # no structure here is named like a tree of the course
    assert read["not_run"] == {"xline": ["grid", "slow"]}
    assert read["thin_pairs"] == 10 and math.isnan(read["point_grid_mixed"])
    assert read["speedups"] == {"random": 4.0} and read["threads"] == {"random": 1}


def test_markdown_table():
    text = choosing.markdown_table(["a", "b", "c"], [("x", 1234, 2.345), ("y", 5, float("nan"))])
    assert text.splitlines() == ["| a | b | c |", "|---|---|---|", "| x | 1,234 | 2.3 |", "| y | 5 | - |"]


def test_moving_verdict_ratio_and_threads(tmp_path):
    scaling = load_results(save_results(tmp_path / "s.csv", [
        {"structure": s, "n": 10, "step_ms": ms} for s, ms in [("counting_sort_grid", 1.0), ("tree", 1.5)]],
        what="t", command="t"))
    scaling.meta["machine"] = "x86_64, 2 cores"
    (r,) = choosing.moving_verdict(scaling)
    assert r["threads"] == 2 and r["runner_up_ratio"] == 1.5


def dynamic_table(tmp_path):
    """A dynamic-suite table: frame_ms per scene, one FAILED row, one peer, one skipped case."""
    rows = [{"suite": "dynamic", "scene": scene, "n": n, "frames": 20, "structure": s, "kind": kind,
             "build_ms": 1.0, "update_ms": ms / 2, "pairs_ms": ms / 2, "frame_ms": ms, "pairs": 5,
             "bytes_per_box": 50.0, "status": status, "note": ""}
            for scene, n, s, kind, ms, status in [
                ("random", 100, "grid", "ours", 1.0, "ok"), ("random", 100, "loose", "ours", 1.5, "ok"),
                ("random", 100, "dynamic_aabb_tree", "ours", 6.0, "ok"), ("random", 100, "broken", "ours", 0.1, "FAILED"),
                ("random", 100, "cKDTree", "peer", 0.5, "ok"),
                ("resting", 100, "grid", "ours", 2.0, "ok"), ("resting", 100, "dynamic_aabb_tree", "ours", 1.0, "ok"),
                ("resting", 100, "loose", "ours", 3.0, "ok"),
                ("resting", 10, "grid", "ours", 0.2, "ok"),
                ("mixed_sizes", 100, "grid", "ours", 4.0, "ok"),
                ("mixed_sizes", 100, "dynamic_aabb_tree", "ours", float("nan"), "skipped")]]
    return load_results(save_results(tmp_path / "d.csv", rows, what="t", command="t"))


def test_moving_leaders_on_the_dynamic_suite(tmp_path):
    rows = {r["scene"]: r for r in choosing.moving_leaders(dynamic_table(tmp_path), n=100)}
    assert list(rows) == ["random", "resting", "mixed_sizes"]
    r = rows["random"]   # the FAILED row and the peer never count, however fast
    assert (r["fastest"], r["runner_up"], r["tree_rank"], r["entrants"]) == ("grid", "loose", 3, 3)
    assert (r["fastest_ms"], r["runner_up_ratio"], r["tree_ratio"], r["fastest_mode"]) == (1.0, 1.5, 6.0, "-")
    assert r["moving"] == 1.0 and rows["resting"]["moving"] == 0.05   # from the suite's MOVING_SCENES
    s = rows["resting"]
    assert (s["fastest"], s["runner_up"], s["tree_rank"], s["tree_ratio"]) == ("dynamic_aabb_tree", "grid", 1, 1.0)
    m = rows["mixed_sizes"]   # the tree was skipped there: a dash, not a rank
    assert (m["fastest"], m["runner_up"], m["tree_rank"], m["entrants"]) == ("grid", "-", "-", 1)
    assert math.isnan(m["runner_up_ms"]) and math.isnan(m["tree_ms"]) and math.isnan(m["tree_ratio"])
    (only,) = choosing.moving_leaders(dynamic_table(tmp_path), n=10)
    assert (only["scene"], only["fastest"]) == ("resting", "grid")


def test_moving_leaders_on_the_simulation_picks_each_structures_faster_mode(tmp_path):
    rows = [{"scene": scene, "moving": moving, "giants": giants, "structure": s, "n": 100, "mode": mode,
             "update_ms": 0.0, "pairs_ms": 0.0, "step_ms": ms}
            for scene, moving, giants, s, mode, ms in [
                ("moving", 1.0, 0, "grid", "update", 2.0), ("moving", 1.0, 0, "grid", "rebuild", 1.0),
                ("moving", 1.0, 0, "dynamic_aabb_tree", "update", 9.0),
                ("moving", 1.0, 0, "dynamic_aabb_tree", "rebuild", 5.0),
                ("moving", 1.0, 0, "sweep", "update", 3.0), ("moving", 1.0, 0, "sweep", "rebuild", 4.0),
                ("giants", 0.05, 10, "grid", "update", 8.0), ("giants", 0.05, 10, "grid", "rebuild", 7.0),
                ("giants", 0.05, 10, "dynamic_aabb_tree", "update", 1.0),
                ("giants", 0.05, 10, "dynamic_aabb_tree", "rebuild", 6.0)]]
    t = load_results(save_results(tmp_path / "s.csv", rows, what="t", command="t"))
    got = {r["scene"]: r for r in choosing.moving_leaders(t, n=100)}
    a = got["moving"]   # each structure once, in its faster mode
    assert [(a["fastest"], a["fastest_mode"]), (a["runner_up"], a["runner_up_mode"])] == [("grid", "rebuild"),
                                                                                        ("sweep", "update")]
    assert (a["tree_mode"], a["tree_ms"], a["tree_rank"], a["entrants"], a["moving"]) == ("rebuild", 5.0, 3, 3, 1.0)
    g = got["giants"]
    assert (g["fastest"], g["fastest_mode"], g["runner_up"], g["runner_up_mode"], g["moving"]) == (
        "dynamic_aabb_tree", "update", "grid", "rebuild", 0.05)


def test_moving_leaders_errors(tmp_path):
    t = dynamic_table(tmp_path)
    with pytest.raises(ValueError, match=r"n=5000 for scene\(s\) \['random'\]"):
        choosing.moving_leaders(t, n=5000, scenes=["random"])
    with pytest.raises(ValueError, match="no usable row at n=5000"):
        choosing.moving_leaders(t, n=5000)
    with pytest.raises(ValueError, match=r"scene\(s\) \['clustered'\]"):
        choosing.moving_leaders(t, n=100, scenes=["random", "clustered"])
    with pytest.raises(KeyError, match="no frame_ms or step_ms column"):
        choosing.moving_leaders(bench_table(tmp_path), n=100)

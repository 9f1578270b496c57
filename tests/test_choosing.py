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

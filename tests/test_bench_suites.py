"""The benchmark suites' harness (lessons_lib.bench.suites) on tiny suites: checking, budget, peers, CSV.

No timing is asserted: only that the harness measures, checks, skips and writes
what it says. A deliberately wrong structure (never registered, passed directly)
must be reported FAILED.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

from lessons_lib import STRUCTURES, BruteForce, brute_force_pairs
from lessons_lib.bench import __main__ as bench_main
from lessons_lib.bench.peers import PEERS, Peer
from lessons_lib.bench.suites import (
    COLUMNS,
    DYNAMIC_COLUMNS,
    MOVING_SCENES,
    RESTING_FRACTION,
    SUITES,
    Suite,
    predict_seconds,
    agent_frames,
    print_table,
    run_dynamic,
    run_suite,
    save_suite,
)
from lessons_lib.data import load_results

TINY = Suite("tiny", ("random", "xline"), (10, 60), scaled=False, repeat=2, budget_s=5.0)
DENSE = Suite("dense", ("xline", "true_uniform"), (10, 60), scaled=False, repeat=2, budget_s=5.0)
TINY_DYN = Suite("dynamic", ("true_uniform",), (40,), scaled=True, repeat=1, budget_s=5.0, frames=3, warmup=1)


class DropsAPair(BruteForce):
    """Brute force that forgets its first pair: a wrong structure (deliberately never registered)."""

    def _pairs(self):
        return super()._pairs()[1:]


class Sleepy(BruteForce):
    """Correct but slow: every pairs() sleeps 30 ms."""

    def _pairs(self):
        time.sleep(0.03)
        return super()._pairs()


class PickyGrid(BruteForce):
    """Refuses boxes wider than 20 units, as a points-only grid refuses boxes beyond its bound."""

    def _build(self, slots):
        b = self.elements.boxes[slots]
        if len(b) and (b[:, 2] - b[:, 0]).max() > 20:
            raise ValueError("box wider than the bound 20")
        super()._build(slots)


def _run(structures, peers=False, suite=TINY, **kw):
    lines = []
    rows = run_suite(suite, structures=structures, peers=peers, progress=False, out=lines.append, **kw)
    return rows, lines


def test_tiny_suite_checks_and_times_every_case():
    rows, lines = _run(["brute_force", "uniform_grid"])
    assert len(rows) == 2 * 2 * 2 == len(lines)
    for r in rows:
        assert tuple(r) == COLUMNS
        assert r["status"] == "ok", r
        assert r["kind"] == "ours" and r["reference"] == "brute force"
        assert r["build_ms"] > 0 and r["pairs_ms"] > 0
        assert r["total_ms"] == pytest.approx(r["build_ms"] + r["pairs_ms"], rel=0.5)
        assert r["bytes_per_box"] > 0 and r["repeats"] == 2
        boxes = TINY.scene(r["scene"], r["n"])
        assert r["pairs"] == len(brute_force_pairs(boxes))


def test_a_wrong_structure_is_reported_failed_loudly():
    rows, lines = _run({"drops_a_pair": DropsAPair, "brute_force": BruteForce}, suite=DENSE)
    bad = [r for r in rows if r["structure"] == "drops_a_pair"]
    assert len(bad) == 4
    for r in bad:  # a scene without pairs has no pair to drop
        has_pairs = len(brute_force_pairs(DENSE.scene(r["scene"], r["n"]))) > 0
        assert r["status"] == ("FAILED" if has_pairs else "ok"), r
    assert sum(r["status"] == "FAILED" for r in bad) >= 3
    assert "1 missing, 0 extra" in bad[-1]["note"]
    assert all(r["status"] == "ok" for r in rows if r["structure"] == "brute_force")
    assert any("!!! FAILED" in line and "drops_a_pair" in line for line in lines)
    summary = []
    print_table(rows, out=summary.append)
    assert any("FAILED case(s)" in s for s in summary)


def test_a_class_passed_directly_is_named_after_the_class():
    rows, _ = _run([DropsAPair], suite=Suite("one", ("true_uniform",), (20,), scaled=False, repeat=1))
    assert rows[0]["structure"] == "DropsAPair" and rows[0]["status"] == "FAILED"


def test_budget_skips_larger_cases_with_a_note():
    suite = Suite("slow", ("random",), (10, 40, 80), scaled=False, repeat=3, budget_s=0.02)
    rows, _ = _run({"sleepy": Sleepy}, suite=suite)
    first, second, third = rows
    assert first["status"] == "ok" and first["repeats"] == 1 and "budget" in first["note"]
    assert second["status"] == "skipped" and "budget" in second["note"]
    assert third["status"] == "skipped" and "budget" in third["note"]
    assert math.isnan(second["build_ms"])


def test_a_structure_refusing_a_scene_is_skipped_with_the_reason():
    rows, _ = _run({"picky": PickyGrid})
    random_rows = [r for r in rows if r["scene"] == "random"]
    xline_rows = [r for r in rows if r["scene"] == "xline"]
    assert all(r["status"] == "ok" for r in random_rows)
    assert xline_rows[0]["status"] == "skipped" and "wider than the bound" in xline_rows[0]["note"]
    assert xline_rows[1]["status"] == "skipped"


def test_peers_not_installed_are_skipped_cleanly():
    ghost = Peer("ghost", "no_such_module_for_lessons", "a library that is not installed",
                 build=lambda b, p: None, pairs=lambda i, b, p: None)
    rows, lines = _run(["brute_force"], peers=[ghost])
    ghosts = [r for r in rows if r["structure"] == "ghost"]
    assert len(ghosts) == 4
    assert all(r["status"] == "skipped" and r["kind"] == "peer" and "not installed" in r["note"] for r in ghosts)
    assert all(r["status"] == "ok" for r in rows if r["structure"] == "brute_force")


@pytest.mark.parametrize("name", list(PEERS))
def test_installed_peers_agree_with_brute_force(name):
    if not PEERS[name].available():
        pytest.skip(f"{name} is not installed")
    rows, _ = _run(["brute_force"], peers=[name], suite=Suite("p", ("random", "true_uniform"), (50,), scaled=False,
                                                               repeat=1))
    peer_rows = [r for r in rows if r["kind"] == "peer"]
    assert peer_rows and all(r["status"] == "ok" and math.isnan(r["bytes_per_box"]) for r in peer_rows)


def test_reference_above_brute_max_is_a_checked_structure():
    suite = Suite("ref", ("random",), (30, 90), scaled=False, repeat=1)
    rows, _ = _run(["sweep_and_prune", "uniform_grid"], suite=suite, brute_max=40)
    big = [r for r in rows if r["n"] == 90]
    assert all(r["status"] == "ok" for r in rows)
    assert all(r["reference"].startswith("sweep_and_prune (matched brute force") for r in big)


def test_csv_round_trip(tmp_path):
    rows, _ = _run({"drops_a_pair": DropsAPair, "brute_force": BruteForce}, suite=DENSE,
                   peers=["cKDTree"] if PEERS["cKDTree"].available() else False)
    path = save_suite("tiny", rows, command="pytest", path=tmp_path / "bench_tiny.csv")
    t = load_results(path)
    assert tuple(t.columns) == COLUMNS
    assert len(t) == len(rows)
    assert t.meta["command"] == "pytest" and "peers" in t.meta and "machine" in t.meta
    assert t["n"].dtype == np.int64
    assert set(t.unique("status")) <= {"ok", "FAILED", "skipped"}
    assert "FAILED" in t.unique("status")
    for got, want in zip(t.rows(), rows):
        assert got["structure"] == want["structure"] and got["pairs"] == want["pairs"]
        if math.isnan(want["bytes_per_box"]):
            assert math.isnan(got["bytes_per_box"])
        else:
            assert got["bytes_per_box"] == pytest.approx(want["bytes_per_box"], rel=1e-5)


def test_dynamic_suite_checks_every_frame(tmp_path):
    lines = []
    rows = run_dynamic(TINY_DYN, structures={"brute_force": BruteForce, "drops_a_pair": DropsAPair},
                       peers=False, progress=False, out=lines.append)
    assert [tuple(r) for r in rows] == [DYNAMIC_COLUMNS] * 2
    good, bad = rows
    assert good["status"] == "ok" and good["frames"] == 3
    assert good["frame_ms"] == pytest.approx(good["update_ms"] + good["pairs_ms"])
    assert bad["status"] == "FAILED" and bad["note"].startswith("frame 1:")
    path = save_suite("dynamic", rows, command="pytest", path=tmp_path / "bench_dynamic.csv")
    assert tuple(load_results(path).columns) == DYNAMIC_COLUMNS


def test_agent_frames_move_a_little_and_stay_in_the_world():
    frames = agent_frames("random", 200, 30, step=1.0)
    assert len(frames) == 31
    world = SUITES["dynamic"].scene("random", 200)  # same scene, frame 0
    assert np.array_equal(frames[0], world)
    d = np.abs(frames[1] - frames[0]).max()
    assert 0 < d <= 1.0 + 1e-9
    for f in frames:
        assert (f[:, :2] >= 0).all() and (f[:, 2] <= 800 + 1e-9).all() and (f[:, 3] <= 600 + 1e-9).all()
        assert np.allclose(f[:, 2:] - f[:, :2], frames[0][:, 2:] - frames[0][:, :2])



def test_predict_extrapolates_from_the_last_two_points():
    assert predict_seconds([], 1000) == 0.0
    assert predict_seconds([(100, 0.01)], 1000) == pytest.approx(0.01 * 10 ** 1.3)
    assert predict_seconds([(100, 0.01), (200, 0.04)], 400) == pytest.approx(0.16)  # quadratic
    assert predict_seconds([(100, 0.01), (200, 0.01)], 400) == pytest.approx(0.02)  # clamped to linear


def test_cli_rejects_unknown_suites_and_lists():
    with pytest.raises(SystemExit):
        bench_main.main(["--suite", "nope"])
    assert bench_main.main(["--list"]) == 0


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="unknown structure"):
        run_suite(TINY, structures=["no_such_structure"], peers=False, progress=False, out=None)
    with pytest.raises(ValueError, match="unknown peer"):
        run_suite(TINY, structures=["brute_force"], peers=["nope"], progress=False, out=None)
    with pytest.raises(ValueError, match="unknown scene"):
        run_suite(TINY, structures=["brute_force"], peers=False, scenes=["moon"], progress=False, out=None)


# -- reading the stored results (lessons_lib.bench.report) ---------------------------------
def _table(tmp_path):
    rows, _ = _run(["brute_force", "uniform_grid", "sweep_and_prune", "quadtree", "rtree", "rstar_tree",
                    "bulk_rtree", "kdtree"],
                   suite=Suite("article", ("random", "xline", "yline"), (10, 100, 300), scaled=False, repeat=1),
                   peers=["cKDTree"] if PEERS["cKDTree"].available() else False)
    return load_results(save_suite("article", rows, command="pytest", path=tmp_path / "bench_article.csv"))


def test_report_reads_a_saved_table(tmp_path):
    from lessons_lib.bench import report

    t = _table(tmp_path)
    claims = report.article_claims(t, n=300)
    assert len(claims) == 6
    assert all(c["verdict"] in {"holds", "partly", "does not hold", "not measured"} for c in claims)
    shares = report.build_shares(t, 300, "random")
    assert set(shares) >= {"uniform_grid", "quadtree"} and all(0 <= v <= 1 for v in shares.values())
    sp = report.speedups(t, 300, ["random", "moon"])
    assert sp[1]["ours"] == "-" and math.isnan(sp[1]["speedup"])
    if PEERS["cKDTree"].available():
        assert sp[0]["peer"] == "cKDTree" and sp[0]["speedup"] > 0
    text = report.format_table(sp, ["scene", "ours", "speedup"])
    assert text.splitlines()[0].split() == ["scene", "ours", "speedup"]


def test_report_plots(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessons_lib.bench import report

    t = _table(tmp_path)
    fig = report.plot_suite_grid(t, ["random", "xline"], ncols=2, title="t", highlight=["uniform_grid", "quadtree"])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log" and ax.get_title() == "random"
    labels = ax.get_legend_handles_labels()[1]
    assert any("60 fps" in lab for lab in labels)
    assert {"uniform_grid", "quadtree"} <= set(labels)          # the highlighted few, in colour
    assert "brute_force" not in labels                          # the rest are grey context
    legend = fig.legends[0].get_texts()
    assert any("other structures" in x.get_text() for x in legend)
    fig, ax = plt.subplots()
    drawn = report.plot_time_vs_n(ax, t, "random")                 # default: fastest of ours, fastest peer
    assert drawn == report.default_highlight(t, "random") and 1 <= len(drawn) <= 2
    assert [a.get_text() for a in ax.texts] == [d + (" (library)" if d in PEERS else "") for d in drawn]
    plt.close("all")


def test_threads_come_from_the_machine_line(tmp_path):
    from lessons_lib.bench import report

    t = _table(tmp_path)
    cores = report.cores(t)
    assert cores >= 1
    assert report.threads_used("counting_sort_grid", t) == cores
    assert report.threads_used("uniform_grid", t) == report.threads_used("cKDTree", t) == 1
    row = report.speedups(t, 300, ["random"])[0]
    assert row["ours_threads"] == report.threads_used(row["ours"], t)


def test_article_quadtree_routing_misses_nothing():
    from lessons_lib.bench import report
    from lessons_lib.labs.grids import corner_only_pairs
    from lessons_lib.scenes import make_scene

    cross = np.array([[5.0, 150, 350, 160], [150, 5, 160, 350]])  # long boxes crossing far from their corners
    assert len(corner_only_pairs(cross, 50.0, world=[0, 0, 800, 600])[0]) == 0
    np.testing.assert_array_equal(report.article_quadtree_pairs(cross, capacity=1), [[0, 1]])
    for scene in ("large_boxes", "xline"):
        boxes = make_scene(scene, 300, seed=4)
        np.testing.assert_array_equal(report.article_quadtree_pairs(boxes, capacity=2), brute_force_pairs(boxes))
    rows = report.article_quadtree_misses(scenes=("large_boxes",), n=200, capacities=(1, 8))
    assert [r["missed"] for r in rows] == [0, 0] and [r["extra"] for r in rows] == [0, 0]


def test_summary_progress_leaves_one_finished_line(capsys):
    rows = run_suite(TINY, structures=["brute_force"], peers=False, progress="summary", out=None)
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [out[0]] and out[0].startswith("tiny suite: 4 of 4 cases in ") and out[0].endswith("(4 ok)")
    assert len(rows) == 4


def test_corner_only_misses_on_large_boxes():
    from lessons_lib.bench import report

    rows = report.corner_only_misses(scenes=("random", "large_boxes"), n=300)
    by = {r["scene"]: r for r in rows}
    assert by["random"]["missed"] == 0
    assert by["large_boxes"]["missed"] > 0 and by["large_boxes"]["found"] + by["large_boxes"]["missed"] == \
        by["large_boxes"]["true_pairs"]


def test_contenders_are_the_predicted_fastest_of_each_kind():
    from lessons_lib.bench.suites import contenders, Entrant

    es = [Entrant("a", "ours"), Entrant("b", "ours"), Entrant("p", "peer"), Entrant("q", "peer"),
          Entrant("ghost", "peer", unavailable="not installed")]
    history = {"a": [(10, 1.0)], "b": [(10, 0.1), (30, 0.3)], "p": [(10, 0.5)], "q": [], "ghost": []}
    assert contenders(es, history, 100) == {"b", "p"}


def test_headline_cases_get_their_longer_budget(monkeypatch):
    import lessons_lib.bench.suites as suites

    monkeypatch.setattr(suites, "HEADLINE_N", 60)  # the scaled suite's headline n, made tiny
    suite = Suite("scaled", ("random",), (10, 60), scaled=True, repeat=1, budget_s=5.0)
    rows = run_suite(suite, structures=["uniform_grid", "counting_sort_grid"], peers=False, progress=False, out=None)
    assert {r["status"] for r in rows} == {"ok"} and {r["n"] for r in rows} == {10, 60}


# -- the dynamic suite's physics scenes: resting bodies, mixed sizes ------------------------
def test_resting_frames_move_the_stated_fraction_and_keep_the_rest_bit_for_bit():
    n = 2000
    frames = agent_frames("resting", n, 6)
    everyone = agent_frames("random", n, 6)
    assert np.array_equal(frames[0], everyone[0])  # the random placement
    moved = np.zeros(n, dtype=bool)
    for f in frames[1:]:
        changed = np.any(f != frames[0], axis=1)
        assert changed.sum() <= round(0.05 * n)
        moved |= changed
    assert moved.sum() == round(RESTING_FRACTION * n) == 100
    for f, g in zip(frames, everyone):  # the movers move as they do when everyone moves; the others never
        assert np.array_equal(f[moved], g[moved])
        assert np.array_equal(f[~moved], frames[0][~moved])
    assert np.any(frames[1] != frames[0], axis=1).sum() >= 90  # only the few at a wall pause for a frame


def test_mixed_sizes_frames_move_every_agent_and_other_fractions_are_checked():
    frames = agent_frames("mixed_sizes", 500, 3)
    assert np.array_equal(frames[0], SUITES["dynamic"].scene("mixed_sizes", 500))
    assert np.any(frames[1] != frames[0], axis=1).mean() > 0.95
    widths = frames[0][:, 2] - frames[0][:, 0]
    assert widths.max() / widths.min() > 10  # sizes that differ by an order of magnitude
    assert set(MOVING_SCENES) <= set(SUITES["dynamic"].scenes) | {"random", "clustered"}
    assert {"resting", "mixed_sizes"} <= set(SUITES["dynamic"].scenes)
    half = agent_frames("random", 400, 2, moving=0.5)
    assert np.any(half[1] != half[0], axis=1).sum() <= 200
    still = agent_frames("clustered", 100, 2, moving=0.0)
    assert all(np.array_equal(f, still[0]) for f in still)
    for bad in (-0.1, 1.5, float("nan"), True, "half"):
        with pytest.raises(ValueError, match="moving must be a fraction"):
            agent_frames("random", 100, 2, moving=bad)
    with pytest.raises(ValueError, match="unknown scene"):
        agent_frames("moon", 100, 2)


class CountsUpdates(BruteForce):
    """Brute force that records how many ids each update_many call gets."""

    calls: list = []

    def update_many(self, ids, boxes):
        CountsUpdates.calls.append(len(ids))
        return super().update_many(ids, boxes)


def test_dynamic_suite_runs_the_new_scenes_checked_with_every_id_each_frame():
    suite = Suite("dynamic", ("resting", "mixed_sizes"), (300,), scaled=True, repeat=1, budget_s=20.0, frames=3,
                  warmup=1)
    names = ["uniform_grid", "sweep_and_prune", "quadtree", "dynamic_aabb_tree"]
    CountsUpdates.calls = []
    rows = run_dynamic(suite, structures={**{s: STRUCTURES[s] for s in names}, "counts": CountsUpdates},
                       peers=["cKDTree"] if PEERS["cKDTree"].available() else False, progress=False, out=None)
    ours = [r for r in rows if r["kind"] == "ours"]
    assert [(r["scene"], r["structure"]) for r in ours] == [(s, name) for s in suite.scenes
                                                            for name in names + ["counts"]]
    assert all(r["status"] == "ok" and r["frames"] == 3 and r["reference"] == "brute force" for r in rows
               if r["kind"] == "ours" or r["status"] != "skipped")
    for scene in suite.scenes:  # every structure found the same pairs in the last frame
        assert len({r["pairs"] for r in ours if r["scene"] == scene}) == 1
    # after the warm-up's 8: every id, every frame (4 frames per scene), the resting ones included
    assert CountsUpdates.calls == [8] + [300] * 8

"""Lesson 13's stored measurements (lessons_lib.labs.sim_measure, sim_layout): run small here, and the
stored full-size files hold what the lesson reads."""
from __future__ import annotations

import numpy as np

from lessons_lib import load_results
from lessons_lib.labs import sim_layout, sim_measure


def test_probe_medians_and_memory():
    row = sim_measure.probe("uniform_grid", 400, frames=5)
    assert row["n"] == 400 and row["mode"] == "update" and row["frames"] == 5
    assert all(row[f"{p}_ms"] >= 0 for p in ("move", "update", "pairs", "narrow", "respond", "step"))
    assert row["memory_bytes"] > 0 and row["contacts"] <= row["candidates"]


def test_measure_and_store_small(tmp_path):
    m = sim_measure.measure(log=None, sizes=(300, 600), structures=["uniform_grid", "sweep_and_prune"],
                            long_frames={600: 8}, frame_structures=("quadtree",), frame_n=300, frame_frames=6,
                            rebuild_sizes=(300,), scene_sizes=(300,))
    assert {r["n"] for r in m["scaling"]} == {300, 600}
    assert sim_measure.fastest(m["scaling"], 600)["structure"] in ("uniform_grid", "sweep_and_prune")
    assert sim_measure.fastest(m["scaling"], 7) is None
    assert set(m["long"]) == {600} and {r["structure"] for r in m["frames"]} >= {"quadtree"}
    assert sorted(r["mode"] for r in m["rebuild_vs_update"]) == ["rebuild", "rebuild", "update", "update"]
    assert {(r["scene"], r["mode"]) for r in m["scenes"]} == {(s, mode) for s in sim_measure.SIM_SCENES
                                                              for mode in ("update", "rebuild")}
    paths = sim_measure.store_results(log=None, measured=m, names=[tmp_path / f"{k}.csv" for k in "abcd"])
    tables = [load_results(p) for p in paths]
    assert all(t.meta["command"] == "python -m lessons_lib.labs.sim_measure --store" for t in tables)
    assert len(tables[0]) == 4 and len(tables[2]) == 4 and len(tables[3]) == 12
    assert sim_measure.RESULTS[-1] == "sim_scenes"


def test_scenes_measure_every_structure_in_both_modes_on_the_same_run(tmp_path):
    few = {"moving": {}, "resting": {"moving": 0.05},
           "giants": {"moving": 0.05, "giants": 2, "giant_radius": (15.0, 25.0)}}
    names = ["uniform_grid", "dynamic_aabb_tree"]
    rows = sim_measure.scenes(sizes=(1_000, 2_000), structures=names, scenes=few, frames=5, log=None)
    assert len(rows) == 3 * 2 * 2 * 2
    for scene, kw in few.items():
        for n in (1_000, 2_000):
            here = [r for r in rows if r["scene"] == scene and r["n"] == n]
            assert sorted((r["structure"], r["mode"]) for r in here) == sorted(
                (s, m) for s in names for m in ("update", "rebuild"))
            assert len({(r["candidates"], r["contacts"], r["resting"]) for r in here}) == 1  # one run, any structure
            assert all(r["moving"] == kw.get("moving", 1.0) and r["giants"] == kw.get("giants", 0) for r in here)
            assert all(r["step_ms"] >= r["update_ms"] + r["pairs_ms"] > 0 for r in here)
            resting = here[0]["resting"]
            assert resting == 0.0 if scene == "moving" else 0.85 < resting <= 0.95
    path = sim_measure.store_scenes(log=None, name=tmp_path / "scenes.csv", sizes=(500,), structures=["quadtree"],
                                    scenes={"resting": {"moving": 0.05}}, frames=4)
    t = load_results(path)
    assert t.meta["command"] == "python -m lessons_lib.labs.sim_measure --store sim_scenes"
    assert t["mode"].tolist() == ["update", "rebuild"] and t.unique("scene") == ["resting"]


def test_store_frames_alone_follows_the_given_scaling_rows(tmp_path):
    rows = [{"structure": "uniform_grid", "n": 300, "step_ms": 1.0}, {"structure": "quadtree", "n": 300, "step_ms": 2.0}]
    path = sim_measure.store_frames(log=None, name=tmp_path / "frames.csv", scaling_rows=rows, long_frames={300: 6},
                                    frame_structures=("uniform_grid", "quadtree"), frame_n=300, frame_frames=6)
    t = load_results(path)
    assert t.meta["command"] == "python -m lessons_lib.labs.sim_measure --store sim_frames"
    assert t.unique("structure") == ["uniform_grid", "quadtree"]
    assert len(t.where(structure="uniform_grid")) == 2  # the long run only (frames 1 and 5), not run twice


def test_layout_costs_small_and_stored(tmp_path):
    rows = sim_layout.layout_costs(sizes=(500,), structures=("uniform_grid",), frames=2, warmup=1, reps=1, log=None)
    assert [r["layout"] for r in rows] == ["hilbert", "random"]
    assert all(r["cpu_lo_ms"] <= r["cpu_ms"] <= r["cpu_hi_ms"] for r in rows)
    path = sim_layout.store_results(log=None, name=tmp_path / "layout.csv", sizes=(300,), structures=("quadtree",),
                                    frames=2, warmup=1, reps=1)
    assert load_results(path).meta["command"] == "python -m lessons_lib.labs.sim_layout --store"


def test_the_stored_simulation_files_have_what_lessons_12_13_read():
    scaling = load_results("sim_scaling")
    for column in ("structure", "n", "move_ms", "update_ms", "pairs_ms", "narrow_ms", "respond_ms", "step_ms",
                   "memory_bytes"):
        assert len(scaling[column]), column
    assert {20_000, 100_000, 500_000} <= set(scaling["n"].tolist())
    frames = load_results("sim_frames")
    assert len(frames.where(n=20_000).unique("structure")) >= 3
    rvu = load_results("sim_rebuild_vs_update")
    assert set(rvu["mode"].tolist()) == {"update", "rebuild"}
    layout = load_results(sim_layout.LAYOUT_RESULTS)
    for n in (20_000, 100_000, 500_000):
        for name in layout.where(n=n).unique("structure"):
            t = layout.where(n=n, structure=name)
            assert sorted(t["layout"].tolist()) == ["hilbert", "random"]
            assert np.all(t["cpu_ms"] > 0)
    for t in (scaling, frames, rvu, layout):
        assert t.meta["command"].startswith("python -m lessons_lib.labs.sim_")

"""The measurements lessons 05-07 store: small runs give consistent rows, and every answer was checked."""
import numpy as np
import pytest

from lessons_lib.labs import loose as loose_lab
from lessons_lib.labs import quadtrees as qt_lab
from lessons_lib.scenes import scaled_scene
from lessons_lib.structures.quadtree import Quadtree


def test_stored_vs_computed_rects_small():
    rows = qt_lab.stored_vs_computed_rects(sizes=(1_500,), repeat=1)
    assert [r["layout"] for r in rows] == ["computed", "stored"]
    assert rows[0]["nodes"] == rows[1]["nodes"] > 1
    assert all(r["query_ms"] >= 0 and r["node_bytes"] in (8, 48) for r in rows)


def test_cleanup_frames_small_keeps_both_trees_right():
    rows = qt_lab.cleanup_frames(n=1_500, frames=4, speed=6.0, chunk=64, capacity=1)
    ways = {r["way"] for r in rows}
    assert ways == {"deferred", "immediate"} and len(rows) == 8
    assert all(r["freed"] >= 0 and r["nodes"] >= 1 for r in rows)


def test_immediate_collapse_leaves_a_valid_tree():
    boxes = np.array([[1, 1, 2, 2], [3, 3, 4, 4], [80, 80, 81, 81.]])
    q = Quadtree.from_boxes(boxes, world=(0, 0, 100, 100), capacity=1, max_depth=5)
    before = q.node_count()
    q.remove(0)
    q.remove(1)
    freed = qt_lab.collapse_paths(q.nodes, q.node_meta, boxes[:2], 0.0, 0.0, 32 / 100, 32 / 100, 5, True)
    assert freed >= 1 and q.node_count() == before - 4 * freed
    q.check_invariants()
    assert q.query([0, 0, 100, 100]).tolist() == [2]


def test_capacity_depth_sweep_small():
    rows = qt_lab.capacity_depth_sweep(n=1_500, capacities=(2, 8), depths=(3, 6), repeat=1)
    assert len(rows) == 4
    shallow = next(r for r in rows if r["capacity"] == 2 and r["max_depth"] == 3)
    deep = next(r for r in rows if r["capacity"] == 2 and r["max_depth"] == 6)
    assert shallow["depth"] <= 3 and deep["nodes"] > shallow["nodes"]


def test_bounce_keeps_boxes_in_the_world():
    world = np.array([0.0, 0.0, 10.0, 10.0])
    boxes = np.array([[0.5, 0.5, 1.5, 1.5], [8.0, 8.0, 9.5, 9.5]])
    vel = np.array([[-1.0, 0.0], [1.0, 1.0]])
    for _ in range(20):
        boxes = qt_lab.bounce(boxes, vel, world)
        assert (boxes[:, :2] >= world[:2]).all() and (boxes[:, 2:] <= world[2:]).all()


def test_memory_over_frames_small():
    rows = loose_lab.memory_over_frames({"LooseTightGrid": ("loose_tight_grid", {})}, n=1_000, frames=3)
    assert [r["frame"] for r in rows] == [0, 1, 2, 3]
    assert all(r["bytes_per_element"] > 0 for r in rows)


def test_measure_structures_reports_the_memory_parts():
    boxes = scaled_scene("mixed_sizes", 1_000)
    rows = loose_lab.measure_structures(boxes, loose_lab.COMPARED, queries=20, repeat=1)
    by = {r["structure"]: r for r in rows}
    assert by["LooseTightGrid"]["layout_bytes_per_element"] > 0
    assert by["Quadtree"]["layout_bytes_per_element"] == 0 and by["Quadtree"]["nodes"] > 0
    assert all(0 < r["table_bytes_per_element"] < r["bytes_per_element"] for r in rows)


def test_command_lines_print_help_without_store(capsys):
    assert qt_lab.main([]) == 0 and loose_lab.main([]) == 0
    assert "--store" in capsys.readouterr().out


def test_quadtree_array_stepper_frames_follow_a_real_tree():
    from lessons_lib.core.freelist import USED
    from lessons_lib.labs.quadtrees import ARRAY_OPERATIONS, quadtree_array_stepper
    from lessons_lib.structures.quadtree import Quadtree

    s = quadtree_array_stepper()
    frames = [s.frame(i) for i in range(s.n_steps)]
    assert len(frames) > 1
    qt = Quadtree(world=(0, 0, 64, 64), capacity=1, max_depth=3)
    for op in ARRAY_OPERATIONS:
        getattr(qt, op[0])(*op[1:])
    qt.check_invariants()
    last = frames[-1]
    assert np.array_equal(last["nodes"], qt.nodes[: int(qt.node_meta[USED])])
    assert np.array_equal(last["enodes"], qt.enodes[: int(qt.enode_meta[USED])])
    assert np.array_equal(last["node_meta"], qt.node_meta)
    assert np.array_equal(last["enode_meta"], qt.enode_meta)
    splits = [f for f in frames if "splits" in f["label"]]
    cleanups = [f for f in frames if f["label"].startswith("cleanup")]
    assert "children block 1..4" in splits[0]["label"] and "children block 5..8" in splits[1]["label"]
    assert [f["live"] for f in splits] == [5, 9]
    assert [f["live"] for f in cleanups] == [5, 1]  # one level per cleanup(): the lower block first
    assert cleanups[-1]["live"] == qt.node_count()
    assert [f["step"] for f in frames] == list(range(len(frames)))
    assert len(s.png(len(frames) - 1)) > 1000


def test_laid_out_steppers_store_their_key_steps_as_a_readable_still():
    import struct

    from lessons_lib.labs.quadtrees import free_list_stepper, quadtree_array_stepper
    from lessons_lib.widgets import Stepper

    s = quadtree_array_stepper()
    assert s.still_ncols == 1 and s.still_steps() == [3, 5, 6, 8]
    w, h = struct.unpack(">II", s.still_png()[16:24])
    assert w >= 480 and h >= 240 and w <= 3 * h
    f = free_list_stepper([("insert", 1), ("insert", 2), ("erase", 0), ("insert", 3)], key_steps=[2, 3, 4])
    w, h = struct.unpack(">II", f.still_png()[16:24])
    assert f.still_steps() == [2, 3, 4] and w >= 480 and h >= 240 and w <= 3 * h
    with pytest.raises(ValueError, match="still_ncols"):
        Stepper([1, 2], lambda ax, frame, prev: None, still_ncols=0)


def test_quadtree_array_stepper_refuses_bad_input():
    from lessons_lib.labs.quadtrees import quadtree_array_stepper

    with pytest.raises(ValueError, match="operation 1"):
        quadtree_array_stepper([("split", 0)])
    with pytest.raises(ValueError, match="capacity"):
        quadtree_array_stepper(capacity=8)


# -- lessons 06-07: exact visit counts and the readers of the stored results -----------------------
def test_query_visits_and_tight_grid_visits_small():
    rows = loose_lab.query_visits(["random"], n=1_500, queries=20)
    assert len(rows) == 1 and rows[0]["loose_visits"] >= 1 and rows[0]["compact_visits"] >= 1
    assert rows[0]["loose_nodes"] >= 1 and rows[0]["compact_nodes"] >= 1
    grid = loose_lab.tight_grid_visits(["mixed_sizes"], n=1_500, queries=20)
    assert grid[0]["non-empty"] > 0 and grid[0]["cells visited"] >= 0 and " x " in grid[0]["tight grid"]


def test_drift_settling_small():
    row = loose_lab.drift_settling(n=1_000, frames=3)
    assert row["agents"] == 1_000 and row["frames"] == 3
    assert 0 <= row["compact"] <= 3 and 0 <= row["loose"] <= 3


def test_stored_result_readers_agree_with_the_files():
    from lessons_lib.data import load_results

    table = load_results("loose_structures")
    ratios = loose_lab.time_ratio_rows(table)
    assert len(ratios) == 4
    r = ratios[0]
    want = (table.where(n=r["n"], scene=r["scene"], structure="LooseQuadtree")["frame_ms"][0]
            / table.where(n=r["n"], scene=r["scene"], structure="Quadtree")["frame_ms"][0])
    assert r["frame_ms"] == pytest.approx(want)
    names = ["UniformGrid", "Quadtree", "LooseQuadtree", "LooseTightGrid"]
    assert [row["structure"] for row in loose_lab.case_rows(table, names)] == names
    mem = loose_lab.memory_rows(table)
    assert all(row["element table"] > 0 for row in mem) and "change %" in mem[0]
    parts = loose_lab.memory_parts_rows(table, names)
    assert all(row["bytes"] == pytest.approx(row["without the copy"] + row["cell-order copy"]) for row in parts)
    frames = load_results("loose_memory")
    assert {row["structure"] for row in loose_lab.frame_spread_rows(frames)} == {"Quadtree", "LooseQuadtree"}
    assert len(loose_lab.memory_change_rows(frames, names)) == 4
    settle = loose_lab.settling_rows(extra=[{"run": "x", "agents": 1, "frames": 1, "compact": 0, "loose": 0}])
    assert [row["run"] for row in settle][1] == "x" and len(settle) == 3
    anchor = loose_lab.anchor_rows()
    assert anchor and all(row["C quadtree"] > 0 and row["loose_quadtree"] > 0 for row in anchor)
    grid = loose_lab.double_grid_rows()
    assert all(row["grid / tree"] == pytest.approx(row["double grid"] / row["compact quadtree"]) for row in grid)
    assert all(row["grid / fastest"] >= 1.0 - 1e-12 for row in grid)
    assert {"lesson 12: dynamic suite, 'mixed_sizes'", "lesson 13: step, 'giants'"} <= {row["where"] for row in grid}
    assert all(row["n"] >= 10_000 for row in grid if row["where"].startswith("lesson 12"))
    trick = loose_lab.uniform_size_rows()
    assert all(row["speed-up"] == pytest.approx(row["boxes (UniformGrid)"] / row["points (PointGrid)"]) for row in trick)


def test_stored_result_plots_draw():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from lessons_lib.data import load_results

    table = load_results("loose_structures")
    fig, (ax, ax_m, ax_t) = plt.subplots(1, 3)
    loose_lab.plot_time_ratios(ax, loose_lab.time_ratio_rows(table))
    loose_lab.plot_memory_over_frames(ax_m, ax_t, load_results("loose_memory"), ["Quadtree", "LooseQuadtree"])
    assert len(ax.patches) == 16 and len(ax_m.lines) == 2
    plt.close(fig)
    fig = plt.figure()
    loose_lab.plot_structure_times(fig, table, ["Quadtree", "LooseTightGrid"])
    assert len(fig.axes) == 4 and fig.legends
    plt.close(fig)
    fig = plt.figure()
    loose_lab.plot_split_frames(fig, load_results("loose_split"))
    assert len(fig.axes) == 2 and fig.legends
    plt.close(fig)

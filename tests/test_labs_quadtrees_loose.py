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
    qt = Quadtree(world=(0, 0, 64, 64), capacity=2, max_depth=3)
    for op in ARRAY_OPERATIONS:
        getattr(qt, op[0])(*op[1:])
    qt.check_invariants()
    last = frames[-1]
    assert np.array_equal(last["nodes"], qt.nodes[: int(qt.node_meta[USED])])
    assert np.array_equal(last["enodes"], qt.enodes[: int(qt.enode_meta[USED])])
    assert np.array_equal(last["node_meta"], qt.node_meta)
    assert np.array_equal(last["enode_meta"], qt.enode_meta)
    split = next(f for f in frames if "splits" in f["label"])
    cleanup = next(f for f in frames if f["label"].startswith("cleanup"))
    assert "children block 1..4" in split["label"]
    assert cleanup["live"] < split["live"] == 5
    assert cleanup["live"] == qt.node_count()
    assert len(s.png(len(frames) - 1)) > 1000


def test_quadtree_array_stepper_refuses_bad_input():
    from lessons_lib.labs.quadtrees import quadtree_array_stepper

    with pytest.raises(ValueError, match="operation 1"):
        quadtree_array_stepper([("split", 0)])
    with pytest.raises(ValueError, match="capacity"):
        quadtree_array_stepper(capacity=8)

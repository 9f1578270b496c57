"""The loose quadtree of lesson 06 against brute force, its invariants, and its loose bounds.

Fixed scenes, hypothesis scenes, long random operation sequences with
``check_invariants`` along the way (``exact=True`` after every cleanup: each
node's bounds equal the union of what lies beneath, no stale growth), the
float32 outward rounding, and parameter errors. The common contract runs in
test_base.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays, filter_query, nested_loop_pairs
from loose_helpers import check_against, run_sequence
from lessons_lib import SCENES, LooseQuadtree, Quadtree, brute_force_pairs, make_scene
from lessons_lib.structures.loose_bounds import EMPTY_RECT, f32_down, f32_up

PARAMS = [(1, 0), (1, 3), (2, 5), (4, 6), (8, 8)]


@pytest.mark.parametrize("scene", SCENES)
def test_scenes_equal_brute_force(scene):
    boxes = make_scene(scene, 400, seed=3)
    ref = brute_force_pairs(boxes)
    for capacity, max_depth in [(8, 8), (2, 6), (1, 10)]:
        bp = LooseQuadtree.from_boxes(boxes, capacity=capacity, max_depth=max_depth)
        bp.check_invariants(exact=True)  # a bulk load leaves exact bounds
        np.testing.assert_array_equal(bp.pairs(), ref)
        q = [100.0, 100.0, 300.0, 250.0]
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


WORLDS = [None, [0.0, 0.0, 800.0, 600.0], [-500.0, -500.0, 500.0, 500.0], [3.0, -7.0, 13.0, 0.0]]


@settings(max_examples=40)
@given(boxes=box_arrays(max_size=40), params=st.sampled_from(PARAMS), world=st.sampled_from(WORLDS))
def test_hypothesis_scenes(boxes, params, world):
    capacity, max_depth = params
    bp = LooseQuadtree.from_boxes(boxes, capacity=capacity, max_depth=max_depth, world=world)
    bp.check_invariants(exact=True)
    want = np.array(sorted(nested_loop_pairs(boxes)), dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(bp.pairs(), want)
    # Inserted one by one (other splits, same answer), then half removed and cleaned up.
    bp2 = LooseQuadtree(world=world, capacity=capacity, max_depth=max_depth)
    for i, b in enumerate(boxes):
        bp2.insert(i, b)
    np.testing.assert_array_equal(bp2.pairs(), want)
    model = {i: b for i, b in enumerate(boxes.tolist())}
    for i in range(0, len(boxes), 2):
        bp2.remove(i)
        del model[i]
    bp2.cleanup()
    check_against(bp2, model, [[0, 0, 10, 10], [5, 5, 5, 5]], exact=True)


@pytest.mark.parametrize("capacity, max_depth, seed", [(1, 4, 0), (2, 6, 1), (8, 8, 2), (3, 9, 3)])
def test_long_random_sequences(capacity, max_depth, seed):
    bp = LooseQuadtree(world=[0.0, 0.0, 100.0, 100.0], capacity=capacity, max_depth=max_depth)
    model = run_sequence(bp, seed)
    for i in list(model):  # drain: one cleanup collapses the whole tree back to the root
        bp.remove(i)
    bp.cleanup()
    bp.check_invariants(exact=True)
    assert bp.node_count() == 1 and bp.depth() == 0
    np.testing.assert_array_equal(bp.rects[0], EMPTY_RECT)


def test_bounds_grow_on_insert_and_shrink_on_cleanup():
    bp = LooseQuadtree(world=[0, 0, 100, 100], capacity=2, max_depth=4)
    bp.insert(0, [10, 10, 12, 12])
    bp.insert(1, [14, 14, 16, 16])
    np.testing.assert_array_equal(bp.rects[0], [10, 10, 16, 16])
    bp.insert(2, [20, 20, 90, 30])  # centre (55, 25): bottom-right quadrant, reaching far left
    bp.check_invariants(exact=True)
    bl = bp.nodes[0, 0] + 2
    br = bp.nodes[0, 0] + 3
    assert bp.nodes[0, 1] == -1  # the root split
    np.testing.assert_array_equal(bp.rects[bl], [10, 10, 16, 16])
    np.testing.assert_array_equal(bp.rects[br], [20, 20, 90, 30])  # loose: reaches into the left quadrant
    bp.remove(2)
    np.testing.assert_array_equal(bp.rects[0], [10, 10, 90, 30])  # remove leaves the bounds as they were
    bp.check_invariants()
    with pytest.raises(AssertionError, match="stale growth"):
        bp.check_invariants(exact=True)
    bp.cleanup()
    bp.check_invariants(exact=True)
    np.testing.assert_array_equal(bp.rects[0], [10, 10, 16, 16])
    np.testing.assert_array_equal(bp.rects[br], EMPTY_RECT)


def test_each_element_in_one_leaf_whatever_its_size():
    boxes = make_scene("random", 300, seed=1)
    small = LooseQuadtree.from_boxes(boxes, capacity=4)
    giants = boxes.copy()
    cx, cy = 0.5 * (giants[:, 0] + giants[:, 2]), 0.5 * (giants[:, 1] + giants[:, 3])
    giants = np.column_stack([cx - 150, cy - 150, cx + 150, cy + 150])  # same centres, 20x larger
    big = LooseQuadtree.from_boxes(giants, capacity=4, world=small.world)
    assert big.node_count() == small.node_count()  # the tree depends on centres only
    assert big.memory_bytes() == small.memory_bytes()
    compact = Quadtree.from_boxes(giants, capacity=4, world=small.world)
    # the compact tree would store each giant in every leaf it overlaps; its split rules (a split must not
    # copy most elements into most children) keep these mutually overlapping giants in one leaf instead
    assert compact.node_count() == 1 and compact.enode_meta[0] == len(giants)
    np.testing.assert_array_equal(big.pairs(), brute_force_pairs(giants))


def test_query_visits_only_nodes_whose_bounds_meet_it():
    boxes = make_scene("random", 2000, seed=2)
    bp = LooseQuadtree.from_boxes(boxes, capacity=8)
    got = bp.query([100, 100, 120, 120])
    np.testing.assert_array_equal(got, filter_query(np.arange(2000), boxes, [100, 100, 120, 120]))
    assert 0 < bp.last_query_nodes < bp.node_count() // 4
    bp.query([-1e6, -1e6, -1e6, -1e6])
    assert bp.last_query_nodes == 1 and bp.last_query_tests == 0  # the root's bounds reject it


def test_far_elements_grow_the_root_bounds_and_are_found():
    bp = LooseQuadtree(world=[0, 0, 100, 100], capacity=1, max_depth=5)
    for i, b in enumerate([[1e6, 1e6, 1e6 + 1, 1e6 + 1], [-5e5, 50, -5e5 + 2, 52], [10, 10, 11, 11], [1e6, 1e6, 1e6, 1e6]]):
        bp.insert(i, b)
    bp.check_invariants(exact=True)
    assert bp.rects[0, 2] >= 1e6 + 1 and bp.rects[0, 0] <= -5e5
    np.testing.assert_array_equal(bp.query([1e6, 1e6, 1e6, 1e6]), [0, 3])
    np.testing.assert_array_equal(bp.pairs(), [[0, 3]])
    assert bp.centre_cell([1e6, 1e6, 1e6 + 1, 1e6 + 1]) == (31, 31)  # clamped to the corner cell


@given(v=st.floats(allow_nan=False, allow_infinity=False))
def test_float32_rounding_is_outwards(v):
    lo, hi = float(f32_down(v)), float(f32_up(v))
    assert lo <= v <= hi
    assert np.float32(lo) == lo and np.float32(hi) == hi or abs(v) > 3e38
    if abs(v) < 3e38:
        assert hi == lo or np.nextafter(np.float32(lo), np.float32(np.inf)) == np.float32(hi)


def test_huge_coordinates_beyond_float32():
    bp = LooseQuadtree(world=[0, 0, 100, 100])
    bp.insert(0, [-1e300, 0, 1e300, 1])  # wider than any float32: bounds become infinite, still correct
    bp.insert(1, [5, 0.5, 6, 0.5])
    bp.insert(2, [1e299, 5, 1e299, 5])
    bp.check_invariants(exact=True)
    np.testing.assert_array_equal(bp.pairs(), [[0, 1]])
    np.testing.assert_array_equal(bp.query([1e299, 5, 1e299, 5]), [2])
    rects, depths = bp.regions()
    assert np.isfinite(rects).all()


def test_bad_update_leaves_bounds_and_leaves_unchanged():
    bp = LooseQuadtree.from_boxes(make_scene("mixed_sizes", 100, seed=4), capacity=4)
    before = (bp.nodes.copy(), bp.rects.copy(), bp.leaf.copy())
    with pytest.raises(ValueError, match="xmin 5.0 > xmax 1.0"):
        bp.update_many([1, 2], [[0, 0, 1, 1], [5, 0, 1, 1]])
    with pytest.raises(KeyError, match="unknown id 100"):
        bp.update(100, [0, 0, 1, 1])
    for a, b in zip(before, (bp.nodes, bp.rects, bp.leaf)):
        np.testing.assert_array_equal(a, b)


def test_elements_sharing_one_centre_cell_do_not_split_whatever_the_depth():
    bp = LooseQuadtree.from_boxes(np.tile([5.0, 5.0, 5.0, 5.0], (40, 1)), capacity=2, max_depth=30,
                                  world=[0, 0, 64, 64])
    bp.check_invariants(exact=True)
    assert bp.depth() == 0 and bp.node_count() == 1
    assert len(bp.pairs()) == 40 * 39 // 2
    bp.insert(40, [60, 60, 61, 61])  # another centre: the split separates it, one level suffices
    bp.check_invariants(exact=True)
    assert bp.depth() == 1
    bp.update(3, [5.5, 5.5, 5.5, 5.5])  # moves its centre inside the crowded leaf: the leaf splits
    bp.check_invariants()
    assert bp.depth() > 1 and bp.node_count() <= 1 + 4 * 30
    bp.update(3, [5, 5, 5, 5])
    bp.cleanup()
    bp.check_invariants(exact=True)
    assert len(bp.pairs()) == 40 * 39 // 2


def test_cleanup_merges_under_full_quartets():
    bp = LooseQuadtree(world=[0, 0, 64, 64], capacity=4, max_depth=6)
    for i, b in enumerate([[1, 1, 2, 2], [3, 3, 4, 4], [5, 5, 6, 6], [7, 7, 8, 8], [9, 9, 10, 10], [60, 60, 61, 61]]):
        bp.insert(i, b)
    assert bp.depth() >= 2
    for i in (1, 2, 3):
        bp.remove(i)
    bp.cleanup()  # three left, more than half the capacity: the crowded quartet stays
    bp.check_invariants(exact=True)
    assert bp.depth() >= 1
    bp.remove(4)
    bp.cleanup()  # two elements left, half the capacity: the whole tree merges back into the root, in one pass
    bp.check_invariants(exact=True)
    assert bp.node_count() == 1 and sorted(bp.leaf_elements(0)) == [0, 5]


@pytest.mark.parametrize("kw, pattern", [
    ({"capacity": 0}, "capacity"), ({"capacity": 2.5}, "capacity"), ({"capacity": True}, "capacity"),
    ({"max_depth": -1}, "max_depth"), ({"max_depth": 31}, "max_depth"), ({"max_depth": "8"}, "max_depth"),
])
def test_bad_parameters(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        LooseQuadtree(**kw)


def test_memory_layout():
    bp = LooseQuadtree.from_boxes(make_scene("random", 1000, seed=0))
    assert bp.nodes.dtype == np.int32 and bp.nodes.shape[1] == 2
    assert bp.rects.dtype == np.float32 and bp.rects.shape[1] == 4
    assert bp.enext.dtype == np.int32 and bp.leaf.dtype == np.int32
    assert bp.memory_bytes() == bp.elements.nbytes() + bp.nodes.nbytes + bp.rects.nbytes + bp.enext.nbytes + bp.leaf.nbytes
    t = bp.node_table()
    assert (t["bounds"][t["count"] != 0][:, 0] <= t["bounds"][t["count"] != 0][:, 2]).all()

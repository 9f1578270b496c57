"""The k-d tree with exact node bounds (lessons_lib.structures.kdtree)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from bp_strategies import box_arrays
from lessons_lib import SCENES, KDTree, brute_force_pairs, make_scene
from lessons_lib.structures.kdtree import median_by_selection, median_by_sort
from tree_helpers import random_sequence


@pytest.mark.parametrize("split_axis", ["alternate", "spread"])
@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("capacity", [1, 4, 8])
def test_scenes(split_axis, scene, capacity):
    boxes = make_scene(scene, 300, seed=13)
    t = KDTree.from_boxes(boxes, capacity=capacity, split_axis=split_axis)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))
    assert t.height <= int(np.ceil(np.log2(300 / capacity))) + 2  # median splits: balanced


@settings(max_examples=40)
@given(boxes=box_arrays(max_size=50))
def test_hypothesis(boxes):
    t = KDTree.from_boxes(boxes, capacity=3)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))


@pytest.mark.parametrize("params", [{}, {"capacity": 2, "split_axis": "spread"}, {"capacity": 1}])
def test_long_random_sequence(params):
    random_sequence(KDTree(**params), steps=400, seed=5)


def test_alternating_axes():
    t = KDTree.from_boxes(make_scene("random", 200, seed=1), capacity=4)
    nd = t.nodes
    depths = nd.depths(nd.live())
    for v, d in zip(nd.live().tolist(), depths.tolist()):
        if nd.level[v] > 0:
            assert t._axis[v] == d % 2


def test_spread_axis_on_a_horizontal_line():
    boxes = make_scene("yline", 200, seed=1)  # boxes along a horizontal line: x spreads far more
    t = KDTree.from_boxes(boxes, capacity=4, split_axis="spread")
    root = t.nodes.root
    assert t._axis[root] == 0


def test_duplicates_still_split():
    boxes = np.tile([[5.0, 5, 6, 6]], (50, 1))
    t = KDTree.from_boxes(boxes, capacity=4)
    t.check_invariants()
    assert len(t.pairs()) == 50 * 49 // 2
    t2 = KDTree(capacity=4)
    for i, b in enumerate(boxes):
        t2.insert(i, b)
    t2.check_invariants()
    assert len(t2.pairs()) == 50 * 49 // 2


def test_medians_agree():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 100, 1001):
        v = rng.normal(size=n)
        assert median_by_sort(v) == median_by_selection(v)


def test_cleanup_rebalances():
    t = KDTree(capacity=2)
    for i in range(200):  # sorted inserts make a lopsided tree
        t.insert(i, [i, i, i + 1, i + 1])
    h = t.height
    t.cleanup()
    t.check_invariants()
    assert t.height <= h and t.height <= 9


@pytest.mark.parametrize("params, exc, pattern", [
    ({"capacity": 0}, ValueError, "capacity must be an integer >= 1, got 0"),
    ({"capacity": 2.5}, ValueError, "capacity must be an integer"),
    ({"split_axis": "x"}, ValueError, "split_axis must be one of .alternate., .spread."),
])
def test_parameters(params, exc, pattern):
    with pytest.raises(exc, match=pattern):
        KDTree(**params)


def test_empty():
    t = KDTree()
    assert t.pairs().shape == (0, 2) and t.query([0, 0, 1, 1]).shape == (0,)
    assert t.query_visits([0, 0, 1, 1])[1] == 0 and t.quality() == []
    t.insert(1, [0, 0, 1, 1])
    t.remove(1)
    assert t.height == 0
    t.check_invariants()


def test_node_count_stays_bounded_by_the_elements():
    """Removes never merge leaves: without a rebuild, inserts and removes in turn grew the nodes forever."""
    rng = np.random.default_rng(2)
    t = KDTree(capacity=4)
    for i in range(200):
        t.insert(i, [i, 0, i + 1, 1])
    t.cleanup()
    nodes = t.nodes.capacity
    for step in range(3000):  # the same 200 elements moved one at a time, to new places
        i = int(rng.integers(0, 200))
        x = float(rng.uniform(0, 5000))
        t.update(i, [x, 0, x + 1, 1])
        assert t.nodes.capacity == nodes
    t.check_invariants()
    assert t.height <= 12

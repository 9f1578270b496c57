"""Packed R-trees (lessons_lib.structures.bulk_rtree): Nearest-X, STR, Hilbert."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from bp_strategies import box_arrays
from lessons_lib import SCENES, BulkRTree, RTree, brute_force_pairs, make_scene
from lessons_lib.structures.bulk_rtree import even_runs, pack_order, slice_count, str_groups
from tree_helpers import random_sequence

METHODS = ["str", "hilbert", "nearest_x"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("max_entries", [2, 5, 16])
def test_packed_tree_is_valid_and_exact(method, scene, max_entries):
    boxes = make_scene(scene, 300, seed=11)
    t = BulkRTree.from_boxes(boxes, method=method, max_entries=max_entries)
    t.check_invariants()
    assert all(c >= max_entries // 2 for c in t.nodes.count[t.nodes.live()[1:]])
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=30)
@given(boxes=box_arrays(max_size=60))
def test_hypothesis_packing(method, boxes):
    t = BulkRTree.from_boxes(boxes, method=method, max_entries=4)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))


@pytest.mark.parametrize("method", METHODS)
def test_dynamic_after_packing(method):
    random_sequence(BulkRTree(method=method, max_entries=5), steps=300, seed=3)
    t = BulkRTree.from_boxes(make_scene("clustered", 200, seed=1), method=method, max_entries=6)
    random_sequence(t, steps=200, seed=4)


def test_packing_fills_nodes_better_than_insertion():
    boxes = make_scene("random", 2000, seed=5)
    packed = BulkRTree.from_boxes(boxes, max_entries=16)
    inserted = RTree.from_boxes(boxes, max_entries=16)
    assert packed.nodes.n_nodes() < 0.8 * inserted.nodes.n_nodes()
    assert packed.quality()[-1].mean_fill > 15


def test_str_beats_nearest_x_on_margin():
    boxes = make_scene("random", 3000, seed=6)
    leaves = {m: BulkRTree.from_boxes(boxes, method=m).quality()[-1] for m in METHODS}
    assert leaves["str"].margin < 0.5 * leaves["nearest_x"].margin
    assert leaves["hilbert"].margin < 0.7 * leaves["nearest_x"].margin


def test_even_runs():
    assert even_runs(10, 4).tolist() == [4, 3, 3]
    assert even_runs(16, 4).tolist() == [4, 4, 4, 4]
    assert even_runs(3, 4).tolist() == [3]
    assert even_runs(0, 4).tolist() == []
    for k in range(1, 200):
        r = even_runs(k, 7)
        assert r.sum() == k and r.max() <= 7 and (k < 7 or r.min() >= 3)


def test_str_groups_slices_and_sorts():
    rng = np.random.default_rng(0)
    c = rng.uniform(0, 100, size=(100, 2))
    order, sizes = str_groups(c, 4)
    assert sorted(order.tolist()) == list(range(100)) and sizes.sum() == 100 and sizes.max() <= 4
    assert len(sizes) == 25
    # 5 slices of 20: x ranges do not interleave, y increases within a slice
    sl = order.reshape(5, 20)
    assert all(c[sl[i], 0].max() <= c[sl[i + 1], 0].min() for i in range(4))
    assert all((np.diff(c[s, 1]) >= 0).all() for s in sl)


def test_pack_order_nearest_x_axis():
    c = np.array([[3.0, 0], [1, 5], [2, 9]])
    assert pack_order(c, "nearest_x").tolist() == [1, 2, 0]
    assert pack_order(c, "nearest_x", sort_axis=1).tolist() == [0, 1, 2]
    tall = np.column_stack([np.zeros(10), np.arange(10.0)[::-1]])
    assert pack_order(tall, "nearest_x", sort_axis="variance").tolist() == list(range(9, -1, -1))


def test_cleanup_and_update_many_repack():
    boxes = make_scene("random", 400, seed=2)
    t = BulkRTree.from_boxes(boxes, max_entries=8)
    for i in range(100, 400):
        t.remove(i)
    t.cleanup()
    t.check_invariants()
    assert t.quality()[-1].mean_fill > 7
    moved = boxes[:100] + 5.0
    t.update_many(np.arange(100), moved)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(moved))


@pytest.mark.parametrize("params, exc, pattern", [
    ({"method": "omt"}, ValueError, "method must be one of"),
    ({"max_entries": 1}, ValueError, "max_entries must be an integer in 2..4096, got 1"),
    ({"max_entries": "16"}, ValueError, "max_entries must be an integer"),
    ({"sort_axis": 2}, ValueError, "sort_axis must be one of 0, 1, .variance."),
    ({"max_entries": 6, "min_entries": 4}, ValueError, "min_entries must be an integer in 1..3"),
])
def test_parameters(params, exc, pattern):
    with pytest.raises(exc, match=pattern):
        BulkRTree(**params)


def test_empty():
    t = BulkRTree.from_boxes(np.empty((0, 4)))
    assert t.height == 0 and t.pairs().shape == (0, 2)
    t.cleanup()
    t.check_invariants()


def _line(n, seed=0):
    """0.5 x 0.5 boxes along a line n units long and one unit tall."""
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(0, n, n), rng.uniform(0, 0.5, n)
    return np.column_stack([x, y, x + 0.5, y + 0.5])


def test_slice_count_follows_the_aspect_of_the_centres():
    square = np.random.default_rng(1).uniform(0, 100, (400, 2))
    assert slice_count(square, 25) in (5, 6)
    assert slice_count(np.column_stack([np.arange(100.0), np.zeros(100)]), 25) == 25  # a horizontal line
    assert slice_count(np.column_stack([np.zeros(100), np.arange(100.0)]), 25) == 1  # a vertical line
    assert slice_count(np.zeros((10, 2)), 9) == 3  # one point: as on a square
    assert slice_count(np.array([[-1.7e308, 0.0], [1.7e308, 1.0]]), 16) == 16  # spreads that overflow


@pytest.mark.parametrize("method", METHODS)
def test_a_long_thin_line_packs_into_disjoint_leaves(method):
    """Regression: STR cut a 40,000 x 1 line into sqrt(P) slices 200 times as wide as tall, whose leaves
    all overlapped one another; pairs() took 50 times as long as RTree's."""
    boxes = _line(8000)
    for b in (boxes, boxes[:, [1, 0, 3, 2]])[: 1 if method == "nearest_x" else 2]:  # along x, then along y
        t = BulkRTree.from_boxes(b, method=method)
        leaves = t.quality()[-1]
        assert leaves.overlap < 0.05 * leaves.area, (method, leaves)
        np.testing.assert_array_equal(t.pairs(), brute_force_pairs(b))


def test_extreme_coordinates_pack():
    big = 1.7e308
    boxes = np.array([[-big, -big, big, big], [0, 0, 1, 1], [big, big, big, big], [-big, 0, -big, 0],
                      [5e-324, 5e-324, 1e-323, 1e-323], [2, 2, 3, 3]])
    for method in METHODS:
        t = BulkRTree.from_boxes(boxes, method=method, max_entries=2)
        t.check_invariants()
        np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))

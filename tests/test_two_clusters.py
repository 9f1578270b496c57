"""Tests of lessons_lib.labs.two_clusters: the split is safe, the pairs are right, the counts add up."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bp_strategies import box_arrays, lattice_box
from lessons_lib import SCENES, brute_force_pairs, make_scene, pair_test_count, split_two_clusters, two_cluster_pairs
from lessons_lib.geometry import axis_of_larger_variance
from lessons_lib.labs.two_clusters import ClusterSplit

axes = st.sampled_from([None, 0, 1])


def check_split(boxes: np.ndarray, s: ClusterSplit) -> None:
    """Partition of the rows, no box of one side meets a box of the other, cut in the gap."""
    n = len(boxes)
    assert s.axis in (0, 1)
    assert s.left.dtype == np.int64 and s.right.dtype == np.int64
    assert sorted(s.left.tolist() + s.right.tolist()) == list(range(n))
    assert s.tests == pair_test_count(len(s.left)) + pair_test_count(len(s.right))
    if len(s.right) == 0:
        assert math.isnan(s.cut) and s.gap == 0.0
        return
    assert (np.diff(s.left) > 0).all() and (np.diff(s.right) > 0).all()  # sorted row indices
    assert len(s.left) >= 1 and s.gap > 0
    a, b = boxes[s.left], boxes[s.right]
    k = s.axis
    # Every box on the left ends before the cut, every box on the right starts after it.
    assert a[:, k + 2].max() < s.cut < b[:, k].min()
    assert math.isclose(b[:, k].min() - a[:, k + 2].max(), s.gap, rel_tol=1e-12, abs_tol=1e-12)
    cross = (
        (a[:, None, 0] <= b[None, :, 2])
        & (b[None, :, 0] <= a[:, None, 2])
        & (a[:, None, 1] <= b[None, :, 3])
        & (b[None, :, 1] <= a[:, None, 3])
    )
    assert not cross.any()


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------
@given(box_arrays(max_size=40), axes)
def test_split_sides_never_meet(boxes, axis):
    check_split(boxes, split_two_clusters(boxes, axis))


@given(box_arrays(max_size=40), axes)
def test_pairs_equal_brute_force(boxes, axis):
    pairs, tests = two_cluster_pairs(boxes, axis)
    expected = brute_force_pairs(boxes)
    assert pairs.dtype == np.int64 and pairs.shape[1] == 2
    np.testing.assert_array_equal(pairs, expected)
    assert tests == split_two_clusters(boxes, axis).tests
    assert tests <= pair_test_count(len(boxes))


@given(box_arrays(min_size=2, max_size=30, box=lattice_box(lo=0, hi=12, max_size=4)), axes)
def test_dense_lattice(boxes, axis):
    """Small integer boxes: lots of touching across candidate gaps."""
    s = split_two_clusters(boxes, axis)
    check_split(boxes, s)
    np.testing.assert_array_equal(two_cluster_pairs(boxes, axis)[0], brute_force_pairs(boxes))


@pytest.mark.parametrize("scene", SCENES)
def test_scenes(scene):
    boxes = make_scene(scene, 300, seed=1)
    s = split_two_clusters(boxes)
    check_split(boxes, s)
    pairs, tests = two_cluster_pairs(boxes)
    np.testing.assert_array_equal(pairs, brute_force_pairs(boxes))


# --------------------------------------------------------------------------
# Worked examples from lesson 01
# --------------------------------------------------------------------------
def two_groups(a: int, b: int, gap: float = 50.0, seed: int = 0) -> np.ndarray:
    """``a`` boxes in [0, 100] x [0, 100] and ``b`` boxes starting exactly ``gap`` to the right of them."""
    rng = np.random.default_rng(seed)
    left = make_scene("random", a, seed=seed, world=[0, 0, 100 - 16, 100])
    right = make_scene("random", b, seed=seed + 1, world=[0, 0, 100 - 16, 100])
    right[:, [0, 2]] += left[:, 2].max() + gap - right[:, 0].min()
    boxes = np.vstack([left, right])
    return boxes[rng.permutation(len(boxes))]  # the split must not rely on input order


@pytest.mark.parametrize("a, b", [(60, 40), (50, 50), (90, 10), (1, 30)])
def test_separated_clusters_save_tests(a, b):
    boxes = two_groups(a, b)
    n = a + b
    pairs, tests = two_cluster_pairs(boxes, axis=0)
    assert tests == pair_test_count(a) + pair_test_count(b)
    assert tests < pair_test_count(n)
    np.testing.assert_array_equal(pairs, brute_force_pairs(boxes))
    s = split_two_clusters(boxes, axis=0)
    assert sorted([len(s.left), len(s.right)]) == sorted([a, b])
    assert s.gap == pytest.approx(50.0)


def test_no_gap_chain_costs_all_tests():
    """Each box overlaps the next: no empty gap, so the split saves nothing."""
    n = 40
    x = np.arange(n) * 10.0
    boxes = np.column_stack([x, np.zeros(n), x + 15.0, np.full(n, 5.0)])
    s = split_two_clusters(boxes)
    assert len(s.right) == 0 and len(s.left) == n
    assert math.isnan(s.cut) and s.gap == 0.0
    pairs, tests = two_cluster_pairs(boxes)
    assert tests == pair_test_count(n)
    np.testing.assert_array_equal(pairs, brute_force_pairs(boxes))
    assert len(pairs) == n - 1


def test_touching_across_the_gap_is_not_split():
    # Two groups joined by boxes that only share an edge (x = 10 and x = 20).
    boxes = np.array(
        [
            [0, 0, 5, 5],
            [2, 1, 10, 3],  # touches the next box at x = 10
            [10, 0, 20, 1],  # touches the next box at x = 20
            [20, 0, 30, 5],
            [25, 1, 28, 4],
        ],
        dtype=float,
    )
    s = split_two_clusters(boxes, axis=0)
    assert len(s.right) == 0
    pairs, tests = two_cluster_pairs(boxes, axis=0)
    np.testing.assert_array_equal(pairs, [[0, 1], [1, 2], [2, 3], [3, 4]])
    assert tests == pair_test_count(5)


def test_touching_point_box_is_not_split():
    boxes = np.array([[0, 0, 10, 10], [10, 10, 10, 10], [30, 0, 40, 10]], dtype=float)
    s = split_two_clusters(boxes, axis=0)
    assert s.left.tolist() == [0, 1] and s.right.tolist() == [2]
    assert s.gap == 20.0 and s.cut == 20.0


def test_long_box_reaching_over_neighbours():
    """Sorted by left edge, box 1's short neighbours leave a 'gap' that box 0 spans."""
    boxes = np.array(
        [
            [0, 0, 100, 1],  # long: reaches over everything up to x = 100
            [1, 0, 2, 1],
            [3, 0, 4, 1],
            [50, 0, 51, 1],  # 46 units after box 2 ends, but inside box 0
            [150, 0, 151, 1],  # a real gap of 50 after box 0 ends
        ],
        dtype=float,
    )
    s = split_two_clusters(boxes, axis=0)
    check_split(boxes, s)
    assert s.left.tolist() == [0, 1, 2, 3] and s.right.tolist() == [4]
    assert s.gap == 50.0 and s.cut == 125.0
    pairs, tests = two_cluster_pairs(boxes, axis=0)
    np.testing.assert_array_equal(pairs, [[0, 1], [0, 2], [0, 3]])
    assert tests == pair_test_count(4)
    # Without the long box's end the widest gap would be 50 -> 150 ... but [4, 50] must not be cut.
    boxes_no_tail = boxes[:4]
    s2 = split_two_clusters(boxes_no_tail, axis=0)
    assert len(s2.right) == 0
    np.testing.assert_array_equal(two_cluster_pairs(boxes_no_tail, axis=0)[0], [[0, 1], [0, 2], [0, 3]])


def test_widest_gap_is_chosen():
    boxes = np.array([[0, 0, 1, 1], [3, 0, 4, 1], [20, 0, 21, 1], [22, 0, 23, 1]], dtype=float)
    s = split_two_clusters(boxes, axis=0)
    assert s.left.tolist() == [0, 1] and s.right.tolist() == [2, 3]
    assert s.gap == 16.0 and s.cut == 12.0


def test_split_along_y():
    boxes = np.array([[0, 0, 100, 1], [5, 2, 90, 3], [0, 50, 100, 51]], dtype=float)
    s = split_two_clusters(boxes, axis=1)
    assert s.axis == 1 and s.left.tolist() == [0, 1] and s.right.tolist() == [2]
    assert s.gap == 47.0
    assert len(split_two_clusters(boxes, axis=0).right) == 0  # along x they all overlap


# --------------------------------------------------------------------------
# Axis choice
# --------------------------------------------------------------------------
def test_axis_of_larger_variance():
    wide = np.array([[0, 0, 1, 1], [100, 5, 101, 6], [200, 0, 201, 1]], dtype=float)
    tall = wide[:, [1, 0, 3, 2]]
    assert axis_of_larger_variance(wide) == 0
    assert axis_of_larger_variance(tall) == 1
    assert split_two_clusters(wide).axis == 0
    assert split_two_clusters(tall).axis == 1
    square = np.array([[0, 0, 1, 1], [10, 10, 11, 11]], dtype=float)
    assert axis_of_larger_variance(square) == 0  # a tie goes to x
    assert axis_of_larger_variance(np.empty((0, 4))) == 0
    assert axis_of_larger_variance([[5, 5, 6, 6]]) == 0


def test_axis_uses_centres_not_corners():
    # Lower-left corners vary only along x, but the centres vary more along y.
    boxes = np.array([[0, 0, 2, 0], [4, 0, 6, 100]], dtype=float)
    assert axis_of_larger_variance(boxes) == 1


def test_two_scenes_pick_their_axis():
    assert split_two_clusters(make_scene("yline", 100)).axis == 0
    assert split_two_clusters(make_scene("xline", 100)).axis == 1
    assert split_two_clusters(make_scene("random", 100, world=[0, 0, 100, 2000])).axis == 1


# --------------------------------------------------------------------------
# Small inputs and errors
# --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_boxes(n):
    boxes = make_scene("random", n)
    s = split_two_clusters(boxes)
    assert s.left.tolist() == list(range(n)) and s.right.shape == (0,)
    assert math.isnan(s.cut) and s.gap == 0.0 and s.tests == 0
    pairs, tests = two_cluster_pairs(boxes)
    assert pairs.shape == (0, 2) and pairs.dtype == np.int64 and tests == 0


def test_two_boxes_with_gap():
    pairs, tests = two_cluster_pairs([[0, 0, 1, 1], [5, 0, 6, 1]])
    assert pairs.shape == (0, 2) and pairs.dtype == np.int64 and tests == 0


def test_split_is_frozen():
    s = split_two_clusters([[0, 0, 1, 1], [5, 0, 6, 1]])
    with pytest.raises(AttributeError):
        s.axis = 1


@pytest.mark.parametrize("func", [split_two_clusters, two_cluster_pairs, axis_of_larger_variance])
def test_bad_boxes(func):
    with pytest.raises(ValueError, match=r"box 1 has xmin 3\.0 > xmax 2\.0"):
        func([[0, 0, 1, 1], [3, 0, 2, 1]])
    with pytest.raises(ValueError, match=r"box 0 has ymin = nan"):
        func([[0, np.nan, 1, 1]])


@pytest.mark.parametrize("bad", [2, -1, "x", 0.5])
@pytest.mark.parametrize("func", [split_two_clusters, two_cluster_pairs])
def test_bad_axis(func, bad):
    boxes = make_scene("random", 10)
    with pytest.raises(ValueError, match=r"axis must be 0 \(x\), 1 \(y\) or None, got "):
        func(boxes, bad)


@pytest.mark.parametrize("bad", [1.0, 0.0, True, False], ids=repr)
@pytest.mark.parametrize("func", [split_two_clusters, two_cluster_pairs])
def test_axis_equal_to_but_not_an_int(func, bad):
    """``1.0 in (0, 1)`` and ``True in (0, 1)`` are both true in Python, so the range
    check lets these through; the docstring promises ValueError for anything but 0, 1, None."""
    boxes = make_scene("random", 10)
    with pytest.raises(ValueError, match=r"axis must be 0 \(x\), 1 \(y\) or None, got "):
        func(boxes, bad)


def test_numpy_integer_axis_is_accepted():
    boxes = make_scene("random", 50)
    assert split_two_clusters(boxes, np.int64(1)).axis == 1

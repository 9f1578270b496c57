"""The uniform-size trick of lesson 07 (PointGrid) against brute force, its bound, and its errors.

Fixed scenes, hypothesis scenes (a fixed bound and a learned one), long random
operation sequences, the rejection of elements over a fixed bound (with the
structure left unchanged), and the "search twice the radius" argument. The
common contract (with the learned bound) runs in test_base.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays, filter_query, lattice_box, nested_loop_pairs
from grid_invariants import check_point_grid
from loose_helpers import run_sequence
from lessons_lib import SCENES, PointGrid, brute_force_pairs, make_scene
from lessons_lib.structures.point_grid import half_sizes


@pytest.mark.parametrize("scene", SCENES)
def test_scenes_equal_brute_force(scene):
    boxes = make_scene(scene, 400, seed=3)
    ref = brute_force_pairs(boxes)
    hs = half_sizes(boxes)
    h = float(hs.max())
    for kw in ({}, {"half_size": h}, {"half_size": h, "cell_size": h / 3}, {"cell_size": 500.0}):
        bp = PointGrid.from_boxes(boxes, **kw)
        check_point_grid(bp)
        assert bp.bound == (float(hs[hs <= bp.giant_limit].max()) if "half_size" not in kw else h)
        np.testing.assert_array_equal(bp.pairs(), ref)
        q = [100.0, 100.0, 300.0, 250.0]
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


def test_default_cells_are_wider_than_twice_the_bound():
    boxes = make_scene("random", 2000, seed=1)
    bp = PointGrid.from_boxes(boxes, half_size=8.0)
    assert bp.cell_size >= 16.0 and bp.reach() == 1
    bp = PointGrid.from_boxes(boxes, half_size=8.0, cell_size=5.0)
    assert bp.reach() == 4  # narrow cells: the pair search looks 4 cells away


@settings(max_examples=40)
@given(boxes=box_arrays(max_size=40, box=lattice_box(max_size=6)), fixed=st.booleans(),
       cell=st.sampled_from([None, 0.7, 2.0, 6.0, 30.0]), world=st.sampled_from([None, [0, 0, 24, 24], [-5, 3, 9, 8]]))
def test_hypothesis_scenes(boxes, fixed, cell, world):
    cell = cell if world is not None else None  # a tiny fixed cell over an inferred far-reaching world: too many cells
    kw = {"half_size": 3.0} if fixed else {}
    bp = PointGrid.from_boxes(boxes, cell_size=cell, world=world, **kw)
    check_point_grid(bp)
    want = np.array(sorted(nested_loop_pairs(boxes)), dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(bp.pairs(), want)
    for q in ([0, 0, 5, 5], [3, 3, 3, 3], [-100, -100, 100, 100]):
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@pytest.mark.parametrize("kw, seed", [({}, 0), ({"cell_size": 3.0}, 1), ({"half_size": 8.0, "cell_size": 16.5}, 2),
                                      ({"half_size": 8.0, "cell_size": 4.0}, 3)])
def test_long_random_sequences(kw, seed):
    bp = PointGrid(world=[0.0, 0.0, 100.0, 100.0], **kw)
    # A fixed bound of 8 admits every box the driver makes without giants (sizes < 12 + 6 of drift).
    fixed = "half_size" in kw
    run_sequence(bp, seed, exact_check="none", giants=not fixed, max_size=10 if fixed else 12)


def test_learned_bound_grows_up_to_half_a_cell_and_cleanup_recomputes_it():
    bp = PointGrid(world=[0, 0, 100, 100], cell_size=10)
    bp.insert(0, [0, 0, 4, 2])
    assert bp.bound == 2.0 and bp.giant_limit == 5.0
    bp.insert(1, [50, 50, 58, 52])  # half-size 4: the bound grows
    assert bp.bound == 4.0 and bp.reach() == 1
    bp.insert(2, [50, 50, 90, 60])  # a giant: kept apart, the searches stay narrow
    assert bp.bound == 4.0 and bp.reach() == 1 and bp.giants().tolist() == [2]
    np.testing.assert_array_equal(bp.pairs(), [[1, 2]])
    bp.remove(1)
    assert bp.bound == 4.0  # only grows between cleanups
    bp.cleanup()
    assert bp.bound == 2.0 and bp.reach() == 1
    bp.update(2, [1, 1, 3, 3])  # the giant shrinks: back in a cell
    assert bp.giants().tolist() == [] and bp.occupancy().sum() == 2
    np.testing.assert_array_equal(bp.pairs(), [[0, 2]])
    bp.update(0, [-1e6, 0, 1e6, 1])  # an agent grows into a giant
    assert bp.giants().tolist() == [0]
    np.testing.assert_array_equal(bp.pairs(), [[0, 2]])
    check_point_grid(bp)
    bp.clear()
    assert bp.bound == 0.0


def test_giants_among_small_boxes_keep_the_search_narrow():
    boxes = make_scene("mixed_sizes", 2000, seed=3)
    bp = PointGrid.from_boxes(boxes)
    n_giants = len(bp.giants())
    assert 0 < n_giants < 100 and bp.reach() == 1
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    tests = bp.last_pair_tests
    assert tests < 10 * len(bp.pairs())  # a learned bound as large as the giants would test far more
    ids = np.arange(len(boxes))
    moved = boxes + np.random.default_rng(1).uniform(-4, 4, (len(boxes), 1))
    bp.update_many(ids, moved)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(moved))
    q = [100, 100, 300, 300]
    np.testing.assert_array_equal(bp.query(q), filter_query(ids, moved, q))
    hits = bp.query_many(moved[:50])
    want = np.array([(k, j) for k in range(50) for j in filter_query(ids, moved, moved[k]).tolist()])
    np.testing.assert_array_equal(hits, want)
    check_point_grid(bp)


@pytest.mark.parametrize("op", ["insert", "update", "update_many", "from_boxes"])
def test_fixed_bound_rejects_larger_elements_and_changes_nothing(op):
    boxes = make_scene("random", 200, seed=2)  # sizes 12..16: half-sizes <= 8
    bp = PointGrid.from_boxes(boxes, half_size=8.0)
    before = (bp.head.copy(), bp.enext.copy(), bp.items(), bp.pairs())
    giant = [100.0, 100.0, 300.0, 110.0]
    with pytest.raises(ValueError, match=r"half-size 100 > the grid's half_size 8.*loose structure"):
        if op == "insert":
            bp.insert(500, giant)
        elif op == "update":
            bp.update(3, giant)
        elif op == "update_many":
            bp.update_many([4, 5, 6], [boxes[4], giant, boxes[6]])
        else:
            PointGrid.from_boxes(np.vstack([boxes, [giant]]), half_size=8.0)
    assert 500 not in bp
    after = (bp.head, bp.enext, bp.items(), bp.pairs())
    for a, b in zip(before[:2], after[:2]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(before[2][1], after[2][1])
    np.testing.assert_array_equal(before[3], after[3])
    check_point_grid(bp)


def test_searching_twice_the_bound_finds_every_neighbour_centre():
    """The picture of lesson 07 in numbers: centres 2h apart still meet, 2h + a hair apart do not."""
    h = 5.0
    bp = PointGrid(world=[0, 0, 100, 100], cell_size=10.0, half_size=h)
    bp.insert(0, [20, 20, 30, 30])  # centre (25, 25)
    bp.insert(1, [30, 30, 40, 40])  # centre (35, 35): exactly 2h away on both axes, touching corners
    bp.insert(2, [40.5, 20, 50.5, 30])  # 2h + 0.5 away from 1 on x
    np.testing.assert_array_equal(bp.pairs(), [[0, 1]])
    np.testing.assert_array_equal(bp.query([30, 30, 30, 30]), [0, 1])
    assert bp.last_query_cells == 4  # the point query grown by h covers 2 x 2 cells


def test_far_centres_clamp_and_are_found():
    bp = PointGrid(world=[0, 0, 100, 100], cell_size=10, half_size=2)
    bp.insert(0, [1e6, 1e6, 1e6 + 2, 1e6 + 2])
    bp.insert(1, [1e6 + 2, 1e6 + 2, 1e6 + 3, 1e6 + 3])
    bp.insert(2, [99, 99, 100, 100])
    np.testing.assert_array_equal(bp.pairs(), [[0, 1]])
    np.testing.assert_array_equal(bp.query([1e6, 1e6, 1e6, 1e6]), [0])
    assert bp.occupancy()[-1, -1] == 3


def test_a_box_wider_than_the_float_range_is_a_giant():
    # Regression: a finite box [-1e308, .., 1e308, ..] had an infinite half-size; pairs() raised
    # OverflowError (floor of an infinite reach) after the insert had been accepted.
    boxes = np.array([[0, 0, 1, 1], [-1e308, 0, 1e308, 1], [5, 5, 6, 6], [0.5, 0.5, 2, 2]])
    bp = PointGrid(world=[0, 0, 100, 100], cell_size=10)
    for i, b in enumerate(boxes):
        bp.insert(i, b)
    assert bp.bound == 0.75 and bp.reach() == 1 and bp.giants().tolist() == [1]
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    np.testing.assert_array_equal(bp.query([5, 5, 5, 5]), [2])
    bp.update_many([1, 3], boxes[[3, 1]])
    bp.cleanup()
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes[[0, 3, 2, 1]]))
    check_point_grid(bp)
    with pytest.raises(ValueError, match="half-size 1e[+]308"):
        PointGrid(world=[0, 0, 100, 100], half_size=5.0).insert(0, boxes[1])


@pytest.mark.parametrize("kw, pattern", [
    ({"half_size": -1}, "half_size"), ({"half_size": np.inf}, "half_size"), ({"half_size": "3"}, "half_size"),
    ({"half_size": True}, "half_size"), ({"cell_size": 0}, "cell_size"),
])
def test_bad_parameters(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        PointGrid(**kw)


def test_memory_is_four_bytes_per_cell_and_per_slot():  # plus the giants' list head
    bp = PointGrid.from_boxes(make_scene("random", 1000, seed=0), half_size=8.0)
    assert bp.memory_bytes() == bp.elements.nbytes() + 4 * (bp.rows * bp.cols + 1) + 4 * len(bp.enext)
    assert "half_size=8" in repr(bp)

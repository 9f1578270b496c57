"""The counting-sort grid (CountingSortGrid) against brute force, its packed cells, its threads.

Fixed and hypothesis scenes (with giants, touching boxes, far boxes), long random
operation sequences, the packed layout after a rebuild (every live slot once,
cells in order), the lazy rebuild, and the same answer on one thread, on every
thread, and with the parallel search off. The common contract runs in test_base.py.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays, filter_query, lattice_box, nested_loop_pairs
from grid_invariants import check_counting_sort_grid as check_packed
from loose_helpers import run_sequence
from lessons_lib import SCENES, CountingSortGrid, UniformGrid, brute_force_pairs, make_scene
from lessons_lib.core.jit import set_threads, threads
from lessons_lib.structures.counting_sort_grid import band_rows, pairs_in_bands


@pytest.mark.parametrize("scene", SCENES)
def test_scenes_equal_brute_force(scene):
    boxes = make_scene(scene, 600, seed=4)
    ref = brute_force_pairs(boxes)
    for kw in ({}, {"cell_size": 3.0}, {"cell_size": 400.0}, {"parallel": False}):
        g = CountingSortGrid.from_boxes(boxes, **kw)
        check_packed(g)
        np.testing.assert_array_equal(g.pairs(), ref)
        for q in ([100.0, 100.0, 300.0, 250.0], [0, 0, 0, 0], [-1e9, -1e9, 1e9, 1e9]):
            np.testing.assert_array_equal(g.query(q), filter_query(np.arange(len(boxes)), boxes, q))


def test_same_pairs_as_the_uniform_grid_with_the_same_cells():
    boxes = make_scene("clustered", 3000, seed=2)
    u = UniformGrid.from_boxes(boxes)
    g = CountingSortGrid.from_boxes(boxes, cell_size=u.cell_size)
    np.testing.assert_array_equal(g.pairs(), u.pairs())


@settings(max_examples=40, deadline=None)
@given(boxes=box_arrays(max_size=40, box=lattice_box(max_size=9)), cell=st.sampled_from([None, 0.7, 2.0, 6.0, 30.0]),
       world=st.sampled_from([None, [0, 0, 24, 24], [-5, 3, 9, 8]]), parallel=st.booleans())
def test_hypothesis_scenes(boxes, cell, world, parallel):
    cell = cell if world is not None else None
    g = CountingSortGrid.from_boxes(boxes, cell_size=cell, world=world, parallel=parallel)
    check_packed(g)
    want = np.array(sorted(nested_loop_pairs(boxes)), dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(g.pairs(), want)
    for q in ([0, 0, 5, 5], [3, 3, 3, 3], [-100, -100, 100, 100]):
        np.testing.assert_array_equal(g.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@pytest.mark.parametrize("kw, seed", [({}, 0), ({"cell_size": 3.0}, 1), ({"cell_size": 0.5}, 2),
                                      ({"parallel": False, "cell_size": 7.0}, 3)])
def test_long_random_sequences(kw, seed):
    g = CountingSortGrid(world=[0.0, 0.0, 100.0, 100.0], **kw)
    run_sequence(g, seed, exact_check="none", giants=True, max_size=12)
    check_packed(g)


def test_giants_among_small_boxes():
    rng = np.random.default_rng(0)
    small = make_scene("random", 2000, seed=1)
    centres = rng.uniform(0, 800, (5, 2))
    giants = np.column_stack([centres - 150, centres + 150])
    boxes = np.vstack([small, giants])
    g = CountingSortGrid.from_boxes(boxes)
    g.rebuild()
    assert set(range(2000, 2005)) <= set(g.giants.tolist())
    np.testing.assert_array_equal(g.pairs(), brute_force_pairs(boxes))
    q = [350.0, 250.0, 360.0, 260.0]
    np.testing.assert_array_equal(g.query(q), filter_query(np.arange(len(boxes)), boxes, q))


def test_updates_mark_stale_and_one_rebuild_serves_many_questions():
    boxes = make_scene("random", 500, seed=3)
    g = CountingSortGrid.from_boxes(boxes)
    assert g.rebuilds == 0
    g.pairs()
    g.query([0, 0, 100, 100])
    g.pairs()
    assert g.rebuilds == 1
    g.update_many(np.arange(10), boxes[:10] + 1.0)
    g.remove(20)
    g.insert(10_000, [5, 5, 6, 6])
    assert g.rebuilds == 1  # nothing sorted yet
    g.pairs()
    assert g.rebuilds == 2
    moved = boxes.copy()
    moved[:10] += 1.0
    keep = np.ones(len(boxes), bool)
    keep[20] = False
    ids = np.append(np.flatnonzero(keep), 10_000)
    ref_boxes = np.vstack([moved[keep], [[5, 5, 6, 6]]])
    np.testing.assert_array_equal(g.pairs(), ids[brute_force_pairs(ref_boxes)])


def test_same_answer_on_one_thread_every_thread_and_without_the_parallel_search():
    boxes = make_scene("clustered", 20_000, seed=5)
    g = CountingSortGrid.from_boxes(boxes)
    g.rebuild()
    raw = {}
    for parallel, bands in ((False, 1), (False, 7), (True, 8), (True, 3)):
        raw[parallel, bands] = pairs_in_bands(g.geom, g.start, g.order, g.sorted_boxes, bands, 64, parallel)
    first = raw[False, 1]
    for got in raw.values():  # identical rows in identical order, even when bands overflow their room
        np.testing.assert_array_equal(got[0], first[0])
        assert got[1] == first[1]
    before = threads()
    try:
        set_threads(1)
        one = g.pairs()
    finally:
        set_threads(before)
    np.testing.assert_array_equal(g.pairs(), one)
    np.testing.assert_array_equal(one, brute_force_pairs(boxes))


def test_pairs_from_another_thread_run_there_and_agree():
    boxes = make_scene("random", 5000, seed=6)
    g = CountingSortGrid.from_boxes(boxes)
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("pairs", g.pairs()))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(out["pairs"], brute_force_pairs(boxes))


def test_set_threads_refuses_bad_counts():
    with pytest.raises(ValueError, match="between 1 and"):
        set_threads(0)
    with pytest.raises(TypeError, match="integer"):
        set_threads(1.5)


@pytest.mark.parametrize("kw, pattern", [({"parallel": 1}, "parallel"), ({"cell_size": -1.0}, "cell_size"),
                                         ({"cell_size": 1e-3, "world": [0, 0, 1e6, 1e6]}, "max_cells")])
def test_bad_parameters(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        CountingSortGrid(**kw)


def test_memory_counts_every_array():
    g = CountingSortGrid.from_boxes(make_scene("random", 1000, seed=0))
    g.rebuild()
    own = (g.start.nbytes + g.order.nbytes + g.sorted_boxes.nbytes + g.cell_key.nbytes
           + g.giants.nbytes)
    assert g.memory_bytes() == g.elements.nbytes() + own


def test_bands_hold_about_equal_numbers_of_elements_on_a_thin_horizontal_strip():
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 2000, 6000)
    y = rng.normal(1000, 10, 6000)  # a strip a few rows tall in a world 2000 units tall
    boxes = np.column_stack([x, y, x + 3, y + 3])
    g = CountingSortGrid.from_boxes(boxes, world=[0, 0, 2000, 2000])
    g.rebuild()
    for n_bands in (1, 2, 8, g.rows + 5):
        bounds = band_rows(g.geom, g.start, n_bands)
        assert bounds[0] == 0 and bounds[-1] == g.rows and (np.diff(bounds) >= 0).all()
        filed = g.start[bounds * g.cols]
        per_band = np.diff(filed)
        if n_bands <= 8:  # a cut lands on a row boundary: each band within one row of its share
            assert per_band.max() <= filed[-1] / n_bands + g.occupancy().sum(axis=1).max()
        got, _ = pairs_in_bands(g.geom, g.start, g.order, g.sorted_boxes, n_bands, 16, n_bands > 1)
        assert sorted(map(tuple, np.sort(got, axis=1).tolist())) == sorted(map(tuple, brute_force_pairs(boxes).tolist()))

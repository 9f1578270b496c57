"""PersistentSweepAndPrune (I-COLLIDE): both axes sorted, the pair set kept exact.

The structure keeps the overlapping pairs in a hash table between calls and
updates them from the swaps of the insertion sort on both axes. Checked here:
equality with brute force on every scene, on hypothesis scenes with many equal
coordinates and zero-width boxes, and after long random operation sequences
(the pair set after every few steps); both endpoint arrays sorted; the table's
own invariants; bad input changing nothing; plain Python (``LESSONS_JIT=0``)
giving the same output as numba. The BroadPhase contract of
``tests/test_base.py`` runs on it as on every registered structure.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bp_strategies import filter_query, model_pairs
from lessons_lib import SCENES, STRUCTURES, PersistentSweepAndPrune, SweepAndPrune, brute_force_pairs, make_scene
from lessons_lib.structures.persistent_sweep_and_prune import EMPTY, MIN_TABLE, PairSet, pair_key_hash
from test_sweep_and_prune import check_endpoints, inversions, on_lattice


# --------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------
def check_table(kept: PairSet) -> None:
    """A power of two, at most half full, no key twice, and linear probing's rule: no hole on a key's probe run."""
    table = kept.table
    size = len(table)
    assert size >= MIN_TABLE and size & (size - 1) == 0 and 0 <= 2 * kept.count <= size
    keys = table[table != EMPTY]
    assert len(keys) == kept.count == len(set(keys.tolist()))
    for i in np.flatnonzero(table != EMPTY).tolist():
        j = int(pair_key_hash(int(table[i]), size - 1))
        while j != i:
            assert table[j] != EMPTY
            j = (j + 1) & (size - 1)


def check_pp(bp: PersistentSweepAndPrune) -> None:
    """Both endpoint arrays exact and sorted; the table consistent; the pair set equal to brute force."""
    for axis, ends in enumerate(bp.ends):
        assert ends.axis == axis
        check_endpoints(ends, bp.elements)
    assert bp.is_sorted() and bp.m == 2 * len(bp)
    check_table(bp.kept)
    sp = bp.pair_slots()
    assert (sp[:, 0] < sp[:, 1]).all()
    assert bp.elements.alive[sp].all() if len(sp) else True
    ids, boxes = bp.items()
    ref = brute_force_pairs(boxes)
    np.testing.assert_array_equal(bp.pairs(), ids[ref] if len(ref) else ref)


def persistent(boxes, **kw):
    return PersistentSweepAndPrune.from_boxes(boxes, **kw)


def test_registered():
    assert STRUCTURES["persistent_sweep_and_prune"] is PersistentSweepAndPrune


# --------------------------------------------------------------------------
# Against brute force
# --------------------------------------------------------------------------
@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_scenes_equal_brute_force(scene, axis):
    boxes = make_scene(scene, 400, seed=7)
    bp = persistent(boxes, axis=axis)
    check_pp(bp)
    rng = np.random.default_rng(1)
    for step in (0.5, 3.0, 40.0):  # coherent and incoherent frames
        d = rng.uniform(-step, step, (len(boxes), 2))
        boxes = boxes + np.column_stack([d, d])
        bp.update_many(np.arange(len(boxes)), boxes)
        check_pp(bp)
        np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    for q in [[100, 100, 300, 250], [0, 0, 0, 0], [250, 0, 250, 600]]:
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@given(boxes=on_lattice(), axis=st.sampled_from([None, 0, 1]))
def test_hypothesis_equal_coordinates_and_zero_width(boxes, axis):
    check_pp(persistent(boxes, axis=axis))


@given(boxes=on_lattice(30),
       moves=st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-1, 1)), min_size=1, max_size=30),
       few=st.booleans())
def test_hypothesis_update_many(boxes, moves, few):
    bp = persistent(boxes)
    n = len(boxes)
    d = np.array((moves * (n // len(moves) + 1))[:n], dtype=np.float64).reshape(-1, 3)
    new = boxes + np.column_stack([d[:, 0], d[:, 1], d[:, 0] + d[:, 2], d[:, 1] + d[:, 2]])
    new[:, 2:] = np.maximum(new[:, 2:], new[:, :2])  # growing, shrinking and collapsing to zero width
    old = [(e.keys[: e.m].copy(), e.codes[: e.m].copy()) for e in bp.ends]
    ids = np.arange(n)[: 1 if few else n]
    bp.update_many(ids, new[ids])
    moved_boxes = boxes.copy()
    moved_boxes[ids] = new[ids]
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(moved_boxes))
    if n and not few and 16 * n >= bp.m:  # the insertion-sort path: swaps = inversions on both axes
        expected = 0
        for axis, (keys, codes) in enumerate(old):
            k = moved_boxes[codes >> 1, axis + 2 * (codes & 1)]
            expected += inversions(k.tolist(), (codes & 1).tolist())
        assert bp.last_swaps == expected


def test_touching_boxes_pair_on_both_axes():
    boxes = [[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [4, 4, 4, 4], [4, 2, 4, 2], [5, 5, 5, 5]]
    for axis in (0, 1):
        bp = persistent(boxes, axis=axis)
        np.testing.assert_array_equal(bp.pairs(), [[0, 1], [0, 2], [1, 2], [1, 4]])
        bp.update(5, [4, 4, 5, 5])  # now touches 3 at a corner point
        bp.update(3, [4, 4, 4, 4])
        np.testing.assert_array_equal(bp.pairs(), [[0, 1], [0, 2], [1, 2], [1, 4], [3, 5]])
        bp.update(5, [4.000001, 4, 5, 5])  # a hair apart: no longer touching
        np.testing.assert_array_equal(bp.pairs(), [[0, 1], [0, 2], [1, 2], [1, 4]])
        check_pp(bp)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_long_random_sequences(seed):
    rng = np.random.default_rng(seed)
    bp = PersistentSweepAndPrune(axis=[None, 0, 1, None, None][seed])
    model: dict[int, list[float]] = {}
    next_id = 0

    def rand_box():
        x, y = rng.integers(0, 40, 2)
        w, h = (0 if rng.random() < 0.2 else rng.integers(0, 8) for _ in range(2))
        return [float(x), float(y), float(x + w), float(y + h)]

    for step in range(500):
        r = rng.random()
        if r < 0.25 or not model:
            b = rand_box()
            i = next_id if seed != 4 else int(rng.integers(-(2**40), 2**40))  # seed 4: ids that are not slots
            if i in model:
                continue
            bp.insert(i, b)
            model[i] = b
            next_id += 1
        elif r < 0.4:
            i = int(rng.choice(list(model)))
            bp.remove(i)
            del model[i]
        elif r < 0.6:
            i = int(rng.choice(list(model)))
            b = model[i]
            d = rng.integers(-3, 4, 2)
            nb = [b[0] + d[0], b[1] + d[1], b[2] + d[0], b[3] + d[1]]
            bp.update(i, nb)
            model[i] = nb
        elif r < 0.85:  # sometimes a few movers (endpoint walks), sometimes all (insertion sort)
            k = 1 if rng.random() < 0.5 else len(model)
            ids = rng.permutation(list(model))[:k]
            new = [[model[int(i)][0] + s, model[int(i)][1] - s, model[int(i)][2] + s + g, model[int(i)][3] - s]
                   for i, s, g in zip(ids, rng.integers(-2, 3, len(ids)), rng.integers(0, 2, len(ids)))]
            bp.update_many(ids, new)
            for i, b in zip(ids, new):
                model[int(i)] = b
        elif r < 0.93:
            bp.cleanup()
        elif r < 0.97:
            q = rand_box()
            keys = sorted(model)
            np.testing.assert_array_equal(bp.query(q), filter_query(keys, [model[i] for i in keys], q))
        else:
            bp.clear()
            model.clear()
        if step % 5 == 0:
            check_pp(bp)
            np.testing.assert_array_equal(bp.pairs(), model_pairs(model))
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), model_pairs(model))


def test_table_grows_in_the_middle_of_a_sort_and_shrinks_on_cleanup():
    n = 120
    spread = np.array([[10.0 * i, 0, 10.0 * i + 1, 1] for i in range(n)])
    bp = persistent(spread)
    assert bp.npairs == 0 and len(bp.kept.table) == MIN_TABLE
    heap = np.tile([0.0, 0.0, 1.0, 1.0], (n, 1)) + np.arange(n)[:, None] * 1e-3
    bp.update_many(np.arange(n), heap)  # 7,140 pairs appear during one insertion sort
    assert bp.npairs == n * (n - 1) // 2
    check_pp(bp)
    bp.update(0, [500, 500, 501, 501])  # one walk: removes n - 1 pairs
    bp.update(0, [0, 0, 1, 1])  # and adds them back
    check_pp(bp)
    bp.update_many(np.arange(n), spread)
    assert bp.npairs == 0
    big = len(bp.kept.table)
    bp.cleanup()
    assert len(bp.kept.table) == MIN_TABLE < big
    check_pp(bp)
    lone = persistent(spread[:1])
    lone.update_many([0], [[0, 0, 1, 1]])
    for i in range(1, 60):  # inserts onto a heap: the table grows before each insert's pairs
        lone.insert(i, [0, 0, 1, 1])
    assert lone.npairs == 60 * 59 // 2
    check_pp(lone)


def test_crossings_beyond_one_buffer():
    """More crossings in one insertion sort than the crossing list holds: the sort stops and resumes."""
    n = 300
    spread = np.array([[3.0 * i, 0, 3.0 * i + 1, 1] for i in range(n)])
    bp = persistent(spread)
    bp.update_many(np.arange(n), spread[::-1].copy())  # reversed along x: every pair of endpoints swaps
    check_pp(bp)
    heap = np.tile([0.0, 0.0, 2.0, 2.0], (n, 1))
    bp.update_many(np.arange(n), heap)  # 44,850 pairs from one frame
    assert bp.npairs == n * (n - 1) // 2
    check_pp(bp)


def test_long_walk_with_an_empty_pair_set_grows_the_table():
    spread = np.array([[3.0 * i, 0, 3.0 * i + 1, 1] for i in range(40)])
    bp = persistent(spread)
    assert bp.npairs == 0
    bp.update(0, [500, 5, 501, 6])  # passes 39 mins on x, more than the 16 the table has room for
    check_pp(bp)
    bp.update_many([1, 2], [[-500, -5, -499, -4], [600, 0, 601, 1]])  # few movers: the same walk
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), np.zeros((0, 2), dtype=np.int64))
    bp.update(3, [0, 0, 200, 1])  # and a walk that does add pairs
    check_pp(bp)
    assert bp.npairs == 36


def test_cleanup_switches_the_query_axis_without_losing_pairs():
    bp = PersistentSweepAndPrune()
    for i, b in enumerate(make_scene("xline", 80)):
        bp.insert(i, b)
    assert bp.axis == 0
    before = bp.pairs()
    bp.cleanup()
    assert bp.axis == 1
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), before)
    forced = persistent(make_scene("xline", 80), axis=0)
    forced.cleanup()
    assert forced.axis == 0


# --------------------------------------------------------------------------
# Bad input, parameters, memory
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params, pattern", [
    ({"axis": 2}, "axis must be one of 0, 1"),
    ({"axis": "x"}, "axis must be one of 0, 1"),
])
def test_bad_parameters(params, pattern):
    with pytest.raises(ValueError, match=pattern):
        PersistentSweepAndPrune(**params)
    with pytest.raises(ValueError, match=pattern):
        PersistentSweepAndPrune.from_boxes(make_scene("random", 10), **params)


def test_the_flag_is_gone_from_sweep_and_prune():
    for make in (lambda: SweepAndPrune(persistent_pairs=True),
                 lambda: SweepAndPrune.from_boxes(make_scene("random", 10), persistent_pairs=True)):
        with pytest.raises(TypeError, match="PersistentSweepAndPrune"):
            make()
    with pytest.raises(TypeError, match="unexpected keyword arguments: sort_axis"):
        SweepAndPrune(sort_axis=0)


def test_failed_calls_leave_everything_unchanged():
    bp = persistent(make_scene("random", 60, seed=2))

    def state():
        return [a.copy() for e in bp.ends for a in (e.keys[: e.m], e.codes[: e.m])] + [bp.kept.table.copy(),
                                                                                       bp.pairs()]

    before = state()
    for call, err in [
        (lambda: bp.update_many([0, 1], [[0, 0, 1, 1], [5, 0, 1, 1]]), ValueError),
        (lambda: bp.update_many([0, 999], [[0, 0, 1, 1], [0, 0, 1, 1]]), KeyError),
        (lambda: bp.update_many([0, 0], [[0, 0, 1, 1], [0, 0, 1, 1]]), ValueError),
        (lambda: bp.update(3, [0, 0, np.nan, 1]), ValueError),
        (lambda: bp.insert(3, [0, 0, 1, 1]), ValueError),
        (lambda: bp.insert(100, [0, 0, -1, 1]), ValueError),
        (lambda: bp.remove(777), KeyError),
        (lambda: bp.query([5, 5, 1, 1]), ValueError),
    ]:
        with pytest.raises(err):
            call()
        for a, b in zip(before, state()):
            np.testing.assert_array_equal(a, b)
    check_pp(bp)


def test_memory_and_repr():
    boxes = make_scene("random", 200)
    bp, plain = persistent(boxes), SweepAndPrune.from_boxes(boxes)
    assert bp.memory_bytes() == plain.memory_bytes() + bp.ends[1 - plain.axis].nbytes + bp.kept.table.nbytes
    assert 2 * bp.npairs <= len(bp.kept.table) <= max(MIN_TABLE, 8 * bp.npairs)
    assert f"{bp.npairs} pairs kept" in repr(bp) and "axis=x (auto)" in repr(bp)


# --------------------------------------------------------------------------
# Plain Python gives the same output
# --------------------------------------------------------------------------
SMALL_RUN = """
import numpy as np
import lessons_lib
from lessons_lib import make_scene, PersistentSweepAndPrune

rng = np.random.default_rng(3)
boxes = make_scene("random", 150, seed=5)
bp = PersistentSweepAndPrune.from_boxes(boxes)
out = [lessons_lib.JIT_ENABLED, len(bp.kept.table)]
for frame in range(6):
    d = rng.uniform(-4, 4, (150, 2))
    boxes = boxes + np.column_stack([d, d])
    if frame % 2:
        bp.update_many(np.arange(150), boxes)
    else:
        bp.update_many(np.arange(5), boxes[:5])
    out += [bp.last_swaps, bp.npairs, bp.pairs().tolist(), bp.kept.table.tolist()]
heap = np.tile([0.0, 0.0, 1.0, 1.0], (150, 1))
bp.update_many(np.arange(150), heap)  # the table grows during the sort
out += [bp.last_swaps, bp.npairs, len(bp.kept.table), bp.kept.table.tolist()]
bp.remove(7)
bp.insert(7, [0.5, 0.5, 3, 3])
bp.cleanup()
out += [bp.npairs, bp.pairs().tolist(), bp.kept.table.tolist()]
print(repr(out))
"""


def test_plain_python_gives_identical_results():
    root = Path(__file__).resolve().parents[1]
    runs = {}
    for jit in ("1", "0"):
        proc = subprocess.run([sys.executable, "-c", SMALL_RUN], cwd=root, env=dict(os.environ, LESSONS_JIT=jit),
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs[jit] = proc.stdout.strip()
    assert runs["1"].startswith("[True, ") and runs["0"].startswith("[False, ")
    assert runs["1"][len("[True"):] == runs["0"][len("[False"):]

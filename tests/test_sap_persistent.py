"""Sweep and prune with persistent pairs (I-COLLIDE mode): both axes sorted, the pair set kept exact.

``SweepAndPrune(persistent_pairs=True)`` keeps the overlapping pairs in a hash
table between calls and updates them from the swaps of the insertion sort on
both axes. Checked here: equality with brute force on every scene, on
hypothesis scenes with many equal coordinates and zero-width boxes, and after
long random operation sequences (the pair set after every few steps); both
endpoint arrays sorted; the table's own invariants; bad input changing
nothing; the BroadPhase contract of ``tests/test_base.py`` run on the mode;
plain Python (``LESSONS_JIT=0``) giving the same output as numba.
"""
from __future__ import annotations

import inspect
import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import test_base as tb
from bp_strategies import filter_query, model_pairs
from lessons_lib import SCENES, STRUCTURES, brute_force_pairs, make_scene
from lessons_lib.structures.sweep_and_prune import SweepAndPrune, pair_key_hash
from test_sweep_and_prune import check_invariants, inversions, on_lattice


# --------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------
def check_pp(bp: SweepAndPrune, boxes_by_id=None) -> None:
    """Both endpoint arrays exact and sorted; the table consistent; the pair set equal to brute force."""
    assert bp.persistent_pairs
    check_invariants(bp)  # the sweep axis
    m, o = bp.m, 1 - bp.axis
    okeys, ocodes = bp.okeys[:m], bp.ocodes[:m]
    np.testing.assert_array_equal(np.sort(ocodes), np.sort(bp.codes[:m]))
    np.testing.assert_array_equal(okeys, bp.elements.boxes[ocodes >> 1, o + 2 * (ocodes & 1)])
    order = list(zip(okeys.tolist(), (ocodes & 1).tolist()))
    assert order == sorted(order)
    # the table: a power of two, at most half full, every listed key found where tvals says
    cap = len(bp.tkeys)
    assert cap & (cap - 1) == 0 and len(bp.plist) == cap // 2 and 0 <= bp.npairs <= cap // 2
    keys = bp.plist[: bp.npairs]
    assert len(set(keys.tolist())) == bp.npairs
    occupied = np.flatnonzero(bp.tkeys != -1)
    assert len(occupied) == bp.npairs
    assert set(bp.tkeys[occupied].tolist()) == set(keys.tolist())
    np.testing.assert_array_equal(keys[bp.tvals[occupied]], bp.tkeys[occupied])
    for i in occupied.tolist():  # linear probing: no empty entry between a key's home and its place
        j = int(pair_key_hash(int(bp.tkeys[i]), cap - 1))
        while j != i:
            assert bp.tkeys[j] != -1
            j = (j + 1) & (cap - 1)
    sp = bp.pair_slots()
    assert (sp[:, 0] < sp[:, 1]).all()
    assert bp.elements.alive[sp].all() if len(sp) else True
    # equal to brute force on the stored boxes
    ids, boxes = bp.items()
    ref = brute_force_pairs(boxes)
    np.testing.assert_array_equal(bp.pairs(), ids[ref] if len(ref) else ref)


def persistent(boxes, **kw):
    return SweepAndPrune.from_boxes(boxes, persistent_pairs=True, **kw)


# --------------------------------------------------------------------------
# Against brute force
# --------------------------------------------------------------------------
@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_scenes_equal_brute_force(scene, axis):
    boxes = make_scene(scene, 400, seed=7)
    bp = persistent(boxes, axis=axis)
    check_pp(bp)
    assert bp.last_tests == 0
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
    old = (bp.keys[: bp.m].copy(), bp.codes[: bp.m].copy(), bp.okeys[: bp.m].copy(), bp.ocodes[: bp.m].copy())
    ids = np.arange(n)[: 1 if few else n]
    bp.update_many(ids, new[ids])
    moved_boxes = boxes.copy()
    moved_boxes[ids] = new[ids]
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(moved_boxes))
    if n and not few and 16 * n >= bp.m:  # the insertion-sort path: swaps = inversions on both axes
        expected = 0
        for keys, codes, axis in ((old[0], old[1], bp.axis), (old[2], old[3], 1 - bp.axis)):
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
    bp = SweepAndPrune(axis=[None, 0, 1, None, None][seed], persistent_pairs=True)
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
    assert bp.npairs == 0 and len(bp.tkeys) == 32
    heap = np.tile([0.0, 0.0, 1.0, 1.0], (n, 1)) + np.arange(n)[:, None] * 1e-3
    bp.update_many(np.arange(n), heap)  # 7,140 pairs appear during one insertion sort
    assert bp.npairs == n * (n - 1) // 2
    check_pp(bp)
    bp.update(0, [500, 500, 501, 501])  # one walk: removes n - 1 pairs
    bp.update(0, [0, 0, 1, 1])  # and adds them back
    check_pp(bp)
    bp.update_many(np.arange(n), spread)
    assert bp.npairs == 0
    big = len(bp.tkeys)
    bp.cleanup()
    assert len(bp.tkeys) == 32 < big
    check_pp(bp)
    lone = persistent(spread[:1])
    lone.update_many([0], [[0, 0, 1, 1]])
    for i in range(1, 60):  # inserts onto a heap: the table grows before each insert's pairs
        lone.insert(i, [0, 0, 1, 1])
    assert lone.npairs == 60 * 59 // 2
    check_pp(lone)


def test_long_walk_with_an_empty_pair_set_grows_the_table():
    # Regression: a walk that could add more pairs than the table holds, while the set was
    # empty, asked for room for len(plist) more, which did not grow it: update() never returned.
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


def test_cleanup_swaps_the_axes_without_losing_pairs():
    bp = SweepAndPrune(persistent_pairs=True)
    for i, b in enumerate(make_scene("xline", 80)):
        bp.insert(i, b)
    assert bp.axis == 0
    before = bp.pairs()
    bp.cleanup()
    assert bp.axis == 1
    check_pp(bp)
    np.testing.assert_array_equal(bp.pairs(), before)


# --------------------------------------------------------------------------
# Bad input, parameters, memory
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params, pattern", [
    ({"persistent_pairs": "yes"}, "persistent_pairs must be True or False"),
    ({"persistent_pairs": 1}, "persistent_pairs must be True or False"),
    ({"persistent_pairs": True, "incremental": False}, "needs incremental=True"),
])
def test_bad_parameters(params, pattern):
    with pytest.raises(ValueError, match=pattern):
        SweepAndPrune(**params)
    with pytest.raises(ValueError, match=pattern):
        SweepAndPrune.from_boxes(make_scene("random", 10), **params)


def test_failed_calls_leave_everything_unchanged():
    bp = persistent(make_scene("random", 60, seed=2))

    def state():
        m = bp.m
        return [bp.keys[:m].copy(), bp.codes[:m].copy(), bp.okeys[:m].copy(), bp.ocodes[:m].copy(),
                bp.tkeys.copy(), bp.tvals.copy(), bp.plist[: bp.npairs].copy(), bp.pairs()]

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
    extra = bp.okeys.nbytes + bp.ocodes.nbytes + bp.tkeys.nbytes + bp.tvals.nbytes + bp.plist.nbytes
    assert bp.memory_bytes() == plain.memory_bytes() + extra
    assert "persistent_pairs=True" in repr(bp) and f"{bp.npairs} pairs" in repr(bp)
    assert "persistent" not in repr(plain)


# --------------------------------------------------------------------------
# The BroadPhase contract of tests/test_base.py, run on this mode
# --------------------------------------------------------------------------
class _Persistent(SweepAndPrune):
    """SweepAndPrune with persistent_pairs on by default, so that the contract tests build it with no parameters."""

    def __init__(self, **params):
        params.setdefault("persistent_pairs", True)
        super().__init__(**params)


_NAME = "sweep_and_prune_persistent_pairs_test"


def _contract_cases():
    for fname in sorted(dir(tb)):
        f = getattr(tb, fname)
        if not fname.startswith("test_") or not callable(f):
            continue
        if list(inspect.signature(f).parameters)[:1] != ["name"]:
            continue
        marks = [m for m in getattr(f, "pytestmark", []) if m.name == "parametrize" and m.args[0] != "name"]
        names = [[a.strip() for a in m.args[0].split(",")] for m in marks]
        values = [list(m.args[1]) for m in marks]
        for combo in itertools.product(*values):
            kwargs = {}
            for argnames, v in zip(names, combo):
                kwargs.update(zip(argnames, v if len(argnames) > 1 else (v,)))
            tag = "-".join(map(str, kwargs.values()))[:40]
            yield pytest.param(fname, kwargs, id=f"{fname}-{tag}" if tag else fname)


@pytest.mark.parametrize("fname, kwargs", list(_contract_cases()))
def test_contract(fname, kwargs, monkeypatch):
    monkeypatch.setitem(STRUCTURES, _NAME, _Persistent)
    monkeypatch.setattr(_Persistent, "name", _NAME)
    getattr(tb, fname)(name=_NAME, **kwargs)


# --------------------------------------------------------------------------
# Plain Python gives the same output
# --------------------------------------------------------------------------
SMALL_RUN = """
import numpy as np
import lessons_lib
from lessons_lib import make_scene
from lessons_lib.structures.sweep_and_prune import SweepAndPrune

rng = np.random.default_rng(3)
boxes = make_scene("random", 150, seed=5)
bp = SweepAndPrune.from_boxes(boxes, persistent_pairs=True)
out = [lessons_lib.JIT_ENABLED, len(bp.tkeys)]
for frame in range(6):
    d = rng.uniform(-4, 4, (150, 2))
    boxes = boxes + np.column_stack([d, d])
    if frame % 2:
        bp.update_many(np.arange(150), boxes)
    else:
        bp.update_many(np.arange(5), boxes[:5])
    out += [bp.last_swaps, bp.npairs, bp.pairs().tolist(), bp.plist[: bp.npairs].tolist(), bp.tkeys.tolist()]
heap = np.tile([0.0, 0.0, 1.0, 1.0], (150, 1))
bp.update_many(np.arange(150), heap)  # the table grows during the sort
out += [bp.last_swaps, bp.npairs, len(bp.tkeys), bp.tkeys.tolist(), bp.plist[: bp.npairs].tolist()]
bp.remove(7)
bp.insert(7, [0.5, 0.5, 3, 3])
bp.cleanup()
out += [bp.npairs, bp.pairs().tolist(), bp.tkeys.tolist()]
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

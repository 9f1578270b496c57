"""Sweep and prune (lesson 08): brute-force equality, the sorted-endpoint invariant, the lesson helpers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bp_strategies import any_box, box_arrays, filter_query, lattice_box, model_pairs
from lessons_lib import SCENES, STRUCTURES, brute_force_pairs, make_scene
from lessons_lib.labs import sweep as sl
from lessons_lib.structures.endpoints import endpoints_sorted, sort_endpoints
from lessons_lib.structures.sweep_and_prune import (
    SortedEndpoints,
    SweepAndPrune,
    insertion_sort_endpoints,
    sweep_pairs,
)


# --------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------
def check_endpoints(ends: SortedEndpoints, elements) -> None:
    """One axis: exactly two endpoints per live slot, keys equal to the boxes, sorted (min first on ties)."""
    m = ends.m
    assert m == 2 * len(elements)
    keys, codes = ends.keys[:m], ends.codes[:m]
    live = elements.live_slots()
    np.testing.assert_array_equal(np.sort(codes), np.sort(np.concatenate([2 * live, 2 * live + 1])))
    np.testing.assert_array_equal(keys, elements.boxes[codes >> 1, ends.axis + 2 * (codes & 1)])
    # sorted by (key, is_max), checked independently of the library's kernel
    order = list(zip(keys.tolist(), (codes & 1).tolist()))
    assert order == sorted(order)
    assert ends.is_sorted()


def check_invariants(bp: SweepAndPrune) -> None:
    """The sweep axis's endpoints (see :func:`check_endpoints`)."""
    assert bp.ends.axis == bp.axis and bp.m == bp.ends.m
    check_endpoints(bp.ends, bp.elements)
    assert bp.is_sorted()


def check_model(bp: SweepAndPrune, model: dict) -> None:
    check_invariants(bp)
    ids, boxes = bp.items()
    np.testing.assert_array_equal(ids, np.array(sorted(model), dtype=np.int64))
    np.testing.assert_array_equal(bp.pairs(), model_pairs(model))


def inversions(keys, ismax) -> int:
    """Pairs out of (key, is_max) order: the swaps insertion sort must make."""
    e = list(zip(keys, ismax))
    return sum(1 for i in range(len(e)) for j in range(i + 1, len(e)) if e[j] < e[i])


# --------------------------------------------------------------------------
# Against brute force
# --------------------------------------------------------------------------
def test_registered():
    assert STRUCTURES["sweep_and_prune"] is SweepAndPrune


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_scenes_equal_brute_force(scene, axis):
    boxes = make_scene(scene, 600, seed=11)
    bp = SweepAndPrune.from_boxes(boxes, axis=axis)
    check_invariants(bp)
    ref = brute_force_pairs(boxes)
    np.testing.assert_array_equal(bp.pairs(), ref)
    assert bp.last_tests >= len(ref)
    for q in [[100, 100, 300, 250], [0, 0, 0, 0], [-10, -10, 1000, 1000], [250, 0, 250, 600]]:
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@pytest.mark.parametrize("scene, axis", [("xline", 1), ("yline", 0), ("random", 0)])
def test_axis_is_chosen_by_variance(scene, axis):
    bp = SweepAndPrune.from_boxes(make_scene(scene, 500))
    assert bp.axis == axis and bp.fixed_axis is None


def test_forced_axis_and_the_cost_of_the_wrong_one():
    boxes = make_scene("xline", 400)
    good = SweepAndPrune.from_boxes(boxes)
    bad = SweepAndPrune.from_boxes(boxes, axis=0)
    assert bad.axis == 0
    np.testing.assert_array_equal(good.pairs(), bad.pairs())
    assert bad.last_tests == 400 * 399 // 2  # every box open at once along x: brute force
    assert good.last_tests < bad.last_tests / 5


def test_cleanup_rechooses_the_axis():
    bp = SweepAndPrune()
    assert bp.axis == 0
    for i, b in enumerate(make_scene("xline", 80)):
        bp.insert(i, b)
    assert bp.axis == 0  # inserts do not switch the axis
    before = bp.pairs()
    bp.cleanup()
    assert bp.axis == 1
    check_invariants(bp)
    np.testing.assert_array_equal(bp.pairs(), before)
    forced = SweepAndPrune.from_boxes(make_scene("xline", 80), axis=0)
    forced.cleanup()
    assert forced.axis == 0


def on_lattice(n_max=40):
    """Boxes on a coarse lattice: many equal coordinates, touching and zero-width boxes."""
    coarse = lattice_box(lo=0, hi=6, max_size=3)
    return box_arrays(min_size=0, max_size=n_max, box=st.one_of(coarse, coarse, any_box()))


@given(boxes=on_lattice(), axis=st.sampled_from([None, 0, 1]),
       queries=st.lists(lattice_box(lo=-2, hi=8, max_size=4), max_size=5))
def test_hypothesis_equal_coordinates_and_zero_width(boxes, axis, queries):
    bp = SweepAndPrune.from_boxes(boxes, axis=axis)
    check_invariants(bp)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    for q in queries:
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@given(boxes=on_lattice(30), moves=st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=30),
       incremental=st.booleans())
def test_hypothesis_update_many(boxes, moves, incremental):
    bp = SweepAndPrune.from_boxes(boxes, incremental=incremental)
    n = len(boxes)
    d = np.array((moves * (n // len(moves) + 1))[:n], dtype=np.float64).reshape(-1, 2)
    new = boxes + np.column_stack([d, d])
    old_codes = bp.codes[: bp.m].copy()
    bp.update_many(np.arange(n), new)
    check_invariants(bp)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(new))
    if incremental and n:
        # the swaps are exactly the endpoint pairs that changed order
        moved_keys = new[old_codes >> 1, bp.axis + 2 * (old_codes & 1)]
        assert bp.last_swaps == inversions(moved_keys.tolist(), (old_codes & 1).tolist())


def test_touching_boxes_pair_on_both_axes():
    boxes = [[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [4, 4, 4, 4], [4, 2, 4, 2], [5, 5, 5, 5]]
    for axis in (0, 1):
        bp = SweepAndPrune.from_boxes(boxes, axis=axis)
        np.testing.assert_array_equal(bp.pairs(), [[0, 1], [0, 2], [1, 2], [1, 4]])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_long_random_sequences(seed):
    rng = np.random.default_rng(seed)
    bp = SweepAndPrune(axis=[None, 0, 1, None][seed], incremental=seed != 3)
    model: dict[int, list[float]] = {}
    next_id = 0

    def rand_box():
        x, y = rng.integers(0, 40, 2)
        w, h = (0 if rng.random() < 0.2 else rng.integers(0, 8) for _ in range(2))
        return [float(x), float(y), float(x + w), float(y + h)]

    for step in range(400):
        r = rng.random()
        if r < 0.3 or not model:
            b = rand_box()
            bp.insert(next_id, b)
            model[next_id] = b
            next_id += 1
        elif r < 0.45:
            i = int(rng.choice(list(model)))
            bp.remove(i)
            del model[i]
        elif r < 0.7:
            i = int(rng.choice(list(model)))
            b = model[i]
            d = rng.integers(-3, 4, 2)
            nb = [b[0] + d[0], b[1] + d[1], b[2] + d[0], b[3] + d[1]]
            bp.update(i, nb)
            model[i] = nb
        elif r < 0.85:
            ids = rng.permutation(list(model))[: rng.integers(1, len(model) + 1)]
            new = [[model[int(i)][0] + s, model[int(i)][1] - s, model[int(i)][2] + s, model[int(i)][3] - s]
                   for i, s in zip(ids, rng.integers(-2, 3, len(ids)))]
            bp.update_many(ids, new)
            for i, b in zip(ids, new):
                model[int(i)] = b
        elif r < 0.95:
            bp.cleanup()
        else:
            q = rand_box()
            np.testing.assert_array_equal(bp.query(q), filter_query(sorted(model), [model[i] for i in sorted(model)], q))
        check_invariants(bp)
        if step % 10 == 0:
            check_model(bp, model)
    check_model(bp, model)
    bp.clear()
    check_model(bp, {})


def test_update_moves_far_past_its_own_other_endpoint():
    bp = SweepAndPrune.from_boxes([[0, 0, 1, 1], [2, 0, 3, 1], [4, 0, 5, 1]], axis=0)
    bp.update(0, [10, 0, 11, 1])
    check_invariants(bp)
    # the min passes its own max and the four endpoints of boxes 1, 2 (5 swaps),
    # then the max passes those four and the min (5 swaps)
    assert bp.last_swaps == 10
    bp.update(0, [-5, 0, -4, 1])
    check_invariants(bp)
    bp.update(2, [1, 0, 2, 1])
    check_invariants(bp)
    np.testing.assert_array_equal(bp.pairs(), [[1, 2]])


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params, pattern", [
    ({"axis": 2}, "axis must be one of 0, 1"),
    ({"axis": -1}, "axis must be one of 0, 1"),
    ({"axis": True}, "axis must be one of 0, 1"),
    ({"axis": "x"}, "axis must be one of 0, 1"),
    ({"axis": 0.0}, "axis must be one of 0, 1"),
    ({"incremental": "yes"}, "incremental must be True or False"),
    ({"incremental": 1}, "incremental must be True or False"),
])
def test_bad_parameters(params, pattern):
    with pytest.raises(ValueError, match=pattern):
        SweepAndPrune(**params)
    with pytest.raises(ValueError, match=pattern):
        SweepAndPrune.from_boxes(make_scene("random", 10), **params)


def test_failed_calls_leave_the_endpoints_unchanged():
    bp = SweepAndPrune.from_boxes(make_scene("random", 50, seed=2))
    before = (bp.keys[: bp.m].copy(), bp.codes[: bp.m].copy(), bp.pairs())
    for call, err in [
        (lambda: bp.update_many([0, 1], [[0, 0, 1, 1], [5, 0, 1, 1]]), ValueError),  # second box inverted
        (lambda: bp.update_many([0, 999], [[0, 0, 1, 1], [0, 0, 1, 1]]), KeyError),
        (lambda: bp.update_many([0, 0], [[0, 0, 1, 1], [0, 0, 1, 1]]), ValueError),
        (lambda: bp.update(3, [0, 0, np.nan, 1]), ValueError),
        (lambda: bp.insert(3, [0, 0, 1, 1]), ValueError),
        (lambda: bp.remove(777), KeyError),
        (lambda: bp.query([5, 5, 1, 1]), ValueError),
    ]:
        with pytest.raises(err):
            call()
        np.testing.assert_array_equal(bp.keys[: bp.m], before[0])
        np.testing.assert_array_equal(bp.codes[: bp.m], before[1])
        np.testing.assert_array_equal(bp.pairs(), before[2])


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------
def test_sort_endpoints_puts_mins_first_on_ties():
    keys = np.array([3.0, 1.0, 1.0, 1.0, 2.0, 1.0, -0.0, 0.0])
    codes = np.array([1, 3, 4, 5, 7, 6, 9, 8], dtype=np.int64)
    sort_endpoints(keys, codes, len(keys))
    assert endpoints_sorted(keys, codes, len(keys))
    np.testing.assert_array_equal(keys, [-0.0, 0.0, 1, 1, 1, 1, 2, 3])
    assert [c & 1 for c in codes[2:6]] == [0, 0, 1, 1]
    assert (codes[:2] & 1).tolist() == [0, 1]


@pytest.mark.parametrize("seed", range(5))
def test_insertion_sort_counts_inversions(seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 6, 40).astype(np.float64)
    codes = rng.permutation(80)[:40].astype(np.int64)
    expected = inversions(keys.tolist(), (codes & 1).tolist())
    swaps = insertion_sort_endpoints(keys, codes, 40)
    assert swaps == expected
    assert endpoints_sorted(keys, codes, 40)
    assert insertion_sort_endpoints(keys, codes, 40) == 0  # already sorted: no swap


def test_sweep_kernel_on_empty_and_single():
    bp = SweepAndPrune()
    p, tests = sweep_pairs(bp.keys, bp.codes, 0, bp.elements.boxes, 0, 0)
    assert p.shape == (0, 2) and tests == 0
    bp.insert(5, [0, 0, 1, 1])
    assert bp.pairs().shape == (0, 2)
    np.testing.assert_array_equal(bp.query([1, 1, 2, 2]), [5])


def test_memory_and_repr():
    bp = SweepAndPrune.from_boxes(make_scene("random", 100))
    assert bp.memory_bytes() >= bp.elements.nbytes() + 16 * 200
    assert "axis=x (auto)" in repr(bp)
    keys, ids, is_max = bp.endpoints()
    assert len(keys) == 200 and is_max.sum() == 100 and set(ids.tolist()) == set(range(100))


# --------------------------------------------------------------------------
# The lesson helpers
# --------------------------------------------------------------------------
@pytest.mark.parametrize("s, count", [("", 0), ("[]", 0), ("[[]]", 1), ("[][]", 0), ("[[]][[][]][]", 3),
                                      ("[[[]]]", 3), ("[[][]]", 2)])
def test_count_bracket_overlaps(s, count):
    assert sl.count_bracket_overlaps(s) == count


@pytest.mark.parametrize("s, pattern", [("]", "closes nothing"), ("[[]", "never closed"), ("[x]", "not '\\['"),
                                        ("[]]", "closes nothing")])
def test_count_bracket_overlaps_errors(s, pattern):
    with pytest.raises(ValueError, match=pattern):
        sl.count_bracket_overlaps(s)


def test_list_bracket_overlaps_closes_by_name():
    assert sl.list_bracket_overlaps([("[", 1), ("[", 2), ("]", 1), ("[", 3), ("]", 2), ("]", 3)]) == [(1, 2), (2, 3)]
    with pytest.raises(ValueError, match="not open"):
        sl.list_bracket_overlaps([("[", 1), ("]", 2)])
    with pytest.raises(ValueError, match="opened twice"):
        sl.list_bracket_overlaps([("[", 1), ("]", 1), ("[", 1), ("]", 1)])
    with pytest.raises(ValueError, match="never closed"):
        sl.list_bracket_overlaps([("[", 1)])


@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 4)), max_size=15))
def test_brackets_agree_with_intervals(raw):
    intervals = [(a, a + w) for a, w in raw]
    tokens = sl.intervals_to_tokens(intervals)
    boxes = np.array([[a, 0, b, 1] for a, b in intervals], dtype=np.float64).reshape(-1, 4)
    expected = [tuple(p) for p in brute_force_pairs(boxes).tolist()]
    assert sl.list_bracket_overlaps(tokens) == expected
    assert sl.count_bracket_overlaps(sl.tokens_to_string(tokens)) == len(expected)


@pytest.mark.parametrize("scene", ["random", "xline", "large_boxes"])
def test_pseudo_sap_and_sweep_events_equal_brute_force(scene):
    boxes = make_scene(scene, 200, seed=4)
    ref = brute_force_pairs(boxes)
    p, tests = sl.pseudo_sap_pairs(boxes, axis=0)
    np.testing.assert_array_equal(p, ref)
    assert len(ref) <= tests <= 200 * 199 // 2
    events = sl.sweep_events(boxes, axis=1)
    assert len(events) == 400 and events[-1].active == ()
    np.testing.assert_array_equal(np.array(sorted(events[-1].pairs), dtype=np.int64).reshape(-1, 2), ref)


def test_pseudo_sap_binary_lower_bound_misses_a_long_box():
    boxes = [[0, 0, 10, 1], [1, 0, 2, 1], [3, 0, 4, 1], [8, 0, 9, 1]]
    good = sl.pseudo_sap_window(boxes, 3)
    assert good["neighbours"] == good["true_neighbours"] == [0]
    bad = sl.pseudo_sap_window(boxes, 3, lower="binary")
    assert bad["neighbours"] == [] and bad["lower"] > good["lower"]
    with pytest.raises(ValueError, match="lower must be"):
        sl.pseudo_sap_window(boxes, 0, lower="guess")
    with pytest.raises(ValueError, match="row must be"):
        sl.pseudo_sap_window(boxes, 4)


def test_sweep_stepper_and_coherence_run():
    boxes = make_scene("large_boxes", 5, seed=1, world=[0, 0, 300, 200])
    stepper = sl.sweep_stepper(boxes)
    assert len(stepper) == 11
    assert "opens" in stepper.label(1)
    assert len(stepper.png(3)) > 1000
    with pytest.raises(ValueError, match="at most 12"):
        sl.sweep_stepper(make_scene("random", 13))
    run = sl.coherence_run(make_scene("random", 300), frames=3, step=1.0)
    assert run["swaps"].shape == (3,) and (run["swaps"] >= 0).all()
    with pytest.raises(ValueError, match="frames"):
        sl.coherence_run(boxes, frames=0)


# --------------------------------------------------------------------------
# The sweep kernel's two passes and output growth
# --------------------------------------------------------------------------
def test_sweep_output_grows_past_its_first_guess():
    boxes = np.tile([0.0, 0.0, 1.0, 1.0], (300, 1))  # 44,850 pairs from 600 endpoints
    bp = SweepAndPrune.from_boxes(boxes)
    p, tests = sweep_pairs(bp.keys, bp.codes, bp.m, bp.elements.boxes, bp.axis, bp.elements.high_water)
    assert len(p) == tests == 300 * 299 // 2
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))


@pytest.mark.parametrize("n_open", [7, 8, 9, 63, 64, 65, 300])
def test_sweep_finds_hits_at_every_position_of_the_open_set(n_open):
    # n_open boxes all open along x; the new box meets only every third of them on y,
    # so hits fall at every offset inside the 8-flag words, and past the last full word
    rng = np.random.default_rng(n_open)
    y = rng.permutation(n_open).astype(np.float64) * 10
    boxes = np.column_stack([np.zeros(n_open), y, np.full(n_open, 5.0), y + 1])
    probe = [[1, 0, 2, 10 * n_open]]
    partial = [[1, 0, 2, 5 * n_open]]
    for extra in (probe, partial):
        b = np.vstack([boxes, extra])
        bp = SweepAndPrune.from_boxes(b, axis=0)
        np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(b))


PLAIN_PYTHON_DENSE = """
import numpy as np
import lessons_lib
from lessons_lib import brute_force_pairs
from lessons_lib.structures.quadtree import Quadtree
from lessons_lib.structures.sweep_and_prune import SweepAndPrune

assert lessons_lib.JIT_ENABLED is False
rng = np.random.default_rng(5)
same = np.tile([0.0, 0.0, 1.0, 1.0], (260, 1))  # 259 hits for one opening: past a uint8 count
xy = np.column_stack([rng.uniform(0, 5, 120), rng.uniform(0, 120, 120)])
line = np.hstack([xy, xy + [3.0, 2.0]])
for boxes in (same, line):
    ref = brute_force_pairs(boxes)
    for bp in (SweepAndPrune.from_boxes(boxes, axis=0), Quadtree.from_boxes(boxes, capacity=8, max_depth=2)):
        assert np.array_equal(bp.pairs(), ref), type(bp).__name__
        q = bp.query([0, 0, 2, 2])
        assert np.array_equal(q, np.flatnonzero((boxes[:, 0] <= 2) & (boxes[:, 1] <= 2))), type(bp).__name__
for n in range(2, 70):  # every fill level of the output at the moment it must grow
    bp = SweepAndPrune.from_boxes(np.tile([0.0, 0.0, 1.0, 1.0], (n, 1)))
    assert len(bp.pairs()) == n * (n - 1) // 2, n
boxes = lessons_lib.make_scene("yline", 300, seed=3)  # once wrote one row past the output
assert np.array_equal(SweepAndPrune.from_boxes(boxes).pairs(), brute_force_pairs(boxes))
print("ok")
"""


def test_plain_python_dense_scenes():
    """LESSONS_JIT=0 on scenes with hundreds of hits per opening (counters must not wrap)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, LESSONS_JIT="0")
    proc = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_DENSE], cwd=Path(__file__).resolve().parents[1],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr

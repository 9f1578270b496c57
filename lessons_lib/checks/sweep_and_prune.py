"""Exercise checks for lesson 08: sweep and prune.

1. :func:`check_count_bracket_overlaps`, the warm-up: count the overlapping
   intervals of a string of brackets.
2. :func:`check_sweep`, the core: the sweep with a set of open boxes, written on
   :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune`'s own flat
   arrays (``keys``, ``codes``, the element table's ``boxes``), then plugged
   into the structure in place of its compiled sweep; its pairs are compared
   with brute force.
3. :func:`check_insertion_repair`, the core of temporal coherence: repair the
   almost-sorted endpoint arrays by insertion sort, in place, counting the
   swaps; then plugged into ``SweepAndPrune.update_many``.

Every check runs the learner's function on copies of its inputs (nothing the
check keeps can be spoiled), on adversarial scenes (touching and zero-area
boxes, duplicates, negative coordinates, boxes outside the world, the empty
input, freed slots whose rows still hold an old box) and on seeded random ones,
and says which input failed and what was expected.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..structures.brute_force import brute_force_pairs
from .common import CheckFailed, Mistakes, adversarial_boxes, expect_int, expect_pairs, fmt, num, run_student

__all__ = ["check_count_bracket_overlaps", "check_sweep", "check_insertion_repair"]

#: The world the adversarial scenes are placed in: origin not 0, size not round.
_WORLD = (-37.5, 12.25, 262.5, 190.0)


# --------------------------------------------------------------------------
# Exercise 1: count the overlaps in a bracket string
# --------------------------------------------------------------------------
def _bracket_cases():
    """Fixed bracket strings, then seeded random intervals turned into strings."""
    from ..labs.sweep import intervals_to_tokens, tokens_to_string

    fixed = [
        ("an empty string", []),
        ("one interval", [(0, 1)]),
        ("two intervals side by side", [(0, 1), (2, 3)]),
        ("one interval inside another", [(0, 3), (1, 2)]),
        ("two crossing intervals (the first closes first)", [(0, 2), (1, 3)]),
        ("the string [[]][[][]][]", [(0, 3), (1, 2), (4, 9), (5, 6), (7, 8), (10, 11)]),
        ("three nested intervals", [(0, 5), (1, 4), (2, 3)]),
        ("a long interval over three short ones", [(0, 10), (1, 2), (3, 4), (5, 6)]),
        ("a staircase of crossing intervals", [(0, 2.5), (1, 3.5), (2, 4.5), (3, 5.5)]),
        ("two intervals touching at 2 (closed: they overlap)", [(0, 2), (2, 4)]),
    ]
    rng = np.random.default_rng(808)
    for k in range(40):
        n = int(rng.integers(2, 14))
        lo = rng.uniform(-20, 20, n).round(1)
        fixed.append((f"random case {k} ({n} intervals)", list(zip(lo, lo + rng.uniform(0, 6, n).round(1)))))
    return [(name, tokens_to_string(intervals_to_tokens(iv))) for name, iv in fixed]


def check_count_bracket_overlaps(fn) -> None:
    """Check ``fn(s) -> int``: the number of overlapping interval pairs in a bracket string.

    ``s`` is a balanced string of ``[`` and ``]`` (the empty string among
    them). The answer must be a Python ``int`` (a float such as ``3.0``, or a
    NumPy integer, fails).

    Raises
    ------
    CheckFailed
        On the first wrong count, naming the string and the expected count.
    """
    from ..labs.sweep import count_bracket_overlaps

    cases = _bracket_cases()
    mistakes = Mistakes()
    for name, s in cases:
        expected = count_bracket_overlaps(s)
        call = f"count_bracket_overlaps({s!r})"
        got = expect_int(run_student(fn, s, name="count_bracket_overlaps", case=f"{name}: {call}"), call, exact=True)
        candidates = [
            ("Hint: an interval does not overlap itself: count the intervals open *before* this '[' is opened.",
             expected + s.count("[")),
            ("Hint: a '[' overlaps every interval still open, not only the one opened just before it.", s.count("[[")),
        ]
        if got == expected:
            mistakes.passed(got, candidates)
            continue
        hint = mistakes.hint(got, expected, candidates)
        raise CheckFailed(f"{name}: {call} returned {got}, expected {expected}.{' ' + hint if hint else ''}")
    print(f"count_bracket_overlaps passed all {len(cases)} strings.")


# --------------------------------------------------------------------------
# Plugging a learner's function into SweepAndPrune
# --------------------------------------------------------------------------
@contextmanager
def _plugged(name: str, replacement):
    """Replace the kernel ``name`` of the sweep-and-prune module while the block runs; yields a call counter.

    ``SweepAndPrune`` looks its kernels up in its module at every call, so the
    structure runs the replacement. The counter lets the check make sure it did.
    """
    from ..structures import sweep_and_prune as mod

    calls = [0]

    def counted(*args):
        calls[0] += 1
        return replacement(*args)

    original = getattr(mod, name)
    setattr(mod, name, counted)
    try:
        yield calls
    finally:
        setattr(mod, name, original)


def _not_reached(what: str) -> RuntimeError:
    return RuntimeError(f"the check could not plug your function into SweepAndPrune ({what} was never called): "
                        "lessons_lib.checks.sweep_and_prune is out of date with the structure; tell your teacher")


# --------------------------------------------------------------------------
# Exercise 2: the sweep, on the structure's arrays
# --------------------------------------------------------------------------
def _with_holes(sap, rng) -> str:
    """Remove about a third of the ids and insert a few new ones: slots with holes, stale rows, ids != slots."""
    ids = sorted(int(i) for i in sap.elements.ids[sap.elements.live_slots()])
    gone = [i for k, i in enumerate(ids) if k % 3 == 1]
    for i in gone:
        sap.remove(i)
    live = sap.elements.boxes[sap.elements.live_slots()]
    for k in range(len(gone) // 2):  # new ids reuse some of the freed slots
        base = live[k % len(live)] if len(live) else np.array([0.0, 0.0, 1.0, 1.0])
        shift = rng.uniform(-3, 3, 2).round(2)
        sap.insert(1000 + k, base + np.concatenate([shift, shift]))
    return f", then {len(gone)} removed and {len(gone) // 2} inserted (freed slots keep their old rows)"


def _sweep_scenes():
    """``(name, SweepAndPrune)`` pairs: adversarial and random scenes, both axes, some with freed slots."""
    from ..structures.sweep_and_prune import SweepAndPrune

    scenes = adversarial_boxes(seed=808, world=_WORLD)
    rng = np.random.default_rng(88)
    lattice = rng.integers(-4, 5, size=(14, 2)).astype(float)
    scenes += [
        ("crossing intervals: the first box closes while later ones are open",
         np.array([[0.0, 0.0, 3.0, 1.0], [1.0, 0.5, 5.0, 2.0], [2.0, 1.5, 7.0, 3.0], [4.0, 0.0, 6.0, 0.5]])),
        ("a lattice of whole-number boxes (many equal endpoints)",
         np.column_stack([lattice, lattice + rng.integers(0, 3, size=(14, 2))])),
        ("one long box under a row of short ones",
         np.array([[-10.0, 0.0, 10.0, 1.0]] + [[x, 0.5, x + 1.5, 2.0] for x in (-9.0, -4.0, 0.0, 4.5, 8.5)])),
    ]
    out = []
    for k, (name, boxes) in enumerate(scenes):
        for axis in (0, 1):
            sap = SweepAndPrune.from_boxes(boxes, axis=axis)
            label = f"{name}, sweep axis {'xy'[axis]}"
            if len(boxes) >= 3 and (k + axis) % 2 == 0:
                label += _with_holes(sap, rng)
            out.append((label, sap))
    return out


def _closed_overlap(a, b, axis) -> bool:
    return bool(a[axis] <= b[axis + 2] and b[axis] <= a[axis + 2])


def _expected_sweep(sap):
    """Brute force: the live slots' intersecting pairs (as slot pairs) and their pairs overlapping on the sweep axis."""
    live = sap.elements.live_slots()
    b = sap.elements.boxes[live]
    pairs = {(int(live[i]), int(live[j])) for i, j in brute_force_pairs(b).tolist()}
    lo, hi = b[:, sap.axis], b[:, sap.axis + 2]
    on_axis = (lo[:, None] <= hi[None, :]) & (lo[None, :] <= hi[:, None])
    tests = int((on_axis.sum() - len(b)) // 2)
    return pairs, tests


def _sweep_result(got, what: str, n_slots: int):
    if not isinstance(got, tuple) or len(got) != 2:
        raise CheckFailed(f"{what}: return a tuple (pairs, tests), got {got!r}")
    pairs = expect_pairs(got[0], f"the pairs of {what}", n=n_slots)
    tests = expect_int(got[1], f"the number of tests of {what}", exact=True)
    return pairs, tests


def _sweep_mismatch(label, what, sap, got, expected, tests, expected_tests) -> str:
    boxes = sap.elements.boxes
    live = set(sap.elements.live_slots().tolist())
    axis, other = sap.axis, 1 - sap.axis
    extra, missing = sorted(got - expected), sorted(expected - got)
    msg = f"{label}: {what} found {len(got)} pairs, brute force {len(expected)}."
    if extra:
        s, t = extra[0]
        msg += f" Pair {(s, t)} is not one"
        if s not in live or t not in live:
            dead = s if s not in live else t
            return (msg + f": slot {dead} holds no box of the structure (it was freed; its row in boxes is an old "
                    "box). Hint: take the slots from the endpoints in codes, not from the rows of boxes.")
        a, b = boxes[s], boxes[t]
        msg += f": slot {s} {fmt(a)}, slot {t} {fmt(b)}."
        if not _closed_overlap(a, b, axis):
            msg += (f" They do not overlap along the sweep axis {'xy'[axis]}. Hint: a box leaves the open set at "
                    "its max endpoint, and it is the box that endpoint's code names (not always the one opened last).")
        elif not _closed_overlap(a, b, other):
            msg += (f" They overlap along the sweep axis but not along {'xy'[other]}. Hint: every open box overlaps "
                    "the opening one on the sweep axis; the test that decides is on the other axis.")
        return msg
    s, t = missing[0] if missing else (None, None)
    if s is not None:
        a, b = boxes[s], boxes[t]
        msg += f" Missing pair {(s, t)}: slot {s} {fmt(a)}, slot {t} {fmt(b)} intersect."
        if a[other] == b[other + 2] or b[other] == a[other + 2]:
            msg += f" Hint: they only touch along {'xy'[other]}; boxes are closed, touching counts."
        elif a[axis] == b[axis + 2] or b[axis] == a[axis + 2]:
            msg += (" Hint: they only touch along the sweep axis: at an equal coordinate the min endpoint comes "
                    "first in keys, so the second box opens while the first is still open.")
        return msg
    msg = (f"{label}: {what} found the right {len(got)} pairs but reports {tests} tests, expected {expected_tests} "
           "(one test per open box each time a box opens).")
    m = len(live)
    if tests == m * (m - 1) // 2 != expected_tests:
        msg += (f" {tests} is what a sweep whose boxes never leave the open set counts. Hint: a box leaves the open "
                "set at its max endpoint.")
    return msg


def check_sweep(fn) -> None:
    """Check ``fn(keys, codes, boxes, axis) -> (pairs, tests)``: the sweep over SweepAndPrune's arrays.

    ``keys`` (float64) and ``codes`` (int64, ``2 * slot + is_max``) are the
    structure's ``m`` sorted endpoints; ``boxes`` is its element table by slot
    (``(high_water, 4)`` float64; freed slots keep an old box); ``axis`` is the
    sweep axis. The answer: every pair of slots whose boxes intersect (closed),
    as ``(a, b)`` with ``a < b``, each once; and ``tests``, the number of boxes
    that were open each time a box opened, summed (the tests on the other axis).

    The check runs ``fn`` on copies of the arrays of structures built from
    adversarial and random scenes, on both axes, some after removals and
    inserts, and compares with brute force; then it plugs ``fn`` into
    ``SweepAndPrune`` in place of its compiled sweep and compares the
    structure's ``pairs()`` (ids, canonical order) with brute force.

    Raises
    ------
    CheckFailed
        On the first structure whose pairs or test count differ, naming it.
    """
    from ..labs.sweep import endpoint_arrays

    structures = _sweep_scenes()
    for label, sap in structures:
        keys, codes, boxes = endpoint_arrays(sap)
        what = f"sweep(keys, codes, boxes, axis={sap.axis})"
        case = f"{label} ({len(keys)} endpoints" + (f": keys {keys.tolist()}, codes {codes.tolist()})" if len(keys) <= 12
                                                    else ")")
        got = _sweep_result(run_student(fn, keys, codes, boxes, sap.axis, name="sweep", case=case),
                            f"{what} on {label}", len(boxes))
        expected, expected_tests = _expected_sweep(sap)
        if got[0] != expected or got[1] != expected_tests:
            raise CheckFailed(_sweep_mismatch(label, what, sap, got[0], expected, got[1], expected_tests))

    def plugged_sweep(keys, codes, m, boxes, axis, n_slots):
        pairs, tests = fn(keys[:m].copy(), codes[:m].copy(), boxes[:n_slots].copy(), int(axis))
        arr = np.array(sorted(expect_pairs(pairs, "the pairs of sweep", n=n_slots)), np.int64).reshape(-1, 2)
        return arr, expect_int(tests, "the number of tests of sweep", exact=True)

    plugged = [(label, sap) for label, sap in structures if "random scene" in label]
    for label, sap in plugged:
        ids_boxes = sap.elements.boxes[sap.elements.live_slots()]
        ids = sap.elements.ids[sap.elements.live_slots()]
        bf = brute_force_pairs(ids_boxes)
        expected = np.sort(ids[bf], axis=1) if len(bf) else np.empty((0, 2), np.int64)
        expected = expected[np.lexsort((expected[:, 1], expected[:, 0]))]
        with _plugged("sweep_pairs", plugged_sweep) as calls:
            try:
                found = sap.pairs()
            except CheckFailed:
                raise
            except Exception as e:
                raise CheckFailed(f"{label}: plugged into SweepAndPrune, sweep raised {type(e).__name__}: {e}") from e
        if calls[0] == 0:
            raise _not_reached("sweep_pairs")
        if not np.array_equal(found, expected):
            raise CheckFailed(f"{label}: plugged into SweepAndPrune, pairs() gave {len(found)} pairs, brute force "
                              f"{len(expected)}.")
    print(f"sweep passed {len(structures)} structures (both axes, touching, duplicates, freed slots) and, "
          f"plugged into SweepAndPrune, gave brute force's pairs on {len(plugged)} random scenes.")


# --------------------------------------------------------------------------
# Exercise 3: insertion-sort repair, counting swaps
# --------------------------------------------------------------------------
def _repair_cases():
    """``(name, keys, codes)``: almost-sorted endpoint arrays after a move, and hand-made ties."""
    from ..labs.sweep import endpoint_arrays, refreshed_keys
    from ..structures.sweep_and_prune import SweepAndPrune

    f8, i8 = np.float64, np.int64
    cases = [
        ("no endpoints at all", np.empty(0, f8), np.empty(0, i8)),
        ("one box, already in order", np.array([1.5, 4.25]), np.array([0, 1])),
        ("every endpoint in reverse order",
         np.arange(12, 0, -1) * 1.5 - 4.0, np.array([1, 3, 0, 5, 7, 2, 9, 4, 11, 6, 8, 10])),
        ("box 0 ends at x = 2 where box 1 starts: a max listed before a min at the same coordinate",
         np.array([0.0, 2.0, 2.0, 5.0]), np.array([0, 1, 2, 3])),
        ("two mins at the same coordinate, already in order (they must keep it)",
         np.array([-1.0, -1.0, 3.0, 4.0]), np.array([4, 2, 5, 3])),
        ("two maxes at the same coordinate, then a min of that coordinate",
         np.array([0.0, 0.5, 7.25, 7.25, 7.25, 9.0]), np.array([0, 2, 1, 3, 4, 5])),
    ]
    rng = np.random.default_rng(1808)
    for k, (name, boxes) in enumerate(adversarial_boxes(seed=18, world=_WORLD)):
        if len(boxes) == 0:
            continue
        axis = k % 2
        sap = SweepAndPrune.from_boxes(boxes, axis=axis)
        _, codes, table = endpoint_arrays(sap)
        span = max(1.0, float(np.ptp(table[:, [axis, axis + 2]])))
        step = rng.uniform(-0.05, 0.05, len(table)) * span
        moved = table.copy()
        moved[:, axis] += step
        moved[:, axis + 2] += step
        if k % 3 == 0:  # whole units: many equal keys, mins and maxes among them
            moved = np.round(moved)
            moved[:, 2:] = np.maximum(moved[:, 2:], moved[:, :2])
        cases.append((f"{name}, moved a little along {'xy'[axis]}", refreshed_keys(codes, moved, axis), codes))
    sap = SweepAndPrune.from_boxes(adversarial_boxes(seed=5, world=_WORLD)[-1][1], axis=0)
    _, codes, table = endpoint_arrays(sap)
    far = table.copy()
    far[0, [0, 2]] += (np.ptp(table[:, [0, 2]]) + 10.0) * np.array([-1.0, -1.0])
    cases.append(("one box teleported across the world in one frame", refreshed_keys(codes, far, 0), codes))
    return cases


def _sweep_order(keys, codes) -> np.ndarray:
    """The stable order by (key, is_max): what an insertion sort leaves."""
    return np.lexsort((np.asarray(codes) & 1, np.asarray(keys)))


def _describe(k, c) -> str:
    return f"{'max' if c & 1 else 'min'} of slot {c >> 1} at {num(k)}"


class _Watched(np.ndarray):
    """``keys`` or ``codes`` as handed to the learner: every read or write lets the :class:`_RepairWatch` look."""

    def __array_finalize__(self, obj):
        self._watch = None  # views and results made from it are plain (they are not followed)

    def __getitem__(self, idx):
        if self._watch is not None:
            self._watch.sync()
        out = super().__getitem__(idx)
        return out.view(np.ndarray) if isinstance(out, np.ndarray) else out

    def __setitem__(self, idx, value):
        if self._watch is None:
            return super().__setitem__(idx, value)
        self._watch.sync()
        super().__setitem__(idx, value)
        self._watch.writes += 1
        self._watch.sync()


class _RepairWatch:
    """Follows the endpoints an ``insertion_repair`` moves, through every read and write of ``keys`` and ``codes``.

    Codes are distinct (``2 * slot + is_max``), so each change of ``codes`` tells which
    endpoint went where. An insertion sort, whichever way it is written (shifting
    neighbours right and writing the held endpoint into the gap, swapping neighbours, or
    moving a block in one assignment), changes the array in steps where at most one
    endpoint lands two or more places left of where it was, and never copies an
    endpoint leftwards while it still sits at its old place. A sort done elsewhere and
    written back (whole, or position by position) breaks one of the two.
    """

    def __init__(self, keys, codes):
        self.keys0 = np.array(keys, copy=True)
        self.origin = {int(c): i for i, c in enumerate(np.asarray(codes).tolist())}
        self.state = np.array(codes, copy=True)
        self.writes = 0
        self.problem = None
        self.keys = np.asarray(keys).view(_Watched)
        self.codes = np.asarray(codes).view(_Watched)
        self.keys._watch = self.codes._watch = self

    def sync(self) -> None:
        now = self.codes.view(np.ndarray)
        if np.array_equal(now, self.state):
            return
        before, after = self.state, now.copy()
        self.state = after
        if self.problem is not None:
            return
        far = []
        for p in np.flatnonzero(before != after).tolist():
            v = int(after[p])
            prior = np.flatnonzero(before == v)
            if len(prior) == 0:  # written from a variable (the endpoint held while the others shift)
                q = self.origin.get(v)
                if q is not None and q - p >= 2:
                    far.append((p, v, q, False))
            elif prior.min() >= p + 2:
                q = int(prior.min())
                far.append((p, v, q, bool(after[q] == v)))
        copied = [f for f in far if f[3]]
        if copied:
            self.problem = ("copied", copied[0])
        elif len(far) > 1:
            self.problem = ("many", far)

    def describe(self, v) -> str:
        return _describe(self.keys0[self.origin[v]], v)


def _repair_method(name, what, watch) -> None:
    """Raise CheckFailed if the arrays were not sorted the insertion-sort way (see :class:`_RepairWatch`)."""
    if watch.problem is None:
        return
    kind, detail = watch.problem
    if kind == "copied":
        p, v, q, _ = detail
        raise CheckFailed(f"{name}: {what} sorted the arrays, but not by insertion sort: it wrote the "
                          f"{watch.describe(v)} into position {p} while that endpoint still sat at position {q}, "
                          f"{q - p} places to the right. An insertion sort moves an endpoint only past its neighbours, "
                          "one place at a time, or writes the endpoint it holds into the gap it opened; writing the "
                          "sorted order position by position is another sort.")
    shown = ", ".join(f"the {watch.describe(v)} from position {q} to {p}" for p, v, q, _ in detail[:3])
    raise CheckFailed(f"{name}: {what} sorted the arrays, but not by insertion sort: in one assignment {len(detail)} "
                      f"endpoints jumped two or more places to the left at once ({shown}). That is a sort done "
                      "elsewhere and copied back; an insertion sort takes one endpoint at a time and moves it left "
                      "past its neighbours, in keys and codes themselves.")


def _repair_verdict(name, what, keys, codes, swaps, k_out, c_out, writes=None):
    """Raise CheckFailed if the repaired arrays or the swap count are wrong.

    ``writes``: how many assignments into ``keys[...]`` and ``codes[...]`` the function made
    (``None``: not followed).
    """
    order = _sweep_order(keys, codes)
    exp_k, exp_c = keys[order], codes[order]
    from ..labs.sweep import count_inversions

    exp_swaps = count_inversions(keys, codes)
    if not (isinstance(k_out, np.ndarray) and isinstance(c_out, np.ndarray)):  # pragma: no cover - copies are arrays
        raise CheckFailed(f"{name}: {what} replaced the arrays")
    if sorted(zip(k_out.tolist(), c_out.tolist())) != sorted(zip(keys.tolist(), codes.tolist())):
        raise CheckFailed(f"{name}: after {what} the arrays no longer hold the same endpoints (coordinate, code): "
                          "when a key moves, its code must move with it.")
    bad = next((t for t in range(1, len(k_out)) if (k_out[t], c_out[t] & 1) < (k_out[t - 1], c_out[t - 1] & 1)), None)
    if bad is not None:
        unchanged = np.array_equal(k_out, keys) and np.array_equal(c_out, codes)
        if unchanged and writes == 0:
            raise CheckFailed(f"{name}: {what} left the arrays exactly as they were (not sorted), and it never assigned "
                              "to keys[...] or codes[...]. Sort them in place: giving a name a new array does not "
                              "change the caller's.")
        hint = ""
        if (np.diff(k_out) >= 0).all():  # the coordinates are in order: only the ties are not
            hint = (" The coordinates are in order, the ties are not. Hint: at an equal coordinate a min must come "
                    "before a max (closed boxes: touching ones must pair).")
        if unchanged:
            raise CheckFailed(f"{name}: after {what} the arrays are exactly as they were (not sorted): position {bad} "
                              f"({_describe(k_out[bad], c_out[bad])}) still comes after position {bad - 1} "
                              f"({_describe(k_out[bad - 1], c_out[bad - 1])}).{hint}")
        raise CheckFailed(f"{name}: after {what}, position {bad} ({_describe(k_out[bad], c_out[bad])}) still comes "
                          f"after position {bad - 1} ({_describe(k_out[bad - 1], c_out[bad - 1])}).{hint}")
    if not np.array_equal(c_out, exp_c):
        t = int(np.flatnonzero(c_out != exp_c)[0])
        raise CheckFailed(f"{name}: after {what} the order is sorted, but endpoints that compare equal changed places: "
                          f"position {t} holds the {_describe(k_out[t], c_out[t])}, expected the "
                          f"{_describe(exp_k[t], exp_c[t])} (it was listed first). An insertion sort moves an endpoint "
                          "only past endpoints that must come after it.")
    if swaps != exp_swaps:
        mx = codes & 1
        movers = sum(1 for v in range(len(keys)) if any(
            (keys[v], mx[v]) < (keys[u], mx[u]) for u in range(v)))
        hint = ""
        if swaps == movers and movers != exp_swaps:
            hint = (f" Hint: {movers} is the number of endpoints that moved; count every step an endpoint takes to the "
                    "left, not once per endpoint that moves.")
        raise CheckFailed(f"{name}: {what} sorted the arrays but returned {swaps} swap{'s' * (swaps != 1)}, "
                          f"expected {exp_swaps} (one per exchange of neighbours).{hint}")


def check_insertion_repair(fn) -> None:
    """Check ``fn(keys, codes) -> swaps``: sort the endpoint arrays in place by insertion sort, counting swaps.

    ``keys`` (float64) and ``codes`` (int64, ``2 * slot + is_max``) are the
    endpoints of a ``SweepAndPrune`` whose boxes have just moved: keys read
    again from the moved boxes, in last frame's order. ``fn`` must leave both
    arrays sorted by coordinate, a min before a max at an equal coordinate,
    equal endpoints in the order they had (an insertion sort never exchanges
    them), and return the number of swaps (exchanges of neighbours) as an int.

    The method is checked as well as the result: the arrays handed over follow every
    assignment into ``keys[...]`` and ``codes[...]`` (see :class:`_RepairWatch`). An
    insertion sort moves one endpoint at a time past its neighbours, however it is
    written (shifts and a write into the gap, swaps of neighbours, a block moved in one
    assignment); a full sort with the inversions counted apart, a sorted order written
    back (whole or position by position) or a selection sort fails, and so does an
    insertion sort run on a copy (Python lists) and written back at the end: the repair
    is in place, in the structure's own arrays.

    Then the check plugs ``fn`` into ``SweepAndPrune.update_many`` in place of
    its compiled insertion sort and compares the structure's ``pairs()`` with
    brute force after a frame of motion.

    Raises
    ------
    CheckFailed
        On the first wrong order or swap count, naming the case.
    """
    from ..labs.sweep import count_inversions, endpoint_arrays, refreshed_keys
    from ..scenes import make_scene, moved
    from ..structures.sweep_and_prune import SweepAndPrune

    what = "insertion_repair(keys, codes)"

    def run(k, c):
        watch = _RepairWatch(k, c)
        swaps = fn(watch.keys, watch.codes)
        watch.sync()
        return swaps, k, c, watch

    cases = _repair_cases()
    for name, keys, codes in cases:
        case = f"{name} (keys {keys.tolist()}, codes {codes.tolist()})" if len(keys) <= 16 else name
        swaps, k_out, c_out, watch = run_student(run, keys, codes, name="insertion_repair", may_change=(0, 1),
                                                 case=case, track=fn)
        if swaps is None:
            raise CheckFailed(f"insertion_repair returned None on {case}: it must return the number of swaps, an int.")
        swaps = expect_int(swaps, f"the swaps returned by {what} ({name})", exact=True)
        _repair_verdict(name, what, keys, codes, swaps, k_out, c_out, writes=watch.writes)
        _repair_method(name, what, watch)

    def plugged_sort(keys, codes, m):
        return expect_int(fn(keys[:m], codes[:m]), "the swaps returned by insertion_repair", exact=True)

    frames = 0
    for seed, scene in enumerate(("random", "clustered", "xline")):
        boxes = make_scene(scene, 300, seed=seed)
        sap = SweepAndPrune.from_boxes(boxes)
        there = moved(boxes, 2.0, seed=seed)
        _, codes, _ = endpoint_arrays(sap)
        exp_swaps = count_inversions(refreshed_keys(codes, there, sap.axis), codes)
        with _plugged("insertion_sort_endpoints", plugged_sort) as calls:
            try:
                sap.update_many(np.arange(len(boxes)), there)
            except CheckFailed:
                raise
            except Exception as e:
                raise CheckFailed(f"plugged into SweepAndPrune.update_many on make_scene({scene!r}, 300), "
                                  f"insertion_repair raised {type(e).__name__}: {e}") from e
        if calls[0] == 0:
            raise _not_reached("insertion_sort_endpoints")
        label = f"plugged into SweepAndPrune.update_many, make_scene({scene!r}, 300) moved up to 2 units"
        if not sap.is_sorted():
            raise CheckFailed(f"{label}: the structure's endpoints are not sorted after your repair.")
        if sap.last_swaps != exp_swaps:
            raise CheckFailed(f"{label}: {sap.last_swaps} swaps, expected {exp_swaps}.")
        if not np.array_equal(sap.pairs(), brute_force_pairs(there)):
            raise CheckFailed(f"{label}: pairs() after the move differ from brute force.")
        frames += 1
    print(f"insertion_repair passed {len(cases)} cases (ties, reversed, teleported, empty) and, plugged into "
          f"SweepAndPrune.update_many, kept {frames} moved scenes equal to brute force.")

"""Exercise checks for lesson 08: sweep and prune."""
from __future__ import annotations

import numpy as np

from ..structures.brute_force import brute_force_pairs
from .common import CheckFailed, call_student, fmt

# --------------------------------------------------------------------------
# Lesson 08: sweep and prune
# --------------------------------------------------------------------------
__all__ = ["check_count_bracket_overlaps", "check_list_bracket_overlaps", "check_endpoint_key"]


def _bracket_cases():
    """Fixed bracket strings, then seeded random intervals turned into tokens."""
    from ..labs.sweep import intervals_to_tokens

    fixed = [
        ("an empty string", []),
        ("one interval", [(0, 1)]),
        ("two intervals side by side", [(0, 1), (2, 3)]),
        ("one interval inside another", [(0, 3), (1, 2)]),
        ("two crossing intervals (1 closes before 2)", [(0, 2), (1, 3)]),
        ("the article's example [[]][[][]][]", [(0, 3), (1, 2), (4, 9), (5, 6), (7, 8), (10, 11)]),
        ("three nested intervals", [(0, 5), (1, 4), (2, 3)]),
        ("a long interval over three short ones", [(0, 10), (1, 2), (3, 4), (5, 6)]),
        ("a staircase of crossing intervals", [(0, 2.5), (1, 3.5), (2, 4.5), (3, 5.5)]),
    ]
    rng = np.random.default_rng(808)
    for k in range(40):
        n = int(rng.integers(2, 12))
        lo = rng.uniform(0, 20, n).round(1)
        fixed.append((f"random case {k} ({n} intervals)", list(zip(lo, lo + rng.uniform(0.1, 6, n).round(1)))))
    return [(name, intervals_to_tokens(iv)) for name, iv in fixed]


def check_count_bracket_overlaps(fn) -> None:
    """Check ``fn(s) -> int``: the number of overlapping interval pairs in a bracket string.

    ``s`` is a balanced string of ``[`` and ``]``. Runs fixed strings (the
    article's ``[[]][[][]][]`` among them) and 40 seeded random ones.

    Raises
    ------
    CheckFailed
        On the first wrong count, naming the string.
    """
    from ..labs.sweep import count_bracket_overlaps, tokens_to_string

    cases = _bracket_cases()
    for name, tokens in cases:
        s = tokens_to_string(tokens)
        expected = count_bracket_overlaps(s)
        got = call_student(fn, s)
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
            raise CheckFailed(f"count_bracket_overlaps({s!r}) returned {got!r}; return an int.")
        if got != expected:
            hint = ""
            if got > expected:
                hint = (" Hint: an interval does not overlap itself: add the number of intervals open "
                        "*before* this '[' is pushed.")
            else:
                hint = " Hint: a '[' overlaps every interval still open, not only the one opened just before it."
            raise CheckFailed(f"{name}: count_bracket_overlaps({s!r}) returned {got}, expected {expected}.{hint}")
    print(f"count_bracket_overlaps passed all {len(cases)} strings.")


def check_list_bracket_overlaps(fn) -> None:
    """Check ``fn(tokens) -> list of (i, j)``: the overlapping pairs of named intervals.

    ``tokens`` is a list of ``("[", name)`` / ``("]", name)`` with integer
    names. The pairs must be ``(i, j)`` with ``i < j``, each once; their
    order does not matter.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case and a missing or extra pair.
    """
    from ..labs.sweep import list_bracket_overlaps

    cases = _bracket_cases()
    for name, tokens in cases:
        expected = set(list_bracket_overlaps(tokens))
        got_raw = call_student(fn, list(tokens))
        try:
            got_list = [tuple(int(v) for v in p) for p in got_raw]
        except (TypeError, ValueError):
            raise CheckFailed(f"{name}: return a list of (i, j) tuples, got {got_raw!r}") from None
        if any(len(p) != 2 for p in got_list):
            raise CheckFailed(f"{name}: every pair must have two names, got {got_list}")
        shown = " ".join(f"{ch}{i}" for ch, i in tokens)
        if any(i > j for i, j in got_list):
            bad = next(p for p in got_list if p[0] > p[1])
            raise CheckFailed(f"{name} ({shown}): the result contains {bad}; write each pair with the smaller name first.")
        if len(set(got_list)) != len(got_list):
            raise CheckFailed(f"{name} ({shown}): a pair is reported more than once.")
        got = set(got_list)
        if got != expected:
            missing, extra = sorted(expected - got), sorted(got - expected)
            msg = f"{name} ({shown}): expected {sorted(expected)}, got {sorted(got)}."
            if extra or "crossing" in name:
                msg += (" Hint: ']' closes the interval it names, which is not always the one opened last:"
                        " remove that name from the open set, do not just pop the top.")
            elif missing:
                msg += " Hint: a new '[' pairs with *every* open interval."
            raise CheckFailed(msg)
    print(f"list_bracket_overlaps passed all {len(cases)} token lists.")


def _sweep_with_key(key, boxes):
    """Sweep along x with endpoints sorted by the learner's ``key(coord, is_max)``; return pairs or raise."""
    ends = [(b[0], False, i) for i, b in enumerate(boxes)] + [(b[2], True, i) for i, b in enumerate(boxes)]
    ends.reverse()  # maxes listed first: a key that ignores is_max keeps them first on ties
    ends.sort(key=lambda e: key(e[0], e[1]))
    open_, found = [], set()
    for _, is_max, i in ends:
        if is_max:
            if i not in open_:
                why = ("Hint: at equal coordinates, which should come first?" if boxes[i][0] == boxes[i][2] else
                       f"Hint: {boxes[i][0]:g} < {boxes[i][2]:g}, so your key does not order coordinates as numbers.")
                raise CheckFailed(f"box {i} {fmt(boxes[i])} closes before it opens: with your key its max "
                                  f"endpoint sorts before its min endpoint. {why}")
            open_.remove(i)
        else:
            for a in open_:
                if boxes[a][1] <= boxes[i][3] and boxes[i][1] <= boxes[a][3]:
                    found.add((min(a, i), max(a, i)))
            open_.append(i)
    return found


def check_endpoint_key(fn) -> None:
    """Check ``fn(coord, is_max) -> key``: a sort key for endpoints that makes touching boxes pair.

    The check sorts the endpoints of small scenes with ``sorted(..., key=...)``
    (listing max endpoints first, so that ties are not resolved by luck), runs
    the sweep along x, and compares the pairs with brute force. Scenes include
    boxes that touch on x, zero-width boxes and equal boxes.

    Raises
    ------
    CheckFailed
        On the first scene whose pairs differ, naming a missing or extra pair.
    """
    scenes = [
        ("two boxes touching at x = 2", [(0, 0, 2, 2), (2, 0, 4, 2)]),
        ("a zero-width box (a vertical segment)", [(1, 0, 1, 3), (0, 1, 3, 2)]),
        ("a point on another box's right edge", [(0, 0, 2, 2), (2, 1, 2, 1)]),
        ("three equal boxes", [(1, 1, 2, 2)] * 3),
        ("a row of boxes, each touching the next", [(i, 0, i + 1, 1) for i in range(5)]),
        ("a corner touch", [(0, 0, 1, 1), (1, 1, 2, 2)]),
        ("boxes on both sides of x = 0 and x = 10", [(-3, 0, -1, 1), (-2, 0, 10, 1), (9, 0, 12, 1), (10.5, 0, 11, 1)]),
    ]
    rng = np.random.default_rng(88)
    for k in range(30):
        lo = rng.integers(0, 6, size=(8, 2))
        hi = lo + rng.integers(0, 3, size=(8, 2))
        scenes.append((f"random lattice scene {k}", [(float(a), float(b), float(c), float(d))
                                                    for (a, b), (c, d) in zip(lo, hi)]))
    for name, boxes in scenes:
        expected = set(map(tuple, brute_force_pairs(np.array(boxes, dtype=float)).tolist()))
        try:
            got = _sweep_with_key(lambda c, m: call_student(fn, c, m), boxes)
        except CheckFailed as e:
            raise CheckFailed(f"{name}: {e}") from None
        except TypeError as e:
            raise CheckFailed(f"{name}: the keys could not be compared ({e}); return numbers or tuples.") from None
        if got != expected:
            missing = sorted(expected - got)
            msg = f"{name}: the sweep found {sorted(got)}, brute force {sorted(expected)}."
            if missing:
                i, j = missing[0]
                msg += (f" Boxes {fmt(boxes[i])} and {fmt(boxes[j])} touch but were not paired: at equal "
                        "coordinates one interval closed before the other opened. Hint: at a tie, should an "
                        "interval open or close first, for closed boxes?")
            raise CheckFailed(msg)
    print(f"endpoint_key passed all {len(scenes)} scenes: touching and zero-width boxes pair.")



"""Exercise checks for lesson 01: the closed AABB overlap test and all pairs."""
from __future__ import annotations

import numpy as np

from ..structures.brute_force import brute_force_pairs
from ..geometry import boxes_overlap
from ..scenes import make_scene
from .common import CheckFailed, as_pair_rows, call_student, fmt

__all__ = ["check_aabb_overlap", "check_all_pairs"]


# --------------------------------------------------------------------------
# Lesson 01, exercise 1: the closed AABB overlap test
# --------------------------------------------------------------------------
_OVERLAP_CASES = [
    ("clearly overlapping", (0, 0, 4, 4), (2, 2, 6, 6)),
    ("far apart", (0, 0, 1, 1), (5, 5, 6, 6)),
    ("touching along a vertical edge", (0, 0, 2, 2), (2, 0, 4, 2)),
    ("touching along a horizontal edge", (0, 0, 2, 2), (0, 2, 2, 4)),
    ("touching at one corner", (0, 0, 2, 2), (2, 2, 3, 3)),
    ("one inside the other", (0, 0, 10, 10), (3, 3, 4, 4)),
    ("identical boxes", (1, 1, 3, 3), (1, 1, 3, 3)),
    ("a point inside a box", (0, 0, 4, 4), (1, 1, 1, 1)),
    ("a point on a box's edge", (0, 0, 4, 4), (4, 2, 4, 2)),
    ("two equal points", (5, 5, 5, 5), (5, 5, 5, 5)),
    ("overlap on x only (apart on y)", (0, 0, 4, 1), (2, 3, 6, 4)),
    ("overlap on y only (apart on x)", (0, 0, 1, 4), (3, 2, 4, 6)),
    ("a cross: neither contains a corner of the other", (0, 2, 6, 4), (2, 0, 4, 6)),
    ("separated by a hair", (0, 0, 1, 1), (1.000001, 0, 2, 1)),
]


def check_aabb_overlap(fn) -> None:
    """Check ``fn(a, b) -> bool``: do closed boxes ``a`` and ``b`` intersect?

    ``a`` and ``b`` are tuples ``(xmin, ymin, xmax, ymax)``. Runs the fixed
    edge cases above in both argument orders, then 500 seeded random pairs with
    small integer coordinates (so that touching happens often).

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case.
    """
    cases = [(name, a, b) for name, a, b in _OVERLAP_CASES]
    rng = np.random.default_rng(2026)
    for k in range(500):
        lo = rng.integers(0, 8, size=(2, 2))
        hi = lo + rng.integers(0, 4, size=(2, 2))
        a = tuple(float(v) for v in (lo[0, 0], lo[0, 1], hi[0, 0], hi[0, 1]))
        b = tuple(float(v) for v in (lo[1, 0], lo[1, 1], hi[1, 0], hi[1, 1]))
        cases.append((f"random case {k}", a, b))
    for name, a, b in cases:
        for first, second in ((a, b), (b, a)):
            expected = boxes_overlap(first, second)
            got = call_student(fn, first, second)
            if not isinstance(got, (bool, np.bool_)):
                raise CheckFailed(
                    f"aabb_overlap{fmt(first)}, {fmt(second)} returned {got!r} of type "
                    f"{type(got).__name__}; return True or False."
                )
            if bool(got) != expected:
                hint = ""
                if "touching" in name or "point" in name:
                    hint = " Hint: boxes are closed, so boxes that only touch do intersect."
                elif "only" in name:
                    hint = " Hint: boxes intersect only if their x intervals AND their y intervals do."
                raise CheckFailed(
                    f"{name}: aabb_overlap({fmt(first)}, {fmt(second)}) returned {got}, "
                    f"expected {expected}.{hint}"
                )
    print(f"aabb_overlap passed all {2 * len(cases)} cases, touching and degenerate boxes included.")


# --------------------------------------------------------------------------
# Lesson 01, exercise 2: all intersecting pairs, each once
# --------------------------------------------------------------------------
def check_all_pairs(fn) -> None:
    """Check ``fn(boxes) -> list of (i, j)``: every intersecting pair, once, ``i < j``.

    ``boxes`` is a list of ``(xmin, ymin, xmax, ymax)`` tuples. The order of the
    returned pairs does not matter; each unordered pair must appear exactly
    once, as ``(i, j)`` with ``i < j``, and never ``(i, i)``.

    Raises
    ------
    CheckFailed
        On the first scene where the answer differs from brute force.
    """
    scenes = [
        ("no boxes", []),
        ("one box", [(0, 0, 1, 1)]),
        ("two touching boxes", [(0, 0, 1, 1), (1, 0, 2, 1)]),
        ("three identical boxes", [(2, 2, 3, 3)] * 3),
        ("a row of boxes, each touching the next", [(i, 0, i + 1, 1) for i in range(6)]),
    ]
    for name in ("random", "large_boxes", "xline", "true_uniform"):
        scenes.append((f"make_scene({name!r}, 60)", [tuple(r) for r in make_scene(name, 60, seed=7).tolist()]))
    for name, boxes in scenes:
        n = len(boxes)
        expected = brute_force_pairs(np.asarray(boxes, dtype=float).reshape(-1, 4))
        got = as_pair_rows(call_student(fn, [tuple(b) for b in boxes]), n)
        if (got[:, 0] == got[:, 1]).any():
            i = int(got[got[:, 0] == got[:, 1]][0, 0])
            raise CheckFailed(f"{name}: the result contains ({i}, {i}); a box is not a pair with itself.")
        if (got[:, 0] > got[:, 1]).any():
            bad = got[got[:, 0] > got[:, 1]][0].tolist()
            raise CheckFailed(f"{name}: the result contains {tuple(bad)}; write each pair as (i, j) with i < j.")
        rows, counts = np.unique(got, axis=0, return_counts=True) if len(got) else (got, np.array([], int))
        if (counts > 1).any():
            raise CheckFailed(f"{name}: the pair {tuple(rows[counts > 1][0].tolist())} is reported more than once.")
        exp_set = set(map(tuple, expected.tolist()))
        got_set = set(map(tuple, got.tolist()))
        if exp_set != got_set:
            missing = sorted(exp_set - got_set)
            extra = sorted(got_set - exp_set)
            parts = [f"{name} (n = {n}): expected {len(exp_set)} pairs, got {len(got_set)}."]
            if missing:
                i, j = missing[0]
                parts.append(f"Missing e.g. {missing[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} intersect.")
            if extra:
                i, j = extra[0]
                parts.append(f"Extra e.g. {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} do not intersect.")
            raise CheckFailed(" ".join(parts))
    print(f"all_pairs matches brute force on all {len(scenes)} scenes, each pair once.")



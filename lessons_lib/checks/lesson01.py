"""Exercise checks for lesson 01: the closed AABB overlap test and all pairs.

Both checks call the learner's function through :func:`~lessons_lib.checks.common.run_student`
(a stub, an exception, a missing ``return`` and an input changed in place are reported), run
fixed edge cases and seeded random scenes with negative and non-integer coordinates, and
validate what comes back instead of coercing it.
"""
from __future__ import annotations

import numpy as np

from ..geometry import boxes_overlap
from ..scenes import make_scene
from ..structures.brute_force import brute_force_pairs
from .common import CheckFailed, adversarial_boxes, expect_pairs, fmt, proven_hint, run_student

__all__ = ["check_aabb_overlap", "check_all_pairs"]


def _touch_only(a, b) -> bool:
    """Closed boxes that meet only on their borders (they intersect, their interiors do not)."""
    return boxes_overlap(a, b) and not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])


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
    ("a segment crossing a box", (0, 0, 4, 4), (-1, 2, 6, 2)),
    ("overlap on x only (apart on y)", (0, 0, 4, 1), (2, 3, 6, 4)),
    ("overlap on y only (apart on x)", (0, 0, 1, 4), (3, 2, 4, 6)),
    ("apart on x, y ranges far wider than x ranges", (0, -50, 1, 50), (3, -40, 4, 40)),
    ("a cross: neither contains a corner of the other", (0, 2, 6, 4), (2, 0, 4, 6)),
    ("negative coordinates, overlapping", (-7.5, -3.25, -2.0, 1.5), (-2.5, -1.0, 0.5, 0.5)),
    ("negative coordinates, touching", (-7.5, -3.25, -2.0, 1.5), (-2.0, 1.5, 0.0, 4.0)),
    ("separated by a hair", (0, 0, 1, 1), (1.000001, 0, 2, 1)),
    ("non-integer coordinates, touching", (0.1, 0.2, 0.3, 0.7), (0.3, 0.7, 0.9, 1.1)),
]


def check_aabb_overlap(fn) -> None:
    """Check ``fn(a, b) -> bool``: do closed boxes ``a`` and ``b`` intersect?

    ``a`` and ``b`` are tuples ``(xmin, ymin, xmax, ymax)`` of floats. Runs the fixed edge
    cases above in both argument orders, then 500 seeded random pairs on a lattice of
    quarter units with negative coordinates (so that touching happens often), against
    :func:`lessons_lib.geometry.boxes_overlap`.

    Raises
    ------
    CheckFailed
        On the stub, an exception, ``None`` or another non-bool result, and on the first
        wrong answer, naming the case and both boxes.
    """
    cases = [(name, tuple(float(v) for v in a), tuple(float(v) for v in b)) for name, a, b in _OVERLAP_CASES]
    rng = np.random.default_rng(2026)
    for k in range(500):
        lo = rng.integers(-16, 16, size=(2, 2)) / 4.0
        hi = lo + rng.integers(0, 12, size=(2, 2)) / 4.0
        cases.append((f"random case {k}", (lo[0, 0], lo[0, 1], hi[0, 0], hi[0, 1]),
                      (lo[1, 0], lo[1, 1], hi[1, 0], hi[1, 1])))
    for name, a, b in cases:
        for first, second in ((a, b), (b, a)):
            expected = boxes_overlap(first, second)
            call = f"aabb_overlap({fmt(first)}, {fmt(second)})"
            got = run_student(fn, first, second, name="aabb_overlap", case=f"{name}: {call}")
            if not isinstance(got, (bool, np.bool_)):
                raise CheckFailed(f"{name}: {call} returned {got!r} of type {type(got).__name__}; return True or False.")
            if bool(got) != expected:
                on_x = first[0] <= second[2] and second[0] <= first[2]
                on_y = first[1] <= second[3] and second[1] <= first[3]
                both = "Hint: boxes intersect only if their x intervals AND their y intervals do."
                hint = proven_hint(bool(got), expected, [
                    ("Hint: boxes are closed, so boxes that only touch do intersect.",
                     first[0] < second[2] and second[0] < first[2] and first[1] < second[3] and second[1] < first[3]),
                    (both, on_x), (both, on_y)])
                raise CheckFailed(f"{name}: {call} returned {bool(got)}, expected {expected}.{' ' + hint if hint else ''}")
    print(f"aabb_overlap passed all {2 * len(cases)} cases, touching, degenerate and negative boxes included.")


# --------------------------------------------------------------------------
# Lesson 01, exercise 2: all intersecting pairs, each once
# --------------------------------------------------------------------------
def _all_pairs_scenes() -> list[tuple[str, np.ndarray]]:
    scenes = [
        ("two overlapping boxes and one touching the second", np.array([[0.0, 0, 2, 2], [1, 1, 3, 3], [3, 0, 4, 1]])),
        ("a row of boxes, each touching the next", np.array([[i, 0.0, i + 1, 1] for i in range(6)])),
    ]
    scenes += adversarial_boxes(seed=11, world=(-20.5, 7.25, 110.0, 83.5))
    for name in ("random", "large_boxes", "xline", "true_uniform"):
        scenes.append((f"make_scene({name!r}, 60)", make_scene(name, 60, seed=7)))
    return scenes


def check_all_pairs(fn) -> None:
    """Check ``fn(boxes) -> list of (i, j)``: every intersecting pair, once, ``i < j``.

    ``boxes`` is a list of ``(xmin, ymin, xmax, ymax)`` tuples of floats. The order of the
    returned pairs does not matter; each unordered pair must appear exactly once, as
    ``(i, j)`` with ``i < j`` (integers), never ``(i, i)``. Scenes: touching rows, the
    adversarial sets of :func:`~lessons_lib.checks.common.adversarial_boxes` (the empty
    input, duplicates, zero-area and negative boxes, boxes listed out of order) and four
    of the article's scenes, each compared with brute force.

    Raises
    ------
    CheckFailed
        On the stub, an exception, ``None``, an input list changed in place, a result that
        is not a set of ordered integer pairs, and on the first scene whose pairs differ from
        brute force (a missing and an extra pair named with their boxes).
    """
    scenes = _all_pairs_scenes()
    for name, arr in scenes:
        boxes = [tuple(float(v) for v in row) for row in arr.tolist()]
        n = len(boxes)
        what = f"all_pairs on {name} (n = {n})"
        case = f"{name} (n = {n}, boxes = {[fmt(b) for b in boxes]})" if n <= 10 else f"{name} (n = {n})"
        got = expect_pairs(run_student(fn, boxes, name="all_pairs", case=case), what, n=n)
        expected = set(map(tuple, brute_force_pairs(arr).tolist()))
        if got != expected:
            missing, extra = sorted(expected - got), sorted(got - expected)
            parts = [f"all_pairs on {name} (n = {n}): expected {len(expected)} pairs, got {len(got)}."]
            if missing:
                i, j = missing[0]
                parts.append(f"Missing e.g. {missing[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} intersect.")
                touching = {p for p in expected if _touch_only(boxes[p[0]], boxes[p[1]])}
                if set(missing) <= touching and not (got & touching):
                    parts.append("Hint: they only touch, and touching counts (closed boxes).")
            if extra:
                i, j = extra[0]
                parts.append(f"Extra e.g. {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} do not intersect.")
            raise CheckFailed(" ".join(parts))
    print(f"all_pairs matches brute force on all {len(scenes)} scenes, each pair once.")

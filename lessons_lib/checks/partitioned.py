"""Exercise check for lesson 15: the reference-point rule, which partition reports a pair.

The learner writes ``keeps_pair(cell, box_a, box_b) -> bool``: does the
partition whose half-open region is ``cell = (x0, y0, x1, y1)`` (the points with
``x0 <= x < x1`` and ``y0 <= y < y1``; outer partitions have infinite sides)
report the overlapping boxes ``box_a`` and ``box_b``? The rule: exactly when it
holds the lower-left corner of the boxes' intersection.

The check runs the function on named edge cases over a 2 x 2 grid of cells
(corners exactly on an edge and on the crossing of two edges, boxes far outside
every sampled cell, one box inside the other), then inside a whole partitioned
join (k-d tree cells fitted on a lattice scene whose boxes touch along the cuts):
every overlapping pair must be reported by exactly one partition, the right one.
When the answers to every edge case are exactly those of a typical mistake, the
message explains that mistake (without naming a list the student never sees, and
without printing the rule itself).
"""
from __future__ import annotations

import math

import numpy as np

from ..partitioned import kdtree_partitioning, local_pairs, reference_points
from .common import CheckFailed, fmt, run_student

__all__ = ["check_keeps_pair", "KEEPS_PAIR_MISTAKES"]

INF = math.inf

#: A 2 x 2 partitioning of the plane with cuts at x = 10 and y = 10 (half-open cells).
_CELLS = {
    "lower left": (-INF, -INF, 10.0, 10.0),
    "lower right": (10.0, -INF, INF, 10.0),
    "upper left": (-INF, 10.0, 10.0, INF),
    "upper right": (10.0, 10.0, INF, INF),
}

#: Named pairs of overlapping boxes, each with the one cell that must report it.
_CASES = [
    ("two boxes inside one cell", (1.0, 1.0, 4.0, 4.0), (3.0, 2.0, 6.0, 5.0)),
    ("a pair across the vertical edge, corner left of it", (5.0, 2.0, 12.0, 6.0), (8.0, 3.0, 15.0, 8.0)),
    ("a pair across the vertical edge, corner right of it", (11.0, 2.0, 14.0, 6.0), (6.0, 3.0, 12.0, 8.0)),
    ("the corner exactly on the vertical edge", (10.0, 2.0, 14.0, 6.0), (6.0, 3.0, 12.0, 8.0)),
    ("the corner exactly on the horizontal edge", (2.0, 10.0, 6.0, 14.0), (3.0, 5.0, 7.0, 12.0)),
    ("boxes touching along the horizontal edge", (2.0, 5.0, 6.0, 10.0), (3.0, 10.0, 7.0, 14.0)),
    ("boxes touching at the crossing of both edges", (8.0, 8.0, 10.0, 10.0), (10.0, 10.0, 12.0, 12.0)),
    ("a pair straddling both edges", (7.0, 7.0, 13.0, 13.0), (9.0, 8.0, 11.0, 12.0)),
    ("a wide intersection across the vertical edge, its left part the larger", (5.0, 2.0, 14.0, 6.0),
     (3.0, 3.0, 15.0, 5.0)),
    ("one box inside the other", (0.0, 0.0, 20.0, 20.0), (11.0, 1.0, 12.0, 2.0)),
    ("a pair far outside every sampled cell (left, below)", (-1e9, -1e9, -1e9 + 5, -1e9 + 5),
     (-1e9 + 2, -1e9 + 1, -1e9 + 8, -1e9 + 9)),
    ("a pair far outside every sampled cell (right, above)", (1e12, 3e11, 1e12 + 4, 3e11 + 4),
     (1e12 + 4, 3e11 + 2, 1e12 + 6, 3e11 + 7)),
    ("a zero-size box (a point) on a corner of another box", (10.0, 10.0, 10.0, 10.0), (4.0, 4.0, 10.0, 10.0)),
]


def _inside(cell, x, y) -> bool:
    return cell[0] <= x < cell[2] and cell[1] <= y < cell[3]


def _reference(cell, a, b) -> bool:
    return _inside(cell, max(a[0], b[0]), max(a[1], b[1]))


#: Plausible wrong rules, each with the hint that names it.
KEEPS_PAIR_MISTAKES = {
    "closed cell": (
        lambda c, a, b: c[0] <= max(a[0], b[0]) <= c[2] and c[1] <= max(a[1], b[1]) <= c[3],
        "your answers count a point exactly on a cut as inside the cells on both sides of it, so a pair whose "
        "reference point lies on a cut is reported twice. A region is half-open: its lower and left sides belong "
        "to it, its upper and right sides to the next region"),
    "open cell": (
        lambda c, a, b: c[0] < max(a[0], b[0]) < c[2] and c[1] < max(a[1], b[1]) < c[3],
        "your answers count a point exactly on a cut as inside no cell, so a pair whose reference point lies on a "
        "cut is lost. A region is half-open: its lower and left sides belong to it"),
    "corner of the union": (
        lambda c, a, b: _inside(c, min(a[0], b[0]), min(a[1], b[1])),
        "your answers follow the lower-left corner of the two boxes taken together, which may lie outside one of "
        "them, in a partition that never received that box. The reference point lies in both boxes: it is a "
        "corner of their intersection"),
    "corner of box a": (
        lambda c, a, b: _inside(c, a[0], a[1]),
        "your answers follow the lower-left corner of box_a alone, which need not lie in box_b, so its cell may "
        "never have received box_b. The reference point lies in both boxes: it is a corner of their intersection"),
    "upper-right corner": (
        lambda c, a, b: _inside(c, min(a[2], b[2]), min(a[3], b[3])),
        "your answers follow the upper-right corner of the intersection. It lies in both boxes too, so each pair "
        "would be reported once, but by another partition than the rule of the lesson, which uses the other "
        "corner of the intersection"),
    "x only": (
        lambda c, a, b: c[0] <= max(a[0], b[0]) < c[2],
        "your answers test the reference point's x only, so every partition in its column reports the pair. "
        "Test y the same way"),
}


def _keeps(fn, cell, a, b, where: str) -> bool:
    call = f"keeps_pair({fmt(cell)}, {fmt(a)}, {fmt(b)})"
    got = run_student(fn, cell, a, b, name="keeps_pair", case=f"{where}: {call}")
    if not isinstance(got, (bool, np.bool_)):
        raise CheckFailed(f"{where}: {call} returned {got!r} ({type(got).__name__}); keeps_pair must return True or "
                          "False")
    return bool(got)


def _answers(fn, cases) -> list[tuple[bool, ...]]:
    return [tuple(_keeps(fn, cell, a, b, f"{name}, the {where} cell") for where, cell in _CELLS.items())
            for name, a, b in cases]


def _hint(answers) -> str:
    """The explanation of the one typical mistake whose answers are exactly these, else ``""``."""
    for rule, hint in KEEPS_PAIR_MISTAKES.values():
        if answers == [tuple(rule(c, a, b) for c in _CELLS.values()) for _, a, b in _CASES]:
            return f" Hint: {hint}."
    return ""


def _lattice_scene():
    """Unit-ish boxes on an integer lattice: every edge and corner of the k-d cells is shared by touching boxes."""
    rng = np.random.default_rng(14)
    xy = np.array([(x, y) for x in range(0, 24, 2) for y in range(0, 24, 2)], np.float64)
    sizes = rng.choice([1.0, 2.0, 3.0], size=(len(xy), 2))
    return np.column_stack([xy, xy + sizes])


def check_keeps_pair(fn) -> None:
    """Check ``fn(cell, box_a, box_b) -> bool``, the reference-point rule, on edge cases and in a whole join.

    Raises
    ------
    CheckFailed
        With the case, what was expected, what came back and a hint (naming the
        mistake when the answers match a typical one).
    """
    answers = _answers(fn, _CASES)
    want = [tuple(_reference(c, a, b) for c in _CELLS.values()) for _, a, b in _CASES]
    if answers != want:
        k = next(i for i in range(len(want)) if answers[i] != want[i])
        name, a, b = _CASES[k]
        said = [cell for cell, yes in zip(_CELLS, answers[k]) if yes] or ["no cell"]
        right = [cell for cell, yes in zip(_CELLS, want[k]) if yes]
        raise CheckFailed(f"{name}: boxes {fmt(a)} and {fmt(b)} on the 2 x 2 grid cut at x = 10 and y = 10 should "
                          f"be reported by the {right[0]} cell only; your keeps_pair says: {', '.join(said)}."
                          f"{_hint(answers)}")
    # a whole join: k-d cells whose cuts fall on the lattice, every overlapping pair reported exactly once
    boxes = _lattice_scene()
    centres = 0.5 * (boxes[:, :2] + boxes[:, 2:])
    part = kdtree_partitioning(np.floor(centres), 8)
    rows, offsets = part.assign(boxes)
    reported: dict[tuple[int, int], list[int]] = {}
    for p in range(part.n_partitions):
        mine = rows[offsets[p]:offsets[p + 1]]
        for i, j in local_pairs("brute_force", boxes[mine]).tolist():
            a, b = int(mine[i]), int(mine[j])
            if _keeps(fn, tuple(part.tiles[p].tolist()), tuple(boxes[a].tolist()), tuple(boxes[b].tolist()),
                      f"in a join over {part.n_partitions} k-d cells, partition {p}, boxes {a} and {b}"):
                reported.setdefault((a, b), []).append(p)
    everything = local_pairs("brute_force", boxes)
    owner = part.partition_of(reference_points(boxes[everything[:, 0]], boxes[everything[:, 1]]))
    for (a, b), p in zip(everything.tolist(), owner.tolist()):
        got = reported.get((a, b), [])
        if got != [p]:
            raise CheckFailed(f"in a join over {part.n_partitions} k-d cells, the pair of boxes {a} {fmt(boxes[a])} "
                              f"and {b} {fmt(boxes[b])} was reported by partitions {got or 'none'}; it should be "
                              f"reported by partition {p} (cell {fmt(part.tiles[p])}) only.")
    print(f"keeps_pair reports each of the {len(everything):,} pairs of a {len(boxes)}-box lattice exactly once over "
          f"{part.n_partitions} partitions, and passes {len(_CASES)} edge cases (corners on edges, far outside "
          "the sample): no pair lost, none twice.")

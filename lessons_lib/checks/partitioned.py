"""Exercise checks for lesson 15: the reference-point rule, and k-d cells fitted on a sample.

The learner writes ``keeps_pair(region, box_a, box_b) -> bool``: does the
partition whose half-open rectangle is ``region = (x0, y0, x1, y1)`` (the points with
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

The learner also writes ``kd_cells(sample, n_partitions)``: the cells of the k-d
tree partitioner fitted on sampled centres, a ``(p, 4)`` float64 array of half-open
``[x0, y0, x1, y1)`` rows covering the plane. :func:`check_kd_cells` judges a
partitioning by what it is for: it must cover the plane exactly once, make as many
cells as the library's :func:`~lessons_lib.partitioned.kdtree_partitioning` on the
same sample, and give the scene's boxes a largest partition and a replication as
good as the library's (within a small slack, so that another rounding of the cut's
rank, or a cut half-way between two points, passes). The cases are the ones that
tell the typical mistakes apart: a sample of one point, all points equal, ties at
the cut and at the bottom of the wider axis, partition counts that are not powers of
two, a tall column and a wide row, a crowd with a long tail, clustered scenes.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..partitioned import PARTITIONERS, fit_partitioning, from_tiles, kdtree_partitioning, local_pairs, reference_points
from ..scenes import make_scene
from .common import CheckFailed, Mistakes, fmt, num, run_student

__all__ = ["check_keeps_pair", "KEEPS_PAIR_MISTAKES", "check_kd_cells", "KD_CELLS_MISTAKES", "kd_cells_with"]

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
    ("two boxes inside one region", (1.0, 1.0, 4.0, 4.0), (3.0, 2.0, 6.0, 5.0)),
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
    ("a pair far outside everything sampled (left, below)", (-1e9, -1e9, -1e9 + 5, -1e9 + 5),
     (-1e9 + 2, -1e9 + 1, -1e9 + 8, -1e9 + 9)),
    ("a pair far outside everything sampled (right, above)", (1e12, 3e11, 1e12 + 4, 3e11 + 4),
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
        "your answers count a point exactly on a cut as inside the regions on both sides of it, so a pair whose "
        "reference point lies on a cut is reported twice. A region is half-open: its lower and left sides belong "
        "to it, its upper and right sides to the next region"),
    "open cell": (
        lambda c, a, b: c[0] < max(a[0], b[0]) < c[2] and c[1] < max(a[1], b[1]) < c[3],
        "your answers count a point exactly on a cut as inside no region, so a pair whose reference point lies on a "
        "cut is lost. A region is half-open: its lower and left sides belong to it"),
    "corner of the union": (
        lambda c, a, b: _inside(c, min(a[0], b[0]), min(a[1], b[1])),
        "your answers follow the lower-left corner of the two boxes taken together, which may lie outside one of "
        "them, in a partition that never received that box. The reference point lies in both boxes: it is a "
        "corner of their intersection"),
    "corner of box a": (
        lambda c, a, b: _inside(c, a[0], a[1]),
        "your answers follow the lower-left corner of box_a alone, which need not lie in box_b, so its partition may "
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
    return [tuple(_keeps(fn, cell, a, b, f"{name}, the {where} region") for where, cell in _CELLS.items())
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
    """Check ``fn(region, box_a, box_b) -> bool``, the reference-point rule, on edge cases and in a whole join.

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
        said = [cell for cell, yes in zip(_CELLS, answers[k]) if yes] or ["no region"]
        right = [cell for cell, yes in zip(_CELLS, want[k]) if yes]
        raise CheckFailed(f"{name}: boxes {fmt(a)} and {fmt(b)} on the 2 x 2 grid cut at x = 10 and y = 10 should "
                          f"be reported by the {right[0]} region only; your keeps_pair says: {', '.join(said)}."
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
                              f"reported by partition {p} (region {fmt(part.tiles[p])}) only.")
    print(f"keeps_pair reports each of the {len(everything):,} pairs of a {len(boxes)}-box lattice exactly once over "
          f"{part.n_partitions} partitions, and passes {len(_CASES)} edge cases (corners on edges, far outside "
          "the sample): no pair lost, none twice.")


# --------------------------------------------------------------------------
# Exercise 2: k-d cells fitted on a sample
# --------------------------------------------------------------------------
#: How much worse than the library's k-d cells a learner's cells may be on a case: the largest
#: partition may hold ``LARGEST_SLACK`` more boxes (relative) plus ``LARGEST_EXTRA`` boxes, and the
#: extra copies (replication - 1) may be ``COPIES_SLACK`` more (relative) plus ``COPIES_EXTRA``. Enough
#: for another rounding of the cut's rank or a cut half-way between two points (a few boxes, a few
#: copies); far below what a typical mistake costs on the case that catches it.
LARGEST_SLACK, LARGEST_EXTRA = 0.05, 2
COPIES_SLACK, COPIES_EXTRA = 0.25, 0.01


def kd_cells_with(sample, n_partitions, *, rank="floor", cut="rank", axis_rule="spread", other_axis=True,
                   low_cells="floor", on_cut="high", min_rank=1, test_below=True, copy_rect=True) -> np.ndarray:
    """The k-d rule of lesson 15's exercise 2, with one thing changed per keyword (the typical mistakes).

    The rule (all defaults): a node (a rectangle, its points, the number ``k`` of cells to
    make) with ``k > 1`` and more than one point cuts along the axis where its points spread
    more (x on a tie) at the coordinate of rank ``max(1, m * (k // 2) // k)``; when no point
    lies below that value it tries the other axis, and when neither works it is one cell.
    Points below the cut make ``k // 2`` cells in the part of the rectangle below it, the
    others the rest. :func:`check_kd_cells` refuses an answer that calls this function with
    every keyword at its default (the rule itself).

    Parameters
    ----------
    sample : array_like, shape (m, 2), float64
        Sampled box centres, world units.
    n_partitions : int
        Cells to make (>= 1).
    rank : {"floor", "round", "half"}
        The cut's rank: rounded down (the exercise), rounded by Python's ``round`` (the
        library's :func:`~lessons_lib.partitioned.kdtree_partitioning`), or ``m // 2``
        whatever ``k``.
    cut : {"rank", "mean"}
        Cut at the coordinate of that rank, or at the mean.
    axis_rule : {"spread", "smaller", "x", "alternate"}
        The axis of larger spread, of smaller spread, always x, or x and y by level.
    other_axis : bool
        Try the other axis when no point lies below the cut.
    low_cells : {"floor", "ceil"}
        The low side makes ``k // 2`` cells, or ``k - k // 2``.
    on_cut : {"high", "low"}
        Where the points exactly on the cut go in the recursion.
    min_rank : int
        The smallest rank allowed.
    test_below : bool
        Cut only when a point lies below the cut value.
    copy_rect : bool
        Give each child its own copy of the node's rectangle; ``False``: both children
        (and so every node and every cell) share the first node's one array, so each cut
        changes them all.

    Returns
    -------
    numpy.ndarray, shape (p, 4), float64
        Half-open cells ``[x0, y0, x1, y1)``, outer sides infinite, in the order made.
    """
    p = np.asarray(sample, np.float64).reshape(-1, 2)
    cells = []
    stack = [(np.arange(len(p)), np.array([-np.inf, -np.inf, np.inf, np.inf]), int(n_partitions), 0)]
    while stack:
        idx, rect, k, depth = stack.pop()
        m = len(idx)
        chosen = None
        if k > 1 and m > 1:
            spread = p[idx].max(axis=0) - p[idx].min(axis=0)
            wider = 0 if spread[0] >= spread[1] else 1
            first = {"spread": wider, "smaller": 1 - wider, "x": 0, "alternate": depth % 2}[axis_rule]
            for axis in ((first, 1 - first) if other_axis else (first,)):
                v = p[idx, axis]
                if rank == "half":
                    r = m // 2
                elif rank == "round":
                    r = round(m * (k // 2) / k)
                else:
                    r = m * (k // 2) // k
                r = min(m - 1, max(min_rank, r))
                value = v.mean() if cut == "mean" else np.partition(v, r)[r]
                if not test_below or (v < value).any():
                    chosen = axis, value, (v <= value) if on_cut == "low" else (v < value)
                    break
        if chosen is None:
            cells.append(rect)
            continue
        axis, value, low = chosen
        lo_rect, hi_rect = (rect.copy(), rect.copy()) if copy_rect else (rect, rect)
        lo_rect[axis + 2] = value
        hi_rect[axis] = value
        n_low = k // 2 if low_cells == "floor" else k - k // 2
        stack.append((idx[~low], hi_rect, k - n_low, depth + 1))
        stack.append((idx[low], lo_rect, n_low, depth + 1))
    return np.array(cells)


#: The cause of cells that are all one rectangle, or that no longer reach the infinite sides.
SHARED_RECTANGLE_CAUSE = (
    "when both children are made from their parent's rectangle without a copy (the same array, or the same list), "
    "setting the low child's high side at the cut also moves the high child's, and every cell made from them ends "
    "up the same changed rectangle. Give each child its own copy of the rectangle")
SHARED_RECTANGLE_HINT = f"the likely cause is one rectangle shared between the children: {SHARED_RECTANGLE_CAUSE}"

#: Plausible wrong k-d rules: name -> (what differs from the rule, the hint that names it).
KD_CELLS_MISTAKES = {
    "mean": (
        {"cut": "mean"},
        "your cells are those of cuts at the mean of each node's coordinates. The mean splits the positions, not "
        "the points: a crowd on one side and a few far points on the other put most of the sample on one side of "
        "it. A cut at a coordinate of the right rank splits the points by their number"),
    "always x": (
        {"axis_rule": "x", "other_axis": False},
        "your cells are those of cuts along x at every node, never along y. Each node chooses its own axis from "
        "the spread of its own points, so a node whose points spread more along y is cut along y"),
    "alternating axes": (
        {"axis_rule": "alternate", "other_axis": False},
        "your cells are those of cuts that alternate x, y, x, ... from one level to the next. Here each node "
        "chooses its axis from the spread of its own points, whatever its level"),
    "smaller spread": (
        {"axis_rule": "smaller"},
        "your cells are those of cuts along the axis where the node's points spread less, which makes long, thin "
        "cells that many boxes cross; the cut goes across the direction in which the points spread more"),
    "median whatever the count": (
        {"rank": "half"},
        "your cells are those of cuts at the median whatever the number of cells each side must make. A node "
        "that must make an odd number of cells gives its two sides different numbers of cells, so its cut must "
        "give each side the same share of the points as of the cells, not half"),
    "cells of the wrong side": (
        {"low_cells": "ceil"},
        "your cells are those of a node whose side below the cut makes the larger number of cells while its cut "
        "gives that side the smaller share of the points (or the other way round): with an odd number of cells, "
        "each side must make as many cells as its share of the points asks for"),
    "points on the cut go low": (
        {"on_cut": "low"},
        "your cells are those of a recursion that sends the points lying exactly on a cut to the side below it. "
        "The cells are half-open: a point on a cut lies in the cell above or to the right of it, so those points "
        "must go to that side, or the cells below are fitted on points they will never hold"),
    "no other axis": (
        {"other_axis": False},
        "your cells are those of a node that stays one cell when no point lies below the cut on its wider axis "
        "(many equal smallest coordinates); the rule tries the other axis before giving up"),
    "cut with nothing below": (
        {"test_below": False},
        "your cells are those of cuts made even when no point lies below the cut value (equal coordinates). That "
        "happens when nothing tests for a point below the cut, or when the test counts the points on the cut too "
        "(<= instead of <): the point of the cut's rank lies on the cut, so such a test always finds one. A cut "
        "with nothing below leaves a side without any sampled point, a cell for nothing, and the cells the sample "
        "needed are missing elsewhere. Points on the cut belong to the high side, in that test as in the split"),
    "children share a rectangle": (
        {"copy_rect": False},
        SHARED_RECTANGLE_HINT),
    "rank 0": (
        {"min_rank": 0},
        "your cells are those of a cut at rank 0 when a node has fewer points than cells: no point lies below the "
        "smallest coordinate, so that node is never cut. The rank of the cut is at least 1, which puts one point "
        "below it"),
}


def _sorted_cells(cells: np.ndarray) -> np.ndarray:
    return cells[np.lexsort(cells.T[::-1])] if len(cells) else cells


def _same_cells(a, b) -> bool:
    """The same cells, in any order."""
    return a.shape == b.shape and np.array_equal(_sorted_cells(a), _sorted_cells(b))


def _mistake_answers(sample, k) -> list:
    """``(hint, cells)`` of every typical mistake on this input (``None`` where the mistake crashes)."""
    out = []
    for changes, hint in KD_CELLS_MISTAKES.values():
        try:
            out.append((hint, kd_cells_with(sample, k, **changes)))
        except Exception:  # a mistake that crashes here cannot be the answer
            out.append((hint, None))
    return out


def _points_boxes(points, half: float) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return np.column_stack([p - half, p + half])


def _kd_cases():
    """``(name, sample, n_partitions, boxes)``: kd_cells sees the sample, the partitions receive the boxes."""
    rng = np.random.default_rng(15)
    spread_out = _points_boxes(rng.uniform(-20, 20, (30, 2)).round(2), 0.5)
    one = np.array([[3.25, -1.5]])
    same = np.full((25, 2), [3.5, -2.25])
    two = np.array([[1.0, 5.0], [4.0, 2.0]])
    three = np.array([[0.5, 0.5], [2.0, 9.0], [7.5, 4.0]])
    bottom = np.column_stack([np.concatenate([np.zeros(6), [50.0, 100.0]]), np.arange(8.0) * 3])
    tie = np.column_stack([np.concatenate([rng.uniform(0, 40, 10), np.full(20, 50.0), rng.uniform(60, 100, 10)]),
                           rng.uniform(0, 60, 40).round(1)])
    column = np.column_stack([rng.uniform(0, 12, 400), rng.uniform(0, 1200, 400)])
    row = np.column_stack([rng.uniform(-900, 300, 400), rng.uniform(-5, 5, 400)])
    tail = np.column_stack([rng.exponential(30.0, 300) ** 1.5, rng.uniform(0, 40, 300)])
    cases = [
        ("a sample of one point, 4 partitions", one, 4, np.vstack([_points_boxes(one, 0.0), spread_out])),
        ("25 equal points, 4 partitions", same, 4, np.vstack([_points_boxes(same, 0.0), spread_out])),
        ("two points, 3 partitions", two, 3, _points_boxes(two, 0.0)),
        ("three points, 8 partitions (fewer points than partitions)", three, 8, _points_boxes(three, 0.0)),
        ("a tall column of 400 boxes (12 wide, 1200 tall), 8 partitions", column, 8, _points_boxes(column, 4.0)),
        ("a wide row of 400 boxes (1200 wide, 10 tall), 8 partitions", row, 8, _points_boxes(row, 4.0)),
        ("8 points, 6 of them at the smallest x (the wider axis), 2 partitions", bottom, 2,
         _points_boxes(bottom, 0.0)),
        ("40 points, 20 of them on the median x, 4 partitions", tie, 4, _points_boxes(tie, 0.0)),
        ("300 points crowded at the left with a long tail to the right, 4 partitions", tail, 4,
         _points_boxes(tail, 0.5)),
    ]
    for m, k in ((1001, 3), (998, 5), (777, 6), (1250, 7)):
        u = rng.uniform(-50, 50, (m, 2)).round(3) + 0.125
        cases.append((f"{m} random points with negative coordinates, {k} partitions", u, k, _points_boxes(u, 1.5)))
    for n, m, k, seed in ((10_000, 2000, 16, 3), (10_000, 1000, 13, 8)):
        boxes = make_scene("clustered", n, seed=seed)
        sample = 0.5 * (boxes[:, :2] + boxes[:, 2:])[np.sort(rng.choice(n, m, replace=False))]
        cases.append((f"make_scene('clustered', {n:,}, seed={seed}), a sample of {m:,} centres, {k} partitions",
                      sample, k, boxes))
    return cases


def _case_text(name, sample, k) -> str:
    if len(sample) <= 12:
        return f"{name}: kd_cells(sample, {k}) with sample = {np.asarray(sample).tolist()}"
    return f"{name}: kd_cells(sample, {k})"


def _library_calls(fn):
    """``fn`` wrapped so that a call of one of the library's partitioners inside it fails the check."""
    banned = {f.__code__: f"the library's partitioner {name}" for name, f in PARTITIONERS.items()}
    banned[fit_partitioning.__code__] = "the library's partitioner fit_partitioning"
    rule = kd_cells_with.__code__

    def watched(*args):
        seen = []

        def hook(frame, event, arg):
            if event != "call":
                return
            if frame.f_code in banned:
                seen.append(banned[frame.f_code])
            elif frame.f_code is rule and all(frame.f_locals.get(key) == value
                                              for key, value in kd_cells_with.__kwdefaults__.items()):
                seen.append("the check's own kd_cells_with")

        before = sys.getprofile()
        sys.setprofile(hook)
        try:
            result = fn(*args)
        finally:
            sys.setprofile(before)
        if seen:
            raise CheckFailed(f"kd_cells calls {seen[0]}: the exercise asks you to write the rule yourself (the "
                              "check compares your cells with the library's).")
        return result

    return watched


def _expect_cells(got, where: str, k: int) -> np.ndarray:
    """``got`` as a ``(p, 4)`` float64 array of half-open cells that cover the plane exactly once.

    When they do not, and several cells are the same rectangle or no cell reaches one of the
    infinite sides, the message adds :data:`SHARED_RECTANGLE_HINT` (what such answers come from).
    """
    if not isinstance(got, np.ndarray):
        raise CheckFailed(f"{where}: kd_cells must return a NumPy array of shape (p, 4), float64, got a "
                          f"{type(got).__name__}" + (" (a list of rows is not an array: convert it before "
                                                     "returning)" if isinstance(got, (list, tuple)) else "") + ".")
    if got.dtype != np.float64:
        raise CheckFailed(f"{where}: kd_cells returned an array of dtype {got.dtype}; the cells are float64 (a cut "
                          "is a sampled coordinate, and the outer sides are -inf and inf).")
    if got.ndim != 2 or got.shape[1] != 4 or len(got) == 0:
        raise CheckFailed(f"{where}: kd_cells returned an array of shape {got.shape}; it must be (p, 4), one "
                          "[x0, y0, x1, y1] row per cell, p >= 1.")
    if np.isnan(got).any():
        raise CheckFailed(f"{where}: cell {int(np.argwhere(np.isnan(got))[0, 0])} of your cells holds NaN.")
    flipped = np.flatnonzero((got[:, 2] < got[:, 0]) | (got[:, 3] < got[:, 1]))
    if len(flipped):
        raise CheckFailed(f"{where}: your cell {int(flipped[0])} is {fmt(got[flipped[0]])}: a cell [x0, y0, x1, y1) "
                          "needs x0 <= x1 and y0 <= y1.")
    if len(got) > k:
        raise CheckFailed(f"{where}: you returned {len(got)} cells; at most n_partitions = {k} were asked for.")
    # one point per elementary cell of all the cuts (its lower-left corner, -inf for the outer ones)
    xs = np.concatenate([[-np.inf], np.unique(got[:, [0, 2]][np.isfinite(got[:, [0, 2]])])])
    ys = np.concatenate([[-np.inf], np.unique(got[:, [1, 3]][np.isfinite(got[:, [1, 3]])])])
    for x in xs.tolist():
        for y in ys.tolist():
            holders = np.flatnonzero((got[:, 0] <= x) & (x < got[:, 2]) & (got[:, 1] <= y) & (y < got[:, 3]))
            if len(holders) == 1:
                continue
            shared = (f" Hint: several of your cells are the very same rectangle; {SHARED_RECTANGLE_HINT}." if len(np.unique(got, axis=0)) < len(got) else "")
            point = (f"the point ({num(x)}, {num(y)})" if np.isfinite([x, y]).all()
                     else f"every point far away towards ({num(x)}, {num(y)})")
            if len(holders) == 0:
                outer = [side for side, col, inf in (("x = -inf", 0, -np.inf), ("y = -inf", 1, -np.inf),
                                                     ("x = inf", 2, np.inf), ("y = inf", 3, np.inf))
                         if not (got[:, col] == inf).any()]
                far = (f" No cell reaches {outer[0]}, so a box beyond every sampled centre in that direction would "
                       "reach no partition." if outer else "")
                if outer and not shared:
                    shared = (" Hint: two causes are likely. The first node's rectangle is not the whole plane, "
                              "(-inf, -inf, inf, inf); or one rectangle is shared between the children: "
                              f"{SHARED_RECTANGLE_CAUSE}.")
                raise CheckFailed(f"{where}: {point} lies in none of your {len(got)} cells; together they must cover "
                                  f"the whole plane.{far}{shared}")
            raise CheckFailed(f"{where}: {point} lies in your cells {int(holders[0])} "
                              f"{fmt(got[holders[0]])} and {int(holders[1])} {fmt(got[holders[1]])}; each point "
                              f"belongs to exactly one cell.{shared}")
    return got


def _quality(cells: np.ndarray, boxes: np.ndarray) -> tuple[int, float]:
    counts = from_tiles("kd_cells", cells, [0.0, 0.0, 1.0, 1.0]).counts(boxes)
    return int(counts.max()), float(counts.sum() / len(boxes))


def _show_cells(cells) -> str:
    rows = _sorted_cells(cells)
    shown = ", ".join(fmt(r) for r in rows[:4])
    return shown if len(rows) <= 4 else f"{shown}, ... ({len(rows)} in all, sorted)"


def check_kd_cells(fn) -> None:
    """Check ``fn(sample, n_partitions) -> (p, 4) float64 array``: the k-d partitioner's cells, fitted on a sample.

    ``sample`` is a ``(m, 2)`` float64 array of box centres (``m >= 1``), ``n_partitions``
    an int >= 1. The answer's rows are half-open cells ``[x0, y0, x1, y1)`` (outer sides
    infinite) that must cover the plane exactly once; there must be as many as the
    library's :func:`~lessons_lib.partitioned.kdtree_partitioning` makes on the same
    sample; and on the case's boxes, the largest partition and the replication must be
    within a small slack of the library's cells' (``LARGEST_SLACK``, ``COPIES_SLACK``).
    Calling the library's partitioners fails.

    Raises
    ------
    CheckFailed
        With the case (its sample when small), what the library's cells give, what the
        answer's give, and a hint when the answer is exactly a typical mistake's
        (:data:`KD_CELLS_MISTAKES`) and no case passed before rules it out.
    """
    watched = _library_calls(fn)
    mistakes = Mistakes(same=_same_cells)
    cases = _kd_cases()
    for name, sample, k, boxes in cases:
        where = _case_text(name, sample, k)
        got = run_student(watched, sample, k, name="kd_cells", case=where, track=fn)
        cells = _expect_cells(got, where, k)
        lib = kdtree_partitioning(sample, k).tiles
        candidates = _mistake_answers(sample, k)
        if len(cells) != len(lib):
            hint = mistakes.hint(cells, lib, candidates)
            raise CheckFailed(f"{where}: you made {len(cells)} cell{'s' * (len(cells) != 1)} ({_show_cells(cells)}); "
                              f"the k-d rule makes {len(lib)} here ({_show_cells(lib)})."
                              f"{' Hint: ' + hint + '.' if hint else ''}")
        largest, replication = _quality(cells, boxes)
        want_largest, want_replication = _quality(lib, boxes)
        too_big = largest > want_largest * (1 + LARGEST_SLACK) + LARGEST_EXTRA
        too_many = replication - 1 > (want_replication - 1) * (1 + COPIES_SLACK) + COPIES_EXTRA
        if too_big or too_many:
            hint = mistakes.hint(cells, lib, candidates)
            what = ("largest partition and your replication are" if too_big and too_many
                    else "largest partition is" if too_big else "replication is")
            raise CheckFailed(
                f"{where}: with your cells the {len(boxes):,} boxes make a largest partition of {largest:,} boxes and "
                f"a replication of {replication:.3f}; with the library's k-d cells on the same sample, {want_largest:,} "
                f"and {want_replication:.3f}. Your {what} too large. Your cells: {_show_cells(cells)}."
                f"{' Hint: ' + hint + '.' if hint else ''}")
        mistakes.passed(cells, candidates)
    *_, (name, sample, k, boxes) = cases
    mine, theirs = _quality(cells, boxes), _quality(kdtree_partitioning(sample, k).tiles, boxes)
    print(f"kd_cells passed {len(cases)} cases (one point, equal points, ties, odd counts, a column, a row, a long "
          f"tail, clustered scenes). On {name}: your cells give a largest partition of {mine[0]:,} boxes and "
          f"replication {mine[1]:.3f}; the library's kdtree {theirs[0]:,} and {theirs[1]:.3f}.")

"""Exercise checks for lessons 02-03: grids and spatial hashing."""
from __future__ import annotations

import numpy as np

from ..structures.brute_force import brute_force_pairs
from ..scenes import make_scene
from .common import CheckFailed, call_student, fmt

# --------------------------------------------------------------------------
# Lessons 02-03: grids and hashing
# --------------------------------------------------------------------------
__all__ = ["check_cell_range", "check_pairs_in_cell", "check_hash_cells"]


# --------------------------------------------------------------------------
# Lesson 02, exercise 1: the cell range of a box (floor, clamped)
# --------------------------------------------------------------------------
_CELL_RANGE_CASES = [
    ("a box inside one cell", (12, 13, 18, 17)),
    ("a box over several cells", (5, 5, 35, 22)),
    ("a point", (25, 25, 25, 25)),
    ("a box ending exactly on a cell border", (0, 0, 10, 10)),
    ("a box starting exactly on a cell border", (20, 30, 25, 35)),
    ("a box partly left of and below the world", (-15, -3, 4, 6)),
    ("a box wholly outside the world, far away", (-500, 900, -400, 950)),
    ("a box beyond the top-right corner", (95, 55, 130, 80)),
    ("a box covering the whole world and more", (-1, -1, 101, 61)),
]


def check_cell_range(fn) -> None:
    """Check ``fn(box, cell_size, world) -> (col0, row0, col1, row1)``.

    The grid has square cells of side ``cell_size`` covering ``world``
    ``(xmin, ymin, xmax, ymax)`` with ``ceil(width / cell_size)`` columns and
    ``ceil(height / cell_size)`` rows; the answer is the inclusive range of
    cells the closed box overlaps, clamped to the grid
    (:meth:`lessons_lib.UniformGrid.cell_range` is the reference).

    Raises
    ------
    CheckFailed
        On the first wrong range, with a hint for the usual mistakes.
    """
    from ..structures.uniform_grid import UniformGrid

    world, size = (0.0, 0.0, 100.0, 60.0), 10.0
    grid = UniformGrid(world=world, cell_size=size)
    rng = np.random.default_rng(2026)
    cases = list(_CELL_RANGE_CASES)
    for k in range(200):
        lo = rng.uniform(-30, 130, 2).round(1)
        hi = lo + rng.choice([0.0, 5.0, 10.0, 23.5], 2)
        cases.append((f"random case {k}", (lo[0], lo[1], hi[0], hi[1])))
    for name, box in cases:
        expected = grid.cell_range(box)
        got = call_student(fn, tuple(float(v) for v in box), size, world)
        try:
            got_t = tuple(int(v) for v in got)
        except (TypeError, ValueError):
            raise CheckFailed(f"cell_range must return 4 integers (col0, row0, col1, row1), got {got!r}") from None
        if len(got_t) != 4:
            raise CheckFailed(f"cell_range must return 4 integers (col0, row0, col1, row1), got {got!r}")
        if got_t != expected:
            hint = ""
            if min(got_t) < 0 or got_t[0] > 9 or got_t[2] > 9 or got_t[1] > 5 or got_t[3] > 5:
                hint = (" Hint: clamp to the grid (columns 0..9, rows 0..5 here): a box outside the world "
                        "goes into the border cells, it is never lost.")
            elif "border" in name:
                hint = (" Hint: use floor for both ends: a coordinate exactly on a border belongs to the cell "
                        "above it, and a box touching that border must be in that cell too (touching counts).")
            raise CheckFailed(f"{name}: cell_range({fmt(box)}, cell_size=10, world={fmt(world)}) returned "
                              f"{got_t}, expected {expected}.{hint}")
    print(f"cell_range passed all {len(cases)} cases, borders and boxes outside the world included.")


# --------------------------------------------------------------------------
# Lesson 02, exercise 2: the pairs of one cell, without duplicates
# --------------------------------------------------------------------------
def check_pairs_in_cell(fn) -> None:
    """Check ``fn(members, boxes, col, row, cell_of) -> list of (i, j)``.

    ``members`` are the indices of the boxes stored in cell ``(col, row)``;
    ``boxes[i]`` is ``(xmin, ymin, xmax, ymax)``; ``cell_of(x, y)`` returns the
    ``(col, row)`` of a point. The function must return the intersecting pairs
    ``(i, j)``, ``i < j``, that this cell is responsible for, so that over all
    cells every intersecting pair comes out exactly once.

    Raises
    ------
    CheckFailed
        When the union over all cells differs from brute force: a duplicate, a
        missing or an extra pair, with the cell and the boxes involved.
    """
    from ..structures.uniform_grid import UniformGrid

    scenes = [("two boxes sharing four cells", np.array([[5.0, 5, 25, 25], [15, 15, 35, 35]])),
              ("a box inside a big one", np.array([[0.0, 0, 60, 60], [22, 22, 24, 24]])),
              ("touching on a cell border", np.array([[0.0, 0, 10, 10], [10, 0, 20, 10], [10, 10, 12, 12]]))]
    for name in ("random", "large_boxes", "xline", "mixed_sizes"):
        scenes.append((f"make_scene({name!r}, 80)", make_scene(name, 80, seed=4)))
    for name, boxes in scenes:
        grid = UniformGrid.from_boxes(boxes, cell_size=10.0 if len(boxes) < 10 else 40.0)

        def cell_of(x, y, _g=grid):
            c0, r0, _, _ = _g.cell_range((x, y, x, y))
            return (c0, r0)

        blist = [tuple(float(v) for v in b) for b in boxes.tolist()]
        found: dict[tuple[int, int], tuple[int, int]] = {}
        for row in range(grid.rows):
            for col in range(grid.cols):
                members = sorted(grid.members(row, col).tolist())
                if len(members) < 2:
                    continue
                got = call_student(fn, members, blist, col, row, cell_of)
                for pair in got:
                    i, j = (int(v) for v in pair)
                    if i >= j:
                        raise CheckFailed(f"{name}: cell (col {col}, row {row}) returned {(i, j)}; write pairs as (i, j) with i < j.")
                    if (i, j) in found:
                        raise CheckFailed(
                            f"{name}: the pair {(i, j)} comes out of cell {found[(i, j)]} and again out of cell "
                            f"{(col, row)}. Hint: report a pair only from one cell both boxes are in, e.g. the "
                            "cell of the lower-left corner of their intersection (max of the xmins, max of the ymins).")
                    found[(i, j)] = (col, row)
        expected = set(map(tuple, brute_force_pairs(boxes).tolist()))
        missing, extra = sorted(expected - set(found)), sorted(set(found) - expected)
        if extra:
            i, j = extra[0]
            raise CheckFailed(f"{name}: {(i, j)} was reported but boxes {fmt(boxes[i])} and {fmt(boxes[j])} "
                              "do not intersect. Hint: sharing a cell is not enough, test the two boxes.")
        if missing:
            i, j = missing[0]
            raise CheckFailed(f"{name}: the pair {(i, j)} was never reported; boxes {fmt(boxes[i])} and "
                              f"{fmt(boxes[j])} intersect. Hint: the responsible cell must be one both boxes are in "
                              "(the corner of the intersection with the *largest* xmin and ymin is).")
    print(f"pairs_in_cell gives every pair exactly once on all {len(scenes)} scenes.")


# --------------------------------------------------------------------------
# Lesson 03, exercise: the cells of a box in an unbounded grid
# --------------------------------------------------------------------------
def check_hash_cells(fn) -> None:
    """Check ``fn(box, cell_size) -> iterable of (cx, cy)``: every cell of an unbounded grid the box overlaps.

    Cell ``(cx, cy)`` spans ``[cx * s, (cx + 1) * s]`` by ``[cy * s, (cy + 1) * s]``;
    coordinates may be negative or huge (the reference is
    :meth:`lessons_lib.SpatialHash.cell_range`).

    Raises
    ------
    CheckFailed
        On the first box whose cells differ, with a hint.
    """
    from ..structures.spatial_hash import SpatialHash

    sh = SpatialHash(cell_size=8.0)
    cases = [("a box at the origin", (0, 0, 5, 5)), ("a box across the axes", (-4, -4, 4, 4)),
             ("a negative point", (-0.5, -0.5, -0.5, -0.5)), ("a box left of the y axis", (-20, 3, -9, 12)),
             ("a box on cell borders", (-16, 8, 0, 16)), ("far away, negative", (-1e6, -1e6 + 3, -1e6 + 10, -1e6 + 9)),
             ("far away, positive", (1e9, 1e9, 1e9 + 8, 1e9 + 1))]
    rng = np.random.default_rng(7)
    for k in range(100):
        lo = rng.uniform(-100, 100, 2).round(2)
        cases.append((f"random case {k}", (lo[0], lo[1], lo[0] + rng.uniform(0, 30), lo[1] + rng.uniform(0, 30))))
    for name, box in cases:
        cx0, cy0, cx1, cy1 = sh.cell_range(box)
        expected = {(cx, cy) for cx in range(cx0, cx1 + 1) for cy in range(cy0, cy1 + 1)}
        got = call_student(fn, tuple(float(v) for v in box), 8.0)
        try:
            got_set = {(int(a), int(b)) for a, b in got}
        except (TypeError, ValueError):
            raise CheckFailed(f"hash_cells must return (cx, cy) pairs of integers, got {got!r}") from None
        if got_set != expected:
            hint = ""
            if any(v < 0 for v in box):
                hint = (" Hint: int() rounds towards zero, so int(-0.5) is 0, but -0.5 lies in cell -1: "
                        "use math.floor (or //).")
            raise CheckFailed(f"{name}: hash_cells({fmt(box)}, 8) gave {sorted(got_set)[:6]}..., expected "
                              f"{sorted(expected)[:6]}{'...' if len(expected) > 6 else ''}.{hint}")
    print(f"hash_cells passed all {len(cases)} cases, negative and far coordinates included.")



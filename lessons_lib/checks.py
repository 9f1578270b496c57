"""Automatic checks of the exercises.

Each ``check_*`` function takes the learner's function, runs it against the
library's reference on fixed edge cases and on seeded random scenes, and either
prints a short success line or raises :class:`CheckFailed` (an
``AssertionError``) saying which input failed, what was expected and what came
back, with a hint that points at the idea without giving the answer away.

A function that still raises ``NotImplementedError`` (the student stub) fails
the check with a message asking for the body to be written.
"""
from __future__ import annotations

import numpy as np

from .brute_force import brute_force_pairs
from .geometry import boxes_overlap
from .scenes import make_scene

__all__ = ["CheckFailed", "check_aabb_overlap", "check_all_pairs"]


class CheckFailed(AssertionError):
    """An exercise check did not pass; the message says why."""


def _call(fn, *args):
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{getattr(fn, '__name__', 'your function')} is not written yet "
            "(it raised NotImplementedError): replace the stub with your code."
        ) from None


def _fmt(box) -> str:
    return "(" + ", ".join(f"{v:g}" for v in box) + ")"


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
            got = _call(fn, first, second)
            if not isinstance(got, (bool, np.bool_)):
                raise CheckFailed(
                    f"aabb_overlap{_fmt(first)}, {_fmt(second)} returned {got!r} of type "
                    f"{type(got).__name__}; return True or False."
                )
            if bool(got) != expected:
                hint = ""
                if "touching" in name or "point" in name:
                    hint = " Hint: boxes are closed, so boxes that only touch do intersect."
                elif "only" in name:
                    hint = " Hint: boxes intersect only if their x intervals AND their y intervals do."
                raise CheckFailed(
                    f"{name}: aabb_overlap({_fmt(first)}, {_fmt(second)}) returned {got}, "
                    f"expected {expected}.{hint}"
                )
    print(f"aabb_overlap passed all {2 * len(cases)} cases, touching and degenerate boxes included.")


# --------------------------------------------------------------------------
# Lesson 01, exercise 2: all intersecting pairs, each once
# --------------------------------------------------------------------------
def _as_pair_rows(got, n):
    try:
        arr = np.asarray(list(got) if not isinstance(got, np.ndarray) else got)
    except TypeError:
        raise CheckFailed(f"all_pairs must return a list of (i, j) tuples, got {type(got).__name__}") from None
    if arr.size == 0:
        return np.empty((0, 2), np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise CheckFailed(f"all_pairs must return (i, j) pairs; got something of shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CheckFailed("all_pairs must return pairs of integer indices i, j (positions in the list of boxes)")
    if (arr < 0).any() or (arr >= n).any():
        raise CheckFailed(f"all_pairs returned an index outside 0..{n - 1}: {arr[((arr < 0) | (arr >= n)).any(1)][0].tolist()}")
    return arr.astype(np.int64)


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
        got = _as_pair_rows(_call(fn, [tuple(b) for b in boxes]), n)
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
                parts.append(f"Missing e.g. {missing[0]}: boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} intersect.")
            if extra:
                i, j = extra[0]
                parts.append(f"Extra e.g. {extra[0]}: boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} do not intersect.")
            raise CheckFailed(" ".join(parts))
    print(f"all_pairs matches brute force on all {len(scenes)} scenes, each pair once.")


# --------------------------------------------------------------------------
# Lessons 02-03: grids and hashing
# --------------------------------------------------------------------------
__all__ += ["check_cell_range", "check_pairs_in_cell", "check_hash_cells"]


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
    from .uniform_grid import UniformGrid

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
        got = _call(fn, tuple(float(v) for v in box), size, world)
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
            raise CheckFailed(f"{name}: cell_range({_fmt(box)}, cell_size=10, world={_fmt(world)}) returned "
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
    from .uniform_grid import UniformGrid

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
                got = _call(fn, members, blist, col, row, cell_of)
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
            raise CheckFailed(f"{name}: {(i, j)} was reported but boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} "
                              "do not intersect. Hint: sharing a cell is not enough, test the two boxes.")
        if missing:
            i, j = missing[0]
            raise CheckFailed(f"{name}: the pair {(i, j)} was never reported; boxes {_fmt(boxes[i])} and "
                              f"{_fmt(boxes[j])} intersect. Hint: the responsible cell must be one both boxes are in "
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
    from .spatial_hash import SpatialHash

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
        got = _call(fn, tuple(float(v) for v in box), 8.0)
        try:
            got_set = {(int(a), int(b)) for a, b in got}
        except (TypeError, ValueError):
            raise CheckFailed(f"hash_cells must return (cx, cy) pairs of integers, got {got!r}") from None
        if got_set != expected:
            hint = ""
            if any(v < 0 for v in box):
                hint = (" Hint: int() rounds towards zero, so int(-0.5) is 0, but -0.5 lies in cell -1: "
                        "use math.floor (or //).")
            raise CheckFailed(f"{name}: hash_cells({_fmt(box)}, 8) gave {sorted(got_set)[:6]}..., expected "
                              f"{sorted(expected)[:6]}{'...' if len(expected) > 6 else ''}.{hint}")
    print(f"hash_cells passed all {len(cases)} cases, negative and far coordinates included.")


# --------------------------------------------------------------------------
# Lessons 09-10: R-trees, bulk loading, space-filling curves
# --------------------------------------------------------------------------
__all__ += ["check_enlargement", "check_pick_seeds", "check_morton", "check_str_level", "str_level_reference"]


def check_enlargement(fn) -> None:
    """Check ``fn(box, entry) -> float``: the area ``box`` gains when it grows to cover ``entry``.

    Both are tuples ``(xmin, ymin, xmax, ymax)``. The answer is
    ``area(union box) - area(box)``: 0 when ``entry`` is already inside.

    Raises
    ------
    CheckFailed
        On the first wrong value, with a hint.
    """
    from .rtree import enlargement

    cases = [
        ("entry inside the box", (0, 0, 10, 10), (2, 2, 3, 3)),
        ("entry equal to the box", (0, 0, 4, 4), (0, 0, 4, 4)),
        ("entry to the right, touching", (0, 0, 2, 2), (2, 0, 4, 2)),
        ("entry far to the upper right", (0, 0, 1, 1), (9, 9, 10, 10)),
        ("entry larger than the box", (2, 2, 3, 3), (0, 0, 10, 10)),
        ("a point box and a point entry", (0, 0, 0, 0), (3, 4, 3, 4)),
        ("entry overlapping a corner", (0, 0, 4, 4), (3, 3, 6, 5)),
    ]
    rng = np.random.default_rng(9)
    for k in range(200):
        a = np.sort(rng.integers(-10, 10, size=(2, 2)), axis=0)
        b = np.sort(rng.integers(-10, 10, size=(2, 2)), axis=0)
        cases.append((f"random case {k}", (a[0, 0], a[0, 1], a[1, 0], a[1, 1]), (b[0, 0], b[0, 1], b[1, 0], b[1, 1])))
    for name, box, entry in cases:
        box = tuple(float(v) for v in box)
        entry = tuple(float(v) for v in entry)
        expected = enlargement(box, entry)
        got = _call(fn, box, entry)
        try:
            ok = abs(float(got) - expected) <= 1e-9 * max(1.0, abs(expected))
        except (TypeError, ValueError):
            raise CheckFailed(f"enlargement must return a number, got {got!r}") from None
        if not ok:
            ux = (min(box[0], entry[0]), min(box[1], entry[1]), max(box[2], entry[2]), max(box[3], entry[3]))
            union_area = (ux[2] - ux[0]) * (ux[3] - ux[1])
            hint = ""
            if abs(float(got) - union_area) < 1e-9:
                hint = " Hint: that is the area of the grown box; subtract the area the box had before."
            elif abs(float(got) - (entry[2] - entry[0]) * (entry[3] - entry[1])) < 1e-9:
                hint = " Hint: the cost is not the entry's own area but how much the node's box must grow."
            raise CheckFailed(f"{name}: enlargement({_fmt(box)}, {_fmt(entry)}) returned {got}, expected {expected}.{hint}")
    print(f"enlargement passed all {len(cases)} cases.")


def check_pick_seeds(fn) -> None:
    """Check ``fn(boxes) -> (i, j)``: Guttman's quadratic PickSeeds.

    ``boxes`` is a ``(k, 4)`` float64 array. The seeds are the pair whose
    covering box wastes the most area: ``area(J) - area(E_i) - area(E_j)``,
    largest over all ``i < j``. Ties are broken by the first such pair (in the
    order ``(0, 1), (0, 2), ..., (1, 2), ...``); the pair may be returned in
    either order.

    Raises
    ------
    CheckFailed
        On the first wrong pair, with a hint.
    """
    from .rtree import pick_seeds_quadratic

    cases = [
        ("two far-apart boxes among close ones", np.array([[0, 0, 1, 1], [1, 0, 2, 1], [0, 1, 1, 2], [20, 20, 21, 21.0]])),
        # Union area alone would pick the two big boxes (0, 1); the waste picks a small far one.
        ("two thin boxes and two fat ones", np.array([[19, 2, 20, 11], [7, 8, 8, 12], [18, 4, 24, 10],
                                                      [10, 5, 12, 16.0]])),
        ("three boxes in a row", np.array([[0, 0, 1, 1], [5, 0, 6, 1], [10, 0, 11, 1.0]])),
    ]
    for k, scene in enumerate(("random", "clustered", "mixed_sizes")):
        cases.append((f"make_scene({scene!r}, 9)", make_scene(scene, 9, seed=k)))
    for name, b in cases:
        expected = pick_seeds_quadratic(b)
        got = _call(fn, b.copy())
        try:
            pair = tuple(sorted(int(v) for v in got))
        except (TypeError, ValueError):
            raise CheckFailed(f"pick_seeds must return two indices (i, j), got {got!r}") from None
        if len(pair) != 2:
            raise CheckFailed(f"pick_seeds must return two indices (i, j), got {got!r}")
        if pair != expected:
            hint = " Hint: maximise area(J) - area(E_i) - area(E_j), where J covers both boxes."
            i, j = pair
            if 0 <= i < len(b) and 0 <= j < len(b):
                def union_area(p, q):
                    return (max(b[p, 2], b[q, 2]) - min(b[p, 0], b[q, 0])) * (max(b[p, 3], b[q, 3]) - min(b[p, 1], b[q, 1]))
                best_union = max((union_area(p, q), p, q) for p in range(len(b)) for q in range(p + 1, len(b)))
                if (best_union[1], best_union[2]) == pair:
                    hint = (" Hint: you picked the pair with the largest covering box; subtract the two boxes' own "
                            "areas, so that two big neighbours do not look wasteful.")
            raise CheckFailed(f"{name}: pick_seeds returned {pair}, expected {expected}.{hint}")
    print(f"pick_seeds passed all {len(cases)} cases.")


def check_morton(fn) -> None:
    """Check ``fn(x, y) -> int``: the Z-order code, bit ``i`` of ``x`` to bit ``2i``, of ``y`` to ``2i + 1``.

    ``x`` and ``y`` are Python ints in ``[0, 2**16)``.

    Raises
    ------
    CheckFailed
        On the first wrong code, with a hint.
    """
    from .curves import morton_encode

    cases = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 5), (5, 3), (255, 0), (0, 255), (65535, 65535), (40000, 123)]
    rng = np.random.default_rng(11)
    cases += [tuple(int(v) for v in rng.integers(0, 2**16, 2)) for _ in range(200)]
    for x, y in cases:
        expected = int(morton_encode(x, y))
        got = _call(fn, x, y)
        try:
            got = int(got)
        except (TypeError, ValueError):
            raise CheckFailed(f"morton({x}, {y}) must return an integer, got {got!r}") from None
        if got != expected:
            hint = ""
            if got == int(morton_encode(y, x)):
                hint = " Hint: x and y are swapped: x's bits go to the even positions (bit 0, 2, 4...)."
            elif got == (y << 16) | x or got == (x << 16) | y:
                hint = " Hint: that is the two numbers side by side; interleave them bit by bit instead."
            raise CheckFailed(f"morton({x}, {y}) returned {got} ({got:b}), expected {expected} ({expected:b}).{hint}")
    print(f"morton passed all {len(cases)} cases.")


def str_level_reference(centres, capacity: int) -> list[np.ndarray]:
    """Textbook STR for one level: ``P = ceil(k / M)`` nodes, ``S = ceil(sqrt(P))`` slices of ``S * M`` entries.

    Sort the indices by x; cut into slices of ``S * M`` consecutive entries
    (the last may be shorter); sort each slice by y; cut each slice into runs
    of ``M`` (the last run of a slice may be shorter). Ties keep the earlier
    order (stable sorts). Returns the runs, slice by slice.
    """
    import math

    c = np.asarray(centres, np.float64).reshape(-1, 2)
    k = len(c)
    if k == 0:
        return []
    P = math.ceil(k / capacity)
    S = math.ceil(math.sqrt(P))
    by_x = np.argsort(c[:, 0], kind="stable")
    groups = []
    for start in range(0, k, S * capacity):
        sl = by_x[start:start + S * capacity]
        sl = sl[np.argsort(c[sl, 1], kind="stable")]
        groups += [sl[a:a + capacity] for a in range(0, len(sl), capacity)]
    return groups


def check_str_level(fn) -> None:
    """Check ``fn(centres, capacity) -> list of index arrays``: one level of STR packing.

    ``centres`` is a ``(k, 2)`` float64 array, ``capacity`` the node size
    ``M``. The expected groups are :func:`str_level_reference`'s, in the same
    order; the order of indices inside a group does not matter.

    Raises
    ------
    CheckFailed
        On the first differing group, with a hint.
    """
    rng = np.random.default_rng(12)
    cases = [("9 points on a 3 x 3 lattice, M = 3",
              np.array([[x, y] for x in range(3) for y in range(3)], np.float64)[::-1].copy(), 3),
             ("4 points, M = 4 (one node)", rng.uniform(0, 10, (4, 2)), 4)]
    for k, M in ((50, 4), (100, 8), (37, 5), (200, 16)):
        cases.append((f"{k} random points, M = {M}", rng.uniform(0, 100, (k, 2)).round(1), M))
    for name, c, M in cases:
        expected = str_level_reference(c, M)
        got = _call(fn, c.copy(), M)
        try:
            got = [np.sort(np.asarray(g, dtype=np.int64).ravel()) for g in got]
        except (TypeError, ValueError):
            raise CheckFailed("str_level must return a list of arrays (or lists) of point indices") from None
        if len(got) != len(expected):
            raise CheckFailed(f"{name}: {len(got)} groups, expected {len(expected)} (ceil(k / M) = "
                              f"{-(-len(c) // M)} nodes when every slice but the last is full).")
        for t, (g, e) in enumerate(zip(got, expected)):
            if not np.array_equal(g, np.sort(e)):
                hint = " Hint: sort by x, cut slices of S * M points with S = ceil(sqrt(ceil(k / M))), then sort each slice by y."
                by_x = np.argsort(c[:, 0], kind="stable")
                if all(np.array_equal(np.sort(by_x[a:a + M]), gg) for a, gg in zip(range(0, len(c), M), got)):
                    hint = " Hint: the groups are runs of the x order only: sort each slice by y before cutting it."
                raise CheckFailed(f"{name}: group {t} is {g.tolist()}, expected {np.sort(e).tolist()}.{hint}")
    print(f"str_level passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Lesson 08: sweep and prune
# --------------------------------------------------------------------------
__all__ += ["check_count_bracket_overlaps", "check_list_bracket_overlaps", "check_endpoint_key"]


def _bracket_cases():
    """Fixed bracket strings, then seeded random intervals turned into tokens."""
    from .sweep_lesson import intervals_to_tokens

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
    from .sweep_lesson import count_bracket_overlaps, tokens_to_string

    cases = _bracket_cases()
    for name, tokens in cases:
        s = tokens_to_string(tokens)
        expected = count_bracket_overlaps(s)
        got = _call(fn, s)
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
    from .sweep_lesson import list_bracket_overlaps

    cases = _bracket_cases()
    for name, tokens in cases:
        expected = set(list_bracket_overlaps(tokens))
        got_raw = _call(fn, list(tokens))
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
                raise CheckFailed(f"box {i} {_fmt(boxes[i])} closes before it opens: with your key its max "
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
            got = _sweep_with_key(lambda c, m: _call(fn, c, m), boxes)
        except CheckFailed as e:
            raise CheckFailed(f"{name}: {e}") from None
        except TypeError as e:
            raise CheckFailed(f"{name}: the keys could not be compared ({e}); return numbers or tuples.") from None
        if got != expected:
            missing = sorted(expected - got)
            msg = f"{name}: the sweep found {sorted(got)}, brute force {sorted(expected)}."
            if missing:
                i, j = missing[0]
                msg += (f" Boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} touch but were not paired: at equal "
                        "coordinates one interval closed before the other opened. Hint: at a tie, should an "
                        "interval open or close first, for closed boxes?")
            raise CheckFailed(msg)
    print(f"endpoint_key passed all {len(scenes)} scenes: touching and zero-width boxes pair.")


# --------------------------------------------------------------------------
# Lessons 04-05: quadtrees
# --------------------------------------------------------------------------
__all__ += ["check_children_touched", "check_leaf_pairs", "check_node_rect", "check_free_list"]


def _quadrants(rect):
    """TL, TR, BL, BR quadrants of ``rect`` (y upwards)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    return [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]


def _closed_touch(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


# --------------------------------------------------------------------------
# Lesson 04, exercise 1: which children does a box descend into?
# --------------------------------------------------------------------------
_CHILD_CASES = [
    ("a small box in the top-left quadrant", (0, 0, 100, 100), (10, 70, 20, 80)),
    ("a small box in the bottom-right quadrant", (0, 0, 100, 100), (70, 10, 80, 20)),
    ("a box across the vertical midline, bottom half", (0, 0, 100, 100), (40, 10, 60, 20)),
    ("a box covering the centre", (0, 0, 100, 100), (40, 40, 60, 60)),
    ("a box touching the vertical midline from the left", (0, 0, 100, 100), (30, 10, 50, 20)),
    ("a box touching the horizontal midline from below", (0, 0, 100, 100), (10, 30, 20, 50)),
    ("the centre point", (0, 0, 100, 100), (50, 50, 50, 50)),
    ("a box outside the node", (0, 0, 100, 100), (150, 150, 160, 160)),
    ("a box covering the whole node", (0, 0, 100, 100), (-10, -10, 110, 110)),
    ("an 800 x 600 node, a box in the bottom-left quadrant near y = 300", (0, 0, 800, 600), (100, 280, 120, 290)),
    ("an 800 x 600 node, a box in the top-left quadrant just above y = 300", (0, 0, 800, 600), (100, 310, 120, 330)),
    ("a node away from the origin", (-500, 200, -300, 300), (-420, 260, -380, 270)),
    ("a flat box on the node's top edge", (0, 0, 100, 100), (0, 100, 25, 100)),
]


def check_children_touched(fn) -> None:
    """Check ``fn(rect, box) -> list of child indices`` whose quadrant the closed ``box`` touches.

    Children are numbered 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right,
    with y growing upwards (as in the figures). Quadrants and boxes are closed:
    a box touching the midline goes into the children on both sides. The order
    of the returned indices does not matter.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case.
    """
    rng = np.random.default_rng(404)
    cases = list(_CHILD_CASES)
    for k in range(300):
        x0, y0 = rng.integers(-50, 50, 2)
        w, h = rng.integers(2, 20, 2) * 2
        bx, by = rng.integers(x0 - 5, x0 + w + 5), rng.integers(y0 - 5, y0 + h + 5)
        bw, bh = rng.integers(0, w // 2 + 2, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + w, y0 + h), (bx, by, bx + bw, by + bh)))
    for name, rect, box in cases:
        rect = tuple(float(v) for v in rect)
        box = tuple(float(v) for v in box)
        expected = [k for k, q in enumerate(_quadrants(rect)) if _closed_touch(q, box)]
        got = _call(fn, rect, box)
        try:
            got_sorted = sorted(int(v) for v in got)
        except (TypeError, ValueError):
            raise CheckFailed(f"children_touched must return a list of child indices 0..3, got {got!r}") from None
        if got_sorted != expected:
            hint = " Hint: children are 0 TL, 1 TR, 2 BL, 3 BR, with y upwards (top = larger y)."
            w, h = rect[2] - rect[0], rect[3] - rect[1]
            if w != h:
                hint = " Hint: the node is not square; the vertical split is at half the *height*."
            elif "touching" in name or "point" in name or "edge" in name:
                hint = " Hint: quadrants are closed, so a box that only touches a midline goes into both sides."
            elif "outside" in name:
                hint = " Hint: a box that misses the node touches none of its children."
            raise CheckFailed(f"{name}: children_touched({_fmt(rect)}, {_fmt(box)}) returned {got_sorted}, "
                              f"expected {expected}.{hint}")
    print(f"children_touched passed all {len(cases)} cases, non-square nodes and touching boxes included.")


# --------------------------------------------------------------------------
# Lesson 04, exercise 2: pairs from the leaves, each once
# --------------------------------------------------------------------------
def check_leaf_pairs(fn) -> None:
    """Check ``fn(leaves, boxes) -> list of (i, j)``: the intersecting pairs that share a leaf, each once.

    ``leaves`` is a list of lists of box indices (a box spanning several leaves
    appears in each); ``boxes`` is a list of ``(xmin, ymin, xmax, ymax)``. Each
    pair ``(i, j)`` with ``i < j`` must appear once, and only if the boxes
    intersect (closed: touching counts).

    Raises
    ------
    CheckFailed
        On the first scene where the answer differs.
    """
    from .naive_quadtree import NaiveQuadtree

    scenes = [
        ("one leaf, two touching boxes", [[0, 1]], [(0, 0, 1, 1), (1, 0, 2, 1)]),
        ("one leaf, two apart", [[0, 1]], [(0, 0, 1, 1), (5, 5, 6, 6)]),
        ("a pair sharing two leaves", [[0, 1], [0, 1]], [(45, 10, 55, 20), (48, 12, 52, 14)]),
        ("three boxes over four leaves", [[0, 1, 2], [0, 2], [0, 1], [0]],
         [(40, 40, 60, 60), (45, 55, 48, 70), (55, 45, 70, 48)]),
        ("empty leaves", [[], [0], []], [(0, 0, 1, 1)]),
    ]
    for name in ("random", "mixed_sizes", "clustered"):
        boxes = make_scene(name, 150, seed=11)
        qt = NaiveQuadtree.from_boxes(boxes, capacity=4)
        leaves = [list(n.elements) for n in qt.nodes() if n.is_leaf]
        scenes.append((f"a quadtree over make_scene({name!r}, 150)", leaves, [tuple(b) for b in boxes.tolist()]))
    for name, leaves, boxes in scenes:
        n = len(boxes)
        exp = set()
        for leaf in leaves:
            for a in range(len(leaf)):
                for b in range(a + 1, len(leaf)):
                    i, j = sorted((leaf[a], leaf[b]))
                    if _closed_touch(boxes[i], boxes[j]):
                        exp.add((i, j))
        got = _as_pair_rows(_call(fn, [list(l) for l in leaves], [tuple(b) for b in boxes]), n)
        if (got[:, 0] >= got[:, 1]).any():
            bad = got[got[:, 0] >= got[:, 1]][0].tolist()
            raise CheckFailed(f"{name}: the result contains {tuple(bad)}; write each pair as (i, j) with i < j.")
        rows, counts = np.unique(got, axis=0, return_counts=True) if len(got) else (got, np.array([], int))
        if (counts > 1).any():
            raise CheckFailed(f"{name}: the pair {tuple(rows[counts > 1][0].tolist())} is reported more than once. "
                              "Hint: two boxes spanning the same leaves meet in each of them; keep a set, or "
                              "report a pair from one leaf only.")
        got_set = set(map(tuple, got.tolist()))
        if got_set != exp:
            extra, missing = sorted(got_set - exp), sorted(exp - got_set)
            msg = f"{name}: expected {len(exp)} pairs, got {len(got_set)}."
            if extra:
                i, j = extra[0]
                msg += (f" Extra {extra[0]}: boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} "
                        f"{'share a leaf but ' if any(i in l and j in l for l in leaves) else ''}do not intersect. "
                        "Hint: sharing a leaf only makes them candidates; test the boxes.")
            if missing:
                i, j = missing[0]
                msg += (f" Missing {missing[0]}: boxes {_fmt(boxes[i])} and {_fmt(boxes[j])} share a leaf and "
                        "intersect (closed boxes: touching counts).")
            raise CheckFailed(msg)
    print(f"leaf_pairs passed all {len(scenes)} scenes, each pair once.")


# --------------------------------------------------------------------------
# Lesson 05, exercise 1: a node's rectangle, computed during the descent
# --------------------------------------------------------------------------
def _node_rect_reference(root, path):
    r = tuple(float(v) for v in root)
    for k in path:
        r = _quadrants(r)[k]
    return r


def check_node_rect(fn) -> None:
    """Check ``fn(root, path) -> (xmin, ymin, xmax, ymax)``: the rectangle of the node reached by ``path``.

    ``root`` is the root's rectangle; ``path`` a sequence of child indices from
    the root (0 TL, 1 TR, 2 BL, 3 BR, y upwards); an empty path is the root.

    Raises
    ------
    CheckFailed
        On the first wrong rectangle (compared to 1e-9 relative tolerance).
    """
    cases = [
        ("the root itself", (0, 0, 800, 600), []),
        ("top-left child of an 800 x 600 root", (0, 0, 800, 600), [0]),
        ("bottom-right child of an 800 x 600 root", (0, 0, 800, 600), [3]),
        ("two levels down, 800 x 600", (0, 0, 800, 600), [2, 1]),
        ("a root away from the origin", (-500, -500, 500, 500), [1, 2, 0]),
        ("a tall root", (10, 0, 20, 1000), [0, 3, 3]),
    ]
    rng = np.random.default_rng(505)
    for k in range(100):
        x0, y0 = rng.uniform(-1000, 1000, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + rng.uniform(1, 900), y0 + rng.uniform(1, 900)),
                      rng.integers(0, 4, rng.integers(0, 8)).tolist()))
    for name, root, path in cases:
        expected = _node_rect_reference(root, path)
        got = _call(fn, tuple(float(v) for v in root), list(path))
        try:
            g = [float(v) for v in got]
        except (TypeError, ValueError):
            raise CheckFailed(f"node_rect must return (xmin, ymin, xmax, ymax), got {got!r}") from None
        if len(g) != 4 or not np.allclose(g, expected, rtol=1e-9, atol=1e-9):
            hint = ""
            if len(g) == 4 and np.allclose(g[0::2], expected[0::2]) and not np.allclose(g[1::2], expected[1::2]):
                hint = (" The x extent is right but y is not. Hint: halve the *height* for y, and remember "
                        "that y grows upwards: the top children (0, 1) have the larger y.")
            raise CheckFailed(f"{name}: node_rect({_fmt(root)}, {path}) returned {got!r}, "
                              f"expected {_fmt(expected)}.{hint}")
    print(f"node_rect passed all {len(cases)} cases, non-square roots included.")


# --------------------------------------------------------------------------
# Lesson 05, exercise 2: the indexed free list
# --------------------------------------------------------------------------
def check_free_list(insert, erase) -> None:
    """Check ``insert(data, head, value) -> (index, head)`` and ``erase(data, head, index) -> head``.

    ``data`` is a Python list used as the array; ``head`` the first hole or -1.
    An erased slot holds the index of the next hole (-1 at the end), so the
    holes form a linked list inside ``data``. ``insert`` must reuse the most
    recently erased hole when there is one, else append; indices of live
    values never change.

    Raises
    ------
    CheckFailed
        On the first operation whose result differs from the reference.
    """
    def ref_insert(data, head, value):
        if head != -1:
            i = head
            head = data[i]
            data[i] = value
            return i, head
        data.append(value)
        return len(data) - 1, head

    def ref_erase(data, head, index):
        data[index] = head
        return index

    rng = np.random.default_rng(55)
    ops = [("insert", 10), ("insert", 20), ("insert", 30), ("erase", 1), ("insert", 40), ("erase", 0),
           ("erase", 2), ("insert", 50), ("insert", 60), ("insert", 70)]
    sim, sim_head = [], -1
    live = set()
    for op, arg in ops:  # replay the fixed ops to know which indices are live
        if op == "insert":
            i, sim_head = ref_insert(sim, sim_head, arg)
            live.add(i)
        else:
            sim_head = ref_erase(sim, sim_head, arg)
            live.discard(arg)
    for k in range(200):
        if live and rng.random() < 0.45:
            i = int(rng.choice(sorted(live)))
            ops.append(("erase", i))
            sim_head = ref_erase(sim, sim_head, i)
            live.discard(i)
        else:
            v = int(rng.integers(100, 999))
            ops.append(("insert", v))
            i, sim_head = ref_insert(sim, sim_head, v)
            live.add(i)
    ref_data, ref_head, data, head = [], -1, [], -1
    values = {}
    for step, (op, arg) in enumerate(ops, 1):
        if op == "insert":
            want, ref_head = ref_insert(ref_data, ref_head, arg)
            got = _call(insert, data, head, arg)
            try:
                idx, head = int(got[0]), int(got[1])
            except (TypeError, ValueError, IndexError):
                raise CheckFailed(f"insert must return (index, head), got {got!r}") from None
            if idx in values:
                raise CheckFailed(f"step {step}: insert({arg}) returned index {idx}, which holds the live value "
                                  f"{values[idx]}. Hint: after taking the first hole, head must move on to the "
                                  "next hole (stored in that slot).")
            if idx != want:
                hint = (" Hint: there were holes; reuse the most recently erased one (the head) before appending."
                        if ref_head != -1 or want < len(ref_data) - 1 else "")
                raise CheckFailed(f"step {step}: insert({arg}) returned index {idx}, expected {want}.{hint}")
            values[idx] = arg
        else:
            ref_head = ref_erase(ref_data, ref_head, arg)
            head = _call(erase, data, head, arg)
            if head is None:
                raise CheckFailed("erase must return the new head (the erased index)")
            head = int(head)
            values.pop(arg)
        for i, v in values.items():
            if i >= len(data) or data[i] != v:
                raise CheckFailed(f"step {step} ({op} {arg}): index {i} should still hold {v}; indices of live "
                                  "values must never change.")
    print(f"free list passed {len(ops)} operations: holes reused last-in first-out, indices stable.")

"""Exercise checks for lessons 02-03: grids and spatial hashing.

* :func:`check_cell_range` (lesson 02, warm-up): the clamped cell range of a box.
* :func:`check_grid_pairs` (lesson 02): the grid's pair loop over its ``head``/``nxt``/``elem``
  lists with the reference-cell rule, run on the arrays of real
  :class:`~lessons_lib.structures.uniform_grid.UniformGrid` structures and compared with
  brute force.
* :func:`check_cell_members` (lesson 03): the bucket of a cell (the hash with its 62-bit
  mask) and the key compares that reject other cells of the same bucket, run on the arrays
  of real :class:`~lessons_lib.structures.spatial_hash.SpatialHash` structures and compared
  with the cells the boxes cover.

Every check calls the learner's function through
:func:`~lessons_lib.checks.common.run_student` (stub, exception, ``None`` and inputs changed
in place are reported), uses worlds whose origin is not 0 and whose size is not a multiple of
the cell, non-integer, negative and out-of-world coordinates, and validates results
(integers where cells and slots are meant, no repeats where a set is meant).
"""
from __future__ import annotations

import math

import numpy as np

from ..structures.brute_force import brute_force_pairs
from ..scenes import make_scene
from .common import (
    CheckFailed,
    Mistakes,
    RowReads,
    adversarial_boxes,
    expect_ids,
    expect_ints,
    expect_pairs,
    fmt,
    num,
    random_world,
    run_student,
)

__all__ = ["check_cell_range", "check_grid_pairs", "check_cell_members"]


# --------------------------------------------------------------------------
# Lesson 02, exercise 1 (warm-up): the cell range of a box (floor, clamped)
# --------------------------------------------------------------------------
#: A world whose origin and size are exact binary fractions, so that borders o + k * s are exact floats.
_BORDER_WORLD, _BORDER_CELL = (-12.75, 30.5, 88.5, 92.0), 6.25  # 17 columns x 10 rows
_CELL_RANGE_CASES = [
    ("a box inside one cell", (20.5, 62.0, 23.0, 64.5)),
    ("a box over several cells", (1.0, 35.0, 30.0, 52.0)),
    ("a point", (20.0, 60.0, 20.0, 60.0)),
    ("a box ending exactly on a cell border", (1.0, 35.0, 6.0, 43.0)),
    ("a box starting exactly on a cell border", (6.0, 43.0, 9.5, 47.0)),
    ("a flat box lying on a row border", (0.0, 49.25, 30.0, 49.25)),
    ("a box with negative coordinates inside the world", (-11.5, 31.0, -0.5, 40.0)),
    ("a box in the last, partial column", (87.5, 50.0, 88.25, 52.0)),
    ("the world's top-right corner", (88.5, 92.0, 88.5, 92.0)),
    ("a box partly left of and below the world", (-40.0, 0.0, -10.0, 31.0)),
    ("a box wholly outside the world, far away", (-500.0, 900.0, -400.0, 950.0)),
    ("a box beyond the top-right corner", (95.0, 100.0, 130.0, 120.0)),
    ("a box covering the whole world and more", (-20.0, 20.0, 100.0, 100.0)),
]


def _touch_only(a, b) -> bool:
    """Closed boxes that meet only on their borders."""
    return (a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
            and not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]))


def _clamp(v: int, n: int) -> int:
    return min(max(v, 0), n - 1)


def _cell_choices(v: float, origin: float, s: float, n: int) -> set[int]:
    """Acceptable cells of coordinate ``v``: floor of (v - origin) / s, computed by division or by
    multiplying with 1 / s (the two may differ in the last bit on a border), clamped."""
    return {_clamp(math.floor((v - origin) / s), n), _clamp(math.floor((v - origin) * (1.0 / s)), n)}


def _grid_dims(s: float, world) -> tuple[int, int]:
    return max(1, math.ceil((world[2] - world[0]) / s)), max(1, math.ceil((world[3] - world[1]) / s))


def _cell_range_mistakes(box, s, world) -> list[tuple[str, tuple[int, int, int, int]]]:
    """What the usual wrong answers return for ``box``, each with the hint that explains it."""
    cols, rows = _grid_dims(s, world)
    fcols, frows = max(1, int((world[2] - world[0]) // s)), max(1, int((world[3] - world[1]) // s))
    o = (world[0], world[1], world[0], world[1])
    n = (cols, rows, cols, rows)
    floor_all = [math.floor((v - o[k]) / s) for k, v in enumerate(box)]
    return [  # the most specific first: on an exact-multiple world, one column too many looks like no clamping
        ("Hint: the grid has exactly ceil(width / cell_size) columns and ceil(height / cell_size) rows: when "
         "the width is a multiple of the cell size there is no extra, partial column.",
         tuple(_clamp(f, (int((world[2] - world[0]) / s) + 1, int((world[3] - world[1]) / s) + 1)[k % 2])
               for k, f in enumerate(floor_all))),
        ("Hint: clamp to the grid: a box outside the world goes into the border cells, it is never lost.",
         tuple(floor_all)),
        ("Hint: subtract the world's origin before dividing by the cell size.",
         tuple(_clamp(math.floor(v / s), n[k]) for k, v in enumerate(box))),
        ("Hint: int() truncates; subtract the origin first and take the floor of the difference "
         "(int(x / s) - int(origin / s) is not the same number).",
         tuple(_clamp(int(v / s) - int(o[k] / s), n[k]) for k, v in enumerate(box))),
        ("Hint: this box ends exactly on a cell border; it touches the boxes of the next cell, so that cell is "
         "in its range too.",
         (*(_clamp(f, n[k]) for k, f in enumerate(floor_all[:2])),
          *(_clamp(max(math.ceil((v - o[k + 2]) / s) - 1, floor_all[k]), n[k + 2]) for k, v in enumerate(box[2:])))),
        ("Hint: the grid has ceil(width / cell_size) columns and ceil(height / cell_size) rows: the last, "
         "partial column and row count too.",
         tuple(_clamp(f, (fcols, frows)[k % 2]) for k, f in enumerate(floor_all))),
        ("Hint: columns follow x and the width, rows follow y and the height.",
         tuple(_clamp(f, (rows, cols)[k % 2]) for k, f in enumerate(floor_all))),
    ]


#: A world whose width and height are exact multiples of the cell (8 columns x 6 rows): no partial column.
_EXACT_WORLD, _EXACT_CELL = (-30.0, 12.5, 70.0, 87.5), 12.5
_EXACT_CASES = [
    ("the top-right corner of a world whose size is a multiple of the cell", (70.0, 87.5, 70.0, 87.5)),
    ("a box ending exactly on the right and top borders of that world", (45.5, 60.0, 70.0, 87.5)),
    ("a box beyond the top-right corner of that world", (75.0, 90.0, 80.0, 95.0)),
    ("a box on the inner border of that world's last column", (57.5, 20.0, 60.0, 25.0)),
]


def _cell_range_cases():
    cases = [(name, box, _BORDER_CELL, _BORDER_WORLD) for name, box in _CELL_RANGE_CASES]
    cases += [(name, box, _EXACT_CELL, _EXACT_WORLD) for name, box in _EXACT_CASES]
    rng = np.random.default_rng(2026)
    for k, s in enumerate((7.5, 12.3, 3.7, 25.0, 10.0)):
        world = random_world(rng, s)
        for name, boxes in adversarial_boxes(seed=100 + k, world=world)[1:]:
            for i, b in enumerate(boxes.tolist()):
                cases.append((f"{name}, box {i}", tuple(b), s, world))
    return cases


def check_cell_range(fn) -> None:
    """Check ``fn(box, cell_size, world) -> (col0, row0, col1, row1)``.

    The grid has square cells of side ``cell_size`` over ``world`` ``(xmin, ymin, xmax, ymax)``,
    ``ceil(width / cell_size)`` columns and ``ceil(height / cell_size)`` rows; the answer is
    the inclusive range of cells the closed box overlaps, clamped to the grid, as four
    integers (:meth:`lessons_lib.UniformGrid.cell_range` computes the same). Worlds have an
    origin that is not 0 and sizes that are not multiples of the cell, plus one world whose
    size is an exact multiple (no partial column); boxes lie on exact borders, in the last
    partial column, outside the world, at negative coordinates.

    Raises
    ------
    CheckFailed
        On the stub, an exception (naming the case), ``None``, a result that is not four
        Python ints (a float such as ``3.0``, or a NumPy integer, included), and on the first
        wrong range, with a hint only when the answer is what exactly one known mistake gives
        (and no case passed before rules that mistake out).
    """
    cases = _cell_range_cases()
    mistakes = Mistakes()
    for name, box, s, world in cases:
        cols, rows = _grid_dims(s, world)
        call = f"cell_range({fmt(box)}, {num(s)}, {fmt(world)})"
        got = expect_ints(run_student(fn, box, s, world, name="cell_range", case=f"{name}: {call}"), 4, call, exact=True)
        o = (world[0], world[1], world[0], world[1])
        n = (cols, rows, cols, rows)
        ok = all(got[k] in _cell_choices(v, o[k], s, n[k]) for k, v in enumerate(box))
        candidates = _cell_range_mistakes(box, s, world)
        if ok:
            mistakes.passed(got, candidates)
            continue
        expected = tuple(min(_cell_choices(v, o[k], s, n[k])) for k, v in enumerate(box))
        hint = mistakes.hint(got, expected, candidates)
        raise CheckFailed(f"{name}: {call} returned {got}, expected {expected} (the grid has {cols} columns "
                          f"and {rows} rows). {hint}".rstrip())
    print(f"cell_range passed all {len(cases)} cases: irregular worlds, exact borders and boxes outside included.")


# --------------------------------------------------------------------------
# Lesson 02, exercise 2: the grid's pair loop over head / nxt / elem
# --------------------------------------------------------------------------
def _grids_for_pairs():
    """(name, grid) of real uniform grids built in three ways on irregular worlds."""
    from ..structures.uniform_grid import UniformGrid

    rng = np.random.default_rng(2)
    out = []
    fixed = [
        ("three boxes meeting in the grid's last cell", (0.5, -3.25, 40.75, 31.0), 9.5,
         np.array([[36.0, 27.5, 39.0, 30.0], [39.0, 30.0, 41.5, 33.0], [38.75, 28.0, 40.0, 31.0]])),
        ("two boxes sharing four cells", (-7.25, 2.5, 30.0, 30.0), 6.5, np.array([[-3.0, 5.0, 8.0, 14.0], [2.5, 7.0, 12.0, 20.0]])),
    ]
    for name, world, s, boxes in fixed:
        out.append((name, UniformGrid.from_boxes(boxes, cell_size=s, world=world)))
    for k in range(len(adversarial_boxes())):
        s = round(float(rng.uniform(6.0, 19.0)), 2)
        world = random_world(rng, s)
        name, boxes = adversarial_boxes(seed=21 + k, world=world)[k]
        how = k % 3
        if how == 0:  # one bulk load: each cell's list in slot order
            out.append((f"{name}, cell size {num(s)}", UniformGrid.from_boxes(boxes, cell_size=s, world=world)))
            continue
        g = UniformGrid(world=world, cell_size=s)
        ids = 1000 + 7 * rng.permutation(len(boxes))
        for i in rng.permutation(len(boxes)):  # inserted one by one: lists in no particular slot order
            g.insert(int(ids[i]), boxes[i])
        label = f"{name}, inserted one by one in random order, cell size {num(s)}"
        if how == 2 and len(boxes) > 2:  # removals and re-inserts: freed nodes and slots reused
            gone = rng.choice(len(boxes), size=len(boxes) // 3, replace=False)
            for i in gone:
                g.remove(int(ids[i]))
            for i in gone[: len(gone) // 2]:
                g.insert(int(ids[i]) + 1, boxes[i])
            label = f"{name}, after removals and re-inserts, cell size {num(s)}"
        out.append((label, g))
    for scene in ("random", "large_boxes", "xline"):
        world = random_world(rng)
        b = make_scene(scene, 120, seed=3, world=world)
        out.append((f"make_scene({scene!r}, 120) in the world {fmt(world)}",
                    UniformGrid.from_boxes(b, cell_size=round((world[2] - world[0]) / 13.7, 2), world=world)))
    return out


def _reading(fn, log):
    """``fn`` called with a ``boxes`` that records the rows read (see :class:`~lessons_lib.checks.common.RowReads`)."""
    def call(head, nxt, elem, boxes, cols, cell_of):
        return fn(head, nxt, elem, RowReads(boxes, log), cols, cell_of)
    return call


def _cell_lists(g) -> list[list[int]]:
    """The slots of every cell's list, walked from ``head``."""
    out = []
    for cell in range(len(g.head)):
        node, slots = int(g.head[cell]), []
        while node != -1:
            slots.append(int(g.elem[node]))
            node = int(g.nxt[node])
        out.append(slots)
    return out


#: Reads of one box allowed per test it takes part in, and per cell it is listed in (a row read
#: coordinate by coordinate, and the reference cell, cost several reads): generous on purpose.
_READS_PER_TEST, _READS_PER_CELL, _READS_SLACK = 8, 8, 16


def _check_pair_reads(what, members, log, boxes) -> None:
    """Fail if a box was read far more often than the walk of the cells allows (a search over all the boxes).

    The walk tests each box against the other boxes of each cell it is listed in; a search
    over every stored box reads each box once per other box of the whole grid.
    """
    partners, cells = {}, {}
    for m in members:
        for s in m:
            partners[s] = partners.get(s, 0) + len(m) - 1
            cells[s] = cells.get(s, 0) + 1
    reads = np.bincount(np.asarray(log, np.int64), minlength=len(boxes)) if log else np.zeros(len(boxes), np.int64)
    for s in np.argsort(-reads).tolist():
        allowed = _READS_PER_TEST * partners.get(s, 0) + _READS_PER_CELL * cells.get(s, 0) + _READS_SLACK
        if reads[s] <= allowed:
            return
        raise CheckFailed(f"{what}: grid_pairs found the right pairs, but it read the box of slot {s} {int(reads[s])} "
                          f"times, while slot {s} shares its {cells.get(s, 0)} cell(s) with {partners.get(s, 0)} "
                          "other box(es) in all: that is a search over every box, not the walk of the cells. Test each "
                          "box only against the boxes listed in the same cell.")


def check_grid_pairs(fn) -> None:
    """Check ``fn(head, nxt, elem, boxes, cols, cell_of) -> list of (i, j)``: a uniform grid's pairs.

    Runs the learner's pair loop on the arrays of real :class:`~lessons_lib.UniformGrid`
    structures: ``head`` (one int32 per cell, cell ``(row, col)`` at ``row * cols + col``,
    -1 for an empty cell), ``nxt`` and ``elem`` (the node lists, -1 ends a list), ``boxes``
    (the element table's ``(capacity, 4)`` float64 boxes, indexed by slot; unused slots hold
    stale boxes), ``cols`` and ``cell_of(x, y) -> (col, row)`` (the grid's clamped cell of a
    point). The answer must be every intersecting pair of stored slots ``(i, j)``, ``i < j``,
    exactly once, whatever the order of the lists. Grids are bulk-loaded, filled one insert at
    a time in random order, and thinned by removals (freed nodes and slots are reused), over
    worlds with a non-zero origin and sizes that are not multiples of the cell; scenes come
    from :func:`~lessons_lib.checks.common.adversarial_boxes` and the article's placements.
    The truth is brute force on the stored boxes. The method is checked too: ``boxes`` records
    the rows read, and a box read far more often than the tests of its cells allow (a search
    over every stored box) fails, however right the pairs.

    Raises
    ------
    CheckFailed
        On the stub, an exception, ``None``, an array changed in place, a result that is not
        a set of ordered integer pairs (a pair twice, ``(j, i)``, a float), and on the first
        grid whose pairs differ from brute force, naming the boxes and their reference cell.
    """
    grids = _grids_for_pairs()
    for name, g in grids:
        live = g.elements.live_slots()
        boxes = g.elements.boxes

        def cell_of(x, y, _g=g):
            c0, r0, _, _ = _g.cell_range((x, y, x, y))
            return (c0, r0)

        what = f"grid_pairs on {name} ({len(live)} boxes, {g.rows} rows x {g.cols} columns)"
        log: list[int] = []
        raw = run_student(_reading(fn, log), g.head, g.nxt, g.elem, boxes, g.cols, cell_of, name="grid_pairs",
                          case=what, track=fn)
        members = _cell_lists(g)
        try:
            got = expect_pairs(raw, what, n=len(boxes))
        except CheckFailed as e:
            listed = [tuple(sorted(r)) for r in raw if isinstance(r, (tuple, list)) and len(r) == 2] \
                if isinstance(raw, (list, tuple)) else []
            dup = next((p for p in listed if listed.count(p) > 1), None)
            if "twice" in str(e) and dup is not None and sum(dup[0] in m and dup[1] in m for m in members) > 1:
                raise CheckFailed(f"{e}. Slots {dup[0]} and {dup[1]} share {sum(dup[0] in m and dup[1] in m for m in members)} "
                                  "cells and were reported from more than one. Hint: report a pair from one cell only, "
                                  "its reference cell.") from None
            raise
        stored = set(live.tolist())
        for i, j in sorted(got):
            if i not in stored or j not in stored:
                dead = i if i not in stored else j
                raise CheckFailed(f"{what}: the pair ({i}, {j}) names slot {dead}, which holds no stored box (no list "
                                  "node refers to it). Walk the cells' lists from head through nxt and take the slots "
                                  "from elem.")
        bf = brute_force_pairs(boxes[live])
        expected = {(int(live[a]), int(live[b])) for a, b in bf.tolist()}
        if got != expected:
            missing, extra = sorted(expected - got), sorted(got - expected)
            if extra:
                i, j = extra[0]
                sharing = {(min(a, b), max(a, b)) for m in members for a in m for b in m if a != b}
                hint = " Hint: sharing a cell is not enough, test the two boxes." if got == sharing else ""
                raise CheckFailed(f"{what}: ({i}, {j}) was reported but the boxes {fmt(boxes[i])} and {fmt(boxes[j])} "
                                  f"do not intersect.{hint}")
            i, j = missing[0]
            ref = cell_of(max(boxes[i, 0], boxes[j, 0]), max(boxes[i, 1], boxes[j, 1]))
            touching = {p for p in expected if _touch_only(boxes[p[0]], boxes[p[1]])}
            hint = (" Hint: they only touch, and touching counts." if set(missing) <= touching and not (got & touching)
                    else "")
            raise CheckFailed(f"{what}: {len(missing)} pair(s) missing, e.g. ({i}, {j}): slots {i} {fmt(boxes[i])} and "
                              f"{j} {fmt(boxes[j])} intersect, and both are in their reference cell (col {ref[0]}, "
                              f"row {ref[1]}).{hint}")
        _check_pair_reads(what, members, log, boxes)
    print(f"grid_pairs matches brute force on all {len(grids)} grids, each pair once.")


# --------------------------------------------------------------------------
# Lesson 03: the members of one cell of a spatial hash
# --------------------------------------------------------------------------
def _hashes_for_members():
    """(name, hash, cells to ask, {cell: expected slots}) on real spatial hashes with small tables."""
    from ..structures.spatial_hash import SpatialHash

    rng = np.random.default_rng(3)
    scenes = [(n, b) for n, b in adversarial_boxes(seed=31, world=(-61.5, -20.25, 48.0, 37.5))[1:]]
    scenes += [
        ("boxes a billion units away", np.array([[1e9, -1e9, 1e9 + 8, -1e9 + 8], [1e9 + 8, -1e9 + 8, 1e9 + 9, -1e9 + 9],
                                                 [-1e9, 2e8, -1e9 + 3, 2e8 + 30]])),
        ("boxes beyond the last cell (clamped)", np.array([[3e10, 5.0, 3e10 + 1, 6.0], [-3e10, -7.0, -3e10 + 2, -6.5],
                                                           [3e10, 5.5, 3e10 + 4, 9.0]])),
    ]
    out = []
    for k, (name, boxes) in enumerate(scenes):
        s = (7.5, 12.3, 5.25)[k % 3]
        table = (7, 13, 61, 64, 257)[k % 5]
        sh = SpatialHash(cell_size=s, table_size=table)
        ids = 500 + 3 * rng.permutation(len(boxes))
        for i in rng.permutation(len(boxes)):
            sh.insert(int(ids[i]), boxes[i])
        if k % 4 == 3 and len(boxes) > 3:
            for i in rng.choice(len(boxes), size=len(boxes) // 3, replace=False):
                sh.remove(int(ids[i]))
            name = f"{name}, after removals"
        big = set(sh.oversize().tolist())
        members: dict[tuple[int, int], list[int]] = {}
        for slot in sh.elements.live_slots().tolist():
            if int(sh.elements.ids[slot]) in big:
                continue
            cx0, cy0, cx1, cy1 = sh.cell_range(sh.elements.boxes[slot])
            for cx in range(cx0, cx1 + 1):
                for cy in range(cy0, cy1 + 1):
                    members.setdefault((cx, cy), []).append(slot)
        cells = sorted(members)
        near = sorted({(cx + dx, cy + dy) for cx, cy in cells for dx in (-2, 0, 3) for dy in (-1, 2)} - set(members))
        cells += [near[i] for i in rng.permutation(len(near))[:60]]
        out.append((f"{name} (cell size {num(s)}, {table} buckets)", sh, cells, members))
    return out


_P1, _P2, _MASK62 = 73856093, 19349663, (1 << 62) - 1


def _walk(sh, bucket: int, keep) -> list[int]:
    out, node = [], int(sh.head[bucket])
    while node != -1:
        if keep(node):
            out.append(node)
        node = int(sh.nxt[node])
    return out


def _member_mistakes(sh, cx: int, cy: int) -> list[tuple[str, list[int]]]:
    """What the usual wrong answers return for cell ``(cx, cy)`` (sorted), each with the hint that explains it."""
    from ..structures.spatial_hash import cell_key

    size, want = len(sh.head), cell_key(cx, cy)
    h = (cx * _P1) ^ (cy * _P2)
    right, unmasked = (h & _MASK62) % size, h % size  # np.fmod(h, size) indexes the same bucket (negative wraps)
    same = lambda node: int(sh.key[node]) == want  # noqa: E731
    slots = lambda nodes: sorted(int(sh.elem[v]) for v in nodes)  # noqa: E731
    return [
        (" Hint: other cells share this bucket; keep only the nodes whose key is this cell's.",
         slots(_walk(sh, right, lambda node: True))),
        (f" Hint: this cell's hash is negative ({h}); its remainder without the mask names bucket {unmasked}, but the "
         f"structure files the cell in bucket {right}, from the masked hash (section 2).",
         slots(_walk(sh, unmasked, same)) if h < 0 and unmasked != right else None),
        (" Hint: return the slots stored in elem, not the node indices.", sorted(_walk(sh, right, same))),
    ]


def _watching_nodes(fn, log):
    """``fn`` called with ``nxt``, ``elem`` and ``key`` that record the nodes read."""
    def call(head, nxt, elem, key, cx, cy):
        return fn(head, RowReads(nxt, log), RowReads(elem, log), RowReads(key, log), cx, cy)
    return call


def _check_member_reads(what, sh, cx, cy, log) -> None:
    """Fail if a node off the list of the cell's bucket was read (a search over all the nodes, or another bucket)."""
    size = len(sh.head)
    bucket = (((cx * _P1) ^ (cy * _P2)) & _MASK62) % size
    chain = set(_walk(sh, bucket, lambda node: True))
    stray = sorted(set(log) - chain)
    if not stray:
        return
    v = stray[0]
    home = next((b for b in range(size) if v in set(_walk(sh, b, lambda node: True))), None)
    where = f"a node of bucket {home}'s list" if home is not None else "no node of any list"
    h = (cx * _P1) ^ (cy * _P2)
    hint = ""
    if h < 0 and set(log) <= set(_walk(sh, h % size, lambda node: True)):  # exactly the unmasked remainder's list
        hint = (f" Hint: this cell's hash is negative ({h}); its remainder without the mask names bucket {h % size}, "
                "the list you read; the structure uses the masked hash (section 2).")
    raise CheckFailed(f"{what}: cell_members returned the right slots, but it read node {v} ({where}), while the cell "
                      f"is filed in bucket {bucket}, whose list has {len(chain)} node(s). The exercise is the lookup "
                      f"the structure makes: walk the list of the cell's own bucket only.{hint}")


def check_cell_members(fn) -> None:
    """Check ``fn(head, nxt, elem, key, cx, cy) -> list of slots``: the boxes stored in one cell of a spatial hash.

    Runs the learner's function on the arrays of real
    :class:`~lessons_lib.structures.spatial_hash.SpatialHash` structures (good hash): ``head``
    (one int32 per bucket, ``len(head)`` buckets), ``nxt``, ``elem`` (the node lists) and
    ``key`` (each node's cell as one int64, ``(cx + L) * 2**32 + (cy + L)`` with
    ``L = 2**30 - 1``). The answer for cell ``(cx, cy)`` must be the slots of every box that
    covers it, each once, in any order: compute the bucket
    ``((cx * 73856093) ^ (cy * 19349663)) & (2**62 - 1)`` modulo the table size, walk its
    list and keep the nodes whose key is the cell's. Tables are small and not all powers of
    two (so buckets are shared by many cells and a forgotten mask changes the bucket of
    negative hashes); cells are negative, a billion units away and clamped at the edge;
    the cells asked include empty cells whose bucket holds other cells.

    The method is checked too: ``nxt``, ``elem`` and ``key`` record the nodes read, and a
    right answer that read a node off the list of the cell's bucket fails.

    Raises
    ------
    CheckFailed
        On the stub, an exception, ``None``, an array changed in place, a result that is not
        a list of distinct Python-int slots, on the first cell whose slots differ from the
        boxes that cover it, and on a right answer found by reading other buckets' nodes.
    """
    tables = _hashes_for_members()
    asked = 0
    for name, sh, cells, members in tables:
        live = set(sh.elements.live_slots().tolist())
        for cx, cy in cells:
            what = f"cell_members(..., cx={cx}, cy={cy}) on {name}"
            log: list[int] = []
            got = expect_ids(run_student(_watching_nodes(fn, log), sh.head, sh.nxt, sh.elem, sh.key, cx, cy,
                                         name="cell_members", case=what, track=fn), what, exact=True)
            expected = sorted(members.get((cx, cy), []))
            asked += 1
            if got == expected:
                _check_member_reads(what, sh, cx, cy, log)
                continue
            boxes = sh.elements.boxes
            hint = next((h for h, wrong in _member_mistakes(sh, cx, cy) if wrong is not None and wrong == got), "")
            extra = [s for s in got if s not in expected]
            if extra:
                s = extra[0]
                where = f"holds {fmt(boxes[s])}" if s in live else "holds no stored box"
                raise CheckFailed(f"{what} returned slot {s}, which {where} and does not cover the cell "
                                  f"(expected {len(expected)} slot(s)).{hint}")
            s = [v for v in expected if v not in got][0]
            raise CheckFailed(f"{what} missed slot {s}, the box {fmt(boxes[s])}, which covers the cell "
                              f"(expected {len(expected)} slot(s), got {len(got)}).{hint}")
    print(f"cell_members passed all {asked} cells of {len(tables)} spatial hashes, shared buckets and empty cells included.")

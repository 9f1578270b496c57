"""The loose/tight double grid's cells: loose cells hold elements by centre, a coarse tight grid lists loose cells.

Lesson 07, sections 1 to 3: the kernels of
:class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid` (the structure
behind the common interface); its pairs are in
:mod:`~lessons_lib.structures.loose_tight_pairs`. A **loose cell** is a cell of a fixed grid that holds every
element whose *centre* falls in it (each element in exactly one cell, like the
loose quadtree of lesson 06) and an AABB that grows to cover those elements,
possibly reaching far into its neighbours. Insert and remove are then
constant time: compute one cell, push or unlink one list node, grow or refit
one rectangle. What remains is to find, for a query, the loose cells whose
rectangles meet it without scanning them all: a coarser **tight grid** lists,
in each tight cell, the loose cells whose rectangles overlap it. A query reads
the tight cells it covers and only visits the loose cells listed there.

Data layout
-----------
===============  =================  ================================================
array            shape, dtype       meaning
===============  =================  ================================================
``lhead``        (L,) int32         first element slot of each loose cell (-1: empty);
                                    loose cell ``(row, col)`` is ``row * cols + col``
``lcount``       (L,) int32         elements in each loose cell
``lrect``        (L, 4) float32     each loose cell's AABB, rounded outwards
                                    (:mod:`~lessons_lib.structures.loose_bounds`);
                                    ``[inf, inf, -inf, -inf]`` when empty
``lreg``         (L, 4) int32       the tight range ``(tc0, tr0, tc1, tr1)`` the loose
                                    cell is registered in (``-1`` row: nowhere);
                                    columns ``TC0, TR0, TC1, TR1``
``enext``        (slots,) int32     next slot of the same loose cell (-1 ends it)
``thead``        (T,) int32         first node of each tight cell's list (-1: empty)
``tnxt, tcell``  (p,) int32         the tight lists' node pool of
                                    :mod:`~lessons_lib.structures.grid_cells` (``elem`` =
                                    a loose cell), with ``tstate = [USED, FREE]``
``olist``        (2,) int32         the oversize list: first slot (-1: empty), length;
                                    linked through ``enext`` like a loose cell
*pairs layout*                      (:meth:`LooseTightGrid.lay_out`, kept between calls)
``px0 .. py1``   (slots,) float64   the boxes copied cell after cell (structure of
                                    arrays): *near* elements first, giants at the end
``ps``           (slots,) int32     the slot of each copied box
``start``        (L + 1,) int32     cell ``c``'s near elements are
                                    ``start[c] .. start[c + 1] - 1``; giants from ``g0``
``srect``        (L, 4) float32     each cell's AABB of its near elements only
===============  =================  ================================================

The kernels take ``loose = (lhead, lcount, lrect, lreg, enext)``, ``tight =
(thead, tnxt, tcell, tstate)``, the loose grid's ``geom`` and the tight grid's
``tgeom`` (same origin, cells ``tight_factor`` times wider), and
``layout = (start, px0, py0, px1, py1, ps, srect)``. A loose cell costs 40 bytes
for the index plus 20 for the pairs layout, a tight cell 4; an element costs 4
bytes (``enext``) in the index, whatever its size, plus 36 in the pairs layout.
Every cell map is the clamped floor of :func:`~lessons_lib.structures.grid_cells.cell_of`,
monotone, so a far-away element lands in a border cell and is still found.

Why every answer is exact and reported once
-------------------------------------------
If a query box meets an element, it meets that element's loose-cell
rectangle (which contains the element's box). Both lie in the tight grid's
cell ranges, which overlap (monotone map), so some tight cell lists that loose
cell and the query visits it. A loose cell registered in several tight cells
is handled only in its *reference* tight cell: the one at
``(max(tc0, query tc0), max(tr0, query tr0))``, which lies in both ranges.
Each element lies in one loose cell, so it is tested once.

``pairs`` does not need the tight grid: it splits the elements by reach, near
elements cell by cell and giants apart, in
:mod:`~lessons_lib.structures.loose_tight_pairs` (lesson 07, section 5).

The steps
---------
* insert (:func:`insert_slots`): push the slot on the loose cell of its
  centre, grow that cell's rectangle, re-register the cell if the rectangle
  now reaches new tight cells (rare once the population has settled).
* remove (:func:`remove_slots`): unlink the slot and **refit** its loose cell's
  rectangle from the few elements left (an empty cell leaves the tight grid).
* move (:func:`move_slots`): the element's cell's rectangle only grows (a
  move to another loose cell also relinks the slot; the old cell keeps its
  rectangle until the next cleanup, unless it empties); cells whose
  rectangle now reaches new tight cells are re-registered after the pass
  (:func:`_relist_cells` for the cells noted in it, or :func:`_register_all`
  when most elements moved).
* query (:func:`query_core`); pairs in
  :mod:`~lessons_lib.structures.loose_tight_pairs` (``lay_out_cells``, ``pairs_core``).
* cleanup (:func:`settle_cells`): one pass over the loose cells makes every
  rectangle exact and lays the elements out again for ``pairs`` (any other
  change marks that layout stale); a second pass rebuilds the tight lists
  from the new rectangles.

Fast paths
----------
These kernels run once per frame over every element, so each step does the
least it can; the measured effects (n = 100,000 moving agents, ms per frame)
explain a few choices that would otherwise look odd:

* the per-element loop of a move has no branch on "did the box move a
  side of the rectangle?" (a coin flip for a moving element): every side is
  taken as a ``min``/``max`` and rounded
  (:func:`~lessons_lib.structures.loose_bounds.widen_rect`);
* the tight lists change only after that loop: a loop that may replace the
  tight pool's arrays (when the pool doubles) pays for it at every
  iteration in compiled code. When most elements move, every loose cell's
  range is checked once after the loop rather than after every element
  (about 3 ms instead of 4.3 for the move kernel);
* cleanup reads each cell's list once for three jobs (exact rectangle,
  near rectangle, layout) instead of three passes.

Memory is stable once the population is known: the grids are fixed, an
element is one int32 in the index plus its place in the pairs layout (both
sized by the element table's capacity), and only the tight lists' pool grows
(doubling) when loose cells reach into new tight cells.

The budget: boxes that would make their loose cell reach too far
-----------------------------------------------------------------
An element costs one slot whatever its size, but a giant widens its loose
cell's rectangle, and the cell is listed in every tight cell the rectangle
covers: with an explicit ``cell_size=0.5`` in the 800 x 600 world, one
world-sized box put its cell in 480,000 tight lists (about 4 MB). So a box
whose loose cell would have to reach more than ``max_box_cells`` tight cells
(default 65,536, the other grids' budget) goes on an **oversize list** of
its own, as the uniform grid's oversize boxes and the point grid's giants
do. "Would have to reach" is measured by :func:`square_cells`: the square
of tight cells, centred on the tight cell of the box's loose cell, that
holds the tight cells the box covers. A property of the box alone (the grid
fixed), so an element's list never depends on its neighbours; and since
every element of a loose cell has such a square around the same centre, a
loose cell is registered in at most ``max_box_cells`` tight cells, whatever
its elements (at most ``8 * max_box_cells`` bytes of tight nodes per loose
cell in use). When the whole tight grid is within the budget (the default
sizes), no box is ever checked. The oversize list is linked through
``enext`` (no memory of its own beyond ``olist``); a query scans it, ``pairs``
lays its elements out with the giants (each is paired like a giant: with the
near elements it reaches and the other giants), an update moves a box
between the cells and the list when it crosses the budget, and ``remove``,
``clear`` and ``cleanup`` treat it like a loose cell.

References
----------
The quadtree answer set on Stack Overflow [SO-quadtree],
section "Loose/tight double grid with 500k agents": loose cells with their
own AABB holding elements by centre, the coarse tight grid of loose-cell
lists, constant-time insert and remove, stable memory.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps
from ..core.jit import njit
from .grid_cells import FREE, USED, cell_of_centre, cell_span, grown_pool, pool_full, pool_push, pool_unlink
from .loose_bounds import grow_rect, set_empty, widen_rect
from .loose_tight_pairs import lay_out_cell, set_rounded
from .slot_lists import scan_slot_list, unlink_slot

__all__ = [
    "TC0", "TR0", "TC1", "TR1", "tight_range", "refit", "register_cell", "square_cells", "over_budget",
    "insert_slots", "remove_slots", "move_slots", "build_cells", "query_core", "settle_cells",
]

#: Columns of ``lreg``: the tight range ``(first column, first row, last column, last row)`` of a loose cell.
TC0, TR0, TC1, TR1 = 0, 1, 2, 3


# ==========================================================================
# One loose cell: its rectangle and its registration in the tight grid
# ==========================================================================
@njit
def refit(loose, boxes, c):
    """Recompute loose cell ``c``'s rectangle from its elements (empty: inverted)."""
    lhead, lcount, lrect, lreg, enext = loose
    set_empty(lrect, c)
    s = lhead[c]
    while s != -1:
        grow_rect(lrect, c, boxes, s)
        s = enext[s]


@njit(inline="always")
def tight_range(lrect, tgeom, c):
    """The tight cells ``(tc0, tr0, tc1, tr1)`` loose cell ``c``'s rectangle covers; ``-1`` four times when empty."""
    if lrect[c, XMIN] <= lrect[c, XMAX]:
        return cell_span(tgeom, lrect[c, XMIN], lrect[c, YMIN], lrect[c, XMAX], lrect[c, YMAX])
    return -1, -1, -1, -1


@njit(inline="always")
def _same_range(lreg, c, a0, a1, a2, a3):
    """Is loose cell ``c`` registered in exactly the tight range ``(a0, a1, a2, a3)``?"""
    return (a0 == lreg[c, TC0]) & (a1 == lreg[c, TR0]) & (a2 == lreg[c, TC1]) & (a3 == lreg[c, TR1])


@njit
def _relist_cell(lreg, tight, tgeom, c, a0, a1, a2, a3):
    """Register loose cell ``c`` in the tight range ``(a0, a1, a2, a3)`` instead of ``lreg[c]``; returns ``(tnxt, tcell)``.

    A range that only grew (a rectangle growing) is pushed on the new tight
    cells alone; otherwise the cell is unlinked from the tight cells it
    leaves and pushed on those it joins (``a0 == -1``: registered nowhere).
    The tight pool doubles when it runs out of nodes, so the arrays returned
    may be new ones.
    """
    thead, tnxt, tcell, tstate = tight
    _, _, _, tcols, _ = tgeom
    b0, b1, b2, b3 = lreg[c, TC0], lreg[c, TR0], lreg[c, TC1], lreg[c, TR1]
    grew = b0 != -1 and a0 != -1 and a0 <= b0 and a1 <= b1 and b2 <= a2 and b3 <= a3
    if not grew:
        if b0 != -1:
            for tr in range(b1, b3 + 1):
                for tc in range(b0, b2 + 1):
                    pool_unlink(thead, tnxt, tcell, tstate, tr * tcols + tc, c)
        b0, b1, b2, b3 = 0, 0, -1, -1  # nothing kept: every cell of the new range is pushed
    lreg[c, TC0], lreg[c, TR0], lreg[c, TC1], lreg[c, TR1] = a0, a1, a2, a3
    if a0 != -1:
        for tr in range(a1, a3 + 1):
            for tc in range(a0, a2 + 1):
                if b1 <= tr <= b3 and b0 <= tc <= b2:
                    continue  # already listed there
                if pool_full(tnxt, tstate):
                    tnxt, tcell = grown_pool(tnxt, tcell, tstate[USED] + 1)
                pool_push(thead, tnxt, tcell, tstate, tr * tcols + tc, c)
    return tnxt, tcell


@njit
def register_cell(lrect, lreg, tight, tgeom, c):
    """Make loose cell ``c``'s registration match its rectangle's tight range; returns ``(tnxt, tcell)``.

    For one cell at a time (insert, remove). The per-frame kernels take the
    same two steps apart: :func:`tight_range` and :func:`_same_range` inline
    in their loop, :func:`_relist_cell` for the few changed cells after it
    (:func:`_relist_cells`, :func:`settle_cells`).
    """
    thead, tnxt, tcell, tstate = tight
    a0, a1, a2, a3 = tight_range(lrect, tgeom, c)
    if _same_range(lreg, c, a0, a1, a2, a3):
        return tnxt, tcell
    return _relist_cell(lreg, tight, tgeom, c, a0, a1, a2, a3)


@njit(inline="always")
def _push_slot(loose, c, s):
    """Put slot ``s`` at the front of loose cell ``c``'s list."""
    lhead, lcount, lrect, lreg, enext = loose
    enext[s] = lhead[c]
    lhead[c] = s
    lcount[c] += 1


# ==========================================================================
# The budget: boxes that would make their loose cell reach too many tight cells
# ==========================================================================
#: Relative slack of :func:`over_budget`'s quick test: far more than float32 rounding moves a coordinate.
_SLACK = 2.0 ** -20


@njit
def square_cells(geom, tgeom, tight_factor, rect, k, c):
    """Tight cells in the square around loose cell ``c`` that holds the tight range of ``rect[k]``.

    The square is centred on the tight cell holding loose cell ``c``, with
    ``d`` cells on every side, ``d`` the farthest the range reaches from that
    cell, clipped to the tight grid. Every element of cell ``c`` has such a
    square around the same centre, so the cell's rectangle (the union of its
    elements' boxes) lies within the largest of them: if no element's square
    exceeds the budget, neither does the cell's registration.
    """
    _, _, _, cols, _ = geom
    _, _, _, tcols, trows = tgeom
    row = c // cols
    cc, cr = (c - row * cols) // tight_factor, row // tight_factor
    a0, a1, a2, a3 = tight_range(rect, tgeom, k)
    d = max(cc - a0, a2 - cc, cr - a1, a3 - cr)
    return (min(cc + d, tcols - 1) - max(cc - d, 0) + 1) * (min(cr + d, trows - 1) - max(cr - d, 0) + 1)


@njit
def over_budget(geom, tgeom, tight_factor, budget, boxes, rows, flags):
    """Which boxes ``boxes[rows[k]]`` go on the oversize list: ``flags[k]`` (bool); returns how many do.

    A box is oversize when its :func:`square_cells` (its own box rounded
    outwards to float32, as its loose cell's rectangle would be) exceeds
    ``budget`` tight cells. A quick test first: a box narrower than about
    ``sqrt(budget) / 2`` tight cells on both axes (with a margin for
    rounding, in float32 too when numba is off) cannot be oversize, so the
    per-frame path of small moving elements costs a few operations each.
    """
    ox, oy, _, _, _ = geom
    _, _, tinv, _, _ = tgeom
    dmin = 0.5 * (math.sqrt(budget) - 1.0)  # a square of more than `budget` cells reaches beyond this
    widest = 0.0
    for k in range(rows.shape[0]):  # first a branch-free pass: usually no box is anywhere near
        s = rows[k]
        b0, b1, b2, b3 = boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX]
        widest = max(widest, b2 - b0 + _SLACK * (abs(b0) + abs(b2) + abs(ox)),
                     b3 - b1 + _SLACK * (abs(b1) + abs(b3) + abs(oy)))
    if widest * tinv + 4.0 <= dmin:
        return 0
    scratch = np.empty((1, 4), dtype=np.float32)
    n = 0
    for k in range(rows.shape[0]):
        s = rows[k]
        b0, b1, b2, b3 = boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX]
        wx = (b2 - b0 + _SLACK * (abs(b0) + abs(b2) + abs(ox))) * tinv
        wy = (b3 - b1 + _SLACK * (abs(b1) + abs(b3) + abs(oy))) * tinv
        big = False
        if max(wx, wy) + 4.0 > dmin:  # wide enough to matter: the exact count
            set_empty(scratch, 0)
            grow_rect(scratch, 0, boxes, s)
            big = square_cells(geom, tgeom, tight_factor, scratch, 0, cell_of_centre(geom, boxes, s)) > budget
        flags[k] = big
        n += big
    return n


# ==========================================================================
# The steps: insert, remove, move, cleanup, query
# ==========================================================================
@njit
def insert_slots(loose, tight, geom, tgeom, boxes, slots):
    """Insert: each slot into the loose cell of its centre, whose rectangle grows; returns ``(tnxt, tcell)``."""
    lhead, lcount, lrect, lreg, enext = loose
    thead, tnxt, tcell, tstate = tight
    for k in range(slots.shape[0]):
        s = slots[k]
        c = cell_of_centre(geom, boxes, s)
        _push_slot(loose, c, s)
        grow_rect(lrect, c, boxes, s)
        tnxt, tcell = register_cell(lrect, lreg, (thead, tnxt, tcell, tstate), tgeom, c)
    return tnxt, tcell


@njit
def remove_slots(loose, tight, geom, tgeom, boxes, slots, old):
    """Remove: unlink each ``slots[k]`` (whose box is ``old[k]``) and refit its loose cell; returns the number found.

    A refit only shrinks a rectangle, so the tight pool never grows here.
    """
    lhead, lcount, lrect, lreg, enext = loose
    found = 0
    for k in range(slots.shape[0]):
        c = cell_of_centre(geom, old, k)
        hit = unlink_slot(lhead, c, enext, slots[k])
        lcount[c] -= hit
        found += hit
        refit(loose, boxes, c)
        register_cell(lrect, lreg, tight, tgeom, c)
    return found


@njit
def _relist_cells(lrect, lreg, tight, tgeom, cells, k):
    """Register each of ``cells[:k]`` (repeats allowed) where its rectangle reaches; returns ``(tnxt, tcell)``."""
    thead, tnxt, tcell, tstate = tight
    for i in range(k):
        c = cells[i]
        a0, a1, a2, a3 = tight_range(lrect, tgeom, c)
        if not _same_range(lreg, c, a0, a1, a2, a3):
            tnxt, tcell = _relist_cell(lreg, (thead, tnxt, tcell, tstate), tgeom, c, a0, a1, a2, a3)
    return tnxt, tcell


@njit
def _register_all(lrect, lreg, tight, tgeom):
    """Register every loose cell where its rectangle reaches; returns ``(tnxt, tcell)``."""
    thead, tnxt, tcell, tstate = tight
    for c in range(lrect.shape[0]):
        a0, a1, a2, a3 = tight_range(lrect, tgeom, c)
        if not _same_range(lreg, c, a0, a1, a2, a3):
            tnxt, tcell = _relist_cell(lreg, (thead, tnxt, tcell, tstate), tgeom, c, a0, a1, a2, a3)
    return tnxt, tcell


@njit
def move_slots(loose, tight, geom, tgeom, boxes, slots, old):
    """Move ``slots[k]`` from the box ``old[k]`` to ``boxes[slots[k]]`` (written); returns ``(tnxt, tcell, changed)``.

    Two passes doing the least per element (the interface validated the
    boxes, nothing is checked again):

    1. over the elements: one that changed loose cell (a few per cent per
       frame) is unlinked from the old cell and pushed on the new one; the
       old cell's rectangle is left as it is (it still covers the elements
       left: stale, like any growth) unless the cell is now empty, then it
       is inverted. Then the rectangle of the element's cell grows to cover
       the box (without branches,
       :func:`~lessons_lib.structures.loose_bounds.widen_rect`);
    2. registrations: each cell whose rectangle now reaches other tight cells
       (or that emptied) goes through :func:`_relist_cell` (a range that only
       grew is pushed on its new tight cells alone). When few elements move,
       pass 1 notes those cells as it goes (:func:`_relist_cells`); when they
       are at least half as many as the loose cells (a frame of a
       simulation), checking every loose cell once afterwards
       (:func:`_register_all`) is cheaper than checking after every element.

    Stale rectangles are made exact again by the next cleanup
    (:func:`settle_cells`). ``changed``: the elements that changed loose cell.
    """
    lhead, lcount, lrect, lreg, enext = loose
    every_cell = 2 * slots.shape[0] >= lhead.shape[0]
    noted = np.empty(0 if every_cell else 2 * slots.shape[0], dtype=np.int32)  # cells to re-register (repeats allowed)
    k_noted = 0
    changed = 0
    for k in range(slots.shape[0]):
        s = slots[k]
        c = cell_of_centre(geom, boxes, s)
        c_old = cell_of_centre(geom, old, k)
        if c_old != c:
            changed += 1
            lcount[c_old] -= unlink_slot(lhead, c_old, enext, s)
            if lhead[c_old] == -1:  # emptied: inverted rectangle, to leave the tight grid
                set_empty(lrect, c_old)
                if not every_cell:
                    noted[k_noted] = c_old
                    k_noted += 1
            _push_slot(loose, c, s)
        widen_rect(lrect, c, boxes, s)
        if not every_cell:
            a0, a1, a2, a3 = tight_range(lrect, tgeom, c)
            if not _same_range(lreg, c, a0, a1, a2, a3):
                noted[k_noted] = c
                k_noted += 1
    if every_cell:
        return _register_all(lrect, lreg, tight, tgeom) + (changed,)
    return _relist_cells(lrect, lreg, tight, tgeom, noted, k_noted) + (changed,)


@njit
def build_cells(loose, geom, boxes, slots):
    """Bulk load, first half: the lists, in slot order (:func:`settle_cells` does the rest)."""
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        _push_slot(loose, cell_of_centre(geom, boxes, s), s)


@njit
def query_core(loose, tight, tgeom, boxes, q, out):
    """Query: slots meeting the closed box ``q`` written to ``out`` while it has room.

    Returns ``(found, loose cells visited, elements tested)``; ``found`` may
    exceed ``out.shape[0]`` (the caller re-runs with a larger ``out``).
    """
    lhead, lcount, lrect, lreg, enext = loose
    thead, tnxt, tcell, tstate = tight
    q0, q1, q2, q3 = q[XMIN], q[YMIN], q[XMAX], q[YMAX]
    qc0, qr0, qc1, qr1 = cell_span(tgeom, q0, q1, q2, q3)
    _, _, _, tcols, _ = tgeom
    m = 0
    cells = 0
    tested = 0
    for tr in range(qr0, qr1 + 1):
        for tc in range(qc0, qc1 + 1):
            node = thead[tr * tcols + tc]
            while node != -1:
                c = tcell[node]
                node = tnxt[node]
                if max(lreg[c, TC0], qc0) != tc or max(lreg[c, TR0], qr0) != tr:
                    continue  # handled in its reference tight cell
                if not row_overlaps(lrect, c, q0, q1, q2, q3):
                    continue
                cells += 1
                m, t = scan_slot_list(lhead[c], enext, boxes, q0, q1, q2, q3, out, m)
                tested += t
    return m, cells, tested


@njit
def settle_cells(loose, tight, geom, tgeom, boxes, size, layout):
    """Cleanup: every loose cell made exact, the tight lists rebuilt, the pairs layout redone; returns ``(giants, tnxt, tcell)``.

    Two passes over the loose cells:

    1. each cell's list is read once to lay its elements out for ``pairs``
       (as :func:`~lessons_lib.structures.loose_tight_pairs.lay_out_cells`) and to make its rectangle exact again (the
       union of its boxes, rounded outwards once per side, which drops any
       stale growth); its new tight range goes to ``lreg`` and the nodes it
       needs are counted;
    2. the tight lists are emptied (every node back in the pool, grown once
       if needed) and each cell is pushed on the tight cells of its range.

    Rebuilding the tight lists costs about what comparing every range
    would, and leaves each list in cell order.
    """
    lhead, lcount, lrect, lreg, enext = loose
    thead, tnxt, tcell, tstate = tight
    start, px0, py0, px1, py1, ps, srect = layout
    _, _, _, tcols, _ = tgeom
    m = 0
    g = 0
    nodes = 0
    for c in range(lhead.shape[0]):
        start[c] = m
        m, g, whole, near = lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g)
        set_rounded(srect, c, near)
        set_rounded(lrect, c, whole)
        a0, a1, a2, a3 = tight_range(lrect, tgeom, c)
        lreg[c, TC0], lreg[c, TR0], lreg[c, TC1], lreg[c, TR1] = a0, a1, a2, a3
        if a0 != -1:
            nodes += (a2 - a0 + 1) * (a3 - a1 + 1)
    start[lhead.shape[0]] = m
    if nodes > tnxt.shape[0]:  # with a quarter to spare for the rectangles that grow before the next cleanup
        tnxt, tcell = grown_pool(tnxt, tcell, nodes + nodes // 4)
    thead[:] = -1
    node = 0
    for c in range(lhead.shape[0]):
        if lreg[c, TC0] == -1:
            continue  # empty: registered nowhere
        for tr in range(lreg[c, TR0], lreg[c, TR1] + 1):
            for tc in range(lreg[c, TC0], lreg[c, TC1] + 1):
                tnxt[node] = thead[tr * tcols + tc]
                tcell[node] = c
                thead[tr * tcols + tc] = node
                node += 1
    tstate[USED], tstate[FREE] = node, -1  # nodes 0 .. node - 1 in use, the rest never handed out
    return g, tnxt, tcell

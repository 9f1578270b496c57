"""The loose/tight double grid: loose cells hold elements by centre, a coarse tight grid lists loose cells.

Lesson 07. A **loose cell** is a cell of a fixed grid that holds every
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

``pairs`` does not need the tight grid: it splits the elements by reach (the
uniform-size trick of :mod:`~lessons_lib.structures.point_grid`, with the loose cell
as the bound). An element is **near** when its box stays within half a cell of
its own loose cell (strictly), otherwise it is a **giant**. Two near elements
that touch lie in the same or in neighbouring loose cells, so near pairs come
from each cell with itself and with four of its eight neighbours (east;
north-west, north and north-east, consecutive in memory: one run). Each giant
is tested against the near elements of the loose cells it can reach (one
contiguous run per loose row), and the giants against each other by a sweep
along the axis they spread most on. Each element is near or a giant once, so
every pair is found by exactly one of these parts.

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
* query (:func:`query_core`), pairs (:func:`lay_out_cells`, :func:`pairs_core`).
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
  near rectangle, layout) instead of three passes;
* the pair-search helpers take the layout's arrays one by one: unpacking the
  ``layout`` tuple inside a helper called per cell costs reference counting at
  every call (about 7 ms instead of 2 for ``pairs_core``).

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

from ..base import register
from ..core.boxes import overlaps, row_overlaps
from ..core.jit import njit
from ..core.params import check_int
from ..core.scratch import RebuildLock
from .grid_cells import (FREE, USED, XMAX, XMIN, YMAX, YMIN, cell_counts, cell_of_centre, cell_span, cells_from_origin,
                         grown_pool, new_lists, pool_full, pool_push, pool_unlink)
from .loose_bounds import EMPTY_RECT, f32_down, f32_up, grow_rect, set_empty, widen_rect
from .slot_lists import grown_slots, scan_slot_list, unlink_slot
from .uniform_grid import DEFAULT_MAX_BOX_CELLS, DEFAULT_MAX_CELLS, FixedGrid, cell_size_for, typical_box_size

__all__ = [
    "LooseTightGrid", "DEFAULT_TIGHT_FACTOR", "LOOSE_CELL_FACTOR", "TC0", "TR0", "TC1", "TR1", "refit",
    "register_cell", "square_cells", "over_budget", "insert_slots", "remove_slots", "move_slots", "build_cells",
    "query_core", "is_near", "lay_out_cells", "settle_cells", "pairs_core",
]

#: Loose cells per tight cell along each axis, by default.
DEFAULT_TIGHT_FACTOR = 2
#: ``from_boxes`` makes loose cells this many times the typical box size (see :meth:`LooseTightGrid.from_boxes`).
LOOSE_CELL_FACTOR = 4.0
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
def _tight_range(lrect, tgeom, c):
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
    same two steps apart: :func:`_tight_range` and :func:`_same_range` inline
    in their loop, :func:`_relist_cell` for the few changed cells after it
    (:func:`_relist_cells`, :func:`settle_cells`).
    """
    thead, tnxt, tcell, tstate = tight
    a0, a1, a2, a3 = _tight_range(lrect, tgeom, c)
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
    a0, a1, a2, a3 = _tight_range(rect, tgeom, k)
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


@njit
def _lay_out_list(head, enext, boxes, layout, g):
    """Copy the slots of the list from ``head`` to the back of the pairs layout, as giants; returns the giants now.

    The oversize list's elements are paired as giants are (against the near
    elements they reach, and among the giants by the sweep).
    """
    start, px0, py0, px1, py1, ps, srect = layout
    top = px0.shape[0] - 1
    s = head
    while s != -1:
        w = top - g
        px0[w], py0[w], px1[w], py1[w] = boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX]
        ps[w] = s
        g += 1
        s = enext[s]
    return g


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
        a0, a1, a2, a3 = _tight_range(lrect, tgeom, c)
        if not _same_range(lreg, c, a0, a1, a2, a3):
            tnxt, tcell = _relist_cell(lreg, (thead, tnxt, tcell, tstate), tgeom, c, a0, a1, a2, a3)
    return tnxt, tcell


@njit
def _register_all(lrect, lreg, tight, tgeom):
    """Register every loose cell where its rectangle reaches; returns ``(tnxt, tcell)``."""
    thead, tnxt, tcell, tstate = tight
    for c in range(lrect.shape[0]):
        a0, a1, a2, a3 = _tight_range(lrect, tgeom, c)
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
            a0, a1, a2, a3 = _tight_range(lrect, tgeom, c)
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


# ==========================================================================
# Pairs: near elements cell by cell, giants apart
# ==========================================================================
@njit(inline="always")
def is_near(b0, b1, b2, b3, c, cols, ox, oy, size):
    """Does the box lie strictly inside loose cell ``c`` grown by half a cell on every side?"""
    row = c // cols
    col = c - row * cols
    return (ox + (col - 0.5) * size < b0) & (oy + (row - 0.5) * size < b1) \
        & (b2 < ox + (col + 1.5) * size) & (b3 < oy + (row + 1.5) * size)


@njit(inline="always")
def _lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g):
    """Copy loose cell ``c``'s elements into the pairs layout (near ones at ``m``, giants down from the end).

    Returns ``(m, g, all, near)``: the advanced cursors and the float64
    unions of all the cell's boxes and of its near boxes (inverted when none).
    """
    ox, oy, inv, cols, rows = geom
    top = px0.shape[0] - 1
    r0, r1, r2, r3 = np.inf, np.inf, -np.inf, -np.inf
    u0, u1, u2, u3 = np.inf, np.inf, -np.inf, -np.inf
    s = lhead[c]
    while s != -1:
        b0, b1, b2, b3 = boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX]
        u0, u1, u2, u3 = min(u0, b0), min(u1, b1), max(u2, b2), max(u3, b3)
        if is_near(b0, b1, b2, b3, c, cols, ox, oy, size):
            w = m
            m += 1
            r0, r1, r2, r3 = min(r0, b0), min(r1, b1), max(r2, b2), max(r3, b3)
        else:
            w = top - g
            g += 1
        px0[w], py0[w], px1[w], py1[w] = b0, b1, b2, b3
        ps[w] = s
        s = enext[s]
    return m, g, (u0, u1, u2, u3), (r0, r1, r2, r3)


@njit(inline="always")
def _set_rounded(rects, c, r):
    """``rects[c]`` = the float64 rectangle ``r`` rounded outwards to float32 (inverted stays inverted)."""
    if r[XMIN] <= r[XMAX]:
        rects[c, XMIN], rects[c, YMIN] = f32_down(r[XMIN]), f32_down(r[YMIN])
        rects[c, XMAX], rects[c, YMAX] = f32_up(r[XMAX]), f32_up(r[YMAX])
    else:
        set_empty(rects, c)


@njit
def lay_out_cells(lhead, enext, boxes, geom, size, layout):
    """Copy the elements, cell after cell, into the pairs layout: near ones first, giants at the back.

    An element of loose cell ``(row, col)`` is **near** when its box lies
    strictly inside the cell grown by half a cell on every side; the others
    are **giants**. ``start`` receives the offsets of each cell's near
    elements and ``srect`` the union of each cell's near boxes, rounded
    outwards (inverted when none). One pass of scattered reads of the element
    table; the pair search then streams contiguous coordinate arrays
    (structure of arrays). Returns the number of giants.
    """
    start, px0, py0, px1, py1, ps, srect = layout
    m = 0
    g = 0
    for c in range(lhead.shape[0]):
        start[c] = m
        m, g, _, near = _lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g)
        _set_rounded(srect, c, near)
    start[lhead.shape[0]] = m
    return g


@njit
def settle_cells(loose, tight, geom, tgeom, boxes, size, layout):
    """Cleanup: every loose cell made exact, the tight lists rebuilt, the pairs layout redone; returns ``(giants, tnxt, tcell)``.

    Two passes over the loose cells:

    1. each cell's list is read once to lay its elements out for ``pairs``
       (as :func:`lay_out_cells`) and to make its rectangle exact again (the
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
        m, g, whole, near = _lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g)
        _set_rounded(srect, c, near)
        _set_rounded(lrect, c, whole)
        a0, a1, a2, a3 = _tight_range(lrect, tgeom, c)
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


@njit(inline="always")
def _one_vs_run(si, x0, y0, x1, y1, b0, b1, px0, py0, px1, py1, ps, out, m):
    """Test the box ``x0 .. y1`` of slot ``si`` against the run ``b0 .. b1 - 1``; returns the new ``m``.

    Branch-free when ``out`` has room for the whole run (every candidate is
    written, the cursor advances on a hit, as in the compiled brute force);
    otherwise it only counts past the end.
    """
    if m + (b1 - b0) <= out.shape[0]:
        for j in range(b0, b1):
            out[m, 0] = si
            out[m, 1] = ps[j]
            m += overlaps(x0, y0, x1, y1, px0[j], py0[j], px1[j], py1[j])
        return m
    for j in range(b0, b1):
        if overlaps(x0, y0, x1, y1, px0[j], py0[j], px1[j], py1[j]):
            if m < out.shape[0]:
                out[m, 0] = si
                out[m, 1] = ps[j]
            m += 1
    return m


@njit(inline="always")
def _reaching(r0, r1, x0, y0, x1, y1, px0, py0, px1, py1, idx):
    """Write to ``idx`` the positions in ``r0 .. r1 - 1`` whose boxes meet ``[x0, y0, x1, y1]``; returns how many.

    Branch-free (every position is written, the count advances on a hit):
    whether an element reaches a neighbouring cell is a coin flip a branch
    would mispredict.
    """
    k = 0
    for i in range(r0, r1):
        idx[k] = i
        k += overlaps(px0[i], py0[i], px1[i], py1[i], x0, y0, x1, y1)
    return k


@njit(inline="always")
def _cross_runs(a0, a1, b0, b1, ra, rb, px0, py0, px1, py1, ps, ia, ib, out, m):
    """Pairs between the near elements ``a0 .. a1 - 1`` (rectangle ``ra``) and ``b0 .. b1 - 1`` (rectangle ``rb``).

    Only the elements of each side that reach the other side's rectangle
    are kept (two branch-free passes), then every kept pair is tested:
    across a cell border only a few elements on each side come close.
    Returns ``(m, tests)``.
    """
    if b0 == b1 or not overlaps(ra[XMIN], ra[YMIN], ra[XMAX], ra[YMAX], rb[XMIN], rb[YMIN], rb[XMAX], rb[YMAX]):
        return m, 0
    ka = _reaching(a0, a1, rb[XMIN], rb[YMIN], rb[XMAX], rb[YMAX], px0, py0, px1, py1, ia)
    if ka == 0:
        return m, 0
    kb = _reaching(b0, b1, ra[XMIN], ra[YMIN], ra[XMAX], ra[YMAX], px0, py0, px1, py1, ib)
    if kb == 0:
        return m, 0
    full = m + ka * kb > out.shape[0]
    for u in range(ka):
        i = ia[u]
        x0, y0, x1, y1 = px0[i], py0[i], px1[i], py1[i]
        si = ps[i]
        for v in range(kb):
            j = ib[v]
            hit = overlaps(x0, y0, x1, y1, px0[j], py0[j], px1[j], py1[j])
            if not full:
                out[m, 0] = si
                out[m, 1] = ps[j]
                m += hit
            elif hit:  # out is full: count only (the caller runs again with room)
                if m < out.shape[0]:
                    out[m, 0] = si
                    out[m, 1] = ps[j]
                m += 1
    return m, ka * kb


@njit(inline="always")
def _near_span(lo, hi, origin, inv, n):
    """Loose cells ``c0 .. c1`` along one axis whose near elements may meet ``[lo, hi]`` (clamped; may be empty).

    Near elements of cell ``c`` lie strictly inside ``(c - 0.5, c + 1.5)``
    cell sides from the origin, so only ``(lo - origin) / size - 1.5 < c <
    (hi - origin) / size + 0.5`` matter (the bounds are widened by a
    millionth of a cell against rounding).
    """
    t0 = min(max(cells_from_origin(lo, origin, inv) - 1.500001, 0.0), n - 1.0)
    t1 = min(max(cells_from_origin(hi, origin, inv) + 0.500001, 0.0), n - 1.0)
    return int(t0), int(t1)


@njit(inline="always")
def _rect(srect, a):
    return srect[a, XMIN], srect[a, YMIN], srect[a, XMAX], srect[a, YMAX]


@njit(inline="always")
def _rect_meets(srect, a, x0, y0, x1, y1):
    """Does the near rectangle of cell ``a`` meet the box ``[x0, y0, x1, y1]``?"""
    return overlaps(srect[a, XMIN], srect[a, YMIN], srect[a, XMAX], srect[a, YMAX], x0, y0, x1, y1)


@njit
def _sort_by_partner(out, t0, t1, hw, cnt, tmp):
    """Stable counting sort of the rows ``t0 .. t1 - 1`` of ``out`` by column 1 (a slot below ``hw``).

    The giant rows ``(giant, near element)`` come out giant by giant, each
    giant's partners in cell order; sorted by the partner, every giant's
    partners arrive in increasing slot order, which spares
    :func:`~lessons_lib.core.pair_order.canonical_pairs` sorting each giant's
    long list of partners (measured at n = 100,000 on ``mixed_sizes``: 3.7
    ms of canonical order fall to about 2). ``cnt`` (hw + 1,) must be zero;
    ``tmp`` has at least ``t1 - t0`` rows.
    """
    for t in range(t0, t1):
        cnt[out[t, 1] + 1] += 1
    for s in range(hw):
        cnt[s + 1] += cnt[s]
    for t in range(t0, t1):
        j = out[t, 1]
        w = cnt[j]
        tmp[w, 0] = out[t, 0]
        tmp[w, 1] = j
        cnt[j] = w + 1
    for t in range(t1 - t0):
        out[t0 + t, 0] = tmp[t, 0]
        out[t0 + t, 1] = tmp[t, 1]


@njit
def pairs_core(layout, g0, geom, sweep, scratch, out, marks):
    """Every intersecting slot pair once, written to ``out`` while it has room; returns ``(pairs found, box tests)``.

    The rows of ``out`` are trusted only when the count returned is *below*
    its size (a full ``out`` may end with a rejected candidate): the caller
    runs again with a larger one. Nothing is written past its end.

    Input from :func:`lay_out_cells` (giants at positions ``g0 ..``). Four
    parts, each pair in exactly one:

    1. near-near inside a loose cell: every two near elements of the cell;
    2. near-near across cells: two near elements that touch lie in
       neighbouring loose cells (each reaches less than half a cell beyond
       its own), so each cell is joined with four of its eight neighbours
       (east, north-west, north, north-east): every neighbouring pair once;
    3. giant-near: each giant against the near elements of the loose cells
       it can reach (:func:`_near_span`), one contiguous run per loose row,
       its ends trimmed to the cells whose near rectangles meet the giant;
    4. giant-giant: a sweep over the giants along the axis they are sorted
       on: ``sweep = (lo, hi, other lo, other hi)`` coordinate arrays.

    ``marks`` receives the rows where parts 3 and 4 begin.
    """
    start, px0, py0, px1, py1, ps, srect = layout
    ox, oy, inv, cols, rows = geom
    sa0, sa1, sb0, sb1 = sweep
    ia, ib = scratch
    m = 0
    tests = 0
    cap = out.shape[0]
    n = px0.shape[0]
    for r in range(rows):
        for c in range(cols):
            a = r * cols + c
            a0, a1 = start[a], start[a + 1]
            if a0 == a1:
                continue
            for i in range(a0, a1):  # 1. inside the loose cell
                tests += a1 - i - 1
                m = _one_vs_run(ps[i], px0[i], py0[i], px1[i], py1[i], i + 1, a1, px0, py0, px1, py1, ps, out, m)
            # 2. with its neighbouring loose cells
            if c + 1 < cols:  # east
                m, t = _cross_runs(a0, a1, start[a + 1], start[a + 2], _rect(srect, a), _rect(srect, a + 1),
                                   px0, py0, px1, py1, ps, ia, ib, out, m)
                tests += t
            if r + 1 < rows:  # north-west, north, north-east: consecutive cells, so one contiguous run
                b0, b1 = a + cols - (c > 0), a + cols + (c + 1 < cols)
                x0, y0, x1, y1 = _rect(srect, b0)
                for b in range(b0 + 1, b1 + 1):
                    x0, y0 = min(x0, srect[b, XMIN]), min(y0, srect[b, YMIN])
                    x1, y1 = max(x1, srect[b, XMAX]), max(y1, srect[b, YMAX])
                m, t = _cross_runs(a0, a1, start[b0], start[b1 + 1], _rect(srect, a), (x0, y0, x1, y1),
                                   px0, py0, px1, py1, ps, ia, ib, out, m)
                tests += t
    marks[0] = m
    for g in range(g0, n):  # 3. giants against the near elements they reach, one contiguous run per loose row
        x0, y0, x1, y1 = px0[g], py0[g], px1[g], py1[g]
        c0, c1 = _near_span(x0, x1, ox, inv, cols)
        r0, r1 = _near_span(y0, y1, oy, inv, rows)
        for r in range(r0, r1 + 1):
            a0, a1 = r * cols + c0, r * cols + c1
            # trim the row's end cells whose near rectangles miss the giant
            while a0 <= a1 and not _rect_meets(srect, a0, x0, y0, x1, y1):
                a0 += 1
            while a1 > a0 and not _rect_meets(srect, a1, x0, y0, x1, y1):
                a1 -= 1
            if a0 > a1:
                continue
            tests += start[a1 + 1] - start[a0]
            m = _one_vs_run(ps[g], x0, y0, x1, y1, start[a0], start[a1 + 1], px0, py0, px1, py1, ps, out, m)
    marks[1] = m
    for i in range(g0, n):  # 4. giants against each other: a sweep, they are sorted by sa0
        a1, b0, b1 = sa1[i], sb0[i], sb1[i]
        si = ps[i]
        for j in range(i + 1, n):
            if sa0[j] > a1:
                break
            tests += 1
            hit = (sb0[j] <= b1) & (b0 <= sb1[j])
            if m < cap:  # branch-free while out has room: write, keep on a hit
                out[m, 0] = si
                out[m, 1] = ps[j]
            m += hit
    return m, tests


# ==========================================================================
# The class
# ==========================================================================
@register("loose_tight_grid")
class LooseTightGrid(FixedGrid):
    """The loose/tight double grid: constant-time insert and remove, queries through a coarse grid.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grids cover (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box). Elements
        outside it go to the border cells: still found, only slower.
    cell_size : float, optional
        Side of a loose cell, world units (> 0). Default: the world's longer
        side / 64; ``from_boxes`` uses
        :func:`~lessons_lib.structures.uniform_grid.suggest_cell_size` of the boxes with
        ``factor=LOOSE_CELL_FACTOR`` (four times their typical size).
    tight_factor : int
        Loose cells per tight cell along each axis (1 .. 64). Default 2.
    max_cells : int
        Refuse (``ValueError``) loose grids with more cells than this.
    max_box_cells : int
        The budget of tight cells per box (>= 1, default 65,536, as the other
        grids): a box whose loose cell would have to reach more tight cells
        (:func:`square_cells`) is kept on the *oversize list* instead
        (:meth:`oversize`), so no loose cell is listed in more than
        ``max_box_cells`` tight cells, whatever the cell size.

    Attributes
    ----------
    rows, cols : int
        The loose grid's shape; ``trows, tcols`` the tight grid's.
    last_query_cells, last_query_tests : int
        Loose cells visited and elements tested by the last ``query()``.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()``.
    last_changed_cells : int
        Elements that changed loose cell in the last ``update_many``.

    Raises
    ------
    ValueError
        A bad world, cell size (also below about 5.6e-309), ``tight_factor``,
        ``max_cells`` or ``max_box_cells``.

    Notes
    -----
    Coordinates: any finite float; far elements clamp into the border cells,
    and loose rectangles are float32 rounded outwards, so beyond the float32
    range (3.4e38) they reach to infinity (still exact answers, slower).

    Insert O(1) (plus a re-registration when a rectangle reaches a new tight
    cell); remove O(elements of the loose cell); query O(tight cells covered
    + loose cells listed there + their elements + oversize boxes); pairs
    O(loose cells + tests), plus an O(n) layout when the elements changed
    since the last one; each oversize box is paired like a giant, O(loose
    cells it reaches + their near elements). Memory: 60 bytes per loose cell,
    4 per tight cell, 8 per tight list node (at most ``max_box_cells`` nodes
    per loose cell), 40 per element slot (4 of index, 36 of pairs layout),
    plus the shared element table (41 bytes per slot). The double grid is
    the one of the quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import LooseTightGrid
    >>> g = LooseTightGrid(world=[0, 0, 80, 60], cell_size=10, tight_factor=2)
    >>> g.insert(0, [12, 12, 16, 15]); g.insert(1, [45, 20, 75, 28]); g.insert(2, [15, 14, 19, 18])
    >>> g.pairs().tolist(), g.query([60, 25, 61, 26]).tolist()
    ([[0, 2]], [1])
    >>> g.listed_in(3, 1)  # element 1's loose cell (22) reaches into the tight cell (3, 1)
    [22]
    """

    def __init__(self, *, world=None, cell_size=None, tight_factor: int = DEFAULT_TIGHT_FACTOR,
                 max_cells: int = DEFAULT_MAX_CELLS, max_box_cells: int = DEFAULT_MAX_BOX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.tight_factor = check_int("tight_factor", tight_factor, 1, 64)
        self.max_box_cells = check_int("max_box_cells", max_box_cells, 1)
        self.tcols = math.ceil(self.cols / self.tight_factor)
        self.trows = math.ceil(self.rows / self.tight_factor)
        ox, oy, inv = self.geom[:3]
        #: The tight grid's ``(ox, oy, inv, tcols, trows)``: same origin, cells ``tight_factor`` times wider.
        self.tgeom = (ox, oy, inv / self.tight_factor, self.tcols, self.trows)
        L = self.rows * self.cols
        self.lhead = np.full(L, -1, dtype=np.int32)
        self.lcount = np.zeros(L, dtype=np.int32)
        self.lrect = np.tile(EMPTY_RECT, (L, 1))
        self.lreg = np.full((L, 4), -1, dtype=np.int32)
        self.enext = np.full(16, -1, dtype=np.int32)
        self.thead, self.tnxt, self.tcell, self.tstate = new_lists(self.trows * self.tcols, max(16, L // 2))
        #: The oversize list ``[first slot (-1: empty), length]``, linked through ``enext`` like a loose cell.
        self.olist = np.array([-1, 0], dtype=np.int32)
        #: Can any box exceed the budget? Not when the whole tight grid is within it (then nothing is checked).
        self._budgeted = self.trows * self.tcols > self.max_box_cells
        self._query_hint = 64  # room a query's output starts with (made per call: threads never share it)
        self._layout_lock = RebuildLock()  # the lazy layout of pairs() runs once, whatever the threads reading
        # The layout pairs() reads (see lay_out): near elements in cell order, then the giants.
        self.start = np.zeros(L + 1, dtype=np.int32)
        self.srect = np.tile(EMPTY_RECT, (L, 1))
        self.px0, self.py0, self.px1, self.py1 = (np.empty(0, dtype=np.float64) for _ in range(4))
        self.ps = np.empty(0, dtype=np.int32)
        self.g0 = 0
        self._sweep_y = False  # the giants are sorted by y0 (else x0) for their sweep
        self._laid_out = False
        self._pair_hint = 1024
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_changed_cells = 0

    @classmethod
    def suggested_cell_size(cls, boxes, params) -> float:
        """Loose cells four times the typical box size (:data:`LOOSE_CELL_FACTOR`).

        Why larger cells than a uniform grid's (2x): an element sits in one
        loose cell whatever its size, so large cells cost no duplicates, and
        the more elements stay within half a cell of their own (near
        elements, see :func:`pairs_core`), the fewer giants. Measured at
        n = 100,000 with the present pair search: on ``mixed_sizes`` its
        kernel takes about the same time for cells 3 to 5 times the typical
        size; on ``random`` 3 times is about 15 % faster than 4 (not needed
        for the lesson's goals; 4 keeps the loose grid small).
        """
        w = params["world"]
        return cell_size_for(len(boxes), w, typical_box_size(boxes, w), factor=LOOSE_CELL_FACTOR,
                             max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))

    @property
    def tight_cell_size(self) -> float:
        """Side of a tight cell, world units."""
        return self.cell_size * self.tight_factor

    @property
    def loose(self):
        """``(lhead, lcount, lrect, lreg, enext)``, as the kernels take them."""
        return self.lhead, self.lcount, self.lrect, self.lreg, self.enext

    @property
    def tight(self):
        """``(thead, tnxt, tcell, tstate)``, as the kernels take them."""
        return self.thead, self.tnxt, self.tcell, self.tstate

    @property
    def layout(self):
        """``(start, px0, py0, px1, py1, ps, srect)``: the pairs layout, as the kernels take it."""
        return self.start, self.px0, self.py0, self.px1, self.py1, self.ps, self.srect

    # -- the oversize list (see max_box_cells) ------------------------------
    def _oversize_flags(self, boxes, rows):
        """Which boxes ``boxes[rows]`` are over the budget: ``(k,)`` bool, or ``None`` when none is."""
        if not self._budgeted:
            return None
        flags = np.zeros(len(rows), dtype=np.bool_)
        n = over_budget(self.geom, self.tgeom, self.tight_factor, self.max_box_cells, boxes,
                        np.asarray(rows, dtype=np.int64), flags)
        return flags if n else None

    def _push_oversize(self, slots):
        """Put ``slots`` on the oversize list, the last one first (the list then runs in their order)."""
        for s in np.asarray(slots).tolist()[::-1]:
            self.enext[s] = self.olist[0]
            self.olist[0] = s
            self.olist[1] += 1

    def _unlink_oversize(self, slots):
        for s in np.asarray(slots).tolist():
            if unlink_slot(self.olist, 0, self.enext, s) != 1:  # pragma: no cover
                raise RuntimeError(f"slot {s} was not found on the oversize list")
            self.olist[1] -= 1

    def oversize(self) -> np.ndarray:
        """Ids on the oversize list (boxes over the ``max_box_cells`` budget), sorted: ``(k,)`` int64."""
        out, s = [], int(self.olist[0])
        while s != -1:
            out.append(s)
            s = int(self.enext[s])
        return np.sort(self.elements.ids[np.array(out, dtype=np.int64)])

    # -- hooks: each calls one step ---------------------------------------
    def _insert(self, slot, box):
        self.enext = grown_slots(self.enext, self.elements.capacity)
        self._laid_out = False
        one = np.array([slot], dtype=np.int64)
        if self._oversize_flags(self.elements.boxes, one) is not None:
            self._push_oversize(one)
            return
        self.tnxt, self.tcell = insert_slots(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes, one)

    def _build(self, slots):
        """Bulk load: the lists in one pass, then a cleanup (exact rectangles, registrations, layout)."""
        if len(slots) == 0:
            return
        self.enext = grown_slots(self.enext, self.elements.capacity)
        big = self._oversize_flags(self.elements.boxes, slots)
        if big is not None:
            self._push_oversize(slots[big])
            slots = slots[~big]
        build_cells(self.loose, self.geom, self.elements.boxes, slots)
        self._cleanup()

    def _remove(self, slot, box):
        self._laid_out = False
        if self._oversize_flags(box.reshape(1, 4), np.zeros(1, dtype=np.int64)) is not None:
            self._unlink_oversize([slot])
            return
        if remove_slots(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes,
                        np.array([slot], dtype=np.int64), box.reshape(1, 4)) != 1:  # pragma: no cover
            raise RuntimeError(f"slot {slot} was not found in its loose cell")

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        """Bulk move: one kernel over all slots; only elements that change loose cell are relinked.

        Elements whose box crosses the budget move between the cells and the
        oversize list: those going on the list first leave their loose cells
        (with their old boxes back in the table meanwhile, so that the refit of
        their cell never sees the new, oversize box), those leaving it are
        inserted in their cells last.
        """
        self._laid_out = False
        rows = np.arange(len(slots), dtype=np.int64) if self._budgeted else None
        now = None if rows is None else self._oversize_flags(new, rows)
        if now is None and self.olist[1] == 0:  # every box stays in cells: the per-frame path
            self.tnxt, self.tcell, self.last_changed_cells = move_slots(
                self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes, slots, old)
            return
        was = self._oversize_flags(old, rows)
        now = np.zeros(len(slots), dtype=np.bool_) if now is None else now
        was = np.zeros(len(slots), dtype=np.bool_) if was is None else was
        into, out, stay = ~was & now, was & ~now, ~was & ~now
        boxes = self.elements.boxes
        kept = boxes[slots[into]].copy()
        boxes[slots[into]] = old[into]
        try:
            self.last_changed_cells = 0
            if stay.any():
                self.tnxt, self.tcell, self.last_changed_cells = move_slots(
                    self.loose, self.tight, self.geom, self.tgeom, boxes, slots[stay], old[stay])
            if into.any():
                remove_slots(self.loose, self.tight, self.geom, self.tgeom, boxes, slots[into], old[into])
        finally:
            boxes[slots[into]] = kept
        self._push_oversize(slots[into])
        if out.any():
            self._unlink_oversize(slots[out])
            self.tnxt, self.tcell = insert_slots(self.loose, self.tight, self.geom, self.tgeom, boxes, slots[out])

    def _query(self, box):
        out = np.empty(self._query_hint, dtype=np.int64)  # per call: queries in several threads never share it
        while True:
            m, self.last_query_cells, self.last_query_tests = query_core(
                self.loose, self.tight, self.tgeom, self.elements.boxes, box, out)
            if self.olist[0] != -1:  # the oversize list, box by box
                m, tested = scan_slot_list(self.olist[0], self.enext, self.elements.boxes, box[XMIN], box[YMIN],
                                           box[XMAX], box[YMAX], out, m)
                self.last_query_tests += tested
            if m <= len(out):
                return out[:m].copy()
            self._query_hint = 2 * m
            out = np.empty(2 * m, dtype=np.int64)

    def lay_out(self) -> None:
        """Copy the near elements in cell order and the giants sorted for their sweep: the layout ``pairs`` reads.

        Kept between calls (counted in :meth:`memory_bytes`) and redone by
        the bulk load, ``cleanup`` and the first ``pairs`` after any change.
        """
        self._fit_layout()
        g = lay_out_cells(self.lhead, self.enext, self.elements.boxes, self.geom, self.cell_size, self.layout)
        self._sort_giants(int(_lay_out_list(self.olist[0], self.enext, self.elements.boxes, self.layout, g)))

    def _fit_layout(self):
        """Size the layout arrays to the element table's capacity."""
        n = len(self.enext)
        if len(self.px0) != n:
            self.px0, self.py0, self.px1, self.py1 = (np.empty(n, dtype=np.float64) for _ in range(4))
            self.ps = np.empty(n, dtype=np.int32)

    def _sort_giants(self, g):
        """The last ``g`` layout rows are the giants: sort them along the axis where they spread most."""
        n = len(self.px0)
        self.g0 = n - g
        self._sweep_y = False
        if g > 1:  # the giants' sweep wants them sorted along the axis where they are most spread out
            gx0, gy0 = self.px0[n - g:], self.py0[n - g:]
            spread_x = np.ptp(gx0) / max(float(np.mean(0.5 * self.px1[n - g:] - 0.5 * gx0)), 1e-300)
            spread_y = np.ptp(gy0) / max(float(np.mean(0.5 * self.py1[n - g:] - 0.5 * gy0)), 1e-300)
            self._sweep_y = bool(spread_y > spread_x)
            order = np.argsort(gy0 if self._sweep_y else gx0, kind="stable") + (n - g)
            for a in (self.px0, self.py0, self.px1, self.py1, self.ps):
                a[n - g:] = a[order]
        self._laid_out = True

    def _pairs(self):
        """Pairs from the cell-ordered layout of :meth:`lay_out` (redone first if the elements changed).

        Returns int32 slot pairs (half the bytes of int64 to write;
        :func:`~lessons_lib.core.pair_order.canonical_pairs` takes them as they
        are), the giants' rows sorted by partner (:func:`_sort_by_partner`).
        Scratch arrays are made per call (not in ``memory_bytes``).
        """
        if not self._laid_out:  # once, under a lock: several threads may find it stale at once
            with self._layout_lock:
                if not self._laid_out:
                    self.lay_out()
        big = max(1, int(self.lcount.max()))
        scratch = (np.empty(big, dtype=np.int64), np.empty(3 * big, dtype=np.int64))
        sweep = ((self.py0, self.py1, self.px0, self.px1) if self._sweep_y
                 else (self.px0, self.px1, self.py0, self.py1))
        marks = np.zeros(2, dtype=np.int64)
        out = np.empty((self._pair_hint, 2), dtype=np.int32)
        m, tests = pairs_core(self.layout, self.g0, self.geom, sweep, scratch, out, marks)
        if m >= len(out):  # full (rows trusted only below its size): run again with room
            out = np.empty((m + 1, 2), dtype=np.int32)
            m, tests = pairs_core(self.layout, self.g0, self.geom, sweep, scratch, out, marks)
        t0, t1 = int(marks[0]), int(marks[1])  # the rows of giants against near elements
        if t1 - t0 > 1:
            hw = self.elements.high_water
            _sort_by_partner(out, t0, t1, hw, np.zeros(hw + 1, dtype=np.int32), np.empty((t1 - t0, 2), dtype=np.int32))
        self.last_pair_tests = int(tests)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    def _cleanup(self):
        """One kernel (:func:`settle_cells`): exact rectangles, registrations and the pairs layout."""
        self._fit_layout()
        g, self.tnxt, self.tcell = settle_cells(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes,
                                                self.cell_size, self.layout)
        self._sort_giants(int(_lay_out_list(self.olist[0], self.enext, self.elements.boxes, self.layout, g)))

    def _clear(self):
        self.lhead.fill(-1)
        self.lcount.fill(0)
        self.lrect[:] = EMPTY_RECT
        self.lreg.fill(-1)
        self.enext.fill(-1)
        self.thead.fill(-1)
        self.tstate[USED], self.tstate[FREE] = 0, -1
        self.olist[0], self.olist[1] = -1, 0
        self._laid_out = False

    # -- memory, drawing, inspection -----------------------------------
    def _nbytes(self):
        return sum(a.nbytes for a in self.loose + self.tight + self.layout) + self.olist.nbytes

    def loose_cells(self) -> dict[str, np.ndarray]:
        """The non-empty loose cells: ``index``, ``count``, ``cell`` (their grid square) and ``bounds`` (float64)."""
        idx = np.flatnonzero(self.lcount > 0)
        return {"index": idx.astype(np.int64), "count": self.lcount[idx].astype(np.int64),
                "cell": self._cell_rects(idx // self.cols, idx % self.cols),
                "bounds": self.lrect[idx].astype(np.float64)}

    def tight_cells(self) -> dict[str, np.ndarray]:
        """Every tight cell: ``rect`` (T, 4) world units and ``lists`` (T,): loose cells listed in it."""
        t = np.arange(self.trows * self.tcols)
        return {"rect": self._cell_rects(t // self.tcols, t % self.tcols, self.tight_factor),
                "lists": cell_counts(self.thead, self.tnxt, len(self.thead))}

    def regions(self):
        """The rectangles of the non-empty loose cells (depth 0); the world when empty."""
        b = self.loose_cells()["bounds"]
        if len(b) == 0:
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        big = np.finfo(np.float64).max
        return np.nan_to_num(b, posinf=big, neginf=-big), np.zeros(len(b), dtype=np.int64)

    def listed_in(self, tc: int, tr: int) -> list[int]:
        """Loose cells listed in tight cell ``(tc, tr)``, front first."""
        out, node = [], int(self.thead[tr * self.tcols + tc])
        while node != -1:
            out.append(int(self.tcell[node]))
            node = int(self.tnxt[node])
        return out

    def check_invariants(self, *, exact: bool = False) -> None:
        """Raise ``AssertionError`` unless the arrays agree with the stored boxes.

        Checks: every live slot is on exactly one list, the oversize list when
        its box is over the ``max_box_cells`` budget and the loose cell of its
        centre otherwise; the counts match the lists; each loose rectangle
        covers its elements' boxes (an empty one is inverted); each non-empty
        loose cell is registered in its rectangle's tight range and in no more
        than ``max_box_cells`` tight cells; each tight cell lists exactly the
        loose cells registered in it, once; the tight pool accounts for every
        node handed out; when the pairs layout is current, it holds each live
        slot once with its present box (near ones in their cell's run, inside
        their cell's near rectangle; the giants and the oversize list after
        them, sorted for the sweep). With ``exact=True`` (after a cleanup or a
        bulk load) each rectangle *equals* the union of its elements' boxes
        rounded outwards ("stale growth" otherwise) and each registration its
        rectangle's tight range. O(cells + elements + tight list nodes), in
        plain Python: for tests.
        """
        boxes = self.elements.boxes
        live = set(self.elements.live_slots().tolist())
        seen: set[int] = set()

        def walk(s):
            out = []
            while s != -1:
                assert s in live and s not in seen, f"slot {s} is dead or on two lists"
                seen.add(s)
                out.append(s)
                s = int(self.enext[s])
            return out

        big = walk(int(self.olist[0]))
        assert len(big) == int(self.olist[1]), \
            f"the oversize list holds {len(big)} slots, its count says {self.olist[1]}"
        flags = self._oversize_flags(boxes, np.array(big, dtype=np.int64))
        assert not big or (flags is not None and flags.all()), "a box within the budget is on the oversize list"
        for c in np.flatnonzero((self.lhead != -1) | (self.lcount != 0) | (self.lreg[:, TC0] != -1)).tolist():
            elems = walk(int(self.lhead[c]))
            assert len(elems) == int(self.lcount[c]), f"loose cell {c}: count {self.lcount[c]}, list {len(elems)}"
            assert all(int(cell_of_centre(self.geom, boxes, s)) == c for s in elems), \
                f"loose cell {c} holds an element whose centre lies elsewhere"
            assert self._oversize_flags(boxes, np.array(elems, dtype=np.int64)) is None, \
                f"loose cell {c} holds a box over the budget"
            r = self.lrect[c].astype(np.float64)
            if not elems:
                assert r[XMIN] > r[XMAX] and self.lreg[c].tolist() == [-1, -1, -1, -1], f"empty loose cell {c} is listed"
                continue
            b = boxes[elems]
            assert (r[:2] <= b[:, :2]).all() and (r[2:] >= b[:, 2:]).all(), f"loose cell {c}'s rectangle misses a box"
            if exact:
                u = [f32_down(np.float64(b[:, XMIN].min())), f32_down(np.float64(b[:, YMIN].min())),
                     f32_up(np.float64(b[:, XMAX].max())), f32_up(np.float64(b[:, YMAX].max()))]
                assert r.tolist() == [float(v) for v in u], \
                    f"loose cell {c}: rectangle {r.tolist()} is not exactly its elements' union (stale growth)"
            g0, g1, g2, g3 = self.lreg[c].tolist()
            a0, a1, a2, a3 = (int(v) for v in _tight_range(self.lrect, self.tgeom, c))
            assert g0 <= a0 and g1 <= a1 and a2 <= g2 and a3 <= g3, f"loose cell {c} misses part of its tight range"
            assert not exact or [g0, g1, g2, g3] == [a0, a1, a2, a3], \
                f"loose cell {c}: registration {[g0, g1, g2, g3]} is not its tight range {[a0, a1, a2, a3]}"
            assert not self._budgeted or (g2 - g0 + 1) * (g3 - g1 + 1) <= self.max_box_cells, \
                f"loose cell {c} is registered in more than max_box_cells={self.max_box_cells} tight cells"
        assert seen == live, "a live slot is on no list"
        listed = 0
        for t in np.flatnonzero(self.thead != -1).tolist():
            tr, tc = divmod(t, self.tcols)
            cells = self.listed_in(tc, tr)
            listed += len(cells)
            assert len(set(cells)) == len(cells), f"tight cell ({tc}, {tr}) lists a loose cell twice"
            for c in cells:
                g0, g1, g2, g3 = self.lreg[c].tolist()
                assert g0 <= tc <= g2 and g1 <= tr <= g3, f"tight cell ({tc}, {tr}) lists loose cell {c} out of range"
        reg = self.lreg[self.lreg[:, TC0] >= 0].astype(np.int64)
        assert listed == int(((reg[:, TC1] - reg[:, TC0] + 1) * (reg[:, TR1] - reg[:, TR0] + 1)).sum()), \
            "a loose cell is missing from a tight cell of its registration"
        free, node = 0, int(self.tstate[FREE])
        while node != -1:
            free += 1
            node = int(self.tnxt[node])
            assert free <= len(self.tnxt), "cycle in the tight pool's free list"
        assert listed + free == int(self.tstate[USED]) <= len(self.tnxt), "tight list nodes leaked"
        if self._laid_out:
            self._check_layout(live, set(big))

    def _check_layout(self, live: set, big: set) -> None:
        """The pairs layout of :meth:`lay_out` against the stored boxes (see :meth:`check_invariants`)."""
        L, n, g0 = self.rows * self.cols, len(self.px0), self.g0
        start = self.start.astype(np.int64)
        assert start[0] == 0 and (np.diff(start) >= 0).all() and start[L] <= g0 <= n, "bad run offsets"
        near, giants = self.ps[:start[L]].tolist(), self.ps[g0:].tolist()
        assert sorted(near + giants) == sorted(live), "the pairs layout does not hold each live slot once"
        assert (np.diff((self.py0 if self._sweep_y else self.px0)[g0:]) >= 0).all(), "giants are not sorted"
        copied = np.column_stack([self.px0, self.py0, self.px1, self.py1])
        slots = self.ps.astype(np.int64)
        for lo, hi in ((0, start[L]), (g0, n)):
            assert np.array_equal(copied[lo:hi], self.elements.boxes[slots[lo:hi]]), "stale boxes in the pairs layout"
        ox, oy, inv, cols, rows = self.geom
        runs = np.diff(start)
        assert (self.srect[runs == 0, XMIN] > self.srect[runs == 0, XMAX]).all(), \
            "a cell without near elements has a near rectangle"
        for c in np.flatnonzero(runs).tolist():
            r = self.srect[c].astype(np.float64)
            for k in range(start[c], start[c + 1]):
                b = copied[k]
                assert int(cell_of_centre(self.geom, copied, k)) == c, f"slot {slots[k]} is in the wrong run"
                assert is_near(*b, c, cols, ox, oy, self.cell_size), f"slot {slots[k]} is stored as near but is not"
                assert (r[:2] <= b[:2]).all() and (b[2:] <= r[2:]).all(), \
                    f"near rectangle of cell {c} misses slot {slots[k]}"
        for k in range(g0, n):
            if int(slots[k]) not in big:
                c = int(cell_of_centre(self.geom, copied, k))
                assert not is_near(*copied[k], c, cols, ox, oy, self.cell_size), \
                    f"slot {slots[k]} is stored as a giant but is near"

    def __repr__(self):
        return (f"LooseTightGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"loose={self.rows}x{self.cols}, tight={self.trows}x{self.tcols})")

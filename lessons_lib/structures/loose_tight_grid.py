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
                                    (:func:`~lessons_lib.structures.loose_quadtree.f32_down`);
                                    ``[inf, inf, -inf, -inf]`` when empty
``lreg``         (L, 4) int32       the tight range ``(tc0, tr0, tc1, tr1)`` the loose
                                    cell is registered in (``-1`` row: nowhere)
``enext``        (slots,) int32     next slot of the same loose cell (-1 ends it)
``thead``        (T,) int32         first node of each tight cell's list (-1: empty)
``tnxt, tcell``  (p,) int32         the tight lists' node pool of
                                    :mod:`lessons_lib.structures.grid_cells` (``elem`` = a
                                    loose cell index), with ``tstate`` =
                                    ``[nodes handed out, free head]``
element table    (slots)            ``BroadPhase.elements``: id and float64 box
*pairs layout*                      (:meth:`LooseTightGrid._split`, kept between calls)
``px0 .. py1``   (slots,) float64   the boxes copied cell after cell (structure of
                                    arrays): *near* elements first, giants at the end
``ps``           (slots,) int32     the slot of each copied box
``start``        (L + 1,) int32     cell ``c``'s near elements are
                                    ``start[c] .. start[c + 1] - 1``; giants from ``g0``
``srect``        (L, 4) float32     each cell's AABB of its near elements only
===============  =================  ================================================

A loose cell costs 4 + 4 + 16 + 16 = 40 bytes for the index plus 4 + 16 for
the pairs layout, and a tight cell 4; an element costs 4 bytes (``enext``)
in the index, wherever it is and whatever its size, plus 36 bytes in the pairs
layout (its coordinates copied in cell order, so that ``pairs`` streams
contiguous memory instead of chasing list links). Loose and
tight grids share the world's origin; a tight cell is ``tight_factor`` loose
cells wide. Every cell map is the clamped floor of
:func:`lessons_lib.structures.grid_cells.cell_of`, monotone, so a far-away element lands
in a border cell and is still found.

Why every answer is exact and reported once
-------------------------------------------
If a query box meets an element, it meets that element's loose-cell
rectangle (which contains the element's box). Both lie in the tight grid's
cell ranges, which overlap (monotone map), so some tight cell lists that loose
cell and the query visits it. A loose cell registered in several tight cells
is handled only in its *reference* tight cell: the one at
``(max(tc0, query tc0), max(tr0, query tr0))``, which lies in both ranges
(the technique of :mod:`lessons_lib.structures.grid_cells`). Each element lies in one
loose cell, so it is tested once.

``pairs`` does not need the tight grid: it splits the elements by reach (the
uniform-size trick of :mod:`lessons_lib.structures.point_grid`, with the loose cell as
the bound). An element is **near** when its box stays within half a cell of
its own loose cell (strictly), otherwise it is a **giant** (a few, in a
scene of common-size agents). Two near elements that touch lie in the same
or in neighbouring loose cells (each reaches less than half a cell out, so
cells two apart never meet), so near pairs come from each cell with itself
and with four of its eight neighbours (east; north-west, north and
north-east, which are consecutive in memory: one run), each unordered pair
of cells once. Each giant is tested against the near elements of the loose
cells it can reach (one contiguous run per loose row), and the giants
against each other by a sweep along the axis they spread most on. The
near/giant split of each element is decided once, so every pair is found by
exactly one of these parts.

Operations
----------
* insert: push the slot on the loose cell of its centre, grow that cell's
  rectangle; if the rectangle now reaches tight cells it was not registered
  in, re-register it (this is rare once the population has settled).
* remove: unlink the slot and **refit** its loose cell's rectangle from the
  few elements left (an empty cell leaves the tight grid).
* update / ``update_many``: a move inside the same loose cell only grows the
  rectangle; a move to another loose cell is a remove (with refit) and an
  insert.
* cleanup: refit every loose cell exactly and re-register those whose tight
  range changed. Afterwards each rectangle is exactly the outward-rounded
  union of its elements. Cleanup (and the bulk load) also lay the elements
  out again for ``pairs``; any other change marks that layout stale and the
  next ``pairs`` lays it out first.

Memory is stable once the population is known: the grids are fixed, an
element is one int32 in the index plus its place in the pairs layout (both
sized by the element table's capacity), and only the tight lists' pool grows
when a loose cell reaches into a new tight cell.

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

from ..base import register, world_for
from ..geometry import as_boxes
from .grid_cells import cell_counts, cell_of, cell_of_centre, grow_pool, new_pool, pool_push, pool_unlink
from ..core.jit import njit
from ..core.params import check_int
from .loose_bounds import EMPTY_RECT, f32_down, f32_up, grow_rect, set_empty
from .slot_lists import grown_slots, scan_slot_list, unlink_slot
from .uniform_grid import DEFAULT_MAX_CELLS, FixedGrid, suggest_cell_size

__all__ = ["LooseTightGrid", "DEFAULT_TIGHT_FACTOR", "LOOSE_CELL_FACTOR"]

#: Loose cells per tight cell along each axis, by default.
DEFAULT_TIGHT_FACTOR = 2
#: ``from_boxes`` makes loose cells this many times the typical box size (see :meth:`LooseTightGrid.from_boxes`).
LOOSE_CELL_FACTOR = 4.0


# ==========================================================================
# Small helpers over one loose cell
# ==========================================================================
@njit
def _inside(lrect, c, boxes, s):
    """Does loose cell ``c``'s rectangle already cover ``boxes[s]``?"""
    return (lrect[c, 0] <= boxes[s, 0] and lrect[c, 1] <= boxes[s, 1]
            and boxes[s, 2] <= lrect[c, 2] and boxes[s, 3] <= lrect[c, 3])


@njit
def _refit(lhead, enext, lrect, boxes, c):
    """Recompute loose cell ``c``'s rectangle from its elements (empty: inverted)."""
    set_empty(lrect, c)
    s = lhead[c]
    while s != -1:
        grow_rect(lrect, c, boxes, s)
        s = enext[s]


@njit
def _tight_range(x0, y0, x1, y1, ox, oy, tinv, tcols, trows):
    """Tight cell range ``(tc0, tr0, tc1, tr1)`` of a rectangle."""
    return (cell_of(x0, ox, tinv, tcols), cell_of(y0, oy, tinv, trows),
            cell_of(x1, ox, tinv, tcols), cell_of(y1, oy, tinv, trows))


@njit
def _register(lrect, lreg, thead, tnxt, tcell, tstate, c, ox, oy, tinv, tcols, trows):
    """Make loose cell ``c``'s registration match its rectangle's tight range (unlink old, push new).

    An empty cell is registered nowhere. The pool must have room for the new
    range (checked by the caller); unlinking first returns nodes to the pool.
    """
    if lrect[c, 0] > lrect[c, 2]:
        a0, a1, a2, a3 = -1, -1, -1, -1
    else:
        a0, a1, a2, a3 = _tight_range(lrect[c, 0], lrect[c, 1], lrect[c, 2], lrect[c, 3], ox, oy, tinv, tcols, trows)
    if a0 == lreg[c, 0] and a1 == lreg[c, 1] and a2 == lreg[c, 2] and a3 == lreg[c, 3]:
        return
    if lreg[c, 0] != -1:
        for tr in range(lreg[c, 1], lreg[c, 3] + 1):
            for tc in range(lreg[c, 0], lreg[c, 2] + 1):
                pool_unlink(thead, tr * tcols + tc, tnxt, tcell, tstate, c)
    lreg[c, 0], lreg[c, 1], lreg[c, 2], lreg[c, 3] = a0, a1, a2, a3
    if a0 != -1:
        for tr in range(a1, a3 + 1):
            for tc in range(a0, a2 + 1):
                pool_push(thead, tr * tcols + tc, tnxt, tcell, tstate, c)


@njit
def _grown_need(lrect, lreg, c, boxes, s, ox, oy, tinv, tcols, trows):
    """Pool nodes a registration of ``c`` grown by ``boxes[s]`` would take (0 when it would not change)."""
    x0, y0 = min(lrect[c, 0], f32_down(boxes[s, 0])), min(lrect[c, 1], f32_down(boxes[s, 1]))
    x1, y1 = max(lrect[c, 2], f32_up(boxes[s, 2])), max(lrect[c, 3], f32_up(boxes[s, 3]))
    a0, a1, a2, a3 = _tight_range(x0, y0, x1, y1, ox, oy, tinv, tcols, trows)
    if a0 == lreg[c, 0] and a1 == lreg[c, 1] and a2 == lreg[c, 2] and a3 == lreg[c, 3]:
        return 0
    return (a2 - a0 + 1) * (a3 - a1 + 1)


# ==========================================================================
# Insert, remove, move: one kernel each over many slots
# ==========================================================================
@njit
def _unlink_slot(lhead, lcount, enext, c, s):
    """Take slot ``s`` out of loose cell ``c``'s list; returns 1 if found."""
    found = unlink_slot(lhead, c, enext, s)
    lcount[c] -= found
    return found


@njit
def _insert_run(lhead, lcount, lrect, lreg, enext, thead, tnxt, tcell, tstate, boxes, slots, start,
                ox, oy, inv, cols, rows, tinv, tcols, trows):
    """Insert ``slots[start:]``; returns where it stopped.

    Stops, before touching slot ``k``, when the tight lists' pool lacks fresh
    nodes for the registration slot ``k`` would need (the caller grows the
    pool and calls again from ``k``). No array is allocated here.
    """
    for k in range(start, slots.shape[0]):
        s = slots[k]
        c = cell_of_centre(boxes, s, ox, oy, inv, cols, rows)
        if _grown_need(lrect, lreg, c, boxes, s, ox, oy, tinv, tcols, trows) > tnxt.shape[0] - tstate[0]:
            return k
        enext[s] = lhead[c]
        lhead[c] = s
        lcount[c] += 1
        grow_rect(lrect, c, boxes, s)
        _register(lrect, lreg, thead, tnxt, tcell, tstate, c, ox, oy, tinv, tcols, trows)
    return slots.shape[0]


@njit
def _remove_run(lhead, lcount, lrect, lreg, enext, thead, tnxt, tcell, tstate, boxes, slots, old,
                ox, oy, inv, cols, rows, tinv, tcols, trows):
    """Unlink each ``slots[k]`` (whose box is ``old[k]``) and refit its loose cell; returns the number found.

    A refit only shrinks a rectangle, so re-registering needs no fresh pool nodes.
    """
    found = 0
    for k in range(slots.shape[0]):
        c = cell_of_centre(old, k, ox, oy, inv, cols, rows)
        found += _unlink_slot(lhead, lcount, enext, c, slots[k])
        _refit(lhead, enext, lrect, boxes, c)
        _register(lrect, lreg, thead, tnxt, tcell, tstate, c, ox, oy, tinv, tcols, trows)
    return found


@njit
def _move_run(lhead, lcount, lrect, lreg, enext, thead, tnxt, tcell, tstate, boxes, slots, old, start,
              ox, oy, inv, cols, rows, tinv, tcols, trows):
    """Move ``slots[start:]`` from ``old`` boxes to ``boxes[slots]`` (written); returns ``(stop, changed cell)``.

    Same loose cell: grow its rectangle (stale growth waits for cleanup).
    Another loose cell: unlink, refit the old cell, push on the new one.
    Stops like :func:`_insert_run` when the pool lacks fresh nodes. The
    refit of the old cell reads the element table, which already holds the
    *new* boxes of elements later in ``slots``, so it may grow instead of
    shrink: a reserve of one whole tight grid (``tcols * trows`` nodes) is
    kept for it.
    """
    changed = 0
    reserve = tcols * trows
    for k in range(start, slots.shape[0]):
        s = slots[k]
        c_new = cell_of_centre(boxes, s, ox, oy, inv, cols, rows)
        c_old = cell_of_centre(old, k, ox, oy, inv, cols, rows)
        if c_old == c_new and _inside(lrect, c_new, boxes, s):
            continue  # the common case of a small step: nothing to do
        need = _grown_need(lrect, lreg, c_new, boxes, s, ox, oy, tinv, tcols, trows)
        if need + reserve > tnxt.shape[0] - tstate[0]:  # the reserve also covers the old cell's refit
            return k, changed
        if c_old != c_new:
            changed += 1
            _unlink_slot(lhead, lcount, enext, c_old, s)
            _refit(lhead, enext, lrect, boxes, c_old)
            _register(lrect, lreg, thead, tnxt, tcell, tstate, c_old, ox, oy, tinv, tcols, trows)
            enext[s] = lhead[c_new]
            lhead[c_new] = s
            lcount[c_new] += 1
        grow_rect(lrect, c_new, boxes, s)
        if need > 0:
            _register(lrect, lreg, thead, tnxt, tcell, tstate, c_new, ox, oy, tinv, tcols, trows)
    return slots.shape[0], changed


@njit
def _build_cells(lhead, lcount, lrect, enext, boxes, slots, ox, oy, inv, cols, rows):
    """Bulk load, first half: lists (in slot order) and exact rectangles. Returns tight nodes needed later."""
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        c = cell_of_centre(boxes, s, ox, oy, inv, cols, rows)
        enext[s] = lhead[c]
        lhead[c] = s
        lcount[c] += 1
        grow_rect(lrect, c, boxes, s)


@njit
def _registration_need(lrect, lreg, ox, oy, tinv, tcols, trows):
    """Fresh pool nodes :func:`_register_all` may take: the tight ranges of cells whose range changes."""
    need = 0
    for c in range(lrect.shape[0]):
        if lrect[c, 0] > lrect[c, 2]:
            continue
        a0, a1, a2, a3 = _tight_range(lrect[c, 0], lrect[c, 1], lrect[c, 2], lrect[c, 3], ox, oy, tinv, tcols, trows)
        if a0 != lreg[c, 0] or a1 != lreg[c, 1] or a2 != lreg[c, 2] or a3 != lreg[c, 3]:
            need += (a2 - a0 + 1) * (a3 - a1 + 1)
    return need


@njit
def _register_all(lrect, lreg, thead, tnxt, tcell, tstate, ox, oy, tinv, tcols, trows):
    for c in range(lrect.shape[0]):
        _register(lrect, lreg, thead, tnxt, tcell, tstate, c, ox, oy, tinv, tcols, trows)


@njit
def _refit_all(alive, n_used, lrect, boxes, ox, oy, inv, cols, rows):
    """Cleanup, first half: every loose cell's rectangle recomputed from its elements.

    Walks the element table in slot order (contiguous reads) rather than
    the cell lists (scattered reads): each live slot grows the rectangle of
    its centre's cell.
    """
    for c in range(lrect.shape[0]):
        set_empty(lrect, c)
    for s in range(n_used):
        if alive[s]:
            grow_rect(lrect, cell_of_centre(boxes, s, ox, oy, inv, cols, rows), boxes, s)


# ==========================================================================
# Query and pairs
# ==========================================================================
@njit
def _query_core(lhead, lrect, lreg, enext, thead, tnxt, tcell, boxes, q0, q1, q2, q3,
                ox, oy, tinv, tcols, trows, out):
    """Slots meeting the closed box ``q`` written to ``out`` while it has room.

    Returns ``(found, loose cells visited, elements tested)``; ``found`` may
    exceed ``out.shape[0]`` (the caller re-runs with a larger ``out``).
    """
    qc0, qr0, qc1, qr1 = _tight_range(q0, q1, q2, q3, ox, oy, tinv, tcols, trows)
    m = 0
    cells = 0
    tested = 0
    for tr in range(qr0, qr1 + 1):
        for tc in range(qc0, qc1 + 1):
            node = thead[tr * tcols + tc]
            while node != -1:
                c = tcell[node]
                node = tnxt[node]
                if max(lreg[c, 0], qc0) != tc or max(lreg[c, 1], qr0) != tr:
                    continue  # handled in its reference tight cell
                if not (lrect[c, 0] <= q2 and q0 <= lrect[c, 2] and lrect[c, 1] <= q3 and q1 <= lrect[c, 3]):
                    continue
                cells += 1
                m, t = scan_slot_list(lhead[c], enext, boxes, q0, q1, q2, q3, out, m)
                tested += t
    return m, cells, tested


@njit(inline="always")
def is_near(b0, b1, b2, b3, c, cols, ox, oy, size):
    """Does the box lie strictly inside loose cell ``c`` grown by half a cell on every side?"""
    row = c // cols
    col = c - row * cols
    return (ox + (col - 0.5) * size < b0) & (oy + (row - 0.5) * size < b1) \
        & (b2 < ox + (col + 1.5) * size) & (b3 < oy + (row + 1.5) * size)


@njit
def _split_cells(lhead, enext, boxes, ox, oy, size, cols, start, px0, py0, px1, py1, ps, srect):
    """Copy the elements, cell after cell, into ``px0 .. py1`` (float64) and ``ps`` (int32 slots): near ones first.

    An element of loose cell ``(row, col)`` is **near** when its box lies
    strictly inside the cell grown by half a cell on every side,
    ``ox + (col - 0.5) * size < x0`` and ``x1 < ox + (col + 1.5) * size``
    (same for y); the others are **giants**. Near elements go to the front,
    cell after cell: ``start`` (L + 1,) receives the offsets (cell ``c``'s
    are ``start[c] .. start[c + 1] - 1``) and ``srect`` (L, 4) float32 the
    union of each cell's near boxes, rounded outwards (inverted when none).
    Giants go to the back, ``px0.shape[0] - g .. px0.shape[0] - 1``. One
    pass of scattered reads of the element table; the pair search then
    streams contiguous coordinate arrays (structure of arrays). Returns
    ``g``, the number of giants.
    """
    m = 0
    g = 0
    top = px0.shape[0] - 1
    for c in range(lhead.shape[0]):
        start[c] = m
        r0, r1, r2, r3 = np.inf, np.inf, -np.inf, -np.inf
        s = lhead[c]
        while s != -1:
            b0, b1, b2, b3 = boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3]
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
        if m > start[c]:
            srect[c, 0], srect[c, 1], srect[c, 2], srect[c, 3] = f32_down(r0), f32_down(r1), f32_up(r2), f32_up(r3)
        else:
            set_empty(srect, c)
    start[lhead.shape[0]] = m
    return g


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
            m += (px0[j] <= x1) & (x0 <= px1[j]) & (py0[j] <= y1) & (y0 <= py1[j])
        return m
    for j in range(b0, b1):
        if px0[j] <= x1 and x0 <= px1[j] and py0[j] <= y1 and y0 <= py1[j]:
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
        k += (px0[i] <= x1) & (x0 <= px1[i]) & (py0[i] <= y1) & (y0 <= py1[i])
    return k


@njit(inline="always")
def _cross_runs(a0, a1, b0, b1, ax0, ay0, ax1, ay1, bx0, by0, bx1, by1, px0, py0, px1, py1, ps, ia, ib, out, m):
    """Pairs between the near elements ``a0 .. a1 - 1`` (rectangle ``a``) and ``b0 .. b1 - 1`` (rectangle ``b``).

    Only the elements of each side that reach the other side's rectangle
    are kept (two branch-free passes), then every kept pair is tested:
    across a cell border only a few elements on each side come close.
    Returns ``(m, tests)``.
    """
    if b0 == b1 or not ((bx0 <= ax1) & (ax0 <= bx1) & (by0 <= ay1) & (ay0 <= by1)):
        return m, 0
    ka = _reaching(a0, a1, bx0, by0, bx1, by1, px0, py0, px1, py1, ia)
    if ka == 0:
        return m, 0
    kb = _reaching(b0, b1, ax0, ay0, ax1, ay1, px0, py0, px1, py1, ib)
    if kb == 0:
        return m, 0
    full = m + ka * kb > out.shape[0]
    for u in range(ka):
        i = ia[u]
        x0, y0, x1, y1 = px0[i], py0[i], px1[i], py1[i]
        si = ps[i]
        for v in range(kb):
            j = ib[v]
            hit = (px0[j] <= x1) & (x0 <= px1[j]) & (py0[j] <= y1) & (y0 <= py1[j])
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
def _span(lo, hi, origin, inv, n):
    """Loose cells ``c0 .. c1`` along one axis whose near elements may meet ``[lo, hi]`` (clamped; may be empty).

    Near elements of cell ``c`` lie strictly inside ``(c - 0.5, c + 1.5)``
    cell sides from the origin, so only ``(lo - origin) / size - 1.5 < c <
    (hi - origin) / size + 0.5`` matter (the bounds are widened by a
    millionth of a cell against rounding).
    """
    t0 = min(max((lo - origin) * inv - 1.500001, 0.0), n - 1.0)
    t1 = min(max((hi - origin) * inv + 0.500001, 0.0), n - 1.0)
    return int(t0), int(t1)


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
def pairs_core(start, px0, py0, px1, py1, ps, srect, g0, cols, rows, ox, oy, inv, sa0, sa1, sb0, sb1, ia, ib, out,
                marks):
    """Every intersecting slot pair once, written to ``out`` while it has room; returns ``(pairs found, box tests)``.

    The rows of ``out`` are trusted only when the count returned is *below*
    its size (a full ``out`` may end with a rejected candidate): the caller
    runs again with a larger one. Nothing is written past its end.

    Input from :func:`_split_cells`. Four parts, each pair in exactly one:

    1. near-near inside a loose cell: every two near elements of the cell;
    2. near-near across cells: two near elements that touch lie in
       neighbouring loose cells (each reaches less than half a cell beyond
       its own, so cells two apart never meet), so each cell is joined with four
       of its eight neighbours (east, north-west, north, north-east): every
       neighbouring pair once;
    3. giant-near: each giant against the near elements of the loose cells
       it can reach (:func:`_span`), one contiguous run per loose row, its
       ends trimmed to the cells whose near rectangles meet the giant;
    4. giant-giant: a sweep over the giants (positions ``g0 ..``) along the
       axis they are sorted on: ``sa0, sa1`` are its lower and upper
       coordinate arrays (``px0, px1`` or ``py0, py1``), ``sb0, sb1`` the
       other axis's.
    """
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
                m, t = _cross_runs(a0, a1, start[a + 1], start[a + 2], srect[a, 0], srect[a, 1], srect[a, 2],
                                   srect[a, 3], srect[a + 1, 0], srect[a + 1, 1], srect[a + 1, 2], srect[a + 1, 3],
                                   px0, py0, px1, py1, ps, ia, ib, out, m)
                tests += t
            if r + 1 < rows:  # north-west, north, north-east: consecutive cells, so one contiguous run
                b0, b1 = a + cols - (c > 0), a + cols + (c + 1 < cols)
                x0, y0, x1, y1 = srect[b0, 0], srect[b0, 1], srect[b0, 2], srect[b0, 3]
                for b in range(b0 + 1, b1 + 1):
                    x0, y0 = min(x0, srect[b, 0]), min(y0, srect[b, 1])
                    x1, y1 = max(x1, srect[b, 2]), max(y1, srect[b, 3])
                m, t = _cross_runs(a0, a1, start[b0], start[b1 + 1], srect[a, 0], srect[a, 1], srect[a, 2],
                                   srect[a, 3], x0, y0, x1, y1, px0, py0, px1, py1, ps, ia, ib, out, m)
                tests += t
    marks[0] = m
    for g in range(g0, n):  # 3. giants against the near elements they reach, one contiguous run per loose row
        x0, y0, x1, y1 = px0[g], py0[g], px1[g], py1[g]
        sg = ps[g]
        c0, c1 = _span(x0, x1, ox, inv, cols)
        r0, r1 = _span(y0, y1, oy, inv, rows)
        for r in range(r0, r1 + 1):
            a0, a1 = r * cols + c0, r * cols + c1
            # trim the row's end cells whose near rectangles miss the giant
            while a0 <= a1 and not ((srect[a0, 0] <= x1) & (x0 <= srect[a0, 2]) & (srect[a0, 1] <= y1)
                                    & (y0 <= srect[a0, 3])):
                a0 += 1
            while a1 > a0 and not ((srect[a1, 0] <= x1) & (x0 <= srect[a1, 2]) & (srect[a1, 1] <= y1)
                                   & (y0 <= srect[a1, 3])):
                a1 -= 1
            if a0 > a1:
                continue
            b0, b1 = start[a0], start[a1 + 1]
            tests += b1 - b0
            m = _one_vs_run(sg, x0, y0, x1, y1, b0, b1, px0, py0, px1, py1, ps, out, m)
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
        A bad world, cell size, ``tight_factor`` or ``max_cells``.

    Notes
    -----
    Insert O(1) (plus a re-registration when a rectangle reaches a new tight
    cell); remove O(elements of the loose cell); query O(tight cells covered
    + loose cells listed there + their elements); pairs O(loose cells +
    tests), the tests being the near elements of each cell against each
    other and against those of neighbouring cells that come close, each
    giant against the near elements of the cells it reaches, and a sweep of
    the giants (plus an O(n) layout when the elements changed since the last
    one). Memory: 60 bytes per loose cell, 4 per tight cell, 8 per tight
    list node, 40 per element slot (4 of index, 36 of pairs layout), plus
    the shared element table (41 bytes per slot).

    References
    ----------
    The quadtree answer set [SO-quadtree], "Loose/tight
    double grid with 500k agents".
    """

    def __init__(self, *, world=None, cell_size=None, tight_factor: int = DEFAULT_TIGHT_FACTOR,
                 max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.tight_factor = check_int("tight_factor", tight_factor, 1, 64)
        self.tcols = math.ceil(self.cols / self.tight_factor)
        self.trows = math.ceil(self.rows / self.tight_factor)
        self._tinv = self._inv / self.tight_factor
        L = self.rows * self.cols
        self.lhead = np.full(L, -1, dtype=np.int32)
        self.lcount = np.zeros(L, dtype=np.int32)
        self.lrect = np.tile(EMPTY_RECT, (L, 1))
        self.lreg = np.full((L, 4), -1, dtype=np.int32)
        self.enext = np.full(16, -1, dtype=np.int32)
        self.thead = np.full(self.trows * self.tcols, -1, dtype=np.int32)
        self.tnxt, self.tcell, self.tstate = new_pool(max(16, L // 2))
        self._out = np.empty(64, dtype=np.int64)
        # The layout pairs() reads (see _split): near elements in cell order, then the giants.
        self.start = np.zeros(L + 1, dtype=np.int32)
        self.srect = np.tile(EMPTY_RECT, (L, 1))
        self.px0, self.py0, self.px1, self.py1 = (np.empty(0, dtype=np.float64) for _ in range(4))
        self.ps = np.empty(0, dtype=np.int32)
        self.g0 = 0
        self._sweep_y = False  # the giants are sorted by y0 (else x0) for their sweep
        self._split_ok = False
        self._pair_hint = 1024
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_changed_cells = 0

    @classmethod
    def from_boxes(cls, boxes, **params) -> "LooseTightGrid":
        """Bulk load ``boxes`` under ids ``0 .. n-1``; loose cells default to 4x the typical box size.

        Why larger cells than a uniform grid's (2x): an element sits in one
        loose cell whatever its size, so large cells cost no duplicates, and
        the more elements stay within half a cell of their own (near
        elements, see :func:`pairs_core`), the fewer giants. Measured at
        n = 100,000 with the present pair search: on ``mixed_sizes`` its
        kernel takes about the same time for cells 3 to 5 times the typical
        size; on ``random`` 3 times is about 15 % faster than 4 (not needed
        for the lesson's goals; 4 keeps the loose grid small).
        """
        if params.get("cell_size") is None:
            b = as_boxes(boxes)
            if params.get("world") is None:
                params["world"] = world_for(b)
            params["cell_size"] = suggest_cell_size(b, params["world"], factor=LOOSE_CELL_FACTOR,
                                                    max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))
            boxes = b
        return super().from_boxes(boxes, **params)

    # -- geometry -------------------------------------------------------
    @property
    def _tgeom(self):
        return float(self.world[0]), float(self.world[1]), self._tinv, self.tcols, self.trows

    @property
    def tight_cell_size(self) -> float:
        """Side of a tight cell, world units."""
        return self.cell_size * self.tight_factor

    def _arrays(self):
        return (self.lhead, self.lcount, self.lrect, self.lreg, self.enext, self.thead, self.tnxt, self.tcell,
                self.tstate)

    def _fit_slots(self) -> None:
        self.enext = grown_slots(self.enext, self.elements.capacity)

    def _grow_pool(self, extra: int) -> None:
        """Room for ``extra`` more fresh tight list nodes beyond the ones in use (at least 1.5x growth)."""
        self.tnxt, self.tcell = grow_pool(self.tnxt, self.tcell, self.tstate, max(int(extra), len(self.tnxt) // 2 + 1))

    # -- insert ---------------------------------------------------------
    def _insert(self, slot, box):
        self._insert_slots(np.array([slot], dtype=np.int64))

    def _insert_slots(self, slots):
        self._fit_slots()
        self._split_ok = False
        k = 0
        while True:
            k = _insert_run(*self._arrays(), self.elements.boxes, slots, k, *self._geom, *self._tgeom[2:])
            if k == len(slots):
                return
            self._grow_pool(self.trows * self.tcols)

    def _build(self, slots):
        """Bulk load: lists and exact rectangles in one pass, then every loose cell registered (pool sized first)."""
        if len(slots) == 0:
            return
        self._fit_slots()
        ox, oy, inv, cols, rows = self._geom
        _build_cells(self.lhead, self.lcount, self.lrect, self.enext, self.elements.boxes,
                     np.asarray(slots, dtype=np.int64), ox, oy, inv, cols, rows)
        self._register_all()
        self._split()

    def _register_all(self):
        # Room for the registrations, plus the reserve update_many keeps (one tight grid): no growth next frame.
        need = int(_registration_need(self.lrect, self.lreg, *self._tgeom)) + 2 * self.trows * self.tcols
        if need > len(self.tnxt) - int(self.tstate[0]):
            self.tnxt, self.tcell = grow_pool(self.tnxt, self.tcell, self.tstate, need)
        _register_all(self.lrect, self.lreg, self.thead, self.tnxt, self.tcell, self.tstate, *self._tgeom)

    # -- remove ---------------------------------------------------------
    def _remove(self, slot, box):
        self._split_ok = False
        if _remove_run(*self._arrays(), self.elements.boxes, np.array([slot], dtype=np.int64),
                       np.asarray(box, dtype=np.float64).reshape(1, 4), *self._geom, *self._tgeom[2:]) != 1:
            raise RuntimeError(f"slot {slot} was not found in its loose cell")  # pragma: no cover

    # -- update ---------------------------------------------------------
    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.asarray(old).reshape(1, 4), None)

    def _update_many(self, slots, old, new):
        """Bulk move: one kernel over all slots; only elements that change loose cell are relinked."""
        slots = np.asarray(slots, dtype=np.int64)
        old = np.ascontiguousarray(old, dtype=np.float64)
        self._split_ok = False
        k, changed = 0, 0
        while True:
            k, c = _move_run(*self._arrays(), self.elements.boxes, slots, old, k, *self._geom, *self._tgeom[2:])
            changed += c
            if k == len(slots):
                break
            self._grow_pool(2 * self.trows * self.tcols)
        self.last_changed_cells = int(changed)

    # -- query ----------------------------------------------------------
    def _query(self, box):
        q = box.tolist()
        while True:
            m, self.last_query_cells, self.last_query_tests = _query_core(
                self.lhead, self.lrect, self.lreg, self.enext, self.thead, self.tnxt, self.tcell,
                self.elements.boxes, q[0], q[1], q[2], q[3], *self._tgeom, self._out)
            if m <= len(self._out):
                return self._out[:m].copy()
            self._out = np.empty(2 * m, dtype=np.int64)

    # -- pairs ----------------------------------------------------------
    def _split(self):
        """Copy the near elements in cell order and the giants sorted for their sweep: the layout ``pairs`` reads.

        Kept between calls (counted in :meth:`memory_bytes`) and redone by
        the bulk load, ``cleanup`` and the first ``pairs`` after any change.
        """
        n = len(self.enext)
        if len(self.px0) != n:
            self.px0, self.py0, self.px1, self.py1 = (np.empty(n, dtype=np.float64) for _ in range(4))
            self.ps = np.empty(n, dtype=np.int32)
        ox, oy, inv, cols, rows = self._geom
        g = int(_split_cells(self.lhead, self.enext, self.elements.boxes, ox, oy, self.cell_size, cols, self.start,
                             self.px0, self.py0, self.px1, self.py1, self.ps, self.srect))
        self.g0 = n - g
        self._sweep_y = False
        if g > 1:  # the giants' sweep wants them sorted along the axis where they are most spread out
            gx0, gy0 = self.px0[n - g:], self.py0[n - g:]
            spread_x = np.ptp(gx0) / max(float(np.mean(self.px1[n - g:] - gx0)), 1e-300)
            spread_y = np.ptp(gy0) / max(float(np.mean(self.py1[n - g:] - gy0)), 1e-300)
            self._sweep_y = bool(spread_y > spread_x)
            order = np.argsort(gy0 if self._sweep_y else gx0, kind="stable") + (n - g)
            for a in (self.px0, self.py0, self.px1, self.py1, self.ps):
                a[n - g:] = a[order]
        self._split_ok = True

    def _pairs(self):
        """Pairs from the cell-ordered layout of :meth:`_split` (redone first if the elements changed).

        Returns int32 slot pairs (half the bytes of int64 to write;
        :func:`~lessons_lib.core.pair_order.canonical_pairs` takes them as they
        are), the giants' rows sorted by partner (:func:`_sort_by_partner`).
        Scratch arrays are made per call (not in ``memory_bytes``).
        """
        if not self._split_ok:
            self._split()
        ox, oy, inv, cols, rows = self._geom
        big = max(1, int(self.lcount.max()))
        ia, ib = np.empty(big, dtype=np.int64), np.empty(3 * big, dtype=np.int64)
        sweep = ((self.py0, self.py1, self.px0, self.px1) if self._sweep_y
                 else (self.px0, self.px1, self.py0, self.py1))
        args = (self.start, self.px0, self.py0, self.px1, self.py1, self.ps, self.srect, self.g0, cols, rows,
                ox, oy, inv, *sweep, ia, ib)
        out = np.empty((self._pair_hint, 2), dtype=np.int32)
        marks = np.zeros(2, dtype=np.int64)
        m, tests = pairs_core(*args, out, marks)
        if m >= len(out):  # full (rows trusted only below its size): run again with room
            out = np.empty((m + 1, 2), dtype=np.int32)
            m, tests = pairs_core(*args, out, marks)
        t0, t1 = int(marks[0]), int(marks[1])  # the rows of giants against near elements
        if t1 - t0 > 1:
            hw = self.elements.high_water
            _sort_by_partner(out, t0, t1, hw, np.zeros(hw + 1, dtype=np.int32), np.empty((t1 - t0, 2), dtype=np.int32))
        self.last_pair_tests = int(tests)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    # -- cleanup, clear -------------------------------------------------
    def _cleanup(self):
        _refit_all(self.elements.alive, self.elements.high_water, self.lrect, self.elements.boxes, *self._geom)
        self._register_all()
        self._split()

    def _clear(self):
        self.lhead.fill(-1)
        self.lcount.fill(0)
        self.lrect[:] = EMPTY_RECT
        self.lreg.fill(-1)
        self.enext.fill(-1)
        self.thead.fill(-1)
        self.tstate[0], self.tstate[1] = 0, -1
        self._split_ok = False

    # -- memory, drawing, inspection -----------------------------------
    def _nbytes(self):
        return (self.lhead.nbytes + self.lcount.nbytes + self.lrect.nbytes + self.lreg.nbytes + self.enext.nbytes
                + self.thead.nbytes + self.tnxt.nbytes + self.tcell.nbytes + self.tstate.nbytes
                + self.start.nbytes + self.srect.nbytes + self.px0.nbytes + self.py0.nbytes + self.px1.nbytes
                + self.py1.nbytes + self.ps.nbytes)

    def loose_cells(self) -> dict[str, np.ndarray]:
        """The non-empty loose cells: ``index``, ``count``, ``cell`` (their grid square) and ``bounds`` (float64)."""
        idx = np.flatnonzero(self.lcount > 0)
        r, c = idx // self.cols, idx % self.cols
        s = self.cell_size
        x0, y0 = self.world[0] + c * s, self.world[1] + r * s
        cell = np.column_stack([x0, y0, x0 + s, y0 + s]).astype(np.float64).reshape(-1, 4)
        return {"index": idx.astype(np.int64), "count": self.lcount[idx].astype(np.int64), "cell": cell,
                "bounds": self.lrect[idx].astype(np.float64)}

    def tight_cells(self) -> dict[str, np.ndarray]:
        """Every tight cell: ``rect`` (T, 4) world units and ``lists`` (T,): loose cells listed in it."""
        t = np.arange(self.trows * self.tcols)
        r, c = t // self.tcols, t % self.tcols
        s = self.tight_cell_size
        x0, y0 = self.world[0] + c * s, self.world[1] + r * s
        rect = np.column_stack([x0, y0, x0 + s, y0 + s]).astype(np.float64).reshape(-1, 4)
        return {"rect": rect, "lists": cell_counts(self.thead, self.tnxt, len(self.thead))}

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
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: every live slot is in exactly one loose cell, the one of its
        centre, and ``lcount`` matches the lists; each loose rectangle covers
        its elements' (outward-rounded) boxes and an empty one is inverted;
        each non-empty loose cell is listed exactly in the tight cells of its
        registration, which covers its rectangle's tight range; tight list
        nodes in use plus free nodes account for the pool; when the pairs
        layout is current, it holds each live slot once with its present box,
        near elements in their cell's run inside their cell's near rectangle,
        giants sorted along their sweep axis. With
        ``exact=True`` (after :meth:`cleanup` or a bulk load) each rectangle
        must *equal* the union of its elements and each registration its
        rectangle's tight range.
        """
        boxes = self.elements.boxes
        live = set(self.elements.live_slots().tolist())
        seen: set[int] = set()
        ox, oy, inv, cols, rows = self._geom
        for c in range(self.rows * self.cols):
            elems, s = [], int(self.lhead[c])
            while s != -1:
                elems.append(s)
                s = int(self.enext[s])
            assert len(elems) == int(self.lcount[c]), f"loose cell {c}: count {int(self.lcount[c])}, list {len(elems)}"
            u = [np.inf, np.inf, -np.inf, -np.inf]
            for s in elems:
                assert s in live and s not in seen, f"slot {s} is dead or in two loose cells"
                seen.add(s)
                assert int(cell_of_centre(boxes, s, ox, oy, inv, cols, rows)) == c, f"slot {s} is not in its centre's cell"
                b = boxes[s]  # np.float64 values: f32_down(python float) rounds wrongly as plain Python (NEP 50)
                u = [min(u[0], float(f32_down(b[0]))), min(u[1], float(f32_down(b[1]))),
                     max(u[2], float(f32_up(b[2]))), max(u[3], float(f32_up(b[3])))]
            r = self.lrect[c].astype(np.float64).tolist()
            if elems:
                assert r[0] <= u[0] and r[1] <= u[1] and r[2] >= u[2] and r[3] >= u[3], \
                    f"loose cell {c}: rectangle {r} does not cover its elements {u}"
            else:
                assert r[0] > r[2], f"loose cell {c} is empty but its rectangle is {r}"
            if exact:
                assert r == u, f"loose cell {c}: rectangle {r} is not exactly {u} (stale growth)"
            reg = self.lreg[c].tolist()
            if not elems:
                assert reg == [-1, -1, -1, -1], f"empty loose cell {c} is registered in {reg}"
                continue
            want = list(_tight_range(r[0], r[1], r[2], r[3], *self._tgeom))
            assert reg[0] <= want[0] and reg[1] <= want[1] and reg[2] >= want[2] and reg[3] >= want[3], \
                f"loose cell {c}: registration {reg} misses its tight range {want}"
            if exact:
                assert reg == want, f"loose cell {c}: registration {reg} is not its tight range {want}"
        assert seen == live, "a live slot is in no loose cell"
        listed = 0
        for tr in range(self.trows):
            for tc in range(self.tcols):
                cells = self.listed_in(tc, tr)
                listed += len(cells)
                assert len(set(cells)) == len(cells), f"tight cell ({tc}, {tr}) lists a loose cell twice"
                for c in cells:
                    reg = self.lreg[c].tolist()
                    assert reg[0] <= tc <= reg[2] and reg[1] <= tr <= reg[3], \
                        f"tight cell ({tc}, {tr}) lists loose cell {c} registered in {reg}"
        regs = self.lreg[self.lreg[:, 0] >= 0].astype(np.int64)
        assert listed == int(((regs[:, 2] - regs[:, 0] + 1) * (regs[:, 3] - regs[:, 1] + 1)).sum()), \
            "a loose cell is missing from a tight cell of its registration"
        free, node = 0, int(self.tstate[1])
        while node != -1:
            free += 1
            node = int(self.tnxt[node])
        assert int(self.tstate[0]) <= len(self.tnxt), "the tight list pool was written past its end"
        assert listed + free == int(self.tstate[0]), "tight list nodes leaked"
        if self._split_ok:
            self._check_split(live)

    def _check_split(self, live: set[int]) -> None:
        """The layout of :meth:`_split`: each live slot once, near ones in their cell's run, giants sorted."""
        L, n, g0 = self.rows * self.cols, len(self.px0), self.g0
        start = self.start.astype(np.int64)
        assert start[0] == 0 and (np.diff(start) >= 0).all() and start[L] <= g0 <= n, "bad run offsets"
        near, giants = self.ps[:start[L]].tolist(), self.ps[g0:].tolist()
        assert sorted(near + giants) == sorted(live), "the pairs layout does not hold each live slot once"
        assert (np.diff((self.py0 if self._sweep_y else self.px0)[g0:]) >= 0).all(), "giants are not sorted"
        ox, oy, inv, cols, rows = self._geom
        boxes = self.elements.boxes
        for c in range(L):
            run = np.arange(start[c], start[c + 1])
            r = self.srect[c].astype(np.float64)
            for k in run.tolist():
                s = int(self.ps[k])
                b = [float(self.px0[k]), float(self.py0[k]), float(self.px1[k]), float(self.py1[k])]
                assert b == boxes[s].tolist(), f"slot {s}: stale coordinates in the pairs layout"
                assert int(cell_of_centre(boxes, s, ox, oy, inv, cols, rows)) == c, f"slot {s} is in the wrong run"
                assert is_near(*b, c, cols, ox, oy, self.cell_size), f"slot {s} is stored as near but is not"
                assert r[0] <= b[0] and r[1] <= b[1] and b[2] <= r[2] and b[3] <= r[3], \
                    f"near rectangle of cell {c} misses slot {s}"
            if len(run) == 0:
                assert r[0] > r[2], f"cell {c} has no near element but a near rectangle {r.tolist()}"
        for k in range(g0, n):
            s = int(self.ps[k])
            b = [float(self.px0[k]), float(self.py0[k]), float(self.px1[k]), float(self.py1[k])]
            assert b == boxes[s].tolist(), f"giant {s}: stale coordinates in the pairs layout"
            c = int(cell_of_centre(boxes, s, ox, oy, inv, cols, rows))
            assert not is_near(*b, c, cols, ox, oy, self.cell_size), f"slot {s} is stored as a giant but is near"

    def __repr__(self):
        return (f"LooseTightGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"loose={self.rows}x{self.cols}, tight={self.trows}x{self.tcols})")

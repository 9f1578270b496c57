"""The loose/tight double grid's pairs: near elements cell by cell, giants apart.

Lesson 07, section 5: the pair search of
:class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid`. It does not
need the tight grid: it splits the elements by reach (the uniform-size trick of
:mod:`~lessons_lib.structures.point_grid`, with the loose cell as the bound).
An element is **near** when its box stays within half a cell of its own loose
cell (strictly, :func:`is_near`), otherwise it is a **giant**. Two near
elements that touch lie in the same or in neighbouring loose cells, so near
pairs come from each cell with itself and with four of its eight neighbours
(east; north-west, north and north-east, consecutive in memory: one run). Each
giant is tested against the near elements of the loose cells it can reach (one
contiguous run per loose row), and the giants against each other by a sweep
along the axis they spread most on. Each element is near or a giant once, so
every pair is found by exactly one of these parts (:func:`pairs_core`).

The steps
---------
1. **Lay out** (:func:`lay_out_cells`, with :func:`lay_out_list` for the
   oversize list): copy the boxes cell after cell into the *pairs layout*
   ``layout = (start, px0, py0, px1, py1, ps, srect)`` of
   :mod:`~lessons_lib.structures.loose_tight_cells` (structure of arrays: near
   elements first, giants at the back); the grid's cleanup does the same
   while it makes its rectangles exact (it uses :func:`lay_out_cell`).
2. **Search** (:func:`pairs_core`): the four parts above, over contiguous
   coordinate arrays.

The pair-search helpers take the layout's arrays one by one: unpacking the
``layout`` tuple inside a helper called per cell costs reference counting at
every call (measured on 100,000 moving agents: about 7 ms instead of 2 for
``pairs_core``).

References
----------
The quadtree answer set on Stack Overflow [SO-quadtree], section
"Loose/tight double grid with 500k agents"; the uniform-size trick of the
same answer set, section on a grid for agents of one size.
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps
from ..core.buffers import run_pairs
from ..core.jit import njit
from .grid_cells import cells_from_origin
from .loose_bounds import f32_down, f32_up, set_empty

__all__ = ["is_near", "lay_out_cell", "set_rounded", "lay_out_cells", "lay_out_list", "pairs_core",
           "sort_by_partner"]


@njit(inline="always")
def is_near(b0, b1, b2, b3, c, cols, ox, oy, size):
    """Does the box lie strictly inside loose cell ``c`` grown by half a cell on every side?"""
    row = c // cols
    col = c - row * cols
    return (ox + (col - 0.5) * size < b0) & (oy + (row - 0.5) * size < b1) \
        & (b2 < ox + (col + 1.5) * size) & (b3 < oy + (row + 1.5) * size)


@njit(inline="always")
def lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g):
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
def set_rounded(rects, c, r):
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
        m, g, _, near = lay_out_cell(lhead, enext, boxes, geom, size, px0, py0, px1, py1, ps, c, m, g)
        set_rounded(srect, c, near)
    start[lhead.shape[0]] = m
    return g



@njit
def lay_out_list(head, enext, boxes, layout, g):
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
def sort_by_partner(out, t0, t1, hw, cnt, tmp):
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
                m = run_pairs(ps[i], px0[i], py0[i], px1[i], py1[i], i + 1, a1, px0, py0, px1, py1, ps, out, m)
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
            m = run_pairs(ps[g], x0, y0, x1, y1, start[a0], start[a1 + 1], px0, py0, px1, py1, ps, out, m)
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

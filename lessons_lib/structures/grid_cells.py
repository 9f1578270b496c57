"""What the grids of lessons 02, 03 and 07 share: cell ranges, linked node lists, each pair once.

The uniform grid, the hierarchical grid and the spatial hash differ in how they
find the list of a cell (an index into a dense array, a row then a column, a
hash bucket) but not in what they do with it; the point grid and the
loose/tight grid put each element in the one cell of its centre. The common
pieces live here as small numba kernels over flat arrays.

Names used by every grid kernel
-------------------------------
``boxes[s, XMIN]`` .. ``boxes[s, YMAX]``
    the sides of the element in slot ``s`` (the shared element table).
``geom = (ox, oy, inv, cols, rows)``
    where a grid's cells are: its origin (the world's lower-left corner),
    ``1 / cell_size`` and its shape. A plain tuple, unpacked in one line
    (numba passes it for free; a named tuple would cost microseconds per call).
``lists = (head, nxt, elem, state)``
    the cells' linked node lists (below).

Cell ranges
-----------
A coordinate ``v`` falls in cell ``floor((v - origin) / size)``, clamped to
``[0, n - 1]`` (:func:`cell_of`). The clamped map is *monotone*: ``u <= v``
implies ``cell_of(u) <= cell_of(v)``, whatever the rounding. Two consequences
carry every correctness argument of the grids:

* a closed box ``[x0, x1]`` goes into cells ``cell_of(x0) .. cell_of(x1)``; if
  two boxes overlap on x their ranges overlap, so they share a cell (also for
  boxes partly or wholly outside the world: they land in the border cells);
* the **reference cell** of two overlapping boxes, the cell of the lower-left
  corner of their intersection ``(max(ax0, bx0), max(ay0, by0))``, equals
  ``(max(ca0, cb0), max(ra0, rb0))`` and lies in both ranges.

The arithmetic holds over the whole float range as long as the origin is
finite and ``1 / cell_size`` is finite and positive (a cell size of at least
:data:`MIN_CELL_SIZE`): where ``v - origin`` overflows (a world spanning the
float range), :func:`cell_of` takes it in halves, ``(0.5 * v - 0.5 * origin)``,
so the index is the true one and not merely clamped (a point grid's search
reach counts cells between centres), and no NaN can arise.

Linked node lists (one 32-bit integer per cell)
-----------------------------------------------
Each cell (or bucket) holds one int32: the index of its first *node*, or -1.
Nodes live in two shared int32 arrays, ``nxt`` (the next node of the same cell,
-1 at the end) and ``elem`` (the element's slot). Freed nodes form a free list
threaded through ``nxt``, so memory is reused without moving anything. The
pool's two counters sit in ``state[USED]`` (nodes ever handed out) and
``state[FREE]`` (the head of the free list), int64, so kernels update them in
place. When the pool is full, :func:`grown_pool` doubles it. Source: the "grid
of 32-bit integers" and node-list layout of the quadtree answer set
[SO-quadtree].

Pairs (and query results) without duplicates
--------------------------------------------
A box covering several cells meets its neighbours in several cells. Instead of
a hash set of pairs found, a pair is reported only from its reference cell (and
a query hit only from the reference cell of the element and the query box).
That needs no memory and no sort; it costs two ``max`` and a comparison per
candidate. The technique is standard in grid-based broad phases (e.g. Ericson,
*Real-Time Collision Detection*, 2005, section 7.1).
"""
from __future__ import annotations

import sys

import numpy as np

from ..base import world_for
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps, row_overlaps, rows_overlap
from ..core.buffers import grow
from ..core.jit import njit

__all__ = [
    "USED", "FREE", "CELL_LIMIT", "MIN_CELL_SIZE",
    "cells_from_origin", "cell_of", "cell_span", "box_cells", "cell_of_centre",
    "new_lists", "grown", "grown_pool", "pool_full", "pool_push", "pool_unlink", "append_id",
    "query_hit", "gather_cell", "cell_pairs", "cell_counts", "grid_world", "oversize_pairs", "cells_each",
    "any_over", "FLOAT_MAX",
]

#: The node pool's counters: ``state[USED]`` nodes handed out so far, ``state[FREE]`` first free node (-1: none).
USED, FREE = 0, 1
#: Clamp of unbounded cell coordinates (spatial hash): far boxes share the edge cells.
CELL_LIMIT = 2**30 - 1
#: Smallest cell size whose inverse is a finite float (about 5.6e-309 world units).
MIN_CELL_SIZE = 1.0 / sys.float_info.max
#: The largest finite float.
FLOAT_MAX = sys.float_info.max


# --------------------------------------------------------------------------
# Cell ranges
# --------------------------------------------------------------------------
@njit(inline="always")
def cells_from_origin(v, origin, inv):
    """``(v - origin) * inv``, the distance from the origin in cells, also where ``v - origin`` overflows.

    Then it is taken in halves, ``2 * ((0.5 * v - 0.5 * origin) * inv)``
    (exact scaling by 2), so it is the true value and not infinity
    (it may still be infinite when the true value is beyond the float range).
    Monotone in ``v``.
    """
    d = v - origin
    if d > FLOAT_MAX:  # overflowed: the same product from halves, which cannot overflow
        return 2.0 * ((0.5 * v - 0.5 * origin) * inv)
    return d * inv


@njit
def cell_of(v, origin, inv, n):
    """Cell index of coordinate ``v`` along one axis, clamped to ``[0, n - 1]``.

    ``v``, ``origin``: float64 world units (``origin`` finite); ``inv``:
    1 / cell size (finite, > 0); ``n``: number of cells along the axis.
    Where ``v - origin`` overflows it is taken in halves (exact scaling by 2),
    so the index stays the true cell; the map stays monotone in ``v``.
    """
    t = cells_from_origin(v, origin, inv)
    if t <= 0.0:
        return 0
    if t >= n:
        return n - 1
    return int(t)  # 0 < t < n, so truncation is floor


@njit
def cell_span(geom, x0, y0, x1, y1):
    """``(c0, r0, c1, r1)``: first and last column and row of the closed box ``[x0, y0, x1, y1]``."""
    ox, oy, inv, cols, rows = geom
    return cell_of(x0, ox, inv, cols), cell_of(y0, oy, inv, rows), cell_of(x1, ox, inv, cols), cell_of(y1, oy, inv, rows)


@njit
def box_cells(geom, boxes, s):
    """:func:`cell_span` of the box in row ``s`` of ``boxes``."""
    return cell_span(geom, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX])


@njit
def cell_of_centre(geom, boxes, s):
    """Flat index ``row * cols + col`` of the cell holding the centre of ``boxes[s]`` (clamped)."""
    ox, oy, inv, cols, rows = geom
    col = cell_of(0.5 * boxes[s, XMIN] + 0.5 * boxes[s, XMAX], ox, inv, cols)  # halves first: no overflow
    row = cell_of(0.5 * boxes[s, YMIN] + 0.5 * boxes[s, YMAX], oy, inv, rows)
    return row * cols + col


def grid_world(boxes: np.ndarray) -> np.ndarray:
    """The world a grid infers from validated ``boxes``: :func:`~lessons_lib.base.world_for`, never flat.

    At huge magnitudes (``1e300``) adding half a unit to a coordinate changes
    nothing, so a world inferred from coincident boxes there would have no
    width; each flat side is then widened to the next representable float.
    """
    w = world_for(boxes)
    for lo, hi in ((0, 2), (1, 3)):
        if not w[hi] > w[lo]:
            w[hi] = np.nextafter(w[lo], np.inf)
    return w


# --------------------------------------------------------------------------
# The node pool: nxt / elem arrays, free list, state = [USED, FREE]
# --------------------------------------------------------------------------
def new_lists(n_cells: int, capacity: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty ``(head, nxt, elem, state)``: ``n_cells`` empty lists and a pool of ``capacity`` nodes (8 bytes each)."""
    capacity = max(1, int(capacity))
    return (np.full(n_cells, -1, np.int32), np.full(capacity, -1, np.int32), np.full(capacity, -1, np.int32),
            np.array([0, -1], dtype=np.int64))


@njit
def grown(a, n, fill):
    """A copy of the 1-D array ``a`` in a new array of ``n >= len(a)`` entries, the new ones set to ``fill``.

    (Plain loops: numba compiles array-to-slice assignments slowly.)
    """
    out = np.empty(n, a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    for i in range(a.shape[0], n):
        out[i] = fill
    return out


@njit
def grown_pool(nxt, elem, need):
    """``(nxt, elem)`` copied into arrays of ``max(need, 2 * capacity)`` nodes (new ones -1)."""
    new = max(need, 2 * nxt.shape[0])
    return grown(nxt, new, -1), grown(elem, new, -1)


@njit
def pool_full(nxt, state):
    """True when the next push needs a fresh node and none is left (grow the pool first)."""
    return state[FREE] == -1 and state[USED] == nxt.shape[0]


@njit
def pool_push(head, nxt, elem, state, cell, slot):
    """Put ``slot`` at the front of the list of ``cell`` (a node from the free list if any; the pool has room)."""
    node = state[FREE]
    if node != -1:
        state[FREE] = nxt[node]
    else:
        node = state[USED]
        state[USED] = node + 1
    nxt[node] = head[cell]
    elem[node] = slot
    head[cell] = node


@njit
def pool_unlink(head, nxt, elem, state, cell, slot):
    """Remove ``slot`` from the list of ``cell``; its node goes on the free list. Returns 1 if found, else 0."""
    prev = -1
    node = head[cell]
    while node != -1:
        if elem[node] == slot:
            if prev == -1:
                head[cell] = nxt[node]
            else:
                nxt[prev] = nxt[node]
            elem[node] = -1
            nxt[node] = state[FREE]
            state[FREE] = node
            return 1
        prev = node
        node = nxt[node]
    return 0


@njit(inline="always")
def append_id(out, k, value):
    """``out[k] = value`` in a growable int64 buffer; returns ``(out, k + 1)`` (doubling when full)."""
    if k == out.shape[0]:
        out = grow(out, k)
    out[k] = value
    return out, k + 1


@njit
def cell_counts(head, nxt, n_cells):
    """Number of nodes in each of the first ``n_cells`` lists; int64 (n_cells,)."""
    out = np.zeros(n_cells, dtype=np.int64)
    for cell in range(n_cells):
        node = head[cell]
        while node != -1:
            out[cell] += 1
            node = nxt[node]
    return out


# --------------------------------------------------------------------------
# Query and pairs: the reference-cell rule
# --------------------------------------------------------------------------
@njit(inline="always")
def query_hit(boxes, s, q, qc0, qr0, c, r, geom):
    """Does slot ``s`` meet the query box ``q``, and is cell ``(c, r)`` the one that reports it?

    The reporting cell is that of the lower-left corner of the intersection:
    ``(max(col of xmin, qc0), max(row of ymin, qr0))``, ``(qc0, qr0)`` being
    the query's first cell.
    """
    if not row_overlaps(boxes, s, q[XMIN], q[YMIN], q[XMAX], q[YMAX]):
        return False
    c0, r0, _, _ = box_cells(geom, boxes, s)
    return max(c0, qc0) == c and max(r0, qr0) == r


@njit(inline="always")
def gather_cell(first, nxt, elem, boxes, geom, copy):
    """Copy the list starting at node ``first`` into ``copy = (slot, box, col, row)``; returns its length.

    The first half of a cell's pair search (lesson 02, section 4; Exercise 2's
    ``grid_pairs`` walks the same list): ``slot[i]`` and ``box[i]`` are the
    element and its box, ``col[i], row[i]`` the cell of the lower-left corner
    of ``box[i]``, which :func:`cell_pairs` needs for the reference-cell test.
    Reading the boxes once per cell, into contiguous memory, is cheaper than
    reading them once per test.
    """
    slot, box, col, row = copy
    m = 0
    node = first
    while node != -1:
        s = elem[node]
        slot[m] = s
        for side in range(XMIN, YMAX + 1):  # the four sides, in column order
            box[m, side] = boxes[s, side]
        col[m], row[m], _, _ = box_cells(geom, boxes, s)
        m += 1
        node = nxt[node]
    return m


@njit(inline="always")
def cell_pairs(copy, m, c, r, out, k):
    """Pairs by reference cell: the ``m`` gathered elements of cell ``(c, r)`` tested two by two.

    The second half of a cell's pair search (lesson 02, section 4; the inner
    loops of Exercise 2's ``grid_pairs``). ``copy`` as filled by
    :func:`gather_cell`. A pair is kept only in its reference cell. Returns the
    new ``out`` (grown if needed) and count. Branch-free inner loop (as the
    compiled brute force): every candidate is written, the cursor advances on
    a hit.

    The reference-cell test, as the lesson writes it and as written here. The
    lesson keeps an intersecting pair ``a, b`` in cell ``(c, r)`` when
    ``cell_of(max(ax0, bx0), max(ay0, by0)) == (c, r)``. The cell map is
    monotone, so the column of ``max(ax0, bx0)`` is ``max(col_a, col_b)``, the
    larger of the two boxes' first columns (``col`` as gathered); and both
    boxes are filed in column ``c``, so each starts at or before it:
    ``col_a <= c`` and ``col_b <= c``. Hence ``max(col_a, col_b) == c`` exactly
    when ``col_a == c`` or ``col_b == c``, and the same for rows. The code
    tests ``(col_a == c or col_b == c) and (row_a == r or row_b == r)``, with
    ``col_a == c`` and ``row_a == r`` computed once per ``a``: no ``max`` per
    candidate.
    """
    slot, box, col, row = copy
    for i in range(m):
        if k + m > out.shape[0]:
            out = grow(out, k, k + m)
        ax0, ay0, ax1, ay1 = box[i, XMIN], box[i, YMIN], box[i, XMAX], box[i, YMAX]
        # Every element here has col <= c and row <= r, so max(col_i, col_j) == c iff one of them is c.
        here_c, here_r, si = col[i] == c, row[i] == r, slot[i]
        for j in range(i + 1, m):
            out[k, 0] = si
            out[k, 1] = slot[j]
            k += (overlaps(ax0, ay0, ax1, ay1, box[j, XMIN], box[j, YMIN], box[j, XMAX], box[j, YMAX])
                  & (here_c | (col[j] == c)) & (here_r | (row[j] == r)))
    return out, k


# --------------------------------------------------------------------------
# Boxes too big for cells: the oversize list (spatial hash, uniform and hierarchical grids)
# --------------------------------------------------------------------------
@njit
def cells_each(geom, boxes, slots):
    """Cells each box of ``slots`` covers in the grid ``geom`` (clamped ranges): ``(k,)`` int64."""
    out = np.empty(slots.shape[0], dtype=np.int64)
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, boxes, slots[k])
        out[k] = (c1 - c0 + 1) * (r1 - r0 + 1)
    return out


@njit
def any_over(geom, boxes, slots, budget):
    """Does any box of ``slots`` cover more than ``budget`` cells of the grid ``geom``? Stops at the first."""
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, boxes, slots[k])
        if (c1 - c0 + 1) * (r1 - r0 + 1) > budget:
            return True
    return False


@njit
def oversize_pairs(big, live, boxes):
    """Pairs of each oversize slot of ``big`` with every other live slot (oversize-oversize pairs once)."""
    out = np.empty((16, 2), dtype=np.int64)
    k = 0
    is_big = np.zeros(boxes.shape[0], dtype=np.bool_)
    for s in big:
        is_big[s] = True
    for a in big:
        for s in live:
            if s == a or (is_big[s] and s < a):
                continue
            if rows_overlap(boxes, s, boxes, a):
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k, 0] = a
                out[k, 1] = s
                k += 1
    return out[:k].copy()

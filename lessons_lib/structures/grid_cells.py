"""What every grid of lessons 02-03 shares: cell ranges, linked node lists, pairs once.

The uniform grid, the hierarchical grid and the spatial hash differ in how they
find the list of a cell (an index into a dense array, a row then a column, a
hash bucket) but not in what they do with it. The common pieces live here as
small numba kernels over flat arrays.

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

Linked node lists (the seed's "one 32-bit integer per cell")
------------------------------------------------------------
Each cell (or bucket) holds one int32: the index of its first *node*, or -1.
Nodes live in two shared int32 arrays, ``nxt`` (the next node of the same cell,
-1 at the end) and ``elem`` (the element's slot). Freed nodes form a free list
threaded through ``nxt``, so memory is reused without moving anything. The
pool's two counters sit in ``state = [used, free_head]`` (int64) so kernels can
update them in place. Source: the "grid of 32-bit integers" and node-list layout
of the quadtree answer set [SO-quadtree].

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

import numpy as np

from ..core.buffers import grow
from ..core.jit import njit

__all__ = [
    "CELL_LIMIT",
    "cell_of",
    "cell_span",
    "new_pool",
    "grow_pool",
    "pool_push",
    "pool_unlink",
    "append_id",
    "query_hit",
    "cell_pairs",
    "gather_cell",
    "cell_counts",
    "cell_of_centre",
]

#: Clamp of unbounded cell coordinates (spatial hash): far boxes share the edge cells.
CELL_LIMIT = 2**30 - 1


# --------------------------------------------------------------------------
# Cell ranges
# --------------------------------------------------------------------------
@njit
def cell_of(v, origin, inv_size, n):
    """Cell index of coordinate ``v`` along one axis, clamped to ``[0, n - 1]``.

    ``v``, ``origin``: float64 world units; ``inv_size``: 1 / cell size
    (> 0); ``n``: number of cells along the axis. Infinite intermediate values
    (huge coordinates) clamp like any other: never an error, never a lost box.
    """
    t = (v - origin) * inv_size
    if t <= 0.0:
        return 0
    if t >= n:
        return n - 1
    return int(t)  # t > 0, so truncation is floor


@njit
def cell_span(lo, hi, origin, inv_size, n):
    """First and last cell ``(c0, c1)`` of the closed interval ``[lo, hi]``; ``c0 <= c1``."""
    return cell_of(lo, origin, inv_size, n), cell_of(hi, origin, inv_size, n)


# --------------------------------------------------------------------------
# The node pool: nxt / elem arrays, free list, state = [used, free_head]
# --------------------------------------------------------------------------
def new_pool(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty node pool: ``(nxt, elem, state)``; ``capacity`` nodes of 8 bytes."""
    capacity = max(1, int(capacity))
    return (np.full(capacity, -1, np.int32), np.full(capacity, -1, np.int32),
            np.array([0, -1], dtype=np.int64))


def pool_free_count(nxt: np.ndarray, state: np.ndarray) -> int:
    """Nodes that can be handed out without growing: free list + never used."""
    k, node = 0, int(state[1])
    while node != -1:
        k += 1
        node = int(nxt[node])
    return k + len(nxt) - int(state[0])


def grow_pool(nxt: np.ndarray, elem: np.ndarray, state: np.ndarray, extra: int):
    """Return ``(nxt, elem)`` with room for ``extra`` more *fresh* nodes (doubling)."""
    need = int(state[0]) + int(extra)
    cap = len(nxt)
    if need <= cap:
        return nxt, elem
    new = max(need, 2 * cap)
    nxt2 = np.full(new, -1, np.int32)
    elem2 = np.full(new, -1, np.int32)
    nxt2[:cap] = nxt
    elem2[:cap] = elem
    return nxt2, elem2


@njit
def pool_push(head, cell, nxt, elem, state, slot):
    """Put ``slot`` at the front of the list of ``cell`` (a node from the free list if any)."""
    node = state[1]
    if node != -1:
        state[1] = nxt[node]
    else:
        node = state[0]
        state[0] += 1
    nxt[node] = head[cell]
    elem[node] = slot
    head[cell] = node


@njit
def pool_unlink(head, cell, nxt, elem, state, slot):
    """Remove ``slot`` from the list of ``cell``; its node goes on the free list.

    Returns True if found. O(length of the list).
    """
    prev = -1
    node = head[cell]
    while node != -1:
        if elem[node] == slot:
            if prev == -1:
                head[cell] = nxt[node]
            else:
                nxt[prev] = nxt[node]
            elem[node] = -1
            nxt[node] = state[1]
            state[1] = node
            return True
        prev = node
        node = nxt[node]
    return False


@njit(inline="always")
def append_id(out, k, value):
    """``out[k] = value`` in a growable int64 buffer; returns ``(out, k + 1)`` (doubling when full)."""
    if k == out.shape[0]:
        out = grow(out, k)
    out[k] = value
    return out, k + 1


# --------------------------------------------------------------------------
# Kernels: query and pairs
# --------------------------------------------------------------------------
@njit(inline="always")
def query_hit(boxes, s, q0, q1, q2, q3, qc0, qr0, c, r, ox, oy, inv, cols, rows):
    """Does slot ``s`` meet the query box, and is cell ``(c, r)`` the one that reports it?

    The reporting cell is that of the lower-left corner of the intersection:
    ``(max(col of xmin, qc0), max(row of ymin, qr0))``, ``(qc0, qr0)`` being
    the query's first cell.
    """
    return (boxes[s, 0] <= q2 and q0 <= boxes[s, 2] and boxes[s, 1] <= q3 and q1 <= boxes[s, 3]
            and max(cell_of(boxes[s, 0], ox, inv, cols), qc0) == c
            and max(cell_of(boxes[s, 1], oy, inv, rows), qr0) == r)


@njit(inline="always")
def cell_pairs(buf, bx, bc, br, m, c, r, out, k):
    """Test the ``m`` gathered elements of cell (c, r) two by two; append hits to ``out``.

    ``bx[i]`` is the box of ``buf[i]``, ``bc[i], br[i]`` the cell of its
    lower-left corner. A pair is kept only in its reference cell. Returns the
    new ``out`` (grown if needed) and count. Branch-free inner loop (as the
    compiled brute force): every candidate is written, the cursor advances on a hit.
    """
    for i in range(m):
        if k + m > out.shape[0]:
            grown = np.empty((max(2 * out.shape[0], k + m), 2), dtype=np.int64)
            grown[:k] = out[:k]
            out = grown
        ax0, ay0, ax1, ay1 = bx[i, 0], bx[i, 1], bx[i, 2], bx[i, 3]
        # Every element here has bc <= c and br <= r, so max(bc_i, bc_j) == c iff one of them is c.
        ci, ri, si = bc[i] == c, br[i] == r, buf[i]
        for j in range(i + 1, m):
            out[k, 0] = si
            out[k, 1] = buf[j]
            k += ((bx[j, 0] <= ax1) & (ax0 <= bx[j, 2]) & (bx[j, 1] <= ay1) & (ay0 <= bx[j, 3])
                  & (ci | (bc[j] == c)) & (ri | (br[j] == r)))
    return out, k


@njit(inline="always")
def gather_cell(head, cell, nxt, elem, boxes, ox, oy, inv, cols, rows, buf, bx, bc, br):
    """Copy the list of ``cell`` into the scratch arrays: slots, boxes, lower-left cells; returns its length."""
    node = head[cell]
    m = 0
    while node != -1:
        s = elem[node]
        buf[m] = s
        for t in range(4):
            bx[m, t] = boxes[s, t]
        bc[m] = cell_of(boxes[s, 0], ox, inv, cols)
        br[m] = cell_of(boxes[s, 1], oy, inv, rows)
        m += 1
        node = nxt[node]
    return m


@njit
def cell_counts(head, nxt, n_cells):
    """Number of nodes in each cell; int64 (n_cells,)."""
    out = np.zeros(n_cells, dtype=np.int64)
    for cell in range(n_cells):
        node = head[cell]
        while node != -1:
            out[cell] += 1
            node = nxt[node]
    return out


# ==========================================================================
# Kernels
# ==========================================================================
@njit
def cell_of_centre(boxes, s, ox, oy, inv, cols, rows):
    """Flat index ``row * cols + col`` of the grid cell holding the centre of ``boxes[s]`` (clamped)."""
    col = cell_of(0.5 * boxes[s, 0] + 0.5 * boxes[s, 2], ox, inv, cols)
    row = cell_of(0.5 * boxes[s, 1] + 0.5 * boxes[s, 3], oy, inv, rows)
    return row * cols + col

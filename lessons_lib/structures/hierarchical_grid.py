"""The hierarchical grid: a fine grid stored row by row, plus coarse occupancy grids.

Lesson 02, last section. Two refinements of the uniform grid from the quadtree
answer set ([SO-quadtree], "coarse/fine grids and the row optimisation"):

* **Coarse occupancy grids.** Beside the fine grid keep a *parent* grid whose
  cells cover ``parent_factor`` x ``parent_factor`` fine cells and a
  *grandparent* grid covering ``grandparent_factor`` parent cells a side, each
  storing one bool per cell: "something may be here". A large query first looks
  at the grandparent cells, descends only into those marked, and so skips
  whole empty regions of the fine grid.
* **Per-row node pools.** Each row of the fine grid owns its cells and its own
  small node pool, so the nodes of one row sit together in memory, and a row
  that becomes empty is freed (it holds no cells at all).

Occupancy bools are set on insert and *not* cleared on remove (a bool cannot
count): a stale True costs a little time, never an answer. A box covering more
than ``max_box_cells`` fine cells goes on an oversize list instead of into the
rows, as in the uniform grid
(:class:`~lessons_lib.structures.uniform_grid.OversizeList`). :meth:`cleanup`
recomputes them from the fine rows.

Layout
------
A row's cells and its pool are *blocks* of three shared arrays (arenas), so
that one compiled call can walk every row. Node indices are relative to the
row's block: moving a block (when its pool must grow) copies it unchanged.
Blocks left behind by moved or freed rows are reclaimed when the arenas are
repacked: when full, and as soon as more than half of them are holes (so a
freed row gives its memory back).

===============  ====================  ===========================================
array            shape, dtype          meaning
===============  ====================  ===========================================
``heads``        (H,) int32            the rows' cells, ``cols`` per allocated row
``nxt, elem``    (N,) int32            the rows' node pools, one block per row
``row_block``    (rows, 3) int64       each row's ``[cells at, nodes at, pool size]``
                                       in the arenas; cells at -1: row freed
``row_state``    (rows, 2) int64       each row's pool counters ``[USED, FREE]``
``row_nodes``    (rows,) int64         nodes in use in each row (0: row freed)
``arena``        (4,) int64            ``[HEADS_END, NODES_END, HEADS_LIVE,
                                       NODES_LIVE]``: where the next block goes,
                                       and how much the allocated rows hold
``parent``       (pr, pc) bool         occupancy of the parent grid
``grandparent``  (gr, gc) bool         occupancy of the grandparent grid
===============  ====================  ===========================================

Cells, the clamping of far boxes, and "each pair once" (from its reference
cell) are as in :mod:`lessons_lib.structures.uniform_grid` and
:mod:`lessons_lib.structures.grid_cells`. The kernels take ``rows_ = (heads,
nxt, elem, row_block, row_state, row_nodes, arena)`` and ``marks =
(parent, grandparent, parent_factor, grandparent_factor)``.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import register
from ..core.jit import njit
from ..core.params import check_int
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .cell_size import DEFAULT_MAX_CELLS
from .grid_cells import (FREE, USED, append_id, box_cells, cell_pairs, cell_span, gather_cell, pool_push, pool_unlink,
                         query_hit)
from .uniform_grid import DEFAULT_MAX_BOX_CELLS, FixedGrid, OversizeList

__all__ = [
    "HierarchicalGrid", "mark", "insert_boxes", "unlink_box", "remove_box", "update_boxes",
    "query_box", "pairs_by_reference_cell", "cleanup_marks",
]

#: Columns of ``row_block``.
CELLS, NODES, POOL = 0, 1, 2
#: Entries of ``arena``.
HEADS_END, NODES_END, HEADS_LIVE, NODES_LIVE = 0, 1, 2, 3
#: Nodes of a new row's pool (it doubles when full).
FIRST_POOL = 8


# --------------------------------------------------------------------------
# Rows: their blocks in the arenas (the plumbing the steps call)
# --------------------------------------------------------------------------
@njit(inline="always")
def _row_lists(rows_, r, cols):
    """Row ``r``'s ``(head, nxt, elem, state)`` as views of its blocks (node indices relative to its pool)."""
    heads, nxt, elem, block, state = rows_[0], rows_[1], rows_[2], rows_[3], rows_[4]
    h, n, size = block[r, CELLS], block[r, NODES], block[r, POOL]
    return heads[h:h + cols], nxt[n:n + size], elem[n:n + size], state[r]


@njit
def _repack(rows_, cols, more_heads, more_nodes, slack):
    """Copy every allocated row's blocks, in row order, into new arenas with room for ``more`` beyond them.

    The new arenas hold ``slack`` times what the rows use plus the room
    asked for (``slack = 1``: exactly). Returns the new ``(heads, nxt, elem)``.
    """
    heads, nxt, elem, block, state, count, arena = rows_
    heads2 = np.empty(int((arena[HEADS_LIVE] + more_heads) * slack), np.int32)
    nxt2 = np.empty(int((arena[NODES_LIVE] + more_nodes) * slack), np.int32)
    elem2 = np.empty(nxt2.shape[0], np.int32)
    h2, n2 = 0, 0
    for r in range(block.shape[0]):
        if block[r, CELLS] != -1:
            h, n, size = block[r, CELLS], block[r, NODES], block[r, POOL]
            for i in range(cols):
                heads2[h2 + i] = heads[h + i]
            for i in range(size):
                nxt2[n2 + i] = nxt[n + i]
                elem2[n2 + i] = elem[n + i]
            block[r, CELLS], block[r, NODES] = h2, n2
            h2 += cols
            n2 += size
    arena[HEADS_END], arena[NODES_END] = h2, n2
    return heads2, nxt2, elem2


@njit
def _repack_if_mostly_holes(rows_, cols):
    """Repack the arenas when more than half of them are holes; returns the (possibly new) ``(heads, nxt, elem)``."""
    heads, nxt, elem, block, state, count, arena = rows_
    if 2 * (arena[HEADS_LIVE] + arena[NODES_LIVE]) < heads.shape[0] + nxt.shape[0]:
        return _repack(rows_, cols, 0, 0, 1.5)
    return heads, nxt, elem


@njit
def _make_room(rows_, r, cols, extra):
    """Row ``r`` allocated, with room for ``extra`` more fresh nodes; returns the (possibly new) ``(heads, nxt, elem)``.

    A freed row gets a block of cells and a pool of ``FIRST_POOL`` nodes (or
    ``max(extra, 2 * FIRST_POOL)``); a full pool moves to a block twice as
    large (or ``used + extra``) at the end of the arenas, repacked first when
    they lack room.
    """
    heads, nxt, elem, block, state, count, arena = rows_
    if block[r, CELLS] == -1:
        size = FIRST_POOL if extra <= FIRST_POOL else max(extra, 2 * FIRST_POOL)
        if arena[HEADS_END] + cols > heads.shape[0] or arena[NODES_END] + size > nxt.shape[0]:
            heads, nxt, elem = _repack(rows_, cols, cols, size, 1.5)
        h, n = arena[HEADS_END], arena[NODES_END]
        block[r, CELLS], block[r, NODES], block[r, POOL] = h, n, size
        for i in range(cols):
            heads[h + i] = -1
        state[r, USED], state[r, FREE] = 0, -1
        arena[HEADS_END] += cols
        arena[NODES_END] += size
        arena[HEADS_LIVE] += cols
        arena[NODES_LIVE] += size
    elif state[r, USED] + extra > block[r, POOL]:
        old = block[r, POOL]
        size = max(state[r, USED] + extra, 2 * old)
        if arena[NODES_END] + size > nxt.shape[0]:
            heads, nxt, elem = _repack(rows_, cols, 0, size, 1.5)
        n, e = block[r, NODES], arena[NODES_END]
        for i in range(size):
            nxt[e + i] = nxt[n + i] if i < old else -1
            elem[e + i] = elem[n + i] if i < old else -1
        block[r, NODES], block[r, POOL] = e, size
        arena[NODES_END] += size
        arena[NODES_LIVE] += size - old
    return heads, nxt, elem


@njit(inline="always")
def mark(marks, c0, r0, c1, r1):
    """Set the parent and grandparent cells over the fine cells ``c0 .. c1`` x ``r0 .. r1``."""
    parent, grand, fp, fg = marks
    for pr in range(r0 // fp, r1 // fp + 1):
        for pc in range(c0 // fp, c1 // fp + 1):
            parent[pr, pc] = True
            grand[pr // fg, pc // fg] = True


# --------------------------------------------------------------------------
# The steps
# --------------------------------------------------------------------------
@njit
def insert_boxes(rows_, geom, marks, boxes, slots):
    """Insert: push each slot on the lists of its cells, row by row; mark the coarse cells above them.

    First every row's pool is made large enough for all its new nodes (so a
    bulk load allocates each row once), then the slots go in, in reverse.
    Returns the (possibly new) ``(heads, nxt, elem)``.
    """
    heads, nxt, elem, block, state, count, arena = rows_
    ox, oy, inv, cols, rows = geom
    need = np.zeros(rows, np.int64)
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, boxes, slots[k])
        for r in range(r0, r1 + 1):
            need[r] += c1 - c0 + 1
    more_heads, more_nodes = 0, 0  # what the rows' new or larger pools take from the arenas
    for r in range(rows):
        if need[r] > 0 and block[r, CELLS] == -1:
            more_heads += cols
            more_nodes += FIRST_POOL if need[r] <= FIRST_POOL else max(need[r], 2 * FIRST_POOL)
        elif need[r] > 0 and state[r, USED] + need[r] > block[r, POOL]:
            more_nodes += max(state[r, USED] + need[r], 2 * block[r, POOL])
    if arena[HEADS_END] + more_heads > heads.shape[0] or arena[NODES_END] + more_nodes > nxt.shape[0]:
        slack = 1.0 if arena[HEADS_LIVE] == 0 else 1.5  # a bulk load into an empty grid: arenas of the exact size
        heads, nxt, elem = _repack(rows_, cols, more_heads, more_nodes, slack)
    for r in range(rows):
        if need[r] > 0:
            heads, nxt, elem = _make_room((heads, nxt, elem, block, state, count, arena), r, cols, need[r])
            count[r] += need[r]
    rows_ = (heads, nxt, elem, block, state, count, arena)
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        c0, r0, c1, r1 = box_cells(geom, boxes, s)
        for r in range(r0, r1 + 1):
            head, rnxt, relem, rstate = _row_lists(rows_, r, cols)
            for c in range(c0, c1 + 1):
                pool_push(head, rnxt, relem, rstate, c, s)
        mark(marks, c0, r0, c1, r1)
    return heads, nxt, elem


@njit(inline="always")
def unlink_box(rows_, cols, c0, r0, c1, r1, slot):
    """Take ``slot`` out of the cells ``c0 .. c1`` x ``r0 .. r1``; a row left empty is freed."""
    block, state, count, arena = rows_[3], rows_[4], rows_[5], rows_[6]
    for r in range(r0, r1 + 1):
        head, nxt, elem, rstate = _row_lists(rows_, r, cols)
        for c in range(c0, c1 + 1):
            pool_unlink(head, nxt, elem, rstate, c, slot)
        count[r] -= c1 - c0 + 1
        if count[r] == 0:  # the row optimisation: an empty row is freed
            block[r, CELLS] = -1
            state[r, USED], state[r, FREE] = 0, -1
            arena[HEADS_LIVE] -= cols
            arena[NODES_LIVE] -= block[r, POOL]


@njit
def remove_box(rows_, geom, boxes, slot):
    """Remove: unlink ``slot`` from every cell of its box ``boxes[slot]``; returns the (possibly new) ``(heads, nxt, elem)``."""
    c0, r0, c1, r1 = box_cells(geom, boxes, slot)
    unlink_box(rows_, geom[3], c0, r0, c1, r1, slot)
    return _repack_if_mostly_holes(rows_, geom[3])


@njit
def update_boxes(rows_, geom, marks, slots, old, new):
    """Update: boxes whose cell range changed leave their old cells and join the new ones.

    Returns the (possibly new) ``(heads, nxt, elem)``.
    """
    heads, nxt, elem, block, state, count, arena = rows_
    ox, oy, inv, cols, rows = geom
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, old, k)
        d0, s0, d1, s1 = box_cells(geom, new, k)
        if c0 == d0 and r0 == s0 and c1 == d1 and r1 == s1:
            continue
        s = slots[k]
        unlink_box((heads, nxt, elem, block, state, count, arena), cols, c0, r0, c1, r1, s)
        for r in range(s0, s1 + 1):
            if block[r, CELLS] == -1 or state[r, USED] + d1 - d0 + 1 > block[r, POOL]:
                heads, nxt, elem = _make_room((heads, nxt, elem, block, state, count, arena), r, cols, d1 - d0 + 1)
            head, rnxt, relem, rstate = _row_lists((heads, nxt, elem, block, state, count, arena), r, cols)
            for c in range(d0, d1 + 1):
                pool_push(head, rnxt, relem, rstate, c, s)
            count[r] += d1 - d0 + 1
        mark(marks, d0, s0, d1, s1)
    return _repack_if_mostly_holes((heads, nxt, elem, block, state, count, arena), cols)


@njit
def query_box(rows_, geom, marks, boxes, q):
    """Query: slots meeting the closed box ``q``, each once; descends grandparent -> parent -> fine cells.

    Only fine cells under marked coarse cells, in allocated rows, are
    visited. Returns ``(slots, fine cells visited, coarse cells looked at)``.
    """
    ox, oy, inv, cols, rows = geom
    parent, grand, fp, fg = marks
    block = rows_[3]
    qc0, qr0, qc1, qr1 = cell_span(geom, q[XMIN], q[YMIN], q[XMAX], q[YMAX])
    out = np.empty(16, dtype=np.int64)
    k = 0
    visited = 0
    looked = 0
    for gr in range(qr0 // (fp * fg), qr1 // (fp * fg) + 1):
        for gc in range(qc0 // (fp * fg), qc1 // (fp * fg) + 1):
            looked += 1
            if not grand[gr, gc]:
                continue
            for pr in range(max(gr * fg, qr0 // fp), min(gr * fg + fg - 1, qr1 // fp) + 1):
                for pc in range(max(gc * fg, qc0 // fp), min(gc * fg + fg - 1, qc1 // fp) + 1):
                    looked += 1
                    if not parent[pr, pc]:
                        continue
                    for r in range(max(pr * fp, qr0), min(pr * fp + fp - 1, qr1) + 1):
                        if block[r, CELLS] == -1:
                            continue
                        head, nxt, elem, state = _row_lists(rows_, r, cols)
                        for c in range(max(pc * fp, qc0), min(pc * fp + fp - 1, qc1) + 1):
                            visited += 1
                            node = head[c]
                            while node != -1:
                                s = elem[node]
                                node = nxt[node]
                                if query_hit(boxes, s, q, qc0, qr0, c, r, geom):
                                    out, k = append_id(out, k, s)
    return out[:k].copy(), visited, looked


@njit
def pairs_by_reference_cell(rows_, geom, boxes, n_slots):
    """All pairs, each once (from its reference cell), row after row; plus the box tests made."""
    ox, oy, inv, cols, rows = geom
    block = rows_[3]
    m_max = max(n_slots, 1)  # a cell holds a slot at most once
    copy = (np.empty(m_max, np.int64), np.empty((m_max, 4), np.float64), np.empty(m_max, np.int64),
            np.empty(m_max, np.int64))
    out = np.empty((max(16, n_slots), 2), dtype=np.int64)
    k = 0
    tests = 0
    for r in range(rows):
        if block[r, CELLS] == -1:
            continue
        head, nxt, elem, state = _row_lists(rows_, r, cols)
        for c in range(cols):
            first = head[c]
            if first == -1 or nxt[first] == -1:
                continue
            m = gather_cell(first, nxt, elem, boxes, geom, copy)
            tests += m * (m - 1) // 2
            out, k = cell_pairs(copy, m, c, r, out, k)
    return out[:k].copy(), tests


@njit
def cleanup_marks(rows_, geom, marks):
    """Cleanup: recompute the occupancy grids from the rows (clears marks left by removals)."""
    ox, oy, inv, cols, rows = geom
    parent, grand, fp, fg = marks
    parent.fill(False)
    grand.fill(False)
    for r in range(rows):
        if rows_[3][r, CELLS] == -1:
            continue
        head = _row_lists(rows_, r, cols)[0]
        for c in range(cols):
            if head[c] != -1:
                parent[r // fp, c // fp] = True
                grand[r // (fp * fg), c // (fp * fg)] = True


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("hierarchical_grid")
class HierarchicalGrid(OversizeList, FixedGrid):
    """A fine grid stored as per-row node pools, with parent and grandparent occupancy grids.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        As :class:`~lessons_lib.structures.uniform_grid.UniformGrid`.
    cell_size : float, optional
        Side of a fine cell (default as ``UniformGrid``).
    parent_factor, grandparent_factor : int
        A parent cell covers ``parent_factor`` fine cells a side (>= 2); a
        grandparent cell covers ``grandparent_factor`` parent cells a side (>= 2).
    max_cells : int
        Refuse fine grids with more cells than this.
    max_box_cells : int
        The budget of fine cells per box (>= 1, default 65,536): a box covering
        more is not filed in cells but kept on the *oversize list*
        (:class:`~lessons_lib.structures.uniform_grid.OversizeList`,
        :meth:`oversize`), tested box by box by queries and against every
        element by ``pairs()``; no box costs more than ``8 * max_box_cells``
        bytes of nodes, whatever the cell size.

    Attributes
    ----------
    parent, grandparent : numpy.ndarray of bool
        The occupancy grids.
    last_query_cells : int
        Fine cells visited by the last query (skipped ones not counted).
    last_query_coarse : int
        Parent and grandparent cells looked at by the last query.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()``.

    Raises
    ------
    ValueError
        Bad world, cell size (also below about 5.6e-309), factors or ``max_cells``.

    Notes
    -----
    Coordinates: any finite float, as the uniform grid (far boxes clamp into
    the border cells; worlds wider than the float range work).

    Memory: 1 byte per parent and grandparent cell, 48 bytes per row, and
    per *allocated* row 4 bytes per cell + 8 bytes per node of its pool;
    empty rows cost no cells. A query visits only fine cells under marked
    coarse cells. The coarse grids and the row optimisation follow the
    quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import HierarchicalGrid
    >>> h = HierarchicalGrid(world=[0, 0, 160, 160], cell_size=10)
    >>> h.insert(0, [5, 5, 12, 12]); h.insert(1, [11, 11, 14, 14]); h.insert(2, [150, 150, 151, 151])
    >>> h.pairs().tolist(), h.rows_allocated()
    ([[0, 1]], 3)
    >>> h.query([0, 0, 100, 100]).tolist(), h.last_query_cells
    ([0, 1], 8)
    """

    def __init__(self, *, world=None, cell_size=None, parent_factor: int = 4, grandparent_factor: int = 4,
                 max_cells: int = DEFAULT_MAX_CELLS, max_box_cells: int = DEFAULT_MAX_BOX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self._init_oversize(max_box_cells)
        self.parent_factor = check_int("parent_factor", parent_factor, 2)
        self.grandparent_factor = check_int("grandparent_factor", grandparent_factor, 2)
        fp, fg = self.parent_factor, self.grandparent_factor
        self.parent = np.zeros((math.ceil(self.rows / fp), math.ceil(self.cols / fp)), dtype=np.bool_)
        self.grandparent = np.zeros((math.ceil(self.parent.shape[0] / fg), math.ceil(self.parent.shape[1] / fg)),
                                    dtype=np.bool_)
        self.heads = np.empty(0, np.int32)
        self.nxt = np.empty(0, np.int32)
        self.elem = np.empty(0, np.int32)
        self.row_block = np.zeros((self.rows, 3), np.int64)
        self.row_state = np.zeros((self.rows, 2), np.int64)
        self.row_nodes = np.zeros(self.rows, dtype=np.int64)
        self.arena = np.zeros(4, np.int64)
        self._clear()
        self.last_query_coarse = 0

    @property
    def rows_(self):
        """``(heads, nxt, elem, row_block, row_state, row_nodes, arena)``, as the kernels take them."""
        return self.heads, self.nxt, self.elem, self.row_block, self.row_state, self.row_nodes, self.arena

    @property
    def marks(self):
        """``(parent, grandparent, parent_factor, grandparent_factor)``, as the kernels take them."""
        return self.parent, self.grandparent, self.parent_factor, self.grandparent_factor

    def rows_allocated(self) -> int:
        """Rows currently holding cells (the others are freed)."""
        return int((self.row_block[:, CELLS] != -1).sum())

    def row(self, r: int):
        """Row ``r``'s ``(head, nxt, elem, state)`` (views; node indices relative to its pool), or None if freed."""
        if self.row_block[r, CELLS] == -1:
            return None
        return tuple(a.copy() for a in _row_lists(self.rows_, r, self.cols))

    # -- the steps over cells (OversizeList routes the boxes too big for them) ----
    def _insert_in_cells(self, slots):
        self.heads, self.nxt, self.elem = insert_boxes(self.rows_, self.geom, self.marks, self.elements.boxes, slots)

    def _remove_from_cells(self, slot):
        self.heads, self.nxt, self.elem = remove_box(self.rows_, self.geom, self.elements.boxes, slot)

    def _update_in_cells(self, slots, old, new):
        self.heads, self.nxt, self.elem = update_boxes(self.rows_, self.geom, self.marks, slots, old, new)

    def _query(self, box):
        slots, self.last_query_cells, self.last_query_coarse = query_box(self.rows_, self.geom, self.marks,
                                                                         self.elements.boxes, box)
        return self._with_oversize_hits(slots, box)

    def _pairs(self):
        p, self.last_pair_tests = pairs_by_reference_cell(self.rows_, self.geom, self.elements.boxes,
                                                          self.elements.high_water)
        return self._with_oversize_pairs(p)

    def _clear(self):
        self.row_block[:, CELLS] = -1
        self.row_block[:, 1:] = 0
        self.row_state[:] = (0, -1)
        self.row_nodes[:] = 0
        self.arena[:] = 0
        self.parent[:] = False
        self.grandparent[:] = False
        self._big.clear()

    def _cleanup(self):
        """Recompute the occupancy grids (clears the marks left by removals)."""
        cleanup_marks(self.rows_, self.geom, self.marks)

    def _nbytes(self):
        return sum(a.nbytes for a in self.rows_) + self.parent.nbytes + self.grandparent.nbytes + 8 * len(self._big)

    def regions(self):
        """Grandparent cells (depth 0), marked parent cells (1), non-empty fine cells (2)."""
        fp, fg = self.parent_factor, self.grandparent_factor
        r, c = np.divmod(np.arange(self.grandparent.size), self.grandparent.shape[1])
        out, depth = [self._cell_rects(r, c, fp * fg)], [np.zeros(len(r), np.int64)]
        r, c = np.nonzero(self.parent)
        out.append(self._cell_rects(r, c, fp))
        depth.append(np.ones(len(r), np.int64))
        for r in range(self.rows):
            lists = self.row(r)
            if lists is not None:
                c = np.flatnonzero(lists[0] != -1)
                out.append(self._cell_rects(np.full(len(c), r), c))
                depth.append(np.full(len(c), 2, np.int64))
        return np.concatenate(out), np.concatenate(depth)

    def __repr__(self):
        return (f"HierarchicalGrid(n={len(self)}, cell_size={self.cell_size:g}, grid={self.rows}x{self.cols}, "
                f"factors=({self.parent_factor}, {self.grandparent_factor}), rows allocated={self.rows_allocated()})")

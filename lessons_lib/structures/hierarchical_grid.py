"""The hierarchical grid: a fine grid stored row by row, plus coarse occupancy grids.

Lesson 02, last section. Two refinements of the uniform grid from the quadtree
answer set ([SO-quadtree], "coarse/fine grids and the row
optimisation"):

* **Coarse occupancy grids.** Beside the fine grid keep a *parent* grid whose
  cells cover ``parent_factor`` x ``parent_factor`` fine cells and a
  *grandparent* grid covering ``grandparent_factor`` parent cells a side, each
  storing one bool per cell: "something may be here". A large query first looks
  at the grandparent cells, descends only into those marked, and so skips
  whole empty regions of the fine grid.
* **Per-row node lists.** Each row of the fine grid owns its own small node
  pool (``head``, ``nxt``, ``elem``), so the nodes of one row sit together in
  memory, and a row that becomes empty is freed entirely (``None``).

Occupancy bools are set on insert and *not* cleared on remove (a bool cannot
count): a stale True costs a little time, never an answer. :meth:`cleanup`
recomputes them from the fine rows.

Layout
------
==================  ====================  =======================================
attribute           shape, dtype          meaning
==================  ====================  =======================================
``row_store[r]``    None or RowStore      row ``r``'s ``head`` ((cols,) int32)
                                          and its node pool (``nxt``, ``elem``)
``row_nodes``       (rows,) int64         nodes in each row (0: row freed)
``parent``          (pr, pc) bool         occupancy of the parent grid
``grandparent``     (gr, gc) bool         occupancy of the grandparent grid
==================  ====================  =======================================

Cells, the clamping of far boxes, and "each pair once" (from its reference
cell) are as in :mod:`lessons_lib.structures.uniform_grid` and :mod:`lessons_lib.structures.grid_cells`.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import register
from .grid_cells import append_id, cell_of, cell_pairs, gather_cell, grow_pool, new_pool, pool_push, pool_unlink, query_hit
from ..core.jit import njit
from ..core.params import check_int
from .uniform_grid import DEFAULT_MAX_CELLS, FixedGrid

__all__ = ["HierarchicalGrid"]


class RowStore:
    """One fine-grid row: ``head`` (cols,) int32 and its own node pool."""

    __slots__ = ("head", "nxt", "elem", "state")

    def __init__(self, cols: int):
        self.head = np.full(cols, -1, dtype=np.int32)
        self.nxt, self.elem, self.state = new_pool(8)

    def nbytes(self) -> int:
        return self.head.nbytes + self.nxt.nbytes + self.elem.nbytes + self.state.nbytes


# --------------------------------------------------------------------------
# Kernels (one row at a time)
# --------------------------------------------------------------------------
@njit
def _row_insert(head, nxt, elem, state, c0, c1, slot):
    for c in range(c0, c1 + 1):
        pool_push(head, c, nxt, elem, state, slot)


@njit
def _row_remove(head, nxt, elem, state, c0, c1, slot):
    for c in range(c0, c1 + 1):
        pool_unlink(head, c, nxt, elem, state, slot)


@njit
def _row_build(head, nxt, elem, state, c0, c1, slots):
    """Bulk load of one row: slot ``slots[k]`` into columns ``c0[k] .. c1[k]`` (reverse order keeps lists in slot order)."""
    for k in range(slots.shape[0] - 1, -1, -1):
        _row_insert(head, nxt, elem, state, c0[k], c1[k], slots[k])


@njit
def _cell_ranges(boxes, ox, oy, inv, cols, rows):
    """``(c0, r0, c1, r1)`` int64 arrays: the clamped cell range of every box."""
    n = boxes.shape[0]
    c0 = np.empty(n, dtype=np.int64)
    r0 = np.empty(n, dtype=np.int64)
    c1 = np.empty(n, dtype=np.int64)
    r1 = np.empty(n, dtype=np.int64)
    for k in range(n):
        c0[k] = cell_of(boxes[k, 0], ox, inv, cols)
        r0[k] = cell_of(boxes[k, 1], oy, inv, rows)
        c1[k] = cell_of(boxes[k, 2], ox, inv, cols)
        r1[k] = cell_of(boxes[k, 3], oy, inv, rows)
    return c0, r0, c1, r1


@njit
def _mark(occ, c0, r0, c1, r1, f):
    """Set ``occ[r // f, c // f]`` for every cell of every range (a 2-D bool array)."""
    for k in range(c0.shape[0]):
        for r in range(r0[k] // f, r1[k] // f + 1):
            for c in range(c0[k] // f, c1[k] // f + 1):
                occ[r, c] = True


@njit
def _row_query(head, nxt, elem, boxes, cols_to_visit, r, q0, q1, q2, q3, qc0, qr0, ox, oy, inv, ncols, nrows):
    """Slots in the listed cells of row ``r`` meeting the query box (reference-cell rule)."""
    out = np.empty(16, dtype=np.int64)
    k = 0
    for c in cols_to_visit:
        node = head[c]
        while node != -1:
            s = elem[node]
            node = nxt[node]
            if query_hit(boxes, s, q0, q1, q2, q3, qc0, qr0, c, r, ox, oy, inv, ncols, nrows):
                out, k = append_id(out, k, s)
    return out[:k].copy()


@njit
def _row_pairs(head, nxt, elem, boxes, r, ox, oy, inv, ncols, nrows, buf, bx, bc, br):
    """Pairs whose reference cell is in row ``r``; plus box tests made.

    ``buf``, ``bx``, ``bc``, ``br``: scratch arrays with room for the fullest
    cell (allocated once per ``pairs()`` call, shared by the rows).
    """
    out = np.empty((16, 2), dtype=np.int64)
    k = 0
    tests = 0
    for c in range(ncols):
        m = gather_cell(head, c, nxt, elem, boxes, ox, oy, inv, ncols, nrows, buf, bx, bc, br)
        if m > 1:
            tests += m * (m - 1) // 2
            out, k = cell_pairs(buf, bx, bc, br, m, c, r, out, k)
    return out[:k].copy(), tests


@njit
def _fine_cells(grand, parent, gcols, pcols, fp, fg, r0, r1, c0, c1):
    """Fine cells ``(r, c)`` in the range whose parent and grandparent cells are marked.

    Descends grandparent -> parent -> fine, skipping unmarked coarse cells.
    Returns ``(rows, cols, coarse_cells_looked_at)``.
    """
    cap = 64
    rr = np.empty(cap, dtype=np.int64)
    cc = np.empty(cap, dtype=np.int64)
    k = 0
    looked = 0
    for gr in range(r0 // (fp * fg), r1 // (fp * fg) + 1):
        for gc in range(c0 // (fp * fg), c1 // (fp * fg) + 1):
            looked += 1
            if not grand[gr * gcols + gc]:
                continue
            for pr in range(max(gr * fg, r0 // fp), min(gr * fg + fg - 1, r1 // fp) + 1):
                for pc in range(max(gc * fg, c0 // fp), min(gc * fg + fg - 1, c1 // fp) + 1):
                    looked += 1
                    if not parent[pr * pcols + pc]:
                        continue
                    for r in range(max(pr * fp, r0), min(pr * fp + fp - 1, r1) + 1):
                        for c in range(max(pc * fp, c0), min(pc * fp + fp - 1, c1) + 1):
                            if k == cap:
                                cap *= 2
                                g1 = np.empty(cap, dtype=np.int64)
                                g2 = np.empty(cap, dtype=np.int64)
                                g1[:k] = rr[:k]
                                g2[:k] = cc[:k]
                                rr, cc = g1, g2
                            rr[k] = r
                            cc[k] = c
                            k += 1
    return rr[:k].copy(), cc[:k].copy(), looked


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("hierarchical_grid")
class HierarchicalGrid(FixedGrid):
    """A fine grid stored as per-row node lists, with parent and grandparent occupancy grids.

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

    Attributes
    ----------
    last_query_cells : int
        Fine cells visited by the last query (skipped ones not counted).
    last_query_coarse : int
        Parent and grandparent cells looked at by the last query.

    Raises
    ------
    ValueError
        Bad world, cell size, factors or ``max_cells``.

    Notes
    -----
    Memory: 1 byte per parent and grandparent cell, and per *non-empty* row
    4 bytes per cell + 8 bytes per node; empty rows cost nothing. A query
    visits only fine cells under marked coarse cells.
    """

    def __init__(self, *, world=None, cell_size=None, parent_factor: int = 4, grandparent_factor: int = 4,
                 max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.parent_factor = check_int("parent_factor", parent_factor, 2)
        self.grandparent_factor = check_int("grandparent_factor", grandparent_factor, 2)
        fp, fg = self.parent_factor, self.grandparent_factor
        self.parent = np.zeros((math.ceil(self.rows / fp), math.ceil(self.cols / fp)), dtype=np.bool_)
        self.grandparent = np.zeros((math.ceil(self.parent.shape[0] / fg), math.ceil(self.parent.shape[1] / fg)),
                                    dtype=np.bool_)
        self.row_store: list[RowStore | None] = [None] * self.rows
        self.row_nodes = np.zeros(self.rows, dtype=np.int64)
        self.last_query_coarse = 0

    def rows_allocated(self) -> int:
        """Rows currently holding nodes (the others are freed)."""
        return sum(s is not None for s in self.row_store)

    # -- hooks ----------------------------------------------------------
    def _insert(self, slot, box):
        c0, r0, c1, r1 = self.cell_range(box)
        for r in range(r0, r1 + 1):
            st = self.row_store[r]
            if st is None:
                st = self.row_store[r] = RowStore(self.cols)
            st.nxt, st.elem = grow_pool(st.nxt, st.elem, st.state, c1 - c0 + 1)
            _row_insert(st.head, st.nxt, st.elem, st.state, c0, c1, slot)
            self.row_nodes[r] += c1 - c0 + 1
        fp, fg = self.parent_factor, self.grandparent_factor
        self.parent[r0 // fp: r1 // fp + 1, c0 // fp: c1 // fp + 1] = True
        self.grandparent[r0 // (fp * fg): r1 // (fp * fg) + 1, c0 // (fp * fg): c1 // (fp * fg) + 1] = True

    def _build(self, slots):
        """Bulk load: group the (box, row) entries by row, then one compiled call per row."""
        if len(slots) == 0:
            return
        c0, r0, c1, r1 = _cell_ranges(self.elements.boxes[slots], *self._geom)
        span = r1 - r0 + 1
        who = np.repeat(np.arange(len(slots)), span)
        row_of = r0[who] + (np.arange(len(who)) - np.repeat(np.cumsum(span) - span, span))
        order = np.argsort(row_of, kind="stable")
        row_of, who = row_of[order], who[order]
        bounds = np.concatenate([[0], np.flatnonzero(np.diff(row_of)) + 1, [len(row_of)]])
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            r, ks = int(row_of[a]), who[a:b]
            st = self.row_store[r]
            if st is None:
                st = self.row_store[r] = RowStore(self.cols)
            count = int((c1[ks] - c0[ks] + 1).sum())
            st.nxt, st.elem = grow_pool(st.nxt, st.elem, st.state, count)
            _row_build(st.head, st.nxt, st.elem, st.state, c0[ks], c1[ks], slots[ks])
            self.row_nodes[r] += count
        fp, fg = self.parent_factor, self.grandparent_factor
        _mark(self.parent, c0, r0, c1, r1, fp)
        _mark(self.grandparent, c0, r0, c1, r1, fp * fg)

    def _remove(self, slot, box):
        c0, r0, c1, r1 = self.cell_range(box)
        for r in range(r0, r1 + 1):
            st = self.row_store[r]
            _row_remove(st.head, st.nxt, st.elem, st.state, c0, c1, slot)
            self.row_nodes[r] -= c1 - c0 + 1
            if self.row_nodes[r] == 0:
                self.row_store[r] = None  # the row optimisation: an empty row is freed

    def _update(self, slot, old, new):
        if self.cell_range(old) != self.cell_range(new):
            self._remove(slot, old)
            self._insert(slot, new)

    def _query(self, box):
        qc0, qr0, qc1, qr1 = self.cell_range(box)
        rr, cc, self.last_query_coarse = _fine_cells(
            self.grandparent.ravel(), self.parent.ravel(), self.grandparent.shape[1], self.parent.shape[1],
            self.parent_factor, self.grandparent_factor, qr0, qr1, qc0, qc1)
        found = []
        visited = 0
        if len(rr):
            order = np.argsort(rr, kind="stable")
            rr, cc = rr[order], cc[order]
            starts = np.concatenate([[0], np.flatnonzero(np.diff(rr)) + 1, [len(rr)]])
            for a, b in zip(starts[:-1], starts[1:]):
                r = int(rr[a])
                st = self.row_store[r]
                if st is None:
                    continue
                visited += b - a
                found.append(_row_query(st.head, st.nxt, st.elem, self.elements.boxes, cc[a:b], r,
                                        box[0], box[1], box[2], box[3], qc0, qr0, *self._geom))
        self.last_query_cells = int(visited)
        return np.concatenate(found) if found else np.empty(0, np.int64)

    def _pairs(self):
        parts = []
        self.last_pair_tests = 0
        cap = max(1, self.elements.high_water)  # a cell holds a slot at most once
        scratch = (np.empty(cap, np.int64), np.empty((cap, 4)), np.empty(cap, np.int64), np.empty(cap, np.int64))
        for r, st in enumerate(self.row_store):
            if st is None:
                continue
            p, t = _row_pairs(st.head, st.nxt, st.elem, self.elements.boxes, r, *self._geom, *scratch)
            parts.append(p)
            self.last_pair_tests += int(t)
        return np.concatenate(parts) if parts else np.empty((0, 2), np.int64)

    def _clear(self):
        self.row_store = [None] * self.rows
        self.row_nodes[:] = 0
        self.parent[:] = False
        self.grandparent[:] = False

    def _cleanup(self):
        """Recompute the occupancy grids from the rows (clears marks left by removals)."""
        fp, fg = self.parent_factor, self.grandparent_factor
        self.parent[:] = False
        for r, st in enumerate(self.row_store):
            if st is not None:
                cols = np.flatnonzero(st.head != -1)
                self.parent[r // fp, cols // fp] = True
        g = np.zeros_like(self.grandparent)
        pr, pc = np.nonzero(self.parent)
        g[pr // fg, pc // fg] = True
        self.grandparent[:] = g

    def _nbytes(self):
        rows = sum(st.nbytes() for st in self.row_store if st is not None)
        return rows + self.row_nodes.nbytes + self.parent.nbytes + self.grandparent.nbytes

    def regions(self):
        """Grandparent cells (depth 0), marked parent cells (1), non-empty fine cells (2)."""
        out, depth = [], []
        s = self.cell_size
        x0, y0 = self.world[0], self.world[1]
        for d, (grid, size) in enumerate(((self.grandparent, s * self.parent_factor * self.grandparent_factor),
                                          (self.parent, s * self.parent_factor))):
            if d == 0:
                r, c = np.divmod(np.arange(grid.size), grid.shape[1])
            else:
                r, c = np.nonzero(grid)
            out.append(np.column_stack([x0 + c * size, y0 + r * size, x0 + (c + 1) * size, y0 + (r + 1) * size]))
            depth.append(np.full(len(r), d))
        for r, st in enumerate(self.row_store):
            if st is not None:
                c = np.flatnonzero(st.head != -1)
                out.append(np.column_stack([x0 + c * s, np.full(len(c), y0 + r * s), x0 + (c + 1) * s,
                                            np.full(len(c), y0 + (r + 1) * s)]))
                depth.append(np.full(len(c), 2))
        return (np.concatenate(out).astype(np.float64).reshape(-1, 4),
                np.concatenate(depth).astype(np.int64))

    def __repr__(self):
        return (f"HierarchicalGrid(n={len(self)}, cell_size={self.cell_size:g}, grid={self.rows}x{self.cols}, "
                f"factors=({self.parent_factor}, {self.grandparent_factor}), rows allocated={self.rows_allocated()})")

"""The uniform-size trick: elements of one bounded size stored as points, one cell each.

Lesson 07. In many scenes most moving things are about the same size (people,
orcs and hobbits; particles; cars). Give all of them one common upper bound
``h`` on their half-size and a grid no longer needs their sizes to find
candidates: it stores each element as the single **point** at its centre, in
exactly one cell, and a search enlarges the query by ``h``. Two boxes of
half-size at most ``h`` can only meet if their centres are at most ``2 h``
apart on each axis, so a pair search only looks at neighbouring cells.

Why searching ``h`` further finds every centre
----------------------------------------------
A box of half-size ``<= h`` around centre ``c`` meets a query box ``Q`` only if
``c`` lies in ``Q`` grown by ``h`` on every side (the box reaches at most ``h``
from its centre). For two elements, grow one of them by ``h`` (half-size up
to ``2 h``): the other's centre must lie within ``2 h`` of the first's. The
enlarged search is therefore *complete*; the exact test on the stored boxes
then removes the candidates that were only close.

Data layout
-----------
=========  ==============  =====================================================
array      shape, dtype    meaning
=========  ==============  =====================================================
``head``   (cells,) int32  first slot of each cell's list (-1: empty); cell
                           ``(row, col)`` is ``row * cols + col``
``enext``  (slots,) int32  next slot of the same cell (-1 ends the list)
=========  ==============  =====================================================

No per-element size is kept by the grid (4 bytes per element, 4 per cell);
the centres are read from the shared element table, which also holds the
boxes for the exact final test (every structure of the course answers
exactly).

The bound
---------
``half_size=h`` fixes the bound: inserting or moving an element whose
half-width or half-height exceeds ``h`` raises ``ValueError`` (it belongs in
a loose structure: :class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid` or
:class:`~lessons_lib.structures.loose_quadtree.LooseQuadtree`). ``half_size=None`` (the
default) *learns* the bound: it grows to the largest element stored and is
recomputed by :meth:`PointGrid.cleanup`. That keeps the structure usable with
any input, and shows the trick's weakness in numbers: one giant makes every
search as wide as the giant.

References
----------
The quadtree answer set on Stack Overflow [SO-quadtree],
section "Dirty trick: uniform sizes": a common upper bound for the common
case, elements stored as points in one cell, searches twice the radius, and
the split of content into common-size agents, giants and static scenery.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import register
from .grid_cells import cell_counts, cell_of, cell_of_centre
from ..core.jit import njit
from ..core.params import check_number, check_optional
from .slot_lists import grown_slots, scan_slot_list, unlink_slot
from .uniform_grid import DEFAULT_MAX_CELLS, FixedGrid

__all__ = ["PointGrid", "half_sizes"]


def half_sizes(boxes) -> np.ndarray:
    """Half-size ``max(width, height) / 2`` of each box: ``(n,)`` float64."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return 0.5 * np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])


@njit
def _build_kernel(head, enext, boxes, slots, ox, oy, inv, cols, rows):
    """Push ``slots`` (in reverse, so each list ends up in slot order)."""
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        c = cell_of_centre(boxes, s, ox, oy, inv, cols, rows)
        enext[s] = head[c]
        head[c] = s


@njit
def _remove_kernel(head, enext, old, slots, ox, oy, inv, cols, rows):
    """Unlink each ``slots[k]`` from the cell of ``old[k]``'s centre; returns the number found."""
    found = 0
    for k in range(slots.shape[0]):
        found += unlink_slot(head, cell_of_centre(old, k, ox, oy, inv, cols, rows), enext, slots[k])
    return found


@njit
def _move_kernel(head, enext, boxes, old, slots, ox, oy, inv, cols, rows):
    """Relink elements whose centre changed cell; returns how many did."""
    moved = 0
    for k in range(slots.shape[0]):
        s = slots[k]
        a = cell_of_centre(old, k, ox, oy, inv, cols, rows)
        b = cell_of_centre(boxes, s, ox, oy, inv, cols, rows)
        if a == b:
            continue
        unlink_slot(head, a, enext, s)
        enext[s] = head[b]
        head[b] = s
        moved += 1
    return moved


@njit
def _query_core(head, enext, boxes, q0, q1, q2, q3, h, ox, oy, inv, cols, rows, out):
    """Slots meeting the closed box ``q``; centres searched in ``q`` grown by ``h``.

    Returns ``(found, cells visited, candidates tested)``; results are written
    to ``out`` while it has room (the caller re-runs with a larger one).
    """
    g0, g1, g2, g3 = q0 - h, q1 - h, q2 + h, q3 + h
    c0, c1 = cell_of(g0, ox, inv, cols), cell_of(g2, ox, inv, cols)
    r0, r1 = cell_of(g1, oy, inv, rows), cell_of(g3, oy, inv, rows)
    m = 0
    tested = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            m, t = scan_slot_list(head[r * cols + c], enext, boxes, q0, q1, q2, q3, out, m)
            tested += t
    return m, (r1 - r0 + 1) * (c1 - c0 + 1), tested


@njit
def _query_many_core(head, enext, boxes, qb, h, ox, oy, inv, cols, rows, out):
    """For each query box ``qb[k]``, every stored slot meeting it: rows ``(k, slot)`` written while ``out`` has room.

    Returns the number of hits (may exceed ``out.shape[0]``: the caller
    re-runs with a larger ``out``).
    """
    cap = out.shape[0]
    m = 0
    for k in range(qb.shape[0]):
        q0, q1, q2, q3 = qb[k, 0], qb[k, 1], qb[k, 2], qb[k, 3]
        c0, c1 = cell_of(q0 - h, ox, inv, cols), cell_of(q2 + h, ox, inv, cols)
        r0, r1 = cell_of(q1 - h, oy, inv, rows), cell_of(q3 + h, oy, inv, rows)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                s = head[r * cols + c]
                while s != -1:
                    if boxes[s, 0] <= q2 and q0 <= boxes[s, 2] and boxes[s, 1] <= q3 and q1 <= boxes[s, 3]:
                        if m < cap:
                            out[m, 0] = k
                            out[m, 1] = s
                        m += 1
                    s = enext[s]
    return m


@njit
def _gather(head, enext, boxes, cell, sl, bx, cx):
    """Copy a cell's slots, boxes and centres to scratch arrays; returns how many."""
    m = 0
    s = head[cell]
    while s != -1:
        sl[m] = s
        for t in range(4):
            bx[m, t] = boxes[s, t]
        cx[m, 0] = 0.5 * boxes[s, 0] + 0.5 * boxes[s, 2]
        cx[m, 1] = 0.5 * boxes[s, 1] + 0.5 * boxes[s, 3]
        m += 1
        s = enext[s]
    return m


@njit
def _pairs_core(head, enext, boxes, reach_x, reach_y, d, cols, rows, sa, ba, ca, sb, bb, cb, out):
    """Every intersecting pair once, written to ``out`` while it has room.

    Each cell is joined with itself and with the cells of the *forward* half
    of its neighbourhood (``reach_x`` columns, ``reach_y`` rows): later in
    the same row, or in a later row. A candidate pair must have centres at
    most ``d = 2 h`` apart on both axes (no size needed), then the exact
    box test decides. Returns ``(pairs found, box tests)``.
    """
    cap = out.shape[0]
    m = 0
    tests = 0
    for r in range(rows):
        for c in range(cols):
            a = r * cols + c
            if head[a] == -1:
                continue
            ka = _gather(head, enext, boxes, a, sa, ba, ca)
            for i in range(ka):
                for j in range(i + 1, ka):
                    if abs(ca[i, 0] - ca[j, 0]) <= d and abs(ca[i, 1] - ca[j, 1]) <= d:
                        tests += 1
                        if ba[j, 0] <= ba[i, 2] and ba[i, 0] <= ba[j, 2] and ba[j, 1] <= ba[i, 3] and ba[i, 1] <= ba[j, 3]:
                            if m < cap:
                                out[m, 0] = sa[i]
                                out[m, 1] = sa[j]
                            m += 1
            for dr in range(0, reach_y + 1):
                rr = r + dr
                if rr >= rows:
                    break
                lo = c + 1 if dr == 0 else max(0, c - reach_x)
                hi = min(cols - 1, c + reach_x)
                for cc in range(lo, hi + 1):
                    b = rr * cols + cc
                    if head[b] == -1:
                        continue
                    kb = _gather(head, enext, boxes, b, sb, bb, cb)
                    for i in range(ka):
                        for j in range(kb):
                            if abs(ca[i, 0] - cb[j, 0]) <= d and abs(ca[i, 1] - cb[j, 1]) <= d:
                                tests += 1
                                if (bb[j, 0] <= ba[i, 2] and ba[i, 0] <= bb[j, 2]
                                        and bb[j, 1] <= ba[i, 3] and ba[i, 1] <= bb[j, 3]):
                                    if m < cap:
                                        out[m, 0] = sa[i]
                                        out[m, 1] = sb[j]
                                    m += 1
    return m, tests


# ==========================================================================
# The class
# ==========================================================================
@register("point_grid")
class PointGrid(FixedGrid):
    """A grid of points for elements of one bounded size: one cell per element, searches grown by the bound.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grid covers (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box). Centres
        outside it go to the border cells: still found.
    cell_size : float, optional
        Side of a cell, world units (> 0). Default: the world's longer side
        / 64; ``from_boxes`` uses twice the typical box size
        (:func:`~lessons_lib.structures.uniform_grid.suggest_cell_size`), at least
        ``2 * half_size`` so that pairs need only the eight neighbours.
    half_size : float or None
        The common upper bound ``h`` on ``max(width, height) / 2``, world
        units. A number fixes it (larger elements are rejected); ``None``
        (default) learns it from the elements stored.
    max_cells : int
        Refuse (``ValueError``) grids with more cells than this.

    Attributes
    ----------
    bound : float
        The bound in force (the fixed ``half_size``, or the learned one).
    last_query_cells, last_query_tests : int
        Cells visited and candidates tested by the last ``query()``.
    last_pair_tests : int
        Exact box tests made by the last ``pairs()`` (after the centre filter).
    last_moved : int
        Elements that changed cell in the last ``update_many``.

    Raises
    ------
    ValueError
        A bad parameter; inserting, moving or bulk-loading an element whose
        half-size exceeds a fixed ``half_size`` (the message names the
        element's half-size and the bound; nothing is changed).

    Notes
    -----
    Insert O(1), remove O(cell list), query O(cells of the grown box + their
    elements), pairs O(cells + neighbour candidates). Memory: 4 bytes per
    cell and 4 per element slot, plus the shared element table.

    References
    ----------
    The quadtree answer set [SO-quadtree], "Dirty
    trick: uniform sizes".
    """

    def __init__(self, *, world=None, cell_size=None, half_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.half_size = check_optional(check_number, "half_size", half_size, 0.0, math.inf, unit="world units")
        self.head = np.full(self.rows * self.cols, -1, dtype=np.int32)
        self.enext = np.full(16, -1, dtype=np.int32)
        self._out = np.empty(64, dtype=np.int64)
        self._pair_hint = 1024
        self._many_hint = 64
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_moved = 0
        self._clear()

    @classmethod
    def from_boxes(cls, boxes, **params) -> "PointGrid":
        """Bulk load ``boxes`` under ids ``0 .. n-1``; default cell size at least ``2 * half_size``."""
        if params.get("cell_size") is None and len(np.asarray(boxes).reshape(-1)):
            from ..geometry import as_boxes
            from ..base import world_for
            from .uniform_grid import suggest_cell_size

            b = as_boxes(boxes)
            if params.get("world") is None:
                params["world"] = world_for(b)
            h = check_optional(check_number, "half_size", params.get("half_size"), 0.0, math.inf, unit="world units")
            h = float(half_sizes(b).max()) if h is None else h
            size = suggest_cell_size(b, params["world"], max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))
            w = params["world"]
            longest = max(w[2] - w[0], w[3] - w[1])
            params["cell_size"] = max(size, min(2 * h * (1 + 1e-6), longest))  # a hair over 2 h: reach 1
            boxes = b
        return super().from_boxes(boxes, **params)

    # -- the bound --------------------------------------------------------
    def _check_sizes(self, boxes) -> float:
        """Largest half-size in ``boxes``; ``ValueError`` if it exceeds a fixed bound."""
        hs = half_sizes(boxes)
        if len(hs) == 0:
            return 0.0
        k = int(np.argmax(hs))
        if self.half_size is not None and hs[k] > self.half_size:
            raise ValueError(
                f"box {np.asarray(boxes).reshape(-1, 4)[k].tolist()} has half-size {hs[k]:g} > the grid's "
                f"half_size {self.half_size:g}; store elements larger than the common bound in a loose structure "
                f"(LooseTightGrid, LooseQuadtree)")
        return float(hs[k])

    def _widen(self, h: float) -> None:
        if self.half_size is None and h > self.bound:
            self.bound = h

    def _fit_slots(self) -> None:
        self.enext = grown_slots(self.enext, self.elements.capacity)

    # -- hooks ------------------------------------------------------------
    def _insert(self, slot, box):
        self._widen(self._check_sizes(box))
        self._fit_slots()
        _build_kernel(self.head, self.enext, self.elements.boxes, np.array([slot], dtype=np.int64), *self._geom)

    def _build(self, slots):
        if len(slots) == 0:
            return
        self._widen(self._check_sizes(self.elements.boxes[slots]))
        self._fit_slots()
        _build_kernel(self.head, self.enext, self.elements.boxes, np.asarray(slots, dtype=np.int64), *self._geom)

    def _remove(self, slot, box):
        if _remove_kernel(self.head, self.enext, np.asarray(box, dtype=np.float64).reshape(1, 4),
                          np.array([slot], dtype=np.int64), *self._geom) != 1:  # pragma: no cover
            raise RuntimeError(f"slot {slot} was not found in its cell")

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.asarray(old).reshape(1, 4),
                          np.asarray(new).reshape(1, 4))

    def _update_many(self, slots, old, new):
        """Bulk move: only elements whose centre changed cell are relinked.

        A new box over a fixed bound raises ``ValueError`` and the element
        table is put back as it was (the base class has already written the
        new boxes), so a rejected move changes nothing.
        """
        try:
            h = self._check_sizes(new)
        except ValueError:
            self.elements.boxes[slots] = old
            raise
        self._widen(h)
        self.last_moved = int(_move_kernel(self.head, self.enext, self.elements.boxes,
                                           np.ascontiguousarray(old, dtype=np.float64),
                                           np.asarray(slots, dtype=np.int64), *self._geom))

    def _query(self, box):
        q = box.tolist()
        while True:
            m, self.last_query_cells, self.last_query_tests = _query_core(
                self.head, self.enext, self.elements.boxes, q[0], q[1], q[2], q[3], self.bound, *self._geom,
                self._out)
            if m <= len(self._out):
                return self._out[:m].copy()
            self._out = np.empty(2 * m, dtype=np.int64)

    def query_many(self, boxes, *, sort: bool = True) -> np.ndarray:
        """Every (query, stored element) pair that meets: one compiled pass for many query boxes.

        Parameters
        ----------
        boxes : array_like, shape (k, 4)
            Closed query boxes, world units (any size: only the stored
            elements obey the bound).

        sort : bool
            Sort the rows (default); ``False`` leaves them in the kernel's order.

        Returns
        -------
        numpy.ndarray, shape (m, 2), int64
            Rows ``(row of boxes, stored id)``.

        Raises
        ------
        ValueError
            Bad boxes (naming the row).
        """
        from ..geometry import as_boxes

        qb = as_boxes(boxes)
        out = np.empty((max(64, self._many_hint), 2), dtype=np.int64)
        args = (self.head, self.enext, self.elements.boxes, qb, self.bound, *self._geom)
        m = _query_many_core(*args, out)
        if m > len(out):
            out = np.empty((m, 2), dtype=np.int64)
            m = _query_many_core(*args, out)
        self._many_hint = m + m // 8 + 64
        res = out[:m]
        res[:, 1] = self.elements.ids[res[:, 1]]
        return res[np.lexsort((res[:, 1], res[:, 0]))] if sort else res

    def reach(self) -> int:
        """Neighbour cells a pair search looks at on each side: ``floor(2 * bound / cell_size) + 1`` (1 when cells are wider than ``2 * bound``)."""
        # floor + 1 rather than ceil: a margin for rounding when 2 * bound is a whole number of cells.
        n = max(self.rows, self.cols)
        r = 2 * self.bound * self._inv * (1 + 1e-9)  # inf when a box is wider than the float range
        return n if r >= n else min(n, math.floor(r) + 1)

    def _pairs(self):
        counts = cell_counts(self.head, self.enext, len(self.head))
        big = max(1, int(counts.max()))
        sa, sb = np.empty(big, dtype=np.int64), np.empty(big, dtype=np.int64)
        ba, bb = np.empty((big, 4)), np.empty((big, 4))
        ca, cb = np.empty((big, 2)), np.empty((big, 2))
        reach = self.reach()
        out = np.empty((self._pair_hint, 2), dtype=np.int64)
        args = (self.head, self.enext, self.elements.boxes, reach, reach, 2 * self.bound, self.cols, self.rows,
                sa, ba, ca, sb, bb, cb)
        m, self.last_pair_tests = _pairs_core(*args, out)
        if m > len(out):
            out = np.empty((m, 2), dtype=np.int64)
            m, self.last_pair_tests = _pairs_core(*args, out)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    def _cleanup(self):
        """Recompute a learned bound from the elements stored (it only grows between cleanups)."""
        if self.half_size is None:
            live = self.elements.live_slots()
            self.bound = float(half_sizes(self.elements.boxes[live]).max()) if len(live) else 0.0

    def _clear(self):
        self.head.fill(-1)
        self.enext.fill(-1)
        self.bound = 0.0 if self.half_size is None else self.half_size

    # -- memory, drawing, inspection ---------------------------------------
    def _nbytes(self):
        return self.head.nbytes + self.enext.nbytes

    def occupancy(self) -> np.ndarray:
        """Elements per cell: ``(rows, cols)`` int64."""
        return cell_counts(self.head, self.enext, len(self.head)).reshape(self.rows, self.cols)

    def regions(self):
        """The occupied cells (depth 0); the world when empty."""
        cells = np.flatnonzero(self.head != -1)
        if len(cells) == 0:
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        r, c = cells // self.cols, cells % self.cols
        s = self.cell_size
        x0, y0 = self.world[0] + c * s, self.world[1] + r * s
        return np.column_stack([x0, y0, x0 + s, y0 + s]).astype(np.float64), np.zeros(len(cells), dtype=np.int64)

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` unless each live slot is in exactly one list, its centre's cell, and within the bound."""
        boxes = self.elements.boxes
        live = set(self.elements.live_slots().tolist())
        seen: set[int] = set()
        for cell in range(len(self.head)):
            s = int(self.head[cell])
            while s != -1:
                assert s in live and s not in seen, f"slot {s} is dead or in two cells"
                seen.add(s)
                assert int(cell_of_centre(boxes, s, *self._geom)) == cell, f"slot {s} is not in its centre's cell"
                s = int(self.enext[s])
        assert seen == live, "a live slot is in no cell"
        if live:
            assert half_sizes(boxes[sorted(live)]).max() <= self.bound, "an element exceeds the bound in force"

    def __repr__(self):
        hs = "learned" if self.half_size is None else f"{self.half_size:g}"
        return (f"PointGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"grid={self.rows}x{self.cols}, half_size={hs}, bound={self.bound:g})")

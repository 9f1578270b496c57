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
to ``2 h``): the other's centre must lie within ``2 h`` of the first's, at most
``reach`` cells away. The enlarged search is therefore *complete*; the exact
test on the stored boxes then removes the candidates that were only close.
(The search is grown by a further hair, :meth:`PointGrid.search_half_size`,
for the rounding of centres computed in floats.)

Data layout
-----------
=========  ==================  =================================================
array      shape, dtype        meaning
=========  ==================  =================================================
``head``   (cells + 1,) int32  first slot of each cell's list (-1: empty); cell
                               ``(row, col)`` is ``row * cols + col``; the last
                               entry heads the list of **giants**
``enext``  (slots,) int32      next slot of the same list (-1 ends the list)
=========  ==================  =================================================

No per-element size is kept by the grid (4 bytes per element, 4 per cell);
the centres are read from the shared element table, which also holds the
boxes for the exact final test (every structure of the course answers
exactly).

The bound, and the giants
-------------------------
``half_size=h`` fixes the bound: inserting or moving an element whose
half-width or half-height exceeds ``h`` raises ``ValueError`` (it belongs in
a loose structure: :class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid` or
:class:`~lessons_lib.structures.loose_quadtree.LooseQuadtree`). ``half_size=None`` (the
default) *learns* the bound from the elements stored, up to half a cell
(searches then look at the 8 neighbouring cells only), and keeps every larger
element, a **giant**, on a list of its own: one giant no longer widens every
search. A giant is searched for partners like a query box (the cells of its
box grown by the bound), and the giants are paired with each other by a
sweep. The trick stays a trick for elements of a common size: a scene of
giants only is a sweep over all of them.

The steps: :func:`insert_slots`, :func:`remove_slot`, :func:`move_slots`,
:func:`query_core` and :func:`pairs_of_agents` plus :func:`giant_pairs`;
cleanup recomputes a learned bound.

References
----------
The quadtree answer set on Stack Overflow [SO-quadtree],
section "Dirty trick: uniform sizes": a common upper bound for the common
case, elements stored as points in one cell, searches twice the radius, and
the split of content into common-size agents, giants and static scenery.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..base import register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps, rows_overlap
from ..core.jit import njit
from ..core.params import check_number, check_optional
from ..geometry import as_boxes
from .cell_size import DEFAULT_MAX_CELLS, cells_across
from .grid_cells import cell_counts, cell_of_centre, cell_span
from .slot_lists import grown_slots, scan_slot_list, unlink_slot
from .uniform_grid import FixedGrid

__all__ = [
    "PointGrid", "half_sizes", "insert_slots", "remove_slot", "move_slots", "query_core",
    "query_many_core", "pairs_of_agents", "giant_pairs",
]

_EPS = sys.float_info.epsilon


def half_sizes(boxes) -> np.ndarray:
    """Half-size ``max(width, height) / 2`` of each box: ``(n,)`` float64 (from halves: never overflows)."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return np.maximum(0.5 * b[:, XMAX] - 0.5 * b[:, XMIN], 0.5 * b[:, YMAX] - 0.5 * b[:, YMIN])


# --------------------------------------------------------------------------
# The steps (lists = (head, enext): the last head is the giants' list)
# --------------------------------------------------------------------------
@njit(inline="always")
def _half_size_of(boxes, s):
    """``max(width, height) / 2`` of ``boxes[s]``, from halves (never overflows)."""
    return max(0.5 * boxes[s, XMAX] - 0.5 * boxes[s, XMIN], 0.5 * boxes[s, YMAX] - 0.5 * boxes[s, YMIN])


@njit(inline="always")
def _list_of(geom, boxes, s, giant_limit):
    """The list of ``boxes[s]``: its centre's cell, or the giants' list (``rows * cols``) above ``giant_limit``."""
    if _half_size_of(boxes, s) > giant_limit:
        return geom[3] * geom[4]
    return cell_of_centre(geom, boxes, s)


@njit
def insert_slots(lists, geom, boxes, slots, giant_limit):
    """Insert: push each slot on its list (in reverse, so each list ends up in slot order).

    Returns the largest half-size among the slots that are not giants (0 if none).
    """
    head, enext = lists
    largest = 0.0
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        c = _list_of(geom, boxes, s, giant_limit)
        enext[s] = head[c]
        head[c] = s
        if c < head.shape[0] - 1:
            largest = max(largest, _half_size_of(boxes, s))
    return largest


@njit
def remove_slot(lists, geom, boxes, slot, giant_limit):
    """Remove: unlink ``slot`` from the list of its box ``boxes[slot]``; returns 1 if found."""
    head, enext = lists
    return unlink_slot(head, _list_of(geom, boxes, slot, giant_limit), enext, slot)


@njit
def move_slots(lists, geom, boxes, slots, old, giant_limit):
    """Update: relink the elements whose list changed (their boxes moved from ``old[k]`` to ``boxes[slots[k]]``).

    Returns ``(elements relinked, largest half-size of the moved elements that are not giants)``.
    """
    head, enext = lists
    moved = 0
    largest = 0.0
    for k in range(slots.shape[0]):
        s = slots[k]
        a = _list_of(geom, old, k, giant_limit)
        b = _list_of(geom, boxes, s, giant_limit)
        if b < head.shape[0] - 1:
            largest = max(largest, _half_size_of(boxes, s))
        if a == b:
            continue
        unlink_slot(head, a, enext, s)
        enext[s] = head[b]
        head[b] = s
        moved += 1
    return moved, largest


@njit(inline="always")
def _grown_span(geom, q0, q1, q2, q3, h):
    """Cell range of the box ``q`` grown by ``h`` on every side (clamped)."""
    return cell_span(geom, q0 - h, q1 - h, q2 + h, q3 + h)


@njit
def query_core(lists, geom, boxes, q, h, out):
    """Query: slots meeting the closed box ``q``; centres searched in ``q`` grown by ``h``, then the giants.

    Returns ``(found, cells visited, candidates tested)``; results are written
    to ``out`` while it has room (the caller re-runs with a larger one).
    """
    head, enext = lists
    ox, oy, inv, cols, rows = geom
    c0, r0, c1, r1 = _grown_span(geom, q[XMIN], q[YMIN], q[XMAX], q[YMAX], h)
    m = 0
    tested = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            m, t = scan_slot_list(head[r * cols + c], enext, boxes, q[XMIN], q[YMIN], q[XMAX], q[YMAX], out, m)
            tested += t
    m, t = scan_slot_list(head[rows * cols], enext, boxes, q[XMIN], q[YMIN], q[XMAX], q[YMAX], out, m)
    return m, (r1 - r0 + 1) * (c1 - c0 + 1), tested + t


@njit(inline="always")
def _hits_of_list(s, enext, boxes, qb, k, out, m):
    """Rows ``(k, slot)`` for the slots of the list from ``s`` meeting ``qb[k]``, written while ``out`` has room."""
    while s != -1:
        if rows_overlap(boxes, s, qb, k):
            if m < out.shape[0]:
                out[m, 0] = k
                out[m, 1] = s
            m += 1
        s = enext[s]
    return m


@njit
def query_many_core(lists, geom, boxes, qb, h, out):
    """For each query box ``qb[k]``, every stored slot meeting it: rows ``(k, slot)`` written while ``out`` has room.

    Returns the number of hits (may exceed ``out.shape[0]``: the caller
    re-runs with a larger ``out``).
    """
    head, enext = lists
    ox, oy, inv, cols, rows = geom
    m = 0
    for k in range(qb.shape[0]):
        c0, r0, c1, r1 = _grown_span(geom, qb[k, XMIN], qb[k, YMIN], qb[k, XMAX], qb[k, YMAX], h)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                m = _hits_of_list(head[r * cols + c], enext, boxes, qb, k, out, m)
        m = _hits_of_list(head[rows * cols], enext, boxes, qb, k, out, m)  # the giants
    return m


@njit(inline="always")
def _gather_points(head, enext, boxes, cell, slot, box):
    """Copy a cell's slots and boxes to scratch arrays; returns how many."""
    m = 0
    s = head[cell]
    while s != -1:
        slot[m] = s
        for t in range(4):
            box[m, t] = boxes[s, t]
        m += 1
        s = enext[s]
    return m


@njit(inline="always")
def _meet_runs(sa, ba, ka, sb, bb, kb, same, out, m):
    """Test the boxes of two gathered cells against each other (``same``: one cell, each pair once)."""
    cap = out.shape[0]
    for i in range(ka):
        for j in range(i + 1 if same else 0, kb):
            if rows_overlap(ba, i, bb, j):
                if m < cap:
                    out[m, 0] = sa[i]
                    out[m, 1] = sb[j]
                m += 1
    return m


@njit
def pairs_of_agents(lists, geom, boxes, reach, scratch, out):
    """Pairs of agents once each, written to ``out`` while it has room; returns ``(pairs found, box tests)``.

    Each cell is joined with itself and with the cells of the *forward* half
    of its neighbourhood (``reach`` cells each way): later in the same row, or
    in a later row. Every candidate gets the exact box test: no size is needed
    to find them.
    """
    head, enext = lists
    ox, oy, inv, cols, rows = geom
    sa, ba, sb, bb = scratch
    m = 0
    tests = 0
    for r in range(rows):
        for c in range(cols):
            a = r * cols + c
            if head[a] == -1:
                continue
            ka = _gather_points(head, enext, boxes, a, sa, ba)
            m = _meet_runs(sa, ba, ka, sa, ba, ka, True, out, m)
            tests += ka * (ka - 1) // 2
            for rr in range(r, min(rows - 1, r + reach) + 1):
                lo = c + 1 if rr == r else max(0, c - reach)
                for cc in range(lo, min(cols - 1, c + reach) + 1):
                    b = rr * cols + cc
                    if head[b] == -1:
                        continue
                    kb = _gather_points(head, enext, boxes, b, sb, bb)
                    m = _meet_runs(sa, ba, ka, sb, bb, kb, False, out, m)
                    tests += ka * kb
    return m, tests


@njit
def giant_pairs(lists, geom, boxes, h, order, out, m):
    """The giants' pairs, appended to ``out`` after row ``m`` while it has room; returns ``(m, box tests)``.

    Each giant against the agents whose centres lie in its box grown by
    ``h`` (a query), then the giants against each other by a sweep along x
    (``order``: the giants' slots sorted by xmin).
    """
    head, enext = lists
    ox, oy, inv, cols, rows = geom
    cap = out.shape[0]
    tests = 0
    g = head[rows * cols]
    while g != -1:
        c0, r0, c1, r1 = _grown_span(geom, boxes[g, XMIN], boxes[g, YMIN], boxes[g, XMAX], boxes[g, YMAX], h)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                s = head[r * cols + c]
                while s != -1:
                    tests += 1
                    if rows_overlap(boxes, s, boxes, g):
                        if m < cap:
                            out[m, 0] = g
                            out[m, 1] = s
                        m += 1
                    s = enext[s]
        g = enext[g]
    for i in range(order.shape[0]):
        a = order[i]
        for j in range(i + 1, order.shape[0]):
            b = order[j]
            if boxes[b, XMIN] > boxes[a, XMAX]:
                break
            tests += 1
            if row_overlaps(boxes, b, boxes[a, XMIN], boxes[a, YMIN], boxes[a, XMAX], boxes[a, YMAX]):
                if m < cap:
                    out[m, 0] = a
                    out[m, 1] = b
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
        (:func:`~lessons_lib.structures.cell_size.suggest_cell_size`), with a
        fixed ``half_size`` at least ``2 * half_size`` so that pairs need only
        the eight neighbours.
    half_size : float or None
        The common upper bound ``h`` on ``max(width, height) / 2``, world
        units. A number fixes it (larger elements are rejected); ``None``
        (default) learns it from the elements stored, up to half a cell, and
        keeps larger elements on the giants' list.
    max_cells : int
        Refuse (``ValueError``) grids with more cells than this.

    Attributes
    ----------
    bound : float
        The bound in force (the fixed ``half_size``, or the learned one).
    giant_limit : float
        Half-size above which an element is a giant (``cell_size / 2`` with a
        learned bound; infinite with a fixed one, which rejects them).
    last_query_cells, last_query_tests : int
        Cells visited and candidates tested by the last ``query()``.
    last_pair_tests : int
        Exact box tests made by the last ``pairs()``.
    last_moved : int
        Elements that changed list in the last ``update_many``.

    Raises
    ------
    ValueError
        A bad parameter; inserting, moving or bulk-loading an element whose
        half-size exceeds a fixed ``half_size`` (the message names the
        element's half-size and the bound; nothing is changed).

    Notes
    -----
    Coordinates: any finite float; centres outside the world clamp into the
    border cells, boxes as wide as the float range are giants (or refused by
    a fixed bound). Cells at least about 5.6e-309 units wide.

    Why giants are kept apart: the trick assumes one common size. A learned
    bound that grew to the largest element would make every search as wide
    as that element (on a scene with 2 % of elements ten times the others'
    size, about ten times slower). Agents: insert O(1), remove O(cell list),
    query O(cells of the grown box + their elements + giants), pairs
    O(cells + neighbour candidates). Giants: each one a query, plus a sweep.
    Memory: 4 bytes per cell and 4 per element slot, plus the shared element
    table. The trick is the quadtree answer set's "dirty trick: uniform
    sizes" [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import PointGrid
    >>> agents = np.array([[0, 0, 2, 2], [2, 1, 4, 3], [9, 9, 11, 11]])
    >>> pg = PointGrid.from_boxes(agents, half_size=1.0)
    >>> pg.pairs().tolist(), pg.reach()
    ([[0, 1]], 1)
    >>> pg.insert(3, [0, 0, 40, 40])
    Traceback (most recent call last):
    ...
    ValueError: box [0.0, 0.0, 40.0, 40.0] has half-size 20 > the grid's half_size 1; store elements larger than the common bound in a loose structure (LooseTightGrid, LooseQuadtree)
    >>> learned = PointGrid.from_boxes(agents, cell_size=4.0)
    >>> learned.insert(3, [0, 0, 40, 40])
    >>> learned.bound, learned.giants().tolist(), learned.pairs().tolist()
    (1.0, [3], [[0, 1], [0, 3], [1, 3], [2, 3]])
    """

    def __init__(self, *, world=None, cell_size=None, half_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.half_size = check_optional(check_number, "half_size", half_size, 0.0, math.inf, unit="world units")
        self.giant_limit = 0.5 * self.cell_size if self.half_size is None else math.inf
        self.head = np.full(self.rows * self.cols + 1, -1, dtype=np.int32)
        self.enext = np.full(16, -1, dtype=np.int32)
        w = self.world
        #: Rounding of centres: a search is grown by this much more than the bound.
        self._slack = 4 * _EPS * float(np.abs(w).max())
        self._query_hint = 64  # room a query's output starts with (made per call: threads never share it)
        self._pair_hint = 1024
        self._many_hint = 64
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_moved = 0
        self._clear()

    @classmethod
    def suggested_cell_size(cls, boxes, params) -> float:
        """Twice the typical box size; with a fixed ``half_size`` at least ``2 * half_size`` (a hair over)."""
        size = FixedGrid.suggested_cell_size(boxes, params)
        h = check_optional(check_number, "half_size", params.get("half_size"), 0.0, math.inf, unit="world units")
        if h is None or len(boxes) == 0:
            return size
        w = params["world"]
        longest = max(cells_across(w[XMIN], w[XMAX], 1.0), cells_across(w[YMIN], w[YMAX], 1.0))
        return min(max(size, min(2 * h * (1 + 1e-6), longest)), sys.float_info.max)

    @property
    def lists(self) -> tuple[np.ndarray, np.ndarray]:
        """``(head, enext)``, as the kernels take them."""
        return self.head, self.enext

    def search_half_size(self) -> float:
        """How far a search reaches beyond a box: the bound, grown for the rounding of centres."""
        return self.bound * (1 + 1e-9) + self._slack

    def reach(self) -> int:
        """Neighbour cells a pair search looks at on each side: ``floor(2 * bound / cell_size) + 1`` (with slack)."""
        n = max(self.rows, self.cols)
        r = 2 * self.search_half_size() * self.geom[2] + 1e-6  # inf when a bound is wider than the float range
        return n if r >= n else min(n, math.floor(r) + 1)

    def giants(self) -> np.ndarray:
        """Ids on the giants' list, sorted."""
        out, s = [], int(self.head[-1])
        while s != -1:
            out.append(s)
            s = int(self.enext[s])
        return np.sort(self.elements.ids[np.array(out, dtype=np.int64)])

    # -- the bound --------------------------------------------------------
    def _check_sizes(self, boxes) -> None:
        """``ValueError`` if an element of ``boxes`` exceeds a fixed bound."""
        if self.half_size is None or len(boxes) == 0:
            return
        hs = half_sizes(boxes)
        k = int(np.argmax(hs))
        if hs[k] > self.half_size:
            raise ValueError(
                f"box {np.asarray(boxes).reshape(-1, 4)[k].tolist()} has half-size {hs[k]:g} > the grid's "
                f"half_size {self.half_size:g}; store elements larger than the common bound in a loose structure "
                f"(LooseTightGrid, LooseQuadtree)")

    def _widen(self, h: float) -> None:
        if self.half_size is None and h > self.bound:
            self.bound = h

    # -- hooks: each calls one step ------------------------------------------
    def _insert(self, slot, box):
        self._build(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        self._check_sizes(self.elements.boxes[slots])
        self.enext = grown_slots(self.enext, self.elements.capacity)
        self._widen(insert_slots(self.lists, self.geom, self.elements.boxes, slots, self.giant_limit))

    def _remove(self, slot, box):
        if remove_slot(self.lists, self.geom, self.elements.boxes, slot, self.giant_limit) != 1:  # pragma: no cover
            raise RuntimeError(f"slot {slot} was not found in its list")

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        """Bulk move: only elements whose list changed are relinked.

        A new box over a fixed bound raises ``ValueError`` and the element
        table is put back as it was (the base class has already written the
        new boxes), so a rejected move changes nothing.
        """
        try:
            self._check_sizes(new)
        except ValueError:
            self.elements.boxes[slots] = old
            raise
        self.last_moved, largest = move_slots(self.lists, self.geom, self.elements.boxes, slots, old,
                                              self.giant_limit)
        self._widen(largest)

    def _query(self, box):
        out = np.empty(self._query_hint, dtype=np.int64)  # per call: queries in several threads never share it
        while True:
            m, self.last_query_cells, self.last_query_tests = query_core(
                self.lists, self.geom, self.elements.boxes, box, self.search_half_size(), out)
            if m <= len(out):
                return out[:m].copy()
            self._query_hint = 2 * m
            out = np.empty(2 * m, dtype=np.int64)

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
        qb = as_boxes(boxes)
        out = np.empty((max(64, self._many_hint), 2), dtype=np.int64)
        args = (self.lists, self.geom, self.elements.boxes, qb, self.search_half_size())
        m = query_many_core(*args, out)
        if m > len(out):
            out = np.empty((m, 2), dtype=np.int64)
            m = query_many_core(*args, out)
        self._many_hint = m + m // 8 + 64
        res = out[:m]
        res[:, 1] = self.elements.ids[res[:, 1]]
        return res[np.lexsort((res[:, 1], res[:, 0]))] if sort else res

    def _pairs(self):
        counts = cell_counts(self.head, self.enext, len(self.head) - 1)
        big = max(1, int(counts.max()) if len(counts) else 1)
        scratch = (np.empty(big, np.int64), np.empty((big, 4)), np.empty(big, np.int64), np.empty((big, 4)))
        giants = np.array(self._giant_slots(), dtype=np.int64)
        order = giants[np.argsort(self.elements.boxes[giants, XMIN], kind="stable")]
        reach, h = self.reach(), self.search_half_size()
        while True:
            out = np.empty((self._pair_hint, 2), dtype=np.int64)
            m, tests = pairs_of_agents(self.lists, self.geom, self.elements.boxes, reach, scratch, out)
            m, more = giant_pairs(self.lists, self.geom, self.elements.boxes, h, order, out, m)
            self._pair_hint = max(1024, m + m // 8 + 64)
            if m <= len(out):
                self.last_pair_tests = tests + more
                return out[:m]

    def _giant_slots(self) -> list[int]:
        out, s = [], int(self.head[-1])
        while s != -1:
            out.append(s)
            s = int(self.enext[s])
        return out

    def _cleanup(self):
        """Recompute a learned bound from the agents stored (it only grows between cleanups)."""
        if self.half_size is None:
            live = self.elements.live_slots()
            hs = half_sizes(self.elements.boxes[live])
            hs = hs[hs <= self.giant_limit]
            self.bound = float(hs.max()) if len(hs) else 0.0

    def _clear(self):
        self.head.fill(-1)
        self.enext.fill(-1)
        self.bound = 0.0 if self.half_size is None else self.half_size

    # -- memory, drawing, inspection ---------------------------------------
    def _nbytes(self):
        return self.head.nbytes + self.enext.nbytes

    def occupancy(self) -> np.ndarray:
        """Agents per cell: ``(rows, cols)`` int64 (the giants are not in a cell)."""
        return cell_counts(self.head, self.enext, len(self.head) - 1).reshape(self.rows, self.cols)

    def regions(self):
        """The occupied cells (depth 0); the world when empty."""
        cells = np.flatnonzero(self.head[:-1] != -1)
        if len(cells) == 0:
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        return self._cell_rects(cells // self.cols, cells % self.cols), np.zeros(len(cells), dtype=np.int64)

    def __repr__(self):
        hs = "learned" if self.half_size is None else f"{self.half_size:g}"
        return (f"PointGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"grid={self.rows}x{self.cols}, half_size={hs}, bound={self.bound:g})")

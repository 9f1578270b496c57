"""The uniform grid: a fixed rows x cols grid whose cells are single int32 list heads.

Lesson 02. The world is cut into square cells of side ``cell_size``. A box goes
into **every** cell it overlaps; two boxes can only touch if they share a cell,
so the pair search tests only boxes that share a cell (section 1, "The idea:
compare only boxes that share a cell").

Data layout (section 2, "The layout: one 32-bit integer per cell")
------------------------------------------------------------------
==========  ================  ==================================================
array       shape, dtype      meaning
==========  ================  ==================================================
``head``    (rows*cols,) i32  first node of each cell's list, -1 if empty;
                              cell ``(row, col)`` is ``head[row * cols + col]``
``nxt``     (c,) int32        next node of the same cell, -1 at the end
``elem``    (c,) int32        the element's slot in the shared element table
``state``   (2,) int64        ``[nodes handed out, head of the free list]``
==========  ================  ==================================================

Boxes themselves live once, in the shared element table; a node is 8 bytes and a
box has one node per cell it covers. The cell of a coordinate is
``floor((v - origin) / cell_size)`` clamped to the grid, so boxes partly or
wholly outside the world land in the border cells (never lost, never an error).
See :mod:`lessons_lib.structures.grid_cells` for why this clamping is safe, how
each pair is reported once (from its *reference cell*, the cell of the
lower-left corner of the two boxes' intersection) and the names the kernels
share (``geom``, ``lists``, ``XMIN`` ..).

The steps, in the lesson's order
--------------------------------
* insert (sections 1 and 2): :func:`insert_boxes`, each box on the list of
  every cell it overlaps;
* remove and update (section 2, and the optional part C, "the arrays step by
  step, nodes round the free list"): :func:`remove_box` (its nodes go on the
  free list), :func:`update_boxes` (the lesson's update: each moved box out of
  its old cells and into its new ones);
* query (section 3, "Queries: under a point, inside a box"): :func:`query_box`;
* all pairs, each once (section 4, "All pairs, each exactly once"):
  :func:`pairs_by_reference_cell`, Exercise 2's ``grid_pairs``;
* the cell size (section 5, "The cell size trade-off, measured"):
  :func:`~lessons_lib.structures.cell_size.suggest_cell_size`, in
  :mod:`~lessons_lib.structures.cell_size` with the default and the checks
  every grid uses.

The classes come after the steps. The corner-only pitfall (the optional part
A) lives in :mod:`lessons_lib.labs.grids`.

Beyond lesson 02: the oversize list
-----------------------------------
Section 6 of lesson 02 shows the big-object problem (a few huge boxes among
many small ones) and leaves the stopgap to lesson 03: its section 6 ("Negative
coordinates, huge coordinates and huge boxes") keeps the boxes covering more
than ``max_box_cells`` cells on a short *oversize list*, tested box by box.
This grid does the same (:class:`OversizeList`; default 65,536 cells a box),
so a few huge boxes on tiny cells cannot exhaust memory. :class:`FixedGrid`
(what every grid over a world shares: cell size, shape, geometry) and
:class:`OversizeList` are library code the lessons do not name.

References
----------
* The quadtree answer set on Stack Overflow [SO-quadtree]:
  the fixed-resolution grid of 32-bit integers, its node lists, the
  big-object problem (a few huge objects among many small ones, answer "2. Fundamentals").
* magley, *Algorithms and data structures in the broad phase* (2026; [magley2026]): grid hashing with the four corners of a box.
* A game-development lecture on spatial data structures [gamedev-lecture]: cell size about the typical object size.
* C. Ericson, *Real-Time Collision Detection*, Morgan Kaufmann 2005, ch. 7.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit
from ..core.params import check_int
from ..geometry import as_box
from .cell_size import (DEFAULT_MAX_CELLS, cell_size_for, check_cell_size, default_cell_size, grid_shape,
                        typical_box_size)
from .grid_cells import (FLOAT_MAX, USED, append_id, box_cells, cell_counts, cell_pairs,
                         any_over, cell_span, cells_each, gather_cell, grid_world, grown_pool, new_lists,
                         oversize_pairs,
                         pool_full, pool_push, pool_unlink, query_hit)

__all__ = [
    "FixedGrid",
    "UniformGrid",
    "DEFAULT_MAX_BOX_CELLS",
    "OversizeList",
    "insert_boxes", "remove_box", "update_boxes",
    "query_box", "pairs_by_reference_cell",
]

#: At most this many cells drawn one by one by ``regions()``; beyond, only occupied cells.
REGIONS_ALL_CELLS = 4096
#: Default budget of cells per box (65,536: 512 KiB of nodes): a box covering more goes on the oversize list.
DEFAULT_MAX_BOX_CELLS = 1 << 16


# --------------------------------------------------------------------------
# The steps of lesson 02
# --------------------------------------------------------------------------
@njit
def _nodes_needed(geom, boxes, slots):
    """Nodes the boxes of ``slots`` take: the number of cells each covers, summed."""
    total = 0
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, boxes, slots[k])
        total += (c1 - c0 + 1) * (r1 - r0 + 1)
    return total


@njit
def insert_boxes(lists, geom, boxes, slots):
    """Insert: push each slot of ``slots`` on the list of every cell its box overlaps.

    The slots go in in reverse order, so that each cell's list ends up in slot
    order. Returns the lists, their pool grown first if it lacks room (one
    count, then at most one allocation).
    """
    head, nxt, elem, state = lists
    ox, oy, inv, cols, rows = geom
    need = state[USED] + _nodes_needed(geom, boxes, slots)
    if need > nxt.shape[0]:
        nxt, elem = grown_pool(nxt, elem, need)
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        c0, r0, c1, r1 = box_cells(geom, boxes, s)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                pool_push(head, nxt, elem, state, r * cols + c, s)
    return head, nxt, elem, state


@njit
def remove_box(lists, geom, boxes, slot):
    """Remove: unlink ``slot`` from every cell of its box ``boxes[slot]``; returns the number of nodes freed."""
    head, nxt, elem, state = lists
    ox, oy, inv, cols, rows = geom
    c0, r0, c1, r1 = box_cells(geom, boxes, slot)
    freed = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            freed += pool_unlink(head, nxt, elem, state, r * cols + c, slot)
    return freed


@njit
def update_boxes(lists, geom, slots, old, new):
    """Update: re-index boxes that moved from ``old[k]`` to ``new[k]``; returns ``(lists, boxes that changed cells)``.

    A box whose cell range did not change is not touched at all (the common
    case of a small step). The others leave their old cells and join the new
    ones (their freed nodes are reused first).
    """
    head, nxt, elem, state = lists
    ox, oy, inv, cols, rows = geom
    changed = 0
    for k in range(slots.shape[0]):
        c0, r0, c1, r1 = box_cells(geom, old, k)
        d0, s0, d1, s1 = box_cells(geom, new, k)
        if c0 == d0 and r0 == s0 and c1 == d1 and r1 == s1:
            continue
        changed += 1
        s = slots[k]
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                pool_unlink(head, nxt, elem, state, r * cols + c, s)
        for r in range(s0, s1 + 1):
            for c in range(d0, d1 + 1):
                if pool_full(nxt, state):  # no free node left: double the pool
                    nxt, elem = grown_pool(nxt, elem, state[USED] + 1)
                pool_push(head, nxt, elem, state, r * cols + c, s)
    return (head, nxt, elem, state), changed


@njit
def query_box(lists, geom, boxes, q):
    """Query: slots whose boxes meet the closed box ``q``, each once; plus (cells, nodes) visited.

    An element met in several cells is reported only from the cell of the
    lower-left corner of its intersection with the query box.
    """
    head, nxt, elem, state = lists
    ox, oy, inv, cols, rows = geom
    qc0, qr0, qc1, qr1 = cell_span(geom, q[XMIN], q[YMIN], q[XMAX], q[YMAX])
    out = np.empty(16, dtype=np.int64)
    k = 0
    nodes = 0
    for r in range(qr0, qr1 + 1):
        for c in range(qc0, qc1 + 1):
            node = head[r * cols + c]
            while node != -1:
                s = elem[node]
                node = nxt[node]
                nodes += 1
                if query_hit(boxes, s, q, qc0, qr0, c, r, geom):
                    out, k = append_id(out, k, s)
    return out[:k].copy(), (qr1 - qr0 + 1) * (qc1 - qc0 + 1), nodes


@njit
def pairs_by_reference_cell(lists, geom, boxes, n_slots):
    """All pairs (section 4): every intersecting slot pair once, from its reference cell; plus the box tests made.

    Lesson 02's Exercise 2, ``grid_pairs`` ("the heart of
    ``UniformGrid.pairs()``"), compiled, with its two inner steps in kernels
    that the hierarchical grid and the spatial hash share
    (:mod:`~lessons_lib.structures.grid_cells`): for each cell of two boxes or
    more, :func:`~lessons_lib.structures.grid_cells.gather_cell` walks its list
    and copies the boxes into small contiguous arrays (each box read once per
    cell, not once per test) with the cell of each box's lower-left corner;
    then :func:`~lessons_lib.structures.grid_cells.cell_pairs` tests them two
    by two and keeps a pair only in its reference cell. It writes the
    exercise's test ``cell_of(max(ax0, bx0), max(ay0, by0)) == (c, r)`` as
    "one of the two boxes starts in column ``c``, and one starts in row
    ``r``": the same test, since the cell map is monotone and both boxes start
    at or before the cell they are in (the proof is in ``cell_pairs``).
    ``n_slots``: every slot is below it (a cell holds a slot at most once).
    """
    head, nxt, elem, state = lists
    ox, oy, inv, cols, rows = geom
    m_max = max(n_slots, 1)
    copy = (np.empty(m_max, np.int64), np.empty((m_max, 4), np.float64), np.empty(m_max, np.int64),
            np.empty(m_max, np.int64))
    out = np.empty((max(16, n_slots), 2), dtype=np.int64)
    k = 0
    tests = 0
    for r in range(rows):
        for c in range(cols):
            first = head[r * cols + c]
            if first == -1 or nxt[first] == -1:
                continue  # fewer than two boxes: nothing to test
            m = gather_cell(first, nxt, elem, boxes, geom, copy)
            tests += m * (m - 1) // 2
            out, k = cell_pairs(copy, m, c, r, out, k)
    return out[:k].copy(), tests


# --------------------------------------------------------------------------
# The structures
# --------------------------------------------------------------------------
class FixedGrid(BroadPhase):
    """What the grids over a world share: square cells, their geometry, the cell size from the boxes.

    Sets ``cell_size``, ``rows``, ``cols`` and ``geom`` (raising ``ValueError``
    on bad parameters, see :class:`UniformGrid`), infers the world and the cell
    size in ``from_boxes``, and maps boxes to cell ranges. Not registered: it
    stores nothing.
    """

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world)
        self.max_cells = check_int("max_cells", max_cells, 1)
        w = self.world
        self.cell_size = check_cell_size(default_cell_size(w) if cell_size is None else cell_size)
        self.rows, self.cols = grid_shape(w, self.cell_size, self.max_cells)
        #: ``(ox, oy, inv, cols, rows)``: what every kernel needs to find a cell (see grid_cells).
        self.geom = (float(w[XMIN]), float(w[YMIN]), 1.0 / self.cell_size, self.cols, self.rows)
        self.last_pair_tests = 0
        self.last_query_cells = 0

    @classmethod
    def _params_from_boxes(cls, boxes, params):
        """``from_boxes``: ``world=None`` takes the boxes' bounding box (never flat), ``cell_size=None``
        :meth:`suggested_cell_size` of the boxes."""
        if params.get("world") is None:
            params["world"] = grid_world(boxes)
        if params.get("cell_size") is None:
            params["cell_size"] = cls.suggested_cell_size(boxes, params)

    @classmethod
    def suggested_cell_size(cls, boxes: np.ndarray, params: dict) -> float:
        """The cell size ``from_boxes`` uses for validated ``boxes``: twice their typical size (:func:`cell_size_for`)."""
        w = params["world"]
        return cell_size_for(len(boxes), w, typical_box_size(boxes, w),
                             max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))

    def cell_range(self, box) -> tuple[int, int, int, int]:
        """``(col0, row0, col1, row1)``: the inclusive cell range a box covers (clamped)."""
        b = as_box(box)
        return tuple(int(v) for v in cell_span(self.geom, b[XMIN], b[YMIN], b[XMAX], b[YMAX]))

    def cell_box(self, row: int, col: int) -> np.ndarray:
        """The rectangle of cell ``(row, col)`` in world units (clamped to the float range)."""
        return self._cell_rects(np.array([row]), np.array([col]))[0]

    def _cell_rects(self, rows: np.ndarray, cols: np.ndarray, scale: int = 1) -> np.ndarray:
        """Rectangles of cells ``(rows[k], cols[k])`` of a grid ``scale`` times coarser, from the same origin."""
        s, (x0, y0) = self.cell_size * scale, self.world[:2]
        with np.errstate(over="ignore"):
            rects = np.column_stack([x0 + cols * s, y0 + rows * s, x0 + (cols + 1) * s, y0 + (rows + 1) * s])
        return np.clip(rects.astype(np.float64).reshape(-1, 4), -FLOAT_MAX, FLOAT_MAX)


class OversizeList:
    """Mixin of the uniform and hierarchical grids: boxes covering more than ``max_box_cells`` cells are not filed.

    A grid files a box in every cell it covers, 8 bytes a cell: with small
    cells (an explicit ``cell_size=0.5`` in the 800 x 600 world), twenty boxes
    the size of the world took 499 MB in the uniform grid and 1.1 GB in the
    hierarchical one. A box covering more than ``max_box_cells`` cells (the
    *budget*, default :data:`DEFAULT_MAX_BOX_CELLS`) goes instead on the
    **oversize list**, as the spatial hash's oversize boxes and the point
    grid's giants do: 8 bytes a box, whatever its size; a query tests the list
    box by box, ``pairs()`` tests each oversize box against every element
    (:func:`~lessons_lib.structures.grid_cells.oversize_pairs`). Memory is then
    at most ``8 * max_box_cells`` bytes per box beside the grid itself (whose
    cells ``max_cells`` bounds). An update moves a box between the cells and
    the list when its size crosses the budget.

    The class using it implements three steps over its cells:
    ``_insert_in_cells(slots)`` (boxes already in the table),
    ``_remove_from_cells(slot)`` (the table holds the box it was inserted with)
    and ``_update_in_cells(slots, old, new)`` (boxes that stay in cells, ``new``
    already in the table).
    """

    def _init_oversize(self, max_box_cells) -> None:
        self.max_box_cells = check_int("max_box_cells", max_box_cells, 1)
        self._big: set[int] = set()

    def oversize(self) -> np.ndarray:
        """Ids on the oversize list (boxes covering more than ``max_box_cells`` cells), sorted."""
        return np.sort(self.elements.ids[self._big_slots()])

    def _big_slots(self) -> np.ndarray:
        return np.array(sorted(self._big), dtype=np.int64)

    def _too_big(self, boxes, slots) -> np.ndarray:
        """Which of ``slots`` (their boxes in ``boxes``) cover more cells than the budget: ``(k,)`` bool."""
        return cells_each(self.geom, boxes, np.asarray(slots, dtype=np.int64)) > self.max_box_cells

    # -- the hooks of BroadPhase ------------------------------------------
    def _insert(self, slot, box):
        self._build(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        if not any_over(self.geom, self.elements.boxes, slots, self.max_box_cells):
            self._insert_in_cells(slots)
            return
        big = self._too_big(self.elements.boxes, slots)
        if big.any():
            self._big.update(slots[big].tolist())
            slots = slots[~big]
        self._insert_in_cells(slots)

    def _remove(self, slot, box):
        if slot in self._big:
            self._big.discard(slot)
        else:
            self._remove_from_cells(slot)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        rows = np.arange(len(slots), dtype=np.int64)
        if not self._big and not any_over(self.geom, new, rows, self.max_box_cells):  # every box stays in cells
            self._update_in_cells(slots, old, new)
            return
        now = self._too_big(new, rows)
        was = np.fromiter((s in self._big for s in slots.tolist()), dtype=bool, count=len(slots))
        boxes = self.elements.boxes
        for j in np.flatnonzero(~was & now).tolist():  # into the list: removed from the cells of its old box
            s = int(slots[j])
            kept = boxes[s].copy()
            boxes[s] = old[j]
            try:
                self._remove_from_cells(s)
            finally:
                boxes[s] = kept
            self._big.add(s)
        for j in np.flatnonzero(was & ~now).tolist():  # out of the list
            self._big.discard(int(slots[j]))
        stay = ~was & ~now
        if stay.all():
            self._update_in_cells(slots, old, new)
        elif stay.any():
            self._update_in_cells(slots[stay], old[stay], new[stay])
        if (was & ~now).any():
            self._insert_in_cells(slots[was & ~now])

    def _with_oversize_hits(self, slots, box) -> np.ndarray:
        """``slots`` found in the cells, and the oversize boxes that meet ``box``."""
        big = self._big_slots()
        if not len(big):
            return slots
        b = self.elements.boxes[big]
        hit = (b[:, XMIN] <= box[XMAX]) & (box[XMIN] <= b[:, XMAX]) & (b[:, YMIN] <= box[YMAX]) & (box[YMIN] <= b[:, YMAX])
        return np.concatenate([slots, big[hit]])

    def _with_oversize_pairs(self, pairs) -> np.ndarray:
        """``pairs`` found in the cells, and every pair with an oversize box."""
        big = self._big_slots()
        if not len(big):
            return pairs
        return np.concatenate([pairs, oversize_pairs(big, self.elements.live_slots(), self.elements.boxes)])


@register("uniform_grid")
class UniformGrid(OversizeList, FixedGrid):
    """A fixed grid of square cells, each one int32 head of a list of element nodes.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grid covers (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box). Boxes outside
        it are stored in the border cells: still found, only slower.
    cell_size : float, optional
        Side of a cell in world units (> 0). Default: the world's longer side
        / 64; ``from_boxes`` uses
        :func:`~lessons_lib.structures.cell_size.suggest_cell_size` of the boxes.
    max_cells : int
        Refuse (``ValueError``) grids with more cells than this.
    max_box_cells : int
        The budget of cells per box (>= 1, default 65,536): a box covering
        more cells is not filed in cells but kept on the *oversize list*
        (:class:`OversizeList`, :meth:`oversize`), so no box costs more than
        ``8 * max_box_cells`` bytes of nodes, whatever the cell size.

    Attributes
    ----------
    rows, cols : int
        Grid shape. Cell ``(row, col)`` spans ``[x0 + col * s, x0 + (col + 1) * s]``
        by ``[y0 + row * s, y0 + (row + 1) * s]``.
    head, nxt, elem, state : numpy.ndarray
        The cells' node lists (see the module notes).
    geom : tuple
        ``(ox, oy, 1 / cell_size, cols, rows)``, as the kernels take it.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()`` call.
    last_query_cells, last_query_nodes : int
        Cells and list nodes visited by the last ``query()``.

    Raises
    ------
    ValueError
        A bad world, cell size or ``max_cells``, a grid above ``max_cells``, a
        cell size below :data:`~lessons_lib.structures.grid_cells.MIN_CELL_SIZE`
        (whose inverse would overflow).

    Notes
    -----
    Coordinates: any finite float. Boxes outside the world, even at the float
    limits, clamp into the border cells; worlds wider than the largest float
    (``[-1.8e308, 1.8e308]``) work, as do boxes of zero or denormal size.
    Cells must be at least about 5.6e-309 units wide.

    Insert/remove O(cells covered x list length); query O(cells in the query
    + nodes in them); pairs O(cells + sum over cells of m^2 / 2) for ``m``
    boxes per cell, plus O(n) per oversize box. Memory: 4 bytes per cell + 8
    bytes per (box, cell) node (at most ``max_box_cells`` nodes a box) + 8
    bytes per oversize box, plus the shared element table (41 bytes per slot). ``pairs()`` returns the
    library's canonical order via :func:`lessons_lib.core.pair_order.canonical_pairs`
    (a counting sort) instead of a lexsort of all pairs. Lesson 02 follows the
    grid of 32-bit integers of the quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import UniformGrid
    >>> g = UniformGrid.from_boxes(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]]))
    >>> g.pairs().tolist()
    [[0, 1]]
    >>> g.update(2, [2, 2, 4, 4])
    >>> g.pairs().tolist(), g.query([3.5, 3.5, 4, 4]).tolist()
    ([[0, 1], [0, 2], [1, 2]], [2])
    """

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS,
                 max_box_cells: int = DEFAULT_MAX_BOX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self._init_oversize(max_box_cells)
        self.lists = new_lists(self.rows * self.cols)
        self.last_query_nodes = 0

    @property
    def lists(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(head, nxt, elem, state)``, as the kernels take and return them."""
        return self.head, self.nxt, self.elem, self.state

    @lists.setter
    def lists(self, value) -> None:
        self.head, self.nxt, self.elem, self.state = value

    def occupancy(self) -> np.ndarray:
        """Elements per cell: ``(rows, cols)`` int64."""
        return cell_counts(self.head, self.nxt, len(self.head)).reshape(self.rows, self.cols)

    def members(self, row: int, col: int) -> np.ndarray:
        """Ids stored in cell ``(row, col)``, in list order (front first); int64."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"cell ({row}, {col}) is outside the {self.rows} x {self.cols} grid")
        out, node = [], int(self.head[row * self.cols + col])
        while node != -1:
            out.append(int(self.elem[node]))
            node = int(self.nxt[node])
        return self.elements.ids[np.array(out, dtype=np.int64)]

    def nodes_in_use(self) -> int:
        """Total (box, cell) nodes: sum of :meth:`occupancy`."""
        return int(self.occupancy().sum())

    # -- the steps over cells (OversizeList routes the boxes too big for them) ----
    def _insert_in_cells(self, slots):
        self.lists = insert_boxes(self.lists, self.geom, self.elements.boxes, slots)

    def _remove_from_cells(self, slot):
        remove_box(self.lists, self.geom, self.elements.boxes, slot)  # the table still holds the box

    def _update_in_cells(self, slots, old, new):
        self.lists, _ = update_boxes(self.lists, self.geom, slots, old, new)

    def _query(self, box):
        slots, self.last_query_cells, self.last_query_nodes = query_box(self.lists, self.geom, self.elements.boxes,
                                                                        box)
        return self._with_oversize_hits(slots, box)

    def _pairs(self):
        p, self.last_pair_tests = pairs_by_reference_cell(self.lists, self.geom, self.elements.boxes,
                                                          self.elements.high_water)
        return self._with_oversize_pairs(p)

    def _clear(self):
        self.head.fill(-1)
        self.state[0], self.state[1] = 0, -1
        self._big.clear()

    def _nbytes(self):
        return self.head.nbytes + self.nxt.nbytes + self.elem.nbytes + self.state.nbytes + 8 * len(self._big)

    def regions(self):
        """Every cell (depth 0) for grids of at most 4096 cells, else only the occupied cells."""
        if self.rows * self.cols <= REGIONS_ALL_CELLS:
            cells = np.arange(self.rows * self.cols)
        else:
            cells = np.flatnonzero(self.head != -1)
        rects = self._cell_rects(cells // self.cols, cells % self.cols)
        return rects, np.zeros(len(rects), dtype=np.int64)

    def __repr__(self):
        return (f"UniformGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"grid={self.rows}x{self.cols})")

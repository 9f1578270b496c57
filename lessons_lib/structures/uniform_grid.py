"""The uniform grid: a fixed rows x cols grid whose cells are single int32 list heads.

Lesson 02. The world is cut into square cells of side ``cell_size``. A box goes
into **every** cell it overlaps; two boxes can only touch if they share a cell,
so the pair search tests only boxes that share a cell.

Data layout (the seed's "one 32-bit integer per cell")
------------------------------------------------------
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
See :mod:`lessons_lib.structures.grid_cells` for why this clamping is safe and how each
pair is reported once (from the cell of the lower-left corner of the two boxes'
intersection).

The second half of the module is the **corner-only pitfall**
(:func:`corner_only_pairs`): the benchmark article's grid hashing puts a box
only in the cells of its four corners, which misses pairs that meet in a cell
where neither box has a corner. It is wrong on purpose, for the lesson, and is
not registered in ``STRUCTURES``.

References
----------
* The quadtree answer set on Stack Overflow [SO-quadtree]:
  the fixed-resolution grid of 32-bit integers, its node lists, the
  "dragons among orcs" big-object problem.
* magley, *Algorithms and data structures in the broad phase* (2026; [magley2026]): grid hashing with the four corners of a box.
* A game-development lecture on spatial data structures [gamedev-lecture]: cell size about the typical object size.
* C. Ericson, *Real-Time Collision Detection*, Morgan Kaufmann 2005, ch. 7.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import BroadPhase, register, world_for
from ..geometry import as_box, as_boxes
from .grid_cells import append_id, cell_counts, cell_of, cell_pairs, gather_cell, grow_pool, new_pool, pool_push, pool_unlink, query_hit
from ..core.jit import njit
from ..core.params import check_int, check_positive

__all__ = [
    "FixedGrid",
    "UniformGrid",
    "suggest_cell_size",
    "typical_box_size",
    "grid_shape",
    "DEFAULT_MAX_CELLS",
    "DEFAULT_CELL_FACTOR",
]

#: Most cells a grid may have by default (4 bytes each: 16 MiB).
DEFAULT_MAX_CELLS = 1 << 22
#: Cells along the longer side of the world when no cell size is given and no boxes are known.
DEFAULT_CELLS_ACROSS = 64
#: At most this many cells drawn one by one by ``regions()``; beyond, only occupied cells.
REGIONS_ALL_CELLS = 4096


# --------------------------------------------------------------------------
# Choosing the cell size
# --------------------------------------------------------------------------
def grid_shape(world, cell_size: float, max_cells: int = DEFAULT_MAX_CELLS) -> tuple[int, int]:
    """``(rows, cols)`` of square cells of side ``cell_size`` covering ``world``.

    Raises
    ------
    ValueError
        A bad cell size, or more than ``max_cells`` cells (the message gives
        the grid it would have made).
    """
    w = as_box(world, name="world")
    c = check_positive("cell_size", cell_size)
    max_cells = check_int("max_cells", max_cells, 1)
    fc, fr = (w[2] - w[0]) / c, (w[3] - w[1]) / c
    if fc * fr > max_cells or fc > max_cells or fr > max_cells:
        raise ValueError(
            f"cell_size {c:g} gives a {fr:.3g} x {fc:.3g} grid over the world {w.tolist()}, more than "
            f"max_cells={max_cells:,} cells; use larger cells or raise max_cells"
        )
    return max(1, math.ceil(fr)), max(1, math.ceil(fc))


def typical_box_size(boxes: np.ndarray, area: float | None = None) -> float:
    """Median of ``max(width, height)`` of validated ``boxes``.

    When that is 0 (points, segments), the side of a square holding one box on
    average in ``area`` (default the boxes' bounding box); 1.0 if that is 0 too.
    """
    typical = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) if len(boxes) else 0.0
    if typical > 0:
        return typical
    if area is None:
        w = world_for(boxes)
        area = (w[2] - w[0]) * (w[3] - w[1])
    typical = math.sqrt(area / max(1, len(boxes)))
    return typical if math.isfinite(typical) and typical > 0 else 1.0


#: Default multiple of the typical box size used by :func:`suggest_cell_size` (measured, see Notes there).
DEFAULT_CELL_FACTOR = 2.0


def suggest_cell_size(boxes, world=None, *, factor: float = DEFAULT_CELL_FACTOR,
                      max_cells: int = DEFAULT_MAX_CELLS) -> float:
    """A cell size for ``boxes``: the typical box size times ``factor`` (default 2).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs, world units.
    world : array_like, shape (4,), optional
        The grid's world; default the boxes' bounding box.
    factor : float
        Multiplier of the typical size (> 0). Lesson 02 measures the trade-off.
    max_cells : int
        Upper bound on the resulting number of cells.

    Returns
    -------
    float
        ``factor`` x the median of ``max(width, height)``; for boxes of zero
        size (points), the side of a cell holding one box on average. Enlarged,
        if needed, so that the grid has at most ``max(1024, 4 n)`` cells and at
        most ``max_cells``: a sparse, huge world gets coarser cells rather than
        an enormous array (memory stays O(n)).

    Raises
    ------
    ValueError
        Bad boxes, world, ``factor`` or ``max_cells``.

    Notes
    -----
    Why twice the typical size: the fewest box tests come with cells about
    one box wide, but then a box covers about 4 cells, and writing, walking
    and de-duplicating those nodes costs more than the extra tests of larger
    cells. Measured on the ``random`` scene (lesson 02's sweep at n = 2,000 and
    the benchmark at n = 100,000), the pair search is fastest for cells 1.5 to
    3 times the typical box size and the curve is flat there.
    """
    b = as_boxes(boxes)
    w = world_for(b) if world is None else as_box(world, name="world")
    factor = check_positive("factor", factor, unit="box sizes")
    max_cells = check_int("max_cells", max_cells, 1)
    area = max((w[2] - w[0]) * (w[3] - w[1]), 1e-300)
    size = factor * typical_box_size(b, area)
    budget = min(max_cells, max(1024, 4 * len(b)))
    # ceil() adds up to one row and one column: leave room for them.
    while True:
        fc, fr = (w[2] - w[0]) / size, (w[3] - w[1]) / size
        if (math.ceil(fc) if fc >= 1 else 1) * (math.ceil(fr) if fr >= 1 else 1) <= budget:
            return float(size)
        size = max(size * 1.05, math.sqrt(area / budget))


# --------------------------------------------------------------------------
# Kernels: cell ranges, insert, remove, bulk build, bulk update
# --------------------------------------------------------------------------
@njit
def span_counts(boxes, slots, ox, oy, inv, cols, rows):
    """Number of cells each ``boxes[slots[k]]`` covers; int64 (k,)."""
    out = np.empty(slots.shape[0], dtype=np.int64)
    for k in range(slots.shape[0]):
        s = slots[k]
        c0, c1 = cell_of(boxes[s, 0], ox, inv, cols), cell_of(boxes[s, 2], ox, inv, cols)
        r0, r1 = cell_of(boxes[s, 1], oy, inv, rows), cell_of(boxes[s, 3], oy, inv, rows)
        out[k] = (c1 - c0 + 1) * (r1 - r0 + 1)
    return out


@njit
def _insert_box(head, nxt, elem, state, x0, y0, x1, y1, slot, ox, oy, inv, cols, rows):
    """Push ``slot`` into every cell the box overlaps (the pool must have room)."""
    c0, c1 = cell_of(x0, ox, inv, cols), cell_of(x1, ox, inv, cols)
    r0, r1 = cell_of(y0, oy, inv, rows), cell_of(y1, oy, inv, rows)
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            pool_push(head, r * cols + c, nxt, elem, state, slot)


@njit
def _remove_box(head, nxt, elem, state, x0, y0, x1, y1, slot, ox, oy, inv, cols, rows):
    """Unlink ``slot`` from every cell the box overlaps; returns the number of nodes freed."""
    c0, c1 = cell_of(x0, ox, inv, cols), cell_of(x1, ox, inv, cols)
    r0, r1 = cell_of(y0, oy, inv, rows), cell_of(y1, oy, inv, rows)
    freed = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            freed += pool_unlink(head, r * cols + c, nxt, elem, state, slot)
    return freed


@njit
def build_kernel(head, nxt, elem, state, boxes, slots, ox, oy, inv, cols, rows):
    """Bulk load: insert ``slots`` (in reverse, so each cell's list ends up in slot order)."""
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        _insert_box(head, nxt, elem, state, boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3], s,
                    ox, oy, inv, cols, rows)


@njit
def update_kernel(head, nxt, elem, state, slots, old, new, ox, oy, inv, cols, rows):
    """Re-index moved boxes; a box whose cell range did not change is not touched at all.

    Returns the number of boxes whose cells changed.
    """
    moved = 0
    for k in range(slots.shape[0]):
        same = (cell_of(old[k, 0], ox, inv, cols) == cell_of(new[k, 0], ox, inv, cols)
                and cell_of(old[k, 2], ox, inv, cols) == cell_of(new[k, 2], ox, inv, cols)
                and cell_of(old[k, 1], oy, inv, rows) == cell_of(new[k, 1], oy, inv, rows)
                and cell_of(old[k, 3], oy, inv, rows) == cell_of(new[k, 3], oy, inv, rows))
        if same:
            continue
        moved += 1
        s = slots[k]
        _remove_box(head, nxt, elem, state, old[k, 0], old[k, 1], old[k, 2], old[k, 3], s, ox, oy, inv, cols, rows)
        _insert_box(head, nxt, elem, state, new[k, 0], new[k, 1], new[k, 2], new[k, 3], s, ox, oy, inv, cols, rows)
    return moved


@njit
def _query_kernel(head, nxt, elem, boxes, q0, q1, q2, q3, ox, oy, inv, cols, rows):
    """Slots whose boxes meet the closed query box, each once; plus (cells, nodes) visited.

    An element met in several cells is reported only from the cell of the
    lower-left corner of its intersection with the query box.
    """
    qc0, qc1 = cell_of(q0, ox, inv, cols), cell_of(q2, ox, inv, cols)
    qr0, qr1 = cell_of(q1, oy, inv, rows), cell_of(q3, oy, inv, rows)
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
                if query_hit(boxes, s, q0, q1, q2, q3, qc0, qr0, c, r, ox, oy, inv, cols, rows):
                    out, k = append_id(out, k, s)
    cells = (qr1 - qr0 + 1) * (qc1 - qc0 + 1)
    return out[:k].copy(), cells, nodes


@njit
def pairs_kernel(head, nxt, elem, boxes, ox, oy, inv, cols, rows, n_slots):
    """All intersecting slot pairs, each once; plus the number of box-box tests made.

    Each cell's list is first gathered into small contiguous arrays (the
    boxes read once per cell, not once per test), then tested two by two.
    """
    buf = np.empty(max(n_slots, 1), dtype=np.int64)
    bx = np.empty((max(n_slots, 1), 4), dtype=np.float64)
    bc = np.empty(max(n_slots, 1), dtype=np.int64)
    br = np.empty(max(n_slots, 1), dtype=np.int64)
    out = np.empty((max(16, n_slots), 2), dtype=np.int64)
    k = 0
    tests = 0
    for r in range(rows):
        for c in range(cols):
            node = head[r * cols + c]
            if node == -1 or nxt[node] == -1:
                continue  # fewer than two boxes: nothing to test
            m = gather_cell(head, r * cols + c, nxt, elem, boxes, ox, oy, inv, cols, rows, buf, bx, bc, br)
            tests += m * (m - 1) // 2
            out, k = cell_pairs(buf, bx, bc, br, m, c, r, out, k)
    return out[:k].copy(), tests


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
class FixedGrid(BroadPhase):
    """What the uniform and the hierarchical grid share: a world cut into square cells.

    Sets ``cell_size``, ``rows``, ``cols`` (raising ``ValueError`` on bad
    parameters, see :class:`UniformGrid`), suggests the cell size in
    ``from_boxes``, maps boxes to cell ranges, and returns pairs in canonical
    order with a counting sort. Not registered: it stores nothing.
    """

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world)
        self.max_cells = check_int("max_cells", max_cells, 1)
        if cell_size is None:
            cell_size = max(self.world[2] - self.world[0], self.world[3] - self.world[1]) / DEFAULT_CELLS_ACROSS
        self.cell_size = check_positive("cell_size", cell_size)
        self.rows, self.cols = grid_shape(self.world, self.cell_size, self.max_cells)
        self._inv = 1.0 / self.cell_size
        self.last_pair_tests = 0
        self.last_query_cells = 0

    @classmethod
    def from_boxes(cls, boxes, **params) -> "FixedGrid":
        """Build a grid holding ``boxes`` under ids ``0 .. n-1`` (one bulk load).

        ``cell_size=None`` (the default) takes :func:`suggest_cell_size` of the
        boxes. Other parameters and errors as :meth:`BroadPhase.from_boxes`.
        """
        if params.get("cell_size") is None:
            b = as_boxes(boxes)
            if params.get("world") is None:
                params["world"] = world_for(b)  # what BroadPhase.from_boxes would infer; computed once
            params["cell_size"] = suggest_cell_size(
                b, params["world"], max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))
            boxes = b
        return super().from_boxes(boxes, **params)

    # -- geometry -------------------------------------------------------
    @property
    def _geom(self):
        return float(self.world[0]), float(self.world[1]), self._inv, self.cols, self.rows

    def cell_range(self, box) -> tuple[int, int, int, int]:
        """``(col0, row0, col1, row1)``: the inclusive cell range a box covers (clamped)."""
        b = as_box(box)
        ox, oy, inv, cols, rows = self._geom
        return (int(cell_of(b[0], ox, inv, cols)), int(cell_of(b[1], oy, inv, rows)),
                int(cell_of(b[2], ox, inv, cols)), int(cell_of(b[3], oy, inv, rows)))

    def cell_box(self, row: int, col: int) -> np.ndarray:
        """The rectangle of cell ``(row, col)`` in world units."""
        s = self.cell_size
        return np.array([self.world[0] + col * s, self.world[1] + row * s,
                         self.world[0] + (col + 1) * s, self.world[1] + (row + 1) * s])


@register("uniform_grid")
class UniformGrid(FixedGrid):
    """A fixed grid of square cells, each one int32 head of a list of element nodes.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grid covers (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box). Boxes outside
        it are stored in the border cells: still found, only slower.
    cell_size : float, optional
        Side of a cell in world units (> 0). Default: the world's longer side
        / 64; ``from_boxes`` uses :func:`suggest_cell_size` of the boxes.
    max_cells : int
        Refuse (``ValueError``) grids with more cells than this.

    Attributes
    ----------
    rows, cols : int
        Grid shape. Cell ``(row, col)`` spans ``[x0 + col * s, x0 + (col + 1) * s]``
        by ``[y0 + row * s, y0 + (row + 1) * s]``.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()`` call.
    last_query_cells, last_query_nodes : int
        Cells and list nodes visited by the last ``query()``.

    Raises
    ------
    ValueError
        A bad world, cell size or ``max_cells``, or a grid above ``max_cells``.

    Notes
    -----
    Insert/remove O(cells covered x list length); query O(cells in the query
    + nodes in them); pairs O(cells + sum over cells of m^2 / 2) for ``m``
    boxes per cell. Memory: 4 bytes per cell + 8 bytes per (box, cell) node,
    plus the shared element table (41 bytes per slot). ``pairs()`` returns the
    library's canonical order via :func:`lessons_lib.core.pair_order.canonical_pairs`
    (a counting sort) instead of a lexsort of all pairs.
    """

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.head = np.full(self.rows * self.cols, -1, dtype=np.int32)
        self.nxt, self.elem, self.state = new_pool(16)
        self.last_query_nodes = 0

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

    # -- hooks ----------------------------------------------------------
    def _reserve(self, extra: int) -> None:
        self.nxt, self.elem = grow_pool(self.nxt, self.elem, self.state, extra)

    def _insert(self, slot, box):
        c0, r0, c1, r1 = self.cell_range(box)
        self._reserve((c1 - c0 + 1) * (r1 - r0 + 1))
        _insert_box(self.head, self.nxt, self.elem, self.state, box[0], box[1], box[2], box[3], slot, *self._geom)

    def _remove(self, slot, box):
        _remove_box(self.head, self.nxt, self.elem, self.state, box[0], box[1], box[2], box[3], slot, *self._geom)

    def _build(self, slots):
        if len(slots) == 0:
            return
        boxes = self.elements.boxes
        self._reserve(int(span_counts(boxes, slots, *self._geom).sum()))
        build_kernel(self.head, self.nxt, self.elem, self.state, boxes, slots, *self._geom)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        if len(slots) == 0:
            return
        # Fresh nodes needed <= sum of (new cells - old cells) where positive: each box frees its old nodes first.
        k = np.arange(len(slots), dtype=np.int64)
        grow = span_counts(new, k, *self._geom) - span_counts(old, k, *self._geom)
        self._reserve(int(grow[grow > 0].sum()))
        update_kernel(self.head, self.nxt, self.elem, self.state, slots, old, new, *self._geom)

    def _query(self, box):
        slots, self.last_query_cells, self.last_query_nodes = _query_kernel(
            self.head, self.nxt, self.elem, self.elements.boxes, box[0], box[1], box[2], box[3], *self._geom)
        return slots

    def _pairs(self):
        p, self.last_pair_tests = pairs_kernel(self.head, self.nxt, self.elem, self.elements.boxes,
                                                *self._geom, self.elements.high_water)
        return p

    def _clear(self):
        self.head.fill(-1)
        self.state[0], self.state[1] = 0, -1

    def _nbytes(self):
        return self.head.nbytes + self.nxt.nbytes + self.elem.nbytes + self.state.nbytes

    def regions(self):
        """Every cell (depth 0) for grids of at most 4096 cells, else only the occupied cells."""
        if self.rows * self.cols <= REGIONS_ALL_CELLS:
            cells = np.arange(self.rows * self.cols)
        else:
            cells = np.flatnonzero(self.head != -1)
        r, c = cells // self.cols, cells % self.cols
        s = self.cell_size
        x0, y0 = self.world[0] + c * s, self.world[1] + r * s
        rects = np.column_stack([x0, y0, x0 + s, y0 + s]).astype(np.float64).reshape(-1, 4)
        return rects, np.zeros(len(rects), dtype=np.int64)

    def __repr__(self):
        return (f"UniformGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"grid={self.rows}x{self.cols})")



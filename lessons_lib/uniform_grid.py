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
See :mod:`lessons_lib.grid_cells` for why this clamping is safe and how each
pair is reported once (from the cell of the lower-left corner of the two boxes'
intersection).

The second half of the module is the **corner-only pitfall**
(:func:`corner_only_pairs`): the benchmark article's grid hashing puts a box
only in the cells of its four corners, which misses pairs that meet in a cell
where neither box has a corner. It is wrong on purpose, for the lesson, and is
not registered in ``STRUCTURES``.

References
----------
* The quadtree answer set on Stack Overflow (seed ``000_2368b35e41245e11.txt``):
  the fixed-resolution grid of 32-bit integers, its node lists, the
  "dragons among orcs" big-object problem.
* magley, *Algorithms and data structures in the broad phase* (2026; seed
  ``003_949342aaa7896f4f.txt``): grid hashing with the four corners of a box.
* A game-development lecture on spatial data structures (seed
  ``004_5855a36c4b91efac.txt``): cell size about the typical object size.
* C. Ericson, *Real-Time Collision Detection*, Morgan Kaufmann 2005, ch. 7.
"""
from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .base import BroadPhase, register, world_for
from .geometry import as_box, as_boxes
from .grid_cells import append_id, cell_of, grow_pool, new_pool, pool_push, pool_unlink
from .jit import njit

__all__ = [
    "FixedGrid",
    "UniformGrid",
    "suggest_cell_size",
    "typical_box_size",
    "grid_shape",
    "corner_cells",
    "corner_only_pairs",
    "DEFAULT_MAX_CELLS",
    "DEFAULT_CELL_FACTOR",
    "grid_pair_tests",
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
def _check_max_cells(max_cells) -> int:
    if isinstance(max_cells, bool) or not isinstance(max_cells, (int, np.integer)) or max_cells < 1:
        raise ValueError(f"max_cells must be a positive integer, got {max_cells!r}")
    return int(max_cells)


def _check_cell_size(cell_size, name: str = "cell_size") -> float:
    if isinstance(cell_size, bool) or not isinstance(cell_size, Real):
        raise ValueError(f"{name} must be a positive number of world units, got {cell_size!r}")
    v = float(cell_size)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number of world units, got {v}")
    return v


def grid_shape(world, cell_size: float, max_cells: int = DEFAULT_MAX_CELLS) -> tuple[int, int]:
    """``(rows, cols)`` of square cells of side ``cell_size`` covering ``world``.

    Raises
    ------
    ValueError
        A bad cell size, or more than ``max_cells`` cells (the message gives
        the grid it would have made).
    """
    w = as_box(world, name="world")
    c = _check_cell_size(cell_size)
    max_cells = _check_max_cells(max_cells)
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
    factor = _check_cell_size(factor, "factor")
    max_cells = _check_max_cells(max_cells)
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
def _span_counts(boxes, slots, ox, oy, inv, cols, rows):
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
def _build_kernel(head, nxt, elem, state, boxes, slots, ox, oy, inv, cols, rows):
    """Bulk load: insert ``slots`` (in reverse, so each cell's list ends up in slot order)."""
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        _insert_box(head, nxt, elem, state, boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3], s,
                    ox, oy, inv, cols, rows)


@njit
def _update_kernel(head, nxt, elem, state, slots, old, new, ox, oy, inv, cols, rows):
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


# --------------------------------------------------------------------------
# Kernels: query and pairs
# --------------------------------------------------------------------------
@njit(inline="always")
def _query_hit(boxes, s, q0, q1, q2, q3, qc0, qr0, c, r, ox, oy, inv, cols, rows):
    """Does slot ``s`` meet the query box, and is cell ``(c, r)`` the one that reports it?

    The reporting cell is that of the lower-left corner of the intersection:
    ``(max(col of xmin, qc0), max(row of ymin, qr0))``, ``(qc0, qr0)`` being
    the query's first cell.
    """
    return (boxes[s, 0] <= q2 and q0 <= boxes[s, 2] and boxes[s, 1] <= q3 and q1 <= boxes[s, 3]
            and max(cell_of(boxes[s, 0], ox, inv, cols), qc0) == c
            and max(cell_of(boxes[s, 1], oy, inv, rows), qr0) == r)


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
                if _query_hit(boxes, s, q0, q1, q2, q3, qc0, qr0, c, r, ox, oy, inv, cols, rows):
                    out, k = append_id(out, k, s)
    cells = (qr1 - qr0 + 1) * (qc1 - qc0 + 1)
    return out[:k].copy(), cells, nodes


@njit(inline="always")
def _cell_pairs(buf, bx, bc, br, m, c, r, out, k):
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
def _gather_cell(head, cell, nxt, elem, boxes, ox, oy, inv, cols, rows, buf, bx, bc, br):
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
def _pairs_kernel(head, nxt, elem, boxes, ox, oy, inv, cols, rows, n_slots):
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
            m = _gather_cell(head, r * cols + c, nxt, elem, boxes, ox, oy, inv, cols, rows, buf, bx, bc, br)
            tests += m * (m - 1) // 2
            out, k = _cell_pairs(buf, bx, bc, br, m, c, r, out, k)
    return out[:k].copy(), tests


@njit
def _occupancy(head, nxt, n_cells):
    """Number of nodes in each cell; int64 (n_cells,)."""
    out = np.zeros(n_cells, dtype=np.int64)
    for cell in range(n_cells):
        node = head[cell]
        while node != -1:
            out[cell] += 1
            node = nxt[node]
    return out


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
        self.max_cells = _check_max_cells(max_cells)
        if cell_size is None:
            cell_size = max(self.world[2] - self.world[0], self.world[3] - self.world[1]) / DEFAULT_CELLS_ACROSS
        self.cell_size = _check_cell_size(cell_size)
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
    library's canonical order via :func:`lessons_lib.pair_order.canonical_pairs`
    (a counting sort) instead of a lexsort of all pairs.
    """

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.head = np.full(self.rows * self.cols, -1, dtype=np.int32)
        self.nxt, self.elem, self.state = new_pool(16)
        self.last_query_nodes = 0

    def occupancy(self) -> np.ndarray:
        """Elements per cell: ``(rows, cols)`` int64."""
        return _occupancy(self.head, self.nxt, len(self.head)).reshape(self.rows, self.cols)

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
        self._reserve(int(_span_counts(boxes, slots, *self._geom).sum()))
        _build_kernel(self.head, self.nxt, self.elem, self.state, boxes, slots, *self._geom)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        if len(slots) == 0:
            return
        # Fresh nodes needed <= sum of (new cells - old cells) where positive: each box frees its old nodes first.
        k = np.arange(len(slots), dtype=np.int64)
        grow = _span_counts(new, k, *self._geom) - _span_counts(old, k, *self._geom)
        self._reserve(int(grow[grow > 0].sum()))
        _update_kernel(self.head, self.nxt, self.elem, self.state, slots, old, new, *self._geom)

    def _query(self, box):
        slots, self.last_query_cells, self.last_query_nodes = _query_kernel(
            self.head, self.nxt, self.elem, self.elements.boxes, box[0], box[1], box[2], box[3], *self._geom)
        return slots

    def _pairs(self):
        p, self.last_pair_tests = _pairs_kernel(self.head, self.nxt, self.elem, self.elements.boxes,
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


# --------------------------------------------------------------------------
# The corner-only pitfall (lesson 02): wrong on purpose, not registered
# --------------------------------------------------------------------------
def corner_cells(box, cell_size: float, world=None) -> list[tuple[int, int]]:
    """Cells ``(row, col)`` of a box's four corners, without repeats (the article's grid hashing).

    Uses the same clamped ``floor`` as :class:`UniformGrid` over ``world``
    (default the article's 800 x 600).
    """
    grid = UniformGrid(world=world, cell_size=cell_size)
    c0, r0, c1, r1 = grid.cell_range(box)
    return sorted({(r0, c0), (r0, c1), (r1, c0), (r1, c1)})


def corner_only_pairs(boxes, cell_size: float, world=None) -> tuple[np.ndarray, int]:
    """Pairs found when each box is put only in the cells of its four corners.

    The benchmark article's grid hashing (magley 2026, seed
    ``003_949342aaa7896f4f.txt``) and its flaw: a box longer than a cell skips
    the cells between its corners, so two boxes that cross in such a cell are
    never compared. Correct only when every box is at most one cell wide and
    tall. Plain Python, for small lessons.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    cell_size : float
        Side of a cell, world units (> 0).
    world : array_like, shape (4,), optional
        Default the boxes' bounding box.

    Returns
    -------
    pairs : numpy.ndarray, shape (k, 2), int64
        Canonical order (``i < j``, rows sorted); a subset of the true pairs.
    tests : int
        Box-box tests made (each unordered pair at most once).

    Raises
    ------
    ValueError
        Bad boxes, world or cell size.
    """
    b = as_boxes(boxes)
    w = world_for(b) if world is None else world
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, box in enumerate(b):
        for cell in corner_cells(box, cell_size, w):
            buckets.setdefault(cell, []).append(i)
    seen: set[tuple[int, int]] = set()
    found = []
    for members in buckets.values():
        for u in range(len(members)):
            for v in range(u + 1, len(members)):
                i, j = members[u], members[v]
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                if b[i, 0] <= b[j, 2] and b[j, 0] <= b[i, 2] and b[i, 1] <= b[j, 3] and b[j, 1] <= b[i, 3]:
                    found.append((i, j))
    pairs = np.array(sorted(found), dtype=np.int64).reshape(-1, 2)
    return pairs, len(seen)


def grid_pair_tests(boxes, cell_size: float, world=None) -> int:
    """Box-box tests a :class:`UniformGrid` with ``cell_size`` makes on ``boxes`` (vs ``C(n, 2)``)."""
    g = UniformGrid.from_boxes(boxes, cell_size=cell_size, world=world)
    g.pairs()
    return g.last_pair_tests


"""What the compact and the loose quadtree share: the node array, the child order, the cell frame.

Lessons 05 and 06 build two quadtrees over the same skeleton; this module holds
the skeleton, so that each structure's file shows only its own algorithm.

The node array
--------------
``nodes`` is an ``(c, 2)`` int32 array, one row ``[FIRST, COUNT]`` per node
(8 bytes). A **leaf** has ``COUNT >= 0`` and ``FIRST`` = the head of its
element list (-1: empty); a **branch** has ``COUNT == BRANCH`` (-1) and
``FIRST`` = its first child. The four children are contiguous, in the order
top-left, top-right, bottom-left, bottom-right (``TL, TR, BL, BR``, y
upwards), and are handed out and freed as one block of four by the indexed
free list (:mod:`lessons_lib.core.freelist`). Node 0 is the root.

The cell frame
--------------
No node stores its rectangle. The root's rectangle (the ``world``) is cut
into ``2**max_depth`` integer cells per axis, and a coordinate maps to its
cell with :func:`lessons_lib.structures.grid_cells.cell_of` (floor, then clamp
to the border cells, so a box outside the world is kept, never lost). A node
at depth ``d`` whose lower-left cell is ``(lx, ly)`` covers
``2**(max_depth - d)`` cells each way; a descent carries ``(node, depth, lx,
ly)`` and finds a child's corner with a shift and an add. The frame is the
tuple ``cells = (ox, oy, sx, sy, max_depth)``: the world's lower-left corner,
cells per world unit on each axis, and the depth.

The world
---------
:func:`cell_frame` checks that a world's arithmetic holds: its width and
height must be finite floats (``xmax - xmin`` must not overflow) and
``2**max_depth`` cells must fit in it (``cells per unit`` finite), else
``ValueError`` names the world and the limit. When the world is inferred from
the data (``from_boxes`` without ``world``), :func:`square_world` gives the
bounding **square** of the boxes, with a floor on its side, so that cells are
square whatever the data's aspect ratio (a line of boxes 40,000 units long
and one unit tall no longer makes cells 156 times wider than tall).

References
----------
The quadtree answer set [SO-quadtree]: 8-byte nodes, contiguous children,
free blocks of four, no stored rectangles.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.freelist import FREE_MARK, USED, fl_holes
from ..core.jit import njit
from ..core.params import check_int
from ..geometry import box_extent
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .curves import morton_encode
from .grid_cells import cell_of

__all__ = [
    "FIRST", "COUNT", "BRANCH", "check_capacity_and_depth", "TL", "TR", "BL", "BR", "MAX_DEPTH_LIMIT", "MIN_SIDE", "RELATIVE_SIDE",
    "cell_frame", "square_world", "merge_limit", "SquareWorldFromBoxes", "QuadNodes", "put", "take", "put_children", "cell_box", "centre_cell", "child_corner",
    "quadrant", "node_rows", "leaves_overlapping", "find_leaves", "narrowest_node", "cell_rects", "morton_order", "ROW_NODE", "ROW_DEPTH", "ROW_LX", "ROW_LY", "ROW_COUNT",
]

#: Columns of a node row: head of the leaf's list or first child; element count, or BRANCH.
FIRST, COUNT = 0, 1
#: ``COUNT`` of a branch.
BRANCH = -1
#: Child order inside a block of four (y upwards): top-left, top-right, bottom-left, bottom-right.
TL, TR, BL, BR = 0, 1, 2, 3
#: Largest ``max_depth``: cell coordinates stay below ``2**30`` (int32).
MAX_DEPTH_LIMIT = 30
#: Smallest side of an inferred world (about 9.8e-299): ``2**30`` cells per side stay finite.
MIN_SIDE = 2.0 ** -990
#: An inferred world is at least this fraction of its distance from 0 wide (its corners stay distinct floats).
RELATIVE_SIDE = 2.0 ** -40
_BIG = sys.float_info.max


# ==========================================================================
# The world and the cell frame
# ==========================================================================
def merge_limit(capacity: int) -> int:
    """Most elements four sibling leaves may hold together for ``cleanup`` to merge them: ``max(1, capacity // 2)``.

    Merging quartets that are not empty keeps a long run's tree following
    where the elements are now (empty-only merging keeps every split a crowd
    ever caused). Merging up to a full ``capacity`` would let one arriving
    element split the merged leaf again, so a leaf at a crowd's edge would
    merge and split every frame; half the capacity leaves room in between.
    """
    return max(1, int(capacity) // 2)


def check_capacity_and_depth(capacity, max_depth) -> tuple[int, int, int]:
    """The three quadtrees' one check of their parameters: ``(capacity, max_depth, merge limit)``.

    ``capacity`` (node capacity: elements a leaf holds before it splits) must be
    an integer in ``1 .. 2**31 - 1`` (counts are int32), ``max_depth`` an integer
    in ``0 .. MAX_DEPTH_LIMIT``; otherwise ``ValueError`` naming the parameter.
    The merge limit is :func:`merge_limit` of the capacity.
    """
    capacity = check_int("capacity", capacity, 1, 2**31 - 1)
    max_depth = check_int("max_depth", max_depth, 0, MAX_DEPTH_LIMIT)
    return capacity, max_depth, merge_limit(capacity)


def cell_frame(world, max_depth: int) -> tuple[float, float, float, float, int]:
    """The frame ``(ox, oy, sx, sy, max_depth)`` of a validated world, or ``ValueError``.

    Parameters
    ----------
    world : numpy.ndarray, shape (4,)
        ``[xmin, ymin, xmax, ymax]``, finite, positive width and height.
    max_depth : int
        ``0 .. MAX_DEPTH_LIMIT``: the world is cut into ``2**max_depth`` cells per axis.

    Raises
    ------
    ValueError
        The world's width or height overflows (wider than the largest float,
        about 1.8e308), or is so small that ``2**max_depth`` cells per unit
        overflow. Both name the world and the limit.
    """
    x0, y0, x1, y1 = (float(v) for v in world)
    w, h = x1 - x0, y1 - y0
    if not (np.isfinite(w) and np.isfinite(h)):
        raise ValueError(f"world {[x0, y0, x1, y1]} is too large: its width and height must be finite floats "
                         f"(at most {_BIG:.4g}); boxes outside the world are still stored")
    n = float(1 << max_depth)
    sx, sy = n / w, n / h
    if not (np.isfinite(sx) and np.isfinite(sy)):
        raise ValueError(f"world {[x0, y0, x1, y1]} is too small for max_depth {max_depth}: "
                         f"2**{max_depth} cells per axis need a width and height of at least {n / _BIG:.3g}")
    return x0, y0, sx, sy, int(max_depth)


def square_world(boxes: np.ndarray) -> np.ndarray:
    """The root square inferred from validated ``(n, 4)`` boxes: their bounding square, never degenerate.

    The square is centred on the boxes' bounding box; its side is the larger
    of that box's width and height, at least :data:`MIN_SIDE` and at least
    :data:`RELATIVE_SIDE` times the centre's distance from 0 (so that its
    corners are distinct floats). Everything is computed in halves, so
    nothing overflows; a square that would reach past the float range is
    shrunk to fit (side at most ``max / 2``), and boxes outside it are still
    stored (in the border cells). With no boxes, the article's 800 x 600
    world.

    Returns
    -------
    numpy.ndarray, shape (4,), float64
        ``[xmin, ymin, xmax, ymax]`` with ``xmax - xmin == ymax - ymin``
        (up to rounding), finite.
    """
    if len(boxes) == 0:
        return np.array([0.0, 0.0, 800.0, 600.0])
    x0, y0, x1, y1 = (float(v) for v in box_extent(boxes))
    cx, cy = 0.5 * x0 + 0.5 * x1, 0.5 * y0 + 0.5 * y1
    half = max(0.5 * x1 - 0.5 * x0, 0.5 * y1 - 0.5 * y0, 0.5 * MIN_SIDE,
               0.5 * RELATIVE_SIDE * max(abs(cx), abs(cy)))
    half = min(half, 0.25 * _BIG)
    cx, cy = min(max(cx, -0.5 * _BIG), 0.5 * _BIG), min(max(cy, -0.5 * _BIG), 0.5 * _BIG)
    return np.array([cx - half, cy - half, cx + half, cy + half])


class SquareWorldFromBoxes:
    """Mixin of the three quadtrees: ``from_boxes`` without a ``world`` uses :func:`square_world`."""

    @classmethod
    def _params_from_boxes(cls, boxes, params):
        """``world=None`` becomes the boxes' bounding *square* (:func:`square_world`), so that cells are square."""
        if params.get("world") is None:
            params["world"] = square_world(boxes)


class QuadNodes(SquareWorldFromBoxes):
    """Mixin of the compact and loose quadtrees: what a class over a node array shows of it.

    Expects ``nodes``, ``node_meta`` (the free list's ``[used, head]``),
    ``max_depth`` and ``_cells`` (the cell frame) attributes.
    """

    @property
    def cells_per_axis(self) -> int:
        """``2**max_depth``: the resolution of the integer cell coordinates."""
        return 1 << self.max_depth

    def node_rows(self) -> np.ndarray:
        """Every live node, depth first: ``(m, 5)`` int64 rows ``(node, depth, lx, ly, count)`` (:func:`node_rows`)."""
        return node_rows(self.nodes, self.max_depth, int(self.node_meta[USED]))

    def node_count(self) -> int:
        """Live nodes (branches and leaves)."""
        return len(self.node_rows())

    def leaf_count(self) -> int:
        """Live leaves."""
        return int((self.node_rows()[:, ROW_COUNT] != BRANCH).sum())

    def depth(self) -> int:
        """Depth of the deepest node (0 when the root is a leaf)."""
        return int(self.node_rows()[:, ROW_DEPTH].max())

    def cell_range(self, box) -> tuple[int, int, int, int]:
        """Inclusive integer cell range ``(cx0, cy0, cx1, cy1)`` of a box (floor, then clamp)."""
        b = [float(v) for v in box]
        return tuple(int(v) for v in cell_box(self._cells, b[XMIN], b[YMIN], b[XMAX], b[YMAX]))

    def check_leaf_cover(self, rows: np.ndarray, where: dict) -> None:
        """Raise ``AssertionError`` unless every slot lies in exactly the leaves its cell range overlaps, once each.

        ``rows`` are the live nodes (:func:`node_rows`); ``where`` maps each
        live slot to the ``(lx, ly, size)`` of the leaves whose lists hold it.
        """
        leaf_rows = rows[rows[:, ROW_COUNT] != BRANCH]
        llx, lly = leaf_rows[:, ROW_LX], leaf_rows[:, ROW_LY]
        lsize = np.left_shift(1, self.max_depth - leaf_rows[:, ROW_DEPTH])
        for s, got in where.items():
            cx0, cy0, cx1, cy1 = self.cell_range(self.elements.boxes[s])
            assert len(set(got)) == len(got), f"slot {s} twice in one leaf"
            for lx, ly, size in got:
                assert lx <= cx1 and cx0 < lx + size and ly <= cy1 and cy0 < ly + size, f"slot {s} in a leaf its box misses"
            want = int(((llx <= cx1) & (cx0 < llx + lsize) & (lly <= cy1) & (cy0 < lly + lsize)).sum())
            assert want == len(got), f"slot {s} is in {len(got)} leaves, its box overlaps {want}"

    def check_node_blocks(self, rows: np.ndarray) -> None:
        """Raise ``AssertionError`` unless the live ``rows`` and the free blocks partition the nodes handed out.

        Every live node is reachable once; every branch's children and every
        free block are aligned blocks of four (``1 + 4 k``); a free node is
        marked free and unreachable.
        """
        live = set(rows[:, ROW_NODE].tolist())
        assert len(live) == len(rows), "a node is reachable twice"
        firsts = [int(self.nodes[r[ROW_NODE], FIRST]) for r in rows if r[ROW_COUNT] == BRANCH]
        assert all(f >= 1 and (f - 1) % 4 == 0 for f in firsts), "a branch has misaligned children"
        free_blocks = fl_holes(self.nodes, self.node_meta)
        free = {b + j for b in free_blocks for j in range(4)}
        assert all(b >= 1 and (b - 1) % 4 == 0 for b in free_blocks), "a free block is misaligned"
        assert not (free & live), "a free node is reachable from the root"
        assert all(self.nodes[f, COUNT] == FREE_MARK for f in free), "a free node is not marked free"
        assert len(live) + len(free) == int(self.node_meta[USED]), "nodes leaked"


@njit(inline="always")
def cell_box(cells, x0, y0, x1, y1):
    """Inclusive integer cell range ``(cx0, cy0, cx1, cy1)`` of the box ``[x0, y0, x1, y1]``."""
    ox, oy, sx, sy, max_depth = cells
    n = 1 << max_depth
    return cell_of(x0, ox, sx, n), cell_of(y0, oy, sy, n), cell_of(x1, ox, sx, n), cell_of(y1, oy, sy, n)


@njit(inline="always")
def centre_cell(cells, boxes, s):
    """Integer cell ``(cx, cy)`` of the centre of ``boxes[s]`` (halves added: no overflow)."""
    ox, oy, sx, sy, max_depth = cells
    n = 1 << max_depth
    return (cell_of(0.5 * boxes[s, XMIN] + 0.5 * boxes[s, XMAX], ox, sx, n),
            cell_of(0.5 * boxes[s, YMIN] + 0.5 * boxes[s, YMAX], oy, sy, n))


# ==========================================================================
# Children
# ==========================================================================
@njit(inline="always")
def child_corner(j, lx, ly, half):
    """Lower-left cell of child ``j`` (TL, TR, BL, BR) of the node at ``(lx, ly)`` with half-size ``half``."""
    right = j == TR or j == BR
    top = j == TL or j == TR
    return (lx + half if right else lx), (ly + half if top else ly)


@njit(inline="always")
def quadrant(cx, cy, lx, ly, half):
    """The child (TL, TR, BL, BR) holding cell ``(cx, cy)`` of the node at ``(lx, ly)``, and its corner."""
    right = cx >= lx + half
    top = cy >= ly + half
    j = (TR if right else TL) if top else (BR if right else BL)
    return j, (lx + half if right else lx), (ly + half if top else ly)


# ==========================================================================
# Walking the tree: work rows "visit this node" (a descent) or "put this element under it" (insert)
# ==========================================================================
@njit(inline="always")
def put(rows, k, node, depth, lx, ly, element):
    """Write the work row ``(node, depth, lx, ly, element)`` at row ``k`` of an (m, 5) int64 array."""
    rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4] = node, depth, lx, ly, element


@njit(inline="always")
def take(rows, k):
    """The work row at ``k``: ``(node, depth, lx, ly, element)``."""
    return rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]


@njit(inline="always")
def put_children(rows, top, first, depth, lx, ly, max_depth, cx0, cy0, cx1, cy1, element):
    """Push the children of a branch that the cell range overlaps; return the new ``top``.

    Pushed in reverse order, so that they pop in tree order (TL, TR, BL, BR).
    ``rows`` must have room for four more rows.
    """
    half = (1 << (max_depth - depth)) >> 1
    mx, my = lx + half, ly + half
    left, right, low, high = cx0 < mx, cx1 >= mx, cy0 < my, cy1 >= my
    if low and right:
        put(rows, top, first + BR, depth + 1, mx, ly, element)
        top += 1
    if low and left:
        put(rows, top, first + BL, depth + 1, lx, ly, element)
        top += 1
    if high and right:
        put(rows, top, first + TR, depth + 1, mx, my, element)
        top += 1
    if high and left:
        put(rows, top, first + TL, depth + 1, lx, my, element)
        top += 1
    return top


#: Columns of a row of :func:`node_rows`.
ROW_NODE, ROW_DEPTH, ROW_LX, ROW_LY, ROW_COUNT = 0, 1, 2, 3, 4



@njit
def node_rows(nodes, max_depth, n_handed_out):
    """Every live node, depth first from the root (children TL, TR, BL, BR): ``(m, 5)`` int64.

    Rows are ``(node, depth, lx, ly, count)`` (``count == BRANCH`` for a
    branch); parents come before their children. ``n_handed_out`` (the free
    list's ``used``) bounds the number of live nodes.
    """
    out = np.empty((max(1, n_handed_out), 5), dtype=np.int64)
    stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    put(stack, 0, 0, 0, 0, 0, 0)
    top, m, n = 1, 0, 1 << max_depth
    while top > 0:
        top -= 1
        node, depth, lx, ly, _ = take(stack, top)
        put(out, m, node, depth, lx, ly, nodes[node, COUNT])
        m += 1
        if nodes[node, COUNT] == BRANCH:
            top = put_children(stack, top, nodes[node, FIRST], depth, lx, ly, max_depth, 0, 0, n - 1, n - 1, 0)
    return out[:m].copy()


@njit
def leaves_overlapping(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out):
    """Leaves the cell range overlaps, in tree order, as work rows in ``out``. Returns ``(out, count)``.

    A row is ``(node, depth, lx, ly, 0)`` (read it with the ``ROW_*`` columns).

    ``stack`` needs ``3 * max_depth + 1`` rows; ``out`` is grown when the
    leaves do not fit (the descent then runs again).
    """
    k = find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out)
    if k > out.shape[0]:
        out = np.empty((2 * k, 5), dtype=np.int64)
        k = find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out)
    return out, k


@njit(inline="always")
def narrowest_node(nodes, max_depth, cx0, cy0, cx1, cy1):
    """The deepest node holding the whole cell range: ``(node, depth, lx, ly)``.

    Walks down from the root while the range lies inside one child (a leaf,
    or a branch the range straddles, ends the walk): one read per level and
    no work list, where most small boxes spend most of their descent. Every
    leaf the range overlaps is under the node returned.
    """
    node, depth, lx, ly = 0, 0, 0, 0
    while nodes[node, COUNT] == BRANCH:
        half = (1 << (max_depth - depth)) >> 1
        mx, my = lx + half, ly + half
        if cx1 < mx:
            right = False
        elif cx0 >= mx:
            right = True
        else:
            break
        if cy1 < my:
            top = False
        elif cy0 >= my:
            top = True
        else:
            break
        node = nodes[node, FIRST] + ((TR if right else TL) if top else (BR if right else BL))
        depth += 1
        if right:
            lx = mx
        if top:
            ly = my
    return node, depth, lx, ly


@njit
def find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out):
    """The descent of :func:`leaves_overlapping`: leaves written while ``out`` has room; returns how many."""
    node, depth, lx, ly = narrowest_node(nodes, max_depth, cx0, cy0, cx1, cy1)
    put(stack, 0, node, depth, lx, ly, 0)
    top, k = 1, 0
    while top > 0:
        top -= 1
        node, depth, lx, ly, _ = take(stack, top)
        if nodes[node, COUNT] == BRANCH:
            top = put_children(stack, top, nodes[node, FIRST], depth, lx, ly, max_depth, cx0, cy0, cx1, cy1, 0)
            continue
        if k < out.shape[0]:
            put(out, k, node, depth, lx, ly, 0)
        k += 1
    return k


def cell_rects(world, max_depth: int, rows: np.ndarray) -> np.ndarray:
    """World rectangles ``(m, 4)`` float64 of the nodes in ``rows`` (from :func:`node_rows`): computed, not stored.

    The far edges of the root are exactly the world's (no rounding drift).
    """
    x0, y0, x1, y1 = (float(v) for v in world)
    n = 1 << max_depth
    cw, ch = (x1 - x0) / n, (y1 - y0) / n
    size = np.left_shift(1, max_depth - rows[:, ROW_DEPTH])
    lx, ly = rows[:, ROW_LX], rows[:, ROW_LY]
    rect = np.column_stack([x0 + lx * cw, y0 + ly * ch, x0 + (lx + size) * cw, y0 + (ly + size) * ch])
    rect[:, XMAX] = np.where(lx + size == n, x1, rect[:, XMAX])
    rect[:, YMAX] = np.where(ly + size == n, y1, rect[:, YMAX])
    return rect


# ==========================================================================
# Bulk-load order
# ==========================================================================
def morton_order(slots: np.ndarray, boxes: np.ndarray, cells) -> np.ndarray:
    """``slots`` sorted by the Morton code (Z-order) of their boxes' centre cells (stable).

    Consecutive inserts then descend the same paths; the tree built is the
    same in any order (up to the order of each leaf's list).
    """
    if len(slots) < 2:
        return slots
    ox, oy, sx, sy, max_depth = cells
    n = 1 << max_depth
    b = boxes[slots]
    with np.errstate(over="ignore", invalid="ignore"):  # huge coordinates clamp to the border cells
        cx = np.clip(np.floor((0.5 * b[:, XMIN] + 0.5 * b[:, XMAX] - ox) * sx), 0, n - 1).astype(np.int64)
        cy = np.clip(np.floor((0.5 * b[:, YMIN] + 0.5 * b[:, YMAX] - oy) * sy), 0, n - 1).astype(np.int64)
    return slots[np.argsort(morton_encode(cx, cy), kind="stable")]

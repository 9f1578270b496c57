"""The loose quadtree: one leaf per element, chosen by its centre; every node keeps a growing AABB.

Lesson 06. The compact quadtree of lesson 05 (:mod:`lessons_lib.structures.quadtree`)
puts a box into *every* leaf it overlaps, so a dragon lying across a hundred
leaves costs a hundred element nodes and a hundred unlinks when it moves. The
loose quadtree treats each element as the single point at its centre: the
point picks exactly one leaf, and a big element costs exactly as much memory
and insert work as a small one. The price is that quadrants no longer bound
their contents, so every node stores its own **loose bounds**: an AABB that
grows to cover whatever was inserted beneath it, and that may reach into
neighbouring quadrants. A query descends into every child whose loose bounds
meet the query box.

Data layout
-----------
=================  ===============  ==================================================
array              shape, dtype     meaning
=================  ===============  ==================================================
``nodes``          (c, 2) int32     ``[first, count]`` as in the compact quadtree: a
                                    **leaf** has ``count >= 0`` and ``first`` = the
                                    first element *slot* of its list (-1: empty); a
                                    **branch** has ``count == -1`` and ``first`` =
                                    its first child; the four children are the
                                    contiguous nodes ``first + 0 .. first + 3``
                                    (TL, TR, BL, BR, y upwards). Node 0 is the root.
``rects``          (c, 4) float32   loose bounds ``[xmin, ymin, xmax, ymax]`` of
                                    each node; an empty node has the inverted
                                    ``[inf, inf, -inf, -inf]``, which meets nothing.
``enext``          (slots,) int32   next slot in the same leaf's list (-1 ends it):
                                    an element lies in one leaf, so its slot *is*
                                    its list node, no element-node array needed.
``leaf``           (slots,) int32   the leaf holding each slot (-1: not stored), so
                                    a remove goes straight to its leaf.
element table      (slots)          ``BroadPhase.elements``: id and float64 box.
=================  ===============  ==================================================

``nodes`` is an indexed free list handing out blocks of four
(:mod:`lessons_lib.core.freelist`), exactly as in the compact quadtree. A node costs
24 bytes (8 for ``[first, count]``, 16 for the float32 bounds: three times the
compact node), an element 8 bytes (``enext`` and ``leaf``) wherever it lies and
however large it is.

Which leaf: the centre's cell
-----------------------------
The root's rectangle (the ``world``) is cut into ``2**max_depth`` integer cells
per axis with the compact quadtree's map :func:`lessons_lib.structures.quadtree.cell_of`
(true floor, then clamp), and an element belongs to the leaf containing the
cell of its centre ``(0.5 xmin + 0.5 xmax, 0.5 ymin + 0.5 ymax)``. Centres
outside the root clamp to border cells: the element is still stored, and the
loose bounds of every node on its path grow to cover it, so it is still found.

float32 bounds that never lose an element
-----------------------------------------
Bounds are float32 (as in the seed) but the boxes are float64, so a bound is
rounded **outwards** (:func:`f32_down` for minima, :func:`f32_up` for maxima):
the float32 box always contains the float64 box, and the exact test on the
element table decides. Bounds are therefore conservative but never wrong.

Operations
----------
* insert: walk from the root to the leaf of the centre's cell, growing the
  bounds of every node on the way by the element's box; push the slot on the
  leaf's list. A leaf over ``capacity`` (above ``max_depth``) splits: its
  elements move to the four new children by their centres, each child's
  bounds are the union of what it received. All of a split's elements could
  land in one child, which then splits again: at most one child per level
  can be over capacity, so a split cascade is a simple loop.
* remove: unlink the slot from its leaf. Bounds are *not* shrunk: they stay
  valid (too large, never too small) until :meth:`LooseQuadtree.cleanup`.
* update (and the bulk ``update_many``): walk to the leaf of the new centre
  growing the bounds on the way; if it is the old leaf nothing else changes,
  otherwise unlink and push.
* query: descend into every child whose bounds meet the query box; test the
  elements of the leaves reached. No "already seen" marks are needed: each
  element is in one leaf.
* pairs: a simultaneous descent of the tree against itself (the self-join of
  R-trees): a node is joined with itself (its children pairwise) and two
  nodes whose bounds meet are joined by descending into the larger one.
  Each pair is reported once, from the one pair of leaves that hold it.
* cleanup: one bottom-up pass over all nodes: leaves recompute their bounds
  from their elements, branches from their children, and a branch whose four
  children are empty leaves becomes an empty leaf (its block of four returns
  to the free list). Afterwards every bound is exactly the outward-rounded
  union of its contents: growth from removed or moved elements is gone.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree], section "Loose quadtree": one leaf per element
by a single point, per-node bounds expanded on insert and refit in cleanup,
float bounds, costlier queries and 250,000 moving agents. T. Ulrich, "Loose
octrees", *Game Programming Gems* (2000), for the original loose bounds.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.freelist import FREE_MARK, fl_erase_block, fl_grow, fl_holes, fl_take
from ..core.jit import njit
from ..core.params import check_int
from .loose_bounds import EMPTY_RECT, f32_down, f32_up, grow_rect, set_empty
from .quadtree import BL, BR, BRANCH, MAX_DEPTH_LIMIT, TL, TR, cell_of, morton_code
from .slot_lists import grown_slots, scan_slot_list, unlink_slot

__all__ = ["LooseQuadtree"]



@njit
def _centre_cell(boxes, s, ox, oy, sx, sy, n):
    """Integer cell ``(cx, cy)`` of the centre of ``boxes[s]`` (halves added, so no overflow)."""
    return (cell_of(0.5 * boxes[s, 0] + 0.5 * boxes[s, 2], ox, sx, n),
            cell_of(0.5 * boxes[s, 1] + 0.5 * boxes[s, 3], oy, sy, n))


@njit
def _quadrant(cx, cy, lx, ly, half):
    """Child index (TL, TR, BL, BR) of cell ``(cx, cy)`` in the node at ``(lx, ly)``, and the child's corner."""
    right = cx >= lx + half
    top = cy >= ly + half
    nlx = lx + half if right else lx
    nly = ly + half if top else ly
    if top:
        return (TR if right else TL), nlx, nly
    return (BR if right else BL), nlx, nly


# ==========================================================================
# Insert and move (one kernel), with splits
# ==========================================================================
@njit
def _push(nodes, enext, leaf, node, s):
    enext[s] = nodes[node, 0]
    nodes[node, 0] = s
    nodes[node, 1] += 1
    leaf[s] = node


@njit
def _unlink(nodes, enext, leaf, s):
    """Take slot ``s`` out of its leaf's list; returns 1 if found."""
    node = leaf[s]
    found = unlink_slot(nodes[:, 0], node, enext, s)
    nodes[node, 1] -= found
    if found:
        leaf[s] = -1
    return found


@njit
def _split(nodes, nmeta, rects, enext, leaf, boxes, node, depth, lx, ly, ox, oy, sx, sy, max_depth, capacity):
    """Split the over-full leaf ``node`` (and then, while needed, the one child that is still over-full).

    The caller guarantees room for ``4 * (max_depth - depth)`` more nodes.
    """
    n = 1 << max_depth
    while True:
        fc = fl_take(nodes, nmeta, 4)
        for j in range(4):
            nodes[fc + j, 0] = -1
            nodes[fc + j, 1] = 0
            set_empty(rects, fc + j)
        half = (1 << (max_depth - depth)) >> 1
        it = nodes[node, 0]
        while it != -1:
            nxt = enext[it]
            cx, cy = _centre_cell(boxes, it, ox, oy, sx, sy, n)
            q, _, _ = _quadrant(cx, cy, lx, ly, half)
            _push(nodes, enext, leaf, fc + q, it)
            grow_rect(rects, fc + q, boxes, it)
            it = nxt
        nodes[node, 0] = fc
        nodes[node, 1] = BRANCH
        # At most one child can be over capacity (the leaf held capacity + 1).
        over = -1
        for j in range(4):
            if nodes[fc + j, 1] > capacity:
                over = j
        depth += 1
        if over == -1 or depth >= max_depth:
            return
        node = fc + over
        lx = lx + half if (over == TR or over == BR) else lx
        ly = ly + half if (over == TL or over == TR) else ly


@njit
def _place_run(nodes, nmeta, rects, enext, leaf, boxes, slots, start, ox, oy, sx, sy, max_depth, capacity):
    """Insert or move ``slots[start:]`` (their boxes already in ``boxes``); return where it stopped.

    For each slot: walk from the root to the leaf of its centre's cell,
    growing every bound on the way; a slot already in that leaf stays
    (a move inside its leaf costs one walk); otherwise it is unlinked from its
    old leaf (``leaf[s] != -1``) and pushed on the new one, which may split.
    Stops early, before touching slot ``k``, when ``nodes`` has no room left
    for a worst-case split cascade; the caller grows ``nodes`` and calls
    again from ``k``. No array is allocated or re-bound here.
    """
    n = 1 << max_depth
    room = 4 * max_depth + 4
    for k in range(start, slots.shape[0]):
        if nmeta[0] + room > nodes.shape[0]:
            return k
        s = slots[k]
        cx, cy = _centre_cell(boxes, s, ox, oy, sx, sy, n)
        node, depth, lx, ly = 0, 0, 0, 0
        grow_rect(rects, 0, boxes, s)
        while nodes[node, 1] == BRANCH:
            half = (1 << (max_depth - depth)) >> 1
            q, lx, ly = _quadrant(cx, cy, lx, ly, half)
            node = nodes[node, 0] + q
            depth += 1
            grow_rect(rects, node, boxes, s)
        if leaf[s] == node:
            continue
        if leaf[s] != -1:
            _unlink(nodes, enext, leaf, s)
        _push(nodes, enext, leaf, node, s)
        if nodes[node, 1] > capacity and depth < max_depth:
            _split(nodes, nmeta, rects, enext, leaf, boxes, node, depth, lx, ly, ox, oy, sx, sy, max_depth, capacity)
    return slots.shape[0]


@njit
def _remove_run(nodes, enext, leaf, slots):
    """Unlink each of ``slots`` from its leaf (bounds are left as they are); returns the number found."""
    found = 0
    for k in range(slots.shape[0]):
        found += _unlink(nodes, enext, leaf, slots[k])
    return found


# ==========================================================================
# Query: descend where the loose bounds meet the query box
# ==========================================================================
@njit
def _meets(rects, node, q0, q1, q2, q3):
    return rects[node, 0] <= q2 and q0 <= rects[node, 2] and rects[node, 1] <= q3 and q1 <= rects[node, 3]


@njit
def _query_core(nodes, rects, enext, boxes, q0, q1, q2, q3, stack, out):
    """Slots meeting the closed box ``q`` written to ``out`` while it has room.

    Returns ``(found, nodes_visited, elements_tested)``; ``found`` may exceed
    ``out.shape[0]`` (the caller re-runs with a larger ``out``). ``stack``
    needs ``3 * max_depth + 2`` entries.
    """
    m = 0
    visited = 0
    tested = 0
    if not _meets(rects, 0, q0, q1, q2, q3):
        return 0, 1, 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        visited += 1
        if nodes[node, 1] == BRANCH:
            fc = nodes[node, 0]
            for j in range(3, -1, -1):
                if _meets(rects, fc + j, q0, q1, q2, q3):
                    stack[top] = fc + j
                    top += 1
            continue
        m, t = scan_slot_list(nodes[node, 0], enext, boxes, q0, q1, q2, q3, out, m)
        tested += t
    return m, visited, tested


# ==========================================================================
# Pairs: the tree joined with itself
# ==========================================================================
@njit
def _gather(nodes, enext, boxes, node, rects, other, slots_out, boxes_out):
    """Copy the elements of leaf ``node`` meeting ``rects[other]`` to the scratch arrays; returns how many.

    ``other == -1`` copies all of them.
    """
    m = 0
    it = nodes[node, 0]
    while it != -1:
        if other == -1 or (boxes[it, 0] <= rects[other, 2] and rects[other, 0] <= boxes[it, 2]
                           and boxes[it, 1] <= rects[other, 3] and rects[other, 1] <= boxes[it, 3]):
            slots_out[m] = it
            for t in range(4):
                boxes_out[m, t] = boxes[it, t]
            m += 1
        it = enext[it]
    return m


@njit
def _area(rects, node):
    return (np.float64(rects[node, 2]) - rects[node, 0]) * (np.float64(rects[node, 3]) - rects[node, 1])


@njit
def _pairs_core(nodes, rects, enext, boxes, stack, ga, gb, sa, sb, out):
    """The self-join without allocation; pairs written to ``out`` while it has room.

    ``stack`` rows are node pairs ``(a, b)``; ``a == b`` means "join ``a``
    with itself". Returns ``(pairs found, box tests)``.
    """
    cap = out.shape[0]
    m = 0
    tests = 0
    stack[0, 0] = 0
    stack[0, 1] = 0
    top = 1
    while top > 0:
        top -= 1
        a, b = stack[top, 0], stack[top, 1]
        la, lb = nodes[a, 1] != BRANCH, nodes[b, 1] != BRANCH
        if a == b:
            if la:
                k = _gather(nodes, enext, boxes, a, rects, -1, sa, ga)
                for i in range(k):
                    x0, y0, x1, y1 = ga[i, 0], ga[i, 1], ga[i, 2], ga[i, 3]
                    for j in range(i + 1, k):
                        tests += 1
                        if ga[j, 0] <= x1 and x0 <= ga[j, 2] and ga[j, 1] <= y1 and y0 <= ga[j, 3]:
                            if m < cap:
                                out[m, 0] = sa[i]
                                out[m, 1] = sa[j]
                            m += 1
                continue
            fc = nodes[a, 0]
            for i in range(4):
                if nodes[fc + i, 1] != 0:
                    stack[top, 0] = fc + i
                    stack[top, 1] = fc + i
                    top += 1
            for i in range(4):
                for j in range(i + 1, 4):
                    if nodes[fc + i, 1] != 0 and nodes[fc + j, 1] != 0 and _meets(
                            rects, fc + i, rects[fc + j, 0], rects[fc + j, 1], rects[fc + j, 2], rects[fc + j, 3]):
                        stack[top, 0] = fc + i
                        stack[top, 1] = fc + j
                        top += 1
            continue
        if la and lb:
            ka = _gather(nodes, enext, boxes, a, rects, b, sa, ga)
            if ka == 0:
                continue
            kb = _gather(nodes, enext, boxes, b, rects, a, sb, gb)
            for i in range(ka):
                x0, y0, x1, y1 = ga[i, 0], ga[i, 1], ga[i, 2], ga[i, 3]
                for j in range(kb):
                    tests += 1
                    if gb[j, 0] <= x1 and x0 <= gb[j, 2] and gb[j, 1] <= y1 and y0 <= gb[j, 3]:
                        if m < cap:
                            out[m, 0] = sa[i]
                            out[m, 1] = sb[j]
                        m += 1
            continue
        # Descend into the branch (the larger one when both are branches).
        if la or (not lb and _area(rects, b) > _area(rects, a)):
            a, b = b, a
        fc = nodes[a, 0]
        for i in range(4):
            c = fc + i
            if nodes[c, 1] != 0 and _meets(rects, c, rects[b, 0], rects[b, 1], rects[b, 2], rects[b, 3]):
                stack[top, 0] = c
                stack[top, 1] = b
                top += 1
    return m, tests


# ==========================================================================
# Cleanup: refit every bound bottom-up, collapse empty quartets
# ==========================================================================
@njit
def _preorder(nodes, n_handed_out):
    """Live nodes, parents before children: ``(m,)`` int64 (at most ``n_handed_out``)."""
    out = np.empty(max(1, n_handed_out), dtype=np.int64)
    out[0] = 0
    m = 1
    i = 0
    while i < m:
        node = out[i]
        i += 1
        if nodes[node, 1] == BRANCH:
            fc = nodes[node, 0]
            for j in range(4):
                out[m] = fc + j
                m += 1
    return out[:m]


@njit
def _cleanup_kernel(nodes, nmeta, rects, enext, boxes):
    """Refit all bounds exactly (children first) and collapse branches of four empty leaves.

    Returns the number of blocks of four freed. Collapses cascade: a branch
    whose children just collapsed can collapse in the same pass.
    """
    order = _preorder(nodes, nmeta[0])
    freed = 0
    for i in range(order.shape[0] - 1, -1, -1):
        node = order[i]
        set_empty(rects, node)
        if nodes[node, 1] != BRANCH:
            it = nodes[node, 0]
            while it != -1:
                grow_rect(rects, node, boxes, it)
                it = enext[it]
            continue
        fc = nodes[node, 0]
        if nodes[fc, 1] == 0 and nodes[fc + 1, 1] == 0 and nodes[fc + 2, 1] == 0 and nodes[fc + 3, 1] == 0:
            fl_erase_block(nodes, nmeta, fc, 4)
            nodes[node, 0] = -1
            nodes[node, 1] = 0
            freed += 1
            continue
        for j in range(4):
            c = fc + j
            for t in range(2):
                if rects[c, t] < rects[node, t]:
                    rects[node, t] = rects[c, t]
                if rects[c, t + 2] > rects[node, t + 2]:
                    rects[node, t + 2] = rects[c, t + 2]
    return freed


@njit
def _node_rows(nodes, n_handed_out, max_depth):
    """Every live node in pre-order (breadth first): ``(m, 5)`` rows ``(node, depth, lx, ly, count)``."""
    out = np.empty((max(1, n_handed_out), 5), dtype=np.int64)
    out[0, 0], out[0, 1], out[0, 2], out[0, 3], out[0, 4] = 0, 0, 0, 0, nodes[0, 1]
    m = 1
    i = 0
    while i < m:
        node, depth, lx, ly = out[i, 0], out[i, 1], out[i, 2], out[i, 3]
        i += 1
        if nodes[node, 1] == BRANCH:
            half = (1 << (max_depth - depth)) >> 1
            fc = nodes[node, 0]
            for j in range(4):
                c = fc + j
                out[m, 0] = c
                out[m, 1] = depth + 1
                out[m, 2] = lx + half if (j == TR or j == BR) else lx
                out[m, 3] = ly + half if (j == TL or j == TR) else ly
                out[m, 4] = nodes[c, 1]
                m += 1
    return out[:m].copy()


# ==========================================================================
# The class
# ==========================================================================
@register("loose_quadtree")
class LooseQuadtree(BroadPhase):
    """Loose quadtree: each element in exactly one leaf (by its centre), float32 loose bounds per node.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]`` (default the
        article's 800 x 600). Centres outside it clamp to its border cells;
        such elements are still found (the bounds grow to cover them).
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Deepest level (0 .. 30): leaves there never split, so elements with
        the same centre cell stop there. Default 8 (256 x 256 cells).

    Attributes
    ----------
    nodes, rects, enext, leaf : numpy.ndarray
        The flat arrays described in the module docstring.
    last_query_nodes, last_query_tests : int
        Nodes visited and elements tested by the last ``query()``.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()``.
    last_freed_blocks : int
        Blocks of four nodes freed by the last ``cleanup()``.

    Raises
    ------
    ValueError
        A parameter out of range or not an integer; the common errors of
        :class:`~lessons_lib.base.BroadPhase`.

    Notes
    -----
    Memory: 24 bytes per node (8 for ``[first, count]``, 16 for the float32
    bounds), 8 bytes per element slot (``enext``, ``leaf``), plus the shared
    element table (41 bytes per slot); an element costs the same whatever its
    size. Time: insert and move walk ``O(depth)`` nodes (plus a split now and
    then); remove is ``O(leaf size)``; a query visits every node whose bounds
    meet it (more than the compact tree, whose quadrants do not overlap);
    pairs visits every pair of nodes whose bounds meet; cleanup is
    ``O(nodes + elements)``.

    References
    ----------
    The quadtree answer set [SO-quadtree], "Loose
    quadtree"; T. Ulrich, "Loose octrees", *Game Programming Gems* (2000).
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 8):
        super().__init__(world=world)
        self.capacity = check_int("capacity", capacity, 1, 2**31 - 1)
        self.max_depth = check_int("max_depth", max_depth, 0, MAX_DEPTH_LIMIT)
        n = 1 << self.max_depth
        x0, y0, x1, y1 = self.world.tolist()
        self._geo = (x0, y0, n / (x1 - x0), n / (y1 - y0))
        self.nodes = np.full((4 * self.max_depth + 8, 2), -1, dtype=np.int32)
        self.rects = np.tile(EMPTY_RECT, (len(self.nodes), 1))
        self.node_meta = np.array([1, -1], dtype=np.int64)
        self.enext = np.full(16, -1, dtype=np.int32)
        self.leaf = np.full(16, -1, dtype=np.int32)
        self._stack = np.empty(3 * self.max_depth + 2, dtype=np.int64)
        self._out = np.empty(64, dtype=np.int64)
        self._pair_hint = 1024
        self._clear()

    # -- layout helpers --------------------------------------------------
    @property
    def cells_per_axis(self) -> int:
        """``2**max_depth``: the resolution of the integer cell coordinates."""
        return 1 << self.max_depth

    def centre_cell(self, box) -> tuple[int, int]:
        """Integer cell ``(cx, cy)`` of a box's centre: the cell that picks its leaf."""
        b = np.asarray(box, dtype=np.float64).reshape(1, 4)
        ox, oy, sx, sy = self._geo
        cx, cy = _centre_cell(b, 0, ox, oy, sx, sy, self.cells_per_axis)
        return int(cx), int(cy)

    def _fit_slots(self) -> None:
        """Grow the per-slot arrays to the element table's capacity."""
        self.enext = grown_slots(self.enext, self.elements.capacity)
        self.leaf = grown_slots(self.leaf, self.elements.capacity)

    def _grow_nodes(self) -> None:
        old = len(self.nodes)
        self.nodes = fl_grow(self.nodes, old + 4 * self.max_depth + 8)
        rects = np.tile(EMPTY_RECT, (len(self.nodes), 1))
        rects[:old] = self.rects
        self.rects = rects

    def _place(self, slots) -> None:
        """Insert or move ``slots`` (boxes already in the element table), growing the node arrays between runs."""
        slots = np.asarray(slots, dtype=np.int64)
        self._fit_slots()
        ox, oy, sx, sy = self._geo
        k = 0
        while True:
            k = _place_run(self.nodes, self.node_meta, self.rects, self.enext, self.leaf, self.elements.boxes,
                           slots, k, ox, oy, sx, sy, self.max_depth, self.capacity)
            if k == len(slots):
                return
            self._grow_nodes()

    # -- insert ------------------------------------------------------------
    def _insert(self, slot, box):
        self._place(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        """Bulk load: insert in Z-order (Morton order) of the centre cells.

        Consecutive inserts walk the same paths and fill one leaf after
        another. The tree is the one any insertion order would give (up to
        the order of each leaf's list); its bounds are exact (nothing was
        removed yet).
        """
        slots = np.asarray(slots, dtype=np.int64)
        if len(slots) > 1:
            b = self.elements.boxes[slots]
            n = self.cells_per_axis
            ox, oy, sx, sy = self._geo
            cx = np.clip(np.floor((0.5 * b[:, 0] + 0.5 * b[:, 2] - ox) * sx), 0, n - 1).astype(np.int64)
            cy = np.clip(np.floor((0.5 * b[:, 1] + 0.5 * b[:, 3] - oy) * sy), 0, n - 1).astype(np.int64)
            slots = slots[np.argsort(morton_code(cx, cy, self.max_depth), kind="stable")]
        self._place(slots)

    # -- remove ------------------------------------------------------------
    def _remove(self, slot, box):
        if _remove_run(self.nodes, self.enext, self.leaf, np.array([slot], dtype=np.int64)) != 1:  # pragma: no cover
            raise RuntimeError(f"slot {slot} was not found in its leaf {int(self.leaf[slot])}")

    # -- update ------------------------------------------------------------
    def _update(self, slot, old, new):
        self._place(np.array([slot], dtype=np.int64))

    def _update_many(self, slots, old, new):
        """Bulk move: one walk per element; only those whose centre changed leaf are relinked."""
        self._place(slots)

    # -- query -------------------------------------------------------------
    def _query(self, box):
        q = box.tolist()
        while True:
            m, self.last_query_nodes, self.last_query_tests = _query_core(
                self.nodes, self.rects, self.enext, self.elements.boxes, q[0], q[1], q[2], q[3],
                self._stack, self._out)
            if m <= len(self._out):
                return self._out[:m].copy()
            self._out = np.empty(2 * m, dtype=np.int64)

    # -- pairs -------------------------------------------------------------
    def _pairs(self):
        big = max(1, int(self.nodes[: int(self.node_meta[0]), 1].max()))
        ga, gb = np.empty((big, 4)), np.empty((big, 4))
        sa, sb = np.empty(big, dtype=np.int64), np.empty(big, dtype=np.int64)
        stack = np.empty((10 * (2 * self.max_depth + 2), 2), dtype=np.int64)
        out = np.empty((self._pair_hint, 2), dtype=np.int64)
        m, self.last_pair_tests = _pairs_core(self.nodes, self.rects, self.enext, self.elements.boxes,
                                              stack, ga, gb, sa, sb, out)
        if m > len(out):
            out = np.empty((m, 2), dtype=np.int64)
            m, self.last_pair_tests = _pairs_core(self.nodes, self.rects, self.enext, self.elements.boxes,
                                                  stack, ga, gb, sa, sb, out)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    # -- cleanup, clear ----------------------------------------------------
    def _cleanup(self):
        self.last_freed_blocks = int(_cleanup_kernel(self.nodes, self.node_meta, self.rects, self.enext,
                                                     self.elements.boxes))

    def _clear(self):
        self.node_meta[:] = (1, -1)
        self.nodes[0] = (-1, 0)
        self.rects[0] = EMPTY_RECT
        self.enext.fill(-1)
        self.leaf.fill(-1)
        self.last_query_nodes = 0
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_freed_blocks = 0

    # -- memory ------------------------------------------------------------
    def _nbytes(self):
        return self.nodes.nbytes + self.rects.nbytes + self.enext.nbytes + self.leaf.nbytes

    # -- inspection --------------------------------------------------------
    def node_table(self) -> dict[str, np.ndarray]:
        """Every live node, parents before children, with its quadrant and its loose bounds.

        Returns
        -------
        dict of arrays, each of length m
            ``index`` (row in :attr:`nodes`), ``depth``, ``count`` (-1 for a
            branch), ``is_leaf``, ``cell`` (m, 4) float64: the quadrant the
            node owns, *computed* from the root rectangle (never stored), and
            ``bounds`` (m, 4) float64: the stored float32 loose bounds
            (``[inf, inf, -inf, -inf]`` when empty).
        """
        rows = _node_rows(self.nodes, int(self.node_meta[0]), self.max_depth)
        x0, y0, x1, y1 = self.world.tolist()
        n = self.cells_per_axis
        cw, ch = (x1 - x0) / n, (y1 - y0) / n
        size = np.left_shift(1, self.max_depth - rows[:, 1])
        lx, ly = rows[:, 2], rows[:, 3]
        cell = np.column_stack([x0 + lx * cw, y0 + ly * ch, x0 + (lx + size) * cw, y0 + (ly + size) * ch])
        cell[:, 2] = np.where(lx + size == n, x1, cell[:, 2])
        cell[:, 3] = np.where(ly + size == n, y1, cell[:, 3])
        idx = rows[:, 0]
        return {"index": idx, "depth": rows[:, 1], "count": rows[:, 4], "is_leaf": rows[:, 4] != BRANCH,
                "cell": cell, "bounds": self.rects[idx].astype(np.float64)}

    def regions(self):
        """The loose bounds of every non-empty node (depth 0 = root); the world when the tree is empty."""
        t = self.node_table()
        keep = t["bounds"][:, 0] <= t["bounds"][:, 2]
        if not keep.any():
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        big = np.finfo(np.float64).max
        rects = np.nan_to_num(t["bounds"][keep], posinf=big, neginf=-big)
        return rects, t["depth"][keep].astype(np.int64)

    def node_count(self) -> int:
        """Live nodes (branches and leaves)."""
        return len(_preorder(self.nodes, int(self.node_meta[0])))

    def leaf_count(self) -> int:
        t = self.node_table()
        return int(t["is_leaf"].sum())

    def depth(self) -> int:
        """Depth of the deepest node (0 when the root is a leaf)."""
        return int(self.node_table()["depth"].max())

    def leaf_elements(self, node: int) -> list[int]:
        """Slots in leaf ``node``'s list, newest first."""
        out, it = [], int(self.nodes[node, 0])
        while it != -1:
            out.append(int(it))
            it = int(self.enext[it])
        return out

    def check_invariants(self, *, exact: bool = False) -> None:
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: children come in aligned blocks of four; live and free nodes
        partition what was handed out; each leaf's ``count`` equals its list's
        length and a leaf is over ``capacity`` only at ``max_depth``; every
        live slot is in exactly one leaf, the one containing its centre's
        cell, and ``leaf`` says so; every node's bounds contain the
        (outward-rounded) boxes of its elements and the bounds of its
        children. With ``exact=True`` (after :meth:`cleanup` or a bulk load)
        each bound must *equal* the union of its contents (no stale growth)
        and no branch may have four empty leaves.
        """
        rows = _node_rows(self.nodes, int(self.node_meta[0]), self.max_depth)
        idx = rows[:, 0].tolist()
        live = set(idx)
        assert len(live) == len(idx), "a node is reachable twice"
        free_blocks = fl_holes(self.nodes, self.node_meta)
        free = {b + j for b in free_blocks for j in range(4)}
        assert all(b >= 1 and (b - 1) % 4 == 0 for b in free_blocks), "a free block is misaligned"
        assert not (free & live), "a free node is reachable from the root"
        assert all(self.nodes[f, 1] == FREE_MARK for f in free), "a free node is not marked free"
        assert len(live) + len(free) == int(self.node_meta[0]), "nodes leaked"
        boxes = self.elements.boxes
        live_slots = set(self.elements.live_slots().tolist())
        seen: set[int] = set()
        want = {}  # node -> exact union of its contents, outward-rounded to float32
        for node, depth, lx, ly, count in reversed(rows.tolist()):
            r = self.rects[node].astype(np.float64)
            if count == BRANCH:
                fc = int(self.nodes[node, 0])
                assert fc >= 1 and (fc - 1) % 4 == 0, f"branch {node} has misaligned children {fc}"
                kids = [want[fc + j] for j in range(4)]
                u = [min(k[0] for k in kids), min(k[1] for k in kids), max(k[2] for k in kids), max(k[3] for k in kids)]
                if exact:
                    assert not all(self.nodes[fc + j, 1] == 0 for j in range(4)), \
                        f"branch {node} has four empty leaves after cleanup"
            else:
                elems = self.leaf_elements(node)
                assert len(elems) == count, f"leaf {node}: count {count} but {len(elems)} elements"
                assert count <= self.capacity or depth == self.max_depth, f"leaf {node} over capacity above max depth"
                size = 1 << (self.max_depth - depth)
                u = [np.inf, np.inf, -np.inf, -np.inf]
                for s in elems:
                    assert s in live_slots, f"leaf {node} holds dead slot {s}"
                    assert s not in seen, f"slot {s} is in two leaves"
                    seen.add(s)
                    assert int(self.leaf[s]) == node, f"leaf[{s}] is {int(self.leaf[s])}, not {node}"
                    cx, cy = self.centre_cell(boxes[s])
                    assert lx <= cx < lx + size and ly <= cy < ly + size, f"slot {s} is not in its centre's leaf"
                    b = boxes[s].tolist()
                    u = [min(u[0], float(f32_down(b[0]))), min(u[1], float(f32_down(b[1]))),
                         max(u[2], float(f32_up(b[2]))), max(u[3], float(f32_up(b[3])))]
            if u[0] <= u[2]:
                assert r[0] <= u[0] and r[1] <= u[1] and r[2] >= u[2] and r[3] >= u[3], \
                    f"node {node}: bounds {r.tolist()} do not cover its contents {u}"
            if exact:
                assert r.tolist() == u, f"node {node}: bounds {r.tolist()} are not exactly {u} (stale growth)"
            want[node] = u
        assert seen == live_slots, "a live slot is in no leaf"

"""The compact quadtree behind the common interface: :class:`Quadtree`, with its cleanup, pairs and query.

Lesson 05: a quadtree of 8-byte nodes, no stored rectangles, linked index lists and free
lists. The data layout (lesson 05, sections 1 to 3) and the kernels that change
the tree (insert and split, lesson 04 sections 1, 2, 3 and 7; remove, lesson 05
section 4; update, section 5) are in
:mod:`~lessons_lib.structures.quadtree_changes`. Here, in the lesson's order:

* the deferred cleanup, the second half of lesson 05's section 4 ("Remove,
  then deferred cleanup") and its exercise 2 (section 9);
* pairs, section 7 ("All pairs, leaf by leaf");
* query, which lesson 05 does not teach again (lesson 04, section 4, "Queries:
  descend only where the box goes"), and pairs by one query per element, the
  other way of section 7 (timed in its appendix E);
* the class.

Why the result is exact
-----------------------
The cell map is monotone, so two closed boxes that intersect at a point share
the cell of that point, hence a leaf. Leaves only *propose* candidates; the
closed float test on the element table decides. A pair is reported from one
leaf only: the one holding its reference cell ``(max(cx0_a, cx0_b),
max(cy0_a, cy0_b))``, the cell of the lower-left corner of the intersection.

Operations
----------
* cleanup: a branch whose four children are leaves holding at most half of
  ``capacity`` element nodes together (:func:`~lessons_lib.structures.quad_nodes.merge_limit`;
  empty children are the common case) becomes one leaf; one level per call,
  never the root. The tree follows where the
  elements are now, not everywhere they have been: memory stays flat. While
  the leaves hold more than two element nodes per element (copies dominate),
  a cleanup is instead :func:`merge_bottom_up`: children first, in one call,
  it also merges every quartet whose merged leaf the split rules would keep
  whole. Inserts never merge, so boxes that came to cover a region split
  earlier for small ones are copied into every leaf there until a cleanup
  (a bulk load does the same at its end).
* pairs: walk the leaves in tree order and test the pairs inside each leaf.
* query: the leaves the query's cell range overlaps, each element once.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree]: node
representation, no stored AABBs, contiguous children, deferred cleanup, element
vs element node, free lists, leaf-ordered traversal. R. A. Finkel and J. L.
Bentley, "Quad trees", *Acta Informatica* 4 (1974).
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, normalize_pairs, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps, row_overlaps
from ..core.buffers import grow
from ..core.freelist import USED, fl_erase, fl_erase_block, fl_holes
from ..core.jit import njit
from ..core.scratch import ThreadScratch, on_main_thread
from .grid_cells import cell_of
from .element_nodes import ELEMENT, NEXT, compact_element_nodes, leaf_order
from .quad_nodes import (BRANCH, COUNT, FIRST, ROW_COUNT, ROW_DEPTH, ROW_NODE, QuadNodes, cell_box, cell_frame,
                         cell_rects, check_capacity_and_depth, child_corner, leaves_overlapping, morton_order, put,
                         put_children, take)
from .quadtree_changes import cells_changed, insert_slots, merged_stays_whole, remove, resplit, update

__all__ = ["Quadtree", "cleanup", "merge_bottom_up", "merge", "leaf_pairs", "pairs", "query", "pairs_by_queries"]


# ==========================================================================
# Cleanup: merge under-full quartets, one level per call (lesson 05, section 4)
# ==========================================================================
@njit
def cleanup(tree, cells, capacity, boxes, limit, n_elements, seen):
    """Merge each branch whose four children are leaves holding at most ``limit`` element nodes together,
    one level per call; while copies dominate, :func:`merge_bottom_up` instead.

    Lesson 05, section 4, and its exercise 2 (``cleanup_pass``, where
    ``limit`` is 0: empty quartets only). Parents are visited before
    children, so a branch that becomes mergeable because its children merged
    waits for the next call (one level per call); the root is never freed.
    While the leaves hold more than two element nodes per element
    (``n_elements`` live), the call is :func:`merge_bottom_up` instead,
    which merges a whole overgrown subtree at once. Returns the number of
    blocks of four freed.
    """
    nodes, nmeta = tree[0], tree[1]
    max_depth = cells[4]
    if nodes[0, COUNT] != BRANCH:
        return 0
    held = 0
    for i in range(nmeta[USED]):
        held += max(nodes[i, COUNT], 0)
    if held > 2 * n_elements:  # copies dominate
        return merge_bottom_up(tree, cells, capacity, boxes, limit, seen)
    stack = np.empty((4 * max_depth + 5, 5), dtype=np.int64)
    put(stack, 0, 0, 0, 0, 0, 0)
    top, freed = 1, 0
    while top > 0:  # parents before children: one level per call
        top -= 1
        node, depth, lx, ly, _ = take(stack, top)
        first = nodes[node, FIRST]
        top = _push_branch_children(nodes, max_depth, stack, top, first, depth, lx, ly)
        leaves, total = _leaf_children(nodes, first)
        if leaves == 4 and total <= limit:
            merge(tree, node, seen)
            freed += 1
    return freed


@njit
def merge_bottom_up(tree, cells, capacity, boxes, limit, seen):
    """Merge, children first and all in one call, every quartet of leaves that holds at most ``limit`` element
    nodes together or whose merged leaf the split rules would keep whole (:func:`merged_stays_whole`).

    What :func:`cleanup` does instead of its one level while copies dominate
    (more than two element nodes per element). Inserts never merge, so boxes
    that came to cover a region split earlier for small ones are copied into
    every leaf there; this pass undoes the splits that the elements present
    now would not have made, a whole overgrown subtree at once (a bulk load
    runs it too, at its end). Returns the number of blocks of four freed.
    """
    nodes, max_depth = tree[0], cells[4]
    if nodes[0, COUNT] != BRANCH:
        return 0
    stack = np.empty((4 * max_depth + 5, 5), dtype=np.int64)
    put(stack, 0, 0, 0, 0, 0, 0)
    top, freed = 1, 0
    while top > 0:
        top -= 1
        node, depth, lx, ly, after = take(stack, top)
        first = nodes[node, FIRST]
        if after == 0:  # first visit: come back to it after its children (post-order)
            put(stack, top, node, depth, lx, ly, 1)
            top = _push_branch_children(nodes, max_depth, stack, top + 1, first, depth, lx, ly)
            continue
        leaves, total = _leaf_children(nodes, first)
        if leaves == 4 and (total <= limit or merged_stays_whole(tree, cells, boxes, first, depth, lx, ly, capacity,
                                                                 seen)):
            merge(tree, node, seen)
            freed += 1
    return freed


@njit(inline="always")
def _push_branch_children(nodes, max_depth, stack, top, first, depth, lx, ly):
    """Push each of the four children at ``first`` that is a branch (its parent at depth ``depth``, corner
    ``(lx, ly)``) on ``stack``, in order TL, TR, BL, BR; returns the new ``top``."""
    half = (1 << (max_depth - depth)) >> 1
    for j in range(4):
        if nodes[first + j, COUNT] == BRANCH:
            cx, cy = child_corner(j, lx, ly, half)
            put(stack, top, first + j, depth + 1, cx, cy, 0)
            top += 1
    return top


@njit(inline="always")
def _leaf_children(nodes, first):
    """How many of the four children at ``first`` are leaves, and the element nodes those leaves hold."""
    leaves, total = 0, 0
    for j in range(4):
        count = nodes[first + j, COUNT]
        if count != BRANCH:
            leaves += 1
            total += count
    return leaves, total


@njit
def merge(tree, node, seen):
    """Branch ``node`` (four leaf children) becomes a leaf holding their elements, each once.

    Duplicate element nodes (an element in several children) are freed; the
    children go back to the free list as one block. ``seen`` (all zero) marks
    the elements met; the marks are cleared before returning.
    """
    nodes, nmeta, enodes, emeta = tree
    first = nodes[node, FIRST]
    head, count = -1, 0
    for j in range(4):
        it = nodes[first + j, FIRST]
        while it != -1:
            nxt = enodes[it, NEXT]
            e = enodes[it, ELEMENT]
            if seen[e >> 3] & (1 << (e & 7)):
                fl_erase(enodes, emeta, it)
            else:
                seen[e >> 3] |= 1 << (e & 7)
                enodes[it, NEXT] = head
                head = it
                count += 1
            it = nxt
    it = head
    while it != -1:
        seen[enodes[it, ELEMENT] >> 3] = 0
        it = enodes[it, NEXT]
    fl_erase_block(nodes, nmeta, first, 4)
    nodes[node, FIRST] = head
    nodes[node, COUNT] = count


# ==========================================================================
# Pairs: leaf by leaf (lesson 05, section 7)
# ==========================================================================
@njit
def leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out):
    """Every intersecting pair, once, leaf by leaf in tree order; returns the number found.

    In each leaf the elements are copied to the scratch arrays (``g`` their
    boxes, ``gs`` their slots, ``gc`` the cell of their lower-left corner),
    then every pair is tested; a pair is kept only in the leaf holding its
    reference cell. Pairs are written to ``out`` while it has room: its rows
    are trusted only when the count returned is *below* its size (once full,
    every test writes its candidate into the last row; the caller re-runs
    with a larger ``out``). ``stack`` needs ``3 * max_depth + 1`` rows; ``g``,
    ``gs``, ``gc`` as many as the largest leaf.
    """
    nodes, _, enodes, _ = tree
    ox, oy, sx, sy, max_depth = cells
    n = 1 << max_depth
    cap = out.shape[0]
    m = 0
    put(stack, 0, 0, 0, 0, 0, 0)
    top = 1
    while top > 0:
        top -= 1
        node, depth, lx, ly, _ = take(stack, top)
        count = nodes[node, COUNT]
        if count == BRANCH:
            top = put_children(stack, top, nodes[node, FIRST], depth, lx, ly, max_depth, 0, 0, n - 1, n - 1, 0)
            continue
        if count < 2:
            continue
        it = nodes[node, FIRST]
        j = 0
        while it != -1:
            e = enodes[it, ELEMENT]
            gs[j] = e
            g[j, XMIN], g[j, YMIN], g[j, XMAX], g[j, YMAX] = boxes[e, XMIN], boxes[e, YMIN], boxes[e, XMAX], boxes[e, YMAX]
            gc[j, 0], gc[j, 1] = cell_of(boxes[e, XMIN], ox, sx, n), cell_of(boxes[e, YMIN], oy, sy, n)
            it = enodes[it, NEXT]
            j += 1
        # Both boxes overlap this leaf, so their reference cell is never beyond its far
        # edges: it lies in the leaf when it is at or above its lower-left corner.
        # Branch-free: a candidate is written, then kept only if it counts.
        for a in range(count):
            ax0, ay0, ax1, ay1 = g[a, XMIN], g[a, YMIN], g[a, XMAX], g[a, YMAX]
            acx, acy, sa = gc[a, 0], gc[a, 1], gs[a]
            for b in range(a + 1, count):
                hit = (overlaps(ax0, ay0, ax1, ay1, g[b, XMIN], g[b, YMIN], g[b, XMAX], g[b, YMAX])
                       & (max(acx, gc[b, 0]) >= lx) & (max(acy, gc[b, 1]) >= ly))
                w = m if m < cap else cap - 1
                out[w, 0] = sa
                out[w, 1] = gs[b]
                m += int(hit)
    return m


@njit
def pairs(tree, cells, boxes):
    """Every intersecting slot pair, once: ``(k, 2)`` int64 (:func:`leaf_pairs` with its scratch sized).

    The output is a guess with room to spare (two pairs per element node);
    when it is short, the walk runs again with the exact size.
    """
    nodes, _, enodes, _ = tree
    big = 16
    for i in range(nodes.shape[0]):
        big = max(big, nodes[i, COUNT])
    stack = np.empty((3 * cells[4] + 1, 5), dtype=np.int64)
    g = np.empty((big, 4), dtype=np.float64)
    gs = np.empty(big, dtype=np.int64)
    gc = np.empty((big, 2), dtype=np.int64)
    out = np.empty((2 * enodes.shape[0] + 1024, 2), dtype=np.int64)
    m = leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out)
    if m >= out.shape[0]:
        out = np.empty((m + 1, 2), dtype=np.int64)
        m = leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out)
    return out[:m]


# ==========================================================================
# Query (lesson 04, section 4: descend only where the box goes)
# ==========================================================================
@njit
def query(tree, cells, boxes, q0, q1, q2, q3, seen):
    """Slots whose boxes meet the closed box ``q``, each once (``(m,)`` int64).

    ``seen`` is the bitset of marks (all zero): an element lying in several of
    the leaves reached is reported the first time and marked; the marks are
    cleared before returning.
    """
    nodes, _, enodes, _ = tree
    max_depth = cells[4]
    cx0, cy0, cx1, cy1 = cell_box(cells, q0, q1, q2, q3)
    stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    leaves, k = leaves_overlapping(nodes, max_depth, cx0, cy0, cx1, cy1, stack, np.empty((16, 5), dtype=np.int64))
    out = np.empty(16, dtype=np.int64)
    m = 0
    for i in range(k):
        it = nodes[leaves[i, ROW_NODE], FIRST]
        while it != -1:
            e = enodes[it, ELEMENT]
            bit = 1 << (e & 7)
            if (seen[e >> 3] & bit) == 0 and row_overlaps(boxes, e, q0, q1, q2, q3):
                seen[e >> 3] |= bit
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m] = e
                m += 1
            it = enodes[it, NEXT]
    for i in range(m):  # every set bit belongs to a reported slot: clearing whole bytes is enough
        seen[out[i] >> 3] = 0
    return out[:m].copy()


# ==========================================================================
# Lesson 05's comparison: pairs by one query per element (section 7, appendix E)
# ==========================================================================
@njit
def pairs_by_queries(tree, cells, boxes, order, seen):
    """Pairs by one query per element, in the given ``order`` of slots; a pair is kept when partner > self."""
    out = np.empty((1024, 2), dtype=np.int64)
    m = 0
    for k in range(order.shape[0]):
        s = order[k]
        for t in query(tree, cells, boxes, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX], seen):
            if t > s:
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m, 0] = s
                out[m, 1] = t
                m += 1
    return out[:m].copy()


# ==========================================================================
# The class
# ==========================================================================
@register("quadtree")
class Quadtree(QuadNodes, BroadPhase):
    """Compact index-based quadtree: 8-byte nodes, element nodes in linked index lists.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]``: anywhere, any
        aspect ratio (default the article's 800 x 600; ``from_boxes`` infers
        the boxes' bounding square). Boxes outside it are clamped to its
        border cells and still found.
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Deepest level (0 .. 30): the root is cut into ``2**max_depth`` cells
        per axis. Default 7: on lesson 05's 100,000-box scene, depth 7 (or 6)
        gave the fastest frames at every capacity, and 57 bytes per element
        against 67 at depth 8, where each box lies in about three leaves
        (``quadtree_sweep.csv``). A leaf over ``capacity`` splits only if
        that separates its elements (*split only if it separates*) and only
        if it thins (*split only if it thins*: fewer than half of them cover
        the leaf, at most one child would receive all of them, and the
        children would hold at most ``2 count + capacity`` element nodes),
        so coincident, mutually overlapping and world-covering boxes never
        drive the tree to ``max_depth``: nodes and element nodes stay
        near-linear in the number of elements at every ``capacity`` and
        ``max_depth``.

    Raises
    ------
    ValueError
        A parameter out of range or not an integer; a world whose width or
        height overflows a float, or too small for ``2**max_depth`` cells
        (the message names the world and the limit); the common errors of
        :class:`~lessons_lib.base.BroadPhase` (a bad box, a duplicate id).
    KeyError
        ``remove`` or ``update`` of an unknown id.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit; the
    world (explicit or inferred) only sizes the cells, and every derived
    quantity (cell index, scale) stays finite. Memory: 8 bytes per node, 8
    per element node (one per leaf an element lies in), 1 bit per slot of
    marks, plus the shared element table (41 bytes per slot). Time: insert,
    remove and query descend ``O(max_depth)`` levels and walk the lists of
    the leaves they touch; pairs costs ``sum over leaves of count^2 / 2`` box
    tests; cleanup visits the branches once. The attribute ``merge_limit``
    (default ``max(1, capacity // 2)``) is how many element nodes four sibling
    leaves may hold together for ``cleanup`` to merge them; 0 merges only
    empty quartets, the answer set's rule.

    References
    ----------
    The quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> qt = Quadtree(world=[0, 0, 100, 100], capacity=2)
    >>> for i, box in enumerate([[10, 10, 20, 20], [15, 15, 30, 30], [60, 60, 70, 70], [65, 5, 90, 20]]):
    ...     qt.insert(i, box)
    >>> qt.pairs().tolist()
    [[0, 1]]
    >>> qt.query([0, 0, 50, 50]).tolist()
    [0, 1]
    >>> qt.node_count(), qt.depth()
    (5, 1)
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 7):
        super().__init__(world=world)
        self.capacity, self.max_depth, self.merge_limit = check_capacity_and_depth(capacity, max_depth)
        self._cells = cell_frame(self.world, self.max_depth)
        self.nodes = np.full((16, 2), -1, dtype=np.int32)
        self.enodes = np.full((16, 2), -1, dtype=np.int32)
        self.node_meta = np.array([0, -1], dtype=np.int64)
        self.enode_meta = np.array([0, -1], dtype=np.int64)
        self._seen = np.zeros(0, dtype=np.uint8)
        self._thread_marks = ThreadScratch()  # the marks of queries run in other threads than the main one
        self._tasks = np.empty((64, 5), dtype=np.int64)
        self._clear()

    @property
    def tree(self) -> tuple:
        """The four arrays the kernels take: ``(nodes, node_meta, enodes, enode_meta)``."""
        return self.nodes, self.node_meta, self.enodes, self.enode_meta

    def _keep(self, tree) -> None:
        """Store the (possibly grown) arrays a kernel returned."""
        self.nodes, _, self.enodes, _ = tree

    def _marks(self) -> np.ndarray:
        """The query marks, grown to one bit per slot of the element table.

        The main thread uses :attr:`_seen` (counted in :meth:`memory_bytes`);
        any other thread its own marks (:class:`~lessons_lib.core.scratch.ThreadScratch`),
        so that queries running in several threads at once never mark, or
        clear, each other's elements.
        """
        need = (self.elements.capacity + 7) // 8
        if on_main_thread():
            if len(self._seen) < need:
                self._seen = np.zeros(need, dtype=np.uint8)
            return self._seen
        seen = self._thread_marks.get("seen", lambda: np.zeros(need, dtype=np.uint8))
        if len(seen) < need:
            seen = self._thread_marks.put("seen", np.zeros(need, dtype=np.uint8))
        return seen

    # -- the hooks of BroadPhase ------------------------------------------
    def _insert(self, slot, box):
        self._keep(insert_slots(self.tree, self._cells, self.capacity, self.elements.boxes,
                                np.array([slot], dtype=np.int64)))

    def _build(self, slots):
        """Bulk load: insert in Z-order of the box centres, then lay the element nodes out leaf by leaf.

        When copies dominate (more than two element nodes per element), the
        quartets that the whole set would not have split (the first boxes
        inserted split leaves the later ones cover) are merged, as
        :meth:`cleanup` does then (:func:`merge_bottom_up`), until none is
        left. The arrays are trimmed to what is used.
        """
        slots = morton_order(np.asarray(slots, dtype=np.int64), self.elements.boxes, self._cells)
        self._keep(insert_slots(self.tree, self._cells, self.capacity, self.elements.boxes, slots))
        while self._held() > 2 * len(self) and self._cleanup_pass() > 0:
            pass  # copies dominate: undo the splits the first elements made that the whole set would not
        self.enodes = compact_element_nodes(self.tree, self.max_depth)
        self.shrink()
        self._marks()

    def _remove(self, slot, box):
        stack = np.empty((3 * self.max_depth + 1, 5), dtype=np.int64)
        b = box.tolist()
        leaves, k, found = remove(self.tree, self._cells, int(slot), b[XMIN], b[YMIN], b[XMAX], b[YMAX], stack,
                                  np.empty((16, 5), dtype=np.int64))
        if found == 0:  # pragma: no cover - a broken invariant, never expected
            raise RuntimeError(f"slot {slot} was not found in the leaves of its box {b}")
        tree, self._tasks = resplit(self.tree, self._cells, self.capacity, self.elements.boxes, leaves, k,
                                    self._tasks)
        self._keep(tree)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.ascontiguousarray(old, dtype=np.float64).reshape(1, 4), None)

    def _update_many(self, slots, old, new):
        # slots (int64) and old (contiguous float64) come checked from BroadPhase.update_many / update
        boxes = self.elements.boxes
        changed = cells_changed(self._cells, boxes, slots, old)
        if len(changed) == 0:
            self.last_moved = 0
            return
        tree, self._tasks, self.last_moved = update(self.tree, self._cells, self.capacity, boxes, slots, old,
                                                    changed, self._tasks)
        self._keep(tree)

    def _query(self, box):
        b = box.tolist()
        return query(self.tree, self._cells, self.elements.boxes, b[XMIN], b[YMIN], b[XMAX], b[YMAX], self._marks())

    def _pairs(self):
        return pairs(self.tree, self._cells, self.elements.boxes)

    def _cleanup(self):
        self.last_freed_blocks = self._cleanup_pass()

    def _cleanup_pass(self) -> int:
        """One call of :func:`cleanup` (one level, or :func:`merge_bottom_up` while copies dominate); returns the
        blocks of four freed."""
        return int(cleanup(self.tree, self._cells, self.capacity, self.elements.boxes, self.merge_limit, len(self),
                           self._marks()))

    def _held(self) -> int:
        """Element nodes in the leaves' lists (an element lying in k leaves counts k times)."""
        return int(np.maximum(self.nodes[: int(self.node_meta[USED]), COUNT], 0).sum())

    def _clear(self):
        self.node_meta[:] = (1, -1)  # node 0 (the root) is handed out for good
        self.nodes[0] = (-1, 0)
        self.enode_meta[:] = (0, -1)
        self.last_moved = 0
        self.last_freed_blocks = 0

    def _nbytes(self):
        return self.nodes.nbytes + self.enodes.nbytes + self._seen.nbytes

    # -- lesson 05's comparison --------------------------------------------
    def leaf_order(self) -> np.ndarray:
        """Slots of the stored elements in order of first appearance, walking the leaves in tree order."""
        return leaf_order(self.tree, self.max_depth, self.elements.capacity)

    def pairs_by_queries(self, order: str = "leaves") -> np.ndarray:
        """All pairs found the other way: one query per element (for lesson 05's comparison).

        Parameters
        ----------
        order : {"leaves", "slots"}
            ``"leaves"``: elements in leaf order (:meth:`leaf_order`), so
            consecutive queries descend the same paths; ``"slots"``: element
            by element in storage order, scattered over the world.

        Returns
        -------
        numpy.ndarray, shape (k, 2), int64
            The same as :meth:`pairs` (ids, ``a < b``, sorted).

        Raises
        ------
        ValueError
            An unknown ``order``.
        """
        if order == "leaves":
            seq = self.leaf_order()
        elif order == "slots":
            seq = self.elements.live_slots()
        else:
            raise ValueError(f"order must be 'leaves' or 'slots', got {order!r}")
        sp = pairs_by_queries(self.tree, self._cells, self.elements.boxes, seq, self._marks())
        return normalize_pairs(self.elements.ids[sp])

    # -- memory and inspection ---------------------------------------------
    def shrink(self) -> None:
        """Release unused capacity at the end of the node and element-node arrays (after a bulk load)."""
        self.nodes = self.nodes[: max(1, int(self.node_meta[USED]))].copy()
        self.enodes = self.enodes[: max(1, int(self.enode_meta[USED]))].copy()

    def node_table(self) -> dict[str, np.ndarray]:
        """Every live node in depth-first order, with what a descent computes for it.

        Returns
        -------
        dict of arrays, each of length m
            ``index`` (row in :attr:`nodes`), ``depth``, ``first`` and
            ``count`` (the two stored int32 fields), ``is_leaf``, and ``rect``
            (m, 4) float64 world units: *computed* from the root's rectangle,
            not stored.
        """
        rows = self.node_rows()
        idx = rows[:, ROW_NODE]
        return {"index": idx, "depth": rows[:, ROW_DEPTH], "first": self.nodes[idx, FIRST].astype(np.int64),
                "count": rows[:, ROW_COUNT], "is_leaf": rows[:, ROW_COUNT] != BRANCH,
                "rect": cell_rects(self.world, self.max_depth, rows)}

    def regions(self):
        t = self.node_table()
        return t["rect"], t["depth"]

    def leaf_elements(self, node: int) -> list[int]:
        """Slots in leaf ``node``'s list, in list order (newest first)."""
        out, it = [], int(self.nodes[node, FIRST])
        while it != -1:
            out.append(int(self.enodes[it, ELEMENT]))
            it = int(self.enodes[it, NEXT])
        return out

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: every branch's children are a block of four at ``1 + 4 k``;
        each leaf's ``count`` equals its list's length; a leaf holds more than
        ``capacity`` only at ``max_depth`` or when the rules keep it whole (all
        its elements have the same cell range inside it, or at least half of
        them cover it, or two of its children would each hold all of them, or
        its children would hold more than ``2 count + capacity`` element
        nodes); every live element is in exactly the
        leaves its cell range overlaps, once each; live and free nodes and
        element nodes partition what was handed out.
        """
        rows = self.node_rows()
        self.check_node_blocks(rows)
        live_slots = set(self.elements.live_slots().tolist())
        where: dict[int, list] = {s: [] for s in live_slots}
        used_en = set()
        for node, depth, lx, ly, count in rows.tolist():
            if count == BRANCH:
                continue
            elems = []
            it = int(self.nodes[node, FIRST])
            while it != -1:
                assert it not in used_en, f"element node {it} is in two lists"
                used_en.add(it)
                elems.append(int(self.enodes[it, ELEMENT]))
                it = int(self.enodes[it, NEXT])
            assert len(elems) == count, f"leaf {node}: count {count} but {len(elems)} element nodes"
            size = 1 << (self.max_depth - depth)
            if count > self.capacity and depth < self.max_depth:
                clipped = [(max(c[XMIN], lx), max(c[YMIN], ly), min(c[XMAX], lx + size - 1), min(c[YMAX], ly + size - 1))
                           for c in (self.cell_range(self.elements.boxes[s]) for s in elems)]
                whole = (lx, ly, lx + size - 1, ly + size - 1)
                mx, my = lx + size // 2, ly + size // 2
                copies = sum(((c[XMIN] < mx) + (c[XMAX] >= mx)) * ((c[YMIN] < my) + (c[YMAX] >= my)) for c in clipped)
                holding_all = sum(all(c[XMIN] < mx if left else c[XMAX] >= mx for c in clipped)
                                  and all(c[YMIN] < my if low else c[YMAX] >= my for c in clipped)
                                  for left in (True, False) for low in (True, False))
                kept = (len(set(clipped)) == 1 or 2 * clipped.count(whole) >= count
                        or copies > 2 * count + self.capacity or holding_all >= 2)
                assert kept, f"leaf {node} is over capacity though the rules would split it"
            for s in elems:
                assert s in live_slots, f"leaf {node} holds dead slot {s}"
                where[s].append((lx, ly, size))
        free_en = set(fl_holes(self.enodes, self.enode_meta))
        assert not (free_en & used_en), "a free element node is in a leaf list"
        assert len(free_en) + len(used_en) == int(self.enode_meta[USED]), "element nodes leaked"
        self.check_leaf_cover(rows, where)

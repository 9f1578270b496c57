"""The loose quadtree behind the common interface: :class:`LooseQuadtree`, with its cleanup, query and pairs.

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

The data layout, the leaf an element's centre picks, the float32 bounds
rounded outwards and the kernels that change the tree (insert and move in one
walk, split, remove: sections 1 to 3 of the lesson) are in
:mod:`~lessons_lib.structures.loose_quadtree_changes`; here, in the lesson's
order, are the cleanup that shrinks the bounds (section 3, "Bounds grow on
insert, and shrink only in cleanup"), the kernels that read the tree (query
and pairs, section 4, "Queries and pairs: descend wherever bounds meet") and
the class.

Operations
----------
* cleanup: one bottom-up pass: leaves recompute their bounds from their
  elements, branches from their children, and a branch whose four children
  are leaves holding at most half of ``capacity`` elements together
  (:func:`~lessons_lib.structures.quad_nodes.merge_limit`) becomes one leaf
  holding them (its block of four returns to the free list). Afterwards every
  bound is exactly the union of its contents, and the tree follows where the
  elements are now: its memory stays flat over a long simulation.
* query: descend into every child whose bounds meet the query box; test the
  elements of the leaves reached (each element is in one leaf: no marks).
* pairs: the tree joined with itself (the self-join of R-trees): a node is
  joined with itself (its children pairwise) and two nodes whose bounds meet
  are joined by descending into the larger one; each pair is reported once.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree], section
"Loose quadtree": one leaf per element by a single point, per-node bounds
expanded on insert and refit in cleanup, float bounds. T. Ulrich, "Loose
octrees", *Game Programming Gems* (2000), for the original loose bounds.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps, rows_overlap
from ..core.freelist import USED, fl_erase_block, fl_grow
from ..core.jit import njit
from .loose_bounds import EMPTY_RECT, f32_down, f32_up, grow_rect, set_empty
from .loose_quadtree_changes import insert, push, remove
from .quad_nodes import (BRANCH, COUNT, FIRST, ROW_COUNT, ROW_DEPTH, ROW_NODE, QuadNodes, cell_frame, cell_rects,
                         centre_cell, check_capacity_and_depth, morton_order, node_rows)
from .slot_lists import grown_slots, scan_slot_list

__all__ = ["LooseQuadtree", "cleanup", "merge", "query", "pairs", "gather", "area"]


# ==========================================================================
# Cleanup: refit every bound bottom-up, merge under-full quartets (lesson 06, section 3)
# ==========================================================================
@njit
def cleanup(tree, limit, max_depth, boxes):
    """Refit all bounds exactly (children first); merge quartets of leaves holding at most ``limit`` together.

    Merges cascade in the one pass: a branch whose children just merged can
    merge too. Returns the number of blocks of four freed.
    """
    nodes, nmeta, rects, enext, leaf = tree
    rows = node_rows(nodes, max_depth, nmeta[USED])
    freed = 0
    for r in range(rows.shape[0] - 1, -1, -1):
        node = rows[r, ROW_NODE]
        set_empty(rects, node)
        if nodes[node, COUNT] == BRANCH:
            first = nodes[node, FIRST]
            total = 0
            for j in range(4):
                count = nodes[first + j, COUNT]
                total += limit + 1 if count == BRANCH else count
            if total > limit:
                for j in range(4):
                    for axis in range(2):
                        rects[node, XMIN + axis] = min(rects[node, XMIN + axis], rects[first + j, XMIN + axis])
                        rects[node, XMAX + axis] = max(rects[node, XMAX + axis], rects[first + j, XMAX + axis])
                continue
            merge(tree, node)
            freed += 1
        it = nodes[node, FIRST]
        while it != -1:
            grow_rect(rects, node, boxes, it)
            it = enext[it]
    return freed


@njit
def merge(tree, node):
    """Branch ``node`` (four leaf children) becomes a leaf holding their elements; the block is freed."""
    nodes, nmeta, rects, enext, leaf = tree
    first = nodes[node, FIRST]
    nodes[node, FIRST] = -1
    nodes[node, COUNT] = 0
    for j in range(4):
        it = nodes[first + j, FIRST]
        while it != -1:
            nxt = enext[it]
            push(tree, node, it)
            it = nxt
    fl_erase_block(nodes, nmeta, first, 4)


# ==========================================================================
# Query: descend where the loose bounds meet the query box (lesson 06, section 4)
# ==========================================================================
@njit
def query(tree, boxes, q0, q1, q2, q3, stack, out):
    """Slots meeting the closed box ``q``, written to ``out`` while it has room.

    Returns ``(found, nodes_visited, elements_tested)``; ``found`` may exceed
    ``out.shape[0]`` (the caller re-runs with a larger ``out``). ``stack``
    needs ``3 * max_depth + 2`` entries.
    """
    nodes, _, rects, enext, _ = tree
    if not row_overlaps(rects, 0, q0, q1, q2, q3):
        return 0, 1, 0
    m, visited, tested = 0, 0, 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        visited += 1
        if nodes[node, COUNT] == BRANCH:
            first = nodes[node, FIRST]
            for j in range(3, -1, -1):
                if row_overlaps(rects, first + j, q0, q1, q2, q3):
                    stack[top] = first + j
                    top += 1
            continue
        m, t = scan_slot_list(nodes[node, FIRST], enext, boxes, q0, q1, q2, q3, out, m)
        tested += t
    return m, visited, tested


# ==========================================================================
# Pairs: the tree joined with itself (lesson 06, section 4)
# ==========================================================================
@njit
def pairs(tree, boxes, stack, ga, gb, sa, sb, out):
    """The self-join; pairs written to ``out`` while it has room. Returns ``(pairs found, box tests)``.

    ``stack`` rows are node pairs ``(a, b)``; ``a == b`` means "join ``a``
    with itself". Two leaves are joined by copying the elements of each that
    meet the other's bounds to the scratch arrays (``ga``/``sa``,
    ``gb``/``sb``: boxes and slots, as long as the largest leaf) and testing
    every pair; a leaf with itself tests its elements pairwise.
    """
    nodes, _, rects, enext, _ = tree
    cap = out.shape[0]
    m, tests = 0, 0
    stack[0, 0], stack[0, 1] = 0, 0
    top = 1
    while top > 0:
        top -= 1
        a, b = stack[top, 0], stack[top, 1]
        a_leaf, b_leaf = nodes[a, COUNT] != BRANCH, nodes[b, COUNT] != BRANCH
        if a == b and a_leaf:
            k = gather(tree, boxes, a, -1, sa, ga)
            for i in range(k):
                for j in range(i + 1, k):
                    tests += 1
                    if rows_overlap(ga, i, ga, j):
                        if m < cap:
                            out[m, 0], out[m, 1] = sa[i], sa[j]
                        m += 1
        elif a == b:
            first = nodes[a, FIRST]
            for i in range(4):
                if nodes[first + i, COUNT] == 0:
                    continue
                stack[top, 0], stack[top, 1] = first + i, first + i
                top += 1
                for j in range(i + 1, 4):
                    if nodes[first + j, COUNT] != 0 and rows_overlap(rects, first + i, rects, first + j):
                        stack[top, 0], stack[top, 1] = first + i, first + j
                        top += 1
        elif a_leaf and b_leaf:
            ka = gather(tree, boxes, a, b, sa, ga)
            kb = gather(tree, boxes, b, a, sb, gb) if ka else 0
            for i in range(ka):
                for j in range(kb):
                    tests += 1
                    if rows_overlap(ga, i, gb, j):
                        if m < cap:
                            out[m, 0], out[m, 1] = sa[i], sb[j]
                        m += 1
        else:  # descend into the branch (the larger one when both are branches)
            if a_leaf or (not b_leaf and area(rects, b) > area(rects, a)):
                a, b = b, a
            first = nodes[a, FIRST]
            for i in range(4):
                c = first + i
                if nodes[c, COUNT] != 0 and rows_overlap(rects, c, rects, b):
                    stack[top, 0], stack[top, 1] = c, b
                    top += 1
    return m, tests


@njit
def gather(tree, boxes, node, other, slots_out, boxes_out):
    """Copy the elements of leaf ``node`` meeting ``rects[other]`` (all if ``other == -1``); returns how many."""
    nodes, _, rects, enext, _ = tree
    m = 0
    it = nodes[node, FIRST]
    while it != -1:
        if other == -1 or rows_overlap(boxes, it, rects, other):
            slots_out[m] = it
            boxes_out[m, XMIN], boxes_out[m, YMIN], boxes_out[m, XMAX], boxes_out[m, YMAX] = \
                boxes[it, XMIN], boxes[it, YMIN], boxes[it, XMAX], boxes[it, YMAX]
            m += 1
        it = enext[it]
    return m


@njit(inline="always")
def area(rects, node):
    """Area of a node's bounds in float64 (inf for bounds beyond the float32 range, never NaN)."""
    return (np.float64(rects[node, XMAX]) - rects[node, XMIN]) * (np.float64(rects[node, YMAX]) - rects[node, YMIN])


# ==========================================================================
# The class
# ==========================================================================
@register("loose_quadtree")
class LooseQuadtree(QuadNodes, BroadPhase):
    """Loose quadtree: each element in exactly one leaf (by its centre), float32 loose bounds per node.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]`` (default the
        article's 800 x 600; ``from_boxes`` infers the boxes' bounding
        square). Centres outside it clamp to its border cells; such elements
        are still found (the bounds grow to cover them).
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Deepest level (0 .. 30): the root is cut into ``2**max_depth`` cells
        per axis. Default 8. A leaf whose elements all share one centre cell
        never splits, whatever the depth.

    Attributes
    ----------
    nodes, rects, enext, leaf : numpy.ndarray
        The flat arrays described in :mod:`~lessons_lib.structures.loose_quadtree_changes`.
    last_query_nodes, last_query_tests : int
        Nodes visited and elements tested by the last ``query()``.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()``.
    last_freed_blocks : int
        Blocks of four nodes freed by the last ``cleanup()``.
    merge_limit : int
        ``cleanup()`` merges four sibling leaves holding at most this many
        elements together (default ``max(1, capacity // 2)``; 0: empty ones only).

    Raises
    ------
    ValueError
        A parameter out of range or not an integer; a world whose width or
        height overflows a float, or too small for ``2**max_depth`` cells;
        the common errors of :class:`~lessons_lib.base.BroadPhase`.
    KeyError
        ``remove`` or ``update`` of an unknown id.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit.
    Bounds beyond the float32 range become infinite (still conservative),
    centres are computed in halves (never overflow), and the world only sizes
    the cells. Memory: 24 bytes per node, 8 bytes per element slot, plus the
    shared element table (41 bytes per slot). Time: insert and move walk
    ``O(depth)`` nodes; remove is ``O(leaf size)``; a query visits every node
    whose bounds meet it; pairs visits every pair of nodes whose bounds meet;
    cleanup is ``O(nodes + elements)``.

    References
    ----------
    The quadtree answer set [SO-quadtree], "Loose quadtree"; T. Ulrich,
    "Loose octrees", *Game Programming Gems* (2000).

    Examples
    --------
    >>> lq = LooseQuadtree(world=[0, 0, 100, 100], capacity=1)
    >>> lq.insert(0, [10, 10, 20, 20])
    >>> lq.insert(1, [35, 20, 75, 30])   # centre (55, 25): the bottom-right quadrant
    >>> lq.pairs().tolist(), lq.query([40, 0, 45, 100]).tolist()
    ([], [1])
    >>> lq.insert(2, [18, 18, 40, 22])
    >>> lq.pairs().tolist()
    [[0, 2], [1, 2]]
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 8):
        super().__init__(world=world)
        self.capacity, self.max_depth, self.merge_limit = check_capacity_and_depth(capacity, max_depth)
        self._cells = cell_frame(self.world, self.max_depth)
        self.nodes = np.full((4 * self.max_depth + 8, 2), -1, dtype=np.int32)
        self.rects = np.tile(EMPTY_RECT, (len(self.nodes), 1))
        self.node_meta = np.array([1, -1], dtype=np.int64)
        self.enext = np.full(16, -1, dtype=np.int32)
        self.leaf = np.full(16, -1, dtype=np.int32)
        self._query_hint = 64  # room a query's output starts with (made per call, with its stack: threads
                               # querying at once never share them)
        self._pair_hint = 1024
        self._clear()

    @property
    def tree(self) -> tuple:
        """The arrays the kernels take: ``(nodes, node_meta, rects, enext, leaf)``."""
        return self.nodes, self.node_meta, self.rects, self.enext, self.leaf

    def centre_cell(self, box) -> tuple[int, int]:
        """Integer cell ``(cx, cy)`` of a box's centre: the cell that picks its leaf."""
        cx, cy = centre_cell(self._cells, np.asarray(box, dtype=np.float64).reshape(1, 4), 0)
        return int(cx), int(cy)

    # -- growth: the plumbing around insert --------------------------------
    def _insert_or_move(self, slots) -> None:
        """Insert or move ``slots`` (boxes already in the element table), growing the arrays between runs."""
        slots = np.asarray(slots, dtype=np.int64)
        self.enext = grown_slots(self.enext, self.elements.capacity)
        self.leaf = grown_slots(self.leaf, self.elements.capacity)
        k = 0
        while True:
            k = insert(self.tree, self._cells, self.capacity, self.elements.boxes, slots, k)
            if k == len(slots):
                return
            old = len(self.nodes)
            self.nodes = fl_grow(self.nodes, old + 4 * self.max_depth + 8)
            rects = np.tile(EMPTY_RECT, (len(self.nodes), 1))
            rects[:old] = self.rects
            self.rects = rects

    # -- the hooks of BroadPhase ------------------------------------------
    def _insert(self, slot, box):
        self._insert_or_move(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        """Bulk load: insert in Z-order of the centre cells (consecutive inserts walk the same paths).

        The tree is the one any insertion order gives (up to the order of each
        leaf's list); its bounds are exact (nothing was removed yet).
        """
        self._insert_or_move(morton_order(np.asarray(slots, dtype=np.int64), self.elements.boxes, self._cells))

    def _remove(self, slot, box):
        if remove(self.tree, np.array([slot], dtype=np.int64)) != 1:  # pragma: no cover - a broken invariant
            raise RuntimeError(f"slot {slot} was not found in its leaf {int(self.leaf[slot])}")

    def _update(self, slot, old, new):
        self._insert_or_move(np.array([slot], dtype=np.int64))

    def _update_many(self, slots, old, new):
        """Bulk move: one walk per element; only those whose centre changed leaf are relinked."""
        self._insert_or_move(slots)

    def _query(self, box):
        q = box.tolist()
        stack = np.empty(3 * self.max_depth + 2, dtype=np.int64)
        out = np.empty(self._query_hint, dtype=np.int64)
        while True:
            m, self.last_query_nodes, self.last_query_tests = query(
                self.tree, self.elements.boxes, q[XMIN], q[YMIN], q[XMAX], q[YMAX], stack, out)
            if m <= len(out):
                return out[:m].copy()
            self._query_hint = 2 * m
            out = np.empty(2 * m, dtype=np.int64)

    def _pairs(self):
        big = max(1, int(self.nodes[: int(self.node_meta[USED]), COUNT].max()))
        ga, gb = np.empty((big, 4)), np.empty((big, 4))
        sa, sb = np.empty(big, dtype=np.int64), np.empty(big, dtype=np.int64)
        stack = np.empty((10 * (2 * self.max_depth + 2), 2), dtype=np.int64)
        out = np.empty((self._pair_hint, 2), dtype=np.int64)
        m, self.last_pair_tests = pairs(self.tree, self.elements.boxes, stack, ga, gb, sa, sb, out)
        if m > len(out):
            out = np.empty((m, 2), dtype=np.int64)
            m, self.last_pair_tests = pairs(self.tree, self.elements.boxes, stack, ga, gb, sa, sb, out)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    def _cleanup(self):
        self.last_freed_blocks = int(cleanup(self.tree, self.merge_limit, self.max_depth, self.elements.boxes))

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
        rows = self.node_rows()
        idx = rows[:, ROW_NODE]
        return {"index": idx, "depth": rows[:, ROW_DEPTH], "count": rows[:, ROW_COUNT],
                "is_leaf": rows[:, ROW_COUNT] != BRANCH, "cell": cell_rects(self.world, self.max_depth, rows),
                "bounds": self.rects[idx].astype(np.float64)}

    def regions(self):
        """The loose bounds of every non-empty node (depth 0 = root); the world when the tree is empty."""
        t = self.node_table()
        keep = t["bounds"][:, XMIN] <= t["bounds"][:, XMAX]
        if not keep.any():
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        big = np.finfo(np.float64).max
        rects = np.nan_to_num(t["bounds"][keep], posinf=big, neginf=-big)
        return rects, t["depth"][keep].astype(np.int64)

    def leaf_elements(self, node: int) -> list[int]:
        """Slots in leaf ``node``'s list, newest first."""
        out, it = [], int(self.nodes[node, FIRST])
        while it != -1:
            out.append(int(it))
            it = int(self.enext[it])
        return out

    def check_invariants(self, *, exact: bool = False) -> None:
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: children come in aligned blocks of four; live and free nodes
        partition what was handed out; each leaf's ``count`` equals its list's
        length, and a leaf is over ``capacity`` only at ``max_depth`` or when
        its elements share one centre cell; every live slot is in exactly one
        leaf, the one containing its centre's cell, and ``leaf`` says so;
        every node's bounds contain the (outward-rounded) boxes of its
        elements and the bounds of its children. With ``exact=True`` (after
        :meth:`cleanup` or a bulk load) each bound must *equal* the union of
        its contents (no stale growth) and no branch may have four leaves
        holding at most ``merge_limit`` elements together.
        """
        rows = self.node_rows()
        self.check_node_blocks(rows)
        boxes = self.elements.boxes
        live_slots = set(self.elements.live_slots().tolist())
        seen: set[int] = set()
        want = {}  # node -> exact union of its contents, outward-rounded to float32
        for node, depth, lx, ly, count in reversed(rows.tolist()):
            r = self.rects[node].astype(np.float64)
            if count == BRANCH:
                first = int(self.nodes[node, FIRST])
                kids = [want[first + j] for j in range(4)]
                u = [min(k[XMIN] for k in kids), min(k[YMIN] for k in kids), max(k[XMAX] for k in kids), max(k[YMAX] for k in kids)]
                counts = [int(self.nodes[first + j, COUNT]) for j in range(4)]
                if exact:
                    assert BRANCH in counts or sum(counts) > self.merge_limit, \
                        f"branch {node} has four leaves holding {sum(counts)} <= merge_limit elements after cleanup"
            else:
                elems = self.leaf_elements(node)
                assert len(elems) == count, f"leaf {node}: count {count} but {len(elems)} elements"
                if count > self.capacity and depth < self.max_depth:
                    assert len({self.centre_cell(boxes[s]) for s in elems}) == 1, \
                        f"leaf {node} is over capacity though a split would separate its elements"
                size = 1 << (self.max_depth - depth)
                u = [np.inf, np.inf, -np.inf, -np.inf]
                for s in elems:
                    assert s in live_slots, f"leaf {node} holds dead slot {s}"
                    assert s not in seen, f"slot {s} is in two leaves"
                    seen.add(s)
                    assert int(self.leaf[s]) == node, f"leaf[{s}] is {int(self.leaf[s])}, not {node}"
                    cx, cy = self.centre_cell(boxes[s])
                    assert lx <= cx < lx + size and ly <= cy < ly + size, f"slot {s} is not in its centre's leaf"
                    b = boxes[s]  # numpy float64 values: f32_down of a Python float rounds wrongly as plain Python
                    u = [min(u[XMIN], float(f32_down(b[XMIN]))), min(u[YMIN], float(f32_down(b[YMIN]))),
                         max(u[XMAX], float(f32_up(b[XMAX]))), max(u[YMAX], float(f32_up(b[YMAX])))]
            if u[XMIN] <= u[XMAX]:
                assert r[XMIN] <= u[XMIN] and r[YMIN] <= u[YMIN] and r[XMAX] >= u[XMAX] and r[YMAX] >= u[YMAX], \
                    f"node {node}: bounds {r.tolist()} do not cover its contents {u}"
            if exact:
                assert r.tolist() == u, f"node {node}: bounds {r.tolist()} are not exactly {u} (stale growth)"
            want[node] = u
        assert seen == live_slots, "a live slot is in no leaf"

"""The quadtree a student writes first: node objects, a list of elements in each leaf.

This is the textbook design of lesson 04, written plainly in Python so that
every step can be read and stepped through. It exists to be *measured*
against the compact tree of lesson 05 (:mod:`lessons_lib.structures.quadtree`); it must
still be correct, and it is tested against brute force like every structure.

Data layout
-----------
Every :class:`Node` is a Python object holding

* ``rect``: its own rectangle ``(x0, y0, x1, y1)``, world units (four floats);
* ``depth``: 0 for the root;
* ``elements``: a Python ``list`` of element slots (leaves only);
* ``children``: ``None`` for a leaf, else a list of four nodes in the order
  top-left, top-right, bottom-left, bottom-right (y grows upwards, as drawn).

Rules
-----
* A leaf holds up to ``capacity`` elements; the next insert splits it into four
  equal quadrants (half the width *and* half the height: an 800 x 600 root has
  400 x 300 children) and moves its elements down, unless the leaf is already
  at ``max_depth``, or unless one of two rules says the split would not pay:

  - **split only if it separates**: when every element's box, clipped to the
    leaf, is the same (identical boxes, or boxes covering the whole leaf),
    every child would receive all of them, at every depth;
  - **split only if it thins**: when the split would copy most elements into
    most children instead of sharing them out: at least half of them cover
    the whole leaf (each would be copied into all four children and every
    leaf below, separating from nothing), or two children would each
    receive all of them (long boxes along a midline, boxes sharing one
    point), or the children would hold more than ``2 n + capacity`` entries
    together. Without it, one world-covering box among 40 small ones
    (``capacity=1, max_depth=12``) made every leaf along the small boxes'
    edges split down to ``max_depth`` (38,000 nodes instead of 145), and
    boxes sharing one point made thousands of nodes each holding most of them.

  Such a leaf simply grows, so coincident, huge and mutually overlapping boxes
  cost memory near-linear in their number, whatever ``max_depth`` and
  ``capacity``. A split's children are judged once each, holding all they
  received. Both rules are checked again when elements leave an over-full leaf
  (a ``remove``, or an ``update`` that moves them out): if it would now split,
  it splits then.
* A box goes into **every leaf it touches** (closed rectangles: a box lying on
  the line between two quadrants goes into both).
* A box (partly) outside the root is routed by its clamp to the root's
  rectangle, so it lands in the border leaves and is never lost; its real box
  (in the element table) is what queries and pairs test.
* ``remove`` descends to the leaves the box touches and takes the slot out of
  their lists. Emptied leaves stay until :meth:`cleanup`, which turns a branch
  whose four children are leaves holding at most half of ``capacity`` entries
  together back into a leaf (one level per call), so the tree follows where the
  elements are now, not everywhere they have been. While the leaves hold more
  than two entries per element, it also merges (children first, in one call)
  every branch whose merged leaf the two rules would keep whole: inserts never
  merge, so boxes that came to cover a region split for small ones are copied
  into all its leaves until then. ``from_boxes`` does the same at its end.
* ``pairs`` tests all pairs inside each leaf and drops duplicates (pairs met in
  several leaves) with a Python ``set``.

Memory is dominated by Python objects: a ``Node`` with its ``__dict__``, a
4-tuple rectangle, two lists and boxed ints is several hundred bytes, and each
list keeps spare capacity. Lesson 05 measures it with :mod:`tracemalloc`.

References
----------
R. A. Finkel and J. L. Bentley, "Quad trees: a data structure for retrieval on
composite keys", *Acta Informatica* 4 (1974). The quadtree answer set [SO-quadtree] describes this design as the common pitfall
("containers in every node").
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..geometry import as_box
from ..core.boxes import MAX_CORNER, MIN_CORNER, XMAX, XMIN, YMAX, YMIN
from .quad_nodes import SquareWorldFromBoxes, check_capacity_and_depth
__all__ = ["Node", "NaiveQuadtree", "child_rects"]


def child_rects(rect) -> list[tuple[float, float, float, float]]:
    """The four quadrants of ``rect``: top-left, top-right, bottom-left, bottom-right.

    Parameters
    ----------
    rect : sequence of 4 floats
        ``(x0, y0, x1, y1)``, world units, y upwards.

    Returns
    -------
    list of 4 tuples
        Each ``(x0, y0, x1, y1)``; their widths are half of ``rect``'s width and
        their heights half of its *height* (the fault of a widely copied C
        version is to take the vertical half-size from the width).
    """
    x0, y0, x1, y1 = (float(v) for v in rect)
    mx, my = 0.5 * x0 + 0.5 * x1, 0.5 * y0 + 0.5 * y1  # halves added: no overflow near the float limit
    return [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]


def _touches(a, b) -> bool:
    """Closed rectangles ``a`` and ``b`` intersect (touching counts)."""
    return a[XMIN] <= b[XMAX] and b[XMIN] <= a[XMAX] and a[YMIN] <= b[YMAX] and b[YMIN] <= a[YMAX]


class Node:
    """A quadtree node: its rectangle, depth, element list (leaf) or four children (branch)."""

    def __init__(self, rect, depth: int):
        self.rect = tuple(float(v) for v in rect)
        self.depth = depth
        self.elements: list[int] = []
        self.children: list["Node"] | None = None

    @property
    def is_leaf(self) -> bool:
        return self.children is None

    def __repr__(self) -> str:
        kind = f"leaf with {len(self.elements)} elements" if self.is_leaf else "branch"
        return f"Node(depth={self.depth}, rect={list(self.rect)}, {kind})"


@register("naive_quadtree")
class NaiveQuadtree(SquareWorldFromBoxes, BroadPhase):
    """Point-region quadtree of Python node objects with a list of elements per leaf.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]`` (any position, any
        aspect ratio; default the article's 800 x 600, and ``from_boxes``
        infers the boxes' bounding square). Boxes outside it are still stored
        (in border leaves).
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Depth at which leaves stop splitting (0 = the root never splits;
        at most 30). Default 8. A leaf also stays a leaf when a split would
        separate nothing (*split only if it separates*: coincident boxes,
        boxes covering the whole leaf) or would copy most of its elements
        into most children (*split only if it thins*: at least half of them
        cover the leaf, two children would each get all of them, or the
        children would hold more than ``2 n + capacity`` entries), so nodes
        stay near-linear in the number of elements at every ``capacity`` and
        ``max_depth``.

    Raises
    ------
    ValueError
        ``capacity < 1``, ``max_depth`` outside ``0 .. 30``, a non-integer
        parameter; the common errors of :class:`~lessons_lib.base.BroadPhase`
        (a bad box, a duplicate id).
    KeyError
        ``remove`` or ``update`` of an unknown id.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit (node
    rectangles are halved as ``0.5 x0 + 0.5 x1``, which never overflows).
    ``cleanup`` merges four sibling leaves holding at most ``merge_limit``
    entries together (an attribute, default ``max(1, capacity // 2)``).
    Insert: O(depth + leaves touched), plus the occasional split. Query: the
    leaves the query touches, then a set of hits. Pairs: sum over leaves of
    ``k^2 / 2`` tests plus a set of pairs. Everything is interpreted Python:
    this is the slow reference design of lesson 04.

    References
    ----------
    Finkel and Bentley (1974); the quadtree answer set [SO-quadtree] names
    this design's costs.

    Examples
    --------
    >>> t = NaiveQuadtree(world=[0, 0, 100, 100], capacity=2)
    >>> for i, box in enumerate([[10, 10, 20, 20], [15, 15, 30, 30], [60, 60, 70, 70]]):
    ...     t.insert(i, box)
    >>> t.pairs().tolist(), t.node_count(), t.depth()
    ([[0, 1]], 5, 1)
    >>> [leaf.elements for leaf in t.nodes() if leaf.is_leaf]
    [[], [2], [0, 1], []]
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 8):
        super().__init__(world=world)
        self.capacity, self.max_depth, self.merge_limit = check_capacity_and_depth(capacity, max_depth)
        self.root = Node(self.world, 0)

    # -- routing ---------------------------------------------------------
    def _route(self, box) -> tuple:
        """``box`` clamped to the root's rectangle (so an outside box reaches the border leaves)."""
        x0, y0, x1, y1 = self.root.rect
        b = [float(v) for v in box]
        return (min(max(b[XMIN], x0), x1), min(max(b[YMIN], y0), y1),
                min(max(b[XMAX], x0), x1), min(max(b[YMAX], y0), y1))

    def leaves_touching(self, box) -> list[Node]:
        """The leaves a query for the closed ``box`` visits, depth first.

        ``box`` is ``[xmin, ymin, xmax, ymax]`` in world units; a box outside the
        world is first clamped to it (so it reaches the border leaves).
        ``ValueError`` for a bad box.
        """
        return self._leaves(self._route(as_box(box)))

    def _leaves(self, box) -> list[Node]:
        """Leaves whose rectangles touch ``box`` (already routed), depth first."""
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if node.is_leaf:
                out.append(node)
            else:
                stack.extend(c for c in reversed(node.children) if _touches(c.rect, box))
        return out

    # -- insert ----------------------------------------------------------
    def _insert(self, slot, box):
        self._insert_routed(self.root, int(slot), self._route(box))

    def _insert_routed(self, start: Node, slot: int, routed) -> None:
        stack = [start]
        while stack:
            node = stack.pop()
            if not node.is_leaf:
                stack.extend(c for c in reversed(node.children) if _touches(c.rect, routed))
                continue
            node.elements.append(slot)
            if self._over_full(node) and self._splits(node):
                self._split(node)

    def _over_full(self, node: Node) -> bool:
        """A leaf holding more than ``capacity`` elements above ``max_depth``: the rules decide whether it splits."""
        return node.is_leaf and len(node.elements) > self.capacity and node.depth < self.max_depth

    def _splits(self, node: Node) -> bool:
        """Would the over-full leaf ``node`` split? Only if it separates, and only if it thins.

        *Split only if it separates*: not when the routed boxes of all its
        elements, clipped to the leaf, are equal. *Split only if it thins*:
        not when the split would copy most elements into most children: when
        at least half of them cover the whole leaf (clipped, they are the
        leaf's rectangle), when two or more children would each receive all
        of them, or when the children would hold more than ``2 n + capacity``
        entries together. One pass over the leaf's elements (vectorised for a large leaf).
        """
        e, rect = node.elements, node.rect
        mx, my = 0.5 * rect[XMIN] + 0.5 * rect[XMAX], 0.5 * rect[YMIN] + 0.5 * rect[YMAX]
        x0, y0, x1, y1 = self.root.rect
        n = len(e)
        if n <= 32:  # the usual case (a leaf just over capacity): plain Python beats numpy's set-up
            boxes = self.elements.boxes
            covering = copies = 0
            seen, whole = set(), [0, 0, 0, 0]
            for s in e:
                b = boxes[s].tolist()
                c = (max(min(max(b[XMIN], x0), x1), rect[XMIN]), max(min(max(b[YMIN], y0), y1), rect[YMIN]),
                     min(min(max(b[XMAX], x0), x1), rect[XMAX]), min(min(max(b[YMAX], y0), y1), rect[YMAX]))
                seen.add(c)
                covering += c == rect
                left, right, low, high = c[XMIN] <= mx, c[XMAX] >= mx, c[YMIN] <= my, c[YMAX] >= my
                copies += (left + right) * (low + high)
                whole[0] += left and high
                whole[1] += right and high
                whole[2] += left and low
                whole[3] += right and low
            return (2 * covering < n and copies <= 2 * n + self.capacity and whole.count(n) <= 1
                    and len(seen) > 1)
        b = self.elements.boxes[np.array(e, dtype=np.int64)]
        lo = np.maximum(np.clip(b[:, MIN_CORNER], (x0, y0), (x1, y1)), rect[MIN_CORNER])
        hi = np.minimum(np.clip(b[:, MAX_CORNER], (x0, y0), (x1, y1)), rect[MAX_CORNER])
        clipped = np.hstack([lo, hi])
        covering = int((clipped == rect).all(axis=1).sum())
        left, right = clipped[:, XMIN] <= mx, clipped[:, XMAX] >= mx
        low, high = clipped[:, YMIN] <= my, clipped[:, YMAX] >= my
        copies = int(((left.astype(np.int64) + right) * (low.astype(np.int64) + high)).sum())
        holding_all = sum(bool(h.all()) for h in (left & high, right & high, left & low, right & low))
        return (2 * covering < n and copies <= 2 * n + self.capacity and holding_all <= 1
                and bool((clipped != clipped[0]).any()))

    def _split(self, node: Node) -> None:
        """Turn a full leaf into a branch with four children and push its elements down.

        Every element goes into the children its routed box touches; then each
        child is judged once, holding all it received (one pass over its list,
        not one per element), and split in turn if the rules say so.
        """
        node.children = [Node(r, node.depth + 1) for r in child_rects(node.rect)]
        moving, node.elements = node.elements, []
        for s in moving:
            routed = self._route(self.elements.boxes[s])
            for child in node.children:
                if _touches(child.rect, routed):
                    child.elements.append(s)
        for child in node.children:
            if self._over_full(child) and self._splits(child):
                self._split(child)

    def _build(self, slots):
        """Insert one by one; then, if copies dominate (more than two entries per element), merge the
        branches the whole set would not have split (:meth:`_cleanup_pass`, until none is left)."""
        for s in slots.tolist():
            self._insert(s, self.elements.boxes[s])
        while self._held() > 2 * len(self) and self._cleanup_pass() > 0:
            pass

    # -- remove ----------------------------------------------------------
    def _remove(self, slot, box):
        self._resplit(self._unlink(int(slot), box))

    def _unlink(self, slot: int, box) -> list[Node]:
        """Take ``slot`` out of the leaves its (old) ``box`` touches; return those leaves."""
        leaves = self._leaves(self._route(box))
        for leaf in leaves:
            leaf.elements.remove(slot)
        return leaves

    def _resplit(self, leaves) -> None:
        """Split each of ``leaves`` (elements just left it) that the rules now split: an over-full leaf
        kept whole because most of it was covered splits once the covering boxes have gone."""
        for leaf in leaves:
            if self._over_full(leaf) and self._splits(leaf):
                self._split(leaf)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.reshape(old, (1, 4)), None)

    def _update_many(self, slots, old, new):
        """Remove every moved element (old boxes) first, then re-insert them all (new boxes).

        One by one would be wrong here: the element table already holds every
        *new* box, and a split caused by one re-insert would route a
        not-yet-moved neighbour by its new box while it still sits in the
        leaves of its old one. The leaves they left are checked last, once
        every element sits where its box is (:meth:`_resplit`).
        """
        left = {}
        for k, s in enumerate(slots.tolist()):
            for leaf in self._unlink(s, old[k]):
                left[id(leaf)] = leaf
        for s in slots.tolist():
            self._insert(s, self.elements.boxes[s])
        self._resplit(left.values())

    # -- query -----------------------------------------------------------
    def _query(self, box):
        found = set()
        q = [float(v) for v in box]
        boxes = self.elements.boxes
        for leaf in self._leaves(self._route(q)):
            for s in leaf.elements:
                if s not in found and _touches(boxes[s].tolist(), q):
                    found.add(s)
        return np.array(sorted(found), dtype=np.int64)

    # -- pairs -----------------------------------------------------------
    def _pairs(self):
        found = set()
        boxes = self.elements.boxes.tolist()
        stack = [self.root]
        while stack:
            node = stack.pop()
            if not node.is_leaf:
                stack.extend(node.children)
                continue
            e = node.elements
            for i in range(len(e)):
                a = boxes[e[i]]
                for j in range(i + 1, len(e)):
                    if _touches(a, boxes[e[j]]):
                        found.add((e[i], e[j]) if e[i] < e[j] else (e[j], e[i]))
        return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)

    # -- cleanup, clear --------------------------------------------------
    def _cleanup(self):
        """Merge every branch whose four children are leaves holding at most ``merge_limit`` entries.

        One level per call; half the capacity, so that a merged leaf does not split again at the next insert.
        While the leaves hold more than two entries per element (copies dominate), a branch whose merged
        leaf the rules would keep whole (:meth:`_splits`) is merged too, children first, so that an
        overgrown subtree merges in one call: boxes that came to cover a region split for small ones are
        copied into every leaf there, and this undoes those splits.

        The merged leaf holds their elements, each once. Otherwise parents are
        visited before children, so a branch whose children merge waits for the next call.
        """
        self._cleanup_pass()

    def _cleanup_pass(self) -> int:
        """One call of :meth:`_cleanup`; returns the number of branches merged."""
        thorough = self._held() > 2 * len(self)
        stack = [(self.root, False)] if not self.root.is_leaf else []
        merged_branches = 0
        while stack:
            node, children_done = stack.pop()
            kids = node.children
            if thorough and not children_done:  # children first: a whole overgrown subtree merges now
                stack.append((node, True))
                stack.extend((c, False) for c in kids if not c.is_leaf)
                continue
            if all(c.is_leaf for c in kids):
                merged = list(dict.fromkeys(s for c in kids for s in c.elements))
                if (sum(len(c.elements) for c in kids) <= self.merge_limit
                        or (thorough and self._stays_whole(node, merged))):
                    node.elements = merged
                    node.children = None
                    merged_branches += 1
            elif not thorough:
                stack.extend((c, False) for c in kids if not c.is_leaf)
        return merged_branches

    def _held(self) -> int:
        """Entries in the leaves' lists (an element lying in k leaves counts k times)."""
        return sum(len(n.elements) for n in self.nodes() if n.is_leaf)

    def _stays_whole(self, node: Node, elements: list[int]) -> bool:
        """Would ``node``, as a leaf holding ``elements``, be over-full and kept whole by the rules?"""
        whole = Node(node.rect, node.depth)
        whole.elements = elements
        return self._over_full(whole) and not self._splits(whole)

    def _clear(self):
        self.root = Node(self.world, 0)

    # -- inspection ------------------------------------------------------
    def nodes(self) -> list[Node]:
        """Every node, depth first from the root (children in TL, TR, BL, BR order)."""
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            if not node.is_leaf:
                stack.extend(reversed(node.children))
        return out

    def node_count(self) -> int:
        """Number of nodes, branches and leaves."""
        return len(self.nodes())

    def leaf_count(self) -> int:
        return sum(n.is_leaf for n in self.nodes())

    def depth(self) -> int:
        """Depth of the deepest node (0 when the root is a leaf)."""
        return max(n.depth for n in self.nodes())

    def regions(self):
        nodes = self.nodes()
        return (np.array([n.rect for n in nodes], dtype=np.float64).reshape(-1, 4),
                np.array([n.depth for n in nodes], dtype=np.int64))

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` unless every node is consistent.

        Branches have four children with the quadrant rectangles and no
        elements; every stored slot is in exactly the leaves its routed box
        touches; a leaf holds more than ``capacity`` elements only at
        ``max_depth`` or when the rules keep it whole (its elements' routed
        boxes clipped to it are equal, or at least half of them cover it).
        """
        live = set(self.elements.live_slots().tolist())
        where: dict[int, set] = {s: set() for s in live}
        for node in self.nodes():
            if node.is_leaf:
                assert len(set(node.elements)) == len(node.elements), "a slot appears twice in one leaf"
                assert not (self._over_full(node) and self._splits(node)), \
                    "over-full leaf above max depth though the rules would split it"
                for s in node.elements:
                    assert s in live, f"leaf holds dead slot {s}"
                    where[s].add(id(node))
            else:
                assert not node.elements, "a branch holds elements"
                assert len(node.children) == 4
                for c, r in zip(node.children, child_rects(node.rect)):
                    assert c.rect == r and c.depth == node.depth + 1
        for s in live:
            want = {id(n) for n in self._leaves(self._route(self.elements.boxes[s]))}
            assert where[s] == want, f"slot {s} is not in exactly the leaves its box touches"


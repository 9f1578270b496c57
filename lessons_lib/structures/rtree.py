"""Guttman's R-tree: nodes that cover only what they hold, kept balanced by splitting.

An R-tree ([Guttman1984]) is a B-tree of rectangles. Every node stores the
bounding box of its entries; a leaf's entries are elements, an internal node's
entries are nodes. All leaves sit at the same depth, every node except the
root holds between ``m`` and ``M`` entries. Unlike a quadtree, a node does not
own a fixed piece of the plane: its box is exactly as large as what it holds,
and sibling boxes may overlap.

The module reads like lesson 09 and the paper, one function per step:

1. data layout: :class:`~lessons_lib.structures.rtree_nodes.NodeArrays` (shared with the
   other trees) plus ``leaf_of``, the leaf that holds each element slot;
2. insert (:func:`insert`): :func:`choose_leaf` (least enlargement, ties:
   smaller area), add the entry, then :func:`adjust_tree`: widen the boxes on
   the way up (:func:`enlarge_path`), split an overfull node
   (:func:`split_node`) and carry the split upwards, growing a new root when
   the root splits (:func:`grow_root`); the area kernels ChooseLeaf compares
   (:func:`~lessons_lib.structures.rtree_nodes.enlarged_by`) are in the
   scale-safe geometry of :mod:`~lessons_lib.structures.rtree_nodes`;
3. SplitNode's heuristics, in :mod:`~lessons_lib.structures.rtree_split`:
   ``"exhaustive"`` (every partition, small ``M`` only), ``"quadratic"``
   (quadratic PickSeeds, then PickNext) and ``"linear"`` (linear PickSeeds,
   then entries in order);
4. remove (:func:`delete`): :func:`condense_tree` takes the entry out and
   dissolves underfull nodes on the path to the root; their entries are
   inserted again at their own level, and the tree is shortened while the
   root has one child (:func:`shorten`);
5. query and pairs: the shared pruned kernels of :mod:`lessons_lib.structures.rtree_search`.

Kernels take the tree as one tuple ``(node arrays, leaf_of, element boxes)``
and the split rule as ``(heuristic, M, m)``. Areas are compared on boxes
mapped onto the unit square when they are too large or too small to multiply
(:func:`~lessons_lib.structures.rtree_nodes.fit_exponent`): the same decisions
at ordinary scales, no inf or NaN at any scale.

Sources: [Guttman1984]; the R-tree section of [magley2026], whose benchmark
R-tree did not prune internal nodes and looked slow for it: ours enters a
child only when its box meets the query.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import BroadPhase, register
from ..core.jit import njit
from ..core.params import check_choice, check_int
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .rtree_nodes import (
    BOX,
    CHILD,
    COUNT,
    FREED,
    LEVEL,
    MAX_FAN_OUT,
    META,
    PARENT,
    ROOT,
    USED,
    NodeArrays,
    add_entry,
    alloc_node,
    box_area,
    enlarged_by,
    entry_boxes,
    fit_exponent,
    fit_rows,
    free_node,
    recompute_box,
    take_entry,
    to_unit,
)
from .rtree_quality import NodeViews, check_tree
from .rtree_search import query_with_visits, tree_pairs
from .rtree_split import EXHAUSTIVE_MAX, SPLITS, split_groups

__all__ = [
    "RTree",
    "insert", "enlargement", "choose_leaf", "least_enlargement", "needs_unit_square", "children_on_unit_square",
    "adjust_tree", "enlarge_path", "split_node", "apply_split", "grow_root",
    "LOG_COLS", "STAT_LOGGED", "STAT_REINSERTED", "log_split",
    "delete", "condense_tree", "shorten",
    "nodes_left", "tree_height",
]

#: Columns of the split log (``RTree.last_splits``): level, node, new node, seed A box, seed B box.
LOG_LEVEL, LOG_NODE, LOG_NEW_NODE, LOG_SEED_A, LOG_SEED_B, LOG_COLS = 0, 1, 2, 3, 7, 11
#: Counters in ``stats``: splits logged during this insert, splits in all, entries force-reinserted (R*).
STAT_LOGGED, STAT_SPLITS, STAT_REINSERTED = 0, 1, 2
#: Columns of CondenseTree's orphans: the entry, and the level it is to be reinserted at.
ORPHAN_ENTRY, ORPHAN_LEVEL = 0, 1


# --------------------------------------------------------------------------
# Insert: ChooseLeaf, add the entry, AdjustTree (lesson 09, section 2)
# --------------------------------------------------------------------------
@njit(inline="always")
def insert(tr, entry, e, target_level, rule, rec):
    """Guttman's Insert: ``entry`` (a slot when ``target_level == 0``, else a node) with box ``e`` into a node at ``target_level``.

    ChooseLeaf (:func:`choose_leaf`), add the entry, then AdjustTree
    (:func:`adjust_tree`), which widens the boxes on the path and splits
    overfull nodes with SplitNode on the way up ([Guttman1984]). ``tr`` is
    ``(node arrays, leaf_of, element boxes)``, ``e`` a ``(4,)`` float64 box,
    ``rule`` ``(heuristic, M, m)``, ``rec`` the split log ``(log, stats)``;
    the caller has reserved the nodes a split may take.
    """
    nd, leaf_of, eb = tr
    if nd[META][ROOT] < 0:
        nd[META][ROOT] = alloc_node(nd, 0)
    v = choose_leaf(nd, e, target_level)
    add_entry(nd, leaf_of, v, entry)
    adjust_tree(tr, v, e, rule, rec)


# --------------------------------------------------------------------------
# ChooseLeaf: the child that needs the least enlargement, level by level
# --------------------------------------------------------------------------
def enlargement(box, entry) -> float:
    """Area by which ``box`` must grow to cover ``entry`` (both ``[xmin, ymin, xmax, ymax]``), in square units.

    The quantity ChooseLeaf minimises. 0 when ``entry`` is already inside
    ``box``; ``inf`` only when the true value is beyond the float range.

    >>> enlargement([0, 0, 2, 2], [2, 0, 4, 2])
    4.0
    >>> enlargement([0, 0, 1e308, 1e308], [0, 0, 1.2e308, 1e308]) == float("inf")
    True
    """
    b = [float(v) for v in box]
    q = [float(v) for v in entry]
    x0, y0, x1, y1 = min(b[XMIN], q[XMIN]), min(b[YMIN], q[YMIN]), max(b[XMAX], q[XMAX]), max(b[YMAX], q[YMAX])
    e = fit_exponent(x0, y0, x1, y1)
    if e == 0:
        return float(enlarged_by(*b, *q))
    grown = enlarged_by(*[to_unit(v, o, e) for v, o in zip(b + q, (x0, y0) * 4)])
    try:
        return math.ldexp(grown, 2 * e)
    except OverflowError:  # the true value is beyond the float range
        return math.inf


@njit
def choose_leaf(nd, e, target_level):
    """Guttman's ChooseLeaf: the node at ``target_level`` reached by least enlargement for ``e``.

    From the root down, each level takes the child whose box needs the least
    enlargement to cover ``e`` (ties: smaller area; :func:`least_enlargement`).
    The children's areas are compared as they are, or on the unit square
    when they would overflow or underflow (:func:`needs_unit_square`).
    """
    box, level, count, child, meta = nd[BOX], nd[LEVEL], nd[COUNT], nd[CHILD], nd[META]
    v = meta[ROOT]
    while level[v] > target_level:
        n = count[v]
        if needs_unit_square(nd, v, e):
            b, rows = children_on_unit_square(nd, v, e)
            t = least_enlargement(b, rows, 0, n, b[n, XMIN], b[n, YMIN], b[n, XMAX], b[n, YMAX])
        else:
            t = least_enlargement(box, child, v, n, e[XMIN], e[YMIN], e[XMAX], e[YMAX])
        v = child[v, t]
    return v


@njit(inline="always")
def least_enlargement(src, rows, v, n, q0, q1, q2, q3):
    """Position ``t < n`` of the box ``src[rows[v, t]]`` that grows least to take in ``q`` (ties: smaller area, CL3).

    ``rows`` is 2-D (a node's children are row ``v`` of ``child``): passing a
    row as a view would cost a reference count per call.
    """
    best, best_cost, best_area = 0, np.inf, np.inf
    for t in range(n):
        r = rows[v, t]
        a = box_area(src[r, XMIN], src[r, YMIN], src[r, XMAX], src[r, YMAX])
        cost = enlarged_by(src[r, XMIN], src[r, YMIN], src[r, XMAX], src[r, YMAX], q0, q1, q2, q3)
        if cost < best_cost or (cost == best_cost and a < best_area):
            best, best_cost, best_area = t, cost, a
    return best


@njit(inline="always")
def needs_unit_square(nd, v, e):
    """Would areas of node ``v``'s children grown by ``e`` overflow or underflow as they are?

    Asked at every level of a descent: a node below a safe root cannot
    overflow, but its (smaller) boxes may still underflow.
    """
    box = nd[BOX]
    return fit_exponent(min(box[v, XMIN], e[XMIN]), min(box[v, YMIN], e[YMIN]), max(box[v, XMAX], e[XMAX]), max(box[v, YMAX], e[YMAX])) != 0


@njit
def children_on_unit_square(nd, v, e):
    """The boxes of node ``v``'s children and, in the last row, ``e``, mapped onto the unit square.

    Used when their areas cannot be computed as they are (huge or tiny
    boxes); returns the rows and the identity index into them (one row of ``n``).
    """
    box, count, child = nd[BOX], nd[COUNT], nd[CHILD]
    n = count[v]
    b = np.empty((n + 1, 4), np.float64)
    rows = np.empty((1, n), np.int64)  # built in a loop: reshape would compile its error path
    for t in range(n):
        b[t] = box[child[v, t]]
        rows[0, t] = t
    b[n] = e
    x0, y0 = min(box[v, XMIN], e[XMIN]), min(box[v, YMIN], e[YMIN])
    fit_rows(b, n + 1, fit_exponent(x0, y0, max(box[v, XMAX], e[XMAX]), max(box[v, YMAX], e[YMAX])), x0, y0)
    return b, rows


# --------------------------------------------------------------------------
# AdjustTree: widen the path, then SplitNode overfull nodes on the way up
# --------------------------------------------------------------------------
@njit(inline="always")
def adjust_tree(tr, v, e, rule, rec):
    """Guttman's AdjustTree, from the node ``v`` that has just taken an entry with box ``e`` up to the root.

    Two passes, together the lesson's AdjustTree: widen every box on the path
    to cover ``e`` (:func:`enlarge_path`; Guttman's AT3), then split ``v``
    while it is overfull (:func:`split_node`) and hand the new sibling to its
    parent, which may overflow in turn (AT4), up to the root, where a split
    grows a new root (:func:`grow_root`).
    """
    nd, leaf_of, eb = tr
    heuristic, M, m = rule
    count, parent, meta = nd[COUNT], nd[PARENT], nd[META]
    enlarge_path(nd, v, e)
    while count[v] > M:
        nn = split_node(tr, v, m, heuristic, rec)
        if v == meta[ROOT]:
            grow_root(tr, v, nn)
            return
        add_entry(nd, leaf_of, parent[v], nn)
        v = parent[v]


@njit(inline="always")
def enlarge_path(nd, v, e):
    """Grow node ``v`` and its ancestors to cover the box ``e`` ((4,) array): AdjustTree's first pass.

    With the split pass of :func:`adjust_tree` it makes the lesson's
    AdjustTree; the R*-tree's insert calls it before its OverflowTreatment.
    """
    box, parent = nd[BOX], nd[PARENT]
    while v >= 0:
        box[v, XMIN] = min(box[v, XMIN], e[XMIN])
        box[v, YMIN] = min(box[v, YMIN], e[YMIN])
        box[v, XMAX] = max(box[v, XMAX], e[XMAX])
        box[v, YMAX] = max(box[v, YMAX], e[YMAX])
        v = parent[v]


@njit
def split_node(tr, v, m, heuristic, rec):
    """SplitNode: divide the ``M + 1`` entries of ``v`` by ``heuristic``; returns the new sibling."""
    nd, leaf_of, eb = tr
    b = entry_boxes(nd, eb, v)
    group, sa, sb = split_groups(b, m, heuristic)
    nn = apply_split(tr, v, group)
    log_split(rec, nd[LEVEL][v], v, nn, b, sa, sb)
    return nn


@njit
def apply_split(tr, v, group):
    """Keep group 0 in ``v``, move group 1 to a new sibling; recompute both boxes. Returns the sibling."""
    nd, leaf_of, eb = tr
    count, child = nd[COUNT], nd[CHILD]
    n = count[v]
    ent = child[v, :n].copy()
    nn = alloc_node(nd, nd[LEVEL][v])
    count[v] = 0
    for t in range(n):
        add_entry(nd, leaf_of, v if group[t] == 0 else nn, ent[t])
    recompute_box(nd, eb, v)
    recompute_box(nd, eb, nn)
    return nn


@njit
def grow_root(tr, v, nn):
    """The root split into ``v`` and ``nn``: a new root above them, one level higher."""
    nd, leaf_of, eb = tr
    r = alloc_node(nd, nd[LEVEL][v] + 1)
    add_entry(nd, leaf_of, r, v)
    add_entry(nd, leaf_of, r, nn)
    recompute_box(nd, eb, r)
    nd[META][ROOT] = r


# --------------------------------------------------------------------------
# The split log, for the lesson's stepper (plumbing, not a step of the paper)
# --------------------------------------------------------------------------
@njit
def log_split(rec, lvl, v, nn, b, sa, sb):
    """Record a split for the lesson's stepper (``RTree.last_splits``): level, nodes, seed boxes.

    The seed boxes are NaN when there are none (the exhaustive and R* splits).
    Not a step of the paper: it only lets lesson 09 show each split.
    """
    log, stats = rec
    r = stats[STAT_LOGGED]
    if r < log.shape[0]:
        log[r, LOG_LEVEL] = lvl
        log[r, LOG_NODE] = v
        log[r, LOG_NEW_NODE] = nn
        for c in range(4):
            log[r, LOG_SEED_A + c] = b[sa, c] if sa >= 0 else np.nan
            log[r, LOG_SEED_B + c] = b[sb, c] if sb >= 0 else np.nan
        stats[STAT_LOGGED] += 1
    stats[STAT_SPLITS] += 1


# --------------------------------------------------------------------------
# Remove: Delete = CondenseTree, reinsert the orphans, shorten (lesson 09, section 6)
# --------------------------------------------------------------------------
def delete(tree: RTree, slot: int) -> None:
    """Guttman's Delete of the element in ``slot`` from ``tree`` (an :class:`RTree` or a subclass).

    Lesson 09's "Delete = remove + CondenseTree + reinsertion of orphans +
    shortening the root", in three calls:

    1. remove the entry from its leaf (found from ``leaf_of``, not by
       Guttman's FindLeaf search) and condense the path to the root, both in
       :func:`condense_tree`, which sets the entries of dissolved nodes aside;
    2. reinsert each orphan at its own level (a subtree as one entry) by the
       tree's own insert, ``tree._insert_entry``: :func:`insert` here, the R*
       insert in :class:`~lessons_lib.structures.rstar_tree.RStarTree`; it
       grows the node arrays before each insert;
    3. :func:`shorten` the root while it has a single child.
    """
    orphans = np.empty(((tree.height + 1) * tree.max_entries, 2), np.int64)
    k = condense_tree(tree._tree(), slot, tree.min_entries, orphans)
    for entry, lvl in orphans[:k].tolist():
        src = tree.elements.boxes if lvl == 0 else tree.nodes.box  # fetched again: an insert may grow the arrays
        tree._insert_entry(entry, src[entry].copy(), lvl)
    shorten(tree.nodes.arrays)


@njit
def condense_tree(tr, slot, m, orphans):
    """CondenseTree: take ``slot`` out of its leaf and condense the path to the root.

    Each node on the path left with fewer than ``m`` entries is detached from
    its parent and freed; its entries go to ``orphans`` as ``(entry, level)``
    rows, to be reinserted at that level. Other nodes get their exact box back.
    Returns the number of orphans.
    """
    nd, leaf_of, eb = tr
    level, count, parent, child, meta = nd[LEVEL], nd[COUNT], nd[PARENT], nd[CHILD], nd[META]
    v = leaf_of[slot]
    take_entry(nd, v, slot)
    leaf_of[slot] = -1
    k = 0
    while v != meta[ROOT]:
        p = parent[v]
        if count[v] < m:
            take_entry(nd, p, v)
            for t in range(count[v]):
                orphans[k, ORPHAN_ENTRY] = child[v, t]
                orphans[k, ORPHAN_LEVEL] = level[v]
                k += 1
            free_node(nd, v)
        else:
            recompute_box(nd, eb, v)
        v = p
    recompute_box(nd, eb, meta[ROOT])
    return k


@njit
def shorten(nd):
    """While the root is an internal node with one child, that child becomes the root; an empty leaf root goes."""
    level, count, parent, child, meta = nd[LEVEL], nd[COUNT], nd[PARENT], nd[CHILD], nd[META]
    while meta[ROOT] >= 0:
        r = meta[ROOT]
        if level[r] > 0 and count[r] == 1:
            c = child[r, 0]
            free_node(nd, r)
            parent[c] = -1
            meta[ROOT] = c
        elif level[r] == 0 and count[r] == 0:
            free_node(nd, r)
            meta[ROOT] = -1
        else:
            break


# --------------------------------------------------------------------------
# Growth plumbing: a bulk loop that stops when the node arrays run short
# --------------------------------------------------------------------------
@njit
def nodes_left(nd):
    """Nodes that can still be allocated without growing the arrays."""
    level, meta = nd[LEVEL], nd[META]
    return level.shape[0] - meta[USED] + meta[FREED]


@njit
def tree_height(nd):
    level, meta = nd[LEVEL], nd[META]
    return 0 if meta[ROOT] < 0 else level[meta[ROOT]] + 1


@njit
def _insert_slots(tr, slots, start, rule, rec):
    """Insert element slots ``slots[start:]`` one after the other (the from_boxes path).

    Returns the index of the first slot not inserted: it stops early when fewer
    nodes are left than one insert may need, so that the caller can grow the arrays.
    """
    nd, leaf_of, eb = tr
    log, stats = rec
    for i in range(start, slots.shape[0]):
        if nodes_left(nd) < 2 * tree_height(nd) + 4:
            return i
        stats[STAT_LOGGED] = 0
        insert(tr, slots[i], eb[slots[i]], 0, rule, rec)
    return slots.shape[0]


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("rtree")
class RTree(NodeViews, BroadPhase):
    """Guttman's dynamic R-tree.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint (the tree adapts to the boxes); see :class:`~lessons_lib.base.BroadPhase`.
    max_entries : int, default 16
        ``M``, the fan-out: most entries a node holds (>= 2; at most
        ``EXHAUSTIVE_MAX`` = 12 with ``split="exhaustive"``).
    min_entries : int, optional
        ``m``, the fewest entries a non-root node holds, ``1 <= m <= M // 2``.
        Default 40 % of ``M`` rounded, within ``[1, M // 2]`` (the value
        [Beckmann1990] found best).
    split : {"quadratic", "linear", "exhaustive"}, default "quadratic"
        How an overfull node of ``M + 1`` entries is split.

    Raises
    ------
    ValueError
        Bad parameters (the message names the parameter), and everything
        :class:`~lessons_lib.base.BroadPhase` refuses: bad boxes, duplicate ids.
    KeyError
        An unknown id on remove or update.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit, in
    one tree. Areas too large or too small to multiply are compared on boxes
    mapped onto the unit square by a power of two, so no decision sees an
    inf or a NaN.

    Insert: O(M log_m n) to choose the leaf plus the split cost (quadratic
    O(M^2), linear O(M), exhaustive O(2^M M)) at each level that overflows.
    Remove: O(log n) plus reinsertion of at most ``(m - 1) * height`` orphans.
    Query: O(visits * M); ``query_visits`` reports the visits. Pairs: a
    self-join of the tree (:func:`~lessons_lib.structures.rtree_search.tree_pairs`).
    Memory: ``(M + 1) * 8 + 64`` bytes per node plus 8 bytes per element
    (``leaf_of``). Element slots are found from ``leaf_of`` instead of
    Guttman's FindLeaf search.

    References
    ----------
    [Guttman1984] A. Guttman, "R-trees: a dynamic index structure for spatial
    searching", Proc. ACM SIGMOD 1984, pp. 47-57.

    Examples
    --------
    >>> t = RTree(max_entries=4)
    >>> for i, b in enumerate([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6], [2, 0, 4, 1], [7, 0, 8, 1]]):
    ...     t.insert(i, b)
    >>> t.height, t.pairs().tolist()
    (2, [[0, 1], [0, 3], [1, 3]])
    >>> t.query([5.5, 5.5, 9, 9]).tolist()
    [2]
    >>> t.remove(2); len(t)
    4
    """

    split_methods = tuple(SPLITS)

    def __init__(self, *, world=None, max_entries: int = 16, min_entries: int | None = None,
                 split: str = "quadratic"):
        super().__init__(world=world)
        M = check_int("max_entries", max_entries, 2, MAX_FAN_OUT)
        m = max(1, min(M // 2, round(0.4 * M))) if min_entries is None else check_int("min_entries", min_entries, 1, M // 2)
        self._set_split(split, M)
        self.max_entries, self.min_entries = M, m
        self.nodes = NodeArrays(M + 1)
        self.leaf_of = np.full(16, -1, np.int64)
        self._log = np.zeros((64, LOG_COLS))
        self._stats = np.zeros(4, np.int64)  # indexed by STAT_LOGGED, STAT_SPLITS, STAT_REINSERTED
        self.last_splits = np.zeros((0, LOG_COLS))

    def _set_split(self, split, M):
        split = check_choice("split", split, tuple(SPLITS))
        if split == "exhaustive" and M > EXHAUSTIVE_MAX:
            raise ValueError(f"split='exhaustive' tries 2**M partitions: max_entries must be <= {EXHAUSTIVE_MAX}, got {M}")
        self.split = split
        self._heuristic = SPLITS[split]

    @property
    def height(self) -> int:
        """Levels from the root to the leaves (0 when empty)."""
        return self.nodes.height()

    # -- growth: room before a kernel runs --------------------------------
    def _prepare(self, extra_nodes: int | None = None) -> None:
        """Grow ``leaf_of`` to the element table and the node arrays by ``extra_nodes`` (default: one insert's worth)."""
        cap = self.elements.capacity
        if len(self.leaf_of) < cap:
            self.leaf_of = np.concatenate([self.leaf_of, np.full(cap - len(self.leaf_of), -1, np.int64)])
        self.nodes.reserve((self.height + 3) * 2 if extra_nodes is None else extra_nodes)

    def _tree(self) -> tuple:
        """What the kernels take: ``(node arrays, leaf_of, element boxes)`` (fetch again after growing)."""
        return self.nodes.arrays, self.leaf_of, self.elements.boxes

    def _rule(self) -> tuple:
        return self._heuristic, self.max_entries, self.min_entries

    def _in_rounds(self, kernel, slots, extra: int, *args) -> None:
        """Run a bulk kernel until it has done every slot, growing the arrays whenever it stops short."""
        done = 0
        while done < len(slots):
            self._prepare(extra_nodes=extra)
            extra = self.nodes.capacity
            done = kernel(self._tree(), slots, done, *args)

    # -- insert -----------------------------------------------------------
    def _insert_entry(self, entry: int, box: np.ndarray, target_level: int) -> None:
        """Insert an element slot (level 0) or a detached node (level >= 1) with its box."""
        self._prepare()
        insert(self._tree(), entry, np.asarray(box, np.float64), target_level, self._rule(),
                       (self._log, self._stats))

    def _insert(self, slot, box):
        self._stats[STAT_LOGGED] = 0
        self._insert_entry(slot, box, 0)
        self.last_splits = self._log[: self._stats[STAT_LOGGED]].copy()

    def _build(self, slots):
        if len(slots):
            self._in_rounds(_insert_slots, slots, 2 * len(slots) // max(1, self.min_entries) + 8, self._rule(),
                            (self._log, self._stats))

    # -- remove -----------------------------------------------------------
    def _remove(self, slot, box):
        delete(self, slot)

    # -- query and pairs --------------------------------------------------
    def _query(self, box):
        return query_with_visits(self.nodes, self.elements.boxes, box)[0]

    def _pairs(self):
        return tree_pairs(self.nodes, self.elements.boxes)

    # -- cleanup and bookkeeping -----------------------------------------
    def _clear(self):
        self.nodes.clear()
        self.leaf_of[:] = -1

    def _nbytes(self):
        return self.nodes.nbytes() + self.leaf_of.nbytes

    def check_invariants(self) -> None:
        """``AssertionError`` if a node's box is not exactly its entries' union, fill is outside
        ``[m, M]`` below the root, or leaves are at different depths."""
        check_tree(self, min_fill=self.min_entries, max_fill=self.max_entries)

    def __repr__(self):
        return (f"{type(self).__name__}(n={len(self)}, M={self.max_entries}, m={self.min_entries}, "
                f"split={self.split!r}, height={self.height}, nodes={self.nodes.n_nodes()})")

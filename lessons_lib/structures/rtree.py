"""Guttman's R-tree: nodes that cover only what they hold, kept balanced by splitting.

An R-tree (Guttman 1984) is a B-tree of rectangles. Every node stores the
bounding box of its entries; a leaf's entries are elements, an internal node's
entries are nodes. All leaves sit at the same depth, every node except the
root holds between ``m`` and ``M`` entries. Unlike a quadtree, a node does not
own a fixed piece of the plane: its box is exactly as large as what it holds,
and sibling boxes may overlap.

The module reads like lesson 09:

1. data layout: :class:`~lessons_lib.structures.rtree_nodes.NodeArrays` (shared with the
   other trees) plus ``leaf_of``, the leaf that holds each element slot;
2. insert: ChooseLeaf (least enlargement, ties: smaller area), add the entry,
   enlarge the boxes on the way up (AdjustTree), split an overfull node and
   propagate the split upwards, growing a new root when the root splits;
3. the split heuristics: ``"exhaustive"`` (every partition, small ``M`` only),
   ``"quadratic"`` and ``"linear"``;
4. remove: take the entry out of its leaf, CondenseTree (dissolve underfull
   nodes on the path to the root, collect their entries), reinsert the orphaned
   entries at their own level, shorten the tree while the root has one child;
5. query and pairs: the shared pruned kernels of :mod:`lessons_lib.structures.rtree_nodes`.

Source: A. Guttman, "R-trees: a dynamic index structure for spatial
searching", SIGMOD 1984; the R-tree section of the broad-phase article by
magley (2026, [magley2026]), whose benchmark R-tree did
not prune internal nodes and looked slow for it: ours enters a child only when
its box meets the query.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.jit import njit
from ..core.params import check_choice, check_int
from .rtree_nodes import (
    NodeArrays,
    NodeViews,
    alloc_node,
    check_tree,
    free_node,
    query_with_visits,
    recompute_box,
    tree_pairs,
)

__all__ = [
    "RTree",
    "SPLITS",
    "split_entries",
    "enlargement",
    "pick_seeds_quadratic",
    "count_splits",
]

#: Split heuristics by name, and their kernel codes.
SPLITS = {"exhaustive": 0, "quadratic": 1, "linear": 2}
#: Largest ``max_entries`` for the exhaustive split (2**M partitions).
EXHAUSTIVE_MAX = 12
#: Columns of the split log: level, node, new node, seed A box (4), seed B box (4).
LOG_COLS = 11


# --------------------------------------------------------------------------
# Geometry of entries
# --------------------------------------------------------------------------
@njit
def box_area(x0, y0, x1, y1):
    return (x1 - x0) * (y1 - y0)


@njit
def _enlarge_cost(b, i, x0, y0, x1, y1):
    """Area added to box ``(x0..y1)`` by including row ``i`` of ``b``."""
    return box_area(min(x0, b[i, 0]), min(y0, b[i, 1]), max(x1, b[i, 2]), max(y1, b[i, 3])) - box_area(x0, y0, x1, y1)


def enlargement(box, entry) -> float:
    """Area by which ``box`` must grow to cover ``entry`` (both ``[xmin, ymin, xmax, ymax]``), in square units.

    The quantity ChooseLeaf minimises. 0 when ``entry`` is already inside ``box``.
    """
    b = np.asarray(box, np.float64)
    e = np.asarray(entry, np.float64).reshape(1, 4)
    return float(_enlarge_cost(e, 0, b[0], b[1], b[2], b[3]))


# --------------------------------------------------------------------------
# ChooseLeaf
# --------------------------------------------------------------------------
@njit
def _choose_least_enlargement(root, target_level, e, box, level, count, child):
    """From the root, descend to the node at ``target_level`` needing the least enlargement.

    Ties go to the child with the smaller area (Guttman's CL3).
    """
    v = root
    while level[v] > target_level:
        best = -1
        best_cost = np.inf
        best_area = np.inf
        for t in range(count[v]):
            c = child[v, t]
            a = box_area(box[c, 0], box[c, 1], box[c, 2], box[c, 3])
            cost = _enlarge_cost(e, 0, box[c, 0], box[c, 1], box[c, 2], box[c, 3])
            if cost < best_cost or (cost == best_cost and a < best_area):
                best, best_cost, best_area = c, cost, a
        v = best
    return v


# --------------------------------------------------------------------------
# Split heuristics: each returns (group of each entry: 0 or 1, seed a, seed b)
# --------------------------------------------------------------------------
@njit
def _assign(b, i, group, g, n, gb):
    """Put entry ``i`` in group ``g``: update the group's box ``gb[g]`` and size ``n[g]``."""
    group[i] = g
    n[g] += 1
    gb[g, 0] = min(gb[g, 0], b[i, 0])
    gb[g, 1] = min(gb[g, 1], b[i, 1])
    gb[g, 2] = max(gb[g, 2], b[i, 2])
    gb[g, 3] = max(gb[g, 3], b[i, 3])


@njit
def _better_group(b, i, n, gb):
    """Group whose box grows least to take entry ``i``; ties: smaller area, then fewer entries."""
    d0 = _enlarge_cost(b, i, gb[0, 0], gb[0, 1], gb[0, 2], gb[0, 3])
    d1 = _enlarge_cost(b, i, gb[1, 0], gb[1, 1], gb[1, 2], gb[1, 3])
    if d0 != d1:
        return 0 if d0 < d1 else 1
    a0 = box_area(gb[0, 0], gb[0, 1], gb[0, 2], gb[0, 3])
    a1 = box_area(gb[1, 0], gb[1, 1], gb[1, 2], gb[1, 3])
    if a0 != a1:
        return 0 if a0 < a1 else 1
    return 0 if n[0] <= n[1] else 1


@njit
def _distribute(b, m, sa, sb, quadratic):
    """Seeds ``sa``, ``sb`` start the groups; the rest follow Guttman's PickNext (quadratic) or come in order (linear).

    When one group needs every remaining entry to reach ``m``, it gets them all.
    """
    k = b.shape[0]
    group = np.full(k, -1, np.int64)
    n = np.zeros(2, np.int64)
    gb = np.empty((2, 4), np.float64)
    gb[:, 0] = np.inf
    gb[:, 1] = np.inf
    gb[:, 2] = -np.inf
    gb[:, 3] = -np.inf
    _assign(b, sa, group, 0, n, gb)
    _assign(b, sb, group, 1, n, gb)
    left = k - 2
    while left > 0:
        for g in range(2):
            if n[g] + left == m:
                for i in range(k):
                    if group[i] < 0:
                        _assign(b, i, group, g, n, gb)
                left = 0
        if left == 0:
            break
        pick = -1
        if quadratic:  # PickNext: the entry with the strongest preference for one group
            best = -1.0
            for i in range(k):
                if group[i] < 0:
                    d0 = _enlarge_cost(b, i, gb[0, 0], gb[0, 1], gb[0, 2], gb[0, 3])
                    d1 = _enlarge_cost(b, i, gb[1, 0], gb[1, 1], gb[1, 2], gb[1, 3])
                    if abs(d0 - d1) > best:
                        best = abs(d0 - d1)
                        pick = i
        else:
            for i in range(k):
                if group[i] < 0:
                    pick = i
                    break
        _assign(b, pick, group, _better_group(b, pick, n, gb), n, gb)
        left -= 1
    return group


@njit
def _quadratic_seeds(b):
    """The two entries that would waste the most area together: max area(J) - area(E1) - area(E2)."""
    k = b.shape[0]
    sa, sb = 0, 1
    worst = -np.inf
    for i in range(k):
        ai = box_area(b[i, 0], b[i, 1], b[i, 2], b[i, 3])
        for j in range(i + 1, k):
            aj = box_area(b[j, 0], b[j, 1], b[j, 2], b[j, 3])
            d = _enlarge_cost(b, j, b[i, 0], b[i, 1], b[i, 2], b[i, 3]) - aj  # area(J) - area(i) - area(j)
            if d > worst:
                worst, sa, sb = d, i, j
    return sa, sb


@njit
def _linear_seeds(b):
    """Along each axis, the entry with the highest low side and the one with the lowest high side.

    Their separation, divided by the width of the whole set on that axis, picks
    the axis with the most extreme pair (Guttman's LPS1-LPS3).
    """
    k = b.shape[0]
    best_sep = -np.inf
    sa, sb = 0, 1
    for ax in range(2):
        hi_low = 0
        lo_high = 0
        for i in range(k):
            if b[i, ax] > b[hi_low, ax]:
                hi_low = i
            if b[i, ax + 2] < b[lo_high, ax + 2]:
                lo_high = i
        if hi_low == lo_high:  # one entry is both: take the next lowest high side
            lo_high = 1 if hi_low == 0 else 0
            for i in range(k):
                if i != hi_low and b[i, ax + 2] < b[lo_high, ax + 2]:
                    lo_high = i
        width = b[:, ax + 2].max() - b[:, ax].min()
        sep = b[hi_low, ax] - b[lo_high, ax + 2]
        if width > 0:
            sep = sep / width
        if sep > best_sep:
            best_sep, sa, sb = sep, lo_high, hi_low
    if sa > sb:
        sa, sb = sb, sa
    return sa, sb


@njit
def _exhaustive_split(b, m):
    """Every partition into two groups of at least ``m``: the one with the least total area (ties: overlap)."""
    k = b.shape[0]
    best_mask = -1
    best_area = np.inf
    best_ov = np.inf
    for mask in range(1 << (k - 1)):  # entry 0 always in group 0: each partition once
        n1 = 0
        g = np.zeros((2, 4))
        g[:, 0] = np.inf
        g[:, 1] = np.inf
        g[:, 2] = -np.inf
        g[:, 3] = -np.inf
        for i in range(k):
            s = (mask >> (i - 1)) & 1 if i > 0 else 0
            n1 += s
            g[s, 0] = min(g[s, 0], b[i, 0])
            g[s, 1] = min(g[s, 1], b[i, 1])
            g[s, 2] = max(g[s, 2], b[i, 2])
            g[s, 3] = max(g[s, 3], b[i, 3])
        if n1 < m or k - n1 < m:
            continue
        a = box_area(g[0, 0], g[0, 1], g[0, 2], g[0, 3]) + box_area(g[1, 0], g[1, 1], g[1, 2], g[1, 3])
        w = min(g[0, 2], g[1, 2]) - max(g[0, 0], g[1, 0])
        h = min(g[0, 3], g[1, 3]) - max(g[0, 1], g[1, 1])
        ov = w * h if (w > 0 and h > 0) else 0.0
        if a < best_area or (a == best_area and ov < best_ov):
            best_mask, best_area, best_ov = mask, a, ov
    group = np.zeros(k, np.int64)
    for i in range(1, k):
        group[i] = (best_mask >> (i - 1)) & 1
    return group


@njit
def _split_groups(b, m, kind):
    """Group (0/1) of each of the ``M + 1`` entries, and the two seeds (-1 for the exhaustive split)."""
    if kind == 0:
        return _exhaustive_split(b, m), -1, -1
    if kind == 1:
        sa, sb = _quadratic_seeds(b)
    else:
        sa, sb = _linear_seeds(b)
    return _distribute(b, m, sa, sb, kind == 1), sa, sb


def count_splits(max_entries: int, min_entries: int = 1) -> int:
    """Ways to split ``M + 1`` entries into two unordered groups of at least ``m`` each.

    ``sum(C(M + 1, k) for k in [m, M + 1 - m]) / 2``: with ``m = 1`` that is
    ``2**M - 1``, which is why the exhaustive split is only for tiny nodes.
    """
    from math import comb

    M = check_int("max_entries", max_entries, 1)
    m = check_int("min_entries", min_entries, 1, (M + 1) // 2)
    return sum(comb(M + 1, k) for k in range(m, M + 2 - m)) // 2


def split_entries(boxes, min_entries: int, method: str = "quadratic") -> np.ndarray:
    """Split the boxes of an overfull node into two groups with one heuristic.

    Parameters
    ----------
    boxes : array_like, shape (k, 4)
        The ``M + 1`` entry boxes, closed ``[xmin, ymin, xmax, ymax]``.
    min_entries : int
        ``m``: each group gets at least this many, ``1 <= m <= k // 2``.
    method : {"exhaustive", "quadratic", "linear"}

    Returns
    -------
    numpy.ndarray, shape (k,), int64
        0 or 1 for each box.

    Raises
    ------
    ValueError
        Unknown method, bad ``min_entries``, fewer than 2 boxes, or more than
        ``EXHAUSTIVE_MAX + 1`` boxes for the exhaustive split.

    Notes
    -----
    Exhaustive: O(2^k k), the exact minimum of total area. Quadratic: O(k^2).
    Linear: O(k) seeds plus O(k) assignment. (Guttman 1984, section 3.5.)
    """
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    method = check_choice("split method", method, tuple(SPLITS))
    if len(b) < 2:
        raise ValueError(f"a split needs at least 2 boxes, got {len(b)}")
    m = check_int("min_entries", min_entries, 1, len(b) // 2)
    if method == "exhaustive" and len(b) > EXHAUSTIVE_MAX + 1:
        raise ValueError(f"the exhaustive split is for at most {EXHAUSTIVE_MAX + 1} boxes, got {len(b)}")
    return _split_groups(b, m, SPLITS[method])[0]


def pick_seeds_quadratic(boxes) -> tuple[int, int]:
    """Indices ``(i, j)``, ``i < j``, of Guttman's quadratic PickSeeds: the pair wasting the most area."""
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    if len(b) < 2:
        raise ValueError(f"PickSeeds needs at least 2 boxes, got {len(b)}")
    sa, sb = _quadratic_seeds(b)
    return int(sa), int(sb)


# --------------------------------------------------------------------------
# Insert: ChooseLeaf, add, AdjustTree, split and propagate
# --------------------------------------------------------------------------
@njit
def entry_boxes(v, box, level, count, child, elem_boxes):
    """``(count, 4)`` boxes of the entries of node ``v``."""
    n = count[v]
    out = np.empty((n, 4), np.float64)
    src = elem_boxes if level[v] == 0 else box
    for t in range(n):
        out[t] = src[child[v, t]]
    return out


@njit
def add_entry(v, entry, box, level, count, parent, child, leaf_of):
    """Append ``entry`` to node ``v`` and point it back at ``v`` (box not updated)."""
    child[v, count[v]] = entry
    count[v] += 1
    if level[v] == 0:
        leaf_of[entry] = v
    else:
        parent[entry] = v


@njit
def enlarge_path(v, e, box, parent):
    """AdjustTree for an insert: grow ``v`` and its ancestors to cover ``e`` ((4,) box)."""
    while v >= 0:
        box[v, 0] = min(box[v, 0], e[0])
        box[v, 1] = min(box[v, 1], e[1])
        box[v, 2] = max(box[v, 2], e[2])
        box[v, 3] = max(box[v, 3], e[3])
        v = parent[v]


@njit
def apply_split(v, group, box, level, count, parent, child, meta, free, leaf_of, elem_boxes):
    """Keep group 0 in ``v``, move group 1 to a new sibling; recompute both boxes. Returns the sibling."""
    n = count[v]
    ent = child[v, :n].copy()
    nn = alloc_node(level[v], box, level, count, parent, meta, free)
    count[v] = 0
    for t in range(n):
        add_entry(v if group[t] == 0 else nn, ent[t], box, level, count, parent, child, leaf_of)
    recompute_box(v, box, level, count, child, elem_boxes)
    recompute_box(nn, box, level, count, child, elem_boxes)
    return nn


@njit
def log_split(log, stats, lvl, v, nn, b, sa, sb):
    """Record a split (for the Stepper): level, nodes, and the seed boxes (NaN when there are none)."""
    r = stats[0]
    if r < log.shape[0]:
        log[r, 0] = lvl
        log[r, 1] = v
        log[r, 2] = nn
        for c in range(4):
            log[r, 3 + c] = b[sa, c] if sa >= 0 else np.nan
            log[r, 7 + c] = b[sb, c] if sb >= 0 else np.nan
        stats[0] += 1
    stats[1] += 1


@njit
def grow_root(v, nn, box, level, count, parent, child, meta, free, leaf_of, elem_boxes):
    """The root split into ``v`` and ``nn``: a new root above them, one level higher."""
    r = alloc_node(level[v] + 1, box, level, count, parent, meta, free)
    add_entry(r, v, box, level, count, parent, child, leaf_of)
    add_entry(r, nn, box, level, count, parent, child, leaf_of)
    recompute_box(r, box, level, count, child, elem_boxes)
    meta[0] = r


@njit
def _guttman_insert(entry, e, target_level, kind, M, m, box, level, count, parent, child, meta, free,
                    leaf_of, elem_boxes, log, stats):
    """Insert ``entry`` (a slot when ``target_level == 0``, else a node) with box ``e`` into a node at ``target_level``."""
    if meta[0] < 0:
        meta[0] = alloc_node(0, box, level, count, parent, meta, free)
    v = _choose_least_enlargement(meta[0], target_level, e.reshape(1, 4), box, level, count, child)
    add_entry(v, entry, box, level, count, parent, child, leaf_of)
    enlarge_path(v, e, box, parent)
    while count[v] > M:
        b = entry_boxes(v, box, level, count, child, elem_boxes)
        group, sa, sb = _split_groups(b, m, kind)
        nn = apply_split(v, group, box, level, count, parent, child, meta, free, leaf_of, elem_boxes)
        log_split(log, stats, level[v], v, nn, b, sa, sb)
        if v == meta[0]:
            grow_root(v, nn, box, level, count, parent, child, meta, free, leaf_of, elem_boxes)
            break
        p = parent[v]
        add_entry(p, nn, box, level, count, parent, child, leaf_of)
        v = p


@njit
def room_left(level, meta):
    """Nodes that can still be allocated without growing the arrays."""
    return level.shape[0] - meta[1] + meta[2]


@njit
def height_of(level, meta):
    return 0 if meta[0] < 0 else level[meta[0]] + 1


@njit
def _guttman_insert_many(slots, start, kind, M, m, box, level, count, parent, child, meta, free, leaf_of,
                         elem_boxes, log, stats):
    """Insert element slots ``slots[start:]`` one after the other (the from_boxes path).

    Returns the index of the first slot not inserted: it stops early when fewer
    nodes are left than one insert may need, so that the caller can grow the arrays.
    """
    for i in range(start, slots.shape[0]):
        if room_left(level, meta) < 2 * height_of(level, meta) + 4:
            return i
        stats[0] = 0
        s = slots[i]
        _guttman_insert(s, elem_boxes[s], 0, kind, M, m, box, level, count, parent, child, meta, free,
                        leaf_of, elem_boxes, log, stats)
    return slots.shape[0]


# --------------------------------------------------------------------------
# Remove: CondenseTree
# --------------------------------------------------------------------------
@njit
def condense(slot, m, box, level, count, parent, child, meta, free, leaf_of, elem_boxes, orphans):
    """Take ``slot`` out of its leaf and condense the path to the root.

    Each node on the path left with fewer than ``m`` entries is detached from
    its parent and freed; its entries go to ``orphans`` as ``(entry, level)``
    rows, to be reinserted at that level. Other nodes get their exact box back.
    Returns the number of orphans.
    """
    leaf = leaf_of[slot]
    n = count[leaf]
    for t in range(n):
        if child[leaf, t] == slot:
            child[leaf, t] = child[leaf, n - 1]
            break
    count[leaf] = n - 1
    leaf_of[slot] = -1
    k = 0
    v = leaf
    while v != meta[0]:
        p = parent[v]
        if count[v] < m:
            np_ = count[p]
            for t in range(np_):
                if child[p, t] == v:
                    child[p, t] = child[p, np_ - 1]
                    break
            count[p] = np_ - 1
            for t in range(count[v]):
                orphans[k, 0] = child[v, t]
                orphans[k, 1] = level[v]
                k += 1
            free_node(v, count, parent, meta, free)
        else:
            recompute_box(v, box, level, count, child, elem_boxes)
        v = p
    recompute_box(meta[0], box, level, count, child, elem_boxes)
    return k


@njit
def shorten(box, level, count, parent, child, meta, free):
    """While the root is an internal node with one child, that child becomes the root; an empty leaf root goes."""
    while meta[0] >= 0:
        r = meta[0]
        if level[r] > 0 and count[r] == 1:
            c = child[r, 0]
            free_node(r, count, parent, meta, free)
            parent[c] = -1
            meta[0] = c
        elif level[r] == 0 and count[r] == 0:
            free_node(r, count, parent, meta, free)
            meta[0] = -1
        else:
            break


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("rtree")
class RTree(NodeViews, BroadPhase):
    """Guttman's dynamic R-tree.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint (the tree adapts to the boxes); see :class:`BroadPhase`.
    max_entries : int, default 16
        ``M``, the fan-out: most entries a node holds (>= 2; at most
        ``EXHAUSTIVE_MAX`` = 12 with ``split="exhaustive"``).
    min_entries : int, optional
        ``m``, the fewest entries a non-root node holds, ``1 <= m <= M // 2``.
        Default 40 % of ``M`` rounded, within ``[1, M // 2]`` (40 %, the value Beckmann et al. found best).
    split : {"quadratic", "linear", "exhaustive"}, default "quadratic"
        How an overfull node of ``M + 1`` entries is split.

    Raises
    ------
    TypeError, ValueError
        Bad parameters (the message names the value).

    Notes
    -----
    Insert: O(M log_m n) to choose the leaf plus the split cost (quadratic
    O(M^2), linear O(M), exhaustive O(2^M M)) at each level that overflows.
    Remove: O(log n) plus reinsertion of at most ``(m - 1) * height`` orphans.
    Query: O(visits * M); ``query_visits`` reports the visits. Pairs: a
    self-join of the tree (:func:`~lessons_lib.structures.rtree_nodes.tree_pairs`).
    Memory: ``(M + 1) * 8 + 64`` bytes per node plus 8 bytes per element
    (``leaf_of``). Element slots are found from ``leaf_of`` instead of
    Guttman's FindLeaf search.

    References
    ----------
    A. Guttman, "R-trees: a dynamic index structure for spatial searching",
    Proc. ACM SIGMOD 1984, pp. 47-57.
    """

    split_methods = tuple(SPLITS)

    def __init__(self, *, world=None, max_entries: int = 16, min_entries: int | None = None,
                 split: str = "quadratic"):
        super().__init__(world=world)
        M = check_int("max_entries", max_entries, 2)
        m = max(1, min(M // 2, round(0.4 * M))) if min_entries is None else check_int("min_entries", min_entries, 1, M // 2)
        self._set_split(split, M)
        self.max_entries, self.min_entries = M, m
        self.nodes = NodeArrays(M + 1)
        self.leaf_of = np.full(16, -1, np.int64)
        self._log = np.zeros((64, LOG_COLS))
        self._stats = np.zeros(4, np.int64)  # splits logged this insert, splits total, reinserts total
        self.last_splits = np.zeros((0, LOG_COLS))

    def _set_split(self, split, M):
        split = check_choice("split", split, tuple(SPLITS))
        if split == "exhaustive" and M > EXHAUSTIVE_MAX:
            raise ValueError(f"split='exhaustive' tries 2**M partitions: max_entries must be <= {EXHAUSTIVE_MAX}, got {M}")
        self.split = split
        self._kind = SPLITS[split]

    # -- data layout helpers ----------------------------------------------
    @property
    def height(self) -> int:
        """Levels from the root to the leaves (0 when empty)."""
        return self.nodes.height()

    def _prepare(self, extra_nodes: int | None = None) -> None:
        cap = self.elements.capacity
        if len(self.leaf_of) < cap:
            self.leaf_of = np.concatenate([self.leaf_of, np.full(cap - len(self.leaf_of), -1, np.int64)])
        self.nodes.reserve((self.height + 3) * 2 if extra_nodes is None else extra_nodes)

    def _args(self):
        nd = self.nodes
        return nd.box, nd.level, nd.count, nd.parent, nd.child, nd.meta, nd.free

    # -- insert -----------------------------------------------------------
    def _insert_entry(self, entry: int, box: np.ndarray, target_level: int) -> None:
        """Insert an element slot (level 0) or a detached node (level >= 1) with its box."""
        self._prepare()
        _guttman_insert(entry, np.asarray(box, np.float64), target_level, self._kind, self.max_entries,
                        self.min_entries, *self._args(), self.leaf_of, self.elements.boxes, self._log, self._stats)

    def _insert(self, slot, box):
        self._stats[0] = 0
        self._insert_entry(slot, box, 0)
        self.last_splits = self._log[: self._stats[0]].copy()

    def _build(self, slots):
        if len(slots) == 0:
            return
        extra = 2 * len(slots) // max(1, self.min_entries) + 8
        done = 0
        while done < len(slots):  # the kernel stops early when it needs more nodes
            self._prepare(extra_nodes=extra)
            extra = self.nodes.capacity
            done = _guttman_insert_many(slots, done, self._kind, self.max_entries, self.min_entries, *self._args(),
                                        self.leaf_of, self.elements.boxes, self._log, self._stats)

    # -- remove -----------------------------------------------------------
    def _remove(self, slot, box):
        nd = self.nodes
        orphans = np.empty(((self.height + 1) * self.max_entries, 2), np.int64)
        k = condense(slot, self.min_entries, *self._args(), self.leaf_of, self.elements.boxes, orphans)
        for entry, lvl in orphans[:k].tolist():
            src = self.elements.boxes if lvl == 0 else nd.box
            self._insert_entry(entry, src[entry].copy(), lvl)
        shorten(nd.box, nd.level, nd.count, nd.parent, nd.child, nd.meta, nd.free)

    # -- query and pairs --------------------------------------------------
    def _query(self, box):
        return query_with_visits(self.nodes, self.elements.boxes, box)[0]

    def query_visits(self, box) -> tuple[np.ndarray, int]:
        """Like :meth:`query`, plus the number of nodes the search entered.

        Returns
        -------
        ids : numpy.ndarray, int64, sorted
        visits : int
        """
        from ..geometry import as_box

        slots, visits = query_with_visits(self.nodes, self.elements.boxes, as_box(box, name="query box"))
        return np.sort(self.elements.ids[slots]), visits

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



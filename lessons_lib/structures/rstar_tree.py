"""The R*-tree: Guttman's R-tree with three better decisions ([Beckmann1990]).

Same nodes, same queries, same deletion as :class:`~lessons_lib.structures.rtree.RTree`;
what changes is *where* entries go, one function per step of the paper:

1. **ChooseSubtree** (:func:`choose_subtree`). Just above the target level
   (for elements: in a node whose children are leaves) pick the child whose
   *overlap* with its siblings grows least; higher up, least area enlargement
   as in Guttman.
2. **Split** (:func:`rstar_split`). ChooseSplitAxis: sort the ``M + 1``
   entries along each axis (by lower, then by upper edge) and sum the
   *margins* (perimeters) of every distribution with at least ``m`` per side;
   the axis with the smallest sum wins (square nodes). ChooseSplitIndex: on
   that axis, the distribution with the least *overlap* between the two
   groups (ties: least total area).
3. **OverflowTreatment** (:func:`overflow_treatment`). The first time a level
   overflows during one insertion, instead of splitting, ReInsert: remove the
   ~30 % of entries whose centres lie farthest from the node's centre and
   insert them again, closest first: the tree gets a chance to reorganise
   before it commits to a split.

Areas, margins and overlaps are compared on boxes mapped onto the unit square
when they are too large or too small to multiply as they are (see
:mod:`lessons_lib.structures.rtree_nodes`).

Source: [Beckmann1990] N. Beckmann, H.-P. Kriegel, R. Schneider, B. Seeger,
"The R*-tree: an efficient and robust access method for points and
rectangles", SIGMOD 1990.
"""
from __future__ import annotations

import numpy as np

from ..base import register
from ..core.jit import njit
from ..core.params import check_int, check_number
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .rtree import (
    LOG_COLS,
    STAT_LOGGED,
    STAT_REINSERTED,
    RTree,
    apply_split,
    children_on_unit_square,
    enlarge_path,
    grow_root,
    least_enlargement,
    log_split,
    needs_unit_square,
    nodes_left,
    tree_height,
)
from .rtree_nodes import (BOX, CHILD, COUNT, LEVEL, MAX_FAN_OUT, META, PARENT, ROOT, add_entry, alloc_node,
                          box_area, entry_boxes, recompute_box, unit_boxes)

__all__ = [
    "RStarTree", "rstar_split", "LOG_COLS", "choose_subtree", "overlap_area",
    "least_overlap_enlargement", "prefix_suffix", "choose_split_axis", "choose_split_index",
    "reinsert", "split_rstar_node", "overflow_treatment", "rstar_insert",
]

#: Columns of the insertion queue: the entry, and the level it goes to.
QUEUE_ENTRY, QUEUE_LEVEL = 0, 1


# --------------------------------------------------------------------------
# ChooseSubtree: least overlap enlargement just above the target level
# --------------------------------------------------------------------------
@njit
def overlap_area(b, i, x0, y0, x1, y1):
    """Area shared by row ``i`` of ``b`` and the box ``(x0, y0, x1, y1)`` (0 when they only touch or miss)."""
    w = min(b[i, XMAX], x1) - max(b[i, XMIN], x0)
    h = min(b[i, YMAX], y1) - max(b[i, YMIN], y0)
    return w * h if (w > 0.0 and h > 0.0) else 0.0


@njit(inline="always")
def least_overlap_enlargement(src, rows, v, n, q0, q1, q2, q3):
    """Position ``t < n`` of the box ``src[rows[v, t]]`` whose overlap with its siblings grows least by taking in ``q``.

    Ties: least area enlargement, then least area.
    """
    best, best_ov, best_en, best_a = 0, np.inf, np.inf, np.inf
    for t in range(n):
        c = rows[v, t]
        x0, y0 = min(src[c, XMIN], q0), min(src[c, YMIN], q1)
        x1, y1 = max(src[c, XMAX], q2), max(src[c, YMAX], q3)
        d_ov = 0.0
        for u in range(n):
            if u != t:
                o = rows[v, u]
                d_ov += overlap_area(src, o, x0, y0, x1, y1) - overlap_area(src, o, src[c, XMIN], src[c, YMIN], src[c, XMAX], src[c, YMAX])
        a = box_area(src[c, XMIN], src[c, YMIN], src[c, XMAX], src[c, YMAX])
        en = box_area(x0, y0, x1, y1) - a
        if d_ov < best_ov or (d_ov == best_ov and (en < best_en or (en == best_en and a < best_a))):
            best, best_ov, best_en, best_a = t, d_ov, en, a
    return best


@njit
def choose_subtree(nd, e, target_level):
    """From the root, descend to the node at ``target_level`` where ``e`` costs least (R* rules)."""
    box, level, count, child, meta = nd[BOX], nd[LEVEL], nd[COUNT], nd[CHILD], nd[META]
    v = meta[ROOT]
    while level[v] > target_level:
        n = count[v]
        above_target = level[v] == target_level + 1
        if not needs_unit_square(nd, v, e):
            src, rows, row, q = box, child, v, e
        else:
            src, rows = children_on_unit_square(nd, v, e)
            row, q = 0, src[n]
        if above_target:
            t = least_overlap_enlargement(src, rows, row, n, q[XMIN], q[YMIN], q[XMAX], q[YMAX])
        else:
            t = least_enlargement(src, rows, row, n, q[XMIN], q[YMIN], q[XMAX], q[YMAX])
        v = child[v, t]
    return v


# --------------------------------------------------------------------------
# Split: ChooseSplitAxis by least total margin, ChooseSplitIndex by least overlap
# --------------------------------------------------------------------------
@njit
def prefix_suffix(b, order):
    """Bounding boxes of the first ``i + 1`` (prefix) and of the last ``k - i`` (suffix) entries in ``order``."""
    k = order.shape[0]
    pre = np.empty((k, 4))
    suf = np.empty((k, 4))
    pre[0] = b[order[0]]
    for t in range(1, k):
        i = order[t]
        pre[t, XMIN] = min(pre[t - 1, XMIN], b[i, XMIN])
        pre[t, YMIN] = min(pre[t - 1, YMIN], b[i, YMIN])
        pre[t, XMAX] = max(pre[t - 1, XMAX], b[i, XMAX])
        pre[t, YMAX] = max(pre[t - 1, YMAX], b[i, YMAX])
    suf[k - 1] = b[order[k - 1]]
    for t in range(k - 2, -1, -1):
        i = order[t]
        suf[t, XMIN] = min(suf[t + 1, XMIN], b[i, XMIN])
        suf[t, YMIN] = min(suf[t + 1, YMIN], b[i, YMIN])
        suf[t, XMAX] = max(suf[t + 1, XMAX], b[i, XMAX])
        suf[t, YMAX] = max(suf[t + 1, YMAX], b[i, YMAX])
    return pre, suf


@njit
def choose_split_axis(b, m):
    """ChooseSplitAxis: 0 (x) or 1 (y), the axis whose distributions have the least total margin."""
    k = b.shape[0]
    best_axis, best_margin = 0, np.inf
    for ax in range(2):
        s = 0.0
        for edge in range(2):  # sorted by lower, then by upper edge
            pre, suf = prefix_suffix(b, np.argsort(b[:, ax + 2 * edge], kind="mergesort"))
            for n0 in range(m, k - m + 1):
                p, q = pre[n0 - 1], suf[n0]
                s += 2 * ((p[XMAX] - p[XMIN]) + (p[YMAX] - p[YMIN]) + (q[XMAX] - q[XMIN]) + (q[YMAX] - q[YMIN]))
        if s < best_margin:
            best_margin, best_axis = s, ax
    return best_axis


@njit
def choose_split_index(b, m, axis):
    """ChooseSplitIndex: the order and first-group size on ``axis`` with the least overlap (ties: least area)."""
    k = b.shape[0]
    best_ov, best_ar = np.inf, np.inf
    best_order = np.arange(k)
    best_n0 = m
    for edge in range(2):
        order = np.argsort(b[:, axis + 2 * edge], kind="mergesort")
        pre, suf = prefix_suffix(b, order)
        for n0 in range(m, k - m + 1):
            p, q = pre[n0 - 1], suf[n0]
            w = min(p[XMAX], q[XMAX]) - max(p[XMIN], q[XMIN])
            h = min(p[YMAX], q[YMAX]) - max(p[YMIN], q[YMIN])
            ov = w * h if (w > 0 and h > 0) else 0.0
            ar = box_area(p[XMIN], p[YMIN], p[XMAX], p[YMAX]) + box_area(q[XMIN], q[YMIN], q[XMAX], q[YMAX])
            if ov < best_ov or (ov == best_ov and ar < best_ar):
                best_ov, best_ar, best_order, best_n0 = ov, ar, order, n0
    return best_order, best_n0


@njit
def _rstar_groups(b, m):
    """Group 0/1 of each entry by the R* split."""
    u = unit_boxes(b)
    order, n0 = choose_split_index(u, m, choose_split_axis(u, m))
    group = np.zeros(b.shape[0], np.int64)
    for t in range(n0, b.shape[0]):
        group[order[t]] = 1
    return group


def rstar_split(boxes, min_entries: int) -> np.ndarray:
    """The R* split of ``(k, 4)`` entry boxes into groups 0/1, each of at least ``min_entries``.

    Raises ``ValueError`` for fewer than 2 boxes or ``min_entries`` outside ``[1, k // 2]``.
    O(k log k) for the sorts plus O(k) per distribution.
    """
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    if len(b) < 2:
        raise ValueError(f"a split needs at least 2 boxes, got {len(b)}")
    return _rstar_groups(b, check_int("min_entries", min_entries, 1, len(b) // 2))


# --------------------------------------------------------------------------
# OverflowTreatment: forced reinsertion once per level, else split
# --------------------------------------------------------------------------
@njit
def reinsert(tr, v, p, queue, tail, rec):
    """ReInsert: take out the ``p`` entries of ``v`` whose centres lie farthest from its centre.

    They join the insertion queue nearest first ("close reinsert"); the boxes
    from ``v`` up to the root shrink to their exact bounds. Returns the new tail.
    """
    nd, leaf_of, eb = tr
    level, count, parent, child = nd[LEVEL], nd[COUNT], nd[PARENT], nd[CHILD]
    k = count[v]
    u = unit_boxes(entry_boxes(nd, eb, v))
    cx = 0.5 * u[:, XMIN].min() + 0.5 * u[:, XMAX].max()
    cy = 0.5 * u[:, YMIN].min() + 0.5 * u[:, YMAX].max()
    d = (0.5 * u[:, XMIN] + 0.5 * u[:, XMAX] - cx) ** 2 + (0.5 * u[:, YMIN] + 0.5 * u[:, YMAX] - cy) ** 2
    order = np.argsort(d, kind="mergesort")
    ents = child[v, :k].copy()
    count[v] = 0
    for t in range(k - p):
        add_entry(nd, leaf_of, v, ents[order[t]])
    w = v
    while w >= 0:
        recompute_box(nd, eb, w)
        w = parent[w]
    for t in range(k - p, k):
        queue[tail, QUEUE_ENTRY] = ents[order[t]]
        queue[tail, QUEUE_LEVEL] = level[v]
        tail += 1
    log, stats = rec
    stats[STAT_REINSERTED] += p
    return tail


@njit
def split_rstar_node(tr, v, m, rec):
    """Split the overfull node ``v`` by the R* split; returns the new sibling."""
    nd, leaf_of, eb = tr
    b = entry_boxes(nd, eb, v)
    nn = apply_split(tr, v, _rstar_groups(b, m))
    log_split(rec, nd[LEVEL][v], v, nn, b, -1, -1)
    return nn


@njit(inline="always")
def overflow_treatment(tr, v, rule, rec, queue, tail, reinserted):
    """Handle overfull nodes from ``v`` upwards; returns ``(tail, reinserted)``.

    ``reinserted`` has bit ``L`` set once level ``L`` had its forced
    reinsertion during this insertion: a second overflow there splits.
    """
    nd, leaf_of, eb = tr
    M, m, p = rule
    level, count, parent, meta = nd[LEVEL], nd[COUNT], nd[PARENT], nd[META]
    while count[v] > M:
        if p > 0 and v != meta[ROOT] and not (reinserted >> level[v]) & 1:
            reinserted |= 1 << level[v]
            return reinsert(tr, v, p, queue, tail, rec), reinserted
        nn = split_rstar_node(tr, v, m, rec)
        if v == meta[ROOT]:
            grow_root(tr, v, nn)
            break
        add_entry(nd, leaf_of, parent[v], nn)
        v = parent[v]
    return tail, reinserted


@njit(inline="always")
def rstar_insert(tr, entry, target_level, rule, rec, queue):
    """Insert ``entry`` at ``target_level``, and whatever forced reinsertion takes out, from a queue."""
    nd, leaf_of, eb = tr
    queue[0, QUEUE_ENTRY] = entry
    queue[0, QUEUE_LEVEL] = target_level
    head, tail = 0, 1
    reinserted = 0
    while head < tail:
        ent, tl = queue[head, QUEUE_ENTRY], queue[head, QUEUE_LEVEL]
        head += 1
        e = (eb[ent] if tl == 0 else nd[BOX][ent]).copy()
        if nd[META][ROOT] < 0:
            nd[META][ROOT] = alloc_node(nd, 0)
        v = choose_subtree(nd, e, tl)
        add_entry(nd, leaf_of, v, ent)
        enlarge_path(nd, v, e)
        tail, reinserted = overflow_treatment(tr, v, rule, rec, queue, tail, reinserted)


# --------------------------------------------------------------------------
# Growth plumbing: a bulk loop that stops when nodes or the queue run short
# --------------------------------------------------------------------------
@njit
def _insert_slots(tr, slots, start, rule, rec, queue):
    """Insert ``slots[start:]``; stop early (returning the index reached) when nodes or queue run short."""
    nd, leaf_of, eb = tr
    M, m, p = rule
    log, stats = rec
    for i in range(start, slots.shape[0]):
        h = tree_height(nd)
        if nodes_left(nd) < (h + 3) * (p + 2) or queue.shape[0] < (h + 3) * (p + 1) + 1:
            return i
        stats[STAT_LOGGED] = 0
        rstar_insert(tr, slots[i], 0, rule, rec, queue)
    return slots.shape[0]


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("rstar_tree")
class RStarTree(RTree):
    """The R*-tree: overlap-aware ChooseSubtree, margin/overlap split, forced reinsertion.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint; see :class:`~lessons_lib.base.BroadPhase`.
    max_entries : int, default 16
        ``M`` (>= 2).
    min_entries : int, optional
        ``m``, ``1 <= m <= M // 2``; default 40 % of ``M`` (the paper's best).
    reinsert_fraction : float, default 0.3
        Share ``p / M`` of entries taken out and reinserted on a level's first
        overflow in an insertion, in ``[0, 0.5]``; 0 turns reinsertion off
        (then every overflow splits). ``p`` is rounded and kept so that the
        node still holds at least ``m`` entries.

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
    one tree (areas, margins and overlaps too large or too small to compute
    as they are are compared on boxes mapped onto the unit square).

    ChooseSubtree costs O(M^2) at the level above the target (overlap of each
    candidate with its siblings); the split O(M log M). Forced reinsertion
    makes an insert cost up to ``p`` more inserts, in exchange for less
    overlap: fewer node visits per query. Removal is Guttman's CondenseTree,
    with orphans reinserted by the R* insert.

    References
    ----------
    [Beckmann1990] N. Beckmann, H.-P. Kriegel, R. Schneider, B. Seeger, "The
    R*-tree: an efficient and robust access method for points and
    rectangles", Proc. ACM SIGMOD 1990, pp. 322-331.

    Examples
    --------
    >>> from lessons_lib import make_scene, brute_force_pairs
    >>> boxes = make_scene("clustered", 300, seed=1)
    >>> t = RStarTree.from_boxes(boxes, max_entries=8)
    >>> bool((t.pairs() == brute_force_pairs(boxes)).all()), t.reinsertions > 0
    (True, True)
    >>> t.check_invariants()
    """

    def __init__(self, *, world=None, max_entries: int = 16, min_entries: int | None = None,
                 reinsert_fraction: float = 0.3):
        M = check_int("max_entries", max_entries, 2, MAX_FAN_OUT)
        super().__init__(world=world, max_entries=M, min_entries=min_entries)
        self.reinsert_fraction = check_number("reinsert_fraction", reinsert_fraction, 0.0, 0.5)
        self.reinsert_count = min(int(round(self.reinsert_fraction * M)), M + 1 - self.min_entries)
        self.split = "rstar"

    def _rule(self) -> tuple:
        return self.max_entries, self.min_entries, self.reinsert_count

    def _queue(self, factor: int = 1) -> np.ndarray:
        """Room for one insertion's cascade of reinsertions (``factor`` times over)."""
        return np.empty((factor * ((self.height + 3) * (self.reinsert_count + 1) + 1), 2), np.int64)

    def _insert_entry(self, entry, box, target_level):
        self._prepare(extra_nodes=(self.height + 3) * (self.reinsert_count + 2))
        rstar_insert(self._tree(), entry, target_level, self._rule(), (self._log, self._stats), self._queue())

    def _build(self, slots):
        if len(slots) == 0:
            return
        extra = 2 * len(slots) // max(1, self.min_entries) + (self.height + 3) * (self.reinsert_count + 2)
        done = 0
        while done < len(slots):  # the kernel stops early when it needs more nodes or a longer queue
            self._prepare(extra_nodes=extra)
            extra = self.nodes.capacity
            done = _insert_slots(self._tree(), slots, done, self._rule(), (self._log, self._stats), self._queue(2))

    @property
    def reinsertions(self) -> int:
        """Entries reinserted by forced reinsertion since the tree was made."""
        return int(self._stats[STAT_REINSERTED])

    def __repr__(self):
        return (f"RStarTree(n={len(self)}, M={self.max_entries}, m={self.min_entries}, "
                f"p={self.reinsert_count}, height={self.height}, nodes={self.nodes.n_nodes()})")

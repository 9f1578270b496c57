"""The R*-tree: Guttman's R-tree with three better decisions (Beckmann et al. 1990).

Same nodes, same queries, same deletion as :class:`~lessons_lib.structures.rtree.RTree`;
what changes is *where* entries go:

1. **ChooseSubtree.** Just above the target level (for elements: in a node
   whose children are leaves) pick the child whose *overlap* with its
   siblings grows least; higher up, least area enlargement as in Guttman.
2. **Split.** Sort the ``M + 1`` entries along each axis (by lower, then by
   upper edge) and try every distribution with at least ``m`` per side. The
   split axis is the one with the smallest total *margin* (perimeter) over its
   distributions (square nodes); on it, the distribution with the least
   *overlap* between the two groups wins (ties: least total area).
3. **Forced reinsertion.** The first time a level overflows during one
   insertion, instead of splitting, remove the ~30 % of entries whose centres
   lie farthest from the node's centre and insert them again (closest first):
   the tree gets a chance to reorganise before it commits to a split.

Source: N. Beckmann, H.-P. Kriegel, R. Schneider, B. Seeger, "The R*-tree: an
efficient and robust access method for points and rectangles", SIGMOD 1990.
"""
from __future__ import annotations

import numpy as np

from ..base import register
from ..core.jit import njit
from ..core.params import check_int, check_number
from .rtree import (
    RTree,
    box_area,
    add_entry,
    alloc_node,
    apply_split,
    enlarge_path,
    entry_boxes,
    grow_root,
    height_of,
    log_split,
    room_left,
)
from .rtree_nodes import recompute_box

__all__ = ["RStarTree", "rstar_split"]


# --------------------------------------------------------------------------
# ChooseSubtree: least overlap enlargement just above the target level
# --------------------------------------------------------------------------
@njit
def _overlap(b, i, x0, y0, x1, y1):
    w = min(b[i, 2], x1) - max(b[i, 0], x0)
    h = min(b[i, 3], y1) - max(b[i, 1], y0)
    return w * h if (w > 0.0 and h > 0.0) else 0.0


@njit
def _choose_subtree(root, target_level, e, box, level, count, child):
    v = root
    while level[v] > target_level:
        best = -1
        if level[v] == target_level + 1:  # children are at the target level: least overlap enlargement
            best_ov = np.inf
            best_en = np.inf
            best_a = np.inf
            n = count[v]
            for t in range(n):
                c = child[v, t]
                x0, y0 = min(box[c, 0], e[0]), min(box[c, 1], e[1])
                x1, y1 = max(box[c, 2], e[2]), max(box[c, 3], e[3])
                d_ov = 0.0
                for u in range(n):
                    if u != t:
                        o = child[v, u]
                        d_ov += _overlap(box, o, x0, y0, x1, y1) - _overlap(box, o, box[c, 0], box[c, 1], box[c, 2], box[c, 3])
                a = box_area(box[c, 0], box[c, 1], box[c, 2], box[c, 3])
                en = box_area(x0, y0, x1, y1) - a
                if d_ov < best_ov or (d_ov == best_ov and (en < best_en or (en == best_en and a < best_a))):
                    best, best_ov, best_en, best_a = c, d_ov, en, a
        else:  # least area enlargement, ties: smaller area
            best_en = np.inf
            best_a = np.inf
            for t in range(count[v]):
                c = child[v, t]
                a = box_area(box[c, 0], box[c, 1], box[c, 2], box[c, 3])
                en = box_area(min(box[c, 0], e[0]), min(box[c, 1], e[1]), max(box[c, 2], e[2]), max(box[c, 3], e[3])) - a
                if en < best_en or (en == best_en and a < best_a):
                    best, best_en, best_a = c, en, a
        v = best
    return v


# --------------------------------------------------------------------------
# Split: axis by least total margin, distribution by least overlap
# --------------------------------------------------------------------------
@njit
def _prefix_suffix(b, order):
    """Bounding boxes of the first ``i + 1`` (prefix) and of the last ``k - i`` (suffix) entries in ``order``."""
    k = order.shape[0]
    pre = np.empty((k, 4))
    suf = np.empty((k, 4))
    for t in range(k):
        i = order[t]
        if t == 0:
            pre[t] = b[i]
        else:
            pre[t, 0] = min(pre[t - 1, 0], b[i, 0])
            pre[t, 1] = min(pre[t - 1, 1], b[i, 1])
            pre[t, 2] = max(pre[t - 1, 2], b[i, 2])
            pre[t, 3] = max(pre[t - 1, 3], b[i, 3])
    for t in range(k - 1, -1, -1):
        i = order[t]
        if t == k - 1:
            suf[t] = b[i]
        else:
            suf[t, 0] = min(suf[t + 1, 0], b[i, 0])
            suf[t, 1] = min(suf[t + 1, 1], b[i, 1])
            suf[t, 2] = max(suf[t + 1, 2], b[i, 2])
            suf[t, 3] = max(suf[t + 1, 3], b[i, 3])
    return pre, suf


@njit
def _rstar_split(b, m):
    """Group 0/1 of each entry by the R* split."""
    k = b.shape[0]
    best_axis = 0
    best_margin = np.inf
    for ax in range(2):
        s = 0.0
        for key in range(2):
            order = np.argsort(b[:, ax + 2 * key], kind="mergesort")
            pre, suf = _prefix_suffix(b, order)
            for n0 in range(m, k - m + 1):
                p, q = pre[n0 - 1], suf[n0]
                s += 2 * ((p[2] - p[0]) + (p[3] - p[1]) + (q[2] - q[0]) + (q[3] - q[1]))
        if s < best_margin:
            best_margin, best_axis = s, ax
    best_ov = np.inf
    best_ar = np.inf
    best_order = np.arange(k)
    best_n0 = m
    for key in range(2):
        order = np.argsort(b[:, best_axis + 2 * key], kind="mergesort")
        pre, suf = _prefix_suffix(b, order)
        for n0 in range(m, k - m + 1):
            p, q = pre[n0 - 1], suf[n0]
            w = min(p[2], q[2]) - max(p[0], q[0])
            h = min(p[3], q[3]) - max(p[1], q[1])
            ov = w * h if (w > 0 and h > 0) else 0.0
            ar = box_area(p[0], p[1], p[2], p[3]) + box_area(q[0], q[1], q[2], q[3])
            if ov < best_ov or (ov == best_ov and ar < best_ar):
                best_ov, best_ar, best_order, best_n0 = ov, ar, order, n0
    group = np.zeros(k, np.int64)
    for t in range(best_n0, k):
        group[best_order[t]] = 1
    return group


def rstar_split(boxes, min_entries: int) -> np.ndarray:
    """The R* split of ``(k, 4)`` entry boxes into groups 0/1, each of at least ``min_entries``.

    Raises ``ValueError`` for fewer than 2 boxes or ``min_entries`` outside ``[1, k // 2]``.
    O(k log k) for the sorts plus O(k) per distribution.
    """
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    if len(b) < 2:
        raise ValueError(f"a split needs at least 2 boxes, got {len(b)}")
    return _rstar_split(b, check_int("min_entries", min_entries, 1, len(b) // 2))


# --------------------------------------------------------------------------
# Insert with overflow treatment (forced reinsertion once per level)
# --------------------------------------------------------------------------
@njit
def _rstar_insert(entry, target_level, M, m, p, box, level, count, parent, child, meta, free, leaf_of,
                  elem_boxes, log, stats, qe, ql):
    """Insert ``entry`` at ``target_level``, and whatever forced reinsertion takes out, from a queue."""
    qe[0] = entry
    ql[0] = target_level
    head, tail = 0, 1
    done = 0  # bit L set: level L already had its forced reinsertion during this insertion
    while head < tail:
        ent, tl = qe[head], ql[head]
        head += 1
        e = (elem_boxes[ent] if tl == 0 else box[ent]).copy()
        if meta[0] < 0:
            meta[0] = alloc_node(0, box, level, count, parent, meta, free)
        v = _choose_subtree(meta[0], tl, e, box, level, count, child)
        add_entry(v, ent, box, level, count, parent, child, leaf_of)
        enlarge_path(v, e, box, parent)
        while count[v] > M:
            if p > 0 and v != meta[0] and not (done >> level[v]) & 1:
                done |= 1 << level[v]
                k = count[v]
                b = entry_boxes(v, box, level, count, child, elem_boxes)
                cx, cy = 0.5 * (box[v, 0] + box[v, 2]), 0.5 * (box[v, 1] + box[v, 3])
                d = (0.5 * (b[:, 0] + b[:, 2]) - cx) ** 2 + (0.5 * (b[:, 1] + b[:, 3]) - cy) ** 2
                order = np.argsort(d, kind="mergesort")
                ents = child[v, :k].copy()
                count[v] = 0
                for t in range(k - p):
                    add_entry(v, ents[order[t]], box, level, count, parent, child, leaf_of)
                u = v
                while u >= 0:  # the node shrank: exact boxes up to the root
                    recompute_box(u, box, level, count, child, elem_boxes)
                    u = parent[u]
                for t in range(k - p, k):  # "close reinsert": nearest of the removed first
                    qe[tail] = ents[order[t]]
                    ql[tail] = level[v]
                    tail += 1
                stats[2] += p
                break
            b = entry_boxes(v, box, level, count, child, elem_boxes)
            group = _rstar_split(b, m)
            nn = apply_split(v, group, box, level, count, parent, child, meta, free, leaf_of, elem_boxes)
            log_split(log, stats, level[v], v, nn, b, -1, -1)
            if v == meta[0]:
                grow_root(v, nn, box, level, count, parent, child, meta, free, leaf_of, elem_boxes)
                break
            add_entry(parent[v], nn, box, level, count, parent, child, leaf_of)
            v = parent[v]


@njit
def _rstar_insert_many(slots, start, M, m, p, box, level, count, parent, child, meta, free, leaf_of, elem_boxes,
                       log, stats, qe, ql):
    """Insert ``slots[start:]``; stop early (returning the index reached) when nodes or queue run short."""
    for i in range(start, slots.shape[0]):
        h = height_of(level, meta)
        if room_left(level, meta) < (h + 3) * (p + 2) or qe.shape[0] < (h + 3) * (p + 1) + 1:
            return i
        stats[0] = 0
        _rstar_insert(slots[i], 0, M, m, p, box, level, count, parent, child, meta, free, leaf_of, elem_boxes,
                      log, stats, qe, ql)
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
    TypeError, ValueError
        Bad parameters.

    Notes
    -----
    ChooseSubtree costs O(M^2) at the level above the target (overlap of each
    candidate with its siblings); the split O(M log M). Forced reinsertion
    makes an insert cost up to ``p`` more inserts, in exchange for less
    overlap: fewer node visits per query. Removal is Guttman's CondenseTree,
    with orphans reinserted by the R* insert.

    References
    ----------
    N. Beckmann, H.-P. Kriegel, R. Schneider, B. Seeger, "The R*-tree: an
    efficient and robust access method for points and rectangles", Proc. ACM
    SIGMOD 1990, pp. 322-331.
    """

    def __init__(self, *, world=None, max_entries: int = 16, min_entries: int | None = None,
                 reinsert_fraction: float = 0.3):
        M = check_int("max_entries", max_entries, 2)
        super().__init__(world=world, max_entries=M, min_entries=min_entries)
        self.reinsert_fraction = check_number("reinsert_fraction", reinsert_fraction, 0.0, 0.5)
        self.reinsert_count = min(int(round(self.reinsert_fraction * M)), M + 1 - self.min_entries)
        self.split = "rstar"

    def _queue(self):
        n = (self.height + 3) * (self.reinsert_count + 1) + 1
        return np.empty(n, np.int64), np.empty(n, np.int64)

    def _insert_entry(self, entry, box, target_level):
        self._prepare(extra_nodes=(self.height + 3) * (self.reinsert_count + 2))
        qe, ql = self._queue()
        _rstar_insert(entry, target_level, self.max_entries, self.min_entries, self.reinsert_count, *self._args(),
                      self.leaf_of, self.elements.boxes, self._log, self._stats, qe, ql)

    def _build(self, slots):
        if len(slots) == 0:
            return
        extra = 2 * len(slots) // max(1, self.min_entries) + 64
        done = 0
        while done < len(slots):  # the kernel stops early when it needs more nodes
            self._prepare(extra_nodes=extra)
            extra = self.nodes.capacity
            qe, ql = self._queue()
            qe, ql = np.empty(2 * len(qe), np.int64), np.empty(2 * len(ql), np.int64)
            done = _rstar_insert_many(slots, done, self.max_entries, self.min_entries, self.reinsert_count,
                                      *self._args(), self.leaf_of, self.elements.boxes, self._log, self._stats, qe, ql)

    @property
    def reinsertions(self) -> int:
        """Entries reinserted by forced reinsertion since the tree was made."""
        return int(self._stats[2])

    def __repr__(self):
        return (f"RStarTree(n={len(self)}, M={self.max_entries}, m={self.min_entries}, "
                f"p={self.reinsert_count}, height={self.height}, nodes={self.nodes.n_nodes()})")

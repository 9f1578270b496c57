"""Searching the tree structures of lessons 09-10: the pruned query, the self-join, nearest neighbours.

The kernels every tree of :mod:`~lessons_lib.structures.rtree_nodes` answers
with, whatever made its nodes (:class:`~lessons_lib.structures.rtree.RTree`,
:class:`~lessons_lib.structures.rstar_tree.RStarTree`,
:class:`~lessons_lib.structures.bulk_rtree.BulkRTree`,
:class:`~lessons_lib.structures.kdtree.KDTree`). The node arrays, their
layout and the scale-safe distance keys are in
:mod:`~lessons_lib.structures.rtree_nodes`; the tree's quality per level and
its invariants in :mod:`~lessons_lib.structures.rtree_quality`.

The steps
---------
1. **Search** ([Guttman1984]; the kernel :func:`search`, called by
   :func:`query_with_visits`): enter a child only when its bounds meet the
   query, so pruning happens at every level (lesson 09, sections 1 and 4,
   count the nodes it enters).
2. **Pairs** (:func:`tree_pairs`): the tree joined with itself, descending
   pairs of nodes whose bounds meet.
3. **Nearest neighbours** (:func:`tree_nearest`): branch and bound over the
   node bounds, distances compared by their keys
   (:func:`~lessons_lib.structures.rtree_nodes.distance_key`) so their order
   holds at any scale.

Kernels take the node tuple ``nd = NodeArrays.arrays`` and unpack it in one
line; boxes are closed ``[xmin, ymin, xmax, ymax]`` (touching counts).
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps, rows_overlap
from ..core.buffers import grow
from ..core.jit import njit
from .rtree_nodes import ROOT, NodeArrays, distance_key, farther

__all__ = ["search", "query_with_visits", "tree_pairs", "tree_nearest"]


# --------------------------------------------------------------------------
# Query: enter a child only when its bounds intersect the query
# --------------------------------------------------------------------------
@njit
def search(nd, elem_boxes, q):
    """Guttman's Search: slots whose boxes intersect ``q`` and the number of nodes visited.

    ``nd`` is the node tuple, ``elem_boxes`` the ``(s, 4)`` float64 element
    boxes by slot, ``q`` a ``(4,)`` float64 closed box; returns the slots
    (int64) and the visits. Depth-first with an explicit stack. A node is
    pushed only if its box intersects ``q``, so every visited node is one
    whose bounds meet the query: pruning happens at every level, not only at
    the leaves.
    """
    box, level, count, parent, child, meta, free = nd
    q0, q1, q2, q3 = q[XMIN], q[YMIN], q[XMAX], q[YMAX]
    out = np.empty(16, np.int64)
    k = 0
    visits = 0
    root = meta[ROOT]
    if root < 0 or not row_overlaps(box, root, q0, q1, q2, q3):
        return out[:0], visits
    stack = np.empty(64, np.int64)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        visits += 1
        src = elem_boxes if level[v] == 0 else box
        for t in range(count[v]):
            c = child[v, t]
            if not row_overlaps(src, c, q0, q1, q2, q3):
                continue
            if level[v] == 0:
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k] = c
                k += 1
            else:
                if top == stack.shape[0]:
                    stack = grow(stack, top)
                stack[top] = c
                top += 1
    return out[:k].copy(), visits


def query_with_visits(nodes: NodeArrays, elem_boxes: np.ndarray, box) -> tuple[np.ndarray, int]:
    """Slots intersecting ``box`` and how many nodes the search entered (:func:`search` on the node arrays).

    Parameters
    ----------
    nodes : NodeArrays
    elem_boxes : numpy.ndarray, shape (s, 4), float64
        The element table's boxes, indexed by slot.
    box : numpy.ndarray, shape (4,), float64
        A validated closed query box.

    Returns
    -------
    slots : numpy.ndarray of int64
    visits : int
        Nodes whose entries were examined (each one's bounds meet the query).

    Notes
    -----
    O(visits * fan-out). In a good tree ``visits`` is close to the height plus
    the number of leaves holding answers; overlap between siblings adds more.
    """
    slots, visits = search(nodes.arrays, elem_boxes, np.asarray(box, np.float64))
    return slots, int(visits)


# --------------------------------------------------------------------------
# Pairs: a self-join of the tree with itself
# --------------------------------------------------------------------------
@njit
def _put(buf, k, a, b):
    """``buf[k] = (a, b)`` in a growable ``(cap, 2)`` int64 buffer; returns the buffer (grown if it was full)."""
    if k == buf.shape[0]:
        buf = grow(buf, k)
    buf[k, 0] = a
    buf[k, 1] = b
    return buf


@njit
def _pairs_kernel(nd, eb):
    """Every intersecting pair of slots, by walking pairs of nodes whose bounds meet.

    Starts from ``(root, root)``. A pair of leaves compares their elements
    (a leaf with itself: each unordered pair once). A pair of the same inner
    node is opened into the pairs ``(c_i, c_j), i <= j`` of its children whose
    bounds meet; a pair of different nodes descends the higher one (both when
    they are at the same level), keeping only children whose bounds meet the
    other side. Every element lives in one leaf, so each pair of elements is
    reported exactly once.
    """
    box, level, count, parent, child, meta, free = nd
    out = np.empty((64, 2), np.int64)
    k = 0
    root = meta[ROOT]
    if root < 0:
        return out[:0]
    todo = np.empty((64, 2), np.int64)  # node pairs whose bounds meet
    todo[0, 0] = root
    todo[0, 1] = root
    top = 1
    while top > 0:
        top -= 1
        a = todo[top, 0]
        b = todo[top, 1]
        if level[a] == 0 and level[b] == 0:  # two leaves (or one with itself): compare elements
            same = a == b
            for i in range(count[a]):
                s = child[a, i]
                if not same and not rows_overlap(eb, s, box, b):
                    continue
                for j in range(i + 1 if same else 0, count[b]):
                    t = child[b, j]
                    if rows_overlap(eb, s, eb, t):
                        if k == out.shape[0]:
                            out = grow(out, k)
                        out[k, 0] = s
                        out[k, 1] = t
                        k += 1
        elif a == b:  # one inner node with itself: each child with itself and with its later siblings
            n = count[a]
            for i in range(n):
                ci = child[a, i]
                if count[ci] == 0:
                    continue
                todo = _put(todo, top, ci, ci)
                top += 1
                for j in range(i + 1, n):
                    cj = child[a, j]
                    if rows_overlap(box, ci, box, cj):
                        todo = _put(todo, top, ci, cj)
                        top += 1
        elif level[a] > level[b]:  # descend the higher node
            for i in range(count[a]):
                ci = child[a, i]
                if rows_overlap(box, ci, box, b):
                    todo = _put(todo, top, ci, b)
                    top += 1
        elif level[b] > level[a]:
            for j in range(count[b]):
                cj = child[b, j]
                if rows_overlap(box, cj, box, a):
                    todo = _put(todo, top, a, cj)
                    top += 1
        else:  # two different inner nodes at one level: descend both
            for i in range(count[a]):
                ci = child[a, i]
                if not rows_overlap(box, ci, box, b):
                    continue
                for j in range(count[b]):
                    cj = child[b, j]
                    if rows_overlap(box, cj, box, ci):
                        todo = _put(todo, top, ci, cj)
                        top += 1
    return out[:k].copy()


def tree_pairs(nodes: NodeArrays, elem_boxes: np.ndarray) -> np.ndarray:
    """``(k, 2)`` int64 slot pairs whose boxes intersect, each unordered pair once.

    Notes
    -----
    A simultaneous descent of the tree against itself (the "spatial join" of
    Brinkhoff, Kriegel and Seeger 1993, on one tree). Cost: the node pairs
    whose bounds meet, plus ``O(fan-out^2)`` tests per pair of leaves that meet.
    """
    return _pairs_kernel(nodes.arrays, elem_boxes)


# --------------------------------------------------------------------------
# Nearest neighbours: branch and bound over the node bounds
# --------------------------------------------------------------------------
@njit
def _keep_if_better(out_slots, out_d, out_e, out_m, m, k, ids, s, e, mm, d):
    """Insert slot ``s`` at distance ``d`` (key ``(e, mm)``) into the sorted ``k`` best of row ``m``.

    Distances are compared by their keys (:func:`distance_key`), so their
    order holds at every scale; equal keys: smaller id first.
    """
    last = out_slots[m, k - 1]
    # an empty place (slot -1) takes any box, even one at distance inf
    if last >= 0 and (farther(e, mm, out_e[m, k - 1], out_m[m, k - 1])
                      or (e == out_e[m, k - 1] and mm == out_m[m, k - 1] and ids[s] > ids[last])):
        return
    j = k - 1
    while j > 0 and (out_slots[m, j - 1] < 0 or farther(out_e[m, j - 1], out_m[m, j - 1], e, mm)
                     or (out_e[m, j - 1] == e and out_m[m, j - 1] == mm and ids[out_slots[m, j - 1]] > ids[s])):
        out_d[m, j] = out_d[m, j - 1]
        out_e[m, j] = out_e[m, j - 1]
        out_m[m, j] = out_m[m, j - 1]
        out_slots[m, j] = out_slots[m, j - 1]
        j -= 1
    out_d[m, j] = d
    out_e[m, j] = e
    out_m[m, j] = mm
    out_slots[m, j] = s


@njit
def _nearest_kernel(nd, elem_boxes, ids, points, k, out_slots, out_d):
    """Fill ``out_slots[m, :k]`` and ``out_d[m, :k]`` for every point; return nodes visited.

    Depth-first branch and bound (Roussopoulos, Kelley and Vincent 1995): keep
    the k best so far sorted by (distance, id); enter a node only if its box is
    no farther than the current k-th best; push the children farthest first so
    the nearest is explored first. Work arrays are allocated once per call.
    """
    box, level, count, parent, child, meta, free = nd
    width = child.shape[1]
    stack = np.empty(64 * width, np.int64)
    se = np.empty(64 * width, np.int64)  # each stacked node's distance key (exponent, mantissa)
    sm = np.empty(64 * width, np.float64)
    ce = np.empty(width, np.int64)
    cm = np.empty(width, np.float64)
    cn = np.empty(width, np.int64)
    out_e = np.empty((points.shape[0], k), np.int64)  # the k best's keys, as out_d holds their distances
    out_m = np.empty((points.shape[0], k), np.float64)
    visits = 0
    root = meta[ROOT]
    for m in range(points.shape[0]):
        px, py = points[m, 0], points[m, 1]
        for j in range(k):
            out_slots[m, j] = -1
            out_d[m, j] = np.inf
            out_e[m, j] = 1 << 40  # farther than any distance
            out_m[m, j] = 1.0
        if root < 0:
            continue
        top = 1
        stack[0] = root
        se[0], sm[0], _ = distance_key(box, root, px, py)
        while top > 0:
            top -= 1
            v = stack[top]
            if farther(se[top], sm[top], out_e[m, k - 1], out_m[m, k - 1]):
                continue
            visits += 1
            if level[v] == 0:
                for t in range(count[v]):
                    s = child[v, t]
                    e, mm, d = distance_key(elem_boxes, s, px, py)
                    _keep_if_better(out_slots, out_d, out_e, out_m, m, k, ids, s, e, mm, d)
                continue
            n = 0
            for t in range(count[v]):  # children sorted farthest first (insertion sort, n <= fan-out)
                c = child[v, t]
                e, mm, _ = distance_key(box, c, px, py)
                if farther(e, mm, out_e[m, k - 1], out_m[m, k - 1]):
                    continue
                j = n
                while j > 0 and farther(e, mm, ce[j - 1], cm[j - 1]):
                    ce[j] = ce[j - 1]
                    cm[j] = cm[j - 1]
                    cn[j] = cn[j - 1]
                    j -= 1
                ce[j] = e
                cm[j] = mm
                cn[j] = c
                n += 1
            if top + n > stack.shape[0]:
                stack = grow(stack, top, top + n)
                se = grow(se, top, top + n)
                sm = grow(sm, top, top + n)
            for j in range(n):
                stack[top] = cn[j]
                se[top] = ce[j]
                sm[top] = cm[j]
                top += 1
    return visits


def tree_nearest(nodes: NodeArrays, elem_boxes: np.ndarray, ids: np.ndarray, points: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Slots of the ``k`` boxes nearest each point, their distances, and nodes visited.

    ``points`` is ``(m, 2)`` float64, validated by the caller; ``ids`` (by slot)
    breaks ties between equal distances (smaller id first). Rows are padded with
    slot -1 and distance inf when fewer than ``k`` boxes are stored.
    """
    slots = np.empty((len(points), k), np.int64)
    dist = np.empty((len(points), k), np.float64)
    visits = _nearest_kernel(nodes.arrays, elem_boxes, ids, np.ascontiguousarray(points, np.float64), k, slots, dist)
    return slots, dist, int(visits)


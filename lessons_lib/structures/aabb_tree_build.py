"""The dynamic AABB tree's bulk load and rebuild: a top-down, binned surface-area build.

Lesson 11, section 4 (the fresh top-down build that one-by-one insertion is
measured against) and the appendix on Box2D's rebuild: the kernels behind
``DynamicAABBTree.from_boxes``,
:meth:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree.rebuild` and
the rebuild that ``update_many`` makes once refits have worn the tree down
(:func:`~lessons_lib.structures.dynamic_aabb_tree.update_leaves`). The node
table and the steps that change the tree one leaf at a time are in
:mod:`~lessons_lib.structures.aabb_tree_nodes`.

The steps
---------
1. the leaves: :func:`make_leaves` (a leaf per slot, with its fat box, not yet
   in a tree) or :func:`all_leaves` (the leaves of the tree as it is);
2. :func:`build_over_leaves`: free every internal node, then cut the run of
   leaves in two (:func:`split_range`: the binned surface area heuristic, or
   the middle of the centres) until single leaves remain; boxes and heights are
   set bottom-up;
3. :func:`internal_cost`: the tree's cost, which the tree's wear record starts
   from after each build.

References
----------
[MacDonald1990] the surface area heuristic; [box2d] Box2D's
``b2DynamicTree_Rebuild`` (``b2PartitionMid``, ``b2PartitionSAH``).
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.buffers import grow
from ..core.jit import njit
from .aabb_tree_nodes import (BOX, ELEMENT, HEIGHT, META, NULL, ROOT, USED, alloc_node, free_node, node_cost,
                              perimeter_cost, refit, set_fat_box)

__all__ = ["BINS", "BIN_COUNT", "BIN_XMIN", "BIN_YMIN", "BIN_XMAX", "BIN_YMAX", "MIN_SPREAD",
           "make_leaves", "all_leaves", "build_over_leaves", "split_range", "internal_cost"]

#: Bins per axis of the top-down surface-area build.
BINS = 16
#: Columns of the build's ``bins`` array ``(BINS, 5)`` float64: the boxes in the bin, then the bounds of their
#: boxes (``[inf, inf, -inf, -inf]`` for an empty bin).
BIN_COUNT, BIN_XMIN, BIN_YMIN, BIN_XMAX, BIN_YMAX = 0, 1, 2, 3, 4
#: Centres whose half spread is below this are cut in the middle of their run, not binned
#: (so that ``BINS / spread`` stays finite).
MIN_SPREAD = 1e-300


@njit
def make_leaves(nd, leaf_of, eb, slots, margin):
    """A leaf per slot (fat box: exact +- ``margin``), not yet in a tree; returns them (int32)."""
    box = nd[BOX]
    leaves = np.empty(slots.shape[0], np.int32)
    for i in range(slots.shape[0]):
        s = slots[i]
        v = alloc_node(nd)
        nd[ELEMENT][v] = s
        leaf_of[s] = v
        set_fat_box(box, v, eb, s, 0.0, 0.0, margin)
        leaves[i] = v
    return leaves


@njit
def all_leaves(nd):
    """Every leaf node in use, in node order (int32)."""
    height, meta = nd[HEIGHT], nd[META]
    n = 0
    for v in range(meta[USED]):
        n += height[v] == 0
    out = np.empty(n, np.int32)
    n = 0
    for v in range(meta[USED]):
        if height[v] == 0:
            out[n] = v
            n += 1
    return out


@njit
def build_over_leaves(nd, leaves, sah):
    """Build the internal nodes of a tree over ``leaves`` (int32 leaf nodes, fat boxes set), top down.

    Every internal node of the current tree is freed first (the leaves stay
    where they are, with their fat boxes). The leaves' boxes and centres are
    copied into contiguous arrays, and each run of them is cut in two by
    :func:`split_range` (binned surface area cuts with ``sah``, else the
    middle of the centres) until single leaves remain; boxes and heights are
    then set bottom-up. O(n log n): per level, one pass over the rows (two
    with ``sah``). Needs ``len(leaves) - 1`` free nodes (those just freed).
    """
    box, parent, child1, child2, height, element, meta = nd
    for v in range(meta[USED]):
        if height[v] > 0:
            free_node(nd, v)
    n = leaves.shape[0]
    meta[ROOT] = NULL
    if n == 0:
        return
    ids = leaves.copy()
    lb = np.empty((n, 4), np.float64)
    lc = np.empty((n, 2), np.float64)
    cb = np.empty((64, 4), np.float64)  # per task: the bounds of its centres
    cb[0, XMIN], cb[0, YMIN], cb[0, XMAX], cb[0, YMAX] = np.inf, np.inf, -np.inf, -np.inf
    for i in range(n):
        v = ids[i]
        for t in range(4):
            lb[i, t] = box[v, t]
        lc[i, 0] = 0.5 * box[v, XMIN] + 0.5 * box[v, XMAX]  # halves: no overflow
        lc[i, 1] = 0.5 * box[v, YMIN] + 0.5 * box[v, YMAX]
        cb[0, XMIN], cb[0, YMIN] = min(cb[0, XMIN], lc[i, 0]), min(cb[0, YMIN], lc[i, 1])
        cb[0, XMAX], cb[0, YMAX] = max(cb[0, XMAX], lc[i, 0]), max(cb[0, YMAX], lc[i, 1])
    bins = np.empty((BINS, 5), np.float64)  # BIN_COUNT, then the bounds BIN_XMIN .. BIN_YMAX
    child_cb = np.empty((2, 4), np.float64)
    tasks = np.empty((64, 4), np.int64)  # lo, hi, parent node, which child (1 or 2)
    order = np.empty(max(n - 1, 1), np.int32)  # internal nodes in the order made: parents before children
    made = 0
    tasks[0, 0], tasks[0, 1], tasks[0, 2], tasks[0, 3] = 0, n, NULL, 0
    top = 1
    while top > 0:
        top -= 1
        lo, hi, p, side = tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3]
        if hi - lo == 1:
            v = ids[lo]
        else:
            v = alloc_node(nd)
            height[v] = 1
            order[made] = v
            made += 1
            mid = split_range(lb, lc, ids, lo, hi, cb[top], sah, bins, child_cb)
            if top + 2 > tasks.shape[0]:
                tasks = grow(tasks, top)
                cb = grow(cb, top)
            tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3] = lo, mid, v, 1
            tasks[top + 1, 0], tasks[top + 1, 1], tasks[top + 1, 2], tasks[top + 1, 3] = mid, hi, v, 2
            for t in range(4):
                cb[top, t] = child_cb[0, t]
                cb[top + 1, t] = child_cb[1, t]
            top += 2
        parent[v] = p
        if p == NULL:
            meta[ROOT] = v
        elif side == 1:
            child1[p] = v
        else:
            child2[p] = v
    for t in range(made - 1, -1, -1):
        refit(nd, order[t])


@njit
def split_range(lb, lc, ids, lo, hi, cb, sah, bins, child_cb):
    """Reorder rows ``lo:hi`` of the build arrays into two non-empty runs; return where the second starts.

    ``lb``, ``lc``, ``ids``: the leaves' boxes ``(n, 4)``, centres ``(n, 2)``
    and nodes ``(n,)``, moved together. ``cb`` is the bounding box of the
    run's centres; the cut is across the axis where they spread most:

    * ``sah``: the centres go into ``BINS`` equal bins (``bins``: per bin
      the count and the bounds of the boxes); of the ``BINS - 1`` cuts
      between bins, the one of least ``p(left) * n_left + p(right) * n_right``
      wins: the binned surface area heuristic ([MacDonald1990]);
    * otherwise the middle of the centres' bounds (Box2D's rebuild, [box2d]):
      one pass, no bins.

    Centres that cannot be told apart (identical, or closer than
    ``MIN_SPREAD``) are cut in the middle of the run. One pass moves the rows
    and writes the bounds of each run's centres into ``child_cb[0]`` and
    ``child_cb[1]``. Comparisons are made on halves of the coordinates, so
    nothing overflows.
    """
    ex, ey = 0.5 * cb[XMAX] - 0.5 * cb[XMIN], 0.5 * cb[YMAX] - 0.5 * cb[YMIN]  # half spreads: finite
    axis, c0, ext = (0, cb[XMIN], ex) if ex >= ey else (1, cb[YMIN], ey)
    if not ext > MIN_SPREAD:  # identical centres: any cut is as good, take the middle
        mid = lo + (hi - lo) // 2
        for side in range(2):
            for t in range(4):
                child_cb[side, t] = cb[t]
        return mid
    half_cut = 0.5 * c0 + 0.5 * ext  # the middle, in halves
    if sah:
        scale = BINS / ext  # bins per half unit: finite since ext > MIN_SPREAD
        for b in range(BINS):
            bins[b, BIN_COUNT] = 0.0
            bins[b, BIN_XMIN], bins[b, BIN_YMIN] = np.inf, np.inf
            bins[b, BIN_XMAX], bins[b, BIN_YMAX] = -np.inf, -np.inf
        for i in range(lo, hi):
            b = min(int((0.5 * lc[i, axis] - 0.5 * c0) * scale), BINS - 1)
            bins[b, BIN_COUNT] += 1.0
            bins[b, BIN_XMIN] = min(bins[b, BIN_XMIN], lb[i, XMIN])
            bins[b, BIN_YMIN] = min(bins[b, BIN_YMIN], lb[i, YMIN])
            bins[b, BIN_XMAX] = max(bins[b, BIN_XMAX], lb[i, XMAX])
            bins[b, BIN_YMAX] = max(bins[b, BIN_YMAX], lb[i, YMAX])
        # right to left: right_cost[j] is the cost of bins j+1 .. BINS-1 (-1 when they are empty)
        right_cost = np.empty(BINS, np.float64)
        x0, y0, x1, y1, n = np.inf, np.inf, -np.inf, -np.inf, 0.0
        for j in range(BINS - 1, 0, -1):
            n += bins[j, BIN_COUNT]
            x0, y0 = min(x0, bins[j, BIN_XMIN]), min(y0, bins[j, BIN_YMIN])
            x1, y1 = max(x1, bins[j, BIN_XMAX]), max(y1, bins[j, BIN_YMAX])
            right_cost[j - 1] = perimeter_cost(x0, y0, x1, y1) * n if n > 0.0 else -1.0
        best, best_cost = -1, np.inf
        x0, y0, x1, y1, n = np.inf, np.inf, -np.inf, -np.inf, 0.0
        for j in range(BINS - 1):
            n += bins[j, BIN_COUNT]
            x0, y0 = min(x0, bins[j, BIN_XMIN]), min(y0, bins[j, BIN_YMIN])
            x1, y1 = max(x1, bins[j, BIN_XMAX]), max(y1, bins[j, BIN_YMAX])
            if n == 0.0 or right_cost[j] < 0.0:
                continue
            cost = perimeter_cost(x0, y0, x1, y1) * n + right_cost[j]
            if best < 0 or cost < best_cost:
                best, best_cost = j, cost
        if best >= 0:
            half_cut = 0.5 * c0 + (best + 1) / scale  # the boundary after bin ``best``
    lx0, ly0, lx1, ly1 = np.inf, np.inf, -np.inf, -np.inf
    rx0, ry0, rx1, ry1 = np.inf, np.inf, -np.inf, -np.inf
    i, j = lo, hi - 1
    while i <= j:  # partition: centres below the cut first, the three arrays together
        if 0.5 * lc[i, axis] < half_cut:
            lx0, ly0 = min(lx0, lc[i, 0]), min(ly0, lc[i, 1])
            lx1, ly1 = max(lx1, lc[i, 0]), max(ly1, lc[i, 1])
            i += 1
        else:
            rx0, ry0 = min(rx0, lc[i, 0]), min(ry0, lc[i, 1])
            rx1, ry1 = max(rx1, lc[i, 0]), max(ry1, lc[i, 1])
            ids[i], ids[j] = ids[j], ids[i]
            for t in range(4):
                lb[i, t], lb[j, t] = lb[j, t], lb[i, t]
            for t in range(2):
                lc[i, t], lc[j, t] = lc[j, t], lc[i, t]
            j -= 1
    if i == lo or i == hi:  # rounding put every centre on one side: the middle, with the run's bounds
        for side in range(2):
            for t in range(4):
                child_cb[side, t] = cb[t]
        return lo + (hi - lo) // 2
    child_cb[0, XMIN], child_cb[0, YMIN], child_cb[0, XMAX], child_cb[0, YMAX] = lx0, ly0, lx1, ly1
    child_cb[1, XMIN], child_cb[1, YMIN], child_cb[1, XMAX], child_cb[1, YMAX] = rx0, ry0, rx1, ry1
    return i


@njit
def internal_cost(nd):
    """The tree's cost: the sum of its internal nodes' perimeter costs, an eighth of the SAH cost.

    Each node's term is :func:`~lessons_lib.structures.aabb_tree_nodes.perimeter_cost`, summed over the
    internal nodes in use.
    """
    box, height, meta = nd[BOX], nd[HEIGHT], nd[META]
    total = 0.0
    for v in range(meta[USED]):
        if height[v] > 0:
            total += node_cost(box, v)
    return total


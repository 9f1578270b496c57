"""The dynamic AABB tree's searches: query, pairs, and the move buffer.

Lesson 11, sections 1 and 5: the kernels of
:class:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree` that read the
tree without changing its shape (its node table and the steps that change it are
in :mod:`~lessons_lib.structures.aabb_tree_nodes`, its bulk load in
:mod:`~lessons_lib.structures.aabb_tree_build`).

The steps, by the lesson's sections
-----------------------------------
* **query** (section 1, "A tree of boxes, any size, anywhere"):
  :func:`query_tree`: descend where node boxes meet the query, test the exact
  boxes of the elements at the leaves;
* **pairs** (section 1: a pair search queries the tree with each element's
  box): :func:`tree_pairs`: query the tree with each element's exact box, only
  in the subtrees to the right of its path, so each pair is found once
  (:func:`query_subtrees`, the one descent of both pair searches);
* the **move buffer** (section 5, "Fat boxes and the margin"):
  :func:`mark_moved`, :func:`incremental_pairs`, :func:`empty_move_buffer`:
  when few elements changed since the last ``pairs()``, only they query the
  tree and the other pairs are kept.

Why the answers are exact
-------------------------
A leaf's fat box contains its element's exact box, and every node's box
contains its children's boxes. So if two exact boxes meet, the exact box of one
meets the fat box of the other and every box on the way to it: the descent
cannot miss it. The descent only *proposes* candidates; the closed test on the
exact boxes of the element table decides. Fat boxes and the tree's shape change
speed, never answers.

References
----------
[Catto2019] E. Catto, "Dynamic bounding volume hierarchies", GDC 2019; [box2d]
Box2D's ``dynamic_tree.c`` and its broad phase's move buffer.
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps
from ..core.buffers import grow
from ..core.jit import njit
from .aabb_tree_nodes import LIVE, NULL, ROOT, USED

__all__ = ["query_tree", "tree_pairs", "query_subtrees", "mark_moved", "mark_slots", "incremental_pairs",
           "empty_move_buffer"]

# ==========================================================================
# Section 1: the query
# ==========================================================================
@njit
def query_tree(nd, eb, q0, q1, q2, q3):
    """Slots whose exact boxes meet the closed box ``(q0, q1, q2, q3)``, and the nodes visited.

    Depth first with an explicit stack: a node is entered only when its box
    meets the query; at a leaf, the element's exact box decides. The same
    descent as :func:`query_subtrees`, kept apart because a query counts the
    nodes it visits and the pair searches do not: that one counter in the
    pair descent made ``pairs()`` about 5 % slower (100,000 moving boxes).
    """
    box, parent, child1, child2, height, element, meta = nd
    out = np.empty(16, np.int64)
    k = 0
    visits = 0
    root = meta[ROOT]
    if root == NULL or not row_overlaps(box, root, q0, q1, q2, q3):
        return out[:0], visits
    stack = np.empty(height[root] + 2, np.int32)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        visits += 1
        if height[v] == 0:
            s = element[v]
            if row_overlaps(eb, s, q0, q1, q2, q3):
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k] = s
                k += 1
            continue
        c1, c2 = child1[v], child2[v]
        if row_overlaps(box, c1, q0, q1, q2, q3):
            stack[top] = c1
            top += 1
        if row_overlaps(box, c2, q0, q1, q2, q3):
            stack[top] = c2
            top += 1
    return out[:k].copy(), visits


# ==========================================================================
# Section 1: the pairs, each element's exact box against the subtrees to its right
# ==========================================================================
@njit
def tree_pairs(nd, eb):
    """``(k, 2)`` int64 slot pairs whose exact boxes meet, each unordered pair once.

    Every pair of leaves has one lowest common ancestor A, with one leaf under
    A's first child and the other under its second. So for each leaf L it is
    enough to walk from L to the root and, wherever L's path comes up through
    a first child, query the second child's subtree with L's **exact** box:
    each pair is found exactly once, with no filter and no set of pairs seen.
    The second children met on the way up (those whose boxes meet L's) are
    stacked first, then searched in one descent (:func:`query_subtrees`).
    The descent enters a node only when its box meets L's exact box, and
    reports a candidate only when the two exact boxes meet (closed: touching
    counts).
    """
    box, parent, child1, child2, height, element, meta = nd
    root = meta[ROOT]
    out = np.empty((max(16, meta[LIVE]), 2), np.int64)
    k = 0
    if root == NULL:
        return out[:0].copy()
    stack = np.empty(2 * (height[root] + 2), np.int32)  # the subtrees to the right, then their descent
    no_buffer = np.zeros(0, np.bool_)
    for leaf in range(meta[USED]):
        if height[leaf] != 0:
            continue
        s = element[leaf]
        x0, y0, x1, y1 = eb[s, XMIN], eb[s, YMIN], eb[s, XMAX], eb[s, YMAX]
        top = 0
        v = leaf
        p = parent[v]
        while p != NULL:  # up the path: the second child wherever it comes up through a first child
            if child1[p] == v:
                r = child2[p]
                if row_overlaps(box, r, x0, y0, x1, y1):
                    stack[top] = r
                    top += 1
            v = p
            p = parent[v]
        out, k = query_subtrees(nd, eb, stack, top, s, x0, y0, x1, y1, out, k, no_buffer, False)
    return out[:k].copy()


@njit(inline="always")
def query_subtrees(nd, eb, stack, top, s, x0, y0, x1, y1, out, k, moved, from_move_buffer):
    """Append a row ``(s, t)`` to ``out[k:]`` for each slot ``t`` under the nodes ``stack[:top]`` whose exact box
    meets slot ``s``'s exact box ``[x0, y0, x1, y1]``; return ``(out, k)`` (``out`` grown if need be).

    The descent of :func:`query_tree`, depth first from the nodes on ``stack`` (int32; the caller
    has tested their boxes, and left room for the tree's height + 2 more): a node is entered only
    when its box meets the query, and at a leaf the closed test on the exact boxes decides. With
    ``from_move_buffer`` (:func:`incremental_pairs`, ``moved`` the buffer's flags), ``t == s`` and
    a moved ``t < s`` are skipped, since ``t`` reports that pair itself; without it ``moved`` is not
    read. The one descent of :func:`tree_pairs` and :func:`incremental_pairs`, inlined by numba.
    """
    box, parent, child1, child2, height, element, meta = nd
    while top > 0:
        top -= 1
        u = stack[top]
        if height[u] == 0:
            t = element[u]
            if from_move_buffer and (t == s or (moved[t] and t < s)):
                continue
            if row_overlaps(eb, t, x0, y0, x1, y1):
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k, 0] = s
                out[k, 1] = t
                k += 1
            continue
        c1, c2 = child1[u], child2[u]
        if row_overlaps(box, c1, x0, y0, x1, y1):
            stack[top] = c1
            top += 1
        if row_overlaps(box, c2, x0, y0, x1, y1):
            stack[top] = c2
            top += 1
    return out, k

# --------------------------------------------------------------------------
# Section 5: the move buffer, pairs again only for what moved
# --------------------------------------------------------------------------
@njit(inline="always")
def mark_moved(moved, move_list, move_count, s):
    """Put slot ``s`` in the move buffer (once): its pairs must be found again by the next ``pairs()``."""
    if not moved[s]:
        moved[s] = True
        move_list[move_count[0]] = s
        move_count[0] += 1


@njit
def mark_slots(moved, move_list, move_count, s):
    """:func:`mark_moved` for one slot (an insert or a remove)."""
    mark_moved(moved, move_list, move_count, s)


@njit
def incremental_pairs(nd, eb, alive, cache, moved, move_list, move_count):
    """The pairs of now, from the pairs of the last call and the move buffer.

    A pair of two elements that have not changed since the last ``pairs()``
    is still a pair (and no new pair can join two of them), so the cached
    pairs of unmoved elements are kept as they are. Each moved element still
    stored then queries the whole tree with its exact box; a pair of two
    moved elements is reported by the smaller slot only. Cost: one pass
    over the cached pairs plus one query per moved element: the move buffer
    of Box2D's broad phase ([box2d], [Catto2019]), which queries only the
    proxies that moved.
    """
    box, parent, child1, child2, height, element, meta = nd
    out = np.empty((max(16, cache.shape[0] + 4 * move_count[0]), 2), np.int64)
    k = 0
    for r in range(cache.shape[0]):
        a, b = cache[r, 0], cache[r, 1]
        if not (moved[a] or moved[b]):
            out[k, 0] = a
            out[k, 1] = b
            k += 1
    root = meta[ROOT]
    if root == NULL:
        return out[:k].copy()
    stack = np.empty(height[root] + 2, np.int32)
    for i in range(move_count[0]):
        s = move_list[i]
        if not alive[s]:
            continue
        x0, y0, x1, y1 = eb[s, XMIN], eb[s, YMIN], eb[s, XMAX], eb[s, YMAX]
        if row_overlaps(box, root, x0, y0, x1, y1):
            stack[0] = root
            out, k = query_subtrees(nd, eb, stack, 1, s, x0, y0, x1, y1, out, k, moved, True)
    return out[:k].copy()


@njit
def empty_move_buffer(moved, move_list, move_count):
    """Forget the move buffer (after ``pairs()``)."""
    for i in range(move_count[0]):
        moved[move_list[i]] = False
    move_count[0] = 0


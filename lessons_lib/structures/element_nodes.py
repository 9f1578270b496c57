"""The compact quadtree's element nodes: one linked list of slots per leaf, threaded through an index array.

An element may lie in several leaves of the compact quadtree
(:mod:`lessons_lib.structures.quadtree`), so it cannot be its own list node
(as in :mod:`~lessons_lib.structures.slot_lists`): each (element, leaf) pair
gets an **element node**, a row ``[NEXT, ELEMENT]`` of the ``(e, 2)`` int32
array ``enodes``: the next element node of the same leaf (-1 ends the list)
and the element's slot in the shared element table, where its box is stored
once. A leaf's row of ``nodes`` holds the first element node of its list
(``FIRST``) and its length (``COUNT``), see
:mod:`~lessons_lib.structures.quad_nodes`. Element nodes are handed out and
taken back one by one by the indexed free list
(:mod:`lessons_lib.core.freelist`).

The kernels take the compact tree's arrays as one tuple ``tree = (nodes,
node_meta, enodes, enode_meta)``.

References
----------
The quadtree answer set [SO-quadtree]: element vs element node, index lists,
free lists.
"""
from __future__ import annotations

import numpy as np

from ..core.freelist import HEAD, USED, fl_erase, fl_take
from ..core.jit import njit
from .quad_nodes import BRANCH, COUNT, FIRST, ROW_COUNT, ROW_NODE, node_rows

__all__ = ["NEXT", "ELEMENT", "push", "unlink", "compact_element_nodes", "leaf_order"]

#: Columns of an element node: the next element node of the same leaf (-1 ends the list), the element's slot.
NEXT, ELEMENT = 0, 1


@njit(inline="always")
def push(tree, node, e):
    """Push an element node for slot ``e`` on leaf ``node``'s list (room is there)."""
    nodes, _, enodes, emeta = tree
    en = fl_take(enodes, emeta, 1)
    enodes[en, NEXT] = nodes[node, FIRST]
    enodes[en, ELEMENT] = e
    nodes[node, FIRST] = en
    nodes[node, COUNT] += 1


@njit
def unlink(tree, leaf, slot):
    """Take ``slot``'s element node out of ``leaf``'s list and free it; 1 if found, else 0."""
    nodes, _, enodes, emeta = tree
    prev = -1
    it = nodes[leaf, FIRST]
    while it != -1:
        if enodes[it, ELEMENT] == slot:
            if prev == -1:
                nodes[leaf, FIRST] = enodes[it, NEXT]
            else:
                enodes[prev, NEXT] = enodes[it, NEXT]
            fl_erase(enodes, emeta, it)
            nodes[leaf, COUNT] -= 1
            return 1
        prev = it
        it = enodes[it, NEXT]
    return 0


@njit
def compact_element_nodes(tree, max_depth):
    """Rewrite the element nodes leaf by leaf in tree order, with no holes; returns the new array.

    After a bulk load the lists of consecutive leaves then sit next to each
    other, so the leaf walk of :func:`~lessons_lib.structures.quadtree.leaf_pairs` reads the array front to back.
    The leaves' ``FIRST`` fields are updated; ``enode_meta`` becomes
    ``[count, -1]`` (no holes).
    """
    nodes, nmeta, enodes, emeta = tree
    rows = node_rows(nodes, max_depth, nmeta[USED])
    out = np.empty((max(1, emeta[USED]), 2), dtype=np.int32)
    m = 0
    for r in range(rows.shape[0]):
        node = rows[r, ROW_NODE]
        it = nodes[node, FIRST]
        if rows[r, ROW_COUNT] == BRANCH or it == -1:
            continue
        nodes[node, FIRST] = m
        while it != -1:
            out[m, ELEMENT] = enodes[it, ELEMENT]
            it = enodes[it, NEXT]
            out[m, NEXT] = m + 1 if it != -1 else -1
            m += 1
    emeta[USED] = m
    emeta[HEAD] = -1
    return out[:max(1, m)].copy()


@njit
def leaf_order(tree, max_depth, n_slots):
    """Slots in order of first appearance when walking the leaves in tree order."""
    nodes, nmeta, enodes, _ = tree
    rows = node_rows(nodes, max_depth, nmeta[USED])
    seen = np.zeros(n_slots, dtype=np.bool_)
    out = np.empty(n_slots, dtype=np.int64)
    m = 0
    for r in range(rows.shape[0]):
        it = nodes[rows[r, ROW_NODE], FIRST] if rows[r, ROW_COUNT] != BRANCH else -1
        while it != -1:
            e = enodes[it, ELEMENT]
            if not seen[e]:
                seen[e] = True
                out[m] = e
                m += 1
            it = enodes[it, NEXT]
    return out[:m].copy()

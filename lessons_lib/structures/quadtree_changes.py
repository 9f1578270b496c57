"""The compact quadtree's layout and how it changes: insert and split (with the rules), remove, update.

The data layout of :class:`~lessons_lib.structures.quadtree.Quadtree` and the
kernels that change its tree as elements come, go and move, each where a
lesson teaches it:

* the layout: lesson 05, section 1 ("The layout, field by field"), with the
  integer cells of section 2 ("Why no rectangles in the nodes"; the cell
  frame is in :mod:`~lessons_lib.structures.quad_nodes`) and the free lists of
  section 3 ("Free lists", in :mod:`lessons_lib.core.freelist`);
* insert and split: lesson 04, section 1 ("Subdivision by capacity"), section
  2 (a box goes into every leaf it touches) and section 7 (exercise 2, the
  split); lesson 05 has no section of its own for them, it stores the same
  steps in flat arrays. The rule *split only if it separates* is lesson 04's
  section 3 ("Why a maximum depth, and three answers to big boxes"); the rule
  *split only if it thins* is this library's own, taught in no lesson;
* remove: lesson 05, section 4 ("Remove, then deferred cleanup"), its first
  half (the cleanup is in :mod:`~lessons_lib.structures.quadtree`);
* update: lesson 05, section 5 ("Moving: skip the work when the leaves do not
  change").

The kernels that tidy the tree (cleanup, lesson 05 section 4) and read it
(pairs, section 7; query), and the class behind the common interface, are in
:mod:`~lessons_lib.structures.quadtree`. Lesson 05 rebuilds the quadtree of
lesson 04 (:mod:`lessons_lib.structures.naive_quadtree`) the way the quadtree
answer set [SO-quadtree] does it, so that 100,000 moving elements fit a frame
budget: flat numpy arrays of ints, small numba kernels.

Data layout
-----------
=============  ============  ======================================================
array          shape, dtype  meaning
=============  ============  ======================================================
``nodes``      (c, 2) int32  ``[FIRST, COUNT]`` per node (8 bytes): a leaf's first
                             element node and its count, or a branch's first child
                             and ``BRANCH`` (children TL, TR, BL, BR contiguous; see
                             :mod:`~lessons_lib.structures.quad_nodes`).
``enodes``     (e, 2) int32  element nodes ``[NEXT, ELEMENT]``, one per (element,
                             leaf it lies in), chained per leaf (-1 ends a list);
                             ``ELEMENT`` is the slot in the shared element table,
                             where each box is stored once (see
                             :mod:`~lessons_lib.structures.element_nodes`).
``_seen``      (slots/8,) u1 "already reported" marks, one bit per slot (slot
                             ``s`` is bit ``s & 7`` of byte ``s >> 3``), zero
                             between calls.
=============  ============  ======================================================

``nodes`` and ``enodes`` are indexed free lists (:mod:`lessons_lib.core.freelist`):
element nodes are reused one by one, children in blocks of four. Kernels take
the four arrays as one tuple ``tree = (nodes, node_meta, enodes, enode_meta)``
and the cell frame as ``cells = (ox, oy, sx, sy, max_depth)``. No node stores
its rectangle: a descent carries ``(node, depth, lx, ly)`` in integer cells.

Operations
----------
* insert: push an element node on every leaf the box's cell range overlaps. A
  leaf over ``capacity`` (above ``max_depth``) **splits** when two rules allow
  it (:func:`_split_pays`, one pass over its list):

  - **split only if it separates**: not when its elements all have the same
    cell range inside the leaf (identical boxes, or boxes covering it): every
    child would get all of them, at every depth;
  - **split only if it thins**: not when the split would copy most elements
    into most children instead of sharing them out: at least half of them
    cover the whole leaf (each would be copied into every leaf below it,
    separating from nothing), or two children would each receive all of
    them (long boxes along a midline, boxes sharing one point), or the
    children would hold more than ``2 count + capacity`` element nodes
    together. Without it, 1,200 distinct boxes sharing one point built
    21,500 nodes and one world-sized box among 40 small ones
    (``capacity=1, max_depth=12``) 25,000 instead of 145.

  A leaf the rules keep whole simply grows: memory stays near-linear however
  many elements coincide or overlap, and a split of ``count`` elements never
  makes more than ``2 count + capacity`` element nodes. The children of a
  split are judged once each, holding all they received.
* remove: unlink the element nodes from the leaves the box overlaps; an
  over-full leaf it leaves is judged again (it may split now that, say, a
  covering box has gone), so every over-full leaf above ``max_depth`` is one
  the rules keep whole.
* update: skipped when the new box keeps its cells, or lies in the same
  leaves; else unlink from the old leaves and insert from the new ones (a
  batch unlinks every mover first, then inserts them, then judges the
  over-full leaves they left).
* descents (query, remove, insert, update) first walk down the single path
  while the box lies inside one child, then branch out where it straddles.

:func:`insert` (one element) and :func:`insert_slots` (a bulk load) run a
work list, :func:`run_insert_tasks`, which stops when an array is full, for
the caller to grow that array and call again. :func:`run_insert_tasks_to_end`
(in the last section of this module) is the one helper that grows the arrays and
resumes it: :func:`insert`, :func:`resplit` and :func:`update` reach
:func:`run_insert_tasks` only through it.

References
----------
The quadtree answer set [SO-quadtree]: the node representation, no stored
AABBs, contiguous children, element vs element node, free lists. R. A. Finkel
and J. L. Bentley, "Quad trees", *Acta Informatica* 4 (1974).
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.buffers import grow
from ..core.freelist import HEAD, USED, fl_erase, fl_grow, fl_take
from ..core.jit import njit
from .element_nodes import ELEMENT, NEXT, push, unlink
from .quad_nodes import (BL, BR, BRANCH, COUNT, FIRST, ROW_DEPTH, ROW_LX, ROW_LY, ROW_NODE, TL, TR, cell_box,
                         child_corner, leaves_overlapping, narrowest_node, put, put_children, take)

__all__ = [
    "insert", "insert_slots", "run_insert_tasks", "split", "merged_stays_whole", "remove", "resplit",
    "cells_changed", "update", "run_insert_tasks_to_end",
]

#: Why :func:`run_insert_tasks` stopped: done, or which array is full (the caller grows it and resumes).
DONE, NEED_TASKS, NEED_ENODES, NEED_NODES = 0, 1, 2, 3

# ==========================================================================
# Insert and split (lesson 04, sections 1, 2 and 7)
# ==========================================================================
@njit(inline="always")
def insert(tree, cells, capacity, boxes, slot, tasks):
    """Insert element ``slot`` (its box is ``boxes[slot]``) into every leaf its cell range overlaps.

    Lesson 04, sections 1 and 2: from the root down into every child the box
    touches; a leaf over ``capacity`` splits if the rules say so. The descent
    starts at the deepest node that holds the whole range
    (:func:`~lessons_lib.structures.quad_nodes.narrowest_node`), as one task
    of the work list :func:`run_insert_tasks`, run to the end by
    :func:`run_insert_tasks_to_end` (which grows whatever array is full).
    Returns ``(tree, tasks)``: the arrays may be grown copies.
    """
    cx0, cy0, cx1, cy1 = cell_box(cells, boxes[slot, XMIN], boxes[slot, YMIN], boxes[slot, XMAX], boxes[slot, YMAX])
    node, depth, lx, ly = narrowest_node(tree[0], cells[4], cx0, cy0, cx1, cy1)  # the root's task, walked down
    put(tasks, 0, node, depth, lx, ly, slot)
    return run_insert_tasks_to_end(tree, cells, capacity, boxes, tasks, 1)


@njit
def insert_slots(tree, cells, capacity, boxes, slots):
    """Insert each of ``slots`` in turn (a bulk load). Returns the tree (its arrays may be grown copies)."""
    tasks = np.empty((64, 5), dtype=np.int64)
    for k in range(slots.shape[0]):
        tree, tasks = insert(tree, cells, capacity, boxes, slots[k], tasks)
    return tree


#: The element column of a task that only asks "does this leaf split now?": a split pushes one per child,
#: below its elements' tasks, so that each child is judged once, with all it received.
CHECK = -1


@njit(inline="always")
def _quiet(e):
    """The element column of a task that puts ``e`` into leaves without judging them (a split's elements)."""
    return -e - 2


@njit
def run_insert_tasks(tree, cells, capacity, boxes, tasks, top):
    """Run the insert work list ``tasks[:top]`` until it is empty or an array is full: the descent of :func:`insert`.

    A task ``(node, depth, lx, ly, element)`` means "put this element into
    every leaf under this node that its cell range overlaps". A branch
    replaces its task by tasks on the children the range overlaps; a leaf
    gets an element node, and a leaf over ``capacity`` splits if the rules
    say so (:func:`_split_pays`): its elements become tasks on it, now a
    branch, marked :func:`_quiet` (routed without judging), below which one
    :data:`CHECK` task per child judges that child once it holds them all
    (one pass over its list, not one per element it receives). Before a
    task is taken, the room it needs is checked; when an array is full,
    returns ``(top, NEED_...)`` with the work list intact, for the caller to
    grow that array and call again. Returns ``(top, DONE)`` when the work is
    done.
    """
    nodes, nmeta, enodes, emeta = tree
    max_depth = cells[4]
    while top > 0:
        t = top - 1
        node, depth, lx, ly, e = take(tasks, t)
        if e == CHECK:
            if nodes[node, COUNT] > capacity and depth < max_depth and _split_pays(tree, cells, boxes, node, depth,
                                                                                  lx, ly, capacity):
                need = _room_to_split(tree, tasks, t, node)
                if need != DONE:
                    return top, need
                top = split(tree, node, depth, lx, ly, max_depth, tasks, t)
            else:
                top = t
            continue
        s = e if e >= 0 else -e - 2
        if nodes[node, COUNT] == BRANCH:
            if t + 4 > tasks.shape[0]:
                return top, NEED_TASKS
            cx0, cy0, cx1, cy1 = cell_box(cells, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX])
            top = put_children(tasks, t, nodes[node, FIRST], depth, lx, ly, max_depth, cx0, cy0, cx1, cy1, e)
            continue
        need = _room_to_push(tree, tasks, t, node, depth, capacity, max_depth, e >= 0)
        if need != DONE:
            return top, need
        top = t
        push(tree, node, s)
        if e >= 0 and nodes[node, COUNT] > capacity and depth < max_depth and _split_pays(
                tree, cells, boxes, node, depth, lx, ly, capacity):
            top = split(tree, node, depth, lx, ly, max_depth, tasks, top)
    return top, DONE


@njit
def split(tree, node, depth, lx, ly, max_depth, tasks, top):
    """Turn leaf ``node`` into a branch with four empty leaves; its elements become tasks on it.

    One :data:`CHECK` task per child goes first (popped last, in tree
    order), then the elements' :func:`_quiet` tasks: the work list routes
    them into the children, then judges each child. Returns the new ``top``.
    """
    nodes, nmeta, enodes, emeta = tree
    first = fl_take(nodes, nmeta, 4)
    half = (1 << (max_depth - depth)) >> 1
    for j in (BR, BL, TR, TL):
        nodes[first + j, FIRST] = -1
        nodes[first + j, COUNT] = 0
        cx, cy = child_corner(j, lx, ly, half)
        put(tasks, top, first + j, depth + 1, cx, cy, CHECK)
        top += 1
    it = nodes[node, FIRST]
    while it != -1:
        nxt = enodes[it, NEXT]
        put(tasks, top, node, depth, lx, ly, _quiet(enodes[it, ELEMENT]))
        top += 1
        fl_erase(enodes, emeta, it)
        it = nxt
    nodes[node, FIRST] = first
    nodes[node, COUNT] = BRANCH
    return top


# ==========================================================================
# The split rules: split only if it separates (lesson 04, section 3), split only if it thins
# ==========================================================================
@njit
def _split_pays(tree, cells, boxes, node, depth, lx, ly, capacity):
    """Do the rules split the over-full leaf ``node``? One pass over its list.

    *Split only if it separates*: not when every element has the same cell
    range inside the leaf (identical boxes, or boxes covering the whole
    leaf): every child, at every depth, would receive all of them.
    *Split only if it thins*: not when the split would copy most elements
    into most children instead of sharing them out: when at least half of
    the ``n`` elements cover the whole leaf (each would be copied into every
    child and every leaf below, separating from nothing), when two or more
    children would each receive all ``n`` (long boxes along a midline, boxes
    around one point), or when the children would hold more than
    ``2 n + capacity`` element nodes together. The pass stops as soon as the
    answer is known to be no.
    """
    nodes, _, enodes, _ = tree
    size = 1 << (cells[4] - depth)
    n = nodes[node, COUNT]
    it = nodes[node, FIRST]
    a0, a1, a2, a3 = _range_in_leaf(cells, boxes, enodes[it, ELEMENT], lx, ly, size)
    separates = False
    covering, copies = 0, 0
    in_tl, in_tr, in_bl, in_br = 0, 0, 0, 0
    half = size >> 1
    mx, my = lx + half, ly + half
    while it != -1:
        r0, r1, r2, r3 = _range_in_leaf(cells, boxes, enodes[it, ELEMENT], lx, ly, size)
        separates = separates or r0 != a0 or r1 != a1 or r2 != a2 or r3 != a3
        covering, copies = _tally(covering, copies, lx, ly, size, r0, r1, r2, r3)
        if 2 * covering >= n or copies > 2 * n + capacity:
            return False
        left, right, low, high = r0 < mx, r2 >= mx, r1 < my, r3 >= my
        in_tl += 1 if left and high else 0
        in_tr += 1 if right and high else 0
        in_bl += 1 if left and low else 0
        in_br += 1 if right and low else 0
        it = enodes[it, NEXT]
    whole = (1 if in_tl == n else 0) + (1 if in_tr == n else 0) + (1 if in_bl == n else 0) + (1 if in_br == n else 0)
    return separates and whole <= 1


@njit(inline="always")
def _tally(covering, copies, lx, ly, size, r0, r1, r2, r3):
    """Add one element (its cell range ``r`` inside the node at ``(lx, ly)`` of ``size`` cells) to the counts
    of :func:`_split_pays`: elements covering the whole node, and children they would go into."""
    half = size >> 1
    mx, my = lx + half, ly + half
    if r0 == lx and r1 == ly and r2 == lx + size - 1 and r3 == ly + size - 1:
        covering += 1
    copies += ((1 if r0 < mx else 0) + (1 if r2 >= mx else 0)) * ((1 if r1 < my else 0) + (1 if r3 >= my else 0))
    return covering, copies


@njit(inline="always")
def _range_in_leaf(cells, boxes, e, lx, ly, size):
    """The cell range of ``boxes[e]`` clipped to the node at ``(lx, ly)`` of ``size`` cells."""
    cx0, cy0, cx1, cy1 = cell_box(cells, boxes[e, XMIN], boxes[e, YMIN], boxes[e, XMAX], boxes[e, YMAX])
    return max(cx0, lx), max(cy0, ly), min(cx1, lx + size - 1), min(cy1, ly + size - 1)


@njit
def merged_stays_whole(tree, cells, boxes, first, depth, lx, ly, capacity, seen):
    """Would the leaf made by merging the four leaves at ``first`` be one the rules keep whole?

    That leaf (depth ``depth``, corner ``(lx, ly)``) would hold their ``n``
    distinct elements: yes if ``n > capacity`` and :func:`_split_pays` would
    say no to them (boxes that came to cover most of it since it split, say).
    Its split is exactly these four children, so the copies a split would make
    are their element nodes, and an element covering the whole leaf lies in
    every child: only the smallest child's list needs its cell ranges. Cheap
    bounds on the counts settle most quartets without reading a list.
    ``seen`` (all zero) marks the elements met; cleared before returning.

    Asked only by the cleanup of :mod:`~lessons_lib.structures.quadtree`
    (:func:`~lessons_lib.structures.quadtree.merge_bottom_up`); it stays here,
    beside the rules, because it shares their private helpers
    (:func:`_tally`, :func:`_range_in_leaf`).
    """
    nodes, _, enodes, _ = tree
    total, most, least, j_least = 0, 0, 1 << 62, 0
    for j in range(4):
        c = nodes[first + j, COUNT]
        total += c
        most = max(most, c)
        if c < least:
            least, j_least = c, j
    if total <= capacity:
        return False  # n <= total: not over-full
    equal = True  # every non-empty child holds the same count: perhaps all the same elements
    for j in range(4):
        c = nodes[first + j, COUNT]
        equal = equal and (c == 0 or c == most)
    # With n > capacity distinct elements (n >= most): the copies rule needs total > 2 n + capacity; the
    # covered rule needs c >= n / 2 elements in all four lists, so least >= c and total >= 4 c + (n - c) >= 2.5 n;
    # the same range for all needs every non-empty list to hold all n.
    copies_rule = total > 2 * most + capacity and total > 3 * capacity + 2
    covered_rule = 2 * least >= most and 2 * total >= 5 * max(most, capacity + 1)
    two_whole = 0  # two lists as long as the longest: perhaps two children holding every element
    for j in range(4):
        two_whole += 1 if nodes[first + j, COUNT] == most else 0
    if not (copies_rule or covered_rule or (equal and most > capacity) or (two_whole >= 2 and most > capacity)):
        return False
    n = 0
    for j in range(4):
        it = nodes[first + j, FIRST]
        while it != -1:
            e = enodes[it, ELEMENT]
            if (seen[e >> 3] & (1 << (e & 7))) == 0:
                seen[e >> 3] |= 1 << (e & 7)
                n += 1
            it = enodes[it, NEXT]
    for j in range(4):  # every set bit belongs to an element of these lists
        it = nodes[first + j, FIRST]
        while it != -1:
            seen[enodes[it, ELEMENT] >> 3] = 0
            it = enodes[it, NEXT]
    if n <= capacity:
        return False
    if total > 2 * n + capacity:
        return True
    holding_all = 0  # children that would receive every element: the split of the merged leaf is these four
    for j in range(4):
        holding_all += 1 if nodes[first + j, COUNT] == n else 0
    if holding_all >= 2:
        return True
    if 2 * least < n and holding_all == 0:
        return False
    size = 1 << (cells[4] - depth)  # the covered rule, or all n in one list with perhaps the same range
    j = j_least if 2 * least >= n else (0 if nodes[first, COUNT] == n else 1 if nodes[first + 1, COUNT] == n
                                        else 2 if nodes[first + 2, COUNT] == n else 3)
    it = nodes[first + j, FIRST]
    a0, a1, a2, a3 = _range_in_leaf(cells, boxes, enodes[it, ELEMENT], lx, ly, size)
    covering, copies = 0, 0
    separates = nodes[first + j, COUNT] < n
    while it != -1:
        r0, r1, r2, r3 = _range_in_leaf(cells, boxes, enodes[it, ELEMENT], lx, ly, size)
        separates = separates or r0 != a0 or r1 != a1 or r2 != a2 or r3 != a3
        covering, copies = _tally(covering, copies, lx, ly, size, r0, r1, r2, r3)
        it = enodes[it, NEXT]
    return 2 * covering >= n or not separates


# ==========================================================================
# Remove (lesson 05, section 4)
# ==========================================================================
@njit
def remove(tree, cells, slot, b0, b1, b2, b3, stack, leaves):
    """Unlink ``slot`` (its box ``b``) from every leaf the box overlaps. Returns ``(leaves, k, unlinked)``.

    ``leaves[:k]`` are the leaves it was unlinked from (for :func:`resplit`).
    """
    cx0, cy0, cx1, cy1 = cell_box(cells, b0, b1, b2, b3)
    leaves, k = leaves_overlapping(tree[0], cells[4], cx0, cy0, cx1, cy1, stack, leaves)
    found = 0
    for i in range(k):
        found += unlink(tree, leaves[i, ROW_NODE], slot)
    return leaves, k, found


@njit
def resplit(tree, cells, capacity, boxes, leaves, k, tasks):
    """Split every leaf of ``leaves[:k]`` that the rules split now that elements have left it.

    A leaf kept whole because most of it was covered (or its children would
    have held too many copies) may split once those elements are gone; so
    every over-full leaf above ``max_depth`` is always one the rules keep
    whole, whatever the order of the operations. Rows already turned into
    branches (split meanwhile) are skipped. Returns ``(tree, tasks)``: the
    arrays may be grown copies.
    """
    max_depth = cells[4]
    for i in range(k):
        node, depth = leaves[i, ROW_NODE], leaves[i, ROW_DEPTH]
        if tree[0][node, COUNT] <= capacity or depth >= max_depth:
            continue
        put(tasks, 0, node, depth, leaves[i, ROW_LX], leaves[i, ROW_LY], CHECK)
        tree, tasks = run_insert_tasks_to_end(tree, cells, capacity, boxes, tasks, 1)
    return tree, tasks


# ==========================================================================
# Update: remove, move, re-insert, skipped when the leaves stay the same (lesson 05, section 5)
# ==========================================================================
@njit
def cells_changed(cells, boxes, slots, old):
    """Positions ``k`` (int64, ascending) whose cell range changed from ``old[k]`` to ``boxes[slots[k]]``.

    A box that keeps its cell range keeps its leaves: :func:`update` skips it
    without a descent. Kept apart from :func:`update` so that this scan over
    every moved box stays a small loop the compiler optimises on its own.
    """
    out = np.empty(slots.shape[0], dtype=np.int64)
    m = 0
    for k in range(slots.shape[0]):
        s = slots[k]
        a0, a1, a2, a3 = cell_box(cells, old[k, XMIN], old[k, YMIN], old[k, XMAX], old[k, YMAX])
        b0, b1, b2, b3 = cell_box(cells, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX])
        if a0 != b0 or a1 != b1 or a2 != b2 or a3 != b3:
            out[m] = k
            m += 1
    return out[:m]


@njit(inline="always")
def _leaf_meets(max_depth, depth, lx, ly, cx0, cy0, cx1, cy1):
    """Does the node at ``(lx, ly)``, depth ``depth``, overlap the inclusive cell range ``c``?"""
    last = (1 << (max_depth - depth)) - 1
    return lx <= cx1 and cx0 <= lx + last and ly <= cy1 and cy0 <= ly + last


@njit
def update(tree, cells, capacity, boxes, slots, old, changed, tasks):
    """Re-index ``slots[changed]``, whose boxes changed cells from ``old`` (k, 4) to ``boxes[slots]`` (written).

    ``changed`` comes from :func:`cells_changed`: the other slots keep their
    cells, hence their leaves. Pass 1 finds, in one descent over both cell
    ranges when they overlap (else one descent each), the leaves of the old
    and of the new box. An element whose new box lies in exactly the same
    leaves is skipped, unless one of them is over capacity (its range there
    may decide whether that leaf splits); every other one is unlinked from
    its old leaves (no split happens while removing, so the leaves stay
    put), and its new leaves are kept as insert tasks
    (:func:`_keep_new_leaves`). Pass 2 inserts the moved elements from their
    new leaves (:func:`_insert_from_new_leaves`). Last, the over-full leaves
    that elements left are offered to :func:`resplit`, once every element
    sits where its box is. Returns ``(tree, tasks, moved)``.
    """
    nodes, max_depth = tree[0], cells[4]
    stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    before = np.empty((16, 5), dtype=np.int64)
    after = np.empty((16, 5), dtype=np.int64)
    todo = np.empty((max(16, 2 * changed.shape[0]), 5), dtype=np.int64)  # new leaves: insert tasks
    start = np.empty(changed.shape[0] + 1, dtype=np.int64)  # element i's tasks: todo[start[i]:start[i + 1]]
    start[0] = 0
    left = np.empty((16, 5), dtype=np.int64)  # over-full leaves an element left: for resplit
    moved, m, nleft = 0, 0, 0
    for i in range(changed.shape[0]):
        k = changed[i]
        s = slots[k]
        a0, a1, a2, a3 = cell_box(cells, old[k, XMIN], old[k, YMIN], old[k, XMAX], old[k, YMAX])
        b0, b1, b2, b3 = cell_box(cells, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX])
        if a0 <= b2 and b0 <= a2 and a1 <= b3 and b1 <= a3:  # one descent over both ranges
            before, kl = leaves_overlapping(nodes, max_depth, min(a0, b0), min(a1, b1), max(a2, b2), max(a3, b3),
                                            stack, before)
            same = True
            for j in range(kl):
                node, depth, lx, ly = before[j, ROW_NODE], before[j, ROW_DEPTH], before[j, ROW_LX], before[j, ROW_LY]
                in_a = _leaf_meets(max_depth, depth, lx, ly, a0, a1, a2, a3)
                in_b = _leaf_meets(max_depth, depth, lx, ly, b0, b1, b2, b3)
                if in_a != in_b or (in_a and nodes[node, COUNT] > capacity):
                    same = False
                    break
            if same:
                continue
            for j in range(kl):
                if _leaf_meets(max_depth, before[j, ROW_DEPTH], before[j, ROW_LX], before[j, ROW_LY], a0, a1, a2, a3):
                    unlink(tree, before[j, ROW_NODE], s)
                    left, nleft = _keep_over_full(nodes, capacity, max_depth, before, j, left, nleft)
            todo, m = _keep_new_leaves(todo, m, before, kl, s, max_depth, b0, b1, b2, b3)
        else:
            before, ka = leaves_overlapping(nodes, max_depth, a0, a1, a2, a3, stack, before)
            after, kb = leaves_overlapping(nodes, max_depth, b0, b1, b2, b3, stack, after)
            same = ka == kb
            if same:
                for j in range(ka):
                    node = before[j, ROW_NODE]
                    if node != after[j, ROW_NODE] or nodes[node, COUNT] > capacity:
                        same = False
                        break
            if same:
                continue
            for j in range(ka):
                unlink(tree, before[j, ROW_NODE], s)
                left, nleft = _keep_over_full(nodes, capacity, max_depth, before, j, left, nleft)
            todo, m = _keep_new_leaves(todo, m, after, kb, s, max_depth, b0, b1, b2, b3)
        moved += 1
        start[moved] = m
    tree, tasks = _insert_from_new_leaves(tree, cells, capacity, boxes, todo, start, moved, tasks)
    tree, tasks = resplit(tree, cells, capacity, boxes, left, nleft, tasks)
    return tree, tasks, moved


@njit(inline="always")
def _keep_over_full(nodes, capacity, max_depth, rows, j, left, nleft):
    """Append ``rows[j]`` (a leaf) to ``left[:nleft]`` if it is still over capacity above ``max_depth``."""
    if nodes[rows[j, ROW_NODE], COUNT] > capacity and rows[j, ROW_DEPTH] < max_depth:
        if nleft == left.shape[0]:
            left = grow(left, nleft)
        left[nleft, :] = rows[j, :]
        nleft += 1
    return left, nleft


@njit(inline="always")
def _keep_new_leaves(todo, m, rows, k, s, max_depth, b0, b1, b2, b3):
    """Append to ``todo[:m]`` an insert task for slot ``s`` on each leaf of ``rows[:k]`` that the cell range ``b``
    overlaps (its new leaves), growing ``todo`` first. Returns ``(todo, m)``."""
    if m + k > todo.shape[0]:
        todo = grow(todo, m, m + k)
    for j in range(k):
        depth, lx, ly = rows[j, ROW_DEPTH], rows[j, ROW_LX], rows[j, ROW_LY]
        if _leaf_meets(max_depth, depth, lx, ly, b0, b1, b2, b3):
            put(todo, m, rows[j, ROW_NODE], depth, lx, ly, s)
            m += 1
    return todo, m


@njit(inline="always")
def _insert_from_new_leaves(tree, cells, capacity, boxes, todo, start, moved, tasks):
    """Insert each of the ``moved`` elements from its new leaves, in turn: element ``i``'s tasks are
    ``todo[start[i]:start[i + 1]]``.

    The insert starts at those leaves instead of the root (a leaf split by an
    earlier element meanwhile is a branch by then, and the task routes the
    element to its children). Returns ``(tree, tasks)``: the arrays may be
    grown copies.
    """
    for i in range(moved):
        lo, hi = start[i], start[i + 1]
        if hi - lo > tasks.shape[0]:
            tasks = grow(tasks, 0, hi - lo)
        for j in range(hi - lo):  # reversed, so that the leaves pop in tree order
            tasks[j, :] = todo[hi - 1 - j, :]
        tree, tasks = run_insert_tasks_to_end(tree, cells, capacity, boxes, tasks, hi - lo)
    return tree, tasks


# ==========================================================================
# Growth and resume: the plumbing around insert
# ==========================================================================
@njit(inline="always")
def run_insert_tasks_to_end(tree, cells, capacity, boxes, tasks, top):
    """Run the insert work list ``tasks[:top]`` to the end, growing whatever :func:`run_insert_tasks` finds full.

    Returns ``(tree, tasks)``: the arrays may be grown copies.
    """
    while True:
        top, need = run_insert_tasks(tree, cells, capacity, boxes, tasks, top)
        if need == DONE:
            return tree, tasks
        nodes, nmeta, enodes, emeta = tree
        if need == NEED_TASKS:
            tasks = grow(tasks, top, 2 * tasks.shape[0] + 8)
        elif need == NEED_ENODES:
            enodes = fl_grow(enodes, emeta[USED] + 1)
        else:
            nodes = fl_grow(nodes, nmeta[USED] + 4)
        tree = (nodes, nmeta, enodes, emeta)


@njit(inline="always")
def _room_to_push(tree, tasks, t, node, depth, capacity, max_depth, judged):
    """``DONE`` if there is room to push one element node on leaf ``node`` and (``judged``) split it.

    Else what to grow (``NEED_...``).
    """
    nodes, nmeta, enodes, emeta = tree
    if emeta[HEAD] == -1 and emeta[USED] >= enodes.shape[0]:
        return NEED_ENODES
    if judged and nodes[node, COUNT] + 1 > capacity and depth < max_depth:
        if nmeta[HEAD] == -1 and nmeta[USED] + 4 > nodes.shape[0]:
            return NEED_NODES
        if t + nodes[node, COUNT] + 5 > tasks.shape[0]:
            return NEED_TASKS
    return DONE


@njit(inline="always")
def _room_to_split(tree, tasks, t, node):
    """``DONE`` if there is room to split leaf ``node`` with the work list at ``t``, else what to grow."""
    nodes, nmeta = tree[0], tree[1]
    if nmeta[HEAD] == -1 and nmeta[USED] + 4 > nodes.shape[0]:
        return NEED_NODES
    if t + nodes[node, COUNT] + 4 > tasks.shape[0]:
        return NEED_TASKS
    return DONE

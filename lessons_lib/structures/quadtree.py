"""The compact quadtree: 8-byte nodes, no stored rectangles, linked index lists, free lists.

Lesson 05 rebuilds the quadtree of lesson 04 (:mod:`lessons_lib.structures.naive_quadtree`)
the way the quadtree answer set [SO-quadtree] does it, so that 100,000 moving
elements fit a frame budget: flat numpy arrays of ints, small numba kernels.

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

Why the result is exact
-----------------------
The cell map is monotone, so two closed boxes that intersect at a point share
the cell of that point, hence a leaf. Leaves only *propose* candidates; the
closed float test on the element table decides. A pair is reported from one
leaf only: the one holding its reference cell ``(max(cx0_a, cx0_b),
max(cy0_a, cy0_b))``, the cell of the lower-left corner of the intersection.

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
* cleanup: a branch whose four children are leaves holding at most half of
  ``capacity`` element nodes together (:func:`~lessons_lib.structures.quad_nodes.merge_limit`;
  empty children are the common case) becomes one leaf; one level per call,
  never the root. The tree follows where the
  elements are now, not everywhere they have been: memory stays flat. While
  the leaves hold more than two element nodes per element (copies dominate),
  cleanup also merges, bottom-up in one call, every quartet whose merged leaf
  the rules would keep whole: inserts never merge, so boxes that came to
  cover a region split earlier for small ones are copied into every leaf
  there until a cleanup (a bulk load does the same at its end).
* pairs: walk the leaves in tree order and test the pairs inside each leaf.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree]: node
representation, no stored AABBs, contiguous children, deferred cleanup, element
vs element node, free lists, leaf-ordered traversal. R. A. Finkel and J. L.
Bentley, "Quad trees", *Acta Informatica* 4 (1974).
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, normalize_pairs, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps, row_overlaps
from ..core.buffers import grow
from ..core.freelist import HEAD, USED, fl_erase, fl_erase_block, fl_grow, fl_holes, fl_take
from ..core.jit import njit
from ..core.params import check_int
from ..core.scratch import ThreadScratch, on_main_thread
from .grid_cells import cell_of
from .element_nodes import ELEMENT, NEXT, compact_element_nodes, leaf_order, push, unlink
from .quad_nodes import (BL, BR, BRANCH, COUNT, FIRST, MAX_DEPTH_LIMIT, ROW_COUNT, ROW_DEPTH, ROW_LX, ROW_LY, ROW_NODE,
                         TL, TR, QuadNodes, cell_box, cell_frame, cell_rects, child_corner, leaves_overlapping,
                         merge_limit, morton_order, narrowest_node, node_rows, put, put_children, take)

__all__ = [
    "Quadtree", "NEXT", "ELEMENT", "TL", "TR", "BL", "BR", "BRANCH", "insert", "split", "remove",
    "resplit", "update", "query", "leaf_pairs", "pairs", "cleanup", "merge", "insert_slot",
    "insert_tasks", "insert_slots", "pairs_by_queries",
]

#: Why :func:`insert` stopped: done, or which array is full (the caller grows it and resumes).
DONE, NEED_TASKS, NEED_ENODES, NEED_NODES = 0, 1, 2, 3


# ==========================================================================
# Insert and split
# ==========================================================================
#: The element column of a task that only asks "does this leaf split now?": a split pushes one per child,
#: below its elements' tasks, so that each child is judged once, with all it received.
CHECK = -1


@njit(inline="always")
def _quiet(e):
    """The element column of a task that puts ``e`` into leaves without judging them (a split's elements)."""
    return -e - 2


@njit
def insert(tree, cells, capacity, boxes, tasks, top):
    """Run the insert work list ``tasks[:top]`` until it is empty or an array is full.

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


@njit
def _merged_stays_whole(tree, cells, boxes, first, depth, lx, ly, capacity, seen):
    """Would the leaf made by merging the four leaves at ``first`` be one the rules keep whole?

    That leaf (depth ``depth``, corner ``(lx, ly)``) would hold their ``n``
    distinct elements: yes if ``n > capacity`` and :func:`_split_pays` would
    say no to them (boxes that came to cover most of it since it split, say).
    Its split is exactly these four children, so the copies a split would make
    are their element nodes, and an element covering the whole leaf lies in
    every child: only the smallest child's list needs its cell ranges. Cheap
    bounds on the counts settle most quartets without reading a list.
    ``seen`` (all zero) marks the elements met; cleared before returning.
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


@njit(inline="always")
def _range_in_leaf(cells, boxes, e, lx, ly, size):
    """The cell range of ``boxes[e]`` clipped to the node at ``(lx, ly)`` of ``size`` cells."""
    cx0, cy0, cx1, cy1 = cell_box(cells, boxes[e, XMIN], boxes[e, YMIN], boxes[e, XMAX], boxes[e, YMAX])
    return max(cx0, lx), max(cy0, ly), min(cx1, lx + size - 1), min(cy1, ly + size - 1)


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


# ==========================================================================
# Remove
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
        tree, tasks = insert_tasks(tree, cells, capacity, boxes, tasks, 1)
    return tree, tasks


# ==========================================================================
# Update: remove, move, re-insert (skipped when the leaves stay the same)
# ==========================================================================
@njit
def _cells_changed(cells, boxes, slots, old):
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

    ``changed`` comes from :func:`_cells_changed`: the other slots keep their
    cells, hence their leaves. Pass 1 finds, in one descent over both cell
    ranges when they overlap (else one descent each), the leaves of the old
    and of the new box. An element whose new box lies in exactly the same
    leaves is skipped, unless one of them is over capacity (its range there
    may decide whether that leaf splits); every other one is unlinked from
    its old leaves (no split happens while removing, so the leaves stay
    put), and its new leaves are kept as insert tasks. Pass 2 runs those tasks element by element, in tree order: the
    insert starts at the new leaves instead of the root (a leaf split by an
    earlier element meanwhile is a branch by then, and the task routes the
    element to its children). Last, the over-full leaves that elements left
    are offered to :func:`resplit`, once every element sits where its box
    is. Returns ``(tree, tasks, moved)``.
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
            if m + kl > todo.shape[0]:
                todo = grow(todo, m, m + kl)
            for j in range(kl):
                node, depth, lx, ly = before[j, ROW_NODE], before[j, ROW_DEPTH], before[j, ROW_LX], before[j, ROW_LY]
                if _leaf_meets(max_depth, depth, lx, ly, a0, a1, a2, a3):
                    unlink(tree, node, s)
                    left, nleft = _keep_over_full(nodes, capacity, max_depth, before, j, left, nleft)
                if _leaf_meets(max_depth, depth, lx, ly, b0, b1, b2, b3):
                    put(todo, m, node, depth, lx, ly, s)
                    m += 1
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
            if m + kb > todo.shape[0]:
                todo = grow(todo, m, m + kb)
            for j in range(kb):
                put(todo, m, after[j, ROW_NODE], after[j, ROW_DEPTH], after[j, ROW_LX], after[j, ROW_LY], s)
                m += 1
        moved += 1
        start[moved] = m
    for i in range(moved):
        lo, hi = start[i], start[i + 1]
        if hi - lo > tasks.shape[0]:
            tasks = grow(tasks, 0, hi - lo)
        for j in range(hi - lo):  # reversed, so that the leaves pop in tree order
            tasks[j, :] = todo[hi - 1 - j, :]
        tree, tasks = insert_tasks(tree, cells, capacity, boxes, tasks, hi - lo)
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


# ==========================================================================
# Query
# ==========================================================================
@njit
def query(tree, cells, boxes, q0, q1, q2, q3, seen):
    """Slots whose boxes meet the closed box ``q``, each once (``(m,)`` int64).

    ``seen`` is the bitset of marks (all zero): an element lying in several of
    the leaves reached is reported the first time and marked; the marks are
    cleared before returning.
    """
    nodes, _, enodes, _ = tree
    max_depth = cells[4]
    cx0, cy0, cx1, cy1 = cell_box(cells, q0, q1, q2, q3)
    stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    leaves, k = leaves_overlapping(nodes, max_depth, cx0, cy0, cx1, cy1, stack, np.empty((16, 5), dtype=np.int64))
    out = np.empty(16, dtype=np.int64)
    m = 0
    for i in range(k):
        it = nodes[leaves[i, ROW_NODE], FIRST]
        while it != -1:
            e = enodes[it, ELEMENT]
            bit = 1 << (e & 7)
            if (seen[e >> 3] & bit) == 0 and row_overlaps(boxes, e, q0, q1, q2, q3):
                seen[e >> 3] |= bit
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m] = e
                m += 1
            it = enodes[it, NEXT]
    for i in range(m):  # every set bit belongs to a reported slot: clearing whole bytes is enough
        seen[out[i] >> 3] = 0
    return out[:m].copy()


# ==========================================================================
# Pairs: leaf by leaf
# ==========================================================================
@njit
def leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out):
    """Every intersecting pair, once, leaf by leaf in tree order; returns the number found.

    In each leaf the elements are copied to the scratch arrays (``g`` their
    boxes, ``gs`` their slots, ``gc`` the cell of their lower-left corner),
    then every pair is tested; a pair is kept only in the leaf holding its
    reference cell. Pairs are written to ``out`` while it has room: its rows
    are trusted only when the count returned is *below* its size (once full,
    every test writes its candidate into the last row; the caller re-runs
    with a larger ``out``). ``stack`` needs ``3 * max_depth + 1`` rows; ``g``,
    ``gs``, ``gc`` as many as the largest leaf.
    """
    nodes, _, enodes, _ = tree
    ox, oy, sx, sy, max_depth = cells
    n = 1 << max_depth
    cap = out.shape[0]
    m = 0
    put(stack, 0, 0, 0, 0, 0, 0)
    top = 1
    while top > 0:
        top -= 1
        node, depth, lx, ly, _ = take(stack, top)
        count = nodes[node, COUNT]
        if count == BRANCH:
            top = put_children(stack, top, nodes[node, FIRST], depth, lx, ly, max_depth, 0, 0, n - 1, n - 1, 0)
            continue
        if count < 2:
            continue
        it = nodes[node, FIRST]
        j = 0
        while it != -1:
            e = enodes[it, ELEMENT]
            gs[j] = e
            g[j, XMIN], g[j, YMIN], g[j, XMAX], g[j, YMAX] = boxes[e, XMIN], boxes[e, YMIN], boxes[e, XMAX], boxes[e, YMAX]
            gc[j, 0], gc[j, 1] = cell_of(boxes[e, XMIN], ox, sx, n), cell_of(boxes[e, YMIN], oy, sy, n)
            it = enodes[it, NEXT]
            j += 1
        # Both boxes overlap this leaf, so their reference cell is never beyond its far
        # edges: it lies in the leaf when it is at or above its lower-left corner.
        # Branch-free: a candidate is written, then kept only if it counts.
        for a in range(count):
            ax0, ay0, ax1, ay1 = g[a, XMIN], g[a, YMIN], g[a, XMAX], g[a, YMAX]
            acx, acy, sa = gc[a, 0], gc[a, 1], gs[a]
            for b in range(a + 1, count):
                hit = (overlaps(ax0, ay0, ax1, ay1, g[b, XMIN], g[b, YMIN], g[b, XMAX], g[b, YMAX])
                       & (max(acx, gc[b, 0]) >= lx) & (max(acy, gc[b, 1]) >= ly))
                w = m if m < cap else cap - 1
                out[w, 0] = sa
                out[w, 1] = gs[b]
                m += int(hit)
    return m


@njit
def pairs(tree, cells, boxes):
    """Every intersecting slot pair, once: ``(k, 2)`` int64 (:func:`leaf_pairs` with its scratch sized).

    The output is a guess with room to spare (two pairs per element node);
    when it is short, the walk runs again with the exact size.
    """
    nodes, _, enodes, _ = tree
    big = 16
    for i in range(nodes.shape[0]):
        big = max(big, nodes[i, COUNT])
    stack = np.empty((3 * cells[4] + 1, 5), dtype=np.int64)
    g = np.empty((big, 4), dtype=np.float64)
    gs = np.empty(big, dtype=np.int64)
    gc = np.empty((big, 2), dtype=np.int64)
    out = np.empty((2 * enodes.shape[0] + 1024, 2), dtype=np.int64)
    m = leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out)
    if m >= out.shape[0]:
        out = np.empty((m + 1, 2), dtype=np.int64)
        m = leaf_pairs(tree, cells, boxes, stack, g, gs, gc, out)
    return out[:m]


# ==========================================================================
# Cleanup: merge under-full quartets, one level per call
# ==========================================================================
@njit
def cleanup(tree, cells, capacity, boxes, limit, n_elements, seen):
    """Merge each branch whose four children are leaves holding at most ``limit`` element nodes together;
    and, while the tree holds more than two element nodes per element (``n_elements`` live), each whose
    merged leaf the rules would keep whole (:func:`_merged_stays_whole`).

    The second kind undoes splits that the elements present now would not
    have made: boxes that came to cover a region split for the small ones
    once there are copied into every leaf of it. Parents are visited before
    children, so a branch that becomes mergeable because its children merged
    waits for the next call (one level per call); while copies dominate,
    children are visited first, so that an overgrown subtree merges in one
    call. Returns the number of blocks of four freed.
    """
    nodes, nmeta = tree[0], tree[1]
    max_depth = cells[4]
    if nodes[0, COUNT] != BRANCH:
        return 0
    held = 0
    for i in range(nmeta[USED]):
        held += max(nodes[i, COUNT], 0)
    thorough = held > 2 * n_elements
    stack = np.empty((4 * max_depth + 5, 5), dtype=np.int64)
    put(stack, 0, 0, 0, 0, 0, 0)
    top, freed = 1, 0
    while top > 0:
        top -= 1
        node, depth, lx, ly, after = take(stack, top)
        first = nodes[node, FIRST]
        half = (1 << (max_depth - depth)) >> 1
        if thorough and after == 0:  # children first (post-order): a whole overgrown subtree merges in one call
            put(stack, top, node, depth, lx, ly, 1)
            top += 1
            for j in range(4):
                if nodes[first + j, COUNT] == BRANCH:
                    cx, cy = child_corner(j, lx, ly, half)
                    put(stack, top, first + j, depth + 1, cx, cy, 0)
                    top += 1
            continue
        leaves, total = 0, 0
        for j in range(4):
            count = nodes[first + j, COUNT]
            if count == BRANCH:
                if not thorough:
                    cx, cy = child_corner(j, lx, ly, half)
                    put(stack, top, first + j, depth + 1, cx, cy, 0)
                    top += 1
            else:
                leaves += 1
                total += count
        if leaves == 4 and (total <= limit or (thorough and _merged_stays_whole(tree, cells, boxes, first, depth, lx,
                                                                               ly, capacity, seen))):
            merge(tree, node, seen)
            freed += 1
    return freed


@njit
def merge(tree, node, seen):
    """Branch ``node`` (four leaf children) becomes a leaf holding their elements, each once.

    Duplicate element nodes (an element in several children) are freed; the
    children go back to the free list as one block. ``seen`` (all zero) marks
    the elements met; the marks are cleared before returning.
    """
    nodes, nmeta, enodes, emeta = tree
    first = nodes[node, FIRST]
    head, count = -1, 0
    for j in range(4):
        it = nodes[first + j, FIRST]
        while it != -1:
            nxt = enodes[it, NEXT]
            e = enodes[it, ELEMENT]
            if seen[e >> 3] & (1 << (e & 7)):
                fl_erase(enodes, emeta, it)
            else:
                seen[e >> 3] |= 1 << (e & 7)
                enodes[it, NEXT] = head
                head = it
                count += 1
            it = nxt
    it = head
    while it != -1:
        seen[enodes[it, ELEMENT] >> 3] = 0
        it = enodes[it, NEXT]
    fl_erase_block(nodes, nmeta, first, 4)
    nodes[node, FIRST] = head
    nodes[node, COUNT] = count


# ==========================================================================
# Growth and resume: the plumbing around insert
# ==========================================================================
@njit(inline="always")
def insert_slot(tree, cells, capacity, boxes, slot, tasks):
    """Insert element ``slot`` (its box is ``boxes[slot]``), growing whatever :func:`insert` finds full.

    Returns ``(tree, tasks)``: the arrays may be grown copies.
    """
    cx0, cy0, cx1, cy1 = cell_box(cells, boxes[slot, XMIN], boxes[slot, YMIN], boxes[slot, XMAX], boxes[slot, YMAX])
    node, depth, lx, ly = narrowest_node(tree[0], cells[4], cx0, cy0, cx1, cy1)  # the root's task, walked down
    put(tasks, 0, node, depth, lx, ly, slot)
    return insert_tasks(tree, cells, capacity, boxes, tasks, 1)


@njit(inline="always")
def insert_tasks(tree, cells, capacity, boxes, tasks, top):
    """Run the insert work list ``tasks[:top]`` to the end, growing whatever :func:`insert` finds full.

    Returns ``(tree, tasks)``: the arrays may be grown copies.
    """
    while True:
        top, need = insert(tree, cells, capacity, boxes, tasks, top)
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


@njit
def insert_slots(tree, cells, capacity, boxes, slots):
    """Insert each of ``slots`` in turn (a bulk load). Returns the tree (its arrays may be grown copies)."""
    tasks = np.empty((64, 5), dtype=np.int64)
    for k in range(slots.shape[0]):
        tree, tasks = insert_slot(tree, cells, capacity, boxes, slots[k], tasks)
    return tree


# ==========================================================================
# Lesson 05's comparison: pairs by one query per element
# ==========================================================================
@njit
def pairs_by_queries(tree, cells, boxes, order, seen):
    """Pairs by one query per element, in the given ``order`` of slots; a pair is kept when partner > self."""
    out = np.empty((1024, 2), dtype=np.int64)
    m = 0
    for k in range(order.shape[0]):
        s = order[k]
        for t in query(tree, cells, boxes, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX], seen):
            if t > s:
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m, 0] = s
                out[m, 1] = t
                m += 1
    return out[:m].copy()


# ==========================================================================
# The class
# ==========================================================================
@register("quadtree")
class Quadtree(QuadNodes, BroadPhase):
    """Compact index-based quadtree: 8-byte nodes, element nodes in linked index lists.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]``: anywhere, any
        aspect ratio (default the article's 800 x 600; ``from_boxes`` infers
        the boxes' bounding square). Boxes outside it are clamped to its
        border cells and still found.
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Deepest level (0 .. 30): the root is cut into ``2**max_depth`` cells
        per axis. Default 7: on lesson 05's 100,000-box scene, depth 7 (or 6)
        gave the fastest frames at every capacity, and 57 bytes per element
        against 67 at depth 8, where each box lies in about three leaves
        (``quadtree_sweep.csv``). A leaf over ``capacity`` splits only if
        that separates its elements (*split only if it separates*) and only
        if it thins (*split only if it thins*: fewer than half of them cover
        the leaf, at most one child would receive all of them, and the
        children would hold at most ``2 count + capacity`` element nodes),
        so coincident, mutually overlapping and world-covering boxes never
        drive the tree to ``max_depth``: nodes and element nodes stay
        near-linear in the number of elements at every ``capacity`` and
        ``max_depth``.

    Raises
    ------
    ValueError
        A parameter out of range or not an integer; a world whose width or
        height overflows a float, or too small for ``2**max_depth`` cells
        (the message names the world and the limit); the common errors of
        :class:`~lessons_lib.base.BroadPhase` (a bad box, a duplicate id).
    KeyError
        ``remove`` or ``update`` of an unknown id.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit; the
    world (explicit or inferred) only sizes the cells, and every derived
    quantity (cell index, scale) stays finite. Memory: 8 bytes per node, 8
    per element node (one per leaf an element lies in), 1 bit per slot of
    marks, plus the shared element table (41 bytes per slot). Time: insert,
    remove and query descend ``O(max_depth)`` levels and walk the lists of
    the leaves they touch; pairs costs ``sum over leaves of count^2 / 2`` box
    tests; cleanup visits the branches once. The attribute ``merge_limit``
    (default ``max(1, capacity // 2)``) is how many element nodes four sibling
    leaves may hold together for ``cleanup`` to merge them; 0 merges only
    empty quartets, the answer set's rule.

    References
    ----------
    The quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> qt = Quadtree(world=[0, 0, 100, 100], capacity=2)
    >>> for i, box in enumerate([[10, 10, 20, 20], [15, 15, 30, 30], [60, 60, 70, 70], [65, 5, 90, 20]]):
    ...     qt.insert(i, box)
    >>> qt.pairs().tolist()
    [[0, 1]]
    >>> qt.query([0, 0, 50, 50]).tolist()
    [0, 1]
    >>> qt.node_count(), qt.depth()
    (5, 1)
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 7):
        super().__init__(world=world)
        self.capacity = check_int("capacity", capacity, 1, 2**31 - 1)
        self.max_depth = check_int("max_depth", max_depth, 0, MAX_DEPTH_LIMIT)
        self._cells = cell_frame(self.world, self.max_depth)
        self.merge_limit = merge_limit(self.capacity)
        self.nodes = np.full((16, 2), -1, dtype=np.int32)
        self.enodes = np.full((16, 2), -1, dtype=np.int32)
        self.node_meta = np.array([0, -1], dtype=np.int64)
        self.enode_meta = np.array([0, -1], dtype=np.int64)
        self._seen = np.zeros(0, dtype=np.uint8)
        self._thread_marks = ThreadScratch()  # the marks of queries run in other threads than the main one
        self._tasks = np.empty((64, 5), dtype=np.int64)
        self._clear()

    @property
    def tree(self) -> tuple:
        """The four arrays the kernels take: ``(nodes, node_meta, enodes, enode_meta)``."""
        return self.nodes, self.node_meta, self.enodes, self.enode_meta

    def _keep(self, tree) -> None:
        """Store the (possibly grown) arrays a kernel returned."""
        self.nodes, _, self.enodes, _ = tree

    def _marks(self) -> np.ndarray:
        """The query marks, grown to one bit per slot of the element table.

        The main thread uses :attr:`_seen` (counted in :meth:`memory_bytes`);
        any other thread its own marks (:class:`~lessons_lib.core.scratch.ThreadScratch`),
        so that queries running in several threads at once never mark, or
        clear, each other's elements.
        """
        need = (self.elements.capacity + 7) // 8
        if on_main_thread():
            if len(self._seen) < need:
                self._seen = np.zeros(need, dtype=np.uint8)
            return self._seen
        seen = self._thread_marks.get("seen", lambda: np.zeros(need, dtype=np.uint8))
        if len(seen) < need:
            seen = self._thread_marks.put("seen", np.zeros(need, dtype=np.uint8))
        return seen

    # -- the hooks of BroadPhase ------------------------------------------
    def _insert(self, slot, box):
        self._keep(insert_slots(self.tree, self._cells, self.capacity, self.elements.boxes,
                                np.array([slot], dtype=np.int64)))

    def _build(self, slots):
        """Bulk load: insert in Z-order of the box centres, then lay the element nodes out leaf by leaf.

        When copies dominate (more than two element nodes per element), the
        quartets that the whole set would not have split (the first boxes
        inserted split leaves the later ones cover) are merged, as
        :meth:`cleanup` does, until none is left. The arrays are trimmed to
        what is used.
        """
        slots = morton_order(np.asarray(slots, dtype=np.int64), self.elements.boxes, self._cells)
        self._keep(insert_slots(self.tree, self._cells, self.capacity, self.elements.boxes, slots))
        while self._held() > 2 * len(self) and self._cleanup_pass() > 0:
            pass  # copies dominate: undo the splits the first elements made that the whole set would not
        self.enodes = compact_element_nodes(self.tree, self.max_depth)
        self.shrink()
        self._marks()

    def _remove(self, slot, box):
        stack = np.empty((3 * self.max_depth + 1, 5), dtype=np.int64)
        b = box.tolist()
        leaves, k, found = remove(self.tree, self._cells, int(slot), b[XMIN], b[YMIN], b[XMAX], b[YMAX], stack,
                                  np.empty((16, 5), dtype=np.int64))
        if found == 0:  # pragma: no cover - a broken invariant, never expected
            raise RuntimeError(f"slot {slot} was not found in the leaves of its box {b}")
        tree, self._tasks = resplit(self.tree, self._cells, self.capacity, self.elements.boxes, leaves, k,
                                    self._tasks)
        self._keep(tree)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.ascontiguousarray(old, dtype=np.float64).reshape(1, 4), None)

    def _update_many(self, slots, old, new):
        # slots (int64) and old (contiguous float64) come checked from BroadPhase.update_many / update
        boxes = self.elements.boxes
        changed = _cells_changed(self._cells, boxes, slots, old)
        if len(changed) == 0:
            self.last_moved = 0
            return
        tree, self._tasks, self.last_moved = update(self.tree, self._cells, self.capacity, boxes, slots, old,
                                                    changed, self._tasks)
        self._keep(tree)

    def _query(self, box):
        b = box.tolist()
        return query(self.tree, self._cells, self.elements.boxes, b[XMIN], b[YMIN], b[XMAX], b[YMAX], self._marks())

    def _pairs(self):
        return pairs(self.tree, self._cells, self.elements.boxes)

    def _cleanup(self):
        self.last_freed_blocks = self._cleanup_pass()

    def _cleanup_pass(self) -> int:
        """One level of :func:`cleanup`; returns the blocks of four freed."""
        return int(cleanup(self.tree, self._cells, self.capacity, self.elements.boxes, self.merge_limit, len(self),
                           self._marks()))

    def _held(self) -> int:
        """Element nodes in the leaves' lists (an element lying in k leaves counts k times)."""
        return int(np.maximum(self.nodes[: int(self.node_meta[USED]), COUNT], 0).sum())

    def _clear(self):
        self.node_meta[:] = (1, -1)  # node 0 (the root) is handed out for good
        self.nodes[0] = (-1, 0)
        self.enode_meta[:] = (0, -1)
        self.last_moved = 0
        self.last_freed_blocks = 0

    def _nbytes(self):
        return self.nodes.nbytes + self.enodes.nbytes + self._seen.nbytes

    # -- lesson 05's comparison --------------------------------------------
    def leaf_order(self) -> np.ndarray:
        """Slots of the stored elements in order of first appearance, walking the leaves in tree order."""
        return leaf_order(self.tree, self.max_depth, self.elements.capacity)

    def pairs_by_queries(self, order: str = "leaves") -> np.ndarray:
        """All pairs found the other way: one query per element (for lesson 05's comparison).

        Parameters
        ----------
        order : {"leaves", "slots"}
            ``"leaves"``: elements in leaf order (:meth:`leaf_order`), so
            consecutive queries descend the same paths; ``"slots"``: element
            by element in storage order, scattered over the world.

        Returns
        -------
        numpy.ndarray, shape (k, 2), int64
            The same as :meth:`pairs` (ids, ``a < b``, sorted).

        Raises
        ------
        ValueError
            An unknown ``order``.
        """
        if order == "leaves":
            seq = self.leaf_order()
        elif order == "slots":
            seq = self.elements.live_slots()
        else:
            raise ValueError(f"order must be 'leaves' or 'slots', got {order!r}")
        sp = pairs_by_queries(self.tree, self._cells, self.elements.boxes, seq, self._marks())
        return normalize_pairs(self.elements.ids[sp])

    # -- memory and inspection ---------------------------------------------
    def shrink(self) -> None:
        """Release unused capacity at the end of the node and element-node arrays (after a bulk load)."""
        self.nodes = self.nodes[: max(1, int(self.node_meta[USED]))].copy()
        self.enodes = self.enodes[: max(1, int(self.enode_meta[USED]))].copy()

    def node_table(self) -> dict[str, np.ndarray]:
        """Every live node in depth-first order, with what a descent computes for it.

        Returns
        -------
        dict of arrays, each of length m
            ``index`` (row in :attr:`nodes`), ``depth``, ``first`` and
            ``count`` (the two stored int32 fields), ``is_leaf``, and ``rect``
            (m, 4) float64 world units: *computed* from the root's rectangle,
            not stored.
        """
        rows = self.node_rows()
        idx = rows[:, ROW_NODE]
        return {"index": idx, "depth": rows[:, ROW_DEPTH], "first": self.nodes[idx, FIRST].astype(np.int64),
                "count": rows[:, ROW_COUNT], "is_leaf": rows[:, ROW_COUNT] != BRANCH,
                "rect": cell_rects(self.world, self.max_depth, rows)}

    def regions(self):
        t = self.node_table()
        return t["rect"], t["depth"]

    def leaf_elements(self, node: int) -> list[int]:
        """Slots in leaf ``node``'s list, in list order (newest first)."""
        out, it = [], int(self.nodes[node, FIRST])
        while it != -1:
            out.append(int(self.enodes[it, ELEMENT]))
            it = int(self.enodes[it, NEXT])
        return out

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: every branch's children are a block of four at ``1 + 4 k``;
        each leaf's ``count`` equals its list's length; a leaf holds more than
        ``capacity`` only at ``max_depth`` or when the rules keep it whole (all
        its elements have the same cell range inside it, or at least half of
        them cover it, or two of its children would each hold all of them, or
        its children would hold more than ``2 count + capacity`` element
        nodes); every live element is in exactly the
        leaves its cell range overlaps, once each; live and free nodes and
        element nodes partition what was handed out.
        """
        rows = self.node_rows()
        self.check_node_blocks(rows)
        live_slots = set(self.elements.live_slots().tolist())
        where: dict[int, list] = {s: [] for s in live_slots}
        used_en = set()
        for node, depth, lx, ly, count in rows.tolist():
            if count == BRANCH:
                continue
            elems = []
            it = int(self.nodes[node, FIRST])
            while it != -1:
                assert it not in used_en, f"element node {it} is in two lists"
                used_en.add(it)
                elems.append(int(self.enodes[it, ELEMENT]))
                it = int(self.enodes[it, NEXT])
            assert len(elems) == count, f"leaf {node}: count {count} but {len(elems)} element nodes"
            size = 1 << (self.max_depth - depth)
            if count > self.capacity and depth < self.max_depth:
                clipped = [(max(c[XMIN], lx), max(c[YMIN], ly), min(c[XMAX], lx + size - 1), min(c[YMAX], ly + size - 1))
                           for c in (self.cell_range(self.elements.boxes[s]) for s in elems)]
                whole = (lx, ly, lx + size - 1, ly + size - 1)
                mx, my = lx + size // 2, ly + size // 2
                copies = sum(((c[XMIN] < mx) + (c[XMAX] >= mx)) * ((c[YMIN] < my) + (c[YMAX] >= my)) for c in clipped)
                holding_all = sum(all(c[XMIN] < mx if left else c[XMAX] >= mx for c in clipped)
                                  and all(c[YMIN] < my if low else c[YMAX] >= my for c in clipped)
                                  for left in (True, False) for low in (True, False))
                kept = (len(set(clipped)) == 1 or 2 * clipped.count(whole) >= count
                        or copies > 2 * count + self.capacity or holding_all >= 2)
                assert kept, f"leaf {node} is over capacity though the rules would split it"
            for s in elems:
                assert s in live_slots, f"leaf {node} holds dead slot {s}"
                where[s].append((lx, ly, size))
        free_en = set(fl_holes(self.enodes, self.enode_meta))
        assert not (free_en & used_en), "a free element node is in a leaf list"
        assert len(free_en) + len(used_en) == int(self.enode_meta[USED]), "element nodes leaked"
        self.check_leaf_cover(rows, where)

"""The compact quadtree: 8-byte nodes, no stored rectangles, linked index lists, free lists.

Lesson 05 rebuilds the quadtree of lesson 04 (:mod:`lessons_lib.structures.naive_quadtree`)
the way the quadtree answer set [SO-quadtree] does it, so
that 100,000 moving elements fit a frame budget. Everything is a flat numpy
array of ints, and the hot loops are small numba kernels over those arrays.

Data layout
-----------
=================  ===============  ==================================================
array              shape, dtype     meaning
=================  ===============  ==================================================
``nodes``          (c, 2) int32     ``[first, count]`` per node (8 bytes):
                                    a **leaf** has ``count >= 0`` elements and
                                    ``first`` = its first element node (-1: none);
                                    a **branch** has ``count == -1`` and ``first`` =
                                    its first child; the four children are the
                                    contiguous nodes ``first + 0 .. first + 3``
                                    (top-left, top-right, bottom-left, bottom-right,
                                    y upwards). Node 0 is the root.
``enodes``         (e, 2) int32     element nodes ``[next, element]``: one per
                                    (element, leaf) it lies in, chained per leaf
                                    (``next == -1`` ends the list); ``element`` is
                                    the element's slot in the shared table.
element table      (slots)          ``BroadPhase.elements``: id and rectangle of
                                    each element, stored **once** however many
                                    leaves it lies in.
``_seen``          (slots/8,) u1    query's "already reported" marks, one **bit**
                                    per slot (slot ``s`` is bit ``s & 7`` of byte
                                    ``s >> 3``), reset after each query.
=================  ===============  ==================================================

``nodes`` and ``enodes`` are indexed free lists (:mod:`lessons_lib.core.freelist`):
freed element nodes are reused one by one, freed children in blocks of four.

No node stores its rectangle
----------------------------
Only the root's rectangle (the ``world``) is kept. The tree works in **integer
cell coordinates**: the root is cut into ``2**max_depth`` columns and rows, and
a coordinate maps to ``floor((x - xmin) * 2**max_depth / width)`` clamped to
``0 .. 2**max_depth - 1`` (a true floor, then a clamp: boxes left of, below or
far outside the root land in the border cells, never lost). Widths and heights
are scaled separately, so a non-square root (800 x 600) is exact in both axes.
A node at depth ``d`` whose lower-left cell is ``(lx, ly)`` covers
``size = 2**(max_depth - d)`` cells each way; a descent carries
``(node, d, lx, ly)`` and halves ``size`` at every level, so a child's
rectangle costs a shift and an add.

Why the result is exact
-----------------------
The cell map is monotone (``u <= v`` implies ``cell(u) <= cell(v)``), so if two
closed boxes intersect at a point ``p``, the cell of ``p`` lies in both boxes'
cell ranges, hence in a leaf holding both. Leaves only *propose* candidates;
the closed float test on the element table's rectangles decides.

A pair is reported from one leaf only: the leaf containing the cell of the
lower-left corner of the two boxes' intersection, ``(max(cx0_a, cx0_b),
max(cy0_a, cy0_b))`` (no set of pairs, no sort). A query reports each element
once using the ``_seen`` marks.

Operations
----------
* insert: descend to every leaf the box's cell range overlaps, push an element
  node on each; a leaf with more than ``capacity`` elements splits (unless it
  is at ``max_depth``), handing its elements to its four new children;
* remove: descend only to the leaves the box overlaps, unlink its element
  node from each; empty leaves stay until :meth:`Quadtree.cleanup`;
* update: if the new box lies in exactly the same leaves, nothing but the
  element table changes; otherwise remove and re-insert;
* cleanup: a branch whose four children are empty leaves becomes an empty leaf
  (its children go back to the free list as one block). Parents are visited
  before children, so one call collapses one level; the root is never freed.
* pairs: walk the leaves in tree order and test the pairs inside each leaf.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree]: node representation, no stored AABBs,
contiguous children, deferred cleanup, element vs element node, free lists,
leaf-ordered traversal. R. A. Finkel and J. L. Bentley, "Quad trees",
*Acta Informatica* 4 (1974).
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, normalize_pairs, register
from ..core.buffers import grow
from ..core.freelist import FREE_MARK, fl_erase, fl_erase_block, fl_grow, fl_holes, fl_take
from ..core.jit import njit
from ..core.params import check_int

__all__ = ["Quadtree", "cell_of", "morton_code", "TL", "TR", "BL", "BR", "BRANCH"]

#: Child order inside a block of four (y upwards): top-left, top-right, bottom-left, bottom-right.
TL, TR, BL, BR = 0, 1, 2, 3
#: ``count`` of a branch node.
BRANCH = -1
#: Largest ``max_depth``: cell coordinates must fit in int32.
MAX_DEPTH_LIMIT = 30


# ==========================================================================
# Cell coordinates
# ==========================================================================
@njit
def cell_of(v, origin, scale, n):
    """Cell coordinate of ``v`` on one axis: ``floor((v - origin) * scale)`` clamped to ``0 .. n - 1``.

    Parameters
    ----------
    v, origin : float
        A coordinate and the root's minimum on that axis, world units.
    scale : float
        Cells per world unit (``2**max_depth / width``), > 0.
    n : int
        Cells per axis (``2**max_depth``).

    Returns
    -------
    int
        A true floor (``-0.5`` maps below ``0``, not to ``0`` as truncation
        would), then clamped, so any finite (or huge) coordinate is valid.
    """
    t = np.floor((v - origin) * scale)
    if t < 0.0:
        return 0
    if t > n - 1:
        return n - 1
    return int(t)


@njit
def _cell_box(b0, b1, b2, b3, ox, oy, sx, sy, n):
    """Cell range ``(cx0, cy0, cx1, cy1)`` of a box (inclusive)."""
    return cell_of(b0, ox, sx, n), cell_of(b1, oy, sy, n), cell_of(b2, ox, sx, n), cell_of(b3, oy, sy, n)


def morton_code(cx, cy, bits: int) -> np.ndarray:
    """Z-order key of integer cells: the bits of ``cx`` and ``cy`` interleaved (int64).

    Parameters
    ----------
    cx, cy : array_like of int, shape (m,)
        Cell coordinates in ``0 .. 2**bits - 1``.
    bits : int
        Bits per coordinate (<= 31).
    """
    cx = np.asarray(cx, dtype=np.int64)
    cy = np.asarray(cy, dtype=np.int64)
    key = np.zeros(cx.shape, dtype=np.int64)
    for i in range(bits):
        key |= ((cx >> i) & 1) << (2 * i)
        key |= ((cy >> i) & 1) << (2 * i + 1)
    return key


# ==========================================================================
# Small stacks (grown inside kernels)
# ==========================================================================
@njit
def _push(stack, top, a, b, c, d, e):
    """Write row ``(a, b, c, d, e)`` at ``top`` of an (m, 5) int64 stack; return ``(stack, top + 1)``."""
    if top == stack.shape[0]:
        stack = grow(stack, top)
    stack[top, 0] = a
    stack[top, 1] = b
    stack[top, 2] = c
    stack[top, 3] = d
    stack[top, 4] = e
    return stack, top + 1


# ==========================================================================
# Finding the leaves a cell range overlaps
# ==========================================================================
@njit
def _find_leaves_core(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out):
    """The descent of :func:`_find_leaves` with no array growth (the hot loop never rebinds an array).

    ``stack`` must have at least ``3 * max_depth + 1`` rows (a pop pushes at
    most four children, one level deeper). Leaves are written to ``out``
    while it has room; returns the number of leaves found (may exceed
    ``out.shape[0]``: the caller grows ``out`` and descends again).
    """
    top = 1
    k = 0
    cap = out.shape[0]
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = 0
    stack[0, 3] = 0
    while top > 0:
        top -= 1
        node, depth, lx, ly = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if nodes[node, 1] != BRANCH:
            if k < cap:
                out[k, 0] = node
                out[k, 1] = depth
                out[k, 2] = lx
                out[k, 3] = ly
                out[k, 4] = 0
            k += 1
            continue
        half = (1 << (max_depth - depth)) >> 1
        mx, my = lx + half, ly + half
        fc = nodes[node, 0]
        lo_x, hi_x, lo_y, hi_y = cx0 < mx, cx1 >= mx, cy0 < my, cy1 >= my
        if lo_y and hi_x:
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BR, depth + 1, mx, ly
            top += 1
        if lo_y and lo_x:
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BL, depth + 1, lx, ly
            top += 1
        if hi_y and hi_x:
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TR, depth + 1, mx, my
            top += 1
        if hi_y and lo_x:
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TL, depth + 1, lx, my
            top += 1
    return k


@njit
def _find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out):
    """Leaves overlapping the cell range, in tree order, written to ``out`` as ``(node, depth, lx, ly)``.

    ``stack`` and ``out`` are (m, 5) int64 scratch arrays (grown if needed).
    Returns ``(stack, out, count)``. The children of a branch are pushed in
    reverse order so that they pop in TL, TR, BL, BR order (depth first).
    (Growth happens here, outside the descent loop: re-binding an array
    inside a numba loop costs reference counting on every iteration.)
    """
    if stack.shape[0] < 3 * max_depth + 1:
        stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    k = _find_leaves_core(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out)
    if k > out.shape[0]:
        out = np.empty((2 * k, 5), dtype=np.int64)
        k = _find_leaves_core(nodes, max_depth, cx0, cy0, cx1, cy1, stack, out)
    return stack, out, k


#: Why :func:`_insert_core` stopped: done, or which array must grow before it resumes.
_DONE, _NEED_TASKS, _NEED_ENODES, _NEED_NODES = 0, 1, 2, 3


@njit
def _insert_core(nodes, nmeta, enodes, emeta, boxes, ox, oy, sx, sy, max_depth, capacity, tasks, top):
    """Run the task stack of :func:`_insert_one` without growing any array.

    Before a task is popped, the room it needs is checked (4 task rows for a
    branch, one element node for a leaf, plus a block of 4 nodes and the
    leaf's list for a split); if an array is full, returns ``(top, need)``
    with the stack intact, so the caller grows that array and resumes. The
    loop never re-binds an array (in numba that costs reference counting on
    every iteration). Returns ``(top, _DONE)`` when the stack is empty.
    """
    n = 1 << max_depth
    while top > 0:
        t = top - 1
        e, node, depth, lx, ly = tasks[t, 0], tasks[t, 1], tasks[t, 2], tasks[t, 3], tasks[t, 4]
        if nodes[node, 1] == BRANCH:
            if t + 4 > tasks.shape[0]:
                return top, _NEED_TASKS
            top = t
            cx0, cy0, cx1, cy1 = _cell_box(boxes[e, 0], boxes[e, 1], boxes[e, 2], boxes[e, 3], ox, oy, sx, sy, n)
            half = (1 << (max_depth - depth)) >> 1
            mx, my = lx + half, ly + half
            fc = nodes[node, 0]
            if cy1 >= my:
                if cx0 < mx:
                    tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3], tasks[top, 4] = e, fc + TL, depth + 1, lx, my
                    top += 1
                if cx1 >= mx:
                    tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3], tasks[top, 4] = e, fc + TR, depth + 1, mx, my
                    top += 1
            if cy0 < my:
                if cx0 < mx:
                    tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3], tasks[top, 4] = e, fc + BL, depth + 1, lx, ly
                    top += 1
                if cx1 >= mx:
                    tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3], tasks[top, 4] = e, fc + BR, depth + 1, mx, ly
                    top += 1
            continue
        # A leaf: push an element node on its list (check room first).
        if emeta[1] == -1 and emeta[0] >= enodes.shape[0]:
            return top, _NEED_ENODES
        split = nodes[node, 1] + 1 > capacity and depth < max_depth
        if split:
            if nmeta[1] == -1 and nmeta[0] + 4 > nodes.shape[0]:
                return top, _NEED_NODES
            if t + nodes[node, 1] + 1 > tasks.shape[0]:
                return top, _NEED_TASKS
        top = t
        en = fl_take(enodes, emeta, 1)
        enodes[en, 0] = nodes[node, 0]
        enodes[en, 1] = e
        nodes[node, 0] = en
        nodes[node, 1] += 1
        if split:
            # Split: four new empty leaves, then the old list becomes tasks on this (now branch) node.
            fc = fl_take(nodes, nmeta, 4)
            for j in range(4):
                nodes[fc + j, 0] = -1
                nodes[fc + j, 1] = 0
            it = nodes[node, 0]
            while it != -1:
                nxt = enodes[it, 0]
                tasks[top, 0], tasks[top, 1], tasks[top, 2], tasks[top, 3], tasks[top, 4] = enodes[it, 1], node, depth, lx, ly
                top += 1
                fl_erase(enodes, emeta, it)
                it = nxt
            nodes[node, 0] = fc
            nodes[node, 1] = BRANCH
    return top, _DONE


@njit
def _insert_one(nodes, nmeta, enodes, emeta, boxes, slot, ox, oy, sx, sy, max_depth, capacity, tasks):
    """Insert element ``slot`` (its box is ``boxes[slot]``) into every leaf it overlaps.

    Work list of tasks ``(element, node, depth, lx, ly)``: "put this element
    into the subtree of this node". A leaf that goes over ``capacity`` below
    ``max_depth`` becomes a branch; its elements become tasks on itself, which
    route them into the new children. Returns ``(nodes, enodes, tasks)``
    (arrays may be grown copies). The work itself is :func:`_insert_core`;
    arrays are grown here, between its runs.
    """
    if tasks.shape[0] < 1:
        tasks = np.empty((64, 5), dtype=np.int64)
    tasks[0, 0], tasks[0, 1], tasks[0, 2], tasks[0, 3], tasks[0, 4] = slot, 0, 0, 0, 0
    top = 1
    while True:
        top, need = _insert_core(nodes, nmeta, enodes, emeta, boxes, ox, oy, sx, sy, max_depth, capacity, tasks, top)
        if need == _DONE:
            break
        if need == _NEED_TASKS:
            grown = np.empty((2 * tasks.shape[0] + 8, 5), dtype=np.int64)  # resumed until it fits
            grown[:top] = tasks[:top]
            tasks = grown
        elif need == _NEED_ENODES:
            enodes = fl_grow(enodes, emeta[0] + 1)
        else:
            nodes = fl_grow(nodes, nmeta[0] + 4)
    return nodes, enodes, tasks


@njit
def _insert_slots(nodes, nmeta, enodes, emeta, boxes, slots, ox, oy, sx, sy, max_depth, capacity):
    """Insert each of ``slots`` in turn (bulk load). Returns ``(nodes, enodes)``."""
    tasks = np.empty((64, 5), dtype=np.int64)
    for k in range(slots.shape[0]):
        nodes, enodes, tasks = _insert_one(nodes, nmeta, enodes, emeta, boxes, slots[k],
                                           ox, oy, sx, sy, max_depth, capacity, tasks)
    return nodes, enodes


# ==========================================================================
# Remove
# ==========================================================================
@njit
def _unlink(nodes, enodes, emeta, leaf, slot):
    """Take ``slot``'s element node out of ``leaf``'s list; return 1 if found, else 0."""
    prev = -1
    it = nodes[leaf, 0]
    while it != -1:
        if enodes[it, 1] == slot:
            if prev == -1:
                nodes[leaf, 0] = enodes[it, 0]
            else:
                enodes[prev, 0] = enodes[it, 0]
            fl_erase(enodes, emeta, it)
            nodes[leaf, 1] -= 1
            return 1
        prev = it
        it = enodes[it, 0]
    return 0


@njit
def _remove_one(nodes, enodes, emeta, slot, b0, b1, b2, b3, ox, oy, sx, sy, max_depth, stack, leaves):
    """Unlink ``slot`` (box ``b``) from the leaves its box overlaps. Returns ``(stack, leaves, unlinked)``."""
    n = 1 << max_depth
    cx0, cy0, cx1, cy1 = _cell_box(b0, b1, b2, b3, ox, oy, sx, sy, n)
    stack, leaves, k = _find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, leaves)
    found = 0
    for i in range(k):
        found += _unlink(nodes, enodes, emeta, leaves[i, 0], slot)
    return stack, leaves, found


# ==========================================================================
# Update many (remove, move, re-insert; skipped when the leaves stay the same)
# ==========================================================================
@njit
def _update_slots(nodes, nmeta, enodes, emeta, boxes, slots, old, ox, oy, sx, sy, max_depth, capacity):
    """Re-index ``slots`` whose boxes changed from ``old`` (k, 4) to ``boxes[slots]`` (already written).

    Pass 1 unlinks every element whose set of leaves changes (no split can
    happen while removing, so the leaves are stable); elements whose new box
    lies in exactly the same leaves are skipped. Pass 2 re-inserts the
    unlinked ones with their new boxes. Returns ``(nodes, enodes, moved)``.
    """
    n = 1 << max_depth
    stack = np.empty((4 * max_depth + 8, 5), dtype=np.int64)
    leaves_a = np.empty((16, 5), dtype=np.int64)
    leaves_b = np.empty((16, 5), dtype=np.int64)
    redo = np.zeros(slots.shape[0], dtype=np.bool_)
    for k in range(slots.shape[0]):
        s = slots[k]
        a0, a1, a2, a3 = _cell_box(old[k, 0], old[k, 1], old[k, 2], old[k, 3], ox, oy, sx, sy, n)
        b0, b1, b2, b3 = _cell_box(boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3], ox, oy, sx, sy, n)
        if a0 == b0 and a1 == b1 and a2 == b2 and a3 == b3:
            continue  # same cells, hence the same leaves
        stack, leaves_a, ka = _find_leaves(nodes, max_depth, a0, a1, a2, a3, stack, leaves_a)
        stack, leaves_b, kb = _find_leaves(nodes, max_depth, b0, b1, b2, b3, stack, leaves_b)
        same = ka == kb
        if same:
            for i in range(ka):
                if leaves_a[i, 0] != leaves_b[i, 0]:
                    same = False
                    break
        if same:
            continue
        for i in range(ka):
            _unlink(nodes, enodes, emeta, leaves_a[i, 0], s)
        redo[k] = True
    tasks = np.empty((64, 5), dtype=np.int64)
    moved = 0
    for k in range(slots.shape[0]):
        if redo[k]:
            nodes, enodes, tasks = _insert_one(nodes, nmeta, enodes, emeta, boxes, slots[k],
                                               ox, oy, sx, sy, max_depth, capacity, tasks)
            moved += 1
    return nodes, enodes, moved


# ==========================================================================
# Query
# ==========================================================================
@njit
def _query_kernel(nodes, enodes, boxes, q0, q1, q2, q3, ox, oy, sx, sy, max_depth, seen):
    """Slots whose boxes meet the closed box ``q``, each once.

    ``seen`` is a bitset (uint8, at least ``(slots + 7) // 8`` bytes, all zero):
    an element lying in several of the leaves reached is reported the first
    time and its bit set; the bits are cleared before returning.
    """
    n = 1 << max_depth
    cx0, cy0, cx1, cy1 = _cell_box(q0, q1, q2, q3, ox, oy, sx, sy, n)
    stack = np.empty((4 * max_depth + 8, 5), dtype=np.int64)
    leaves = np.empty((16, 5), dtype=np.int64)
    stack, leaves, k = _find_leaves(nodes, max_depth, cx0, cy0, cx1, cy1, stack, leaves)
    out = np.empty(16, dtype=np.int64)
    m = 0
    for i in range(k):
        it = nodes[leaves[i, 0], 0]
        while it != -1:
            e = enodes[it, 1]
            bit = 1 << (e & 7)
            if (seen[e >> 3] & bit) == 0 and boxes[e, 0] <= q2 and q0 <= boxes[e, 2] and boxes[e, 1] <= q3 and q1 <= boxes[e, 3]:
                seen[e >> 3] |= bit
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m] = e
                m += 1
            it = enodes[it, 0]
    for i in range(m):  # every set bit belongs to a reported slot: clearing whole bytes is enough
        seen[out[i] >> 3] = 0
    return out[:m].copy()


# ==========================================================================
# Pairs: leaf by leaf
# ==========================================================================
@njit
def pairs_core(nodes, enodes, boxes, ox, oy, sx, sy, max_depth, stack, g, gs, gc, out):
    """The leaf walk of :func:`_pairs_kernel` with no array growth; returns the number of pairs found.

    ``stack`` has at least ``3 * max_depth + 1`` rows, ``g``, ``gs`` and
    ``gc`` at least as many rows as the largest leaf; pairs are written to
    ``out`` while it has room. The rows of ``out`` are trusted only when the
    count returned is *below* its size: once ``out`` is full, every test
    writes its (rejected) candidate into the last row, so the caller re-runs
    with a larger ``out``. No array is re-bound inside the loops.
    """
    n = 1 << max_depth
    cap = out.shape[0]
    m = 0
    top = 1
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, 0, 0
    while top > 0:
        top -= 1
        node, depth, lx, ly = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        cnt = nodes[node, 1]
        if cnt == BRANCH:
            half = (1 << (max_depth - depth)) >> 1
            fc = nodes[node, 0]
            d1 = depth + 1
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BR, d1, lx + half, ly
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = fc + BL, d1, lx, ly
            stack[top + 2, 0], stack[top + 2, 1], stack[top + 2, 2], stack[top + 2, 3] = fc + TR, d1, lx + half, ly + half
            stack[top + 3, 0], stack[top + 3, 1], stack[top + 3, 2], stack[top + 3, 3] = fc + TL, d1, lx, ly + half
            top += 4
            continue
        if cnt < 2:
            continue
        it = nodes[node, 0]
        j = 0
        while it != -1:
            e = enodes[it, 1]
            gs[j] = e
            g[j, 0] = boxes[e, 0]
            g[j, 1] = boxes[e, 1]
            g[j, 2] = boxes[e, 2]
            g[j, 3] = boxes[e, 3]
            gc[j, 0] = cell_of(boxes[e, 0], ox, sx, n)
            gc[j, 1] = cell_of(boxes[e, 1], oy, sy, n)
            it = enodes[it, 0]
            j += 1
        # Both boxes overlap this leaf, so their reference cell (rx, ry) is never
        # beyond its far edges: it lies in the leaf when rx >= lx and ry >= ly.
        # The test is branch-free (a pair is written, then kept only if it
        # counts): a chain of `and`s mispredicts on half the pairs of a leaf.
        for a in range(cnt):
            ax0, ay0, ax1, ay1 = g[a, 0], g[a, 1], g[a, 2], g[a, 3]
            acx, acy = gc[a, 0], gc[a, 1]
            sa = gs[a]
            for b in range(a + 1, cnt):
                hit = ((max(ax0, g[b, 0]) <= min(ax1, g[b, 2])) & (max(ay0, g[b, 1]) <= min(ay1, g[b, 3]))
                       & (max(acx, gc[b, 0]) >= lx) & (max(acy, gc[b, 1]) >= ly))
                w = m if m < cap else cap - 1  # full: keep counting, the caller re-runs
                out[w, 0] = sa
                out[w, 1] = gs[b]
                m += int(hit)
    return m


@njit
def _pairs_kernel(nodes, enodes, boxes, ox, oy, sx, sy, max_depth):
    """Every intersecting slot pair, once: ``(k, 2)`` int64, found leaf by leaf in tree order.

    In each leaf the elements are copied to small local arrays (box and the
    cell of its lower-left corner), then every pair is tested. A pair is kept
    only in the leaf holding its reference cell ``(max cx0, max cy0)``.
    The scratch arrays are sized up front (the largest leaf, a guess of the
    pair count) so that the walk, :func:`pairs_core`, never grows one.
    """
    big = 16
    for i in range(nodes.shape[0]):
        if nodes[i, 1] > big:
            big = nodes[i, 1]
    stack = np.empty((3 * max_depth + 1, 5), dtype=np.int64)
    g = np.empty((big, 4), dtype=np.float64)
    gs = np.empty(big, dtype=np.int64)
    gc = np.empty((big, 2), dtype=np.int64)
    # A guess with room to spare (two pairs per element node; random scenes of the
    # article's density find about one): a second walk costs as much as the first.
    out = np.empty((2 * enodes.shape[0] + 1024, 2), dtype=np.int64)
    m = pairs_core(nodes, enodes, boxes, ox, oy, sx, sy, max_depth, stack, g, gs, gc, out)
    if m >= out.shape[0]:  # full: the last row may have been overwritten, walk again with room
        out = np.empty((m + 1, 2), dtype=np.int64)
        m = pairs_core(nodes, enodes, boxes, ox, oy, sx, sy, max_depth, stack, g, gs, gc, out)
    return out[:m]


@njit
def _leaf_order(nodes, enodes, max_depth, n_slots):
    """Slots in order of first appearance when walking the leaves in tree order."""
    seen = np.zeros(n_slots, dtype=np.bool_)
    out = np.empty(n_slots, dtype=np.int64)
    m = 0
    for node in _leaves(nodes, max_depth):
        it = nodes[node, 0]
        while it != -1:
            e = enodes[it, 1]
            if not seen[e]:
                seen[e] = True
                out[m] = e
                m += 1
            it = enodes[it, 0]
    return out[:m].copy()


@njit
def _pairs_by_queries(nodes, enodes, boxes, order, ox, oy, sx, sy, max_depth, seen):
    """Pairs by one query per element, in the given ``order`` of slots; pair kept when partner > self."""
    out = np.empty((1024, 2), dtype=np.int64)
    m = 0
    for k in range(order.shape[0]):
        s = order[k]
        hits = _query_kernel(nodes, enodes, boxes, boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3],
                             ox, oy, sx, sy, max_depth, seen)
        for t in hits:
            if t > s:
                if m == out.shape[0]:
                    out = grow(out, m)
                out[m, 0] = s
                out[m, 1] = t
                m += 1
    return out[:m].copy()


# ==========================================================================
# Cleanup
# ==========================================================================
@njit
def _cleanup_kernel(nodes, nmeta, max_depth):
    """Collapse each branch whose four children are empty leaves; one level per call. Returns blocks freed."""
    if nodes[0, 1] != BRANCH:
        return 0
    stack = np.empty((4 * max_depth + 8, 5), dtype=np.int64)
    top = 0
    stack, top = _push(stack, top, 0, 0, 0, 0, 0)
    freed = 0
    while top > 0:
        top -= 1
        node = stack[top, 0]
        fc = nodes[node, 0]
        empty = 0
        for j in range(4):
            c = nodes[fc + j, 1]
            if c == 0:
                empty += 1
            elif c == BRANCH:
                stack, top = _push(stack, top, fc + j, 0, 0, 0, 0)
        if empty == 4:
            fl_erase_block(nodes, nmeta, fc, 4)
            nodes[node, 0] = -1
            nodes[node, 1] = 0
            freed += 1
    return freed


@njit
def _compact_enodes(nodes, enodes, emeta, max_depth):
    """Rewrite the element nodes leaf by leaf in tree order, with no holes; returns the new array.

    After a bulk load (or whenever wanted), the lists of consecutive leaves then
    sit next to each other in memory, so the leaf walk of ``pairs`` reads the
    array front to back. Node ``first`` fields are updated; ``emeta`` becomes
    ``[count, -1]`` (no holes).
    """
    out = np.empty((max(1, emeta[0]), 2), dtype=np.int32)
    m = 0
    for node in _leaves(nodes, max_depth):
        it = nodes[node, 0]
        if it == -1:
            continue
        nodes[node, 0] = m
        while it != -1:
            out[m, 1] = enodes[it, 1]
            it = enodes[it, 0]
            out[m, 0] = m + 1 if it != -1 else -1
            m += 1
    emeta[0] = m
    emeta[1] = -1
    return out[:max(1, m)].copy()


@njit
def _node_list(nodes, max_depth):
    """Every live node in depth-first order (root first): ``(m, 5)`` rows ``(node, depth, lx, ly, count)``."""
    stack = np.empty((4 * max_depth + 8, 5), dtype=np.int64)
    out = np.empty((16, 5), dtype=np.int64)
    m = 0
    top = 0
    stack, top = _push(stack, top, 0, 0, 0, 0, 0)
    while top > 0:
        top -= 1
        node, depth, lx, ly = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        out, m = _push(out, m, node, depth, lx, ly, nodes[node, 1])
        if nodes[node, 1] == BRANCH:
            half = (1 << (max_depth - depth)) >> 1
            fc = nodes[node, 0]
            stack, top = _push(stack, top, fc + BR, depth + 1, lx + half, ly, 0)
            stack, top = _push(stack, top, fc + BL, depth + 1, lx, ly, 0)
            stack, top = _push(stack, top, fc + TR, depth + 1, lx + half, ly + half, 0)
            stack, top = _push(stack, top, fc + TL, depth + 1, lx, ly + half, 0)
    return out[:m].copy()


@njit
def _leaves(nodes, max_depth):
    """Leaf node indices in tree order (depth first, TL, TR, BL, BR): ``(k,)`` int64."""
    rows = _node_list(nodes, max_depth)
    return rows[rows[:, 4] != BRANCH, 0].copy()


# ==========================================================================
# The class
# ==========================================================================
@register("quadtree")
class Quadtree(BroadPhase):
    """Compact index-based quadtree: 8-byte nodes, element nodes in linked index lists.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        The root's rectangle ``[xmin, ymin, xmax, ymax]``: anywhere, any aspect
        ratio (default the article's 800 x 600). Boxes outside it are clamped
        to its border cells and still found.
    capacity : int
        Elements a leaf holds before it splits (>= 1). Default 8.
    max_depth : int
        Deepest level (0 .. 30); leaves there never split, so coincident points
        and huge overlaps stop there. The root is cut into ``2**max_depth``
        cells per axis. Default 8. Keep it modest: where more than
        ``capacity`` boxes overlap a common *area*, every leaf in that area
        splits down to ``max_depth``, so the node count there grows as
        ``4**max_depth``.

    Raises
    ------
    ValueError
        A parameter out of range or not an integer; the common errors of
        :class:`~lessons_lib.base.BroadPhase`.

    Notes
    -----
    Memory: 8 bytes per node, 8 bytes per element node (one per leaf an
    element lies in), 1 bit per slot of query marks, plus the shared element
    table (41 bytes per slot). Time: insert, remove and query descend
    ``O(max_depth)`` levels and walk the lists of the leaves they touch;
    pairs costs ``sum over leaves of count^2 / 2`` box tests; cleanup visits
    the branches once.

    References
    ----------
    The quadtree answer set [SO-quadtree].
    """

    def __init__(self, *, world=None, capacity: int = 8, max_depth: int = 8):
        super().__init__(world=world)
        self.capacity = check_int("capacity", capacity, 1, 2**31 - 1)
        self.max_depth = check_int("max_depth", max_depth, 0, MAX_DEPTH_LIMIT)
        n = 1 << self.max_depth
        x0, y0, x1, y1 = self.world.tolist()
        # (origin x, origin y, cells per unit x, cells per unit y), scaled per axis.
        self._geo = (x0, y0, n / (x1 - x0), n / (y1 - y0))
        self.nodes = np.full((16, 2), -1, dtype=np.int32)
        self.enodes = np.full((16, 2), -1, dtype=np.int32)
        self.node_meta = np.array([0, -1], dtype=np.int64)
        self.enode_meta = np.array([0, -1], dtype=np.int64)
        self._seen = np.zeros(0, dtype=np.uint8)
        self._clear()

    # -- layout helpers --------------------------------------------------
    @property
    def cells_per_axis(self) -> int:
        """``2**max_depth``: the resolution of the integer cell coordinates."""
        return 1 << self.max_depth

    def cell_range(self, box) -> tuple[int, int, int, int]:
        """Inclusive integer cell range ``(cx0, cy0, cx1, cy1)`` of a box (true floor, then clamp)."""
        b = [float(v) for v in box]
        ox, oy, sx, sy = self._geo
        return tuple(int(v) for v in _cell_box(b[0], b[1], b[2], b[3], ox, oy, sx, sy, self.cells_per_axis))

    def _args(self):
        return (*self._geo, self.max_depth)

    # -- insert ------------------------------------------------------------
    def _insert(self, slot, box):
        self._insert_many(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        """Bulk load: insert in Z-order (Morton order) of the box centres, then trim the arrays.

        Consecutive inserts then descend the same paths; at the end the element
        nodes are rewritten leaf by leaf in tree order without holes, so the
        leaf walk of ``pairs`` reads them front to back. The result is the same
        tree as inserting in any order would give, up to the order of each
        leaf's list.
        """
        slots = np.asarray(slots, dtype=np.int64)
        if len(slots) > 1:
            b = self.elements.boxes[slots]
            n = self.cells_per_axis
            ox, oy, sx, sy = self._geo
            cx = np.clip(np.floor((0.5 * (b[:, 0] + b[:, 2]) - ox) * sx), 0, n - 1).astype(np.int64)
            cy = np.clip(np.floor((0.5 * (b[:, 1] + b[:, 3]) - oy) * sy), 0, n - 1).astype(np.int64)
            slots = slots[np.argsort(morton_code(cx, cy, self.max_depth), kind="stable")]
        self._insert_many(slots)
        self.enodes = _compact_enodes(self.nodes, self.enodes, self.enode_meta, self.max_depth)
        self.shrink()
        self._seen = _marks(self.elements.capacity)  # query marks, counted in memory_bytes()

    def _insert_many(self, slots):
        self.nodes, self.enodes = _insert_slots(self.nodes, self.node_meta, self.enodes, self.enode_meta,
                                                self.elements.boxes, slots, *self._args(), self.capacity)

    # -- remove ------------------------------------------------------------
    def _remove(self, slot, box):
        stack = np.empty((4 * self.max_depth + 8, 5), dtype=np.int64)
        leaves = np.empty((16, 5), dtype=np.int64)
        b = box.tolist()
        _, _, found = _remove_one(self.nodes, self.enodes, self.enode_meta, int(slot), b[0], b[1], b[2], b[3],
                                  *self._args(), stack, leaves)
        if found == 0:  # pragma: no cover - a broken invariant, never expected
            raise RuntimeError(f"slot {slot} was not found in the leaves of its box {b}")

    # -- update ------------------------------------------------------------
    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), np.asarray(old).reshape(1, 4), None)

    def _update_many(self, slots, old, new):
        self.nodes, self.enodes, self.last_moved = _update_slots(
            self.nodes, self.node_meta, self.enodes, self.enode_meta, self.elements.boxes,
            np.asarray(slots, dtype=np.int64), np.ascontiguousarray(old, dtype=np.float64),
            *self._args(), self.capacity)

    # -- query -------------------------------------------------------------
    def _query(self, box):
        if 8 * len(self._seen) < self.elements.capacity:
            self._seen = _marks(self.elements.capacity)
        b = box.tolist()
        return _query_kernel(self.nodes, self.enodes, self.elements.boxes, b[0], b[1], b[2], b[3],
                             *self._args(), self._seen)

    # -- pairs -------------------------------------------------------------
    def _pairs(self):
        return _pairs_kernel(self.nodes, self.enodes, self.elements.boxes, *self._args())

    def leaf_order(self) -> np.ndarray:
        """Slots of the stored elements in order of first appearance, walking the leaves in tree order."""
        return _leaf_order(self.nodes, self.enodes, self.max_depth, self.elements.capacity)

    def pairs_by_queries(self, order: str = "leaves") -> np.ndarray:
        """All pairs found the other way: one query per element (for lesson 05's comparison).

        Parameters
        ----------
        order : {"leaves", "slots"}
            ``"leaves"``: elements in leaf order (:meth:`leaf_order`), so
            consecutive queries descend the same paths (the seed's
            "traversed" loop); ``"slots"``: element by element in storage
            order, scattered over the world.

        Returns
        -------
        numpy.ndarray, shape (k, 2), int64
            The same as :meth:`pairs` (ids, ``a < b``, sorted).
        """
        if order == "leaves":
            seq = self.leaf_order()
        elif order == "slots":
            seq = self.elements.live_slots()
        else:
            raise ValueError(f"order must be 'leaves' or 'slots', got {order!r}")
        if 8 * len(self._seen) < self.elements.capacity:
            self._seen = _marks(self.elements.capacity)
        sp = _pairs_by_queries(self.nodes, self.enodes, self.elements.boxes, seq, *self._args(), self._seen)
        return normalize_pairs(self.elements.ids[sp])

    # -- cleanup, clear ----------------------------------------------------
    def _cleanup(self):
        self.last_freed_blocks = int(_cleanup_kernel(self.nodes, self.node_meta, self.max_depth))

    def _clear(self):
        self.node_meta[:] = (1, -1)  # node 0 (the root) is handed out for good
        self.nodes[0] = (-1, 0)
        self.enode_meta[:] = (0, -1)
        self.last_moved = 0
        self.last_freed_blocks = 0

    # -- memory ------------------------------------------------------------
    def _nbytes(self):
        return self.nodes.nbytes + self.enodes.nbytes + self._seen.nbytes

    def shrink(self) -> None:
        """Release unused capacity at the end of the node and element-node arrays (after a bulk load)."""
        self.nodes = self.nodes[: max(1, int(self.node_meta[0]))].copy()
        self.enodes = self.enodes[: max(1, int(self.enode_meta[0]))].copy()

    # -- inspection --------------------------------------------------------
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
        rows = _node_list(self.nodes, self.max_depth)
        x0, y0, x1, y1 = self.world.tolist()
        n = self.cells_per_axis
        cw, ch = (x1 - x0) / n, (y1 - y0) / n
        size = (1 << (self.max_depth - rows[:, 1])).astype(np.float64)
        lx, ly = rows[:, 2].astype(np.float64), rows[:, 3].astype(np.float64)
        rect = np.column_stack([x0 + lx * cw, y0 + ly * ch, x0 + (lx + size) * cw, y0 + (ly + size) * ch])
        # the far edges of the root are exactly the world's (no rounding drift)
        rect[:, 2] = np.where(rows[:, 2] + (1 << (self.max_depth - rows[:, 1])) == n, x1, rect[:, 2])
        rect[:, 3] = np.where(rows[:, 3] + (1 << (self.max_depth - rows[:, 1])) == n, y1, rect[:, 3])
        idx = rows[:, 0]
        return {"index": idx, "depth": rows[:, 1], "first": self.nodes[idx, 0].astype(np.int64),
                "count": rows[:, 4], "is_leaf": rows[:, 4] != BRANCH, "rect": rect}

    def regions(self):
        t = self.node_table()
        return t["rect"], t["depth"]

    def node_count(self) -> int:
        """Live nodes (branches and leaves)."""
        return len(_node_list(self.nodes, self.max_depth))

    def leaf_count(self) -> int:
        return int((_node_list(self.nodes, self.max_depth)[:, 4] != BRANCH).sum())

    def depth(self) -> int:
        """Depth of the deepest node (0 when the root is a leaf)."""
        return int(_node_list(self.nodes, self.max_depth)[:, 1].max())

    def leaf_elements(self, node: int) -> list[int]:
        """Slots in leaf ``node``'s list, in list order (newest first)."""
        out, it = [], int(self.nodes[node, 0])
        while it != -1:
            out.append(int(self.enodes[it, 1]))
            it = int(self.enodes[it, 0])
        return out

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` unless the arrays are consistent.

        Checks: every branch's children are a block of four at ``1 + 4 k``;
        each leaf's ``count`` equals its list's length; a leaf holds more than
        ``capacity`` only at ``max_depth``; every live element is in exactly
        the leaves its cell range overlaps, once each; live and free nodes and
        element nodes partition what was handed out (the free lists hold no
        live node).
        """
        rows = _node_list(self.nodes, self.max_depth)
        live_nodes = set(rows[:, 0].tolist())
        assert len(live_nodes) == len(rows), "a node is reachable twice"
        free_blocks = fl_holes(self.nodes, self.node_meta)
        free_nodes = {b + j for b in free_blocks for j in range(4)}
        assert all(b >= 1 and (b - 1) % 4 == 0 for b in free_blocks), "a free block is misaligned"
        assert not (free_nodes & live_nodes), "a free node is reachable from the root"
        assert all(self.nodes[f, 1] == FREE_MARK for f in free_nodes), "a free node is not marked free"
        assert len(live_nodes) + len(free_nodes) == int(self.node_meta[0]), "nodes leaked"
        live_slots = set(self.elements.live_slots().tolist())
        where: dict[int, list] = {s: [] for s in live_slots}
        used_en = set()
        for node, depth, lx, ly, count in rows.tolist():
            if count == BRANCH:
                fc = int(self.nodes[node, 0])
                assert fc >= 1 and (fc - 1) % 4 == 0, f"branch {node} has misaligned children {fc}"
                continue
            assert count >= 0
            assert count <= self.capacity or depth == self.max_depth, f"leaf {node} over capacity above max depth"
            elems = []
            it = int(self.nodes[node, 0])
            while it != -1:
                assert it not in used_en, f"element node {it} is in two lists"
                used_en.add(it)
                elems.append(int(self.enodes[it, 1]))
                it = int(self.enodes[it, 0])
            assert len(elems) == count, f"leaf {node}: count {count} but {len(elems)} element nodes"
            size = 1 << (self.max_depth - depth)
            for s in elems:
                assert s in live_slots, f"leaf {node} holds dead slot {s}"
                where[s].append((lx, ly, size))
        free_en = set(fl_holes(self.enodes, self.enode_meta))
        assert not (free_en & used_en), "a free element node is in a leaf list"
        assert len(free_en) + len(used_en) == int(self.enode_meta[0]), "element nodes leaked"
        leaf_rows = rows[rows[:, 4] != BRANCH]
        llx, lly = leaf_rows[:, 2], leaf_rows[:, 3]
        lsize = np.left_shift(1, self.max_depth - leaf_rows[:, 1])
        for s in live_slots:
            cx0, cy0, cx1, cy1 = self.cell_range(self.elements.boxes[s])
            got = sorted(where[s])
            assert len(set(got)) == len(got), f"slot {s} twice in one leaf"
            for lx, ly, size in got:
                assert lx <= cx1 and cx0 < lx + size and ly <= cy1 and cy0 < ly + size, f"slot {s} in a leaf its box misses"
            want = int(((llx <= cx1) & (cx0 < llx + lsize) & (lly <= cy1) & (cy0 < lly + lsize)).sum())
            assert want == len(got), f"slot {s} is in {len(got)} leaves, its box overlaps {want}"


def _marks(n_slots: int) -> np.ndarray:
    """A zeroed bitset of "already reported" marks for ``n_slots`` slots (1 bit each)."""
    return np.zeros((n_slots + 7) // 8, dtype=np.uint8)


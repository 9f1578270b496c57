"""The loose quadtree's layout and how it changes: insert and move (one walk), split, remove.

Lesson 06, sections 1 to 3: the data layout of
:class:`~lessons_lib.structures.loose_quadtree.LooseQuadtree` and the leaf an
element's centre picks (section 1, "One leaf per element: its centre
decides"), the float32 bounds rounded outwards (section 2, with the kernels in
:mod:`~lessons_lib.structures.loose_bounds`), and the kernels that change the
tree as elements come, move and go, growing the bounds (section 3, "Bounds
grow on insert, and shrink only in cleanup"). The cleanup that shrinks the
bounds (the rest of section 3) and the kernels that read the tree (query and
pairs, section 4), with the class behind the common interface, are in
:mod:`~lessons_lib.structures.loose_quadtree`.

Data layout
-----------
=================  ===============  ==================================================
array              shape, dtype     meaning
=================  ===============  ==================================================
``nodes``          (c, 2) int32     ``[FIRST, COUNT]`` as in the compact quadtree
                                    (:mod:`~lessons_lib.structures.quad_nodes`): a
                                    **leaf** has ``COUNT >= 0`` and ``FIRST`` = the
                                    first element *slot* of its list (-1: empty); a
                                    **branch** has ``COUNT == BRANCH`` and ``FIRST``
                                    = its first child (TL, TR, BL, BR follow).
``rects``          (c, 4) float32   loose bounds ``[xmin, ymin, xmax, ymax]`` of
                                    each node; an empty node has the inverted
                                    ``[inf, inf, -inf, -inf]``, which meets nothing.
``enext``          (slots,) int32   next slot in the same leaf's list (-1 ends it):
                                    an element lies in one leaf, so its slot *is*
                                    its list node, no element-node array needed.
``leaf``           (slots,) int32   the leaf holding each slot (-1: not stored), so
                                    a remove goes straight to its leaf.
element table      (slots)          ``BroadPhase.elements``: id and float64 box.
=================  ===============  ==================================================

The kernels take the arrays as one tuple, ``tree = (nodes, node_meta, rects,
enext, leaf)``, and the cell frame as ``cells = (ox, oy, sx, sy, max_depth)``.
A node costs 24 bytes (8 for ``[FIRST, COUNT]``, 16 for the float32 bounds),
an element 8 bytes (``enext`` and ``leaf``) wherever it lies and however large
it is.

Which leaf: the centre's cell
-----------------------------
The root's rectangle (the ``world``) is cut into ``2**max_depth`` integer cells
per axis (floor, then clamp), and an element belongs to the leaf containing
the cell of its centre ``(0.5 xmin + 0.5 xmax, 0.5 ymin + 0.5 ymax)``. Centres
outside the root clamp to border cells: the element is still stored, and the
bounds of every node on its path grow to cover it, so it is still found.

float32 bounds that never lose an element
-----------------------------------------
Bounds are float32 (as in the answer set) but the boxes are float64, so a
bound is rounded **outwards** (:mod:`~lessons_lib.structures.loose_bounds`):
the float32 box always contains the float64 box, and the exact test on the
element table decides. Bounds are conservative but never wrong.

Operations
----------
* insert (and move, the same walk): walk from the root to the leaf of the centre's cell,
  growing the bounds of every node on the way; push the slot on the leaf's
  list (a move inside the same leaf stops there). A leaf over ``capacity``
  (above ``max_depth``) **splits**, its elements moving to four new children
  by their centres, unless they all share one centre cell (no split could
  separate them). At most one child can then be over capacity, so a split
  cascade is a simple loop.
* remove: unlink the slot from its leaf. Bounds are *not* shrunk: they stay
  valid (too large, never too small) until
  :meth:`~lessons_lib.structures.loose_quadtree.LooseQuadtree.cleanup`.

References
----------
The quadtree answer set on Stack Overflow, "Efficient (and well explained)
implementation of a Quadtree for 2D collision detection" [SO-quadtree], section
"Loose quadtree": one leaf per element by a single point, per-node bounds
expanded on insert, float bounds. T. Ulrich, "Loose octrees", *Game
Programming Gems* (2000), for the original loose bounds.
"""
from __future__ import annotations

from ..core.freelist import USED, fl_take
from ..core.jit import njit
from .loose_bounds import grow_rect, set_empty
from .quad_nodes import BR, BRANCH, COUNT, FIRST, TL, TR, centre_cell, quadrant
from .slot_lists import unlink_slot

__all__ = ["insert", "push", "split", "split_separates", "unlink", "remove"]


# ==========================================================================
# Insert and move (one walk), with splits (lesson 06, sections 1 and 3)
# ==========================================================================
@njit
def insert(tree, cells, capacity, boxes, slots, start):
    """Insert (or move) ``slots[start:]``, their boxes already in ``boxes``; return where it stopped.

    For each slot: walk from the root to the leaf of its centre's cell,
    growing every bound on the way; a slot already in that leaf stays (a
    move inside its leaf costs one walk), unless the leaf is over capacity
    (its centre cell then decides whether the leaf may split); otherwise it
    is unlinked from its old leaf and pushed on the new one, which may split.
    The child picked at each level is
    :func:`~lessons_lib.structures.quad_nodes.quadrant` of the centre's cell
    (:func:`~lessons_lib.structures.quad_nodes.centre_cell`): lesson 06's
    exercise 1, ``child_of_centre``, in integer cells (a centre on a midline
    goes to the right or top child). Stops before slot ``k`` when ``nodes``
    may lack room for a split cascade and returns ``k``: the caller grows the
    node arrays and calls again.
    """
    nodes, nmeta, rects, enext, leaf = tree
    max_depth = cells[4]
    room = 4 * max_depth + 4
    for k in range(start, slots.shape[0]):
        if nmeta[USED] + room > nodes.shape[0]:
            return k
        s = slots[k]
        cx, cy = centre_cell(cells, boxes, s)
        node, depth, lx, ly = 0, 0, 0, 0
        grow_rect(rects, 0, boxes, s)
        while nodes[node, COUNT] == BRANCH:
            j, lx, ly = quadrant(cx, cy, lx, ly, (1 << (max_depth - depth)) >> 1)
            node = nodes[node, FIRST] + j
            depth += 1
            grow_rect(rects, node, boxes, s)
        if leaf[s] == node and (nodes[node, COUNT] <= capacity or depth == max_depth):
            continue
        if leaf[s] != -1:
            unlink(tree, s)
        push(tree, node, s)
        if nodes[node, COUNT] > capacity and depth < max_depth:
            split(tree, cells, capacity, boxes, node, depth, lx, ly)
    return slots.shape[0]


@njit(inline="always")
def push(tree, node, s):
    """Push slot ``s`` on leaf ``node``'s list."""
    nodes, _, _, enext, leaf = tree
    enext[s] = nodes[node, FIRST]
    nodes[node, FIRST] = s
    nodes[node, COUNT] += 1
    leaf[s] = node


@njit
def split(tree, cells, capacity, boxes, node, depth, lx, ly):
    """Split the over-full leaf ``node``, then, while needed, the one child still over-full.

    A leaf whose elements all share one centre cell is left alone: every
    split would hand all of them to the same child. Beyond ``capacity + 1``
    elements the older ones already share one cell (the leaf did not split
    for them), so the newest (the head) and one other decide. The caller
    guarantees room for ``4 * (max_depth - depth)`` more nodes.
    """
    nodes, nmeta, rects, enext, leaf = tree
    max_depth = cells[4]
    quick = nodes[node, COUNT] > capacity + 1
    while depth < max_depth and split_separates(nodes, enext, cells, boxes, node, quick):
        first = fl_take(nodes, nmeta, 4)
        for j in range(4):
            nodes[first + j, FIRST] = -1
            nodes[first + j, COUNT] = 0
            set_empty(rects, first + j)
        half = (1 << (max_depth - depth)) >> 1
        it = nodes[node, FIRST]
        while it != -1:
            nxt = enext[it]
            cx, cy = centre_cell(cells, boxes, it)
            j, _, _ = quadrant(cx, cy, lx, ly, half)
            push(tree, first + j, it)
            grow_rect(rects, first + j, boxes, it)
            it = nxt
        nodes[node, FIRST] = first
        nodes[node, COUNT] = BRANCH
        depth += 1
        over = -1
        for j in range(4):
            if nodes[first + j, COUNT] > capacity:
                over = j
        if over == -1:
            return
        node = first + over
        lx = lx + half if (over == TR or over == BR) else lx
        ly = ly + half if (over == TL or over == TR) else ly
        quick = False


@njit
def split_separates(nodes, enext, cells, boxes, node, quick):
    """Do the elements of leaf ``node`` have more than one centre cell? (``quick``: compare the first two.)"""
    it = nodes[node, FIRST]
    a = centre_cell(cells, boxes, it)
    it = enext[it]
    while it != -1:
        if centre_cell(cells, boxes, it) != a:
            return True
        if quick:
            return False
        it = enext[it]
    return False


@njit
def unlink(tree, s):
    """Take slot ``s`` out of its leaf's list; returns 1 if found."""
    nodes, _, _, enext, leaf = tree
    node = leaf[s]
    found = unlink_slot(nodes[:, FIRST], node, enext, s)
    nodes[node, COUNT] -= found
    if found:
        leaf[s] = -1
    return found


@njit
def remove(tree, slots):
    """Unlink each of ``slots`` from its leaf (bounds are left as they are); returns the number found."""
    found = 0
    for k in range(slots.shape[0]):
        found += unlink(tree, slots[k])
    return found

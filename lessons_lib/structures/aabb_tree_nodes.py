"""The dynamic AABB tree's node table, its fat boxes, and the steps that shape it: insert, rotate, remove.

Lesson 11, sections 2 to 5: the kernels of
:class:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree` (the structure
behind the common interface, with its update step) that build the tree one leaf
at a time; its query, pairs and move buffer are in
:mod:`~lessons_lib.structures.aabb_tree_search`, its bulk load and rebuild in
:mod:`~lessons_lib.structures.aabb_tree_build`.

The steps, by the lesson's sections
-----------------------------------
* **data layout** (section 2, "The layout: one node table and a free list"):
  one node table over flat arrays (:class:`TreeNodes`) with a free list of
  nodes threaded through it (:func:`alloc_node`, :func:`free_node`);
* **insert** (section 3, "Insertion: the cheapest sibling, a new parent,
  refit"): :func:`find_best_sibling` (the sibling of least surface-area cost,
  found by branch and bound), :func:`insert_leaf` (a new parent above it),
  then walking back to the root: :func:`refit` each ancestor and rotate it;
* **rotations** (section 4, "Rotations: repairing the tree on the way up"):
  :func:`rotate` an ancestor when swapping one of its children with a
  grandchild lowers the cost;
* **remove** (section 2: removing an element frees its leaf and its parent):
  :func:`remove_leaf`: the sibling takes its parent's place;
* **fat AABBs** (section 5, "Fat boxes and the margin"): a leaf stores its
  element's box enlarged by ``margin`` and, optionally, stretched along the
  element's last move (the predicted displacement times
  ``displacement_multiplier``: the appendix "stretching the fat box along the
  move"), so that most small moves change nothing in the tree
  (:func:`set_fat_box`; :func:`must_reinsert` says when a leaf must move).

Surface-area cost
-----------------
The cost of a tree is the sum of the "surface areas" of its internal nodes:
the expected number of nodes a random query visits is proportional to it
([MacDonald1990]). In 2D the surface area of a box is its **perimeter**
``p = 2 (w + h)``, the lesson's ``p``. All decisions below compare
:func:`perimeter_cost`, an eighth of it (``(w + h) / 4``), computed in quarters
so that it is finite for any finite box: scaling every cost by 1/8 changes no
comparison. :meth:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree.cost`
multiplies the sum by 8 to report the lesson's cost in world units.

References
----------
[Catto2019] E. Catto, "Dynamic bounding volume hierarchies", GDC 2019 (fat
AABBs, sibling choice by branch and bound, rotations); [box2d] Box2D's
``dynamic_tree.c``; [Bittner2012] insertion by the surface area heuristic with
branch and bound; [Kopta2012] tree rotations; [MacDonald1990] the surface area
heuristic.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit

__all__ = [
    "TreeNodes", "NULL", "FREE", "BOX", "PARENT", "CHILD1", "CHILD2", "HEIGHT", "ELEMENT", "META",
    "ROOT", "USED", "HEAD", "LIVE", "STAT_INSERTED", "STAT_ROTATIONS", "STAT_VISITS", "STAT_SIBLING",
    "STAT_REFITTED", "STAT_REBUILT", "BIG",
    "alloc_node", "free_node", "perimeter_cost", "node_cost", "union_cost", "pair_cost", "refit",
    "find_best_sibling", "insert_leaf", "new_work", "insert_slot", "rotate", "swap_down",
    "remove_leaf", "remove_slot", "clamp", "fat_sides", "displacement", "set_fat_box", "must_reinsert",
]

# ==========================================================================
# Section 2. The layout: one node table and a free list
# ==========================================================================
#: "No node": a missing child, parent or element, the end of the free list.
NULL = -1
#: ``height`` of a node on the free list (leaves have height 0, internal nodes >= 1).
FREE = -1
#: Positions in the node tuple ``nd`` (:attr:`TreeNodes.arrays`): the arrays ``box``, ``parent``,
#: ``child1``, ``child2``, ``height``, ``element`` and ``meta`` of lesson 11's node table.
BOX, PARENT, CHILD1, CHILD2, HEIGHT, ELEMENT, META = 0, 1, 2, 3, 4, 5, 6
#: Fields of ``meta`` (int64): the root node, nodes handed out so far, first free node, nodes in use.
ROOT, USED, HEAD, LIVE = 0, 1, 2, 3
#: Counters of the last call (``DynamicAABBTree.stats``): leaves (re)inserted, rotations applied,
#: nodes the sibling searches visited, the sibling chosen by the last insert, leaves refitted in place,
#: rebuilds.
STAT_INSERTED, STAT_ROTATIONS, STAT_VISITS, STAT_SIBLING, STAT_REFITTED, STAT_REBUILT = 0, 1, 2, 3, 4, 5
#: The largest finite float: fat boxes are clamped to it so that they stay finite.
BIG = sys.float_info.max


class TreeNodes:
    """The node table of one tree: flat arrays indexed by node, and a free list of nodes.

    Layout, for a capacity of ``c`` nodes:

    ============  ============  ====================================================
    array         shape, dtype  meaning
    ============  ============  ====================================================
    ``box``       (c, 4) f8     ``[XMIN, YMIN, XMAX, YMAX]``: a leaf's **fat** box,
                                an internal node's union of its two children
    ``parent``    (c,) int32    parent node, ``NULL`` (-1) for the root
    ``child1``    (c,) int32    first child, ``NULL`` for a leaf; on a free node:
                                the next free node (the free list's link)
    ``child2``    (c,) int32    second child, ``NULL`` for a leaf
    ``height``    (c,) int32    0 for a leaf, 1 + the taller child's for an internal
                                node, ``FREE`` (-1) for a node on the free list
    ``element``   (c,) int32    a leaf's element slot, ``NULL`` elsewhere
    ``meta``      (4,) int64    ``[ROOT, USED, HEAD, LIVE]``: the root (``NULL`` when
                                empty), nodes handed out, first free node, nodes in use
    ============  ============  ====================================================

    A tree of ``n`` leaves has ``2n - 1`` nodes: 52 bytes per node, about 104
    bytes per element. Freed nodes go on the free list (threaded through
    ``child1``, as in [SO-quadtree]'s free lists) and are reused first, so the
    arrays stop growing once the population is known. Kernels take the seven
    arrays as one tuple, :attr:`arrays`, in that order; they never grow them:
    :meth:`reserve` makes room before a kernel runs. A kernel reads a field
    by its name (``nd[BOX]``, ``nd[ELEMENT]``: module-level integers, compiled
    as constants) or unpacks the whole tuple in one line.
    """

    def __init__(self, capacity: int = 16):
        cap = max(4, int(capacity))
        self.box = np.zeros((cap, 4), np.float64)
        self.parent = np.full(cap, NULL, np.int32)
        self.child1 = np.full(cap, NULL, np.int32)
        self.child2 = np.full(cap, NULL, np.int32)
        self.height = np.full(cap, FREE, np.int32)
        self.element = np.full(cap, NULL, np.int32)
        self.meta = np.array([NULL, 0, NULL, 0], np.int64)

    @property
    def arrays(self) -> tuple:
        """``(box, parent, child1, child2, height, element, meta)``: what every kernel takes as ``nd``."""
        return self.box, self.parent, self.child1, self.child2, self.height, self.element, self.meta

    @property
    def root(self) -> int:
        return int(self.meta[ROOT])

    @property
    def capacity(self) -> int:
        return len(self.parent)

    def n_nodes(self) -> int:
        """Nodes in use (leaves and internal nodes)."""
        return int(self.meta[LIVE])

    def reserve(self, extra: int) -> None:
        """Make sure ``extra`` more nodes can be handed out without growing inside a kernel (doubling)."""
        room = self.capacity - self.n_nodes()  # the unused tail plus the free list
        if room >= extra:
            return
        old = self.capacity
        add = max(old, extra - room)
        if old + add >= 2**31:
            raise ValueError(f"a dynamic AABB tree holds at most {2**31 - 1} nodes, {old + add} needed")
        self.box = np.concatenate([self.box, np.zeros((add, 4), np.float64)])
        self.parent = np.concatenate([self.parent, np.full(add, NULL, np.int32)])
        self.child1 = np.concatenate([self.child1, np.full(add, NULL, np.int32)])
        self.child2 = np.concatenate([self.child2, np.full(add, NULL, np.int32)])
        self.height = np.concatenate([self.height, np.full(add, FREE, np.int32)])
        self.element = np.concatenate([self.element, np.full(add, NULL, np.int32)])

    def clear(self) -> None:
        """Forget every node (keeps the arrays)."""
        self.meta[:] = (NULL, 0, NULL, 0)
        self.height[:] = FREE
        self.parent[:] = NULL
        self.child1[:] = NULL
        self.child2[:] = NULL
        self.element[:] = NULL

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays)

    def levels(self) -> list[np.ndarray]:
        """The nodes reachable from the root, level by level: ``[[root], [its children], ...]`` (int64)."""
        if self.root == NULL:
            return []
        out, frontier = [], np.array([self.root], np.int64)
        while len(frontier):
            out.append(frontier)
            inner = frontier[self.height[frontier] > 0]
            frontier = np.column_stack([self.child1[inner], self.child2[inner]]).ravel().astype(np.int64)
        return out

    def live(self) -> np.ndarray:
        """Nodes reachable from the root, root first (breadth-first), int64."""
        levels = self.levels()
        return np.concatenate(levels) if levels else np.empty(0, np.int64)

    def depths_of_live(self) -> np.ndarray:
        """The depth (root 0) of each node of :meth:`live`, in the same order."""
        levels = self.levels()
        return np.concatenate([np.full(len(v), d, np.int64) for d, v in enumerate(levels)]) if levels \
            else np.empty(0, np.int64)


@njit(inline="always")
def alloc_node(nd):
    """Take a node from the free list, or else from the unused tail (the caller reserved room): a fresh leaf."""
    box, parent, child1, child2, height, element, meta = nd
    v = meta[HEAD]
    if v != NULL:
        meta[HEAD] = child1[v]
    else:
        v = meta[USED]
        meta[USED] += 1
    parent[v] = NULL
    child1[v] = NULL
    child2[v] = NULL
    height[v] = 0
    element[v] = NULL
    meta[LIVE] += 1
    return v


@njit(inline="always")
def free_node(nd, v):
    """Put node ``v`` on the free list: O(1), no node moves."""
    box, parent, child1, child2, height, element, meta = nd
    parent[v] = NULL
    child2[v] = NULL
    element[v] = NULL
    height[v] = FREE
    child1[v] = meta[HEAD]
    meta[HEAD] = v
    meta[LIVE] -= 1


# ==========================================================================
# Section 3, insertion: the surface-area cost (finite at any scale), and refit
# ==========================================================================
@njit(inline="always")
def perimeter_cost(x0, y0, x1, y1):
    """An eighth of the perimeter of ``[x0, y0, x1, y1]``: ``(w + h) / 4``, finite for any finite box.

    Quarters of the coordinates first (exact: a power of two), so no term can overflow; the
    "surface area" of the 2D surface area heuristic ([MacDonald1990]). Lesson 11's ``p`` is the
    whole perimeter ``2 (w + h)``, 8 times this: every cost the tree compares is scaled by the
    same 1/8, so no decision changes, and
    :meth:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree.cost` multiplies by 8 to
    give the lesson's figure.
    """
    return (0.25 * x1 - 0.25 * x0) + (0.25 * y1 - 0.25 * y0)


@njit(inline="always")
def node_cost(box, v):
    """:func:`perimeter_cost` of node ``v``'s box."""
    return perimeter_cost(box[v, XMIN], box[v, YMIN], box[v, XMAX], box[v, YMAX])


@njit(inline="always")
def union_cost(box, v, x0, y0, x1, y1):
    """:func:`perimeter_cost` of the union of node ``v``'s box and ``[x0, y0, x1, y1]``."""
    return perimeter_cost(min(box[v, XMIN], x0), min(box[v, YMIN], y0), max(box[v, XMAX], x1), max(box[v, YMAX], y1))


@njit(inline="always")
def pair_cost(box, u, v):
    """:func:`perimeter_cost` of the union of nodes ``u`` and ``v``."""
    return union_cost(box, u, box[v, XMIN], box[v, YMIN], box[v, XMAX], box[v, YMAX])


@njit(inline="always")
def refit(nd, v):
    """Set internal node ``v``'s box to the union of its children and its height to 1 + the taller's.

    Returns True when the box or the height changed.
    """
    box, parent, child1, child2, height, element, meta = nd
    a, b = child1[v], child2[v]
    x0, y0 = min(box[a, XMIN], box[b, XMIN]), min(box[a, YMIN], box[b, YMIN])
    x1, y1 = max(box[a, XMAX], box[b, XMAX]), max(box[a, YMAX], box[b, YMAX])
    h = 1 + max(height[a], height[b])
    changed = ((x0 != box[v, XMIN]) | (y0 != box[v, YMIN]) | (x1 != box[v, XMAX]) | (y1 != box[v, YMAX])
               | (h != height[v]))
    box[v, XMIN] = x0
    box[v, YMIN] = y0
    box[v, XMAX] = x1
    box[v, YMAX] = y1
    height[v] = h
    return changed


# --------------------------------------------------------------------------
# Section 3. Insertion: the cheapest sibling, a new parent, refit
# --------------------------------------------------------------------------
@njit(inline="always")
def find_best_sibling(nd, x0, y0, x1, y1, stack, costs, stats):
    """The node whose pairing with a new leaf of box ``[x0, y0, x1, y1]`` costs least.

    Pairing the leaf L with a node X makes a new parent of box ``X u L`` and
    enlarges every ancestor A of X to ``A u L``, so the tree's surface-area
    cost grows by

        ``cost(X) = p(X u L) + sum over ancestors A of X of (p(A u L) - p(A))``

    (lesson 11, section 3, and its Exercise 1, ``best_sibling``). Here ``p``
    is :func:`perimeter_cost`, an eighth of the lesson's perimeter ``p``: every
    term of ``cost(X)`` and of the bound below is 1/8 of the lesson's, so the
    comparisons, and the sibling chosen, are the same (the lesson's cost is 8
    times the one computed here). Branch and bound ([Bittner2012],
    [Catto2019]): a depth-first search from the root that carries the
    ancestors' sum (the *inherited* cost); a node below X costs at least the
    inherited cost plus its own enlargement plus ``p(L)``, so a subtree whose
    bound is no better than the best cost found is never entered. The answer
    is the exact minimum over every node of the tree, ties going to the first
    found (the root first, then the cheaper child first).

    Parameters
    ----------
    nd : tuple
        :attr:`TreeNodes.arrays`, of a non-empty tree.
    x0, y0, x1, y1 : float
        The new leaf's (fat) box.
    stack : numpy.ndarray, shape (m,), int32
        Work space for the nodes to visit (grown when the tree is taller).
    costs : numpy.ndarray, shape (m, 2), float64
        Work space: each waiting node's inherited cost and ``p(X u L)``.
    stats : numpy.ndarray, int64
        ``stats[STAT_VISITS]`` counts the nodes visited.

    Returns
    -------
    (best, stack, costs)
        The sibling, and the work arrays (new ones if they had to grow).
    """
    box, parent, child1, child2, height, element, meta = nd
    root = meta[ROOT]
    if stack.shape[0] < height[root] + 2:  # depth first: at most one waiting node per level
        stack = np.empty(2 * (height[root] + 2), np.int32)
        costs = np.empty((stack.shape[0], 2), np.float64)
    area_l = perimeter_cost(x0, y0, x1, y1)
    best = root
    best_cost = union_cost(box, root, x0, y0, x1, y1)
    stack[0] = root
    costs[0, 0] = 0.0
    costs[0, 1] = best_cost
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        inherited, direct = costs[top, 0], costs[top, 1]
        stats[STAT_VISITS] += 1
        cost = inherited + direct
        if cost < best_cost:
            best, best_cost = v, cost
        if height[v] == 0:
            continue
        # every node below v pays v's enlargement on top of what v inherited
        inherited_c = inherited + (direct - node_cost(box, v))
        if inherited_c + area_l >= best_cost:  # nothing below v can do better
            continue
        c1, c2 = child1[v], child2[v]
        d1 = union_cost(box, c1, x0, y0, x1, y1)
        d2 = union_cost(box, c2, x0, y0, x1, y1)
        # a lower bound for c or any node below it: c itself, or below it (c enlarged, plus p(L))
        low1 = inherited_c + d1 + (min(area_l - node_cost(box, c1), 0.0) if height[c1] > 0 else 0.0)
        low2 = inherited_c + d2 + (min(area_l - node_cost(box, c2), 0.0) if height[c2] > 0 else 0.0)
        # push the more promising child last, so that it is searched first
        if low1 <= low2:
            first, d_first, low_first, second, d_second, low_second = c2, d2, low2, c1, d1, low1
        else:
            first, d_first, low_first, second, d_second, low_second = c1, d1, low1, c2, d2, low2
        if low_first < best_cost:
            stack[top] = first
            costs[top, 0] = inherited_c
            costs[top, 1] = d_first
            top += 1
        if low_second < best_cost:
            stack[top] = second
            costs[top, 0] = inherited_c
            costs[top, 1] = d_second
            top += 1
    return best, stack, costs


@njit(inline="always")
def insert_leaf(nd, leaf, work, stats, rotations):
    """Hang the leaf ``leaf`` (its fat box already written) in the tree.

    1. find the sibling S of least cost (:func:`find_best_sibling`);
    2. a new internal node P takes S's place, with children S and the leaf;
    3. walk from P to the root: :func:`refit` each node and, if
       ``rotations``, :func:`rotate` it.

    ``work`` is ``(stack, costs)`` for the sibling search; returns it (grown
    if need be). The caller has reserved one free node.
    """
    box, parent, child1, child2, height, element, meta = nd
    stats[STAT_INSERTED] += 1
    if meta[ROOT] == NULL:
        meta[ROOT] = leaf
        parent[leaf] = NULL
        stats[STAT_SIBLING] = NULL
        return work
    stack, costs = work
    s, stack, costs = find_best_sibling(nd, box[leaf, XMIN], box[leaf, YMIN], box[leaf, XMAX], box[leaf, YMAX],
                                        stack, costs, stats)
    stats[STAT_SIBLING] = s
    p = alloc_node(nd)
    g = parent[s]
    parent[p] = g
    child1[p] = s
    child2[p] = leaf
    parent[s] = p
    parent[leaf] = p
    if g == NULL:
        meta[ROOT] = p
    elif child1[g] == s:
        child1[g] = p
    else:
        child2[g] = p
    # Walk up. A rotation at a node looks at its children and grandchildren, so the walk stops
    # above a node that kept its box and height, did not rotate, and whose child on the path
    # kept its box and height too: nothing any node higher up looks at has changed.
    v = p
    below_same = False
    while v != NULL:
        h0 = height[v]
        changed = refit(nd, v)
        turned = 0
        if rotations:
            turned = rotate(nd, v)
            stats[STAT_ROTATIONS] += turned
        same = not changed and height[v] == h0
        if same and below_same and turned == 0:
            break
        below_same = same
        v = parent[v]
    return stack, costs


@njit
def new_work():
    """Fresh work arrays ``(stack, costs)`` for :func:`find_best_sibling`."""
    return np.empty(64, np.int32), np.empty((64, 2), np.float64)


@njit
def insert_slot(nd, leaf_of, eb, s, margin, stats, rotations):
    """Make a leaf for slot ``s`` (fat box: exact box +- ``margin``) and insert it. Needs two free nodes."""
    box = nd[BOX]
    leaf = alloc_node(nd)
    nd[ELEMENT][leaf] = s
    leaf_of[s] = leaf
    set_fat_box(box, leaf, eb, s, 0.0, 0.0, margin)
    insert_leaf(nd, leaf, new_work(), stats, rotations)


# ==========================================================================
# Section 4. Rotations: repairing the tree on the way up
# ==========================================================================
@njit(inline="always")
def rotate(nd, a):
    """Swap a child of node ``a`` with a grandchild when that lowers the tree's cost ([Kopta2012]).

    ``a`` has children B and C. Four rotations are possible: B with a child
    of C (F or G), or C with a child of B (D or E). ``a``'s own box does not
    change (it holds the same leaves); only the box of the child that receives
    the swapped node does, so the change of the tree's cost is that child's
    new perimeter minus its old one. The rotation that lowers the cost most is
    applied; when none lowers it, one that keeps it equal and makes ``a``
    shorter is (ties broken by height: identical boxes would otherwise
    pile up in one long chain). Returns 1 when a rotation was applied, else 0.
    """
    box, parent, child1, child2, height, element, meta = nd
    best_outer, best_inner, best_deep = NULL, NULL, NULL
    best_delta = 0.0
    best_height = height[a]
    for side in range(2):  # B with F or G (C receives B), then C with D or E (B receives C)
        outer = child1[a] if side == 0 else child2[a]
        inner = child2[a] if side == 0 else child1[a]
        if height[inner] == 0:
            continue  # a leaf has no child to swap
        base = node_cost(box, inner)
        for j in range(2):
            deep = child1[inner] if j == 0 else child2[inner]  # moves up to a
            stay = child2[inner] if j == 0 else child1[inner]  # inner then holds stay and outer
            delta = pair_cost(box, stay, outer) - base
            h = 1 + max(height[deep], 1 + max(height[stay], height[outer]))
            if delta < best_delta or (delta == best_delta and h < best_height):
                best_outer, best_inner, best_deep, best_delta, best_height = outer, inner, deep, delta, h
    if best_deep == NULL:
        return 0
    swap_down(nd, a, best_outer, best_inner, best_deep)
    return 1


@njit(inline="always")
def swap_down(nd, a, outer, inner, deep):
    """Exchange ``outer`` (a child of ``a``) with ``deep`` (a child of ``a``'s other child ``inner``).

    ``deep`` moves up to ``a``, ``outer`` moves down into ``inner``; ``inner``
    is refitted and ``a``'s height recomputed (its box is unchanged).
    """
    box, parent, child1, child2, height, element, meta = nd
    if child1[a] == outer:
        child1[a] = deep
    else:
        child2[a] = deep
    if child1[inner] == deep:
        child1[inner] = outer
    else:
        child2[inner] = outer
    parent[deep] = a
    parent[outer] = inner
    refit(nd, inner)
    height[a] = 1 + max(height[child1[a]], height[child2[a]])


# ==========================================================================
# Remove: the sibling takes the parent's place (told in section 2; kept after the insert it undoes)
# ==========================================================================
@njit(inline="always")
def remove_leaf(nd, leaf):
    """Take ``leaf`` out of the tree (it stays allocated): its sibling takes its parent's place.

    The parent is freed; the ancestors are refitted up to the first one that
    does not change. No rotation: removal only shrinks boxes.
    """
    box, parent, child1, child2, height, element, meta = nd
    p = parent[leaf]
    parent[leaf] = NULL
    if p == NULL:
        meta[ROOT] = NULL
        return
    s = child2[p] if child1[p] == leaf else child1[p]
    g = parent[p]
    free_node(nd, p)
    parent[s] = g
    if g == NULL:
        meta[ROOT] = s
        return
    if child1[g] == p:
        child1[g] = s
    else:
        child2[g] = s
    v = g
    while v != NULL and refit(nd, v):
        v = parent[v]


@njit
def remove_slot(nd, leaf_of, s):
    """Remove slot ``s``'s leaf from the tree and free it."""
    leaf = leaf_of[s]
    remove_leaf(nd, leaf)
    free_node(nd, leaf)
    leaf_of[s] = NULL


# ==========================================================================
# Section 5. Fat boxes and the margin
# ==========================================================================
@njit(inline="always")
def clamp(v):
    """``v`` within the finite float range (a fat box never holds an infinity)."""
    return min(max(v, -BIG), BIG)


@njit(inline="always")
def fat_sides(eb, s, dx, dy, margin):
    """The fat box of slot ``s``: its exact box enlarged by ``margin`` on every side, stretched by ``(dx, dy)``.

    The stretch extends the side the element moves towards (Box2D v2.4's
    predicted displacement, [box2d]): ``dx < 0`` lowers ``xmin``, ``dx > 0``
    raises ``xmax``. Every side is clamped to the finite range, so the fat box
    always contains the exact box and is finite.
    """
    x0, y0 = clamp(eb[s, XMIN] - margin), clamp(eb[s, YMIN] - margin)
    x1, y1 = clamp(eb[s, XMAX] + margin), clamp(eb[s, YMAX] + margin)
    if dx < 0.0:
        x0 = clamp(x0 + dx)
    else:
        x1 = clamp(x1 + dx)
    if dy < 0.0:
        y0 = clamp(y0 + dy)
    else:
        y1 = clamp(y1 + dy)
    return x0, y0, x1, y1


@njit(inline="always")
def displacement(old, k, eb, s, multiplier):
    """``multiplier`` times the move of the box centre from ``old[k]`` to ``eb[s]``, per axis (0 when off)."""
    if multiplier == 0.0:
        return 0.0, 0.0
    dx = (0.5 * eb[s, XMIN] + 0.5 * eb[s, XMAX]) - (0.5 * old[k, XMIN] + 0.5 * old[k, XMAX])
    dy = (0.5 * eb[s, YMIN] + 0.5 * eb[s, YMAX]) - (0.5 * old[k, YMIN] + 0.5 * old[k, YMAX])
    return multiplier * dx, multiplier * dy


@njit(inline="always")
def set_fat_box(box, v, eb, s, dx, dy, margin):
    """Write the fat box of slot ``s`` (:func:`fat_sides`) into node ``v``."""
    x0, y0, x1, y1 = fat_sides(eb, s, dx, dy, margin)
    box[v, XMIN] = x0
    box[v, YMIN] = y0
    box[v, XMAX] = x1
    box[v, YMAX] = y1


@njit(inline="always")
def must_reinsert(box, leaf, eb, s, dx, dy, margin):
    """Must leaf ``leaf`` be re-inserted now that slot ``s`` has the exact box ``eb[s]``?

    Yes when the exact box has left the fat box, or when the fat box has grown
    far larger than the one we would make now: wider or taller by more than 8
    margins (an element that moved fast, with a long predicted displacement,
    and stopped). Otherwise nothing in the tree changes.
    """
    if not ((box[leaf, XMIN] <= eb[s, XMIN]) & (box[leaf, YMIN] <= eb[s, YMIN])
            & (box[leaf, XMAX] >= eb[s, XMAX]) & (box[leaf, YMAX] >= eb[s, YMAX])):
        return True
    x0, y0, x1, y1 = fat_sides(eb, s, dx, dy, margin)
    slack = 8.0 * margin
    return ((0.5 * box[leaf, XMAX] - 0.5 * box[leaf, XMIN]) > (0.5 * x1 - 0.5 * x0) + 0.5 * slack) | (
        (0.5 * box[leaf, YMAX] - 0.5 * box[leaf, YMIN]) > (0.5 * y1 - 0.5 * y0) + 0.5 * slack)

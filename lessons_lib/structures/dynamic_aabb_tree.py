"""The dynamic AABB tree: the broad phase physics engines ship (Box2D's ``b2DynamicTree``).

A binary tree of boxes, built one insertion at a time and kept good while the
boxes move. Every leaf holds one element; every internal node has exactly two
children and stores the union of their boxes. Unlike the R-trees of lesson 09
nothing is ever split: a new leaf is paired with the one node (its **sibling**)
that makes the tree cheapest, a new internal node becomes their parent, and the
boxes on the way to the root are enlarged ("refitted"). There is no world to
choose and no fan-out: boxes of any size and any place go in the same tree.

The module reads like the lesson, one step at a time:

1. **data layout**: one node table over flat arrays (:class:`TreeNodes`) with a
   free list of nodes threaded through it, and ``leaf_of``, the leaf of each slot;
2. **fat AABBs**: a leaf stores its element's box enlarged by ``margin`` and,
   optionally, stretched along the element's last move (the predicted
   displacement times ``displacement_multiplier``), so that most small moves
   change nothing in the tree (:func:`set_fat_box`);
3. **insert**: :func:`find_best_sibling` (the sibling of least surface-area
   cost, found by branch and bound), :func:`insert_leaf` (a new parent above
   it), then walking back to the root: :func:`refit` each ancestor and
   :func:`rotate` it when swapping two of its grandchildren lowers the cost;
4. **remove**: :func:`remove_leaf`: the sibling takes its parent's place;
5. **update**: :func:`update_leaves`: a leaf changes only when its element's
   exact box leaves its fat box (or the fat box has become far too large);
   a few such leaves are re-inserted, a large batch gets new fat boxes in
   place and a refit (:func:`refit_all`), and a rebuild once refits have worn
   the tree down;
6. **query**: :func:`query_tree`: descend where node boxes meet the query,
   test the exact boxes of the elements at the leaves;
7. **pairs**: :func:`tree_pairs`: query the tree with each element's exact
   box, only in the subtrees to the right of its path, so each pair is found
   once; and the **move buffer** (:func:`incremental_pairs`): when few
   elements changed since the last ``pairs()``, only they query the tree and
   the other pairs are kept;
8. **bulk loading** and rebuilding: :func:`build_over_leaves`, a top-down
   binned surface-area build; ``cleanup()`` itself changes nothing (see
   the class notes).

Surface-area cost
-----------------
The cost of a tree is the sum of the "surface areas" of its internal nodes:
the expected number of nodes a random query visits is proportional to it
([MacDonald1990]). In 2D the surface area of a box is its **perimeter**. All
decisions below compare :func:`perimeter_cost`, an eighth of the perimeter
(``(w + h) / 4``), computed in quarters so that it is finite for any finite box:
scaling every cost by 1/8 changes no comparison.

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
[Catto2019] E. Catto, "Dynamic bounding volume hierarchies", GDC 2019 (fat
AABBs, sibling choice by branch and bound, rotations); [box2d] Box2D's
``dynamic_tree.c``; [Bittner2012] insertion by the surface area heuristic with
branch and bound; [Kopta2012] tree rotations; [MacDonald1990] the surface area
heuristic.
"""
from __future__ import annotations

import sys

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import row_overlaps
from ..core.buffers import grow
from ..core.jit import njit
from ..core.params import check_number
from .grid_cells import XMAX, XMIN, YMAX, YMIN

__all__ = [
    "DynamicAABBTree",
    "TreeNodes",
    "NULL",
    "FREE",
    "BOX",
    "PARENT",
    "CHILD1",
    "CHILD2",
    "HEIGHT",
    "ELEMENT",
    "META",
    "ROOT",
    "USED",
    "HEAD",
    "LIVE",
    "perimeter_cost",
    "find_best_sibling",
    "rotate",
    "build_over_leaves",
    "split_range",
    "update_leaves",
    "query_tree",
    "tree_pairs",
    "query_subtrees",
    "incremental_pairs",
    "alloc_node", "free_node", "node_cost", "union_cost", "pair_cost", "refit", "clamp",
    "fat_sides", "displacement", "set_fat_box", "must_reinsert", "swap_down", "insert_leaf",
    "new_work", "insert_slot", "remove_leaf", "remove_slot", "refit_counted", "refit_all",
    "mark_moved", "mark_slots", "empty_move_buffer", "make_leaves", "all_leaves", "internal_cost",
]

# ==========================================================================
# 1. Data layout: the node table
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
#: Fewest leaves ``update_many`` refits in place rather than re-inserting one by one.
MIN_REFIT = 64
#: A batch refits along its leaves' paths when it holds fewer than 1 / PATH_REFIT of the leaves, else the
#: whole tree in one pass (measured on 100,000 agents: paths win at 5-20 % moving, one pass at 40 % and more).
PATH_REFIT = 3
#: Fields of the wear record: the tree's cost after its last build, and what refits have added since.
BUILT, GROWN = 0, 1
#: ``pairs()`` starts from the last call's pairs when at most this fraction of the elements moved since.
INCREMENTAL_FRACTION = 0.25
#: Bins per axis of the top-down surface-area build.
BINS = 16
#: Columns of the build's ``bins`` array ``(BINS, 5)`` float64: the boxes in the bin, then the bounds of their
#: boxes (``[inf, inf, -inf, -inf]`` for an empty bin).
BIN_COUNT, BIN_XMIN, BIN_YMIN, BIN_XMAX, BIN_YMAX = 0, 1, 2, 3, 4
#: Centres whose half spread is below this are cut in the middle of their run, not binned
#: (so that ``BINS / spread`` stays finite).
MIN_SPREAD = 1e-300
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
# Geometry: perimeter costs and unions, finite at any scale
# ==========================================================================
@njit(inline="always")
def perimeter_cost(x0, y0, x1, y1):
    """An eighth of the perimeter of ``[x0, y0, x1, y1]``: ``(w + h) / 4``, finite for any finite box.

    Quarters of the coordinates first (exact: a power of two), so no term can overflow; the
    "surface area" of the 2D surface area heuristic ([MacDonald1990]).
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


# ==========================================================================
# 2. Fat AABBs
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


# ==========================================================================
# 3. Insert: the sibling search, a new parent, refit and rotate on the way up
# ==========================================================================
@njit(inline="always")
def find_best_sibling(nd, x0, y0, x1, y1, stack, costs, stats):
    """The node whose pairing with a new leaf of box ``[x0, y0, x1, y1]`` costs least.

    Pairing the leaf L with a node X makes a new parent of box ``X u L`` and
    enlarges every ancestor A of X to ``A u L``, so the tree's surface-area
    cost grows by

        ``cost(X) = p(X u L) + sum over ancestors A of X of (p(A u L) - p(A))``

    (``p`` is :func:`perimeter_cost`). Branch and bound ([Bittner2012],
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
# 4. Remove
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
# 5. Update: change only what left its fat box
# ==========================================================================
@njit(inline="always")
def refit_counted(nd, v, wear):
    """:func:`refit` node ``v`` and add the change of its cost to ``wear[GROWN]``; True if it changed."""
    before = node_cost(nd[BOX], v)
    changed = refit(nd, v)
    wear[GROWN] += node_cost(nd[BOX], v) - before
    return changed


@njit
def refit_all(nd, wear):
    """Refit every internal node, children before parents (:func:`refit_counted`).

    The order is breadth first from the root, walked backwards. O(n); the
    shape of the tree does not change, only its boxes (which may shrink as
    well as grow).
    """
    box, parent, child1, child2, height, element, meta = nd
    root = meta[ROOT]
    if root == NULL:
        return
    order = np.empty(meta[LIVE], np.int32)
    order[0] = root
    head, tail = 0, 1
    while head < tail:
        v = order[head]
        head += 1
        if height[v] > 0:
            order[tail] = child1[v]
            order[tail + 1] = child2[v]
            tail += 2
    for t in range(tail - 1, -1, -1):
        v = order[t]
        if height[v] > 0:
            refit_counted(nd, v, wear)


@njit
def update_leaves(nd, leaf_of, eb, slots, old, margin, multiplier, refit_fraction, growth, wear, stats,
                  rotations, buffer):
    """The per-frame path: slots ``slots`` have new exact boxes in ``eb`` (their previous ones in ``old``).

    First, for each, :func:`must_reinsert` decides whether its leaf must
    change (its fat box stretched by ``multiplier`` times the centre's move
    from ``old[k]``; ``old`` may be empty when ``multiplier`` is 0). Then the
    leaves that must change are handled in one of two ways:

    * **re-insert** (few of them): each is taken out (:func:`remove_leaf`),
      gets its new fat box and goes back in by :func:`insert_leaf`, sibling
      search and rotations (if ``rotations``) included; the tree stays as good as insertion
      makes it. A removal frees the node the insertion then takes, so no room
      is needed;
    * **refit, and rebuild when the tree has worn** (at least ``MIN_REFIT``
      of them and more than ``refit_fraction`` of the leaves): every one gets
      its new fat box where it is; the ancestors are refitted, along each
      leaf's path up to the first node that does not change (fewer than a
      third of the leaves, ``PATH_REFIT``) or by one bottom-up pass over the
      whole tree (:func:`refit_all`). ``wear = [BUILT, GROWN]`` holds the tree's cost
      after its last build and what refits have added to it since; once that
      is more than ``growth - 1`` times the first, the tree is rebuilt
      top-down (:func:`build_over_leaves`). When nearly everything moves every
      frame, one O(n) pass beats n searches: Box2D v3 enlarges its leaves and
      rebuilds the same way ([box2d]).

    Every slot whose exact box changed at all goes into the move buffer
    ``buffer = (moved, move_list, move_count)`` (:func:`mark_moved`).
    ``stats`` counts the leaves re-inserted or refitted and whether the tree
    was rebuilt. Returns the number of leaves that changed.
    """
    box, parent, child1, child2, height, element, meta = nd
    moved, move_list, move_count = buffer
    k_all = slots.shape[0]
    moving = np.empty(k_all, np.int64)
    stretch = np.empty((k_all, 2), np.float64)
    m = 0
    for k in range(k_all):
        s = slots[k]
        if old.shape[0] > 0 and ((old[k, XMIN] == eb[s, XMIN]) & (old[k, YMIN] == eb[s, YMIN])
                                 & (old[k, XMAX] == eb[s, XMAX]) & (old[k, YMAX] == eb[s, YMAX])):
            continue  # the same box again: its leaf, and its pairs, are what they were
        mark_moved(moved, move_list, move_count, s)
        if old.shape[0] > 0:
            dx, dy = displacement(old, k, eb, s, multiplier)
        else:
            dx, dy = 0.0, 0.0
        if must_reinsert(box, leaf_of[s], eb, s, dx, dy, margin):
            moving[m] = k
            stretch[m, 0] = dx
            stretch[m, 1] = dy
            m += 1
    leaves = (meta[LIVE] + 1) // 2
    if m >= MIN_REFIT and m > refit_fraction * leaves:
        for t in range(m):
            s = slots[moving[t]]
            set_fat_box(box, leaf_of[s], eb, s, stretch[t, 0], stretch[t, 1], margin)
        stats[STAT_REFITTED] += m
        if m * PATH_REFIT < leaves:  # few paths: refit each up to where nothing changes
            for t in range(m):
                v = parent[leaf_of[slots[moving[t]]]]
                while v != NULL and refit_counted(nd, v, wear):
                    v = parent[v]
        else:  # most of the tree: one bottom-up pass
            refit_all(nd, wear)
        if wear[GROWN] > (growth - 1.0) * wear[BUILT]:
            build_over_leaves(nd, all_leaves(nd), True)
            wear[BUILT] = internal_cost(nd)
            wear[GROWN] = 0.0
            stats[STAT_REBUILT] += 1
        return m
    work = new_work()
    for t in range(m):
        s = slots[moving[t]]
        leaf = leaf_of[s]
        remove_leaf(nd, leaf)
        set_fat_box(box, leaf, eb, s, stretch[t, 0], stretch[t, 1], margin)
        work = insert_leaf(nd, leaf, work, stats, rotations)
    return m


# ==========================================================================
# 6. Query
# ==========================================================================
@njit
def query_tree(nd, eb, q0, q1, q2, q3):
    """Slots whose exact boxes meet the closed box ``(q0, q1, q2, q3)``, and the nodes visited.

    Depth first with an explicit stack: a node is entered only when its box
    meets the query; at a leaf, the element's exact box decides.
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
# 7. Pairs: each element's exact box against the subtrees to its right
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
# The move buffer: pairs again only for what moved
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


# ==========================================================================
# 8. Bulk loading and rebuilding: top-down, binned surface-area splits
# ==========================================================================
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
def internal_cost(nd):
    """Sum of :func:`perimeter_cost` over the internal nodes in use (an eighth of the SAH cost)."""
    box, height, meta = nd[BOX], nd[HEIGHT], nd[META]
    total = 0.0
    for v in range(meta[USED]):
        if height[v] > 0:
            total += node_cost(box, v)
    return total


# ==========================================================================
# The structure
# ==========================================================================
@register("dynamic_aabb_tree")
class DynamicAABBTree(BroadPhase):
    """The dynamic AABB tree of physics engines: a binary tree of fat boxes, kept good by rotations.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint (the tree adapts to the boxes, anywhere); see
        :class:`~lessons_lib.base.BroadPhase`.
    margin : float, default 0.1
        World units added on every side of an element's box to make its leaf's
        fat box, ``>= 0``. An element that moves less than that stays in its
        leaf: nothing in the tree changes. 0.1 is Box2D's ``b2_aabbMargin``
        (0.1 length units, [box2d]), a few percent of the agents of lesson 13
        (radius 1-2); larger margins mean fewer re-insertions but larger leaves
        (more candidates per query).
    displacement_multiplier : float, default 0.0
        ``>= 0``. When an element is re-inserted by ``update``, its fat box is
        also stretched, towards where it is going, by this many times its last
        move (the move of its box centre between the old and the new box):
        Box2D v2.4 used 4 (``b2_aabbMultiplier``); Box2D v3 dropped it. 0: off.
    refit_fraction : float, default 0.0
        In ``[0, 1]``. When one ``update_many`` (or ``update``) moves at least
        ``MIN_REFIT`` = 64 leaves out of their fat boxes, and more than this
        fraction of all leaves, the leaves get their new fat boxes in place and
        the tree is refitted instead of re-inserting each one, and rebuilt
        top-down once refits have made it more than ``rebuild_growth - 1``
        (a class attribute, 1.15: 15 %) costlier than after its last build
        (:func:`update_leaves`). The default refits every batch of 64 or more:
        on the Box2D anchor's frames of moving agents (20,000 and 100,000) that
        was about 5 times faster per frame than re-inserting when every agent
        moves, 2.5 times when 5 % do (``benchmarks/anchor_box2d.py``). 1: always
        re-insert (the textbook path: sibling search and rotations for each).

    Raises
    ------
    ValueError
        A bad parameter (the message names it), and everything
        :class:`~lessons_lib.base.BroadPhase` refuses: bad boxes, duplicate ids.
    KeyError
        An unknown id on remove or update.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit, in one
    tree. Fat boxes are clamped to the finite range and costs are computed in
    eighths of perimeters (:func:`perimeter_cost`), so no decision sees an
    inf - inf or a NaN; at extreme scales costs may tie or saturate, which
    changes the shape of the tree, never an answer.

    Insert: the sibling search visits the nodes whose lower bound beats the
    best cost so far (about O(log n) on typical scenes, O(n) at worst), then
    O(height) refits and rotations. Remove: O(height). ``update`` and
    ``update_many``: O(1) for an element still inside its fat box, else a
    remove and an insert, or, for large batches, a refit along the moved
    leaves' paths or of the whole tree (O(n)), plus now and then an
    O(n log n) rebuild; ``stats`` counts what the last call did. Query: the
    nodes whose boxes meet the window. Pairs: one query per element in the
    subtrees to its right (:func:`tree_pairs`), or, when at most a quarter of
    the elements changed since the last ``pairs()``, one query per changed
    element (:func:`incremental_pairs`). ``from_boxes``: a top-down binned
    surface-area build, O(n log n) (:func:`build_over_leaves`).
    ``cleanup()`` does nothing (removals free their nodes at once); a tree
    that refits have worn down is rebuilt by ``update_many`` itself, and
    :meth:`rebuild` rebuilds on demand.
    Memory: 52 bytes per node (``2n - 1`` nodes), 13 per slot (``leaf_of``
    and the move buffer) and 16 per pair kept for the next ``pairs()``:
    about 117 bytes per element plus the pairs, and the element table's 41.

    The height (:attr:`height`) counts levels: 0 when empty, 1 for a single
    leaf (Box2D's ``b2DynamicTree_GetHeight`` is one less).

    References
    ----------
    [Catto2019] E. Catto, "Dynamic bounding volume hierarchies", GDC 2019;
    [box2d] Box2D's ``dynamic_tree.c``; [Bittner2012] J. Bittner, M. Hapala,
    V. Havran, "Fast insertion-based optimization of bounding volume
    hierarchies", 2012; [Kopta2012] D. Kopta et al., "Fast, effective BVH
    updates for animated scenes", I3D 2012; [MacDonald1990] J. D. MacDonald,
    K. S. Booth, "Heuristics for ray tracing using space subdivision", 1990.

    Examples
    --------
    >>> t = DynamicAABBTree(margin=0.5)
    >>> for i, b in enumerate([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6], [2, 0, 4, 1]]):
    ...     t.insert(i, b)
    >>> t.pairs().tolist()
    [[0, 1], [0, 3], [1, 3]]
    >>> t.query([5.5, 5.5, 9, 9]).tolist()
    [2]
    >>> t.update(2, [5.2, 5.2, 6.2, 6.2]); t.stats["inserted"]   # still inside its fat box: nothing moves
    0
    >>> t.update(2, [8, 8, 9, 9]); t.stats["inserted"]           # out of it: re-inserted
    1
    >>> t.height, len(t)
    (4, 4)
    """

    #: ``update_many`` rebuilds a refitted tree whose cost exceeds this many times its cost after the last build.
    rebuild_growth: float = 1.15
    #: Rotate on the way up after each insertion (False: Box2D v3's ``MoveProxy``, for comparison).
    rotations: bool = True
    #: ``update_many`` hands on only the boxes that changed: a body at rest costs the tree nothing.
    update_changed_only = True

    def __init__(self, *, world=None, margin: float = 0.1, displacement_multiplier: float = 0.0,
                 refit_fraction: float = 0.0):
        super().__init__(world=world)
        self.margin = check_number("margin", margin, 0.0, BIG, unit="world units")
        self.displacement_multiplier = check_number("displacement_multiplier", displacement_multiplier, 0.0, BIG)
        self.refit_fraction = check_number("refit_fraction", refit_fraction, 0.0, 1.0)
        self.nodes = TreeNodes()
        self.leaf_of = np.full(16, NULL, np.int32)
        self._stats = np.zeros(6, np.int64)
        self._wear = np.zeros(2, np.float64)  # [BUILT, GROWN], in eighths of perimeters
        # the move buffer: slots changed since the last pairs() (flag per slot, list, count), and its pairs
        self._moved = np.zeros(16, np.bool_)
        self._move_list = np.zeros(16, np.int64)
        self._move_count = np.zeros(1, np.int64)
        self._cache: np.ndarray | None = None
        self.last_query_nodes = 0
        self.last_pairs_incremental = False

    # -- room before a kernel runs -----------------------------------------
    def _prepare(self, extra_nodes: int) -> None:
        """Grow ``leaf_of`` to the element table's capacity and the node table by ``extra_nodes``."""
        cap = self.elements.capacity
        if cap >= 2**31:
            raise ValueError(f"a dynamic AABB tree holds at most {2**31 - 1} element slots, {cap} needed")
        if len(self.leaf_of) < cap:
            more = cap - len(self.leaf_of)
            self.leaf_of = np.concatenate([self.leaf_of, np.full(more, NULL, np.int32)])
            self._moved = np.concatenate([self._moved, np.zeros(more, np.bool_)])
            self._move_list = np.concatenate([self._move_list, np.zeros(more, np.int64)])
        self.nodes.reserve(extra_nodes)

    def _reset_stats(self) -> None:
        self._stats[:] = 0
        self._stats[STAT_SIBLING] = NULL

    @property
    def stats(self) -> dict[str, int]:
        """What the last insert, update or update_many did.

        ``inserted``: leaves (re-)inserted; ``rotations``: rotations applied;
        ``visits``: nodes the sibling searches visited; ``sibling``: the node
        the last insertion paired the new leaf with (-1 for the first leaf);
        ``refitted``: leaves given a new fat box in place (large batches);
        ``rebuilt``: 1 if the tree was rebuilt.
        """
        s = self._stats.tolist()
        return {"inserted": s[STAT_INSERTED], "rotations": s[STAT_ROTATIONS], "visits": s[STAT_VISITS],
                "sibling": s[STAT_SIBLING], "refitted": s[STAT_REFITTED], "rebuilt": s[STAT_REBUILT]}

    @property
    def height(self) -> int:
        """Levels from the root to the deepest leaf: 0 when empty, 1 for one leaf."""
        r = self.nodes.root
        return 0 if r == NULL else int(self.nodes.height[r]) + 1

    # -- insert -----------------------------------------------------------
    def _insert(self, slot, box):
        self._prepare(2)
        self._reset_stats()
        with np.errstate(over="ignore"):  # plain Python only: sums of costs may reach inf (numba is silent)
            insert_slot(self.nodes.arrays, self.leaf_of, self.elements.boxes, int(slot), self.margin, self._stats,
                        bool(self.rotations))
        mark_slots(self._moved, self._move_list, self._move_count, int(slot))

    def _build(self, slots):
        """Bulk load: a leaf per slot, then the top-down binned surface-area build over them."""
        self._prepare(2 * len(slots))
        self._forget_pairs()
        leaves = make_leaves(self.nodes.arrays, self.leaf_of, self.elements.boxes, slots, self.margin)
        with np.errstate(over="ignore"):
            build_over_leaves(self.nodes.arrays, leaves, True)
            self._wear[:] = (internal_cost(self.nodes.arrays), 0.0)

    # -- remove -----------------------------------------------------------
    def _remove(self, slot, box):
        remove_slot(self.nodes.arrays, self.leaf_of, int(slot))
        mark_slots(self._moved, self._move_list, self._move_count, int(slot))

    # -- update -----------------------------------------------------------
    def _update(self, slot, old, new):
        self._update_many(np.array([slot], np.int64), np.ascontiguousarray(old, np.float64).reshape(1, 4), None)

    def _update_many(self, slots, old, new):
        # slots (int64) and old (contiguous float64) come checked from BroadPhase.update_many / update;
        # the new boxes are already in the element table
        self._reset_stats()
        with np.errstate(over="ignore"):
            update_leaves(self.nodes.arrays, self.leaf_of, self.elements.boxes, slots, old, self.margin,
                          self.displacement_multiplier, self.refit_fraction, float(self.rebuild_growth),
                          self._wear, self._stats, bool(self.rotations), self._buffer())

    # -- query and pairs --------------------------------------------------
    def _query(self, box):
        b = box.tolist()
        slots, self.last_query_nodes = query_tree(self.nodes.arrays, self.elements.boxes,
                                                  b[XMIN], b[YMIN], b[XMAX], b[YMAX])
        self.last_query_nodes = int(self.last_query_nodes)
        return slots

    def _buffer(self) -> tuple:
        return self._moved, self._move_list, self._move_count

    def _forget_pairs(self) -> None:
        """Drop the cached pairs and the move buffer (the next ``pairs()`` starts afresh)."""
        empty_move_buffer(*self._buffer())
        self._cache = None

    def _pairs(self):
        """All pairs afresh (:func:`tree_pairs`), or from the last call's and the move buffer
        (:func:`incremental_pairs`) when at most ``INCREMENTAL_FRACTION`` of the elements moved."""
        moved = int(self._move_count[0])
        self.last_pairs_incremental = self._cache is not None and moved <= INCREMENTAL_FRACTION * len(self)
        if self.last_pairs_incremental:
            sp = incremental_pairs(self.nodes.arrays, self.elements.boxes, self.elements.alive, self._cache,
                                   *self._buffer())
        else:
            sp = tree_pairs(self.nodes.arrays, self.elements.boxes)
        empty_move_buffer(*self._buffer())
        self._cache = sp
        return sp

    # -- cleanup, rebuild and bookkeeping ---------------------------------
    def _cleanup(self):
        """Nothing to do: removals free their nodes at once and rotations keep the tree good.

        A tree that has drifted (many moves without rotations would; ours
        rotate on every insertion) can be rebuilt with :meth:`rebuild`.
        """

    def rebuild(self) -> None:
        """Rebuild the internal nodes top-down over the current leaves (their fat boxes kept).

        The binned surface-area build of ``from_boxes`` (:func:`build_over_leaves`),
        O(n log n). Answers are unchanged; the tree's cost usually drops a little.
        """
        with np.errstate(over="ignore"):
            build_over_leaves(self.nodes.arrays, all_leaves(self.nodes.arrays), True)
            self._wear[:] = (internal_cost(self.nodes.arrays), 0.0)

    def _clear(self):
        self.nodes.clear()
        self.leaf_of[:] = NULL
        self._wear[:] = 0.0
        self._forget_pairs()
        self._reset_stats()

    def _nbytes(self):
        cache = 0 if self._cache is None else self._cache.nbytes
        return (self.nodes.nbytes() + self.leaf_of.nbytes + self._stats.nbytes + self._wear.nbytes
                + self._moved.nbytes + self._move_list.nbytes + self._move_count.nbytes + cache)

    def cost(self) -> float:
        """The tree's surface-area cost: the sum of its internal nodes' perimeters, in world units.

        0 for a tree of at most one leaf; ``inf`` when the sum is beyond the
        float range. Proportional to the expected number of nodes a random
        query visits ([MacDonald1990]); what insertion and rotations minimise.
        """
        with np.errstate(over="ignore"):
            return float(8.0 * internal_cost(self.nodes.arrays))

    def fat_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, fat boxes)`` sorted by id: ``(n,)`` int64 and ``(n, 4)`` float64, world units."""
        ids, _ = self.items()
        slots = self.elements.slots_of(ids)
        return ids, self.nodes.box[self.leaf_of[slots]].copy()

    def regions(self):
        """Every node's box and depth (root 0): internal nodes' unions and the leaves' fat boxes."""
        return self.nodes.box[self.nodes.live()].copy(), self.nodes.depths_of_live()

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` naming the first broken invariant.

        Checked: the root has no parent; every internal node has two children
        whose parent it is, its box is exactly their union and its height is
        1 + the taller's; every leaf holds a live slot whose ``leaf_of`` points
        back at it and whose exact box lies inside the leaf's fat box, and
        every fat box is finite; every live slot is in exactly one leaf; the
        nodes in use and the free list together are every node handed out,
        and ``meta`` counts them right.
        """
        nd = self.nodes
        box, parent, child1, child2, height, element, meta = nd.arrays
        eb = self.elements.boxes
        live_slots = set(self.elements.live_slots().tolist())
        root = nd.root
        reached: set[int] = set()
        seen: set[int] = set()
        if root == NULL:
            assert not live_slots, f"empty tree but {len(live_slots)} elements stored"
        else:
            assert parent[root] == NULL, f"root {root} has parent {parent[root]}"
            stack = [root]
            while stack:
                v = stack.pop()
                assert v not in reached, f"node {v} is reached twice"
                reached.add(v)
                assert np.isfinite(box[v]).all(), f"node {v} has a box that is not finite: {box[v].tolist()}"
                if height[v] == 0:
                    s = int(element[v])
                    assert child1[v] == NULL and child2[v] == NULL, f"leaf {v} has children"
                    assert s in live_slots, f"leaf {v} holds slot {s}, which is not stored"
                    assert s not in seen, f"slot {s} is in two leaves"
                    seen.add(s)
                    assert self.leaf_of[s] == v, f"leaf_of[{s}] = {self.leaf_of[s]}, but it is in leaf {v}"
                    fat, exact = box[v], eb[s]
                    assert (fat[XMIN] <= exact[XMIN] and fat[YMIN] <= exact[YMIN]
                            and fat[XMAX] >= exact[XMAX] and fat[YMAX] >= exact[YMAX]), \
                        f"leaf {v}: fat box {fat.tolist()} does not contain the exact box {exact.tolist()} of slot {s}"
                    continue
                assert height[v] > 0, f"node {v} reached from the root has height {height[v]} (free)"
                assert element[v] == NULL, f"internal node {v} holds element {element[v]}"
                a, b = int(child1[v]), int(child2[v])
                assert a != NULL and b != NULL and a != b, f"internal node {v} has children {a}, {b}"
                for c in (a, b):
                    assert parent[c] == v, f"node {c} has parent {parent[c]}, expected {v}"
                    stack.append(c)
                want = [min(box[a, XMIN], box[b, XMIN]), min(box[a, YMIN], box[b, YMIN]),
                        max(box[a, XMAX], box[b, XMAX]), max(box[a, YMAX], box[b, YMAX])]
                assert box[v].tolist() == want, f"node {v} box {box[v].tolist()} != union of its children {want}"
                assert height[v] == 1 + max(height[a], height[b]), \
                    f"node {v} height {height[v]} != 1 + max({height[a]}, {height[b]})"
        assert seen == live_slots, f"{len(live_slots - seen)} stored elements are in no leaf"
        free, h = set(), int(meta[HEAD])
        while h != NULL:
            assert h not in free, "the free list has a cycle"
            assert height[h] == FREE, f"free node {h} has height {height[h]}"
            free.add(h)
            h = int(child1[h])
        assert not (free & reached), f"nodes {sorted(free & reached)[:5]} are both free and in the tree"
        assert len(free) + len(reached) == int(meta[USED]), \
            f"{int(meta[USED]) - len(free) - len(reached)} nodes leaked (neither in the tree nor free)"
        assert int(meta[LIVE]) == len(reached), \
            f"meta counts {int(meta[LIVE])} nodes in use, the tree has {len(reached)}"

    def __repr__(self):
        return (f"{type(self).__name__}(n={len(self)}, margin={self.margin:g}, "
                f"displacement_multiplier={self.displacement_multiplier:g}, height={self.height}, "
                f"nodes={self.nodes.n_nodes()})")

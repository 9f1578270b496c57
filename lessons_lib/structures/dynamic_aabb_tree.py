"""The dynamic AABB tree: the broad phase physics engines ship (Box2D's ``b2DynamicTree``).

A binary tree of boxes, built one insertion at a time and kept good while the
boxes move. Every leaf holds one element; every internal node has exactly two
children and stores the union of their boxes. Unlike the R-trees of lesson 09
nothing is ever split: a new leaf is paired with the one node (its **sibling**)
that makes the tree cheapest, a new internal node becomes their parent, and the
boxes on the way to the root are enlarged ("refitted"). There is no world to
choose and no fan-out: boxes of any size and any place go in the same tree.

Lesson 11 in four modules. This one holds the **update** step and the class
:class:`DynamicAABBTree` (the structure behind the common interface, with
``leaf_of``, the leaf of each slot); the kernels it calls are in its siblings:

* **data layout**, **insert**, **rotations**, **remove** and **fat AABBs**
  (sections 2 to 5), with the surface-area cost every decision compares:
  :mod:`~lessons_lib.structures.aabb_tree_nodes`
  (:class:`~lessons_lib.structures.aabb_tree_nodes.TreeNodes`,
  :func:`~lessons_lib.structures.aabb_tree_nodes.find_best_sibling`,
  :func:`~lessons_lib.structures.aabb_tree_nodes.insert_leaf`,
  :func:`~lessons_lib.structures.aabb_tree_nodes.rotate`,
  :func:`~lessons_lib.structures.aabb_tree_nodes.remove_leaf`,
  :func:`~lessons_lib.structures.aabb_tree_nodes.set_fat_box`);
* **update** (section 5), here: :func:`update_leaves`: a leaf changes only
  when its element's exact box leaves its fat box (or the fat box has become
  far too large); a few such leaves are re-inserted, a large batch gets new
  fat boxes in place and a refit (:func:`refit_all`), and a rebuild once
  refits have worn the tree down (the appendix "how Box2D's tree differs from
  ours");
* **query**, **pairs** and the **move buffer** (sections 1 and 5), with why
  every answer is exact: :mod:`~lessons_lib.structures.aabb_tree_search`
  (:func:`~lessons_lib.structures.aabb_tree_search.query_tree`,
  :func:`~lessons_lib.structures.aabb_tree_search.tree_pairs`,
  :func:`~lessons_lib.structures.aabb_tree_search.incremental_pairs`);
* **bulk loading** and rebuilding, a top-down binned surface-area build (the
  fresh build of section 4): :mod:`~lessons_lib.structures.aabb_tree_build`
  (:func:`~lessons_lib.structures.aabb_tree_build.build_over_leaves`);
  ``cleanup()`` itself changes nothing (see the class notes).

References
----------
The class below cites each work in full: [Catto2019], [box2d], [Bittner2012],
[Kopta2012], [MacDonald1990]. The update step's refit and rebuild of large
batches follow Box2D v3's enlarge-and-rebuild ([box2d]).
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit
from ..core.params import check_number
from .aabb_tree_build import all_leaves, build_over_leaves, internal_cost, make_leaves
from .aabb_tree_nodes import (BIG, BOX, FREE, HEAD, LIVE, NULL, ROOT, STAT_INSERTED, STAT_REBUILT, STAT_REFITTED,
                              STAT_ROTATIONS, STAT_SIBLING, STAT_VISITS, USED, TreeNodes, displacement,
                              insert_leaf, insert_slot, must_reinsert, new_work, node_cost, refit, remove_leaf,
                              remove_slot, set_fat_box)
from .aabb_tree_search import empty_move_buffer, incremental_pairs, mark_moved, mark_slots, query_tree, tree_pairs

__all__ = ["DynamicAABBTree", "update_leaves", "refit_counted", "refit_all", "MIN_REFIT", "PATH_REFIT", "BUILT",
           "GROWN", "INCREMENTAL_FRACTION"]

#: Fewest leaves ``update_many`` refits in place rather than re-inserting one by one.
MIN_REFIT = 64
#: A batch refits along its leaves' paths when it holds fewer than 1 / PATH_REFIT of the leaves, else the
#: whole tree in one pass (measured on 100,000 agents: paths win at 5-20 % moving, one pass at 40 % and more).
PATH_REFIT = 3
#: Fields of the wear record: the tree's cost after its last build, and what refits have added since.
BUILT, GROWN = 0, 1
#: ``pairs()`` starts from the last call's pairs when at most this fraction of the elements moved since.
INCREMENTAL_FRACTION = 0.25


# ==========================================================================
# Update: change only what left its fat box (section 5)
# ==========================================================================
@njit(inline="always")
def refit_counted(nd, v, wear):
    """Refit node ``v`` and add the change of its cost to ``wear[GROWN]``; True if it changed.

    The refit is :func:`~lessons_lib.structures.aabb_tree_nodes.refit`.
    """
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

    First, for each, :func:`~lessons_lib.structures.aabb_tree_nodes.must_reinsert` decides
    whether its leaf must change (its fat box stretched by ``multiplier`` times
    the centre's move from ``old[k]``; ``old`` may be empty when ``multiplier``
    is 0). Then the leaves that must change are handled in one of two ways:

    * **re-insert** (few of them): each is taken out
      (:func:`~lessons_lib.structures.aabb_tree_nodes.remove_leaf`), gets its new fat box and goes
      back in by :func:`~lessons_lib.structures.aabb_tree_nodes.insert_leaf`, sibling search and
      rotations (if ``rotations``) included; the tree stays as good as insertion
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
      top-down (:func:`~lessons_lib.structures.aabb_tree_build.build_over_leaves`). When nearly everything moves every
      frame, one O(n) pass beats n searches: Box2D v3 enlarges its leaves and
      rebuilds the same way ([box2d]).

    Every slot whose exact box changed at all goes into the move buffer
    ``buffer = (moved, move_list, move_count)`` (:func:`~lessons_lib.structures.aabb_tree_search.mark_moved`).
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
    eighths of perimeters (:func:`~lessons_lib.structures.aabb_tree_nodes.perimeter_cost`), so no decision sees an
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
    subtrees to its right (:func:`~lessons_lib.structures.aabb_tree_search.tree_pairs`), or, when at most a
    quarter of the elements changed since the last ``pairs()``, one query per changed
    element (:func:`~lessons_lib.structures.aabb_tree_search.incremental_pairs`). ``from_boxes``: a
    top-down binned surface-area build, O(n log n)
    (:func:`~lessons_lib.structures.aabb_tree_build.build_over_leaves`).
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
        """All pairs afresh, or from the last call's and the move buffer when few elements moved.

        Afresh: :func:`~lessons_lib.structures.aabb_tree_search.tree_pairs`; from the last call's:
        :func:`~lessons_lib.structures.aabb_tree_search.incremental_pairs`, when at most
        ``INCREMENTAL_FRACTION`` of the elements moved.
        """
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

        The binned surface-area build of ``from_boxes``
        (:func:`~lessons_lib.structures.aabb_tree_build.build_over_leaves`), O(n log n). Answers are
        unchanged; the tree's cost usually drops a little.
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
        Lesson 11's cost (section 3): 8 times the sum of
        :func:`~lessons_lib.structures.aabb_tree_nodes.perimeter_cost`, an
        eighth of a perimeter, which is what the kernels compare.
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

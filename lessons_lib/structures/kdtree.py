"""The k-d tree ([Bentley1975]), for boxes: median splits of the centres, exact node bounds.

A k-d tree cuts the set of box centres in two at the median along one axis,
then cuts each half along the other axis, and so on until a node holds at most
``capacity`` boxes. For points that is the whole story; boxes have extent, so
a box whose centre is left of the cut may still reach across it. Instead of
the cut lines, every node therefore stores the **bounds of the boxes below
it** (as an R-tree node does): queries and pairs use those bounds and stay
exact, and they reuse the R-tree kernels of :mod:`lessons_lib.structures.rtree_search`.

The median is found by *selection* (quickselect, the algorithm behind
``np.partition``; O(k) expected) rather than by sorting (O(k log k)): building
costs O(n log n) in total instead of O(n log^2 n). Lesson 10 measures the
difference with :func:`median_by_sort` and :func:`median_by_selection`.

The tree is dynamic in a simple way: an insert walks down by the cuts,
widening bounds on the way, and splits a leaf that overflows; a remove takes
the box out of its leaf and shrinks the bounds back to the root. It can
become unbalanced, and removes never merge leaves; ``cleanup()`` rebuilds it
balanced, and so does an insert that finds the node arrays full.

Kernels take the tree as one tuple ``(node arrays, leaf_of, element boxes)``
and the cuts as ``(centres, split_axis, split_value)``; they read a node array
by its name in the node tuple (``nd[LEVEL]``, ``nd[PARENT]``: the names of
:mod:`~lessons_lib.structures.rtree_nodes`).

References
----------
[Bentley1975] J. L. Bentley, "Multidimensional binary search trees used for
associative searching", Communications of the ACM 18(9), 1975.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.buffers import grow
from ..core.jit import njit
from ..core.params import check_choice, check_int
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .rtree_nodes import (
    BOX,
    CHILD,
    COUNT,
    LEVEL,
    META,
    PARENT,
    ROOT,
    NodeArrays,
    add_entry,
    alloc_node,
    centres_of,
    recompute_box,
    take_entry,
)
from .rtree_quality import NodeViews, check_tree
from .rtree_search import query_with_visits, tree_pairs

__all__ = [
    "KDTree", "median_by_sort", "median_by_selection", "split_at_median", "choose_axis",
    "build_subtree", "kd_insert", "kd_remove",
]

#: Columns of the build stack: the node to fill, the range ``perm[lo:hi]`` of its slots, its depth.
TASK_NODE, TASK_LO, TASK_HI, TASK_DEPTH = 0, 1, 2, 3


# --------------------------------------------------------------------------
# Finding the median: sort vs selection
# --------------------------------------------------------------------------
def median_by_sort(values) -> float:
    """The lower median of ``values`` by sorting them all: O(k log k)."""
    v = np.sort(np.asarray(values, np.float64))
    return float(v[(len(v) - 1) // 2])


def median_by_selection(values) -> float:
    """The lower median of ``values`` by selection (``np.partition``, introselect): O(k) expected."""
    v = np.asarray(values, np.float64)
    h = (len(v) - 1) // 2
    return float(np.partition(v, h)[h])


# --------------------------------------------------------------------------
# Building: median splits with an explicit stack
# --------------------------------------------------------------------------
@njit
def split_at_median(perm, lo, hi, centres, axis):
    """Reorder ``perm[lo:hi]`` so the first half has centres <= the median, the rest >= it.

    Returns the median (the split value), the key of ``perm[lo + k // 2]``.
    Selection, not sorting: Hoare's quickselect (median-of-three pivot) moves
    the indices in place and only ever works on the side that holds the
    median, O(k) expected. It is the algorithm behind ``np.partition``
    (introselect), done here directly on the index array so that no key array
    has to be gathered, partitioned and scattered back.
    """
    kth = lo + (hi - lo) // 2
    left, right = lo, hi - 1
    while right > left:
        mid = (left + right) // 2
        a = centres[perm[left], axis]
        b = centres[perm[mid], axis]
        c = centres[perm[right], axis]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        i, j = left, right
        while i <= j:
            while centres[perm[i], axis] < pivot:
                i += 1
            while centres[perm[j], axis] > pivot:
                j -= 1
            if i <= j:
                perm[i], perm[j] = perm[j], perm[i]
                i += 1
                j -= 1
        # now keys[left..j] <= pivot <= keys[i..right], and keys strictly between equal the pivot
        if kth <= j:
            right = j
        elif kth >= i:
            left = i
        else:
            break
    return centres[perm[kth], axis]


@njit
def choose_axis(perm, lo, hi, centres, depth, by_spread):
    """The axis to cut ``perm[lo:hi]`` along: ``depth % 2`` (Bentley), or the one its centres spread more along."""
    if not by_spread:
        return depth % 2
    x0, y0, x1, y1 = np.inf, np.inf, -np.inf, -np.inf
    for t in range(lo, hi):
        s = perm[t]
        x0 = min(x0, centres[s, 0])
        x1 = max(x1, centres[s, 0])
        y0 = min(y0, centres[s, 1])
        y1 = max(y1, centres[s, 1])
    return 0 if 0.5 * x1 - 0.5 * x0 >= 0.5 * y1 - 0.5 * y0 else 1  # halves: the spreads cannot overflow


@njit
def build_subtree(tr, cuts, v, perm, depth0, capacity, by_spread):
    """Turn node ``v`` into the k-d tree of the slots in ``perm`` (levels and boxes set bottom-up).

    ``cuts`` is ``(centres, split_axis, split_value)``: the key of each slot,
    and each inner node's cut.
    """
    nd, leaf_of, eb = tr
    centres, split_axis, split_value = cuts
    level, count, child = nd[LEVEL], nd[COUNT], nd[CHILD]
    tasks = np.empty((64, 4), np.int64)
    tasks[0, TASK_NODE], tasks[0, TASK_LO], tasks[0, TASK_HI], tasks[0, TASK_DEPTH] = v, 0, perm.shape[0], depth0
    top = 1
    made = np.empty(2 * perm.shape[0] + 2, np.int64)  # nodes in creation order
    nm = 0
    while top > 0:
        top -= 1
        u, lo, hi, depth = tasks[top, TASK_NODE], tasks[top, TASK_LO], tasks[top, TASK_HI], tasks[top, TASK_DEPTH]
        made[nm] = u
        nm += 1
        level[u] = 0
        count[u] = 0
        if hi - lo <= capacity:  # a leaf
            for t in range(lo, hi):
                add_entry(nd, leaf_of, u, perm[t])
            continue
        axis = choose_axis(perm, lo, hi, centres, depth, by_spread)
        split_axis[u] = axis
        split_value[u] = split_at_median(perm, lo, hi, centres, axis)
        level[u] = 1
        mid = lo + (hi - lo) // 2
        for lo2, hi2 in ((lo, mid), (mid, hi)):
            c = alloc_node(nd, 0)
            add_entry(nd, leaf_of, u, c)
            if top == tasks.shape[0]:
                tasks = grow(tasks, top)
            tasks[top, TASK_NODE], tasks[top, TASK_LO], tasks[top, TASK_HI], tasks[top, TASK_DEPTH] = c, lo2, hi2, depth + 1
            top += 1
    for t in range(nm - 1, -1, -1):  # children were made after their parent
        u = made[t]
        if level[u] > 0:
            level[u] = 1 + max(level[child[u, 0]], level[child[u, 1]])
        recompute_box(nd, eb, u)


# --------------------------------------------------------------------------
# Insert and remove
# --------------------------------------------------------------------------
@njit
def kd_insert(tr, cuts, slot, capacity, by_spread):
    """Walk down by the cuts (ties go left), widening bounds; split the leaf if it overflows."""
    nd, leaf_of, eb = tr
    centres, split_axis, split_value = cuts
    box, level, count, parent, child, meta = nd[BOX], nd[LEVEL], nd[COUNT], nd[PARENT], nd[CHILD], nd[META]
    e = eb[slot]
    if meta[ROOT] < 0:
        meta[ROOT] = alloc_node(nd, 0)
    v = meta[ROOT]
    depth = 0
    while True:
        box[v, XMIN] = min(box[v, XMIN], e[XMIN])
        box[v, YMIN] = min(box[v, YMIN], e[YMIN])
        box[v, XMAX] = max(box[v, XMAX], e[XMAX])
        box[v, YMAX] = max(box[v, YMAX], e[YMAX])
        if level[v] == 0:
            break
        v = child[v, 0] if centres[slot, split_axis[v]] <= split_value[v] else child[v, 1]
        depth += 1
    add_entry(nd, leaf_of, v, slot)
    if count[v] > capacity:
        build_subtree(tr, cuts, v, child[v, : count[v]].copy(), depth, capacity, by_spread)
        while parent[v] >= 0:  # the subtree got taller: so may its ancestors
            p = parent[v]
            level[p] = max(level[p], level[v] + 1)
            v = p


@njit
def kd_remove(tr, slot):
    """Take ``slot`` out of its leaf and shrink the bounds up to the root."""
    nd, leaf_of, eb = tr
    v = leaf_of[slot]
    take_entry(nd, v, slot)
    leaf_of[slot] = -1
    while v >= 0:
        recompute_box(nd, eb, v)
        v = nd[PARENT][v]


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("kdtree")
class KDTree(NodeViews, BroadPhase):
    """A k-d tree of box centres whose nodes keep the exact bounds of their boxes.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint; see :class:`~lessons_lib.base.BroadPhase`.
    capacity : int, default 8
        Most boxes in a leaf (>= 1).
    split_axis : {"alternate", "spread"}, default "alternate"
        ``"alternate"``: x at even depths, y at odd ones (Bentley's rule);
        ``"spread"``: the axis along which the node's centres spread more.

    Raises
    ------
    ValueError
        Bad parameters (the message names the parameter), and everything
        :class:`~lessons_lib.base.BroadPhase` refuses: bad boxes, duplicate ids.
    KeyError
        An unknown id on remove or update.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit
    (centres and spreads are computed so that they cannot overflow; bounds
    and queries only compare coordinates).

    ``from_boxes``: O(n log n) with selection for the medians. Insert: O(depth)
    plus a leaf split; remove: O(depth * 2). Removes never merge leaves, so
    when an insert finds the node arrays full after leaves were split, the
    tree is rebuilt (balanced) instead of growing them: memory stays
    proportional to the most elements stored, however long it runs. Query and
    pairs: the shared pruned kernels over the node bounds. Memory: about
    ``(capacity + 1) * 8 + 80`` bytes per node, ``~2 n / capacity`` nodes,
    plus 24 bytes per element (centre, leaf).

    References
    ----------
    [Bentley1975] J. L. Bentley, "Multidimensional binary search trees used
    for associative searching", CACM 18(9), 1975.

    Examples
    --------
    >>> t = KDTree.from_boxes([[0, 0, 1, 1], [0.5, 0.5, 2, 2], [3, 3, 4, 4], [3.5, 0, 4, 0.5]], capacity=1)
    >>> t.height, t.pairs().tolist()
    (3, [[0, 1]])
    >>> t.nearest([[3.0, 1.0]], k=2)[0].tolist()   # box 3 at 0.71 units, then box 1 at 1 unit
    [[3, 1]]
    """

    def __init__(self, *, world=None, capacity: int = 8, split_axis: str = "alternate"):
        super().__init__(world=world)
        self.capacity = check_int("capacity", capacity, 1)
        self.split_axis = check_choice("split_axis", split_axis, ("alternate", "spread"))
        self.nodes = NodeArrays(max(2, self.capacity + 1))
        self._axis = np.zeros(self.nodes.capacity, np.int64)
        self._value = np.zeros(self.nodes.capacity, np.float64)
        self.leaf_of = np.full(16, -1, np.int64)
        self._centres = np.zeros((16, 2), np.float64)
        self._built_nodes = 0  # nodes right after the last (re)build

    @property
    def height(self) -> int:
        """Levels of the longest root-to-leaf path (0 when empty)."""
        return self.nodes.height()

    # -- growth: room before a kernel runs --------------------------------
    def _prepare(self, extra_nodes: int) -> None:
        cap = self.elements.capacity
        if len(self.leaf_of) < cap:
            add = cap - len(self.leaf_of)
            self.leaf_of = np.concatenate([self.leaf_of, np.full(add, -1, np.int64)])
            self._centres = np.concatenate([self._centres, np.zeros((add, 2))])
        self.nodes.reserve(extra_nodes)
        add = self.nodes.capacity - len(self._axis)
        if add > 0:
            self._axis = np.concatenate([self._axis, np.zeros(add, np.int64)])
            self._value = np.concatenate([self._value, np.zeros(add)])

    def _tree(self) -> tuple:
        return self.nodes.arrays, self.leaf_of, self.elements.boxes

    def _cuts(self) -> tuple:
        return self._centres, self._axis, self._value

    def _set_centres(self, slots):
        self._centres[slots] = centres_of(self.elements.boxes[slots])

    def _full(self) -> bool:
        """No room for one more leaf split, and nodes were added since the last build (leaves split by
        inserts are never merged by removes): time to rebuild rather than to grow the arrays."""
        return self.nodes.room() < 2 * self.capacity + 4 and self.nodes.n_nodes() > self._built_nodes

    # -- build, insert, remove -------------------------------------------
    def _rebuild(self) -> None:
        """Build the tree again, balanced, over the stored slots."""
        slots = self.elements.live_slots()
        self.nodes.clear()
        self._built_nodes = 0
        if len(slots) == 0:
            return
        self._prepare(4 * len(slots) // self.capacity + 8)
        self._set_centres(slots)
        root = alloc_node(self.nodes.arrays, 0)
        self.nodes.meta[ROOT] = root
        build_subtree(self._tree(), self._cuts(), root, slots.copy(), 0, self.capacity, self.split_axis == "spread")
        self._built_nodes = self.nodes.n_nodes()

    def _build(self, slots):
        self._rebuild()

    def _insert(self, slot, box):
        if self._full():
            self._rebuild()  # the slot is already in the element table: the new tree holds it
            return
        self._prepare(2 * self.capacity + 4)
        self._set_centres(np.array([slot]))
        kd_insert(self._tree(), self._cuts(), slot, self.capacity, self.split_axis == "spread")

    def _remove(self, slot, box):
        kd_remove(self._tree(), slot)
        if len(self) == 1:  # the last element goes: drop the nodes
            self.nodes.clear()

    def _update_many(self, slots, old, new):
        if len(slots) * 4 > len(self):
            self._rebuild()
        else:
            super()._update_many(slots, old, new)

    def _cleanup(self):
        self._rebuild()

    def _clear(self):
        self.nodes.clear()
        self.leaf_of[:] = -1
        self._built_nodes = 0

    # -- query and pairs --------------------------------------------------
    def _query(self, box):
        return query_with_visits(self.nodes, self.elements.boxes, box)[0]

    def _pairs(self):
        return tree_pairs(self.nodes, self.elements.boxes)

    # -- bookkeeping ------------------------------------------------------
    def _nbytes(self):
        return self.nodes.nbytes() + self.leaf_of.nbytes + self._centres.nbytes + self._axis.nbytes + self._value.nbytes

    def check_invariants(self) -> None:
        """``AssertionError`` if bounds are not exact, a leaf overflows, or a cut does not separate the centres."""
        nd = self.nodes
        if nd.root < 0:
            assert len(self) == 0, "empty tree with stored elements"
            return
        check_tree(self, balanced=False)
        for v in nd.live().tolist():
            if nd.level[v] == 0:
                assert nd.count[v] <= self.capacity, f"leaf {v} holds {nd.count[v]} > {self.capacity}"
                continue
            assert nd.count[v] == 2, f"internal node {v} has {nd.count[v]} children"
            ax, val = int(self._axis[v]), float(self._value[v])
            for side, c in enumerate(nd.child[v, :2].tolist()):
                keys = self._centres[self._subtree_slots(c), ax]
                ok = (keys <= val).all() if side == 0 else (keys >= val).all()
                assert ok, f"node {v}: a centre on the wrong side of the cut {['x', 'y'][ax]} = {val}"

    def _subtree_slots(self, v) -> np.ndarray:
        nd, out, stack = self.nodes, [], [v]
        while stack:
            u = stack.pop()
            ent = nd.child[u, : nd.count[u]].tolist()
            (out.extend if nd.level[u] == 0 else stack.extend)(ent)
        return np.array(out, np.int64)

    def __repr__(self):
        return (f"KDTree(n={len(self)}, capacity={self.capacity}, split_axis={self.split_axis!r}, "
                f"height={self.height}, nodes={self.nodes.n_nodes()})")

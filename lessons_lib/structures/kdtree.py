"""The k-d tree (Bentley 1975), for boxes: median splits of the centres, exact node bounds.

A k-d tree cuts the set of box centres in two at the median along one axis,
then cuts each half along the other axis, and so on until a node holds at most
``capacity`` boxes. For points that is the whole story; boxes have extent, so
a box whose centre is left of the cut may still reach across it. Instead of
the cut lines, every node therefore stores the **bounds of the boxes below
it** (as an R-tree node does): queries and pairs use those bounds and stay
exact, and they reuse the R-tree kernels of :mod:`lessons_lib.structures.rtree_nodes`.

The median is found by *selection* (quickselect, the algorithm behind
``np.partition``; O(k) expected) rather than by sorting (O(k log k)): building
costs O(n log n) in total instead of O(n log^2 n). Lesson 10 measures the
difference with :func:`median_by_sort` and :func:`median_by_selection`.

The tree is dynamic in a simple way: an insert walks down by the cuts,
widening bounds on the way, and splits a leaf that overflows; a remove takes
the box out of its leaf and shrinks the bounds back to the root. It can
become unbalanced; ``cleanup()`` rebuilds it balanced.

References
----------
J. L. Bentley, "Multidimensional binary search trees used for associative
searching", Communications of the ACM 18(9), 1975.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.buffers import grow
from ..core.jit import njit
from ..core.params import check_choice, check_int
from .rtree import add_entry
from .rtree_nodes import (
    NodeArrays,
    NodeViews,
    alloc_node,
    check_tree,
    query_with_visits,
    recompute_box,
    tree_pairs,
)

__all__ = ["KDTree", "median_by_sort", "median_by_selection"]


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
def _split_range(perm, lo, hi, centres, axis):
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
def _choose_axis(perm, lo, hi, centres, depth, by_spread):
    if not by_spread:
        return depth % 2
    x0, y0, x1, y1 = np.inf, np.inf, -np.inf, -np.inf
    for t in range(lo, hi):
        s = perm[t]
        x0 = min(x0, centres[s, 0])
        x1 = max(x1, centres[s, 0])
        y0 = min(y0, centres[s, 1])
        y1 = max(y1, centres[s, 1])
    return 0 if x1 - x0 >= y1 - y0 else 1


@njit
def _build_subtree(v, perm, depth0, centres, capacity, by_spread, box, level, count, parent, child, meta, free,
                   split_axis, split_value, leaf_of, elem_boxes):
    """Turn node ``v`` into the k-d tree of the slots in ``perm`` (levels and boxes set bottom-up)."""
    n = perm.shape[0]
    stack = np.empty((64, 4), np.int64)  # node, lo, hi, depth
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = v, 0, n, depth0
    top = 1
    made = np.empty(2 * n + 2, np.int64)  # nodes in creation order
    nm = 0
    while top > 0:
        top -= 1
        u, lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        made[nm] = u
        nm += 1
        if hi - lo <= capacity:
            level[u] = 0
            count[u] = 0
            for t in range(lo, hi):
                add_entry(u, perm[t], box, level, count, parent, child, leaf_of)
            continue
        axis = _choose_axis(perm, lo, hi, centres, depth, by_spread)
        med = _split_range(perm, lo, hi, centres, axis)
        mid = lo + (hi - lo) // 2
        level[u] = 1
        count[u] = 0
        split_axis[u] = axis
        split_value[u] = med
        for lo2, hi2 in ((lo, mid), (mid, hi)):
            c = alloc_node(0, box, level, count, parent, meta, free)
            add_entry(u, c, box, level, count, parent, child, leaf_of)
            if top + 1 > stack.shape[0]:
                stack = grow(stack, top)
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = c, lo2, hi2, depth + 1
            top += 1
    for t in range(nm - 1, -1, -1):  # children were made after their parent
        u = made[t]
        if level[u] > 0:
            level[u] = 1 + max(level[child[u, 0]], level[child[u, 1]])
        recompute_box(u, box, level, count, child, elem_boxes)


# --------------------------------------------------------------------------
# Insert and remove
# --------------------------------------------------------------------------
@njit
def _kd_insert(slot, centres, capacity, by_spread, box, level, count, parent, child, meta, free,
               split_axis, split_value, leaf_of, elem_boxes):
    """Walk down by the cuts (ties go left), widening bounds; split the leaf if it overflows."""
    e = elem_boxes[slot]
    if meta[0] < 0:
        meta[0] = alloc_node(0, box, level, count, parent, meta, free)
    v = meta[0]
    depth = 0
    while True:
        box[v, 0] = min(box[v, 0], e[0])
        box[v, 1] = min(box[v, 1], e[1])
        box[v, 2] = max(box[v, 2], e[2])
        box[v, 3] = max(box[v, 3], e[3])
        if level[v] == 0:
            break
        v = child[v, 0] if centres[slot, split_axis[v]] <= split_value[v] else child[v, 1]
        depth += 1
    add_entry(v, slot, box, level, count, parent, child, leaf_of)
    if count[v] > capacity:
        perm = child[v, : count[v]].copy()
        _build_subtree(v, perm, depth, centres, capacity, by_spread, box, level, count, parent, child, meta,
                       free, split_axis, split_value, leaf_of, elem_boxes)
        u = v
        while parent[u] >= 0:
            p = parent[u]
            level[p] = max(level[p], level[u] + 1)
            u = p


@njit
def _kd_remove(slot, box, level, count, parent, child, leaf_of, elem_boxes):
    """Take ``slot`` out of its leaf and shrink the bounds up to the root."""
    v = leaf_of[slot]
    n = count[v]
    for t in range(n):
        if child[v, t] == slot:
            child[v, t] = child[v, n - 1]
            break
    count[v] = n - 1
    leaf_of[slot] = -1
    while v >= 0:
        recompute_box(v, box, level, count, child, elem_boxes)
        v = parent[v]


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
    TypeError, ValueError
        Bad parameters.

    Notes
    -----
    ``from_boxes``: O(n log n) with selection for the medians. Insert: O(depth)
    plus a leaf split; remove: O(depth * 2). Query and pairs: the shared
    pruned kernels over the node bounds. Memory: about ``(capacity + 1) * 8 +
    80`` bytes per node, ``~2 n / capacity`` nodes, plus 24 bytes per element
    (centre, leaf).

    References
    ----------
    J. L. Bentley, "Multidimensional binary search trees used for associative
    searching", CACM 18(9), 1975.
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

    # -- layout helpers ---------------------------------------------------
    @property
    def height(self) -> int:
        """Levels of the longest root-to-leaf path (0 when empty)."""
        return self.nodes.height()

    def _prepare(self, extra_nodes: int) -> None:
        cap = self.elements.capacity
        if len(self.leaf_of) < cap:
            grow = cap - len(self.leaf_of)
            self.leaf_of = np.concatenate([self.leaf_of, np.full(grow, -1, np.int64)])
            self._centres = np.concatenate([self._centres, np.zeros((grow, 2))])
        self.nodes.reserve(extra_nodes)
        grow = self.nodes.capacity - len(self._axis)
        if grow > 0:
            self._axis = np.concatenate([self._axis, np.zeros(grow, np.int64)])
            self._value = np.concatenate([self._value, np.zeros(grow)])

    def _args(self):
        nd = self.nodes
        return (nd.box, nd.level, nd.count, nd.parent, nd.child, nd.meta, nd.free, self._axis, self._value,
                self.leaf_of, self.elements.boxes)

    def _set_centres(self, slots):
        b = self.elements.boxes[slots]
        self._centres[slots] = 0.5 * (b[:, :2] + b[:, 2:])

    # -- build, insert, remove -------------------------------------------
    def _rebuild(self) -> None:
        slots = self.elements.live_slots()
        self.nodes.clear()
        if len(slots) == 0:
            return
        self._prepare(4 * len(slots) // self.capacity + 8)
        self._set_centres(slots)
        nd = self.nodes
        root = alloc_node(0, nd.box, nd.level, nd.count, nd.parent, nd.meta, nd.free)
        nd.meta[0] = root
        _build_subtree(root, slots.copy(), 0, self._centres, self.capacity, self.split_axis == "spread",
                       *self._args())

    def _build(self, slots):
        self._rebuild()

    def _insert(self, slot, box):
        self._prepare(2 * self.capacity + 4)
        self._set_centres(np.array([slot]))
        _kd_insert(slot, self._centres, self.capacity, self.split_axis == "spread", *self._args())

    def _remove(self, slot, box):
        nd = self.nodes
        _kd_remove(slot, nd.box, nd.level, nd.count, nd.parent, nd.child, self.leaf_of, self.elements.boxes)
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

    # -- query and pairs --------------------------------------------------
    def _query(self, box):
        return query_with_visits(self.nodes, self.elements.boxes, box)[0]

    def query_visits(self, box) -> tuple[np.ndarray, int]:
        """Like :meth:`query`, plus the number of nodes entered."""
        from ..geometry import as_box

        slots, visits = query_with_visits(self.nodes, self.elements.boxes, as_box(box, name="query box"))
        return np.sort(self.elements.ids[slots]), visits

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
                slots = self._subtree_slots(c)
                keys = self._centres[slots, ax]
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

"""What the tree structures of lessons 09-10 share: flat node arrays, the pruned query, the self-join.

:class:`~lessons_lib.structures.rtree.RTree`, :class:`~lessons_lib.structures.rstar_tree.RStarTree`,
:class:`~lessons_lib.structures.bulk_rtree.BulkRTree` and :class:`~lessons_lib.structures.kdtree.KDTree`
all keep their nodes in the same flat arrays and answer queries, pairs and
nearest neighbours with the same compiled kernels. Only the way nodes are
*made* differs: insertion and splitting ([Guttman1984], [Beckmann1990]),
packing ([Roussopoulos1985], [Leutenegger1997], [Kamel1993]) or median splits
([Bentley1975]).

Layout, for a capacity of ``c`` nodes and a fan-out of ``w`` entries:

==========  ==============  =====================================================
array       shape, dtype    meaning
==========  ==============  =====================================================
``box``     (c, 4) f8       exact bounds of everything under the node
                            (``[inf, inf, -inf, -inf]`` for an empty node)
``level``   (c,) int64      0 for a leaf; a node at level L holds nodes of level
                            L - 1 (R-trees: height above the leaves)
``count``   (c,) int64      number of entries in use
``parent``  (c,) int64      parent node, -1 for the root and for free nodes
``child``   (c, w) int64    entries: element *slots* in a leaf, node indices above
``meta``    (3,) int64      ``[ROOT]`` (-1 when empty), ``[USED]`` nodes handed
                            out, ``[FREED]`` nodes on the free stack
``free``    (c,) int64      stack of freed node indices
==========  ==============  =====================================================

Kernels take these seven arrays as one tuple, ``nd = NodeArrays.arrays``, in
that order, and read a field by its name: ``nd[BOX]``, ``nd[LEVEL]``,
``nd[COUNT]``, ``nd[PARENT]``, ``nd[CHILD]``, ``nd[META]``, ``nd[FREE_STACK]``
(module-level integers, compiled as constants), or unpack the whole tuple in
one line. Boxes are closed ``[xmin, ymin, xmax, ymax]``: touching counts as
intersecting (:mod:`lessons_lib.core.boxes` is the one test).

Coordinates: any finite float64. Areas, margins and overlaps of boxes far
beyond ``2**400`` or below ``2**-400`` would overflow or underflow, so the
kernels that compare them first map the boxes in question onto the unit square
by a power of two (:func:`fit_exponent`, :func:`to_unit`): exact, and the same
decisions as on the boxes themselves at ordinary scales. Distances for
``nearest`` are computed the same way, and compared as ``(exponent,
mantissa)`` keys (:func:`distance_key`), whose order holds at any scale, down
to the denormals near 1e-323 where the distances themselves round to a few
bits and their squares underflow to 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps, rows_overlap
from ..core.buffers import grow
from ..core.jit import njit

__all__ = [
    "MAX_FAN_OUT",
    "NodeArrays",
    "NodeViews",
    "QualityRow",
    "BOX",
    "LEVEL",
    "COUNT",
    "PARENT",
    "CHILD",
    "META",
    "FREE_STACK",
    "ROOT",
    "USED",
    "FREED",
    "tree_quality",
    "quality_table",
    "check_tree",
    "query_with_visits",
    "tree_pairs",
    "overlap_area_sum",
    "tree_nearest",
    "point_box_distance",
    "distance_key",
    "ZERO_EXP",
    "centres_of",
    "fit_exponent",
    "to_unit",
    "unit_boxes", "add_entry", "alloc_node", "recompute_box", "take_entry", "entry_boxes",
    "fit_rows", "free_node", "farther",
]

#: Largest fan-out M (``max_entries``) a tree accepts: every node reserves room for M entries
#: (40 bytes each), so a larger M would allocate gigabytes for a few boxes; the papers' trees
#: use M of 4 to a few hundred.
MAX_FAN_OUT = 4096

EMPTY_BOX = np.array([np.inf, np.inf, -np.inf, -np.inf])
#: Positions in the node tuple ``nd`` (:attr:`NodeArrays.arrays`): the arrays ``box``, ``level``, ``count``,
#: ``parent``, ``child``, ``meta`` and ``free`` (the free stack).
BOX, LEVEL, COUNT, PARENT, CHILD, META, FREE_STACK = 0, 1, 2, 3, 4, 5, 6
#: Columns of ``meta``: the root node, nodes handed out so far, nodes on the free stack.
ROOT, USED, FREED = 0, 1, 2
#: Half-sides within which areas and margins are computed on the boxes as they are.
SAFE_HALF_MIN, SAFE_HALF_MAX = 2.0 ** -400, 2.0 ** 400
#: Distances whose larger component lies outside this range are computed rescaled by 2**600.
NEAR_MIN, NEAR_MAX, NEAR_SCALE = 2.0 ** -500, 2.0 ** 500, 2.0 ** 600
#: The exponent of distance 0 in a :func:`distance_key`: below every other distance's.
ZERO_EXP = -(1 << 40)


# --------------------------------------------------------------------------
# Data layout (and its growth, which happens outside the kernels)
# --------------------------------------------------------------------------
class NodeArrays:
    """The flat node arrays of one tree (see the module docstring for the layout).

    Parameters
    ----------
    width : int
        Entries a node can hold (R-trees: ``M + 1``, one spare for the
        overflow that triggers a split).
    capacity : int
        Initial number of nodes; :meth:`reserve` grows the arrays by doubling.
    """

    def __init__(self, width: int, capacity: int = 16):
        self.width = int(width)
        cap = max(4, int(capacity))
        self.box = np.tile(EMPTY_BOX, (cap, 1))
        self.level = np.zeros(cap, np.int64)
        self.count = np.zeros(cap, np.int64)
        self.parent = np.full(cap, -1, np.int64)
        self.child = np.full((cap, self.width), -1, np.int64)
        self.free = np.zeros(cap, np.int64)
        self.meta = np.array([-1, 0, 0], np.int64)

    @property
    def arrays(self) -> tuple:
        """``(box, level, count, parent, child, meta, free)``: what every kernel takes as ``nd``."""
        return self.box, self.level, self.count, self.parent, self.child, self.meta, self.free

    @property
    def root(self) -> int:
        return int(self.meta[ROOT])

    @property
    def capacity(self) -> int:
        return len(self.level)

    def n_nodes(self) -> int:
        """Nodes in use."""
        return int(self.meta[USED] - self.meta[FREED])

    def room(self) -> int:
        """Nodes that can be handed out before the arrays must grow."""
        return self.capacity - self.n_nodes()

    def height(self) -> int:
        """Levels in the tree (0 when empty, 1 for a lone leaf)."""
        return 0 if self.root < 0 else int(self.level[self.root]) + 1

    def reserve(self, extra: int) -> None:
        """Make sure ``extra`` more nodes can be allocated without growing inside a kernel."""
        if self.room() >= extra:
            return
        old = self.capacity
        add = max(2 * old, old + extra - self.room()) - old
        self.box = np.concatenate([self.box, np.tile(EMPTY_BOX, (add, 1))])
        self.level = np.concatenate([self.level, np.zeros(add, np.int64)])
        self.count = np.concatenate([self.count, np.zeros(add, np.int64)])
        self.parent = np.concatenate([self.parent, np.full(add, -1, np.int64)])
        self.child = np.concatenate([self.child, np.full((add, self.width), -1, np.int64)])
        self.free = np.concatenate([self.free, np.zeros(add, np.int64)])

    def clear(self) -> None:
        self.meta[:] = (-1, 0, 0)
        self.count[:] = 0
        self.parent[:] = -1
        self.box[:] = EMPTY_BOX

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays)

    def live(self) -> np.ndarray:
        """Indices of the nodes reachable from the root, root first (breadth-first)."""
        if self.root < 0:
            return np.empty(0, np.int64)
        out, frontier = [], [self.root]
        while frontier:
            out.extend(frontier)
            frontier = [c for v in frontier if self.level[v] > 0 for c in self.child[v, : self.count[v]].tolist()]
        return np.array(out, np.int64)

    def depths(self, nodes: np.ndarray) -> np.ndarray:
        """Depth of each node below the root (root 0), by following parents."""
        d = np.zeros(len(nodes), np.int64)
        for k, v in enumerate(nodes.tolist()):
            while self.parent[v] >= 0:
                v = int(self.parent[v])
                d[k] += 1
        return d

    def regions(self) -> tuple[np.ndarray, np.ndarray]:
        """Non-empty node rectangles and their depths (root 0), for drawing."""
        nodes = self.live()
        nodes = nodes[self.count[nodes] > 0] if len(nodes) else nodes
        return self.box[nodes].copy(), self.depths(nodes)

    def nodes_by_level(self) -> list[np.ndarray]:
        """Rectangles of the nodes, grouped by depth: entry 0 is ``[root box]``, the last the leaves."""
        rects, depths = self.regions()
        if len(depths) == 0:
            return []
        return [rects[depths == d] for d in range(int(depths.max()) + 1)]


# --------------------------------------------------------------------------
# Node kernels every tree uses
# --------------------------------------------------------------------------
@njit(inline="always")
def alloc_node(nd, level_value):
    """Take a node from the free stack or the unused tail (the caller reserved room); returns it, empty."""
    box, level, count, parent, child, meta, free = nd
    if meta[FREED] > 0:
        meta[FREED] -= 1
        v = free[meta[FREED]]
    else:
        v = meta[USED]
        meta[USED] += 1
    level[v] = level_value
    count[v] = 0
    parent[v] = -1
    box[v, XMIN] = np.inf
    box[v, YMIN] = np.inf
    box[v, XMAX] = -np.inf
    box[v, YMAX] = -np.inf
    return v


@njit(inline="always")
def free_node(nd, v):
    """Return node ``v`` to the free stack."""
    box, level, count, parent, child, meta, free = nd
    count[v] = 0
    parent[v] = -1
    free[meta[FREED]] = v
    meta[FREED] += 1


@njit(inline="always")
def add_entry(nd, leaf_of, v, entry):
    """Append ``entry`` to node ``v`` and point it back at ``v`` (the box is not updated)."""
    box, level, count, parent, child, meta, free = nd
    child[v, count[v]] = entry
    count[v] += 1
    if level[v] == 0:
        leaf_of[entry] = v
    else:
        parent[entry] = v


@njit(inline="always")
def take_entry(nd, v, entry):
    """Remove ``entry`` from node ``v`` (the last entry fills its place; the box is not updated)."""
    count, child = nd[COUNT], nd[CHILD]
    n = count[v]
    for t in range(n):
        if child[v, t] == entry:
            child[v, t] = child[v, n - 1]
            break
    count[v] = n - 1


@njit(inline="always")
def recompute_box(nd, elem_boxes, v):
    """Set ``box[v]`` to the exact union of its entries (the empty box when it has none)."""
    box, level, count, child = nd[BOX], nd[LEVEL], nd[COUNT], nd[CHILD]
    x0, y0, x1, y1 = np.inf, np.inf, -np.inf, -np.inf
    src = elem_boxes if level[v] == 0 else box
    for k in range(count[v]):
        e = child[v, k]
        x0 = min(x0, src[e, XMIN])
        y0 = min(y0, src[e, YMIN])
        x1 = max(x1, src[e, XMAX])
        y1 = max(y1, src[e, YMAX])
    box[v, XMIN] = x0
    box[v, YMIN] = y0
    box[v, XMAX] = x1
    box[v, YMAX] = y1


@njit
def entry_boxes(nd, elem_boxes, v):
    """``(count, 4)`` copy of the boxes of the entries of node ``v``."""
    box, level, count, child = nd[BOX], nd[LEVEL], nd[COUNT], nd[CHILD]
    n = count[v]
    out = np.empty((n, 4), np.float64)
    src = elem_boxes if level[v] == 0 else box
    for t in range(n):
        out[t] = src[child[v, t]]
    return out


# --------------------------------------------------------------------------
# Scale-safe geometry: compare areas of boxes at any scale
# --------------------------------------------------------------------------
@njit(inline="always")
def fit_exponent(x0, y0, x1, y1):
    """0 when areas of boxes inside ``[x0, y0, x1, y1]`` are safe to compute as they are.

    Otherwise the exponent ``e`` of the larger half-side (``m * 2**e``,
    ``0.5 <= m < 1``): :func:`to_unit` then maps the box onto ``[0, 2)``.
    Half-sides are computed as ``0.5 * x1 - 0.5 * x0``, which cannot overflow.
    """
    half = max(0.5 * x1 - 0.5 * x0, 0.5 * y1 - 0.5 * y0)
    if half == 0.0 or SAFE_HALF_MIN <= half <= SAFE_HALF_MAX:
        return 0
    return math.frexp(half)[1]


@njit
def to_unit(v, origin, e):
    """``(v - origin) * 2**-e`` without overflow: exact scaling by a power of two."""
    if e > 0:
        return math.ldexp(0.5 * v - 0.5 * origin, 1 - e)
    return math.ldexp(v - origin, -e)


@njit
def fit_rows(b, n, e, ox, oy):
    """Map rows ``0..n-1`` of ``b`` in place by :func:`to_unit` with exponent ``e`` and corner ``(ox, oy)``."""
    for t in range(n):
        b[t, XMIN] = to_unit(b[t, XMIN], ox, e)
        b[t, YMIN] = to_unit(b[t, YMIN], oy, e)
        b[t, XMAX] = to_unit(b[t, XMAX], ox, e)
        b[t, YMAX] = to_unit(b[t, YMAX], oy, e)


@njit
def unit_boxes(b):
    """``b`` itself when its areas are safe to compare, else a copy mapped onto the unit square."""
    x0, y0, x1, y1 = b[:, XMIN].min(), b[:, YMIN].min(), b[:, XMAX].max(), b[:, YMAX].max()
    e = fit_exponent(x0, y0, x1, y1)
    if e == 0:
        return b
    out = b.copy()
    fit_rows(out, out.shape[0], e, x0, y0)
    return out


@njit
def point_box_distance(b, i, px, py):
    """Euclidean distance from ``(px, py)`` to the closed box ``b[i]`` (0 inside or on it).

    ``sqrt(dx * dx + dy * dy)`` (the brute-force formula) while that neither
    overflows nor underflows; beyond, the same formula on ``dx, dy`` scaled by
    a power of two, so the distance is finite whenever it is below the float limit.
    """
    dx = max(b[i, XMIN] - px, 0.0, px - b[i, XMAX])
    dy = max(b[i, YMIN] - py, 0.0, py - b[i, YMAX])
    s = max(dx, dy)
    if s > NEAR_MAX:
        dx, dy = dx / NEAR_SCALE, dy / NEAR_SCALE
        return math.sqrt(dx * dx + dy * dy) * NEAR_SCALE
    if 0.0 < s < NEAR_MIN:
        dx, dy = dx * NEAR_SCALE, dy * NEAR_SCALE
        return math.sqrt(dx * dx + dy * dy) / NEAR_SCALE
    return math.sqrt(dx * dx + dy * dy)


@njit(inline="always")
def distance_key(b, i, px, py):
    """The distance from ``(px, py)`` to the closed box ``b[i]`` as ``(E, M, d)``: ``d = M * 2**E`` exactly.

    ``0.5 <= M < 1`` and ``E`` an integer (``E = ZERO_EXP``, ``M = 0`` when the
    point is inside or on the box); ``d`` is that value as a float (``inf``
    beyond the float limit). Comparing ``(E, M)`` pairs (:func:`farther`)
    ranks distances at any scale: from the float limit down to the denormals
    near 1e-323, where ``d`` itself is rounded to a few bits (two boxes at
    2 and 2.83 times 5e-324 both come out at 1.5e-323) and squared
    distances underflow to 0. ``sqrt(dx * dx + dy * dy)`` in the safe range,
    else the same formula on ``dx, dy`` scaled by a power of two (exact).
    """
    dx = max(b[i, XMIN] - px, 0.0, px - b[i, XMAX])
    dy = max(b[i, YMIN] - py, 0.0, py - b[i, YMAX])
    s = max(dx, dy)
    if s == 0.0:
        return ZERO_EXP, 0.0, 0.0
    if NEAR_MIN <= s <= NEAR_MAX:
        d = math.sqrt(dx * dx + dy * dy)
        m, e = math.frexp(d)
        return e, m, d
    half = 0
    if s == np.inf:  # the gap itself overflows (a box and a point near opposite float limits): in halves
        dx = max(0.5 * b[i, XMIN] - 0.5 * px, 0.0, 0.5 * px - 0.5 * b[i, XMAX])
        dy = max(0.5 * b[i, YMIN] - 0.5 * py, 0.0, 0.5 * py - 0.5 * b[i, YMAX])
        s, half = max(dx, dy), 1
    e0 = math.frexp(s)[1]
    xs, ys = math.ldexp(dx, -e0), math.ldexp(dy, -e0)
    m, e = math.frexp(math.sqrt(xs * xs + ys * ys))
    return e + e0 + half, m, math.ldexp(m, e + e0 + half)


@njit(inline="always")
def farther(e1, m1, e2, m2):
    """Is the distance ``m1 * 2**e1`` greater than ``m2 * 2**e2`` (keys of :func:`distance_key`)?"""
    return e1 > e2 or (e1 == e2 and m1 > m2)


def centres_of(boxes: np.ndarray) -> np.ndarray:
    """Centres ``(n, 2)`` of ``(n, 4)`` boxes: ``0.5 * (lo + hi)``, or ``0.5 * lo + 0.5 * hi`` where that sum overflows.

    >>> centres_of(np.array([[0.0, 0.0, 2.0, 4.0], [1e308, 0.0, 1.7e308, 0.0]])).tolist()
    [[1.0, 2.0], [1.35e+308, 0.0]]
    """
    lo, hi = boxes[:, :2], boxes[:, 2:]
    with np.errstate(over="ignore"):
        c = 0.5 * (lo + hi)
    bad = ~np.isfinite(c)
    if bad.any():
        c[bad] = 0.5 * lo[bad] + 0.5 * hi[bad]
    return c


# --------------------------------------------------------------------------
# Query: enter a child only when its bounds intersect the query
# --------------------------------------------------------------------------
@njit
def _query_kernel(nd, elem_boxes, q):
    """Slots whose boxes intersect ``q`` and the number of nodes visited.

    Depth-first with an explicit stack. A node is pushed only if its box
    intersects ``q``, so every visited node is one whose bounds meet the query:
    pruning happens at every level, not only at the leaves.
    """
    box, level, count, parent, child, meta, free = nd
    q0, q1, q2, q3 = q[XMIN], q[YMIN], q[XMAX], q[YMAX]
    out = np.empty(16, np.int64)
    k = 0
    visits = 0
    root = meta[ROOT]
    if root < 0 or not row_overlaps(box, root, q0, q1, q2, q3):
        return out[:0], visits
    stack = np.empty(64, np.int64)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        visits += 1
        src = elem_boxes if level[v] == 0 else box
        for t in range(count[v]):
            c = child[v, t]
            if not row_overlaps(src, c, q0, q1, q2, q3):
                continue
            if level[v] == 0:
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k] = c
                k += 1
            else:
                if top == stack.shape[0]:
                    stack = grow(stack, top)
                stack[top] = c
                top += 1
    return out[:k].copy(), visits


def query_with_visits(nodes: NodeArrays, elem_boxes: np.ndarray, box) -> tuple[np.ndarray, int]:
    """Slots intersecting ``box`` and how many nodes the search entered.

    Parameters
    ----------
    nodes : NodeArrays
    elem_boxes : numpy.ndarray, shape (s, 4), float64
        The element table's boxes, indexed by slot.
    box : numpy.ndarray, shape (4,), float64
        A validated closed query box.

    Returns
    -------
    slots : numpy.ndarray of int64
    visits : int
        Nodes whose entries were examined (each one's bounds meet the query).

    Notes
    -----
    O(visits * fan-out). In a good tree ``visits`` is close to the height plus
    the number of leaves holding answers; overlap between siblings adds more.
    """
    slots, visits = _query_kernel(nodes.arrays, elem_boxes, np.asarray(box, np.float64))
    return slots, int(visits)


# --------------------------------------------------------------------------
# Pairs: a self-join of the tree with itself
# --------------------------------------------------------------------------
@njit
def _put(buf, k, a, b):
    """``buf[k] = (a, b)`` in a growable ``(cap, 2)`` int64 buffer; returns the buffer (grown if it was full)."""
    if k == buf.shape[0]:
        buf = grow(buf, k)
    buf[k, 0] = a
    buf[k, 1] = b
    return buf


@njit
def _pairs_kernel(nd, eb):
    """Every intersecting pair of slots, by walking pairs of nodes whose bounds meet.

    Starts from ``(root, root)``. A pair of leaves compares their elements
    (a leaf with itself: each unordered pair once). A pair of the same inner
    node is opened into the pairs ``(c_i, c_j), i <= j`` of its children whose
    bounds meet; a pair of different nodes descends the higher one (both when
    they are at the same level), keeping only children whose bounds meet the
    other side. Every element lives in one leaf, so each pair of elements is
    reported exactly once.
    """
    box, level, count, parent, child, meta, free = nd
    out = np.empty((64, 2), np.int64)
    k = 0
    root = meta[ROOT]
    if root < 0:
        return out[:0]
    todo = np.empty((64, 2), np.int64)  # node pairs whose bounds meet
    todo[0, 0] = root
    todo[0, 1] = root
    top = 1
    while top > 0:
        top -= 1
        a = todo[top, 0]
        b = todo[top, 1]
        if level[a] == 0 and level[b] == 0:  # two leaves (or one with itself): compare elements
            same = a == b
            for i in range(count[a]):
                s = child[a, i]
                if not same and not rows_overlap(eb, s, box, b):
                    continue
                for j in range(i + 1 if same else 0, count[b]):
                    t = child[b, j]
                    if rows_overlap(eb, s, eb, t):
                        if k == out.shape[0]:
                            out = grow(out, k)
                        out[k, 0] = s
                        out[k, 1] = t
                        k += 1
        elif a == b:  # one inner node with itself: each child with itself and with its later siblings
            n = count[a]
            for i in range(n):
                ci = child[a, i]
                if count[ci] == 0:
                    continue
                todo = _put(todo, top, ci, ci)
                top += 1
                for j in range(i + 1, n):
                    cj = child[a, j]
                    if rows_overlap(box, ci, box, cj):
                        todo = _put(todo, top, ci, cj)
                        top += 1
        elif level[a] > level[b]:  # descend the higher node
            for i in range(count[a]):
                ci = child[a, i]
                if rows_overlap(box, ci, box, b):
                    todo = _put(todo, top, ci, b)
                    top += 1
        elif level[b] > level[a]:
            for j in range(count[b]):
                cj = child[b, j]
                if rows_overlap(box, cj, box, a):
                    todo = _put(todo, top, a, cj)
                    top += 1
        else:  # two different inner nodes at one level: descend both
            for i in range(count[a]):
                ci = child[a, i]
                if not rows_overlap(box, ci, box, b):
                    continue
                for j in range(count[b]):
                    cj = child[b, j]
                    if rows_overlap(box, cj, box, ci):
                        todo = _put(todo, top, ci, cj)
                        top += 1
    return out[:k].copy()


def tree_pairs(nodes: NodeArrays, elem_boxes: np.ndarray) -> np.ndarray:
    """``(k, 2)`` int64 slot pairs whose boxes intersect, each unordered pair once.

    Notes
    -----
    A simultaneous descent of the tree against itself (the "spatial join" of
    Brinkhoff, Kriegel and Seeger 1993, on one tree). Cost: the node pairs
    whose bounds meet, plus ``O(fan-out^2)`` tests per pair of leaves that meet.
    """
    return _pairs_kernel(nodes.arrays, elem_boxes)


# --------------------------------------------------------------------------
# Nearest neighbours: branch and bound over the node bounds
# --------------------------------------------------------------------------
@njit
def _keep_if_better(out_slots, out_d, out_e, out_m, m, k, ids, s, e, mm, d):
    """Insert slot ``s`` at distance ``d`` (key ``(e, mm)``) into the sorted ``k`` best of row ``m``.

    Distances are compared by their keys (:func:`distance_key`), so their
    order holds at every scale; equal keys: smaller id first.
    """
    last = out_slots[m, k - 1]
    # an empty place (slot -1) takes any box, even one at distance inf
    if last >= 0 and (farther(e, mm, out_e[m, k - 1], out_m[m, k - 1])
                      or (e == out_e[m, k - 1] and mm == out_m[m, k - 1] and ids[s] > ids[last])):
        return
    j = k - 1
    while j > 0 and (out_slots[m, j - 1] < 0 or farther(out_e[m, j - 1], out_m[m, j - 1], e, mm)
                     or (out_e[m, j - 1] == e and out_m[m, j - 1] == mm and ids[out_slots[m, j - 1]] > ids[s])):
        out_d[m, j] = out_d[m, j - 1]
        out_e[m, j] = out_e[m, j - 1]
        out_m[m, j] = out_m[m, j - 1]
        out_slots[m, j] = out_slots[m, j - 1]
        j -= 1
    out_d[m, j] = d
    out_e[m, j] = e
    out_m[m, j] = mm
    out_slots[m, j] = s


@njit
def _nearest_kernel(nd, elem_boxes, ids, points, k, out_slots, out_d):
    """Fill ``out_slots[m, :k]`` and ``out_d[m, :k]`` for every point; return nodes visited.

    Depth-first branch and bound (Roussopoulos, Kelley and Vincent 1995): keep
    the k best so far sorted by (distance, id); enter a node only if its box is
    no farther than the current k-th best; push the children farthest first so
    the nearest is explored first. Work arrays are allocated once per call.
    """
    box, level, count, parent, child, meta, free = nd
    width = child.shape[1]
    stack = np.empty(64 * width, np.int64)
    se = np.empty(64 * width, np.int64)  # each stacked node's distance key (exponent, mantissa)
    sm = np.empty(64 * width, np.float64)
    ce = np.empty(width, np.int64)
    cm = np.empty(width, np.float64)
    cn = np.empty(width, np.int64)
    out_e = np.empty((points.shape[0], k), np.int64)  # the k best's keys, as out_d holds their distances
    out_m = np.empty((points.shape[0], k), np.float64)
    visits = 0
    root = meta[ROOT]
    for m in range(points.shape[0]):
        px, py = points[m, 0], points[m, 1]
        for j in range(k):
            out_slots[m, j] = -1
            out_d[m, j] = np.inf
            out_e[m, j] = 1 << 40  # farther than any distance
            out_m[m, j] = 1.0
        if root < 0:
            continue
        top = 1
        stack[0] = root
        se[0], sm[0], _ = distance_key(box, root, px, py)
        while top > 0:
            top -= 1
            v = stack[top]
            if farther(se[top], sm[top], out_e[m, k - 1], out_m[m, k - 1]):
                continue
            visits += 1
            if level[v] == 0:
                for t in range(count[v]):
                    s = child[v, t]
                    e, mm, d = distance_key(elem_boxes, s, px, py)
                    _keep_if_better(out_slots, out_d, out_e, out_m, m, k, ids, s, e, mm, d)
                continue
            n = 0
            for t in range(count[v]):  # children sorted farthest first (insertion sort, n <= fan-out)
                c = child[v, t]
                e, mm, _ = distance_key(box, c, px, py)
                if farther(e, mm, out_e[m, k - 1], out_m[m, k - 1]):
                    continue
                j = n
                while j > 0 and farther(e, mm, ce[j - 1], cm[j - 1]):
                    ce[j] = ce[j - 1]
                    cm[j] = cm[j - 1]
                    cn[j] = cn[j - 1]
                    j -= 1
                ce[j] = e
                cm[j] = mm
                cn[j] = c
                n += 1
            if top + n > stack.shape[0]:
                stack = grow(stack, top, top + n)
                se = grow(se, top, top + n)
                sm = grow(sm, top, top + n)
            for j in range(n):
                stack[top] = cn[j]
                se[top] = ce[j]
                sm[top] = cm[j]
                top += 1
    return visits


def tree_nearest(nodes: NodeArrays, elem_boxes: np.ndarray, ids: np.ndarray, points: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Slots of the ``k`` boxes nearest each point, their distances, and nodes visited.

    ``points`` is ``(m, 2)`` float64, validated by the caller; ``ids`` (by slot)
    breaks ties between equal distances (smaller id first). Rows are padded with
    slot -1 and distance inf when fewer than ``k`` boxes are stored.
    """
    slots = np.empty((len(points), k), np.int64)
    dist = np.empty((len(points), k), np.float64)
    visits = _nearest_kernel(nodes.arrays, elem_boxes, ids, np.ascontiguousarray(points, np.float64), k, slots, dist)
    return slots, dist, int(visits)


# --------------------------------------------------------------------------
# Tree quality: area, overlap and margin per level
# --------------------------------------------------------------------------
@njit
def _overlap_kernel(b):
    """Sum of the intersection areas of all unordered pairs of rows of ``b`` (sweep on x)."""
    n = b.shape[0]
    order = np.argsort(b[:, XMIN], kind="mergesort")
    total = 0.0
    for ii in range(n):
        i = order[ii]
        for jj in range(ii + 1, n):
            j = order[jj]
            if b[j, XMIN] > b[i, XMAX]:
                break
            w = min(b[i, XMAX], b[j, XMAX]) - max(b[i, XMIN], b[j, XMIN])
            h = min(b[i, YMAX], b[j, YMAX]) - max(b[i, YMIN], b[j, YMIN])
            if w > 0.0 and h > 0.0:
                total += w * h
    return total


def overlap_area_sum(boxes) -> float:
    """Total pairwise intersection area of the rows of ``boxes`` ((n, 4) float64), in square units.

    O(n log n + pairs whose x-extents meet): sort by xmin, sweep. Beyond the
    float range the sum is ``inf`` (never NaN).
    """
    b = np.ascontiguousarray(boxes, dtype=np.float64).reshape(-1, 4)
    return float(_overlap_kernel(b)) if len(b) > 1 else 0.0


@dataclass(frozen=True)
class QualityRow:
    """One level of a tree: depth 0 is the root, the last row the leaves.

    Attributes
    ----------
    depth : int
    nodes : int
        Non-empty nodes at that depth.
    area : float
        Sum of node areas (square world units): dead space costs visits.
    overlap : float
        Sum of the pairwise intersection areas of the nodes at that depth: a
        query point in an overlap must enter every node that covers it.
    margin : float
        Sum of node perimeters (world units): small margins mean square-ish nodes.
    mean_fill : float
        Average entries per node.
    """

    depth: int
    nodes: int
    area: float
    overlap: float
    margin: float
    mean_fill: float


def tree_quality(tree) -> list[QualityRow]:
    """Per-level quality of a tree structure (anything with a ``.nodes`` :class:`NodeArrays`).

    Returns
    -------
    list of QualityRow
        Root first, leaves last; empty for an empty tree. Sums beyond the float
        range are ``inf``, never NaN.
    """
    nodes: NodeArrays = tree.nodes
    live = nodes.live()
    live = live[nodes.count[live] > 0] if len(live) else live
    if len(live) == 0:
        return []
    depths = nodes.depths(live)
    rows = []
    with np.errstate(over="ignore"):
        for d in range(int(depths.max()) + 1):
            sel = live[depths == d]
            b = nodes.box[sel]
            w, h = b[:, XMAX] - b[:, XMIN], b[:, YMAX] - b[:, YMIN]
            area = np.where((w == 0) | (h == 0), 0.0, w * h)  # a flat node has no area, even infinitely long
            rows.append(QualityRow(d, len(sel), float(area.sum()), overlap_area_sum(b),
                                   float((2 * (w + h)).sum()), float(nodes.count[sel].mean())))
    return rows


def quality_table(rows: list[QualityRow], title: str = "") -> str:
    """The rows of :func:`tree_quality` as an aligned text table."""
    head = f"{'depth':>5} {'nodes':>7} {'fill':>6} {'area':>14} {'overlap':>14} {'margin':>12}"
    lines = ([title] if title else []) + [head]
    for r in rows:
        lines.append(f"{r.depth:>5} {r.nodes:>7,} {r.mean_fill:>6.1f} {r.area:>14,.0f} {r.overlap:>14,.0f} {r.margin:>12,.0f}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Invariants (used by the tests and by the lessons)
# --------------------------------------------------------------------------
def check_tree(tree, *, min_fill: int | None = None, max_fill: int | None = None,
               balanced: bool = True) -> None:
    """Raise ``AssertionError`` naming the first broken invariant of a tree structure.

    Checked: every node's box is exactly the union of its entries; parent
    pointers and ``tree.leaf_of`` agree with the entries; every stored slot is
    in exactly one leaf; fill between ``min_fill`` and ``max_fill`` except at
    the root (an internal root has at least 2 entries); with ``balanced``, all
    leaves at one depth and levels decreasing by one from parent to child.
    """
    nodes: NodeArrays = tree.nodes
    eb = tree.elements.boxes
    live_slots = set(tree.elements.live_slots().tolist())
    root = nodes.root
    if root < 0:
        assert not live_slots, f"empty tree but {len(live_slots)} elements stored"
        return
    assert nodes.parent[root] == -1, "root has a parent"
    seen: set[int] = set()
    leaf_depths = set()
    stack = [(root, 0)]
    while stack:
        v, d = stack.pop()
        n = int(nodes.count[v])
        ent = nodes.child[v, :n]
        if v != root:
            if max_fill is not None:
                assert n <= max_fill, f"node {v} holds {n} > {max_fill} entries"
            if min_fill is not None:
                assert n >= min_fill, f"node {v} holds {n} < {min_fill} entries"
        elif nodes.level[v] > 0:
            assert n >= 2 or not balanced, f"internal root holds {n} entries"
        if nodes.level[v] == 0:
            leaf_depths.add(d)
            src = eb
            for s in ent.tolist():
                assert s in live_slots, f"leaf {v} holds slot {s}, which is not stored"
                assert s not in seen, f"slot {s} is in two leaves"
                assert tree.leaf_of[s] == v, f"leaf_of[{s}] = {tree.leaf_of[s]}, but it is in leaf {v}"
                seen.add(s)
        else:
            src = nodes.box
            for c in ent.tolist():
                assert nodes.parent[c] == v, f"node {c} has parent {nodes.parent[c]}, expected {v}"
                if balanced:
                    assert nodes.level[c] == nodes.level[v] - 1, f"node {c} level {nodes.level[c]} under level {nodes.level[v]}"
                stack.append((c, d + 1))
        if n:
            b = src[ent]
            want = [b[:, XMIN].min(), b[:, YMIN].min(), b[:, XMAX].max(), b[:, YMAX].max()]
        else:
            want = EMPTY_BOX.tolist()
        assert nodes.box[v].tolist() == want, f"node {v} box {nodes.box[v].tolist()} != union of entries {want}"
    assert seen == live_slots, f"{len(live_slots - seen)} stored elements are in no leaf"
    if balanced:
        assert len(leaf_depths) == 1, f"leaves at depths {sorted(leaf_depths)}"


class NodeViews:
    """Drawing, quality and nearest-neighbour views shared by every tree stored in :class:`NodeArrays` (``self.nodes``)."""

    def regions(self):
        """Every non-empty node's box and depth (root 0); the empty tree has none."""
        return self.nodes.regions()

    def nodes_by_level(self) -> list[np.ndarray]:
        """Node rectangles by depth: ``[root], [its children], ..., [leaves]``."""
        return self.nodes.nodes_by_level()

    def quality(self):
        """Per-level node count, area, overlap and margin: :func:`tree_quality`."""
        return tree_quality(self)

    def query_visits(self, box) -> tuple[np.ndarray, int]:
        """Like :meth:`query`, plus the number of nodes the search entered.

        Returns
        -------
        ids : numpy.ndarray, int64, sorted
        visits : int
        """
        from ..geometry import as_box

        slots, visits = query_with_visits(self.nodes, self.elements.boxes, as_box(box, name="query box"))
        return np.sort(self.elements.ids[slots]), visits

    def nearest(self, points, k: int = 1, *, return_visits: bool = False):
        """The ``k`` stored boxes nearest each point (Euclidean distance to the closed box).

        Parameters
        ----------
        points : array_like, shape (m, 2) or (2,), float
            Query points in world units (one point of shape (2,) counts as m = 1).
        k : int, default 1
            Neighbours per point, ``1 <= k <= len(self)``.
        return_visits : bool, default False
            Also return the number of nodes entered (all points together).

        Returns
        -------
        ids : numpy.ndarray, shape (m, k), int64
            Nearest first; equal distances in increasing id order.
        distances : numpy.ndarray, shape (m, k), float64
            Distance from the point to each box: 0 when the point is inside or
            on it; finite whenever the true distance is below the float limit.

        Raises
        ------
        ValueError
            An empty tree, NaN or infinite points, a wrong shape, or ``k``
            outside ``1..len(self)``.

        Notes
        -----
        Branch and bound over the node bounds (Roussopoulos, Kelley and Vincent,
        "Nearest neighbor queries", SIGMOD 1995): a node is entered only while its
        box is no farther than the k-th best found so far, nearest child first.
        About O(log n + k) nodes per point on well-built trees.
        """
        from ..geometry import as_points

        pts = as_points(points).reshape(-1, 2)
        if len(self) == 0:
            raise ValueError(f"nearest needs at least one stored box: this {type(self).__name__} is empty")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(self):
            raise ValueError(f"k must be an integer in 1..{len(self)} (the stored boxes), got {k!r}")
        slots, dist, visits = tree_nearest(self.nodes, self.elements.boxes, self.elements.ids, pts, int(k))
        found = (self.elements.ids[slots], dist)
        return (*found, visits) if return_visits else found

"""The node table the tree structures of lessons 09-10 share: flat node arrays, their kernels, scale-safe geometry.

:class:`~lessons_lib.structures.rtree.RTree`, :class:`~lessons_lib.structures.rstar_tree.RStarTree`,
:class:`~lessons_lib.structures.bulk_rtree.BulkRTree` and :class:`~lessons_lib.structures.kdtree.KDTree`
all keep their nodes in the same flat arrays (lesson 09, "The tree's arrays").
Only the way nodes are *made* differs: insertion and splitting ([Guttman1984],
[Beckmann1990]), packing ([Roussopoulos1985], [Leutenegger1997], [Kamel1993])
or median splits ([Bentley1975]). This module holds the layout, the kernels
that hand out, fill and empty nodes, and the geometry that compares boxes at
any scale. The trees answer queries, pairs and nearest neighbours with the
same compiled kernels, in :mod:`~lessons_lib.structures.rtree_search`; a
tree's quality per level, its invariants and the views every tree class
inherits (:class:`~lessons_lib.structures.rtree_quality.NodeViews`) are in
:mod:`~lessons_lib.structures.rtree_quality`.

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

Coordinates: any finite float64. Areas (:func:`box_area`, :func:`enlarged_by`,
the kernels ChooseLeaf and the splits compare), margins and overlaps of boxes far
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
import sys

import numpy as np

from ..core.boxes import MAX_CORNER, MIN_CORNER, XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit

__all__ = [
    "MAX_FAN_OUT",
    "EMPTY_BOX",
    "NodeArrays",
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
    "alloc_node", "free_node", "add_entry", "take_entry", "recompute_box", "entry_boxes",
    "box_area", "enlarged_by", "fit_exponent", "to_unit", "fit_rows", "unit_boxes",
    "point_box_distance", "distance_key", "farther", "ZERO_EXP",
    "centres_of",
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
#: The largest ``E`` for which ``M * 2**E`` (``0.5 <= M < 1``) is a finite float64.
FLOAT_MAX_EXP = sys.float_info.max_exp


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
@njit
def box_area(x0, y0, x1, y1):
    """Area of the box ``(x0, y0, x1, y1)``, in square units (0 for a flat box).

    Safe to compute (no overflow, no underflow) where :func:`fit_exponent` of
    the boxes compared is 0; elsewhere compare the boxes mapped by :func:`to_unit`.
    """
    return (x1 - x0) * (y1 - y0)


@njit
def enlarged_by(x0, y0, x1, y1, q0, q1, q2, q3):
    """Area the box ``(x0, y0, x1, y1)`` gains by taking in ``(q0, q1, q2, q3)``: what ChooseLeaf minimises."""
    return box_area(min(x0, q0), min(y0, q1), max(x1, q2), max(y1, q3)) - box_area(x0, y0, x1, y1)


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
    e += e0 + half
    return e, m, (math.ldexp(m, e) if e <= FLOAT_MAX_EXP else np.inf)  # plain Python's ldexp raises past the limit


@njit(inline="always")
def farther(e1, m1, e2, m2):
    """Is the distance ``m1 * 2**e1`` greater than ``m2 * 2**e2`` (keys of :func:`distance_key`)?"""
    return e1 > e2 or (e1 == e2 and m1 > m2)


def centres_of(boxes: np.ndarray) -> np.ndarray:
    """Centres ``(n, 2)`` of ``(n, 4)`` boxes: ``0.5 * (lo + hi)``, or ``0.5 * lo + 0.5 * hi`` where that sum overflows.

    >>> centres_of(np.array([[0.0, 0.0, 2.0, 4.0], [1e308, 0.0, 1.7e308, 0.0]])).tolist()
    [[1.0, 2.0], [1.35e+308, 0.0]]
    """
    lo, hi = boxes[:, MIN_CORNER], boxes[:, MAX_CORNER]
    with np.errstate(over="ignore"):
        c = 0.5 * (lo + hi)
    bad = ~np.isfinite(c)
    if bad.any():
        c[bad] = 0.5 * lo[bad] + 0.5 * hi[bad]
    return c


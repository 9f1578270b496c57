"""What the tree structures of lessons 09-10 share: flat node arrays, the pruned query, the self-join.

:class:`~lessons_lib.structures.rtree.RTree`, :class:`~lessons_lib.structures.rstar_tree.RStarTree`,
:class:`~lessons_lib.structures.bulk_rtree.BulkRTree` and :class:`~lessons_lib.structures.kdtree.KDTree`
all keep their nodes in the same flat arrays and answer queries and pairs with
the same two compiled kernels. Only the way nodes are *made* differs: insertion
and splitting (Guttman 1984; Beckmann et al. 1990), packing (Roussopoulos and
Leifker 1985; Leutenegger et al. 1997; Kamel and Faloutsos 1994) or median
splits (Bentley 1975).

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
``meta``    (3,) int64      root (-1 when empty), nodes handed out, free nodes
``free``    (c,) int64      stack of freed node indices (``meta[2]`` of them)
==========  ==============  =====================================================

Boxes are closed ``[xmin, ymin, xmax, ymax]``: touching counts as intersecting.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.buffers import grow
from ..core.jit import njit

__all__ = [
    "NodeArrays",
    "NodeViews",
    "QualityRow",
    "tree_quality",
    "quality_table",
    "check_tree",
    "query_with_visits",
    "tree_pairs",
    "overlap_area_sum",
    "tree_nearest",
]

EMPTY_BOX = np.array([np.inf, np.inf, -np.inf, -np.inf])


# --------------------------------------------------------------------------
# Data layout
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
    def root(self) -> int:
        return int(self.meta[0])

    @property
    def capacity(self) -> int:
        return len(self.level)

    def n_nodes(self) -> int:
        """Nodes in use."""
        return int(self.meta[1] - self.meta[2])

    def height(self) -> int:
        """Levels in the tree (0 when empty, 1 for a lone leaf)."""
        return 0 if self.root < 0 else int(self.level[self.root]) + 1

    def reserve(self, extra: int) -> None:
        """Make sure ``extra`` more nodes can be allocated without growing inside a kernel."""
        have = self.capacity - int(self.meta[1]) + int(self.meta[2])
        if have >= extra:
            return
        old = self.capacity
        new = max(2 * old, old + extra - have)
        grow = new - old
        self.box = np.concatenate([self.box, np.tile(EMPTY_BOX, (grow, 1))])
        self.level = np.concatenate([self.level, np.zeros(grow, np.int64)])
        self.count = np.concatenate([self.count, np.zeros(grow, np.int64)])
        self.parent = np.concatenate([self.parent, np.full(grow, -1, np.int64)])
        self.child = np.concatenate([self.child, np.full((grow, self.width), -1, np.int64)])
        self.free = np.concatenate([self.free, np.zeros(grow, np.int64)])

    def clear(self) -> None:
        self.meta[:] = (-1, 0, 0)
        self.count[:] = 0
        self.parent[:] = -1
        self.box[:] = EMPTY_BOX

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.box, self.level, self.count, self.parent, self.child, self.free, self.meta))

    def live(self) -> np.ndarray:
        """Indices of the nodes reachable from the root, root first (breadth-first)."""
        if self.root < 0:
            return np.empty(0, np.int64)
        out, frontier = [], [self.root]
        while frontier:
            out.extend(frontier)
            nxt = []
            for v in frontier:
                if self.level[v] > 0:
                    nxt.extend(self.child[v, : self.count[v]].tolist())
            frontier = nxt
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
# Small helpers shared by the kernels
# --------------------------------------------------------------------------
@njit
def _hit(b, i, q0, q1, q2, q3):
    """Does row ``i`` of ``b`` intersect the closed box ``(q0, q1, q2, q3)``?"""
    return b[i, 0] <= q2 and q0 <= b[i, 2] and b[i, 1] <= q3 and q1 <= b[i, 3]


@njit
def recompute_box(v, box, level, count, child, elem_boxes):
    """Set ``box[v]`` to the exact union of its entries (the empty box when it has none)."""
    x0, y0, x1, y1 = np.inf, np.inf, -np.inf, -np.inf
    src = elem_boxes if level[v] == 0 else box
    for k in range(count[v]):
        e = child[v, k]
        x0 = min(x0, src[e, 0])
        y0 = min(y0, src[e, 1])
        x1 = max(x1, src[e, 2])
        y1 = max(y1, src[e, 3])
    box[v, 0] = x0
    box[v, 1] = y0
    box[v, 2] = x1
    box[v, 3] = y1


@njit
def alloc_node(level_value, box, level, count, parent, meta, free):
    """Take a node from the free stack or the unused tail (the caller reserved room)."""
    if meta[2] > 0:
        meta[2] -= 1
        v = free[meta[2]]
    else:
        v = meta[1]
        meta[1] += 1
    level[v] = level_value
    count[v] = 0
    parent[v] = -1
    box[v, 0] = np.inf
    box[v, 1] = np.inf
    box[v, 2] = -np.inf
    box[v, 3] = -np.inf
    return v


@njit
def free_node(v, count, parent, meta, free):
    """Return node ``v`` to the free stack."""
    count[v] = 0
    parent[v] = -1
    free[meta[2]] = v
    meta[2] += 1


# --------------------------------------------------------------------------
# Query: enter a child only when its bounds intersect the query
# --------------------------------------------------------------------------
@njit
def _query_kernel(root, box, level, count, child, elem_boxes, q):
    """Slots whose boxes intersect ``q`` and the number of nodes visited.

    Depth-first with an explicit stack. A node is pushed only if its box
    intersects ``q``, so every visited node is one whose bounds meet the query:
    pruning happens at every level, not only at the leaves.
    """
    out = np.empty(16, np.int64)
    k = 0
    visits = 0
    if root < 0:
        return out[:0], visits
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    if not _hit(box, root, q0, q1, q2, q3):
        return out[:0], visits
    stack = np.empty(64, np.int64)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        visits += 1
        if level[v] == 0:
            for t in range(count[v]):
                s = child[v, t]
                if _hit(elem_boxes, s, q0, q1, q2, q3):
                    if k == out.shape[0]:
                        out = grow(out, k)
                    out[k] = s
                    k += 1
        else:
            for t in range(count[v]):
                c = child[v, t]
                if _hit(box, c, q0, q1, q2, q3):
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
    slots, visits = _query_kernel(nodes.meta[0], nodes.box, nodes.level, nodes.count, nodes.child,
                                  elem_boxes, np.asarray(box, np.float64))
    return slots, int(visits)


# --------------------------------------------------------------------------
# Pairs: a self-join of the tree with itself
# --------------------------------------------------------------------------
@njit
def _emit(out, k, a, b):
    """``out[k] = (a, b)`` in a growable ``(cap, 2)`` int64 buffer (result or stack); returns the buffer."""
    if k == out.shape[0]:
        out = grow(out, k)
    out[k, 0] = a
    out[k, 1] = b
    return out


@njit
def _pairs_kernel(root, box, level, count, child, eb):
    """Every intersecting pair of slots, by walking pairs of nodes whose bounds meet.

    Starts from ``(root, root)``. A pair of the same node is opened into the
    pairs ``(c_i, c_j), i <= j`` of its children; a pair of different nodes
    descends the higher one (both when they are at the same level), keeping
    only children whose bounds meet the other side. Every element lives in one
    leaf, so each pair of elements is reported exactly once.
    """
    out = np.empty((64, 2), np.int64)
    k = 0
    if root < 0:
        return out[:0]
    stack = np.empty((64, 2), np.int64)
    stack[0, 0] = root
    stack[0, 1] = root
    top = 1
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        if a == b:
            n = count[a]
            if level[a] == 0:
                for i in range(n):
                    s = child[a, i]
                    x0, y0, x1, y1 = eb[s, 0], eb[s, 1], eb[s, 2], eb[s, 3]
                    for j in range(i + 1, n):
                        t = child[a, j]
                        if eb[t, 0] <= x1 and x0 <= eb[t, 2] and eb[t, 1] <= y1 and y0 <= eb[t, 3]:
                            if k == out.shape[0]:
                                out = _emit(out, k, s, t)
                            else:
                                out[k, 0] = s
                                out[k, 1] = t
                            k += 1
            else:
                for i in range(n):
                    ci = child[a, i]
                    if count[ci] == 0:
                        continue
                    stack = _emit(stack, top, ci, ci)
                    top += 1
                    for j in range(i + 1, n):
                        cj = child[a, j]
                        if _hit(box, cj, box[ci, 0], box[ci, 1], box[ci, 2], box[ci, 3]):
                            stack = _emit(stack, top, ci, cj)
                            top += 1
        elif level[a] == 0 and level[b] == 0:
            for i in range(count[a]):
                s = child[a, i]
                x0, y0, x1, y1 = eb[s, 0], eb[s, 1], eb[s, 2], eb[s, 3]
                if not (box[b, 0] <= x1 and x0 <= box[b, 2] and box[b, 1] <= y1 and y0 <= box[b, 3]):
                    continue
                for j in range(count[b]):
                    t = child[b, j]
                    if eb[t, 0] <= x1 and x0 <= eb[t, 2] and eb[t, 1] <= y1 and y0 <= eb[t, 3]:
                        if k == out.shape[0]:
                            out = _emit(out, k, s, t)
                        else:
                            out[k, 0] = s
                            out[k, 1] = t
                        k += 1
        elif level[a] > level[b]:
            for i in range(count[a]):
                ci = child[a, i]
                if _hit(box, ci, box[b, 0], box[b, 1], box[b, 2], box[b, 3]):
                    stack = _emit(stack, top, ci, b)
                    top += 1
        elif level[b] > level[a]:
            for j in range(count[b]):
                cj = child[b, j]
                if _hit(box, cj, box[a, 0], box[a, 1], box[a, 2], box[a, 3]):
                    stack = _emit(stack, top, a, cj)
                    top += 1
        else:
            for i in range(count[a]):
                ci = child[a, i]
                if not _hit(box, ci, box[b, 0], box[b, 1], box[b, 2], box[b, 3]):
                    continue
                for j in range(count[b]):
                    cj = child[b, j]
                    if _hit(box, cj, box[ci, 0], box[ci, 1], box[ci, 2], box[ci, 3]):
                        stack = _emit(stack, top, ci, cj)
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
    return _pairs_kernel(nodes.meta[0], nodes.box, nodes.level, nodes.count, nodes.child, elem_boxes)


# --------------------------------------------------------------------------
# Tree quality: area, overlap and margin per level
# --------------------------------------------------------------------------
@njit
def _overlap_kernel(b):
    """Sum of the intersection areas of all unordered pairs of rows of ``b`` (sweep on x)."""
    n = b.shape[0]
    order = np.argsort(b[:, 0], kind="mergesort")
    total = 0.0
    for ii in range(n):
        i = order[ii]
        for jj in range(ii + 1, n):
            j = order[jj]
            if b[j, 0] > b[i, 2]:
                break
            w = min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0])
            h = min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1])
            if w > 0.0 and h > 0.0:
                total += w * h
    return total


def overlap_area_sum(boxes) -> float:
    """Total pairwise intersection area of the rows of ``boxes`` ((n, 4) float64), in square units.

    O(n log n + pairs whose x-extents meet): sort by xmin, sweep.
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
        Root first, leaves last; empty for an empty tree.
    """
    nodes: NodeArrays = tree.nodes
    live = nodes.live()
    live = live[nodes.count[live] > 0] if len(live) else live
    if len(live) == 0:
        return []
    depths = nodes.depths(live)
    rows = []
    for d in range(int(depths.max()) + 1):
        sel = live[depths == d]
        b = nodes.box[sel]
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        rows.append(QualityRow(d, len(sel), float((w * h).sum()), overlap_area_sum(b),
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
            want = [b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()]
        else:
            want = EMPTY_BOX.tolist()
        assert nodes.box[v].tolist() == want, f"node {v} box {nodes.box[v].tolist()} != union of entries {want}"
    assert seen == live_slots, f"{len(live_slots - seen)} stored elements are in no leaf"
    if balanced:
        assert len(leaf_depths) == 1, f"leaves at depths {sorted(leaf_depths)}"


# --------------------------------------------------------------------------
# Nearest neighbours: branch and bound over the node bounds
# --------------------------------------------------------------------------
@njit
def _box_dist2(b, i, px, py):
    """Squared Euclidean distance from ``(px, py)`` to the closed box ``b[i]`` (0 inside or on it)."""
    dx = max(b[i, 0] - px, 0.0, px - b[i, 2])
    dy = max(b[i, 1] - py, 0.0, py - b[i, 3])
    return dx * dx + dy * dy


@njit
def _nearest_kernel(root, box, level, count, child, elem_boxes, ids, points, k, out_slots, out_d2):
    """Fill ``out_slots[m, :k]`` and ``out_d2[m, :k]`` for every point; return nodes visited.

    Depth-first branch and bound (Roussopoulos, Kelley and Vincent 1995): keep
    the k best so far sorted by (distance, id); enter a node only if its box is
    no farther than the current k-th best; push the children farthest first so
    the nearest is explored first. Work arrays are allocated once per call.
    """
    width = child.shape[1]
    stack = np.empty(64 * width, np.int64)
    sd2 = np.empty(64 * width, np.float64)
    cd = np.empty(width, np.float64)
    cn = np.empty(width, np.int64)
    visits = 0
    for m in range(points.shape[0]):
        px, py = points[m, 0], points[m, 1]
        for j in range(k):
            out_slots[m, j] = -1
            out_d2[m, j] = np.inf
        if root < 0:
            continue
        top = 1
        stack[0] = root
        sd2[0] = _box_dist2(box, root, px, py)
        while top > 0:
            top -= 1
            v = stack[top]
            if sd2[top] > out_d2[m, k - 1]:
                continue
            visits += 1
            if level[v] == 0:
                for t in range(count[v]):
                    s = child[v, t]
                    d = _box_dist2(elem_boxes, s, px, py)
                    worst, last = out_d2[m, k - 1], out_slots[m, k - 1]
                    # an empty place (slot -1) takes any box, even one whose d2 overflowed to inf
                    if last >= 0 and (d > worst or (d == worst and ids[s] > ids[last])):
                        continue
                    j = k - 1  # insertion into the sorted k best, ties broken by id
                    while j > 0 and (out_slots[m, j - 1] < 0 or out_d2[m, j - 1] > d
                                     or (out_d2[m, j - 1] == d and ids[out_slots[m, j - 1]] > ids[s])):
                        out_d2[m, j] = out_d2[m, j - 1]
                        out_slots[m, j] = out_slots[m, j - 1]
                        j -= 1
                    out_d2[m, j] = d
                    out_slots[m, j] = s
            else:
                n = 0
                for t in range(count[v]):  # children sorted farthest first (insertion sort, n <= fan-out)
                    c = child[v, t]
                    d = _box_dist2(box, c, px, py)
                    if d > out_d2[m, k - 1]:
                        continue
                    j = n
                    while j > 0 and cd[j - 1] < d:
                        cd[j] = cd[j - 1]
                        cn[j] = cn[j - 1]
                        j -= 1
                    cd[j] = d
                    cn[j] = c
                    n += 1
                if top + n > stack.shape[0]:
                    stack = grow(stack, top, top + n)
                    sd2 = grow(sd2, top, top + n)
                for j in range(n):
                    stack[top] = cn[j]
                    sd2[top] = cd[j]
                    top += 1
    return visits


def tree_nearest(nodes: NodeArrays, elem_boxes: np.ndarray, ids: np.ndarray, points: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Slots of the ``k`` boxes nearest each point, squared distances, and nodes visited.

    ``points`` is ``(m, 2)`` float64, validated by the caller; ``ids`` (by slot)
    breaks ties between equal distances (smaller id first). Rows are padded with
    slot -1 and distance inf when fewer than ``k`` boxes are stored.
    """
    slots = np.empty((len(points), k), np.int64)
    d2 = np.empty((len(points), k), np.float64)
    visits = _nearest_kernel(nodes.meta[0], nodes.box, nodes.level, nodes.count, nodes.child,
                             elem_boxes, ids, np.ascontiguousarray(points, np.float64), k, slots, d2)
    return slots, d2, int(visits)


class NodeViews:
    """Drawing and quality views shared by every tree stored in :class:`NodeArrays` (``self.nodes``)."""

    def regions(self):
        """Every non-empty node's box and depth (root 0); the empty tree has none."""
        return self.nodes.regions()

    def nodes_by_level(self) -> list[np.ndarray]:
        """Node rectangles by depth: ``[root], [its children], ..., [leaves]``."""
        return self.nodes.nodes_by_level()

    def quality(self):
        """Per-level node count, area, overlap and margin: :func:`tree_quality`."""
        return tree_quality(self)

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
            Distance from the point to each box: 0 when the point is inside or on it.

        Raises
        ------
        ValueError
            NaN or infinite points, a wrong shape, or ``k`` outside ``1..len(self)``.

        Notes
        -----
        Branch and bound over the node bounds (Roussopoulos, Kelley and Vincent,
        "Nearest neighbor queries", SIGMOD 1995): a node is entered only while its
        box is no farther than the k-th best found so far, nearest child first.
        About O(log n + k) nodes per point on well-built trees.
        """
        from ..geometry import as_points

        pts = as_points(points).reshape(-1, 2)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(self):
            raise ValueError(f"k must be an integer in 1..{len(self)} (the stored boxes), got {k!r}")
        slots, d2, visits = tree_nearest(self.nodes, self.elements.boxes, self.elements.ids, pts, int(k))
        found = (self.elements.ids[slots], np.sqrt(d2))
        return (*found, visits) if return_visits else found

"""How good a tree of lessons 09-10 is: area, overlap and margin per level; its invariants; its class's views.

Lesson 09 prints a tree's levels with :func:`quality_table` (section 1) and
compares the split heuristics by their overlap (section 4, "Overlap, and why
it hurts queries", from :func:`tree_quality`); lesson 10 does the same for
the packed trees and the k-d tree. The tests check every tree with
:func:`check_tree`.

:class:`NodeViews` is what every tree class of
:mod:`~lessons_lib.structures.rtree_nodes` inherits: its node rectangles for
drawing, its quality, a query that counts the nodes it enters and ``nearest``
(the kernels of :mod:`~lessons_lib.structures.rtree_search`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit
from .rtree_nodes import EMPTY_BOX, NodeArrays
from .rtree_search import query_with_visits, tree_nearest

__all__ = ["QualityRow", "tree_quality", "quality_table", "overlap_area_sum", "check_tree", "NodeViews"]


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
        """Like :meth:`~lessons_lib.base.BroadPhase.query`, plus the number of nodes entered.

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

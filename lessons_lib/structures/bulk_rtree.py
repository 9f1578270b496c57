"""Bulk-loaded R-trees: pack the boxes bottom-up instead of inserting them one by one.

When all the boxes are known in advance, an R-tree can be *packed*: order the
boxes, cut the order into runs of ``M`` (the leaves), then do the same with the
leaves' boxes, level after level, until one node is left. Packing is O(n log n),
fills nearly every node to ``M``, and the order decides the quality.

Three orders (``method``):

``"nearest_x"``
    Sort the centres along one axis (Roussopoulos and Leifker 1985). Cheap and
    poor: nodes become long thin strips. ``sort_axis="variance"`` sorts along
    the axis along which the centres vary more.
``"str"``
    Sort-Tile-Recursive (Leutenegger, Lopez and Edgington 1997): sort by x,
    cut into ``S = ceil(sqrt(P))`` vertical slices (``P`` = number of leaves),
    sort each slice by y and pack it. Near-square nodes. Each upper level is
    packed by STR again.
``"hilbert"``
    Sort by the Hilbert index of the centres (Kamel and Faloutsos 1994).

Runs are made of *even* sizes (``ceil(k / M)`` runs whose sizes differ by at
most one) rather than full runs plus a remainder, so every node holds at
least ``M // 2`` entries and the tree satisfies the R-tree fill invariant; STR
also never leaves a slice of fewer than ``M`` entries.

After packing, the tree is an ordinary :class:`~lessons_lib.structures.rtree.RTree`:
inserts and removes use Guttman's algorithms (quadratic split), and
``cleanup()`` packs everything again.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import register
from ..core.params import check_choice, check_int
from .curves import hilbert_keys
from .rtree import RTree
from ..geometry import axis_of_larger_variance

__all__ = ["BulkRTree", "METHODS", "even_runs", "str_groups", "pack_order"]

METHODS = ("nearest_x", "str", "hilbert")


# --------------------------------------------------------------------------
# Orders and runs
# --------------------------------------------------------------------------
def even_runs(k: int, max_entries: int) -> np.ndarray:
    """Sizes of ``ceil(k / max_entries)`` consecutive runs covering ``k`` items, differing by at most one.

    >>> even_runs(10, 4).tolist()
    [4, 3, 3]
    """
    if k <= 0:
        return np.zeros(0, np.int64)
    g = -(-k // max_entries)
    return (k // g + (np.arange(g) < k % g)).astype(np.int64)


def str_groups(centres, max_entries: int) -> tuple[np.ndarray, np.ndarray]:
    """One level of Sort-Tile-Recursive packing.

    Parameters
    ----------
    centres : array_like, shape (k, 2)
        Centres of the entries to pack, world units.
    max_entries : int
        ``M``, the most entries per node (>= 1).

    Returns
    -------
    order : numpy.ndarray, shape (k,), int64
        The entries in packing order: slice by slice (left to right), bottom
        to top within a slice.
    sizes : numpy.ndarray, int64
        Sizes of consecutive runs of ``order``, one run per node; they sum to ``k``.

    Notes
    -----
    ``P = ceil(k / M)`` nodes in about ``S = ceil(sqrt(P))`` slices of
    ``ceil(P / S) * M`` entries (full nodes); the last slice takes the rest and
    joins its neighbour if it holds fewer than ``M``. Within a slice the runs
    are as even as possible, so every node holds at least ``M // 2``. O(k log k).
    """
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    k = len(c)
    if k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    P = -(-k // max_entries)
    per_slice = math.ceil(P / math.ceil(math.sqrt(P))) * max_entries  # entries per vertical slice
    S = -(-k // per_slice)
    slice_sizes = np.full(S, per_slice, np.int64)
    slice_sizes[-1] = k - (S - 1) * per_slice
    if S > 1 and slice_sizes[-1] < max_entries:  # a thin last slice joins its neighbour
        slice_sizes[-2] += slice_sizes[-1]
        slice_sizes = slice_sizes[:-1]
        S -= 1
    by_x = np.argsort(c[:, 0], kind="stable")
    slice_of = np.repeat(np.arange(S), slice_sizes)
    order = by_x[np.lexsort((c[by_x, 1], slice_of))]
    sizes = np.concatenate([even_runs(int(s), max_entries) for s in slice_sizes])
    return order.astype(np.int64), sizes


def pack_order(centres, method: str, *, sort_axis=0) -> np.ndarray:
    """Order of the entries for sequential packing (``"nearest_x"`` or ``"hilbert"``).

    ``sort_axis`` (nearest_x only): 0 (x), 1 (y) or ``"variance"``.
    """
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    if method == "hilbert":
        return np.argsort(hilbert_keys(c, 16), kind="stable").astype(np.int64)
    axis = sort_axis
    if sort_axis == "variance":
        axis = axis_of_larger_variance(np.column_stack([c, c]))
    return np.lexsort((c[:, 1 - axis], c[:, axis])).astype(np.int64)


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("bulk_rtree")
class BulkRTree(RTree):
    """An R-tree packed bottom-up by Nearest-X, STR or Hilbert order.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint; see :class:`~lessons_lib.base.BroadPhase`.
    method : {"str", "hilbert", "nearest_x"}, default "str"
        The packing order.
    max_entries : int, default 16
        ``M``, entries per node (>= 2).
    min_entries : int, optional
        ``m`` for later inserts and removes, ``1 <= m <= M // 2`` (packing
        always gives at least ``M // 2``); default 40 % of ``M``.
    sort_axis : {0, 1, "variance"}, default 0
        Axis of the Nearest-X sort (ignored by the other methods).

    Raises
    ------
    TypeError, ValueError
        Bad parameters.

    Notes
    -----
    ``from_boxes``: O(n log n) (one sort per level). Inserts and removes after
    packing are Guttman's (quadratic split); ``cleanup()`` repacks all stored
    boxes, and ``update_many`` of more than a quarter of them repacks too.

    References
    ----------
    N. Roussopoulos, D. Leifker, "Direct spatial search on pictorial databases
    using packed R-trees", SIGMOD 1985. S. T. Leutenegger, M. A. Lopez,
    J. Edgington, "STR: a simple and efficient algorithm for R-tree packing",
    ICDE 1997. I. Kamel, C. Faloutsos, "Hilbert R-tree: an improved R-tree
    using fractals", VLDB 1994.
    """

    def __init__(self, *, world=None, method: str = "str", max_entries: int = 16, min_entries: int | None = None,
                 sort_axis=0):
        M = check_int("max_entries", max_entries, 2)
        super().__init__(world=world, max_entries=M, min_entries=min_entries, split="quadratic")
        self.method = check_choice("method", method, METHODS)
        self.sort_axis = check_choice("sort_axis", sort_axis, (0, 1, "variance"))

    # -- packing ----------------------------------------------------------
    def _groups(self, boxes: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
        """Packing order and run sizes for one level's entry boxes."""
        c = 0.5 * (boxes[:, :2] + boxes[:, 2:])
        if self.method == "str":
            return str_groups(c, self.max_entries)
        if upper:  # nearest_x and hilbert: the nodes are already in order
            return np.arange(len(boxes), dtype=np.int64), even_runs(len(boxes), self.max_entries)
        return pack_order(c, self.method, sort_axis=self.sort_axis), even_runs(len(boxes), self.max_entries)

    def _pack(self, slots: np.ndarray) -> None:
        """Build the whole tree bottom-up over ``slots`` (the node arrays are empty)."""
        nd = self.nodes
        nd.clear()
        k = len(slots)
        if k == 0:
            return
        self._prepare(extra_nodes=2 * (k // max(1, self.max_entries // 2)) + 4)
        entries = np.asarray(slots, np.int64)
        boxes = self.elements.boxes[entries]
        lvl = 0
        while True:
            order, sizes = self._groups(boxes, upper=lvl > 0)
            g = len(sizes)
            nodes = np.arange(nd.meta[1], nd.meta[1] + g, dtype=np.int64)
            nd.meta[1] += g
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            node_of = np.repeat(nodes, sizes)
            pos = np.arange(k) - np.repeat(starts, sizes)
            ent = entries[order]
            b = boxes[order]
            nd.child[node_of, pos] = ent
            nd.count[nodes] = sizes
            nd.level[nodes] = lvl
            nd.parent[nodes] = -1
            nd.box[nodes, 0] = np.minimum.reduceat(b[:, 0], starts)
            nd.box[nodes, 1] = np.minimum.reduceat(b[:, 1], starts)
            nd.box[nodes, 2] = np.maximum.reduceat(b[:, 2], starts)
            nd.box[nodes, 3] = np.maximum.reduceat(b[:, 3], starts)
            if lvl == 0:
                self.leaf_of[ent] = node_of
            else:
                nd.parent[ent] = node_of
            if g == 1:
                nd.meta[0] = nodes[0]
                return
            entries, boxes, k, lvl = nodes, nd.box[nodes].copy(), g, lvl + 1

    def _build(self, slots):
        self._prepare()
        self._pack(self.elements.live_slots())

    def _cleanup(self):
        self._prepare()
        self._pack(self.elements.live_slots())

    def _update_many(self, slots, old, new):
        if len(slots) * 4 > len(self):
            self._prepare()
            self._pack(self.elements.live_slots())
        else:
            super()._update_many(slots, old, new)

    def __repr__(self):
        return (f"BulkRTree(n={len(self)}, method={self.method!r}, M={self.max_entries}, m={self.min_entries}, "
                f"height={self.height}, nodes={self.nodes.n_nodes()})")

"""Bulk-loaded R-trees: pack the boxes bottom-up instead of inserting them one by one.

When all the boxes are known in advance, an R-tree can be *packed*: order the
boxes, cut the order into runs of ``M`` (the leaves), then do the same with the
leaves' boxes, level after level, until one node is left. Packing is O(n log n),
fills nearly every node to ``M``, and the order decides the quality.

Three orders (``method``):

``"nearest_x"``
    Sort the centres along one axis ([Roussopoulos1985]). Cheap and poor:
    nodes become long thin strips. ``sort_axis="variance"`` sorts along the
    axis along which the centres vary more.
``"str"``
    Sort-Tile-Recursive ([Leutenegger1997]): sort by x, cut into ``S``
    vertical slices (``S = ceil(sqrt(P))`` for ``P`` leaves on a square; more
    slices on wide data, fewer on tall data, so tiles are square in world
    units), sort each slice by y and pack it. Each upper level is packed by
    STR again.
``"hilbert"``
    Sort by the Hilbert index of the centres on a square grid ([Kamel1993]).

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
from ..geometry import axis_of_larger_variance
from .rtree import RTree
from .rtree_nodes import MAX_FAN_OUT, ROOT, USED, centres_of

__all__ = ["BulkRTree", "METHODS", "even_runs", "slice_count", "str_groups", "pack_order"]

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


def slice_count(centres: np.ndarray, nodes: int) -> int:
    """STR's number of vertical slices for ``nodes`` nodes over ``centres`` ((k, 2)): tiles square in world units.

    ``ceil(sqrt(P * w / h))`` for centres spread ``w`` wide and ``h`` tall,
    within ``1..P``: ``ceil(sqrt(P))`` on a square, one slice per node along a
    horizontal line, one slice on a vertical one. (Slicing a thin strip into
    ``sqrt(P)`` slices would stack ``sqrt(P)`` long, flat, overlapping nodes
    in each.) Spreads are computed from half coordinates, which cannot overflow.

    >>> slice_count(np.array([[0.0, 0.0], [10.0, 10.0]]), 25), slice_count(np.array([[0.0, 0.0], [1e4, 1.0]]), 25)
    (5, 25)
    """
    if len(centres) == 0:
        return 1
    w = 0.5 * centres[:, 0].max() - 0.5 * centres[:, 0].min()
    h = 0.5 * centres[:, 1].max() - 0.5 * centres[:, 1].min()
    if w == h:  # a square, or all centres at one point
        return max(1, math.ceil(math.sqrt(nodes)))
    if w / nodes >= h:  # divisions: a product could overflow
        return nodes
    if h / nodes >= w:
        return 1
    return min(nodes, max(1, math.ceil(math.sqrt(nodes * (w / h)))))


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
    ``P = ceil(k / M)`` nodes in about ``S`` slices of ``ceil(P / S) * M``
    entries (full nodes), ``S`` from :func:`slice_count`: ``ceil(sqrt(P))``
    when the centres spread as far along x as along y, more slices when they
    spread wider, fewer when taller, so that tiles are square in world units.
    The last slice takes the rest and joins its neighbour if it holds fewer
    than ``M``. Within a slice the runs are as even as possible, so every node
    holds at least ``M // 2``. O(k log k).
    """
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    k = len(c)
    if k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    P = -(-k // max_entries)
    per_slice = math.ceil(P / slice_count(c, P)) * max_entries  # entries per vertical slice
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
    ValueError
        Bad parameters (the message names the parameter), and everything
        :class:`~lessons_lib.base.BroadPhase` refuses: bad boxes, duplicate ids.
    KeyError
        An unknown id on remove or update.

    Notes
    -----
    Coordinates: any finite float64, from denormals to the float limit
    (centres, spreads and Hilbert cells are computed from half coordinates;
    later inserts compare areas as :class:`~lessons_lib.structures.rtree.RTree` does).

    ``from_boxes``: O(n log n) (one sort per level). Inserts and removes after
    packing are Guttman's (quadratic split); ``cleanup()`` repacks all stored
    boxes, and ``update_many`` of more than a quarter of them repacks too.

    References
    ----------
    [Roussopoulos1985] N. Roussopoulos, D. Leifker, "Direct spatial search on
    pictorial databases using packed R-trees", SIGMOD 1985.
    [Leutenegger1997] S. T. Leutenegger, M. A. Lopez, J. Edgington, "STR: a
    simple and efficient algorithm for R-tree packing", ICDE 1997.
    [Kamel1993] I. Kamel, C. Faloutsos, "On packing R-trees", CIKM 1993.

    Examples
    --------
    >>> from lessons_lib import make_scene, brute_force_pairs
    >>> boxes = make_scene("random", 1000, seed=0)
    >>> t = BulkRTree.from_boxes(boxes, method="str", max_entries=16)
    >>> t.height, t.quality()[-1].nodes   # 63 leaves of 15 or 16 boxes, under 4 nodes, under the root
    (3, 63)
    >>> bool((t.pairs() == brute_force_pairs(boxes)).all())
    True
    """

    def __init__(self, *, world=None, method: str = "str", max_entries: int = 16, min_entries: int | None = None,
                 sort_axis=0):
        M = check_int("max_entries", max_entries, 2, MAX_FAN_OUT)
        super().__init__(world=world, max_entries=M, min_entries=min_entries, split="quadratic")
        self.method = check_choice("method", method, METHODS)
        self.sort_axis = check_choice("sort_axis", sort_axis, (0, 1, "variance"))

    # -- packing ----------------------------------------------------------
    def _groups(self, boxes: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
        """Packing order and run sizes for one level's entry boxes."""
        if self.method == "str":
            return str_groups(centres_of(boxes), self.max_entries)
        runs = even_runs(len(boxes), self.max_entries)
        if upper:  # nearest_x and hilbert: the nodes are already in order
            return np.arange(len(boxes), dtype=np.int64), runs
        return pack_order(centres_of(boxes), self.method, sort_axis=self.sort_axis), runs

    def _pack_level(self, entries: np.ndarray, boxes: np.ndarray, lvl: int) -> np.ndarray:
        """Pack one level: ``entries`` (slots at level 0, nodes above) with their boxes into new nodes; returns them."""
        nd = self.nodes
        order, sizes = self._groups(boxes, upper=lvl > 0)
        nodes = np.arange(nd.meta[USED], nd.meta[USED] + len(sizes), dtype=np.int64)
        nd.meta[USED] += len(sizes)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        node_of = np.repeat(nodes, sizes)
        ent, b = entries[order], boxes[order]
        nd.child[node_of, np.arange(len(entries)) - np.repeat(starts, sizes)] = ent
        nd.count[nodes] = sizes
        nd.level[nodes] = lvl
        nd.parent[nodes] = -1
        for col, reduce in ((0, np.minimum), (1, np.minimum), (2, np.maximum), (3, np.maximum)):
            nd.box[nodes, col] = reduce.reduceat(b[:, col], starts)
        if lvl == 0:
            self.leaf_of[ent] = node_of
        else:
            nd.parent[ent] = node_of
        return nodes

    def _pack(self, slots: np.ndarray) -> None:
        """Build the whole tree bottom-up over ``slots``: pack level after level until one node is left."""
        nd = self.nodes
        nd.clear()
        if len(slots) == 0:
            return
        self._prepare(extra_nodes=2 * (len(slots) // max(1, self.max_entries // 2)) + 4)
        entries, lvl = np.asarray(slots, np.int64), 0
        boxes = self.elements.boxes[entries]
        while True:
            entries = self._pack_level(entries, boxes, lvl)
            if len(entries) == 1:
                nd.meta[ROOT] = entries[0]
                return
            boxes, lvl = nd.box[entries].copy(), lvl + 1

    def _repack(self) -> None:
        self._prepare()
        self._pack(self.elements.live_slots())

    def _build(self, slots):
        self._repack()

    def _cleanup(self):
        self._repack()

    def _update_many(self, slots, old, new):
        if len(slots) * 4 > len(self):
            self._repack()
        else:
            super()._update_many(slots, old, new)

    def __repr__(self):
        return (f"BulkRTree(n={len(self)}, method={self.method!r}, M={self.max_entries}, m={self.min_entries}, "
                f"height={self.height}, nodes={self.nodes.n_nodes()})")

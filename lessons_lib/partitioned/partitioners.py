"""Spatial partitioners: cut the whole plane into partitions, fitted on a sample of the boxes.

A partitioned join first decides *where* each partition lies. Like Apache Sedona
([Yu2019]) and dask-geopandas ([dask-geopandas]) it looks at a small random sample
of the data, builds one of the course's structures on the sample's box centres and
reads the partitions off it:

``"grid"``
    The uniform grid of lesson 02: ``nx x ny`` equal cells over the sample's
    bounds, ``nx * ny`` close to the number asked for. Blind to where the data is.
``"quadtree"``
    The leaves of lesson 05's :class:`~lessons_lib.structures.quadtree.Quadtree`
    built on the sample's centres, with the smallest capacity that gives at
    most the number of leaves asked for: crowded quadrants split, empty ones
    stay big. A split makes four leaves, so the count is only close.
``"kdtree"``
    Lesson 10's k-d tree rule ([Bentley1975]): cut the sample at the median
    (found by selection) along the axis where it spreads more, recurse. When
    the count is not a power of two, a node that must make ``k`` leaves cuts at
    the quantile ``floor(k / 2) / k`` instead of the median, so exactly the
    count asked for comes out. This is the KDB-tree partitioner of Sedona.
``"str"``
    Sort-Tile-Recursive tiles ([Leutenegger1997], lesson 10): vertical slices
    holding equal shares of the sample, each cut into tiles of equal shares.
``"hilbert"``
    Ranges of the Hilbert curve ([Hilbert1891]) over a ``2**order`` grid: the
    sample's cells sorted by Hilbert value and cut into runs of equal size, as
    dask-geopandas orders its partitions. A partition is a run of cells, not a
    rectangle.

Whatever the partitioner, the result is one :class:`Partitioning`: sorted
interior *cuts* along x and y that make a grid of elementary cells, and the
partition that owns each cell. Cells are **half-open**, ``[x0, x1) x [y0, y1)``,
and the outer rows and columns reach to infinity, so every point of the plane
lies in exactly one partition, including points far from every sampled box.
Looking a point up is two binary searches (``np.searchsorted``) and one table
read; no rounding is involved, so the same point always gets the same answer.

A box goes to **every** partition one of its cells lies in (the replication the
lessons measure); :meth:`Partitioning.assign` does that with a small compiled
kernel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import world_for
from ..core.jit import njit
from ..core.params import check_choice, check_int
from ..geometry import as_boxes, as_points
from ..structures.bulk_rtree import even_runs
from ..structures.curves import hilbert_index
from ..structures.quadtree import Quadtree

__all__ = [
    "PARTITIONERS",
    "Partitioning",
    "fit_partitioning",
    "from_tiles",
    "grid_partitioning",
    "hilbert_partitioning",
    "kdtree_partitioning",
    "quadtree_partitioning",
    "sample_centres",
    "str_partitioning",
    "assign_kernel",
]


# --------------------------------------------------------------------------
# The kernel: every partition a box reaches
# --------------------------------------------------------------------------
@njit
def assign_kernel(ix0, ix1, iy0, iy1, owner, n_parts):
    """Rows of boxes grouped by partition, each box once in every partition one of its cells belongs to.

    Parameters
    ----------
    ix0, ix1, iy0, iy1 : numpy.ndarray, shape (n,), int64
        Inclusive ranges of elementary columns and rows each box covers.
    owner : numpy.ndarray, shape (columns, rows), int64
        The partition owning each elementary cell.
    n_parts : int
        Number of partitions.

    Returns
    -------
    rows : numpy.ndarray, shape (m,), int64
        Box rows, partition 0's first, each partition's in increasing order.
    offsets : numpy.ndarray, shape (n_parts + 1,), int64
        Partition ``p`` holds ``rows[offsets[p]:offsets[p + 1]]``.

    Notes
    -----
    Two passes over the cells of every box (count, then write), with a mark
    per partition so that a box meeting several cells of one partition is
    written once: O(cells covered) time, no sorting.
    """
    n = ix0.shape[0]
    mark = np.full(n_parts, -1, np.int64)
    offsets = np.zeros(n_parts + 1, np.int64)
    for i in range(n):
        for cx in range(ix0[i], ix1[i] + 1):
            for cy in range(iy0[i], iy1[i] + 1):
                p = owner[cx, cy]
                if mark[p] != i:
                    mark[p] = i
                    offsets[p + 1] += 1
    for p in range(n_parts):
        offsets[p + 1] += offsets[p]
    rows = np.empty(offsets[n_parts], np.int64)
    cursor = offsets[:n_parts].copy()
    mark[:] = -1
    for i in range(n):
        for cx in range(ix0[i], ix1[i] + 1):
            for cy in range(iy0[i], iy1[i] + 1):
                p = owner[cx, cy]
                if mark[p] != i:
                    mark[p] = i
                    rows[cursor[p]] = i
                    cursor[p] += 1
    return rows, offsets


# --------------------------------------------------------------------------
# The partitioning
# --------------------------------------------------------------------------
@dataclass(eq=False)
class Partitioning:
    """A partition of the whole plane into ``n_partitions`` parts.

    Attributes
    ----------
    kind : str
        The partitioner that made it (a key of :data:`PARTITIONERS`).
    xcuts, ycuts : numpy.ndarray, shape (cx,) and (cy,), float64
        Interior cuts, strictly increasing, world units. Elementary column
        ``i`` (``0 <= i <= cx``) holds the x with ``xcuts[i - 1] <= x <
        xcuts[i]``, the first column reaching to minus infinity and the last
        to plus infinity; rows likewise along y.
    owner : numpy.ndarray, shape (cx + 1, cy + 1), int64
        The partition each elementary cell belongs to, ``0 .. n_partitions - 1``.
    n_partitions : int
        Number of partitions (some may own no cell, e.g. zero-width tiles made
        by many equal sample coordinates; they then receive nothing).
    bounds : numpy.ndarray, shape (4,), float64
        ``[xmin, ymin, xmax, ymax]`` of the sample it was fitted on (for drawing).
    tiles : numpy.ndarray, shape (n_partitions, 4), float64, or None
        When every partition is a rectangle: its half-open region ``[x0, y0,
        x1, y1)`` with infinite outer sides. ``None`` for Hilbert ranges.

    Raises
    ------
    ValueError
        On construction, when the cuts are not strictly increasing and finite,
        or the owner table has the wrong shape or an owner out of range.

    Examples
    --------
    >>> import numpy as np
    >>> part = grid_partitioning(np.array([[0.0, 0.0], [10.0, 10.0]]), 4)
    >>> part.xcuts.tolist(), part.ycuts.tolist()
    ([5.0], [5.0])
    >>> part.partition_of([[5.0, 1.0], [4.9, 1.0], [-1e9, 1e9]]).tolist()  # an edge goes right; far away still has an owner
    [2, 0, 1]
    """

    kind: str
    xcuts: np.ndarray
    ycuts: np.ndarray
    owner: np.ndarray
    n_partitions: int
    bounds: np.ndarray
    tiles: np.ndarray | None = None

    def __post_init__(self):
        for name in ("xcuts", "ycuts"):
            c = np.ascontiguousarray(getattr(self, name), dtype=np.float64).reshape(-1)
            if not np.isfinite(c).all() or (np.diff(c) <= 0).any():
                raise ValueError(f"{name} must be finite and strictly increasing, got {c.tolist()[:8]}")
            setattr(self, name, c)
        self.owner = np.ascontiguousarray(self.owner, dtype=np.int64)
        want = (len(self.xcuts) + 1, len(self.ycuts) + 1)
        if self.owner.shape != want:
            raise ValueError(f"owner must have shape {want} (cuts + 1 per axis), got {self.owner.shape}")
        self.n_partitions = check_int("n_partitions", self.n_partitions, 1)
        if self.owner.min() < 0 or self.owner.max() >= self.n_partitions:
            raise ValueError(f"owner holds partitions outside 0..{self.n_partitions - 1}")
        self.bounds = np.asarray(self.bounds, np.float64).reshape(4)

    # -- looking points up -------------------------------------------------
    def cell_of(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Elementary column and row of points ``(x, y)`` (arrays broadcast), int64."""
        return (np.searchsorted(self.xcuts, x, side="right").astype(np.int64),
                np.searchsorted(self.ycuts, y, side="right").astype(np.int64))

    def partition_of(self, points) -> np.ndarray:
        """The one partition holding each point.

        Parameters
        ----------
        points : array_like, shape (n, 2)
            ``(x, y)`` in world units, anywhere in the plane.

        Returns
        -------
        numpy.ndarray, shape (n,), int64

        Raises
        ------
        ValueError
            Points of the wrong shape, NaN or infinite.
        """
        p = as_points(points).reshape(-1, 2)
        ix, iy = self.cell_of(p[:, 0], p[:, 1])
        return self.owner[ix, iy]

    # -- sending boxes to partitions ---------------------------------------
    def assign(self, boxes) -> tuple[np.ndarray, np.ndarray]:
        """Every partition each box reaches.

        Parameters
        ----------
        boxes : array_like, shape (n, 4)
            Closed AABBs ``[xmin, ymin, xmax, ymax]``.

        Returns
        -------
        rows : numpy.ndarray, shape (m,), int64
            Row numbers of ``boxes``, grouped by partition (increasing within one);
            ``m >= n``, the excess being the replication.
        offsets : numpy.ndarray, shape (n_partitions + 1,), int64
            Partition ``p`` receives ``rows[offsets[p]:offsets[p + 1]]``.

        Raises
        ------
        ValueError
            Bad boxes, naming the row.

        Notes
        -----
        A box goes to the partitions of every elementary cell whose half-open
        region meets it: columns ``searchsorted(xcuts, xmin, "right")`` to
        ``searchsorted(xcuts, xmax, "right")`` (a box whose side lies exactly
        on a cut reaches the cell beyond it, since touching counts). Any
        point of the box, in particular the reference point of every pair it
        is in, then lies in a partition that received it.
        """
        b = as_boxes(boxes)
        ix0, iy0 = self.cell_of(b[:, 0], b[:, 1])
        ix1, iy1 = self.cell_of(b[:, 2], b[:, 3])
        return assign_kernel(ix0, ix1, iy0, iy1, self.owner, self.n_partitions)

    def counts(self, boxes) -> np.ndarray:
        """Boxes each partition receives: ``(n_partitions,)`` int64 (their sum over ``n`` is the replication)."""
        return np.diff(self.assign(boxes)[1])

    # -- inspection ----------------------------------------------------------
    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Every elementary cell: ``(m, 4)`` float64 rectangles (outer sides infinite) and ``(m,)`` int64 owners."""
        xe = np.concatenate([[-np.inf], self.xcuts, [np.inf]])
        ye = np.concatenate([[-np.inf], self.ycuts, [np.inf]])
        i, j = np.meshgrid(np.arange(len(xe) - 1), np.arange(len(ye) - 1), indexing="ij")
        i, j = i.ravel(), j.ravel()
        return np.column_stack([xe[i], ye[j], xe[i + 1], ye[j + 1]]), self.owner[i, j]

    def __repr__(self) -> str:
        return (f"Partitioning(kind={self.kind!r}, n_partitions={self.n_partitions}, "
                f"cells={self.owner.shape[0]} x {self.owner.shape[1]})")


# --------------------------------------------------------------------------
# Building a partitioning from rectangles
# --------------------------------------------------------------------------
def from_tiles(kind: str, tiles, bounds) -> Partitioning:
    """A :class:`Partitioning` whose partitions are the given half-open rectangles.

    Parameters
    ----------
    kind : str
        Name to record.
    tiles : array_like, shape (p, 4), float64
        ``[x0, y0, x1, y1)`` regions that tile the whole plane: outer sides
        are ``-inf`` / ``inf``, and every point lies in exactly one tile.
        Zero-width tiles are allowed (they own nothing).
    bounds : array_like, shape (4,)
        The sample's bounds, kept for drawing.

    Returns
    -------
    Partitioning

    Raises
    ------
    ValueError
        A tile with NaN sides, or tiles that leave a cell uncovered or cover
        one twice (the message names the cell).
    """
    t = np.asarray(tiles, np.float64).reshape(-1, 4)
    if np.isnan(t).any() or (t[:, 2] < t[:, 0]).any() or (t[:, 3] < t[:, 1]).any():
        raise ValueError("tiles must be [x0, y0, x1, y1) rows without NaN, x0 <= x1 and y0 <= y1")
    edges_x, edges_y = t[:, [0, 2]].ravel(), t[:, [1, 3]].ravel()
    xcuts = np.unique(edges_x[np.isfinite(edges_x)])
    ycuts = np.unique(edges_y[np.isfinite(edges_y)])
    # each cell is represented by its lower-left corner (-inf for the outer ones), which lies in it
    rx = np.concatenate([[-np.inf], xcuts])
    ry = np.concatenate([[-np.inf], ycuts])
    owner = np.full((len(rx), len(ry)), -1, np.int64)
    hits = np.zeros(owner.shape, np.int64)
    for p, (x0, y0, x1, y1) in enumerate(t.tolist()):
        cols = np.flatnonzero((x0 <= rx) & (rx < x1))
        rows = np.flatnonzero((y0 <= ry) & (ry < y1))
        if len(cols) and len(rows):
            owner[np.ix_(cols, rows)] = p
            hits[np.ix_(cols, rows)] += 1
    if (hits != 1).any():
        i, j = np.argwhere(hits != 1)[0]
        raise ValueError(f"the tiles cover the cell at ({rx[i]}, {ry[j]}) {hits[i, j]} times; "
                         "they must cover the plane exactly once")
    return Partitioning(kind, xcuts, ycuts, owner, len(t), np.asarray(bounds, np.float64), t.copy())


def sample_centres(boxes, size: int, seed: int = 0) -> np.ndarray:
    """Centres of a random sample of ``size`` boxes (all of them when there are fewer).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    size : int
        Sample size, >= 1.
    seed : int
        Seed of numpy's generator; same arguments, same sample.

    Returns
    -------
    numpy.ndarray, shape (min(n, size), 2), float64

    Raises
    ------
    ValueError
        Bad boxes, or a bad ``size``.
    """
    b = as_boxes(boxes)
    size = check_int("sample_size", size, 1)
    if len(b) > size:
        b = b[np.sort(np.random.default_rng(seed).choice(len(b), size, replace=False))]
    return 0.5 * (b[:, :2] + b[:, 2:])


def _sample(points, n_partitions) -> tuple[np.ndarray, int, np.ndarray]:
    if np.size(points) == 0:
        raise ValueError("the sample is empty: a partitioner needs at least one point")
    p = as_points(points, name="sample").reshape(-1, 2)
    k = check_int("n_partitions", n_partitions, 1)
    world = world_for(np.column_stack([p, p]))
    return p, k, world


def _split_values(sorted_values, shares) -> np.ndarray:
    """Cut values splitting sorted values into runs of the given sizes (the first value of each later run)."""
    ends = np.cumsum(shares)[:-1]
    return sorted_values[np.minimum(ends, len(sorted_values) - 1)] if len(sorted_values) else np.zeros(len(ends))


def _tiles_from_cuts(xs, ys) -> np.ndarray:
    xe = np.concatenate([[-np.inf], xs, [np.inf]])
    ye = np.concatenate([[-np.inf], ys, [np.inf]])
    return np.array([[xe[i], ye[j], xe[i + 1], ye[j + 1]] for i in range(len(xe) - 1) for j in range(len(ye) - 1)])


# --------------------------------------------------------------------------
# The five partitioners
# --------------------------------------------------------------------------
def grid_partitioning(points, n_partitions: int) -> Partitioning:
    """Uniform grid: ``nx x ny`` equal cells over the sample's bounds, ``nx * ny`` near ``n_partitions``.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Sample of box centres, world units.
    n_partitions : int
        About how many partitions to make (>= 1); ``nx`` and ``ny`` are chosen
        so that cells are nearly square.

    Returns
    -------
    Partitioning

    Raises
    ------
    ValueError
        An empty sample or a bad ``n_partitions``.
    """
    p, k, world = _sample(points, n_partitions)
    w, h = world[2] - world[0], world[3] - world[1]
    nx = max(1, round(math.sqrt(k * w / h)))
    ny = max(1, round(k / nx))
    xs = world[0] + w * np.arange(1, nx) / nx
    ys = world[1] + h * np.arange(1, ny) / ny
    return from_tiles("grid", _tiles_from_cuts(xs, ys), world)


def quadtree_partitioning(points, n_partitions: int, *, max_depth: int = 8) -> Partitioning:
    """The leaves of a :class:`~lessons_lib.structures.quadtree.Quadtree` built on the sample.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Sample of box centres, stored as zero-size boxes.
    n_partitions : int
        The most leaves wanted (>= 1). The leaf capacity is the smallest for
        which the tree has at most that many leaves (a binary search over a few
        builds of the small tree; more capacity never makes more leaves). A
        split makes four leaves, so the count is often a little below the one
        asked for, and some leaves hold no sample point.
    max_depth : int
        The quadtree's deepest level (1..12): bounds the leaves in a dense spot.

    Returns
    -------
    Partitioning
        One partition per leaf, leaves on the world's border reaching to infinity.

    Raises
    ------
    ValueError
        An empty sample or a bad parameter (named).
    """
    p, k, world = _sample(points, n_partitions)
    max_depth = check_int("max_depth", max_depth, 1, 12)
    point_boxes = np.column_stack([p, p])

    def leaves(capacity):
        table = Quadtree.from_boxes(point_boxes, world=world, capacity=capacity, max_depth=max_depth).node_table()
        return table["rect"][table["is_leaf"]]

    lo, hi = max(1, len(p) // k), len(p)  # leaves(hi) is the root alone
    while lo < hi:
        mid = (lo + hi) // 2
        if len(leaves(mid)) <= k:
            hi = mid
        else:
            lo = mid + 1
    tiles = leaves(lo).copy()
    for col, inf in ((0, -np.inf), (1, -np.inf), (2, np.inf), (3, np.inf)):
        tiles[tiles[:, col] == world[col], col] = inf
    return from_tiles("quadtree", tiles, world)


def kdtree_partitioning(points, n_partitions: int) -> Partitioning:
    """k-d tree cells: cut at the median (by selection) along the axis of larger spread, recursively.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Sample of box centres.
    n_partitions : int
        How many cells to make (>= 1). A node asked for ``k`` cells gives
        ``floor(k / 2)`` to the low side and cuts at that quantile of its points
        (the median when ``k`` is even), so the cells hold nearly equal shares
        of the sample. A node whose points all coincide is not cut, so a
        degenerate sample may give fewer cells.

    Returns
    -------
    Partitioning

    Raises
    ------
    ValueError
        An empty sample or a bad ``n_partitions``.

    Notes
    -----
    The cut value is the ``t``-th smallest coordinate, found by selection
    (``np.partition``, O(m) expected, lesson 10); the low cell is ``x < cut``,
    the high one ``x >= cut``. O(m log k) in all. [Bentley1975]
    """
    p, k, world = _sample(points, n_partitions)
    tiles = []
    stack = [(np.arange(len(p)), np.array([-np.inf, -np.inf, np.inf, np.inf]), k)]
    while stack:
        idx, rect, want = stack.pop()
        cut = None
        if want > 1 and len(idx) > 1:
            spread = p[idx].max(axis=0) - p[idx].min(axis=0)
            for axis in ((0, 1) if spread[0] >= spread[1] else (1, 0)):
                v = p[idx, axis]
                t = min(len(v) - 1, max(1, round(len(v) * (want // 2) / want)))
                value = np.partition(v, t)[t]
                if (v < value).any():  # a cut with points on both sides
                    cut = axis, value, v < value
                    break
        if cut is None:
            tiles.append(rect)
            continue
        axis, value, low = cut
        lo_rect, hi_rect = rect.copy(), rect.copy()
        lo_rect[axis + 2] = value
        hi_rect[axis] = value
        stack.append((idx[~low], hi_rect, want - want // 2))
        stack.append((idx[low], lo_rect, want // 2))
    return from_tiles("kdtree", np.array(tiles), world)


def str_partitioning(points, n_partitions: int) -> Partitioning:
    """Sort-Tile-Recursive tiles: about ``sqrt(n_partitions)`` vertical slices of equal shares, each cut into tiles.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Sample of box centres.
    n_partitions : int
        How many tiles (>= 1): ``S = ceil(sqrt(n_partitions))`` slices, their
        tile counts as even as possible (:func:`~lessons_lib.structures.bulk_rtree.even_runs`).

    Returns
    -------
    Partitioning

    Raises
    ------
    ValueError
        An empty sample or a bad ``n_partitions``.

    Notes
    -----
    A slice holding ``t`` tiles takes ``t / n_partitions`` of the sample in x
    order; within it, the tiles take equal shares in y order. Each cut is the
    first coordinate of the next share (half-open). [Leutenegger1997]
    """
    p, k, world = _sample(points, n_partitions)
    per_slice = even_runs(k, math.ceil(k / math.ceil(math.sqrt(k))))
    by_x = p[np.argsort(p[:, 0], kind="stable")]
    share = np.diff(np.round(np.concatenate([[0], np.cumsum(per_slice)]) * len(p) / k).astype(np.int64))
    xs = _split_values(by_x[:, 0], share)
    xe = np.concatenate([[-np.inf], xs, [np.inf]])
    tiles, start = [], 0
    for s, t in enumerate(per_slice.tolist()):
        ys_sorted = np.sort(by_x[start:start + share[s], 1])
        start += share[s]
        inner = np.diff(np.round(np.arange(t + 1) * len(ys_sorted) / t).astype(np.int64))
        ye = np.concatenate([[-np.inf], _split_values(ys_sorted, inner), [np.inf]])
        # a slice without sample points still makes its tiles (all of zero height but the last)
        ye = np.maximum.accumulate(ye)
        tiles += [[xe[s], ye[j], xe[s + 1], ye[j + 1]] for j in range(t)]
    return from_tiles("str", np.array(tiles), world)


def hilbert_partitioning(points, n_partitions: int, *, order: int | None = None) -> Partitioning:
    """Hilbert ranges: the cells of a ``2**order`` grid, in Hilbert order, cut into runs of equal sample counts.

    Parameters
    ----------
    points : array_like, shape (m, 2)
        Sample of box centres.
    n_partitions : int
        How many runs (>= 1); a run holding no sample cell is empty.
    order : int, optional
        Grid of ``2**order`` cells a side over the sample's bounds (1..10);
        default the smallest with at least 64 cells per partition.

    Returns
    -------
    Partitioning
        ``tiles`` is ``None``: a run of Hilbert cells is not a rectangle, so a
        box meets more partitions than with rectangular tiles.

    Raises
    ------
    ValueError
        An empty sample or a bad parameter (named).

    Notes
    -----
    Consecutive cells along the curve share an edge, so each run is one
    connected region ([Hilbert1891], lesson 10). The outer rows and columns of
    the grid reach to infinity.
    """
    p, k, world = _sample(points, n_partitions)
    if order is None:
        order = min(10, max(1, math.ceil(math.log(64 * k, 4))))
    order = check_int("order", order, 1, 10)
    side = 1 << order
    xs = world[0] + (world[2] - world[0]) * np.arange(1, side) / side
    ys = world[1] + (world[3] - world[1]) * np.arange(1, side) / side
    part = Partitioning("hilbert", xs, ys, np.zeros((side, side), np.int64), k, world)
    ix, iy = part.cell_of(p[:, 0], p[:, 1])
    keys = np.sort(hilbert_index(ix, iy, order))
    at = np.minimum(np.round(np.arange(1, k) * len(keys) / k).astype(np.int64), len(keys) - 1)
    starts = keys[at]  # first key of ranges 1..k-1
    cx, cy = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    part.owner = np.searchsorted(starts, hilbert_index(cx, cy, order), side="right").astype(np.int64)
    return part


#: Every partitioner by name: ``PARTITIONERS[kind](points, n_partitions)``.
PARTITIONERS = {
    "grid": grid_partitioning,
    "quadtree": quadtree_partitioning,
    "kdtree": kdtree_partitioning,
    "str": str_partitioning,
    "hilbert": hilbert_partitioning,
}


def fit_partitioning(kind: str, points, n_partitions: int, **options) -> Partitioning:
    """Fit the partitioner ``kind`` (a key of :data:`PARTITIONERS`) on sample centres ``points``.

    Raises
    ------
    ValueError
        An unknown ``kind`` (the message lists them), an empty sample, a bad
        parameter.
    """
    kind = check_choice("partitioner", kind, tuple(PARTITIONERS))
    return PARTITIONERS[kind](points, n_partitions, **options)

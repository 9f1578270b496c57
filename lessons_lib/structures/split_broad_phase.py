"""Lesson 07's split of a scene by kind: common-size agents, a few giants, static scenery.

The quadtree answer set ([SO-quadtree], "Dirty trick:
uniform sizes") ends with a design rather than a structure: do not force one
index to serve everything. Put

* the many **agents** of a common size (people, orcs, hobbits) in a
  :class:`~lessons_lib.structures.point_grid.PointGrid` that stores them as points under
  one size bound;
* the few **giants** (dragons, ents), larger than any common bound and
  moving, in a loose structure,
  :class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid`;
* the **static scenery** (castles, barricades, boulders), built once and never
  updated, in a packed tree, :class:`~lessons_lib.structures.bulk_rtree.BulkRTree`.

:class:`SplitBroadPhase` keeps the three behind one ``update_many`` and one
``pairs``: pairs inside each group, plus the pairs *between* groups, found by
querying the structure of the larger group with the boxes of the smaller one
(the agents' grid answers many query boxes in one compiled pass,
:meth:`~lessons_lib.structures.point_grid.PointGrid.query_many`; the few giants and
castles are tested against each other directly).
"""
from __future__ import annotations

import numpy as np

from ..base import world_for
from ..core.elements import ElementTable
from ..core.pair_order import canonical_pairs
from .bulk_rtree import BulkRTree
from ..geometry import as_boxes
from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from .loose_tight_grid import LooseTightGrid
from .point_grid import PointGrid, half_sizes

__all__ = ["KINDS", "split_by_half_size", "SplitBroadPhase"]

#: The three kinds of content, in the order :class:`SplitBroadPhase` stores them.
KINDS = ("agents", "giants", "scenery")


def split_by_half_size(boxes, bound: float, *, static=None) -> dict[str, np.ndarray]:
    """Rows of ``boxes`` by kind: ``agents`` (half-size <= ``bound``), ``giants`` (larger), ``scenery`` (static).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs, world units.
    bound : float
        The common upper bound on ``max(width, height) / 2`` (>= 0).
    static : array_like of bool, shape (n,), optional
        Rows that never move; they are scenery whatever their size.

    Returns
    -------
    dict of str -> numpy.ndarray of int64
        Sorted row numbers for each of :data:`KINDS` (each row in exactly one).

    Raises
    ------
    ValueError
        Bad boxes, a negative or non-finite bound, a ``static`` mask of the wrong shape.
    """
    b = as_boxes(boxes)
    bound = float(bound)
    if not (np.isfinite(bound) and bound >= 0):
        raise ValueError(f"bound must be a finite number >= 0, got {bound}")
    still = np.zeros(len(b), dtype=bool) if static is None else np.asarray(static, dtype=bool)
    if still.shape != (len(b),):
        raise ValueError(f"static must have shape ({len(b)},), got {still.shape}")
    small = half_sizes(b) <= bound
    return {"agents": np.flatnonzero(~still & small), "giants": np.flatnonzero(~still & ~small),
            "scenery": np.flatnonzero(still)}


def _cross_pairs(ids_a, boxes_a, ids_b, boxes_b, chunk: int = 256) -> np.ndarray:
    """Pairs ``(ids_a[i], ids_b[j])`` of intersecting boxes between two small sets, by numpy broadcasting.

    For the few giants against the scenery: ``O(|a| |b|)`` tests, done
    ``chunk`` rows of ``a`` at a time so the temporary stays small.
    """
    out = []
    for s in range(0, len(boxes_a), chunk):
        a = boxes_a[s:s + chunk, None, :]
        b = boxes_b[None, :, :]
        hit = (a[..., XMIN] <= b[..., XMAX]) & (b[..., XMIN] <= a[..., XMAX]) & (a[..., YMIN] <= b[..., YMAX]) & (b[..., YMIN] <= a[..., YMAX])
        i, j = np.nonzero(hit)
        out.append(np.column_stack([ids_a[s + i], ids_b[j]]))
    return np.concatenate(out) if out else np.empty((0, 2), np.int64)


class SplitBroadPhase:
    """Three structures behind one ``pairs()``: agents in a PointGrid, giants in a LooseTightGrid, scenery in a BulkRTree.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Every element's box; element ``i`` has id ``i``.
    groups : dict
        Row numbers for ``"agents"``, ``"giants"`` and ``"scenery"`` (see
        :func:`split_by_half_size`); together each row exactly once.
    bound : float, optional
        The agents' common half-size bound; default the largest agent's.
    world : array_like, shape (4,), optional
        Default the boxes' bounding box.

    Notes
    -----
    ``pairs()`` concatenates the groups' own pairs and the cross-group pairs
    and puts them in canonical order with
    :func:`~lessons_lib.core.pair_order.canonical_pairs` (one sort of packed keys, using an
    element table of the ids ``0 .. n-1``, counted in :meth:`memory_bytes`).
    The scenery's own pairs never change and are computed once.

    Boxes are closed ``[xmin, ymin, xmax, ymax]`` rows in world units
    (touching counts). Coordinates may lie anywhere the three structures
    accept: finite float64 values; each refuses a world too large or too
    small for its arithmetic with a ``ValueError`` naming the limit.

    Raises
    ------
    ValueError
        Groups that do not partition the rows; an agent over ``bound``;
        ``update_many`` of a scenery id (scenery never moves); a malformed
        box (NaN, infinite, inverted).

    References
    ----------
    The quadtree answer set [SO-quadtree], "Dirty trick" (uniform-size agents
    in a point grid, the few giants apart, static scenery in a tree built once);
    the bulk-loaded R-tree of [Leutenegger1997].

    Examples
    --------
    >>> import numpy as np
    >>> boxes = np.array([[0, 0, 2, 2], [1, 1, 3, 3],          # two agents
    ...                   [0, 0, 50, 1],                        # a giant
    ...                   [40, 40, 60, 60]], dtype=float)       # scenery
    >>> groups = split_by_half_size(boxes, bound=1.0, static=[False, False, False, True])
    >>> bp = SplitBroadPhase(boxes, groups)
    >>> bp.pairs().tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> bp.update_many([2], [[0, 39, 50, 40]])                  # the giant moves onto the scenery
    >>> bp.pairs().tolist()
    [[0, 1], [2, 3]]
    """

    def __init__(self, boxes, groups, *, bound=None, world=None):
        b = as_boxes(boxes)
        n = len(b)
        rows = np.concatenate([np.asarray(groups.get(k, []), dtype=np.int64) for k in KINDS])
        if len(rows) != n or (n and not np.array_equal(np.sort(rows), np.arange(n))):
            raise ValueError(f"groups must hold every row 0..{n - 1} exactly once, got {len(rows)} rows")
        self.world = world_for(b) if world is None else np.asarray(world, dtype=np.float64)
        self.rows = {k: np.asarray(groups.get(k, []), dtype=np.int64) for k in KINDS}
        self.kind = np.empty(n, dtype=np.int8)
        self.local = np.empty(n, dtype=np.int64)
        for i, k in enumerate(KINDS):
            self.kind[self.rows[k]] = i
            self.local[self.rows[k]] = np.arange(len(self.rows[k]))
        agents = b[self.rows["agents"]]
        if bound is None:
            bound = float(half_sizes(agents).max()) if len(agents) else 0.0
        self.bound = float(bound)
        self.agents = PointGrid.from_boxes(agents, half_size=self.bound, world=self.world)
        self.giants = LooseTightGrid.from_boxes(b[self.rows["giants"]], world=self.world)
        self.scenery = BulkRTree.from_boxes(b[self.rows["scenery"]], world=self.world)
        self._scenery_pairs = self.rows["scenery"][self.scenery.pairs()].reshape(-1, 2)
        # ids 0..n-1 in an element table of their own: canonical_pairs then sorts slots, no rank table
        self._order = ElementTable(max(1, n))
        self._order.add_many(np.arange(n, dtype=np.int64), b)

    @classmethod
    def from_boxes(cls, boxes, groups, **params) -> "SplitBroadPhase":
        return cls(boxes, groups, **params)

    def __len__(self) -> int:
        return len(self.kind)

    def update_many(self, ids, boxes) -> None:
        """Move agents and giants (ids are row numbers); scenery refuses to move (``ValueError``)."""
        ids = np.asarray(ids, dtype=np.int64)
        b = as_boxes(boxes)
        kinds = self.kind[ids]
        if (kinds == 2).any():
            raise ValueError(f"element {int(ids[kinds == 2][0])} is static scenery and cannot move")
        for i, st in ((0, self.agents), (1, self.giants)):
            sel = kinds == i
            if sel.any():
                st.update_many(self.local[ids[sel]], b[sel])

    def pairs(self) -> np.ndarray:
        """Every intersecting pair of ids, ``(k, 2)`` int64, ``a < b``, rows sorted."""
        ra, rg, rs = self.rows["agents"], self.rows["giants"], self.rows["scenery"]
        parts = [ra[self.agents.pairs()].reshape(-1, 2), rg[self.giants.pairs()].reshape(-1, 2), self._scenery_pairs]
        _, gb = self.giants.items()
        _, sb = self.scenery.items()
        for rows_q, qb in ((rg, gb), (rs, sb)):  # giants and scenery against the agents, in one pass each
            hits = self.agents.query_many(qb, sort=False)
            parts.append(np.column_stack([rows_q[hits[:, 0]], ra[hits[:, 1]]]))
        parts.append(_cross_pairs(rg, gb, rs, sb))  # the few giants against the scenery
        return canonical_pairs(np.concatenate([p.reshape(-1, 2) for p in parts]), self._order)

    def memory_bytes(self) -> int:
        return (self.agents.memory_bytes() + self.giants.memory_bytes() + self.scenery.memory_bytes()
                + self._order.nbytes())

    def __repr__(self) -> str:
        return (f"SplitBroadPhase(agents={len(self.rows['agents'])}, giants={len(self.rows['giants'])}, "
                f"scenery={len(self.rows['scenery'])}, bound={self.bound:g})")

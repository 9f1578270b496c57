"""Peers: the spatial libraries people use, timed like our structures.

Optional: install with ``pip install -e .[peers]``. Each function raises
``ImportError`` with an install hint when its library is missing.

:data:`PEERS` describes each library as two timed steps (build, then pairs)
for :mod:`lessons_lib.bench.suites`: ``cKDTree``, ``shapely.STRtree``,
``rtree.index`` (the ``rtree`` package over libspatialindex; named so as not
to be confused with our ``rtree`` structure) and ``pyqtree``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..base import normalize_pairs
from ..geometry import as_boxes

__all__ = ["PEERS", "Peer", "ckdtree_pairs", "shapely_strtree_pairs", "rtree_insert_one_by_one"]


def ckdtree_pairs(boxes) -> np.ndarray:
    """Intersecting pairs via ``scipy.spatial.cKDTree`` on box centres.

    Builds a k-d tree of the centres, asks ``query_pairs(r, output_type="ndarray")``
    with ``r`` = the largest box diagonal (two boxes can only intersect if their
    centres are within half the sum of their diagonals, so this radius misses
    nothing; a smaller one would), then keeps the candidates whose boxes really
    intersect.

    Returns
    -------
    numpy.ndarray, shape (k, 2), dtype int64
        The same convention as :func:`lessons_lib.brute_force_pairs`.
    """
    try:
        from scipy.spatial import cKDTree
    except ImportError:
        raise ImportError("the cKDTree peer needs scipy: pip install -e .[peers]") from None
    b = as_boxes(boxes)
    if len(b) < 2:
        return np.empty((0, 2), np.int64)
    centres = 0.5 * (b[:, :2] + b[:, 2:])
    r = float(np.hypot(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]).max())
    cand = cKDTree(centres).query_pairs(r, output_type="ndarray")
    i, j = cand[:, 0], cand[:, 1]
    hit = (b[i, 0] <= b[j, 2]) & (b[j, 0] <= b[i, 2]) & (b[i, 1] <= b[j, 3]) & (b[j, 1] <= b[i, 3])
    return normalize_pairs(cand[hit])


def shapely_strtree_pairs(boxes, *, geometries=None) -> np.ndarray:
    """Intersecting pairs via ``shapely.STRtree``: ``tree.query(boxes, predicate="intersects")``, then ``i < j``.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs.
    geometries : numpy.ndarray of shapely.Polygon, optional
        The boxes as shapely polygons (``shapely.box``), made once by the caller
        so that a timing covers only the tree build and the query; made here if
        omitted.

    Returns
    -------
    numpy.ndarray, shape (k, 2), dtype int64
        The convention of :func:`lessons_lib.brute_force_pairs`.

    Notes
    -----
    GEOS' STRtree packs its nodes with STR (node capacity 10 by default); the
    ``intersects`` predicate then runs an exact polygon test on each candidate.
    """
    try:
        import shapely
    except ImportError:
        raise ImportError("the shapely peer needs shapely: pip install -e .[peers]") from None
    b = as_boxes(boxes)
    g = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3]) if geometries is None else geometries
    i, j = shapely.STRtree(g).query(g, predicate="intersects")
    keep = i < j
    return normalize_pairs(np.column_stack([i[keep], j[keep]]))


def rtree_insert_one_by_one(boxes):
    """Insert boxes one by one into an ``rtree.index.Index`` (libspatialindex); return the index.

    ``idx.insert(i, (xmin, ymin, xmax, ymax))`` for each row, in order: the
    same loop as inserting into our :class:`~lessons_lib.structures.rtree.RTree`.
    """
    try:
        from rtree import index
    except ImportError:
        raise ImportError("the rtree peer needs the rtree package: pip install -e .[peers]") from None
    idx = index.Index()
    for i, row in enumerate(as_boxes(boxes).tolist()):
        idx.insert(i, row)
    return idx


# --------------------------------------------------------------------------
# Peers as two timed steps (build, then pairs), for the suites
# --------------------------------------------------------------------------
# lessons_lib.bench.suites times every library the same way as our structures:
# ``prepare`` converts the boxes to the library's own input once (not timed: a
# program using the library holds its data in that form already), ``build``
# makes the index (timed), ``pairs`` answers "every intersecting pair" in the
# lessons' convention (timed). Each peer's result is checked against the
# suite's reference like ours.

def _hit(b, i, j):
    """Mask of candidate rows ``(i, j)`` whose closed boxes really intersect."""
    return (b[i, 0] <= b[j, 2]) & (b[j, 0] <= b[i, 2]) & (b[i, 1] <= b[j, 3]) & (b[j, 1] <= b[i, 3])


def _self_join(i, j) -> np.ndarray:
    """Rows ``(i, j)`` of a query of every box against every box -> canonical pairs ``i < j``."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    keep = i < j
    return normalize_pairs(np.column_stack([i[keep], j[keep]]))


def _ckdtree_build(boxes, prepared):
    from scipy.spatial import cKDTree

    return cKDTree(0.5 * (boxes[:, :2] + boxes[:, 2:]))


def _ckdtree_pairs(tree, boxes, prepared):
    if len(boxes) < 2:
        return np.empty((0, 2), np.int64)
    r = float(np.hypot(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).max())
    cand = tree.query_pairs(r, output_type="ndarray")
    return normalize_pairs(cand[_hit(boxes, cand[:, 0], cand[:, 1])])


def _shapely_prepare(boxes):
    import shapely

    return shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3])


def _shapely_build(boxes, geoms):
    import shapely

    return shapely.STRtree(geoms)


def _shapely_pairs(tree, boxes, geoms):
    i, j = tree.query(geoms, predicate="intersects")
    return _self_join(i, j)


def _rtree_build(boxes, prepared):
    """libspatialindex's bulk load: from numpy arrays where supported (libspatialindex >= 2.1), else a stream."""
    from rtree import index

    ids = np.arange(len(boxes), dtype=np.int64)
    if len(boxes) == 0:
        return index.Index()
    try:
        return index.Index((ids, np.ascontiguousarray(boxes[:, :2]), np.ascontiguousarray(boxes[:, 2:])))
    except (NotImplementedError, TypeError):
        return index.Index((int(k), tuple(row), None) for k, row in enumerate(boxes.tolist()))


def _rtree_pairs(idx, boxes, prepared):
    """One intersection query per box (``intersection_v`` runs them all in one call where available)."""
    if len(boxes) == 0:
        return np.empty((0, 2), np.int64)
    if hasattr(idx, "intersection_v"):
        hits, counts = idx.intersection_v(np.ascontiguousarray(boxes[:, :2]), np.ascontiguousarray(boxes[:, 2:]))
        i = np.repeat(np.arange(len(boxes), dtype=np.int64), np.asarray(counts, dtype=np.int64))
        return _self_join(i, hits)
    rows = [(k, int(h)) for k, row in enumerate(boxes.tolist()) for h in idx.intersection(row)]
    a = np.array(rows, dtype=np.int64).reshape(-1, 2)
    return _self_join(a[:, 0], a[:, 1])


def _pyqtree_build(boxes, prepared):
    import pyqtree

    from ..base import world_for

    w = world_for(boxes)
    idx = pyqtree.Index(bbox=tuple(w.tolist()))
    for k, row in enumerate(boxes.tolist()):
        idx.insert(k, row)
    return idx


def _pyqtree_pairs(idx, boxes, prepared):
    i, j = [], []
    for k, row in enumerate(boxes.tolist()):
        found = idx.intersect(row)
        i.extend([k] * len(found))
        j.extend(found)
    return _self_join(np.array(i, dtype=np.int64), np.array(j, dtype=np.int64))


@dataclass(frozen=True)
class Peer:
    """A library timed beside our structures: ``prepare`` (not timed), ``build`` and ``pairs`` (timed).

    ``build(boxes, prepared)`` returns the library's index; ``pairs(index, boxes,
    prepared)`` returns ``(k, 2)`` int64 pairs in the lessons' convention.
    ``module`` is the import that must succeed for the peer to run.
    """

    name: str
    module: str
    how: str
    build: Callable
    pairs: Callable
    prepare: Callable | None = None

    def available(self) -> bool:
        """True when the peer's library can be imported."""
        try:
            importlib.import_module(self.module)
        except ImportError:
            return False
        return True

    def version(self) -> str:
        try:
            from importlib.metadata import version

            return version({"scipy.spatial": "scipy", "rtree": "Rtree"}.get(self.module, self.module))
        except Exception:  # noqa: BLE001 - a version is information only
            return "?"


#: The peers of the suites, by the name used in the result files.
PEERS: dict[str, Peer] = {
    "cKDTree": Peer("cKDTree", "scipy.spatial",
                    "scipy.spatial.cKDTree of the centres; query_pairs(r = largest box diagonal), exact box filter",
                    _ckdtree_build, _ckdtree_pairs),
    "shapely.STRtree": Peer("shapely.STRtree", "shapely",
                            "shapely.STRtree of shapely.box polygons (made before timing); "
                            "query(boxes, predicate='intersects')",
                            _shapely_build, _shapely_pairs, _shapely_prepare),
    "rtree.index": Peer("rtree.index", "rtree",
                  "rtree.index.Index bulk (stream) load, then one intersection query per box (intersection_v)",
                  _rtree_build, _rtree_pairs),
    "pyqtree": Peer("pyqtree", "pyqtree",
                    "pyqtree.Index (pure Python quadtree): insert one by one, then intersect() per box",
                    _pyqtree_build, _pyqtree_pairs),
}

"""Peers: the spatial libraries people use, timed like our structures.

Optional: install with ``pip install -e .[peers]``. Each function raises
``ImportError`` with an install hint when its library is missing.
"""
from __future__ import annotations

import numpy as np

from ..base import normalize_pairs
from ..geometry import as_boxes

__all__ = ["ckdtree_pairs", "shapely_strtree_pairs", "rtree_insert_one_by_one"]


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
    same loop as inserting into our :class:`~lessons_lib.rtree.RTree`.
    """
    try:
        from rtree import index
    except ImportError:
        raise ImportError("the rtree peer needs the rtree package: pip install -e .[peers]") from None
    idx = index.Index()
    for i, row in enumerate(as_boxes(boxes).tolist()):
        idx.insert(i, row)
    return idx

"""Peers: the spatial libraries people use, timed like our structures.

Optional: install with ``pip install -e .[peers]``. Each function raises
``ImportError`` with an install hint when its library is missing.
"""
from __future__ import annotations

import numpy as np

from ..base import normalize_pairs
from ..geometry import as_boxes

__all__ = ["ckdtree_pairs"]


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

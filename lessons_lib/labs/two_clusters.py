"""The two-cluster split: lesson 01's first idea for beating the O(n^2) wall.

Sort the boxes along one axis and cut the set at the widest empty gap; no box on
one side can touch a box on the other, so brute force runs on each side alone:
``C(a, 2) + C(b, 2)`` tests instead of ``C(a + b, 2)``. The axis is the one
along which the box centres have the larger variance.

Source: the "naive approach" section of the broad-phase article by magley
(2026), [magley2026], which also names its two failure
modes: no gap when the boxes do not form two disjoint clusters, and little
gain when the clusters are unbalanced.

A detail the article leaves implicit: after sorting by the lower edge, the gap
after box ``k`` must be measured from the *largest upper edge so far* (a long
box can reach over its neighbours), otherwise a "cut" may split touching boxes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base import normalize_pairs
from ..structures.brute_force import brute_force_pairs, pair_test_count
from ..geometry import as_boxes, axis_of_larger_variance

__all__ = ["ClusterSplit", "split_two_clusters", "two_cluster_pairs"]


@dataclass(frozen=True)
class ClusterSplit:
    """Result of :func:`split_two_clusters`.

    Attributes
    ----------
    axis : int
        0 for x, 1 for y.
    left, right : numpy.ndarray of int64
        Row indices of the boxes on each side of the cut (``right`` is empty
        when no gap exists).
    cut : float
        Coordinate of the cut line: the middle of the widest gap (NaN if none).
    gap : float
        Width of that gap in world units (0.0 if none).
    """

    axis: int
    left: np.ndarray
    right: np.ndarray
    cut: float
    gap: float

    @property
    def tests(self) -> int:
        """Box-box tests brute force needs on the two sides: C(a, 2) + C(b, 2)."""
        return pair_test_count(len(self.left)) + pair_test_count(len(self.right))



def split_two_clusters(boxes, axis: int | None = None) -> ClusterSplit:
    """Cut ``boxes`` into two groups at the widest empty gap along one axis.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs ``[xmin, ymin, xmax, ymax]``.
    axis : {0, 1, None}
        Axis to cut along; ``None`` chooses it by :func:`axis_of_larger_variance`.

    Returns
    -------
    ClusterSplit
        Boxes in ``left`` and ``right`` never intersect each other. With no
        strictly positive gap (touching counts as intersecting) everything is
        in ``left``.

    Raises
    ------
    ValueError
        Bad boxes, or ``axis`` not 0, 1 or None.

    Notes
    -----
    O(n log n) for the sort plus O(n) for the scan.
    """
    b = as_boxes(boxes)
    if axis is None:
        axis = axis_of_larger_variance(b)
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) or axis not in (0, 1):
        raise ValueError(f"axis must be 0 (x), 1 (y) or None, got {axis!r}")
    axis = int(axis)
    order = np.argsort(b[:, axis], kind="stable").astype(np.int64)
    if len(b) < 2:
        return ClusterSplit(axis, order, np.empty(0, np.int64), float("nan"), 0.0)
    lo = b[order, axis]
    reach = np.maximum.accumulate(b[order, axis + 2])  # largest upper edge so far
    gaps = lo[1:] - reach[:-1]
    k = int(np.argmax(gaps))
    if gaps[k] <= 0:
        return ClusterSplit(axis, order, np.empty(0, np.int64), float("nan"), 0.0)
    cut = 0.5 * (reach[k] + lo[k + 1])
    return ClusterSplit(axis, np.sort(order[: k + 1]), np.sort(order[k + 1 :]), float(cut), float(gaps[k]))


def two_cluster_pairs(boxes, axis: int | None = None) -> tuple[np.ndarray, int]:
    """Intersecting pairs found by brute force on each side of the split.

    Returns
    -------
    pairs : numpy.ndarray, shape (k, 2), dtype int64
        Same result and convention as :func:`~lessons_lib.structures.brute_force.brute_force_pairs`.
    tests : int
        Box-box tests made: ``C(a, 2) + C(b, 2)``.

    Raises
    ------
    ValueError
        As :func:`split_two_clusters`.
    """
    b = as_boxes(boxes)
    split = split_two_clusters(b, axis)
    parts = []
    for side in (split.left, split.right):
        if len(side) > 1:
            parts.append(side[brute_force_pairs(b[side])])
    if not parts:
        return np.empty((0, 2), np.int64), split.tests
    return normalize_pairs(np.concatenate(parts)), split.tests

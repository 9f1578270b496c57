"""The closed overlap test every kernel uses, written once.

Two closed boxes ``[xmin, ymin, xmax, ymax]`` intersect when they overlap on
both axes; touching (a shared edge or corner) counts. The course's whole
contract rests on this one comparison, so every compiled kernel calls these
functions instead of spelling the four comparisons out (numba inlines them,
so there is no call overhead). For numpy arrays of boxes use
:func:`lessons_lib.geometry.boxes_overlap`.

``&`` instead of ``and``: the four comparisons are evaluated without
branches, which a processor predicts better on random data.
"""
from __future__ import annotations

from .jit import njit

__all__ = ["overlaps", "row_overlaps", "rows_overlap"]


@njit(inline="always")
def overlaps(ax0, ay0, ax1, ay1, bx0, by0, bx1, by1):
    """Do the closed boxes ``a`` and ``b`` (given by their sides) intersect?"""
    return (ax0 <= bx1) & (bx0 <= ax1) & (ay0 <= by1) & (by0 <= ay1)


@njit(inline="always")
def row_overlaps(boxes, i, q0, q1, q2, q3):
    """Does row ``i`` of the ``(n, 4)`` array ``boxes`` meet the closed box ``(q0, q1, q2, q3)``?"""
    return (boxes[i, 0] <= q2) & (q0 <= boxes[i, 2]) & (boxes[i, 1] <= q3) & (q1 <= boxes[i, 3])


@njit(inline="always")
def rows_overlap(boxes, i, other, j):
    """Do row ``i`` of ``boxes`` and row ``j`` of ``other`` (both ``(n, 4)`` arrays) intersect?"""
    return ((boxes[i, 0] <= other[j, 2]) & (other[j, 0] <= boxes[i, 2])
            & (boxes[i, 1] <= other[j, 3]) & (other[j, 1] <= boxes[i, 3]))

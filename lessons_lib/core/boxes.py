"""The closed overlap test every kernel uses, written once.

Two closed boxes ``[xmin, ymin, xmax, ymax]`` intersect when they overlap on
both axes; touching (a shared edge or corner) counts. The course's whole
contract rests on this one comparison, so every compiled kernel calls these
functions instead of spelling the four comparisons out (numba inlines them,
so there is no call overhead). For numpy arrays of boxes use
:func:`lessons_lib.geometry.boxes_overlap`.

``&`` instead of ``and``: the four comparisons are evaluated without
branches, which a processor predicts better on random data.

A box's sides are read by name, ``boxes[i, XMIN]`` .. ``boxes[i, YMAX]``:
:data:`XMIN`, :data:`YMIN`, :data:`XMAX`, :data:`YMAX` are the column numbers
0..3 of a box row, module-level integers that numba compiles to the same code
as the literals; its two corners are :data:`MIN_CORNER` and :data:`MAX_CORNER`.
"""
from __future__ import annotations

from .jit import njit

__all__ = ["XMIN", "YMIN", "XMAX", "YMAX", "MIN_CORNER", "MAX_CORNER", "overlaps", "row_overlaps", "rows_overlap"]

#: Columns of a box row ``[xmin, ymin, xmax, ymax]`` (the sides of a closed box).
XMIN, YMIN, XMAX, YMAX = 0, 1, 2, 3
#: The lower-left corner ``(xmin, ymin)`` and the upper-right corner ``(xmax, ymax)`` of a box row, as
#: slices: ``boxes[:, MIN_CORNER]`` is ``(n, 2)``. Along axis ``a`` (0 = x, 1 = y) the low side is
#: column ``XMIN + a`` and the high side ``XMAX + a``.
MIN_CORNER, MAX_CORNER = slice(XMIN, YMIN + 1), slice(XMAX, YMAX + 1)


@njit(inline="always")
def overlaps(ax0, ay0, ax1, ay1, bx0, by0, bx1, by1):
    """Do the closed boxes ``a`` and ``b`` (given by their sides) intersect?"""
    return (ax0 <= bx1) & (bx0 <= ax1) & (ay0 <= by1) & (by0 <= ay1)


@njit(inline="always")
def row_overlaps(boxes, i, q0, q1, q2, q3):
    """Does row ``i`` of the ``(n, 4)`` array ``boxes`` meet the closed box ``(q0, q1, q2, q3)``?"""
    return (boxes[i, XMIN] <= q2) & (q0 <= boxes[i, XMAX]) & (boxes[i, YMIN] <= q3) & (q1 <= boxes[i, YMAX])


@njit(inline="always")
def rows_overlap(boxes, i, other, j):
    """Do row ``i`` of ``boxes`` and row ``j`` of ``other`` (both ``(n, 4)`` arrays) intersect?"""
    return ((boxes[i, XMIN] <= other[j, XMAX]) & (other[j, XMIN] <= boxes[i, XMAX])
            & (boxes[i, YMIN] <= other[j, YMAX]) & (other[j, YMIN] <= boxes[i, YMAX]))

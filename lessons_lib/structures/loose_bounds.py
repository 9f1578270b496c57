"""Loose bounds in float32, rounded outwards: the kernels lessons 06-07's structures share.

A loose quadtree node and a loose grid cell store the bounding box of the
elements they hold, in float32 to halve the memory. Rounding a float64
coordinate to the nearest float32 could move a side inwards and lose a touch,
so every side is rounded *outwards*: the float32 box always contains the
float64 boxes it covers (closed boxes: touching still counts).

An empty bound is the inverted box ``[+inf, +inf, -inf, -inf]``: no box meets it,
and growing it by a box gives that box.
"""
from __future__ import annotations

import numpy as np

from ..core.jit import njit
from ..core.boxes import XMAX, XMIN, YMAX, YMIN

__all__ = ["F32_MAX", "EMPTY_RECT", "f32_down", "f32_up", "grow_rect", "widen_rect", "set_empty"]

#: Largest finite float32.
F32_MAX = float(np.finfo(np.float32).max)
#: Bounds of an empty node or cell: inverted, so no box meets them.
EMPTY_RECT = np.array([np.inf, np.inf, -np.inf, -np.inf], dtype=np.float32)


# ==========================================================================
# float32 bounds, rounded outwards
# ==========================================================================
@njit
def f32_down(v):
    """The largest float32 ``<= v`` (``v`` a float64); -inf below the float32 range."""
    if v > F32_MAX:
        return np.float32(F32_MAX)
    if v < -F32_MAX:
        return np.float32(-np.inf)
    x = np.float32(v)
    if np.float64(x) > v:  # compare in float64: numpy 2 would compare a float32 and a Python float in float32
        x = np.nextafter(x, np.float32(-np.inf))
    return x


@njit
def f32_up(v):
    """The smallest float32 ``>= v`` (``v`` a float64); +inf above the float32 range."""
    if v > F32_MAX:
        return np.float32(np.inf)
    if v < -F32_MAX:
        return np.float32(-F32_MAX)
    x = np.float32(v)
    if np.float64(x) < v:  # see f32_down
        x = np.nextafter(x, np.float32(np.inf))
    return x


@njit
def grow_rect(rects, node, boxes, s):
    """Grow ``rects[node]`` to cover ``boxes[s]`` (rounded outwards).

    Each float64 coordinate is compared with the float32 side first and
    rounded only when it moves the side (:func:`f32_down` is monotone and
    exact on float32 values, so the result is the same as rounding always).
    """
    if boxes[s, XMIN] < rects[node, XMIN]:
        rects[node, XMIN] = f32_down(boxes[s, XMIN])
    if boxes[s, YMIN] < rects[node, YMIN]:
        rects[node, YMIN] = f32_down(boxes[s, YMIN])
    if boxes[s, XMAX] > rects[node, XMAX]:
        rects[node, XMAX] = f32_up(boxes[s, XMAX])
    if boxes[s, YMAX] > rects[node, YMAX]:
        rects[node, YMAX] = f32_up(boxes[s, YMAX])


@njit(inline="always")
def widen_rect(rects, node, boxes, s):
    """:func:`grow_rect` without branches: every side is taken as ``min``/``max`` and rounded outwards.

    For loops where whether a box moves a side is a coin flip (a moving
    element and the rectangle of its few neighbours): a mispredicted branch
    costs more than rounding a side that did not move (rounding a float32
    value gives it back).
    """
    rects[node, XMIN] = f32_down(min(np.float64(rects[node, XMIN]), boxes[s, XMIN]))
    rects[node, YMIN] = f32_down(min(np.float64(rects[node, YMIN]), boxes[s, YMIN]))
    rects[node, XMAX] = f32_up(max(np.float64(rects[node, XMAX]), boxes[s, XMAX]))
    rects[node, YMAX] = f32_up(max(np.float64(rects[node, YMAX]), boxes[s, YMAX]))


@njit
def set_empty(rects, node):
    rects[node, XMIN] = np.inf
    rects[node, YMIN] = np.inf
    rects[node, XMAX] = -np.inf
    rects[node, YMAX] = -np.inf

"""Space-filling curves: Hilbert, Morton (Z-order) and Peano, vectorised.

A space-filling curve visits every cell of a ``2^k x 2^k`` (or ``3^k x 3^k``)
grid once. Sorting objects by the curve index of their cell puts objects that
are close in the plane mostly close in the list, which is what bulk loading
needs: cut the sorted list into runs of ``M`` and each run is a compact node
(the Hilbert R-tree of Kamel and Faloutsos 1994).

* **Morton / Z-order** (Morton 1966): interleave the bits of ``x`` and ``y``.
  Cheap, but the curve jumps across the grid at every power of two.
* **Hilbert** (Hilbert 1891): each quadrant is visited by a rotated or mirrored
  copy of the whole curve, so consecutive cells always share an edge.
* **Peano** (Peano 1890): the first such curve, on a 3 x 3 pattern of
  serpentines; consecutive cells also share an edge.

Every function takes and returns numpy arrays (int64); coordinates are cell
indices, ``0 <= x, y < side``.
"""
from __future__ import annotations

import numpy as np

from ..core.params import check_int
from ..core.boxes import MIN_CORNER, XMAX, XMIN, YMAX, YMIN

__all__ = [
    "hilbert_index",
    "hilbert_point",
    "hilbert_curve",
    "morton_encode",
    "morton_decode",
    "morton_curve",
    "peano_curve",
    "hilbert_keys",
]

#: Largest order accepted: 2 * order bits must fit in an int64.
MAX_ORDER = 31


def _order(order) -> int:
    return check_int("order", order, 0, MAX_ORDER)


def _cells(x, y, side: int, what="x, y"):
    x = np.asarray(x)
    y = np.asarray(y)
    if not (np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer)):
        raise TypeError(f"{what} must be integer cell indices, got dtypes {x.dtype} and {y.dtype}")
    x, y = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
    bad = (x < 0) | (x >= side) | (y < 0) | (y >= side)
    if bad.any():
        k = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"cell ({x.ravel()[k]}, {y.ravel()[k]}) is outside the {side} x {side} grid")
    return x.copy(), y.copy()


# --------------------------------------------------------------------------
# Hilbert
# --------------------------------------------------------------------------
def _rotate(s, x, y, rx, ry):
    """Turn the sub-square of side ``s`` so the curve inside it has the standard orientation."""
    turn = ry == 0
    flip = turn & (rx == 1)
    x[flip] = s - 1 - x[flip]
    y[flip] = s - 1 - y[flip]
    x[turn], y[turn] = y[turn], x[turn].copy()


def hilbert_index(x, y, order: int) -> np.ndarray:
    """Distance along the Hilbert curve of order ``order`` of cell ``(x, y)``.

    Parameters
    ----------
    x, y : array_like of int
        Cell indices in ``[0, 2**order)``; broadcast together.
    order : int
        The grid is ``2**order`` cells a side, ``0 <= order <= 31``.

    Returns
    -------
    numpy.ndarray of int64, values in ``[0, 4**order)``.

    Raises
    ------
    TypeError, ValueError
        Non-integer cells or order, a cell outside the grid.

    Notes
    -----
    O(order) vectorised steps: at each scale, the quadrant of the cell gives
    two bits of the index, then the coordinates are turned into that
    quadrant's frame.
    """
    k = _order(order)
    side = 1 << k
    x, y = _cells(x, y, side)
    d = np.zeros_like(x)
    s = side >> 1
    while s > 0:
        rx = ((x & s) > 0).astype(np.int64)
        ry = ((y & s) > 0).astype(np.int64)
        d += s * s * ((3 * rx) ^ ry)
        _rotate(side, x, y, rx, ry)
        s >>= 1
    return d


def hilbert_point(d, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Cell ``(x, y)`` at distance ``d`` along the Hilbert curve of order ``order`` (inverse of :func:`hilbert_index`).

    Raises ``ValueError`` if ``d`` is outside ``[0, 4**order)``.
    """
    k = _order(order)
    side = 1 << k
    t = np.array(d, dtype=np.int64, copy=True)
    if np.any((t < 0) | (t >= side * side)):
        raise ValueError(f"d must be in [0, {side * side}), got values from {t.min()} to {t.max()}")
    x = np.zeros_like(t)
    y = np.zeros_like(t)
    s = 1
    while s < side:
        rx = 1 & (t >> 1)
        ry = 1 & (t ^ rx)
        _rotate(s, x, y, rx, ry)
        x += s * rx
        y += s * ry
        t >>= 2
        s <<= 1
    return x, y


def hilbert_curve(order: int) -> np.ndarray:
    """The ``4**order`` cells of the Hilbert curve in visiting order: ``(4**order, 2)`` int64."""
    x, y = hilbert_point(np.arange(4 ** _order(order)), order)
    return np.column_stack([x, y])


# --------------------------------------------------------------------------
# Morton (Z-order)
# --------------------------------------------------------------------------
def _spread(v):
    """Insert a 0 bit above each of the 31 low bits of ``v``: ``abc`` -> ``0a0b0c``."""
    v = v & 0x7FFFFFFF
    v = (v | (v << 16)) & 0x0000FFFF0000FFFF
    v = (v | (v << 8)) & 0x00FF00FF00FF00FF
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v << 2)) & 0x3333333333333333
    v = (v | (v << 1)) & 0x5555555555555555
    return v


def _squeeze(v):
    """Inverse of :func:`_spread`: keep the even bits and pack them together."""
    v = v & 0x5555555555555555
    v = (v | (v >> 1)) & 0x3333333333333333
    v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v >> 4)) & 0x00FF00FF00FF00FF
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFF
    v = (v | (v >> 16)) & 0x00000000FFFFFFFF
    return v


def morton_encode(x, y) -> np.ndarray:
    """Z-order code of cell ``(x, y)``: bit ``i`` of ``x`` goes to bit ``2i``, bit ``i`` of ``y`` to ``2i + 1``.

    Parameters
    ----------
    x, y : array_like of int
        Non-negative cell indices below ``2**31``.

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    TypeError, ValueError
        Non-integer or out-of-range cells.
    """
    x, y = _cells(x, y, 1 << MAX_ORDER)
    return _spread(x) | (_spread(y) << 1)


def morton_decode(code) -> tuple[np.ndarray, np.ndarray]:
    """Cell ``(x, y)`` of a Z-order code (inverse of :func:`morton_encode`)."""
    c = np.asarray(code, dtype=np.int64)
    if np.any(c < 0):
        raise ValueError("Morton codes are non-negative")
    return _squeeze(c), _squeeze(c >> 1)


def morton_curve(order: int) -> np.ndarray:
    """The ``4**order`` cells in Z-order: ``(4**order, 2)`` int64."""
    x, y = morton_decode(np.arange(4 ** _order(order), dtype=np.int64))
    return np.column_stack([x, y])


# --------------------------------------------------------------------------
# Peano
# --------------------------------------------------------------------------
def peano_curve(order: int) -> np.ndarray:
    """The ``9**order`` cells of Peano's curve on a ``3**order`` grid, in visiting order.

    Returns
    -------
    numpy.ndarray, shape (9**order, 2), int64

    Raises
    ------
    ValueError
        ``order`` outside ``[0, 10]``.

    Notes
    -----
    Peano's own construction: write the position ``t`` in base 3 as digits
    ``t1 t2 t3 ...``; the odd digits give ``x``, the even ones ``y``, each digit
    mirrored (``d -> 2 - d``) when the sum of the *other* coordinate's earlier
    digits is odd. Consecutive cells share an edge.
    """
    k = check_int("order", order, 0, 10)
    t = np.arange(9**k, dtype=np.int64)
    digits = [(t // 3 ** (2 * k - 1 - i)) % 3 for i in range(2 * k)]  # most significant first
    x = np.zeros_like(t)
    y = np.zeros_like(t)
    sum_even = np.zeros_like(t)  # sum of y-digits seen so far (mirrors x)
    sum_odd = np.zeros_like(t)  # sum of x-digits seen so far (mirrors y)
    for i in range(k):
        dx, dy = digits[2 * i], digits[2 * i + 1]
        xd = np.where(sum_even % 2 == 1, 2 - dx, dx)
        sum_odd = sum_odd + dx
        yd = np.where(sum_odd % 2 == 1, 2 - dy, dy)
        sum_even = sum_even + dy
        x = 3 * x + xd
        y = 3 * y + yd
    return np.column_stack([x, y])


# --------------------------------------------------------------------------
# Keys for bulk loading
# --------------------------------------------------------------------------
def hilbert_keys(points, order: int = 16, bounds=None) -> np.ndarray:
    """Hilbert index of each point after snapping it to a square ``2**order`` grid over ``bounds``.

    Parameters
    ----------
    points : array_like, shape (n, 2), float64
        E.g. box centres, in world units; any finite coordinates.
    order : int
        Grid resolution (``2**order`` cells a side), 1..31.
    bounds : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` whose lower corner is the grid's; default
        the points' bounding box.

    Returns
    -------
    numpy.ndarray, shape (n,), int64

    Notes
    -----
    One scale on both axes: the grid is a square whose side is the larger side
    of ``bounds``, so a cell is square in world units and points spread along
    a thin strip stay neighbours along the curve (stretching the short side to
    the whole grid would scatter them). When the span exceeds the float range,
    offsets are computed from half coordinates (``0.5 * x - 0.5 * xmin``),
    which cannot overflow; points outside ``bounds`` go to the nearest border cell.

    >>> hilbert_keys([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], order=1).tolist()
    [0, 3, 2, 1]
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(p) == 0:
        return np.empty(0, np.int64)
    k = _order(order)
    b = (np.array([p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()]) if bounds is None
         else np.asarray(bounds, np.float64).reshape(4))
    side = 1 << k
    with np.errstate(over="ignore"):
        span = max(b[XMAX] - b[XMIN], b[YMAX] - b[YMIN])  # the square grid's side
    if not span > 0:
        return np.zeros(len(p), np.int64)
    with np.errstate(over="ignore"):
        if np.isfinite(span):
            pos = (p - b[MIN_CORNER]) / span * side  # in [0, side] for points inside bounds
        else:  # a span beyond the float range: halves cannot overflow
            pos = (0.5 * p - 0.5 * b[MIN_CORNER]) / max(0.5 * b[XMAX] - 0.5 * b[XMIN], 0.5 * b[YMAX] - 0.5 * b[YMIN]) * side
    cell = np.clip(np.nan_to_num(pos, nan=0.0), 0, side - 1).astype(np.int64)
    return hilbert_index(cell[:, 0], cell[:, 1], k)

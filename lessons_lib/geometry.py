"""Shapes, metrics and exact intersection tests in the plane.

Conventions used across the course
----------------------------------
* Coordinates are float64 world units (the benchmark article's scenes use
  pixels in an 800 x 600 world). ``x`` grows to the right, ``y`` grows upwards
  in plots (matplotlib's default); nothing in the library depends on that.
* An **AABB** (axis-aligned bounding box) is ``[xmin, ymin, xmax, ymax]``.
  A set of ``n`` boxes is an ``(n, 4)`` float64 array.
* Every shape is **closed**: it contains its boundary. Two boxes that only touch
  along an edge or at a corner intersect; so do a point on a box's edge and the
  box. Zero-area (degenerate) boxes are valid: a point is a box with
  ``xmin == xmax`` and ``ymin == ymax``.
* Bad input never passes silently: NaN or infinite coordinates, inverted boxes
  (``xmin > xmax`` or ``ymin > ymax``) and wrong shapes raise ``ValueError``
  naming the offending row and value.

References
----------
The metric-space view (a set with a distance, balls, intersection of shapes as
intersection of point sets, bounding volumes tested first) follows the
"metric spaces" section of the broad-phase article by magley (2026), [magley2026]. Orientation tests for segments: Cormen, Leiserson,
Rivest and Stein, *Introduction to Algorithms*, section 33.1.
"""
from __future__ import annotations

import numpy as np

from .core.jit import njit

__all__ = [
    "ARTICLE_WORLD",
    "as_boxes",
    "as_box",
    "as_points",
    "box_centers",
    "box_sizes",
    "bounding_box",
    "box_extent",
    "boxes_overlap",
    "box_contains_point",
    "circles_overlap",
    "circle_box_overlap",
    "segments_intersect",
    "point_in_polygon",
    "euclidean",
    "manhattan",
    "chebyshev",
    "METRICS",
    "in_ball",
    "axis_of_larger_variance",
    "first_bad_box",
]

#: The world of the benchmark article's scenes: ``[0, 0, 800, 600]``.
ARTICLE_WORLD = np.array([0.0, 0.0, 800.0, 600.0])

_COLS = ("xmin", "ymin", "xmax", "ymax")
_FLOAT_MAX = float(np.finfo(np.float64).max)


@njit
def first_bad_box(arr):
    """Row of the first box of the ``(n, 4)`` float64 array with a NaN or infinite side or ``min > max``; -1 if none.

    One pass, no temporary arrays: the common case (every box valid) of
    :func:`as_boxes` costs one read of the array.
    """
    for i in range(arr.shape[0]):
        x0, y0, x1, y1 = arr[i, 0], arr[i, 1], arr[i, 2], arr[i, 3]
        if not ((abs(x0) <= _FLOAT_MAX) & (abs(y0) <= _FLOAT_MAX) & (abs(x1) <= _FLOAT_MAX)
                & (abs(y1) <= _FLOAT_MAX) & (x0 <= x1) & (y0 <= y1)):
            return i
    return -1


@njit
def box_extent(arr):
    """``[xmin, ymin, xmax, ymax]`` covering the rows of a non-empty, validated ``(n, 4)`` float64 array.

    ``(4,)`` float64, in one pass over the rows (numpy's four column
    reductions read the array four times).
    """
    x0, y0, x1, y1 = arr[0, 0], arr[0, 1], arr[0, 2], arr[0, 3]
    for i in range(1, arr.shape[0]):
        x0 = min(x0, arr[i, 0])
        y0 = min(y0, arr[i, 1])
        x1 = max(x1, arr[i, 2])
        y1 = max(y1, arr[i, 3])
    return np.array([x0, y0, x1, y1])


# --------------------------------------------------------------------------
# Validation at the boundary
# --------------------------------------------------------------------------
def _real_float64(obj, *, name: str, shape: str) -> np.ndarray:
    """``obj`` as float64, accepting only real numbers (float or integer dtypes, or Python numbers).

    Raises ``TypeError`` naming the dtype for booleans, strings, bytes, complex numbers,
    dates and objects that are not real numbers; ``ValueError`` for input that cannot be
    read as an array (ragged rows) and for a number too large for a float64 (naming its
    row when ``shape`` is ``(n, 4)``).
    """
    if isinstance(obj, np.ndarray) and obj.dtype == np.float64:
        return obj
    try:
        raw = np.asarray(obj)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be numbers of shape {shape}: {exc}") from None
    kind = raw.dtype.kind
    if kind in "biuf":
        if kind == "b":
            raise TypeError(f"{name} must be real numbers (a float or integer dtype), got dtype {raw.dtype}")
        return raw.astype(np.float64)
    if kind != "O":
        raise TypeError(f"{name} must be real numbers (a float or integer dtype), got dtype {raw.dtype}")
    flat = raw.reshape(-1)
    for k, v in enumerate(flat.tolist()):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be real numbers, got {type(v).__name__} {v!r:.40} at index {k}")
        try:
            float(v)
        except OverflowError:
            row = f"box {k // 4}" if shape == "(n, 4)" else f"index {k}"
            raise ValueError(f"{name}: {row} has a coordinate too large for a float64: {str(v)[:20]}...") from None
    return raw.astype(np.float64)


def as_boxes(obj, *, name: str = "boxes") -> np.ndarray:
    """Validate ``obj`` as a set of closed AABBs and return it as an array.

    Parameters
    ----------
    obj : array_like, shape (n, 4)
        Rows ``[xmin, ymin, xmax, ymax]`` in world units. ``n`` may be 0
        (a ``(0, 4)`` array or an empty list).
    name : str
        What to call the input in error messages.

    Returns
    -------
    numpy.ndarray, shape (n, 4), dtype float64, C-contiguous
        A new array when a conversion was needed; ``obj`` itself when it was
        already a valid contiguous float64 array.

    Raises
    ------
    TypeError
        If the input is not real numbers: booleans, strings, complex numbers or
        other objects (the message names the dtype).
    ValueError
        If the input cannot be read as numbers, has the wrong shape, holds a
        NaN or infinite coordinate or a number too large for a float64, or has
        a row with ``xmin > xmax`` or ``ymin > ymax``. The message names the
        first offending row.
    """
    arr = _real_float64(obj, name=name, shape="(n, 4)")
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 4)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(
            f"{name} must have shape (n, 4) as rows [xmin, ymin, xmax, ymax], got shape {arr.shape}"
        )
    arr = np.ascontiguousarray(arr)
    if first_bad_box(arr) < 0:
        return arr
    finite = np.isfinite(arr)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise ValueError(f"{name}: box {row} has {_COLS[col]} = {arr[row, col]} (NaN or infinite)")
    bad_x = arr[:, 0] > arr[:, 2]
    bad_y = arr[:, 1] > arr[:, 3]
    if bad_x.any() or bad_y.any():
        row = int(np.flatnonzero(bad_x | bad_y)[0])
        if bad_x[row]:
            raise ValueError(f"{name}: box {row} has xmin {arr[row, 0]} > xmax {arr[row, 2]}")
        raise ValueError(f"{name}: box {row} has ymin {arr[row, 1]} > ymax {arr[row, 3]}")
    return np.ascontiguousarray(arr)


def as_box(obj, *, name: str = "box") -> np.ndarray:
    """Validate one AABB ``[xmin, ymin, xmax, ymax]``; return a ``(4,)`` float64 array.

    Raises
    ------
    TypeError
        Not real numbers (as :func:`as_boxes`).
    ValueError
        Wrong shape, NaN/infinite coordinate, or inverted box (as :func:`as_boxes`).
    """
    arr = _real_float64(obj, name=name, shape="(4,) as [xmin, ymin, xmax, ymax]")
    if arr.shape != (4,):
        raise ValueError(f"{name} must have shape (4,) as [xmin, ymin, xmax, ymax], got shape {arr.shape}")
    for col in range(4):
        if not np.isfinite(arr[col]):
            raise ValueError(f"{name} has {_COLS[col]} = {arr[col]} (NaN or infinite)")
    if arr[0] > arr[2]:
        raise ValueError(f"{name} has xmin {arr[0]} > xmax {arr[2]}")
    if arr[1] > arr[3]:
        raise ValueError(f"{name} has ymin {arr[1]} > ymax {arr[3]}")
    return arr.copy()


def as_points(obj, *, name: str = "points") -> np.ndarray:
    """Validate points; return a float64 array of shape ``(..., 2)``.

    Raises
    ------
    TypeError
        Not real numbers (as :func:`as_boxes`).
    ValueError
        If the last axis is not of length 2 or a coordinate is NaN or infinite.
    """
    arr = _real_float64(obj, name=name, shape="(..., 2)")
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise ValueError(f"{name} must have shape (..., 2) as (x, y), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} has a NaN or infinite coordinate at index {idx}")
    return arr


# --------------------------------------------------------------------------
# Box helpers
# --------------------------------------------------------------------------
def box_centers(boxes) -> np.ndarray:
    """Centres of boxes: ``(n, 2)`` float64 ``(cx, cy)``. Raises ``ValueError`` on bad boxes."""
    b = as_boxes(boxes)
    return 0.5 * (b[:, :2] + b[:, 2:])


def box_sizes(boxes) -> np.ndarray:
    """Widths and heights of boxes: ``(n, 2)`` float64 ``(w, h)``, both >= 0."""
    b = as_boxes(boxes)
    return b[:, 2:] - b[:, :2]


def bounding_box(boxes) -> np.ndarray:
    """The smallest AABB covering all boxes: ``(4,)`` float64.

    Raises
    ------
    ValueError
        On bad boxes, or when there are no boxes (an empty set has no bounds).
    """
    b = as_boxes(boxes)
    if len(b) == 0:
        raise ValueError("bounding_box of an empty set of boxes is undefined")
    return box_extent(b)


# --------------------------------------------------------------------------
# Intersection tests (closed shapes: touching counts). All broadcast.
# --------------------------------------------------------------------------
def boxes_overlap(a, b) -> np.ndarray | bool:
    """Do closed AABBs ``a`` and ``b`` intersect? Touching edges or corners count.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Boxes ``[xmin, ymin, xmax, ymax]``; leading axes broadcast.

    Returns
    -------
    bool or numpy.ndarray of bool, shape = broadcast leading shape

    Notes
    -----
    Two intervals ``[a0, a1]`` and ``[b0, b1]`` intersect iff ``a0 <= b1`` and
    ``b0 <= a1``; boxes intersect iff their x and y intervals both do. Inputs are
    not validated here (this is the inner test): use :func:`as_boxes` first.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    r = (
        (a[..., 0] <= b[..., 2])
        & (b[..., 0] <= a[..., 2])
        & (a[..., 1] <= b[..., 3])
        & (b[..., 1] <= a[..., 3])
    )
    return bool(r) if np.ndim(r) == 0 else r


def box_contains_point(box, point) -> np.ndarray | bool:
    """Is ``point`` ``(x, y)`` inside the closed ``box``? Points on the edge count.

    ``box`` has shape ``(..., 4)``, ``point`` shape ``(..., 2)``; they broadcast.
    """
    box = np.asarray(box, dtype=np.float64)
    p = np.asarray(point, dtype=np.float64)
    r = (
        (box[..., 0] <= p[..., 0])
        & (p[..., 0] <= box[..., 2])
        & (box[..., 1] <= p[..., 1])
        & (p[..., 1] <= box[..., 3])
    )
    return bool(r) if np.ndim(r) == 0 else r


def circles_overlap(c1, r1, c2, r2) -> np.ndarray | bool:
    """Do closed discs (centre ``c``, radius ``r``) intersect? Tangent discs count.

    Compares squared distances (no square root): ``|c1 - c2|^2 <= (r1 + r2)^2``.
    Centres have shape ``(..., 2)``; radii broadcast against the leading shape.

    Raises
    ------
    ValueError
        If a radius is negative.
    """
    c1 = np.asarray(c1, dtype=np.float64)
    c2 = np.asarray(c2, dtype=np.float64)
    r1 = np.asarray(r1, dtype=np.float64)
    r2 = np.asarray(r2, dtype=np.float64)
    if (r1 < 0).any() or (r2 < 0).any():
        raise ValueError("circle radius must be >= 0")
    d = c1 - c2
    r = (d[..., 0] ** 2 + d[..., 1] ** 2) <= (r1 + r2) ** 2
    return bool(r) if np.ndim(r) == 0 else r


def circle_box_overlap(center, radius, box) -> np.ndarray | bool:
    """Does the closed disc intersect the closed AABB? Touching counts.

    The closest point of the box to the centre is the centre clamped to the box;
    the shapes meet iff that point is within ``radius`` of the centre.

    Raises
    ------
    ValueError
        If the radius is negative.
    """
    c = np.asarray(center, dtype=np.float64)
    r = np.asarray(radius, dtype=np.float64)
    box = np.asarray(box, dtype=np.float64)
    if (r < 0).any():
        raise ValueError("circle radius must be >= 0")
    qx = np.clip(c[..., 0], box[..., 0], box[..., 2])
    qy = np.clip(c[..., 1], box[..., 1], box[..., 3])
    out = (c[..., 0] - qx) ** 2 + (c[..., 1] - qy) ** 2 <= r**2
    return bool(out) if np.ndim(out) == 0 else out


def _orient(ax, ay, bx, by, cx, cy):
    """Sign of the cross product (b - a) x (c - a): >0 left turn, <0 right, 0 collinear."""
    return np.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))


def _on_segment(ax, ay, bx, by, px, py):
    """For p collinear with a-b: does p lie within the segment's bounding box?"""
    return (
        (np.minimum(ax, bx) <= px) & (px <= np.maximum(ax, bx))
        & (np.minimum(ay, by) <= py) & (py <= np.maximum(ay, by))
    )


def segments_intersect(p1, p2, q1, q2) -> np.ndarray | bool:
    """Do closed segments ``p1-p2`` and ``q1-q2`` share at least one point?

    Endpoints touching and collinear overlap count. Points have shape ``(..., 2)``
    and broadcast. Uses exact orientation signs, no division.
    """
    p1, p2, q1, q2 = (np.asarray(v, dtype=np.float64) for v in (p1, p2, q1, q2))
    a = (p1[..., 0], p1[..., 1])
    b = (p2[..., 0], p2[..., 1])
    c = (q1[..., 0], q1[..., 1])
    d = (q2[..., 0], q2[..., 1])
    o1 = _orient(*a, *b, *c)
    o2 = _orient(*a, *b, *d)
    o3 = _orient(*c, *d, *a)
    o4 = _orient(*c, *d, *b)
    proper = (o1 * o2 < 0) & (o3 * o4 < 0)
    touching = (
        ((o1 == 0) & _on_segment(*a, *b, *c))
        | ((o2 == 0) & _on_segment(*a, *b, *d))
        | ((o3 == 0) & _on_segment(*c, *d, *a))
        | ((o4 == 0) & _on_segment(*c, *d, *b))
    )
    r = proper | touching
    return bool(r) if np.ndim(r) == 0 else r


def point_in_polygon(point, polygon) -> np.ndarray | bool:
    """Is ``point`` inside the closed simple polygon (boundary included)?

    Parameters
    ----------
    point : array_like, shape (2,) or (m, 2)
    polygon : array_like, shape (k, 2), k >= 3
        Vertices in order (either orientation); the last vertex joins the first.

    Returns
    -------
    bool, or (m,) bool array for several points.

    Raises
    ------
    ValueError
        Fewer than 3 vertices, wrong shapes, NaN or infinite coordinates.

    Notes
    -----
    Crossing-number (even-odd) rule: a ray from the point towards +x crosses the
    boundary an odd number of times iff the point is inside. Points exactly on an
    edge are detected first and count as inside (closed shape). O(k) per point.
    """
    poly = as_points(polygon, name="polygon")
    if poly.ndim != 2 or len(poly) < 3:
        raise ValueError(f"polygon must have shape (k, 2) with k >= 3 vertices, got shape {poly.shape}")
    pts = as_points(point, name="point")
    single = pts.ndim == 1
    pts = pts.reshape(-1, 2)
    px, py = pts[:, 0:1], pts[:, 1:2]  # (m, 1) against (1, k) edges
    ax, ay = poly[:, 0][None, :], poly[:, 1][None, :]
    bx, by = np.roll(poly[:, 0], -1)[None, :], np.roll(poly[:, 1], -1)[None, :]
    on_edge = ((_orient(ax, ay, bx, by, px, py) == 0) & _on_segment(ax, ay, bx, by, px, py)).any(axis=1)
    straddles = (ay > py) != (by > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
    crossings = (straddles & (px < x_cross)).sum(axis=1)
    inside = on_edge | (crossings % 2 == 1)
    return bool(inside[0]) if single else inside


# --------------------------------------------------------------------------
# Metrics and balls
# --------------------------------------------------------------------------
def euclidean(a, b) -> np.ndarray | float:
    """Euclidean (L2) distance between points of shape ``(..., 2)``."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return np.hypot(d[..., 0], d[..., 1])


def manhattan(a, b) -> np.ndarray | float:
    """Manhattan (L1, taxicab) distance ``|dx| + |dy|`` between points ``(..., 2)``."""
    d = np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
    return d[..., 0] + d[..., 1]


def chebyshev(a, b) -> np.ndarray | float:
    """Chebyshev (L-infinity) distance ``max(|dx|, |dy|)`` between points ``(..., 2)``."""
    d = np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
    return np.maximum(d[..., 0], d[..., 1])


#: The three metrics of lesson 01, by name.
METRICS = {"euclidean": euclidean, "manhattan": manhattan, "chebyshev": chebyshev}


def in_ball(points, center, radius, metric: str = "euclidean") -> np.ndarray | bool:
    """Membership in the closed ball ``{p : d(p, center) <= radius}`` of a metric.

    In the plane the Euclidean ball is a disc, the Manhattan ball a diamond and
    the Chebyshev ball an axis-aligned square (an AABB!).

    Raises
    ------
    ValueError
        Unknown metric name or negative radius.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {sorted(METRICS)}")
    if radius < 0:
        raise ValueError(f"ball radius must be >= 0, got {radius}")
    return METRICS[metric](points, center) <= radius


def axis_of_larger_variance(boxes) -> int:
    """0 (x) or 1 (y): the axis along which the centres of ``boxes`` vary more (x on a tie).

    The axis a sweep (lesson 08), a two-cluster split (lesson 01) or a
    Nearest-X packing (lesson 10) should sort along: along it the boxes are
    most spread out, so fewest of them overlap in projection.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs. Fewer than two boxes give 0.

    Raises
    ------
    ValueError
        Bad boxes (wrong shape, NaN, inverted), naming the row.

    Notes
    -----
    The variance of each axis is taken over a contiguous 1-D array of centres
    (``var(axis=0)`` of an ``(n, 2)`` array is about ten times slower).
    """
    b = as_boxes(boxes)
    if len(b) < 2:
        return 0
    vx = np.var(0.5 * b[:, 0] + 0.5 * b[:, 2])
    vy = np.var(0.5 * b[:, 1] + 0.5 * b[:, 3])
    return int(vy > vx)

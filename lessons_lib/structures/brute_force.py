"""Brute force: test every unordered pair. The reference every structure is checked against.

For ``n`` boxes there are ``n (n - 1) / 2`` unordered pairs, so the work grows
as O(n^2): the "wall" of lesson 01. The article ([magley2026]) keeps brute force
as the correctness baseline of its benchmark; so do we. :func:`brute_force_pairs`
and :func:`brute_force_nearest` are written with plain numpy, independent of
numba and of every structure, so that they can be trusted as oracles;
:func:`compiled_brute_force_pairs` is the same double loop compiled, and
:class:`BruteForce` the registered structure that uses it.

Every overlap test here is the closed one of :mod:`lessons_lib.geometry`
(numpy) or :mod:`lessons_lib.core.boxes` (compiled): touching boxes meet.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps
from ..core.buffers import append_pairs
from ..core.jit import njit
from ..geometry import as_boxes, as_points, boxes_overlap

__all__ = [
    "brute_force_pairs",
    "compiled_brute_force_pairs",
    "double_loop_pairs",
    "pair_test_count",
    "brute_force_nearest",
    "distance_keys",
    "all_pairs_kernel",
    "BruteForce",
]

#: Boolean cells evaluated per chunk of :func:`brute_force_pairs` (bounds memory to ~100 MB).
CHUNK_CELLS = 4_000_000


def pair_test_count(n: int) -> int:
    """Number of box-box tests brute force makes on ``n`` boxes: ``n (n - 1) / 2``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return int(n) * (int(n) - 1) // 2


def brute_force_pairs(boxes) -> np.ndarray:
    """Every intersecting pair of closed boxes, by testing all pairs (vectorised).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Rows ``[xmin, ymin, xmax, ymax]``; touching boxes intersect.

    Returns
    -------
    numpy.ndarray, shape (k, 2), dtype int64
        Row indices ``(i, j)`` with ``i < j``, rows sorted lexicographically.

    Raises
    ------
    ValueError
        Bad boxes (wrong shape, NaN/inf, inverted), naming the row.

    Notes
    -----
    O(n^2) time. Rows are processed in chunks, each compared with the rows after
    it, so memory stays near ``CHUNK_CELLS`` booleans whatever ``n`` is
    (n = 20,000 takes a few seconds).
    """
    b = as_boxes(boxes)
    n = len(b)
    out = []
    start = 0
    while start < n - 1:
        rows = max(1, CHUNK_CELLS // max(1, n - start))
        stop = min(n - 1, start + rows)
        i = np.arange(start, stop)[:, None]
        # rows start..stop-1 against the candidates j > start; the j <= i part is masked below
        hit = boxes_overlap(b[start:stop, None, :], b[None, start + 1 :, :])
        hit &= np.arange(start + 1, n)[None, :] > i
        ii, jj = np.nonzero(hit)
        out.append(np.column_stack([ii + start, jj + start + 1]))
        start = stop
    if not out:
        return np.empty((0, 2), dtype=np.int64)
    return np.ascontiguousarray(np.concatenate(out).astype(np.int64))


def double_loop_pairs(boxes) -> tuple[list[tuple[int, int]], int]:
    """The textbook double loop, in plain Python, counting its box-box tests.

    Same result as :func:`brute_force_pairs` (as a list of tuples) plus the
    number of tests made, always ``n (n - 1) / 2``. Slow on purpose: lesson 01
    times it to show the O(n^2) wall.

    Raises
    ------
    ValueError
        Bad boxes, naming the row.
    """
    b = as_boxes(boxes).tolist()
    found, tests = [], 0
    for i in range(len(b)):
        ax0, ay0, ax1, ay1 = b[i]
        for j in range(i + 1, len(b)):
            bx0, by0, bx1, by1 = b[j]
            tests += 1
            if ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1:
                found.append((i, j))
    return found, tests


@njit
def all_pairs_kernel(x0, y0, x1, y1):
    """All ``(i, j)``, ``i < j``, whose closed boxes overlap, as ``(k, 2)`` int64 in loop order.

    The boxes come as four columns (contiguous, so the inner loop reads each
    side as a stream). Branch-free inner loop: every candidate ``j`` is
    written to ``row`` and the cursor ``found`` advances only on a hit, so the
    compiler can vectorise the test (about 9x faster than an ``if`` that
    appends). The output grows between rows, never inside the inner loop.
    """
    n = x0.shape[0]
    out = np.empty((max(16, n), 2), dtype=np.int64)
    row = np.empty(max(n, 1), dtype=np.int64)
    k = 0
    for i in range(n):
        ax0, ay0, ax1, ay1 = x0[i], y0[i], x1[i], y1[i]
        found = 0
        for j in range(i + 1, n):
            row[found] = j
            found += overlaps(ax0, ay0, ax1, ay1, x0[j], y0[j], x1[j], y1[j])
        out, k = append_pairs(out, k, i, row, found)
    return out[:k].copy()


def compiled_brute_force_pairs(boxes) -> np.ndarray:
    """The double loop compiled by numba: same tests, same result as :func:`brute_force_pairs`.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs ``[xmin, ymin, xmax, ymax]``.

    Returns
    -------
    numpy.ndarray, shape (k, 2), dtype int64
        ``(i, j)`` with ``i < j``, rows sorted lexicographically (the loop's own order).

    Raises
    ------
    ValueError
        Bad boxes, naming the row.

    Notes
    -----
    Still ``n (n - 1) / 2`` tests: compiling makes each test cheaper, it does not
    remove any. With ``LESSONS_JIT=0`` this runs as plain Python (slow).
    """
    b = as_boxes(boxes)
    x0, y0, x1, y1 = (np.ascontiguousarray(b[:, c]) for c in range(4))
    return all_pairs_kernel(x0, y0, x1, y1)


def brute_force_nearest(boxes, points, k: int = 1, ids=None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` boxes nearest each point, by measuring every distance (the oracle for ``nearest``).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs ``[xmin, ymin, xmax, ymax]``.
    points : array_like, shape (m, 2) or (2,)
        Query points, same units.
    k : int, default 1
        Neighbours per point, ``1 <= k <= n``.
    ids : array_like of int, shape (n,), optional
        Ids of the boxes (default ``0..n-1``); equal distances are ordered by id.

    Returns
    -------
    ids : numpy.ndarray, shape (m, k), int64
    distances : numpy.ndarray, shape (m, k), float64
        Euclidean distance from the point to the closed box (0 inside or on it).

    Raises
    ------
    ValueError
        Bad boxes or points, wrong ``ids`` length, or ``k`` outside ``1..n``.

    Notes
    -----
    O(n m) distances, computed one point at a time (memory O(n)). Each is
    ranked by its exact ``(exponent, mantissa)`` (:func:`distance_keys`): the
    squared distance ``dx * dx + dy * dy`` would overflow for far points and
    underflow to 0 near 1e-323 (every box then tied, and ranked by id), and
    the distance itself rounds to a few bits among the denormals.
    """
    b = as_boxes(boxes)
    pts = as_points(points).reshape(-1, 2)
    n = len(b)
    ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, np.int64)
    if ids.shape != (n,):
        raise ValueError(f"ids must have shape ({n},), got {ids.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer in 1..{n} (the number of boxes), got {k!r}")
    out_ids = np.empty((len(pts), k), np.int64)
    out_d = np.empty((len(pts), k), np.float64)
    for m, (px, py) in enumerate(pts):
        with np.errstate(over="ignore", invalid="ignore"):  # a gap beyond the float limit: redone below
            dx = np.maximum(np.maximum(b[:, XMIN] - px, 0.0), px - b[:, XMAX])
            dy = np.maximum(np.maximum(b[:, YMIN] - py, 0.0), py - b[:, YMAX])
            exponent, mantissa, dist = distance_keys(dx, dy)
        far = ~np.isfinite(dx) | ~np.isfinite(dy)
        if far.any():  # the gap itself overflows: measure it in halves, one binary order up
            bf = b[far]
            hx = np.maximum(np.maximum(0.5 * bf[:, XMIN] - 0.5 * px, 0.0), 0.5 * px - 0.5 * bf[:, XMAX])
            hy = np.maximum(np.maximum(0.5 * bf[:, YMIN] - 0.5 * py, 0.0), 0.5 * py - 0.5 * bf[:, YMAX])
            e, mantissa[far], _ = distance_keys(hx, hy)
            exponent[far], dist[far] = e + 1, np.inf
        order = np.lexsort((ids, mantissa, exponent))[:k]
        out_ids[m], out_d[m] = ids[order], dist[order]
    return out_ids, out_d


def distance_keys(dx, dy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sqrt(dx**2 + dy**2)`` for arrays of non-negative gaps, as ``(E, M, d)`` with ``d = M * 2**E`` exactly.

    ``0.5 <= M < 1`` and ``E`` int64 (``E = -2**40``, ``M = 0`` for a zero
    distance); ``d`` as a float (``inf`` beyond the float limit). Sorting by
    ``(E, M)`` ranks distances at any scale. The gaps are first scaled by the
    power of two of the larger one (exact), so nothing overflows or underflows.
    """
    dx, dy = np.asarray(dx, np.float64), np.asarray(dy, np.float64)
    s = np.maximum(dx, dy)
    e0 = np.frexp(s)[1].astype(np.int64)
    xs, ys = np.ldexp(dx, -e0), np.ldexp(dy, -e0)
    mantissa, e = np.frexp(np.sqrt(xs * xs + ys * ys))
    exponent = e.astype(np.int64) + e0
    zero = s == 0.0
    exponent[zero], mantissa[zero] = -(1 << 40), 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        dist = np.ldexp(mantissa, np.clip(exponent, -1 << 20, 1 << 20))
    return exponent, mantissa, dist


@register("brute_force")
class BruteForce(BroadPhase):
    """The reference broad phase: no index at all, every query tests every box.

    Lesson 01's wall, kept as the oracle: every other structure must give
    its answers ([magley2026] keeps brute force as the baseline of its
    benchmark for the same reason).

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Ignored for correctness (kept for the common interface).

    Raises
    ------
    ValueError
        From the interface: bad boxes (NaN, infinite, inverted, wrong shape),
        a duplicate id, a bad world. ``KeyError`` for an unknown id,
        ``TypeError`` for an id that is not an integer. Nothing changes on error.

    Notes
    -----
    insert/remove/update O(1); query O(n); pairs O(n^2) via the compiled
    double loop (:func:`compiled_brute_force_pairs`). Memory: only the shared
    element table.

    Coordinates: the whole finite float64 range, down to denormals and up to
    the largest float: the closed overlap test only compares coordinates.

    Examples
    --------
    >>> bp = BruteForce.from_boxes([[0, 0, 2, 2], [2, 0, 4, 2], [5, 5, 6, 6]])
    >>> bp.pairs().tolist()              # boxes 0 and 1 touch along x = 2: closed boxes
    [[0, 1]]
    >>> bp.query([3, 1, 5, 5]).tolist()
    [1, 2]
    """

    def _insert(self, slot, box):
        pass

    def _remove(self, slot, box):
        pass

    def _clear(self):
        pass

    def _query(self, box):
        slots = self.elements.live_slots()
        return slots[boxes_overlap(self.elements.boxes[slots], box)]

    def _pairs(self):
        slots = self.elements.live_slots()
        return slots[compiled_brute_force_pairs(self.elements.boxes[slots])]



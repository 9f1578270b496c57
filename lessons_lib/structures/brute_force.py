"""Brute force: test every unordered pair. The reference every structure is checked against.

For ``n`` boxes there are ``n (n - 1) / 2`` unordered pairs, so the work grows
as O(n^2): the "wall" of lesson 01. The article ([magley2026]) keeps brute force as the correctness baseline of
its benchmark; so do we. It is written with plain numpy, independent of numba
and of every structure, so that it can be trusted as an oracle.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..geometry import as_boxes
from ..core.jit import njit

__all__ = [
    "brute_force_pairs",
    "compiled_brute_force_pairs",
    "double_loop_pairs",
    "pair_test_count",
    "brute_force_nearest",
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
    x0, y0, x1, y1 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    out = []
    start = 0
    while start < n - 1:
        rows = max(1, CHUNK_CELLS // max(1, n - start))
        stop = min(n - 1, start + rows)
        i = np.arange(start, stop)[:, None]
        j = slice(start + 1, n)  # candidates j > start; the j <= i part is masked below
        hit = (
            (x0[start:stop, None] <= x1[None, j])
            & (x0[None, j] <= x1[start:stop, None])
            & (y0[start:stop, None] <= y1[None, j])
            & (y0[None, j] <= y1[start:stop, None])
        )
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
def _double_loop_kernel(x0, y0, x1, y1):
    """All (i, j), i < j, with overlapping closed boxes; (k, 2) int64.

    Branch-free inner loop: every candidate j is written to ``row`` and the
    cursor ``m`` advances only on a hit, so the compiler can vectorise the
    test (about 9x faster than an ``if`` that appends).
    """
    n = x0.shape[0]
    cap = max(16, n)
    out = np.empty((cap, 2), dtype=np.int64)
    row = np.empty(max(n, 1), dtype=np.int64)
    k = 0
    for i in range(n):
        ax0, ay0, ax1, ay1 = x0[i], y0[i], x1[i], y1[i]
        m = 0
        for j in range(i + 1, n):
            row[m] = j
            m += (ax0 <= x1[j]) & (x0[j] <= ax1) & (ay0 <= y1[j]) & (y0[j] <= ay1)
        if k + m > cap:
            cap = max(2 * cap, k + m)
            grown = np.empty((cap, 2), dtype=np.int64)
            grown[:k] = out[:k]
            out = grown
        for t in range(m):
            out[k, 0] = i
            out[k, 1] = row[t]
            k += 1
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
    return _double_loop_kernel(
        np.ascontiguousarray(b[:, 0]), np.ascontiguousarray(b[:, 1]),
        np.ascontiguousarray(b[:, 2]), np.ascontiguousarray(b[:, 3]),
    )


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
    O(n m) distances, computed one point at a time (memory O(n)).
    """
    from ..geometry import as_points

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
        dx = np.maximum(np.maximum(b[:, 0] - px, 0.0), px - b[:, 2])
        dy = np.maximum(np.maximum(b[:, 1] - py, 0.0), py - b[:, 3])
        d2 = dx * dx + dy * dy
        order = np.lexsort((ids, d2))[:k]
        out_ids[m], out_d[m] = ids[order], np.sqrt(d2[order])
    return out_ids, out_d


@register("brute_force")
class BruteForce(BroadPhase):
    """The reference broad phase: no index at all, every query tests every box.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Ignored for correctness (kept for the common interface).

    Notes
    -----
    insert/remove/update O(1); query O(n); pairs O(n^2) via the compiled
    double loop (:func:`compiled_brute_force_pairs`). Memory: only the shared
    element table.
    """

    def _insert(self, slot, box):
        pass

    def _remove(self, slot, box):
        pass

    def _clear(self):
        pass

    def _query(self, box):
        slots = self.elements.live_slots()
        b = self.elements.boxes[slots]
        hit = (b[:, 0] <= box[2]) & (box[0] <= b[:, 2]) & (b[:, 1] <= box[3]) & (box[1] <= b[:, 3])
        return slots[hit]

    def _pairs(self):
        slots = self.elements.live_slots()
        return slots[compiled_brute_force_pairs(self.elements.boxes[slots])]



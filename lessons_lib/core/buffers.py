"""Growable output buffers for the compiled kernels.

A kernel that cannot count its output first writes into a buffer and, when the
buffer is full, continues in a larger copy (doubling, so n writes cost O(n)
copies in all). Growing is rare; the caller keeps the test ``if k ==
buf.shape[0]`` in its loop and calls :func:`grow` only then.

Kernels that fill one shared buffer from several threads cannot grow it; they
write while there is room and *count* past the end instead, and the caller runs
them again with a buffer of the counted size (:func:`run_pairs` does the
writing and the counting for one element against a run of others).
"""
from __future__ import annotations

import numpy as np

from .boxes import overlaps
from .jit import njit

__all__ = ["grow", "append_pairs", "run_pairs"]


@njit
def grow(buf, used, need=0):
    """A copy of ``buf[:used]`` in a buffer with room for at least ``need`` rows (and double ``buf``'s).

    ``buf`` is 1-D or 2-D (rows); the dtype and row width are kept. At least 16 rows.
    """
    cap = max(16, 2 * buf.shape[0], need)
    grown = np.empty((cap,) + buf.shape[1:], dtype=buf.dtype)
    grown[:used] = buf[:used]
    return grown


@njit(inline="always")
def append_pairs(out, k, a, partners, m):
    """Rows ``(a, partners[t])`` for ``t < m`` written to the ``(rows, 2)`` buffer ``out`` from row ``k``.

    ``out`` grows first if the rows do not fit. Returns ``(out, k + m)``.
    """
    if k + m > out.shape[0]:
        out = grow(out, k, k + m)
    for t in range(m):
        out[k, 0] = a
        out[k, 1] = partners[t]
        k += 1
    return out, k


@njit(inline="always")
def run_pairs(s, x0, y0, x1, y1, lo, hi, bx0, by0, bx1, by1, slot, out, k):
    """Test the box ``[x0, y0, x1, y1]`` of slot ``s`` against the run ``lo .. hi - 1``; returns the new ``k``.

    The run's boxes are four column arrays ``bx0, by0, bx1, by1`` (float64, indexed
    ``lo .. hi - 1``; strided views such as ``boxes[:, XMIN]`` serve) and ``slot`` gives
    their slots. Each overlapping pair (closed boxes: touching counts) is written as the
    row ``(s, slot[j])`` of the ``(rows, 2)`` buffer ``out`` from row ``k`` while there is
    room; past the end of ``out`` hits are only counted, so a returned ``k`` larger than
    ``len(out)`` asks the caller to run again with a larger buffer. Where the whole run
    fits, the loop has no branch: every candidate is written and ``k`` advances on a hit
    (a branch on a coin-flip test would be mispredicted half the time).
    """
    if k + (hi - lo) <= out.shape[0]:
        for j in range(lo, hi):
            out[k, 0] = s
            out[k, 1] = slot[j]
            k += overlaps(x0, y0, x1, y1, bx0[j], by0[j], bx1[j], by1[j])
        return k
    for j in range(lo, hi):  # near the end of the room: count every hit, write those that fit
        if overlaps(x0, y0, x1, y1, bx0[j], by0[j], bx1[j], by1[j]):
            if k < out.shape[0]:
                out[k, 0] = s
                out[k, 1] = slot[j]
            k += 1
    return k

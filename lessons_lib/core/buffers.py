"""Growable output buffers for the compiled kernels.

A kernel that cannot count its output first writes into a buffer and, when the
buffer is full, continues in a larger copy (doubling, so n writes cost O(n)
copies in all). Growing is rare; the caller keeps the test ``if k ==
buf.shape[0]`` in its loop and calls :func:`grow` only then.
"""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["grow", "append_pairs"]


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

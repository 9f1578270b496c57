"""Pairs in the library's canonical order: ``(id_a, id_b)`` with ``id_a < id_b``, rows sorted.

Every structure finds pairs of *slots* in its own order; :meth:`BroadPhase.pairs`
turns them into ids and sorts them here. A lexsort of ``k`` pairs costs
O(k log k) (about 27 ms for the 171,000 pairs of 100,000 boxes, more than a
grid's whole pair search), so :func:`canonical_pairs` ranks the ``n`` live ids
once and sorts the pairs by a counting sort on the first rank and a short
insertion sort of each element's few partners: O(n + k).
"""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["normalize_pairs", "canonical_pairs"]


def normalize_pairs(pairs) -> np.ndarray:
    """Return pairs as ``(k, 2)`` int64 with ``a < b`` per row, rows sorted (a lexsort).

    For any array of pairs (ids or row indices). Duplicates are *kept* (a
    structure that reports a pair twice has a bug the tests must see). Raises
    ``ValueError`` for a self-pair.
    """
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2) if np.size(pairs) else np.empty((0, 2), np.int64)
    if (p[:, 0] == p[:, 1]).any():
        raise ValueError(f"pair {p[p[:, 0] == p[:, 1]][0].tolist()} pairs an element with itself")
    p = np.sort(p, axis=1)
    order = np.lexsort((p[:, 1], p[:, 0]))
    return np.ascontiguousarray(p[order])


@njit
def _sort_rank_pairs(ra, rb, n):
    """Sort pairs of ranks (``ra < rb``) by counting sort on ``ra``, insertion sort on ``rb``.

    O(k + n) plus the insertion sorts of each element's few partners.
    """
    k = ra.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for t in range(k):
        start[ra[t] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    fill = start[:n].copy()
    out_b = np.empty(k, dtype=np.int64)
    for t in range(k):
        a = ra[t]
        out_b[fill[a]] = rb[t]
        fill[a] += 1
    out_a = np.empty(k, dtype=np.int64)
    for a in range(n):
        lo, hi = start[a], start[a + 1]
        for t in range(lo, hi):
            out_a[t] = a
        for t in range(lo + 1, hi):  # insertion sort of a's partners
            v = out_b[t]
            u = t - 1
            while u >= lo and out_b[u] > v:
                out_b[u + 1] = out_b[u]
                u -= 1
            out_b[u + 1] = v
    return out_a, out_b


@njit
def _is_increasing(v):
    for i in range(1, v.shape[0]):
        if v[i] <= v[i - 1]:
            return False
    return True


def canonical_pairs(slot_pairs, elements) -> np.ndarray:
    """Slot pairs -> id pairs in canonical order, in O(n + k).

    Parameters
    ----------
    slot_pairs : array_like, shape (k, 2), integer
        Pairs of live slots of ``elements``, any order within and between rows.
    elements : lessons_lib.elements.ElementTable

    Returns
    -------
    numpy.ndarray, shape (k, 2), int64
        ``id_a < id_b`` per row, rows sorted: the same as :func:`normalize_pairs`
        of the ids. Repeated pairs are kept and a self-pair raises
        ``ValueError``, as there (a slot that is not live falls back to
        :func:`normalize_pairs` so that the bug shows plainly).
    """
    sp = np.asarray(slot_pairs, dtype=np.int64).reshape(-1, 2)
    if len(sp) == 0:
        return np.empty((0, 2), np.int64)
    if sp.min() < 0:
        raise ValueError(f"slot pair {sp[(sp < 0).any(axis=1)][0].tolist()} holds a negative slot")
    live = elements.live_slots()
    ids = elements.ids[live]
    if not _is_increasing(ids):  # rank of a slot = position of its id in sorted order
        order = np.argsort(ids, kind="stable")
        live, ids = live[order], ids[order]
    rank = np.full(max(elements.high_water, int(sp.max()) + 1), -1, np.int64)
    rank[live] = np.arange(len(live), dtype=np.int64)
    r = rank[sp]
    if (r < 0).any() or (r[:, 0] == r[:, 1]).any():
        return normalize_pairs(elements.ids[sp])
    ra, rb = np.minimum(r[:, 0], r[:, 1]), np.maximum(r[:, 0], r[:, 1])
    a, b = _sort_rank_pairs(ra, rb, len(live))
    return np.column_stack([ids[a], ids[b]])

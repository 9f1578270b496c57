"""Pairs in the library's canonical order: ``(id_a, id_b)`` with ``id_a < id_b``, rows sorted.

Every structure finds pairs of *slots* in its own order; :meth:`BroadPhase.pairs`
turns them into ids and sorts them here. A lexsort of ``k`` pairs costs
O(k log k) (about 27 ms for the 171,000 pairs of 100,000 boxes, more than a
grid's whole pair search), so :func:`canonical_pairs` ranks the ``n`` live ids
once and sorts the pairs by a counting sort on the first rank and a short
insertion sort of each element's few partners: O(n + k) (a partner list longer
than 32, as in dense scenes, is sorted with ``np.sort`` instead). One kernel does the
ranking lookups, the sort and the writing of the ids (no temporary ``(k, 2)``
arrays), and when every id equals its slot (the common case, see
:class:`~lessons_lib.core.elements.ElementTable`) the rank of a slot is the slot
itself, so no rank table is built at all.
"""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["normalize_pairs", "canonical_pairs"]

_NO_RANK = np.empty(0, dtype=np.int64)

#: Partner lists longer than this are sorted with np.sort instead of an insertion sort.
_LONG_LIST = 32


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
def _canonical_kernel(sp, rank, ids_by_rank, n, ident, alive, hw):
    """The whole of :func:`canonical_pairs` after the ranks are known.

    Counting sort of the pairs on their smaller rank, straight into the
    ``(k, 2)`` output (the larger rank goes in column 1), an insertion sort of
    each element's few partners in place, then ranks are turned into ids in
    place: O(n + k), and no temporary array but the ``n + 1`` counters (each
    fresh megabyte costs page faults). With ``ident`` the rank of a slot is
    the slot itself and also its id (``rank`` and ``ids_by_rank`` are
    unused; a slot is valid when ``0 <= s < hw`` and ``alive[s]``). Returns
    ``(out, ok)``; ``ok`` is False (and ``out`` empty) when a slot is not
    live or a pair joins a slot with itself.
    """
    k = sp.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for t in range(k):
        s0, s1 = sp[t, 0], sp[t, 1]
        if ident:
            if s0 < 0 or s0 >= hw or s1 < 0 or s1 >= hw or not alive[s0] or not alive[s1]:
                return np.empty((0, 2), dtype=np.int64), False
            a, b = s0, s1
        else:
            if s0 < 0 or s0 >= rank.shape[0] or s1 < 0 or s1 >= rank.shape[0]:
                return np.empty((0, 2), dtype=np.int64), False
            a, b = rank[s0], rank[s1]
            if a < 0 or b < 0:
                return np.empty((0, 2), dtype=np.int64), False
        if a == b:
            return np.empty((0, 2), dtype=np.int64), False
        start[min(a, b) + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    # Scatter with start[a] as a's write cursor: afterwards start[a] is where a's rows end,
    # so a's rows are start[a - 1] .. start[a] (0 .. start[0] for a = 0).
    out = np.empty((k, 2), dtype=np.int64)
    for t in range(k):
        if ident:
            a, b = sp[t, 0], sp[t, 1]
        else:
            a, b = rank[sp[t, 0]], rank[sp[t, 1]]
        if b < a:
            a, b = b, a
        w = start[a]
        out[w, 0] = a
        out[w, 1] = b
        start[a] = w + 1
    lo = 0
    for a in range(n):
        hi = start[a]
        if hi - lo > _LONG_LIST:  # many partners (dense scenes): O(m log m), not O(m^2)
            out[lo:hi, 1] = np.sort(out[lo:hi, 1])
        else:
            for t in range(lo + 1, hi):  # insertion sort of a's few partners
                v = out[t, 1]
                u = t - 1
                while u >= lo and out[u, 1] > v:
                    out[u + 1, 1] = out[u, 1]
                    u -= 1
                out[u + 1, 1] = v
        lo = hi
    if not ident:
        for t in range(k):
            out[t, 0] = ids_by_rank[out[t, 0]]
            out[t, 1] = ids_by_rank[out[t, 1]]
    return out, True


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
    elements : lessons_lib.core.elements.ElementTable

    Returns
    -------
    numpy.ndarray, shape (k, 2), int64
        ``id_a < id_b`` per row, rows sorted: the same as :func:`normalize_pairs`
        of the ids. Repeated pairs are kept and a self-pair raises
        ``ValueError``, as there (a slot that is not live falls back to
        :func:`normalize_pairs` so that the bug shows plainly).
    """
    sp = np.asarray(slot_pairs)
    if sp.dtype != np.int32 and sp.dtype != np.int64:
        sp = sp.astype(np.int64)
    sp = np.ascontiguousarray(sp.reshape(-1, 2))
    if len(sp) == 0:
        return np.empty((0, 2), np.int64)
    hw = elements.high_water
    if elements.ids_are_slots:  # every live id equals its slot: the rank order is the slot order
        out, ok = _canonical_kernel(sp, _NO_RANK, _NO_RANK, hw, True, elements.alive, hw)
    else:
        live = elements.live_slots()
        ids = elements.ids[live]
        if not _is_increasing(ids):  # rank of a slot = position of its id in sorted order
            order = np.argsort(ids, kind="stable")
            live, ids = live[order], ids[order]
        rank = np.full(hw, -1, np.int64)
        rank[live] = np.arange(len(live), dtype=np.int64)
        out, ok = _canonical_kernel(sp, rank, ids, len(live), False, elements.alive, hw)
    if ok:
        return out
    if sp.min() < 0:
        raise ValueError(f"slot pair {sp[(sp < 0).any(axis=1)][0].tolist()} holds a negative slot")
    return normalize_pairs(elements.ids[sp])  # a dead slot or a self-pair: show the bug plainly

"""The endpoints of sweep and prune on one axis: their order, the sort, and the edits that keep them sorted.

Lesson 08, sections 3 ("The real sweep: sorted endpoints") and 4 ("Ties, and
the sweep on the structure's own arrays"): the endpoint arrays that both
sweep-and-prune structures keep sorted,
:class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune` (one axis) and
:class:`~lessons_lib.structures.persistent_sweep_and_prune.PersistentSweepAndPrune`
(both axes). Every box ``[xmin, ymin, xmax, ymax]`` gives two **endpoints** on
an axis: its *min* (the interval opens) and its *max* (the interval closes).
The sweep over them (sections 3 and 4), the insertion-sort repair (section 7,
"Temporal coherence: keep the order between frames"), the query (the optional
part "one box's neighbours in the pseudo sweep") and the arrays' growth
(:class:`~lessons_lib.structures.sweep_and_prune.SortedEndpoints`) are in
:mod:`~lessons_lib.structures.sweep_and_prune`.

Data layout
-----------
The endpoints of the ``n`` stored elements on one axis live in two flat arrays
(:class:`~lessons_lib.structures.sweep_and_prune.SortedEndpoints`), the first
``m = 2 n`` entries in use, sorted by ``(key, is_max)``:

=========  ============  ==================================================
array      shape, dtype  meaning
=========  ============  ==================================================
``keys``   (cap,) f8     coordinate of the endpoint on the axis
``codes``  (cap,) int64  ``2 * slot + is_max``: whose endpoint, min or max
=========  ============  ==================================================

``keys`` is the one place where the library stores a coordinate a second time
(the element table holds the boxes): the sorts compare neighbours millions of
times per frame, and the key beside the code makes that a walk over contiguous
memory instead of a jump into the box table per comparison. 16 bytes per
endpoint, 32 per element.

**Closed boxes** (section 4). At equal coordinates a min endpoint sorts *before* a max
endpoint. So when box ``a`` ends exactly where box ``b`` starts, ``b`` opens
while ``a`` is still open and the touching pair is reported; and a zero-width
box opens before it closes.

The kernels, by the lesson's sections
-------------------------------------
* the order of endpoints, by key (section 3) and min before max at equal
  keys (section 4): :func:`endpoint_before`, :func:`endpoints_sorted`;
* sort the endpoints from scratch (section 3): :func:`sort_endpoints`; and
  write the moved boxes' new coordinates into the old order before the repair
  of section 7: :func:`refresh_keys`;
* the edits of a sorted array (the appendix "insert, remove and update on the
  sorted arrays"): :func:`lower_bound`, :func:`find_endpoint`,
  :func:`insert_endpoint`, :func:`delete_endpoint`.

None of them grows an array.

Sources: the sweep-and-prune section of the broad-phase article [magley2026]
(the endpoint triple ``(coordinate, element, is-max)``).
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import XMAX, XMIN
from ..core.jit import njit

__all__ = [
    "MIN_END", "MAX_END", "endpoint_before", "endpoints_sorted", "sort_endpoints", "refresh_keys",
    "lower_bound", "find_endpoint", "insert_endpoint", "delete_endpoint",
]

#: The low bit of an endpoint code: a box's min endpoint (its interval opens) or its max (it closes).
MIN_END, MAX_END = 0, 1


# --------------------------------------------------------------------------
# The order of endpoints: by key (section 3), min before max at equal keys (section 4)
# --------------------------------------------------------------------------
@njit
def endpoint_before(ka, ca, kb, cb):
    """Endpoint ``(ka, ca)`` sorts strictly before ``(kb, cb)``: a smaller key, or the same key and min vs max."""
    return ka < kb or (ka == kb and (ca & 1) < (cb & 1))


@njit
def endpoints_sorted(keys, codes, m):
    """True when the first ``m`` endpoints are in ``(key, is_max)`` order."""
    for t in range(1, m):
        if endpoint_before(keys[t], codes[t], keys[t - 1], codes[t - 1]):
            return False
    return True


# --------------------------------------------------------------------------
# Sort the endpoints from scratch (section 3); new keys in the old order (section 7)
# --------------------------------------------------------------------------
@njit
def _mins_first_in_ties(keys, codes, m):
    """After a sort by key alone: within each run of equal keys put the mins before the maxes (stable)."""
    buf = np.empty(max(1, m), dtype=np.int64)  # allocated once (re-binding it in the loop costs refcounting)
    t = 0
    while t < m:
        u = t + 1
        while u < m and keys[u] == keys[t]:
            u += 1
        if u - t > 1:
            w = 0
            for end in (MIN_END, MAX_END):
                for v in range(t, u):
                    if codes[v] & 1 == end:
                        buf[w] = codes[v]
                        w += 1
            for v in range(t, u):
                codes[v] = buf[v - t]
        t = u


def sort_endpoints(keys, codes, m):
    """Full sort of the first ``m`` endpoints in place, ties min-first: O(m log m).

    numpy's quicksort on the keys (vectorised), then one linear pass that puts
    mins before maxes inside each run of equal keys.
    """
    if m == 0:
        return
    order = np.argsort(keys[:m], kind="quicksort")
    keys[:m] = keys[:m][order]
    codes[:m] = codes[:m][order]
    _mins_first_in_ties(keys, codes, m)


@njit
def refresh_keys(keys, codes, m, boxes, axis):
    """Copy each endpoint's current coordinate from the box table into ``keys`` (the order is kept).

    The column of an endpoint is ``XMIN + axis`` for a min and ``XMAX + axis``
    for a max: the low bit of its code picks the side.
    """
    for t in range(m):
        c = codes[t]
        keys[t] = boxes[c >> 1, XMIN + axis + (XMAX - XMIN) * (c & 1)]


# --------------------------------------------------------------------------
# Edits of a sorted endpoint array: binary search, shift (the appendix "insert, remove and update")
# --------------------------------------------------------------------------
@njit
def lower_bound(keys, codes, m, k, c):
    """First position whose endpoint does not sort before ``(k, c)`` (binary search)."""
    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi) // 2
        if endpoint_before(keys[mid], codes[mid], k, c):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def find_endpoint(keys, codes, m, k, c):
    """Position of the endpoint with code ``c`` and key ``k``; -1 if absent."""
    t = lower_bound(keys, codes, m, k, c)
    while t < m and keys[t] == k and (codes[t] & 1) == (c & 1):
        if codes[t] == c:
            return t
        t += 1
    return -1


@njit
def insert_endpoint(keys, codes, m, k, c):
    """Insert endpoint ``(k, c)`` into the sorted first ``m`` entries (room for ``m + 1``); O(m)."""
    t = lower_bound(keys, codes, m, k, c)
    for u in range(m, t, -1):
        keys[u] = keys[u - 1]
        codes[u] = codes[u - 1]
    keys[t] = k
    codes[t] = c


@njit
def delete_endpoint(keys, codes, m, t):
    """Remove the endpoint at position ``t`` of the first ``m``; O(m)."""
    for u in range(t, m - 1):
        keys[u] = keys[u + 1]
        codes[u] = codes[u + 1]


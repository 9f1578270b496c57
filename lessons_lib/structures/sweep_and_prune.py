"""Sweep and prune: sort the box endpoints on one axis, sweep, keep the open intervals.

Lesson 08. Every box ``[xmin, ymin, xmax, ymax]`` gives two **endpoints** on the
sweep axis (x unless told otherwise): its *min* (the interval opens) and its
*max* (the interval closes). Sorted by coordinate, the endpoints are a string
of ``[`` and ``]``; a sweep from left to right keeps the set of open intervals,
and each new ``[`` meets exactly the boxes whose intervals are open at that
moment. Of those, the pairs that also overlap on the *other* axis are reported.
The cost is the sort plus one test per pair overlapping on the sweep axis:
O(n log n + s), where ``s`` is the number of pairs that overlap on that axis.

Source: the "sweep and prune" section of the broad-phase article by magley
(2026), [magley2026]: the bracket-string warm-up, the
endpoint triple ``(coordinate, element, is-max)``, the O(n log n + k) analysis,
the axis problem of the ``xline`` scene, and temporal coherence (keep the sorted
list between frames and repair it with insertion sort). The incremental,
swap-based form goes back to Baraff's thesis (1992) and Cohen, Lin, Manocha and
Ponamgi's I-COLLIDE (1995).

Data layout
-----------
The endpoints of the ``n`` stored elements live in two flat arrays, the first
``m = 2 n`` entries in use, sorted by ``(key, is_max)``:

=========  ============  ==================================================
array      shape, dtype  meaning
=========  ============  ==================================================
``keys``   (cap,) f8     coordinate of the endpoint on the sweep axis
``codes``  (cap,) int64  ``2 * slot + is_max``: whose endpoint, min or max
=========  ============  ==================================================

``keys`` is the one place where the library stores a coordinate a second time
(the element table holds the boxes): the sort and the insertion sort compare
neighbours millions of times per frame, and keeping the key beside the code
makes that a walk over contiguous memory instead of a jump into the box table
per comparison. 16 bytes per endpoint, 32 per element.

**Closed boxes.** At equal coordinates a min endpoint sorts *before* a max
endpoint. So when box ``a`` ends exactly where box ``b`` starts, ``b`` opens
while ``a`` is still open and the touching pair is reported; and a zero-width
box opens before it closes.

**Axis.** ``axis=None`` (the default) sweeps along the axis on which the box
centres have the larger variance (:func:`lessons_lib.geometry.axis_of_larger_variance`),
chosen when the structure is bulk-loaded and again on :meth:`SweepAndPrune.cleanup`;
``axis=0`` or ``1`` forces it. On the ``xline`` scene all boxes share one
x-interval: sweeping along x keeps every box open at once and costs O(n^2).

**Temporal coherence.** Between two frames boxes move a little, so the sorted
endpoint array is *almost* sorted. ``incremental=True`` (the default) writes the
new keys in place and repairs the order with insertion sort: O(m + swaps),
where ``swaps`` is the number of endpoint pairs that changed order. The number
of swaps of the last move is :attr:`SweepAndPrune.last_swaps`.
``incremental=False`` re-sorts from scratch instead (for comparison).

**Persistent pairs.** ``persistent_pairs=True`` carries temporal coherence to
the pairs (the I-COLLIDE design): the endpoints are kept sorted on *both* axes
(``okeys``, ``ocodes`` hold the other axis), and the set of overlapping pairs
is kept between frames in a hash table (``tkeys``, ``tvals``, ``plist``; see
the kernels). While the insertion sort repairs an axis, every swap of a min
past a max may start a pair, which is added when the boxes meet; pairs that
stopped meeting are dropped in one pass over the set afterwards. ``pairs()``
then only copies the set out: no sweep. One axis is not enough: a pair can
start to overlap in y while it overlapped in x all along, and no swap in x
tells. Measured at n = 100,000 (``python -m lessons_lib.bench --only
persistent``) it pays only for slow motion: the two insertion sorts and a
random memory access per min-max swap cost more than a re-sort and a sweep
from about half a unit per frame on.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..geometry import axis_of_larger_variance
from ..core.jit import njit
from ..core.params import check_choice, check_flag, check_optional

__all__ = ["SweepAndPrune", "endpoints_sorted", "sort_endpoints", "insertion_sort_endpoints", "insertion_sort_pairs",
           "sweep_pairs"]


# --------------------------------------------------------------------------
# Kernels: the order of endpoints
# --------------------------------------------------------------------------
@njit
def _before(ka, ca, kb, cb):
    """Endpoint ``(ka, ca)`` sorts strictly before ``(kb, cb)``: smaller key, or equal key and min vs max."""
    return ka < kb or (ka == kb and (ca & 1) < (cb & 1))


@njit
def endpoints_sorted(keys, codes, m):
    """True when the first ``m`` endpoints are in ``(key, is_max)`` order."""
    for t in range(1, m):
        if _before(keys[t], codes[t], keys[t - 1], codes[t - 1]):
            return False
    return True


@njit
def insertion_sort_endpoints(keys, codes, m):
    """Sort the first ``m`` endpoints in place by insertion sort; return the number of swaps.

    Each endpoint walks left past every endpoint that should come after it;
    one step is one *swap* (an exchange of neighbours). O(m + swaps): linear
    on an almost-sorted array, O(m^2) on a reversed one.
    """
    swaps = 0
    for t in range(1, m):
        k, c = keys[t], codes[t]
        u = t - 1
        while u >= 0 and _before(k, c, keys[u], codes[u]):
            keys[u + 1] = keys[u]
            codes[u + 1] = codes[u]
            u -= 1
        keys[u + 1] = k
        codes[u + 1] = c
        swaps += t - 1 - u
    return swaps


@njit
def _mins_first_in_ties(keys, codes, m):
    """After a sort by key alone: within each run of equal keys put the mins before the maxes (stable)."""
    t = 0
    buf = np.empty(max(1, m), dtype=np.int64)  # allocated once (re-binding it in the loop costs refcounting)
    while t < m:
        u = t + 1
        while u < m and keys[u] == keys[t]:
            u += 1
        if u - t > 1:
            w = 0
            for v in range(t, u):
                if codes[v] & 1 == 0:
                    buf[w] = codes[v]
                    w += 1
            for v in range(t, u):
                if codes[v] & 1 == 1:
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
    """Copy each endpoint's current coordinate from the box table into ``keys``."""
    for t in range(m):
        c = codes[t]
        keys[t] = boxes[c >> 1, axis + 2 * (c & 1)]


@njit
def _lower_bound(keys, codes, m, k, c):
    """First position whose endpoint does not sort before ``(k, c)`` (binary search)."""
    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi) // 2
        if _before(keys[mid], codes[mid], k, c):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _find(keys, codes, m, k, c):
    """Position of the endpoint with code ``c`` and key ``k``; -1 if absent."""
    t = _lower_bound(keys, codes, m, k, c)
    while t < m and keys[t] == k and (codes[t] & 1) == (c & 1):
        if codes[t] == c:
            return t
        t += 1
    return -1


@njit
def _insert_at(keys, codes, m, k, c):
    """Insert endpoint ``(k, c)`` into the sorted first ``m`` entries (capacity > m); O(m)."""
    t = _lower_bound(keys, codes, m, k, c)
    for u in range(m, t, -1):
        keys[u] = keys[u - 1]
        codes[u] = codes[u - 1]
    keys[t] = k
    codes[t] = c


@njit
def _delete_at(keys, codes, m, t):
    for u in range(t, m - 1):
        keys[u] = keys[u + 1]
        codes[u] = codes[u + 1]


@njit
def _move_endpoint(keys, codes, m, t, k):
    """Give the endpoint at ``t`` the key ``k`` and walk it to its place; return the swaps."""
    c = codes[t]
    swaps = 0
    while t > 0 and _before(k, c, keys[t - 1], codes[t - 1]):
        keys[t] = keys[t - 1]
        codes[t] = codes[t - 1]
        t -= 1
        swaps += 1
    while t < m - 1 and _before(keys[t + 1], codes[t + 1], k, c):
        keys[t] = keys[t + 1]
        codes[t] = codes[t + 1]
        t += 1
        swaps += 1
    keys[t] = k
    codes[t] = c
    return swaps


# --------------------------------------------------------------------------
# Kernel: the sweep
# --------------------------------------------------------------------------
@njit
def _sweep_core(keys, codes, m, boxes, other, t, na, k, tests, act_slot, act_lo, act_hi, where, flag, flag_words, out):
    """The sweep of :func:`sweep_pairs` from endpoint ``t`` on, with no array growth.

    Stops *before* an opening whose worst case (``na`` new pairs, plus up
    to 8 rows written past the last one and not kept) would not fit in
    ``out``; returns ``(t, na, k, tests)`` so that the caller grows ``out``
    and resumes (``t == m`` when done). The active set and the counters
    survive in the caller's arrays.

    Each opening tests every open interval in two passes. The first writes a
    0/1 flag per open interval and counts the hits: straight-line code over
    dense arrays, which the compiler turns into SIMD (several tests per
    instruction). Most tests fail (here 171,000 hits in 25 million tests), so
    the second pass only visits the 8-flag words that are not zero, and stops
    once it has written all the hits.
    """
    cap = out.shape[0]
    while t < m:
        c = codes[t]
        s = c >> 1
        if c & 1 == 0:  # an interval opens: it meets every open one on the sweep axis
            if k + na + 8 > cap:  # room for every open interval, plus the 8 writes of a word's tail
                return t, na, k, tests
            lo = boxes[s, other]
            hi = boxes[s, other + 2]
            tests += na
            hits = 0
            for u in range(na):
                # closed intervals [lo, hi] and [act_lo, act_hi] meet on the other axis
                f = max(lo, act_lo[u]) <= min(hi, act_hi[u])
                flag[u] = f
                hits += f
            if hits > 0:
                for u in range(na, (na + 7) & ~7):  # no stale flag past the end in the last word
                    flag[u] = 0
                w = 0
                while hits > 0:
                    if flag_words[w] != 0:
                        for u in range(8 * w, 8 * w + 8):
                            out[k, 0] = act_slot[u]  # written always, kept when the flag is 1
                            out[k, 1] = s
                            f = flag[u] != 0  # a bool: sums stay int64 (a uint8 would wrap in plain Python)
                            k += f
                            hits -= f
                    w += 1
            act_slot[na] = s
            act_lo[na] = lo
            act_hi[na] = hi
            where[s] = na
            na += 1
        else:  # it closes: swap the last open interval into its place
            u = where[s]
            na -= 1
            act_slot[u] = act_slot[na]
            act_lo[u] = act_lo[na]
            act_hi[u] = act_hi[na]
            where[act_slot[u]] = u
        t += 1
    return t, na, k, tests


def sweep_pairs(keys, codes, m, boxes, axis, n_slots):
    """Sweep the sorted endpoints; return slot pairs overlapping on both axes, and the tests made.

    Parameters
    ----------
    keys, codes : numpy.ndarray, (>= m,) float64 and int64
        Endpoints sorted by ``(key, is_max)``; ``code = 2 * slot + is_max``.
    m : int
        Endpoints in use.
    boxes : numpy.ndarray, shape (>= n_slots, 4), float64
        The element table's boxes, by slot.
    axis : int
        Sweep axis (0 = x, 1 = y); the other axis is tested for each candidate.
    n_slots : int
        Upper bound of the slots (the table's high-water mark).

    Returns
    -------
    pairs : numpy.ndarray, shape (k, 2), int64
        ``(slot opened earlier, slot opened now)``, each unordered pair once.
    tests : int
        Other-axis tests made: the number of pairs overlapping on the sweep axis.

    Notes
    -----
    The open intervals are kept in three dense arrays (slot, lower and upper
    bound on the other axis) with a position index per slot, so opening is an
    append and closing is a swap with the last entry: O(1) each. Each opening
    tests every open interval: O(m + tests) in total, plus the output. The
    work is :func:`_sweep_core`, which never grows an array inside its loops
    (in numba, re-binding an array in a loop costs reference counting on
    every iteration): when the output might overflow it returns, this
    function grows the output and the sweep resumes where it stopped.
    """
    other = 1 - axis
    half = max(8, m // 2 + 8)
    act_slot = np.empty(half, dtype=np.int64)
    act_lo = np.empty(half, dtype=np.float64)
    act_hi = np.empty(half, dtype=np.float64)
    where = np.empty(max(1, n_slots), dtype=np.int64)
    flag = np.zeros(8 * (half // 8 + 1), dtype=np.uint8)
    out = np.empty((max(16, m) + 8, 2), dtype=np.int64)
    t, na, k, tests = 0, 0, 0, 0
    while True:
        t, na, k, tests = _sweep_core(keys, codes, m, boxes, other, t, na, k, tests, act_slot, act_lo, act_hi,
                                      where, flag, flag.view(np.uint64), out)
        if t >= m:
            return out[:k], int(tests)
        grown = np.empty((2 * out.shape[0] + na + 8, 2), dtype=np.int64)
        grown[:k] = out[:k]
        out = grown


@njit
def _query_kernel(keys, codes, m, boxes, axis, q0, q1, p0, p1):
    """Slots whose box meets the query: scan the endpoints up to the query's upper bound.

    ``[q0, q1]`` is the query on the sweep axis, ``[p0, p1]`` on the other
    axis. Every box starting at or before ``q1`` (a prefix of the sorted array,
    found by binary search) is tested; boxes starting after ``q1`` cannot meet
    the query. The prefix has no lower bound: maxima are not sorted.
    """
    other = 1 - axis
    end = _lower_bound(keys, codes, m, q1, 1)  # first endpoint after (q1, min): mins <= q1 precede it
    out = np.empty(max(1, end), dtype=np.int64)
    k = 0
    for t in range(end):
        c = codes[t]
        if c & 1 == 0:
            s = c >> 1
            if boxes[s, axis + 2] >= q0 and boxes[s, other] <= p1 and p0 <= boxes[s, other + 2]:
                out[k] = s
                k += 1
    return out[:k].copy()


# --------------------------------------------------------------------------
# Persistent pairs (I-COLLIDE): both axes sorted, the overlapping pairs kept
# --------------------------------------------------------------------------
# The pair set is an open-addressing hash table with linear probing over two
# flat arrays, plus a dense list of the pairs for output:
#
#   tkeys (cap,) int64   packed pair ``(a << 32) | b`` with slots a < b, or -1 (empty)
#   tvals (cap,) int64   position of that pair in ``plist``
#   plist (cap // 2,) int64   the packed pairs, densely, first ``npairs`` in use
#
# ``cap`` is a power of two and the table is at most half full, so a probe
# visits few entries. Deletion shifts the following entries of the probe run
# back (no tombstones, so the table never fills with dead entries), and the
# dense list fills the hole with its last pair. Every kernel that may add a
# pair stops *before* the table would exceed half full and returns; its
# wrapper grows the table and resumes it (no array is grown inside a loop).

_M32 = 0xFFFFFFFF


@njit
def _pair_key(a, b):
    """Pack an unordered slot pair into one int64: ``(min << 32) | max``."""
    if a < b:
        return (a << 32) | b
    return (b << 32) | a


@njit
def pair_key_hash(key, mask):
    """Table index of a packed pair: a 32-bit integer mix (exact in numba and plain Python: no overflow)."""
    x = (((key >> 32) * 0x9E3779B1) & _M32) ^ (((key & _M32) * 0x85EBCA77) & _M32)
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _M32
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _M32
    return (x ^ (x >> 16)) & mask


@njit
def _table_find(tkeys, key):
    """Index of ``key`` in the table, or -1."""
    mask = tkeys.shape[0] - 1
    i = pair_key_hash(key, mask)
    while tkeys[i] != -1:
        if tkeys[i] == key:
            return i
        i = (i + 1) & mask
    return -1


@njit
def _pair_add(tkeys, tvals, plist, npairs, key):
    """Add ``key`` unless present; return the new count. The caller guarantees room (``npairs < len(plist)``)."""
    mask = tkeys.shape[0] - 1
    i = pair_key_hash(key, mask)
    while tkeys[i] != -1:
        if tkeys[i] == key:
            return npairs
        i = (i + 1) & mask
    tkeys[i] = key
    tvals[i] = npairs
    plist[npairs] = key
    return npairs + 1


@njit
def _pair_remove(tkeys, tvals, plist, npairs, key):
    """Remove ``key`` if present (backward-shift deletion); return the new count."""
    i = _table_find(tkeys, key)
    if i < 0:
        return npairs
    mask = tkeys.shape[0] - 1
    p = tvals[i]
    # backward shift: pull later entries of the probe run into the hole when their home allows it
    j = i
    while True:
        j = (j + 1) & mask
        kj = tkeys[j]
        if kj == -1:
            break
        h = pair_key_hash(kj, mask)
        stays = (i < h <= j) if i <= j else (h > i or h <= j)  # home cyclically in (i, j]
        if not stays:
            tkeys[i] = kj
            tvals[i] = tvals[j]
            i = j
    tkeys[i] = -1
    # the dense list: the last pair fills the hole
    last = npairs - 1
    if p != last:
        lk = plist[last]
        plist[p] = lk
        tvals[_table_find(tkeys, lk)] = p
    return last


@njit
def _boxes_meet(boxes, s, r):
    """Closed boxes of slots ``s`` and ``r`` overlap on both axes (touching counts)."""
    return (boxes[s, 0] <= boxes[r, 2] and boxes[r, 0] <= boxes[s, 2]
            and boxes[s, 1] <= boxes[r, 3] and boxes[r, 1] <= boxes[s, 3])


@njit
def _table_rebuild(plist, npairs, tkeys, tvals):
    """Fill an empty table (all -1) with the first ``npairs`` pairs of ``plist``."""
    mask = tkeys.shape[0] - 1
    for p in range(npairs):
        key = plist[p]
        i = pair_key_hash(key, mask)
        while tkeys[i] != -1:
            i = (i + 1) & mask
        tkeys[i] = key
        tvals[i] = p


@njit
def _add_slot_pairs(s, others, boxes, tkeys, tvals, plist, npairs):
    """Add the pairs ``(s, r)`` for every ``r`` in ``others`` but ``s`` whose box meets ``s``'s."""
    for r in others:
        if r != s and _boxes_meet(boxes, s, r):
            npairs = _pair_add(tkeys, tvals, plist, npairs, _pair_key(s, r))
    return npairs


@njit
def _remove_slot_pairs(s, others, tkeys, tvals, plist, npairs):
    for r in others:
        if r != s:
            npairs = _pair_remove(tkeys, tvals, plist, npairs, _pair_key(s, r))
    return npairs


@njit
def _add_pairs(sp, tkeys, tvals, plist, npairs):
    """Add the slot pairs of a ``(k, 2)`` array (bulk load); room for all of them is guaranteed."""
    for t in range(sp.shape[0]):
        npairs = _pair_add(tkeys, tvals, plist, npairs, _pair_key(sp[t, 0], sp[t, 1]))
    return npairs


@njit
def insertion_sort_pairs(keys, codes, m, t0, boxes, tkeys, tvals, plist, npairs):
    """Insertion sort of the endpoints of one axis that adds the pairs that start to overlap; resumable.

    Each swap of a *min* past a *max* (leftwards) means the two intervals now
    overlap on this axis: the pair is added if the boxes (their new
    coordinates, in ``boxes``) meet on both axes and it is not in the set yet.
    Swaps of two mins or two maxes change nothing. A *max* passing a *min*
    means the pair stopped overlapping on this axis; it is *not* looked up
    here: most such pairs never overlapped on the other axis and are not in
    the set, and a hash-table probe that misses costs a cache miss (measured:
    the lookups were most of the frame). :func:`_drop_separated` removes the
    pairs that no longer meet after both axes are sorted instead.

    Why the set is then exact: insertion sort exchanges every inverted pair of
    endpoints exactly once, so a pair that did not overlap before the frame
    and overlaps after it had a min passing a max on some axis, and was tested
    then with its final boxes; a pair that overlapped and still does stays.

    Starts at endpoint ``t0`` (the first ``t0`` are sorted) and returns
    ``(t, swaps, npairs)``: ``t == m`` when done; otherwise it stopped before
    an addition that might overfill the table (``npairs == len(plist)``), with
    the first ``t`` endpoints sorted: grow the table and call again from ``t``.
    O(m + swaps), O(1) expected per addition.
    """
    limit = plist.shape[0]
    swaps = 0
    for t in range(t0, m):
        k, c = keys[t], codes[t]
        u = t - 1
        while u >= 0 and _before(k, c, keys[u], codes[u]):
            c2 = codes[u]
            if c & 1 == 0 and c2 & 1 == 1:  # the min moves before the max: they may start to overlap
                s, r = c >> 1, c2 >> 1
                if _boxes_meet(boxes, s, r):
                    if npairs >= limit:
                        keys[u + 1] = k
                        codes[u + 1] = c
                        return u + 1, swaps, npairs
                    npairs = _pair_add(tkeys, tvals, plist, npairs, _pair_key(s, r))
            keys[u + 1] = keys[u]
            codes[u + 1] = c2
            u -= 1
            swaps += 1
        keys[u + 1] = k
        codes[u + 1] = c
    return m, swaps, npairs


@njit
def _drop_separated(boxes, tkeys, tvals, plist, npairs):
    """Remove every kept pair whose boxes no longer meet; return the new count. O(k).

    Walks the dense list from its end, so the pair moved into a hole (the
    last one) has always been checked already.
    """
    for p in range(npairs - 1, -1, -1):
        key = plist[p]
        if not _boxes_meet(boxes, key >> 32, key & _M32):
            npairs = _pair_remove(tkeys, tvals, plist, npairs, key)
    return npairs


@njit
def _walk_additions(keys, codes, m, t, k):
    """How many pairs moving the endpoint at ``t`` to key ``k`` could add (a dry run of the walk)."""
    c = codes[t]
    adds = 0
    u = t
    while u > 0 and _before(k, c, keys[u - 1], codes[u - 1]):
        adds += (c & 1 == 0) and (codes[u - 1] & 1 == 1)
        u -= 1
    u = t
    while u < m - 1 and _before(keys[u + 1], codes[u + 1], k, c):
        adds += (c & 1 == 1) and (codes[u + 1] & 1 == 0)
        u += 1
    return adds


@njit
def _move_endpoint_pairs(keys, codes, m, t, k, boxes, tkeys, tvals, plist, npairs):
    """:func:`_move_endpoint` that keeps the pair set: return ``(swaps, npairs)``; room is guaranteed by the caller."""
    c = codes[t]
    s = c >> 1
    swaps = 0
    while t > 0 and _before(k, c, keys[t - 1], codes[t - 1]):
        c2 = codes[t - 1]
        if (c ^ c2) & 1 and (c2 >> 1) != s:  # (its own other endpoint, not moved yet, is passed freely)
            if c & 1 == 0:  # min moves left past a max: may start to overlap
                if _boxes_meet(boxes, s, c2 >> 1):
                    npairs = _pair_add(tkeys, tvals, plist, npairs, _pair_key(s, c2 >> 1))
            else:
                npairs = _pair_remove(tkeys, tvals, plist, npairs, _pair_key(s, c2 >> 1))
        keys[t] = keys[t - 1]
        codes[t] = c2
        t -= 1
        swaps += 1
    while t < m - 1 and _before(keys[t + 1], codes[t + 1], k, c):
        c2 = codes[t + 1]
        if (c ^ c2) & 1 and (c2 >> 1) != s:
            if c & 1 == 1:  # max moves right past a min: may start to overlap
                if _boxes_meet(boxes, s, c2 >> 1):
                    npairs = _pair_add(tkeys, tvals, plist, npairs, _pair_key(s, c2 >> 1))
            else:  # min moves right past a max: no longer overlapping on this axis
                npairs = _pair_remove(tkeys, tvals, plist, npairs, _pair_key(s, c2 >> 1))
        keys[t] = keys[t + 1]
        codes[t] = c2
        t += 1
        swaps += 1
    keys[t] = k
    codes[t] = c
    return swaps, npairs


@njit
def _move_slots_pairs(slots, old, boxes, keys0, codes0, keys1, codes1, m, axis0, j0, tkeys, tvals, plist, npairs):
    """Move the endpoints of ``slots`` (old boxes ``old``) on both axes, keeping the pair set; resumable.

    Work item ``j`` is endpoint ``j % 4`` (axis-0 min, axis-0 max, axis-1 min,
    axis-1 max) of ``slots[j // 4]``. Starts at item ``j0``; returns
    ``(j, swaps, npairs)`` with ``j == 4 * len(slots)`` when done, or the item
    whose walk could add more pairs than the table has room for (grow, resume).
    """
    limit = plist.shape[0]
    swaps = 0
    n_items = 4 * slots.shape[0]
    for j in range(j0, n_items):
        i, e = j // 4, j % 4
        s = slots[i]
        ax = axis0 if e < 2 else 1 - axis0
        is_max = e & 1
        col = ax + 2 * is_max
        c = 2 * s + is_max
        if e < 2:
            t = _find(keys0, codes0, m, old[i, col], c)
            if npairs + _walk_additions(keys0, codes0, m, t, boxes[s, col]) > limit:
                return j, swaps, npairs
            sw, npairs = _move_endpoint_pairs(keys0, codes0, m, t, boxes[s, col], boxes, tkeys, tvals, plist, npairs)
        else:
            t = _find(keys1, codes1, m, old[i, col], c)
            if npairs + _walk_additions(keys1, codes1, m, t, boxes[s, col]) > limit:
                return j, swaps, npairs
            sw, npairs = _move_endpoint_pairs(keys1, codes1, m, t, boxes[s, col], boxes, tkeys, tvals, plist, npairs)
        swaps += sw
    return n_items, swaps, npairs


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------

@register("sweep_and_prune")
class SweepAndPrune(BroadPhase):
    """Sweep and prune over endpoints sorted on one axis, with incremental (insertion-sort) updates.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint (unused by the sweep); boxes anywhere are found.
    axis : {None, 0, 1}
        Sweep axis. ``None`` (default): the axis of larger variance of the box
        centres, chosen on bulk load (``from_boxes``) and on :meth:`cleanup`;
        an empty structure filled by ``insert`` sweeps along x until then.
    incremental : bool
        ``True`` (default): ``update`` / ``update_many`` repair the sorted
        endpoints by insertion sort (temporal coherence). ``False``:
        ``update_many`` re-sorts all endpoints from scratch.
    persistent_pairs : bool
        ``False`` (default): ``pairs()`` sweeps the sorted endpoints each time.
        ``True``: the I-COLLIDE design. Endpoints are kept sorted on *both*
        axes and the set of overlapping pairs is kept between calls, in a hash
        table; the insertion sort adds a pair when a min passes a max and the
        boxes now meet, and removes it when a max passes a min. A frame then
        costs O(n + swaps) and ``pairs()`` only copies the set out, with no
        sweep. Worth it only for coherent motion (few swaps per endpoint).
        Needs ``incremental=True``.

    Attributes
    ----------
    axis : int
        The current sweep axis (0 = x, 1 = y).
    last_swaps : int
        Neighbour exchanges made by the last ``update`` or ``update_many``
        (0 after a full re-sort, which does not count them).
    last_tests : int
        Other-axis tests made by the last ``pairs()`` (0 with
        ``persistent_pairs``: no sweep is made).

    Raises
    ------
    ValueError
        ``axis`` not None, 0 or 1; ``incremental`` or ``persistent_pairs``
        not a bool; ``persistent_pairs=True`` with ``incremental=False``.

    Notes
    -----
    ============  ==========================================================
    operation     cost (``n`` elements, ``m = 2 n`` endpoints)
    ============  ==========================================================
    bulk load     O(n log n): one sort
    insert        O(log n) search + O(n) shift of the arrays
    remove        O(log n) search + O(n) shift
    update        O(log n + d): ``d`` endpoints passed on the way
    update_many   O(n + swaps) incremental; O(n log n) re-sort
    query         O(p): ``p`` = boxes starting before the query's upper bound
    pairs         O(n + s + k): ``s`` pairs overlapping on the sweep axis
    ============  ==========================================================

    Memory: 32 bytes per element (two endpoints of 16 bytes), plus the
    shared element table; ``pairs()`` uses O(n) scratch.

    With ``persistent_pairs=True``: 64 bytes per element (endpoints on both
    axes) plus the pair set, 40 bytes per table entry and dense-list entry at
    a load of at most 1/2 (``cap`` entries of key and position, ``cap / 2``
    list entries; ``cap`` a power of two), about 80 to 160 bytes per pair.
    ``insert`` and ``remove`` also find or drop the element's pairs with a
    query (O(n)); ``update`` is O(log n + d) with O(1) expected work per
    endpoint passed; ``update_many`` O(n + swaps) on both axes; ``pairs()``
    O(k) plus the canonical order.

    References
    ----------
    magley, "Algorithms and data structures in the broad phase" (2026), the
    sweep-and-prune section. D. Baraff, *Dynamic Simulation of Non-Penetrating
    Rigid Bodies*, PhD thesis, Cornell, 1992. J. Cohen, M. Lin, D. Manocha,
    M. Ponamgi, "I-COLLIDE", Symposium on Interactive 3D Graphics, 1995.
    """

    def __init__(self, *, world=None, axis=None, incremental: bool = True, persistent_pairs: bool = False):
        super().__init__(world=world)
        incremental = check_flag("incremental", incremental)
        persistent_pairs = check_flag("persistent_pairs", persistent_pairs)
        if persistent_pairs and not incremental:
            raise ValueError("persistent_pairs=True needs incremental=True: the pair set is kept by the insertion sort")
        self.fixed_axis = check_optional(check_choice, "axis", axis, (0, 1))
        self.axis = 0 if self.fixed_axis is None else self.fixed_axis
        self.incremental = bool(incremental)
        self.persistent_pairs = bool(persistent_pairs)
        self.keys = np.empty(32, dtype=np.float64)
        self.codes = np.empty(32, dtype=np.int64)
        self.m = 0
        self.last_swaps = 0
        self.last_tests = 0
        if self.persistent_pairs:  # the other axis' endpoints, and the pair set (see the kernels above)
            self.okeys = np.empty(32, dtype=np.float64)
            self.ocodes = np.empty(32, dtype=np.int64)
            self._new_table(16)

    def __repr__(self) -> str:
        how = "auto" if self.fixed_axis is None else "forced"
        extra = f", persistent_pairs=True, {self.npairs} pairs" if self.persistent_pairs else ""
        return (f"{type(self).__name__}(n={len(self)}, axis={'xy'[self.axis]} ({how}), "
                f"incremental={self.incremental}{extra})")

    # -- the endpoint arrays ---------------------------------------------
    def _reserve(self, need: int) -> None:
        if need <= len(self.keys):
            return
        cap = max(need, 2 * len(self.keys))
        keys = np.empty(cap, dtype=np.float64)
        codes = np.empty(cap, dtype=np.int64)
        keys[: self.m] = self.keys[: self.m]
        codes[: self.m] = self.codes[: self.m]
        self.keys, self.codes = keys, codes
        if self.persistent_pairs:
            okeys = np.empty(cap, dtype=np.float64)
            ocodes = np.empty(cap, dtype=np.int64)
            okeys[: self.m] = self.okeys[: self.m]
            ocodes[: self.m] = self.ocodes[: self.m]
            self.okeys, self.ocodes = okeys, ocodes

    def _endpoints_of(self, slot: int, box) -> tuple[tuple[float, int], tuple[float, int]]:
        a = self.axis
        return (float(box[a]), 2 * slot), (float(box[a + 2]), 2 * slot + 1)

    def endpoints(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sorted endpoints as ``(keys, ids, is_max)``: ``(m,)`` float64, int64, bool (copies)."""
        codes = self.codes[: self.m]
        return self.keys[: self.m].copy(), self.elements.ids[codes >> 1], (codes & 1).astype(bool)

    def is_sorted(self) -> bool:
        """The invariant: endpoints in ``(key, is_max)`` order (both axes with ``persistent_pairs``). O(m)."""
        ok = endpoints_sorted(self.keys, self.codes, self.m)
        if self.persistent_pairs:
            ok = ok and endpoints_sorted(self.okeys, self.ocodes, self.m)
        return bool(ok)

    def _live_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(slots, boxes)`` of the live elements; ``boxes`` is a view (no copy) when no slot is free."""
        el = self.elements
        slots = el.live_slots()
        b = el.boxes[: len(slots)] if len(slots) == el.high_water else el.boxes[slots]
        return slots, b

    def _sort_all(self) -> None:
        """Rewrite every endpoint from the element table and sort from scratch."""
        slots, b = self._live_boxes()
        n = len(slots)
        self._reserve(2 * n)
        self.m = 2 * n
        self.keys[:n], self.keys[n : 2 * n] = b[:, self.axis], b[:, self.axis + 2]
        self.codes[:n], self.codes[n : 2 * n] = 2 * slots, 2 * slots + 1
        sort_endpoints(self.keys, self.codes, self.m)
        if self.persistent_pairs:
            o = 1 - self.axis
            self.okeys[:n], self.okeys[n : 2 * n] = b[:, o], b[:, o + 2]
            self.ocodes[:n], self.ocodes[n : 2 * n] = 2 * slots, 2 * slots + 1
            sort_endpoints(self.okeys, self.ocodes, self.m)

    def _build(self, slots) -> None:
        if self.fixed_axis is None and len(self.elements):
            self.axis = axis_of_larger_variance(self._live_boxes()[1])
        self._sort_all()
        if self.persistent_pairs:  # the first pair set comes from one sweep
            sp, _ = sweep_pairs(self.keys, self.codes, self.m, self.elements.boxes, self.axis,
                                self.elements.high_water)
            self._new_table(len(sp))
            self.npairs = int(_add_pairs(sp, self.tkeys, self.tvals, self.plist, 0))

    # -- the pair set (persistent_pairs) --------------------------------------
    def _new_table(self, room: int) -> None:
        """An empty pair table with room for ``room`` pairs at a load of at most 1/2."""
        cap = 32
        while cap // 2 < room:
            cap *= 2
        self.tkeys = np.full(cap, -1, dtype=np.int64)
        self.tvals = np.empty(cap, dtype=np.int64)
        self.plist = np.empty(cap // 2, dtype=np.int64)
        self.npairs = 0

    def _grow_table(self, room: int) -> None:
        """Make room for ``room`` more pairs (at least doubling), keeping the set."""
        need = self.npairs + max(1, room)
        if need <= len(self.plist):
            return
        plist, npairs = self.plist, self.npairs
        self._new_table(max(need, 2 * len(plist)))
        self.plist[:npairs] = plist[:npairs]
        self.npairs = npairs
        _table_rebuild(self.plist, npairs, self.tkeys, self.tvals)

    def _shrink_table(self) -> None:
        """Rebuild the table at the smallest power of two that holds the pairs (cleanup)."""
        plist, npairs = self.plist, self.npairs
        cap = 32
        while cap // 2 < npairs:
            cap *= 2
        if cap < len(self.tkeys):
            self._new_table(npairs)
            self.plist[:npairs] = plist[:npairs]
            self.npairs = npairs
            _table_rebuild(self.plist, npairs, self.tkeys, self.tvals)

    def _sort_with_pairs(self, keys, codes) -> int:
        """Insertion sort of one axis keeping the pair set, growing the table when it stops; returns swaps."""
        t, swaps = 0, 0
        while True:
            t, sw, self.npairs = insertion_sort_pairs(keys, codes, self.m, t, self.elements.boxes,
                                                      self.tkeys, self.tvals, self.plist, self.npairs)
            swaps += int(sw)
            if t >= self.m:
                return swaps
            self._grow_table(len(self.plist))

    def _move_with_pairs(self, slots, old) -> int:
        """Walk the endpoints of a few moved ``slots`` to their places on both axes; returns swaps."""
        j, swaps = 0, 0
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        old = np.ascontiguousarray(old, dtype=np.float64).reshape(-1, 4)
        while True:
            j, sw, self.npairs = _move_slots_pairs(slots, old, self.elements.boxes, self.keys, self.codes,
                                                   self.okeys, self.ocodes, self.m, self.axis, j,
                                                   self.tkeys, self.tvals, self.plist, self.npairs)
            swaps += int(sw)
            if j >= 4 * len(slots):
                return swaps
            # The walk may add more pairs than the free room: at least double the table (room for
            # len(plist) more would not grow it while the set is empty, and the loop would never end).
            self._grow_table(len(self.plist) + 1)

    def pair_slots(self) -> np.ndarray:
        """The kept pair set as ``(k, 2)`` int64 slot pairs ``(a, b)``, ``a < b``, in table order (a copy)."""
        p = self.plist[: self.npairs]
        out = np.empty((len(p), 2), dtype=np.int64)
        out[:, 0] = p >> 32
        out[:, 1] = p & _M32
        return out

    # -- insert, remove, update -------------------------------------------
    def _insert(self, slot, box) -> None:
        if self.persistent_pairs:  # find the new pairs first: nothing has changed if this fails
            hits = self._query(box)
            self._grow_table(len(hits))
        self._reserve(self.m + 2)
        o = 1 - self.axis
        for k, c in self._endpoints_of(slot, box):
            _insert_at(self.keys, self.codes, self.m, k, c)
            if self.persistent_pairs:
                _insert_at(self.okeys, self.ocodes, self.m, float(box[o + 2 * (c & 1)]), c)
            self.m += 1
        if self.persistent_pairs:
            self.npairs = int(_add_slot_pairs(slot, hits, self.elements.boxes, self.tkeys, self.tvals,
                                              self.plist, self.npairs))

    def _remove(self, slot, box) -> None:
        if self.persistent_pairs:  # the element's pairs are the boxes meeting it
            hits = self._query(box)
            self.npairs = int(_remove_slot_pairs(slot, hits, self.tkeys, self.tvals, self.plist, self.npairs))
            o, m = 1 - self.axis, self.m
            for c in (2 * slot, 2 * slot + 1):
                k = float(box[o + 2 * (c & 1)])
                t = _find(self.okeys, self.ocodes, m, k, c)
                if t < 0:  # pragma: no cover - would mean the invariant is broken
                    raise RuntimeError(f"endpoint of slot {slot} at {k} is missing: the endpoint array is corrupt")
                _delete_at(self.okeys, self.ocodes, m, t)
                m -= 1  # self.m drops below, with the sweep axis' two endpoints
        for k, c in self._endpoints_of(slot, box):
            t = _find(self.keys, self.codes, self.m, k, c)
            if t < 0:  # pragma: no cover - would mean the invariant is broken
                raise RuntimeError(f"endpoint of slot {slot} at {k} is missing: the endpoint array is corrupt")
            _delete_at(self.keys, self.codes, self.m, t)
            self.m -= 1

    def _update(self, slot, old, new) -> None:
        if self.persistent_pairs:
            self.last_swaps = self._move_with_pairs(np.array([slot], dtype=np.int64), old)
            return
        swaps = 0
        for (k_old, c), (k_new, _) in zip(self._endpoints_of(slot, old), self._endpoints_of(slot, new)):
            t = _find(self.keys, self.codes, self.m, k_old, c)
            if t < 0:  # pragma: no cover
                raise RuntimeError(f"endpoint of slot {slot} at {k_old} is missing: the endpoint array is corrupt")
            swaps += _move_endpoint(self.keys, self.codes, self.m, t, k_new)
        self.last_swaps = int(swaps)

    def _update_many(self, slots, old, new) -> None:
        if self.persistent_pairs:
            if 16 * len(slots) < self.m:  # few movers: walk each endpoint to its place
                self.last_swaps = self._move_with_pairs(slots, old)
                return
            b = self.elements.boxes
            refresh_keys(self.keys, self.codes, self.m, b, self.axis)
            refresh_keys(self.okeys, self.ocodes, self.m, b, 1 - self.axis)
            swaps = self._sort_with_pairs(self.keys, self.codes)
            self.last_swaps = swaps + self._sort_with_pairs(self.okeys, self.ocodes)
            self.npairs = int(_drop_separated(b, self.tkeys, self.tvals, self.plist, self.npairs))
            return
        if not self.incremental:
            self._sort_all()
            self.last_swaps = 0
            return
        if 16 * len(slots) < self.m:  # few movers: walk each one to its place
            swaps = 0
            for k, s in enumerate(slots.tolist()):
                self._update(s, old[k], new[k])
                swaps += self.last_swaps
            self.last_swaps = swaps
            return
        refresh_keys(self.keys, self.codes, self.m, self.elements.boxes, self.axis)
        self.last_swaps = int(insertion_sort_endpoints(self.keys, self.codes, self.m))

    # -- query and pairs ---------------------------------------------------
    def _query(self, box):
        a, o = self.axis, 1 - self.axis
        return _query_kernel(self.keys, self.codes, self.m, self.elements.boxes, a,
                             box[a], box[a + 2], box[o], box[o + 2])

    def _pairs(self):
        if self.persistent_pairs:
            self.last_tests = 0
            return self.pair_slots()
        p, tests = sweep_pairs(self.keys, self.codes, self.m, self.elements.boxes, self.axis,
                               self.elements.high_water)
        self.last_tests = int(tests)
        return p

    # -- cleanup -----------------------------------------------------------
    def _clear(self) -> None:
        self.m = 0
        if self.persistent_pairs:
            self._new_table(16)

    def _cleanup(self) -> None:
        """Re-choose the sweep axis by variance (``axis=None`` only); re-sort if it changed."""
        if self.fixed_axis is None and len(self.elements):
            axis = axis_of_larger_variance(self._live_boxes()[1])
            if axis != self.axis:
                self.axis = axis
                if self.persistent_pairs:  # both axes are sorted already: swap their roles
                    self.keys, self.okeys = self.okeys, self.keys
                    self.codes, self.ocodes = self.ocodes, self.codes
                else:
                    self._sort_all()
        if self.persistent_pairs:
            self._shrink_table()

    def _nbytes(self) -> int:
        own = self.keys.nbytes + self.codes.nbytes
        if self.persistent_pairs:
            own += (self.okeys.nbytes + self.ocodes.nbytes + self.tkeys.nbytes + self.tvals.nbytes
                    + self.plist.nbytes)
        return own

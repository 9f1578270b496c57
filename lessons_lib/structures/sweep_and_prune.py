"""Sweep and prune: sort the box endpoints on one axis, sweep, keep the open intervals.

Lesson 08. Every box ``[xmin, ymin, xmax, ymax]`` gives two **endpoints** on the
sweep axis (x unless told otherwise): its *min* (the interval opens) and its
*max* (the interval closes). Sorted by coordinate, the endpoints are a string
of ``[`` and ``]``; a sweep from left to right keeps the set of open intervals
(the *active set*), and each new ``[`` meets exactly the boxes whose intervals
are open at that moment. Of those, the pairs that also overlap on the *other*
axis are reported. The cost is the sort plus one test per pair overlapping on
the sweep axis: O(n log n + s), where ``s`` is the number of such pairs.

Sources: the sweep-and-prune section of the broad-phase article [magley2026]
(the bracket-string warm-up, the endpoint triple ``(coordinate, element,
is-max)``, the O(n log n + k) analysis, the axis problem of the ``xline`` scene,
and temporal coherence: keep the sorted list between frames and repair it with
insertion sort). The incremental, swap-based form goes back to [Baraff1992] and
[Cohen1995]; the persistent pair set of the latter is
:class:`~lessons_lib.structures.persistent_sweep_and_prune.PersistentSweepAndPrune`,
built from the kernels of this module and of :mod:`~lessons_lib.structures.endpoints`.

Data layout
-----------
The endpoints of one axis live in two flat arrays, ``keys`` (float64) and
``codes`` (``2 * slot + is_max``, int64), sorted by ``(key, is_max)``: a min
before a max at equal keys (closed boxes). The table, the order and the sort
are in :mod:`~lessons_lib.structures.endpoints` (sections 3 and 4 of the
lesson), which both sweep-and-prune structures share.

The kernels, by the lesson's sections
-------------------------------------
* the order of endpoints and their sort (sections 3 and 4):
  :func:`~lessons_lib.structures.endpoints.endpoint_before`,
  :func:`~lessons_lib.structures.endpoints.sort_endpoints`, in
  :mod:`~lessons_lib.structures.endpoints`;
* the sweep with a set of open boxes (sections 3 and 4; Exercise 2's
  ``sweep``): :func:`sweep_pairs`, whose loop is :func:`_sweep_until_full`;
* the axis of larger variance (section 6): :func:`choose_sweep_axis`;
* the insertion-sort repair counting swaps (section 7; Exercise 3's
  ``insertion_repair``): :func:`insertion_sort_endpoints`, and
  :func:`insertion_sort_from`, which also lists the *crossings*, the swaps of a
  min past a max (the optional part "keeping the pairs too (I-COLLIDE)");
* the query (the optional part "one box's neighbours in the pseudo sweep"):
  :func:`query_endpoints`;
* update, one moved box at a time (the appendix "insert, remove and update on
  the sorted arrays"): :func:`move_endpoint`, :func:`move_endpoints`; insert
  and remove are the edits of :mod:`~lessons_lib.structures.endpoints`.

Growth is kept apart: the output of the sweep grows in :func:`sweep_pairs`
(around the loop, which never grows an array), the endpoint arrays in
:class:`SortedEndpoints`.
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps
from ..core.buffers import grow
from ..core.jit import njit
from ..core.params import check_choice, check_flag, check_optional
from ..geometry import axis_of_larger_variance
from .endpoints import (MAX_END, MIN_END, delete_endpoint, endpoint_before, endpoints_sorted, find_endpoint,
                        insert_endpoint, lower_bound, refresh_keys, sort_endpoints)

__all__ = [
    "SweepAndPrune", "SortedEndpoints", "choose_sweep_axis", "sweep_pairs",
    "insertion_sort_endpoints", "insertion_sort_from", "move_endpoint", "move_endpoints",
    "query_endpoints", "live_boxes",
]


# --------------------------------------------------------------------------
# Sections 3 and 4: the sweep over the sorted endpoints, with a set of open boxes
# --------------------------------------------------------------------------
# The active set holds the intervals open at the sweep line in dense arrays, so that
# opening is an append and closing moves the last entry into the hole (O(1) each):
#   open_slot (cap,) int64       whose interval
#   open_lo, open_hi (cap,) f8   its bounds on the other axis
#   place (n_slots,) int64       where each open slot sits in the three arrays above
#   hit (cap,) uint8, and the same bytes as 8-byte words: 1 where the opening box meets that interval
# The running counters live in one int64 array, so that the sweep can stop and resume:
NEXT_ENDPOINT, N_OPEN, N_FOUND, N_TESTS = 0, 1, 2, 3
#: The hit-writing pass works on words of this many flags, and may write that many rows past the last kept one.
WORD = 8


def _new_active_set(m, n_slots):
    """Empty active-set arrays for a sweep over ``m`` endpoints of slots below ``n_slots``."""
    cap = max(WORD, m // 2 + WORD)
    hit = np.zeros(WORD * (cap // WORD + 1), dtype=np.uint8)
    return (np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.float64), np.empty(cap, dtype=np.float64),
            np.empty(max(1, n_slots), dtype=np.int64), hit, hit.view(np.uint64))


@njit
def _sweep_until_full(keys, codes, m, boxes, axis, active, out, counters):
    """The sweep itself (lesson 08, sections 3 and 4), from endpoint ``counters[NEXT_ENDPOINT]`` on.

    Walk the sorted endpoints keeping the open boxes (the *active set*): a max
    endpoint closes its box; a min endpoint tests its box against every open
    one on the other axis, writes the pairs that meet, then opens the box.
    :func:`sweep_pairs` calls it and grows the output; this loop never grows
    an array. It stops *before* an opening whose worst case (every open interval a hit, plus
    ``WORD`` rows written past the last one) would not fit in ``out``; the
    caller grows ``out`` and calls again. The active set and the ``counters``
    survive between calls.

    Each opening tests every open interval in two passes. The first writes a
    0/1 flag per open interval and counts the hits: straight-line code over
    dense arrays, which the compiler turns into SIMD (several tests per
    instruction). Most tests fail (here 171,000 hits in 25 million tests), so
    the second pass only visits the words of ``WORD`` flags that are not zero,
    and stops once it has written every hit.
    """
    open_slot, open_lo, open_hi, place, hit, hit_words = active
    other = 1 - axis
    t, n_open, k, tests = counters[NEXT_ENDPOINT], counters[N_OPEN], counters[N_FOUND], counters[N_TESTS]
    while t < m:
        c = codes[t]
        s = c >> 1
        if c & 1 == MAX_END:  # the interval closes: the last open interval takes its place
            u = place[s]
            n_open -= 1
            open_slot[u], open_lo[u], open_hi[u] = open_slot[n_open], open_lo[n_open], open_hi[n_open]
            place[open_slot[u]] = u
            t += 1
            continue
        # the interval opens: it meets every open interval on the sweep axis
        if k + n_open + WORD > out.shape[0]:
            break
        lo, hi = boxes[s, XMIN + other], boxes[s, XMAX + other]
        tests += n_open
        hits = 0
        for u in range(n_open):  # pass 1: the other-axis half of the closed overlap test, as flags
            f = (lo <= open_hi[u]) & (open_lo[u] <= hi)
            hit[u] = f
            hits += f
        if hits > 0:
            for u in range(n_open, (n_open + WORD - 1) & ~(WORD - 1)):  # no stale flag in the last word
                hit[u] = 0
            w = 0
            while hits > 0:  # pass 2: write the pairs of the words that hold a hit
                if hit_words[w] != 0:
                    for u in range(WORD * w, WORD * w + WORD):
                        out[k, 0] = open_slot[u]  # written always, kept when the flag is 1
                        out[k, 1] = s
                        f = hit[u] != 0  # a bool: sums stay int64 (a uint8 would wrap in plain Python)
                        k += f
                        hits -= f
                w += 1
        open_slot[n_open], open_lo[n_open], open_hi[n_open] = s, lo, hi
        place[s] = n_open
        n_open += 1
        t += 1
    counters[NEXT_ENDPOINT], counters[N_OPEN], counters[N_FOUND], counters[N_TESTS] = t, n_open, k, tests


def sweep_pairs(keys, codes, m, boxes, axis, n_slots):
    """The sweep (lesson 08, sections 3 and 4): the slot pairs overlapping on both axes, and the tests made.

    Exercise 2's ``sweep`` in compiled form, and what its check replaces by the
    learner's function (so this name and signature stay). The loop over the
    endpoints is :func:`_sweep_until_full`; this function is its growth
    helper: it sets up the active set and the output, and grows the output
    whenever the loop stops for room.

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
    O(m + tests) plus the output. The loop never grows an array inside (in
    numba, re-binding an array in a loop costs reference counting on every
    iteration): when the output might overflow it returns, this function grows
    the output and the sweep resumes where it stopped.
    """
    active = _new_active_set(m, n_slots)
    out = np.empty((max(16, m) + WORD, 2), dtype=np.int64)
    counters = np.zeros(4, dtype=np.int64)
    while True:
        _sweep_until_full(keys, codes, m, boxes, axis, active, out, counters)
        if counters[NEXT_ENDPOINT] >= m:
            return out[: counters[N_FOUND]], int(counters[N_TESTS])
        out = grow(out, counters[N_FOUND], out.shape[0] + counters[N_OPEN] + WORD)


# --------------------------------------------------------------------------
# Section 6, the axis problem: sweep along the axis of larger variance
# --------------------------------------------------------------------------
def choose_sweep_axis(elements) -> int:
    """The axis of larger variance of the stored boxes' centres (0 = x on a tie or below two boxes)."""
    if len(elements) < 2:
        return 0
    return axis_of_larger_variance(live_boxes(elements)[1])


# --------------------------------------------------------------------------
# Section 7, temporal coherence: the insertion-sort repair, counting swaps
# (with the crossings of the optional part "keeping the pairs too (I-COLLIDE)")
# --------------------------------------------------------------------------
@njit
def insertion_sort_from(keys, codes, m, start, crossings):
    """Insertion sort of the first ``m`` endpoints from ``start`` on (the first ``start`` are sorted).

    Each endpoint walks left past every endpoint that should come after it;
    one step is one *swap* (an exchange of neighbours). O(m + swaps): linear
    on an almost-sorted array, O(m^2) on a reversed one.

    ``crossings``, if not None, is a ``(cap, 2)`` int64 array that receives
    ``(slot of the min, slot of the max)`` for every swap of a *min* past a
    *max*: the two intervals start to overlap on this axis ([Cohen1995]). When
    it is full the sort stops, with the walking endpoint parked where it got
    to (the prefix up to it still sorted), so that the caller empties the list
    and calls again from there. With ``crossings=None`` numba compiles a
    version without that branch.

    Returns
    -------
    (stopped_at, swaps, found) : tuple of int
        ``stopped_at == m`` when the sort is done; ``found`` rows of ``crossings`` written.
    """
    swaps, found = 0, 0
    for t in range(start, m):
        k, c = keys[t], codes[t]
        u = t - 1
        while u >= 0 and endpoint_before(k, c, keys[u], codes[u]):
            if crossings is not None:
                if c & 1 == MIN_END and codes[u] & 1 == MAX_END:
                    if found == crossings.shape[0]:  # the list is full: park the endpoint at u + 1
                        keys[u + 1] = k
                        codes[u + 1] = c
                        return u + 1, swaps + (t - 1 - u), found
                    crossings[found, 0] = c >> 1
                    crossings[found, 1] = codes[u] >> 1
                    found += 1
            keys[u + 1] = keys[u]
            codes[u + 1] = codes[u]
            u -= 1
        keys[u + 1] = k
        codes[u + 1] = c
        swaps += t - 1 - u
    return m, swaps, found


def insertion_sort_endpoints(keys, codes, m):
    """Sort the first ``m`` endpoints in place by insertion sort; return the number of swaps. O(m + swaps)."""
    return insertion_sort_from(keys, codes, m, 0, None)[1]


# --------------------------------------------------------------------------
# The optional part "one box's neighbours in the pseudo sweep": the query
# --------------------------------------------------------------------------
@njit
def query_endpoints(keys, codes, m, axis, boxes, box):
    """Slots whose box meets the closed ``box``: scan the endpoints up to the box's upper bound on ``axis``.

    Every box starting at or before that bound (a prefix of the sorted array,
    found by binary search) is tested; boxes starting after it cannot meet the
    query. The prefix has no lower bound: maxima are not sorted with the minima
    (lesson 08, the optional part "one box's neighbours in the pseudo sweep":
    a binary search for the lower bound misses long boxes that start early).
    """
    end = lower_bound(keys, codes, m, box[XMAX + axis], MAX_END)  # after every min <= the bound
    out = np.empty(max(1, end), dtype=np.int64)
    k = 0
    for t in range(end):
        c = codes[t]
        if c & 1 == MIN_END and row_overlaps(boxes, c >> 1, box[XMIN], box[YMIN], box[XMAX], box[YMAX]):
            out[k] = c >> 1
            k += 1
    return out[:k].copy()


# --------------------------------------------------------------------------
# The appendix "insert, remove and update on the sorted arrays": walk a moved endpoint
# --------------------------------------------------------------------------
@njit
def move_endpoint(keys, codes, m, t, k):
    """Give the endpoint at ``t`` the key ``k`` and walk it to its place; return that place.

    The endpoints it passed are the ones now between the two places: ``|place - t|`` swaps.
    """
    c = codes[t]
    while t > 0 and endpoint_before(k, c, keys[t - 1], codes[t - 1]):
        keys[t] = keys[t - 1]
        codes[t] = codes[t - 1]
        t -= 1
    while t < m - 1 and endpoint_before(keys[t + 1], codes[t + 1], k, c):
        keys[t] = keys[t + 1]
        codes[t] = codes[t + 1]
        t += 1
    keys[t] = k
    codes[t] = c
    return t


@njit
def move_endpoints(keys, codes, m, moves):
    """Walk a few moved endpoints to their places one by one; return the swaps.

    ``moves = (codes, old keys, new keys)`` of the moved endpoints (see
    :meth:`SortedEndpoints.moves_of`). Each is found by binary search under its
    old key, then walked: O(log m + d) per endpoint, ``d`` the endpoints passed.
    """
    moved, old_keys, new_keys = moves
    swaps = 0
    for j in range(moved.shape[0]):
        t = find_endpoint(keys, codes, m, old_keys[j], moved[j])
        if t < 0:
            raise RuntimeError("a moved endpoint is missing: the endpoint array is corrupt")
        swaps += abs(move_endpoint(keys, codes, m, t, new_keys[j]) - t)
    return swaps


# --------------------------------------------------------------------------
# One axis's endpoints, with their growth
# --------------------------------------------------------------------------
def live_boxes(elements) -> tuple[np.ndarray, np.ndarray]:
    """``(slots, boxes)`` of the live elements; ``boxes`` is a view (no copy) when no slot is free."""
    slots = elements.live_slots()
    if len(slots) == elements.high_water:
        return slots, elements.boxes[: len(slots)]
    return slots, elements.boxes[slots]


class SortedEndpoints:
    """The endpoints of the stored boxes on one axis, kept sorted by ``(key, is_max)``.

    Attributes
    ----------
    axis : int
        0 (x) or 1 (y).
    keys, codes : numpy.ndarray, (cap,) float64 and int64
        The endpoints; the first ``m`` are in use (the data layout of
        :mod:`~lessons_lib.structures.endpoints`).
    m : int
        Endpoints in use: twice the number of elements.

    The arrays grow by doubling (:meth:`reserve`); nothing else here allocates
    per element. Every method keeps the first ``m`` entries sorted.
    """

    def __init__(self, axis: int, capacity: int = 32):
        self.axis = axis
        self.keys = np.empty(capacity, dtype=np.float64)
        self.codes = np.empty(capacity, dtype=np.int64)
        self.m = 0

    def reserve(self, need: int) -> None:
        """Room for ``need`` endpoints (at least doubling when it grows)."""
        if need > len(self.keys):
            self.keys = grow(self.keys, self.m, need)
            self.codes = grow(self.codes, self.m, need)

    def fill(self, elements) -> None:
        """Every endpoint rewritten from the element table and sorted from scratch: O(n log n)."""
        slots, b = live_boxes(elements)
        n, a = len(slots), self.axis
        self.reserve(2 * n)
        self.m = 2 * n
        self.keys[:n], self.keys[n : 2 * n] = b[:, XMIN + a], b[:, XMAX + a]
        self.codes[:n], self.codes[n : 2 * n] = 2 * slots, 2 * slots + 1
        sort_endpoints(self.keys, self.codes, self.m)

    def add(self, slot: int, box) -> None:
        """Insert the two endpoints of ``slot``'s ``box``: O(log m) search + O(m) shift."""
        self.reserve(self.m + 2)
        for end, side in ((MIN_END, XMIN), (MAX_END, XMAX)):
            insert_endpoint(self.keys, self.codes, self.m, float(box[side + self.axis]), 2 * slot + end)
            self.m += 1

    def discard(self, slot: int, box) -> None:
        """Delete the two endpoints of ``slot``, whose stored box is ``box``."""
        for end, side in ((MIN_END, XMIN), (MAX_END, XMAX)):
            k = float(box[side + self.axis])
            t = find_endpoint(self.keys, self.codes, self.m, k, 2 * slot + end)
            if t < 0:  # pragma: no cover - would mean the invariant is broken
                raise RuntimeError(f"endpoint of slot {slot} at {k} is missing: the endpoint array is corrupt")
            delete_endpoint(self.keys, self.codes, self.m, t)
            self.m -= 1

    def moves_of(self, slots, old, boxes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(codes, old keys, new keys)`` of the endpoints of ``slots`` (old boxes ``old``), min then max each."""
        slots = np.asarray(slots, dtype=np.int64)
        old = np.asarray(old, dtype=np.float64).reshape(-1, 4)
        a = self.axis
        moved = np.empty(2 * len(slots), dtype=np.int64)
        old_keys, new_keys = np.empty(len(moved)), np.empty(len(moved))
        for end, side in ((MIN_END, XMIN), (MAX_END, XMAX)):
            moved[end::2] = 2 * slots + end
            old_keys[end::2] = old[:, side + a]
            new_keys[end::2] = boxes[slots, side + a]
        return moved, old_keys, new_keys

    def move(self, slots, old, boxes) -> int:
        """Walk the endpoints of a few moved ``slots`` to their places; return the swaps."""
        return int(move_endpoints(self.keys, self.codes, self.m, self.moves_of(slots, old, boxes)))

    def repair(self, boxes) -> int:
        """New keys from ``boxes`` in the old order, then insertion sort: O(m + swaps); return the swaps."""
        refresh_keys(self.keys, self.codes, self.m, boxes, self.axis)
        return int(insertion_sort_endpoints(self.keys, self.codes, self.m))

    def is_sorted(self) -> bool:
        return bool(endpoints_sorted(self.keys, self.codes, self.m))

    def query(self, boxes, box) -> np.ndarray:
        """Slots whose box meets ``box`` (see :func:`query_endpoints`)."""
        return query_endpoints(self.keys, self.codes, self.m, self.axis, boxes, box)

    def sweep(self, elements) -> tuple[np.ndarray, int]:
        """Slot pairs meeting on both axes, and the other-axis tests made (see :func:`sweep_pairs`)."""
        return sweep_pairs(self.keys, self.codes, self.m, elements.boxes, self.axis, elements.high_water)

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.codes.nbytes


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

    Attributes
    ----------
    axis : int
        The current sweep axis (0 = x, 1 = y).
    keys, codes, m
        The sorted endpoints on the sweep axis (the data layout of
        :mod:`~lessons_lib.structures.endpoints`).
    last_swaps : int
        Neighbour exchanges made by the last ``update`` or ``update_many``
        (0 after a full re-sort, which does not count them).
    last_tests : int
        Other-axis tests made by the last ``pairs()``.

    Raises
    ------
    ValueError
        ``axis`` not None, 0 or 1; ``incremental`` not a bool; and, from the
        interface, bad boxes (NaN, infinite, inverted, wrong shape) or a
        duplicate id. ``KeyError`` for an unknown id. Nothing changes on error.
    TypeError
        An unknown keyword. ``persistent_pairs``, a flag of earlier versions,
        names its replacement: the kept pairs are the structure
        :class:`~lessons_lib.structures.persistent_sweep_and_prune.PersistentSweepAndPrune`.

    See Also
    --------
    lessons_lib.structures.persistent_sweep_and_prune.PersistentSweepAndPrune :
        both axes kept sorted and the pairs kept between frames ([Cohen1995]).

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

    Coordinates: the whole finite float64 range, down to denormals and up to
    the largest float, with zero-width, coincident and all-covering boxes: the
    kernels only compare coordinates, they never add, subtract or multiply
    them, so nothing can overflow or lose precision. (The automatic axis
    choice compares variances of the centres; near the float limit it may
    pick the slower axis, never a wrong answer.)

    Sources: [magley2026] (the sweep-and-prune section: the sweep, the axis
    choice, temporal coherence); [Baraff1992] and [Cohen1995] (insertion sort
    between frames).

    Examples
    --------
    >>> bp = SweepAndPrune.from_boxes([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])
    >>> bp.pairs().tolist()
    [[0, 1]]
    >>> bp.update(2, [2, 2, 4, 4])      # walks its endpoints to their new places
    >>> bp.pairs().tolist(), bp.last_swaps
    ([[0, 1], [0, 2], [1, 2]], 2)
    >>> bp.query([2.5, 0, 2.5, 9]).tolist()
    [1, 2]
    """

    def __init__(self, *, world=None, axis=None, incremental: bool = True, **unknown):
        if "persistent_pairs" in unknown:
            raise TypeError("SweepAndPrune has no persistent_pairs flag: the kept pairs of I-COLLIDE are a structure "
                            "of their own, PersistentSweepAndPrune (from lessons_lib import PersistentSweepAndPrune)")
        if unknown:
            raise TypeError(f"SweepAndPrune got unexpected keyword arguments: {', '.join(sorted(unknown))}")
        super().__init__(world=world)
        self.fixed_axis = check_optional(check_choice, "axis", axis, (0, 1))
        self.incremental = check_flag("incremental", incremental)
        self.ends = SortedEndpoints(0 if self.fixed_axis is None else self.fixed_axis)
        self.last_swaps = 0
        self.last_tests = 0

    def __repr__(self) -> str:
        how = "auto" if self.fixed_axis is None else "forced"
        return f"{type(self).__name__}(n={len(self)}, axis={'xy'[self.axis]} ({how}), incremental={self.incremental})"

    # -- the sorted endpoints -----------------------------------------------
    axis = property(lambda self: self.ends.axis, doc="The sweep axis (0 = x, 1 = y).")
    keys = property(lambda self: self.ends.keys, doc="Endpoint keys on the sweep axis; the first ``m`` in use.")
    codes = property(lambda self: self.ends.codes, doc="Endpoint codes ``2 * slot + is_max``; the first ``m`` in use.")
    m = property(lambda self: self.ends.m, doc="Endpoints in use (twice the number of elements).")

    def endpoints(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sorted endpoints as ``(keys, ids, is_max)``: ``(m,)`` float64, int64, bool (copies)."""
        codes = self.codes[: self.m]
        return self.keys[: self.m].copy(), self.elements.ids[codes >> 1], (codes & 1).astype(bool)

    def is_sorted(self) -> bool:
        """The invariant: endpoints in ``(key, is_max)`` order. O(m)."""
        return self.ends.is_sorted()

    def _sort_all(self, axis: int) -> None:
        """Rewrite every endpoint on ``axis`` from the element table and sort from scratch."""
        self.ends = SortedEndpoints(axis, len(self.ends.keys)) if axis != self.axis else self.ends
        self.ends.fill(self.elements)

    def _build(self, slots) -> None:
        self._sort_all(choose_sweep_axis(self.elements) if self.fixed_axis is None else self.axis)

    # -- insert, remove, update ---------------------------------------------
    def _insert(self, slot, box) -> None:
        self.ends.add(slot, box)

    def _remove(self, slot, box) -> None:
        self.ends.discard(slot, box)

    def _update(self, slot, old, new) -> None:
        self.last_swaps = self.ends.move([slot], old, self.elements.boxes)

    def _update_many(self, slots, old, new) -> None:
        if not self.incremental:
            self._sort_all(self.axis)
            self.last_swaps = 0
        elif 16 * len(slots) < self.m:  # few movers: walk each one to its place
            self.last_swaps = self.ends.move(slots, old, self.elements.boxes)
        else:
            self.last_swaps = self.ends.repair(self.elements.boxes)

    # -- query and pairs -----------------------------------------------------
    def _query(self, box):
        return self.ends.query(self.elements.boxes, box)

    def _pairs(self):
        p, self.last_tests = self.ends.sweep(self.elements)
        return p

    # -- cleanup -------------------------------------------------------------
    def _clear(self) -> None:
        self.ends.m = 0

    def _cleanup(self) -> None:
        """Re-choose the sweep axis by variance (``axis=None`` only); re-sort if it changed."""
        if self.fixed_axis is None:
            axis = choose_sweep_axis(self.elements)
            if axis != self.axis:
                self._sort_all(axis)

    def _nbytes(self) -> int:
        return self.ends.nbytes

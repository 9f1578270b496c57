"""Sweep and prune with persistent pairs (I-COLLIDE): both axes kept sorted, the overlapping pairs kept.

Lesson 08, last part. :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune`
keeps its endpoints sorted between frames but sweeps again for every ``pairs()``.
[Cohen1995] carries temporal coherence to the pairs themselves: keep the set of
overlapping pairs between frames and update it from the swaps of the insertion
sort. Two intervals start to overlap on an axis exactly when a *min* endpoint
passes a *max* endpoint (a **crossing**); they stop when a max passes a min.

One axis is not enough: a pair can start to overlap in y while it overlapped in
x all along, and no swap in x tells. So the endpoints are kept sorted on
**both** axes, and a pair is added when a crossing on either axis finds the two
boxes meeting. Insertion sort exchanges every inverted pair of endpoints
exactly once, so a pair that did not meet before the frame and meets after it
has a crossing on some axis, tested then against the final boxes.

The steps
---------
* build: sort the endpoints of both axes
  (:func:`~lessons_lib.structures.endpoints.sort_endpoints`); one sweep
  (:func:`~lessons_lib.structures.sweep_and_prune.sweep_pairs`) fills the pair set.
* a frame (``update_many`` of many boxes): on each axis, new keys in the old
  order, then insertion sort (:func:`insertion_sort_from`), which lists the
  crossings; each crossing whose boxes now meet is added
  (:func:`add_meeting_pairs`). Then one pass over the set drops the pairs that
  no longer meet (:func:`drop_separated`). A max passing a min is *not* looked
  up during the sort: most such pairs never overlapped on the other axis and
  are not in the set, and a hash-table probe that misses is a cache miss.
* a few movers (``update``): walk each endpoint to its place
  (:func:`move_endpoint`) and look at the endpoints it passed
  (:func:`walk_keeping_pairs`): crossings add, separations remove.
* insert and remove: a query finds the element's pairs.
* ``pairs()``: read the set out; no sweep.

The pair set
------------
An open-addressing hash table with linear probing over one flat int64 array
``table``: each entry is a packed pair ``(a << 32) | b`` of slots ``a < b``, or
``EMPTY``. Its length is a power of two and it is at most half full, so a probe
visits few entries. Deletion pulls the following entries of the probe run back
(no tombstones, so the table never fills with dead entries). Kernels that add
pairs stop *before* the table would pass half full and return; the class
grows the table and resumes them (no array is grown inside a loop).

Sources: [Cohen1995] (I-COLLIDE: both axes sorted, a pair set updated by the
swaps), [Baraff1992] (insertion sort between frames), [magley2026] (the sweep
and prune it builds on).
"""
from __future__ import annotations

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import rows_overlap
from ..core.jit import njit
from ..core.params import check_choice, check_optional
from .endpoints import MIN_END, find_endpoint, lower_bound, refresh_keys
from .sweep_and_prune import SortedEndpoints, choose_sweep_axis, insertion_sort_from, move_endpoint

__all__ = ["PersistentSweepAndPrune", "PairSet", "EMPTY", "pair_key", "pair_key_hash", "add_meeting_pairs",
           "remove_pairs", "drop_separated", "walk_keeping_pairs",
    "pairset_add", "pairset_remove_at", "pairset_remove", "pairset_rehash", "pairset_rows",
]

#: An empty entry of the pair table.
EMPTY = -1
#: A pair key packs two slots into one int64, so slots stay below 2**31 (far more elements than memory holds).
MAX_SLOTS = 1 << 31
_LOW32 = 0xFFFFFFFF
#: The smallest pair table (entries).
MIN_TABLE = 32


# --------------------------------------------------------------------------
# The pair set: hash-table kernels over one int64 array
# --------------------------------------------------------------------------
@njit
def pair_key(a, b):
    """Pack an unordered slot pair into one int64: ``(min << 32) | max``."""
    if a < b:
        return (a << 32) | b
    return (b << 32) | a


@njit
def pair_key_hash(key, mask):
    """Table index of a packed pair: a 32-bit integer mix, exact in numba and in plain Python (no overflow).

    Each product stays below 2**63 for slots below ``MAX_SLOTS``.
    """
    x = (((key >> 32) * 0x9E3779B1) & _LOW32) ^ (((key & _LOW32) * 0x85EBCA77) & _LOW32)
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _LOW32
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _LOW32
    return (x ^ (x >> 16)) & mask


@njit
def pairset_add(table, key):
    """Add ``key`` unless present; return 1 if it was added, 0 if it was there. The caller guarantees room."""
    mask = table.shape[0] - 1
    i = pair_key_hash(key, mask)
    while table[i] != EMPTY:
        if table[i] == key:
            return 0
        i = (i + 1) & mask
    table[i] = key
    return 1


@njit
def pairset_remove_at(table, i):
    """Empty entry ``i``, pulling later entries of its probe run back into the hole (backward shift)."""
    mask = table.shape[0] - 1
    j = i
    while True:
        j = (j + 1) & mask
        key = table[j]
        if key == EMPTY:
            break
        home = pair_key_hash(key, mask)
        stays = (i < home <= j) if i <= j else (home > i or home <= j)  # its home lies cyclically in (i, j]
        if not stays:
            table[i] = key
            i = j
    table[i] = EMPTY


@njit
def pairset_remove(table, key):
    """Remove ``key`` if present; return 1 if it was removed, 0 if it was not there."""
    mask = table.shape[0] - 1
    i = pair_key_hash(key, mask)
    while table[i] != EMPTY:
        if table[i] == key:
            pairset_remove_at(table, i)
            return 1
        i = (i + 1) & mask
    return 0


@njit
def pairset_rehash(old, table):
    """Add every key of the table ``old`` to the empty ``table`` (room guaranteed)."""
    for key in old:
        if key != EMPTY:
            pairset_add(table, key)


@njit
def pairset_rows(table, count):
    """The ``count`` kept pairs as ``(count, 2)`` int64 slot pairs ``(a, b)``, ``a < b``, in table order."""
    out = np.empty((count, 2), dtype=np.int64)
    k = 0
    for key in table:
        if key != EMPTY:
            out[k, 0] = key >> 32
            out[k, 1] = key & _LOW32
            k += 1
    return out


@njit
def add_meeting_pairs(table, rows, boxes, count):
    """Add the slot pairs of ``rows`` whose boxes meet (closed test) to a table holding ``count`` pairs.

    Stops before the table would pass half full. Returns ``(r, count)``:
    the rows done (all of them when ``r == len(rows)``) and the new count.
    """
    limit = table.shape[0] // 2
    for r in range(rows.shape[0]):
        a, b = rows[r, 0], rows[r, 1]
        if rows_overlap(boxes, a, boxes, b):
            if count == limit:
                return r, count
            count += pairset_add(table, pair_key(a, b))
    return rows.shape[0], count


@njit
def remove_pairs(table, rows, n):
    """Remove the pairs of the first ``n`` slot ``rows``; return how many were there."""
    removed = 0
    for r in range(n):
        removed += pairset_remove(table, pair_key(rows[r, 0], rows[r, 1]))
    return removed


@njit
def drop_separated(table, boxes):
    """Remove every kept pair whose boxes no longer meet; return how many. O(table size).

    A removal may pull a later entry into the hole, so the same entry is
    looked at again; an entry pulled from the table's start (past the wrap)
    has been checked already and is only checked twice.
    """
    removed = 0
    i = 0
    while i < table.shape[0]:
        key = table[i]
        if key != EMPTY and not rows_overlap(boxes, key >> 32, boxes, key & _LOW32):
            pairset_remove_at(table, i)
            removed += 1
        else:
            i += 1
    return removed


def _table_size(room: int) -> int:
    """The smallest power-of-two table (at least ``MIN_TABLE``) that holds ``room`` pairs at most half full."""
    size = MIN_TABLE
    while size < 2 * room:
        size *= 2
    return size


class PairSet:
    """The kept pairs of slots, in a hash table (see the module notes), with its growth.

    Attributes
    ----------
    table : numpy.ndarray, (size,) int64
        Packed pairs or ``EMPTY``; ``size`` a power of two, at most half full.
    count : int
        Pairs kept.
    """

    def __init__(self, room: int = 0):
        self.table = np.full(_table_size(room), EMPTY, dtype=np.int64)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def reserve(self, room: int) -> None:
        """Room for ``room`` more pairs at most half full (growing to at least double)."""
        need = self.count + int(room)
        if 2 * need > len(self.table):
            self._rehash(max(2 * len(self.table), _table_size(need)))

    def shrink(self) -> None:
        """A smaller table when this one is less than 1/8 full (then at most 1/4 full): memory stays bounded."""
        if len(self.table) > MIN_TABLE and 8 * self.count < len(self.table):
            self._rehash(_table_size(2 * self.count))

    def _rehash(self, size: int) -> None:
        table = np.full(size, EMPTY, dtype=np.int64)
        pairset_rehash(self.table, table)
        self.table = table

    def add_meeting(self, rows, boxes) -> None:
        """Add the slot pairs of ``rows`` (``(k, 2)`` int64) whose boxes meet, growing the table when it is full."""
        done = 0
        while True:
            r, count = add_meeting_pairs(self.table, rows[done:], boxes, self.count)
            self.count, done = int(count), done + int(r)
            if done == len(rows):
                return
            self.reserve(1)  # at least doubles

    def rows(self) -> np.ndarray:
        """The kept pairs as ``(count, 2)`` int64 slot pairs ``(a, b)``, ``a < b``, in table order."""
        return pairset_rows(self.table, self.count)

    @property
    def nbytes(self) -> int:
        return self.table.nbytes


# --------------------------------------------------------------------------
# A few movers: walk each endpoint, update the set from what it passed
# --------------------------------------------------------------------------
@njit
def walk_keeping_pairs(keys, codes, m, moves, boxes, table, count, first):
    """Walk moved endpoints to their places one by one, keeping the pair set; resumable.

    ``moves = (codes, old keys, new keys)`` of the moved endpoints (see
    :meth:`SortedEndpoints.moves_of`); ``boxes`` holds the new boxes. After each
    walk (:func:`move_endpoint`) the endpoints it passed lie between its old
    and new place. Each passed endpoint of another slot of the other kind is
    a crossing (the pair is added if the boxes meet) or a separation (removed):
    a min moving left past a max, or a max moving right past a min, may start
    an overlap; the other two stop one.

    Starts at moved endpoint ``first``. Before each walk it checks that the
    table can take one addition per endpoint the walk could pass (found by
    binary search); if not it returns ``(j, swaps, count, need)``: grow the
    table to hold ``need`` pairs and call again from ``j``. Done when
    ``j == len(codes)``. O(log m + d) per endpoint, ``d`` the endpoints passed.
    """
    moved, old_keys, new_keys = moves
    limit = table.shape[0] // 2
    swaps = 0
    for j in range(first, moved.shape[0]):
        c, k = moved[j], new_keys[j]
        s = c >> 1
        t = find_endpoint(keys, codes, m, old_keys[j], c)
        if t < 0:
            raise RuntimeError("a moved endpoint is missing: the endpoint array is corrupt")
        worst = abs(lower_bound(keys, codes, m, k, c) - t)
        if count + worst > limit:
            return j, swaps, count, count + worst
        place = move_endpoint(keys, codes, m, t, k)
        swaps += abs(place - t)
        starts = (place < t) == (c & 1 == MIN_END)
        for u in range(min(place + 1, t), max(place, t + 1)):
            r = codes[u] >> 1
            if (codes[u] & 1) != (c & 1) and r != s:
                if not starts:
                    count -= pairset_remove(table, pair_key(s, r))
                elif rows_overlap(boxes, s, boxes, r):
                    count += pairset_add(table, pair_key(s, r))
    return moved.shape[0], swaps, count, count


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("persistent_sweep_and_prune")
class PersistentSweepAndPrune(BroadPhase):
    """Sweep and prune that keeps the overlapping pairs between frames (I-COLLIDE).

    Both axes' endpoints are kept sorted by insertion sort, and the set of
    overlapping pairs is kept in a hash table updated by the swaps: a frame
    costs O(n + swaps) and ``pairs()`` only reads the set out, with no sweep.
    Worth it for coherent motion (few swaps per endpoint); for larger steps
    :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune` (one axis,
    a sweep per ``pairs()``) is faster.

    Boxes are closed ``[xmin, ymin, xmax, ymax]`` rows (float64): two boxes
    that touch along an edge or at a corner are a pair, and a zero-width box
    meets what it lies on. On both axes a *min* endpoint sorts before a *max*
    at the same coordinate, so touching intervals cross and are tested.
    ``query(box)`` returns ``(p,)`` int64 ids in ascending order; ``pairs()``
    a ``(k, 2)`` int64 array of ids, ``i < j`` in each row, rows sorted (the
    common interface's canonical order).

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint (unused); boxes anywhere are found.
    axis : {None, 0, 1}
        The axis of the first sweep (bulk load) and of ``query``. ``None``
        (default): the axis of larger variance of the box centres, chosen on
        bulk load and on :meth:`cleanup`. Both axes are sorted either way.

    Attributes
    ----------
    axis : int
        The current query axis (0 = x, 1 = y).
    ends : tuple of SortedEndpoints
        The sorted endpoints on x and on y.
    kept : PairSet
        The overlapping pairs, as slot pairs.
    npairs : int
        Pairs kept.
    last_swaps : int
        Neighbour exchanges on both axes made by the last ``update`` or ``update_many``.

    Raises
    ------
    ValueError
        ``axis`` not None, 0 or 1; and, from the interface, bad boxes (NaN,
        infinite, inverted, wrong shape) or a duplicate id. ``KeyError`` for an
        unknown id. Nothing changes on error.

    Notes
    -----
    ============  ==========================================================
    operation     cost (``n`` elements, ``k`` pairs)
    ============  ==========================================================
    bulk load     O(n log n + s + k): two sorts and one sweep
    insert        O(n): a query finds the new pairs, plus the array shifts
    remove        O(n): a query finds the pairs to drop
    update        O(log n + d), O(1) expected per endpoint passed
    update_many   O(n + swaps + table size), on both axes
    query         O(p): ``p`` = boxes starting before the query's upper bound
    pairs         O(table size) plus the canonical order
    ============  ==========================================================

    Memory: 64 bytes per element (endpoints on both axes) plus 8 bytes per
    table entry, 2 to 8 entries per pair (16 to 64 bytes per pair: the table
    is at most half full and :meth:`cleanup` shrinks it below 1/8), plus the
    shared element table.

    Coordinates: the whole finite float64 range, down to denormals and up to
    the largest float, with zero-width, coincident and all-covering boxes:
    the kernels only compare coordinates, never add or multiply them. Up to
    2**31 element slots (a pair key packs two slots into one int64).

    Sources: [Cohen1995] (I-COLLIDE), [Baraff1992], [magley2026].

    Examples
    --------
    >>> bp = PersistentSweepAndPrune.from_boxes([[0, 0, 2, 2], [3, 0, 5, 2], [0, 3, 2, 5]])
    >>> bp.pairs().tolist(), bp.npairs
    ([], 0)
    >>> bp.update_many([1, 2], [[2, 0, 4, 2], [0, 2, 1, 4]])  # both touch box 0 now
    >>> bp.pairs().tolist(), bp.last_swaps              # swaps on both axes
    ([[0, 1], [0, 2]], 4)
    >>> bp.update(1, [9, 9, 10, 10])                    # a separation: the pair is dropped
    >>> bp.pairs().tolist()
    [[0, 2]]
    """

    def __init__(self, *, world=None, axis=None):
        super().__init__(world=world)
        self.fixed_axis = check_optional(check_choice, "axis", axis, (0, 1))
        self.axis = 0 if self.fixed_axis is None else self.fixed_axis
        self.ends = (SortedEndpoints(0), SortedEndpoints(1))
        self.kept = PairSet()
        self.last_swaps = 0

    def __repr__(self) -> str:
        how = "auto" if self.fixed_axis is None else "forced"
        return f"{type(self).__name__}(n={len(self)}, axis={'xy'[self.axis]} ({how}), {self.npairs} pairs kept)"

    @property
    def npairs(self) -> int:
        """Pairs kept."""
        return self.kept.count

    @property
    def m(self) -> int:
        """Endpoints in use on each axis (twice the number of elements)."""
        return self.ends[0].m

    def is_sorted(self) -> bool:
        """The invariant: the endpoints of both axes in ``(key, is_max)`` order. O(m)."""
        return self.ends[0].is_sorted() and self.ends[1].is_sorted()

    def pair_slots(self) -> np.ndarray:
        """The kept pair set as ``(k, 2)`` int64 slot pairs ``(a, b)``, ``a < b``, in table order (a copy)."""
        return self.kept.rows()

    def _build(self, slots) -> None:
        if self.elements.high_water > MAX_SLOTS:  # pragma: no cover - needs more memory than machines have
            raise ValueError(f"at most {MAX_SLOTS} element slots: a pair key packs two slots into one int64")
        if self.fixed_axis is None:
            self.axis = choose_sweep_axis(self.elements)
        for ends in self.ends:
            ends.fill(self.elements)
        first, _ = self.ends[self.axis].sweep(self.elements)  # the first pair set comes from one sweep
        self.kept = PairSet(len(first))
        self.kept.add_meeting(first, self.elements.boxes)

    # -- insert, remove ------------------------------------------------------
    def _insert(self, slot, box) -> None:
        if slot >= MAX_SLOTS:  # pragma: no cover - needs more memory than machines have
            raise ValueError(f"at most {MAX_SLOTS} element slots: a pair key packs two slots into one int64")
        hits = self._query(box)  # the new pairs, found before anything changes
        self.kept.reserve(len(hits))
        for ends in self.ends:
            ends.add(slot, box)
        self.kept.add_meeting(np.column_stack([np.full(len(hits), slot), hits]), self.elements.boxes)

    def _remove(self, slot, box) -> None:
        hits = self._query(box)  # the element's pairs are the boxes meeting it (itself among them)
        rows = np.column_stack([np.full(len(hits), slot), hits])[hits != slot]
        self.kept.count -= int(remove_pairs(self.kept.table, rows, len(rows)))
        for ends in self.ends:
            ends.discard(slot, box)

    # -- update: walks for a few movers, insertion sort for many ---------------
    def _walk(self, slots, old) -> int:
        """Walk the endpoints of a few moved ``slots`` on both axes, keeping the pair set; return the swaps."""
        swaps = 0
        for ends in self.ends:
            moves = ends.moves_of(slots, old, self.elements.boxes)
            j = 0
            while True:
                j, sw, count, need = walk_keeping_pairs(ends.keys, ends.codes, ends.m, moves, self.elements.boxes,
                                                        self.kept.table, self.kept.count, j)
                self.kept.count = int(count)
                swaps += int(sw)
                if j >= len(moves[0]):
                    break
                self.kept.reserve(need - count)
        return swaps

    def _repair(self, ends) -> int:
        """New keys in the old order and insertion sort of one axis, adding the crossings that meet; return swaps."""
        boxes = self.elements.boxes
        refresh_keys(ends.keys, ends.codes, ends.m, boxes, ends.axis)
        crossings = np.empty((ends.m // 2 + 1024, 2), dtype=np.int64)  # the sort stops when it is full
        t, swaps = 0, 0
        while True:
            t, sw, found = insertion_sort_from(ends.keys, ends.codes, ends.m, t, crossings)
            swaps += int(sw)
            self.kept.add_meeting(crossings[:found], boxes)
            if t >= ends.m:
                return swaps

    def _update(self, slot, old, new) -> None:
        self.last_swaps = self._walk(np.array([slot], dtype=np.int64), old)

    def _update_many(self, slots, old, new) -> None:
        if 16 * len(slots) < self.m:  # few movers: walk each endpoint to its place
            self.last_swaps = self._walk(slots, old)
            return
        self.last_swaps = self._repair(self.ends[0]) + self._repair(self.ends[1])
        self.kept.count -= int(drop_separated(self.kept.table, self.elements.boxes))

    # -- query and pairs -------------------------------------------------------
    def _query(self, box):
        return self.ends[self.axis].query(self.elements.boxes, box)

    def _pairs(self):
        return self.kept.rows()

    # -- cleanup ---------------------------------------------------------------
    def _clear(self) -> None:
        for ends in self.ends:
            ends.m = 0
        self.kept = PairSet()

    def _cleanup(self) -> None:
        """Re-choose the query axis by variance (``axis=None`` only; both axes are sorted); shrink the table."""
        if self.fixed_axis is None:
            self.axis = choose_sweep_axis(self.elements)
        self.kept.shrink()

    def _nbytes(self) -> int:
        return self.ends[0].nbytes + self.ends[1].nbytes + self.kept.nbytes

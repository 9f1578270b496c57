"""The element table every structure shares: ids and boxes stored once, by slot.

A structure never stores an element's rectangle twice. It refers to elements by
**slot**, a small dense int index into three flat arrays, and this table maps
the user's int64 **id** to its slot. Freed slots go on a free list and are
reused by the next insert, so the arrays stop growing once the population is
known (the "element array with a free list" layout of the quadtree answer set,
[SO-quadtree]).

Layout, for capacity ``c``:

=========  ============  ===========================================
array      shape, dtype  meaning
=========  ============  ===========================================
``ids``    (c,) int64    the user's id in each slot
``boxes``  (c, 4) f8     ``[xmin, ymin, xmax, ymax]`` of each slot
``alive``  (c,) bool     False for free (never used or removed) slots
=========  ============  ===========================================

The id -> slot map
------------------
The common case, ``from_boxes`` with ids ``0 .. n-1`` and later removals and
re-inserts of the same ids, keeps every live element in the slot equal to its
id. While that holds the table needs no map at all: looking up id ``i`` is
checking ``alive[i]``, and bulk lookups are one vectorised test. The first
insert that breaks it (an id stored in another slot) builds a dict from the
live slots and keeps it up to date from then on.
"""
from __future__ import annotations

import numpy as np

from .jit import njit, njit_parallel_and_serial, prange, use_threads

__all__ = ["ElementTable", "exchange_boxes", "exchange_changed", "check_identity_slots"]


@njit
def check_identity_slots(ids, alive, used):
    """Check ids that are their own slots: ``(-1, -1)`` if all are live and distinct.

    Else ``(0, i)`` for the first position ``i`` whose id is not a live slot
    below ``used``, or ``(1, s)`` for the smallest slot ``s`` given twice
    (unknown ids are looked for first). Two passes, one byte of scratch per slot.
    """
    for i in range(ids.shape[0]):
        s = ids[i]
        if s < 0 or s >= used or not alive[s]:
            return 0, i
    seen = np.zeros(used, dtype=np.bool_)
    repeat = -1
    for i in range(ids.shape[0]):
        s = ids[i]
        if seen[s] and (repeat == -1 or s < repeat):
            repeat = s
        seen[s] = True
    if repeat != -1:
        return 1, repeat
    return -1, -1


@njit
def exchange_boxes(table, slots, new, keep_old=True):
    """Write ``new[k]`` into ``table[slots[k]]``; return the rows it replaced (if ``keep_old``).

    Parameters
    ----------
    table : numpy.ndarray, shape (c, 4), float64
        The element table's boxes; changed in place.
    slots : numpy.ndarray, shape (k,), int64
        Distinct valid slots.
    new : numpy.ndarray, shape (k, 4), float64
    keep_old : bool
        False: return an empty ``(0, 4)`` array instead (for structures that
        never look at the old boxes).

    Returns
    -------
    numpy.ndarray, shape (k, 4) or (0, 4), float64
        The old boxes, in the order of ``slots``.

    One pass over the rows (numpy's ``old = table[slots]; table[slots] = new``
    makes two, about 1 ms each at 100,000 rows).
    """
    old = np.empty((slots.shape[0] if keep_old else 0, 4), dtype=np.float64)
    for k in range(slots.shape[0]):
        s = slots[k]
        for t in range(4):
            if keep_old:
                old[k, t] = table[s, t]
            table[s, t] = new[k, t]
    return old


@njit
def exchange_changed(table, slots, new):
    """Write the rows of ``new`` that differ from ``table[slots]``; return which they were and their old rows.

    ``table``, ``slots`` and ``new`` as in :func:`exchange_boxes` (``table`` changed in place).

    Returns
    -------
    changed : numpy.ndarray, shape (m,), int64
        Positions ``k`` (into ``slots`` and ``new``) whose box differs in value from the stored one.
    old : numpy.ndarray, shape (m, 4), float64
        Their stored boxes before the write, in the order of ``changed``.

    For structures that skip an element whose box did not change (``BroadPhase.update_changed_only``):
    one pass over the rows, and what follows costs only what moved (most bodies at rest).
    """
    k_all = slots.shape[0]
    changed = np.empty(k_all, dtype=np.int64)
    m = 0
    for k in range(k_all):
        s = slots[k]
        if (table[s, 0] != new[k, 0]) | (table[s, 1] != new[k, 1]) | (table[s, 2] != new[k, 2]) \
                | (table[s, 3] != new[k, 3]):
            changed[m] = k
            m += 1
    old = np.empty((m, 4), dtype=np.float64)
    for t in range(m):
        k = changed[t]
        s = slots[k]
        for c in range(4):
            old[t, c] = table[s, c]
            table[s, c] = new[k, c]
    return changed[:m].copy(), old


def _fill_slots(ids, boxes, alive, first, new_ids, new_boxes, identity):
    """Slots ``first ..`` take ``new_boxes`` (``(k, 4)`` float64) and their ids: ``new_ids``, or the slots themselves."""
    for k in prange(new_boxes.shape[0]):
        s = first + k
        ids[s] = s if identity else new_ids[k]
        alive[s] = True
        for t in range(4):
            boxes[s, t] = new_boxes[k, t]


_fill_slots_parallel, _fill_slots_serial = njit_parallel_and_serial(_fill_slots)

#: ``add_many`` fills the slots on every thread from this many elements (fresh memory is faulted in on both cores).
PARALLEL_FILL = 50_000


class ElementTable:
    """Slots for elements: id -> slot lookup, flat id/box arrays, free list.

    Methods do not validate boxes (the :class:`~lessons_lib.base.BroadPhase`
    boundary does that once); they do check ids (presence, repeats).
    """

    def __init__(self, capacity: int = 16):
        capacity = max(1, int(capacity))
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.boxes = np.zeros((capacity, 4), dtype=np.float64)
        self.alive = np.zeros(capacity, dtype=np.bool_)
        self._map: dict[int, int] | None = None  # None: every live id equals its slot
        self._free: list[int] = []
        self._used = 0  # slots [0, _used) have been handed out at least once
        self._count = 0

    # -- size -------------------------------------------------------------
    def __len__(self) -> int:
        return self._count

    def __contains__(self, id_) -> bool:
        return self._lookup(id_) >= 0

    @property
    def capacity(self) -> int:
        return len(self.ids)

    @property
    def high_water(self) -> int:
        """Number of slots ever handed out; every live slot is below it."""
        return self._used

    @property
    def ids_are_slots(self) -> bool:
        """True while every live id equals its slot (no id -> slot map is needed).

        Then sorting live slots sorts their ids too, which
        :func:`~lessons_lib.core.pair_order.canonical_pairs` uses to skip ranking.
        """
        return self._map is None

    def nbytes(self) -> int:
        """Bytes of the flat arrays (the id map and free list are bookkeeping, not counted)."""
        return self.ids.nbytes + self.boxes.nbytes + self.alive.nbytes

    def _grow(self, need: int) -> None:
        cap = self.capacity
        if need <= cap:
            return
        new = max(need, 2 * cap)
        used = self._used
        ids, boxes, alive = np.zeros(new, np.int64), np.zeros((new, 4)), np.zeros(new, np.bool_)
        ids[:used], boxes[:used], alive[:used] = self.ids[:used], self.boxes[:used], self.alive[:used]
        self.ids, self.boxes, self.alive = ids, boxes, alive

    # -- lookup -----------------------------------------------------------
    def _lookup(self, id_: int) -> int:
        """Slot of ``id_``, or -1."""
        if self._map is not None:
            return self._map.get(id_, -1)
        return id_ if 0 <= id_ < self._used and self.alive[id_] else -1

    def _build_map(self) -> None:
        live = self.live_slots()
        self._map = dict(zip(self.ids[live].tolist(), live.tolist()))

    def slot(self, id_: int) -> int:
        """Slot of a stored id; ``KeyError`` naming the id when it is unknown."""
        s = self._lookup(id_)
        if s < 0:
            raise KeyError(f"unknown id {id_}: it was never inserted or has been removed")
        return s

    def distinct_slots(self, ids: np.ndarray, what: str = "update_many") -> np.ndarray:
        """Slots of distinct stored ids (int64 in, int64 out).

        Raises ``KeyError`` on the first unknown id, else ``ValueError`` naming
        an id given twice (``what`` names the call in the message).
        """
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if self._map is None:  # ids are slots: one compiled pass, no temporaries
            kind, at = check_identity_slots(ids, self.alive, self._used)
            if kind == 0:
                raise KeyError(f"unknown id {int(ids[at])}: it was never inserted or has been removed")
            if kind == 1:
                raise ValueError(f"id {int(at)} appears more than once in {what}")
            return ids
        slots = self.slots_of(ids)
        repeats = np.bincount(slots) > 1 if len(slots) > 1 else np.zeros(0, bool)
        if repeats.any():
            raise ValueError(f"id {int(self.ids[np.argmax(repeats)])} appears more than once in {what}")
        return slots

    def slots_of(self, ids: np.ndarray) -> np.ndarray:
        """Slots of many stored ids (int64 array in, int64 array out); ``KeyError`` on the first unknown."""
        ids = np.asarray(ids, dtype=np.int64)
        known = self._known(ids)
        if not known.all():
            raise KeyError(f"unknown id {int(ids[~known][0])}: it was never inserted or has been removed")
        if self._map is None:
            return ids.copy()
        get = self._map.get
        return np.fromiter((get(i) for i in ids.tolist()), dtype=np.int64, count=len(ids))

    # -- add / remove -----------------------------------------------------
    def add(self, id_: int, box: np.ndarray) -> int:
        """Store a new element; return its slot. ``ValueError`` if the id is present."""
        if self._lookup(id_) >= 0:
            raise ValueError(f"id {id_} is already stored; use update() to move it")
        if self._free:
            slot = self._free.pop()
        else:
            self._grow(self._used + 1)
            slot = self._used
            self._used += 1
        if self._map is None and id_ != slot:
            self._build_map()
        if self._map is not None:
            self._map[id_] = slot
        self.ids[slot] = id_
        self.boxes[slot] = box
        self.alive[slot] = True
        self._count += 1
        return slot

    def add_many(self, ids: np.ndarray | None, boxes: np.ndarray) -> np.ndarray:
        """Store many new elements at once; return their slots.

        ``ids=None``: the ids ``high_water .. high_water + n - 1`` (``0 .. n-1``
        in a new table, where they are also the slots), with no id array to
        make or check. ``ValueError`` if an id
        repeats or is already present (nothing is stored then).
        """
        k = len(boxes) if ids is None else len(ids)
        fresh = np.arange(self._used, self._used + k, dtype=np.int64)
        ids = fresh if ids is None else np.ascontiguousarray(ids, dtype=np.int64)
        identity = self._map is None and (ids is fresh or np.array_equal(ids, fresh))
        if not identity:
            vals, counts = np.unique(ids, return_counts=True)
            if (counts > 1).any():
                raise ValueError(f"id {int(vals[counts > 1][0])} appears more than once")
            present = ids[self._known(ids)]
            if len(present):
                raise ValueError(f"id {int(present[0])} is already stored; use update() to move it")
        if self._free:  # rare in bulk loads: reuse the holes one by one
            return np.array([self.add(int(i), b) for i, b in zip(ids.tolist(), boxes)], dtype=np.int64)
        self._grow(self._used + k)
        fill = _fill_slots_parallel if k >= PARALLEL_FILL and use_threads() else _fill_slots_serial
        fill(self.ids, self.boxes, self.alive, self._used, ids, np.ascontiguousarray(boxes, dtype=np.float64),
             identity)  # the fresh slots are one run
        self._used += k
        self._count += k
        if not identity:
            if self._map is None:
                self._build_map()
            else:
                self._map.update(zip(ids.tolist(), fresh.tolist()))
        return fresh

    def _known(self, ids: np.ndarray) -> np.ndarray:
        """Mask over ``ids``: which are stored (vectorised while ids equal slots)."""
        if self._map is None:
            inside = (ids >= 0) & (ids < self._used)
            hit = np.zeros(len(ids), dtype=bool)
            hit[inside] = self.alive[ids[inside]]
            return hit
        return np.fromiter((i in self._map for i in ids.tolist()), dtype=bool, count=len(ids))

    def discard(self, id_: int) -> int:
        """Forget an element; its slot goes on the free list. Returns the slot."""
        slot = self.slot(id_)
        if self._map is not None:
            del self._map[id_]
        self.alive[slot] = False
        self._free.append(slot)
        self._count -= 1
        return slot

    def clear(self) -> None:
        """Forget every element; keeps the allocated arrays."""
        self._map = None
        self._free.clear()
        self.alive[:] = False
        self._used = 0
        self._count = 0

    def live_slots(self) -> np.ndarray:
        """Slots in use, ascending, as int64."""
        return np.flatnonzero(self.alive[: self._used]).astype(np.int64)

"""The element table every structure shares: ids and boxes stored once, by slot.

A structure never stores an element's rectangle twice. It refers to elements by
**slot**, a small dense int index into three flat arrays, and this table maps
the user's int64 **id** to its slot. Freed slots go on a free list and are
reused by the next insert, so the arrays stop growing once the population is
known (the "element array with a free list" layout of the quadtree answer set,
seed ``000_2368b35e41245e11.txt``).

Layout, for capacity ``c``:

=========  ============  ===========================================
array      shape, dtype  meaning
=========  ============  ===========================================
``ids``    (c,) int64    the user's id in each slot
``boxes``  (c, 4) f8     ``[xmin, ymin, xmax, ymax]`` of each slot
``alive``  (c,) bool     False for free (never used or removed) slots
=========  ============  ===========================================
"""
from __future__ import annotations

import numpy as np

__all__ = ["ElementTable"]


class ElementTable:
    """Slots for elements: id -> slot map, flat id/box arrays, free list.

    Methods do not validate boxes (the :class:`~lessons_lib.base.BroadPhase`
    boundary does that once); they do check ids.
    """

    def __init__(self, capacity: int = 16):
        capacity = max(1, int(capacity))
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.boxes = np.zeros((capacity, 4), dtype=np.float64)
        self.alive = np.zeros(capacity, dtype=np.bool_)
        self.slot_of: dict[int, int] = {}
        self._free: list[int] = []
        self._used = 0  # slots [0, _used) have been handed out at least once

    # -- size -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.slot_of)

    def __contains__(self, id_) -> bool:
        return id_ in self.slot_of

    @property
    def capacity(self) -> int:
        return len(self.ids)

    @property
    def high_water(self) -> int:
        """Number of slots ever handed out; every live slot is below it."""
        return self._used

    def nbytes(self) -> int:
        """Bytes of the flat arrays (the dict and free list are bookkeeping, not counted)."""
        return self.ids.nbytes + self.boxes.nbytes + self.alive.nbytes

    def _grow(self, need: int) -> None:
        cap = self.capacity
        if need <= cap:
            return
        new = max(need, 2 * cap)
        self.ids = np.concatenate([self.ids, np.zeros(new - cap, np.int64)])
        self.boxes = np.concatenate([self.boxes, np.zeros((new - cap, 4))])
        self.alive = np.concatenate([self.alive, np.zeros(new - cap, np.bool_)])

    # -- add / remove -----------------------------------------------------
    def add(self, id_: int, box: np.ndarray) -> int:
        """Store a new element; return its slot. ``ValueError`` if the id is present."""
        if id_ in self.slot_of:
            raise ValueError(f"id {id_} is already stored; use update() to move it")
        if self._free:
            slot = self._free.pop()
        else:
            self._grow(self._used + 1)
            slot = self._used
            self._used += 1
        self.ids[slot] = id_
        self.boxes[slot] = box
        self.alive[slot] = True
        self.slot_of[id_] = slot
        return slot

    def add_many(self, ids: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Store many new elements at once (ids unique, none present); return their slots."""
        k = len(ids)
        if len(np.unique(ids)) != k:
            vals, counts = np.unique(ids, return_counts=True)
            raise ValueError(f"id {int(vals[counts > 1][0])} appears more than once")
        for i in ids.tolist():
            if i in self.slot_of:
                raise ValueError(f"id {i} is already stored; use update() to move it")
        if self._free:  # rare in bulk loads: reuse free slots one by one
            return np.array([self.add(int(i), b) for i, b in zip(ids, boxes)], dtype=np.int64)
        self._grow(self._used + k)
        slots = np.arange(self._used, self._used + k, dtype=np.int64)
        self._used += k
        self.ids[slots] = ids
        self.boxes[slots] = boxes
        self.alive[slots] = True
        self.slot_of.update(zip(ids.tolist(), slots.tolist()))
        return slots

    def slot(self, id_: int) -> int:
        """Slot of a stored id; ``KeyError`` naming the id when it is unknown."""
        try:
            return self.slot_of[id_]
        except KeyError:
            raise KeyError(f"unknown id {id_}: it was never inserted or has been removed") from None

    def discard(self, id_: int) -> int:
        """Forget an element; its slot goes on the free list. Returns the slot."""
        slot = self.slot(id_)
        del self.slot_of[id_]
        self.alive[slot] = False
        self._free.append(slot)
        return slot

    def clear(self) -> None:
        """Forget every element; keeps the allocated arrays."""
        self.slot_of.clear()
        self._free.clear()
        self.alive[:] = False
        self._used = 0

    def live_slots(self) -> np.ndarray:
        """Slots in use, ascending, as int64."""
        return np.flatnonzero(self.alive[: self._used]).astype(np.int64)

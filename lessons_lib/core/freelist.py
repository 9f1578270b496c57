"""The indexed free list: an array you can erase from anywhere in O(1) without moving anything.

The compact quadtree of lesson 05 keeps its nodes and its element nodes in flat
int32 arrays and refers to them by **index**. Erasing a row must therefore not
shift the rows after it (that would invalidate every index stored elsewhere),
and inserting should reuse the holes erasures leave. The indexed free list does
both in constant time:

* every row has ``width`` int32 fields;
* an erased row becomes a *hole*: its field 0 is overwritten with the index of
  the next hole, so the holes form a singly linked list threaded through the
  array itself (no extra memory: [SO-quadtree]'s ``union { T element; int next; }``);
* ``head`` is the first hole, or -1 when there is none;
* insert pops the first hole if there is one, otherwise appends a row at
  ``used`` (growing the array when it is full);
* indices of live rows never change.

The state is three things: the ``(capacity, width)`` int32 array, and two
counters kept in a small int64 array ``meta = [used, head]`` so that numba
kernels can update them in place. The kernels below (:func:`fl_take`,
:func:`fl_alloc`, :func:`fl_erase`) are what the quadtrees call; :class:`FreeList` wraps them for
lessons and tests.

The quadtree also frees its child nodes *in blocks of four* (the four children
of a node are contiguous): :func:`fl_alloc_block` and :func:`fl_erase_block`
are the same idea with rows ``i .. i + block - 1`` handed out and taken back
together; the link lives in field 0 of the block's first row.

References
----------
The quadtree answer set [SO-quadtree]: the ``FreeList<T>``
template and the "free nodes in blocks of four" trick of its efficient quadtree.
"""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = [
    "FREE_MARK",
    "USED",
    "HEAD",
    "FreeList",
    "fl_alloc",
    "fl_alloc_block",
    "fl_erase",
    "fl_erase_block",
    "fl_grow",
    "fl_holes",
    "fl_take",
]

#: Value written to field 1 of an erased row (when ``width >= 2``) so holes are easy to spot.
FREE_MARK = -2

#: Positions in the ``meta`` int64 array: rows handed out so far, first hole.
USED, HEAD = 0, 1


# --------------------------------------------------------------------------
# Kernels over (array, meta)
# --------------------------------------------------------------------------
@njit
def fl_grow(arr, need):
    """Return ``arr`` if it has at least ``need`` rows, else a copy with room for ``max(need, 1.5 * rows)``.

    ``arr`` is ``(capacity, width)`` int32; new rows are filled with -1.
    """
    cap = arr.shape[0]
    if need <= cap:
        return arr
    new_cap = max(need, cap + cap // 2 + 4)
    out = np.full((new_cap, arr.shape[1]), -1, dtype=np.int32)
    out[:cap] = arr
    return out


@njit
def fl_alloc_block(arr, meta, block):
    """Hand out ``block`` contiguous rows; return ``(arr, first)`` (``arr`` may be a grown copy).

    Pops the first hole-block if there is one (every hole of this list must
    then be a block of the same size), else appends at ``meta[USED]``. O(1)
    amortised (growing copies the array, rarely).
    """
    head = meta[HEAD]
    if head != -1:
        meta[HEAD] = arr[head, 0]
        return arr, head
    first = meta[USED]
    arr = fl_grow(arr, first + block)
    meta[USED] = first + block
    return arr, first


@njit
def fl_take(arr, meta, block):
    """:func:`fl_alloc_block` when ``arr`` is known to have room: returns the index only (nothing is grown)."""
    head = meta[HEAD]
    if head != -1:
        meta[HEAD] = arr[head, 0]
        return head
    first = meta[USED]
    meta[USED] = first + block
    return first


@njit
def fl_alloc(arr, meta):
    """Hand out one row: ``(arr, index)``. O(1) amortised."""
    return fl_alloc_block(arr, meta, 1)


@njit
def fl_erase_block(arr, meta, first, block):
    """Give rows ``first .. first + block - 1`` back: they become one hole. O(block)."""
    arr[first, 0] = meta[HEAD]
    if arr.shape[1] > 1:
        for k in range(block):
            arr[first + k, 1] = FREE_MARK
    meta[HEAD] = first


@njit
def fl_erase(arr, meta, index):
    """Give row ``index`` back: it becomes the first hole. O(1)."""
    fl_erase_block(arr, meta, index, 1)


def fl_holes(arr: np.ndarray, meta: np.ndarray) -> list[int]:
    """Indices of the holes (first rows of hole-blocks), in free-list order.

    Raises
    ------
    RuntimeError
        If the chain is longer than the array (a cycle: a corrupted list).
    """
    out, h = [], int(meta[HEAD])
    while h != -1:
        out.append(h)
        if len(out) > arr.shape[0]:
            raise RuntimeError("free list has a cycle")
        h = int(arr[h, 0])
    return out


# --------------------------------------------------------------------------
# A small class for lessons and tests
# --------------------------------------------------------------------------
class FreeList:
    """An indexed free list of int32 records: O(1) insert and erase, stable indices.

    Parameters
    ----------
    width : int
        int32 fields per record (>= 1). Field 0 of a hole holds the next hole.
    capacity : int
        Rows allocated up front (>= 1); the array grows by 1.5x when full.

    Examples
    --------
    >>> fl = FreeList(width=2)
    >>> a = fl.insert([10, 11]); b = fl.insert([20, 21]); c = fl.insert([30, 31])
    >>> fl.erase(b)            # b becomes a hole; a and c keep their indices
    >>> fl.insert([40, 41])    # reuses the hole
    1

    Notes
    -----
    Memory: ``4 * width`` bytes per row ever used (rows are reused, never
    returned to the system). There is no ``alive`` flag in the array: erasing
    an index twice, or reading a hole, is the caller's bug (as in [SO-quadtree]'s
    C++ version); :meth:`erase` checks it here because lessons call it by hand.

    References
    ----------
    The ``FreeList<T>`` of the quadtree answer set [SO-quadtree].
    """

    def __init__(self, width: int = 1, capacity: int = 4):
        if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 1:
            raise ValueError(f"width must be an integer >= 1, got {width!r}")
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
            raise ValueError(f"capacity must be an integer >= 1, got {capacity!r}")
        self.data = np.full((int(capacity), int(width)), -1, dtype=np.int32)
        self.meta = np.array([0, -1], dtype=np.int64)

    @property
    def width(self) -> int:
        return self.data.shape[1]

    def range(self) -> int:
        """Rows handed out so far, live or holes: valid indices are ``0 .. range() - 1``."""
        return int(self.meta[USED])

    @property
    def head(self) -> int:
        """The first hole, -1 when there is none."""
        return int(self.meta[HEAD])

    def holes(self) -> list[int]:
        """Indices of the holes, in the order insert will reuse them."""
        return fl_holes(self.data, self.meta)

    def live(self) -> list[int]:
        """Indices in use, ascending."""
        free = set(self.holes())
        return [i for i in range(self.range()) if i not in free]

    def __len__(self) -> int:
        return self.range() - len(self.holes())

    def insert(self, record) -> int:
        """Store ``record`` (``width`` ints, or one int when ``width == 1``); return its index."""
        rec = np.asarray(record, dtype=np.int64).reshape(-1)
        if rec.shape != (self.width,):
            raise ValueError(f"record must have {self.width} field(s), got {rec.tolist()}")
        if (np.abs(rec) >= 2**31).any():
            raise ValueError(f"record fields must fit in int32, got {rec.tolist()}")
        self.data, i = fl_alloc(self.data, self.meta)
        self.data[i] = rec
        return int(i)

    def erase(self, index: int) -> None:
        """Make ``index`` a hole; ``IndexError`` if it is out of range or already a hole."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index must be an integer, got {index!r}")
        if not 0 <= index < self.range():
            raise IndexError(f"index {index} is outside 0..{self.range() - 1}")
        if index in self.holes():
            raise IndexError(f"index {index} is already a hole")
        fl_erase(self.data, self.meta, int(index))

    def __getitem__(self, index: int):
        if not 0 <= index < self.range() or index in self.holes():
            raise IndexError(f"index {index} is not a live record")
        row = self.data[index]
        return int(row[0]) if self.width == 1 else row.tolist()

    def clear(self) -> None:
        """Forget every record (keeps the allocated array)."""
        self.meta[:] = (0, -1)

    def nbytes(self) -> int:
        """Bytes of the array (the two counters aside)."""
        return self.data.nbytes

    def __repr__(self) -> str:
        return f"FreeList(width={self.width}, live={len(self)}, holes={self.holes()}, range={self.range()})"


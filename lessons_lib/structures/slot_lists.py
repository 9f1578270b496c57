"""Lists of slots threaded through one ``next`` array: the list layout lessons 06-07's structures share.

Where an element lies in exactly one list (the loose quadtree's leaf, the loose
cell of the loose/tight grid, the point grid's cell), its slot is its own list
node: ``head[list]`` holds the first slot and ``enext[slot]`` the next one, -1
ending the list. No list nodes are allocated, and moving an element between
lists is two pointer changes.
"""
from __future__ import annotations

import numpy as np

from ..core.boxes import row_overlaps
from ..core.jit import njit

__all__ = ["unlink_slot", "scan_slot_list", "grown_slots"]


@njit
def unlink_slot(head, cell, enext, s):
    """Take slot ``s`` out of the slot list ``head[cell] -> enext -> ...``; returns 1 if found, else 0.

    The list layout of every structure of lessons 06-07: an element lies in
    one list, so its slot is its own list node and ``enext[slot]`` the link.
    O(length of the list).
    """
    prev = -1
    it = head[cell]
    while it != -1:
        if it == s:
            if prev == -1:
                head[cell] = enext[it]
            else:
                enext[prev] = enext[it]
            enext[s] = -1
            return 1
        prev = it
        it = enext[it]
    return 0


@njit(inline="always")
def scan_slot_list(s, enext, boxes, q0, q1, q2, q3, out, m):
    """Walk the slot list from ``s``; write the slots whose boxes meet the closed box ``q`` to ``out``.

    Writes only while ``out`` has room but counts past it. Returns
    ``(m, tested)``: the new count and the number of elements walked.
    """
    tested = 0
    cap = out.shape[0]
    while s != -1:
        tested += 1
        if row_overlaps(boxes, s, q0, q1, q2, q3):
            if m < cap:
                out[m] = s
            m += 1
        s = enext[s]
    return m, tested


def grown_slots(arr: np.ndarray, capacity: int) -> np.ndarray:
    """``arr`` (a per-slot int32 array) grown to ``capacity`` entries, new ones -1; ``arr`` itself if large enough."""
    if len(arr) >= capacity:
        return arr
    new = np.full(capacity, -1, dtype=arr.dtype)
    new[: len(arr)] = arr
    return new

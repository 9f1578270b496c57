"""The spatial hash: a grid without a world, its cells hashed into a fixed table.

Lesson 03. Cell ``(cx, cy) = (floor(x / s), floor(y / s))`` exists for every
integer pair, negative and huge included; only occupied cells cost memory. A
hash function maps a cell to one of ``table_size`` buckets. Different cells
may share a bucket (a **bucket collision**): their nodes share one list, so
every node remembers its cell and the pair search only pairs nodes of the same
cell.

Data layout
-----------
============  ==================  ==============================================
array         shape, dtype        meaning
============  ==================  ==============================================
``head``      (table_size,) i32   first node of each bucket, -1 if empty
``nxt``       (c,) int32          next node of the same bucket
``elem``      (c,) int32          the element's slot
``key``       (c,) int64          the node's cell, ``(cx + L) * 2**32 + (cy + L)``
``state``     (2,) int64          the pool's counters, as in the uniform grid
============  ==================  ==============================================

Cell coordinates are clamped to ``[-L, L]`` with ``L = 2**30 - 1``: a monotone
clamp, so nothing is lost (coordinates beyond ``L`` cells share the edge cells).
A box covering more than ``max_box_cells`` cells is not hashed at all: it goes
on the "oversize" list, tested against everything (the hash's answer to the
big-object problem; a world-sized box would otherwise need billions of cells).

The steps are those of the uniform grid (:func:`insert_boxes`,
:func:`remove_box`, :func:`update_boxes`, :func:`query_box`,
:func:`pairs_in_buckets`), with ``hashing = (1 / cell_size, bad)`` in place of
the grid's geometry and ``lists = (head, nxt, elem, key, state)``.

Hash functions
--------------
``"good"``: ``(cx * 73856093) xor (cy * 19349663)`` in 64-bit arithmetic, low
62 bits, modulo ``table_size`` (the constants of Teschner et al. [Teschner2003];
the paper calls them large primes, but 19349663 = 41 x 471943: what scatters cells
is the multiplication and the xor, not primality).
``"bad"``: ``cx + cy``: every cell on an anti-diagonal lands in the same bucket,
so neighbouring cells collide; lesson 03 measures the difference.

References
----------
* A game-development lecture on spatial data structures [gamedev-lecture]: hashing cells with its own large-prime constants (92837111, 689287499), unbounded worlds.
* magley, *Algorithms and data structures in the broad phase* (2026; [magley2026]): grid hashing with hash tables vs tiles.
* M. Teschner, B. Heidelberger, M. Mueller, D. Pomeranets, M. Gross,
  "Optimized Spatial Hashing for Collision Detection of Deformable Objects",
  VMV 2003.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..base import BroadPhase, register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, row_overlaps
from ..core.jit import njit
from ..core.params import check_choice, check_int
from ..geometry import as_box
from .cell_size import DEFAULT_CELL_FACTOR, check_cell_size, default_cell_size, typical_box_size
from .grid_cells import (CELL_LIMIT, MIN_CELL_SIZE, USED, append_id, cell_pairs, grid_world, oversize_pairs, grown,
                         grown_pool, new_lists, pool_full, pool_push, pool_unlink)

__all__ = [
    "SpatialHash", "HASHES", "cell_key", "hash_cell", "CELL_LIMIT", "KEY_SHIFT", "cell_xy",
    "hash_span", "box_span", "span_size", "insert_boxes", "remove_box", "update_boxes", "query_box",
    "pairs_in_buckets",
]

#: Hash function names accepted by ``SpatialHash(hash=...)``.
HASHES = ("good", "bad")
_P1, _P2 = 73856093, 19349663
_MASK = (1 << 62) - 1
#: A node's key is ``(cx + CELL_LIMIT) * KEY_SHIFT + (cy + CELL_LIMIT)``.
KEY_SHIFT = 1 << 32


# --------------------------------------------------------------------------
# Cells, keys and buckets
# --------------------------------------------------------------------------
@njit(inline="always")
def cell_xy(v, inv):
    """Unbounded cell coordinate ``floor(v * inv)``, clamped to ``[-L, L]`` (monotone; inf clamps too)."""
    t = v * inv
    if t >= CELL_LIMIT:
        return CELL_LIMIT
    if t <= -CELL_LIMIT:
        return -CELL_LIMIT
    return int(math.floor(t))


@njit(inline="always")
def hash_span(hashing, x0, y0, x1, y1):
    """``(cx0, cy0, cx1, cy1)``: the cells of the closed box ``[x0, y0, x1, y1]``."""
    inv, bad = hashing
    return cell_xy(x0, inv), cell_xy(y0, inv), cell_xy(x1, inv), cell_xy(y1, inv)


@njit(inline="always")
def box_span(hashing, boxes, s):
    """:func:`hash_span` of the box in row ``s`` of ``boxes``."""
    return hash_span(hashing, boxes[s, XMIN], boxes[s, YMIN], boxes[s, XMAX], boxes[s, YMAX])


@njit(inline="always")
def span_size(cx0, cy0, cx1, cy1):
    """Cells in a span (at most ``(2**31 - 1)**2``: fits in int64)."""
    return (cx1 - cx0 + 1) * (cy1 - cy0 + 1)


@njit(inline="always")
def _key(cx, cy):
    return (cx + CELL_LIMIT) * KEY_SHIFT + (cy + CELL_LIMIT)


@njit(inline="always")
def _bucket(cx, cy, bad, size):
    """Bucket of cell ``(cx, cy)``: identical with and without numba (low bits of 64-bit products)."""
    if bad:
        h = (cx + cy) & _MASK
    else:
        h = ((cx * _P1) ^ (cy * _P2)) & _MASK
    return h % size


def hash_cell(cx: int, cy: int, table_size: int, hash: str = "good") -> int:
    """Bucket of cell ``(cx, cy)`` in a table of ``table_size`` buckets (``hash`` in :data:`HASHES`)."""
    if hash not in HASHES:
        raise ValueError(f"hash must be one of {HASHES}, got {hash!r}")
    return int(_bucket(int(cx), int(cy), hash == "bad", int(table_size)))


def cell_key(cx: int, cy: int) -> int:
    """The int64 key a node stores for cell ``(cx, cy)``."""
    return int(_key(int(cx), int(cy)))


# --------------------------------------------------------------------------
# The steps (lists = (head, nxt, elem, key, state), hashing = (inv, bad))
# --------------------------------------------------------------------------
@njit(inline="always")
def _push_span(head, nxt, elem, key, state, bad, cx0, cy0, cx1, cy1, slot):
    """Push ``slot`` on the bucket of every cell of the span, each node keyed by its cell (the pool has room)."""
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            b = _bucket(cx, cy, bad, head.shape[0])
            pool_push(head, nxt, elem, state, b, slot)
            key[head[b]] = _key(cx, cy)


@njit(inline="always")
def _unlink_span(head, nxt, elem, state, bad, cx0, cy0, cx1, cy1, slot):
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            # a slot is in a bucket once per cell of its own that hashes there; any of them will do
            pool_unlink(head, nxt, elem, state, _bucket(cx, cy, bad, head.shape[0]), slot)


@njit
def insert_boxes(lists, hashing, boxes, slots, max_box_cells):
    """Insert: hash each slot into the buckets of its cells, unless it covers more than ``max_box_cells``.

    Returns the lists (the pool grown first if it lacks room) and the slots
    left out, for the oversize list.
    """
    head, nxt, elem, key, state = lists
    inv, bad = hashing
    need = state[USED]
    for k in range(slots.shape[0]):
        cx0, cy0, cx1, cy1 = box_span(hashing, boxes, slots[k])
        cells = span_size(cx0, cy0, cx1, cy1)
        need += cells if cells <= max_box_cells else 0
    if need > nxt.shape[0]:
        nxt, elem = grown_pool(nxt, elem, need)
        key = grown(key, nxt.shape[0], 0)
    big = np.empty(0, np.int64)
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        cx0, cy0, cx1, cy1 = box_span(hashing, boxes, s)
        if span_size(cx0, cy0, cx1, cy1) > max_box_cells:
            big = np.append(big, s)
        else:
            _push_span(head, nxt, elem, key, state, bad, cx0, cy0, cx1, cy1, s)
    return (head, nxt, elem, key, state), big


@njit
def remove_box(lists, hashing, boxes, slot):
    """Remove: unlink ``slot`` from the buckets of the cells of its box ``boxes[slot]`` (a hashed slot)."""
    head, nxt, elem, key, state = lists
    cx0, cy0, cx1, cy1 = box_span(hashing, boxes, slot)
    _unlink_span(head, nxt, elem, state, hashing[1], cx0, cy0, cx1, cy1, slot)


@njit
def update_boxes(lists, hashing, slots, old, new, max_box_cells):
    """Update: re-hash boxes whose cells changed from ``old[k]`` to ``new[k]``.

    Returns the lists and the slots that joined or left the oversize list
    (a box is oversize when it covers more than ``max_box_cells`` cells).
    """
    head, nxt, elem, key, state = lists
    inv, bad = hashing
    flipped = np.empty(0, np.int64)
    for k in range(slots.shape[0]):
        a0, b0, a1, b1 = box_span(hashing, old, k)
        c0, d0, c1, d1 = box_span(hashing, new, k)
        if a0 == c0 and b0 == d0 and a1 == c1 and b1 == d1:
            continue
        s = slots[k]
        was_big = span_size(a0, b0, a1, b1) > max_box_cells
        big = span_size(c0, d0, c1, d1) > max_box_cells
        if was_big != big:
            flipped = np.append(flipped, s)
        if not was_big:
            _unlink_span(head, nxt, elem, state, bad, a0, b0, a1, b1, s)
        if big:
            continue
        for cy in range(d0, d1 + 1):
            for cx in range(c0, c1 + 1):
                if pool_full(nxt, state):  # no free node left: double the pool
                    nxt, elem = grown_pool(nxt, elem, state[USED] + 1)
                    key = grown(key, nxt.shape[0], 0)
                _push_span(head, nxt, elem, key, state, bad, cx, cy, cx, cy, s)
    return (head, nxt, elem, key, state), flipped


@njit
def query_box(lists, hashing, boxes, q, scan_all):
    """Query: hashed slots meeting the closed box ``q``, each once (reference-cell rule); plus nodes visited.

    ``scan_all``: walk every bucket instead of the query's cells (for queries
    covering more cells than the table has buckets).
    """
    head, nxt, elem, key, state = lists
    inv, bad = hashing
    qx0, qy0, qx1, qy1 = hash_span(hashing, q[XMIN], q[YMIN], q[XMAX], q[YMAX])
    size = head.shape[0]
    width = qx1 - qx0 + 1
    out = np.empty(16, dtype=np.int64)
    k = 0
    nodes = 0
    last = size - 1 if scan_all else span_size(qx0, qy0, qx1, qy1) - 1
    for t in range(last + 1):
        if scan_all:
            node = head[t]
            cx, cy = 0, 0
        else:
            cx, cy = qx0 + t % width, qy0 + t // width
            node = head[_bucket(cx, cy, bad, size)]
        while node != -1:
            s, kk = elem[node], key[node]
            node = nxt[node]
            nodes += 1
            if scan_all:
                cx, cy = kk // KEY_SHIFT - CELL_LIMIT, kk % KEY_SHIFT - CELL_LIMIT
                if cx < qx0 or cx > qx1 or cy < qy0 or cy > qy1:
                    continue
            elif kk != _key(cx, cy):
                continue  # another cell sharing the bucket
            if row_overlaps(boxes, s, q[XMIN], q[YMIN], q[XMAX], q[YMAX]):
                if max(cell_xy(boxes[s, XMIN], inv), qx0) == cx and max(cell_xy(boxes[s, YMIN], inv), qy0) == cy:
                    out, k = append_id(out, k, s)
    return out[:k].copy(), nodes


@njit
def pairs_in_buckets(lists, hashing, boxes, n_slots):
    """All hashed pairs, each once (from its reference cell); plus (box tests, key comparisons).

    Per bucket: gather the nodes, sort them by cell key (insertion sort: buckets
    are short with a good hash), then test pairs within each run of equal keys.
    """
    head, nxt, elem, key, state = lists
    inv, bad = hashing
    cap = 1  # longest bucket: a slot is there once per cell of its own hashing there
    for b in range(head.shape[0]):
        m = 0
        node = head[b]
        while node != -1:
            m += 1
            node = nxt[node]
        cap = max(cap, m)
    slot = np.empty(cap, dtype=np.int64)
    keys = np.empty(cap, dtype=np.int64)
    copy = (np.empty(cap, np.int64), np.empty((cap, 4), np.float64), np.empty(cap, np.int64), np.empty(cap, np.int64))
    out = np.empty((max(16, n_slots), 2), dtype=np.int64)
    k = 0
    tests = 0
    compares = 0
    for b in range(head.shape[0]):
        m = 0
        node = head[b]
        while node != -1:
            kk, s = key[node], elem[node]
            u = m - 1
            while u >= 0 and keys[u] > kk:  # insertion by key
                keys[u + 1] = keys[u]
                slot[u + 1] = slot[u]
                u -= 1
                compares += 1
            compares += 1
            keys[u + 1] = kk
            slot[u + 1] = s
            m += 1
            node = nxt[node]
        start = 0
        while start < m:
            stop = start
            while stop < m and keys[stop] == keys[start]:
                stop += 1
            run = stop - start
            if run > 1:  # one cell: copy its boxes and lower-left cells, then pairs by reference cell
                kk = keys[start]
                cx, cy = kk // KEY_SHIFT - CELL_LIMIT, kk % KEY_SHIFT - CELL_LIMIT
                for i in range(run):
                    s = slot[start + i]
                    copy[0][i] = s
                    for t in range(4):
                        copy[1][i, t] = boxes[s, t]
                    copy[2][i] = cell_xy(boxes[s, XMIN], inv)
                    copy[3][i] = cell_xy(boxes[s, YMIN], inv)
                tests += run * (run - 1) // 2
                out, k = cell_pairs(copy, run, cx, cy, out, k)
            start = stop
    return out[:k].copy(), tests, compares


@njit
def _bucket_nodes(head, nxt, key):
    """(bucket, key) of every node in use, two int64 arrays."""
    n = 0
    for b in range(head.shape[0]):
        node = head[b]
        while node != -1:
            n += 1
            node = nxt[node]
    bs = np.empty(n, dtype=np.int64)
    ks = np.empty(n, dtype=np.int64)
    i = 0
    for b in range(head.shape[0]):
        node = head[b]
        while node != -1:
            bs[i] = b
            ks[i] = key[node]
            i += 1
            node = nxt[node]
    return bs, ks


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("spatial_hash")
class SpatialHash(BroadPhase):
    """A grid over the whole plane, its occupied cells hashed into ``table_size`` buckets.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        Only a hint, for the default cell size and for drawing: the hash has
        no bounds.
    cell_size : float, optional
        Side of a cell, world units (> 0). Default: world's longer side / 64
        (12.5 in the article's world); ``from_boxes``: twice the boxes' typical
        size, as :func:`~lessons_lib.structures.cell_size.suggest_cell_size`.
    table_size : int, optional
        Number of buckets (1 .. 2**28). Default 4096; ``from_boxes``: the
        smallest power of two >= 2 n (at least 64).
    hash : {"good", "bad"}
        Bucket function (see the module notes).
    max_box_cells : int
        Boxes covering more cells than this go on the oversize list.

    Attributes
    ----------
    head, nxt, elem, key, state : numpy.ndarray
        The buckets' node lists (see the module notes).
    last_pair_tests, last_key_compares : int
        Box tests and key comparisons of the last ``pairs()``.
    last_query_nodes : int
        Nodes walked by the last ``query()``.

    Raises
    ------
    ValueError
        Bad world, cell size (also one below about 5.6e-309, whose inverse
        overflows), table size, hash name or ``max_box_cells``.

    Notes
    -----
    Coordinates: any finite float; cell indices clamp at ``+-(2**30 - 1)``
    (slower there, never wrong), so boxes at the float limits and worlds
    wider than the float range work.

    With a good hash, insert/remove O(cells covered), query O(cells in the
    query + their nodes) (or O(all nodes) for queries covering more cells than
    there are buckets), pairs O(table + sum of m^2) over cells. Memory: 4 B per
    bucket + 16 B per (box, cell) node + 8 B per oversize box, whatever the extent of
    the world. Hashing cells with large primes follows the game-development
    lecture [gamedev-lecture] and Teschner et al. (2003).

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import SpatialHash
    >>> far = np.array([[-1e9, -1e9, -1e9 + 2, -1e9 + 2], [-1e9 + 1, -1e9 + 1, -1e9 + 3, -1e9 + 3], [0, 0, 1, 1]])
    >>> h = SpatialHash.from_boxes(far)
    >>> h.pairs().tolist(), h.query([0.5, 0.5, 9, 9]).tolist()
    ([[0, 1]], [2])
    """

    def __init__(self, *, world=None, cell_size=None, table_size=None, hash: str = "good",
                 max_box_cells: int = 1024):
        super().__init__(world=world)
        w = self.world
        self.cell_size = check_cell_size(default_cell_size(w) if cell_size is None else cell_size)
        if table_size is None:
            table_size = 4096
        self.table_size = check_int("table_size", table_size, 1, 2**28)
        self.hash = check_choice("hash", hash, HASHES)
        #: ``(1 / cell_size, bad hash?)``: what the kernels need to find a node's bucket.
        self.hashing = (1.0 / self.cell_size, hash == "bad")
        self.max_box_cells = check_int("max_box_cells", max_box_cells, 1)
        self.head, self.nxt, self.elem, self.state = new_lists(self.table_size)
        self.key = np.zeros(len(self.nxt), np.int64)
        self._big: set[int] = set()
        self.last_pair_tests = self.last_key_compares = self.last_query_nodes = 0

    @classmethod
    def _params_from_boxes(cls, boxes, params):
        """``from_boxes``: the world, the cell size and the table size from the boxes (see the parameters)."""
        if params.get("world") is None:
            params["world"] = grid_world(boxes)
        if params.get("cell_size") is None:
            params["cell_size"] = min(max(DEFAULT_CELL_FACTOR * typical_box_size(boxes), MIN_CELL_SIZE),
                                      sys.float_info.max)
        if params.get("table_size") is None:
            params["table_size"] = max(64, 1 << max(0, 2 * len(boxes) - 1).bit_length())

    @property
    def lists(self):
        """``(head, nxt, elem, key, state)``, as the kernels take and return them."""
        return self.head, self.nxt, self.elem, self.key, self.state

    @lists.setter
    def lists(self, value) -> None:
        self.head, self.nxt, self.elem, self.key, self.state = value

    # -- cells ----------------------------------------------------------
    def cell_range(self, box) -> tuple[int, int, int, int]:
        """``(cx0, cy0, cx1, cy1)``: the cells a box covers (unbounded, clamped to +-(2**30 - 1))."""
        b = as_box(box)
        return tuple(int(v) for v in hash_span(self.hashing, b[XMIN], b[YMIN], b[XMAX], b[YMAX]))

    def bucket_of(self, cx: int, cy: int) -> int:
        """Bucket of cell ``(cx, cy)`` with this table's hash."""
        return hash_cell(cx, cy, self.table_size, self.hash)

    def bucket_loads(self) -> tuple[np.ndarray, np.ndarray]:
        """``(nodes, cells)`` per bucket, both ``(table_size,)`` int64.

        ``nodes``: list length; ``cells``: distinct occupied cells hashed there
        (more than 1 means a bucket collision).
        """
        bs, ks = _bucket_nodes(self.head, self.nxt, self.key)
        nodes = np.bincount(bs, minlength=self.table_size).astype(np.int64)
        if len(bs):
            uniq = np.unique(np.column_stack([bs, ks]), axis=0)
            cells = np.bincount(uniq[:, 0], minlength=self.table_size).astype(np.int64)
        else:
            cells = np.zeros(self.table_size, np.int64)
        return nodes, cells

    def collisions(self) -> int:
        """Occupied cells sharing their bucket with another cell: sum of ``max(0, cells - 1)``."""
        cells = self.bucket_loads()[1]
        return int(np.maximum(cells - 1, 0).sum())

    def _big_slots(self) -> np.ndarray:
        return np.array(sorted(self._big), dtype=np.int64)

    def oversize(self) -> np.ndarray:
        """Ids on the oversize list (boxes covering more than ``max_box_cells`` cells), sorted."""
        return np.sort(self.elements.ids[self._big_slots()])

    # -- hooks: each calls one step ---------------------------------------
    def _insert(self, slot, box):
        self._build(np.array([slot], dtype=np.int64))

    def _build(self, slots):
        self.lists, big = insert_boxes(self.lists, self.hashing, self.elements.boxes, slots, self.max_box_cells)
        self._big.update(big.tolist())

    def _remove(self, slot, box):
        if slot in self._big:
            self._big.discard(slot)
        else:
            remove_box(self.lists, self.hashing, self.elements.boxes, slot)

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        self.lists, flipped = update_boxes(self.lists, self.hashing, slots, old, new, self.max_box_cells)
        self._big.symmetric_difference_update(flipped.tolist())

    def _query(self, box):
        cx0, cy0, cx1, cy1 = self.cell_range(box)
        scan_all = (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > self.table_size
        slots, self.last_query_nodes = query_box(self.lists, self.hashing, self.elements.boxes, box, scan_all)
        big = self._big_slots()
        if len(big):
            b = self.elements.boxes[big]
            hit = (b[:, XMIN] <= box[XMAX]) & (box[XMIN] <= b[:, XMAX]) & (b[:, YMIN] <= box[YMAX]) & (box[YMIN] <= b[:, YMAX])
            slots = np.concatenate([slots, big[hit]])
        return slots

    def _pairs(self):
        p, self.last_pair_tests, self.last_key_compares = pairs_in_buckets(
            self.lists, self.hashing, self.elements.boxes, self.elements.high_water)
        big = self._big_slots()
        if len(big):
            p = np.concatenate([p, oversize_pairs(big, self.elements.live_slots(), self.elements.boxes)])
        return p

    def _clear(self):
        self.head.fill(-1)
        self.state[0], self.state[1] = 0, -1
        self._big.clear()

    def _nbytes(self):
        return (self.head.nbytes + self.nxt.nbytes + self.elem.nbytes + self.key.nbytes + self.state.nbytes
                + 8 * len(self._big))

    def regions(self):
        """The occupied cells (depth 0), one rectangle per distinct cell (clamped to the float range)."""
        _, ks = _bucket_nodes(self.head, self.nxt, self.key)
        ks = np.unique(ks)
        cx = (ks // KEY_SHIFT - CELL_LIMIT).astype(np.float64)
        cy = (ks % KEY_SHIFT - CELL_LIMIT).astype(np.float64)
        s = self.cell_size
        with np.errstate(over="ignore"):
            rects = np.column_stack([cx * s, cy * s, (cx + 1) * s, (cy + 1) * s]).reshape(-1, 4)
        big = sys.float_info.max
        return np.clip(rects, -big, big), np.zeros(len(rects), dtype=np.int64)

    def __repr__(self):
        return (f"SpatialHash(n={len(self)}, cell_size={self.cell_size:g}, table_size={self.table_size}, "
                f"hash={self.hash!r})")

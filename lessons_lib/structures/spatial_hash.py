"""The spatial hash: a grid without a world, its cells hashed into a fixed table.

Lesson 03. Cell ``(cx, cy) = (floor(x / s), floor(y / s))`` exists for every
integer pair, negative and huge included; only occupied cells cost memory. A
hash function maps a cell to one of ``table_size`` buckets. Different cells
may share a bucket (a **bucket collision**): their nodes share one list, so
every node remembers its cell and the pair search only pairs nodes of the same
cell.

Data layout
-----------
==========  ==================  ==============================================
array       shape, dtype        meaning
==========  ==================  ==============================================
``head``    (table_size,) i32   first node of each bucket, -1 if empty
``nxt``     (c,) int32          next node of the same bucket
``elem``    (c,) int32          the element's slot
``key``     (c,) int64          the node's cell, ``(cx + L) * 2**32 + (cy + L)``
==========  ==================  ==============================================

Cell coordinates are clamped to ``[-L, L]`` with ``L = 2**30 - 1``: a monotone
clamp, so nothing is lost (coordinates beyond ``L`` cells share the edge cells).
A box covering more than ``max_box_cells`` cells is not hashed at all: it goes
on a short "oversize" list tested against everything (the hash's answer to the
big-object problem; a world-sized box would otherwise need billions of cells).

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

import numpy as np

from ..base import BroadPhase, register
from ..core.buffers import grow
from ..geometry import as_box, as_boxes
from .grid_cells import CELL_LIMIT, append_id, cell_pairs, grow_pool, new_pool, pool_push, pool_unlink
from ..core.jit import njit
from ..core.params import check_choice, check_int, check_positive
from .uniform_grid import DEFAULT_CELL_FACTOR, typical_box_size

__all__ = ["SpatialHash", "HASHES", "cell_key", "hash_cell"]

#: Hash function names accepted by ``SpatialHash(hash=...)``.
HASHES = ("good", "bad")
_P1, _P2 = 73856093, 19349663
_MASK = (1 << 62) - 1
KEY_SHIFT = 1 << 32


# --------------------------------------------------------------------------
# Cells and their hash
# --------------------------------------------------------------------------
@njit
def _cell(v, inv):
    """Unbounded cell coordinate ``floor(v * inv)``, clamped to ``[-L, L]`` (monotone)."""
    t = v * inv
    if t >= CELL_LIMIT:
        return CELL_LIMIT
    if t <= -CELL_LIMIT:
        return -CELL_LIMIT
    return int(math.floor(t))


@njit
def _key(cx, cy):
    return (cx + CELL_LIMIT) * KEY_SHIFT + (cy + CELL_LIMIT)


@njit
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
# Kernels
# --------------------------------------------------------------------------
@njit
def _span(x0, y0, x1, y1, inv):
    return _cell(x0, inv), _cell(y0, inv), _cell(x1, inv), _cell(y1, inv)


@njit
def _insert_box(head, nxt, elem, key, state, x0, y0, x1, y1, slot, inv, bad):
    cx0, cy0, cx1, cy1 = _span(x0, y0, x1, y1, inv)
    size = head.shape[0]
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            b = _bucket(cx, cy, bad, size)
            pool_push(head, b, nxt, elem, state, slot)
            key[head[b]] = _key(cx, cy)


@njit
def _remove_box(head, nxt, elem, key, state, x0, y0, x1, y1, slot, inv, bad):
    cx0, cy0, cx1, cy1 = _span(x0, y0, x1, y1, inv)
    size = head.shape[0]
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            # a slot is in a bucket once per cell of its own that hashes there; any of them will do
            pool_unlink(head, _bucket(cx, cy, bad, size), nxt, elem, state, slot)


@njit
def _build_kernel(head, nxt, elem, key, state, boxes, slots, inv, bad):
    for k in range(slots.shape[0] - 1, -1, -1):
        s = slots[k]
        _insert_box(head, nxt, elem, key, state, boxes[s, 0], boxes[s, 1], boxes[s, 2], boxes[s, 3], s, inv, bad)


@njit
def _span_counts(boxes, inv):
    out = np.empty(boxes.shape[0], dtype=np.int64)
    for k in range(boxes.shape[0]):
        cx0, cy0, cx1, cy1 = _span(boxes[k, 0], boxes[k, 1], boxes[k, 2], boxes[k, 3], inv)
        w, h = cx1 - cx0 + 1, cy1 - cy0 + 1
        out[k] = w * h if w < 3_000_000_000 and h < 3_000_000_000 else 2**62
    return out


@njit
def _query_kernel(head, nxt, elem, key, boxes, q0, q1, q2, q3, inv, bad, scan_all):
    """Hashed slots meeting the query box, each once (reference-cell rule); plus nodes visited.

    ``scan_all``: walk every bucket instead of the query's cells (for queries
    covering more cells than the table has buckets).
    """
    qx0, qy0, qx1, qy1 = _span(q0, q1, q2, q3, inv)
    size = head.shape[0]
    out = np.empty(16, dtype=np.int64)
    k = 0
    nodes = 0
    if scan_all:
        first, last = 0, size - 1
    else:
        first, last = 0, (qx1 - qx0 + 1) * (qy1 - qy0 + 1) - 1
    for t in range(first, last + 1):
        if scan_all:
            node = head[t]
            cx, cy = 0, 0
        else:
            cx, cy = qx0 + t % (qx1 - qx0 + 1), qy0 + t // (qx1 - qx0 + 1)
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
            if boxes[s, 0] <= q2 and q0 <= boxes[s, 2] and boxes[s, 1] <= q3 and q1 <= boxes[s, 3]:
                if max(_cell(boxes[s, 0], inv), qx0) == cx and max(_cell(boxes[s, 1], inv), qy0) == cy:
                    out, k = append_id(out, k, s)
    return out[:k].copy(), nodes


@njit
def _pairs_kernel(head, nxt, elem, key, boxes, inv, n_slots):
    """Hashed pairs, each once; plus (box tests, key comparisons).

    Per bucket: gather the nodes, sort them by cell key (insertion sort: buckets
    are short with a good hash), then test pairs within each run of equal keys.
    """
    cap = 1  # longest bucket: a slot is there once per cell of its own hashing there
    for b in range(head.shape[0]):
        m = 0
        node = head[b]
        while node != -1:
            m += 1
            node = nxt[node]
        cap = max(cap, m)
    buf = np.empty(cap, dtype=np.int64)
    keys = np.empty(cap, dtype=np.int64)
    bx = np.empty((cap, 4), dtype=np.float64)
    bc = np.empty(cap, dtype=np.int64)
    br = np.empty(cap, dtype=np.int64)
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
                buf[u + 1] = buf[u]
                u -= 1
                compares += 1
            compares += 1
            keys[u + 1] = kk
            buf[u + 1] = s
            m += 1
            node = nxt[node]
        start = 0
        while start < m:
            stop = start
            while stop < m and keys[stop] == keys[start]:
                stop += 1
            run = stop - start
            if run > 1:
                kk = keys[start]
                cx, cy = kk // KEY_SHIFT - CELL_LIMIT, kk % KEY_SHIFT - CELL_LIMIT
                for i in range(run):
                    s = buf[start + i]
                    for t in range(4):
                        bx[i, t] = boxes[s, t]
                    bc[i] = _cell(boxes[s, 0], inv)
                    br[i] = _cell(boxes[s, 1], inv)
                tests += run * (run - 1) // 2
                out, k = cell_pairs(buf[start:stop], bx, bc, br, run, cx, cy, out, k)
            start = stop
    return out[:k].copy(), tests, compares


@njit
def _big_pairs(big, live, boxes):
    """Pairs of each oversize slot with every other live slot (big-big pairs once)."""
    out = np.empty((16, 2), dtype=np.int64)
    k = 0
    is_big = np.zeros(boxes.shape[0], dtype=np.bool_)
    for s in big:
        is_big[s] = True
    for a in big:
        for s in live:
            if s == a or (is_big[s] and s < a):
                continue
            if boxes[s, 0] <= boxes[a, 2] and boxes[a, 0] <= boxes[s, 2] and \
                    boxes[s, 1] <= boxes[a, 3] and boxes[a, 1] <= boxes[s, 3]:
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k, 0] = a
                out[k, 1] = s
                k += 1
    return out[:k].copy()


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
        Only a hint, for drawing: the hash has no bounds.
    cell_size : float, optional
        Side of a cell, world units (> 0). Default: world's longer side / 64
        (12.5 in the article's world); ``from_boxes``: twice the boxes' typical
        size, as :func:`~lessons_lib.structures.uniform_grid.suggest_cell_size`.
    table_size : int, optional
        Number of buckets (> 0). Default 4096; ``from_boxes``: the smallest
        power of two >= 2 n (at least 64).
    hash : {"good", "bad"}
        Bucket function (see the module notes).
    max_box_cells : int
        Boxes covering more cells than this go on the oversize list.

    Attributes
    ----------
    last_pair_tests, last_key_compares : int
        Box tests and key comparisons of the last ``pairs()``.
    last_query_nodes : int
        Nodes walked by the last ``query()``.

    Raises
    ------
    ValueError
        Bad world, cell size, table size, hash name or ``max_box_cells``.

    Notes
    -----
    With a good hash, insert/remove O(cells covered), query O(cells in the
    query + their nodes) (or O(all nodes) for queries covering more cells than
    there are buckets), pairs O(table + sum of m^2) over cells. Memory: 4 B per
    bucket + 16 B per (box, cell) node, whatever the extent of the world.
    """

    def __init__(self, *, world=None, cell_size=None, table_size=None, hash: str = "good",
                 max_box_cells: int = 1024):
        super().__init__(world=world)
        if cell_size is None:
            cell_size = max(self.world[2] - self.world[0], self.world[3] - self.world[1]) / 64
        self.cell_size = check_positive("cell_size", cell_size)
        self._inv = 1.0 / self.cell_size
        if table_size is None:
            table_size = 4096
        self.table_size = check_int("table_size", table_size, 1, 2**28)
        self.hash = check_choice("hash", hash, HASHES)
        self._bad = hash == "bad"
        self.max_box_cells = check_int("max_box_cells", max_box_cells, 1)
        self.head = np.full(self.table_size, -1, dtype=np.int32)
        self.nxt, self.elem, self.state = new_pool(16)
        self.key = np.zeros(16, dtype=np.int64)
        self._big: set[int] = set()
        self.last_pair_tests = self.last_key_compares = self.last_query_nodes = 0

    @classmethod
    def from_boxes(cls, boxes, **params) -> "SpatialHash":
        """Hash ``boxes`` under ids ``0 .. n-1``; default cell size and table size from the boxes."""
        b = as_boxes(boxes)
        if params.get("cell_size") is None:
            params["cell_size"] = DEFAULT_CELL_FACTOR * typical_box_size(b)
        if params.get("table_size") is None:
            params["table_size"] = max(64, 1 << max(0, 2 * len(b) - 1).bit_length())
        return super().from_boxes(b, **params)

    # -- cells ----------------------------------------------------------
    def cell_range(self, box) -> tuple[int, int, int, int]:
        """``(cx0, cy0, cx1, cy1)``: the cells a box covers (unbounded, clamped to +-(2**30 - 1))."""
        b = as_box(box)
        return tuple(int(v) for v in _span(b[0], b[1], b[2], b[3], self._inv))

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

    def oversize(self) -> np.ndarray:
        """Ids on the oversize list (boxes covering more than ``max_box_cells`` cells), sorted."""
        return np.sort(self.elements.ids[np.array(sorted(self._big), dtype=np.int64)])

    # -- hooks ----------------------------------------------------------
    def _reserve(self, extra: int) -> None:
        self.nxt, self.elem = grow_pool(self.nxt, self.elem, self.state, extra)
        if len(self.key) < len(self.nxt):
            self.key = np.concatenate([self.key, np.zeros(len(self.nxt) - len(self.key), np.int64)])

    def _is_big(self, box) -> bool:
        return int(_span_counts(box.reshape(1, 4), self._inv)[0]) > self.max_box_cells

    def _insert(self, slot, box):
        if self._is_big(box):
            self._big.add(int(slot))
            return
        self._reserve(int(_span_counts(box.reshape(1, 4), self._inv)[0]))
        _insert_box(self.head, self.nxt, self.elem, self.key, self.state, box[0], box[1], box[2], box[3],
                    slot, self._inv, self._bad)

    def _remove(self, slot, box):
        if int(slot) in self._big:
            self._big.discard(int(slot))
            return
        _remove_box(self.head, self.nxt, self.elem, self.key, self.state, box[0], box[1], box[2], box[3],
                    slot, self._inv, self._bad)

    def _build(self, slots):
        boxes = self.elements.boxes
        counts = _span_counts(boxes[slots], self._inv)
        big = counts > self.max_box_cells
        self._big.update(slots[big].tolist())
        small = np.ascontiguousarray(slots[~big])
        self._reserve(int(counts[~big].sum()))
        _build_kernel(self.head, self.nxt, self.elem, self.key, self.state, boxes, small, self._inv, self._bad)

    def _update(self, slot, old, new):
        if self.cell_range(old) != self.cell_range(new):
            self._remove(slot, old)
            self._insert(slot, new)

    def _query(self, box):
        cx0, cy0, cx1, cy1 = self.cell_range(box)
        scan_all = (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > self.table_size
        slots, self.last_query_nodes = _query_kernel(self.head, self.nxt, self.elem, self.key,
                                                     self.elements.boxes, box[0], box[1], box[2], box[3],
                                                     self._inv, self._bad, scan_all)
        if self._big:
            big = np.array(sorted(self._big), dtype=np.int64)
            b = self.elements.boxes[big]
            hit = (b[:, 0] <= box[2]) & (box[0] <= b[:, 2]) & (b[:, 1] <= box[3]) & (box[1] <= b[:, 3])
            slots = np.concatenate([slots, big[hit]])
        return slots

    def _pairs(self):
        p, self.last_pair_tests, self.last_key_compares = _pairs_kernel(
            self.head, self.nxt, self.elem, self.key, self.elements.boxes, self._inv, self.elements.high_water)
        if self._big:
            big = np.array(sorted(self._big), dtype=np.int64)
            p = np.concatenate([p, _big_pairs(big, self.elements.live_slots(), self.elements.boxes)])
        return p

    def _clear(self):
        self.head.fill(-1)
        self.state[0], self.state[1] = 0, -1
        self._big.clear()

    def _nbytes(self):
        return (self.head.nbytes + self.nxt.nbytes + self.elem.nbytes + self.key.nbytes + self.state.nbytes
                + 8 * len(self._big))

    def regions(self):
        """The occupied cells (depth 0), one rectangle per distinct cell."""
        _, ks = _bucket_nodes(self.head, self.nxt, self.key)
        ks = np.unique(ks)
        cx = (ks // KEY_SHIFT - CELL_LIMIT).astype(np.float64)
        cy = (ks % KEY_SHIFT - CELL_LIMIT).astype(np.float64)
        s = self.cell_size
        rects = np.column_stack([cx * s, cy * s, (cx + 1) * s, (cy + 1) * s]).reshape(-1, 4)
        return rects, np.zeros(len(rects), dtype=np.int64)

    def __repr__(self):
        return (f"SpatialHash(n={len(self)}, cell_size={self.cell_size:g}, table_size={self.table_size}, "
                f"hash={self.hash!r})")

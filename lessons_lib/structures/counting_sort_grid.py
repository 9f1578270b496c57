"""The counting-sort grid: a uniform grid rebuilt in one pass, its cells packed in one array.

Lessons 02 and 13. The uniform grid of lesson 02 keeps a linked list per cell
and moves a box's nodes only when the box changes cells. In a simulation where
every element moves every frame, there is a cheaper way to get the same cells:
forget the lists, and **re-sort all elements by cell** whenever someone asks a
question after a change. A counting sort does that in two passes over the
elements and one over the cells, and leaves each cell's elements next to each
other in memory, so the pair search reads contiguous arrays instead of
following pointers. The same idea drives particle simulations on graphics
processors [Green2008] and the "cell lists" of molecular dynamics.

Where an element goes
---------------------
Each element is filed under one cell only: the cell of its lower-left corner
``(xmin, ymin)``. That is enough when the element spans at most two columns and
two rows of cells (a box at most one cell wide and tall always does): if two such boxes
``a`` and ``b`` overlap, with ``col(a) <= col(b)``, then
``col(b) = col(b.xmin) <= col(a.xmax) <= col(a) + 1`` (the clamped cell map is
monotone: see :mod:`~lessons_lib.structures.grid_cells`), and the same holds
for rows. So a pair search looks at each cell and four of its neighbours
(right, and the three above), each pair once. Better still, the chain shows
that ``b`` can be filed in the next column only if ``a`` reaches into it
(``col(a.xmax) = col(a) + 1``), and in the next row only if ``a`` reaches
into that: an element inside one column skips the cells to its right, an
element inside one row skips the three above, and an element inside one
cell tests only its own cell. An element spanning more than
two columns or rows is a **giant** and sits on a list of its own; a giant is
searched for partners like a query box, and giants are paired with each other
by a sweep along x.

Data layout, after a rebuild
----------------------------
==============  ======================  ==========================================
array           shape, dtype            meaning
==============  ======================  ==========================================
``start``       (cells + 1,) int32      cell ``c``'s elements are
                                        ``order[start[c]:start[c + 1]]``; cell
                                        ``(row, col)`` is ``row * cols + col``
``order``       (capacity,) int32       slots, sorted by cell
``sorted_boxes``  (capacity, 4) float64  their boxes, in the same order
``cell_key``    (capacity,) int32       each slot's cell (-1 giant, -2 free
                                        slot), by slot
``giants``      (g,) int64              slots of the giants
==============  ======================  ==========================================

Insert, remove and update only write the shared element table and mark the
grid stale: O(1) each. The next ``query()`` or ``pairs()`` rebuilds: O(n +
cells). That is the trade: ideal when a frame moves many elements and then asks
for all pairs, poor for a few moves between many single queries (then the
linked lists of :class:`~lessons_lib.structures.uniform_grid.UniformGrid` win).

Two cores
---------
The pair search splits the rows into bands searched in parallel
(:data:`~lessons_lib.core.jit.prange`); each band writes its own part of the
output, and the parts are joined in band order, so the result is the same
whatever the number of threads (see :mod:`lessons_lib.core.jit` for choosing
it). In a rebuild the keys and the copy of the boxes are shared among the
threads too; the counting sort between them runs on one (its scattered writes
gained nothing from a second core here). Called from a thread other than the
main one (a Dask worker thread, say), everything runs on that one thread.

References
----------
* S. Green, *Particle Simulation using CUDA*, NVIDIA 2008 [Green2008]: sort by
  cell, then each cell's elements are one contiguous range.
* C. Ericson, *Real-Time Collision Detection*, 2005, ch. 7 [Ericson2005]:
  uniform grids, one cell per object when objects are no larger than a cell.
* The quadtree answer set [SO-quadtree]: data layout decides speed; contiguous
  arrays of ints over linked structures.
"""
from __future__ import annotations

import numpy as np

from ..base import register
from ..core.boxes import XMAX, XMIN, YMAX, YMIN, overlaps, row_overlaps
from ..core.buffers import append_pairs, grow, run_pairs
from ..core.interrupts import uninterrupted
from ..core.scratch import RebuildLock
from ..core.jit import njit, njit_parallel_and_serial, prange, threads, use_threads
from ..core.params import check_flag
from ..geometry import boxes_overlap
from .cell_size import DEFAULT_MAX_CELLS, cell_size_for, typical_box_size
from .grid_cells import append_id, box_cells, cell_span
from .uniform_grid import FixedGrid

__all__ = ["CountingSortGrid", "sort_into_cells", "counting_sort", "band_rows", "band_pairs", "pairs_in_bands",
           "giant_pairs", "query_cells"]

#: ``cell_key`` of a giant and of a free slot.
GIANT, FREE_SLOT = -1, -2
#: Row bands per thread in the parallel pair search.
BANDS_PER_THREAD = 4
#: ``from_boxes`` estimates the typical box size from at most this many boxes, evenly spaced.
SIZE_SAMPLE = 4096
#: ``from_boxes``: cells 2 typical box sizes wide, at most 2 per box (measured, see suggested_cell_size).
CELL_FACTOR = 2.0
CELLS_PER_BOX = 2


# --------------------------------------------------------------------------
# Rebuild: the counting sort
# --------------------------------------------------------------------------
def _keys(geom, boxes, alive, n_slots, cell_key, start, n_chunks):
    """Each slot's key into ``cell_key`` (the cell of its lower-left corner, GIANT or FREE_SLOT), ``start`` zeroed.

    ``n_chunks`` runs of slots and of cells, one per thread. Returns the number of giants.
    """
    cols = geom[3]
    giants = np.zeros(n_chunks, dtype=np.int64)
    for t in prange(n_chunks):
        start[start.shape[0] * t // n_chunks:start.shape[0] * (t + 1) // n_chunks] = 0
        for s in range(n_slots * t // n_chunks, n_slots * (t + 1) // n_chunks):
            key = FREE_SLOT
            if alive[s]:
                c0, r0, c1, r1 = box_cells(geom, boxes, s)
                if c1 - c0 > 1 or r1 - r0 > 1:
                    key = GIANT
                    giants[t] += 1
                else:
                    key = r0 * cols + c0
            cell_key[s] = key
    return giants.sum()


_keys_parallel, _keys_serial = njit_parallel_and_serial(_keys)


@njit
def counting_sort(n_slots, cell_key, start, order):
    """The counting sort proper, on a zeroed ``start``: count per cell, running sums, then each slot placed from the back.

    While placing, ``start[c]`` steps down from where cell ``c`` ends to where
    it begins, so within a cell the slots end up in ascending order.
    """
    n_cells = start.shape[0] - 1
    for s in range(n_slots):
        c = cell_key[s]
        if c >= 0:
            start[c] += 1
    total = 0
    for c in range(n_cells):
        total += start[c]
        start[c] = total
    start[n_cells] = total
    for s in range(n_slots - 1, -1, -1):
        c = cell_key[s]
        if c >= 0:
            w = start[c] - 1
            start[c] = w
            order[w] = s


def _gather(boxes, order, m, sorted_boxes):
    for w in prange(m):
        s = order[w]
        for t in range(4):
            sorted_boxes[w, t] = boxes[s, t]


_gather_parallel, _gather_serial = njit_parallel_and_serial(_gather)


@njit
def _giant_slots(cell_key, n_slots, n_giants):
    giants = np.empty(n_giants, dtype=np.int64)
    g = 0
    for s in range(n_slots):
        if cell_key[s] == GIANT:
            giants[g] = s
            g += 1
    return giants


def sort_into_cells(geom, boxes, alive, n_slots, start, order, sorted_boxes, cell_key, parallel: bool = False):
    """Counting sort of the live slots below ``n_slots`` by the cell of their lower-left corner.

    Fills ``start`` (``len = cells + 1``: cell ``c``'s slots are
    ``order[start[c]:start[c + 1]]``), ``order`` and ``sorted_boxes`` (their
    first ``start[-1]`` rows) and ``cell_key`` (each slot's cell; GIANT for
    slots spanning more than two columns or rows, FREE_SLOT for free slots).
    Returns the giants' slots, int64, ascending. Within a cell, slots stay in
    ascending order.

    Three steps: the key of every slot; the counting sort of the keys (count,
    running sums, place from the back); then the copy of the boxes in the new
    order (each row read once, the copy written front to back). With
    ``parallel`` the keys and the copy are shared among the threads (the sort
    itself runs on one: its random writes gain nothing from a second core
    here); the result is the same.
    """
    keys, gather = (_keys_parallel, _gather_parallel) if parallel else (_keys_serial, _gather_serial)
    n_giants = keys(geom, boxes, alive, n_slots, cell_key, start, threads() if parallel else 1)
    counting_sort(n_slots, cell_key, start, order)
    gather(boxes, order, start[len(start) - 1], sorted_boxes)
    return _giant_slots(cell_key, n_slots, n_giants) if n_giants else np.empty(0, dtype=np.int64)


# --------------------------------------------------------------------------
# Pairs among the elements filed in cells
# --------------------------------------------------------------------------
@njit
def band_pairs(geom, start, order, sorted_boxes, r_lo, r_hi, out):
    """Pairs of filed elements whose first element's cell is in rows ``r_lo .. r_hi - 1``.

    Each element is tested against the later elements of its own cell, and
    against the elements of the neighbours it reaches: the cell to its right
    only if the element reaches into the next column, the three cells above
    (above-left, above and, if it reaches right, above-right) only if it
    reaches into the next row. A box filed in the next column has its left
    side in that column, so it cannot meet a box that ends before it (the
    cell map is monotone); the same holds for rows. Every overlapping pair is
    found once. The loop runs over the band's elements, not its cells, so
    empty cells cost nothing here, and each element's cells are computed from
    its (exact) sorted box. Writes the first ``len(out)`` pairs of slots to
    ``out`` and returns ``(pairs found, box tests)``; when the first number
    exceeds ``len(out)``, run again with a larger ``out``.
    """
    ox, oy, inv, cols, rows = geom
    x0, y0, x1, y1 = sorted_boxes[:, XMIN], sorted_boxes[:, YMIN], sorted_boxes[:, XMAX], sorted_boxes[:, YMAX]
    k = 0
    tests = 0
    for i in range(start[r_lo * cols], start[r_hi * cols]):
        c, r, c1, r1 = cell_span(geom, x0[i], y0[i], x1[i], y1[i])
        cell = r * cols + c
        hi = start[cell + 2] if c1 > c else start[cell + 1]  # own cell, then the right one if reached
        k = run_pairs(order[i], x0[i], y0[i], x1[i], y1[i], i + 1, hi, x0, y0, x1, y1, order, out, k)
        tests += hi - i - 1
        if r1 > r:  # reaches the next row: above-left, above, and above-right if it reaches right
            up = cell + cols
            lo = start[up] if c == 0 else start[up - 1]
            hi = start[up + 2] if c1 > c else start[up + 1]
            k = run_pairs(order[i], x0[i], y0[i], x1[i], y1[i], lo, hi, x0, y0, x1, y1, order, out, k)
            tests += hi - lo
    return k, tests


@njit
def band_rows(geom, start, n_bands):
    """Where each band of rows begins: ``(n_bands + 1,)`` int64, band ``b`` is rows ``[bounds[b], bounds[b + 1])``.

    The cuts fall where the filed elements reach ``b / n_bands`` of their
    number (``start`` at the first cell of a row counts the elements below
    it), so the bands hold about equal numbers of elements even when the
    scene is a thin horizontal strip; a band may be empty.
    """
    cols, rows = geom[3], geom[4]
    total = start[rows * cols]
    bounds = np.empty(n_bands + 1, dtype=np.int64)
    bounds[0] = 0
    bounds[n_bands] = rows
    r = 0
    for b in range(1, n_bands):
        target = total * b // n_bands
        while r < rows and start[r * cols] < target:  # rows are scanned once over all the cuts
            r += 1
        bounds[b] = r
    return bounds


def _bands(geom, start, order, sorted_boxes, bounds, cap, out, found, tests):
    for b in prange(bounds.shape[0] - 1):
        found[b], tests[b] = band_pairs(geom, start, order, sorted_boxes, bounds[b], bounds[b + 1],
                                        out[b * cap:(b + 1) * cap])


_bands_parallel, _bands_serial = njit_parallel_and_serial(_bands)


@njit
def _band_offsets(found):
    offsets = np.zeros(found.shape[0] + 1, dtype=np.int64)
    for b in range(found.shape[0]):
        offsets[b + 1] = offsets[b] + found[b]
    return offsets


@njit(inline="always")
def _join_band(geom, start, order, sorted_boxes, bounds, cap, out, found, offsets, joined, b):
    """Band ``b``'s pairs into ``joined`` at its offset: copied if they fitted its room, else searched again there."""
    m = found[b]
    k = offsets[b]
    if m <= cap:
        for t in range(m):
            joined[k + t, 0] = out[b * cap + t, 0]
            joined[k + t, 1] = out[b * cap + t, 1]
    else:  # the band found more pairs than its room: search it again, straight into place
        band_pairs(geom, start, order, sorted_boxes, bounds[b], bounds[b + 1], joined[k:k + m])


def _join(geom, start, order, sorted_boxes, bounds, cap, out, found):
    offsets = _band_offsets(found)
    n_bands = bounds.shape[0] - 1
    joined = np.empty((offsets[n_bands], 2), dtype=out.dtype)
    for b in prange(n_bands):
        _join_band(geom, start, order, sorted_boxes, bounds, cap, out, found, offsets, joined, b)
    return joined


_join_parallel, _join_serial = njit_parallel_and_serial(_join)


def pairs_in_bands(geom, start, order, sorted_boxes, n_bands: int, cap: int, parallel: bool = True):
    """All pairs among the filed elements: ``(pairs, tests)``, ``pairs`` a ``(k, 2)`` int32 array of slots.

    The rows are cut into ``n_bands`` bands holding about equal numbers of
    elements (:func:`band_rows`), searched in parallel when ``parallel`` (else
    one after the other) into ``cap`` rows of output each; then each band's
    pairs move to their place in the answer (a band that ran out of room is
    searched again, straight into its place). Bands are joined in order, so
    the result does not depend on the threads.
    """
    bounds = band_rows(geom, start, n_bands)
    out = np.empty((n_bands * cap, 2), dtype=np.int32)
    found = np.zeros(n_bands, dtype=np.int64)
    tests = np.zeros(n_bands, dtype=np.int64)
    search, join = (_bands_parallel, _join_parallel) if parallel else (_bands_serial, _join_serial)
    search(geom, start, order, sorted_boxes, bounds, cap, out, found, tests)
    if n_bands == 1 and found[0] <= cap:  # one band that fitted: its part is the answer
        return out[:found[0]], int(tests[0])
    return join(geom, start, order, sorted_boxes, bounds, cap, out, found), int(tests.sum())


# --------------------------------------------------------------------------
# Giants, and queries
# --------------------------------------------------------------------------
@njit
def query_cells(geom, start, order, sorted_boxes, q0, q1, q2, q3, out, k):
    """Filed elements meeting the closed box ``(q0, q1, q2, q3)``, appended to ``out`` from ``k``.

    A filed element meeting the box has its lower-left cell in columns
    ``qc0 - 1 .. qc1`` and rows ``qr0 - 1 .. qr1`` of the box's cell range;
    each row of that window is one contiguous range of ``order``. Returns
    ``(out, k, cells visited, box tests)``; ``out`` is int64 and grows as needed.
    """
    ox, oy, inv, cols, rows = geom
    qc0, qr0, qc1, qr1 = cell_span(geom, q0, q1, q2, q3)
    c_lo, r_lo = max(qc0 - 1, 0), max(qr0 - 1, 0)
    tests = 0
    for r in range(r_lo, qr1 + 1):
        lo, hi = start[r * cols + c_lo], start[r * cols + qc1 + 1]
        tests += hi - lo
        for j in range(lo, hi):
            if row_overlaps(sorted_boxes, j, q0, q1, q2, q3):
                out, k = append_id(out, k, order[j])
    return out, k, (qr1 - r_lo + 1) * (qc1 - c_lo + 1), tests


@njit
def giant_pairs(geom, boxes, giants, start, order, sorted_boxes):
    """Pairs with at least one giant: each giant against the filed elements, then giants by a sweep on x.

    Returns ``(pairs, tests)``; ``pairs`` is ``(k, 2)`` int64 slots.
    """
    out = np.empty((16, 2), dtype=np.int64)
    hits = np.empty(16, dtype=np.int64)
    k = 0
    tests = 0
    for t in range(giants.shape[0]):
        g = giants[t]
        hits, m, _, scanned = query_cells(geom, start, order, sorted_boxes, boxes[g, XMIN], boxes[g, YMIN],
                                          boxes[g, XMAX], boxes[g, YMAX], hits, 0)
        tests += scanned
        out, k = append_pairs(out, k, g, hits, m)
    by_x = giants[np.argsort(boxes[giants, XMIN], kind="mergesort")] if giants.shape[0] > 1 else giants
    for a in range(by_x.shape[0]):  # sweep: b's xmin is past a's xmax -> no later b meets a
        ga = by_x[a]
        for b in range(a + 1, by_x.shape[0]):
            gb = by_x[b]
            if boxes[gb, XMIN] > boxes[ga, XMAX]:
                break
            tests += 1
            if overlaps(boxes[ga, XMIN], boxes[ga, YMIN], boxes[ga, XMAX], boxes[ga, YMAX],
                        boxes[gb, XMIN], boxes[gb, YMIN], boxes[gb, XMAX], boxes[gb, YMAX]):
                if k == out.shape[0]:
                    out = grow(out, k)
                out[k, 0] = ga
                out[k, 1] = gb
                k += 1
    return out[:k].copy(), tests


# --------------------------------------------------------------------------
# The structure
# --------------------------------------------------------------------------
@register("counting_sort_grid")
class CountingSortGrid(FixedGrid):
    """A uniform grid rebuilt by a counting sort when asked after a change; cells are ranges of one array.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grid covers (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box).
        Boxes outside it land in the border cells: still found, only slower.
    cell_size : float, optional
        Side of a cell in world units (> 0). Default: the world's longer side
        / 64; ``from_boxes`` uses :meth:`suggested_cell_size` (2 typical
        box sizes, at most 2 cells per box). Boxes covering more than two columns or two rows (a box
        wider or taller than a cell may) are giants (kept apart, searched like
        queries; giant against giant by a sweep along x).
    max_cells : int
        Refuse (``ValueError``) grids with more cells than this.
    parallel : bool
        Search pairs on every thread numba has (default True); the answer is
        the same either way (see :mod:`lessons_lib.core.jit` for the thread
        count).

    Attributes
    ----------
    rows, cols, geom
        As :class:`~lessons_lib.structures.uniform_grid.UniformGrid`.
    start, order, sorted_boxes, giants : numpy.ndarray
        The packed cells after the last rebuild (see the module notes).
    rebuilds : int
        Counting sorts done so far (one per query/pairs after a change).
    last_pair_tests : int
        Box-box tests made by the last ``pairs()`` call.
    last_query_cells : int
        Cells whose ranges the last ``query()`` read.

    Raises
    ------
    ValueError
        A bad world, cell size or ``max_cells``, a grid above ``max_cells``,
        ``parallel`` not True or False.

    Notes
    -----
    Closed boxes (touching counts); any finite coordinates, as the uniform
    grid. Insert, remove and update: O(1) (they mark the grid stale). The
    first query or ``pairs()`` after a change rebuilds in O(n + cells); a
    query then costs O(cells in the box grown by one cell + elements there);
    ``pairs()`` O(n x neighbours) plus O(giants x their cells) and a
    sweep over the giants. Memory: 4 bytes per cell, 40 bytes per slot and 8 per giant,
    besides the shared element table. Sources: [Green2008], [Ericson2005],
    [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import CountingSortGrid
    >>> g = CountingSortGrid.from_boxes(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]]))
    >>> g.pairs().tolist()
    [[0, 1]]
    >>> g.update(2, [2, 2, 4, 4])
    >>> g.pairs().tolist(), g.query([3.5, 3.5, 4, 4]).tolist(), g.rebuilds
    ([[0, 1], [0, 2], [1, 2]], [2], 2)
    """

    update_reads_old = False  # an update only marks the grid stale

    def __init__(self, *, world=None, cell_size=None, max_cells: int = DEFAULT_MAX_CELLS, parallel: bool = True):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.parallel = check_flag("parallel", parallel)
        self.start = np.zeros(self.rows * self.cols + 1, dtype=np.int32)
        self.order = np.zeros(0, dtype=np.int32)
        self.sorted_boxes = np.zeros((0, 4), dtype=np.float64)
        self.cell_key = np.zeros(0, dtype=np.int32)
        self.giants = np.zeros(0, dtype=np.int64)
        self.rebuilds = 0
        self._stale = False
        self._last_pairs = 0
        self._rebuild_lock = RebuildLock()  # the lazy rebuild runs once, whatever the threads reading

    @classmethod
    def suggested_cell_size(cls, boxes: np.ndarray, params: dict) -> float:
        """2 typical box sizes, as the uniform grid, but at most 2 cells per box; the typical size from a sample.

        Cells are enlarged if needed to at most :data:`CELLS_PER_BOX` per
        box (the uniform grid allows 4). The pair search skips empty cells for
        free and tests a box against a neighbouring cell only if the box
        reaches into it, so larger cells cost few extra tests here, while every
        cell costs 4 bytes of fresh memory at each build. On the course's
        sparse scenes of 100,000 boxes (uniform, clustered, thin strips; build
        + pairs) cells of 2 typical sizes, at most 2 per box, were within a few
        percent of the fastest size on each scene, and 1.5 sizes with up to 4
        cells per box up to 6 % slower. The typical size is the median of
        ``max(width, height)`` over at most :data:`SIZE_SAMPLE` boxes spread
        evenly through ``boxes`` (a full median of 100,000 boxes costs about a
        third of this grid's whole build).
        """
        sample = boxes[::max(1, len(boxes) // SIZE_SAMPLE)]
        return cell_size_for(len(boxes), params["world"], typical_box_size(sample, params["world"]), factor=CELL_FACTOR,
                             max_cells=params.get("max_cells", DEFAULT_MAX_CELLS), cells_per_box=CELLS_PER_BOX)

    # -- the rebuild --------------------------------------------------------
    @uninterrupted
    def rebuild(self) -> None:
        """Sort every stored element into its cell now (done by itself before a query or pairs after a change).

        Runs under the instance's rebuild lock: reads from several threads that
        find the grid stale at once rebuild it once (:meth:`_fresh`).
        """
        with self._rebuild_lock:
            table = self.elements
            cap = table.capacity
            if len(self.order) != cap:  # the table grew (or was made): match it, once
                self.order = np.zeros(cap, dtype=np.int32)
                self.sorted_boxes = np.zeros((cap, 4), dtype=np.float64)
                self.cell_key = np.zeros(cap, dtype=np.int32)
            parallel = self._use_threads()
            self.giants = sort_into_cells(self.geom, table.boxes, table.alive, table.high_water, self.start,
                                          self.order, self.sorted_boxes, self.cell_key, parallel=parallel)
            self.rebuilds += 1
            self._stale = False

    def _use_threads(self) -> bool:
        """Run the parallel kernels: asked for, and :func:`~lessons_lib.core.jit.use_threads`."""
        return self.parallel and use_threads()

    def _fresh(self) -> None:
        """Rebuild if stale, once: a thread that finds the grid stale takes the lock and looks again (another
        thread may have rebuilt it meanwhile); the flag is cleared only when the rebuild is complete."""
        if self._stale:
            with self._rebuild_lock:
                if self._stale:
                    self.rebuild()

    # -- hooks ------------------------------------------------------------------
    def _insert(self, slot, box):
        self._stale = True

    def _build(self, slots):
        self._stale = True

    def _remove(self, slot, box):
        self._stale = True

    def _update(self, slot, old, new):
        self._stale = True

    def _update_many(self, slots, old, new):
        self._stale = True

    def _clear(self):
        self._stale = True

    def _query(self, box):
        self._fresh()
        out, k, self.last_query_cells, _ = query_cells(self.geom, self.start, self.order, self.sorted_boxes, box[XMIN],
                                                       box[YMIN], box[XMAX], box[YMAX], np.empty(16, np.int64), 0)
        if not len(self.giants):
            return out[:k]
        return np.concatenate([out[:k], self.giants[boxes_overlap(self.elements.boxes[self.giants], box)]])

    def _pairs(self):
        self._fresh()
        parallel = self._use_threads()
        n_bands = min(self.rows, BANDS_PER_THREAD * threads()) if parallel else 1
        # Room for twice the last count, or four pairs per element: np.empty reserves it without
        # touching it, so unused room costs no time (a band that runs out is searched again).
        cap = max(2 * self._last_pairs, 4 * len(self.elements)) // n_bands + 1024
        filed, tests = pairs_in_bands(self.geom, self.start, self.order, self.sorted_boxes, n_bands,
                                      cap, parallel)
        self._last_pairs = len(filed)
        if len(self.giants):
            extra, more = giant_pairs(self.geom, self.elements.boxes, self.giants, self.start, self.order,
                                      self.sorted_boxes)
            filed = np.concatenate([filed.astype(np.int64), extra])
            tests += more
        self.last_pair_tests = tests
        return filed

    def _nbytes(self):
        return (self.start.nbytes + self.order.nbytes + self.sorted_boxes.nbytes
                + self.cell_key.nbytes
                + self.giants.nbytes)

    def occupancy(self) -> np.ndarray:
        """Elements filed in each cell (giants not counted): ``(rows, cols)`` int64."""
        self._fresh()
        return np.diff(self.start).astype(np.int64).reshape(self.rows, self.cols)

    def regions(self):
        """The occupied cells (depth 0), after a rebuild if needed."""
        self._fresh()
        cells = np.flatnonzero(np.diff(self.start) > 0)
        rects = self._cell_rects(cells // self.cols, cells % self.cols)
        return rects, np.zeros(len(rects), dtype=np.int64)

    def __repr__(self):
        return (f"CountingSortGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"grid={self.rows}x{self.cols}, giants={len(self.giants)})")


"""The loose/tight double grid behind the common interface: :class:`LooseTightGrid`.

Lesson 07. Loose cells hold elements by centre, each with an AABB that
grows to cover them; a coarser tight grid lists, in each tight cell, the
loose cells whose rectangles overlap it. The kernels of the steps (insert,
remove, move, query, cleanup) and the data layout are in
:mod:`~lessons_lib.structures.loose_tight_cells` (sections 1 to 3 of the
lesson, with why every answer is exact and the oversize list's budget); the
pair search is in :mod:`~lessons_lib.structures.loose_tight_pairs` (section 5).

References
----------
The quadtree answer set on Stack Overflow [SO-quadtree],
section "Loose/tight double grid with 500k agents".
"""
from __future__ import annotations

import math

import numpy as np

from ..base import register
from ..core.params import check_int
from ..core.scratch import RebuildLock
from .cell_size import DEFAULT_MAX_CELLS, cell_size_for, typical_box_size
from ..core.boxes import MAX_CORNER, MIN_CORNER, XMAX, XMIN, YMAX, YMIN
from .grid_cells import FREE, USED, cell_counts, cell_of_centre, new_lists
from .loose_bounds import EMPTY_RECT, f32_down, f32_up
from .loose_tight_cells import (TC0, TC1, TR0, TR1, build_cells, insert_slots, move_slots, over_budget, query_core,
                                remove_slots, settle_cells, tight_range)
from .loose_tight_pairs import is_near, lay_out_cells, lay_out_list, pairs_core, sort_by_partner
from .slot_lists import grown_slots, scan_slot_list, unlink_slot
from .uniform_grid import DEFAULT_MAX_BOX_CELLS, FixedGrid

__all__ = ["LooseTightGrid", "DEFAULT_TIGHT_FACTOR", "LOOSE_CELL_FACTOR"]

#: Loose cells per tight cell along each axis, by default.
DEFAULT_TIGHT_FACTOR = 2
#: ``from_boxes`` makes loose cells this many times the typical box size (see :meth:`LooseTightGrid.from_boxes`).
LOOSE_CELL_FACTOR = 4.0


# ==========================================================================
# The class
# ==========================================================================
@register("loose_tight_grid")
class LooseTightGrid(FixedGrid):
    """The loose/tight double grid: constant-time insert and remove, queries through a coarse grid.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the grids cover (default the article's
        800 x 600; ``from_boxes`` uses the boxes' bounding box). Elements
        outside it go to the border cells: still found, only slower.
    cell_size : float, optional
        Side of a loose cell, world units (> 0). Default: the world's longer
        side / 64; ``from_boxes`` uses
        :func:`~lessons_lib.structures.cell_size.suggest_cell_size` of the boxes with
        ``factor=LOOSE_CELL_FACTOR`` (four times their typical size).
    tight_factor : int
        Loose cells per tight cell along each axis (1 .. 64). Default 2.
    max_cells : int
        Refuse (``ValueError``) loose grids with more cells than this.
    max_box_cells : int
        The budget of tight cells per box (>= 1, default 65,536, as the other
        grids): a box whose loose cell would have to reach more tight cells
        (:func:`~lessons_lib.structures.loose_tight_cells.square_cells`) is kept on the *oversize list* instead
        (:meth:`oversize`), so no loose cell is listed in more than
        ``max_box_cells`` tight cells, whatever the cell size.

    Attributes
    ----------
    rows, cols : int
        The loose grid's shape; ``trows, tcols`` the tight grid's.
    last_query_cells, last_query_tests : int
        Loose cells visited and elements tested by the last ``query()``.
    last_pair_tests : int
        Box-box tests made by the last ``pairs()``.
    last_changed_cells : int
        Elements that changed loose cell in the last ``update_many``.

    Raises
    ------
    ValueError
        A bad world, cell size (also below about 5.6e-309), ``tight_factor``,
        ``max_cells`` or ``max_box_cells``.

    Notes
    -----
    Coordinates: any finite float; far elements clamp into the border cells,
    and loose rectangles are float32 rounded outwards, so beyond the float32
    range (3.4e38) they reach to infinity (still exact answers, slower).

    Insert O(1) (plus a re-registration when a rectangle reaches a new tight
    cell); remove O(elements of the loose cell); query O(tight cells covered
    + loose cells listed there + their elements + oversize boxes); pairs
    O(loose cells + tests), plus an O(n) layout when the elements changed
    since the last one; each oversize box is paired like a giant, O(loose
    cells it reaches + their near elements). Memory: 60 bytes per loose cell,
    4 per tight cell, 8 per tight list node (at most ``max_box_cells`` nodes
    per loose cell), 40 per element slot (4 of index, 36 of pairs layout),
    plus the shared element table (41 bytes per slot). The double grid is
    the one of the quadtree answer set [SO-quadtree].

    Examples
    --------
    >>> import numpy as np
    >>> from lessons_lib import LooseTightGrid
    >>> g = LooseTightGrid(world=[0, 0, 80, 60], cell_size=10, tight_factor=2)
    >>> g.insert(0, [12, 12, 16, 15]); g.insert(1, [45, 20, 75, 28]); g.insert(2, [15, 14, 19, 18])
    >>> g.pairs().tolist(), g.query([60, 25, 61, 26]).tolist()
    ([[0, 2]], [1])
    >>> g.listed_in(3, 1)  # element 1's loose cell (22) reaches into the tight cell (3, 1)
    [22]
    """

    def __init__(self, *, world=None, cell_size=None, tight_factor: int = DEFAULT_TIGHT_FACTOR,
                 max_cells: int = DEFAULT_MAX_CELLS, max_box_cells: int = DEFAULT_MAX_BOX_CELLS):
        super().__init__(world=world, cell_size=cell_size, max_cells=max_cells)
        self.tight_factor = check_int("tight_factor", tight_factor, 1, 64)
        self.max_box_cells = check_int("max_box_cells", max_box_cells, 1)
        self.tcols = math.ceil(self.cols / self.tight_factor)
        self.trows = math.ceil(self.rows / self.tight_factor)
        ox, oy, inv = self.geom[:3]
        #: The tight grid's ``(ox, oy, inv, tcols, trows)``: same origin, cells ``tight_factor`` times wider.
        self.tgeom = (ox, oy, inv / self.tight_factor, self.tcols, self.trows)
        L = self.rows * self.cols
        self.lhead = np.full(L, -1, dtype=np.int32)
        self.lcount = np.zeros(L, dtype=np.int32)
        self.lrect = np.tile(EMPTY_RECT, (L, 1))
        self.lreg = np.full((L, 4), -1, dtype=np.int32)
        self.enext = np.full(16, -1, dtype=np.int32)
        self.thead, self.tnxt, self.tcell, self.tstate = new_lists(self.trows * self.tcols, max(16, L // 2))
        #: The oversize list ``[first slot (-1: empty), length]``, linked through ``enext`` like a loose cell.
        self.olist = np.array([-1, 0], dtype=np.int32)
        #: Can any box exceed the budget? Not when the whole tight grid is within it (then nothing is checked).
        self._budgeted = self.trows * self.tcols > self.max_box_cells
        self._query_hint = 64  # room a query's output starts with (made per call: threads never share it)
        self._layout_lock = RebuildLock()  # the lazy layout of pairs() runs once, whatever the threads reading
        # The layout pairs() reads (see lay_out): near elements in cell order, then the giants.
        self.start = np.zeros(L + 1, dtype=np.int32)
        self.srect = np.tile(EMPTY_RECT, (L, 1))
        self.px0, self.py0, self.px1, self.py1 = (np.empty(0, dtype=np.float64) for _ in range(4))
        self.ps = np.empty(0, dtype=np.int32)
        self.g0 = 0
        self._sweep_y = False  # the giants are sorted by y0 (else x0) for their sweep
        self._laid_out = False
        self._pair_hint = 1024
        self.last_query_tests = 0
        self.last_pair_tests = 0
        self.last_changed_cells = 0

    @classmethod
    def suggested_cell_size(cls, boxes, params) -> float:
        """Loose cells four times the typical box size (:data:`LOOSE_CELL_FACTOR`).

        Why larger cells than a uniform grid's (2x): an element sits in one
        loose cell whatever its size, so large cells cost no duplicates, and
        the more elements stay within half a cell of their own (near
        elements, see :func:`pairs_core`), the fewer giants. Measured at
        n = 100,000 with the present pair search: on ``mixed_sizes`` its
        kernel takes about the same time for cells 3 to 5 times the typical
        size; on ``random`` 3 times is about 15 % faster than 4 (not needed
        for the lesson's goals; 4 keeps the loose grid small).
        """
        w = params["world"]
        return cell_size_for(len(boxes), w, typical_box_size(boxes, w), factor=LOOSE_CELL_FACTOR,
                             max_cells=params.get("max_cells", DEFAULT_MAX_CELLS))

    @property
    def tight_cell_size(self) -> float:
        """Side of a tight cell, world units."""
        return self.cell_size * self.tight_factor

    @property
    def loose(self):
        """``(lhead, lcount, lrect, lreg, enext)``, as the kernels take them."""
        return self.lhead, self.lcount, self.lrect, self.lreg, self.enext

    @property
    def tight(self):
        """``(thead, tnxt, tcell, tstate)``, as the kernels take them."""
        return self.thead, self.tnxt, self.tcell, self.tstate

    @property
    def layout(self):
        """``(start, px0, py0, px1, py1, ps, srect)``: the pairs layout, as the kernels take it."""
        return self.start, self.px0, self.py0, self.px1, self.py1, self.ps, self.srect

    # -- the oversize list (see max_box_cells) ------------------------------
    def _oversize_flags(self, boxes, rows):
        """Which boxes ``boxes[rows]`` are over the budget: ``(k,)`` bool, or ``None`` when none is."""
        if not self._budgeted:
            return None
        flags = np.zeros(len(rows), dtype=np.bool_)
        n = over_budget(self.geom, self.tgeom, self.tight_factor, self.max_box_cells, boxes,
                        np.asarray(rows, dtype=np.int64), flags)
        return flags if n else None

    def _push_oversize(self, slots):
        """Put ``slots`` on the oversize list, the last one first (the list then runs in their order)."""
        for s in np.asarray(slots).tolist()[::-1]:
            self.enext[s] = self.olist[0]
            self.olist[0] = s
            self.olist[1] += 1

    def _unlink_oversize(self, slots):
        for s in np.asarray(slots).tolist():
            if unlink_slot(self.olist, 0, self.enext, s) != 1:  # pragma: no cover
                raise RuntimeError(f"slot {s} was not found on the oversize list")
            self.olist[1] -= 1

    def oversize(self) -> np.ndarray:
        """Ids on the oversize list (boxes over the ``max_box_cells`` budget), sorted: ``(k,)`` int64."""
        out, s = [], int(self.olist[0])
        while s != -1:
            out.append(s)
            s = int(self.enext[s])
        return np.sort(self.elements.ids[np.array(out, dtype=np.int64)])

    # -- hooks: each calls one step ---------------------------------------
    def _insert(self, slot, box):
        self.enext = grown_slots(self.enext, self.elements.capacity)
        self._laid_out = False
        one = np.array([slot], dtype=np.int64)
        if self._oversize_flags(self.elements.boxes, one) is not None:
            self._push_oversize(one)
            return
        self.tnxt, self.tcell = insert_slots(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes, one)

    def _build(self, slots):
        """Bulk load: the lists in one pass, then a cleanup (exact rectangles, registrations, layout)."""
        if len(slots) == 0:
            return
        self.enext = grown_slots(self.enext, self.elements.capacity)
        big = self._oversize_flags(self.elements.boxes, slots)
        if big is not None:
            self._push_oversize(slots[big])
            slots = slots[~big]
        build_cells(self.loose, self.geom, self.elements.boxes, slots)
        self._cleanup()

    def _remove(self, slot, box):
        self._laid_out = False
        if self._oversize_flags(box.reshape(1, 4), np.zeros(1, dtype=np.int64)) is not None:
            self._unlink_oversize([slot])
            return
        if remove_slots(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes,
                        np.array([slot], dtype=np.int64), box.reshape(1, 4)) != 1:  # pragma: no cover
            raise RuntimeError(f"slot {slot} was not found in its loose cell")

    def _update(self, slot, old, new):
        self._update_many(np.array([slot], dtype=np.int64), old.reshape(1, 4), new.reshape(1, 4))

    def _update_many(self, slots, old, new):
        """Bulk move: one kernel over all slots; only elements that change loose cell are relinked.

        Elements whose box crosses the budget move between the cells and the
        oversize list: those going on the list first leave their loose cells
        (with their old boxes back in the table meanwhile, so that the refit of
        their cell never sees the new, oversize box), those leaving it are
        inserted in their cells last.
        """
        self._laid_out = False
        rows = np.arange(len(slots), dtype=np.int64) if self._budgeted else None
        now = None if rows is None else self._oversize_flags(new, rows)
        if now is None and self.olist[1] == 0:  # every box stays in cells: the per-frame path
            self.tnxt, self.tcell, self.last_changed_cells = move_slots(
                self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes, slots, old)
            return
        was = self._oversize_flags(old, rows)
        now = np.zeros(len(slots), dtype=np.bool_) if now is None else now
        was = np.zeros(len(slots), dtype=np.bool_) if was is None else was
        into, out, stay = ~was & now, was & ~now, ~was & ~now
        boxes = self.elements.boxes
        kept = boxes[slots[into]].copy()
        boxes[slots[into]] = old[into]
        try:
            self.last_changed_cells = 0
            if stay.any():
                self.tnxt, self.tcell, self.last_changed_cells = move_slots(
                    self.loose, self.tight, self.geom, self.tgeom, boxes, slots[stay], old[stay])
            if into.any():
                remove_slots(self.loose, self.tight, self.geom, self.tgeom, boxes, slots[into], old[into])
        finally:
            boxes[slots[into]] = kept
        self._push_oversize(slots[into])
        if out.any():
            self._unlink_oversize(slots[out])
            self.tnxt, self.tcell = insert_slots(self.loose, self.tight, self.geom, self.tgeom, boxes, slots[out])

    def _query(self, box):
        out = np.empty(self._query_hint, dtype=np.int64)  # per call: queries in several threads never share it
        while True:
            m, self.last_query_cells, self.last_query_tests = query_core(
                self.loose, self.tight, self.tgeom, self.elements.boxes, box, out)
            if self.olist[0] != -1:  # the oversize list, box by box
                m, tested = scan_slot_list(self.olist[0], self.enext, self.elements.boxes, box[XMIN], box[YMIN],
                                           box[XMAX], box[YMAX], out, m)
                self.last_query_tests += tested
            if m <= len(out):
                return out[:m].copy()
            self._query_hint = 2 * m
            out = np.empty(2 * m, dtype=np.int64)

    def lay_out(self) -> None:
        """Copy the near elements in cell order and the giants sorted for their sweep: the layout ``pairs`` reads.

        Kept between calls (counted in :meth:`memory_bytes`) and redone by
        the bulk load, ``cleanup`` and the first ``pairs`` after any change.
        """
        self._fit_layout()
        g = lay_out_cells(self.lhead, self.enext, self.elements.boxes, self.geom, self.cell_size, self.layout)
        self._sort_giants(int(lay_out_list(self.olist[0], self.enext, self.elements.boxes, self.layout, g)))

    def _fit_layout(self):
        """Size the layout arrays to the element table's capacity."""
        n = len(self.enext)
        if len(self.px0) != n:
            self.px0, self.py0, self.px1, self.py1 = (np.empty(n, dtype=np.float64) for _ in range(4))
            self.ps = np.empty(n, dtype=np.int32)

    def _sort_giants(self, g):
        """The last ``g`` layout rows are the giants: sort them along the axis where they spread most."""
        n = len(self.px0)
        self.g0 = n - g
        self._sweep_y = False
        if g > 1:  # the giants' sweep wants them sorted along the axis where they are most spread out
            gx0, gy0 = self.px0[n - g:], self.py0[n - g:]
            spread_x = np.ptp(gx0) / max(float(np.mean(0.5 * self.px1[n - g:] - 0.5 * gx0)), 1e-300)
            spread_y = np.ptp(gy0) / max(float(np.mean(0.5 * self.py1[n - g:] - 0.5 * gy0)), 1e-300)
            self._sweep_y = bool(spread_y > spread_x)
            order = np.argsort(gy0 if self._sweep_y else gx0, kind="stable") + (n - g)
            for a in (self.px0, self.py0, self.px1, self.py1, self.ps):
                a[n - g:] = a[order]
        self._laid_out = True

    def _pairs(self):
        """Pairs from the cell-ordered layout of :meth:`lay_out` (redone first if the elements changed).

        Returns int32 slot pairs (half the bytes of int64 to write;
        :func:`~lessons_lib.core.pair_order.canonical_pairs` takes them as they
        are), the giants' rows sorted by partner (:func:`sort_by_partner`).
        Scratch arrays are made per call (not in ``memory_bytes``).
        """
        if not self._laid_out:  # once, under a lock: several threads may find it stale at once
            with self._layout_lock:
                if not self._laid_out:
                    self.lay_out()
        big = max(1, int(self.lcount.max()))
        scratch = (np.empty(big, dtype=np.int64), np.empty(3 * big, dtype=np.int64))
        sweep = ((self.py0, self.py1, self.px0, self.px1) if self._sweep_y
                 else (self.px0, self.px1, self.py0, self.py1))
        marks = np.zeros(2, dtype=np.int64)
        out = np.empty((self._pair_hint, 2), dtype=np.int32)
        m, tests = pairs_core(self.layout, self.g0, self.geom, sweep, scratch, out, marks)
        if m >= len(out):  # full (rows trusted only below its size): run again with room
            out = np.empty((m + 1, 2), dtype=np.int32)
            m, tests = pairs_core(self.layout, self.g0, self.geom, sweep, scratch, out, marks)
        t0, t1 = int(marks[0]), int(marks[1])  # the rows of giants against near elements
        if t1 - t0 > 1:
            hw = self.elements.high_water
            sort_by_partner(out, t0, t1, hw, np.zeros(hw + 1, dtype=np.int32), np.empty((t1 - t0, 2), dtype=np.int32))
        self.last_pair_tests = int(tests)
        self._pair_hint = max(1024, m + m // 8 + 64)
        return out[:m]

    def _cleanup(self):
        """One kernel (:func:`settle_cells`): exact rectangles, registrations and the pairs layout."""
        self._fit_layout()
        g, self.tnxt, self.tcell = settle_cells(self.loose, self.tight, self.geom, self.tgeom, self.elements.boxes,
                                                self.cell_size, self.layout)
        self._sort_giants(int(lay_out_list(self.olist[0], self.enext, self.elements.boxes, self.layout, g)))

    def _clear(self):
        self.lhead.fill(-1)
        self.lcount.fill(0)
        self.lrect[:] = EMPTY_RECT
        self.lreg.fill(-1)
        self.enext.fill(-1)
        self.thead.fill(-1)
        self.tstate[USED], self.tstate[FREE] = 0, -1
        self.olist[0], self.olist[1] = -1, 0
        self._laid_out = False

    # -- memory, drawing, inspection -----------------------------------
    def _nbytes(self):
        return sum(a.nbytes for a in self.loose + self.tight + self.layout) + self.olist.nbytes

    def loose_cells(self) -> dict[str, np.ndarray]:
        """The non-empty loose cells: ``index``, ``count``, ``cell`` (their grid square) and ``bounds`` (float64)."""
        idx = np.flatnonzero(self.lcount > 0)
        return {"index": idx.astype(np.int64), "count": self.lcount[idx].astype(np.int64),
                "cell": self._cell_rects(idx // self.cols, idx % self.cols),
                "bounds": self.lrect[idx].astype(np.float64)}

    def tight_cells(self) -> dict[str, np.ndarray]:
        """Every tight cell: ``rect`` (T, 4) world units and ``lists`` (T,): loose cells listed in it."""
        t = np.arange(self.trows * self.tcols)
        return {"rect": self._cell_rects(t // self.tcols, t % self.tcols, self.tight_factor),
                "lists": cell_counts(self.thead, self.tnxt, len(self.thead))}

    def regions(self):
        """The rectangles of the non-empty loose cells (depth 0); the world when empty."""
        b = self.loose_cells()["bounds"]
        if len(b) == 0:
            return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)
        big = np.finfo(np.float64).max
        return np.nan_to_num(b, posinf=big, neginf=-big), np.zeros(len(b), dtype=np.int64)

    def listed_in(self, tc: int, tr: int) -> list[int]:
        """Loose cells listed in tight cell ``(tc, tr)``, front first."""
        out, node = [], int(self.thead[tr * self.tcols + tc])
        while node != -1:
            out.append(int(self.tcell[node]))
            node = int(self.tnxt[node])
        return out

    def check_invariants(self, *, exact: bool = False) -> None:
        """Raise ``AssertionError`` unless the arrays agree with the stored boxes.

        Checks: every live slot is on exactly one list, the oversize list when
        its box is over the ``max_box_cells`` budget and the loose cell of its
        centre otherwise; the counts match the lists; each loose rectangle
        covers its elements' boxes (an empty one is inverted); each non-empty
        loose cell is registered in its rectangle's tight range and in no more
        than ``max_box_cells`` tight cells; each tight cell lists exactly the
        loose cells registered in it, once; the tight pool accounts for every
        node handed out; when the pairs layout is current, it holds each live
        slot once with its present box (near ones in their cell's run, inside
        their cell's near rectangle; the giants and the oversize list after
        them, sorted for the sweep). With ``exact=True`` (after a cleanup or a
        bulk load) each rectangle *equals* the union of its elements' boxes
        rounded outwards ("stale growth" otherwise) and each registration its
        rectangle's tight range. O(cells + elements + tight list nodes), in
        plain Python: for tests.
        """
        boxes = self.elements.boxes
        live = set(self.elements.live_slots().tolist())
        seen: set[int] = set()

        def walk(s):
            out = []
            while s != -1:
                assert s in live and s not in seen, f"slot {s} is dead or on two lists"
                seen.add(s)
                out.append(s)
                s = int(self.enext[s])
            return out

        big = walk(int(self.olist[0]))
        assert len(big) == int(self.olist[1]), \
            f"the oversize list holds {len(big)} slots, its count says {self.olist[1]}"
        flags = self._oversize_flags(boxes, np.array(big, dtype=np.int64))
        assert not big or (flags is not None and flags.all()), "a box within the budget is on the oversize list"
        for c in np.flatnonzero((self.lhead != -1) | (self.lcount != 0) | (self.lreg[:, TC0] != -1)).tolist():
            elems = walk(int(self.lhead[c]))
            assert len(elems) == int(self.lcount[c]), f"loose cell {c}: count {self.lcount[c]}, list {len(elems)}"
            assert all(int(cell_of_centre(self.geom, boxes, s)) == c for s in elems), \
                f"loose cell {c} holds an element whose centre lies elsewhere"
            assert self._oversize_flags(boxes, np.array(elems, dtype=np.int64)) is None, \
                f"loose cell {c} holds a box over the budget"
            r = self.lrect[c].astype(np.float64)
            if not elems:
                assert r[XMIN] > r[XMAX] and self.lreg[c].tolist() == [-1, -1, -1, -1], f"empty loose cell {c} is listed"
                continue
            b = boxes[elems]
            assert (r[MIN_CORNER] <= b[:, MIN_CORNER]).all() and (r[MAX_CORNER] >= b[:, MAX_CORNER]).all(), f"loose cell {c}'s rectangle misses a box"
            if exact:
                u = [f32_down(np.float64(b[:, XMIN].min())), f32_down(np.float64(b[:, YMIN].min())),
                     f32_up(np.float64(b[:, XMAX].max())), f32_up(np.float64(b[:, YMAX].max()))]
                assert r.tolist() == [float(v) for v in u], \
                    f"loose cell {c}: rectangle {r.tolist()} is not exactly its elements' union (stale growth)"
            g0, g1, g2, g3 = self.lreg[c].tolist()
            a0, a1, a2, a3 = (int(v) for v in tight_range(self.lrect, self.tgeom, c))
            assert g0 <= a0 and g1 <= a1 and a2 <= g2 and a3 <= g3, f"loose cell {c} misses part of its tight range"
            assert not exact or [g0, g1, g2, g3] == [a0, a1, a2, a3], \
                f"loose cell {c}: registration {[g0, g1, g2, g3]} is not its tight range {[a0, a1, a2, a3]}"
            assert not self._budgeted or (g2 - g0 + 1) * (g3 - g1 + 1) <= self.max_box_cells, \
                f"loose cell {c} is registered in more than max_box_cells={self.max_box_cells} tight cells"
        assert seen == live, "a live slot is on no list"
        listed = 0
        for t in np.flatnonzero(self.thead != -1).tolist():
            tr, tc = divmod(t, self.tcols)
            cells = self.listed_in(tc, tr)
            listed += len(cells)
            assert len(set(cells)) == len(cells), f"tight cell ({tc}, {tr}) lists a loose cell twice"
            for c in cells:
                g0, g1, g2, g3 = self.lreg[c].tolist()
                assert g0 <= tc <= g2 and g1 <= tr <= g3, f"tight cell ({tc}, {tr}) lists loose cell {c} out of range"
        reg = self.lreg[self.lreg[:, TC0] >= 0].astype(np.int64)
        assert listed == int(((reg[:, TC1] - reg[:, TC0] + 1) * (reg[:, TR1] - reg[:, TR0] + 1)).sum()), \
            "a loose cell is missing from a tight cell of its registration"
        free, node = 0, int(self.tstate[FREE])
        while node != -1:
            free += 1
            node = int(self.tnxt[node])
            assert free <= len(self.tnxt), "cycle in the tight pool's free list"
        assert listed + free == int(self.tstate[USED]) <= len(self.tnxt), "tight list nodes leaked"
        if self._laid_out:
            self._check_layout(live, set(big))

    def _check_layout(self, live: set, big: set) -> None:
        """The pairs layout of :meth:`lay_out` against the stored boxes (see :meth:`check_invariants`)."""
        L, n, g0 = self.rows * self.cols, len(self.px0), self.g0
        start = self.start.astype(np.int64)
        assert start[0] == 0 and (np.diff(start) >= 0).all() and start[L] <= g0 <= n, "bad run offsets"
        near, giants = self.ps[:start[L]].tolist(), self.ps[g0:].tolist()
        assert sorted(near + giants) == sorted(live), "the pairs layout does not hold each live slot once"
        assert (np.diff((self.py0 if self._sweep_y else self.px0)[g0:]) >= 0).all(), "giants are not sorted"
        copied = np.column_stack([self.px0, self.py0, self.px1, self.py1])
        slots = self.ps.astype(np.int64)
        for lo, hi in ((0, start[L]), (g0, n)):
            assert np.array_equal(copied[lo:hi], self.elements.boxes[slots[lo:hi]]), "stale boxes in the pairs layout"
        ox, oy, inv, cols, rows = self.geom
        runs = np.diff(start)
        assert (self.srect[runs == 0, XMIN] > self.srect[runs == 0, XMAX]).all(), \
            "a cell without near elements has a near rectangle"
        for c in np.flatnonzero(runs).tolist():
            r = self.srect[c].astype(np.float64)
            for k in range(start[c], start[c + 1]):
                b = copied[k]
                assert int(cell_of_centre(self.geom, copied, k)) == c, f"slot {slots[k]} is in the wrong run"
                assert is_near(*b, c, cols, ox, oy, self.cell_size), f"slot {slots[k]} is stored as near but is not"
                assert (r[MIN_CORNER] <= b[MIN_CORNER]).all() and (b[MAX_CORNER] <= r[MAX_CORNER]).all(), \
                    f"near rectangle of cell {c} misses slot {slots[k]}"
        for k in range(g0, n):
            if int(slots[k]) not in big:
                c = int(cell_of_centre(self.geom, copied, k))
                assert not is_near(*copied[k], c, cols, ox, oy, self.cell_size), \
                    f"slot {slots[k]} is stored as a giant but is near"

    def __repr__(self):
        return (f"LooseTightGrid(n={len(self)}, world={self.world.tolist()}, cell_size={self.cell_size:g}, "
                f"loose={self.rows}x{self.cols}, tight={self.trows}x{self.tcols})")

"""Invariants of the grids of lessons 02, 03 and 07, checked by walking their lists in plain Python.

Used by the grids' tests (through :func:`check_grid`) and by loose_helpers.py.
Each function raises AssertionError when the structure's arrays disagree with
what its stored boxes say they should hold.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from lessons_lib import CountingSortGrid, HierarchicalGrid, LooseTightGrid, PointGrid, SpatialHash, UniformGrid
from lessons_lib.structures.counting_sort_grid import FREE_SLOT, GIANT
from lessons_lib.structures.grid_cells import cell_of_centre, cell_span
from lessons_lib.structures.loose_bounds import f32_down, f32_up
from lessons_lib.structures.loose_tight_pairs import is_near
from lessons_lib.structures.point_grid import half_sizes
from lessons_lib.structures.spatial_hash import CELL_LIMIT, KEY_SHIFT


def walk(head, nxt, elem, start) -> list[int]:
    """Slots in one list, following ``nxt`` from ``head[start]`` (guards against cycles)."""
    out, node, steps = [], int(head[start]), 0
    while node != -1:
        out.append(int(elem[node]))
        node = int(nxt[node])
        steps += 1
        assert steps <= len(nxt), "cycle in a node list"
    return out


def free_count(nxt, state) -> int:
    k, node = 0, int(state[1])
    while node != -1:
        k += 1
        node = int(nxt[node])
        assert k <= len(nxt), "cycle in the free list"
    return k


def live_boxes(bp):
    slots = bp.elements.live_slots()
    return slots, bp.elements.boxes[slots]


def check_uniform_grid(g: UniformGrid) -> None:
    """Every live slot is in exactly the cells of its range, once; the pool accounts for every node."""
    expected = Counter()
    slots, boxes = live_boxes(g)
    for s, b in zip(slots.tolist(), boxes):
        c0, r0, c1, r1 = g.cell_range(b)
        assert 0 <= c0 <= c1 < g.cols and 0 <= r0 <= r1 < g.rows
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                expected[(r * g.cols + c, s)] += 1
    got = Counter()
    for cell in np.flatnonzero(g.head != -1).tolist():
        for s in walk(g.head, g.nxt, g.elem, cell):
            got[(cell, s)] += 1
    assert got == expected
    assert sum(got.values()) + free_count(g.nxt, g.state) == int(g.state[0]) <= len(g.nxt)


def check_hierarchical_grid(h: HierarchicalGrid) -> None:
    """Rows hold exactly their boxes; empty rows are freed; blocks do not overlap; coarse marks cover every node."""
    expected = Counter()
    slots, boxes = live_boxes(h)
    for s, b in zip(slots.tolist(), boxes):
        c0, r0, c1, r1 = h.cell_range(b)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                expected[(r, c, s)] += 1
    got = Counter()
    fp, fg = h.parent_factor, h.grandparent_factor
    heads_used, nodes_used = [], []
    for r in range(h.rows):
        lists = h.row(r)
        if lists is None:
            assert h.row_nodes[r] == 0
            continue
        head, nxt, elem, state = lists
        assert h.row_nodes[r] > 0, f"row {r} is empty but not freed"
        cells_at, nodes_at, pool = h.row_block[r].tolist()
        heads_used.append((cells_at, cells_at + h.cols))
        nodes_used.append((nodes_at, nodes_at + pool))
        assert cells_at + h.cols <= h.arena[0] <= len(h.heads) and nodes_at + pool <= h.arena[1] <= len(h.nxt)
        n = 0
        for c in np.flatnonzero(head != -1).tolist():
            assert h.parent[r // fp, c // fp], f"fine cell ({r}, {c}) is occupied but its parent is not marked"
            assert h.grandparent[r // (fp * fg), c // (fp * fg)]
            for s in walk(head, nxt, elem, c):
                got[(r, c, s)] += 1
                n += 1
        assert n == h.row_nodes[r]
        assert n + free_count(nxt, state) == int(state[0]) <= pool
    assert h.arena[2] == h.cols * len(heads_used) and h.arena[3] == sum(b - a for a, b in nodes_used)
    for used in (heads_used, nodes_used):
        used.sort()
        assert all(a[1] <= b[0] for a, b in zip(used, used[1:])), "two rows share a block of an arena"
    assert got == expected


def check_spatial_hash(sh: SpatialHash) -> None:
    """Each hashed slot has one node per cell, in that cell's bucket, with that cell's key."""
    expected = Counter()
    big = set()
    slots, boxes = live_boxes(sh)
    for s, b in zip(slots.tolist(), boxes):
        cx0, cy0, cx1, cy1 = sh.cell_range(b)
        if (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > sh.max_box_cells:
            big.add(int(sh.elements.ids[s]))
            continue
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                expected[(sh.bucket_of(cx, cy), (cx + CELL_LIMIT) * KEY_SHIFT + (cy + CELL_LIMIT), s)] += 1
    assert big == set(sh.oversize().tolist())
    got = Counter()
    for bucket in np.flatnonzero(sh.head != -1).tolist():
        node = int(sh.head[bucket])
        while node != -1:
            got[(bucket, int(sh.key[node]), int(sh.elem[node]))] += 1
            node = int(sh.nxt[node])
    assert got == expected
    assert sum(got.values()) + free_count(sh.nxt, sh.state) == int(sh.state[0])


def check_point_grid(bp: PointGrid) -> None:
    """Each live slot is in exactly one list, the right one (its centre's cell, or the giants'), within the bound."""
    boxes = bp.elements.boxes
    live = set(bp.elements.live_slots().tolist())
    seen: set[int] = set()
    giants = bp.rows * bp.cols
    for cell in range(len(bp.head)):
        s = int(bp.head[cell])
        while s != -1:
            assert s in live and s not in seen, f"slot {s} is dead or in two lists"
            seen.add(s)
            giant = half_sizes(boxes[s])[0] > bp.giant_limit
            want = giants if giant else int(cell_of_centre(bp.geom, boxes, s))
            assert want == cell, f"slot {s} is in list {cell}, not {want}"
            s = int(bp.enext[s])
    assert seen == live, "a live slot is in no list"
    agents = [s for s in live if half_sizes(boxes[s])[0] <= bp.giant_limit]
    if agents:
        assert half_sizes(boxes[sorted(agents)]).max() <= bp.bound, "an agent exceeds the bound in force"


def check_loose_tight_grid(g: LooseTightGrid, exact: bool = False) -> None:
    """The double grid's arrays agree with its boxes.

    Every live slot is in exactly one loose cell, the one of its centre, and
    ``lcount`` matches the lists; each loose rectangle covers its elements'
    (outward-rounded) boxes and an empty one is inverted; each non-empty loose
    cell is listed exactly in the tight cells of its registration, which covers
    its rectangle's tight range; tight list nodes in use plus free nodes account
    for the pool; when the pairs layout is current, it holds each live slot once
    with its present box. Slots on the oversize list (boxes over the
    ``max_box_cells`` budget, :meth:`~LooseTightGrid.oversize`) are in no loose
    cell: the list holds live slots, as many as its count says, and the loose
    cells hold every other live slot. With ``exact=True`` (after a cleanup or a
    bulk load) each rectangle *equals* the union of its elements ("stale
    growth" otherwise) and each registration its rectangle's tight range.
    """
    boxes = g.elements.boxes
    live = set(g.elements.live_slots().tolist())
    big = walk_slots(g.olist, g.enext, 0)
    assert len(big) == int(g.olist[1]), f"the oversize list holds {len(big)} slots, its count says {int(g.olist[1])}"
    assert set(big) <= live and len(set(big)) == len(big), "the oversize list holds a dead slot or one slot twice"
    seen: set[int] = set(big)
    for c in range(g.rows * g.cols):
        elems, s = [], int(g.lhead[c])
        while s != -1:
            elems.append(s)
            s = int(g.enext[s])
        assert len(elems) == int(g.lcount[c]), f"loose cell {c}: count {int(g.lcount[c])}, list {len(elems)}"
        u = [np.inf, np.inf, -np.inf, -np.inf]
        for s in elems:
            assert s in live and s not in seen, f"slot {s} is dead, in two loose cells, or also oversize"
            seen.add(s)
            assert int(cell_of_centre(g.geom, boxes, s)) == c, f"slot {s} is not in its centre's cell"
            b = boxes[s]  # np.float64 values: f32_down(python float) rounds wrongly as plain Python (NEP 50)
            u = [min(u[0], float(f32_down(b[0]))), min(u[1], float(f32_down(b[1]))),
                 max(u[2], float(f32_up(b[2]))), max(u[3], float(f32_up(b[3])))]
        r = g.lrect[c].astype(np.float64).tolist()
        if elems:
            assert r[0] <= u[0] and r[1] <= u[1] and r[2] >= u[2] and r[3] >= u[3], \
                f"loose cell {c}: rectangle {r} does not cover its elements {u}"
        else:
            assert r[0] > r[2], f"loose cell {c} is empty but its rectangle is {r}"
        if exact:
            assert r == u, f"loose cell {c}: rectangle {r} is not exactly {u} (stale growth)"
        reg = g.lreg[c].tolist()
        if not elems:
            assert reg == [-1, -1, -1, -1], f"empty loose cell {c} is registered in {reg}"
            continue
        want = [int(v) for v in cell_span(g.tgeom, *r)]
        assert reg[0] <= want[0] and reg[1] <= want[1] and reg[2] >= want[2] and reg[3] >= want[3], \
            f"loose cell {c}: registration {reg} misses its tight range {want}"
        if exact:
            assert reg == want, f"loose cell {c}: registration {reg} is not its tight range {want}"
    assert seen == live, "a live slot is in no loose cell"
    listed = 0
    for tr in range(g.trows):
        for tc in range(g.tcols):
            cells = g.listed_in(tc, tr)
            listed += len(cells)
            assert len(set(cells)) == len(cells), f"tight cell ({tc}, {tr}) lists a loose cell twice"
            for c in cells:
                reg = g.lreg[c].tolist()
                assert reg[0] <= tc <= reg[2] and reg[1] <= tr <= reg[3], \
                    f"tight cell ({tc}, {tr}) lists loose cell {c} registered in {reg}"
    regs = g.lreg[g.lreg[:, 0] >= 0].astype(np.int64)
    assert listed == int(((regs[:, 2] - regs[:, 0] + 1) * (regs[:, 3] - regs[:, 1] + 1)).sum()), \
        "a loose cell is missing from a tight cell of its registration"
    assert int(g.tstate[0]) <= len(g.tnxt), "the tight list pool was written past its end"
    assert listed + free_count(g.tnxt, g.tstate) == int(g.tstate[0]), "tight list nodes leaked"
    if g._laid_out:
        check_pairs_layout(g, live, set(big))


def walk_slots(head, nxt, start) -> list[int]:
    """Slots of a list linked through the slots themselves: from ``head[start]`` along ``nxt`` (guards against cycles)."""
    out, s = [], int(head[start])
    while s != -1:
        out.append(s)
        s = int(nxt[s])
        assert len(out) <= len(nxt), "cycle in a slot list"
    return out


def check_pairs_layout(g: LooseTightGrid, live: set[int], big: set[int] = frozenset()) -> None:
    """The layout of ``lay_out``: each live slot once, near ones in their cell's run, giants sorted.

    ``big``: the oversize slots, laid out with the giants whatever their size.
    """
    L, n, g0 = g.rows * g.cols, len(g.px0), g.g0
    start = g.start.astype(np.int64)
    assert start[0] == 0 and (np.diff(start) >= 0).all() and start[L] <= g0 <= n, "bad run offsets"
    near, giants = g.ps[:start[L]].tolist(), g.ps[g0:].tolist()
    assert sorted(near + giants) == sorted(live), "the pairs layout does not hold each live slot once"
    assert (np.diff((g.py0 if g._sweep_y else g.px0)[g0:]) >= 0).all(), "giants are not sorted"
    ox, oy, inv, cols, rows = g.geom
    boxes = g.elements.boxes
    for c in range(L):
        run = np.arange(start[c], start[c + 1])
        r = g.srect[c].astype(np.float64)
        for k in run.tolist():
            s = int(g.ps[k])
            b = [float(g.px0[k]), float(g.py0[k]), float(g.px1[k]), float(g.py1[k])]
            assert b == boxes[s].tolist(), f"slot {s}: stale coordinates in the pairs layout"
            assert int(cell_of_centre(g.geom, boxes, s)) == c, f"slot {s} is in the wrong run"
            assert is_near(*b, c, cols, ox, oy, g.cell_size), f"slot {s} is stored as near but is not"
            assert r[0] <= b[0] and r[1] <= b[1] and b[2] <= r[2] and b[3] <= r[3], \
                f"near rectangle of cell {c} misses slot {s}"
        if len(run) == 0:
            assert r[0] > r[2], f"cell {c} has no near element but a near rectangle {r.tolist()}"
    for k in range(g0, n):
        s = int(g.ps[k])
        b = [float(g.px0[k]), float(g.py0[k]), float(g.px1[k]), float(g.py1[k])]
        assert b == boxes[s].tolist(), f"giant {s}: stale coordinates in the pairs layout"
        c = int(cell_of_centre(g.geom, boxes, s))
        assert s in big or not is_near(*b, c, cols, ox, oy, g.cell_size), f"slot {s} is stored as a giant but is near"


def check_counting_sort_grid(g: CountingSortGrid) -> None:
    """Invariants after a rebuild: each live non-giant slot filed once, in the cell of its lower-left corner."""
    g.rebuild()
    t = g.elements
    live = set(t.live_slots().tolist())
    n_filed = int(g.start[-1])
    filed = g.order[:n_filed].tolist()
    assert len(filed) == len(set(filed)) and set(filed) | set(g.giants.tolist()) == live
    assert not set(filed) & set(g.giants.tolist())
    assert (np.diff(g.start) >= 0).all() and g.start[0] == 0
    for cell in range(g.rows * g.cols):
        for w in range(g.start[cell], g.start[cell + 1]):
            s = g.order[w]
            c0, r0, c1, r1 = g.cell_range(t.boxes[s])
            assert r0 * g.cols + c0 == cell and c1 - c0 <= 1 and r1 - r0 <= 1
            np.testing.assert_array_equal(g.sorted_boxes[w], t.boxes[s])
    for s in g.giants.tolist():
        c0, r0, c1, r1 = g.cell_range(t.boxes[s])
        assert c1 - c0 > 1 or r1 - r0 > 1
        assert g.cell_key[s] == GIANT
    for s in range(t.high_water):
        if s not in live:
            assert g.cell_key[s] == FREE_SLOT


CHECKS = {UniformGrid: check_uniform_grid, HierarchicalGrid: check_hierarchical_grid, SpatialHash: check_spatial_hash,
          PointGrid: check_point_grid, LooseTightGrid: check_loose_tight_grid,
          CountingSortGrid: check_counting_sort_grid}


def check_grid(bp, exact: bool = False) -> None:
    """The invariants of any grid; ``exact`` (the loose/tight grid after a cleanup): no stale growth."""
    if isinstance(bp, LooseTightGrid):
        check_loose_tight_grid(bp, exact)
    else:
        CHECKS[type(bp)](bp)

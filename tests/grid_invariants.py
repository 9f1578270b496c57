"""Invariants of the grids of lessons 02-03, checked by walking their lists in plain Python.

Used by test_uniform_grid.py, test_hierarchical_grid.py and test_spatial_hash.py.
Each function raises AssertionError when the structure's arrays disagree with
what its stored boxes say they should hold.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from lessons_lib import HierarchicalGrid, SpatialHash, UniformGrid
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
    """Rows hold exactly their boxes; empty rows are freed; coarse marks cover every node."""
    expected = Counter()
    slots, boxes = live_boxes(h)
    for s, b in zip(slots.tolist(), boxes):
        c0, r0, c1, r1 = h.cell_range(b)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                expected[(r, c, s)] += 1
    got = Counter()
    fp, fg = h.parent_factor, h.grandparent_factor
    for r, st in enumerate(h.row_store):
        if st is None:
            assert h.row_nodes[r] == 0
            continue
        assert h.row_nodes[r] > 0, f"row {r} is empty but not freed"
        n = 0
        for c in np.flatnonzero(st.head != -1).tolist():
            assert h.parent[r // fp, c // fp], f"fine cell ({r}, {c}) is occupied but its parent is not marked"
            assert h.grandparent[r // (fp * fg), c // (fp * fg)]
            for s in walk(st.head, st.nxt, st.elem, c):
                got[(r, c, s)] += 1
                n += 1
        assert n == h.row_nodes[r]
        assert n + free_count(st.nxt, st.state) == int(st.state[0])
    assert got == expected


def check_spatial_hash(sh: SpatialHash) -> None:
    """Each hashed slot has one node per cell, in that cell's bucket, with that cell's key."""
    expected = Counter()
    big = set()
    slots, boxes = live_boxes(sh)
    for s, b in zip(slots.tolist(), boxes):
        cx0, cy0, cx1, cy1 = sh.cell_range(b)
        if (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > sh.max_box_cells:
            big.add(s)
            continue
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                expected[(sh.bucket_of(cx, cy), (cx + CELL_LIMIT) * KEY_SHIFT + (cy + CELL_LIMIT), s)] += 1
    assert big == sh._big
    got = Counter()
    for bucket in np.flatnonzero(sh.head != -1).tolist():
        node = int(sh.head[bucket])
        while node != -1:
            got[(bucket, int(sh.key[node]), int(sh.elem[node]))] += 1
            node = int(sh.nxt[node])
    assert got == expected
    assert sum(got.values()) + free_count(sh.nxt, sh.state) == int(sh.state[0])


CHECKS = {UniformGrid: check_uniform_grid, HierarchicalGrid: check_hierarchical_grid, SpatialHash: check_spatial_hash}


def check_grid(bp) -> None:
    CHECKS[type(bp)](bp)

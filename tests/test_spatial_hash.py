"""Tests of lessons_lib.structures.spatial_hash: unbounded cells, the hash, collisions, oversize boxes.

Brute-force agreement, hypothesis boxes and random sequences with tiny tables
and the bad hash run in test_uniform_grid.py (parametrized over every grid).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import nested_loop_pairs
from grid_invariants import check_spatial_hash
from lessons_lib import JIT_ENABLED, SpatialHash, UniformGrid, brute_force_pairs, make_scene
from lessons_lib.structures.spatial_hash import CELL_LIMIT, cell_key, hash_cell


def python_hash(cx, cy, size, bad=False):
    """The definition in plain Python integers, 64-bit wrap-around made explicit."""
    h = (cx + cy) if bad else ((cx * 73856093) ^ (cy * 19349663))
    return (h & ((1 << 62) - 1)) % size


@pytest.mark.parametrize("cx, cy", [(0, 0), (1, 0), (0, 1), (-1, -1), (-5, 7), (123456, -987654),
                                    (CELL_LIMIT, CELL_LIMIT), (-CELL_LIMIT, CELL_LIMIT)])
@pytest.mark.parametrize("size", [1, 7, 4096, 2**20])
def test_hash_matches_the_definition(cx, cy, size):
    assert hash_cell(cx, cy, size) == python_hash(cx, cy, size)
    assert hash_cell(cx, cy, size, "bad") == python_hash(cx, cy, size, bad=True)
    assert 0 <= hash_cell(cx, cy, size) < size


def test_cell_key_is_unique_per_cell():
    cells = [(x, y) for x in (-CELL_LIMIT, -1, 0, 1, CELL_LIMIT) for y in (-CELL_LIMIT, -1, 0, 1, CELL_LIMIT)]
    keys = [cell_key(x, y) for x, y in cells]
    assert len(set(keys)) == len(cells) and min(keys) >= 0


def test_negative_and_huge_coordinates():
    sh = SpatialHash(cell_size=10, table_size=64)
    assert sh.cell_range([-0.5, -10, 0, -10]) == (-1, -1, 0, -1)
    assert sh.cell_range([1e9, -1e9, 1e9 + 5, -1e9 + 5]) == (10**8, -10**8, 10**8, -10**8)
    assert sh.cell_range([1e300, -1e300, 1e300, -1e300]) == (CELL_LIMIT, -CELL_LIMIT, CELL_LIMIT, -CELL_LIMIT)
    model = {1: [-5, -5, 5, 5], 2: [5, 5, 6, 6], 3: [1e9, 1e9, 1e9 + 1, 1e9 + 1], 4: [1e9 + 1, 1e9, 1e9 + 2, 1e9],
             5: [1e300, 1e300, 1e300, 1e300], 6: [1e301, 1e301, 1e301, 1e301], 7: [-1e300, 0, -1e300, 0]}
    for i, b in model.items():
        sh.insert(i, b)
    np.testing.assert_array_equal(sh.pairs(), [[1, 2], [3, 4]])  # 5 and 6 share a clamped cell, but do not touch
    np.testing.assert_array_equal(sh.query([-1e300, -1, -1e300, 1]), [7])
    check_spatial_hash(sh)


@st.composite
def huge_boxes(draw):
    """Boxes with coordinates up to 1e9 in magnitude, often touching (integer steps of the cell)."""
    k = draw(st.integers(1, 25))
    base = draw(st.sampled_from([-1e9, -3.7e8, 0.0, 5e8, 1e9]))
    rows = []
    for _ in range(k):
        x = base + draw(st.integers(-20, 20)) * 500.0
        y = -base + draw(st.integers(-20, 20)) * 500.0
        rows.append([x, y, x + draw(st.integers(0, 3)) * 500.0, y + draw(st.integers(0, 3)) * 500.0])
    return np.array(rows)


@pytest.mark.parametrize("cell_size", [1.0, 1000.0])
@settings(max_examples=60 if JIT_ENABLED else 12)
@given(boxes=huge_boxes())
def test_hypothesis_1e9_coordinates(cell_size, boxes):
    sh = SpatialHash.from_boxes(boxes, cell_size=cell_size, table_size=97)
    assert set(map(tuple, sh.pairs().tolist())) == nested_loop_pairs(boxes)
    check_spatial_hash(sh)


def test_bad_hash_collides_more():
    boxes = make_scene("random", 2000, seed=0)
    good = SpatialHash.from_boxes(boxes, cell_size=16, table_size=4096)
    bad = SpatialHash.from_boxes(boxes, cell_size=16, table_size=4096, hash="bad")
    np.testing.assert_array_equal(good.pairs(), bad.pairs())
    assert bad.collisions() > 5 * good.collisions()
    assert bad.last_key_compares > 5 * good.last_key_compares
    nodes_g, cells_g = good.bucket_loads()
    nodes_b, cells_b = bad.bucket_loads()
    assert nodes_g.sum() == nodes_b.sum() == good.state[0]
    assert (cells_b > 0).sum() < 100  # cx + cy takes few values: few buckets used
    # cx + cy: the whole anti-diagonal lands in one bucket
    assert len({bad.bucket_of(x, 10 - x) for x in range(-50, 50)}) == 1


def test_memory_follows_the_boxes_not_the_world():
    rng = np.random.default_rng(0)
    centres = rng.uniform(-1e6, 1e6, size=(500, 2))
    boxes = np.column_stack([centres, centres + 10])
    sh = SpatialHash.from_boxes(boxes, cell_size=16)
    np.testing.assert_array_equal(sh.pairs(), brute_force_pairs(boxes))
    assert sh.memory_bytes() < 200 * len(boxes)
    with pytest.raises(ValueError, match="more than max_cells"):
        UniformGrid.from_boxes(boxes, cell_size=16)  # a dense grid would need 1.6e10 cells


def test_oversize_boxes_are_listed_not_hashed():
    sh = SpatialHash(cell_size=1, table_size=16, max_box_cells=100)
    sh.insert(1, [0, 0, 5, 5])  # 36 cells: hashed
    sh.insert(2, [-1e7, -1e7, 1e7, 1e7])  # oversize
    sh.insert(3, [3, 3, 30, 3])  # 28 cells
    sh.insert(4, [-1e6, 1e6, 1e6, 1e6])  # oversize, touches 2 only
    np.testing.assert_array_equal(sh.oversize(), [2, 4])
    np.testing.assert_array_equal(sh.pairs(), [[1, 2], [1, 3], [2, 3], [2, 4]])
    np.testing.assert_array_equal(sh.query([4, 4, 4, 4]), [1, 2])
    sh.update(2, [100, 100, 101, 101])  # no longer oversize
    np.testing.assert_array_equal(sh.oversize(), [4])
    np.testing.assert_array_equal(sh.pairs(), [[1, 3]])
    check_spatial_hash(sh)


def test_huge_query_scans_the_table():
    boxes = make_scene("random", 300, seed=3)
    sh = SpatialHash.from_boxes(boxes, cell_size=4, table_size=64)
    got = sh.query([-1e6, -1e6, 1e6, 1e6])  # 2.5e11 cells: scanned bucket by bucket instead
    np.testing.assert_array_equal(got, np.arange(300))
    assert sh.last_query_nodes == sh.state[0]


def test_from_boxes_defaults():
    boxes = make_scene("random", 1000)
    sh = SpatialHash.from_boxes(boxes)
    assert sh.table_size == 2048 and 24 <= sh.cell_size <= 32  # twice the typical box (12..16)
    assert SpatialHash().table_size == 4096 and SpatialHash().cell_size == 12.5


@pytest.mark.parametrize("kwargs, pattern", [
    ({"table_size": 0}, r"table_size must be an integer in 1..268435456"),
    ({"table_size": 2**29}, r"table_size must be an integer"),
    ({"table_size": 10.0}, r"table_size must be an integer"),
    ({"hash": "md5"}, r"hash must be one of .good., .bad."),
    ({"cell_size": -2}, "cell_size must be a positive finite number"),
    ({"max_box_cells": 0}, "max_box_cells must be an integer >= 1"),
])
def test_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        SpatialHash(**kwargs)
    with pytest.raises(ValueError, match=r"hash must be one of"):
        hash_cell(0, 0, 8, "weird")


def test_lab_helpers():
    from lessons_lib.labs.grids import bucket_histogram, dense_grid_bytes

    sh = SpatialHash.from_boxes(make_scene("random", 500), cell_size=16, table_size=256)
    load, count = bucket_histogram(sh)
    assert count.sum() == 256 and (load * count).sum() == sh.bucket_loads()[1].sum()
    assert dense_grid_bytes([0, 0, 800, 600], 16) == 4 * 50 * 38
    assert dense_grid_bytes([-1e6, -1e6, 1e6, 1e6], 16) == 4 * 125_000**2

"""Tests of lessons_lib.structures.hierarchical_grid: per-row lists, freed rows, coarse occupancy grids.

Brute-force agreement, hypothesis boxes and random sequences for this grid run
in test_uniform_grid.py (parametrized over every grid) and test_base.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from grid_invariants import check_hierarchical_grid
from lessons_lib import HierarchicalGrid, UniformGrid, brute_force_pairs, make_scene


def test_empty_rows_are_freed_and_reallocated():
    h = HierarchicalGrid(world=[0, 0, 100, 100], cell_size=10)
    assert h.rows_allocated() == 0
    h.insert(1, [5, 5, 8, 25])  # rows 0..2
    h.insert(2, [50, 21, 60, 22])  # row 2
    assert h.rows_allocated() == 3 and h.row_nodes.tolist()[:4] == [1, 1, 3, 0]
    empty_bytes = HierarchicalGrid(world=[0, 0, 100, 100], cell_size=10).memory_bytes()
    assert h.memory_bytes() > empty_bytes
    h.remove(1)
    assert [h.row(r) is None for r in range(3)] == [True, True, False]
    h.remove(2)
    assert h.rows_allocated() == 0
    assert h.memory_bytes() == empty_bytes  # freed rows cost nothing
    h.insert(3, [0, 0, 1, 1])
    assert h.rows_allocated() == 1
    check_hierarchical_grid(h)


def test_coarse_marks_are_conservative_until_cleanup():
    h = HierarchicalGrid(world=[0, 0, 160, 160], cell_size=10, parent_factor=2, grandparent_factor=2)
    assert h.parent.shape == (8, 8) and h.grandparent.shape == (4, 4)
    h.insert(1, [5, 5, 6, 6])
    h.insert(2, [125, 125, 126, 126])
    assert h.parent[0, 0] and h.parent[6, 6] and h.grandparent[0, 0] and h.grandparent[3, 3]
    h.remove(2)
    assert h.parent[6, 6]  # stale: a bool cannot count down
    np.testing.assert_array_equal(h.query([0, 0, 160, 160]), [1])
    h.cleanup()
    assert not h.parent[6, 6] and not h.grandparent[3, 3] and h.parent[0, 0]
    assert h.parent.sum() == 1 and h.grandparent.sum() == 1
    check_hierarchical_grid(h)


def test_large_queries_skip_empty_regions():
    boxes = make_scene("clustered", 400, seed=2)
    u = UniformGrid.from_boxes(boxes, cell_size=4, world=[0, 0, 800, 600])
    h = HierarchicalGrid.from_boxes(boxes, cell_size=4, world=[0, 0, 800, 600])
    q = [0, 0, 800, 600]
    np.testing.assert_array_equal(u.query(q), h.query(q))
    assert u.last_query_cells == 200 * 150
    assert h.last_query_cells < u.last_query_cells / 3  # only fine cells under marked coarse cells
    assert h.last_query_coarse > 0


def test_pairs_on_a_mixed_scene_and_regions():
    boxes = make_scene("mixed_sizes", 300, seed=1)
    h = HierarchicalGrid.from_boxes(boxes)
    np.testing.assert_array_equal(h.pairs(), brute_force_pairs(boxes))
    rects, depths = h.regions()
    assert set(depths.tolist()) == {0, 1, 2}
    assert (depths == 0).sum() == h.grandparent.size
    assert (depths == 1).sum() == h.parent.sum()


@pytest.mark.parametrize("kwargs, pattern", [
    ({"parent_factor": 1}, "parent_factor must be an integer"),
    ({"grandparent_factor": 2.0}, "grandparent_factor must be an integer"),
    ({"parent_factor": True}, "parent_factor must be an integer"),
    ({"cell_size": 0}, "cell_size must be a positive finite number"),
    ({"cell_size": 1e-4}, "more than max_cells"),
])
def test_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        HierarchicalGrid(world=[0, 0, 800, 600], **kwargs)

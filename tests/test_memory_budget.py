"""Memory a few boxes cannot exhaust (issue 34, item 9, the grids).

With an explicit ``cell_size=0.5`` in the 800 x 600 world, twenty boxes the size
of the world took 499 MB in the uniform grid and 1.1 GB in the hierarchical grid:
a grid files a box in every cell it covers. A box covering more cells than the
budget ``max_box_cells`` (default 65,536) now goes on an oversize list of its own,
as the spatial hash's oversize boxes and the point grid's giants do, so no box
costs more than ``8 * max_box_cells`` bytes beside the grid itself. The loose/tight
grid files each box in one loose cell, but a giant widens that cell's rectangle,
which is listed in every tight cell it then covers: there the budget counts the
tight cells a box would make its loose cell reach. (The partitioned join's side of
item 9 is in ``tests/test_partitioned_replication.py``.)
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from lessons_lib import STRUCTURES, brute_force_pairs, make_scene
from lessons_lib.structures.uniform_grid import DEFAULT_MAX_BOX_CELLS

WORLD = [0.0, 0.0, 800.0, 600.0]
#: Every structure with a cell size: a giant must not cost memory in proportion to the cells it covers.
GRIDS = ["uniform_grid", "hierarchical_grid", "counting_sort_grid", "spatial_hash", "point_grid", "loose_tight_grid"]
#: The grids with a ``max_box_cells`` parameter and an ``oversize()`` list.
BUDGETED = ["uniform_grid", "hierarchical_grid", "loose_tight_grid"]


def giants(k: int = 20, seed: int = 0) -> np.ndarray:
    """``k`` distinct boxes about the size of the world."""
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-5, 5, (k, 2))
    return np.column_stack([lo, lo + [800.0, 600.0] + rng.uniform(-5, 5, (k, 2))])


def filter_query(boxes, q):
    return np.flatnonzero((boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3]) & (q[1] <= boxes[:, 3]))


@pytest.mark.parametrize("name", GRIDS)
def test_world_sized_boxes_on_tiny_cells_cost_little(name):
    cls = STRUCTURES[name]
    small = make_scene("random", 200, seed=1)
    boxes = np.vstack([small, giants()])
    without = cls.from_boxes(small, cell_size=0.5, world=WORLD).memory_bytes()
    bp = cls.from_boxes(boxes, cell_size=0.5, world=WORLD)
    extra = bp.memory_bytes() - without
    assert extra <= 20 * 64 * 1024, f"{extra / 1e6:.1f} MB more for 20 world-sized boxes"
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    for q in ([0, 0, 1, 1], [399.5, 299.5, 400.5, 300.5], [-100, -100, 900, 700], [790, 10, 800, 20]):
        np.testing.assert_array_equal(bp.query(q), filter_query(boxes, q))
    if hasattr(bp, "check_invariants"):
        bp.check_invariants()


def _cells(lo, hi, size, n):
    """First and last cell of ``[lo, hi]`` along an axis of ``n`` cells of ``size`` from 0 (clamped)."""
    return max(0, min(n - 1, int(np.floor(lo / size)))), max(0, min(n - 1, int(np.floor(hi / size))))


def over_budget(name, b, budget=100) -> bool:
    """Is the box ``b`` over the budget in the test's grid (WORLD, cells of 2), worked out here by hand?

    The uniform and hierarchical grids count the cells the box covers. The
    loose/tight grid (tight cells of 4) counts the square of tight cells
    centred on the tight cell of the box's loose cell (its centre's) that
    holds the tight cells the box covers.
    """
    if name != "loose_tight_grid":
        c0, c1 = _cells(b[0], b[2], 2.0, 400)
        r0, r1 = _cells(b[1], b[3], 2.0, 300)
        return (c1 - c0 + 1) * (r1 - r0 + 1) > budget
    cc = _cells(0.5 * (b[0] + b[2]), 0, 2.0, 400)[0] // 2
    cr = _cells(0.5 * (b[1] + b[3]), 0, 2.0, 300)[0] // 2
    (c0, c1), (r0, r1) = _cells(b[0], b[2], 4.0, 200), _cells(b[1], b[3], 4.0, 150)
    d = max(cc - c0, c1 - cc, cr - r0, r1 - cr)
    return (min(cc + d, 199) - max(cc - d, 0) + 1) * (min(cr + d, 149) - max(cr - d, 0) + 1) > budget


@pytest.mark.parametrize("name", BUDGETED)
def test_oversize_list_follows_updates_and_removals(name):
    cls = STRUCTURES[name]
    bp = cls(world=WORLD, cell_size=2.0, max_box_cells=100)  # a box wider than about 10 x 10 cells is oversize
    model = {i: b.tolist() for i, b in enumerate(make_scene("random", 60, seed=2))}
    for i, b in model.items():
        bp.insert(i, b)
    assert bp.max_box_cells == 100 and len(bp.oversize()) == 0
    assert not any(map(partial(over_budget, name), model.values()))

    def check():
        ids = np.array(sorted(model))
        boxes = np.array([model[i] for i in ids.tolist()])
        np.testing.assert_array_equal(bp.pairs(), ids[brute_force_pairs(boxes)] if len(ids) else bp.pairs())
        for q in ([100, 100, 300, 250], [0, 0, 800, 600], [555, 444, 555, 444]):
            np.testing.assert_array_equal(bp.query(q), ids[filter_query(boxes, q)])
        big = [i for i, b in model.items() if over_budget(name, b)]
        np.testing.assert_array_equal(bp.oversize(), sorted(big))
        if hasattr(bp, "check_invariants"):
            bp.check_invariants()

    model[3] = [10.0, 10.0, 700.0, 500.0]  # into the list
    bp.update(3, model[3])
    check()
    new = {5: [0.0, 0.0, 800.0, 600.0], 3: [20.0, 20.0, 25.0, 25.0], 7: [100.0, 100.0, 110.0, 108.0]}
    bp.update_many(list(new), list(new.values()))  # one in, one out, one staying in cells
    model.update(new)
    check()
    assert bp.oversize().tolist() == [5]
    bp.remove(5)
    del model[5]
    check()
    bp.insert(100, [-50.0, -50.0, 900.0, 700.0])
    model[100] = [-50.0, -50.0, 900.0, 700.0]
    check()
    new = {100: [300.0, 0.0, 800.0, 590.0], 3: [5.0, 5.0, 405.0, 305.0], 9: [50.0, 60.0, 51.0, 61.0]}
    bp.update_many(list(new), list(new.values()))  # one moving along the list, one in, one in cells
    model.update(new)
    check()
    assert {3, 100} <= set(bp.oversize().tolist())
    bp.clear()
    model.clear()
    assert len(bp.oversize()) == 0


@pytest.mark.parametrize("name", BUDGETED)
def test_budget_is_a_parameter_named_in_its_error(name):
    cls = STRUCTURES[name]
    assert cls(world=WORLD).max_box_cells == DEFAULT_MAX_BOX_CELLS
    with pytest.raises(ValueError, match="max_box_cells"):
        cls(world=WORLD, max_box_cells=0)

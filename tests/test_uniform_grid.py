"""Tests of lessons_lib.structures.uniform_grid, and of what every grid of lessons 02-03 must do.

The first part runs on the three grids (uniform, hierarchical, hash) with
parameters chosen to stress them (tiny and huge cells, tiny tables, the bad
hash): brute force on every scene, hypothesis boxes on cell borders, far away
and degenerate, long random operation sequences with the structures' own
invariants walked after every few steps. The second part is the uniform grid's
own: its parameters, cell ranges, suggest_cell_size, the corner-only pitfall.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import FAR, box_arrays, filter_query, lattice_box, model_pairs, nested_loop_pairs
from grid_invariants import check_grid
from lessons_lib import JIT_ENABLED, SCENES, HierarchicalGrid, SpatialHash, UniformGrid, brute_force_pairs, make_scene, suggest_cell_size
from lessons_lib.labs.grids import corner_only_pairs
from lessons_lib.structures.cell_size import DEFAULT_MAX_CELLS, grid_shape, typical_box_size
from lessons_lib.labs.grids import corner_cells, grid_pair_tests

WORLD = [0.0, 0.0, 100.0, 100.0]

#: (class, parameters): each grid with settings that stress it.
CONFIGS = [
    (UniformGrid, {"cell_size": 1.0}),
    (UniformGrid, {"cell_size": 7.0}),
    (UniformGrid, {"cell_size": 1000.0}),  # one cell: brute force in disguise
    (HierarchicalGrid, {"cell_size": 3.0, "parent_factor": 2, "grandparent_factor": 2}),
    (HierarchicalGrid, {"cell_size": 7.0, "parent_factor": 4, "grandparent_factor": 3}),
    (SpatialHash, {"cell_size": 5.0, "table_size": 7}),  # many bucket collisions
    (SpatialHash, {"cell_size": 5.0, "table_size": 64, "hash": "bad"}),
    (SpatialHash, {"cell_size": 8.0, "table_size": 1}),  # one bucket for everything
    (SpatialHash, {"cell_size": 10.0, "max_box_cells": 4}),  # many oversize boxes
]
#: Plain Python (LESSONS_JIT=0) is ~100x slower: fewer examples and steps, same cases.
EXAMPLES = 60 if JIT_ENABLED else 12
STEPS = 300 if JIT_ENABLED else 120
few_examples = settings(max_examples=EXAMPLES)

by_config = pytest.mark.parametrize("cls, params", CONFIGS, ids=lambda v: v.__name__ if isinstance(v, type) else
                                    ",".join(f"{k}={x}" for k, x in v.items()))


def check_model(bp, model, queries=()):
    """Pairs and queries equal the dict model's; the structure's invariants hold."""
    ids = np.array(sorted(model), dtype=np.int64)
    boxes = np.array([model[i] for i in ids.tolist()], dtype=np.float64).reshape(-1, 4)
    np.testing.assert_array_equal(bp.pairs(), model_pairs(model))
    for q in queries:
        np.testing.assert_array_equal(bp.query(q), filter_query(ids, boxes, q), err_msg=f"query {q}")
    check_grid(bp)


def random_box(rng, span=100.0):
    """Lattice boxes (touching common), points, some far away or huge, some negative."""
    u = rng.random()
    if u < 0.05:
        c = rng.choice([-FAR, FAR])
        x, y = c + rng.integers(0, 4), rng.choice([-FAR, 0.0, FAR]) + rng.integers(0, 4)
        return [float(x), float(y), float(x + rng.integers(0, 3)), float(y + rng.integers(0, 3))]
    if u < 0.08:  # a big box over much of the world
        x, y = rng.integers(-30, 50, 2)
        return [float(x), float(y), float(x + rng.integers(40, 150)), float(y + rng.integers(40, 150))]
    x, y = rng.integers(-10, int(span), 2)
    w = 0 if rng.random() < 0.15 else rng.integers(0, 15)
    h = 0 if rng.random() < 0.15 else rng.integers(0, 15)
    return [float(x), float(y), float(x + w), float(y + h)]


# --------------------------------------------------------------------------
# Every grid: brute force, hypothesis, sequences
# --------------------------------------------------------------------------
@by_config
@pytest.mark.parametrize("scene", SCENES)
def test_scenes_equal_brute_force(cls, params, scene):
    boxes = make_scene(scene, 250 if JIT_ENABLED else 120, seed=12)
    scaled = {k: 4 * v if k == "cell_size" else v for k, v in params.items()}  # scenes are 8x larger than WORLD
    bp = cls.from_boxes(boxes, **scaled)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    q = [200.0, 150.0, 420.0, 330.0]
    hit = (boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3]) & (q[1] <= boxes[:, 3])
    np.testing.assert_array_equal(bp.query(q), np.flatnonzero(hit))


@by_config
@few_examples
@given(boxes=box_arrays(max_size=30), queries=st.lists(lattice_box(lo=-10, hi=110, max_size=40), max_size=4))
def test_hypothesis_boxes(cls, params, boxes, queries):
    bp = cls(world=WORLD, **params)
    model = {}
    for i, b in enumerate(boxes.tolist()):
        bp.insert(i, b)
        model[i] = b
    check_model(bp, model, queries + [[-2 * FAR, -2 * FAR, 2 * FAR, 2 * FAR]])


@st.composite
def border_boxes(draw, cell=5.0):
    """Boxes whose edges lie on cell borders (multiples of ``cell``) or half-way, some outside the world."""
    rows = draw(st.lists(lattice_box(lo=-6, hi=44, max_size=6), min_size=1, max_size=30))
    return np.array(rows, dtype=np.float64) * (cell / 2)


@pytest.mark.parametrize("cls, params", [
    (UniformGrid, {"cell_size": 5.0}),
    (HierarchicalGrid, {"cell_size": 5.0, "parent_factor": 2, "grandparent_factor": 2}),
    (SpatialHash, {"cell_size": 5.0, "table_size": 13}),
], ids=["uniform", "hierarchical", "hash"])
@few_examples
@given(boxes=border_boxes())
def test_boxes_on_cell_borders(cls, params, boxes):
    """Touching exactly on a cell border: both boxes must share the border cell."""
    bp = cls.from_boxes(boxes, world=[0, 0, 50, 50], **params)
    assert set(map(tuple, bp.pairs().tolist())) == nested_loop_pairs(boxes)
    check_grid(bp)


@by_config
@pytest.mark.parametrize("seed", [0, 1])
def test_long_random_sequences(cls, params, seed):
    rng = np.random.default_rng(seed)
    bp, model = cls(world=WORLD, **params), {}
    for step in range(STEPS):
        op = rng.choice(["insert", "remove", "update", "update_many", "cleanup", "clear"],
                        p=[0.4, 0.2, 0.2, 0.1, 0.08, 0.02])
        if op == "insert":
            id_ = int(rng.integers(-30, 60))
            if id_ not in model:
                model[id_] = random_box(rng)
                bp.insert(id_, model[id_])
        elif op == "remove" and model:
            id_ = int(rng.choice(sorted(model)))
            bp.remove(id_)
            del model[id_]
        elif op == "update" and model:
            id_ = int(rng.choice(sorted(model)))
            if rng.random() < 0.5:  # a small move: often the same cells
                d = float(rng.integers(-2, 3))
                model[id_] = [v + d for v in model[id_]]
            else:
                model[id_] = random_box(rng)
            bp.update(id_, model[id_])
        elif op == "update_many" and model:
            ids = rng.permutation(sorted(model))[: int(rng.integers(1, len(model) + 1))].tolist()
            new = [random_box(rng) if rng.random() < 0.3 else [v + 1.0 for v in model[i]] for i in ids]
            bp.update_many(ids, new)
            model.update(zip(ids, new))
        elif op == "cleanup":
            bp.cleanup()
        elif op == "clear":
            bp.clear()
            model.clear()
        if step % 10 == 9:
            check_model(bp, model, [random_box(rng) for _ in range(2)])
    check_model(bp, model, [WORLD])


@by_config
def test_failed_calls_change_nothing(cls, params):
    bp = cls.from_boxes(make_scene("random", 80, seed=3, world=WORLD), **params)
    before = (bp.pairs(), bp.memory_bytes(), bp.regions()[0].copy())
    for call in (
        lambda: bp.insert(5, [0, 0, 1, 1]),  # duplicate id
        lambda: bp.insert(500, [0, 0, np.nan, 1]),
        lambda: bp.insert(500, [3, 0, 1, 1]),  # inverted
        lambda: bp.remove(500),
        lambda: bp.update(500, [0, 0, 1, 1]),
        lambda: bp.update(5, [0, np.inf, 1, 1]),
        lambda: bp.update_many([1, 2], [[0, 0, 1, 1]]),
        lambda: bp.update_many([1, 1], [[0, 0, 1, 1], [0, 0, 1, 1]]),
        lambda: bp.update_many([1, 999], [[0, 0, 1, 1], [0, 0, 1, 1]]),
        lambda: bp.update_many([1, 2], [[0, 0, 1, 1], [5, 0, 1, 1]]),
    ):
        with pytest.raises((ValueError, KeyError, TypeError)):
            call()
        np.testing.assert_array_equal(bp.pairs(), before[0])
        assert bp.memory_bytes() == before[1]
        np.testing.assert_array_equal(bp.regions()[0], before[2])
        check_grid(bp)


@by_config
def test_update_many_equals_one_by_one(cls, params):
    boxes = make_scene("clustered", 200, seed=4, world=WORLD)
    a, b = cls.from_boxes(boxes, **params), cls.from_boxes(boxes, **params)
    rng = np.random.default_rng(9)
    new = boxes + rng.uniform(-3, 3, size=(200, 1))
    new[::7] = make_scene("random", 200, seed=5)[::7]  # some jump far
    ids = np.arange(200)
    a.update_many(ids, new)
    for i in ids.tolist():
        b.update(i, new[i])
    np.testing.assert_array_equal(a.pairs(), brute_force_pairs(new))
    np.testing.assert_array_equal(a.pairs(), b.pairs())
    check_grid(a)
    check_grid(b)


# --------------------------------------------------------------------------
# The uniform grid's own
# --------------------------------------------------------------------------
def test_layout_one_int32_per_cell_and_8_byte_nodes():
    g = UniformGrid(world=[0, 0, 100, 50], cell_size=10)
    assert (g.rows, g.cols) == (5, 10)
    assert g.head.dtype == np.int32 and g.head.shape == (50,) and (g.head == -1).all()
    g.insert(1, [5, 5, 15, 5])  # two cells: (0, 0) and (0, 1)
    assert g.nxt.dtype == np.int32 and g.elem.dtype == np.int32
    occ = g.occupancy()
    assert occ.shape == (5, 10) and occ.sum() == 2 and occ[0, 0] == occ[0, 1] == 1
    assert g.memory_bytes() == g.elements.nbytes() + 50 * 4 + len(g.nxt) * 8 + 16


def test_cell_range_is_floor_clamped():
    g = UniformGrid(world=[0, 0, 100, 100], cell_size=10)
    assert g.cell_range([0, 0, 0, 0]) == (0, 0, 0, 0)
    assert g.cell_range([10, 10, 10, 10]) == (1, 1, 1, 1)  # a border belongs to the cell above it
    assert g.cell_range([9.999, 0, 10, 0]) == (0, 0, 1, 0)
    assert g.cell_range([-1e9, -5, 1e9, 5]) == (0, 0, 9, 0)  # clamped, not lost
    assert g.cell_range([100, 100, 1e300, 1e300]) == (9, 9, 9, 9)
    np.testing.assert_array_equal(g.cell_box(2, 3), [30, 20, 40, 30])


def test_boxes_outside_the_world_are_found():
    g = UniformGrid(world=[0, 0, 10, 10], cell_size=1)
    g.insert(1, [-100, -100, -90, -90])
    g.insert(2, [-90, -90, -80, -80])  # touches 1, both clamped into cell (0, 0)
    g.insert(3, [50, 50, 60, 60])
    g.insert(4, [-1e9, 5, 1e9, 5])  # a line through everything
    np.testing.assert_array_equal(g.pairs(), [[1, 2]])
    np.testing.assert_array_equal(g.query([-90, -90, -90, -90]), [1, 2])
    np.testing.assert_array_equal(g.query([-95, -95, -95, -95]), [1])
    np.testing.assert_array_equal(g.query([55, 5, 55, 5]), [4])


def test_pairs_reported_once_from_multi_cell_boxes():
    g = UniformGrid(world=[0, 0, 100, 100], cell_size=5)
    g.insert(1, [0, 0, 100, 100])  # in all 400 cells
    g.insert(2, [10, 10, 40, 40])  # in 49 of them
    g.insert(3, [12, 12, 12, 12])
    np.testing.assert_array_equal(g.pairs(), [[1, 2], [1, 3], [2, 3]])
    np.testing.assert_array_equal(g.query([0, 0, 100, 100]), [1, 2, 3])
    assert g.last_query_cells == 400


@pytest.mark.parametrize("kwargs, pattern", [
    ({"cell_size": 0}, "cell_size must be a positive finite number"),
    ({"cell_size": -1.0}, "cell_size must be a positive finite number"),
    ({"cell_size": np.nan}, "cell_size must be a positive finite number"),
    ({"cell_size": np.inf}, "cell_size must be a positive finite number"),
    ({"cell_size": "5"}, "cell_size must be a positive number"),
    ({"cell_size": True}, "cell_size must be a positive number"),
    ({"cell_size": 0.001}, r"more than max_cells=4,194,304 cells"),
    ({"cell_size": 1.0, "max_cells": 100}, r"more than max_cells=100 cells"),
    ({"max_cells": 0}, "max_cells must be an integer >= 1"),
    ({"max_cells": 2.5}, "max_cells must be an integer"),
])
def test_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        UniformGrid(world=[0, 0, 800, 600], **kwargs)


def test_defaults():
    g = UniformGrid()
    assert g.cell_size == 800 / 64 and (g.rows, g.cols) == (48, 64)
    assert grid_shape([0, 0, 800, 600], 12.5) == (48, 64)
    assert DEFAULT_MAX_CELLS == 4_194_304


def test_suggest_cell_size():
    boxes = make_scene("random", 2000)
    s = suggest_cell_size(boxes, factor=1.0)
    assert 12 <= s <= 16  # the scene's boxes are 12..16 units
    assert suggest_cell_size(boxes) == pytest.approx(2 * s)  # the default factor is 2
    points = np.array([[0.0, 0, 0, 0], [10, 10, 10, 10], [20, 0, 20, 0], [5, 5, 5, 5]])
    assert typical_box_size(points) == pytest.approx(np.sqrt(200 / 4))
    # A sparse, huge world: coarser cells rather than a gigantic array.
    far = np.array([[0.0, 0, 1, 1], [1e6, 1e6, 1e6 + 1, 1e6 + 1]])
    s = suggest_cell_size(far)
    r, c = grid_shape([0, 0, 1e6 + 1, 1e6 + 1], s)
    assert r * c <= 1024
    with pytest.raises(ValueError, match="factor"):
        suggest_cell_size(boxes, factor=0)
    with pytest.raises(ValueError, match=r"box 0 has xmin"):
        suggest_cell_size([[1, 0, 0, 0]])


def test_from_boxes_uses_suggested_cell_size():
    boxes = make_scene("large_boxes", 500)
    g = UniformGrid.from_boxes(boxes)
    assert g.cell_size == suggest_cell_size(boxes)
    assert UniformGrid.from_boxes(boxes, cell_size=33).cell_size == 33


def test_regions_all_cells_when_small_else_occupied():
    g = UniformGrid(world=[0, 0, 40, 30], cell_size=10)
    rects, depths = g.regions()
    assert rects.shape == (12, 4) and (depths == 0).all()
    big = UniformGrid(world=[0, 0, 1000, 1000], cell_size=1)
    big.insert(1, [0.5, 0.5, 1.5, 0.5])
    np.testing.assert_array_equal(big.regions()[0], [[0, 0, 1, 1], [1, 0, 2, 1]])


def test_cell_size_trade_off_counts_tests():
    boxes = make_scene("random", 500, seed=1)
    tests = [grid_pair_tests(boxes, s) for s in (4, 16, 64, 800)]
    assert tests[-1] == 500 * 499 // 2  # one cell: every pair
    assert tests[1] < tests[2] < tests[3]


# --------------------------------------------------------------------------
# The corner-only pitfall
# --------------------------------------------------------------------------
def test_corner_cells():
    assert corner_cells([5, 5, 6, 6], 10) == [(0, 0)]
    assert corner_cells([5, 5, 35, 6], 10) == [(0, 0), (0, 3)]  # skips columns 1 and 2
    assert corner_cells([5, 5, 15, 15], 10) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_corner_only_misses_crossing_boxes():
    boxes = np.array([[5.0, 15, 35, 16], [15, 5, 16, 35]])  # a cross meeting in cell (1, 1)
    pairs, tests = corner_only_pairs(boxes, 10, world=[0, 0, 40, 40])
    assert pairs.shape == (0, 2) and tests == 0
    np.testing.assert_array_equal(brute_force_pairs(boxes), [[0, 1]])


@pytest.mark.parametrize("scene", ["xline", "large_boxes"])
def test_corner_only_is_a_subset_that_misses_on_long_boxes(scene):
    boxes = make_scene(scene, 300, seed=2)
    got, _ = corner_only_pairs(boxes, 16.0)
    truth = set(map(tuple, brute_force_pairs(boxes).tolist()))
    found = set(map(tuple, got.tolist()))
    assert found <= truth
    assert len(found) < len(truth)


@few_examples
@given(box_arrays(max_size=25, box=lattice_box(lo=0, hi=40, max_size=4)))
def test_corner_only_is_right_when_boxes_fit_in_a_cell(boxes):
    """Boxes no larger than a cell cannot skip a cell: the pitfall needs long boxes."""
    got, _ = corner_only_pairs(boxes, 5.0, world=[0, 0, 50, 50])
    assert set(map(tuple, got.tolist())) == nested_loop_pairs(boxes)


# --------------------------------------------------------------------------
# Lesson helpers (grid_lab)
# --------------------------------------------------------------------------
def test_cell_size_sweep():
    from lessons_lib.labs.grids import cell_size_sweep

    boxes = make_scene("random", 300, seed=0)
    sw = cell_size_sweep(boxes, [8, 32, 800], repeat=1)
    assert set(sw) == {"cell_size", "cells", "nodes", "tests", "pairs", "build_ms", "pairs_ms"}
    assert (sw["pairs"] == len(brute_force_pairs(boxes))).all()
    assert sw["tests"][-1] == 300 * 299 // 2 and sw["nodes"][-1] == 300
    assert (sw["build_ms"] >= 0).all() and (sw["pairs_ms"] >= 0).all()


def test_insert_stepper_and_draw_grid():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessons_lib.labs.grids import draw_grid, insert_stepper

    boxes = np.array([[10.0, 10, 30, 25], [25, 20, 50, 50], [70, 5, 75, 110]])
    st_ = insert_stepper(boxes, cell_size=40, world=[0, 0, 160, 120])
    assert len(st_) == 4 and st_.label(2) == "insert box 1: 4 cells" and st_.label(3) == "insert box 2: 3 cells"
    assert st_.png(3)[:4] == b"\x89PNG"
    fig, ax = plt.subplots()
    draw_grid(ax, UniformGrid.from_boxes(boxes, cell_size=40, world=[0, 0, 160, 120]), fill_cells=[(0, 0)])
    assert len(ax.texts) == 5  # five non-empty cells, each labelled with its count
    plt.close(fig)
    with pytest.raises(ValueError, match="at most 30 boxes"):
        insert_stepper(make_scene("random", 31), cell_size=40, world=[0, 0, 800, 600])

"""Both quadtrees of lessons 04-05 against brute force, their invariants, and the known faults.

``NaiveQuadtree`` (node objects, Python lists) and ``Quadtree`` (8-byte nodes,
linked index lists, free lists) are checked the same way: fixed scenes,
hypothesis scenes, long random operation sequences with the structure's own
invariants checked along the way, and the failing inputs of the issue's
"known faults" list.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays, filter_query, model_pairs, nested_loop_pairs
from lessons_lib import SCENES, NaiveQuadtree, Quadtree, brute_force_pairs, make_scene
from lessons_lib.structures.naive_quadtree import child_rects
from lessons_lib.structures.curves import morton_encode
from lessons_lib.structures.grid_cells import cell_of
from lessons_lib.structures.quad_nodes import BRANCH
from lessons_lib.structures.quadtree import leaf_pairs

TREES = [NaiveQuadtree, Quadtree]
by_tree = pytest.mark.parametrize("cls", TREES, ids=lambda c: c.__name__)
#: (capacity, max_depth) settings, from degenerate to default.
PARAMS = [(1, 0), (1, 3), (2, 5), (4, 6), (8, 8)]
by_params = pytest.mark.parametrize("capacity, max_depth", PARAMS)


def check_tree(bp, model=None, queries=()):
    """Invariants, then pairs and queries equal to the definition."""
    bp.check_invariants()
    if model is not None:
        np.testing.assert_array_equal(bp.pairs(), model_pairs(model))
        ids = np.array(sorted(model), dtype=np.int64)
        boxes = np.array([model[i] for i in sorted(model)], dtype=np.float64).reshape(-1, 4)
        for q in queries:
            np.testing.assert_array_equal(bp.query(q), filter_query(ids, boxes, q), err_msg=f"query {q}")


# --------------------------------------------------------------------------
# Fixed scenes and hypothesis scenes
# --------------------------------------------------------------------------
@by_tree
@pytest.mark.parametrize("scene", SCENES)
def test_scenes_equal_brute_force(cls, scene):
    boxes = make_scene(scene, 400, seed=3)
    ref = brute_force_pairs(boxes)
    for capacity, max_depth in [(8, 8), (2, 6)]:
        bp = cls.from_boxes(boxes, capacity=capacity, max_depth=max_depth)
        bp.check_invariants()
        np.testing.assert_array_equal(bp.pairs(), ref)
        q = [100.0, 100.0, 300.0, 250.0]
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


@pytest.mark.parametrize("scene", ["random", "mixed_sizes", "xline"])
def test_query_driven_pairs_equal_leaf_pairs(scene):
    boxes = make_scene(scene, 300, seed=5)
    qt = Quadtree.from_boxes(boxes, capacity=4)
    ref = brute_force_pairs(boxes)
    np.testing.assert_array_equal(qt.pairs_by_queries("leaves"), ref)
    np.testing.assert_array_equal(qt.pairs_by_queries("slots"), ref)
    order = qt.leaf_order()
    assert sorted(order.tolist()) == list(range(len(boxes)))
    with pytest.raises(ValueError, match="order"):
        qt.pairs_by_queries("random")


WORLDS = [None, [0.0, 0.0, 800.0, 600.0], [-500.0, -500.0, 500.0, 500.0], [3.0, -7.0, 13.0, 0.0]]


@by_tree
@settings(max_examples=40)
@given(boxes=box_arrays(max_size=40), params=st.sampled_from(PARAMS), world=st.sampled_from(WORLDS),
       data=st.data())
def test_hypothesis_scenes(cls, boxes, params, world, data):
    capacity, max_depth = params
    bp = cls.from_boxes(boxes, capacity=capacity, max_depth=max_depth, world=world)
    bp.check_invariants()
    want = np.array(sorted(nested_loop_pairs(boxes)), dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(bp.pairs(), want)
    ids = np.arange(len(boxes))
    queries = [[-10, -10, 30, 30], [0, 0, 0, 0], [12, 12, 12, 12], [-1e7, -1e7, 1e7, 1e7]]
    if len(boxes):
        k = data.draw(st.integers(0, len(boxes) - 1))
        x0, y0, x1, y1 = boxes[k]
        queries += [[x1, y0, x1 + 1, y1], [x0 - 2, y0 - 2, x0, y0], boxes[k].tolist()]
    for q in queries:
        np.testing.assert_array_equal(bp.query(q), filter_query(ids, boxes, q), err_msg=f"query {q}")


# --------------------------------------------------------------------------
# Long random operation sequences
# --------------------------------------------------------------------------
def random_box(rng, world_span=100.0, huge=True):
    r = rng.random()
    if r < 0.04:  # far outside
        c = rng.choice([-1e6, 1e6])
        return [float(c), float(c), float(c + rng.integers(0, 3)), float(c + rng.integers(0, 3))]
    if r < 0.10:  # a few coincident points
        return [50.0, 50.0, 50.0, 50.0]
    if r < 0.11 and huge:  # huge: a few at once force every leaf under them down to max_depth
        return [-20.0, -20.0, 130.0, 130.0]
    x, y = rng.integers(-5, int(world_span)), rng.integers(-5, int(world_span))
    w = 0 if rng.random() < 0.15 else rng.integers(0, 12)
    h = 0 if rng.random() < 0.15 else rng.integers(0, 12)
    return [float(x), float(y), float(x + w), float(y + h)]


@by_tree
@pytest.mark.parametrize("capacity, max_depth, seed", [(1, 4, 0), (2, 6, 1), (8, 8, 2), (3, 9, 3)])
def test_long_random_sequences(cls, capacity, max_depth, seed):
    rng = np.random.default_rng(seed)
    bp = cls(world=[0.0, 0.0, 100.0, 100.0], capacity=capacity, max_depth=max_depth)
    model: dict[int, list[float]] = {}
    next_id = 0
    steps = 500 if cls is NaiveQuadtree else 700
    huge = max_depth <= 8  # huge boxes over capacity fill every leaf under them down to max_depth
    for step in range(steps):
        op = rng.random()
        if op < 0.35 or not model:
            b = random_box(rng, huge=huge)
            bp.insert(next_id, b)
            model[next_id] = b
            next_id += 1
        elif op < 0.55:
            i = int(rng.choice(list(model)))
            bp.remove(i)
            del model[i]
        elif op < 0.75:
            i = int(rng.choice(list(model)))
            old = model[i]
            b = [v + d for v, d in zip(old, np.repeat(rng.uniform(-3, 3, 2), 2).tolist())] if rng.random() < 0.7 else random_box(rng, huge=huge)
            b = [min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])]
            bp.update(i, b)
            model[i] = b
        elif op < 0.88:
            k = int(rng.integers(1, len(model) + 1))
            ids = rng.choice(list(model), size=k, replace=False)
            new = []
            for i in ids.tolist():
                d = rng.uniform(-4, 4, 2)
                o = model[i]
                new.append([o[0] + d[0], o[1] + d[1], o[2] + d[0], o[3] + d[1]] if rng.random() < 0.8 else random_box(rng, huge=huge))
            bp.update_many(ids, new)
            for i, b in zip(ids.tolist(), new):
                model[i] = list(map(float, b))
        else:
            bp.cleanup()
        if step % 25 == 0:
            check_tree(bp, model, queries=[[0, 0, 50, 50], [50, 50, 50, 50], [-1e7, -1e7, 1e7, 1e7]])
    check_tree(bp, model)
    for i in list(model):  # drain, then cleanup collapses everything back to the root
        bp.remove(i)
    for _ in range(max_depth + 1):
        bp.cleanup()
    bp.check_invariants()
    assert bp.node_count() == 1 and bp.depth() == 0


# --------------------------------------------------------------------------
# Known faults
# --------------------------------------------------------------------------
ROOT_CHILDREN_800x600 = [[0, 300, 400, 600], [400, 300, 800, 600], [0, 0, 400, 300], [400, 0, 800, 300]]


@by_tree
def test_800x600_children_take_their_height_from_the_height(cls):
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 790, size=(40, 2)) * [1, 0.75]
    boxes = np.column_stack([xy, xy + 5])
    bp = cls.from_boxes(boxes, world=[0, 0, 800, 600], capacity=4, max_depth=3)
    rects, depths = bp.regions()
    np.testing.assert_array_equal(rects[0], [0, 0, 800, 600])
    np.testing.assert_array_equal(rects[depths == 1], ROOT_CHILDREN_800x600)
    assert set(map(tuple, (rects[depths == 2][:, 2:] - rects[depths == 2][:, :2]).tolist())) == {(200.0, 150.0)}
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    bp.check_invariants()


def test_naive_child_rects_are_quadrants():
    assert child_rects((0, 0, 800, 600)) == [tuple(map(float, r)) for r in ROOT_CHILDREN_800x600]


def test_compact_800x600_cell_edges_are_exact():
    qt = Quadtree(world=[0, 0, 800, 600], max_depth=3)
    assert qt.cell_range([399.999, 299.999, 400.0, 300.0]) == (3, 3, 4, 4)
    assert qt.cell_range([0, 0, 800, 600]) == (0, 0, 7, 7)
    # a box in the lower half (y < 300) never reaches a top child
    qt.insert(0, [10, 10, 20, 20])
    for i in range(1, 9):
        qt.insert(i, [500, 500, 501, 501])
    t = qt.node_table()
    tl = t["index"][(t["depth"] == 1)][0]
    assert 0 not in qt.leaf_elements(tl)
    bl = t["index"][(t["depth"] == 1)][2]
    assert qt.leaf_elements(bl) == [0]


@by_tree
def test_negative_world_boxes_straddling_zero(cls):
    rng = np.random.default_rng(4)
    c = rng.uniform(-3, 3, size=(200, 2))
    s = rng.uniform(0, 2, size=(200, 2))
    boxes = np.column_stack([c - s, c + s])
    boxes = np.vstack([boxes, [[-0.5, -0.5, 0.0, 0.0], [0.0, 0.0, 0.4, 0.4], [-1.5, 0.2, -0.5, 0.9]]])
    bp = cls.from_boxes(boxes, world=[-500, -500, 500, 500], capacity=2, max_depth=12)
    bp.check_invariants()
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    assert bp.query([-0.2, -0.2, -0.1, -0.1]).tolist() == filter_query(np.arange(len(boxes)), boxes, [-0.2, -0.2, -0.1, -0.1]).tolist()


def test_cell_of_is_a_true_floor_then_a_clamp():
    # origin -500, 1 cell per unit, 1000 cells: -0.5 is in cell 499 (floor), not 500 (truncation toward 0)
    assert cell_of(-0.5, -500.0, 1.0, 1000) == 499
    assert cell_of(0.0, -500.0, 1.0, 1000) == 500
    assert cell_of(-0.5, 0.0, 1.0, 8) == 0  # below the root: clamped, not lost
    assert cell_of(1e300, 0.0, 1.0, 8) == 7
    assert cell_of(-1e300, 0.0, 1.0, 8) == 0
    qt = Quadtree(world=[-500, -500, 500, 500], max_depth=10)
    cx0, cy0, cx1, cy1 = qt.cell_range([-0.5, -0.5, 0.5, 0.5])
    assert (cx0, cx1) == (int(np.floor(499.5 * 1.024)), int(np.floor(500.5 * 1.024)))


@by_tree
@pytest.mark.parametrize("copies", [9, 10_000])
def test_coincident_points_do_not_split_whatever_the_depth(cls, copies):
    if copies == 10_000 and cls is NaiveQuadtree:
        copies = 2_000  # same rule, in interpreted Python
    bp = cls(world=[0, 0, 100, 100], capacity=8, max_depth=30)
    for i in range(copies):
        bp.insert(i, [37.5, 12.25, 37.5, 12.25])
    assert bp.depth() == 0 and bp.node_count() == 1  # a split would hand all of them to one child
    np.testing.assert_array_equal(bp.query([37.5, 12.25, 37.5, 12.25]), np.arange(copies))
    np.testing.assert_array_equal(bp.query([0, 0, 37.5, 12.25]), np.arange(copies))
    assert len(bp.query([0, 0, 37.4, 100])) == 0
    if copies <= 100:
        assert len(bp.pairs()) == copies * (copies - 1) // 2
    bp.check_invariants()
    bp.insert(copies, [80, 80, 81, 81])  # one element elsewhere: now a split separates it
    assert bp.depth() >= 1
    bp.check_invariants()
    assert bp.node_count() <= 4 * 30 + 1  # one path down, not 4**depth nodes
    np.testing.assert_array_equal(bp.query([80, 80, 80, 80]), [copies])


@by_tree
def test_near_coincident_points_still_split_down_to_max_depth(cls):
    bp = cls(world=[0, 0, 64, 64], capacity=2, max_depth=5)
    for i, x in enumerate([9.5, 10.0, 10.5]):
        bp.insert(i, [x, 10, x, 10])
    assert bp.depth() == 5  # they separate only in the leaves of size 2 (64 / 32)
    bp.check_invariants()
    assert len(bp.pairs()) == 0


@by_tree
def test_boxes_covering_the_whole_leaf_do_not_split(cls):
    bp = cls(world=[0, 0, 64, 64], capacity=2, max_depth=4)
    for i in range(12):
        bp.insert(i, [-10.0 - i, -10.0, 80.0, 80.0 + i])  # all different, all covering the root
    assert bp.depth() == 0 and bp.node_count() == 1
    assert len(bp.pairs()) == 66
    corners = [[1, 1, 2, 2], [60, 60, 61, 61], [1, 60, 2, 61], [60, 1, 61, 2]]
    for i, b in enumerate(corners, 12):  # separable, but most of the root stays covered: a split would
        bp.insert(i, b)                   # copy the twelve giants into every child and separate none of them
    assert bp.depth() == 0 and bp.node_count() == 1
    assert len(bp.pairs()) == 66 + 12 * 4
    bp.check_invariants()
    for i in range(12):  # as the giants leave, the root splits as soon as the rules allow it
        bp.remove(i)
        bp.check_invariants()
        assert bp.depth() == (0 if i < 8 else 1)
    assert bp.node_count() == 5 and len(bp.pairs()) == 0


@by_tree
def test_from_boxes_of_identical_boxes_stays_linear(cls):
    copies = 400 if cls is Quadtree else 60
    boxes = np.tile([50.0, 50.0, 750.0, 550.0], (copies, 1))
    bp = cls.from_boxes(boxes, world=[0, 0, 800, 600], max_depth=30)
    assert bp.node_count() == 1
    assert len(bp.pairs()) == copies * (copies - 1) // 2
    for i in range(0, copies, 2):
        bp.remove(i)
    bp.update(1, [0, 0, 1, 1])
    bp.cleanup()
    bp.check_invariants()
    m = len(bp)
    assert len(bp.pairs()) == (m - 1) * (m - 2) // 2


@by_tree
def test_flat_box_on_the_root_border_is_found_after_splits(cls):
    bp = cls(world=[0, 0, 100, 100], capacity=2, max_depth=5)
    bp.insert(0, [0, 100, 25, 100])
    for i, b in enumerate([[10, 10, 12, 12], [60, 60, 62, 62], [80, 90, 81, 91], [5, 95, 6, 99], [20, 99, 30, 100]], 1):
        bp.insert(i, b)
    assert bp.depth() >= 2
    assert bp.query([0, 100, 25, 100]).tolist() == [0, 5]
    assert bp.query([10, 100, 10, 100]).tolist() == [0]
    assert bp.query([0, 100, 0, 100]).tolist() == [0]
    assert [0, 5] in bp.pairs().tolist()
    bp.check_invariants()
    bp.remove(0)
    bp.check_invariants()
    assert bp.query([0, 100, 25, 100]).tolist() == [5]


@by_tree
def test_touching_along_left_and_bottom_edges(cls):
    bp = cls(world=[0, 0, 64, 64], capacity=1, max_depth=6)
    boxes = {0: [16, 16, 32, 32], 1: [8, 16, 16, 32], 2: [16, 8, 32, 16], 3: [8, 8, 16, 16],
             4: [32, 32, 40, 40], 5: [0, 0, 0, 64], 6: [0, 0, 64, 0]}
    for i, b in boxes.items():
        bp.insert(i, b)
    check_tree(bp, boxes, queries=[[0, 0, 8, 8], [32, 0, 32, 64], [16, 16, 16, 16], [0, 0, 0, 0]])
    got = set(map(tuple, bp.pairs().tolist()))
    assert {(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (2, 3), (5, 6)} <= got


# --------------------------------------------------------------------------
# Deferred cleanup, free lists, the same-leaves skip
# --------------------------------------------------------------------------
@by_tree
def test_cleanup_collapses_one_level_per_call_and_never_the_root(cls):
    bp = cls(world=[0, 0, 64, 64], capacity=1, max_depth=6)
    pts = [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [60, 60, 60, 60]]
    for i, b in enumerate(pts):
        bp.insert(i, b)
    deep = bp.depth()
    assert deep >= 4
    regions_before = bp.regions()
    for i in range(len(pts)):
        bp.remove(i)
    np.testing.assert_array_equal(bp.regions()[0], regions_before[0])  # empty leaves stay until cleanup
    depths = []
    while True:
        bp.cleanup()
        bp.check_invariants()
        depths.append(bp.depth())
        if depths[-1] == 0:
            break
    assert depths == list(range(deep - 1, -1, -1))
    bp.cleanup()  # the root is never freed
    assert bp.node_count() == 1 and len(bp) == 0


def test_compact_cleanup_frees_blocks_that_later_splits_reuse():
    qt = Quadtree(world=[0, 0, 64, 64], capacity=1, max_depth=6)
    for i, b in enumerate([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]):
        qt.insert(i, b)
    used = int(qt.node_meta[0])
    for i in range(3):
        qt.remove(i)
    while qt.depth() > 0:
        qt.cleanup()
    assert qt.node_meta[1] != -1 and qt.nodes[0, 1] == 0
    for i, b in enumerate([[60, 60, 60, 60], [61, 61, 61, 61]]):
        qt.insert(i, b)
    assert int(qt.node_meta[0]) == used  # the split reused freed blocks: nothing new handed out
    qt.check_invariants()


def test_update_skips_when_the_leaves_stay_the_same():
    qt = Quadtree(world=[0, 0, 64, 64], capacity=1, max_depth=3)
    qt.insert(0, [1, 1, 2, 2])
    qt.insert(1, [40, 40, 41, 41])
    en_before = qt.enodes.copy()
    qt.update(0, [1.5, 1.5, 2.5, 2.5])  # same cell
    assert qt.last_moved == 0
    qt.update(0, [3, 3, 6, 6])  # other cells, same leaf (the bottom-left quadrant is a leaf)
    assert qt.last_moved == 0
    np.testing.assert_array_equal(qt.enodes, en_before)
    qt.update(0, [50, 10, 51, 11])  # another leaf
    assert qt.last_moved == 1
    qt.check_invariants()
    np.testing.assert_array_equal(qt.query([0, 0, 10, 10]), [])
    np.testing.assert_array_equal(qt.query([50, 10, 50, 10]), [0])


def test_update_many_interleaved_with_splits_stays_consistent():
    """Moving many elements at once where re-inserts split leaves holding not-yet-moved elements."""
    rng = np.random.default_rng(9)
    boxes = np.column_stack([rng.uniform(0, 60, (300, 2)), np.zeros((300, 2))])
    boxes[:, 2:] = boxes[:, :2] + rng.uniform(0, 3, (300, 2))
    qt = Quadtree.from_boxes(boxes, world=[0, 0, 64, 64], capacity=2, max_depth=7)
    for step in range(5):
        new = boxes.copy()
        new[::2] = np.clip(boxes[::2] * 0.1 + 1, 0, 64)  # half of them pile into one corner
        new[1::2] += rng.uniform(-2, 2, (150, 1))
        qt.update_many(np.arange(300), new)
        qt.check_invariants()
        np.testing.assert_array_equal(qt.pairs(), brute_force_pairs(new))
        qt.cleanup()
        boxes = new[::-1].copy()
        qt.update_many(np.arange(300), boxes)
        qt.check_invariants()


def test_update_many_small_steps_and_jumps_match_brute_force():
    """Small steps (old and new cell ranges overlap: one descent over both) mixed with jumps and
    growing boxes (two descents); re-inserts start at the new leaves, some split meanwhile by an
    earlier mover of the same batch."""
    rng = np.random.default_rng(5)
    n = 400
    lo = rng.uniform(0, 60, (n, 2))
    boxes = np.column_stack([lo, lo + rng.uniform(0, 2, (n, 2))])
    qt = Quadtree.from_boxes(boxes, world=[0, 0, 64, 64], capacity=1, max_depth=6)
    for step in range(8):
        new = boxes.copy()
        shift = rng.uniform(-1.5, 1.5, (n, 2))
        new += np.hstack([shift, shift])
        jump = rng.random(n) < 0.1
        shift = rng.uniform(-30, 30, (jump.sum(), 2))
        new[jump] += np.hstack([shift, shift])
        wide = rng.random(n) < 0.05
        new[wide, 2:] += rng.uniform(0, 20, (wide.sum(), 2))
        ids = rng.permutation(n)[: 3 * n // 4]
        qt.update_many(ids, new[ids])
        boxes[ids] = new[ids]
        qt.check_invariants()
        np.testing.assert_array_equal(qt.pairs(), brute_force_pairs(boxes))
        q = [20, 20, 30, 30]
        want = np.flatnonzero((boxes[:, 0] <= q[2]) & (boxes[:, 2] >= q[0])
                              & (boxes[:, 1] <= q[3]) & (boxes[:, 3] >= q[1]))
        np.testing.assert_array_equal(qt.query(q), want)
        if step % 3 == 2:
            qt.cleanup()


def test_compact_layout_is_8_bytes_per_node_and_element_node():
    qt = Quadtree.from_boxes(make_scene("random", 2000, seed=1))
    assert qt.nodes.dtype == np.int32 and qt.nodes.shape[1] == 2
    assert qt.enodes.dtype == np.int32 and qt.enodes.shape[1] == 2
    t = qt.node_table()
    assert (t["count"][~t["is_leaf"]] == BRANCH).all()
    assert set(t["first"][~t["is_leaf"]] % 4) == {1}  # children in blocks of four after the root
    assert qt.memory_bytes() == qt.elements.nbytes() + qt.nodes.nbytes + qt.enodes.nbytes + qt._seen.nbytes
    assert qt.node_count() == len(t["index"]) and qt.leaf_count() == int(t["is_leaf"].sum())


def test_bulk_load_order_is_the_shared_morton_code():
    assert morton_encode([0, 1, 0, 1, 2, 3], [0, 0, 1, 1, 0, 3]).tolist() == [0, 1, 2, 3, 4, 15]


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------
@by_tree
@pytest.mark.parametrize("kw, pattern", [
    ({"capacity": 0}, "capacity"), ({"capacity": -3}, "capacity"), ({"capacity": 2.5}, "capacity"),
    ({"capacity": True}, "capacity"), ({"max_depth": -1}, "max_depth"), ({"max_depth": 31}, "max_depth"),
    ({"max_depth": "8"}, "max_depth"),
])
def test_bad_parameters(cls, kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(**kw)


@by_tree
def test_depth_zero_is_a_flat_list(cls):
    boxes = make_scene("random", 200, seed=2)
    bp = cls.from_boxes(boxes, max_depth=0)
    assert bp.depth() == 0 and bp.node_count() == 1
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))


def test_query_marks_are_one_bit_per_slot_and_cleared_after_each_query():
    boxes = make_scene("mixed_sizes", 500, seed=3)
    qt = Quadtree.from_boxes(boxes, capacity=4, max_depth=6)
    assert qt.enode_meta[0] > len(qt)  # some elements lie in several leaves: the marks matter
    assert qt._seen.nbytes == (qt.elements.capacity + 7) // 8
    for q in [[0, 0, 800, 600], [100, 100, 300, 250], [250, 0, 250, 600], [-50, -50, 10, 10]]:
        np.testing.assert_array_equal(qt.query(q), filter_query(np.arange(len(boxes)), boxes, q))
        assert not qt._seen.any()
    for i in range(500, 540):  # inserts past the marks' size grow them
        qt.insert(i, [400, 300, 410, 310])
    got = qt.query([405, 305, 405, 305])
    assert set(range(500, 540)) <= set(got.tolist()) and not qt._seen.any()


@pytest.mark.parametrize("copies", [300, 2000])
def test_pairs_walk_regrows_its_output_when_the_guess_is_short(copies):
    # coincident boxes: copies * (copies - 1) / 2 pairs from one leaf, far more than
    # the first guess of two pairs per element node
    boxes = np.tile([10.0, 10.0, 12.0, 12.0], (copies, 1))
    qt = Quadtree.from_boxes(np.vstack([boxes, [[90, 90, 95, 95]]]), capacity=8, max_depth=3)
    assert 2 * len(qt.enodes) + 1024 < copies * (copies - 1) // 2
    np.testing.assert_array_equal(qt.pairs(), brute_force_pairs(np.vstack([boxes, [[90, 90, 95, 95]]])))


def test_leaf_pairs_output_trusted_only_below_its_size():
    boxes = make_scene("random", 400, seed=8)
    qt = Quadtree.from_boxes(boxes, capacity=8, max_depth=5)
    big = int(max(16, qt.nodes[:, 1].max()))
    scratch = (np.empty((3 * qt.max_depth + 1, 5), np.int64), np.empty((big, 4)), np.empty(big, np.int64),
               np.empty((big, 2), np.int64))
    run = lambda out: leaf_pairs(qt.tree, qt._cells, qt.elements.boxes, *scratch, out)
    m = run(np.empty((10_000, 2), np.int64))
    ref = {tuple(sorted(p)) for p in brute_force_pairs(boxes).tolist()}
    assert m == len(ref) > 0
    for size in (m - 1, m, m + 1):
        out = np.empty((size, 2), np.int64)
        assert run(out) == m
        if size > m:  # below the size: every row is a real pair
            assert {tuple(sorted(p)) for p in out[:m].tolist()} == ref

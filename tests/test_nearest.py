"""k nearest neighbours on the node-array trees (k-d tree, R-trees) against brute force."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays
from lessons_lib import STRUCTURES, brute_force_nearest, make_scene

TREES = ["kdtree", "rtree", "rstar_tree", "bulk_rtree"]


def assert_same(tree, boxes_by_id, points, k):
    ids = np.array(sorted(boxes_by_id), np.int64)
    boxes = np.array([boxes_by_id[i] for i in ids.tolist()])
    got_ids, got_d = tree.nearest(points, k)
    want_ids, want_d = brute_force_nearest(boxes, points, k, ids=ids)
    np.testing.assert_array_equal(got_d, want_d)
    np.testing.assert_array_equal(got_ids, want_ids)


@pytest.mark.parametrize("name", TREES)
@pytest.mark.parametrize("scene", ["random", "clustered", "xline", "mixed_sizes"])
def test_scenes(name, scene):
    boxes = make_scene(scene, 1500, seed=3)
    tree = STRUCTURES[name].from_boxes(boxes)
    points = np.random.default_rng(4).uniform(-100, 900, (150, 2))
    for k in (1, 3, 17):
        assert_same(tree, dict(enumerate(boxes.tolist())), points, k)


@pytest.mark.parametrize("name", TREES)
@settings(max_examples=40, deadline=None)
@given(boxes=box_arrays(min_size=1, max_size=30),
       points=st.lists(st.tuples(st.integers(-6, 30), st.integers(-6, 30)), min_size=1, max_size=8),
       k=st.integers(1, 6))
def test_hypothesis_ties_and_touching(name, boxes, points, k):
    """Lattice boxes make many equal distances: ties must come out in id order."""
    k = min(k, len(boxes))
    tree = STRUCTURES[name].from_boxes(boxes)
    assert_same(tree, dict(enumerate(boxes.tolist())), np.array(points, float), k)


@pytest.mark.parametrize("name", TREES)
def test_after_removals_and_moves_with_arbitrary_ids(name):
    rng = np.random.default_rng(7)
    tree = STRUCTURES[name]()
    model = {}
    for step in range(600):
        op = rng.random()
        if op < 0.55 or len(model) < 5:
            i = int(rng.integers(0, 10_000))
            if i in model:
                continue
            x, y = rng.uniform(0, 500, 2)
            model[i] = [x, y, x + rng.uniform(0, 20), y + rng.uniform(0, 20)]
            tree.insert(i, model[i])
        elif op < 0.8:
            i = int(rng.choice(list(model)))
            tree.remove(i)
            del model[i]
        else:
            i = int(rng.choice(list(model)))
            x, y = rng.uniform(0, 500, 2)
            model[i] = [x, y, x + 5, y + 5]
            tree.update(i, model[i])
        if step % 50 == 49:
            assert_same(tree, model, rng.uniform(-20, 520, (20, 2)), min(4, len(model)))


def test_inside_a_box_is_distance_zero_and_one_point_is_one_row():
    tree = STRUCTURES["kdtree"].from_boxes([[0, 0, 10, 10], [20, 0, 30, 10]])
    ids, d = tree.nearest([10, 5])  # on the first box's edge: closed boxes
    assert ids.tolist() == [[0]] and d.tolist() == [[0.0]]
    ids, d = tree.nearest([[15, 5]], k=2)
    assert ids.tolist() == [[0, 1]] and d.tolist() == [[5.0, 5.0]]


@pytest.mark.parametrize("name", TREES)
@pytest.mark.filterwarnings("ignore:overflow")
def test_points_so_far_that_squared_distances_overflow(name):
    # Regression: every d2 was inf, the kernel never filled its empty places and returned slot -1,
    # i.e. the id of whatever sat in the last slot of the table (here a removed id, 0), k times.
    boxes = make_scene("random", 60, seed=2)
    tree = STRUCTURES[name].from_boxes(boxes)
    tree.remove(0)
    model = {i: b for i, b in enumerate(boxes.tolist()) if i}
    points = np.array([[1e200, 1e200], [-1e200, 0.0], [1e155, 1e155], [400.0, 300.0]])
    for k in (1, 3, 59):
        assert_same(tree, model, points, k)
    assert tree.nearest(points[:1], 3)[0].tolist() == [[1, 2, 3]]  # all at d = inf: id order


@pytest.mark.parametrize("name", TREES)
def test_bad_input(name):
    tree = STRUCTURES[name].from_boxes(make_scene("random", 20, seed=1))
    with pytest.raises(ValueError, match="NaN or infinite"):
        tree.nearest([[1.0, np.nan]])
    with pytest.raises(ValueError, match="shape"):
        tree.nearest([[1.0, 2.0, 3.0]])
    for k in (0, 21, 1.5, True):
        with pytest.raises(ValueError, match="k must be an integer in 1..20"):
            tree.nearest([[1.0, 2.0]], k=k)
    with pytest.raises(ValueError, match="k must be an integer in 1..0"):
        STRUCTURES[name]().nearest([[0.0, 0.0]])


def test_brute_force_nearest_bad_input():
    with pytest.raises(ValueError, match="ids must have shape"):
        brute_force_nearest([[0, 0, 1, 1]], [[0, 0]], ids=[1, 2])
    with pytest.raises(ValueError, match="k must be"):
        brute_force_nearest([[0, 0, 1, 1]], [[0, 0]], k=2)

"""k nearest neighbours on the node-array trees (k-d tree, R-trees) against brute force."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays
from lessons_lib import STRUCTURES, brute_force_nearest, make_scene

TREES = ["kdtree", "rtree", "rstar_tree", "bulk_rtree"]


def assert_same(tree, boxes_by_id, points, k):
    """The tree's answer equals brute force's, or (where brute force's squared distances under- or
    overflow) ranks the boxes as exact arithmetic does."""
    ids = np.array(sorted(boxes_by_id), np.int64)
    boxes = np.array([boxes_by_id[i] for i in ids.tolist()])
    got_ids, got_d = tree.nearest(points, k)
    want_ids, want_d = brute_force_nearest(boxes, points, k, ids=ids)
    if not (np.array_equal(got_d, want_d) and np.array_equal(got_ids, want_ids)):
        assert_exact_ranking(got_ids, got_d, boxes_by_id, points, k)


def assert_exact_ranking(got_ids, got_d, boxes_by_id, points, k):
    """Distances within 1e-12 of the exact ones, increasing, and the ids' exact distances the k smallest
    (boxes whose distances differ by less than that are interchangeable)."""
    for m, p in enumerate(np.asarray(points, float).reshape(-1, 2).tolist()):
        exact_ids, exact_d = exact_nearest(boxes_by_id, p, k)
        assert (np.diff(got_d[m]) >= 0).all(), "distances not in increasing order"
        np.testing.assert_allclose(got_d[m], exact_d, rtol=1e-12, atol=0)
        by_id = {i: d for i, d in zip(*exact_nearest(boxes_by_id, p, len(boxes_by_id)))}
        np.testing.assert_allclose([by_id[i] for i in got_ids[m].tolist()], exact_d, rtol=1e-12, atol=0)


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


def exact_nearest(boxes_by_id, point, k):
    """Ids and distances of the ``k`` nearest boxes, ranked by exact squared distances (fractions), ties by id."""
    px, py = (Fraction(v) for v in point)
    rows = []
    for i, (x0, y0, x1, y1) in boxes_by_id.items():
        dx = max(Fraction(x0) - px, Fraction(0), px - Fraction(x1))
        dy = max(Fraction(y0) - py, Fraction(0), py - Fraction(y1))
        rows.append((dx * dx + dy * dy, i, math.hypot(float(dx), float(dy))))
    rows.sort()
    return [r[1] for r in rows[:k]], [r[2] for r in rows[:k]]


@pytest.mark.parametrize("name", TREES)
@pytest.mark.parametrize("scale", [1e-320, 1e-300, 1e-160, 1.0, 1e160, 1e300])
def test_distances_at_every_scale(name, scale):
    """Squared distances of far points overflow (and of near ones underflow): the ranking must not."""
    # Regression: every d2 was inf (or 0), and the nearest came out in id order.
    boxes = make_scene("random", 60, seed=2) / 800.0 * scale
    tree = STRUCTURES[name].from_boxes(boxes)
    tree.remove(0)
    model = {i: b for i, b in enumerate(boxes.tolist()) if i}
    points = np.array([[3.0, 3.0], [-2.0, 0.5], [0.5, 0.25], [1.5, -4.0]]) * scale
    for k in (1, 3, 59):
        assert_exact_ranking(*tree.nearest(points, k), model, points, k)
    assert np.isfinite(tree.nearest(points, 3)[1]).all()


@pytest.mark.parametrize("name", TREES)
def test_distances_beyond_the_float_range_are_inf(name):
    tree = STRUCTURES[name].from_boxes([[-1.7e308, 0, -1.7e308, 0], [0, 0, 1, 1]])
    ids, dist = tree.nearest([[1.7e308, 0.0]], 2)
    assert ids.tolist() == [[1, 0]] and dist[0, 0] == 1.7e308 - 1 and dist[0, 1] == np.inf


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
    with pytest.raises(ValueError, match="nearest needs at least one stored box: this .* is empty"):
        STRUCTURES[name]().nearest([[0.0, 0.0]])


def test_brute_force_nearest_bad_input():
    with pytest.raises(ValueError, match="ids must have shape"):
        brute_force_nearest([[0, 0, 1, 1]], [[0, 0]], ids=[1, 2])
    with pytest.raises(ValueError, match="k must be"):
        brute_force_nearest([[0, 0, 1, 1]], [[0, 0]], k=2)


@pytest.mark.parametrize("name", TREES)
@pytest.mark.parametrize("unit", [5e-324, 2.0 ** -1000, 1.0, 2.0 ** 1000], ids=["denormal", "tiny", "one", "huge"])
def test_ranking_by_exact_distance_at_the_ends_of_the_float_range(name, unit):
    """Lattice boxes scaled to the denormals near 1e-323 (issue 34, item 10), and to 2**-1000, 1 and 2**1000.

    Near 1e-323 squared distances underflow to 0 and the distances themselves round to a few bits (2 and 2.83
    times 5e-324 both come out as 1.5e-323): ranked by either, ties broke by id and the ids came out wrong.
    The tree and brute force now agree exactly, and both rank as exact arithmetic does."""
    rng = np.random.default_rng(11)
    lo = rng.integers(-40, 40, (150, 2)).astype(float)
    boxes = np.column_stack([lo, lo + rng.integers(0, 5, (150, 2))]) * unit
    points = rng.integers(-50, 50, (25, 2)).astype(float) * unit
    tree = STRUCTURES[name].from_boxes(boxes)
    model = dict(enumerate(boxes.tolist()))
    for k in (1, 4, 12):
        got_ids, got_d = tree.nearest(points, k)
        want_ids, want_d = brute_force_nearest(boxes, points, k)
        np.testing.assert_array_equal(got_ids, want_ids)
        np.testing.assert_array_equal(got_d, want_d)
        for m, p in enumerate(points.tolist()):
            assert got_ids[m].tolist() == exact_nearest(model, p, k)[0], f"point {m}, k={k}"


def test_brute_force_nearest_ranks_exactly_where_squares_underflow():
    t = 5e-324  # the smallest denormal: box 0 at 3 t, box 1 at 2.83 t (both print as 1.5e-323)
    ids, d = brute_force_nearest([[3 * t, 0, 4 * t, 0], [2 * t, 2 * t, 3 * t, 3 * t]], [[0.0, 0.0]], k=2)
    assert ids.tolist() == [[1, 0]] and (d > 0).all()

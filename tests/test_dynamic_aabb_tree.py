"""The dynamic AABB tree (lessons_lib.structures.dynamic_aabb_tree and its kernels in aabb_tree_nodes,
aabb_tree_search and aabb_tree_build).

The common BroadPhase contract runs in test_base.py (and the extreme-input, memory,
skew and parameter tests over every registered structure); here: brute force on
adversarial scenes, the tree's own invariants after long random sequences, fat boxes
(a small move changes nothing, a move out of the fat box re-inserts), the sibling search
against an exhaustive one, rotations (the height stays logarithmic on sorted input), the
refit-and-rebuild path of large batches, and the tree's cost after 1,000 frames of moves.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import any_box, box_arrays
from lessons_lib import JIT_ENABLED, SCENES, DynamicAABBTree, brute_force_pairs, make_scene
from lessons_lib.geometry import boxes_overlap
from lessons_lib.structures.aabb_tree_build import internal_cost
from lessons_lib.structures.aabb_tree_nodes import FREE, NULL, find_best_sibling, new_work, perimeter_cost
from tree_helpers import random_sequence

BIG = sys.float_info.max
#: Sizes scale down when the kernels run as plain Python (LESSONS_JIT=0).
SCALE = 1 if JIT_ENABLED else 4


def check_all(t: DynamicAABBTree, boxes: np.ndarray, ids=None, queries=()) -> None:
    """Invariants, pairs against brute force, and queries against filtering."""
    t.check_invariants()
    ids = np.arange(len(boxes)) if ids is None else np.asarray(ids)
    want = ids[brute_force_pairs(boxes)] if len(boxes) else np.empty((0, 2), np.int64)
    want = np.sort(want, axis=1)
    want = want[np.lexsort((want[:, 1], want[:, 0]))] if len(want) else want
    np.testing.assert_array_equal(t.pairs(), want)
    order = np.argsort(ids)
    for q in queries:
        q = np.asarray(q, np.float64)
        np.testing.assert_array_equal(t.query(q), ids[order][boxes_overlap(boxes[order], q)], err_msg=f"query {q}")


def one_by_one(boxes, **params) -> DynamicAABBTree:
    t = DynamicAABBTree(**params)
    for i, b in enumerate(boxes):
        t.insert(i, b)
    return t


# --------------------------------------------------------------------------
# Brute force on ordinary and adversarial scenes
# --------------------------------------------------------------------------
def adversarial(kind: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    if kind == "identical":
        return np.tile([10.0, 10.0, 12.0, 12.0], (n, 1))
    if kind == "line":  # collinear segments and points, many touching end to end
        x = np.sort(rng.integers(0, n, n)).astype(float)
        w = rng.integers(0, 3, n).astype(float)
        return np.column_stack([x, np.zeros(n), x + w, np.zeros(n)])
    if kind == "giants":  # a few boxes covering everything among small ones
        b = make_scene("random", n, seed=4)
        b[:3] = [[-1e6, -1e6, 1e6, 1e6], [0, 0, 800, 600], [-BIG, 5, BIG, 5]]
        return b
    if kind == "touching":  # a lattice of unit squares sharing edges and corners
        k = int(np.sqrt(n))
        xy = np.array([(i, j) for i in range(k) for j in range(k)], float)
        return np.column_stack([xy, xy + 1.0])
    if kind == "points":  # points, many repeated
        p = rng.integers(0, 20, (n, 2)).astype(float)
        return np.column_stack([p, p])
    raise ValueError(kind)


@pytest.mark.parametrize("scene", SCENES)
def test_scenes_bulk_and_one_by_one(scene):
    boxes = make_scene(scene, 400 // SCALE, seed=7)
    queries = [[0, 0, 800, 600], [100, 100, 250, 250], [400, 300, 400, 300]]
    check_all(DynamicAABBTree.from_boxes(boxes), boxes, queries=queries)
    check_all(one_by_one(boxes), boxes, queries=queries)


@pytest.mark.parametrize("kind", ["identical", "line", "giants", "touching", "points"])
@pytest.mark.parametrize("margin", [0.0, 0.1, 5.0])
def test_adversarial_scenes(kind, margin):
    boxes = adversarial(kind, 300 // SCALE)
    queries = [[10, 10, 10, 10], [0, 0, 5, 0], [-BIG, -BIG, BIG, BIG], [3, 3, 4, 4]]
    check_all(DynamicAABBTree.from_boxes(boxes, margin=margin), boxes, queries=queries)
    t = one_by_one(boxes, margin=margin)
    check_all(t, boxes, queries=queries)
    rng = np.random.default_rng(1)
    for _ in range(3):  # move half of them a little, then half of them a lot
        ids = rng.choice(len(boxes), len(boxes) // 2, replace=False)
        step = rng.choice([0.05, 50.0])
        d = rng.uniform(-step, step, (len(ids), 2))
        boxes[ids] = np.clip(boxes[ids] + np.column_stack([d, d]), -BIG, BIG)
        t.update_many(ids, boxes[ids])
        check_all(t, boxes, queries=queries)


def test_identical_boxes_pair_each_once():
    n = 200 // SCALE
    t = DynamicAABBTree.from_boxes(np.tile([0.0, 0, 1, 1], (n, 1)))
    assert len(t.pairs()) == n * (n - 1) // 2
    t2 = one_by_one(np.tile([0.0, 0, 1, 1], (n, 1)))
    np.testing.assert_array_equal(t2.pairs(), t.pairs())


@settings(max_examples=40)
@given(boxes=box_arrays(max_size=40), queries=st.lists(any_box(), max_size=5), data=st.data())
def test_hypothesis_insert_remove_update(boxes, queries, data):
    margin = data.draw(st.sampled_from([0.0, 0.5, 3.0]))
    mult = data.draw(st.sampled_from([0.0, 4.0]))
    refit_fraction = data.draw(st.sampled_from([0.0, 1.0]))
    t = DynamicAABBTree(margin=margin, displacement_multiplier=mult, refit_fraction=refit_fraction)
    model = {}
    for i, b in enumerate(boxes):
        t.insert(i, b)
        model[i] = b
    for i in data.draw(st.lists(st.sampled_from(sorted(model)), unique=True)) if model else []:
        if data.draw(st.booleans()):
            t.remove(i)
            del model[i]
        else:
            model[i] = data.draw(any_box())
            t.update(i, model[i])
    ids = np.array(sorted(model), np.int64)
    check_all(t, np.array([model[i] for i in ids], np.float64).reshape(-1, 4), ids, queries)


# --------------------------------------------------------------------------
# Long random sequences, invariants after every step
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params", [{}, {"margin": 0.0}, {"margin": 8.0, "displacement_multiplier": 4.0},
                                    {"refit_fraction": 0.0}, {"refit_fraction": 1.0}], ids=repr)
def test_long_random_sequence(params):
    random_sequence(DynamicAABBTree(**params), steps=400 // SCALE, seed=len(repr(params)))


def test_long_random_sequence_without_rotations():
    t = DynamicAABBTree()
    t.rotations = False
    random_sequence(t, steps=300 // SCALE, seed=5)


def test_frames_of_small_and_large_moves_keep_invariants():
    """Batches that re-insert, batches that refit, and rebuilds, checked frame by frame."""
    rng = np.random.default_rng(2)
    n = 600 // SCALE
    boxes = make_scene("clustered", n, seed=2)
    t = DynamicAABBTree.from_boxes(boxes, margin=0.5)
    t.rebuild_growth = 1.01  # rebuild as soon as a refit makes the tree 1 % worse
    seen = set()
    for frame in range(40):
        k = int(rng.choice([5, n // 2, n]))
        ids = rng.choice(n, k, replace=False)
        d = rng.uniform(-3, 3, (k, 2))
        boxes[ids] += np.column_stack([d, d])
        t.update_many(ids, boxes[ids])
        s = t.stats
        seen |= {key for key in ("inserted", "refitted", "rebuilt") if s[key]}
        check_all(t, boxes, queries=[[100, 100, 300, 300]])
    assert seen == {"inserted", "refitted", "rebuilt"}


# --------------------------------------------------------------------------
# Fat boxes
# --------------------------------------------------------------------------
def node_state(t: DynamicAABBTree):
    return [a.copy() for a in t.nodes.arrays]


def test_a_small_move_changes_no_node():
    boxes = make_scene("random", 200, seed=1)
    t = DynamicAABBTree.from_boxes(boxes, margin=1.0)
    before = node_state(t)
    t.update(17, boxes[17] + 0.9)  # inside the fat box (exact +- 1)
    assert t.stats["inserted"] == 0 and t.stats["refitted"] == 0
    for a, b in zip(before, node_state(t)):
        np.testing.assert_array_equal(a, b)
    ids = np.arange(0, 200, 3)
    t.update_many(ids, boxes[ids] - 0.5)  # a batch of small moves: nothing either
    for a, b in zip(before, node_state(t)):
        np.testing.assert_array_equal(a, b)
    boxes[17] += 0.9
    boxes[ids] -= 0.5
    check_all(t, boxes)


def test_resting_bodies_cost_nothing_and_only_the_moved_are_searched_again():
    # a frame of every id where most boxes are the same as before: only the changed ones reach the tree
    boxes = make_scene("random", 300, seed=4)
    t = DynamicAABBTree.from_boxes(boxes, margin=0.0)
    t.pairs()
    before = node_state(t)
    t.update_many(np.arange(300), boxes.copy())  # every body at rest
    assert t.stats["inserted"] == 0 and t.stats["refitted"] == 0 and int(t._move_count[0]) == 0
    for a, b in zip(before, node_state(t)):
        np.testing.assert_array_equal(a, b)
    moved = np.array([3, 150, 299])
    boxes[moved] += 7.0
    t.update_many(np.arange(300), boxes.copy())
    assert t.stats["inserted"] == 3 and sorted(t._move_list[:int(t._move_count[0])].tolist()) == moved.tolist()
    check_all(t, boxes)
    assert t.last_pairs_incremental


def test_a_move_past_the_fat_box_reinserts():
    boxes = make_scene("random", 200, seed=1)
    t = DynamicAABBTree.from_boxes(boxes, margin=1.0)
    new = boxes[17] + 1.5
    t.update(17, new)
    assert t.stats["inserted"] == 1
    _, fat = t.fat_boxes()
    np.testing.assert_array_equal(fat[17], new + [-1.0, -1.0, 1.0, 1.0])
    boxes[17] = new
    check_all(t, boxes)


def test_predicted_displacement_stretches_the_fat_box_forwards():
    t = DynamicAABBTree(margin=0.5, displacement_multiplier=4.0)
    t.insert(1, [0, 0, 2, 2])
    t.insert(2, [50, 50, 52, 52])
    t.update(1, [1.0, -2.0, 3.0, 0.0])  # moved by (+1, -2): out of [-0.5, -0.5, 2.5, 2.5]
    fat = t.fat_boxes()[1][0]
    np.testing.assert_array_equal(fat, [0.5, -2.5 - 8.0, 3.5 + 4.0, 0.5])
    t.update(1, [2.0, -4.0, 4.0, -2.0])  # the next move of the same kind stays inside: nothing moves
    assert t.stats["inserted"] == 0
    t.update(1, [2.0, -4.0, 2.5, -3.5])  # it stops and shrinks: the fat box is far too large now
    assert t.stats["inserted"] == 1
    t.check_invariants()


def test_fat_boxes_stay_finite_at_the_float_limit():
    t = DynamicAABBTree(margin=1e300, displacement_multiplier=1e300)
    t.insert(0, [-BIG, -BIG, BIG, BIG])
    t.insert(1, [BIG, BIG, BIG, BIG])
    t.insert(2, [0.0, 0.0, 1.0, 1.0])
    t.update(2, [-BIG, 0.0, -BIG, 0.0])
    t.update(1, [BIG, -BIG, BIG, -BIG])
    assert np.isfinite(t.fat_boxes()[1]).all() and np.isfinite(t.nodes.box[t.nodes.live()]).all()
    check_all(t, np.array([[-BIG, -BIG, BIG, BIG], [BIG, -BIG, BIG, -BIG], [-BIG, 0, -BIG, 0]]))
    assert t.cost() == np.inf  # the true sum of perimeters is beyond the float range: inf, never NaN


# --------------------------------------------------------------------------
# The sibling search, rotations and the tree's cost
# --------------------------------------------------------------------------
def exhaustive_sibling_costs(t: DynamicAABBTree, box) -> dict[int, float]:
    """Every node's cost as a sibling of a leaf with ``box``: its union plus the ancestors' growth."""
    nd = t.nodes
    out = {}
    for v in nd.live().tolist():
        c = perimeter_cost(*np.minimum(nd.box[v, :2], box[:2]), *np.maximum(nd.box[v, 2:], box[2:]))
        a = int(nd.parent[v])
        while a != NULL:
            grown = perimeter_cost(*np.minimum(nd.box[a, :2], box[:2]), *np.maximum(nd.box[a, 2:], box[2:]))
            c += grown - perimeter_cost(*nd.box[a])
            a = int(nd.parent[a])
        out[v] = c
    return out


@settings(max_examples=40)
@given(boxes=box_arrays(min_size=1, max_size=40), new=any_box())
def test_branch_and_bound_finds_the_cheapest_sibling(boxes, new):
    t = one_by_one(boxes)
    stack, costs = new_work()
    b = np.asarray(new, np.float64)
    best, _, _ = find_best_sibling(t.nodes.arrays, *b, stack, costs, np.zeros(6, np.int64))
    every = exhaustive_sibling_costs(t, b)
    assert every[int(best)] <= min(every.values()) + 1e-9 * max(1.0, abs(min(every.values())))


def sorted_scene(kind: str, n: int) -> np.ndarray:
    if kind == "line":
        x = np.arange(n, dtype=float)
        return np.column_stack([x, np.zeros(n), x + 0.5, np.full(n, 0.5)])
    k = int(np.sqrt(n))
    xy = np.array([(i, j) for i in range(k) for j in range(k)], float)
    return np.column_stack([xy, xy + 0.8])


@pytest.mark.parametrize("kind", ["line", "grid"])
def test_rotations_keep_the_height_logarithmic_on_sorted_insertion(kind):
    n = 4096 // SCALE
    boxes = sorted_scene(kind, n)
    t = one_by_one(boxes)
    t.check_invariants()
    assert t.height <= 2 * np.log2(n) + 2, f"height {t.height} for {n} sorted boxes"
    plain = DynamicAABBTree()
    plain.rotations = False
    for i, b in enumerate(boxes):
        plain.insert(i, b)
    assert plain.height > 1.5 * t.height, (plain.height, t.height)  # it is the rotations that do it
    assert t.cost() <= 1.2 * DynamicAABBTree.from_boxes(boxes).cost()


def test_pairs_on_a_tall_tree_of_nested_boxes():
    """A chain of a tree (sorted insertion, no rotations) of nested boxes: every subtree to the right of
    every path meets the leaf's box, so the pair search stacks a whole path, then descends."""
    n = 600 // SCALE
    r = np.arange(n, dtype=float)
    boxes = np.column_stack([-r, -r, r, r])  # box i inside box i + 1: every pair meets
    t = DynamicAABBTree(margin=0.0)
    t.rotations = False
    for i, b in enumerate(boxes):
        t.insert(i, b)
    assert t.height > n // 4, t.height  # tall: the stack's bound is what is tested
    check_all(t, boxes)
    assert len(t.pairs()) == n * (n - 1) // 2
    t.update_many(np.arange(5), boxes[:5] + 0.5)  # the move buffer's descent, from the root
    check_all(t, np.concatenate([boxes[:5] + 0.5, boxes[5:]]))
    assert t.last_pairs_incremental


def test_cost_is_the_sum_of_internal_perimeters():
    boxes = make_scene("mixed_sizes", 300, seed=2)
    t = one_by_one(boxes)
    nd = t.nodes
    internal = nd.live()[nd.height[nd.live()] > 0]
    b = nd.box[internal]
    assert t.cost() == pytest.approx(float((2 * (b[:, 2] - b[:, 0] + b[:, 3] - b[:, 1])).sum()), rel=1e-12)
    assert 8 * internal_cost(nd.arrays) == t.cost()
    assert DynamicAABBTree().cost() == 0.0 and DynamicAABBTree.from_boxes([[0, 0, 1, 1]]).cost() == 0.0


@pytest.mark.parametrize("refit_fraction", [1.0, 0.05])
def test_cost_after_a_thousand_frames_of_small_moves(refit_fraction):
    """Re-insertions with rotations (or refits and rebuilds) keep the tree about as good as a fresh build."""
    rng = np.random.default_rng(0)
    n = 2000 // SCALE
    boxes = make_scene("random", n, seed=1)
    t = DynamicAABBTree.from_boxes(boxes, refit_fraction=refit_fraction)
    for _ in range(1000 // SCALE):  # a quarter of the boxes move by up to half a unit each frame
        ids = rng.choice(n, n // 4, replace=False)
        d = rng.uniform(-0.5, 0.5, (len(ids), 2))
        boxes[ids] = np.clip(boxes[ids] + np.column_stack([d, d]), -50.0, 850.0)
        t.update_many(ids, boxes[ids])
    check_all(t, boxes)
    fresh = DynamicAABBTree.from_boxes(boxes).cost()
    print(f"cost after the frames / fresh tree's: {t.cost() / fresh:.3f}")
    assert t.cost() <= 1.15 * fresh, f"cost {t.cost():.0f} against {fresh:.0f} for a fresh tree"


def test_rebuild_keeps_the_answers_and_the_fat_boxes():
    boxes = make_scene("clustered", 500, seed=3)
    t = one_by_one(boxes, margin=2.0)
    fat = t.fat_boxes()
    before = t.cost()
    t.rebuild()
    t.cleanup()
    check_all(t, boxes)
    np.testing.assert_array_equal(t.fat_boxes()[1], fat[1])
    assert t.cost() <= 1.05 * before


def test_removal_frees_nodes_for_reuse():
    boxes = make_scene("random", 300, seed=5)
    t = DynamicAABBTree.from_boxes(boxes)
    cap = t.nodes.capacity
    for _ in range(5):
        for i in range(0, 300, 2):
            t.remove(i)
        assert t.nodes.n_nodes() == 2 * 150 - 1
        assert (t.nodes.height[: t.nodes.meta[1]] == FREE).sum() == 300
        for i in range(0, 300, 2):
            t.insert(i, boxes[i])
    assert t.nodes.capacity == cap
    check_all(t, boxes)


def test_regions_stats_and_repr():
    t = DynamicAABBTree.from_boxes(make_scene("random", 50, seed=1))
    rects, depths = t.regions()
    assert len(rects) == 99 and depths[0] == 0 and depths.max() == t.height - 1
    assert "DynamicAABBTree(n=50" in repr(t) and "margin=0.1" in repr(t)
    q = t.query([0, 0, 100, 100])
    assert t.last_query_nodes >= len(q)
    t.insert(99, [1, 1, 2, 2])
    assert t.stats["inserted"] == 1 and t.stats["sibling"] >= 0 and t.stats["visits"] >= 1


def test_pairs_from_the_move_buffer_equal_brute_force():
    """pairs() after a few changes starts from the last call's pairs: still exactly brute force's."""
    rng = np.random.default_rng(4)
    n = 800 // SCALE
    boxes = make_scene("clustered", n, seed=4)
    t = DynamicAABBTree.from_boxes(boxes)
    check_all(t, boxes)
    assert not t.last_pairs_incremental  # the first call has nothing to start from
    ids = np.arange(n)
    alive = np.ones(n, bool)
    for frame in range(60):
        moving = rng.choice(n, n // 20, replace=False)
        moving = moving[alive[moving]]
        d = rng.uniform(-4, 4, (len(moving), 2))
        boxes[moving] += np.column_stack([d, d])
        t.update_many(ids[alive], boxes[alive])  # every stored element, most with the box it had
        if frame % 3 == 0:  # removals, re-insertions into freed slots, new ids
            i = int(rng.integers(n))
            if alive[i]:
                t.remove(i)
            else:
                t.insert(i, boxes[i])
            alive[i] = not alive[i]
        if frame % 10 == 5:
            t.rebuild()
        check_all(t, boxes[alive], ids[alive])
        assert t.last_pairs_incremental
    t.update_many(ids[alive], boxes[alive] + 1.0)  # everything moves: all pairs afresh
    check_all(t, boxes[alive] + 1.0, ids[alive])
    assert not t.last_pairs_incremental
    t.clear()
    assert t.pairs().shape == (0, 2)

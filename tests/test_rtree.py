"""Guttman's R-tree and the R*-tree (lessons_lib.structures.rtree, lessons_lib.structures.rtree_split,
lessons_lib.structures.rstar_tree, lessons_lib.structures.rtree_nodes, lessons_lib.structures.rtree_search,
lessons_lib.structures.rtree_quality).

The common BroadPhase contract runs in test_base.py; here: the tree invariants
after every operation, each split heuristic, CondenseTree, the R* pieces, node
visits and the quality report.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import any_box, box_arrays
from lessons_lib import SCENES, RStarTree, RTree, brute_force_pairs, make_scene
from lessons_lib.structures.rstar_tree import rstar_split
from lessons_lib.structures.rtree import enlargement
from lessons_lib.structures.rtree_split import pick_seeds, split_entries
from lessons_lib.labs.rtrees import split_stepper
from lessons_lib.structures.rtree_quality import overlap_area_sum, quality_table
from tree_helpers import random_sequence

CONFIGS = [
    (RTree, {"split": "quadratic"}),
    (RTree, {"split": "linear"}),
    (RTree, {"split": "exhaustive", "max_entries": 5}),
    (RTree, {"split": "quadratic", "max_entries": 3}),
    (RTree, {"split": "linear", "max_entries": 4, "min_entries": 2}),
    (RStarTree, {}),
    (RStarTree, {"max_entries": 4}),
    (RStarTree, {"max_entries": 6, "reinsert_fraction": 0.0}),
]
by_config = pytest.mark.parametrize("cls, params", CONFIGS, ids=[f"{c.__name__}-{p}" for c, p in CONFIGS])


@by_config
@pytest.mark.parametrize("scene", SCENES)
def test_scenes_bulk_and_one_by_one(cls, params, scene):
    boxes = make_scene(scene, 250, seed=7)
    expected = brute_force_pairs(boxes)
    t = cls.from_boxes(boxes, **params)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), expected)
    t2 = cls(**params)
    for i, b in enumerate(boxes):
        t2.insert(i, b)
    t2.check_invariants()
    np.testing.assert_array_equal(t2.pairs(), expected)


@by_config
def test_long_random_sequence(cls, params):
    random_sequence(cls(**params), steps=350, seed=hash(str(params)) % 1000)


@by_config
@settings(max_examples=25)
@given(boxes=box_arrays(max_size=40), queries=st.lists(any_box(), max_size=5), data=st.data())
def test_hypothesis_insert_remove(cls, params, boxes, queries, data):
    t = cls(**params)
    for i, b in enumerate(boxes):
        t.insert(i, b)
    t.check_invariants()
    gone = data.draw(st.sets(st.integers(0, max(0, len(boxes) - 1)), max_size=len(boxes)))
    for i in sorted(gone):
        if i < len(boxes):
            t.remove(i)
            t.check_invariants()
    keep = np.array([i for i in range(len(boxes)) if i not in gone], dtype=np.int64)
    kb = boxes[keep] if len(keep) else np.empty((0, 4))
    np.testing.assert_array_equal(t.pairs(), keep[brute_force_pairs(kb)] if len(keep) else np.empty((0, 2)))
    for q in queries:
        q = np.array(q)
        hit = (kb[:, 0] <= q[2]) & (q[0] <= kb[:, 2]) & (kb[:, 1] <= q[3]) & (q[1] <= kb[:, 3])
        np.testing.assert_array_equal(t.query(q), keep[hit])


def test_empty_tree_answers_with_empty_arrays():
    for cls in (RTree, RStarTree):
        t = cls()
        assert t.height == 0 and t.pairs().shape == (0, 2) and t.query([0, 0, 10, 10]).dtype == np.int64
        ids, visits = t.query_visits([0, 0, 1, 1])
        assert ids.shape == (0,) and visits == 0
        assert t.quality() == [] and t.nodes_by_level() == []
        t.insert(5, [0, 0, 1, 1])
        t.remove(5)
        assert t.height == 0 and len(t.regions()[0]) == 0
        t.check_invariants()


def test_height_grows_by_root_splits_and_shrinks_on_removal():
    t = RTree(max_entries=4, min_entries=2)
    boxes = make_scene("random", 60, seed=1)
    heights = []
    for i, b in enumerate(boxes):
        t.insert(i, b)
        heights.append(t.height)
    assert heights[0] == 1 and heights[4] == 2 and max(heights) >= 3
    assert all(b - a in (0, 1) for a, b in zip(heights, heights[1:]))
    for i in range(59):
        t.remove(i)
        t.check_invariants()
    assert t.height == 1 and len(t) == 1


def test_condense_tree_reinserts_orphans():
    t = RTree(max_entries=4, min_entries=2)
    boxes = make_scene("clustered", 40, seed=3)
    for i, b in enumerate(boxes):
        t.insert(i, b)
    nodes_before = t.nodes.n_nodes()
    for i in range(0, 40, 2):
        t.remove(i)
        t.check_invariants()
    assert t.nodes.n_nodes() < nodes_before
    np.testing.assert_array_equal(t.pairs(), np.arange(1, 40, 2)[brute_force_pairs(boxes[1::2])])


def test_queries_prune_internal_nodes():
    boxes = make_scene("random", 3000, seed=2)
    t = RTree.from_boxes(boxes)
    ids, visits = t.query_visits([100, 100, 110, 110])
    assert visits < t.nodes.n_nodes() / 10  # a small query enters a few nodes, not the whole tree
    ids_all, visits_all = t.query_visits([-1, -1, 1e4, 1e4])
    assert visits_all == t.nodes.n_nodes() and len(ids_all) == 3000


def test_rstar_has_less_overlap_and_fewer_visits_than_linear():
    boxes = make_scene("clustered", 2000, seed=4)
    lin = RTree.from_boxes(boxes, split="linear")
    rs = RStarTree.from_boxes(boxes)
    assert sum(r.overlap for r in rs.quality()) < sum(r.overlap for r in lin.quality())
    rng = np.random.default_rng(0)
    qs = [np.r_[p, p + 20] for p in rng.uniform(0, 780, size=(100, 2))]
    v_lin = sum(lin.query_visits(q)[1] for q in qs)
    v_rs = sum(rs.query_visits(q)[1] for q in qs)
    assert v_rs < v_lin
    assert rs.reinsertions > 0


def test_quality_rows():
    t = RTree.from_boxes(make_scene("random", 500, seed=1), max_entries=8)
    rows = t.quality()
    assert [r.depth for r in rows] == list(range(t.height))
    assert rows[0].nodes == 1 and rows[-1].nodes == len(t.nodes_by_level()[-1])
    assert all(r.area > 0 and r.margin > 0 and r.overlap >= 0 for r in rows)
    assert sum(r.nodes for r in rows) == t.nodes.n_nodes()
    assert "overlap" in quality_table(rows, "t")


def test_overlap_area_sum():
    assert overlap_area_sum(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [2, 2, 4, 4.0]])) == 2.0
    assert overlap_area_sum(np.empty((0, 4))) == 0.0
    assert overlap_area_sum(np.array([[0, 0, 1, 1], [1, 0, 2, 1.0]])) == 0.0  # touching: no area


# --------------------------------------------------------------------------
# The split heuristics
# --------------------------------------------------------------------------
def test_enlargement():
    assert enlargement([0, 0, 2, 2], [1, 1, 2, 2]) == 0.0
    assert enlargement([0, 0, 2, 2], [2, 0, 4, 2]) == 4.0
    assert enlargement([0, 0, 0, 0], [0, 0, 3, 1]) == 3.0


def test_pick_seeds_takes_the_most_wasteful_pair():
    b = np.array([[0, 0, 1, 1], [0.5, 0.5, 1.5, 1.5], [10, 10, 11, 11], [1, 0, 2, 1]])
    assert pick_seeds(b) == (0, 2) or pick_seeds(b) == (1, 2)
    assert pick_seeds(np.array([[0, 0, 1, 1], [5, 5, 6, 6.0]])) == (0, 1)


@pytest.mark.parametrize("method", ["exhaustive", "quadratic", "linear"])
@given(boxes=box_arrays(min_size=4, max_size=9), m=st.integers(1, 4))
def test_split_entries_respects_min_fill(method, boxes, m):
    boxes = boxes[:9]  # box_arrays may append duplicates beyond max_size
    m = min(m, len(boxes) // 2)
    g = split_entries(boxes, m, method)
    assert g.shape == (len(boxes),) and set(g.tolist()) <= {0, 1}
    assert m <= (g == 1).sum() <= len(boxes) - m


def test_exhaustive_split_is_optimal_in_area():
    rng = np.random.default_rng(5)
    for _ in range(20):
        b = np.sort(rng.uniform(0, 100, size=(7, 4)).reshape(7, 2, 2), axis=1).transpose(0, 2, 1).reshape(7, 4)
        def cost(g):
            return sum(np.prod(np.r_[b[g == s, 2:].max(0) - b[g == s, :2].min(0)]) for s in (0, 1))
        best = cost(split_entries(b, 2, "exhaustive"))
        for method in ("quadratic", "linear"):
            assert best <= cost(split_entries(b, 2, method)) + 1e-9
    # two obvious clusters are found by every heuristic
    two = np.array([[0, 0, 1, 1], [1, 1, 2, 2], [0, 1, 1, 2], [50, 50, 51, 51], [51, 50, 52, 51], [50, 51, 51, 52.0]])
    for method in ("exhaustive", "quadratic", "linear"):
        g = split_entries(two, 2, method)
        assert len(set(g[:3])) == 1 and len(set(g[3:])) == 1 and g[0] != g[3], method


def test_rstar_split_separates_clusters_and_respects_min_fill():
    two = np.array([[0, 0, 1, 1], [1, 1, 2, 2], [0, 1, 1, 2], [50, 50, 51, 51], [51, 50, 52, 51], [50, 51, 51, 52.0]])
    g = rstar_split(two, 2)
    assert len(set(g[:3])) == 1 and g[0] != g[3]
    g = rstar_split(make_scene("random", 17, seed=1), 6)
    assert 6 <= g.sum() <= 11


@pytest.mark.parametrize("call, pattern", [
    (lambda: split_entries(np.zeros((5, 4)), 2, "cubic"), "split method must be one of"),
    (lambda: split_entries(np.zeros((5, 4)), 3, "linear"), "min_entries must be an integer in 1..2"),
    (lambda: split_entries(np.zeros((1, 4)), 1, "linear"), "at least 2 boxes"),
    (lambda: split_entries(np.zeros((14, 4)), 2, "exhaustive"), "at most 13 boxes"),
    (lambda: rstar_split(np.zeros((5, 4)), 0), "min_entries must be an integer in 1..2"),
])
def test_split_function_errors(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params, exc, pattern", [
    ({"max_entries": 1}, ValueError, "max_entries must be an integer in 2..4096, got 1"),
    ({"max_entries": 4.0}, ValueError, "max_entries must be an integer"),
    ({"max_entries": True}, ValueError, "max_entries must be an integer"),
    ({"max_entries": 8, "min_entries": 5}, ValueError, "min_entries must be an integer in 1..4, got 5"),
    ({"max_entries": 8, "min_entries": 0}, ValueError, "min_entries must be an integer in 1..4, got 0"),
    ({"split": "cubic"}, ValueError, "split must be one of"),
    ({"split": "exhaustive", "max_entries": 16}, ValueError, "max_entries must be <= 12, got 16"),
])
def test_rtree_parameters(params, exc, pattern):
    with pytest.raises(exc, match=pattern):
        RTree(**params)


@pytest.mark.parametrize("params, exc, pattern", [
    ({"reinsert_fraction": 0.6}, ValueError, "in \\[0, 0.5\\], got 0.6"),
    ({"reinsert_fraction": "a lot"}, ValueError, "reinsert_fraction must be a number"),
    ({"max_entries": 0}, ValueError, "max_entries must be an integer in 2..4096"),
])
def test_rstar_parameters(params, exc, pattern):
    with pytest.raises(exc, match=pattern):
        RStarTree(**params)


def test_defaults_and_repr():
    t = RTree()
    assert (t.max_entries, t.min_entries, t.split) == (16, 6, "quadratic")
    assert RTree(max_entries=4).min_entries == 2 and RTree(max_entries=2).min_entries == 1
    r = RStarTree()
    assert r.reinsert_count == 5 and "RStarTree" in repr(r) and "split='quadratic'" in repr(t)


def test_bad_input_leaves_tree_unchanged():
    t = RTree.from_boxes(make_scene("random", 100, seed=1), max_entries=4)
    before = (t.nodes.box.copy(), t.nodes.child.copy(), t.pairs())
    for call in (lambda: t.insert(3, [0, 0, 1, 1]), lambda: t.insert(500, [2, 0, 1, 1]),
                 lambda: t.remove(1000), lambda: t.update(4, [0, 0, np.nan, 1])):
        with pytest.raises((ValueError, KeyError)):
            call()
    np.testing.assert_array_equal(before[0], t.nodes.box)
    np.testing.assert_array_equal(before[1], t.nodes.child)
    np.testing.assert_array_equal(before[2], t.pairs())
    t.check_invariants()


def test_split_stepper_records_splits_and_seeds():
    boxes = make_scene("random", 12, seed=2)
    st_ = split_stepper(boxes, max_entries=4, split="quadratic")
    assert len(st_) == 13
    assert any("split" in st_.label(i) for i in range(len(st_)))
    seeds = [f[2] for f in (st_.frame(i) for i in range(len(st_))) if len(f[2])]
    assert seeds and not np.isnan(seeds[0][:, 3:]).any()
    st_.figure(5)
    with pytest.raises(ValueError, match="at most 60 boxes"):
        split_stepper(np.zeros((61, 4)))


def test_count_splits():
    from lessons_lib.structures.rtree_split import count_splits

    assert count_splits(4) == 2**4 - 1 and count_splits(16) == 2**16 - 1
    assert count_splits(4, 2) == 10  # 5 entries: groups of 2 + 3
    with pytest.raises(ValueError, match="min_entries must be an integer in 1..2"):
        count_splits(4, 3)


def test_visited_nodes_matches_visit_count():
    from lessons_lib.labs.rtrees import mean_visits, visited_nodes

    t = RTree.from_boxes(make_scene("clustered", 500, seed=1), max_entries=6)
    for q in ([100, 100, 150, 150], [0, 0, 800, 600], [-50, -50, -40, -40]):
        rects, depths = visited_nodes(t.nodes, q)
        assert len(rects) == t.query_visits(q)[1] and (len(depths) == 0 or depths.min() == 0)
    assert mean_visits(t, [[0, 0, 800, 600]]) == t.nodes.n_nodes()
    assert mean_visits(t, np.empty((0, 4))) == 0.0


# --------------------------------------------------------------------------
# Scales: areas that overflow or underflow must not steer the tree into NaN
# --------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [RTree, RStarTree])
def test_huge_boxes_then_a_small_one(cls):
    """Regression: 17 boxes [i, 0, 1e308, 1e308] made every area and enlargement inf (inf - inf = NaN);
    box 17 was counted but never found, the invariants failed and remove(17) crashed the process."""
    t = cls(max_entries=16)
    for i in range(17):
        t.insert(i, [float(i), 0.0, 1e308, 1e308])
    t.insert(17, [5.0, 5.0, 6.0, 6.0])
    t.check_invariants()
    assert t.query([5, 5, 6, 6]).tolist() == list(range(7)) + [17]  # box 6 touches it
    assert len(t.pairs()) == 18 * 17 // 2 - 10  # box 17 misses boxes 7..16, which start right of it
    for i in [17] + list(range(17)):
        t.remove(i)
        t.check_invariants()
    assert len(t) == 0


@by_config
@pytest.mark.parametrize("scale", [2.0 ** -1070, 2.0 ** -600, 2.0 ** 600, 2.0 ** 1013])
def test_same_answers_at_far_scales(cls, params, scale):
    boxes = make_scene("clustered", 120, seed=3) / 1024.0 * scale
    t = cls.from_boxes(boxes, **params)
    t.check_invariants()
    np.testing.assert_array_equal(t.pairs(), brute_force_pairs(boxes))
    for i in range(0, 120, 3):
        t.remove(i)
    t.check_invariants()
    keep = np.setdiff1d(np.arange(120), np.arange(0, 120, 3))
    np.testing.assert_array_equal(t.pairs(), keep[brute_force_pairs(boxes[keep])])


def test_split_decisions_do_not_depend_on_a_power_of_two_scale():
    """Areas are compared on boxes mapped onto the unit square: scaling by 2**k changes no decision."""
    boxes = make_scene("random", 200, seed=4) / 1024.0
    trees = [RTree.from_boxes(boxes * 2.0 ** k, max_entries=6).nodes for k in (0, 700, -700)]
    for other in trees[1:]:
        assert other.n_nodes() == trees[0].n_nodes()
        np.testing.assert_array_equal(other.child[: other.meta[1]], trees[0].child[: trees[0].meta[1]])


def test_enlargement_at_the_float_limits():
    assert enlargement([0, 0, 1e308, 1e308], [0, 0, 1e308, 1e308]) == 0.0
    assert enlargement([0, 0, 1e308, 1e308], [0, 0, 1.5e308, 1e308]) == np.inf  # truly beyond the range
    assert enlargement([0, 0, 1e-320, 1e-320], [0, 0, 2e-320, 1e-320]) == 0.0  # below the smallest float
    assert enlargement([-1.7e308, 0, 1.7e308, 1], [0, 0, 1, 2]) == np.inf
    assert enlargement([0, 0, 2.0 ** 600, 2.0 ** 600], [0, 0, 2.0 ** 600, 2.0 ** 601]) == np.inf
    assert enlargement([0, 0, 2.0 ** 300, 2.0 ** 300], [0, 0, 2.0 ** 300, 2.0 ** 301]) == 2.0 ** 600

"""The BroadPhase contract, checked on every structure in ``lessons_lib.STRUCTURES``.

Each test is parametrized over the registry, so a structure added to it is
checked automatically: against brute force on fixed scenes, on
hypothesis-generated boxes and queries, after long random sequences of
insert / remove / update / clear / cleanup compared with a plain dict, and on
every documented error (the structure must be left unchanged by a failed call).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from bp_strategies import FAR, any_box, box_arrays, filter_query, far_box, lattice_box, model_pairs
from lessons_lib import (
    ARTICLE_WORLD,
    SCENES,
    STRUCTURES,
    BroadPhase,
    brute_force_pairs,
    make_scene,
    normalize_pairs,
    register,
)
from lessons_lib.base import world_for
from lessons_lib.geometry import boxes_overlap

NAMES = sorted(STRUCTURES)
by_structure = pytest.mark.parametrize("name", NAMES)

#: Ids that stress the int64 mapping: extremes, negatives, gaps.
ODD_IDS = [-(2**63), -(10**15), -7, -1, 0, 3, 1000, 2**40 + 1, 10**15, 2**63 - 1]


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------
def snapshot(bp: BroadPhase) -> dict:
    """Everything observable about a structure, to check that a failed call changed nothing."""
    ids, boxes = bp.items()
    rects, depths = bp.regions()
    return {
        "len": len(bp),
        "ids": ids.copy(),
        "boxes": boxes.copy(),
        "pairs": bp.pairs(),
        "query_all": bp.query([-2 * FAR, -2 * FAR, 2 * FAR, 2 * FAR]),
        "query_world": bp.query(bp.world),
        "memory": bp.memory_bytes(),
        "world": bp.world.copy(),
        "regions": (rects.copy(), depths.copy()),
    }


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for k in before:
        if k == "regions":
            np.testing.assert_array_equal(before[k][0], after[k][0], err_msg=k)
            np.testing.assert_array_equal(before[k][1], after[k][1], err_msg=k)
        elif isinstance(before[k], np.ndarray):
            np.testing.assert_array_equal(before[k], after[k], err_msg=k)
        else:
            assert before[k] == after[k], k


def check_against_model(bp: BroadPhase, model: dict, queries=()) -> None:
    """The structure holds exactly ``model`` ({id: box}) and answers like brute force."""
    assert len(bp) == len(model)
    ids, boxes = bp.items()
    np.testing.assert_array_equal(ids, np.array(sorted(model), dtype=np.int64).reshape(-1))
    np.testing.assert_array_equal(boxes, np.array([model[i] for i in sorted(model)], dtype=np.float64).reshape(-1, 4))
    p = bp.pairs()
    check_pairs_format(p)
    np.testing.assert_array_equal(p, model_pairs(model))
    for q in queries:
        got = bp.query(q)
        check_ids_format(got)
        np.testing.assert_array_equal(got, filter_query(ids, boxes, q), err_msg=f"query {q}")
    check_element_table(bp)


def check_pairs_format(p) -> None:
    assert isinstance(p, np.ndarray) and p.dtype == np.int64
    assert p.ndim == 2 and p.shape[1] == 2
    if len(p):
        assert (p[:, 0] < p[:, 1]).all()
        # strictly increasing rows: sorted, no duplicate pair
        a, b = p[:-1], p[1:]
        assert ((a[:, 0] < b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] < b[:, 1]))).all()


def check_ids_format(ids) -> None:
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int64 and ids.ndim == 1
    assert (ids[1:] > ids[:-1]).all()  # sorted, unique (no np.diff: it overflows on int64 extremes)


def check_element_table(bp: BroadPhase) -> None:
    """Invariants of the shared element table behind every structure."""
    t = bp.elements
    live = t.live_slots()
    assert len(live) == len(t)
    assert t.high_water <= t.capacity
    assert not t.alive[t.high_water :].any()
    for slot in live.tolist():
        assert t.slot(int(t.ids[slot])) == slot
    assert np.array_equal(t.slots_of(t.ids[live]), live)
    if t._map is None:  # no map: every live id sits in the slot of the same number
        assert np.array_equal(t.ids[live], live)
    else:
        assert len(t._map) == len(live)


def random_box(rng, span=100.0, far_prob=0.05):
    """Integer-valued boxes (touching is common), some points/segments, a few far away."""
    if rng.random() < far_prob:
        c = rng.choice([-FAR, FAR])
        x, y = c + rng.integers(0, 4), rng.choice([-FAR, 0.0, FAR]) + rng.integers(0, 4)
        return [x, y, x + rng.integers(0, 3), y + rng.integers(0, 3)]
    x, y = rng.integers(-5, int(span)), rng.integers(-5, int(span))
    w = 0 if rng.random() < 0.1 else rng.integers(0, 15)
    h = 0 if rng.random() < 0.1 else rng.integers(0, 15)
    return [float(x), float(y), float(x + w), float(y + h)]


def touching_queries(boxes, rng, k=20):
    """Query boxes that share exactly an edge, a corner or a point with stored boxes."""
    out = []
    for i in rng.integers(0, len(boxes), size=min(k, len(boxes))):
        x0, y0, x1, y1 = boxes[i]
        out += [
            [x1, y0, x1 + 5, y1],  # right edge
            [x0 - 5, y0 - 5, x0, y0],  # lower-left corner
            [x1, y1, x1, y1],  # the upper-right corner as a point
            [x0, y1, x1, y1 + 3],  # top edge
        ]
    return out


# --------------------------------------------------------------------------
# Registry and module-level helpers of base
# --------------------------------------------------------------------------
def test_registry_is_not_empty_and_named():
    assert "brute_force" in STRUCTURES
    for name, cls in STRUCTURES.items():
        assert issubclass(cls, BroadPhase)
        assert cls.name == name


def test_every_register_call_in_the_library_is_in_the_registry():
    """A structure module that lessons_lib/__init__ forgets to import would escape these tests."""
    lib = Path(__import__("lessons_lib").__file__).parent
    declared = set()
    for path in lib.rglob("*.py"):
        declared |= set(re.findall(r"""^@register\(\s*["']([^"']+)["']\s*\)""", path.read_text(), re.M))
    assert declared == set(STRUCTURES)


def test_register_rejects_a_taken_name_and_allows_re_registering():
    cls = STRUCTURES["brute_force"]
    assert register("brute_force")(cls) is cls  # same class again: fine

    class Impostor(cls):
        pass

    with pytest.raises(ValueError, match="'brute_force' is already registered to BruteForce"):
        register("brute_force")(Impostor)
    assert STRUCTURES["brute_force"] is cls


def test_broadphase_is_abstract():
    with pytest.raises(TypeError):
        BroadPhase()


class TestNormalizePairs:
    def test_sorts_rows_and_within_rows(self):
        p = normalize_pairs([[5, 2], [1, 9], [2, 3], [1, 4]])
        np.testing.assert_array_equal(p, [[1, 4], [1, 9], [2, 3], [2, 5]])
        assert p.dtype == np.int64 and p.flags.c_contiguous

    def test_keeps_duplicates(self):
        np.testing.assert_array_equal(normalize_pairs([[1, 2], [2, 1]]), [[1, 2], [1, 2]])

    @pytest.mark.parametrize("empty", [[], np.empty((0, 2), np.int64), np.empty(0)])
    def test_empty(self, empty):
        p = normalize_pairs(empty)
        assert p.shape == (0, 2) and p.dtype == np.int64

    def test_self_pair(self):
        with pytest.raises(ValueError, match=r"pair \[3, 3\] pairs an element with itself"):
            normalize_pairs([[1, 2], [3, 3]])

    def test_large_ids(self):
        big = 2**63 - 1
        np.testing.assert_array_equal(normalize_pairs([[big, -big]]), [[-big, big]])


class TestWorldFor:
    def test_empty(self):
        np.testing.assert_array_equal(world_for(np.empty((0, 4))), ARTICLE_WORLD)
        assert world_for(np.empty((0, 4))) is not ARTICLE_WORLD

    def test_bounding_box(self):
        np.testing.assert_array_equal(world_for(np.array([[1.0, 2, 3, 4], [-5, 0, 0, 10]])), [-5, 0, 3, 10])

    def test_degenerate_grows_to_one_unit(self):
        np.testing.assert_array_equal(world_for(np.array([[3.0, 4, 3, 4]])), [2.5, 3.5, 3.5, 4.5])
        np.testing.assert_array_equal(world_for(np.array([[0.0, 0, 10, 0.5]])), [0, -0.25, 10, 0.75])


# --------------------------------------------------------------------------
# Construction
# --------------------------------------------------------------------------
@by_structure
def test_from_boxes_ids_are_row_numbers(name):
    boxes = make_scene("random", 50, seed=1)
    bp = STRUCTURES[name].from_boxes(boxes)
    assert isinstance(bp, STRUCTURES[name])
    assert len(bp) == 50
    ids, stored = bp.items()
    np.testing.assert_array_equal(ids, np.arange(50))
    np.testing.assert_array_equal(stored, boxes)
    assert all(i in bp for i in range(50))
    assert 50 not in bp and -1 not in bp


@by_structure
def test_from_boxes_copies_its_input(name):
    boxes = make_scene("clustered", 80, seed=2)
    bp = STRUCTURES[name].from_boxes(boxes)
    expected = brute_force_pairs(boxes)
    boxes[:] = 0.0  # the caller reuses its array
    np.testing.assert_array_equal(bp.pairs(), expected)


@by_structure
def test_from_boxes_empty_and_single(name):
    cls = STRUCTURES[name]
    for boxes in ([], np.empty((0, 4)), [[1, 2, 3, 4]], [[5, 5, 5, 5]]):
        bp = cls.from_boxes(boxes)
        assert len(bp) == len(boxes)
        assert bp.pairs().shape == (0, 2) and bp.pairs().dtype == np.int64
        assert bp.query([-1e9, -1e9, 1e9, 1e9]).tolist() == list(range(len(boxes)))


@by_structure
def test_from_boxes_bad_boxes(name):
    with pytest.raises(ValueError, match=r"box 2 has xmin 9\.0 > xmax 1\.0"):
        STRUCTURES[name].from_boxes([[0, 0, 1, 1], [0, 0, 1, 1], [9, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"box 1 has ymax = nan"):
        STRUCTURES[name].from_boxes([[0, 0, 1, 1], [0, 0, 1, np.nan]])
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        STRUCTURES[name].from_boxes([0, 0, 1, 1])


@by_structure
def test_world_defaults(name):
    cls = STRUCTURES[name]
    bp = cls()
    assert bp.world.shape == (4,) and bp.world.dtype == np.float64
    # None means the article's 800 x 600 world (a structure may only enlarge it).
    assert bp.world[0] <= 0 and bp.world[1] <= 0 and bp.world[2] >= 800 and bp.world[3] >= 600
    # from_boxes infers a world covering the boxes.
    boxes = make_scene("random", 40, world=[1000, 2000, 1100, 2100])
    w = cls.from_boxes(boxes).world
    assert w[0] <= boxes[:, 0].min() and w[1] <= boxes[:, 1].min()
    assert w[2] >= boxes[:, 2].max() and w[3] >= boxes[:, 3].max()


@by_structure
def test_explicit_world(name):
    cls = STRUCTURES[name]
    bp = cls(world=[-50, -50, 50, 50])
    assert bp.world[0] <= -50 and bp.world[2] >= 50
    bp2 = cls.from_boxes(make_scene("random", 30), world=[0, 0, 800, 600])
    assert len(bp2) == 30


@by_structure
@pytest.mark.parametrize(
    "world, pattern",
    [
        ([0, 0, 0, 10], "positive width and height"),
        ([0, 3, 10, 3], "positive width and height"),
        ([10, 0, 0, 10], r"world has xmin 10\.0 > xmax 0\.0"),
        ([0, 0, np.inf, 10], r"world has xmax = inf"),
        ([0, 0, 10], r"world must have shape \(4,\)"),
    ],
)
def test_bad_world(name, world, pattern):
    with pytest.raises(ValueError, match=pattern):
        STRUCTURES[name](world=world)


# --------------------------------------------------------------------------
# Agreement with brute force
# --------------------------------------------------------------------------
@by_structure
@pytest.mark.parametrize("scene", SCENES)
def test_pairs_equal_brute_force_on_scenes(name, scene):
    boxes = make_scene(scene, 300, seed=3)
    expected = brute_force_pairs(boxes)
    bp = STRUCTURES[name].from_boxes(boxes)
    got = bp.pairs()
    check_pairs_format(got)
    np.testing.assert_array_equal(got, expected)
    # The same scene inserted one by one into a default (800 x 600) structure.
    bp2 = STRUCTURES[name]()
    for i, b in enumerate(boxes):
        bp2.insert(i, b)
    np.testing.assert_array_equal(bp2.pairs(), expected)


@by_structure
@pytest.mark.parametrize("scene", ["random", "xline", "mixed_sizes", "true_uniform"])
def test_queries_equal_filtering_on_scenes(name, scene):
    rng = np.random.default_rng(5)
    boxes = make_scene(scene, 300, seed=4)
    bp = STRUCTURES[name].from_boxes(boxes)
    ids = np.arange(len(boxes))
    queries = [random_box(rng, span=800.0, far_prob=0.1) for _ in range(60)]
    queries += touching_queries(boxes, rng)
    queries += [bp.world, [0, 0, 0, 0], [400, 300, 400, 300], [-FAR, -FAR, FAR, FAR]]
    for q in queries:
        got = bp.query(q)
        check_ids_format(got)
        np.testing.assert_array_equal(got, filter_query(ids, boxes, q), err_msg=f"query {q}")


@by_structure
@given(boxes=box_arrays(max_size=40), queries=st.lists(any_box(), max_size=8))
def test_hypothesis_boxes_and_queries(name, boxes, queries):
    bp = STRUCTURES[name].from_boxes(boxes)
    model = {i: list(b) for i, b in enumerate(boxes.tolist())}
    check_against_model(bp, model, queries)


@by_structure
@given(
    boxes=box_arrays(max_size=30),
    ids=st.lists(st.sampled_from(ODD_IDS) | st.integers(-50, 50), unique=True, max_size=30),
)
def test_hypothesis_inserted_with_odd_ids(name, boxes, ids):
    bp = STRUCTURES[name](world=[0, 0, 30, 30])
    model = {}
    for id_, b in zip(ids, boxes.tolist()):
        bp.insert(id_, b)
        model[id_] = b
    check_against_model(bp, model, [[0, 0, 5, 5], [10, 10, 10, 10], [-FAR, -FAR, FAR, FAR]])


@by_structure
def test_far_outside_the_world_is_still_found(name):
    bp = STRUCTURES[name](world=[0, 0, 800, 600])
    model = {
        1: [1e6, 1e6, 1e6 + 10, 1e6 + 10],
        2: [1e6 + 10, 1e6 + 10, 1e6 + 20, 1e6 + 20],  # touches 1 at a corner
        3: [-1e6, -1e6, -1e6, -1e6],  # a point far below-left
        4: [-1e6, -1e6, -1e6 + 5, -1e6],  # a segment through that point
        5: [-1e5, 100, 1e5, 110],  # a long bar through the whole world
        6: [400, 105, 401, 106],  # inside the world, on the bar
        7: [-1e7, -1e7, 1e7, 1e7],  # larger than everything
    }
    for i, b in model.items():
        bp.insert(i, b)
    check_against_model(bp, model, [[1e6 + 5, 1e6 + 5, 1e6 + 5, 1e6 + 5], [-1e6, -1e6, -1e6, -1e6], [0, 0, 800, 600]])
    np.testing.assert_array_equal(bp.query([1e6 + 20, 1e6 + 20, 2e6, 2e6]), [2, 7])
    bp.update(6, [2e6, 2e6, 2e6 + 1, 2e6 + 1])
    model[6] = [2e6, 2e6, 2e6 + 1, 2e6 + 1]
    check_against_model(bp, model)
    bp.remove(7)
    del model[7]
    check_against_model(bp, model)


@by_structure
def test_far_boxes_with_from_boxes(name):
    boxes = make_scene("random", 100, seed=9)
    bp = STRUCTURES[name].from_boxes(boxes, world=[0, 0, 800, 600])
    far = np.array([[FAR, FAR, FAR + 20, FAR + 20], [FAR + 5, FAR + 5, FAR + 6, FAR + 6], [-FAR, 0, -FAR, 0]])
    for k, b in enumerate(far):
        bp.insert(1000 + k, b)
    all_boxes = np.vstack([boxes, far])
    ids = np.concatenate([np.arange(100), 1000 + np.arange(3)])
    model = dict(zip(ids.tolist(), all_boxes.tolist()))
    check_against_model(bp, model, [[FAR, FAR, FAR, FAR], [-FAR, 0, -FAR, 0]])


# --------------------------------------------------------------------------
# Errors leave the structure unchanged
# --------------------------------------------------------------------------
def populated(name):
    bp = STRUCTURES[name].from_boxes(make_scene("random", 60, seed=6))
    bp.insert(-5, [100, 100, 140, 140])
    bp.remove(3)
    return bp


BAD_BOXES = [
    ([5, 0, 1, 1], r"xmin 5\.0 > xmax 1\.0"),
    ([0, 5, 1, 1], r"ymin 5\.0 > ymax 1\.0"),
    ([0, 0, np.nan, 1], r"xmax = nan"),
    ([-np.inf, 0, 1, 1], r"xmin = -inf"),
    ([0, 0, 1], r"shape \(4,\)"),
    ([[0, 0, 1, 1]], r"shape \(4,\)"),
]
NON_INT_IDS = [1.0, 2.5, "1", True, False, np.bool_(True), np.float64(1.0), None, (1,)]


@by_structure
def test_insert_duplicate_id(name):
    bp = populated(name)
    before = snapshot(bp)
    for id_ in (0, 59, -5, np.int64(7)):
        with pytest.raises(ValueError, match=rf"id {int(id_)} is already stored"):
            bp.insert(id_, [0, 0, 1, 1])
        assert_same(before, snapshot(bp))


@by_structure
@pytest.mark.parametrize("op", ["remove", "update"])
def test_unknown_id(name, op):
    bp = populated(name)
    before = snapshot(bp)
    for id_ in (3, 60, -1, 2**63 - 1, -(2**63)):  # 3 was removed
        with pytest.raises(KeyError, match=rf"unknown id {id_}"):
            if op == "remove":
                bp.remove(id_)
            else:
                bp.update(id_, [0, 0, 1, 1])
        assert_same(before, snapshot(bp))


@by_structure
@pytest.mark.parametrize("bad, pattern", BAD_BOXES)
def test_bad_box_insert_update_query(name, bad, pattern):
    bp = populated(name)
    before = snapshot(bp)
    with pytest.raises(ValueError, match=pattern):
        bp.insert(1000, bad)
    assert_same(before, snapshot(bp))
    assert 1000 not in bp
    with pytest.raises(ValueError, match=pattern):
        bp.update(0, bad)
    assert_same(before, snapshot(bp))
    with pytest.raises(ValueError, match=pattern):
        bp.query(bad)
    assert_same(before, snapshot(bp))


@by_structure
@pytest.mark.parametrize("bad, error, pattern", [
    (np.zeros(4, bool), TypeError, "real numbers"),
    (["0", "0", "1", "1"], TypeError, "real numbers"),
    ("box", TypeError, "real numbers"),
    (np.zeros(4, complex), TypeError, "real numbers"),
    ([0, 0, 10**400, 1], ValueError, "too large for a float64"),
], ids=["bool", "strings", "a string", "complex", "huge int"])
def test_only_real_numbers_are_boxes(name, bad, error, pattern):
    bp = populated(name)
    before = snapshot(bp)
    for call in (lambda: bp.insert(1000, bad), lambda: bp.update(0, bad), lambda: bp.query(bad)):
        with pytest.raises(error, match=pattern):
            call()
        assert_same(before, snapshot(bp))
    with pytest.raises(error, match=pattern):
        STRUCTURES[name].from_boxes([bad])


@by_structure
def test_error_messages_name_the_argument(name):
    bp = populated(name)
    with pytest.raises(ValueError, match=r"^box has xmin"):
        bp.insert(1000, [1, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^query box has ymin"):
        bp.query([0, 1, 0, 0])


@by_structure
@pytest.mark.parametrize("bad_id", NON_INT_IDS, ids=repr)
def test_non_integer_id(name, bad_id):
    bp = populated(name)
    before = snapshot(bp)
    with pytest.raises(TypeError, match="id must be an integer"):
        bp.insert(bad_id, [0, 0, 1, 1])
    with pytest.raises(TypeError, match="id must be an integer"):
        bp.remove(bad_id)
    with pytest.raises(TypeError, match="id must be an integer"):
        bp.update(bad_id, [0, 0, 1, 1])
    assert bad_id not in bp
    assert_same(before, snapshot(bp))


@by_structure
@pytest.mark.parametrize("big", [2**63, -(2**63) - 1, np.uint64(2**63)])
def test_id_outside_int64(name, big):
    bp = populated(name)
    before = snapshot(bp)
    with pytest.raises(ValueError, match="does not fit in int64"):
        bp.insert(big, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="does not fit in int64"):
        bp.remove(big)
    assert big not in bp
    assert_same(before, snapshot(bp))


@by_structure
def test_numpy_integer_ids(name):
    bp = STRUCTURES[name]()
    bp.insert(np.int32(4), [0, 0, 2, 2])
    bp.insert(np.uint8(9), [1, 1, 3, 3])
    bp.insert(np.int64(-2), [2, 2, 4, 4])
    assert 4 in bp and np.int16(9) in bp and -2 in bp
    np.testing.assert_array_equal(bp.pairs(), [[-2, 4], [-2, 9], [4, 9]])
    bp.update(np.int8(4), [10, 10, 11, 11])
    bp.remove(np.uint16(9))
    np.testing.assert_array_equal(bp.items()[0], [-2, 4])


# --------------------------------------------------------------------------
# The dynamic interface, step by step
# --------------------------------------------------------------------------
@by_structure
def test_insert_remove_update_basics(name):
    bp = STRUCTURES[name]()
    assert len(bp) == 0 and bp.pairs().shape == (0, 2) and bp.query([0, 0, 800, 600]).shape == (0,)
    bp.insert(10, [0, 0, 10, 10])
    bp.insert(20, [10, 10, 20, 20])  # touches 10 at a corner
    bp.insert(30, [50, 50, 60, 60])
    np.testing.assert_array_equal(bp.pairs(), [[10, 20]])
    np.testing.assert_array_equal(bp.query([10, 10, 10, 10]), [10, 20])
    bp.update(30, [20, 0, 25, 10])  # now touches 20 at (20, 10)
    np.testing.assert_array_equal(bp.pairs(), [[10, 20], [20, 30]])
    bp.update(30, [20, 0, 25, 10])  # the same box again
    np.testing.assert_array_equal(bp.pairs(), [[10, 20], [20, 30]])
    bp.remove(20)
    assert 20 not in bp and len(bp) == 2
    assert bp.pairs().shape == (0, 2)
    bp.insert(20, [5, 5, 21, 6])  # the removed id can be reused
    np.testing.assert_array_equal(bp.pairs(), [[10, 20], [20, 30]])
    bp.remove(10)
    bp.remove(20)
    bp.remove(30)
    assert len(bp) == 0 and bp.pairs().shape == (0, 2)


@by_structure
def test_insert_copies_the_box(name):
    bp = STRUCTURES[name]()
    box = np.array([0.0, 0.0, 1.0, 1.0])
    bp.insert(1, box)
    box[:] = [100, 100, 101, 101]
    bp.insert(2, [0.5, 0.5, 2, 2])
    np.testing.assert_array_equal(bp.pairs(), [[1, 2]])
    np.testing.assert_array_equal(bp.items()[1][0], [0, 0, 1, 1])


@by_structure
def test_clear_and_cleanup(name):
    boxes = make_scene("mixed_sizes", 200, seed=8)
    bp = STRUCTURES[name].from_boxes(boxes, world=[0, 0, 800, 600])
    expected = brute_force_pairs(boxes)
    bp.cleanup()
    np.testing.assert_array_equal(bp.pairs(), expected)
    world = bp.world.copy()
    bp.clear()
    assert len(bp) == 0 and 0 not in bp
    assert bp.pairs().shape == (0, 2)
    assert bp.query([-FAR, -FAR, FAR, FAR]).shape == (0,)
    np.testing.assert_array_equal(bp.world, world)
    bp.cleanup()
    bp.clear()  # clearing twice is fine
    for i, b in enumerate(boxes):  # refill after clear
        bp.insert(i, b)
    np.testing.assert_array_equal(bp.pairs(), expected)
    for i in range(0, 200, 2):
        bp.remove(i)
    bp.cleanup()
    keep = np.arange(1, 200, 2)
    model = dict(zip(keep.tolist(), boxes[keep].tolist()))
    check_against_model(bp, model, [[100, 100, 300, 300], [0, 0, 0, 0]])


@by_structure
def test_introspection(name):
    bp = populated(name)
    assert len(bp) == 60  # 60 rows + id -5 - removed id 3
    assert 0 in bp and -5 in bp and 3 not in bp
    assert "x" not in bp and 1.0 not in bp and None not in bp
    ids, boxes = bp.items()
    assert ids.dtype == np.int64 and ids.shape == (60,)
    assert boxes.dtype == np.float64 and boxes.shape == (60, 4)
    assert (ids[1:] > ids[:-1]).all()
    boxes[:] = 0.0  # items() returns copies
    assert not (bp.items()[1] == 0).all()
    rects, depths = bp.regions()
    assert rects.dtype == np.float64 and rects.ndim == 2 and rects.shape[1] == 4
    assert depths.dtype == np.int64 and depths.shape == (len(rects),)
    assert len(rects) >= 1 and (depths >= 0).all()
    assert np.isfinite(rects).all()
    assert (rects[:, 0] <= rects[:, 2]).all() and (rects[:, 1] <= rects[:, 3]).all()
    mem = bp.memory_bytes()
    assert type(mem) is int and mem >= 0
    assert mem >= bp.elements.nbytes()
    assert type(bp).__name__ in repr(bp) and "n=60" in repr(bp)


@by_structure
def test_empty_structure_introspection(name):
    bp = STRUCTURES[name]()
    ids, boxes = bp.items()
    assert ids.shape == (0,) and ids.dtype == np.int64
    assert boxes.shape == (0, 4) and boxes.dtype == np.float64
    rects, depths = bp.regions()
    assert rects.shape[1] == 4 and depths.shape == (len(rects),)
    assert type(bp.memory_bytes()) is int and bp.memory_bytes() >= 0


# --------------------------------------------------------------------------
# Long random sequences against a dict model
# --------------------------------------------------------------------------
@by_structure
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_operation_sequence(name, seed):
    rng = np.random.default_rng(seed)
    cls = STRUCTURES[name]
    if seed == 0:
        bp, model = cls(world=[0, 0, 100, 100]), {}
    else:  # start from a bulk load, ids 0..n-1
        start = make_scene("random", 40, seed=seed, world=[0, 0, 100, 100])
        bp = cls.from_boxes(start)
        model = {i: b for i, b in enumerate(start.tolist())}
    id_pool = np.array(ODD_IDS + list(range(-20, 60)), dtype=object)
    for step in range(400):
        op = rng.choice(["insert", "insert", "insert", "remove", "update", "update", "clear", "cleanup", "bad"],
                        p=[0.2, 0.1, 0.1, 0.2, 0.15, 0.1, 0.01, 0.04, 0.1])
        if op == "insert":
            id_ = int(rng.choice(id_pool))
            box = random_box(rng)
            if id_ in model:
                with pytest.raises(ValueError):
                    bp.insert(id_, box)
            else:
                bp.insert(id_, box)
                model[id_] = box
        elif op == "remove":
            if model and rng.random() < 0.9:
                id_ = int(rng.choice(sorted(model)))
                bp.remove(id_)
                del model[id_]
            else:
                id_ = int(rng.choice(id_pool))
                if id_ in model:
                    continue
                with pytest.raises(KeyError):
                    bp.remove(id_)
        elif op == "update":
            if not model:
                continue
            id_ = int(rng.choice(sorted(model)))
            box = random_box(rng) if rng.random() < 0.7 else [v + rng.integers(-2, 3) for v in model[id_]]
            if box[0] > box[2] or box[1] > box[3]:
                box = [box[0], box[1], box[0], box[1]]
            bp.update(id_, box)
            model[id_] = box
        elif op == "clear":
            bp.clear()
            model.clear()
        elif op == "cleanup":
            bp.cleanup()
        else:  # a failing call must change nothing
            before = snapshot(bp)
            with pytest.raises((ValueError, TypeError, KeyError)):
                kind = rng.integers(0, 3)
                if kind == 0:
                    bp.insert(10**9, [1, np.nan, 2, 2])
                elif kind == 1:
                    bp.update(next(iter(model), 0) if model else 0, [3, 3, 2, 2])
                else:
                    bp.remove(1.5)
            assert_same(before, snapshot(bp))
        if step % 5 == 4:
            queries = [random_box(rng) for _ in range(3)] + [[-FAR, -FAR, FAR, FAR]]
            check_against_model(bp, model, queries)
    check_against_model(bp, model, [[0, 0, 100, 100]])


IDS = st.one_of(st.integers(-3, 12), st.sampled_from(ODD_IDS))


def make_machine(cls):
    """A hypothesis state machine driving ``cls`` and a dict side by side."""

    class BroadPhaseMachine(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.bp = cls(world=[0, 0, 30, 30])
            self.model: dict[int, list[float]] = {}

        @initialize(boxes=box_arrays(max_size=12))
        def bulk_load(self, boxes):
            if len(boxes) and boxes[0, 0] % 2 == 0:  # half the runs start from from_boxes
                self.bp = cls.from_boxes(boxes)
                self.model = {i: b for i, b in enumerate(boxes.tolist())}

        @rule(id_=IDS, box=any_box())
        def insert(self, id_, box):
            if id_ in self.model:
                with pytest.raises(ValueError, match="already stored"):
                    self.bp.insert(id_, box)
            else:
                self.bp.insert(id_, box)
                self.model[id_] = box

        @precondition(lambda self: self.model)
        @rule(data=st.data())
        def remove(self, data):
            id_ = data.draw(st.sampled_from(sorted(self.model)))
            self.bp.remove(id_)
            del self.model[id_]

        @precondition(lambda self: self.model)
        @rule(data=st.data(), box=any_box())
        def update(self, data, box):
            id_ = data.draw(st.sampled_from(sorted(self.model)))
            self.bp.update(id_, box)
            self.model[id_] = box

        @rule(id_=IDS, box=lattice_box())
        def missing_id(self, id_, box):
            if id_ in self.model:
                return
            with pytest.raises(KeyError):
                self.bp.remove(id_)
            with pytest.raises(KeyError):
                self.bp.update(id_, box)

        @rule(go=st.integers(0, 9))
        def clear(self, go):
            if go == 0:  # rarely: clearing often would keep the structure tiny
                self.bp.clear()
                self.model.clear()

        @rule()
        def cleanup(self):
            self.bp.cleanup()

        @rule(q=st.one_of(any_box(), far_box()))
        def query(self, q):
            ids, boxes = self.bp.items()
            got = self.bp.query(q)
            check_ids_format(got)
            np.testing.assert_array_equal(got, filter_query(ids, boxes, q))

        @invariant()
        def agrees_with_model(self):
            check_against_model(self.bp, self.model)

    BroadPhaseMachine.__name__ = f"{cls.__name__}Machine"
    return BroadPhaseMachine


@by_structure
def test_state_machine(name):
    run_state_machine_as_test(
        make_machine(STRUCTURES[name]),
        settings=settings(max_examples=25, stateful_step_count=40),
    )


# --------------------------------------------------------------------------
# update_many: the per-frame path
# --------------------------------------------------------------------------
@by_structure
@pytest.mark.parametrize("step", [1.0, 40.0, 400.0])
def test_update_many_equals_brute_force(name, step):
    """Small moves (most elements keep their cells/leaves) and large ones (splits, merges)."""
    rng = np.random.default_rng(int(step))
    boxes = make_scene("clustered", 400, seed=3)
    bp = STRUCTURES[name].from_boxes(boxes)
    for frame in range(3):
        ids = rng.permutation(len(boxes))[: 300]
        shift = rng.uniform(-step, step, size=(len(ids), 2))
        boxes[ids] += np.column_stack([shift, shift])
        bp.update_many(ids, boxes[ids])
        np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes), err_msg=f"frame {frame}")
        q = np.array([200.0, 150.0, 420.0, 380.0])
        np.testing.assert_array_equal(bp.query(q), np.flatnonzero(boxes_overlap(boxes, q)))
        bp.cleanup()
        np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes), err_msg=f"frame {frame}, cleanup")


@by_structure
@pytest.mark.parametrize(
    "ids, boxes, error, pattern",
    [
        ([0, 1], [[0, 0, 1, 1]], ValueError, r"ids must have shape \(1,\)"),
        ([1, 1], [[0, 0, 1, 1], [0, 0, 2, 2]], ValueError, "appears more than once"),
        ([1, 3], [[0, 0, 1, 1], [0, 0, 2, 2]], KeyError, "unknown id 3"),
        ([1, 2], [[0, 0, 1, 1], [5, 0, 1, 1]], ValueError, "xmin 5.0 > xmax 1.0"),
        ([0.5], [[0, 0, 1, 1]], TypeError, "integers"),
        # one checked path for ids: no wrap-around, no booleans read as 0 and 1
        (np.array([2**64 - 1], np.uint64), [[0, 0, 1, 1]], ValueError, "does not fit in int64"),
        (np.array([2**63], np.uint64), [[0, 0, 1, 1]], ValueError, "does not fit in int64"),
        ([5, True], [[0, 0, 1, 1], [0, 0, 2, 2]], TypeError, "integers"),
        (np.array([True, False]), [[0, 0, 1, 1], [0, 0, 2, 2]], TypeError, "integers"),
        (["1"], [[0, 0, 1, 1]], TypeError, "integers"),
        # one input validator for boxes: only real numbers
        ([1], np.ones((1, 4), bool), TypeError, "real numbers"),
        ([1], [["0", "0", "1", "1"]], TypeError, "real numbers"),
        ([1], [[0, 0, 10**400, 1]], ValueError, "too large for a float64"),
    ],
)
def test_update_many_bad_input_changes_nothing(name, ids, boxes, error, pattern):
    bp = populated(name)
    before = snapshot(bp)
    with pytest.raises(error, match=pattern):
        bp.update_many(ids, boxes)
    assert_same(before, snapshot(bp))

"""Tests of lessons_lib.structures.brute_force: the oracle must itself be right."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bp_strategies import box_arrays, lattice_box, nested_loop_pairs
from lessons_lib import (
    SCENES,
    BruteForce,
    brute_force_pairs,
    compiled_brute_force_pairs,
    double_loop_pairs,
    make_scene,
    pair_test_count,
)
from lessons_lib.structures import brute_force as bf_module


def check_pair_array(p: np.ndarray, n: int) -> None:
    """The library's pair convention: (k, 2) int64, i < j, lexicographic, unique, in range."""
    assert isinstance(p, np.ndarray)
    assert p.dtype == np.int64
    assert p.ndim == 2 and p.shape[1] == 2
    assert p.flags.c_contiguous
    if len(p):
        assert (p[:, 0] < p[:, 1]).all()
        assert p.min() >= 0 and p.max() < n
        keys = p[:, 0] * max(n, 1) + p[:, 1]
        assert (np.diff(keys) > 0).all()  # strictly increasing: sorted and no duplicates


# --------------------------------------------------------------------------
# brute_force_pairs against independent double loops
# --------------------------------------------------------------------------
@given(box_arrays(max_size=40))
def test_equals_double_loops(boxes):
    p = brute_force_pairs(boxes)
    check_pair_array(p, len(boxes))
    mine = nested_loop_pairs(boxes)
    assert set(map(tuple, p.tolist())) == mine
    found, tests = double_loop_pairs(boxes)
    assert found == [tuple(r) for r in p.tolist()] == sorted(mine)
    assert tests == pair_test_count(len(boxes))


@given(box_arrays(min_size=1, max_size=25, box=lattice_box(lo=0, hi=6, max_size=3)))
def test_dense_touching_lattice(boxes):
    """A tiny lattice: most pairs touch at an edge or corner, or are duplicates."""
    assert set(map(tuple, brute_force_pairs(boxes).tolist())) == nested_loop_pairs(boxes)


def test_touching_cases():
    boxes = [
        [0, 0, 1, 1],
        [1, 0, 2, 1],  # shares an edge with 0
        [2, 1, 3, 2],  # shares a corner with 1
        [5, 5, 5, 5],  # a point
        [5, 5, 5, 5],  # the same point
        [4, 5, 6, 5],  # a segment through the point
        [0, 0, 1, 1],  # duplicate of 0
        [10, 10, 11, 11],  # alone
    ]
    expected = [(0, 1), (0, 6), (1, 2), (1, 6), (3, 4), (3, 5), (4, 5)]
    assert [tuple(r) for r in brute_force_pairs(boxes).tolist()] == expected
    assert double_loop_pairs(boxes)[0] == expected


def test_all_identical_boxes_give_all_pairs():
    n = 30
    p = brute_force_pairs(np.tile([1.0, 2.0, 3.0, 4.0], (n, 1)))
    assert len(p) == pair_test_count(n)
    ii, jj = np.triu_indices(n, k=1)
    np.testing.assert_array_equal(p, np.column_stack([ii, jj]))


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_boxes(n):
    boxes = make_scene("random", n)
    p = brute_force_pairs(boxes)
    assert p.shape == (0, 2) and p.dtype == np.int64
    assert double_loop_pairs(boxes) == ([], 0)


def test_two_disjoint_boxes():
    p = brute_force_pairs([[0, 0, 1, 1], [2, 2, 3, 3]])
    assert p.shape == (0, 2) and p.dtype == np.int64


def test_accepts_lists_and_ints():
    p = brute_force_pairs([[0, 0, 2, 2], [1, 1, 3, 3]])
    np.testing.assert_array_equal(p, [[0, 1]])
    p2 = brute_force_pairs(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], dtype=np.int32))
    np.testing.assert_array_equal(p2, [[0, 1]])


@pytest.mark.parametrize("name", SCENES)
def test_scenes_against_double_loop(name):
    boxes = make_scene(name, 150, seed=11)
    p = brute_force_pairs(boxes)
    check_pair_array(p, len(boxes))
    found, tests = double_loop_pairs(boxes)
    assert [tuple(r) for r in p.tolist()] == found
    assert tests == pair_test_count(150)


# --------------------------------------------------------------------------
# The compiled double loop
# --------------------------------------------------------------------------
@given(box_arrays(max_size=40))
def test_compiled_equals_vectorised(boxes):
    got = compiled_brute_force_pairs(boxes)
    check_pair_array(got, len(boxes))
    np.testing.assert_array_equal(got, brute_force_pairs(boxes))


@pytest.mark.parametrize("name", SCENES)
def test_compiled_on_scenes(name):
    boxes = make_scene(name, 400, seed=12)
    got = compiled_brute_force_pairs(boxes)
    check_pair_array(got, len(boxes))
    np.testing.assert_array_equal(got, brute_force_pairs(boxes))


def test_compiled_grows_its_output():
    """More pairs than the kernel's initial capacity (max(16, n)): every pair intersects."""
    n = 60
    got = compiled_brute_force_pairs(np.tile([0.0, 0.0, 1.0, 1.0], (n, 1)))
    ii, jj = np.triu_indices(n, k=1)
    np.testing.assert_array_equal(got, np.column_stack([ii, jj]))


@pytest.mark.parametrize("n", [0, 1])
def test_compiled_fewer_than_two(n):
    got = compiled_brute_force_pairs(make_scene("random", n))
    assert got.shape == (0, 2) and got.dtype == np.int64


def test_compiled_accepts_non_contiguous_and_int_input():
    big = np.asfortranarray(make_scene("clustered", 100, seed=1))
    np.testing.assert_array_equal(compiled_brute_force_pairs(big), brute_force_pairs(big))
    ints = np.array([[0, 0, 2, 2], [2, 2, 3, 3], [5, 5, 6, 6]], dtype=np.int32)
    np.testing.assert_array_equal(compiled_brute_force_pairs(ints), [[0, 1]])


# --------------------------------------------------------------------------
# Chunking
# --------------------------------------------------------------------------
@pytest.mark.parametrize("cells", [1, 2, 3, 7, 50, 1000])
@pytest.mark.parametrize("name", ["random", "true_uniform", "xline", "mixed_sizes"])
def test_chunking_does_not_change_the_answer(monkeypatch, cells, name):
    boxes = make_scene(name, 120, seed=2)
    expected = brute_force_pairs(boxes)
    monkeypatch.setattr(bf_module, "CHUNK_CELLS", cells)
    got = brute_force_pairs(boxes)
    check_pair_array(got, len(boxes))
    np.testing.assert_array_equal(got, expected)


@given(box_arrays(max_size=30), st.integers(1, 40))
def test_chunking_property(boxes, cells):
    old = bf_module.CHUNK_CELLS
    bf_module.CHUNK_CELLS = cells
    try:
        got = brute_force_pairs(boxes)
    finally:
        bf_module.CHUNK_CELLS = old
    check_pair_array(got, len(boxes))
    assert set(map(tuple, got.tolist())) == nested_loop_pairs(boxes)


def test_large_n_across_several_chunks():
    boxes = make_scene("random", 4000, seed=3)  # 4000 * 3999 / 2 cells: several default chunks
    p = brute_force_pairs(boxes)
    check_pair_array(p, len(boxes))
    # Cross-check with a sort-and-sweep written here, independent of the library.
    order = np.argsort(boxes[:, 0], kind="stable")
    found = set()
    for a_pos, a in enumerate(order):
        for b in order[a_pos + 1 :]:
            if boxes[b, 0] > boxes[a, 2]:
                break
            if boxes[a, 1] <= boxes[b, 3] and boxes[b, 1] <= boxes[a, 3]:
                found.add((min(a, b), max(a, b)))
    assert set(map(tuple, p.tolist())) == found


# --------------------------------------------------------------------------
# pair_test_count
# --------------------------------------------------------------------------
@pytest.mark.parametrize("n, expected", [(0, 0), (1, 0), (2, 1), (3, 3), (10, 45), (2000, 1999000)])
def test_pair_test_count(n, expected):
    assert pair_test_count(n) == expected
    assert type(pair_test_count(n)) is int


def test_pair_test_count_numpy_int_and_big():
    assert pair_test_count(np.int64(5)) == 10
    n = 10**10
    assert pair_test_count(n) == n * (n - 1) // 2  # exact, no float rounding


@pytest.mark.parametrize("bad", [-1, 2.0, 2.5, True, "3", None])
def test_pair_test_count_bad(bad):
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        pair_test_count(bad)


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------
@pytest.mark.parametrize("func", [brute_force_pairs, double_loop_pairs, compiled_brute_force_pairs])
@pytest.mark.parametrize(
    "bad, pattern",
    [
        ([[0, 0, 1, 1], [4, 0, 3, 1]], r"box 1 has xmin 4\.0 > xmax 3\.0"),
        ([[0, 0, 1, 1], [0, 0, 1, 1], [0, np.nan, 1, 1]], r"box 2 has ymin = nan"),
        ([[0, 0, 1, np.inf]], r"box 0 has ymax = inf"),
        ([[0, 0, 1]], r"shape \(n, 4\)"),
        ([0, 0, 1, 1], r"shape \(n, 4\)"),
    ],
)
def test_bad_boxes(func, bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        func(bad)


def test_brute_force_is_registered():
    from lessons_lib import STRUCTURES

    assert STRUCTURES["brute_force"] is BruteForce
    assert BruteForce.name == "brute_force"


def test_brute_force_structure_memory_is_the_element_table_only():
    bp = BruteForce.from_boxes(make_scene("random", 100))
    assert bp.memory_bytes() == bp.elements.nbytes()

"""Tests of lessons_lib.scenes: determinism, shapes, the article's bounds, worlds, errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lessons_lib import ARTICLE_SCENES, SCENES, SKEWED_SCENES, make_scene, scale_to, skewed_scene
from lessons_lib.geometry import as_boxes

#: Scenes whose placement depends on the seed (true_uniform is a fixed lattice).
SEEDED = tuple(s for s in SCENES if s != "true_uniform")
EPS = 1e-9  # sizes are recovered as (x + w) - x, which rounds


def sizes(b):
    return b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]


def test_scene_lists():
    assert ARTICLE_SCENES == ("random", "large_boxes", "xline", "yline", "true_uniform")
    assert SCENES[: len(ARTICLE_SCENES)] == ARTICLE_SCENES
    assert set(SCENES) == set(ARTICLE_SCENES) | {"clustered", "mixed_sizes"}
    assert len(set(SCENES)) == len(SCENES)


# --------------------------------------------------------------------------
# Shape, dtype, validity, determinism
# --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 7, 2000])
@pytest.mark.parametrize("name", SCENES)
def test_shape_dtype_and_valid(name, n):
    b = make_scene(name, n)
    assert isinstance(b, np.ndarray)
    assert b.shape == (n, 4)
    assert b.dtype == np.float64
    assert b.flags.c_contiguous
    as_boxes(b)  # finite, not inverted
    w, h = sizes(b)
    assert (w > 0).all() and (h > 0).all()  # no scene makes degenerate boxes


@pytest.mark.parametrize("name", SCENES)
def test_same_seed_same_boxes(name):
    a = make_scene(name, 300, seed=7)
    b = make_scene(name, 300, seed=7)
    np.testing.assert_array_equal(a, b)
    assert a is not b


@pytest.mark.parametrize("name", SEEDED)
def test_different_seed_different_boxes(name):
    assert not np.array_equal(make_scene(name, 300, seed=1), make_scene(name, 300, seed=2))


def test_default_seed_is_zero():
    np.testing.assert_array_equal(make_scene("random", 50), make_scene("random", 50, seed=0))


def test_true_uniform_ignores_seed():
    np.testing.assert_array_equal(make_scene("true_uniform", 300, seed=1), make_scene("true_uniform", 300, seed=2))


def test_numpy_integer_n_is_accepted():
    np.testing.assert_array_equal(make_scene("random", np.int64(20)), make_scene("random", 20))


def test_reference_values_are_stable():
    """numpy's PCG64 is stable across versions: pin a few values so a refactor cannot drift."""
    b = make_scene("random", 3, seed=0)
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 784, 3), rng.uniform(0, 584, 3)
    w, h = rng.uniform(12, 16, 3), rng.uniform(12, 16, 3)
    np.testing.assert_array_equal(b, np.column_stack([x, y, x + w, y + h]))


# --------------------------------------------------------------------------
# The article's bounds (module docstring table)
# --------------------------------------------------------------------------
N = 2000


@pytest.fixture(scope="module", params=[0, 3])
def seed(request):
    return request.param


def test_random_bounds(seed):
    b = make_scene("random", N, seed=seed)
    w, h = sizes(b)
    assert b[:, 0].min() >= 0 and b[:, 0].max() <= 784
    assert b[:, 1].min() >= 0 and b[:, 1].max() <= 584
    assert w.min() >= 12 - EPS and w.max() <= 16 + EPS
    assert h.min() >= 12 - EPS and h.max() <= 16 + EPS
    # The scene fits in the 800 x 600 world.
    assert b[:, 2].max() <= 800 and b[:, 3].max() <= 600
    # And spreads over it (a uniform draw of 2000 values is not bunched up).
    assert b[:, 0].min() < 10 and b[:, 0].max() > 774


def test_large_boxes_bounds(seed):
    b = make_scene("large_boxes", N, seed=seed)
    w, h = sizes(b)
    assert b[:, 0].min() >= 0 and b[:, 0].max() <= 700
    assert b[:, 1].min() >= 0 and b[:, 1].max() <= 500
    assert w.min() >= 50 - EPS and w.max() <= 100 + EPS
    assert h.min() >= 50 - EPS and h.max() <= 100 + EPS


def test_xline_bounds(seed):
    b = make_scene("xline", N, seed=seed)
    w, h = sizes(b)
    assert (b[:, 0] == 250.0).all()
    np.testing.assert_allclose(b[:, 1], np.arange(N) / N * 580.0, rtol=0, atol=0)
    assert w.min() >= 30 - EPS and w.max() <= 300 + EPS
    assert h.min() >= 10 - EPS and h.max() <= 20 + EPS


def test_yline_bounds(seed):
    b = make_scene("yline", N, seed=seed)
    w, h = sizes(b)
    assert (b[:, 1] == 150.0).all()
    np.testing.assert_allclose(b[:, 0], np.arange(N) / N * 780.0, rtol=0, atol=0)
    assert w.min() >= 10 - EPS and w.max() <= 20 + EPS
    assert h.min() >= 30 - EPS and h.max() <= 300 + EPS


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 99, 100, 101, 300, 2000])
def test_true_uniform_is_a_lattice_of_exactly_n(n):
    b = make_scene("true_uniform", n)
    assert b.shape == (n, 4)
    xs, ys = np.unique(b[:, 0]), np.unique(b[:, 1])
    assert len(xs) * len(ys) >= n
    assert len(np.unique(b[:, :2], axis=0)) == n  # every lattice point used once
    # Regular pitch on both axes, starting at the world's corner, filling it.
    px = 800.0 / len(xs)
    py = 600.0 / len(ys)
    np.testing.assert_allclose(xs, np.arange(len(xs)) * px)
    np.testing.assert_allclose(ys, np.arange(len(ys)) * py)
    # Each box is its pitch plus 10 units, so neighbours overlap.
    w, h = sizes(b)
    np.testing.assert_allclose(w, px + 10.0)
    np.testing.assert_allclose(h, py + 10.0)
    # Filled row by row: only the last row may be partial.
    per_row = np.array([np.sum(b[:, 1] == y) for y in ys])
    assert (per_row[:-1] == len(xs)).all()
    assert 1 <= per_row[-1] <= len(xs)


def test_true_uniform_neighbours_overlap():
    from lessons_lib import brute_force_pairs

    b = make_scene("true_uniform", 100)  # a 10 x 10 lattice
    p = brute_force_pairs(b)
    # Each box meets its 8 neighbours: 10x10 king-move graph has 2*9*10*2 + 2*9*9 edges.
    assert len(p) == 2 * 9 * 10 + 2 * 9 * 9


def test_clustered_and_mixed_stay_in_world(seed):
    for name in ("clustered", "mixed_sizes"):
        b = make_scene(name, N, seed=seed)
        assert b[:, 0].min() >= 0 and b[:, 1].min() >= 0, name
        assert b[:, 2].max() <= 800 + EPS and b[:, 3].max() <= 600 + EPS, name


def test_clustered_sizes_and_clusters(seed):
    b = make_scene("clustered", N, seed=seed)
    w, h = sizes(b)
    assert w.min() >= 6 - EPS and w.max() <= 14 + EPS
    assert h.min() >= 6 - EPS and h.max() <= 14 + EPS
    # Clustered: far more overlaps than the same number of random boxes.
    from lessons_lib import brute_force_pairs

    assert len(brute_force_pairs(b)) > 2 * len(brute_force_pairs(make_scene("random", N, seed=seed)))


def test_mixed_sizes_has_few_dragons_among_orcs(seed):
    b = make_scene("mixed_sizes", N, seed=seed)
    w, h = sizes(b)
    small = (w <= 10 + EPS) & (h <= 10 + EPS)
    big = (w >= 60 - EPS) & (h >= 60 - EPS)
    assert (small | big).all()
    assert w[small].min() >= 4 - EPS and w[big].max() <= 200 + EPS
    assert 0.005 < big.mean() < 0.04  # about 2 %


# --------------------------------------------------------------------------
# Worlds
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("world", [[0, 0, 1600, 1200], [-100, 50, 300, 350], [1e5, -1e5, 1e5 + 8, 1e5]])
def test_world_maps_positions_and_keeps_sizes(name, world):
    base = make_scene(name, 200, seed=4)
    moved = make_scene(name, 200, seed=4, world=world)
    sx = (world[2] - world[0]) / 800.0
    sy = (world[3] - world[1]) / 600.0
    np.testing.assert_allclose(moved[:, 0], base[:, 0] * sx + world[0], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(moved[:, 1], base[:, 1] * sy + world[1], rtol=1e-12, atol=1e-9)
    bw, bh = sizes(base)
    mw, mh = sizes(moved)
    np.testing.assert_allclose(mw, bw, rtol=0, atol=1e-6)
    np.testing.assert_allclose(mh, bh, rtol=0, atol=1e-6)
    assert moved.dtype == np.float64 and moved.shape == (200, 4)


@pytest.mark.parametrize("name", SCENES)
def test_article_world_is_identity(name):
    np.testing.assert_array_equal(
        make_scene(name, 100, seed=5, world=[0, 0, 800, 600]), make_scene(name, 100, seed=5)
    )


def test_larger_world_is_sparser():
    from lessons_lib import brute_force_pairs

    dense = brute_force_pairs(make_scene("random", 2000))
    sparse = brute_force_pairs(make_scene("random", 2000, world=[0, 0, 1600, 1200]))
    assert len(sparse) < len(dense) / 2


@pytest.mark.parametrize("n, wh", [(1, (800, 600)), (100, (800, 600)), (2000, (800, 600)), (8000, (1600, 1200))])
def test_scale_to(n, wh):
    w = scale_to(n)
    assert w.dtype == np.float64 and w.shape == (4,)
    np.testing.assert_allclose(w, [0, 0, *wh])


def test_scale_to_keeps_density():
    for n in (2001, 4500, 32000, np.int64(18000)):
        w = scale_to(n)
        assert math.isclose(n / (w[2] * w[3]), 2000 / (800 * 600), rel_tol=1e-12)
    np.testing.assert_allclose(scale_to(400, base_n=100), [0, 0, 1600, 1200])


@pytest.mark.parametrize("bad", [0, -1, 2.0, 1.5, True, "10", None])
def test_scale_to_bad_n(bad):
    with pytest.raises(ValueError, match=r"n must be a positive integer, got " + repr(bad).replace(".", r"\.")):
        scale_to(bad)


@pytest.mark.parametrize("bad", [0, -5, 2.5, False])
def test_scale_to_bad_base_n(bad):
    with pytest.raises(ValueError, match="base_n must be a positive integer"):
        scale_to(10, base_n=bad)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["nope", "Random", "", None])
def test_unknown_name(bad):
    with pytest.raises(ValueError, match=r"unknown scene .*choose one of random, large_boxes"):
        make_scene(bad, 10)


@pytest.mark.parametrize("bad", [-1, 3.0, 2.5, True, "5", None])
def test_bad_n(bad):
    with pytest.raises(ValueError, match=r"n must be a non-negative integer"):
        make_scene("random", bad)


@pytest.mark.parametrize(
    "world, pattern",
    [
        ([0, 0, 0, 600], "positive width and height"),
        ([0, 5, 800, 5], "positive width and height"),
        ([800, 0, 0, 600], r"world has xmin 800\.0 > xmax 0\.0"),
        ([0, 0, np.nan, 600], r"world has xmax = nan"),
        ([0, 0, 800], r"world must have shape \(4,\)"),
    ],
)
def test_bad_world(world, pattern):
    with pytest.raises(ValueError, match=pattern):
        make_scene("random", 10, world=world)


@pytest.mark.parametrize("kind", ("uniform",) + SKEWED_SCENES)
def test_skewed_scenes_are_valid_and_deterministic(kind):
    a = skewed_scene(kind, 400, seed=3)
    assert a.shape == (400, 4) and a.dtype == np.float64 and a.flags.c_contiguous
    assert (a[:, 2:] >= a[:, :2]).all() and np.isfinite(a).all()
    assert np.array_equal(a, skewed_scene(kind, 400, seed=3))


def test_skewed_scene_rejects_unknown_kind_and_bad_n():
    with pytest.raises(ValueError, match="unknown skewed scene"):
        skewed_scene("diagonal", 10)
    with pytest.raises(ValueError, match="positive integer"):
        skewed_scene("line", 0)

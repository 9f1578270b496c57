"""Space-filling curves (lessons_lib.structures.curves)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib.structures.curves import (
    hilbert_curve,
    hilbert_index,
    hilbert_keys,
    hilbert_point,
    morton_curve,
    morton_decode,
    morton_encode,
    peano_curve,
)


@pytest.mark.parametrize("order", range(0, 7))
def test_hilbert_visits_every_cell_by_unit_steps(order):
    c = hilbert_curve(order)
    assert c.shape == (4**order, 2) and len(np.unique(c, axis=0)) == 4**order
    if order:
        assert (np.abs(np.diff(c, axis=0)).sum(axis=1) == 1).all()
        assert c[0].tolist() == [0, 0] and c[-1].tolist() == [2**order - 1, 0]
    np.testing.assert_array_equal(hilbert_index(c[:, 0], c[:, 1], order), np.arange(4**order))


def test_hilbert_order_1():
    assert hilbert_curve(1).tolist() == [[0, 0], [0, 1], [1, 1], [1, 0]]


@given(x=st.integers(0, 2**20 - 1), y=st.integers(0, 2**20 - 1))
def test_hilbert_round_trip(x, y):
    d = hilbert_index(x, y, 20)
    px, py = hilbert_point(d, 20)
    assert (int(px), int(py)) == (x, y)


@pytest.mark.parametrize("order", range(0, 4))
def test_peano_visits_every_cell_by_unit_steps(order):
    p = peano_curve(order)
    assert p.shape == (9**order, 2) and len(np.unique(p, axis=0)) == 9**order
    if order:
        assert (np.abs(np.diff(p, axis=0)).sum(axis=1) == 1).all()
        assert p[0].tolist() == [0, 0] and p[-1].tolist() == [3**order - 1, 3**order - 1]


def test_morton_small():
    assert morton_encode(0b101, 0b011).tolist() == 0b011011
    assert morton_curve(1).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    c = morton_curve(3)
    assert len(np.unique(c, axis=0)) == 64


@given(x=st.integers(0, 2**31 - 1), y=st.integers(0, 2**31 - 1))
def test_morton_round_trip(x, y):
    code = morton_encode(x, y)
    assert 0 <= int(code) < 2**62
    gx, gy = morton_decode(code)
    assert (int(gx), int(gy)) == (x, y)


def test_vectorised_broadcasting():
    x = np.arange(8)
    assert morton_encode(x, 0).shape == (8,) and hilbert_index(x, 3, 3).shape == (8,)


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda: hilbert_index(4, 0, 2), ValueError, r"cell \(4, 0\) is outside the 4 x 4 grid"),
    (lambda: hilbert_index(-1, 0, 2), ValueError, "outside"),
    (lambda: hilbert_index(0.5, 0, 2), TypeError, "integer cell indices"),
    (lambda: hilbert_index(0, 0, 40), ValueError, "order must be an integer in 0..31"),
    (lambda: hilbert_point(16, 2), ValueError, r"d must be in \[0, 16\)"),
    (lambda: morton_encode(2**31, 0), ValueError, "outside"),
    (lambda: morton_decode(-1), ValueError, "non-negative"),
    (lambda: peano_curve(11), ValueError, "order must be an integer in 0..10"),
    (lambda: peano_curve(1.0), ValueError, "order must be an integer"),
])
def test_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_hilbert_keys_keep_neighbours_close():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1000, size=(2000, 2))
    order = np.argsort(hilbert_keys(p))
    step = np.hypot(*np.diff(p[order], axis=0).T)
    rand = np.hypot(*np.diff(p, axis=0).T)
    assert np.median(step) < 0.1 * np.median(rand)
    assert hilbert_keys(np.empty((0, 2))).shape == (0,)
    assert hilbert_keys([[1.0, 1.0]]).tolist() == [0]


def test_hilbert_keys_use_one_scale_on_both_axes():
    """A strip 1000 x 1 is snapped to a square grid 1000 wide: its points stay in the bottom rows."""
    rng = np.random.default_rng(1)
    p = np.column_stack([rng.uniform(0, 1000, 500), rng.uniform(0, 1, 500)])
    x0, y0, width = p[:, 0].min(), p[:, 1].min(), np.ptp(p[:, 0])
    np.testing.assert_array_equal(hilbert_keys(p), hilbert_keys(p, bounds=[x0, y0, x0 + width, y0 + width]))
    order = np.argsort(hilbert_keys(p), kind="stable")
    assert np.median(np.abs(np.diff(p[order, 0]))) < 5  # neighbours along the curve are neighbours along x


def test_hilbert_keys_at_the_float_limits():
    big = 1.7e308
    p = np.array([[-big, -big], [big, big], [0.0, 0.0], [5e-324, 0.0], [-big, big]])
    with np.errstate(over="raise", invalid="raise"):
        k = hilbert_keys(p, 4)
    side = 16
    assert k.tolist() == hilbert_index([0, side - 1, side // 2, side // 2, 0], [0, side - 1, side // 2, side // 2, side - 1], 4).tolist()
    tiny = np.array([[0.0, 0.0], [5e-324, 5e-324], [1e-323, 0.0]])
    assert len(set(hilbert_keys(tiny, 2).tolist())) == 3  # denormal spreads still spread over the grid

"""Lesson 13's capstone check: the reference passes, the stub fails, plausible mistakes get a hint."""
import numpy as np
import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed


def stub(*args):
    raise NotImplementedError


def _dist(boxes, p):
    dx = np.maximum(np.maximum(boxes[:, 0] - p[0], 0), p[0] - boxes[:, 2])
    dy = np.maximum(np.maximum(boxes[:, 1] - p[1], 0), p[1] - boxes[:, 3])
    return np.hypot(dx, dy)


def make_search(verify=True, centre=False, ties=True, r0=1.0):
    def nearest_by_query(bp, boxes, point, k):
        r = r0
        while True:
            ids = bp.query([point[0] - r, point[1] - r, point[0] + r, point[1] + r])
            if len(ids) >= k:
                b = boxes[ids]
                if centre:
                    c = 0.5 * (b[:, :2] + b[:, 2:])
                    d = np.hypot(c[:, 0] - point[0], c[:, 1] - point[1])
                else:
                    d = _dist(b, point)
                order = np.lexsort((ids if ties else -ids, d))  # ties=False: equal distances by decreasing id
                if not verify or d[order[k - 1]] <= r or len(ids) == len(bp):
                    return ids[order[:k]]
            r *= 2
    return nearest_by_query


def test_reference_passes(capsys):
    checks.check_nearest_by_query(make_search())
    assert "agrees with brute force" in capsys.readouterr().out


@pytest.mark.parametrize("r0", [1.0, 0.37, 3.0, 25.0])
def test_reference_passes_whatever_the_first_radius(r0):
    checks.check_nearest_by_query(make_search(r0=r0))


def test_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_nearest_by_query(stub)


@pytest.mark.parametrize("r0", [1.0, 0.37, 3.0, 25.0])
def test_no_distance_check_fails_with_the_corner_hint(r0):
    with pytest.raises(CheckFailed, match="<= the square's half-size r"):
        checks.check_nearest_by_query(make_search(verify=False, r0=r0))


def test_centre_distance_fails():
    with pytest.raises(CheckFailed, match="not to its centre"):
        checks.check_nearest_by_query(make_search(centre=True))


def test_ties_in_the_wrong_order_fail():
    with pytest.raises(CheckFailed, match="order equal distances by id"):
        checks.check_nearest_by_query(make_search(ties=False))


def test_wrong_count_fails():
    with pytest.raises(CheckFailed, match="expected 3 ids, got 1"):
        checks.check_nearest_by_query(lambda bp, boxes, p, k: [0])

"""Exercise checks of lessons 09-10: reference passes, stub fails, plausible mistakes get a hint."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed
from lessons_lib.structures.curves import morton_encode
from lessons_lib.structures.rtree import enlargement, pick_seeds_quadratic


def stub(*args):
    raise NotImplementedError


# -- enlargement -------------------------------------------------------------
def test_enlargement_reference_passes(capsys):
    checks.check_enlargement(enlargement)
    assert "passed" in capsys.readouterr().out


def test_enlargement_stub_and_mistakes():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_enlargement(stub)

    def union_area(b, e):
        return (max(b[2], e[2]) - min(b[0], e[0])) * (max(b[3], e[3]) - min(b[1], e[1]))

    with pytest.raises(CheckFailed, match="subtract the area the box had before"):
        checks.check_enlargement(union_area)
    with pytest.raises(CheckFailed, match="not the entry's own area"):
        checks.check_enlargement(lambda b, e: (e[2] - e[0]) * (e[3] - e[1]))


# -- pick seeds ----------------------------------------------------------------
def test_pick_seeds_reference_passes(capsys):
    checks.check_pick_seeds(pick_seeds_quadratic)
    assert "passed" in capsys.readouterr().out


def test_pick_seeds_stub_and_mistakes():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_pick_seeds(stub)

    def largest_union(b):
        best = max(((max(b[i, 2], b[j, 2]) - min(b[i, 0], b[j, 0])) * (max(b[i, 3], b[j, 3]) - min(b[i, 1], b[j, 1])), i, j)
                   for i in range(len(b)) for j in range(i + 1, len(b)))
        return best[1], best[2]

    with pytest.raises(CheckFailed, match="largest covering box"):
        checks.check_pick_seeds(largest_union)
    with pytest.raises(CheckFailed, match="two indices"):
        checks.check_pick_seeds(lambda b: 0)


# -- morton --------------------------------------------------------------------
def test_morton_reference_passes(capsys):
    checks.check_morton(lambda x, y: int(morton_encode(x, y)))
    assert "passed" in capsys.readouterr().out


def test_morton_stub_and_mistakes():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_morton(stub)
    with pytest.raises(CheckFailed, match="x and y are swapped"):
        checks.check_morton(lambda x, y: int(morton_encode(y, x)))
    with pytest.raises(CheckFailed, match="side by side"):
        checks.check_morton(lambda x, y: (y << 16) | x)


# -- STR -----------------------------------------------------------------------
def test_str_reference_passes(capsys):
    checks.check_str_level(checks.str_level_reference)
    assert "passed" in capsys.readouterr().out


def test_str_stub_and_mistakes():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_str_level(stub)

    def x_only(c, M):
        o = np.argsort(c[:, 0], kind="stable")
        return [o[a:a + M] for a in range(0, len(c), M)]

    with pytest.raises(CheckFailed, match="sort each slice by y"):
        checks.check_str_level(x_only)

    def slices_of_m(c, M):  # slices of M points instead of S * M: same as x_only with a y sort of each run
        o = np.argsort(c[:, 0], kind="stable")
        return [o[a:a + M] for a in range(0, len(c), M)][::-1]

    with pytest.raises(CheckFailed, match="group 0"):
        checks.check_str_level(slices_of_m)

    def too_many(c, M):
        return [np.array([i]) for i in range(len(c))]

    with pytest.raises(CheckFailed, match="groups, expected"):
        checks.check_str_level(too_many)


def test_str_reference_shape():
    c = np.random.default_rng(0).uniform(0, 1, (100, 2))
    g = checks.str_level_reference(c, 4)
    assert len(g) == 25 and sorted(np.concatenate(g).tolist()) == list(range(100))
    assert math.ceil(math.sqrt(25)) == 5

"""Lesson 13's exercise checks pass the reference, fail the stub, and fail typical wrong answers, each named."""
import math

import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_bounce, check_circles_touch


def stub(*args):
    raise NotImplementedError


# -- exercise 1: circles_touch ------------------------------------------------------
def touch_reference(x1, y1, r1, x2, y2, r2):
    dx, dy = x2 - x1, y2 - y1
    return dx * dx + dy * dy <= (r1 + r2) ** 2


def test_touch_references_pass(capsys):
    check_circles_touch(touch_reference)
    check_circles_touch(lambda x1, y1, r1, x2, y2, r2: np.float64(x2 - x1) ** 2 + (y2 - y1) ** 2 <= (r1 + r2) ** 2)  # np.bool_
    check_circles_touch(lambda x1, y1, r1, x2, y2, r2: not (x2 - x1) ** 2 + (y2 - y1) ** 2 > (r1 + r2) * (r1 + r2))
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("with_a_root", [
    lambda x1, y1, r1, x2, y2, r2: math.hypot(x2 - x1, y2 - y1) <= r1 + r2,
    lambda x1, y1, r1, x2, y2, r2: np.hypot(x2 - x1, y2 - y1) <= r1 + r2,
    lambda x1, y1, r1, x2, y2, r2: math.sqrt((x2 - x1) ** 2 + (y2 - y1) ** 2) <= r1 + r2,
    lambda x1, y1, r1, x2, y2, r2: ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 <= r1 + r2,
    lambda x1, y1, r1, x2, y2, r2: math.dist((x1, y1), (x2, y2)) <= r1 + r2,
    lambda x1, y1, r1, x2, y2, r2: np.linalg.norm([x2 - x1, y2 - y1]) <= r1 + r2,
])
def test_touch_with_a_square_root_fails(with_a_root):
    """Issue 33: the exercise says "avoid the square root"; a root rounds near misses into contacts."""
    with pytest.raises(CheckFailed, match="a near miss a square root rounds away.*Hint: a square root rounds"):
        check_circles_touch(with_a_root)


@pytest.mark.parametrize("wrong, message", [
    (stub, "circles_touch is not written yet"),
    (lambda x1, y1, r1, x2, y2, r2: (x2 - x1) ** 2 + (y2 - y1) ** 2 < (r1 + r2) ** 2, "Use <=, not <"),  # strict
    (lambda x1, y1, r1, x2, y2, r2: abs(x2 - x1) <= r1 + r2 and abs(y2 - y1) <= r1 + r2, "bounding-box test"),
    (lambda x1, y1, r1, x2, y2, r2: (x2 - x1) ** 2 + (y2 - y1) ** 2 <= r1 + r2, "square of the sum"),  # unsquared
    (lambda x1, y1, r1, x2, y2, r2: (x2 - x1) ** 2 + (y2 - y1) ** 2 <= r1 ** 2 + r2 ** 2, "square of the sum"),
    (lambda x1, y1, r1, x2, y2, r2: abs(x2 - x1) + abs(y2 - y1) <= r1 + r2, "straight line"),  # Manhattan distance
    (lambda x1, y1, r1, x2, y2, r2: (x2 - x1) ** 2 + (y2 - y1) ** 2 <= max(r1, r2) ** 2, "expected True"),
    (lambda *a: int(touch_reference(*a)), "return True or False"),
    (lambda *a: None, "returned None"),
])
def test_touch_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_circles_touch(wrong)


def test_touch_failure_prints_every_digit():
    def off_by_a_little(x1, y1, r1, x2, y2, r2):  # a tolerance that swallows a real gap
        return (x2 - x1) ** 2 + (y2 - y1) ** 2 <= (r1 + r2) ** 2 + 1e-6

    with pytest.raises(CheckFailed, match=r"2\.000000001"):
        check_circles_touch(off_by_a_little)


# -- exercise 2: bounce ---------------------------------------------------------------
def make_bounce(rule="reference"):
    def bounce(pa, va, ma, pb, vb, mb):
        d = pb - pa
        n = d if rule == "not_normalised" else d / np.linalg.norm(d)
        u = np.dot(vb - va, n)
        if u >= 0 and rule != "always":
            return va, vb
        wa, wb = (ma, mb) if rule == "masses_swapped" else (mb, ma)
        k = {"inelastic": 1, "sign": -2}.get(rule, 2)
        if rule == "whole_vector":  # the 1-D formula on the whole velocity vectors
            return ((ma - mb) * va + 2 * mb * vb) / (ma + mb), ((mb - ma) * vb + 2 * ma * va) / (ma + mb)
        if rule == "in_place":
            va += k * wa / (ma + mb) * u * n
            vb -= k * wb / (ma + mb) * u * n
            return va, vb
        return va + k * wa / (ma + mb) * u * n, vb - k * wb / (ma + mb) * u * n
    return bounce


def test_bounce_reference_passes(capsys):
    check_bounce(make_bounce())
    check_bounce(lambda pa, va, ma, pb, vb, mb: [v.copy() for v in make_bounce()(pa, va, ma, pb, vb, mb)])  # a list
    assert "passed" in capsys.readouterr().out


def test_bounce_velocities_must_be_arrays():
    """Issue 33: numpy arrays of 2 floats are asked; lists are not."""
    with pytest.raises(CheckFailed, match="must be two numbers in a numpy array"):
        check_bounce(lambda pa, va, ma, pb, vb, mb: tuple(v.tolist() for v in make_bounce()(pa, va, ma, pb, vb, mb)))


def test_bounce_hints_only_when_proven():
    with pytest.raises(CheckFailed) as e:  # right only for equal masses, head-on: no typical mistake, facts only
        check_bounce(lambda pa, va, ma, pb, vb, mb: (vb.copy(), va.copy()))
    assert "Hint" not in str(e.value) and "momentum ma va + mb vb was" in str(e.value)


def test_bounce_crash_names_the_case():
    def crashes_at_rest(pa, va, ma, pb, vb, mb):
        if not va.any():
            raise FloatingPointError("at rest")
        return make_bounce()(pa, va, ma, pb, vb, mb)
    with pytest.raises(CheckFailed, match=r"raised FloatingPointError: at rest on bounce\(pa=\[3.5, 3.5\], va=\[0, 0\].*\(both at rest\)"):
        check_bounce(crashes_at_rest)


@pytest.mark.parametrize("wrong, message", [
    (stub, "bounce is not written yet"),
    (make_bounce("always"), "already moving apart"),          # bounces separating discs too
    (make_bounce("masses_swapped"), "momentum"),              # a's change weighted by its own mass
    (make_bounce("inelastic"), "kinetic energy changed"),     # cancels the normal speed instead of reversing it
    (make_bounce("not_normalised"), "unit vector"),           # n = pb - pa, not divided by its length
    (make_bounce("whole_vector"), "sideways parts changed"),  # the 1-D formula on the whole velocities
    (make_bounce("sign"), "impulse points the wrong way"),    # a pushed towards b
    (make_bounce("in_place"), "changed its argument number 2 in place"),
    (lambda pa, va, ma, pb, vb, mb: (vb, va), "momentum|expected"),   # right only for equal masses, head-on
    (lambda pa, va, ma, pb, vb, mb: (-va, -vb), "momentum|moving apart"),
    (lambda pa, va, ma, pb, vb, mb: make_bounce()(pa, va, ma, pb, vb, mb)[0], "return the two new velocities"),
    (lambda *a: None, "returned None"),
    (lambda pa, va, ma, pb, vb, mb: (None, vb), "each velocity must be two numbers"),
])
def test_bounce_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_bounce(wrong)

"""Lesson 12's exercise checks pass the reference, fail the stub, and fail typical wrong answers, each named."""
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
    check_circles_touch(lambda x1, y1, r1, x2, y2, r2: math.hypot(x2 - x1, y2 - y1) <= r1 + r2)
    check_circles_touch(lambda x1, y1, r1, x2, y2, r2: np.hypot(x2 - x1, y2 - y1) <= r1 + r2)  # a numpy bool
    assert "passed" in capsys.readouterr().out


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
        k = 1 if rule == "inelastic" else 2
        if rule == "in_place":
            va += k * wa / (ma + mb) * u * n
            vb -= k * wb / (ma + mb) * u * n
            return va, vb
        return va + k * wa / (ma + mb) * u * n, vb - k * wb / (ma + mb) * u * n
    return bounce


def test_bounce_reference_passes(capsys):
    check_bounce(make_bounce())
    check_bounce(lambda pa, va, ma, pb, vb, mb: tuple(v.tolist() for v in make_bounce()(pa, va, ma, pb, vb, mb)))
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "bounce is not written yet"),
    (make_bounce("always"), "already moving apart"),          # bounces separating discs too
    (make_bounce("masses_swapped"), "momentum"),              # a's change weighted by its own mass
    (make_bounce("inelastic"), "kinetic energy changed"),     # cancels the normal speed instead of reversing it
    (make_bounce("not_normalised"), "unit vector"),           # n = pb - pa, not divided by its length
    (make_bounce("in_place"), "changed its argument number 2 in place"),
    (lambda pa, va, ma, pb, vb, mb: (vb, va), "momentum|tangential"),   # right only for equal masses, head-on
    (lambda pa, va, ma, pb, vb, mb: (-va, -vb), "momentum|moving apart"),
    (lambda pa, va, ma, pb, vb, mb: make_bounce()(pa, va, ma, pb, vb, mb)[0], "return the two new velocities"),
    (lambda *a: None, "returned None"),
    (lambda pa, va, ma, pb, vb, mb: (None, vb), "each velocity must be two numbers"),
])
def test_bounce_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_bounce(wrong)

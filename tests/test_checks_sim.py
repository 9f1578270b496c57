"""Lesson 12's exercise checks pass the reference, fail the stub, and fail plausible wrong answers."""
import math

import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_bounce, check_circles_touch


# -- exercise 1: circles_touch ------------------------------------------------------
def touch_reference(x1, y1, r1, x2, y2, r2):
    dx, dy = x2 - x1, y2 - y1
    return dx * dx + dy * dy <= (r1 + r2) ** 2


def touch_stub(x1, y1, r1, x2, y2, r2):
    raise NotImplementedError


def touch_strict(x1, y1, r1, x2, y2, r2):  # touching does not count
    return (x2 - x1) ** 2 + (y2 - y1) ** 2 < (r1 + r2) ** 2


def touch_boxes(x1, y1, r1, x2, y2, r2):  # the broad phase's box test again
    return abs(x2 - x1) <= r1 + r2 and abs(y2 - y1) <= r1 + r2


def touch_unsquared(x1, y1, r1, x2, y2, r2):  # squared distance against the plain sum
    return (x2 - x1) ** 2 + (y2 - y1) ** 2 <= r1 + r2


def touch_sum_of_squares(x1, y1, r1, x2, y2, r2):
    return (x2 - x1) ** 2 + (y2 - y1) ** 2 <= r1 ** 2 + r2 ** 2


def touch_returns_number(x1, y1, r1, x2, y2, r2):
    return int(touch_reference(x1, y1, r1, x2, y2, r2))


def test_touch_reference_passes(capsys):
    check_circles_touch(touch_reference)
    check_circles_touch(lambda x1, y1, r1, x2, y2, r2: math.hypot(x2 - x1, y2 - y1) <= r1 + r2)
    assert "passed" in capsys.readouterr().out


def test_touch_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_circles_touch(touch_stub)


@pytest.mark.parametrize("wrong, message", [
    (touch_strict, "Use <=, not <"),
    (touch_boxes, "bounding-box test"),
    (touch_unsquared, "squared sum of the radii"),
    (touch_sum_of_squares, "squared sum of the radii"),
    (touch_returns_number, "return True or False"),
])
def test_touch_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_circles_touch(wrong)


# -- exercise 2: bounce ---------------------------------------------------------------
def bounce_reference(pa, va, ma, pb, vb, mb):
    n = (pb - pa) / np.linalg.norm(pb - pa)
    u = np.dot(vb - va, n)
    if u >= 0:
        return va, vb
    return va + 2 * mb / (ma + mb) * u * n, vb - 2 * ma / (ma + mb) * u * n


def bounce_stub(pa, va, ma, pb, vb, mb):
    raise NotImplementedError


def bounce_swap(pa, va, ma, pb, vb, mb):  # right only for equal masses, head-on
    return vb, va


def bounce_always(pa, va, ma, pb, vb, mb):  # also bounces pairs moving apart
    n = (pb - pa) / np.linalg.norm(pb - pa)
    u = np.dot(vb - va, n)
    return va + 2 * mb / (ma + mb) * u * n, vb - 2 * ma / (ma + mb) * u * n


def bounce_masses_swapped(pa, va, ma, pb, vb, mb):  # a's change weighted by its own mass
    n = (pb - pa) / np.linalg.norm(pb - pa)
    u = np.dot(vb - va, n)
    if u >= 0:
        return va, vb
    return va + 2 * ma / (ma + mb) * u * n, vb - 2 * mb / (ma + mb) * u * n


def bounce_inelastic(pa, va, ma, pb, vb, mb):  # cancels the normal speed instead of reversing it
    n = (pb - pa) / np.linalg.norm(pb - pa)
    u = np.dot(vb - va, n)
    if u >= 0:
        return va, vb
    return va + mb / (ma + mb) * u * n, vb - ma / (ma + mb) * u * n


def bounce_reverse(pa, va, ma, pb, vb, mb):  # both simply turn around
    return -va, -vb


def bounce_returns_one(pa, va, ma, pb, vb, mb):
    return bounce_reference(pa, va, ma, pb, vb, mb)[0]


def test_bounce_reference_passes(capsys):
    check_bounce(bounce_reference)
    assert "passed" in capsys.readouterr().out


def test_bounce_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_bounce(bounce_stub)


@pytest.mark.parametrize("wrong, message", [
    (bounce_swap, "heavy a|momentum|tangential|kinetic|separating|moving apart"),
    (bounce_always, "moving apart"),
    (bounce_masses_swapped, "momentum"),
    (bounce_inelastic, "kinetic energy changed"),
    (bounce_reverse, "momentum|moving apart|kinetic|tangential"),
    (bounce_returns_one, "two velocities"),
])
def test_bounce_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_bounce(wrong)

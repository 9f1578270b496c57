"""Exercise checks for lesson 12: the agent simulation (narrow phase and bounce)."""
from __future__ import annotations

import numpy as np

from .common import CheckFailed, call_student

__all__ = ["check_circles_touch", "check_bounce"]


# --------------------------------------------------------------------------
# Exercise 1: do two closed circles touch?
# --------------------------------------------------------------------------
def _touch_cases():
    """(name, x1, y1, r1, x2, y2, r2) fixed edge cases, then seeded random ones."""
    cases = [
        ("far apart", 0.0, 0.0, 1.0, 10.0, 0.0, 1.0),
        ("overlapping", 0.0, 0.0, 1.0, 1.5, 0.0, 1.0),
        ("touching exactly along x (distance 3 = 1 + 2)", 0.0, 0.0, 1.0, 3.0, 0.0, 2.0),
        ("touching exactly along a diagonal (a 3-4-5 triangle)", 0.0, 0.0, 2.0, 3.0, 4.0, 3.0),
        ("one inside the other", 0.0, 0.0, 5.0, 1.0, 1.0, 1.0),
        ("same centre", 2.0, 2.0, 1.0, 2.0, 2.0, 0.5),
        ("boxes overlap at the corner, circles do not", 0.0, 0.0, 1.0, 1.6, 1.6, 1.0),
        ("different radii, gap of 0.5", 0.0, 0.0, 3.0, 0.0, 4.5, 1.0),
        ("near miss on a diagonal (distance 5, radii 2 + 2.9)", 0.0, 0.0, 2.0, 3.0, 4.0, 2.9),
        ("negative coordinates, overlapping", -5.0, -5.0, 1.0, -4.0, -5.5, 0.5),
    ]
    rng = np.random.default_rng(1212)
    for k in range(60):
        x1, y1, x2, y2 = rng.uniform(-10, 10, 4).round(2)
        r1, r2 = rng.uniform(0.2, 6, 2).round(2)
        cases.append((f"random case {k}", x1, y1, r1, x2, y2, r2))
    return cases


def _touch_reference(x1, y1, r1, x2, y2, r2) -> bool:
    dx, dy, rr = x2 - x1, y2 - y1, r1 + r2
    return dx * dx + dy * dy <= rr * rr


def check_circles_touch(fn) -> None:
    """Check ``fn(x1, y1, r1, x2, y2, r2) -> bool``: do the closed circles intersect?

    Touching counts (the distance between centres equals ``r1 + r2``).
    Runs fixed edge cases (exact touching, one inside the other, same
    centre, boxes that overlap while circles do not) and 60 seeded random ones.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case, with a hint.
    """
    cases = _touch_cases()
    for name, *args in cases:
        expected = _touch_reference(*args)
        got = call_student(fn, *args)
        if not isinstance(got, (bool, np.bool_)):
            raise CheckFailed(f"circles_touch{tuple(args)} returned {got!r} ({type(got).__name__}); return True or False.")
        if bool(got) != expected:
            x1, y1, r1, x2, y2, r2 = args
            d = float(np.hypot(x2 - x1, y2 - y1))
            if expected and abs(d - (r1 + r2)) < 1e-9:
                hint = "circles are closed: touching (distance == r1 + r2) counts as a contact. Use <=, not <."
            elif not expected and "boxes overlap" in name:
                hint = "that is the bounding-box test: the broad phase already did it. Compare distances."
            else:
                hint = ("compare the squared distance between centres with the squared sum of the radii, "
                        "(r1 + r2) ** 2: not with r1 ** 2 + r2 ** 2, and not with r1 + r2 unsquared.")
            raise CheckFailed(f"{name}: circles_touch{tuple(float(a) for a in args)} returned {bool(got)}, expected "
                              f"{expected} (distance between centres {d:.4g}, r1 + r2 = {r1 + r2:.4g}). Hint: {hint}")
    print(f"circles_touch passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Exercise 2: the bounce
# --------------------------------------------------------------------------
def _bounce_reference(pa, va, ma, pb, vb, mb):
    from ..labs.sim import bounce_contacts

    pos = np.array([pa, pb], dtype=np.float64)
    vel = np.array([va, vb], dtype=np.float64)
    mass = np.array([ma, mb], dtype=np.float64)
    world = np.array([-1e9, -1e9, 1e9, 1e9])
    bounce_contacts(np.array([[0, 1]], np.int64), np.zeros(1, np.int64), 1, pos, vel, np.sqrt(mass), mass,
                    world, False)
    return vel[0], vel[1]


def _bounce_cases():
    cases = [
        ("head-on, equal masses", (0.0, 0.0), (1.0, 0.0), 1.0, (2.0, 0.0), (-1.0, 0.0), 1.0),
        ("one at rest, equal masses", (0.0, 0.0), (2.0, 0.0), 1.0, (2.0, 0.0), (0.0, 0.0), 1.0),
        ("heavy a (9) hits light b (1) at rest", (0.0, 0.0), (1.0, 0.0), 9.0, (4.0, 0.0), (0.0, 0.0), 1.0),
        ("light a (1) hits heavy b (9) at rest", (0.0, 0.0), (1.0, 0.0), 1.0, (4.0, 0.0), (0.0, 0.0), 9.0),
        ("glancing: b is above-right of a", (0.0, 0.0), (1.0, 0.0), 1.0, (1.2, 1.6), (0.0, 0.0), 1.0),
        ("already separating: no impulse", (0.0, 0.0), (-1.0, 0.0), 1.0, (2.0, 0.0), (1.0, 0.0), 1.0),
        ("moving together, b faster away: no impulse", (0.0, 0.0), (1.0, 0.0), 2.0, (0.0, 2.0), (1.0, 0.5), 3.0),
        ("sliding past sideways: no normal speed", (0.0, 0.0), (0.0, 1.0), 1.0, (2.0, 0.0), (0.0, -1.0), 1.0),
    ]
    rng = np.random.default_rng(1213)
    for k in range(40):
        pa, pb = rng.uniform(-5, 5, 2).round(2), rng.uniform(-5, 5, 2).round(2)
        va, vb = rng.uniform(-2, 2, 2).round(2), rng.uniform(-2, 2, 2).round(2)
        ma, mb = rng.uniform(0.5, 5, 2).round(2)
        cases.append((f"random case {k}", tuple(pa), tuple(va), float(ma), tuple(pb), tuple(vb), float(mb)))
    return cases


def check_bounce(fn) -> None:
    """Check ``fn(pa, va, ma, pb, vb, mb) -> (va_new, vb_new)``: the elastic bounce of two discs.

    ``pa, pb`` are centres and ``va, vb`` velocities (2 numbers each), ``ma,
    mb`` masses. Expected: an impulse along the line of centres that
    conserves momentum and kinetic energy, applied only when the discs
    approach each other; a separating pair keeps its velocities. Runs fixed
    cases (equal and unequal masses, glancing, separating) and 40 seeded
    random ones, with a tolerance of 1e-9.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case, with a hint.
    """
    cases = _bounce_cases()
    for name, pa, va, ma, pb, vb, mb in cases:
        ea, eb = _bounce_reference(pa, va, ma, pb, vb, mb)
        got = call_student(fn, np.array(pa), np.array(va), ma, np.array(pb), np.array(vb), mb)
        try:
            ga, gb = (np.asarray(v, dtype=np.float64).reshape(2) for v in got)
        except (TypeError, ValueError):
            raise CheckFailed(f"bounce must return two velocities (va_new, vb_new) of 2 numbers each; got {got!r}") from None
        if np.allclose(ga, ea, rtol=0, atol=1e-9) and np.allclose(gb, eb, rtol=0, atol=1e-9):
            continue
        n = np.subtract(pb, pa) / np.hypot(*np.subtract(pb, pa))
        approaching = float(np.dot(np.subtract(vb, va), n)) < 0
        mom0 = ma * np.asarray(va) + mb * np.asarray(vb)
        e0 = ma * np.dot(va, va) + mb * np.dot(vb, vb)
        e1 = ma * np.dot(ga, ga) + mb * np.dot(gb, gb)
        if not approaching:
            hint = ("these discs are already moving apart ((vb - va) . n >= 0): leave their velocities alone, "
                    "or they stick together and jitter.")
        elif not np.allclose(ma * ga + mb * gb, mom0, atol=1e-9):
            hint = ("momentum ma va + mb vb changed: give a and b opposite impulses, a's scaled by 1 / ma "
                    "and b's by 1 / mb (a's change uses 2 mb / (ma + mb), b's uses 2 ma / (ma + mb)).")
        elif not np.isclose(e1, e0, rtol=1e-9):
            hint = "kinetic energy changed: an elastic bounce reverses the normal relative speed, it does not cancel it."
        else:
            hint = ("only the velocity component along the line of centres n = (pb - pa) / |pb - pa| changes; "
                    "the tangential component stays.")
        raise CheckFailed(f"{name}: bounce returned va={np.round(ga, 6).tolist()}, vb={np.round(gb, 6).tolist()}; "
                          f"expected va={np.round(ea, 6).tolist()}, vb={np.round(eb, 6).tolist()}. Hint: {hint}")
    print(f"bounce passed all {len(cases)} cases.")

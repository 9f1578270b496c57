"""Exercise checks for lesson 13: the agent simulation's narrow phase and collision response.

1. :func:`check_circles_touch`: do two closed circles intersect (touching counts)?
2. :func:`check_bounce`: the elastic bounce of two discs, compared with the
   simulation's own kernel (:func:`lessons_lib.labs.sim.bounce_contacts`).

Both run the learner's function on copies of its inputs (an input changed in place
fails), on fixed edge cases (exact touching, zero radii, points, negative and large
coordinates, very unequal masses) and on seeded random ones, validate what comes
back (a bool, two velocities of two finite numbers) and print every digit of a
failing input.
"""
from __future__ import annotations

import numpy as np

from .common import CheckFailed, Mistakes, num, run_student

__all__ = ["check_circles_touch", "check_bounce"]


def _args(values) -> str:
    return "(" + ", ".join(num(v) for v in values) + ")"


def _vec(values) -> str:
    return "[" + ", ".join(num(v) for v in values) + "]"


# --------------------------------------------------------------------------
# Exercise 1: do two closed circles touch?
# --------------------------------------------------------------------------
def _touch_cases():
    """(name, x1, y1, r1, x2, y2, r2) fixed edge cases, then seeded random ones."""
    cases = [
        ("far apart", 0.0, 0.0, 1.0, 10.0, 0.0, 1.0),
        ("overlapping", 0.0, 0.0, 1.0, 1.5, 0.0, 1.0),
        ("touching exactly along x (distance 3 = 1 + 2)", 0.0, 0.0, 1.0, 3.0, 0.0, 2.0),
        ("touching exactly along y, negative coordinates", -61.25, -17.5, 0.75, -61.25, -19.0, 0.75),
        ("touching exactly along a diagonal (a 3-4-5 triangle)", 0.0, 0.0, 2.0, 3.0, 4.0, 3.0),
        ("touching exactly along a diagonal, non-integer (0.75-1-1.25)", 10.5, -3.25, 0.5, 11.25, -2.25, 0.75),
        ("one inside the other", 0.0, 0.0, 5.0, 1.0, 1.0, 1.0),
        ("same centre", 2.0, 2.0, 1.0, 2.0, 2.0, 0.5),
        ("boxes overlap at the corner, circles do not", 0.0, 0.0, 1.0, 1.6, 1.6, 1.0),
        ("boxes touch at the corner exactly, circles do not", -4.0, 6.0, 1.5, -1.0, 9.0, 1.5),
        ("different radii, gap of 0.5", 0.0, 0.0, 3.0, 0.0, 4.5, 1.0),
        ("near miss on a diagonal (distance 5, radii 2 + 2.9)", 0.0, 0.0, 2.0, 3.0, 4.0, 2.9),
        ("a near miss by 1e-9", 0.0, 0.0, 1.0, 2.000000001, 0.0, 1.0),
        ("a point (radius 0) on another circle's edge", 5.0, 5.0, 2.5, 5.0, 7.5, 0.0),
        ("a point (radius 0) just outside a circle", 5.0, 5.0, 2.5, 7.0, 7.0, 0.0),
        ("two points at the same place", 1.25, -8.5, 0.0, 1.25, -8.5, 0.0),
        ("two points apart", 1.25, -8.5, 0.0, 1.25, -8.25, 0.0),
        ("far from the origin, touching", 1e7, -1e7, 3.0, 1e7 + 6.0, -1e7, 3.0),
        ("far from the origin, a gap of 1", 1e7, -1e7, 3.0, 1e7 + 7.0, -1e7, 3.0),
        ("large circles, small gap", 0.0, 0.0, 4000.0, 8000.5, 0.0, 4000.0),
        # The exercise says: avoid the square root. It rounds: on these near misses the squared distance is
        # (exactly) larger than (r1 + r2) ** 2, while sqrt, hypot, ** 0.5, math.dist and np.linalg.norm all
        # round the distance down to r1 + r2 or below.
        ("a near miss a square root rounds away (1)", 17.47, 5.97, 2.11, 25.38, 9.94, 6.740367224019577),
        ("a near miss a square root rounds away (2)", 16.24, -8.69, 8.11, 18.63, -0.1399999999999988, 0.7677587261650682),
        ("a near miss a square root rounds away (3)", -3.82, 10.54, 2.99, 4.15, 19.22, 8.794027325155012),
        ("a near miss a square root rounds away (4)", -19.59, -15.04, 4.31, -11.26, -8.629999999999999, 6.200803965444318),
    ]
    rng = np.random.default_rng(1212)
    for k in range(60):
        x1, y1, x2, y2 = rng.uniform(-310.3, 290.7, 4) * rng.choice([0.02, 1.0])
        r1, r2 = rng.uniform(0.05, 6, 2)
        cases.append((f"random case {k}", float(x1), float(y1), float(r1), float(x2), float(y2), float(r2)))
    return cases


def _touch_reference(x1, y1, r1, x2, y2, r2) -> bool:
    dx, dy, rr = x2 - x1, y2 - y1, r1 + r2
    return dx * dx + dy * dy <= rr * rr


def check_circles_touch(fn) -> None:
    """Check ``fn(x1, y1, r1, x2, y2, r2) -> bool``: do the closed circles intersect?

    Touching counts (the distance between centres equals ``r1 + r2``). Fixed cases
    (exact touching along an axis and along diagonals, with integer and
    non-integer coordinates, one circle inside the other, the same centre, boxes
    that overlap or touch while the circles do not, radius 0, far from the origin,
    a near miss by 1e-9, near misses that a square root rounds into a contact) and 60
    seeded random ones. The answer must be a bool (``True``/``False`` or a numpy bool), not
    a number. The exercise says to avoid the square root: a distance through ``sqrt``,
    ``hypot``, ``** 0.5``, ``math.dist`` or ``np.linalg.norm`` fails the near misses.

    Raises
    ------
    CheckFailed
        On the first wrong answer, with every digit of the input.
    """
    cases = _touch_cases()
    mistakes = Mistakes()
    for name, *args in cases:
        expected = _touch_reference(*args)
        what = f"circles_touch{_args(args)} ({name})"
        got = run_student(fn, *args, name="circles_touch", case=what)
        if not isinstance(got, (bool, np.bool_)):
            raise CheckFailed(f"{what} returned {got!r} ({type(got).__name__}); return True or False.")
        x1, y1, r1, x2, y2, r2 = args
        dx, dy = x2 - x1, y2 - y1
        candidates = [
            ("Hint: circles are closed: touching (distance == r1 + r2) counts as a contact. Use <=, not <.",
             dx * dx + dy * dy < (r1 + r2) ** 2),
            ("Hint: that is the bounding-box test (the broad phase did it already); compare distances.",
             abs(dx) <= r1 + r2 and abs(dy) <= r1 + r2),
            ("Hint: the distance between the centres is the straight line, not |dx| + |dy|.",
             abs(dx) + abs(dy) <= r1 + r2),
            ("Hint: compare the squared distance with the square of the sum of the radii, not with r1 ** 2 + r2 ** 2 "
             "or with r1 + r2.", dx * dx + dy * dy <= r1 * r1 + r2 * r2),
            ("Hint: compare the squared distance with the square of the sum of the radii, not with r1 ** 2 + r2 ** 2 "
             "or with r1 + r2.", dx * dx + dy * dy <= r1 + r2),
            ("Hint: a square root rounds: here it brings the distance down to r1 + r2, though the squared distance is "
             "larger than (r1 + r2) ** 2. Compare the squares, as the exercise asks (avoid the square root).",
             float(np.hypot(dx, dy)) <= r1 + r2),
        ]
        if bool(got) == expected:
            mistakes.passed(bool(got), candidates)
            continue
        hint = mistakes.hint(bool(got), expected, candidates)
        raise CheckFailed(f"{what} returned {bool(got)}, expected {expected} (squared distance between centres "
                          f"{num(dx * dx + dy * dy)}, (r1 + r2) ** 2 = {num((r1 + r2) ** 2)}).{' ' + hint if hint else ''}")
    print(f"circles_touch passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Exercise 2: the bounce
# --------------------------------------------------------------------------
def _bounce_reference(pa, va, ma, pb, vb, mb):
    from ..labs.sim import bounce_contacts

    pos = np.array([pa, pb], dtype=np.float64)
    vel = np.array([va, vb], dtype=np.float64)
    mass = np.array([ma, mb], dtype=np.float64)
    world = np.array([-1e12, -1e12, 1e12, 1e12])
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
        ("glancing, unequal masses, negative coordinates", (-61.25, -17.5), (0.25, 0.5), 2.25,
         (-60.5, -18.5), (-0.75, 0.125), 0.5625),
        ("already separating: no impulse", (0.0, 0.0), (-1.0, 0.0), 1.0, (2.0, 0.0), (1.0, 0.0), 1.0),
        ("moving together, b faster away: no impulse", (0.0, 0.0), (1.0, 0.0), 2.0, (0.0, 2.0), (1.0, 0.5), 3.0),
        ("sliding past sideways: no normal speed", (0.0, 0.0), (0.0, 1.0), 1.0, (2.0, 0.0), (0.0, -1.0), 1.0),
        ("both at rest", (3.5, 3.5), (0.0, 0.0), 1.0, (4.5, 3.5), (0.0, 0.0), 4.0),
        ("a feather (0.001) hits a wall-like mass (1000)", (0.0, 0.0), (0.5, -0.25), 0.001, (0.0, -2.0),
         (0.0, 0.0), 1000.0),
        ("far from the origin", (1e6, 1e6), (0.5, 0.0), 1.0, (1e6 + 3.0, 1e6 + 4.0), (-0.5, -0.5), 2.0),
    ]
    rng = np.random.default_rng(1213)
    for k in range(40):
        pa, pb = rng.uniform(-5.3, 5.7, 2), rng.uniform(-5.3, 5.7, 2)
        va, vb = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2)
        ma, mb = rng.uniform(0.1, 5, 2)
        cases.append((f"random case {k}", tuple(pa.tolist()), tuple(va.tolist()), float(ma), tuple(pb.tolist()),
                      tuple(vb.tolist()), float(mb)))
    return cases


def _velocity(v, what, label):
    """``v`` as a float array of shape (2,): the exercise asks for numpy arrays of 2 floats."""
    if not isinstance(v, np.ndarray):
        raise CheckFailed(f"{what} returned {label} = {v!r} ({type(v).__name__}); each velocity must be two numbers "
                          "in a numpy array (shape (2,)), as the velocities given are.")
    if v.shape != (2,) or v.dtype.kind != "f":
        raise CheckFailed(f"{what} returned {label} = {v!r}; each velocity must be two numbers in a numpy array "
                          "(shape (2,), a float dtype).")
    a = v.astype(np.float64)
    if not np.isfinite(a).all():
        raise CheckFailed(f"{what} returned {label} = {a.tolist()}: not finite (did you divide by zero?)")
    return a


def _bounce_mistakes(pa, va, ma, pb, vb, mb):
    """``(hint, (va_new, vb_new))`` that the usual wrong bounces return."""
    pa, va, pb, vb = (np.asarray(x, np.float64) for x in (pa, va, pb, vb))
    d = pb - pa
    n = d / np.hypot(*d)
    u = float(np.dot(vb - va, n))

    def impulse(k, wa, wb, nn, uu):
        return va + k * wa / (ma + mb) * uu * nn, vb - k * wb / (ma + mb) * uu * nn

    approaching = u < 0
    va1 = ((ma - mb) * va + 2 * mb * vb) / (ma + mb)  # the 1-D formula on whole vectors
    vb1 = ((mb - ma) * vb + 2 * ma * va) / (ma + mb)
    normal_only = impulse(2, mb, ma, n, u)
    sideways = max(np.abs(va1 - normal_only[0]).max(), np.abs(vb1 - normal_only[1]).max()) > 1e-6 * (
        1.0 + max(np.abs(va).max(), np.abs(vb).max()))  # head-on, the 1-D formula is the bounce itself
    return [
        ("Hint: the 1-D bounce formula was applied to the whole velocities, so their sideways parts changed too. "
         "Only the part along n, the line of centres, bounces: split each velocity into (v . n) n and the rest, "
         "or add the impulse along n alone.", (va1, vb1) if sideways else None),
        ("Hint: the impulse points the wrong way: the discs now approach faster than before. a must be pushed "
         "away from b (along -n) and b away from a (along +n).", impulse(-2, mb, ma, n, u) if approaching else None),
        ("Hint: n must be a unit vector: divide pb - pa by its length.",
         impulse(2, mb, ma, d, float(np.dot(vb - va, d))) if approaching else None),
        ("Hint: these discs are already moving apart ((vb - va) . n >= 0): leave their velocities alone, or they "
         "stick together and jitter.", impulse(2, mb, ma, n, u) if not approaching else None),
        ("Hint: a's velocity changes by the other disc's share, mb / (ma + mb), and b's by ma / (ma + mb).",
         impulse(2, ma, mb, n, u) if approaching else None),
        ("Hint: kinetic energy changed: an elastic bounce reverses the normal relative speed, it does not cancel it.",
         impulse(1, mb, ma, n, u) if approaching else None),
    ]


def check_bounce(fn) -> None:
    """Check ``fn(pa, va, ma, pb, vb, mb) -> (va_new, vb_new)``: the elastic bounce of two discs.

    ``pa, pb`` are centres and ``va, vb`` velocities (numpy arrays of 2 floats),
    ``ma, mb`` masses. Expected: with ``n`` the unit vector from a to b and ``u =
    (vb - va) . n``, nothing changes when ``u >= 0`` (separating); otherwise an
    impulse along ``n`` that conserves momentum and kinetic energy. The answer is
    compared with the simulation's kernel to 1e-9 (relative to the speeds), on
    fixed cases (equal and unequal masses, glancing, separating, sliding, at rest,
    a mass ratio of a million, far from the origin) and 40 seeded random ones. The
    inputs must not be changed in place.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case, with a hint when one explains it.
    """
    cases = _bounce_cases()
    close = lambda a, b, scale: all(np.abs(np.asarray(x) - np.asarray(y)).max() <= scale for x, y in zip(a, b))  # noqa: E731
    for name, pa, va, ma, pb, vb, mb in cases:
        ea, eb = _bounce_reference(pa, va, ma, pb, vb, mb)
        what = f"bounce(pa={_vec(pa)}, va={_vec(va)}, ma={num(ma)}, pb={_vec(pb)}, vb={_vec(vb)}, mb={num(mb)}) ({name})"
        got = run_student(fn, np.array(pa), np.array(va), ma, np.array(pb), np.array(vb), mb, name="bounce", case=what)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise CheckFailed(f"{what} returned {got!r}; return the two new velocities (va_new, vb_new).")
        ga, gb = _velocity(got[0], what, "va_new"), _velocity(got[1], what, "vb_new")
        scale = 1e-9 * max(1.0, float(np.abs([va, vb]).max()))
        if close((ga, gb), (ea, eb), scale):
            continue
        hits = {h for h, wrong in _bounce_mistakes(pa, va, ma, pb, vb, mb)
                if wrong is not None and close((ga, gb), wrong, scale) and not close((ea, eb), wrong, scale)}
        facts = []
        mom0, mom1 = ma * np.asarray(va) + mb * np.asarray(vb), ma * ga + mb * gb
        if np.abs(mom1 - mom0).max() > 1e-9 * max(1.0, float(np.abs(mom0).max())):
            facts.append(f"momentum ma va + mb vb was {_vec(mom0)}, your velocities give {_vec(mom1)}")
        e0, e1 = ma * np.dot(va, va) + mb * np.dot(vb, vb), ma * np.dot(ga, ga) + mb * np.dot(gb, gb)
        if not np.isclose(e1, e0, rtol=1e-9):
            facts.append(f"kinetic energy (times 2) was {num(e0)}, your velocities give {num(e1)}")
        raise CheckFailed(f"{what} returned va_new = {_vec(ga)}, vb_new = {_vec(gb)}; expected va_new = {_vec(ea)}, "
                          f"vb_new = {_vec(eb)}." + (" " + "; ".join(facts) + "." if facts else "")
                          + (" " + hits.pop() if len(hits) == 1 else ""))
    print(f"bounce passed all {len(cases)} cases.")

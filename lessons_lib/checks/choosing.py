"""Exercise checks for lesson 13: choosing a structure (the capstone: k nearest through ``query``)."""
from __future__ import annotations

import numpy as np

from ..base import STRUCTURES
from ..structures.brute_force import brute_force_nearest
from ..scenes import make_scene
from .common import CheckFailed, call_student

__all__ = ["check_nearest_by_query"]

#: Structures the capstone must work with, unchanged: one common interface.
_CAPSTONE_STRUCTURES = ["uniform_grid", "spatial_hash", "quadtree", "kdtree", "sweep_and_prune"]


def _cases():
    rng = np.random.default_rng(13)
    lattice = np.array([[x, y, x + 1, y + 1] for x in range(0, 40, 4) for y in range(0, 40, 4)], float)
    yield "random boxes", make_scene("random", 400, seed=5), rng.uniform(-50, 850, (12, 2)), 3
    yield "long thin boxes", make_scene("xline", 300, seed=6), rng.uniform(0, 800, (8, 2)), 5
    # equal distances everywhere: ties must come out in id order
    yield "a lattice (many ties)", lattice, np.array([[2.5, 2.5], [10.0, 10.0], [-7.0, 19.0]]), 4
    # the nearest box is far away: the search square has to grow many times
    yield "a point far from everything", make_scene("random", 50, seed=7), np.array([[5000.0, -3000.0]]), 2
    # A box in the search square's corner (distance 7.07 s) is farther than one just outside the
    # square's side (distance 7 s): any square with 5 s <= r < 7 s finds the wrong one first.
    # Several scales s, so that whatever sequence of r a solution tries, one of them falls in the trap.
    for s in (0.3, 1.0, 1.7, 2.9, 11.0):
        corner = s * np.array([[5.0, 5.0, 5.5, 5.5], [0.0, 7.0, 0.1, 7.1], [40.0, 40.0, 41.0, 41.0]])
        yield f"a box in the search square's corner (scale {s})", corner, np.array([[0.0, 0.0]]), 1


def _box_distance(boxes, p):
    dx = np.maximum(np.maximum(boxes[:, 0] - p[0], 0.0), p[0] - boxes[:, 2])
    dy = np.maximum(np.maximum(boxes[:, 1] - p[1], 0.0), p[1] - boxes[:, 3])
    return np.hypot(dx, dy)


def _hint(boxes, p, k, got, want_d) -> str:
    """Name the likely mistake from what came back."""
    if got.min() < 0 or got.max() >= len(boxes):
        return f"ids are row numbers of boxes, 0..{len(boxes) - 1}"
    got_d = _box_distance(boxes[got], p)
    if np.array_equal(got_d, want_d):
        return "the distances are right but the ids are not: order equal distances by id"
    centres = 0.5 * (boxes[:, :2] + boxes[:, 2:])
    by_centre = np.lexsort((np.arange(len(boxes)), np.hypot(*(centres - p).T)))[:k]
    if np.array_equal(got, by_centre):
        return "measure the distance to the box (0 inside it), not to its centre"
    if np.array_equal(np.sort(got_d), want_d):
        return "the right boxes in the wrong order: list the nearest first"
    return ("a box found inside the search square can still be farther than one just outside it: "
            "accept the k-th distance only when it is <= the square's half-size r, else grow r")


def check_nearest_by_query(fn) -> None:
    """Check ``fn(bp, boxes, point, k) -> ids``: the k boxes nearest ``point``, found only with ``bp.query``.

    ``boxes`` is the ``(n, 4)`` array the structure was built from (ids are row
    numbers); the answer is ``k`` ids, nearest first (Euclidean distance from the
    point to the closed box), equal distances in increasing id order.
    """
    checked = 0
    for name, boxes, points, k in _cases():
        for structure in _CAPSTONE_STRUCTURES:
            bp = STRUCTURES[structure].from_boxes(boxes)
            want_ids, want_d = brute_force_nearest(boxes, points, k)
            for m, p in enumerate(points):
                got = call_student(fn, bp, boxes, np.array(p), k)
                try:
                    got = np.asarray(got, dtype=np.int64).reshape(-1)
                except (TypeError, ValueError):
                    raise CheckFailed(f"return an array or list of {k} integer ids, got {type(got).__name__}") from None
                if got.shape != (k,):
                    raise CheckFailed(f"{name}, {structure}, point {p.tolist()}, k={k}: expected {k} ids, "
                                      f"got {len(got)}")
                if not np.array_equal(got, want_ids[m]):
                    raise CheckFailed(f"{name} with {structure}, point {p.tolist()}, k={k}: expected ids "
                                      f"{want_ids[m].tolist()} (distances {np.round(want_d[m], 3).tolist()}), "
                                      f"got {got.tolist()}. Hint: {_hint(boxes, p, k, got, want_d[m])}.")
                checked += 1
    print(f"nearest_by_query agrees with brute force on {checked} searches over "
          f"{len(_CAPSTONE_STRUCTURES)} structures: one interface, any structure.")

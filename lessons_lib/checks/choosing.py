"""Exercise check for lesson 14: the capstone, k nearest boxes through ``query`` alone.

:func:`check_nearest_by_query` hands the learner's function a structure seen through
``query`` *only* (any other attribute, and ``len(bp)``, fails with a message), counts
the calls and remembers every id they returned. So the check can tell the method,
not just the answer: a brute force over ``boxes`` that never asks ``query`` (or asks
it once, for everything) fails, and so does an answer naming a box that no query
returned. A search that never stops is cut off after :data:`MAX_QUERIES` calls.

Scenes: adversarial ones (touching, zero-area, duplicated, negative, outside the
world, the empty structure), a lattice full of equal distances, long thin boxes,
2,000 random boxes (where a local search must stay local), a point far from
everything, and a trap where a box in the search square's corner is farther than one
just outside its side; ``k`` from 1 to more than the number of boxes; five
structures of the course.
"""
from __future__ import annotations

import numpy as np

from ..base import STRUCTURES
from ..scenes import make_scene
from .common import CheckFailed, adversarial_boxes, expect_int, fmt, num, run_student

__all__ = ["check_nearest_by_query", "box_distances"]

#: Structures the capstone must work with, unchanged: one common interface.
_CAPSTONE_STRUCTURES = ["uniform_grid", "spatial_hash", "quadtree", "kdtree", "sweep_and_prune"]

#: A search that calls ``query`` more often than this for one point is stopped (it would never end).
MAX_QUERIES = 200

_WORLD = (-61.25, -17.5, 138.75, 103.3)


def box_distances(boxes, point) -> np.ndarray:
    """Euclidean distance from ``point`` to each closed box of ``boxes`` ((n, 4) float64), 0 inside a box."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    dx = np.maximum(np.maximum(b[:, 0] - point[0], 0.0), point[0] - b[:, 2])
    dy = np.maximum(np.maximum(b[:, 1] - point[1], 0.0), point[1] - b[:, 3])
    return np.hypot(dx, dy)


def _reference(boxes, point, k) -> np.ndarray:
    """Brute force: the min(k, n) nearest ids, nearest first, equal distances by increasing id."""
    d = box_distances(boxes, point)
    return np.lexsort((np.arange(len(boxes)), d))[:k].astype(np.int64)


class _QueryOnly:
    """A structure seen through ``query`` alone: counts the calls and remembers the ids they returned."""

    def __init__(self, bp, n):
        self._bp, self._n = bp, n
        self.calls, self.returned, self.last = 0, 0, 0
        self.seen: set[int] = set()
        self.last_box, self.last_ids = None, set()

    def query(self, box):
        if self.calls >= MAX_QUERIES:
            if self._n == 0:
                hint = "the structure is empty: no square will ever find a box. Return no ids."
            elif self.last == self._n:
                hint = ("the last query already returned every one of the structure's boxes: when fewer than k boxes "
                        "exist, stop once all of them are found (there are len(boxes) of them).")
            else:
                hint = "grow the square faster (double r each time) and stop as soon as the k-th distance is certain."
            raise CheckFailed(f"nearest_by_query called bp.query {MAX_QUERIES} times for one point without stopping. "
                              f"Hint: {hint}")
        self.calls += 1
        ids = np.array(self._bp.query(box), dtype=np.int64, copy=True)
        self.returned += len(ids)
        self.last = len(ids)
        self.seen.update(ids.tolist())
        self.last_box, self.last_ids = np.array(box, np.float64).reshape(4), set(ids.tolist())
        return ids

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise CheckFailed(f"nearest_by_query used bp.{name}: the search may use bp.query and the boxes array, "
                          "nothing else of the structure.")

    def __len__(self):
        raise CheckFailed("nearest_by_query called len(bp): use len(boxes), the number of boxes the structure holds; "
                          "the search may use bp.query and the boxes array, nothing else of the structure.")

    def __deepcopy__(self, memo):  # the check must see the calls the learner's function makes
        return self

    def __copy__(self):
        return self


def _cases():
    """``(name, boxes, points, ks, local)``: ``local`` marks searches that must not ask for most of the boxes."""
    rng = np.random.default_rng(13)
    out = []
    for name, boxes in adversarial_boxes(seed=31, world=_WORLD):
        n = len(boxes)
        pts = [rng.uniform(_WORLD[:2], _WORLD[2:]), np.array([_WORLD[2] + 900.5, _WORLD[1] - 1200.25])]
        if n:
            pts += [0.5 * (boxes[0, :2] + boxes[0, 2:]), boxes[-1, :2].copy()]  # inside a box; on a corner
        ks = sorted({1, 3, n + 2}) if n else [1, 3]
        out.append((name if n else "an empty structure (no boxes at all)", boxes, np.array(pts), ks, False))
    lattice = np.array([[x, y, x + 1, y + 1] for x in range(-20, 20, 4) for y in range(-20, 20, 4)], float)
    out.append(("a lattice of equal boxes (many equal distances)", lattice,
                np.array([[-17.5, -17.5], [0.0, 0.0], [-27.0, -1.0], [2.5, 2.5]]), [1, 4, 9], False))
    out.append(("long thin boxes (xline)", make_scene("xline", 300, seed=6), rng.uniform(0, 800, (4, 2)), [1, 5], False))
    big = make_scene("random", 2000, seed=5)
    out.append(("2,000 random boxes", big, rng.uniform([50, 50], [750, 550], (6, 2)), [1, 5], True))
    out.append(("a point far from everything", make_scene("random", 50, seed=7), np.array([[5000.0, -3000.0]]), [2, 60],
                False))
    # A box in the search square's corner (distance 7.07 s) is farther than one just outside the
    # square's side (distance 7 s): any square with 5 s <= r < 7 s finds the wrong one first.
    # Several scales s, so that whatever sequence of r a solution tries, one of them falls in the trap.
    for s in (0.3, 1.0, 1.7, 2.9, 11.0):
        corner = s * np.array([[5.0, 5.0, 5.5, 5.5], [0.0, 7.0, 0.1, 7.1], [40.0, 40.0, 41.0, 41.0]])
        out.append((f"a box in the search square's corner (scale {s})", corner, np.array([[0.0, 0.0]]), [1], False))
    return out


def _expect_ranked_ids(got, what, n) -> list[int]:
    """``got`` (a list, tuple or 1-D integer array) as a list of distinct ids in ``0 .. n-1``, order kept."""
    if isinstance(got, np.ndarray):
        if got.ndim != 1 or (got.size and not np.issubdtype(got.dtype, np.integer)):
            raise CheckFailed(f"{what} must be a 1-D array or list of integer ids, got dtype {got.dtype}, shape "
                              f"{got.shape}.")
        got = got.tolist()
    if not isinstance(got, (list, tuple)):
        raise CheckFailed(f"{what} must be a list or array of ids, nearest first; got {type(got).__name__}.")
    ids = [expect_int(v, f"an id in {what}") for v in got]
    bad = [i for i in ids if not 0 <= i < n]
    if bad:
        raise CheckFailed(f"{what} contains id {bad[0]}, but the ids are the row numbers of boxes, 0 to {n - 1}"
                          if n else f"{what} contains id {bad[0]}, but the structure is empty: return no ids.")
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise CheckFailed(f"{what} lists id {dup} more than once.")
    return ids


def _verdict(what, boxes, point, k, got, want, bp) -> None:
    n = len(boxes)
    if got == want:
        return
    if len(got) != len(want):
        if k > n and len(got) < n:
            raise CheckFailed(f"{what}: returned {len(got)} ids, but the structure holds only {n} boxes, fewer than "
                              f"k = {k}: return all {n} of them, nearest first.")
        raise CheckFailed(f"{what}: expected {len(want)} ids, got {len(got)}.")
    d = box_distances(boxes, point)
    tol = 1e-12 * max(1.0, float(np.abs(d[want]).max()))
    same_d = all(abs(d[a] - d[b]) <= tol for a, b in zip(got, want))
    hint = ""
    if same_d:
        exact = all(d[a] == d[b] for a, b in zip(got, want))
        if not exact:
            return  # the answers differ only where two distances differ by rounding: another formula, same order
        hint = "the distances are right but not the ids: order equal distances by increasing id."
    else:
        centres = 0.5 * (boxes[:, :2] + boxes[:, 2:])
        by_centre = np.lexsort((np.arange(n), np.hypot(*(centres - point).T)))[: len(want)].tolist()
        if got == by_centre:
            hint = ("these are the boxes whose centres are nearest: measure the distance to the box (0 inside it), "
                    "not to its centre.")
        elif sorted(d[got].tolist()) == d[want].tolist():
            hint = "the right boxes in the wrong order: list the nearest first."
        elif bp.last_box is not None:
            sq = bp.last_box
            inner = min(point[0] - sq[0], sq[2] - point[0], point[1] - sq[1], sq[3] - point[1])
            if any(d[g] > inner for g in got) and any(w not in bp.last_ids for w in want):
                hint = ("a box found inside the search square can still be farther than one just outside it: accept "
                        "the k-th distance only when it is <= the square's half-size r, else grow r.")
    raise CheckFailed(f"{what}: expected ids {want} (distances {', '.join(num(v) for v in d[want])}), got {got} "
                      f"(distances {', '.join(num(v) for v in d[got])})." + (f" Hint: {hint}" if hint else ""))


def check_nearest_by_query(fn) -> None:
    """Check ``fn(bp, boxes, point, k) -> ids``: the k boxes nearest ``point``, found with ``bp.query`` alone.

    ``boxes`` is the ``(n, 4)`` array the structure was built from (ids are row
    numbers), ``point`` a numpy array ``(x, y)``, ``k >= 1``. The answer is the
    ``min(k, n)`` nearest ids (all of them when ``k`` exceeds the number of boxes,
    none for an empty structure), nearest first by Euclidean distance from the
    point to the closed box (0 inside it), equal distances in increasing id order.

    ``bp`` exposes only ``query``: the check counts the calls and keeps the ids they
    returned. It fails a search that never calls ``query``, one whose answer names
    a box no query returned, one that asks for most of 2,000 boxes to find five,
    and one that calls ``query`` more than :data:`MAX_QUERIES` times for a point.

    Raises
    ------
    CheckFailed
        On the first wrong answer or method, naming the scene, structure, point and k.
    """
    checked = 0
    for name, boxes, points, ks, local in _cases():
        n = len(boxes)
        for structure in _CAPSTONE_STRUCTURES:
            built = STRUCTURES[structure].from_boxes(boxes)
            for p in points:
                p = np.asarray(p, np.float64)
                for k in ks:
                    bp = _QueryOnly(built, n)
                    what = f"nearest_by_query on {name} ({n} boxes) in a {structure}, point {fmt(p)}, k = {k}"
                    got = _expect_ranked_ids(run_student(fn, bp, boxes, p, k, name="nearest_by_query", case=what),
                                             f"the ids returned by {what}", n)
                    if n and bp.calls == 0:
                        raise CheckFailed(f"{what}: the answer was found without calling bp.query. The exercise is "
                                          "the search through query: grow a square around the point and ask the "
                                          "structure what meets it.")
                    unseen = [i for i in got if i not in bp.seen]
                    if unseen:
                        raise CheckFailed(f"{what}: the answer names box {unseen[0]}, which no call of bp.query "
                                          "returned: every id must come from the structure's answers.")
                    if local and bp.returned > n // 2:
                        raise CheckFailed(f"{what}: bp.query returned {bp.returned:,} ids in all ({bp.calls} calls) "
                                          f"to find {k}: start with a small square and grow it, instead of asking "
                                          "for (almost) every box.")
                    _verdict(what, boxes, p, k, got, _reference(boxes, p, k).tolist(), bp)
                    checked += 1
    print(f"nearest_by_query agrees with brute force on {checked} searches over {len(_CAPSTONE_STRUCTURES)} "
          "structures (k larger than the number of boxes and an empty structure included), through query alone.")

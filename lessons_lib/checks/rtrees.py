"""Exercise checks for lessons 09-10: R-trees, bulk loading, space-filling curves."""
from __future__ import annotations

import numpy as np

from ..scenes import make_scene
from .common import CheckFailed, call_student, fmt

# --------------------------------------------------------------------------
# Lessons 09-10: R-trees, bulk loading, space-filling curves
# --------------------------------------------------------------------------
__all__ = ["check_enlargement", "check_pick_seeds", "check_morton", "check_str_level", "str_level_reference"]


def check_enlargement(fn) -> None:
    """Check ``fn(box, entry) -> float``: the area ``box`` gains when it grows to cover ``entry``.

    Both are tuples ``(xmin, ymin, xmax, ymax)``. The answer is
    ``area(union box) - area(box)``: 0 when ``entry`` is already inside.

    Raises
    ------
    CheckFailed
        On the first wrong value, with a hint.
    """
    from ..structures.rtree import enlargement

    cases = [
        ("entry inside the box", (0, 0, 10, 10), (2, 2, 3, 3)),
        ("entry equal to the box", (0, 0, 4, 4), (0, 0, 4, 4)),
        ("entry to the right, touching", (0, 0, 2, 2), (2, 0, 4, 2)),
        ("entry far to the upper right", (0, 0, 1, 1), (9, 9, 10, 10)),
        ("entry larger than the box", (2, 2, 3, 3), (0, 0, 10, 10)),
        ("a point box and a point entry", (0, 0, 0, 0), (3, 4, 3, 4)),
        ("entry overlapping a corner", (0, 0, 4, 4), (3, 3, 6, 5)),
    ]
    rng = np.random.default_rng(9)
    for k in range(200):
        a = np.sort(rng.integers(-10, 10, size=(2, 2)), axis=0)
        b = np.sort(rng.integers(-10, 10, size=(2, 2)), axis=0)
        cases.append((f"random case {k}", (a[0, 0], a[0, 1], a[1, 0], a[1, 1]), (b[0, 0], b[0, 1], b[1, 0], b[1, 1])))
    for name, box, entry in cases:
        box = tuple(float(v) for v in box)
        entry = tuple(float(v) for v in entry)
        expected = enlargement(box, entry)
        got = call_student(fn, box, entry)
        try:
            ok = abs(float(got) - expected) <= 1e-9 * max(1.0, abs(expected))
        except (TypeError, ValueError):
            raise CheckFailed(f"enlargement must return a number, got {got!r}") from None
        if not ok:
            ux = (min(box[0], entry[0]), min(box[1], entry[1]), max(box[2], entry[2]), max(box[3], entry[3]))
            union_area = (ux[2] - ux[0]) * (ux[3] - ux[1])
            hint = ""
            if abs(float(got) - union_area) < 1e-9:
                hint = " Hint: that is the area of the grown box; subtract the area the box had before."
            elif abs(float(got) - (entry[2] - entry[0]) * (entry[3] - entry[1])) < 1e-9:
                hint = " Hint: the cost is not the entry's own area but how much the node's box must grow."
            raise CheckFailed(f"{name}: enlargement({fmt(box)}, {fmt(entry)}) returned {got}, expected {expected}.{hint}")
    print(f"enlargement passed all {len(cases)} cases.")


def check_pick_seeds(fn) -> None:
    """Check ``fn(boxes) -> (i, j)``: Guttman's quadratic PickSeeds.

    ``boxes`` is a ``(k, 4)`` float64 array. The seeds are the pair whose
    covering box wastes the most area: ``area(J) - area(E_i) - area(E_j)``,
    largest over all ``i < j``. Ties are broken by the first such pair (in the
    order ``(0, 1), (0, 2), ..., (1, 2), ...``); the pair may be returned in
    either order.

    Raises
    ------
    CheckFailed
        On the first wrong pair, with a hint.
    """
    from ..structures.rtree import pick_seeds_quadratic

    cases = [
        ("two far-apart boxes among close ones", np.array([[0, 0, 1, 1], [1, 0, 2, 1], [0, 1, 1, 2], [20, 20, 21, 21.0]])),
        # Union area alone would pick the two big boxes (0, 1); the waste picks a small far one.
        ("two thin boxes and two fat ones", np.array([[19, 2, 20, 11], [7, 8, 8, 12], [18, 4, 24, 10],
                                                      [10, 5, 12, 16.0]])),
        ("three boxes in a row", np.array([[0, 0, 1, 1], [5, 0, 6, 1], [10, 0, 11, 1.0]])),
    ]
    for k, scene in enumerate(("random", "clustered", "mixed_sizes")):
        cases.append((f"make_scene({scene!r}, 9)", make_scene(scene, 9, seed=k)))
    for name, b in cases:
        expected = pick_seeds_quadratic(b)
        got = call_student(fn, b.copy())
        try:
            pair = tuple(sorted(int(v) for v in got))
        except (TypeError, ValueError):
            raise CheckFailed(f"pick_seeds must return two indices (i, j), got {got!r}") from None
        if len(pair) != 2:
            raise CheckFailed(f"pick_seeds must return two indices (i, j), got {got!r}")
        if pair != expected:
            hint = " Hint: maximise area(J) - area(E_i) - area(E_j), where J covers both boxes."
            i, j = pair
            if 0 <= i < len(b) and 0 <= j < len(b):
                def union_area(p, q):
                    return (max(b[p, 2], b[q, 2]) - min(b[p, 0], b[q, 0])) * (max(b[p, 3], b[q, 3]) - min(b[p, 1], b[q, 1]))
                best_union = max((union_area(p, q), p, q) for p in range(len(b)) for q in range(p + 1, len(b)))
                if (best_union[1], best_union[2]) == pair:
                    hint = (" Hint: you picked the pair with the largest covering box; subtract the two boxes' own "
                            "areas, so that two big neighbours do not look wasteful.")
            raise CheckFailed(f"{name}: pick_seeds returned {pair}, expected {expected}.{hint}")
    print(f"pick_seeds passed all {len(cases)} cases.")


def check_morton(fn) -> None:
    """Check ``fn(x, y) -> int``: the Z-order code, bit ``i`` of ``x`` to bit ``2i``, of ``y`` to ``2i + 1``.

    ``x`` and ``y`` are Python ints in ``[0, 2**16)``.

    Raises
    ------
    CheckFailed
        On the first wrong code, with a hint.
    """
    from ..structures.curves import morton_encode

    cases = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 5), (5, 3), (255, 0), (0, 255), (65535, 65535), (40000, 123)]
    rng = np.random.default_rng(11)
    cases += [tuple(int(v) for v in rng.integers(0, 2**16, 2)) for _ in range(200)]
    for x, y in cases:
        expected = int(morton_encode(x, y))
        got = call_student(fn, x, y)
        try:
            got = int(got)
        except (TypeError, ValueError):
            raise CheckFailed(f"morton({x}, {y}) must return an integer, got {got!r}") from None
        if got != expected:
            hint = ""
            if got == int(morton_encode(y, x)):
                hint = " Hint: x and y are swapped: x's bits go to the even positions (bit 0, 2, 4...)."
            elif got == (y << 16) | x or got == (x << 16) | y:
                hint = " Hint: that is the two numbers side by side; interleave them bit by bit instead."
            raise CheckFailed(f"morton({x}, {y}) returned {got} ({got:b}), expected {expected} ({expected:b}).{hint}")
    print(f"morton passed all {len(cases)} cases.")


def str_level_reference(centres, capacity: int) -> list[np.ndarray]:
    """Textbook STR for one level: ``P = ceil(k / M)`` nodes, ``S = ceil(sqrt(P))`` slices of ``S * M`` entries.

    Sort the indices by x; cut into slices of ``S * M`` consecutive entries
    (the last may be shorter); sort each slice by y; cut each slice into runs
    of ``M`` (the last run of a slice may be shorter). Ties keep the earlier
    order (stable sorts). Returns the runs, slice by slice.
    """
    import math

    c = np.asarray(centres, np.float64).reshape(-1, 2)
    k = len(c)
    if k == 0:
        return []
    P = math.ceil(k / capacity)
    S = math.ceil(math.sqrt(P))
    by_x = np.argsort(c[:, 0], kind="stable")
    groups = []
    for start in range(0, k, S * capacity):
        sl = by_x[start:start + S * capacity]
        sl = sl[np.argsort(c[sl, 1], kind="stable")]
        groups += [sl[a:a + capacity] for a in range(0, len(sl), capacity)]
    return groups


def check_str_level(fn) -> None:
    """Check ``fn(centres, capacity) -> list of index arrays``: one level of STR packing.

    ``centres`` is a ``(k, 2)`` float64 array, ``capacity`` the node size
    ``M``. The expected groups are :func:`str_level_reference`'s, in the same
    order; the order of indices inside a group does not matter.

    Raises
    ------
    CheckFailed
        On the first differing group, with a hint.
    """
    rng = np.random.default_rng(12)
    cases = [("9 points on a 3 x 3 lattice, M = 3",
              np.array([[x, y] for x in range(3) for y in range(3)], np.float64)[::-1].copy(), 3),
             ("4 points, M = 4 (one node)", rng.uniform(0, 10, (4, 2)), 4)]
    for k, M in ((50, 4), (100, 8), (37, 5), (200, 16)):
        cases.append((f"{k} random points, M = {M}", rng.uniform(0, 100, (k, 2)).round(1), M))
    for name, c, M in cases:
        expected = str_level_reference(c, M)
        got = call_student(fn, c.copy(), M)
        try:
            got = [np.sort(np.asarray(g, dtype=np.int64).ravel()) for g in got]
        except (TypeError, ValueError):
            raise CheckFailed("str_level must return a list of arrays (or lists) of point indices") from None
        if len(got) != len(expected):
            raise CheckFailed(f"{name}: {len(got)} groups, expected {len(expected)} (ceil(k / M) = "
                              f"{-(-len(c) // M)} nodes when every slice but the last is full).")
        for t, (g, e) in enumerate(zip(got, expected)):
            if not np.array_equal(g, np.sort(e)):
                hint = " Hint: sort by x, cut slices of S * M points with S = ceil(sqrt(ceil(k / M))), then sort each slice by y."
                by_x = np.argsort(c[:, 0], kind="stable")
                if all(np.array_equal(np.sort(by_x[a:a + M]), gg) for a, gg in zip(range(0, len(c), M), got)):
                    hint = " Hint: the groups are runs of the x order only: sort each slice by y before cutting it."
                raise CheckFailed(f"{name}: group {t} is {g.tolist()}, expected {np.sort(e).tolist()}.{hint}")
    print(f"str_level passed all {len(cases)} cases.")



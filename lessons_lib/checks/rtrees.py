"""Exercise checks for lessons 09-10: R-trees, bulk loading, space-filling curves, k-d trees.

Lesson 09:

1. :func:`check_enlargement`, the warm-up: the area a box gains to cover an entry;
2. :func:`check_choose_leaf`, the core: Guttman's ChooseLeaf descent written on a
   real tree's flat node arrays (``box``, ``level``, ``count``, ``child``),
   compared, node by node, with every child's enlargement computed by brute force;
3. :func:`check_pick_seeds`: the quadratic split's PickSeeds.

Lesson 10:

1. :func:`check_str_level`: one level of Sort-Tile-Recursive packing;
2. :func:`check_morton`: a Morton code by bit interleaving;
3. :func:`check_median_split`, the core: a k-d tree's median split by
   selection, in place on the structure's array of slots; then used to build a
   whole tree whose leaves are compared with :class:`~lessons_lib.structures.kdtree.KDTree`'s.

Every check runs the learner's function on copies of its inputs, on
adversarial cases (ties, duplicates, zero-area boxes, negative coordinates,
boxes outside the world, empty inputs) and seeded random ones, and says which
input failed and what was expected.
"""
from __future__ import annotations

import math

import numpy as np

from .common import (
    CheckFailed,
    Mistakes,
    adversarial_boxes,
    expect_ids,
    expect_int,
    expect_ints,
    expect_number,
    fmt,
    num,
    proven_hint,
    run_student,
)

__all__ = [
    "check_enlargement",
    "check_choose_leaf",
    "check_pick_seeds",
    "check_str_level",
    "str_level_reference",
    "check_morton",
    "check_median_split",
]

#: The world the adversarial scenes are placed in: origin not 0, size not round.
_WORLD = (-61.25, -17.5, 138.75, 103.3)


def _area(b) -> float:
    return (float(b[2]) - float(b[0])) * (float(b[3]) - float(b[1]))


def _enlargement(box, entry) -> float:
    """Brute force: area of the smallest box covering both, minus the area of ``box``."""
    u = (min(box[0], entry[0]), min(box[1], entry[1]), max(box[2], entry[2]), max(box[3], entry[3]))
    return _area(u) - _area(box)


# --------------------------------------------------------------------------
# Lesson 09, exercise 1 (warm-up): the enlargement
# --------------------------------------------------------------------------
def check_enlargement(fn) -> None:
    """Check ``fn(box, entry) -> float``: the area ``box`` gains when it grows to cover ``entry``.

    Both are tuples ``(xmin, ymin, xmax, ymax)`` of floats. The answer is
    ``area(covering box) - area(box)``: 0 when ``entry`` is already inside.
    Cases: every ordered pair of boxes in each adversarial scene (touching,
    zero-area, duplicates, negative coordinates, outside the world), and
    seeded random ones; values must match to 1e-9 (relative).

    Raises
    ------
    CheckFailed
        On the first wrong value, with every digit of both numbers.
    """
    cases = [("entry inside the box", (0.0, 0.0, 10.0, 10.0), (2.0, 2.0, 3.0, 3.0)),
             ("entry larger than the box, around it", (2.0, 2.0, 3.0, 3.0), (0.0, 0.0, 10.0, 10.0)),
             ("a point box and a point entry", (0.0, 0.0, 0.0, 0.0), (3.0, 4.0, 3.0, 4.0))]
    for name, boxes in adversarial_boxes(seed=9, world=_WORLD):
        for i in range(min(len(boxes), 6)):
            for j in range(min(len(boxes), 6)):
                if i != j or len(boxes) == 1:
                    cases.append((f"{name}, boxes {i} and {j}", tuple(map(float, boxes[i])), tuple(map(float, boxes[j]))))
    close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))  # noqa: E731
    mistakes = Mistakes(same=close)
    for name, box, entry in cases:
        expected = _enlargement(box, entry)
        call = f"my_enlargement({fmt(box)}, {fmt(entry)})"
        got = expect_number(run_student(fn, box, entry, name="my_enlargement", case=f"{name}: {call}"), call)
        u = (min(box[0], entry[0]), min(box[1], entry[1]), max(box[2], entry[2]), max(box[3], entry[3]))
        candidates = [("Hint: that is the area of the grown box; subtract the area the box had before.", _area(u)),
                      ("Hint: the cost is not the entry's own area but how much the box must grow to cover it.",
                       _area(entry))]
        if close(got, expected):
            mistakes.passed(got, candidates)
            continue
        hint = mistakes.hint(got, expected, candidates)
        raise CheckFailed(f"{name}: {call} returned {num(got)}, expected {num(expected)}.{' ' + hint if hint else ''}")
    print(f"my_enlargement passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Lesson 09, exercise 2 (core): ChooseLeaf on a real tree's arrays
# --------------------------------------------------------------------------
def _trees():
    """``(name, tree, entries)``: RTrees of adversarial and random scenes, some after removals, and an empty one."""
    from ..structures.rtree import RTree

    rng = np.random.default_rng(909)
    scenes = [(n, b) for n, b in adversarial_boxes(seed=90, world=_WORLD) if len(b)]
    scenes += [("twelve copies of one box and one other box", np.array([[1.5, 1.5, 2.5, 2.5]] * 12 + [[5.0, 5.0, 6.0, 6.0]])),
               ("points on one horizontal line (zero-area leaves)",
                np.column_stack([np.linspace(-20, 20, 17), np.full(17, 3.25), np.linspace(-20, 20, 17), np.full(17, 3.25)]))]
    everything = np.concatenate([b for _, b in scenes])
    out = [("an empty tree", RTree(max_entries=4), everything[:3])]
    for k, (name, boxes) in enumerate(scenes):
        M = (3, 4, 6)[k % 3]
        tree = RTree.from_boxes(boxes, max_entries=M, min_entries=min(2, M // 2))
        label = f"RTree(max_entries={M}) of {name}"
        if len(boxes) >= 8 and k % 2 == 0:
            for i in range(0, len(boxes), 3):
                tree.remove(i)
            label += f", after {len(range(0, len(boxes), 3))} removals"
        live = tree.elements.boxes[tree.elements.live_slots()]
        entries = [live[i] for i in rng.choice(len(live), min(4, len(live)), replace=False)] if len(live) else []
        entries += [everything[i] for i in rng.choice(len(everything), 6, replace=False)]
        centre = 0.5 * (live[:, :2] + live[:, 2:]).mean(axis=0) if len(live) else np.zeros(2)
        entries += [np.concatenate([centre, centre]),                                   # a point in the middle
                    np.array([_WORLD[2] + 40.0, _WORLD[3] + 7.5, _WORLD[2] + 41.0, _WORLD[3] + 9.0])]  # far outside
        out.append((label, tree, np.array(entries, np.float64)))
    return out


def _guttman_path(box, level, count, child, root, entry) -> list[int]:
    """Brute force: from the root, the child needing least enlargement, ties smaller area, then the first listed."""
    if root < 0:
        return []
    v, path = root, [root]
    while level[v] > 0:
        best, best_key = -1, None
        for c in child[v, : count[v]].tolist():
            key = (_enlargement(box[c], entry), _area(box[c]))
            if best_key is None or key < best_key:
                best, best_key = c, key
        v = best
        path.append(v)
    return path


def _path_to(nodes, leaf) -> list[int]:
    path = [leaf]
    while nodes.parent[path[-1]] >= 0:
        path.append(int(nodes.parent[path[-1]]))
    return path[::-1]


def _with_garbage(nd, entry):
    """Copies of the node arrays ``(box, level, count, child)`` with garbage where the tree keeps nothing.

    Every entry of ``child`` past ``count[v]`` in a branch (where a removal leaves an old
    child, a fresh row -1) names one of two decoy rows appended to the arrays, and every row
    that is not a live node becomes a decoy too: a leaf (level 0) whose box is ``entry``
    itself, so it needs no enlargement and has the smallest area a child covering the entry
    can have. A descent that reads only the first ``count[v]`` children never sees them;
    one that reads further picks a decoy, which is no node of the tree. Returns the arrays
    and the set of decoy rows.
    """
    live = nd.live()
    n, w = len(nd.level), nd.child.shape[1]
    decoys = {n, n + 1}
    box = np.vstack([nd.box, np.tile(np.asarray(entry, np.float64), (2, 1))])
    level = np.concatenate([nd.level, np.zeros(2, nd.level.dtype)])
    count = np.concatenate([nd.count, np.zeros(2, nd.count.dtype)])
    child = np.vstack([nd.child, np.full((2, w), -1, nd.child.dtype)])
    dead = np.setdiff1d(np.arange(n), live)
    box[dead], level[dead], count[dead], child[dead] = entry, 0, 0, -1
    decoys |= set(dead.tolist())
    for v in live.tolist():
        if nd.level[v] > 0:
            child[v, nd.count[v]:] = n + (v % 2)
    return box, level, count, child, decoys


def _choose_leaf_verdict(label, tree, entry, got, decoys) -> None:
    nd = tree.nodes
    what = f"choose_leaf(..., entry={fmt(entry)}) on {label}"
    expected = _guttman_path(nd.box, nd.level, nd.count, nd.child, nd.root, entry)
    leaf = expected[-1] if expected else -1
    if got == leaf:
        return
    if nd.root < 0:
        raise CheckFailed(f"{what} returned {got}: the tree is empty (root is -1), so there is no leaf: return -1.")
    live = set(nd.live().tolist())
    if got not in live:
        hint = ""
        if got in decoys:
            hint = (f" Row {got} of the arrays is named only in entries of child past count[v] (or is no node at all): "
                    "the entries past count[v] in a row of child are leftovers, not children.")
        raise CheckFailed(f"{what} returned {got}, which is not a node of the tree (the tree's nodes are those reached "
                          f"from root {nd.root} through the first count[v] entries of child[v]; the leaf expected is "
                          f"{leaf}).{hint}")
    if nd.level[got] != 0:
        raise CheckFailed(f"{what} returned node {got}, at level {int(nd.level[got])}: keep descending until a leaf "
                          "(level 0).")
    mine = _path_to(nd, got)
    d = next(i for i, (a, b) in enumerate(zip(mine, expected)) if a != b)
    v, c_exp, c_got = expected[d - 1], expected[d], mine[d]
    e_exp, a_exp = _enlargement(nd.box[c_exp], entry), _area(nd.box[c_exp])
    e_got, a_got = _enlargement(nd.box[c_got], entry), _area(nd.box[c_got])
    if abs(e_got - e_exp) <= 1e-9 * max(1.0, abs(e_exp)) and e_got != e_exp and a_got <= a_exp * (1 + 1e-9):
        return  # the two differ only by rounding: another formula for the same number
    kids = nd.child[v, : nd.count[v]].tolist()
    msg = (f"{what} returned leaf {got}. At node {v} (level {int(nd.level[v])}, children {kids}) the entry goes to "
           f"child {c_exp} (enlargement {num(e_exp)}, area {num(a_exp)}); your path took child {c_got} "
           f"(enlargement {num(e_got)}, area {num(a_got)}).")
    if e_got > e_exp and a_got < a_exp:
        msg += " Hint: the least enlargement decides; the area only breaks ties."
    elif e_got == e_exp and a_got > a_exp:
        msg += " Hint: when two children need the same enlargement, the one with the smaller area wins."
    elif e_got == e_exp and a_got == a_exp:
        msg += " Hint: on a full tie (same enlargement, same area) keep the child listed first."
    raise CheckFailed(msg)


def check_choose_leaf(fn) -> None:
    """Check ``fn(box, level, count, child, root, entry) -> int``: Guttman's ChooseLeaf on a tree's flat arrays.

    ``box`` ((c, 4) float64), ``level``, ``count`` ((c,) int64) and ``child``
    ((c, w) int64) are an :class:`~lessons_lib.structures.rtree.RTree`'s node
    arrays (``tree.nodes``), ``root`` its root node (-1 when empty), ``entry``
    the new box. From the root, descend into the child whose box needs the
    least enlargement to cover ``entry``; ties go to the child with the smaller
    area, then to the child listed first; stop at a leaf (level 0) and return
    it, as a Python ``int``. An empty tree has no leaf: return -1.

    Trees: R-trees of adversarial scenes with 3, 4 and 6 entries per node (some
    after removals), twelve copies of one box (full ties), zero-area leaves, an
    empty tree. The arrays handed over hold garbage wherever the tree keeps nothing
    (entries past ``count[v]``, rows that are no live node: see :func:`_with_garbage`),
    as real arrays may.
    Each answer is compared, node by node, with every child's enlargement
    computed by brute force.

    Raises
    ------
    CheckFailed
        On the first wrong leaf: the node where the paths part, both children's
        enlargement and area.
    """
    calls = 0
    trees = _trees()
    for label, tree, entries in trees:
        nd = tree.nodes
        for e in entries:
            entry = tuple(float(v) for v in e)
            box, level, count, child, decoys = _with_garbage(nd, entry)
            what = f"choose_leaf(..., entry={fmt(entry)}) on {label}"
            got = expect_int(run_student(fn, box, level, count, child, nd.root, entry, name="choose_leaf", case=what),
                             what, exact=True)
            _choose_leaf_verdict(label, tree, entry, got, decoys)
            calls += 1
    print(f"choose_leaf passed {calls} entries on {len(trees)} trees (ties, duplicates, zero-area leaves, "
          "removals, an empty tree).")


# --------------------------------------------------------------------------
# Lesson 09, exercise 3: quadratic PickSeeds
# --------------------------------------------------------------------------
def _pick_seeds_reference(b) -> tuple[int, int]:
    """Brute force: the pair ``i < j`` with the largest waste, the first in (0, 1), (0, 2), ... on ties."""
    best, seeds = None, (0, 1)
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            w = _enlargement(b[i], b[j]) - _area(b[j])  # area(J) - area(i) - area(j)
            if best is None or w > best:
                best, seeds = w, (i, j)
    return seeds


def _waste(b, i, j) -> float:
    return _enlargement(b[i], b[j]) - _area(b[j])


def check_pick_seeds(fn) -> None:
    """Check ``fn(boxes) -> (i, j)``: Guttman's quadratic PickSeeds.

    ``boxes`` is a ``(k, 4)`` float64 array, ``k >= 2``. The seeds are the pair
    whose covering box ``J`` wastes the most area: ``area(J) - area(E_i) -
    area(E_j)``, largest over all ``i < j``. The answer is ``(i, j)`` with
    ``i < j``; on ties the first such pair in the order ``(0, 1), (0, 2), ...,
    (1, 2), ...``. Cases include duplicates, overlapping boxes (every waste
    negative), zero-area boxes, negative coordinates and seeded random scenes.

    Raises
    ------
    CheckFailed
        On the first wrong pair, with both pairs' waste.
    """
    cases = [
        ("two far-apart boxes among close ones", np.array([[0, 0, 1, 1], [1, 0, 2, 1], [0, 1, 1, 2], [20, 20, 21, 21.0]])),
        # Union area alone would pick the two big boxes (0, 1)... the waste picks a small far one.
        ("two thin boxes and two fat ones", np.array([[19, 2, 20, 11], [7, 8, 8, 12], [18, 4, 24, 10], [10, 5, 12, 16.0]])),
        ("three copies of one box (every pair wastes the same)", np.array([[3.5, -2.0, 7.25, 1.0]] * 3)),
        ("overlapping boxes: every waste is negative, two pairs tie",
         np.array([[0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 4.0, 4.0], [3.0, 0.0, 5.0, 4.0]])),
        ("four corners of a square (the two diagonals tie)",
         np.array([[-8.5, -8.5, -7.5, -7.5], [7.5, -8.5, 8.5, -7.5], [-8.5, 7.5, -7.5, 8.5], [7.5, 7.5, 8.5, 8.5]])),
    ]
    cases += [(n, b) for n, b in adversarial_boxes(seed=19, world=_WORLD) if len(b) >= 2]
    mistakes = Mistakes()
    answered = False
    for name, b in cases:
        b = np.asarray(b, np.float64)
        i, j = _pick_seeds_reference(b)
        what = f"pick_seeds on {name} ({len(b)} boxes)"
        case = f"{name}: pick_seeds({b.tolist()})" if len(b) <= 6 else what
        got = run_student(fn, b, name="pick_seeds", case=case, may_return_none=True)
        pairs = [(a, c) for a in range(len(b)) for c in range(a + 1, len(b))]
        best = max(_waste(b, a, c) for a, c in pairs)
        if got is None:
            msg = f"pick_seeds returned None on {case}"
            msg += (", though it returned a pair for other inputs" if answered else "") + "; it must return a pair (i, j)."
            if best < 0:
                msg += f" Here every pair's waste is negative (the largest is {num(best)}, for {(i, j)})."
            raise CheckFailed(msg)
        answered = True
        p, q = expect_ints(got, 2, f"the seeds returned by {what}")
        if not (0 <= p < len(b) and 0 <= q < len(b)) or p == q:
            raise CheckFailed(f"{what} returned {(p, q)}: two different indices from 0 to {len(b) - 1} are expected.")
        if p > q:
            raise CheckFailed(f"{what} returned {(p, q)}: write the pair with the smaller index first.")
        union = {(a, c): _enlargement(b[a], b[c]) + _area(b[a]) for a, c in pairs}
        ties = [pc for pc in pairs if _waste(b, *pc) == best]
        candidates = [
            ("Hint: you picked the pair with the largest covering box; subtract the two boxes' own areas, so that two "
             "big neighbours do not look wasteful.", max(pairs, key=lambda pc: (union[pc], -pairs.index(pc)))),
            ("Hint: here every pair overlaps, so every waste is negative: the largest may be below 0.",
             (0, 1) if best < 0 else None),
            ("Hint: both pairs waste the same area; on a tie keep the first pair found.", ties[-1]),
        ]
        if (p, q) == (i, j):
            mistakes.passed((p, q), candidates)
            continue
        hint = mistakes.hint((p, q), (i, j), candidates)
        raise CheckFailed(f"{what}: returned {(p, q)} (waste {num(_waste(b, p, q))}), expected {(i, j)} "
                          f"(waste {num(_waste(b, i, j))}).{' ' + hint if hint else ''}")
    print(f"pick_seeds passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Lesson 10, exercise 1: one level of STR
# --------------------------------------------------------------------------
def str_level_reference(centres, capacity: int) -> list[np.ndarray]:
    """Textbook STR for one level: ``P = ceil(k / M)`` nodes, ``S = ceil(sqrt(P))`` slices of ``S * M`` entries.

    Sort the indices by x; cut into slices of ``S * M`` consecutive entries
    (the last may be shorter); sort each slice by y; cut each slice into runs
    of ``M`` (the last run of a slice may be shorter). Ties keep the earlier
    order (stable sorts). Returns the runs, slice by slice; ``[]`` for no centres.
    """
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


def _str_with(centres, capacity: int, slice_size: int) -> list[list[int]]:
    """STR's two steps with slices of ``slice_size`` entries (textbook: ``S * M``), groups as sorted lists."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    by_x = np.argsort(c[:, 0], kind="stable")
    groups = []
    for start in range(0, len(c), max(1, slice_size)):
        sl = by_x[start:start + max(1, slice_size)]
        sl = sl[np.argsort(c[sl, 1], kind="stable")]
        groups += [sorted(sl[a:a + capacity].tolist()) for a in range(0, len(sl), capacity)]
    return groups


def _str_cases():
    rng = np.random.default_rng(12)
    lattice = np.array([[x, y] for x in range(3) for y in range(3)], np.float64)[::-1].copy()
    cases = [("no centres at all, M = 4", np.empty((0, 2)), 4)]
    four, three = rng.uniform(-10, 10, (4, 2)), rng.uniform(-10, 10, (3, 2))
    ties = np.column_stack([rng.integers(-2, 2, 60) * 2.5, rng.integers(0, 3, 60) * -1.25])
    cases += [("64 points, M = 4 (exactly 16 nodes in 4 slices)", rng.uniform(-50, 50, (64, 2)), 4),
              ("9 points on a 3 x 3 lattice, M = 3", lattice, 3),
              ("4 points, M = 4 (one node)", four, 4),
              ("3 points, M = 8 (fewer than M)", three, 8),
              ("60 points on only 4 distinct x and 3 distinct y (ties everywhere), M = 5", ties, 5)]
    for k, M in ((50, 4), (100, 8), (37, 5), (200, 16), (10, 3)):
        cases.append((f"{k} random points, M = {M}", rng.uniform(-100, 100, (k, 2)).round(3) + 0.125, M))
    # Sizes where floor and ceil give different counts: k / M just above a whole number (P), P just above a
    # square (S), and the last slice short; a rounding anywhere in P or S changes the slices.
    for k, M in ((37, 4), (41, 4), (82, 9), (101, 10), (26, 5), (17, 4), (50, 7), (145, 12)):
        cases.append((f"{k} random points, M = {M} (k / M = {num(round(k / M, 3))})",
                      rng.uniform(-100, 100, (k, 2)).round(3) - 0.375, M))
    return cases


def check_str_level(fn) -> None:
    """Check ``fn(centres, capacity) -> list of index arrays``: one level of STR packing.

    ``centres`` is a ``(k, 2)`` float64 array, ``capacity`` the node size
    ``M``. The answer is a list with one 1-D integer NumPy array of row indices per
    node (lists are refused: the exercise asks for arrays). The expected groups are
    :func:`str_level_reference`'s, in the same order; the order of indices inside a
    group does not matter, but every index must appear exactly once. Cases include no
    centres, fewer than ``M``, exact multiples, sizes where rounding ``k / M`` or its
    square root down instead of up changes the slices, many equal coordinates (stable
    sorts matter), negative and non-integer coordinates.

    Raises
    ------
    CheckFailed
        On the first differing group, with the input's sizes; a hint only when the
        groups are exactly those of one typical mistake.
    """
    cases = _str_cases()
    for name, c, M in cases:
        expected = str_level_reference(c, M)
        call = f"str_level(centres, {M}) on {name}"
        case = f"{name} (centres = {c.tolist()}, capacity = {M})" if len(c) <= 10 else name
        got = run_student(fn, c, M, name="str_level", case=case)
        if not isinstance(got, (list, tuple)):
            raise CheckFailed(f"{call}: str_level must return a list of groups (1-D int arrays), got "
                              f"{type(got).__name__}")
        for t, g in enumerate(got):
            if not isinstance(g, np.ndarray):
                raise CheckFailed(f"{call}: group {t} is a {type(g).__name__}, {g!r}; each group must be a 1-D NumPy "
                                  "array of ints (a slice of an index array is one).")
        groups = [expect_ids(g, f"group {t} of {call}") for t, g in enumerate(got)]
        seen = [i for g in groups for i in g]
        if sorted(seen) != list(range(len(c))):
            extra = sorted(set(seen) - set(range(len(c))))
            twice = sorted({i for i in seen if seen.count(i) > 1})
            missing = sorted(set(range(len(c))) - set(seen))
            raise CheckFailed(f"{call}: every index 0 .. {len(c) - 1} must be in exactly one group; "
                              + (f"missing {missing[:5]}" if missing else f"repeated {twice[:5]}" if twice
                                 else f"out of range {extra[:5]}"))
        want = [sorted(e.tolist()) for e in expected]
        if groups == want:
            continue
        k = len(c)
        P = math.ceil(k / M)
        S = math.ceil(math.sqrt(P))
        sizes = (f"k = {k} centres and M = {M} make P = {P} nodes in S = {S} slice{'s' * (S != 1)} of up to "
                 f"{S * M} centres")
        by_x = np.argsort(c[:, 0], kind="stable")
        x_runs = [sorted(by_x[a:a + M].tolist()) for a in range(0, k, M)]
        candidates = [("Hint: your groups are consecutive runs of M centres in x order: sort each slice by y before "
                       "cutting it into runs.", x_runs)]
        for other in sorted({max(1, math.isqrt(P)), math.ceil(math.sqrt(max(1, k // M))), max(1, round(math.sqrt(P))),
                             S + 1, max(1, S - 1)} - {S}):
            candidates.append((f"Hint: your groups are what slices of {other * M} centres ({other} runs of M) give; "
                               f"here {sizes}.", _str_with(c, M, other * M)))
        if S > 1:
            candidates.append((f"Hint: your groups are what {S} slices of equal size give; here {sizes} (only the "
                               "last slice may be shorter).", _str_with(c, M, math.ceil(k / S))))
        hint = proven_hint(groups, want, candidates)
        if len(groups) != len(want):
            raise CheckFailed(f"{call}: {len(groups)} groups, expected {len(want)} ({sizes}).{' ' + hint if hint else ''}")
        t = next(t for t, (g, e) in enumerate(zip(groups, want)) if g != e)
        raise CheckFailed(f"{call}: group {t} is {groups[t]}, expected {want[t]} ({sizes}).{' ' + hint if hint else ''}")
    print(f"str_level passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Lesson 10, exercise 2: a Morton code
# --------------------------------------------------------------------------
def check_morton(fn) -> None:
    """Check ``fn(x, y) -> int``: the Z-order code, bit ``i`` of ``x`` to bit ``2i``, of ``y`` to ``2i + 1``.

    ``x`` and ``y`` are Python ints in ``[0, 2**16)``. The answer must be an
    ``int`` (a float, or a NumPy integer, fails).

    Raises
    ------
    CheckFailed
        On the first wrong code, with both in binary.
    """
    from ..structures.curves import morton_encode

    cases = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 5), (5, 3), (255, 0), (0, 255), (256, 256),
             (32768, 0), (0, 32768), (65535, 0), (65535, 65535), (40000, 123)]
    rng = np.random.default_rng(11)
    cases += [tuple(int(v) for v in rng.integers(0, 2**16, 2)) for _ in range(200)]
    for x, y in cases:
        expected = int(morton_encode(x, y))
        got = expect_int(run_student(fn, x, y, name="morton", case=f"morton({x}, {y})"), f"morton({x}, {y})", exact=True)
        if got != expected:
            candidates = [
                ("Hint: x and y are swapped: x's bits go to the even positions (bit 0, 2, 4...).", int(morton_encode(y, x))),
                ("Hint: that is the two numbers side by side; interleave them bit by bit instead.", (y << 16) | x),
                ("Hint: that is the two numbers side by side; interleave them bit by bit instead.", (x << 16) | y),
            ]
            low = [b for b in range(1, 16) if got == int(morton_encode(x & ((1 << b) - 1), y & ((1 << b) - 1)))]
            if low:  # the code is exactly the interleaving of the low bits: the higher ones were lost
                candidates.append((f"Hint: your code is the interleaving of the low {max(low)} bits of x and y only; "
                                   "they have 16.", got))
            hint = proven_hint(got, expected, candidates)
            raise CheckFailed(f"morton({x}, {y}) returned {got} ({got:b}), expected {expected} ({expected:b})."
                              f"{' ' + hint if hint else ''}")
    print(f"morton passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Lesson 10, exercise 3 (core): the k-d tree's median split, by selection
# --------------------------------------------------------------------------
def _centres(boxes) -> np.ndarray:
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return 0.5 * (b[:, :2] + b[:, 2:])


def _split_cases():
    """``(name, perm, lo, hi, centres, axis)``: the KDTree's slots in shuffled order, sub-ranges, ties."""
    from ..structures.kdtree import KDTree

    rng = np.random.default_rng(1010)
    cases = [
        ("one slot", np.array([4, 2, 7]), 1, 2, _centres([[0, 0, 1, 1]] * 8), 0),
        ("two slots with equal keys", np.array([1, 0]), 0, 2, np.array([[2.5, 0.0], [2.5, 1.0]]), 0),
        ("seven slots, all keys equal", np.arange(7)[::-1].copy(), 0, 7, np.full((7, 2), -3.75), 1),
        ("ten slots on two distinct keys", np.array([9, 3, 0, 6, 1, 8, 2, 7, 5, 4]), 0, 10,
         np.column_stack([np.where(np.arange(10) % 3 == 0, -1.5, 4.25), np.zeros(10)]), 0),
        ("the middle of a longer array (slots outside [lo, hi) must stay put)",
         np.array([5, 11, 2, 9, 0, 7, 3, 10, 1, 8, 4, 6]), 3, 10, np.column_stack([np.arange(12) * -0.5, np.ones(12)]), 0),
    ]
    big = rng.uniform(-500, 500, (501, 2))
    cases.append(("501 random keys", rng.permutation(501), 0, 501, big, int(rng.integers(0, 2))))
    # Large even ranges of distinct keys in orders that leave a selection's neighbours of the median unsorted:
    # right only by luck is a split whose position lo + k // 2 is filled by selecting another rank.
    for k, pattern in ((1000, "an organ pipe (rising, then falling)"), (998, "a sawtooth of 7 teeth"),
                       (640, "random"), (1024, "interleaved halves (large, small, large, small...)")):
        t = np.arange(k, dtype=np.float64)
        if pattern.startswith("an organ"):
            keys = np.where(t < k / 2, 2 * t, 2 * (k - t) - 1)
        elif pattern.startswith("a saw"):
            keys = (t % (k // 7 + 1)) * 7 + t // (k // 7 + 1)
        elif pattern == "random":
            keys = rng.permutation(k).astype(np.float64)
        else:
            keys = np.where(t % 2 == 0, k + t, t)
        keys = keys * 0.75 - 211.5
        c = np.column_stack([keys, keys[::-1]]) if k % 3 else np.column_stack([keys[::-1], keys])
        axis = 0 if k % 3 else 1
        lo = 3 if k == 640 else 0
        perm = np.arange(k + lo)[::-1].copy() if lo else np.arange(k)
        cases.append((f"{k} distinct keys in {pattern}", perm, lo, lo + k,
                      np.vstack([c, np.full((lo, 2), 9e9)]) if lo else c, axis))
    cases += _unlucky_neighbours()
    for k, (name, boxes) in enumerate(adversarial_boxes(seed=101, world=_WORLD)):
        if len(boxes) == 0:
            continue
        kd = KDTree.from_boxes(boxes, capacity=2)
        slots = kd.elements.live_slots()
        centres = _centres(kd.elements.boxes[: kd.elements.high_water])
        perm = rng.permutation(slots)
        n = len(perm)
        lo, hi = (0, n) if k % 2 == 0 or n < 4 else (1, n - 1)
        cases.append((f"the KDTree's slots of {name}", perm, lo, hi, centres, k % 2))
    return cases


def _unlucky_neighbours(wanted: int = 3, tries: int = 4000):
    """Large even ranges on which NumPy's own selection leaves a *neighbour* of the rank it selected wrong.

    ``np.argpartition(keys, r)`` guarantees rank ``r`` only; most of the time the entries next
    to it come out right as well, so a split that selects rank ``k // 2 - 1`` and takes position
    ``k // 2``, or the reverse, passes random tests by luck. The inputs are searched, seeded,
    for the NumPy installed: random permutations where that luck runs out.
    """
    out = []
    for seed in range(tries):
        rng = np.random.default_rng(seed)
        k = 2 * int(rng.integers(100, 1200))
        keys = rng.permutation(k).astype(np.float64) * 0.5 - 123.25
        ranked = np.sort(keys)
        below, above = np.argpartition(keys, k // 2 - 1), np.argpartition(keys, k // 2)
        if keys[below[k // 2]] != ranked[k // 2] or keys[above[k // 2 - 1]] != ranked[k // 2 - 1]:
            out.append((f"{k} random distinct keys (seed {seed})", np.arange(k), 0, k, np.column_stack([keys, -keys]), 0))
            if len(out) == wanted:
                break
    return out


def _split_verdict(name, what, perm, lo, hi, centres, axis, value, out) -> None:
    keys = centres[perm[lo:hi], axis]
    k = hi - lo
    mid = lo + k // 2
    expected = float(np.sort(keys)[k // 2])
    if value != expected:
        hint = ""
        if k % 2 == 0 and value == float(np.sort(keys)[k // 2 - 1]):
            hint = (f" Hint: with {k} keys the split element has rank k // 2 = {k // 2} (counting from 0), the upper "
                    "of the two middle ones.")
        elif value in (mid, k // 2) and value not in keys:
            hint = " Hint: that is a position; return the median's key, centres[slot, axis]."
        elif value in centres[:, axis] and value not in keys:
            hint = f" Hint: that key belongs to a slot outside perm[{lo}:{hi}]; the node is perm[lo:hi] only."
        elif value not in keys:
            hint = " Hint: the split value is one of the keys (the one of rank k // 2), not an average."
        raise CheckFailed(f"{name}: {what} returned {num(value)}, expected the key of rank {k // 2} of the {k} "
                          f"key{'s' * (k != 1)} in perm[{lo}:{hi}], {num(expected)}.{hint}")
    if not (np.array_equal(out[:lo], perm[:lo]) and np.array_equal(out[hi:], perm[hi:])):
        raise CheckFailed(f"{name}: {what} moved entries of perm outside [{lo}, {hi}): only perm[lo:hi] is the node's.")
    if sorted(out[lo:hi].tolist()) != sorted(perm[lo:hi].tolist()):
        raise CheckFailed(f"{name}: after {what}, perm[{lo}:{hi}] no longer holds the same slots: reorder them, "
                          "do not replace them.")
    got_keys = centres[out[lo:hi], axis]
    if np.array_equal(out, perm) and not (np.all(got_keys[: k // 2] <= value) and np.all(got_keys[k // 2:] >= value)):
        raise CheckFailed(f"{name}: {what} returned the right value but left perm as it was: reorder perm[{lo}:{hi}] "
                          "in place (write into perm[...]).")
    if centres[out[mid], axis] != value:
        raise CheckFailed(f"{name}: after {what}, perm[{mid}] (position lo + k // 2) holds slot {int(out[mid])} with key "
                          f"{num(centres[out[mid], axis])}; the slot of the median ({num(value)}) belongs there.")
    left, right = got_keys[: k // 2], got_keys[k // 2:]
    if (left > value).any() or (right < value).any():
        where = "left" if (left > value).any() else "right"
        bad = float(left[left > value][0]) if where == "left" else float(right[right < value][0])
        raise CheckFailed(f"{name}: after {what}, the {where} half perm[{lo if where == 'left' else mid}:"
                          f"{mid if where == 'left' else hi}] holds a key {num(bad)} on the wrong side of the median "
                          f"{num(value)}.")
    if k >= 200 and (np.diff(got_keys) >= 0).all():
        raise CheckFailed(f"{name}: {what} sorted all {k} slots. Find the median by selection (quickselect, or "
                          "np.argpartition), which leaves both halves unsorted and costs O(k) instead of O(k log k).")


def _kd_leaves_with(fn, slots, centres, capacity) -> list[frozenset]:
    """The leaves of a k-d tree built with ``fn`` as its split (x at even depths, y at odd ones)."""
    perm = np.array(slots, np.int64)
    leaves, stack = [], [(0, len(perm), 0)]
    while stack:
        lo, hi, depth = stack.pop()
        if hi - lo <= capacity:
            leaves.append(frozenset(perm[lo:hi].tolist()))
            continue
        fn(perm, lo, hi, centres, depth % 2)
        mid = lo + (hi - lo) // 2
        stack += [(lo, mid, depth + 1), (mid, hi, depth + 1)]
    return leaves


def check_median_split(fn) -> None:
    """Check ``fn(perm, lo, hi, centres, axis) -> float``: a k-d tree node's median split, in place.

    ``perm`` (int64) holds slots; ``perm[lo:hi]`` (``hi > lo``) are the ``k``
    boxes of one node. ``centres`` ((c, 2) float64) holds each slot's box
    centre, and the key of slot ``s`` is ``centres[s, axis]``. ``fn`` must
    reorder ``perm[lo:hi]`` in place so that the slot whose key has rank
    ``k // 2`` (counting from 0) sits at ``lo + k // 2``, every slot before it
    has a key ``<=`` that median and every slot after it ``>=``; and return the
    median key. Nothing outside ``perm[lo:hi]`` moves. Use selection, not a
    full sort: a result whose whole range ends up sorted fails on large ``k``.

    Then ``fn`` builds a whole k-d tree (x at even depths, y at odd ones,
    leaves of at most 8 slots) over a :class:`~lessons_lib.structures.kdtree.KDTree`'s
    slots, whose leaves must be the structure's own.

    Raises
    ------
    CheckFailed
        On the first wrong split, naming the case, the range and the median expected.
    """
    from ..scenes import make_scene
    from ..structures.kdtree import KDTree

    def run(perm, lo, hi, centres, axis):
        value = fn(perm, lo, hi, centres, axis)
        return value, perm

    cases = _split_cases()
    for name, perm, lo, hi, centres, axis in cases:
        what = f"median_split(perm, lo={lo}, hi={hi}, centres, axis={axis})"
        case = (f"{name}: {what} with perm = {perm.tolist()}, keys = {centres[perm, axis].tolist()}" if len(perm) <= 12
                else f"{name}: {what}")
        value, out = run_student(run, perm, lo, hi, centres, axis, name="median_split", may_change=(0,), case=case,
                                 track=fn)
        if value is None:
            raise CheckFailed(f"median_split returned None on {case}: it must return the median key.")
        value = expect_number(value, f"the median returned by {what} on {name}")
        _split_verdict(name, what, perm, lo, hi, centres, axis, value, out)
    built = 0
    for seed, scene in enumerate(("random", "clustered")):
        boxes = make_scene(scene, 300, seed=seed)
        kd = KDTree.from_boxes(boxes, capacity=8)
        nd = kd.nodes
        theirs = {frozenset(nd.child[v, : nd.count[v]].tolist()) for v in nd.live().tolist() if nd.level[v] == 0}
        try:
            mine = _kd_leaves_with(fn, kd.elements.live_slots(), _centres(kd.elements.boxes), 8)
        except Exception as e:
            raise CheckFailed(f"building a k-d tree of make_scene({scene!r}, 300) with median_split: it raised "
                              f"{type(e).__name__}: {e}") from e
        if set(mine) != theirs:
            raise CheckFailed(f"a k-d tree of make_scene({scene!r}, 300) built with median_split has leaves that differ "
                              f"from KDTree(capacity=8)'s ({len(mine)} leaves against {len(theirs)}).")
        built += 1
    print(f"median_split passed all {len(cases)} splits and built the same leaves as KDTree on {built} scenes.")

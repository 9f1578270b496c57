"""Exercise checks for lessons 04-05: quadtrees and the indexed free list."""
from __future__ import annotations

import numpy as np

from ..scenes import make_scene
from .common import CheckFailed, as_pair_rows, call_student, fmt, rect_box_cases

# --------------------------------------------------------------------------
# Lessons 04-05: quadtrees
# --------------------------------------------------------------------------
__all__ = ["check_children_touched", "check_leaf_pairs", "check_node_rect", "check_free_list"]


def _quadrants(rect):
    """TL, TR, BL, BR quadrants of ``rect`` (y upwards)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    return [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]


def _closed_touch(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


# --------------------------------------------------------------------------
# Lesson 04, exercise 1: which children does a box descend into?
# --------------------------------------------------------------------------
_CHILD_CASES = [
    ("a small box in the top-left quadrant", (0, 0, 100, 100), (10, 70, 20, 80)),
    ("a small box in the bottom-right quadrant", (0, 0, 100, 100), (70, 10, 80, 20)),
    ("a box across the vertical midline, bottom half", (0, 0, 100, 100), (40, 10, 60, 20)),
    ("a box covering the centre", (0, 0, 100, 100), (40, 40, 60, 60)),
    ("a box touching the vertical midline from the left", (0, 0, 100, 100), (30, 10, 50, 20)),
    ("a box touching the horizontal midline from below", (0, 0, 100, 100), (10, 30, 20, 50)),
    ("the centre point", (0, 0, 100, 100), (50, 50, 50, 50)),
    ("a box outside the node", (0, 0, 100, 100), (150, 150, 160, 160)),
    ("a box covering the whole node", (0, 0, 100, 100), (-10, -10, 110, 110)),
    ("an 800 x 600 node, a box in the bottom-left quadrant near y = 300", (0, 0, 800, 600), (100, 280, 120, 290)),
    ("an 800 x 600 node, a box in the top-left quadrant just above y = 300", (0, 0, 800, 600), (100, 310, 120, 330)),
    ("a node away from the origin", (-500, 200, -300, 300), (-420, 260, -380, 270)),
    ("a flat box on the node's top edge", (0, 0, 100, 100), (0, 100, 25, 100)),
]


def check_children_touched(fn) -> None:
    """Check ``fn(rect, box) -> list of child indices`` whose quadrant the closed ``box`` touches.

    Children are numbered 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right,
    with y growing upwards (as in the figures). Quadrants and boxes are closed:
    a box touching the midline goes into the children on both sides. The order
    of the returned indices does not matter.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case.
    """
    cases = rect_box_cases(_CHILD_CASES, 404, margin=5, box_div=2, box_extra=2)
    for name, rect, box in cases:
        expected = [k for k, q in enumerate(_quadrants(rect)) if _closed_touch(q, box)]
        got = call_student(fn, rect, box)
        try:
            got_sorted = sorted(int(v) for v in got)
        except (TypeError, ValueError):
            raise CheckFailed(f"children_touched must return a list of child indices 0..3, got {got!r}") from None
        if got_sorted != expected:
            hint = " Hint: children are 0 TL, 1 TR, 2 BL, 3 BR, with y upwards (top = larger y)."
            w, h = rect[2] - rect[0], rect[3] - rect[1]
            if w != h:
                hint = " Hint: the node is not square; the vertical split is at half the *height*."
            elif "touching" in name or "point" in name or "edge" in name:
                hint = " Hint: quadrants are closed, so a box that only touches a midline goes into both sides."
            elif "outside" in name:
                hint = " Hint: a box that misses the node touches none of its children."
            raise CheckFailed(f"{name}: children_touched({fmt(rect)}, {fmt(box)}) returned {got_sorted}, "
                              f"expected {expected}.{hint}")
    print(f"children_touched passed all {len(cases)} cases, non-square nodes and touching boxes included.")


# --------------------------------------------------------------------------
# Lesson 04, exercise 2: pairs from the leaves, each once
# --------------------------------------------------------------------------
def check_leaf_pairs(fn) -> None:
    """Check ``fn(leaves, boxes) -> list of (i, j)``: the intersecting pairs that share a leaf, each once.

    ``leaves`` is a list of lists of box indices (a box spanning several leaves
    appears in each); ``boxes`` is a list of ``(xmin, ymin, xmax, ymax)``. Each
    pair ``(i, j)`` with ``i < j`` must appear once, and only if the boxes
    intersect (closed: touching counts).

    Raises
    ------
    CheckFailed
        On the first scene where the answer differs.
    """
    from ..structures.naive_quadtree import NaiveQuadtree

    scenes = [
        ("one leaf, two touching boxes", [[0, 1]], [(0, 0, 1, 1), (1, 0, 2, 1)]),
        ("one leaf, two apart", [[0, 1]], [(0, 0, 1, 1), (5, 5, 6, 6)]),
        ("a pair sharing two leaves", [[0, 1], [0, 1]], [(45, 10, 55, 20), (48, 12, 52, 14)]),
        ("three boxes over four leaves", [[0, 1, 2], [0, 2], [0, 1], [0]],
         [(40, 40, 60, 60), (45, 55, 48, 70), (55, 45, 70, 48)]),
        ("empty leaves", [[], [0], []], [(0, 0, 1, 1)]),
    ]
    for name in ("random", "mixed_sizes", "clustered"):
        boxes = make_scene(name, 150, seed=11)
        qt = NaiveQuadtree.from_boxes(boxes, capacity=4)
        leaves = [list(n.elements) for n in qt.nodes() if n.is_leaf]
        scenes.append((f"a quadtree over make_scene({name!r}, 150)", leaves, [tuple(b) for b in boxes.tolist()]))
    for name, leaves, boxes in scenes:
        n = len(boxes)
        exp = set()
        for leaf in leaves:
            for a in range(len(leaf)):
                for b in range(a + 1, len(leaf)):
                    i, j = sorted((leaf[a], leaf[b]))
                    if _closed_touch(boxes[i], boxes[j]):
                        exp.add((i, j))
        got = as_pair_rows(call_student(fn, [list(l) for l in leaves], [tuple(b) for b in boxes]), n)
        if (got[:, 0] >= got[:, 1]).any():
            bad = got[got[:, 0] >= got[:, 1]][0].tolist()
            raise CheckFailed(f"{name}: the result contains {tuple(bad)}; write each pair as (i, j) with i < j.")
        rows, counts = np.unique(got, axis=0, return_counts=True) if len(got) else (got, np.array([], int))
        if (counts > 1).any():
            raise CheckFailed(f"{name}: the pair {tuple(rows[counts > 1][0].tolist())} is reported more than once. "
                              "Hint: two boxes spanning the same leaves meet in each of them; keep a set, or "
                              "report a pair from one leaf only.")
        got_set = set(map(tuple, got.tolist()))
        if got_set != exp:
            extra, missing = sorted(got_set - exp), sorted(exp - got_set)
            msg = f"{name}: expected {len(exp)} pairs, got {len(got_set)}."
            if extra:
                i, j = extra[0]
                msg += (f" Extra {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} "
                        f"{'share a leaf but ' if any(i in l and j in l for l in leaves) else ''}do not intersect. "
                        "Hint: sharing a leaf only makes them candidates; test the boxes.")
            if missing:
                i, j = missing[0]
                msg += (f" Missing {missing[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} share a leaf and "
                        "intersect (closed boxes: touching counts).")
            raise CheckFailed(msg)
    print(f"leaf_pairs passed all {len(scenes)} scenes, each pair once.")


# --------------------------------------------------------------------------
# Lesson 05, exercise 1: a node's rectangle, computed during the descent
# --------------------------------------------------------------------------
def _node_rect_reference(root, path):
    r = tuple(float(v) for v in root)
    for k in path:
        r = _quadrants(r)[k]
    return r


def check_node_rect(fn) -> None:
    """Check ``fn(root, path) -> (xmin, ymin, xmax, ymax)``: the rectangle of the node reached by ``path``.

    ``root`` is the root's rectangle; ``path`` a sequence of child indices from
    the root (0 TL, 1 TR, 2 BL, 3 BR, y upwards); an empty path is the root.

    Raises
    ------
    CheckFailed
        On the first wrong rectangle (compared to 1e-9 relative tolerance).
    """
    cases = [
        ("the root itself", (0, 0, 800, 600), []),
        ("top-left child of an 800 x 600 root", (0, 0, 800, 600), [0]),
        ("bottom-right child of an 800 x 600 root", (0, 0, 800, 600), [3]),
        ("two levels down, 800 x 600", (0, 0, 800, 600), [2, 1]),
        ("a root away from the origin", (-500, -500, 500, 500), [1, 2, 0]),
        ("a tall root", (10, 0, 20, 1000), [0, 3, 3]),
    ]
    rng = np.random.default_rng(505)
    for k in range(100):
        x0, y0 = rng.uniform(-1000, 1000, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + rng.uniform(1, 900), y0 + rng.uniform(1, 900)),
                      rng.integers(0, 4, rng.integers(0, 8)).tolist()))
    for name, root, path in cases:
        expected = _node_rect_reference(root, path)
        got = call_student(fn, tuple(float(v) for v in root), list(path))
        try:
            g = [float(v) for v in got]
        except (TypeError, ValueError):
            raise CheckFailed(f"node_rect must return (xmin, ymin, xmax, ymax), got {got!r}") from None
        if len(g) != 4 or not np.allclose(g, expected, rtol=1e-9, atol=1e-9):
            hint = ""
            if len(g) == 4 and np.allclose(g[0::2], expected[0::2]) and not np.allclose(g[1::2], expected[1::2]):
                hint = (" The x extent is right but y is not. Hint: halve the *height* for y, and remember "
                        "that y grows upwards: the top children (0, 1) have the larger y.")
            raise CheckFailed(f"{name}: node_rect({fmt(root)}, {path}) returned {got!r}, "
                              f"expected {fmt(expected)}.{hint}")
    print(f"node_rect passed all {len(cases)} cases, non-square roots included.")


# --------------------------------------------------------------------------
# Lesson 05, exercise 2: the indexed free list
# --------------------------------------------------------------------------
def check_free_list(insert, erase) -> None:
    """Check ``insert(data, head, value) -> (index, head)`` and ``erase(data, head, index) -> head``.

    ``data`` is a Python list used as the array; ``head`` the first hole or -1.
    An erased slot holds the index of the next hole (-1 at the end), so the
    holes form a linked list inside ``data``. ``insert`` must reuse the most
    recently erased hole when there is one, else append; indices of live
    values never change.

    Raises
    ------
    CheckFailed
        On the first operation whose result differs from the reference.
    """
    def ref_insert(data, head, value):
        if head != -1:
            i = head
            head = data[i]
            data[i] = value
            return i, head
        data.append(value)
        return len(data) - 1, head

    def ref_erase(data, head, index):
        data[index] = head
        return index

    rng = np.random.default_rng(55)
    ops = [("insert", 10), ("insert", 20), ("insert", 30), ("erase", 1), ("insert", 40), ("erase", 0),
           ("erase", 2), ("insert", 50), ("insert", 60), ("insert", 70)]
    sim, sim_head = [], -1
    live = set()
    for op, arg in ops:  # replay the fixed ops to know which indices are live
        if op == "insert":
            i, sim_head = ref_insert(sim, sim_head, arg)
            live.add(i)
        else:
            sim_head = ref_erase(sim, sim_head, arg)
            live.discard(arg)
    for k in range(200):
        if live and rng.random() < 0.45:
            i = int(rng.choice(sorted(live)))
            ops.append(("erase", i))
            sim_head = ref_erase(sim, sim_head, i)
            live.discard(i)
        else:
            v = int(rng.integers(100, 999))
            ops.append(("insert", v))
            i, sim_head = ref_insert(sim, sim_head, v)
            live.add(i)
    ref_data, ref_head, data, head = [], -1, [], -1
    values = {}
    for step, (op, arg) in enumerate(ops, 1):
        if op == "insert":
            want, ref_head = ref_insert(ref_data, ref_head, arg)
            got = call_student(insert, data, head, arg)
            try:
                idx, head = int(got[0]), int(got[1])
            except (TypeError, ValueError, IndexError):
                raise CheckFailed(f"insert must return (index, head), got {got!r}") from None
            if idx in values:
                raise CheckFailed(f"step {step}: insert({arg}) returned index {idx}, which holds the live value "
                                  f"{values[idx]}. Hint: after taking the first hole, head must move on to the "
                                  "next hole (stored in that slot).")
            if idx != want:
                hint = (" Hint: there were holes; reuse the most recently erased one (the head) before appending."
                        if ref_head != -1 or want < len(ref_data) - 1 else "")
                raise CheckFailed(f"step {step}: insert({arg}) returned index {idx}, expected {want}.{hint}")
            values[idx] = arg
        else:
            ref_head = ref_erase(ref_data, ref_head, arg)
            head = call_student(erase, data, head, arg)
            if head is None:
                raise CheckFailed("erase must return the new head (the erased index)")
            head = int(head)
            values.pop(arg)
        for i, v in values.items():
            if i >= len(data) or data[i] != v:
                raise CheckFailed(f"step {step} ({op} {arg}): index {i} should still hold {v}; indices of live "
                                  "values must never change.")
    print(f"free list passed {len(ops)} operations: holes reused last-in first-out, indices stable.")

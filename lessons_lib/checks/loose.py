"""Exercise checks for lessons 06-07: the child of a centre, outward float32 rounding, a query through the tight grid.

As in every check module, the learner's function is called through
:func:`~lessons_lib.checks.common.run_student` on copies of its inputs, its result is
validated (a float where an index is meant, a float64 where a float32 is meant, a
repeated slot are reported, not fixed), and the inputs are irregular: nodes whose
midlines are not whole numbers, centres exactly on a midline, coordinates that
float32 cannot hold, worlds with a non-integer origin, boxes outside the world. The
core exercises run on the real structures: the learner's rounding becomes the
bounds of a :class:`~lessons_lib.structures.loose_quadtree.LooseQuadtree` that is then
queried, and the learner's query reads a
:class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid`'s own arrays; both are
compared with brute force.
"""
from __future__ import annotations

import math

import numpy as np

from ..structures.brute_force import brute_force_pairs
from ..structures.loose_bounds import EMPTY_RECT, f32_down, f32_up
from ..structures.loose_quadtree import LooseQuadtree
from ..structures.loose_tight_grid import LooseTightGrid
from .common import (
    CheckFailed,
    Mistakes,
    RowReads,
    adversarial_boxes,
    expect_ids,
    expect_int,
    fmt,
    num,
    random_world,
    run_student,
)
from .quadtrees import run_in_place

__all__ = ["check_child_of_centre", "check_round_out", "check_tight_query"]


def _meets(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


# --------------------------------------------------------------------------
# Lesson 06, warm-up: which child holds an element? Its centre decides.
# --------------------------------------------------------------------------
_CENTRE_CASES = [
    ("a small box in the top-left quadrant", (0, 0, 100, 100), (10, 70, 20, 80)),
    ("a small box in the bottom-right quadrant", (0, 0, 100, 100), (70, 10, 80, 20)),
    ("a wide box whose centre is left of the midline", (0, 0, 100, 100), (5, 10, 85, 20)),
    ("a wide box whose centre is right of the midline", (0, 0, 100, 100), (20, 10, 90, 20)),
    ("a box whose lower-left corner is in BL but centre in TR", (0, 0, 100, 100), (40, 40, 90, 70)),
    ("a vertical segment lying on the vertical midline", (0, 0, 100, 100), (50, 10, 50, 20)),
    ("a box centred exactly on the vertical midline", (0, 0, 100, 100), (40, 10, 60, 20)),
    ("a box centred exactly on the node's centre", (0, 0, 100, 100), (45, 45, 55, 55)),
    ("a giant larger than the node, centred in TR", (0, 0, 100, 100), (-50, -40, 160, 160)),
    ("a box outside the node, to the lower left", (0, 0, 100, 100), (-30, -30, -20, -20)),
    ("an 800 x 600 node, centre just below y = 300", (0, 0, 800, 600), (100, 280, 120, 318)),
    ("an 800 x 600 node, centre just above y = 300", (0, 0, 800, 600), (100, 290, 120, 312)),
    ("a node away from the origin", (-500, 200, -300, 300), (-420, 260, -380, 270)),
    ("a node whose midline is not a whole number, centre between floor(midline) and the midline",
     (0.5, 0.25, 101.0, 60.5), (50.0, 10.0, 51.0, 20.0)),
]


def _child_of_centre(rect, box) -> int:
    mx, my = 0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3])
    cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
    right, top = cx >= mx, cy >= my
    return (1 if right else 0) if top else (3 if right else 2)


def _centre_cases(seed: int):
    rng = np.random.default_rng(seed)
    cases = [(n, tuple(float(v) for v in r), tuple(float(v) for v in b)) for n, r, b in _CENTRE_CASES]
    for k in range(300):
        rect = random_world(rng)
        x0, y0, x1, y1 = rect
        w, h = x1 - x0, y1 - y0
        mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
        cx = [mx, mx - rng.uniform(0.01, 0.5), mx + rng.uniform(0.01, 0.5), x0 + rng.uniform(-0.3, 1.3) * w][k % 4]
        cy = [y0 + rng.uniform(-0.3, 1.3) * h, my, my - rng.uniform(0.01, 0.5), my + rng.uniform(0.01, 0.5)][(k // 4) % 4]
        hw, hh = rng.uniform(0, 0.6) * w * (k % 7 != 0), rng.uniform(0, 0.6) * h * (k % 5 != 0)
        cases.append((f"random case {k}", rect, (cx - hw, cy - hh, cx + hw, cy + hh)))
    return cases


def _centre_mistakes(rect, box, want):
    """``(hint, child)`` that the usual wrong ``child_of_centre`` returns for this input."""
    x0, y0, x1, y1 = rect
    mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])

    def child(right, top):
        return (1 if right else 0) if top else (3 if right else 2)

    return [
        ("Hint: you picked the child of the lower-left corner; the loose tree uses the centre.",
         _child_of_centre(rect, (box[0], box[1], box[0], box[1]))),
        ("Hint: a centre exactly on a midline belongs to the right / top child.", child(cx > mx, cy > my)),
        ("Hint: the node is not square: the horizontal midline is at half the *height*.",
         _child_of_centre((x0, y0, x1, y0 + (x1 - x0)), box)),
        ("Hint: the midline here is not a whole number; compute it with /, not //.",
         child(cx >= (x0 + x1) // 2, cy >= (y0 + y1) // 2)),
        ("Hint: children are 0 TL, 1 TR, 2 BL, 3 BR, with y upwards (top = larger y).",
         {0: 2, 1: 3, 2: 0, 3: 1}[want]),
        ("Hint: children are 0 TL, 1 TR, 2 BL, 3 BR: 1 is top-right, 2 bottom-left.", {0: 0, 1: 2, 2: 1, 3: 3}[want]),
        ("Hint: the node does not start at 0: its midlines lie halfway between its own sides.",
         child(cx >= 0.5 * (x1 - x0), cy >= 0.5 * (y1 - y0))),
    ]


def check_child_of_centre(fn) -> None:
    """Check ``fn(rect, box) -> child index`` of the loose quadtree: the quadrant holding the box's *centre*.

    Children are 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, y
    upwards. A centre exactly on a midline goes to the right / top child
    (``>=``). Boxes may overlap several quadrants or lie outside the node: the
    loose tree still puts them in exactly one child. The answer is a Python ``int``.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case; a hint only when the answer is
        exactly what one typical mistake (a corner for the centre, ``>`` for ``>=``,
        y downwards, 1 and 2 exchanged, the width for the height, ``//``, the node's
        origin forgotten) gives, and no earlier case ruled that mistake out.
    """
    cases = _centre_cases(606)
    mistakes = Mistakes()
    for name, rect, box in cases:
        want = _child_of_centre(rect, box)
        what = f"{name}: child_of_centre({fmt(rect)}, {fmt(box)})"
        got = run_student(fn, rect, box, name="child_of_centre", case=what)
        if isinstance(got, (list, tuple, np.ndarray)):
            raise CheckFailed(f"{what} returned {got!r}: a loose tree puts each element in exactly one child, "
                              "whatever it overlaps; return one child index")
        got = expect_int(got, f"{what}'s result", exact=True)
        if got == want:
            mistakes.passed(got, _centre_mistakes(rect, box, want))
        else:
            x0, y0, x1, y1 = rect
            mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
            cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
            hint = mistakes.hint(got, want, _centre_mistakes(rect, box, want))
            raise CheckFailed(f"{what} returned {got}, expected {want} (0 TL, 1 TR, 2 BL, 3 BR; centre "
                              f"({num(cx)}, {num(cy)}), midlines x = {num(mx)}, y = {num(my)}).{' ' + hint if hint else ''}")
    print(f"child_of_centre passed all {len(cases)} cases: centres on, beside and far from the midlines of "
          "irregular nodes.")


# --------------------------------------------------------------------------
# Lesson 06, core exercise: outward float32 rounding, plugged into a LooseQuadtree
# --------------------------------------------------------------------------
def _as_f32(v, what) -> float:
    """``v`` as a float, if it is a ``np.float32`` (the exercise asks for float32 values, not floats)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (float, np.floating)):
        raise CheckFailed(f"{what} must be a float32 value (np.float32), got {v!r} ({type(v).__name__})")
    f = float(v)
    if f != f:
        raise CheckFailed(f"{what} is NaN")
    if not isinstance(v, np.float32):
        with np.errstate(over="ignore"):
            held = float(np.float32(f)) == f
        raise CheckFailed(f"{what} is {v!r} of type {type(v).__name__}, not a float32 value: return np.float32 "
                          "values, the type a node stores"
                          + ("" if held else " (float32 cannot even hold this number: round with np.float32)"))
    return f


def _rounded(fn, box, what):
    """The learner's ``round_out(box)`` as four validated floats."""
    with np.errstate(over="ignore"):
        got = run_student(fn, tuple(box), name="round_out", case=f"{what}: round_out({fmt(box)})")
    if not isinstance(got, (tuple, list, np.ndarray)) or len(got) != 4:
        raise CheckFailed(f"{what}: round_out must return four float32 values (xmin, ymin, xmax, ymax), got {got!r}")
    names = ("xmin", "ymin", "xmax", "ymax")
    return [_as_f32(v, f"{what}: the {names[k]} round_out returned") for k, v in enumerate(got)]


def _rounding_hint(v: float, got: float, lower: bool, swapped: bool = False) -> str:
    """Why ``got`` is not the outward float32 of ``v`` (``lower``: a minimum; ``swapped``: every side went the wrong way)."""
    want = float(f32_down(v)) if lower else float(f32_up(v))
    with np.errstate(over="ignore"):
        nearest = float(np.float32(v))
    side, outward = ("minimum", "down") if lower else ("maximum", "up")
    if got == (float(f32_up(v)) if lower else float(f32_down(v))) and got != want and swapped:
        return f" Hint: a {side} must be rounded {outward} (outwards), or the bound cuts into the box."
    if got == nearest and nearest != want:
        return (f" Hint: {num(got)} is float32(v), the *nearest* float32, which here lies "
                f"{'above' if lower else 'below'} v, inside the box. Step one float32 {outward} when that happens "
                "(np.nextafter), and compare in float64: with NumPy 2, np.float32(x) > v compares in float32 when v "
                "is a Python float, so write float(x) > v.")
    if (got < want) if lower else (got > want):
        if nearest == v:
            return f" Hint: v is a float32 already ({num(v)}): no step is needed, only when float32(v) falls inside."
        return f" Hint: this bound is safe but not the tightest: {num(want)} is the float32 closest to v on the outside."
    if got == (float(f32_up(v)) if lower else float(f32_down(v))):
        return f" Hint: a {side} must be rounded {outward} (outwards), or the bound cuts into the box."
    return ""


def _round_out_scenes(seed: int):
    rng = np.random.default_rng(seed)
    tenth = np.array([[0.1, 0.1, 0.3, 0.7], [0.7, 0.2, 0.9, 0.3], [-0.3, -0.7, -0.1, -0.1], [1 / 3, 2 / 3, 1.1, 5.3]])
    scenes = [("boxes at tenths and thirds, one per leaf", tenth, (-1.0, -1.0, 2.0, 6.0), 1)]
    for k in range(4):
        world = random_world(rng)
        for name, boxes in adversarial_boxes(seed + k, world=world):
            if len(boxes) and (k == 0 or name.startswith("random")):
                scenes.append((f"{name} in the world {fmt(world)}", boxes, world, 1 + k % 2))
    return scenes


def _value_cases(seed: int):
    rng = np.random.default_rng(seed)
    f32 = float(np.float32(0.1))
    big = float(np.finfo(np.float32).max)
    cases = [
        ("tenths, not float32 values", (0.1, 0.2, 0.3, 0.7)),
        ("negative tenths", (-0.7, -0.3, -0.2, -0.1)),
        ("values float32 holds exactly", (0.5, -2.25, 100.0, 1e6)),
        ("float32(0.1) itself, and the float32 after it", (f32, f32, float(np.nextafter(np.float32(f32), np.float32(1))),
                                                            float(np.nextafter(np.float32(f32), np.float32(1))))),
        ("a third and two thirds", (1 / 3, -2 / 3, 2 / 3, 1 / 3 + 1)),
        ("large coordinates", (123456.789, -98765.4321, 1e7 + 0.5, 3e9 + 1)),
        ("tiny coordinates", (1e-40, -1e-40, 3e-39, 1e-30)),
        ("zero and negative zero", (0.0, -0.0, 0.0, -0.0)),
        ("a point", (2.2, 3.3, 2.2, 3.3)),
        ("beyond the float32 range", (-1e39, -1e300, 1e39, big)),
    ]
    for k in range(300):
        lo = rng.uniform(-1e4, 1e4, 2) * 10.0 ** rng.integers(-6, 3)
        size = rng.uniform(0, 50, 2) * (rng.random() < 0.9)
        cases.append((f"random box {k}", (float(lo[0]), float(lo[1]), float(lo[0] + size[0]), float(lo[1] + size[1]))))
    return cases


def _leaf_bounds(tree, rounded_by_slot):
    """Bounds of every live node of ``tree`` from the learner's rounded boxes (children before parents)."""
    rects = np.array(tree.rects, copy=True)
    table = tree.node_table()
    for node, leaf in zip(table["index"][::-1].tolist(), table["is_leaf"][::-1].tolist()):
        r = [np.inf, np.inf, -np.inf, -np.inf]
        if leaf:
            parts = [rounded_by_slot[s] for s in tree.leaf_elements(node)]
        else:
            fc = int(tree.nodes[node, 0])
            parts = [rects[fc + j].astype(np.float64).tolist() for j in range(4)]
        for p in parts:
            r = [min(r[0], p[0]), min(r[1], p[1]), max(r[2], p[2]), max(r[3], p[3])]
        rects[node] = np.array(r, dtype=np.float32) if parts else EMPTY_RECT
    return rects


def check_round_out(fn) -> None:
    """Check ``fn(box) -> (xmin, ymin, xmax, ymax)`` in float32, rounded outwards: the bound of one box.

    ``box`` is a tuple of four float64 coordinates. The answer is four ``np.float32``
    values (Python floats, even of float32 values, fail: the exercise asks for
    float32): the largest float32 ``<=`` each minimum and the smallest float32 ``>=``
    each maximum, so that the float32 box always contains the float64 box, and is
    the tightest such box.

    The check first makes the learner's rounding the loose bounds of real
    :class:`LooseQuadtree` trees (every node's bounds computed from the rounded
    boxes of what lies beneath) and queries them at every box's corners, against
    brute force; then it compares each rounded value with the tightest outward one
    on 310 boxes: tenths, thirds, exact float32 values, negative, tiny and huge
    coordinates.

    Raises
    ------
    CheckFailed
        A query that misses an element (a bound rounded inwards), or a value that is
        not the tightest outward float32, naming the box.
    """
    scenes = _round_out_scenes(616)
    for name, boxes, world, capacity in scenes:
        tree = LooseQuadtree.from_boxes(boxes, world=world, capacity=capacity, max_depth=5)
        slots = tree.elements.live_slots().tolist()
        rounded = {s: _rounded(fn, tree.elements.boxes[s].tolist(), f"{name}, box {fmt(tree.elements.boxes[s])}")
                   for s in slots}
        kept = tree.rects
        tree.rects = _leaf_bounds(tree, rounded)
        try:
            for s in slots:
                b = tree.elements.boxes[s].tolist()
                for q in ((b[0], b[1], b[0], b[1]), (b[2], b[3], b[2], b[3]), tuple(b)):
                    want = np.flatnonzero((boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3])
                                          & (q[1] <= boxes[:, 3]))
                    got = tree.query(q)
                    if not np.array_equal(got, want):
                        lost = int(np.setdiff1d(want, got)[0])
                        lb = tree.elements.boxes[lost].tolist()
                        r = rounded[lost]
                        swapped = all(r[k] == float(f32_up(lb[k]) if k < 2 else f32_down(lb[k])) for k in range(4))
                        side = next((k for k in range(4) if (r[k] > lb[k] if k < 2 else r[k] < lb[k])), None)
                        names = ("xmin", "ymin", "xmax", "ymax")
                        why = (f": your round_out gives its {names[side]} as {num(r[side])}, "
                               f"{'above' if side < 2 else 'below'} the box's {num(lb[side])}, so the leaf's bounds "
                               f"cut it off.{_rounding_hint(lb[side], r[side], side < 2, swapped)}") if side is not None else "."
                        raise CheckFailed(f"{name}: in a LooseQuadtree whose bounds come from your round_out, a query "
                                          f"for {fmt(q)} missed element {lost} (box {fmt(lb)}){why}")
            if not np.array_equal(tree.pairs(), brute_force_pairs(boxes)):
                raise CheckFailed(f"{name}: in a LooseQuadtree whose bounds come from your round_out, pairs() "
                                  "differs from brute force")
        finally:
            tree.rects = kept
    cases = _value_cases(617)
    for name, box in cases:
        got = _rounded(fn, box, f"{name}, box {fmt(box)}")
        want = [float(f32_down(box[0])), float(f32_down(box[1])), float(f32_up(box[2])), float(f32_up(box[3]))]
        swapped = all(got[k] == float(f32_up(box[k]) if k < 2 else f32_down(box[k])) for k in range(4))
        for k in range(4):
            if got[k] != want[k]:
                label = ("xmin", "ymin", "xmax", "ymax")[k]
                raise CheckFailed(f"{name}: round_out({fmt(box)}) gives {label} = {num(got[k])}, expected "
                                  f"{num(want[k])} (the {'largest' if k < 2 else 'smallest'} float32 "
                                  f"{'<=' if k < 2 else '>='} {num(box[k])}).{_rounding_hint(box[k], got[k], k < 2, swapped)}")
    print(f"round_out passed: as the bounds of {len(scenes)} LooseQuadtrees it lost no element (queries at every "
          f"corner, pairs equal to brute force), and it gave the tightest outward float32 on {len(cases)} boxes.")


# --------------------------------------------------------------------------
# Lesson 07, core exercise: a query through the tight cells of a LooseTightGrid
# --------------------------------------------------------------------------
_GRID_ARRAYS = ("thead", "tnxt", "tcell", "lreg", "lrect", "lhead", "enext")


def _grid_scenes(seed: int):
    """``(name, grid)``: LooseTightGrids on irregular worlds, as built, after moves, removals and a cleanup."""
    rng = np.random.default_rng(seed)
    scenes = []
    for k in range(5):
        cell = float(np.round(rng.uniform(9, 31), 2))
        world = random_world(rng, cell)
        tf = 1 + k % 3
        for name, boxes in adversarial_boxes(seed + k, world=world):
            if len(boxes) == 0 or (k and not name.startswith("random")):
                continue
            g = LooseTightGrid(world=world, cell_size=cell, tight_factor=tf)
            ids = 100 + 7 * np.arange(len(boxes))
            for i, b in zip(ids.tolist(), boxes):
                g.insert(i, b)
            label = f"{name}, world {fmt(world)}, loose cells of {num(cell)}, tight factor {tf}"
            scenes.append((f"{label}, as inserted", g))
            if name.startswith("random") and len(boxes) > 3:
                g2 = LooseTightGrid(world=world, cell_size=cell, tight_factor=tf)
                for i, b in zip(ids.tolist(), boxes):
                    g2.insert(i, b)
                step = rng.uniform(-0.3, 0.3, (len(boxes), 2)) * cell
                g2.update_many(ids, boxes + np.column_stack([step, step]))
                for i in ids[::3].tolist():
                    g2.remove(i)
                scenes.append((f"{label}, after moving every box and removing a third (rectangles not refit)", g2))
                g3 = LooseTightGrid(world=world, cell_size=cell, tight_factor=tf)
                for i, b in zip(ids.tolist(), boxes):
                    g3.insert(i, b)
                g3.update_many(ids, boxes + np.column_stack([step, step]))
                g3.cleanup()
                g3.insert(5, world)  # a box the size of the world, inserted last
                scenes.append((f"{label}, after moving, a cleanup and a giant the size of the world", g3))
    return scenes


def _queries(g, rng):
    x0, y0 = float(g.world[0]), float(g.world[1])
    t = g.tight_cell_size
    x1, y1 = x0 + g.tcols * t, y0 + g.trows * t
    inside = [("a query on a tight cell's left border", (x0 + t, y0 + 0.3 * t, x0 + 1.4 * t, y0 + 0.9 * t)),
              ("a query ending exactly on a tight cell's border", (x0 + 0.2 * t, y0 + 0.2 * t, x0 + t, y0 + t)),
              ("a point query at the grid's origin", (x0, y0, x0, y0))]
    for k in range(8):
        lo = rng.uniform((x0, y0), (x1, y1))
        hi = np.minimum(lo + rng.uniform(0, 2.5 * t, 2), (x1, y1))
        inside.append((f"random query {k} inside the grid", tuple(np.concatenate([lo, hi]).tolist())))
    ids, boxes = g.items()
    for k, b in enumerate(boxes[:6]):
        inside.append((f"a query equal to element {int(ids[k])}'s box", tuple(b)))
        inside.append((f"a point query at element {int(ids[k])}'s upper-right corner", (b[2], b[3], b[2], b[3])))
    outside = [("a query left of and below the grid", (x0 - 3 * t, y0 - 2 * t, x0 + 0.5 * t, y0 + 0.5 * t)),
               ("a query right of and above the grid", (x1 - 0.5 * t, y1 - 0.5 * t, x1 + 5 * t, y1 + 4 * t)),
               ("a query wholly outside the grid", (x1 + 2 * t, y0, x1 + 3 * t, y0 + t)),
               ("a query covering the whole grid and more", (x0 - t, y0 - t, x1 + t, y1 + t))]
    qs = sorted(inside, key=lambda nq: not (x0 <= nq[1][0] and y0 <= nq[1][1] and nq[1][2] <= x1 and nq[1][3] <= y1))
    qs += outside
    return [(n, tuple(float(v) for v in q)) for n, q in qs]


def _tight_range(g, q):
    """``(c0, c1, r0, r1)``: the tight cells the query covers, clamped (a division or a product by 1 / size may
    put a coordinate exactly on a border into either cell: both are allowed)."""
    t = g.tight_cell_size

    def cells(v, origin, n):
        ks = {math.floor((v - origin) / t), math.floor((v - origin) * (1.0 / t))}
        return [min(max(k, 0), n - 1) for k in ks]

    ox, oy = float(g.world[0]), float(g.world[1])
    return (min(cells(q[0], ox, g.tcols)), max(cells(q[2], ox, g.tcols)),
            min(cells(q[1], oy, g.trows)), max(cells(q[3], oy, g.trows)))


def _listed_slots(g, c0, c1, r0, r1) -> set[int]:
    """The slots of every element of every loose cell listed in tight cells ``c0..c1 x r0..r1``: all the walk reaches."""
    out = set()
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            node = int(g.thead[tr * g.tcols + tc])
            while node != -1:
                c = int(g.tcell[node])
                node = int(g.tnxt[node])
                s = int(g.lhead[c])
                while s != -1:
                    out.add(s)
                    s = int(g.enext[s])
    return out


def _loose_cell_of(g, slot):
    for c in range(len(g.lhead)):
        s = int(g.lhead[c])
        while s != -1:
            if s == slot:
                return c
            s = int(g.enext[s])
    return None


def _refused(name):
    def refused(*args, **kwargs):
        raise CheckFailed(f"tight_query called g.{name}(): the exercise is the query itself, written on the grid's "
                          "arrays (g.thead, g.tnxt, g.tcell, g.lrect, g.lhead, g.enext, g.elements.boxes), not a call "
                          "of the structure's own methods.")
    return refused


def _watched(log):
    """Prepare the learner's copy of the grid: its boxes record the rows read, its searching methods refuse."""
    def prepare(g, q):
        g.elements.boxes = RowReads(g.elements.boxes, log)
        for name in ("query", "pairs", "items", "nearest"):
            if hasattr(g, name):
                setattr(g, name, _refused(name))
        return g, q
    return prepare


def check_tight_query(fn) -> None:
    """Check ``fn(g, q) -> list of slots``: the elements of the LooseTightGrid ``g`` whose boxes meet the closed box ``q``.

    The function must go through the tight grid: find the tight cells ``q``
    covers (clamped to the grid), read the loose cells listed in them
    (``g.thead``, ``g.tnxt``, ``g.tcell``), keep those whose rectangle ``g.lrect``
    meets ``q``, and test the boxes of their elements (``g.lhead``, ``g.enext``,
    ``g.elements.boxes``). The answer lists **slots** (rows of
    ``g.elements.boxes``), each once, in any order.

    The grids have irregular worlds and loose cells, ids that are not slots, boxes
    outside the world, rectangles grown by moves and not yet refit, and a giant;
    the queries lie on tight-cell borders, outside the grid, around it and on
    single points. Each answer is compared with brute force over the stored boxes.
    The method is checked too: the grid handed to the function records which rows of
    ``g.elements.boxes`` it reads, and only the boxes of elements listed in the tight
    cells the query covers may be read (a search over every element fails, however
    right its answer); the structure's own ``query``, ``pairs`` and ``items`` refuse.

    Raises
    ------
    CheckFailed
        The first query whose answer differs, naming the grid, the query and a slot;
        or the first query for which a box the walk does not reach was read.
    """
    rng = np.random.default_rng(707)
    scenes = _grid_scenes(707)
    count = 0
    for name, g in scenes:
        slots = g.elements.live_slots()
        boxes = g.elements.boxes
        before = {a: getattr(g, a).copy() for a in _GRID_ARRAYS}
        for qname, q in _queries(g, rng):
            what = f"{name}; {qname} {fmt(q)}"
            log: list[int] = []
            got, (given, _) = run_in_place(fn, g, q, name="tight_query", case=what, prepare=_watched(log))
            for a in _GRID_ARRAYS:
                if not np.array_equal(getattr(given, a), before[a]):
                    raise CheckFailed(f"{what}: tight_query changed g.{a}; a query only reads the grid")
            try:
                got = expect_ids(got, f"{what}: tight_query's result")
            except CheckFailed as e:
                hint = ""
                if "more than once" in str(e):
                    c0, c1, r0, r1 = _tight_range(g, q)
                    if (c1 > c0 or r1 > r0) and any((g.lreg[c, 2] > g.lreg[c, 0] or g.lreg[c, 3] > g.lreg[c, 1])
                                                    for c in range(len(g.lhead)) if g.lhead[c] != -1):
                        hint = (" Hint: a loose cell listed in several tight cells is met once in each; handle it only "
                                "in its reference tight cell, or keep a set of the slots found.")
                raise CheckFailed(f"{e}.{hint}") from None
            want = sorted(int(s) for s in slots if _meets(boxes[s], q))
            if got == want:
                _check_reads(what, g, q, set(log), slots)
                count += 1
                continue
            if want and sorted(int(g.elements.ids[s]) for s in want) == got:
                raise CheckFailed(f"{what}: tight_query returned the ids {got}; return slots (rows of "
                                  f"g.elements.boxes), here {want}")
            bad = [s for s in got if not 0 <= s < len(boxes) or s not in set(slots.tolist())]
            if bad:
                raise CheckFailed(f"{what}: tight_query returned slot {bad[0]}, which holds no element")
            extra = sorted(set(got) - set(want))
            c0, c1, r0, r1 = _tight_range(g, q)
            if extra:
                s = extra[0]
                listed = _listed_slots(g, c0, c1, r0, r1)
                meeting = {v for v in listed if _meets(g.lrect[_loose_cell_of(g, v)].astype(np.float64), q)}
                hint = (" Hint: your answer is every element of the loose cells listed in the tight cells the query "
                        "covers: being listed there only makes an element a candidate; test each element's box."
                        ) if set(got) in (listed, meeting) else ""
                raise CheckFailed(f"{what}: tight_query returned slot {s} (box {fmt(boxes[s])}), which does not meet "
                                  f"the query.{hint}")
            s = sorted(set(want) - set(got))[0]
            b = boxes[s]
            t = g.tight_cell_size
            c = _loose_cell_of(g, s)
            lr = [int(v) for v in g.lreg[c].tolist()]
            msg = (f"{what}: tight_query missed slot {s} (box {fmt(b)}), which meets the query. It is an element of "
                   f"loose cell {c} (rectangle {fmt(g.lrect[c].astype(np.float64))}), listed in tight columns "
                   f"{lr[0]}..{lr[2]}, rows {lr[1]}..{lr[3]}; the query covers tight columns {c0}..{c1}, rows "
                   f"{r0}..{r1} (tight cells are {num(t)} wide, from the origin ({num(g.world[0])}, "
                   f"{num(g.world[1])}), clamped to the {g.tcols} x {g.trows} tight grid).")
            if s in log:  # its box was read and rejected
                if b[0] == q[2] or b[2] == q[0] or b[1] == q[3] or b[3] == q[1]:
                    e = 1e-9 * max(t, 1.0)
                    grown = (q[0] - e, q[1] - e, q[2] + e, q[3] + e)
                    found = run_student(fn, g, grown, name="tight_query", case=f"{name}; the same query grown by {e:g}")
                    if s in expect_ids(found, f"{what}: tight_query's result for the query grown by {e:g}"):
                        msg += (" Your function read its box and left it out; grown by a hair, the query finds it. "
                                "Hint: boxes are closed: one that only touches the query counts.")
                raise CheckFailed(msg)
            # its box was never read: the walk did not reach it
            shared = [(tc, tr) for tr in range(max(lr[1], r0), min(lr[3], r1) + 1)
                      for tc in range(max(lr[0], c0), min(lr[2], c1) + 1)]
            if shared:
                tc, tr = shared[0]
                raw = [math.floor((q[k] - g.world[k % 2]) / t) for k in range(4)]
                msg += f" Your function never read its box, though tight cell ({tc}, {tr}) lists its loose cell."
                if (raw[0], raw[2]) != (c0, c1) and not (raw[0] <= tc <= raw[2]) or \
                        (raw[1], raw[3]) != (r0, r1) and not (raw[1] <= tr <= raw[3]):
                    msg += (f" Hint: the query reaches outside the grid (unclamped, its corners fall in tight columns "
                            f"{raw[0]}..{raw[2]}, rows {raw[1]}..{raw[3]}); clamp its tight range to columns 0 .. "
                            f"{g.tcols - 1} and rows 0 .. {g.trows - 1}: far boxes' loose cells are listed in the "
                            "border cells.")
                else:
                    msg += " Hint: read every tight cell the query covers, and every loose cell listed there."
            raise CheckFailed(msg)
    print(f"tight_query passed {count} queries on {len(scenes)} grids (irregular worlds, stale rectangles, a giant, "
          "queries on tight borders and outside the grid): each answer equal to brute force, each slot once, and "
          "only the boxes the walk reaches read.")


def _check_reads(what, g, q, read, slots) -> None:
    """Fail if the learner read a box the walk of the tight cells the query covers does not reach."""
    c0, c1, r0, r1 = _tight_range(g, q)
    allowed = _listed_slots(g, c0, c1, r0, r1)
    stray = sorted(read - allowed)
    if not stray:
        return
    s = stray[0]
    cover = (f"the query covers tight columns {c0}..{c1} and rows {r0}..{r1} (its corners' cells, clamped to the "
             f"{g.tcols} x {g.trows} tight grid)")
    if s not in set(slots.tolist()):
        why = f"slot {s} holds no element (its row is a freed slot's old box)"
    else:
        c = _loose_cell_of(g, s)
        lr = g.lreg[c].tolist()
        why = (f"slot {s} is an element of loose cell {c}, which is listed only in tight columns {lr[0]}..{lr[2]}, "
               f"rows {lr[1]}..{lr[3]}")
    raise CheckFailed(f"{what}: tight_query returned the right slots, but it read the boxes of {len(read)} slots "
                      f"(rows of g.elements.boxes) where the walk reaches {len(allowed)}: it read row {s}, and {why}, "
                      f"while {cover}. The exercise "
                      "is the query through the tight grid: read only the boxes of the elements listed in the tight "
                      "cells the query covers, not every element's.")

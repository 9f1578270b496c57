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

import numpy as np

from ..structures.brute_force import brute_force_pairs
from ..structures.loose_bounds import EMPTY_RECT, f32_down, f32_up
from ..structures.loose_quadtree import LooseQuadtree
from ..structures.loose_tight_grid import LooseTightGrid
from .common import CheckFailed, adversarial_boxes, expect_ids, expect_int, fmt, num, random_world, run_student
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


def check_child_of_centre(fn) -> None:
    """Check ``fn(rect, box) -> child index`` of the loose quadtree: the quadrant holding the box's *centre*.

    Children are 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, y
    upwards. A centre exactly on a midline goes to the right / top child
    (``>=``). Boxes may overlap several quadrants or lie outside the node: the
    loose tree still puts them in exactly one child.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case.
    """
    cases = _centre_cases(606)
    for name, rect, box in cases:
        want = _child_of_centre(rect, box)
        got = run_student(fn, rect, box)
        what = f"{name}: child_of_centre({fmt(rect)}, {fmt(box)})"
        if isinstance(got, (list, tuple, np.ndarray)):
            raise CheckFailed(f"{what} returned {got!r}: a loose tree puts each element in exactly one child, "
                              "whatever it overlaps; return one child index")
        got = expect_int(got, f"{what}'s result")
        if got != want:
            x0, y0, x1, y1 = rect
            mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
            cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
            hint = " Hint: use the centre ((xmin + xmax) / 2, (ymin + ymax) / 2), not a corner."
            if cx == mx or cy == my:
                hint = " Hint: a centre exactly on a midline belongs to the right / top child (use >=)."
            elif x1 - x0 != y1 - y0 and got == _child_of_centre((x0, y0, x1, y0 + (x1 - x0)), box):
                hint = " Hint: the node is not square: the horizontal midline is at half the *height*."
            elif got == _child_of_centre(rect, (box[0], box[1], box[0], box[1])):
                hint = " Hint: you picked the child of the lower-left corner; the loose tree uses the centre."
            elif (np.floor(mx) != mx and np.floor(mx) <= cx < mx) or (np.floor(my) != my and np.floor(my) <= cy < my):
                hint = " Hint: the midline here is not a whole number; compute it with /, not //."
            raise CheckFailed(f"{what} returned {got}, expected {want} (0 TL, 1 TR, 2 BL, 3 BR; centre "
                              f"({num(cx)}, {num(cy)}), midlines x = {num(mx)}, y = {num(my)}).{hint}")
    print(f"child_of_centre passed all {len(cases)} cases: centres on, beside and far from the midlines of "
          "irregular nodes.")


# --------------------------------------------------------------------------
# Lesson 06, core exercise: outward float32 rounding, plugged into a LooseQuadtree
# --------------------------------------------------------------------------
def _as_f32(v, what) -> float:
    """``v`` as a float whose value is a float32 (np.float32, or a float that float32 holds exactly)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (float, np.floating)):
        raise CheckFailed(f"{what} must be a float32 value, got {v!r} ({type(v).__name__})")
    f = float(v)
    if f != f:
        raise CheckFailed(f"{what} is NaN")
    with np.errstate(over="ignore"):
        if float(np.float32(f)) != f:
            raise CheckFailed(f"{what} is {f!r}, which is not a float32 value (float32 cannot hold it): "
                              "round with np.float32 and return that")
    return f


def _rounded(fn, box, what):
    """The learner's ``round_out(box)`` as four validated floats."""
    with np.errstate(over="ignore"):
        got = run_student(fn, tuple(box))
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

    ``box`` is a tuple of four float64 coordinates. The answer is four float32
    values: the largest float32 ``<=`` each minimum and the smallest float32 ``>=``
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

    Raises
    ------
    CheckFailed
        The first query whose answer differs, naming the grid, the query and a slot.
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
            got, (given, _) = run_in_place(fn, g, q)
            for a in _GRID_ARRAYS:
                if not np.array_equal(getattr(given, a), before[a]):
                    raise CheckFailed(f"{what}: tight_query changed g.{a}; a query only reads the grid")
            try:
                got = expect_ids(got, f"{what}: tight_query's result")
            except CheckFailed as e:
                hint = (" Hint: a loose cell listed in several tight cells is met once in each; handle it only in "
                        "its reference tight cell, or keep a set of the slots found.") if "more than once" in str(e) else ""
                raise CheckFailed(f"{e}.{hint}") from None
            want = sorted(int(s) for s in slots if _meets(boxes[s], q))
            if got == want:
                count += 1
                continue
            if want and sorted(int(g.elements.ids[s]) for s in want) == got:
                raise CheckFailed(f"{what}: tight_query returned the ids {got}; return slots (rows of "
                                  f"g.elements.boxes), here {want}")
            bad = [s for s in got if not 0 <= s < len(boxes) or s not in set(slots.tolist())]
            if bad:
                raise CheckFailed(f"{what}: tight_query returned slot {bad[0]}, which holds no element")
            extra = sorted(set(got) - set(want))
            if extra:
                s = extra[0]
                raise CheckFailed(f"{what}: tight_query returned slot {s} (box {fmt(boxes[s])}), which does not meet "
                                  "the query. Hint: a loose cell's rectangle meeting the query only makes its elements "
                                  "candidates; test each element's box.")
            s = sorted(set(want) - set(got))[0]
            b = boxes[s]
            t = g.tight_cell_size
            gx1, gy1 = g.world[0] + g.tcols * t, g.world[1] + g.trows * t
            inner = (max(q[0], g.world[0]), max(q[1], g.world[1]), min(q[2], gx1), min(q[3], gy1))
            outside = q[0] < g.world[0] or q[1] < g.world[1] or q[2] > gx1 or q[3] > gy1
            if outside and _meets(b, inner) and inner[0] <= inner[2] and inner[1] <= inner[3]:
                outside = s in run_student(fn, g, inner)  # found when the query stays inside: the clamp is missing
            if outside:
                hint = (" Hint: the query reaches outside the grid; clamp its tight range to columns 0 .. "
                        f"{g.tcols - 1} and rows 0 .. {g.trows - 1} (far boxes' loose cells are listed in border cells).")
            elif b[0] == q[2] or b[2] == q[0] or b[1] == q[3] or b[3] == q[1]:
                hint = " Hint: boxes are closed: one that only touches the query counts."
            else:
                hint = (f" Hint: read every tight cell the query covers (tight cells are {num(t)} wide, from the origin "
                        f"({num(g.world[0])}, {num(g.world[1])})), and every loose cell listed there.")
            raise CheckFailed(f"{what}: tight_query missed slot {s} (box {fmt(b)}), which meets the query.{hint}")
    print(f"tight_query passed {count} queries on {len(scenes)} grids (irregular worlds, stale rectangles, a giant, "
          "queries on tight borders and outside the grid): each answer equal to brute force, each slot once.")

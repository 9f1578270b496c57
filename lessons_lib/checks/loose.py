"""Exercise checks for lessons 06-07: loose bounds, centres, the uniform-size trick, the tight grid."""
from __future__ import annotations

import math

import numpy as np

from .common import CheckFailed, call_student, fmt, rect_box_cases

__all__ = ["check_child_of_centre", "check_loose_bounds", "check_partner_centre_box", "check_tight_range"]


def _box4(got, what):
    try:
        vals = [float(v) for v in got]
    except (TypeError, ValueError):
        raise CheckFailed(f"{what} must return four numbers (xmin, ymin, xmax, ymax), got {got!r}") from None
    if len(vals) != 4:
        raise CheckFailed(f"{what} must return four numbers (xmin, ymin, xmax, ymax), got {len(vals)}")
    return vals


# --------------------------------------------------------------------------
# Lesson 06, exercise 1: which child holds an element? Its centre decides.
# --------------------------------------------------------------------------
_CENTRE_CASES = [
    ("a small box in the top-left quadrant", (0, 0, 100, 100), (10, 70, 20, 80)),
    ("a small box in the bottom-right quadrant", (0, 0, 100, 100), (70, 10, 80, 20)),
    ("a wide box whose centre is left of the midline", (0, 0, 100, 100), (5, 10, 85, 20)),
    ("a wide box whose centre is right of the midline", (0, 0, 100, 100), (20, 10, 90, 20)),
    ("a box whose corner is in TL but centre in BR", (0, 0, 100, 100), (40, 10, 90, 60)),
    ("a box centred exactly on the vertical midline", (0, 0, 100, 100), (40, 10, 60, 20)),
    ("a box centred exactly on the node's centre", (0, 0, 100, 100), (45, 45, 55, 55)),
    ("a giant larger than the node, centred in TR", (0, 0, 100, 100), (-50, -40, 160, 160)),
    ("a box outside the node, to the lower left", (0, 0, 100, 100), (-30, -30, -20, -20)),
    ("an 800 x 600 node, centre just below y = 300", (0, 0, 800, 600), (100, 280, 120, 318)),
    ("an 800 x 600 node, centre just above y = 300", (0, 0, 800, 600), (100, 290, 120, 312)),
    ("a node away from the origin", (-500, 200, -300, 300), (-420, 260, -380, 270)),
]


def _child_of_centre(rect, box) -> int:
    x0, y0, x1, y1 = rect
    mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
    right, top = cx >= mx, cy >= my
    return (1 if right else 0) if top else (3 if right else 2)


def check_child_of_centre(fn) -> None:
    """Check ``fn(rect, box) -> child index`` of the loose quadtree: the quadrant holding the box's *centre*.

    Children are 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, y
    upwards. A centre exactly on a midline goes to the right / top child
    (``>=``). Boxes may overlap several quadrants or lie outside the node:
    the loose tree still puts them in exactly one child.

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the case.
    """
    cases = rect_box_cases(_CENTRE_CASES, 606, margin=10, box_div=1, box_extra=4)
    for name, rect, box in cases:
        want = _child_of_centre(rect, box)
        got = call_student(fn, rect, box)
        if isinstance(got, (list, tuple, np.ndarray)):
            raise CheckFailed(f"child_of_centre must return one child index, got {got!r}: a loose tree puts "
                              "each element in exactly one child, whatever it overlaps")
        if int(got) != want:
            hint = " Hint: use the centre ((xmin + xmax) / 2, (ymin + ymax) / 2), not a corner."
            corner = _child_of_centre(rect, (box[0], box[1], box[0], box[1]))
            cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
            if cx == 0.5 * (rect[0] + rect[2]) or cy == 0.5 * (rect[1] + rect[3]):
                hint = " Hint: a centre exactly on a midline belongs to the right / top child (use >=)."
            elif int(got) == corner:
                hint = " Hint: you picked the child of the lower-left corner; the loose tree uses the centre."
            elif rect[2] - rect[0] != rect[3] - rect[1]:
                hint = " Hint: the node is not square: the horizontal midline is at half the *height*."
            raise CheckFailed(f"{name}: node {fmt(rect)}, box {fmt(box)}: expected child {want} "
                              f"(0 TL, 1 TR, 2 BL, 3 BR), got {got}.{hint}")
    print(f"check_child_of_centre: all {len(cases)} cases passed.")


# --------------------------------------------------------------------------
# Lesson 06, exercise 2: refit a node's loose bounds
# --------------------------------------------------------------------------
def check_loose_bounds(fn) -> None:
    """Check ``fn(boxes) -> (xmin, ymin, xmax, ymax)`` or ``None``: the loose bounds of a node after cleanup.

    ``boxes`` is a list of the boxes under the node (possibly empty). The
    bounds must be exactly the smallest box covering all of them (not their
    centres, not the node's quadrant), and ``None`` for an empty node.

    Raises
    ------
    CheckFailed
        On the first wrong answer.
    """
    rng = np.random.default_rng(607)
    cases = [("no boxes (an empty leaf)", [])]
    cases.append(("one box", [(10.0, 20.0, 30.0, 25.0)]))
    cases.append(("a point and a box", [(5.0, 5.0, 5.0, 5.0), (1.0, 7.0, 3.0, 9.0)]))
    cases.append(("boxes in negative coordinates", [(-30.0, -20.0, -10.0, -5.0), (-40.0, -2.0, -35.0, 0.0)]))
    for k in range(200):
        m = int(rng.integers(1, 8))
        xy = rng.uniform(-100, 100, (m, 2))
        wh = rng.uniform(0, 60, (m, 2)) * (rng.random((m, 1)) < 0.8)
        cases.append((f"random case {k}", [tuple(v) for v in np.column_stack([xy, xy + wh]).tolist()]))
    for name, boxes in cases:
        got = call_student(fn, [tuple(b) for b in boxes])
        if not boxes:
            if got is not None:
                raise CheckFailed(f"{name}: expected None (an empty node has no bounds and meets nothing), got {got!r}")
            continue
        if got is None:
            raise CheckFailed(f"{name}: expected bounds covering {len(boxes)} box(es), got None")
        got = _box4(got, "loose_bounds")
        b = np.array(boxes)
        want = [b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()]
        if not np.allclose(got, want, rtol=0, atol=1e-9):
            centres = [(0.5 * (b[:, 0] + b[:, 2])).min(), (0.5 * (b[:, 1] + b[:, 3])).min(),
                       (0.5 * (b[:, 0] + b[:, 2])).max(), (0.5 * (b[:, 1] + b[:, 3])).max()]
            hint = " Hint: take the min of the minima and the max of the maxima of the boxes."
            if np.allclose(got, centres):
                hint = " Hint: you covered the centres; the bounds must cover whole boxes, or queries miss their edges."
            elif got[0] > want[0] or got[1] > want[1] or got[2] < want[2] or got[3] < want[3]:
                hint = " Hint: your bounds miss part of a box, so a query could skip the node and lose it."
            else:
                hint = " Hint: your bounds are larger than needed (stale growth): refit shrinks them to the boxes."
            raise CheckFailed(f"{name}: boxes {[fmt(x) for x in boxes]}: expected {fmt(want)}, got {fmt(got)}.{hint}")
    print(f"check_loose_bounds: all {len(cases)} cases passed.")


# --------------------------------------------------------------------------
# Lesson 07, exercise 1: where can a partner's centre be? (the uniform-size trick)
# --------------------------------------------------------------------------
def check_partner_centre_box(fn) -> None:
    """Check ``fn(centre, h) -> (xmin, ymin, xmax, ymax)``: where the centre of any box meeting this one may lie.

    Every element has half-size at most ``h`` (half of ``max(width,
    height)``); ``centre`` is one element's centre. The answer is the
    smallest box holding the centre of *every* element that can touch it.

    Raises
    ------
    CheckFailed
        On the first wrong answer (too small loses pairs, too large is not the tightest).
    """
    rng = np.random.default_rng(707)
    cases = [((0.0, 0.0), 1.0), ((10.0, -4.0), 2.5), ((3.0, 3.0), 0.0), ((-100.0, 50.0), 7.0)]
    cases += [(tuple(rng.uniform(-500, 500, 2)), float(rng.uniform(0, 30))) for _ in range(100)]
    for centre, h in cases:
        got = _box4(call_student(fn, centre, h), "partner_centre_box")
        x, y = centre
        want = [x - 2 * h, y - 2 * h, x + 2 * h, y + 2 * h]
        if not np.allclose(got, want, rtol=0, atol=1e-9):
            if np.allclose(got, [x - h, y - h, x + h, y + h]):
                hint = (" Hint: grown by h only covers partners whose centre lies inside this box; a partner "
                        "reaches h from its own centre too, so two centres can be 2h apart.")
            elif got[2] - got[0] > 4 * h + 1e-9:
                hint = " Hint: this finds every partner but is wider than needed: two boxes of half-size <= h touch only if their centres are within 2h."
            else:
                hint = " Hint: two boxes of half-size at most h can touch when their centres are up to h + h apart on each axis."
            raise CheckFailed(f"centre {fmt(centre)}, h = {h:g}: expected {fmt(want)}, got {fmt(got)}.{hint}")
    print(f"check_partner_centre_box: all {len(cases)} cases passed.")


# --------------------------------------------------------------------------
# Lesson 07, exercise 2: the tight cells a loose cell must be listed in
# --------------------------------------------------------------------------
def _tight(v, origin, size, n):
    t = math.floor((v - origin) / size)
    return min(max(t, 0), n - 1)


def check_tight_range(fn) -> None:
    """Check ``fn(rect, origin, tight_size, tcols, trows) -> (tc0, tr0, tc1, tr1)``.

    ``rect`` is a loose cell's rectangle (its elements' bounds), ``origin``
    the grid's lower-left corner ``(x, y)``, ``tight_size`` the side of a
    tight cell, and the tight grid has ``tcols x trows`` cells. The answer is
    the inclusive range of tight cells the rectangle overlaps: every tight cell
    whose list must name this loose cell. Coordinates outside the grid clamp
    to its border cells.

    Raises
    ------
    CheckFailed
        On the first wrong answer.
    """
    rng = np.random.default_rng(708)
    cases = [
        ("a rectangle inside one tight cell", (12, 12, 18, 18), (0, 0), 20.0, 5, 4),
        ("a rectangle reaching into the next column", (12, 12, 24, 18), (0, 0), 20.0, 5, 4),
        ("a rectangle on a tight cell's edge", (20, 5, 30, 15), (0, 0), 20.0, 5, 4),
        ("a giant's rectangle over most of the grid", (5, 5, 85, 70), (0, 0), 20.0, 5, 4),
        ("a rectangle far outside, to the upper right", (500, 500, 510, 505), (0, 0), 20.0, 5, 4),
        ("a rectangle left of and below the grid", (-40, -30, -5, 10), (0, 0), 20.0, 5, 4),
        ("a grid whose origin is not (0, 0)", (105, -18, 131, -2), (100, -20), 10.0, 6, 3),
    ]
    for k in range(200):
        ox, oy = rng.uniform(-100, 100, 2)
        size = float(rng.uniform(1, 30))
        tc, tr = (int(v) for v in rng.integers(1, 9, 2))
        x0, y0 = ox + rng.uniform(-2, tc + 1) * size, oy + rng.uniform(-2, tr + 1) * size
        w, h = rng.uniform(0, 3 * size, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + w, y0 + h), (ox, oy), size, tc, tr))
    for name, rect, origin, size, tcols, trows in cases:
        rect = tuple(float(v) for v in rect)
        got = call_student(fn, rect, tuple(float(v) for v in origin), size, tcols, trows)
        try:
            got = tuple(int(v) for v in got)
        except (TypeError, ValueError):
            raise CheckFailed(f"tight_range must return four integers (tc0, tr0, tc1, tr1), got {got!r}") from None
        want = (_tight(rect[0], origin[0], size, tcols), _tight(rect[1], origin[1], size, trows),
                _tight(rect[2], origin[0], size, tcols), _tight(rect[3], origin[1], size, trows))
        if got != want:
            cx, cy = 0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3])
            centre = (_tight(cx, origin[0], size, tcols), _tight(cy, origin[1], size, trows)) * 2
            if got == centre:
                hint = (" Hint: that is only the tight cell of the centre; a loose cell must be listed wherever "
                        "its rectangle reaches, or queries there never look at it.")
            elif any(v < 0 for v in got) or got[2] >= tcols or got[3] >= trows:
                hint = " Hint: clamp to 0 .. tcols - 1 and 0 .. trows - 1: far boxes belong to the border cells."
            else:
                hint = " Hint: a true floor of (coordinate - origin) / tight_size for each corner, then clamp."
            raise CheckFailed(f"{name}: rect {fmt(rect)}, origin {fmt(origin)}, tight cells of {size:g} "
                              f"({tcols} x {trows}): expected {want}, got {got}.{hint}")
    print(f"check_tight_range: all {len(cases)} cases passed.")

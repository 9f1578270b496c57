"""Exercise checks of lessons 06-07: each passes the reference, fails the stub, fails plausible wrong answers."""
import math

import pytest

from lessons_lib.checks import (
    CheckFailed,
    check_child_of_centre,
    check_loose_bounds,
    check_partner_centre_box,
    check_tight_range,
)


def stub(*args):
    raise NotImplementedError


# -- lesson 06, exercise 1: child_of_centre ----------------------------------
def centre_reference(rect, box):
    x0, y0, x1, y1 = rect
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    right, top = cx >= (x0 + x1) / 2, cy >= (y0 + y1) / 2
    return (1 if right else 0) if top else (3 if right else 2)


def centre_by_corner(rect, box):  # the lower-left corner instead of the centre
    return centre_reference(rect, (box[0], box[1], box[0], box[1]))


def centre_strict(rect, box):  # a centre on a midline goes left / down
    x0, y0, x1, y1 = rect
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    right, top = cx > (x0 + x1) / 2, cy > (y0 + y1) / 2
    return (1 if right else 0) if top else (3 if right else 2)


def centre_height_from_width(rect, box):  # the vertical split at half the width
    x0, y0, x1, y1 = rect
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    right, top = cx >= (x0 + x1) / 2, cy >= y0 + (x1 - x0) / 2
    return (1 if right else 0) if top else (3 if right else 2)


def centre_every_child(rect, box):  # the compact tree's answer: every child the box touches
    return [centre_reference(rect, box)]


def test_child_of_centre_reference(capsys):
    check_child_of_centre(centre_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (centre_by_corner, "lower-left corner"),
    (centre_strict, "midline belongs to the right / top"),
    (centre_height_from_width, "expected child"),
    (centre_every_child, "exactly one child"),
])
def test_child_of_centre_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_child_of_centre(wrong)


# -- lesson 06, exercise 2: loose_bounds -------------------------------------
def bounds_reference(boxes):
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def bounds_of_centres(boxes):
    if not boxes:
        return None
    cs = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
    return (min(c[0] for c in cs), min(c[1] for c in cs), max(c[0] for c in cs), max(c[1] for c in cs))


def bounds_empty_zero(boxes):  # an empty node gets a zero box at the origin, which meets queries there
    return bounds_reference(boxes) if boxes else (0.0, 0.0, 0.0, 0.0)


def bounds_first_box(boxes):  # forgets to grow past the first box
    return tuple(boxes[0]) if boxes else None


def bounds_padded(boxes):  # stale growth: a margin that never shrinks
    if not boxes:
        return None
    b = bounds_reference(boxes)
    return (b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1)


def test_loose_bounds_reference(capsys):
    check_loose_bounds(bounds_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (bounds_of_centres, "you covered the centres"),
    (bounds_empty_zero, "expected None"),
    (bounds_first_box, "miss part of a box"),
    (bounds_padded, "stale growth"),
])
def test_loose_bounds_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_loose_bounds(wrong)


# -- lesson 07, exercise 1: partner_centre_box --------------------------------
def partner_reference(centre, h):
    x, y = centre
    return (x - 2 * h, y - 2 * h, x + 2 * h, y + 2 * h)


def partner_radius_once(centre, h):  # grown by h only: loses pairs
    x, y = centre
    return (x - h, y - h, x + h, y + h)


def partner_too_wide(centre, h):  # safe but not the tightest
    x, y = centre
    return (x - 4 * h, y - 4 * h, x + 4 * h, y + 4 * h)


def partner_size_not_half(centre, h):  # h taken as a full size
    x, y = centre
    return (x - 0.5 * h, y - 0.5 * h, x + 0.5 * h, y + 0.5 * h)


def test_partner_centre_box_reference(capsys):
    check_partner_centre_box(partner_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (partner_radius_once, "grown by h only"),
    (partner_too_wide, "wider than needed"),
    (partner_size_not_half, "h \\+ h apart"),
    (lambda c, h: (c[0], c[1]), "four numbers"),
])
def test_partner_centre_box_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_partner_centre_box(wrong)


# -- lesson 07, exercise 2: tight_range ----------------------------------------
def _cell(v, o, size, n):
    return min(max(math.floor((v - o) / size), 0), n - 1)


def tight_reference(rect, origin, size, tcols, trows):
    return (_cell(rect[0], origin[0], size, tcols), _cell(rect[1], origin[1], size, trows),
            _cell(rect[2], origin[0], size, tcols), _cell(rect[3], origin[1], size, trows))


def tight_centre_only(rect, origin, size, tcols, trows):
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    c, r = _cell(cx, origin[0], size, tcols), _cell(cy, origin[1], size, trows)
    return (c, r, c, r)


def tight_no_clamp(rect, origin, size, tcols, trows):
    return tuple(math.floor((v - o) / size) for v, o in zip(rect, (*origin, *origin)))


def tight_truncate(rect, origin, size, tcols, trows):  # int() truncates towards zero: wrong left of the origin
    return tuple(min(max(int((v - o) / size), 0), n - 1)
                 for v, o, n in zip(rect, (*origin, *origin), (tcols, trows, tcols, trows)))


def tight_ignores_origin(rect, origin, size, tcols, trows):
    return tight_reference(rect, (0.0, 0.0), size, tcols, trows)


def test_tight_range_reference(capsys):
    check_tight_range(tight_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (tight_centre_only, "only the tight cell of the centre"),
    (tight_no_clamp, "clamp to 0"),
    (tight_ignores_origin, "expected"),
])
def test_tight_range_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_tight_range(wrong)


def test_tight_range_truncation_passes_only_when_clamped():
    # int() differs from floor only below the origin, where the clamp makes both 0: not a wrong answer here.
    check_tight_range(tight_truncate)

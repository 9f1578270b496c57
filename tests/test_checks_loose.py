"""Exercise checks of lessons 06-07: each passes the reference, fails the stub, fails named typical mistakes."""
import math

import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_child_of_centre, check_round_out, check_tight_query


def stub(*args):
    raise NotImplementedError


# -- lesson 06, warm-up: child_of_centre -------------------------------------
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


def centre_floor_division(rect, box):  # midlines by //
    x0, y0, x1, y1 = rect
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    right, top = cx >= (x0 + x1) // 2, cy >= (y0 + y1) // 2
    return (1 if right else 0) if top else (3 if right else 2)


def centre_every_child(rect, box):  # the compact tree's answer: a list of children
    return [centre_reference(rect, box)]


def centre_as_float(rect, box):
    return float(centre_reference(rect, box))


def test_child_of_centre_reference(capsys):
    check_child_of_centre(centre_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (centre_by_corner, "lower-left corner"),
    (centre_strict, "midline belongs to the right / top"),
    (centre_height_from_width, "half the \\*height\\*"),
    (centre_floor_division, "not //"),
    (centre_every_child, "exactly one child"),
    (centre_as_float, "must be an integer"),
    (lambda r, b: None, "returned None"),
])
def test_child_of_centre_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_child_of_centre(wrong)


# -- lesson 06, core: round_out ----------------------------------------------
def _down(v):
    x = np.float32(v)
    if float(x) > v:
        x = np.nextafter(x, np.float32(-np.inf))
    return x


def _up(v):
    x = np.float32(v)
    if float(x) < v:
        x = np.nextafter(x, np.float32(np.inf))
    return x


def round_out_reference(box):
    return (_down(box[0]), _down(box[1]), _up(box[2]), _up(box[3]))


def round_out_nearest(box):  # float32(v): the nearest, sometimes inside the box
    return tuple(np.float32(v) for v in box)


def round_out_compare_in_float32(box):  # np.float32(x) > v with a Python float compares in float32 (NumPy 2)
    def down(v):
        x = np.float32(v)
        return np.nextafter(x, np.float32(-np.inf)) if x > v else x

    def up(v):
        x = np.float32(v)
        return np.nextafter(x, np.float32(np.inf)) if x < v else x
    return (down(box[0]), down(box[1]), up(box[2]), up(box[3]))


def round_out_always_step(box):  # safe, but one float32 too far when v is a float32 already
    return (np.nextafter(np.float32(box[0]), np.float32(-np.inf)), np.nextafter(np.float32(box[1]), np.float32(-np.inf)),
            np.nextafter(np.float32(box[2]), np.float32(np.inf)), np.nextafter(np.float32(box[3]), np.float32(np.inf)))


def round_out_swapped(box):  # minimum up, maximum down
    return (_up(box[0]), _up(box[1]), _down(box[2]), _down(box[3]))


def round_out_float64(box):  # no rounding at all: float64 values
    return tuple(float(v) for v in box)


def test_round_out_reference(capsys):
    check_round_out(round_out_reference)
    assert "passed" in capsys.readouterr().out


def test_round_out_agrees_with_the_library():
    from lessons_lib.structures.loose_bounds import f32_down, f32_up
    rng = np.random.default_rng(0)
    for v in np.concatenate([rng.normal(0, 1e3, 2000), [0.1, -0.1, 1e39, -1e39, 1e-45, 3.4028235e38]]):
        with np.errstate(over="ignore"):
            assert float(_down(v)) == float(f32_down(v)) and float(_up(v)) == float(f32_up(v))


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (round_out_nearest, "missed element .*nearest"),
    (round_out_compare_in_float32, "compare in float64"),
    (round_out_always_step, "not the tightest|no step is needed"),
    (round_out_swapped, "missed element .*must be rounded down"),
    (round_out_float64, "not a float32 value"),
    (lambda box: None, "returned None"),
    (lambda box: box[:2], "four float32 values"),
])
def test_round_out_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_round_out(wrong)


# -- lesson 07, core: tight_query --------------------------------------------
def _overlap(b, q):
    return b[0] <= q[2] and q[0] <= b[2] and b[1] <= q[3] and q[1] <= b[3]


def make_tight_query(*, clamp=True, reference_cell=True, box_test=True, use_origin=True, closed=True,
                     centre_cell_only=False, dedupe=False):
    """The reference query (all defaults), or one of its typical mistakes (one argument changed)."""
    def overlap(b, q):
        if closed:
            return _overlap(b, q)
        return b[0] < q[2] and q[0] < b[2] and b[1] < q[3] and q[1] < b[3]

    def tight_query(g, q):
        ox, oy = (g.world[0], g.world[1]) if use_origin else (0.0, 0.0)
        t = g.tight_cell_size

        def cell(v, origin, n):
            k = math.floor((v - origin) / t)
            return min(max(k, 0), n - 1) if clamp else k
        c0, r0, c1, r1 = cell(q[0], ox, g.tcols), cell(q[1], oy, g.trows), cell(q[2], ox, g.tcols), cell(q[3], oy, g.trows)
        if centre_cell_only:
            c0 = c1 = cell((q[0] + q[2]) / 2, ox, g.tcols)
            r0 = r1 = cell((q[1] + q[3]) / 2, oy, g.trows)
        found = []
        for tr in range(r0, r1 + 1):
            for tc in range(c0, c1 + 1):
                if not (tc < g.tcols and tr < g.trows):
                    continue
                node = g.thead[tr * g.tcols + tc]  # a negative index wraps around when not clamped
                while node != -1:
                    c = g.tcell[node]
                    node = g.tnxt[node]
                    if reference_cell and (max(g.lreg[c, 0], c0) != tc or max(g.lreg[c, 1], r0) != tr):
                        continue
                    if box_test and not overlap(g.lrect[c], q):
                        continue
                    s = g.lhead[c]
                    while s != -1:
                        if not box_test or overlap(g.elements.boxes[s], q):
                            found.append(int(s))
                        s = g.enext[s]
        return sorted(set(found)) if dedupe else found
    return tight_query


tight_query_reference = make_tight_query()
tight_query_no_reference_cell = make_tight_query(reference_cell=False)
tight_query_no_clamp = make_tight_query(clamp=False, reference_cell=False, dedupe=True)
tight_query_centre_cell_only = make_tight_query(centre_cell_only=True, reference_cell=False, dedupe=True)
tight_query_ignores_origin = make_tight_query(use_origin=False)
tight_query_strict = make_tight_query(closed=False)
tight_query_no_box_test = make_tight_query(box_test=False, reference_cell=False, dedupe=True)


def tight_query_ids(g, q):
    return [int(g.elements.ids[s]) for s in tight_query_reference(g, q)]


def tight_query_clears(g, q):
    out = tight_query_reference(g, q)
    g.thead[:] = -1
    return out


def test_tight_query_reference(capsys):
    check_tight_query(tight_query_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (tight_query_no_reference_cell, "reference tight cell"),
    (tight_query_no_clamp, "clamp"),
    (tight_query_centre_cell_only, "missed slot .* read every tight cell"),
    (tight_query_ignores_origin, "from the origin|which does not meet"),
    (tight_query_strict, "touches the query counts"),
    (tight_query_no_box_test, "test each element's box"),
    (tight_query_ids, "return slots"),
    (tight_query_clears, "changed g.thead"),
    (lambda g, q: None, "returned None"),
])
def test_tight_query_wrong(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_tight_query(wrong)

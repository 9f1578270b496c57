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


def _tight(v, origin, size, n):
    return min(max(math.floor((v - origin) / size), 0), n - 1)


def tight_query_reference(g, q):
    ox, oy, t = g.world[0], g.world[1], g.tight_cell_size
    c0, r0 = _tight(q[0], ox, t, g.tcols), _tight(q[1], oy, t, g.trows)
    c1, r1 = _tight(q[2], ox, t, g.tcols), _tight(q[3], oy, t, g.trows)
    found = []
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            node = g.thead[tr * g.tcols + tc]
            while node != -1:
                c = g.tcell[node]
                node = g.tnxt[node]
                if max(g.lreg[c, 0], c0) != tc or max(g.lreg[c, 1], r0) != tr:
                    continue
                if not _overlap(g.lrect[c], q):
                    continue
                s = g.lhead[c]
                while s != -1:
                    if _overlap(g.elements.boxes[s], q):
                        found.append(int(s))
                    s = g.enext[s]
    return found


def tight_query_no_reference_cell(g, q):  # every listing of a loose cell reports its elements again
    ox, oy, t = g.world[0], g.world[1], g.tight_cell_size
    c0, r0 = _tight(q[0], ox, t, g.tcols), _tight(q[1], oy, t, g.trows)
    c1, r1 = _tight(q[2], ox, t, g.tcols), _tight(q[3], oy, t, g.trows)
    found = []
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            node = g.thead[tr * g.tcols + tc]
            while node != -1:
                c = g.tcell[node]
                node = g.tnxt[node]
                s = g.lhead[c]
                while s != -1:
                    if _overlap(g.elements.boxes[s], q):
                        found.append(int(s))
                    s = g.enext[s]
    return found


def tight_query_no_clamp(g, q):  # negative tight indices wrap around, large ones are skipped
    ox, oy, t = g.world[0], g.world[1], g.tight_cell_size
    c0, r0, c1, r1 = (math.floor((q[0] - ox) / t), math.floor((q[1] - oy) / t), math.floor((q[2] - ox) / t),
                      math.floor((q[3] - oy) / t))
    found = set()
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            if not (tc < g.tcols and tr < g.trows):
                continue
            node = g.thead[tr * g.tcols + tc]
            while node != -1:
                c = g.tcell[node]
                node = g.tnxt[node]
                s = g.lhead[c]
                while s != -1:
                    if _overlap(g.elements.boxes[s], q):
                        found.add(int(s))
                    s = g.enext[s]
    return sorted(found)


def tight_query_centre_cell_only(g, q):  # reads only the tight cell under the query's centre
    ox, oy, t = g.world[0], g.world[1], g.tight_cell_size
    tc = _tight((q[0] + q[2]) / 2, ox, t, g.tcols)
    tr = _tight((q[1] + q[3]) / 2, oy, t, g.trows)
    found = set()
    node = g.thead[tr * g.tcols + tc]
    while node != -1:
        c = g.tcell[node]
        node = g.tnxt[node]
        s = g.lhead[c]
        while s != -1:
            if _overlap(g.elements.boxes[s], q):
                found.add(int(s))
            s = g.enext[s]
    return sorted(found)


def tight_query_ignores_origin(g, q):
    class Shifted:
        pass
    h = Shifted()
    for a in ("tcols", "trows", "thead", "tnxt", "tcell", "lreg", "lrect", "lhead", "enext", "elements",
              "tight_cell_size"):
        setattr(h, a, getattr(g, a))
    h.world = np.zeros(4)
    return tight_query_reference(h, q)


def tight_query_strict(g, q):  # open boxes: touching does not count
    return [s for s in tight_query_reference(g, q)
            if not (g.elements.boxes[s][0] == q[2] or g.elements.boxes[s][2] == q[0]
                    or g.elements.boxes[s][1] == q[3] or g.elements.boxes[s][3] == q[1])]


def tight_query_no_box_test(g, q):  # every element of a loose cell whose rectangle meets the query
    ox, oy, t = g.world[0], g.world[1], g.tight_cell_size
    c0, r0 = _tight(q[0], ox, t, g.tcols), _tight(q[1], oy, t, g.trows)
    c1, r1 = _tight(q[2], ox, t, g.tcols), _tight(q[3], oy, t, g.trows)
    found = set()
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            node = g.thead[tr * g.tcols + tc]
            while node != -1:
                c = g.tcell[node]
                node = g.tnxt[node]
                if _overlap(g.lrect[c], q):
                    s = g.lhead[c]
                    while s != -1:
                        found.add(int(s))
                        s = g.enext[s]
    return sorted(found)


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

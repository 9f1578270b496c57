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


# == issue 33: each kind of wrong answer that used to pass, and valid alternatives that must ==========
# -- method not checked: a search over every element instead of the walk of the tight cells ---------
def tight_query_every_live_slot(g, q):
    return [s for s in g.elements.live_slots().tolist() if _overlap(g.elements.boxes[s], q)]


def tight_query_vectorised_brute_force(g, q):
    b = g.elements.boxes[: g.elements.high_water]
    hit = (b[:, 0] <= q[2]) & (q[0] <= b[:, 2]) & (b[:, 1] <= q[3]) & (q[1] <= b[:, 3])
    return [s for s in np.flatnonzero(hit).tolist() if g.elements.alive[s]]


def tight_query_by_the_structure(g, q):
    return [g.elements.slot(int(i)) for i in g.query(q)]


@pytest.mark.parametrize("wrong, message", [
    (tight_query_every_live_slot, "returned the right slots, but it read the boxes of"),
    (tight_query_vectorised_brute_force, "returned the right slots, but it read the boxes of"),
    (tight_query_by_the_structure, r"called g.query\(\)"),
])
def test_tight_query_that_does_not_walk_the_tight_cells_fails(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_tight_query(wrong)


# -- types ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("wrong", [
    lambda box: tuple(float(v) for v in round_out_reference(box)),          # the right values, as Python floats
    lambda box: tuple(np.float64(v) for v in round_out_reference(box)),     # as float64
])
def test_round_out_must_return_float32(wrong):
    with pytest.raises(CheckFailed, match="not a float32 value: return np.float32 values"):
        check_round_out(wrong)


def test_child_of_centre_must_return_an_int():
    with pytest.raises(CheckFailed, match="must be a Python int"):
        check_child_of_centre(lambda r, b: np.int64(centre_reference(r, b)))


# -- messages: a hint only when the answer proves it ------------------------------------------------------
def centre_y_down(rect, box):
    return {0: 2, 1: 3, 2: 0, 3: 1}[centre_reference(rect, box)]


def centre_tr_bl_swapped(rect, box):
    return {0: 0, 1: 2, 2: 1, 3: 3}[centre_reference(rect, box)]


def centre_without_origin(rect, box):
    x0, y0, x1, y1 = rect
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    right, top = cx >= (x1 - x0) / 2, cy >= (y1 - y0) / 2
    return (1 if right else 0) if top else (3 if right else 2)


@pytest.mark.parametrize("wrong, message", [
    (centre_y_down, "with y upwards"),
    (centre_tr_bl_swapped, "1 is top-right, 2 bottom-left"),
    (centre_without_origin, "does not start at 0"),
])
def test_child_of_centre_hints_name_the_mistake_made(wrong, message):
    with pytest.raises(CheckFailed, match=message) as e:
        check_child_of_centre(wrong)
    assert "not a corner" not in str(e.value) and "use >=" not in str(e.value)


def test_tight_query_crash_names_the_query():
    def crashes_outside(g, q):
        if q[0] < g.world[0]:
            raise ValueError("negative cell")
        return tight_query_reference(g, q)
    with pytest.raises(CheckFailed, match=r"raised ValueError: negative cell on .*; a query .*\("):
        check_tight_query(crashes_outside)


# -- valid alternatives pass ------------------------------------------------------------------------------
def tight_query_per_loose_cell_vectorised(g, q):
    """The walk, with each loose cell's elements tested at once and a set for the loose cells seen."""
    t = g.tight_cell_size
    c0, r0 = (min(max(math.floor((v - o) / t), 0), n - 1) for v, o, n in ((q[0], g.world[0], g.tcols),
                                                                         (q[1], g.world[1], g.trows)))
    c1, r1 = (min(max(math.floor((v - o) / t), 0), n - 1) for v, o, n in ((q[2], g.world[0], g.tcols),
                                                                         (q[3], g.world[1], g.trows)))
    seen, found = set(), []
    for tr in range(r0, r1 + 1):
        for tc in range(c0, c1 + 1):
            node = g.thead[tr * g.tcols + tc]
            while node != -1:
                c = int(g.tcell[node])
                node = g.tnxt[node]
                if c in seen or not _overlap(g.lrect[c], q):
                    continue
                seen.add(c)
                members, s = [], g.lhead[c]
                while s != -1:
                    members.append(int(s))
                    s = g.enext[s]
                if members:
                    b = g.elements.boxes[members]
                    hit = (b[:, 0] <= q[2]) & (q[0] <= b[:, 2]) & (b[:, 1] <= q[3]) & (q[1] <= b[:, 3])
                    found += [m for m, h in zip(members, hit) if h]
    return np.array(found, dtype=np.int64)


def round_out_by_comparison(box):
    """Step from the nearest float32 while it lies on the wrong side (a loop, compared in float64)."""
    def down(v):
        x = np.float32(v)
        while float(x) > v:
            x = np.nextafter(x, np.float32(-np.inf))
        return x

    def up(v):
        x = np.float32(v)
        while float(x) < v:
            x = np.nextafter(x, np.float32(np.inf))
        return x
    return np.array([down(box[0]), down(box[1]), up(box[2]), up(box[3])], dtype=np.float32)


def centre_by_arithmetic(rect, box):
    right = int(box[0] + box[2] >= rect[0] + rect[2])
    top = int(box[1] + box[3] >= rect[1] + rect[3])
    return 2 * (1 - top) + right


@pytest.mark.parametrize("check, valid", [
    (check_tight_query, tight_query_per_loose_cell_vectorised),
    (check_round_out, round_out_by_comparison),
    (check_child_of_centre, centre_by_arithmetic),
])
def test_valid_alternatives_pass(check, valid):
    check(valid)

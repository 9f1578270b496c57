"""The exercise checks of lessons 02-03 pass the reference, fail the stub, and fail the mistakes a
sceptical teacher would try (each written without looking at the check's cases)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_cell_members, check_cell_range, check_grid_pairs
from lessons_lib.structures.spatial_hash import cell_key


def stub(*args):
    raise NotImplementedError


# -- lesson 02, exercise 1 (warm-up): cell_range -------------------------------------------
def cell_range_ref(box, cell_size, world):
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)

    def cell(v, origin, n):
        return min(max(math.floor((v - origin) / cell_size), 0), n - 1)

    return (cell(box[0], world[0], cols), cell(box[1], world[1], rows),
            cell(box[2], world[0], cols), cell(box[3], world[1], rows))


def cell_range_times_inverse(box, cell_size, world):  # multiplies by 1 / s: also right
    inv = 1.0 / cell_size
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)

    def cell(v, origin, n):
        return min(max(math.floor((v - origin) * inv), 0), n - 1)

    return [cell(box[0], world[0], cols), cell(box[1], world[1], rows),
            cell(box[2], world[0], cols), cell(box[3], world[1], rows)]


def cell_range_unclamped(box, cell_size, world):
    return tuple(math.floor((v - world[k % 2]) / cell_size) for k, v in enumerate(box))


def cell_range_ignores_origin(box, cell_size, world):
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)
    n = (cols, rows, cols, rows)
    return tuple(min(max(math.floor(v / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_int_before_origin(box, cell_size, world):
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)
    n = (cols, rows, cols, rows)
    return tuple(min(max(int(v / cell_size) - int(world[k % 2] / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_int_truncates(box, cell_size, world):  # int() of the difference: same as floor once clamped
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)
    n = (cols, rows, cols, rows)
    return tuple(min(max(int((v - world[k % 2]) / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_exclusive_top(box, cell_size, world):
    c0, r0, _, _ = cell_range_ref(box, cell_size, world)
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)
    c1 = min(max(math.ceil((box[2] - world[0]) / cell_size) - 1, c0), cols - 1)
    r1 = min(max(math.ceil((box[3] - world[1]) / cell_size) - 1, r0), rows - 1)
    return c0, r0, c1, r1


def cell_range_floor_cols(box, cell_size, world):  # forgets the last, partial column and row
    cols = int((world[2] - world[0]) // cell_size)
    rows = int((world[3] - world[1]) // cell_size)
    n = (cols, rows, cols, rows)
    return tuple(min(max(math.floor((v - world[k % 2]) / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_one_more_column(box, cell_size, world):  # int(w / s) + 1: right only when w is no multiple of s
    cols = int((world[2] - world[0]) / cell_size) + 1
    rows = int((world[3] - world[1]) / cell_size) + 1
    n = (cols, rows, cols, rows)
    return tuple(min(max(math.floor((v - world[k % 2]) / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_swapped_dims(box, cell_size, world):
    cols = math.ceil((world[3] - world[1]) / cell_size)
    rows = math.ceil((world[2] - world[0]) / cell_size)
    n = (cols, rows, cols, rows)
    return tuple(min(max(math.floor((v - world[k % 2]) / cell_size), 0), n[k] - 1) for k, v in enumerate(box))


def cell_range_numpy_floats(box, cell_size, world):
    return tuple(np.floor(np.asarray(cell_range_ref(box, cell_size, world), float)))


def test_cell_range_reference_passes(capsys):
    check_cell_range(cell_range_ref)
    check_cell_range(cell_range_times_inverse)
    assert "passed all" in capsys.readouterr().out


def test_cell_range_int_of_the_difference_is_right_once_clamped(capsys):
    check_cell_range(cell_range_int_truncates)


@pytest.mark.parametrize("fn, message", [
    (stub, "not written yet"),
    (cell_range_unclamped, "clamp to the grid"),
    (cell_range_ignores_origin, "subtract the world's origin"),
    (cell_range_int_before_origin, "int\\(\\) truncates"),
    (cell_range_exclusive_top, "ends exactly on a cell border"),
    (cell_range_floor_cols, "partial column"),
    (cell_range_one_more_column, "no extra, partial column"),
    (cell_range_swapped_dims, "columns follow x"),
    (cell_range_numpy_floats, "must be an integer"),
    (lambda box, s, w: [0, 0, 0], "tuple of 4 integers"),
    (lambda box, s, w: None, "returned None"),
], ids=lambda v: getattr(v, "__name__", "msg"))
def test_cell_range_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_cell_range(fn)


# -- lesson 02, exercise 2: grid_pairs -------------------------------------------------------
def overlap(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def grid_pairs_ref(head, nxt, elem, boxes, cols, cell_of):
    found = []
    for cell in range(len(head)):
        members, node = [], head[cell]
        while node != -1:
            members.append(int(elem[node]))
            node = nxt[node]
        col, row = cell % cols, cell // cols
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                if overlap(boxes[i], boxes[j]) and \
                        tuple(cell_of(max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1]))) == (col, row):
                    found.append((min(i, j), max(i, j)))
    return found


def _variant(*, ref_rule="max", test=overlap, order=True, stop_at_zero=False, use_nodes=False, swap=False,
             skip_last=False, mutate=False):
    def fn(head, nxt, elem, boxes, cols, cell_of):
        found = []
        last = len(head) - 1 if skip_last else len(head)
        for cell in range(last):
            members, node = [], head[cell]
            while (node > 0 if stop_at_zero else node != -1):
                members.append(int(node if use_nodes else elem[node]))
                node = nxt[node]
            if mutate:
                head[cell] = -1
            col, row = (cell // cols, cell % cols) if swap else (cell % cols, cell // cols)
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    i, j = members[a], members[b]
                    if not test(boxes[i], boxes[j]):
                        continue
                    if ref_rule == "max":
                        ok = tuple(cell_of(max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1]))) == (col, row)
                    elif ref_rule == "min":
                        ok = tuple(cell_of(min(boxes[i][0], boxes[j][0]), min(boxes[i][1], boxes[j][1]))) == (col, row)
                    else:
                        ok = True
                    if ok:
                        found.append((min(i, j), max(i, j)) if order else (i, j))
        return found
    return fn


def grid_pairs_brute_force(head, nxt, elem, boxes, cols, cell_of):  # ignores the grid
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if overlap(boxes[i], boxes[j])]


def grid_pairs_set_dedup(head, nxt, elem, boxes, cols, cell_of):  # a set instead of the rule: also right
    return sorted(set(_variant(ref_rule=None)(head, nxt, elem, boxes, cols, cell_of)))


def test_grid_pairs_reference_passes(capsys):
    check_grid_pairs(grid_pairs_ref)
    check_grid_pairs(grid_pairs_set_dedup)
    assert "matches brute force" in capsys.readouterr().out


@pytest.mark.parametrize("fn, message", [
    (stub, "not written yet"),
    (_variant(ref_rule=None), "twice.*reference cell"),
    (_variant(ref_rule="min"), "missing"),
    (_variant(test=lambda a, b: True), "do not intersect"),
    (_variant(test=lambda a, b: a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), "touching counts"),
    (_variant(order=False), "smaller index first"),
    (_variant(stop_at_zero=True), "missing"),
    (_variant(use_nodes=True), "holds no stored box|do not intersect|missing|indices run"),
    (_variant(swap=True), "missing|index"),
    (_variant(skip_last=True), "missing"),
    (_variant(mutate=True), "changed its argument number 1"),
    (grid_pairs_brute_force, "holds no stored box"),
    (lambda *a: None, "returned None"),
    (lambda *a: [(0.0, 1.0)], "must be an integer"),
], ids=lambda v: getattr(v, "__name__", "msg"))
def test_grid_pairs_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_grid_pairs(fn)


# -- lesson 03: cell_members ----------------------------------------------------------------
P1, P2, MASK = 73856093, 19349663, (1 << 62) - 1


def _slots_with_key(head, nxt, elem, key, bucket, want):
    out, node = [], head[bucket]
    while node != -1:
        if key[node] == want:
            out.append(int(elem[node]))
        node = nxt[node]
    return out


def cell_members_ref(head, nxt, elem, key, cx, cy):
    bucket = (((cx * P1) ^ (cy * P2)) & MASK) % len(head)
    return _slots_with_key(head, nxt, elem, key, bucket, cell_key(cx, cy))


def cell_members_numpy(head, nxt, elem, key, cx, cy):  # int64 arithmetic that wraps around: also right
    with np.errstate(over="ignore"):
        h = (np.int64(cx) * np.int64(P1)) ^ (np.int64(cy) * np.int64(P2))
    bucket = int(h & np.int64(MASK)) % len(head)
    return _slots_with_key(head, nxt, elem, key, bucket, (cx + 2**30 - 1) * 2**32 + (cy + 2**30 - 1))


def _members_variant(*, bucket=None, keep=None, stop_at_zero=False, use_nodes=False):
    def fn(head, nxt, elem, key, cx, cy):
        b = bucket(cx, cy, len(head)) if bucket else (((cx * P1) ^ (cy * P2)) & MASK) % len(head)
        want = cell_key(cx, cy)
        out, node = [], head[b]
        while (node > 0 if stop_at_zero else node != -1):
            if (key[node] == want) if keep is None else keep(key[node], want, cx, cy):
                out.append(int(node if use_nodes else elem[node]))
            node = nxt[node]
        return out
    return fn


@pytest.mark.parametrize("fn", [cell_members_ref, cell_members_numpy])
def test_cell_members_reference_passes(fn, capsys):
    check_cell_members(fn)
    assert "passed all" in capsys.readouterr().out


@pytest.mark.parametrize("fn, message", [
    (stub, "not written yet"),
    (_members_variant(keep=lambda k, want, cx, cy: True), "keep only the nodes whose key|more than once"),
    (_members_variant(bucket=lambda cx, cy, n: ((cx * P1) ^ (cy * P2)) % n), "without the mask names bucket"),
    (_members_variant(bucket=lambda cx, cy, n: int(np.fmod((cx * P1) ^ (cy * P2), n))), "without the mask names bucket"),
    (_members_variant(use_nodes=True), "not the node indices"),
    (_members_variant(bucket=lambda cx, cy, n: (((cx * P2) ^ (cy * P1)) & MASK) % n), "missed"),
    (_members_variant(bucket=lambda cx, cy, n: (((cx * P1) + (cy * P2)) & MASK) % n), "missed"),
    (_members_variant(bucket=lambda cx, cy, n: (cx + cy) % n), "missed"),
    (_members_variant(bucket=lambda cx, cy, n: (((cx * P1) ^ (cy * P2)) & 0xFFFFFFFF) % n), "missed"),
    (_members_variant(keep=lambda k, want, cx, cy: k == cx * 2**32 + cy), "missed"),
    (_members_variant(keep=lambda k, want, cx, cy: k == cell_key(cy, cx)), "missed|returned slot"),
    (_members_variant(stop_at_zero=True), "missed"),
    (_members_variant(use_nodes=True), "holds no stored box|missed|returned slot"),
    (lambda head, nxt, elem, key, cx, cy: None, "returned None"),
    (lambda head, nxt, elem, key, cx, cy: [1.0], "must be an integer|missed|returned slot"),
], ids=lambda v: getattr(v, "__name__", "msg"))
def test_cell_members_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_cell_members(fn)


# == issue 33: each kind of wrong answer that used to pass ==========================================
def cell_range_numpy_ints(box, cell_size, world):
    return tuple(np.int64(v) for v in cell_range_ref(box, cell_size, world))


def grid_pairs_over_stored_slots(head, nxt, elem, boxes, cols, cell_of):
    """Walks the lists only to learn which slots are stored, then tests every pair of them."""
    stored = set()
    for cell in range(len(head)):
        node = head[cell]
        while node != -1:
            stored.add(int(elem[node]))
            node = nxt[node]
    s = sorted(stored)
    return [(s[a], s[b]) for a in range(len(s)) for b in range(a + 1, len(s)) if overlap(boxes[s[a]], boxes[s[b]])]


def cell_members_over_every_node(head, nxt, elem, key, cx, cy):
    """Keeps every node of every list whose key is the cell's: right, without the hash."""
    want, out = cell_key(cx, cy), []
    for b in range(len(head)):
        node = head[b]
        while node != -1:
            if key[node] == want:
                out.append(int(elem[node]))
            node = nxt[node]
    return out


@pytest.mark.parametrize("check, wrong, message", [
    (check_cell_range, cell_range_numpy_ints, "must be a Python int"),
    (check_cell_members, lambda *a: [np.int64(v) for v in cell_members_ref(*a)], "must be a Python int"),
    (check_grid_pairs, grid_pairs_over_stored_slots, "read the box of slot .* times.*a search over every box"),
    (check_cell_members, cell_members_over_every_node, "returned the right slots, but it read node"),
])
def test_issue33_kinds_fail(check, wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check(wrong)


def test_no_message_prints_the_fix():
    for check, wrong in ((check_cell_range, cell_range_exclusive_top),
                         (check_cell_members, _members_variant(bucket=lambda cx, cy, n: ((cx * P1) ^ (cy * P2)) % n))):
        with pytest.raises(CheckFailed) as e:
            check(wrong)
        assert "use floor" not in str(e.value) and "2**62" not in str(e.value) and "& (" not in str(e.value)


def test_a_crash_names_the_case():
    def crashes_far_away(box, cell_size, world):
        if abs(box[0]) > 400:
            raise OverflowError("too far")
        return cell_range_ref(box, cell_size, world)
    with pytest.raises(CheckFailed, match=r"raised OverflowError: too far on a box wholly outside the world, far away: "
                                          r"cell_range\("):
        check_cell_range(crashes_far_away)

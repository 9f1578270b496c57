"""The exercise checks of lessons 02-03: pass the reference, fail the stub and plausible wrong answers."""
from __future__ import annotations

import math

import pytest

from lessons_lib.checks import CheckFailed, check_cell_range, check_hash_cells, check_pairs_in_cell


# -- lesson 02, exercise 1 ---------------------------------------------------
def cell_range_ref(box, cell_size, world):
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)

    def clamp(v, n):
        return min(max(v, 0), n - 1)

    return (clamp(math.floor((box[0] - world[0]) / cell_size), cols), clamp(math.floor((box[1] - world[1]) / cell_size), rows),
            clamp(math.floor((box[2] - world[0]) / cell_size), cols), clamp(math.floor((box[3] - world[1]) / cell_size), rows))


def cell_range_unclamped(box, cell_size, world):
    return tuple(math.floor((v - world[k % 2]) / cell_size) for k, v in enumerate(box))


def cell_range_exclusive_top(box, cell_size, world):
    c0, r0, _, _ = cell_range_ref(box, cell_size, world)
    cols = math.ceil((world[2] - world[0]) / cell_size)
    rows = math.ceil((world[3] - world[1]) / cell_size)
    c1 = min(max(math.ceil((box[2] - world[0]) / cell_size) - 1, c0), cols - 1)
    r1 = min(max(math.ceil((box[3] - world[1]) / cell_size) - 1, r0), rows - 1)
    return c0, r0, c1, r1


def cell_range_stub(box, cell_size, world):
    raise NotImplementedError


def test_cell_range_reference_passes(capsys):
    check_cell_range(cell_range_ref)
    assert "passed all" in capsys.readouterr().out


@pytest.mark.parametrize("fn, message", [
    (cell_range_stub, "not written yet"),
    (cell_range_unclamped, "clamp to the grid"),
    (cell_range_exclusive_top, "use floor for both ends"),
    (lambda box, s, w: [0, 0, 0], "must return 4 integers"),
    (lambda box, s, w: None, "must return 4 integers"),
])
def test_cell_range_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_cell_range(fn)


# -- lesson 02, exercise 2 ---------------------------------------------------
def overlap(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def pairs_in_cell_ref(members, boxes, col, row, cell_of):
    out = []
    for a in range(len(members)):
        for b in range(a + 1, len(members)):
            i, j = members[a], members[b]
            if overlap(boxes[i], boxes[j]):
                ref = cell_of(max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1]))
                if tuple(ref) == (col, row):
                    out.append((min(i, j), max(i, j)))
    return out


def pairs_in_cell_every_cell(members, boxes, col, row, cell_of):
    return [(min(i, j), max(i, j)) for a, i in enumerate(members) for j in members[a + 1:] if overlap(boxes[i], boxes[j])]


def pairs_in_cell_min_corner(members, boxes, col, row, cell_of):
    out = []
    for a, i in enumerate(members):
        for j in members[a + 1:]:
            if overlap(boxes[i], boxes[j]) and tuple(cell_of(min(boxes[i][0], boxes[j][0]),
                                                             min(boxes[i][1], boxes[j][1]))) == (col, row):
                out.append((min(i, j), max(i, j)))
    return out


def pairs_in_cell_no_test(members, boxes, col, row, cell_of):
    out = []
    for a, i in enumerate(members):
        for j in members[a + 1:]:
            if tuple(cell_of(max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1]))) == (col, row):
                out.append((min(i, j), max(i, j)))
    return out


def test_pairs_in_cell_reference_passes(capsys):
    check_pairs_in_cell(pairs_in_cell_ref)
    assert "exactly once" in capsys.readouterr().out


@pytest.mark.parametrize("fn, message", [
    (lambda *a: (_ for _ in ()).throw(NotImplementedError), "not written yet"),
    (pairs_in_cell_every_cell, "comes out of cell .* and again"),
    (pairs_in_cell_min_corner, "was never reported"),
    (pairs_in_cell_no_test, "do not intersect"),
    (lambda members, boxes, col, row, cell_of: [(j, i) for i, j in pairs_in_cell_ref(members, boxes, col, row, cell_of)],
     "with i < j"),
])
def test_pairs_in_cell_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_pairs_in_cell(fn)


# -- lesson 03 ---------------------------------------------------------------
def hash_cells_ref(box, cell_size):
    cx0, cy0 = math.floor(box[0] / cell_size), math.floor(box[1] / cell_size)
    cx1, cy1 = math.floor(box[2] / cell_size), math.floor(box[3] / cell_size)
    return [(cx, cy) for cx in range(cx0, cx1 + 1) for cy in range(cy0, cy1 + 1)]


def hash_cells_truncating(box, cell_size):
    cx0, cy0 = int(box[0] / cell_size), int(box[1] / cell_size)
    cx1, cy1 = int(box[2] / cell_size), int(box[3] / cell_size)
    return [(cx, cy) for cx in range(cx0, cx1 + 1) for cy in range(cy0, cy1 + 1)]


def hash_cells_corners_only(box, cell_size):
    return {(math.floor(x / cell_size), math.floor(y / cell_size)) for x in (box[0], box[2]) for y in (box[1], box[3])}


def test_hash_cells_reference_passes(capsys):
    check_hash_cells(hash_cells_ref)
    assert "passed all" in capsys.readouterr().out


@pytest.mark.parametrize("fn, message", [
    (lambda box, s: (_ for _ in ()).throw(NotImplementedError), "not written yet"),
    (hash_cells_truncating, "int\\(\\) rounds towards zero"),
    (hash_cells_corners_only, "expected"),
    (lambda box, s: 3, "must return \\(cx, cy\\) pairs"),
])
def test_hash_cells_wrong_answers(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_hash_cells(fn)

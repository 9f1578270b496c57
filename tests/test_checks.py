"""Lesson 01's exercise checks pass the reference, fail the stub, and fail plausible wrong answers."""
import pytest

from lessons_lib.checks import CheckFailed, check_aabb_overlap, check_all_pairs


# -- exercise 1: aabb_overlap ----------------------------------------------
def overlap_reference(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def overlap_stub(a, b):
    raise NotImplementedError


def overlap_strict(a, b):  # open boxes: misses touching
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlap_x_only(a, b):  # forgets the y axis
    return a[0] <= b[2] and b[0] <= a[2]


def overlap_corner_inside(a, b):  # "a corner of b lies in a": misses the cross
    corners = [(b[0], b[1]), (b[0], b[3]), (b[2], b[1]), (b[2], b[3])]
    return any(a[0] <= x <= a[2] and a[1] <= y <= a[3] for x, y in corners)


def overlap_mixed_fields(a, b):  # compares x with y
    return a[0] <= b[3] and b[0] <= a[3] and a[1] <= b[2] and b[1] <= a[2]


def overlap_returns_int(a, b):
    return int(overlap_reference(a, b))


def overlap_centres(a, b):  # centre distance against half sizes, but strict: misses touching
    return (abs((a[0] + a[2]) - (b[0] + b[2])) < (a[2] - a[0]) + (b[2] - b[0])
            and abs((a[1] + a[3]) - (b[1] + b[3])) < (a[3] - a[1]) + (b[3] - b[1]))


def overlap_integer_coords(a, b):  # rounds the coordinates first
    a, b = [int(v) for v in a], [int(v) for v in b]
    return overlap_reference(a, b)


def overlap_forgets_return(a, b):
    overlap_reference(a, b)


def test_overlap_reference_passes(capsys):
    check_aabb_overlap(overlap_reference)
    assert "passed" in capsys.readouterr().out


def test_overlap_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_aabb_overlap(overlap_stub)


@pytest.mark.parametrize(
    "wrong, message",
    [
        (overlap_strict, "touch"),
        (overlap_x_only, "expected False"),
        (overlap_corner_inside, "expected True"),
        (overlap_mixed_fields, "expected"),
        (overlap_returns_int, "True or False"),
        (overlap_centres, "only touch"),
        (overlap_integer_coords, "separated by a hair|expected"),
        (overlap_forgets_return, "returned None"),
    ],
)
def test_overlap_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_aabb_overlap(wrong)


# -- exercise 2: all_pairs ---------------------------------------------------
def pairs_reference(boxes):
    return [
        (i, j)
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if overlap_reference(boxes[i], boxes[j])
    ]


def pairs_stub(boxes):
    raise NotImplementedError


def pairs_with_self(boxes):  # j starts at i
    return [(i, j) for i in range(len(boxes)) for j in range(i, len(boxes)) if overlap_reference(boxes[i], boxes[j])]


def pairs_both_orders(boxes):  # no duplicate removal: (i, j) and (j, i)
    return [(i, j) for i in range(len(boxes)) for j in range(len(boxes)) if i != j and overlap_reference(boxes[i], boxes[j])]


def pairs_off_by_one(boxes):  # skips neighbours: j from i + 2
    return [(i, j) for i in range(len(boxes)) for j in range(i + 2, len(boxes)) if overlap_reference(boxes[i], boxes[j])]


def pairs_strict(boxes):  # open boxes
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if overlap_strict(boxes[i], boxes[j])]


def pairs_repeated(boxes):  # reports a pair once per axis that overlaps
    out = []
    for i, j in pairs_reference(boxes):
        out += [(i, j), (i, j)]
    return out


def pairs_sorts_input(boxes):  # sorts the caller's list in place to "speed up" the loop
    boxes.sort()
    return pairs_reference(boxes)


def pairs_float_indices(boxes):
    return [(float(i), float(j)) for i, j in pairs_reference(boxes)]


def test_pairs_reference_passes(capsys):
    check_all_pairs(pairs_reference)
    assert "matches brute force" in capsys.readouterr().out


def test_pairs_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_all_pairs(pairs_stub)


@pytest.mark.parametrize(
    "wrong, message",
    [
        (pairs_with_self, "not a pair with itself"),
        (pairs_both_orders, "smaller index first"),
        (pairs_off_by_one, "Missing"),
        (pairs_strict, "Missing.*touching counts"),
        (pairs_repeated, "twice"),
        (pairs_sorts_input, "changed its argument number 1 in place"),
        (pairs_float_indices, "must be an integer"),
    ],
)
def test_pairs_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_all_pairs(wrong)


def test_pairs_bad_return_type_fails():
    with pytest.raises(CheckFailed):
        check_all_pairs(lambda boxes: 42)
    with pytest.raises(CheckFailed):
        check_all_pairs(lambda boxes: [(0.5, 1.5)] if boxes else [])

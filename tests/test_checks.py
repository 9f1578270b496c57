"""Lesson 01's exercise checks pass the reference, fail the stub, and fail plausible wrong answers."""
import numpy as np
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


def test_a_crash_names_the_boxes():
    def crashes_on_points(a, b):
        if a[0] == a[2]:
            raise ZeroDivisionError("a box of width 0")
        return overlap_reference(a, b)
    with pytest.raises(CheckFailed, match=r"raised ZeroDivisionError: a box of width 0 on a point inside a box: "
                                          r"aabb_overlap\(\(1, 1, 1, 1\), \(0, 0, 4, 4\)\)"):
        check_aabb_overlap(crashes_on_points)


@pytest.mark.parametrize("valid", [
    lambda a, b: not (a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]),        # "not separated"
    lambda a, b: max(a[0], b[0]) <= min(a[2], b[2]) and max(a[1], b[1]) <= min(a[3], b[3]),  # the intersection
    lambda a, b: bool(np.all(np.maximum(a[:2], b[:2]) <= np.minimum(a[2:], b[2:]))),
])
def test_overlap_valid_alternatives_pass(valid):
    check_aabb_overlap(valid)


@pytest.mark.parametrize("valid", [
    lambda boxes: {(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                   if overlap_reference(boxes[i], boxes[j])},                                  # a set
    lambda boxes: [[i, j] for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                   if overlap_reference(boxes[i], boxes[j])][::-1],                            # lists, reversed
])
def test_pairs_valid_alternatives_pass(valid):
    check_all_pairs(valid)


# -- every check accepts the reference solution written in its notebook ------------------------
import contextlib  # noqa: E402
import io  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

import nbformat  # noqa: E402

_ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_ROOT / "tools"))
import make_student  # noqa: E402

_IMPORT = re.compile(r"^(import [\w., ]+( as \w+)?|from [\w.]+ import [\w, ]+( as \w+)?)\s*$")


def _exercises():
    out = []
    for path in sorted((_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        for i, cell in enumerate(code):
            if make_student.is_exercise(cell) and i + 1 < len(code):
                out.append(pytest.param(path, i, id=f"{path.stem[:2]}-{cell.metadata.get('nbgrader', {}).get('grade_id', i)}"))
    return out


@pytest.mark.parametrize("path, index", _exercises())
def test_every_check_accepts_the_reference_solution_of_its_notebook(path, index):
    """The notebook's own solution (the code between the SOLUTION markers) passes its check cell.

    The namespace holds the notebook's one-line imports and every exercise cell up to this one
    (later exercises use earlier ones, e.g. all_pairs uses aabb_overlap), as in the lesson.
    """
    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    ns: dict = {}
    for cell in code:
        for line in cell.source.splitlines():
            if _IMPORT.match(line):
                with contextlib.suppress(Exception):
                    exec(line, ns)
    for cell in code[: index + 1]:
        if make_student.is_exercise(cell):
            exec(cell.source, ns)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(code[index + 1].source, ns)
    assert "pass" in out.getvalue() or "agrees" in out.getvalue() or "matches" in out.getvalue() \
        or "reports each" in out.getvalue() or "read all" in out.getvalue()

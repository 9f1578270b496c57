"""Lesson 15's check: the reference-point rule passes, the stub fails, and named typical mistakes fail with their hint."""
import math

import numpy as np
import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed
from lessons_lib.checks.partitioned import KEEPS_PAIR_MISTAKES


def reference(cell, box_a, box_b):
    x, y = max(box_a[0], box_b[0]), max(box_a[1], box_b[1])
    return cell[0] <= x < cell[2] and cell[1] <= y < cell[3]


def stub(cell, box_a, box_b):
    raise NotImplementedError


def test_reference_passes(capsys):
    checks.check_keeps_pair(reference)
    out = capsys.readouterr().out
    assert "exactly once" in out and "edge cases" in out


def test_numpy_bools_are_accepted():
    checks.check_keeps_pair(lambda c, a, b: np.bool_(reference(c, a, b)))


def test_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_keeps_pair(stub)


@pytest.mark.parametrize("name, words", [
    ("closed cell", "reported twice"),
    ("open cell", "inside no cell"),
    ("corner of the union", "two boxes taken together"),
    ("corner of box a", "box_a alone"),
    ("upper-right corner", "upper-right corner"),
    ("x only", "Test y the same way"),
])
def test_typical_mistakes_fail_with_their_hint(name, words):
    rule, _ = KEEPS_PAIR_MISTAKES[name]
    with pytest.raises(CheckFailed, match=f"Hint: .*{words}") as failed:
        checks.check_keeps_pair(rule)
    message = str(failed.value)
    # the student never sees KEEPS_PAIR_MISTAKES: no message names it; and no message prints the rule
    assert "the mistake called" not in message
    assert "max(" not in message and "min(" not in message


def test_mistakes_are_really_wrong():
    """Each named mistake loses or duplicates some pair (none is an equally good rule in disguise)."""
    assert len(KEEPS_PAIR_MISTAKES) >= 3
    for name, (rule, _) in KEEPS_PAIR_MISTAKES.items():
        with pytest.raises(CheckFailed):
            checks.check_keeps_pair(rule)


def test_other_wrong_answers():
    with pytest.raises(CheckFailed, match="must return True or False"):
        checks.check_keeps_pair(lambda c, a, b: "yes")
    # answers that match no typical mistake: the input, what was expected and what came back, no hint
    for wrong in (lambda c, a, b: True,
                  lambda c, a, b: c[0] <= (max(a[0], b[0]) + min(a[2], b[2])) / 2 < c[2]   # the intersection's centre
                  and c[1] <= (max(a[1], b[1]) + min(a[3], b[3])) / 2 < c[3]):
        with pytest.raises(CheckFailed, match="should be reported by the .* cell only; your keeps_pair says") as failed:
            checks.check_keeps_pair(wrong)
        assert "Hint" not in str(failed.value) and "max(" not in str(failed.value)


def test_a_rule_right_on_the_grid_but_wrong_in_the_join_fails():
    """Right on the 2 x 2 grid of the edge cases (cuts at 10), wrong for other cells: the whole-join part catches it."""
    def grid_only(cell, a, b):
        x, y = max(a[0], b[0]), max(a[1], b[1])
        x0 = -math.inf if cell[0] < 10 else 10.0  # pretends every cell is one of the 2 x 2 grid's
        x1 = 10.0 if cell[2] <= 10 else math.inf
        y0 = -math.inf if cell[1] < 10 else 10.0
        y1 = 10.0 if cell[3] <= 10 else math.inf
        return x0 <= x < x1 and y0 <= y < y1
    with pytest.raises(CheckFailed, match="in a join over"):
        checks.check_keeps_pair(grid_only)


def test_a_crash_names_the_case():
    def crashes_on_infinite_cells(cell, a, b):
        if math.isinf(cell[0]) or math.isinf(cell[2]):
            raise OverflowError("cannot handle an infinite side")
        return reference(cell, a, b)
    with pytest.raises(CheckFailed, match=r"raised OverflowError: cannot handle an infinite side on two boxes inside "
                                          r"one cell, the lower left cell: keeps_pair\(\(-inf, -inf, 10, 10\)"):
        checks.check_keeps_pair(crashes_on_infinite_cells)


def test_valid_alternatives_pass():
    """Other ways to write the rule: the reference point named, the comparisons chained differently."""
    def by_point(cell, a, b):
        px, py = (a[0] if a[0] >= b[0] else b[0]), (a[1] if a[1] >= b[1] else b[1])
        return bool(not (px < cell[0] or px >= cell[2] or py < cell[1] or py >= cell[3]))

    def with_numpy(cell, a, b):
        p = np.maximum(np.asarray(a[:2]), np.asarray(b[:2]))
        return np.all((np.asarray(cell[:2]) <= p) & (p < np.asarray(cell[2:])))

    checks.check_keeps_pair(by_point)
    checks.check_keeps_pair(with_numpy)

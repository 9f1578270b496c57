"""The strict helpers every exercise check is built on (lessons_lib.checks.common)."""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib.checks.common import (
    CheckFailed,
    adversarial_boxes,
    expect_ids,
    expect_int,
    expect_ints,
    expect_number,
    expect_pairs,
    fmt,
    num,
    random_world,
    run_student,
)


def test_run_student_reports_stub_exception_none_and_mutation():
    def stub(x):
        raise NotImplementedError

    def boom(x):
        return 1 / 0

    def forgot_return(x):
        x + 1

    def clears(xs):
        xs.clear()
        return 0

    def sorts_in_place(a):
        a.sort()
        return a[0]

    with pytest.raises(CheckFailed, match="stub is not written yet"):
        run_student(stub, 1)
    with pytest.raises(CheckFailed, match="boom raised ZeroDivisionError"):
        run_student(boom, 1)
    with pytest.raises(CheckFailed, match="forgot_return returned None: did you forget"):
        run_student(forgot_return, 1)
    with pytest.raises(CheckFailed, match="clears changed its argument number 1 in place"):
        run_student(clears, [1, 2])
    with pytest.raises(CheckFailed, match="sorts_in_place changed its argument number 1"):
        run_student(sorts_in_place, np.array([3, 1, 2]))
    assert run_student(sorts_in_place, np.array([3, 1, 2]), may_change=(0,)) == 1
    assert run_student(forgot_return, 1, may_return_none=True) is None


def test_run_student_gives_copies():
    data = [1, 2, 3]
    run_student(lambda xs: xs.append(4) or 0, data, may_change=(0,))
    assert data == [1, 2, 3]


def test_num_keeps_the_digits_that_matter():
    assert num(1.000001) == "1.000001" and num(2.0) == "2" and num(np.int64(7)) == "7"
    assert fmt((0.5, 1.0, 1e-7, 3)) == "(0.5, 1, 1e-07, 3)"


def test_expect_int_refuses_floats_bools_and_strings():
    assert expect_int(np.int32(3), "c") == 3
    for bad in (3.0, True, "3", None):
        with pytest.raises(CheckFailed, match="c must be an integer"):
            expect_int(bad, "c")
    assert expect_ints([1, 2], 2, "range") == (1, 2)
    with pytest.raises(CheckFailed):
        expect_ints(np.array([1.0, 2.0]), 2, "range")
    with pytest.raises(CheckFailed):
        expect_ints((1, 2, 3), 2, "range")


def test_expect_number_refuses_nan_and_strings():
    assert expect_number(np.float32(0.5), "x") == 0.5
    for bad in (float("nan"), "0.5", None, False):
        with pytest.raises(CheckFailed):
            expect_number(bad, "x")


@pytest.mark.parametrize("bad, message", [
    ([(1, 0)], "smaller index first"),
    ([(0, 1), (0, 1)], "twice"),
    ([(2, 2)], "with itself"),
    ([(0, 1.0)], "must be an integer"),
    ([(0, 1, 2)], "two indices"),
    ([(0, 9)], "indices run from 0 to 2"),
    (np.array([[0.0, 1.0]]), "dtype"),
    ("01", "list of"),
])
def test_expect_pairs_refuses_what_a_set_of_pairs_is_not(bad, message):
    with pytest.raises(CheckFailed, match=message):
        expect_pairs(bad, "the pairs", n=3)


def test_expect_pairs_unordered_and_arrays():
    assert expect_pairs([(1, 0), (2, 1)], "p", ordered=False) == {(0, 1), (1, 2)}
    with pytest.raises(CheckFailed, match="twice"):
        expect_pairs([(1, 0), (0, 1)], "p", ordered=False)
    assert expect_pairs(np.array([[0, 2]], np.int64), "p") == {(0, 2)}
    assert expect_pairs([], "p") == set()


def test_expect_ids():
    assert expect_ids(np.array([3, 1]), "hits") == [1, 3]
    with pytest.raises(CheckFailed, match="more than once"):
        expect_ids([1, 1], "hits")
    with pytest.raises(CheckFailed):
        expect_ids([1.0], "hits")


def test_adversarial_boxes_are_valid_and_irregular():
    cases = adversarial_boxes(seed=3, world=(-12.5, 3.25, 87.5, 70.0))
    names = [n for n, _ in cases]
    assert names[0] == "no boxes at all" and len(cases[0][1]) == 0
    for name, b in cases:
        assert b.dtype == np.float64 and b.shape[1] == 4, name
        assert (b[:, 0] <= b[:, 2]).all() and (b[:, 1] <= b[:, 3]).all(), name
    everything = np.concatenate([b for _, b in cases])
    assert (everything < 0).any() and not np.all(everything == np.round(everything))


def test_random_world_is_irregular():
    rng = np.random.default_rng(0)
    for _ in range(50):
        x0, y0, x1, y1 = random_world(rng, cell_size=10.0)
        assert x1 > x0 and y1 > y0
        assert not ((x1 - x0) / 10.0).is_integer() and not ((y1 - y0) / 10.0).is_integer()


# -- what issue 33 added: crashes name their input, None after a value, exact ints, proven hints, row reads ----
from lessons_lib.checks.common import Mistakes, RowReads, proven_hint  # noqa: E402


def test_a_crash_names_the_input_that_caused_it():
    def crashes_on_empty(xs):
        return xs[0]

    with pytest.raises(CheckFailed, match=r"crashes_on_empty raised IndexError: .* on the empty list \[\]"):
        run_student(crashes_on_empty, [], case="the empty list []")


def test_none_after_a_value_is_not_called_a_forgotten_return():
    def none_for_negatives(x):
        if x >= 0:
            return x

    assert run_student(none_for_negatives, 3, case="x = 3") == 3
    with pytest.raises(CheckFailed, match="returned None on x = -1, though it returned a value for other inputs") as e:
        run_student(none_for_negatives, -1, case="x = -1")
    assert "forget" not in str(e.value)


def test_expect_int_exact_refuses_numpy_integers():
    assert expect_int(np.int64(3), "c") == 3
    with pytest.raises(CheckFailed, match="must be a Python int, got np.int64"):
        expect_int(np.int64(3), "c", exact=True)
    assert expect_int(3, "c", exact=True) == 3
    with pytest.raises(CheckFailed, match="Python int"):
        expect_ids([1, np.int32(2)], "ids", exact=True)
    with pytest.raises(CheckFailed, match="list of ints, got a NumPy array"):
        expect_ids(np.array([1, 2]), "ids", exact=True)
    with pytest.raises(CheckFailed, match="Python int"):
        expect_pairs([(0, np.int64(1))], "pairs", exact=True)


def test_a_hint_only_when_the_answer_proves_one_mistake():
    cands = [("A", 1), ("B", 2), ("C", 2), ("D", 5)]
    assert proven_hint(1, 0, cands) == "A"
    assert proven_hint(2, 0, cands) == ""        # two mistakes give 2: the input cannot tell them apart
    assert proven_hint(7, 0, cands) == ""        # no mistake gives 7: facts only
    assert proven_hint(5, 5, cands) == ""        # a "mistake" that gives the expected answer proves nothing
    m = Mistakes()
    m.passed(0, [("B", 0), ("C", 9)])            # a case passed where mistake C would have answered 9: not C
    assert m.hint(2, 0, cands) == "B"


def test_row_reads_records_every_way_of_reading_rows():
    log = []
    a = RowReads(np.arange(20.0).reshape(5, 4), log)
    a[2]
    a[3, 1]
    a[[0, 4]]
    assert log == [2, 3, 0, 4]
    log.clear()
    a[:, 0]
    assert log == [0, 1, 2, 3, 4]
    log.clear()
    row = a[1]
    row[0]                                       # what a read returns is plain: it records nothing
    assert log == [1] and type(row) is np.ndarray
    log.clear()
    _ = a <= 3
    list(iter(a))
    assert log == [0, 1, 2, 3, 4] * 2

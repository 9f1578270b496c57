"""Lesson 08's exercise checks pass the reference, fail the stub, and fail plausible wrong answers."""
import pytest

from lessons_lib.checks import (
    CheckFailed,
    check_count_bracket_overlaps,
    check_endpoint_key,
    check_list_bracket_overlaps,
)


# -- exercise 1: count the overlaps in a bracket string ------------------------
def count_reference(s):
    depth = count = 0
    for ch in s:
        if ch == "[":
            count += depth
            depth += 1
        else:
            depth -= 1
    return count


def count_stub(s):
    raise NotImplementedError


def count_includes_itself(s):  # adds the depth after pushing
    depth = count = 0
    for ch in s:
        if ch == "[":
            depth += 1
            count += depth
        else:
            depth -= 1
    return count


def count_adjacent_only(s):  # only an interval opened right after another
    return s.count("[[")


def count_returns_float(s):
    return float(count_reference(s))


def test_count_reference_passes(capsys):
    check_count_bracket_overlaps(count_reference)
    assert "passed" in capsys.readouterr().out


def test_count_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_count_bracket_overlaps(count_stub)


@pytest.mark.parametrize("wrong, message", [
    (count_includes_itself, "does not overlap itself"),
    (count_adjacent_only, "every interval still open"),
    (count_returns_float, "return an int"),
])
def test_count_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_count_bracket_overlaps(wrong)


# -- exercise 2: list the overlapping pairs of named intervals -----------------
def list_reference(tokens):
    open_, out = [], []
    for ch, name in tokens:
        if ch == "[":
            out += [(min(i, name), max(i, name)) for i in open_]
            open_.append(name)
        else:
            open_.remove(name)
    return out


def list_stub(tokens):
    raise NotImplementedError


def list_pop_top(tokens):  # closes the most recent interval, whatever ']' names
    open_, out = [], []
    for ch, name in tokens:
        if ch == "[":
            out += [(min(i, name), max(i, name)) for i in open_]
            open_.append(name)
        else:
            open_.pop()
    return out


def list_top_only(tokens):  # pairs a new interval with the last one opened only
    open_, out = [], []
    for ch, name in tokens:
        if ch == "[":
            if open_:
                out.append((min(open_[-1], name), max(open_[-1], name)))
            open_.append(name)
        else:
            open_.remove(name)
    return out


def list_unordered(tokens):  # (open, new) without ordering the names
    open_, out = [], []
    for ch, name in tokens:
        if ch == "[":
            out += [(name, i) for i in open_]
            open_.append(name)
        else:
            open_.remove(name)
    return out


def test_list_reference_passes(capsys):
    check_list_bracket_overlaps(list_reference)
    assert "passed" in capsys.readouterr().out


def test_list_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_list_bracket_overlaps(list_stub)


@pytest.mark.parametrize("wrong, message", [
    (list_pop_top, "do not just pop the top"),
    (list_top_only, "every\\* open interval"),
    (list_unordered, "smaller name first"),
])
def test_list_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_list_bracket_overlaps(wrong)


def test_list_bad_return_type_fails():
    with pytest.raises(CheckFailed, match="list of \\(i, j\\)"):
        check_list_bracket_overlaps(lambda tokens: 3)


# -- exercise 3: the endpoint sort key -----------------------------------------
def key_reference(coord, is_max):
    return (coord, is_max)


def key_stub(coord, is_max):
    raise NotImplementedError


def key_coordinate_only(coord, is_max):  # ties left to chance (here: maxes first)
    return coord


def key_max_first(coord, is_max):  # open boxes semantics: close before opening
    return (coord, not is_max)


def key_string(coord, is_max):  # sorts "10.0" before "2.0"
    return f"{coord}{int(is_max)}"


def test_key_reference_passes(capsys):
    check_endpoint_key(key_reference)
    assert "touching" in capsys.readouterr().out


def test_key_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_endpoint_key(key_stub)


@pytest.mark.parametrize("wrong, message", [
    (key_coordinate_only, "touching at x = 2.*at a tie"),
    (key_max_first, "touching at x = 2.*at a tie"),
    (key_string, "x = 10"),
])
def test_key_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_endpoint_key(wrong)


def test_key_incomparable_fails():
    with pytest.raises(CheckFailed, match="could not be compared"):
        check_endpoint_key(lambda c, m: None if m else (c,))

"""Lesson 08's exercise checks pass the reference, fail the stub, and fail typical wrong answers, each named."""
import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_count_bracket_overlaps, check_insertion_repair, check_sweep


def stub(*args):
    raise NotImplementedError


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


def count_includes_itself(s):  # adds the depth after opening
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


def count_forgets_return(s):
    count_reference(s)


def test_count_reference_passes(capsys):
    check_count_bracket_overlaps(count_reference)
    assert "passed" in capsys.readouterr().out


def test_count_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_count_bracket_overlaps(stub)


@pytest.mark.parametrize("wrong, message", [
    (count_includes_itself, "does not overlap itself"),
    (count_adjacent_only, "every interval still open"),
    (count_returns_float, "must be an integer"),
    (count_forgets_return, "returned None"),
])
def test_count_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_count_bracket_overlaps(wrong)


# -- exercise 2: the sweep on the structure's arrays ---------------------------
def make_sweep(strict=False, same_axis=False, keep_open=False, pop_last=False, unordered=False,
               every_row=False, max_is_min=False, tests_off=False, as_list=False, mutate=False):
    def sweep(keys, codes, boxes, axis):
        if mutate:
            codes.sort()
        other = axis if same_axis else 1 - axis
        if every_row:  # brute force over the rows of boxes, freed slots included
            pairs = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                     if boxes[i, 0] <= boxes[j, 2] and boxes[j, 0] <= boxes[i, 2]
                     and boxes[i, 1] <= boxes[j, 3] and boxes[j, 1] <= boxes[i, 3]]
            return pairs, len(boxes) * (len(boxes) - 1) // 2
        open_, pairs, tests = [], [], 0
        for c in codes.tolist():
            s = c >> 1
            is_max = (c & 1) == 1
            if max_is_min:
                is_max = not is_max
            if not is_max:
                for a in open_:
                    tests += 1
                    lo_ok = boxes[a, other] < boxes[s, other + 2] if strict else boxes[a, other] <= boxes[s, other + 2]
                    hi_ok = boxes[s, other] < boxes[a, other + 2] if strict else boxes[s, other] <= boxes[a, other + 2]
                    if lo_ok and hi_ok:
                        pairs.append((a, s) if unordered else (min(a, s), max(a, s)))
                open_.append(s)
            elif not keep_open:
                if pop_last:
                    open_.pop()
                elif s in open_:
                    open_.remove(s)
        if as_list:
            return [pairs, tests]
        return pairs, tests + (1 if tests_off and tests else 0)
    return sweep


def test_sweep_reference_passes(capsys):
    check_sweep(make_sweep())
    out = capsys.readouterr().out
    assert "passed" in out and "plugged into SweepAndPrune" in out


def test_sweep_stub_fails():
    with pytest.raises(CheckFailed, match="sweep is not written yet"):
        check_sweep(stub)


@pytest.mark.parametrize("mistake, message", [
    ("strict", "only touch along"),                          # < instead of <= on the other axis
    ("same_axis", "test that decides is on the other axis"),  # tests the sweep axis again
    ("keep_open", "leaves the open set at its max endpoint"),  # never closes a box
    ("pop_last", "not always the one opened last"),          # closes the box opened last
    ("unordered", "smaller index first"),                     # (open, new) instead of (min, max)
    ("every_row", "holds no box of the structure"),           # brute force over the rows, freed slots too
    ("max_is_min", "found"),                                  # reads is_max the wrong way round
    ("tests_off", "tests, expected"),                         # a wrong count of tests
    ("as_list", "return a tuple"),                            # [pairs, tests]
    ("mutate", "changed its argument number 2 in place"),     # sorts the codes it was given
])
def test_sweep_wrong_answers_fail(mistake, message):
    with pytest.raises(CheckFailed, match=message):
        check_sweep(make_sweep(**{mistake: True}))


def test_sweep_none_and_float_pairs_are_reported():
    with pytest.raises(CheckFailed, match="returned None"):
        check_sweep(lambda keys, codes, boxes, axis: None)
    with pytest.raises(CheckFailed, match="must be an integer"):
        check_sweep(lambda keys, codes, boxes, axis: ([(0.0, 1.0)], 1))


# -- exercise 3: insertion-sort repair, counting swaps -------------------------
def make_repair(walk_past_equal=False, ignore_ties=False, count_movers=False, rebind=False, keys_only=False,
                count_positions=False, no_return=False, float_swaps=False):
    def insertion_repair(keys, codes):
        if rebind:  # sorts copies, the caller's arrays stay as they were
            order = np.lexsort((codes & 1, keys))
            keys, codes = keys[order], codes[order]
            return 0
        if count_positions:  # a full sort, and the number of endpoints whose position changed
            order = np.lexsort((codes & 1, keys))
            keys[:], codes[:] = keys[order], codes[order]
            return int((order != np.arange(len(order))).sum())
        swaps = 0
        for t in range(1, len(keys)):
            k, c = keys[t], codes[t]
            u = t - 1
            while u >= 0 and (keys[u] > k or (not ignore_ties and keys[u] == k and (
                    (codes[u] & 1) >= (c & 1) if walk_past_equal else (codes[u] & 1) > (c & 1)))):
                keys[u + 1] = keys[u]
                if not keys_only:
                    codes[u + 1] = codes[u]
                u -= 1
            keys[u + 1] = k
            if not keys_only:
                codes[u + 1] = c
            swaps += min(1, t - 1 - u) if count_movers else t - 1 - u
        if no_return:
            return None
        return float(swaps) if float_swaps else swaps
    return insertion_repair


def test_repair_reference_passes(capsys):
    check_insertion_repair(make_repair())
    out = capsys.readouterr().out
    assert "passed" in out and "update_many" in out


def test_repair_stub_fails():
    with pytest.raises(CheckFailed, match="insertion_repair is not written yet"):
        check_insertion_repair(stub)


@pytest.mark.parametrize("mistake, message", [
    ("walk_past_equal", "endpoints that compare equal changed places"),  # >= : unstable, too many swaps
    ("ignore_ties", "a min must come before a max"),                          # compares coordinates only
    ("count_movers", "not once per endpoint that moves"),                 # one per endpoint, not per step
    ("rebind", "left the arrays exactly as they were"),                   # sorts a copy
    ("keys_only", "its code must move with it"),                          # codes left behind
    ("count_positions", "swaps, expected"),                               # a full sort, positions changed
    ("no_return", "returned None"),
    ("float_swaps", "must be an integer"),
])
def test_repair_wrong_answers_fail(mistake, message):
    with pytest.raises(CheckFailed, match=message):
        check_insertion_repair(make_repair(**{mistake: True}))


# == issue 33: each kind of wrong answer that used to pass, and valid alternatives that must ==========
from lessons_lib.labs.sweep import count_inversions  # noqa: E402


def _must_pass(keys, codes, u, k, c):
    return keys[u] > k or (keys[u] == k and (codes[u] & 1) > (c & 1))


# -- method not checked: a full sort, with the inversions counted apart --------------------------------
def repair_full_sort(keys, codes):
    swaps = int(count_inversions(keys, codes))
    order = np.lexsort((codes & 1, keys))
    keys[:], codes[:] = keys[order], codes[order]
    return swaps


def repair_sorted_then_written_one_by_one(keys, codes):
    swaps = int(count_inversions(keys, codes))
    order = np.lexsort((codes & 1, keys))
    ks, cs = keys[order].copy(), codes[order].copy()
    for i in range(len(ks)):
        keys[i], codes[i] = ks[i], cs[i]
    return swaps


def repair_selection_sort(keys, codes):
    swaps = int(count_inversions(keys, codes))
    for i in range(len(keys)):
        j = min(range(i, len(keys)), key=lambda j: (keys[j], codes[j] & 1, j))
        keys[i], keys[j] = keys[j], keys[i]
        codes[i], codes[j] = codes[j], codes[i]
    return swaps


@pytest.mark.parametrize("wrong, message", [
    (repair_full_sort, "not by insertion sort: in one assignment .* endpoints jumped"),
    (repair_sorted_then_written_one_by_one, "not by insertion sort: it wrote the .* while that endpoint still sat"),
    (repair_selection_sort, "not by insertion sort"),
])
def test_a_sort_that_is_not_an_insertion_sort_fails(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_insertion_repair(wrong)


# -- messages ------------------------------------------------------------------------------------------
def test_a_repair_that_writes_in_place_is_not_told_to_write_in_place():
    def compares_codes_only(keys, codes):  # writes every endpoint back where it was: in place, but sorts nothing
        for t in range(len(keys)):
            keys[t], codes[t] = keys[t], codes[t]
        return 0
    with pytest.raises(CheckFailed, match="exactly as they were") as e:
        check_insertion_repair(compares_codes_only)
    assert "write into keys" not in str(e.value) and "never assigned" not in str(e.value)


def test_types_where_an_int_is_asked():
    with pytest.raises(CheckFailed, match="must be a Python int"):
        check_count_bracket_overlaps(lambda s: np.int64(count_reference(s)))
    with pytest.raises(CheckFailed, match="must be a Python int"):
        check_insertion_repair(lambda k, c: np.int64(make_repair()(k, c)))
    with pytest.raises(CheckFailed, match="must be a Python int"):
        check_sweep(lambda keys, codes, boxes, axis: (make_sweep()(keys, codes, boxes, axis)[0],
                                                      np.int64(make_sweep()(keys, codes, boxes, axis)[1])))


def test_a_crash_names_the_structure_and_the_endpoints():
    def crashes_on_empty(keys, codes, boxes, axis):
        if len(codes) == 0:
            return [], codes[0]
        return make_sweep()(keys, codes, boxes, axis)
    with pytest.raises(CheckFailed, match=r"sweep raised IndexError: .* on no boxes at all, sweep axis x \(0 endpoints: "
                                          r"keys \[\], codes \[\]\)"):
        check_sweep(crashes_on_empty)


def test_bracket_count_hint_only_when_proven():
    with pytest.raises(CheckFailed, match="expected") as e:
        check_count_bracket_overlaps(lambda s: max(0, count_reference(s) - 1))  # matches no typical mistake
    assert "Hint" not in str(e.value)


# -- valid alternatives pass ---------------------------------------------------------------------------
def repair_by_swaps(keys, codes):
    swaps = 0
    for t in range(1, len(keys)):
        u = t - 1
        while u >= 0 and _must_pass(keys, codes, u, keys[u + 1], codes[u + 1]):
            keys[u], keys[u + 1] = keys[u + 1], keys[u]
            codes[u], codes[u + 1] = codes[u + 1], codes[u]
            u -= 1
            swaps += 1
    return swaps


def repair_by_block_shift(keys, codes):
    swaps = 0
    for t in range(1, len(keys)):
        k, c = keys[t], codes[t]
        u = t - 1
        while u >= 0 and _must_pass(keys, codes, u, k, c):
            u -= 1
        if u + 1 < t:
            keys[u + 2:t + 1] = keys[u + 1:t]
            codes[u + 2:t + 1] = codes[u + 1:t]
            keys[u + 1], codes[u + 1] = k, c
            swaps += t - 1 - u
    return swaps


def repair_by_roll(keys, codes):
    swaps = 0
    for t in range(1, len(keys)):
        u = t - 1
        while u >= 0 and _must_pass(keys, codes, u, keys[t], codes[t]):
            u -= 1
        if u + 1 < t:
            keys[u + 1:t + 1] = np.roll(keys[u + 1:t + 1], 1)
            codes[u + 1:t + 1] = np.roll(codes[u + 1:t + 1], 1)
            swaps += t - 1 - u
    return swaps


def sweep_with_a_set(keys, codes, boxes, axis):
    other, open_, found, tests = 1 - axis, set(), set(), 0
    for code in codes:
        s = int(code) >> 1
        if code & 1:
            open_.discard(s)
            continue
        for a in open_:
            tests += 1
            if boxes[a, other] <= boxes[s, other + 2] and boxes[s, other] <= boxes[a, other + 2]:
                found.add((min(a, s), max(a, s)))
        open_.add(s)
    return list(found), tests


@pytest.mark.parametrize("check, valid", [
    (check_insertion_repair, repair_by_swaps),
    (check_insertion_repair, repair_by_block_shift),
    (check_insertion_repair, repair_by_roll),
    (check_sweep, sweep_with_a_set),
    (check_count_bracket_overlaps, lambda s: sum(s[:i].count("[") - s[:i].count("]") for i, ch in enumerate(s) if ch == "[")),
])
def test_valid_alternatives_pass(check, valid):
    check(valid)

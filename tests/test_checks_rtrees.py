"""Exercise checks of lessons 09-10 pass the reference, fail the stub, and fail typical wrong answers, each named."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed
from lessons_lib.structures.curves import morton_encode


def stub(*args):
    raise NotImplementedError


def area(b):
    return (b[2] - b[0]) * (b[3] - b[1])


# -- lesson 09, warm-up: the enlargement ---------------------------------------
def enlargement_reference(box, entry):
    x0, y0 = min(box[0], entry[0]), min(box[1], entry[1])
    x1, y1 = max(box[2], entry[2]), max(box[3], entry[3])
    return (x1 - x0) * (y1 - y0) - area(box)


def test_enlargement_reference_passes(capsys):
    checks.check_enlargement(enlargement_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (lambda b, e: enlargement_reference(b, e) + area(b), "subtract the area the box had before"),  # union area
    (lambda b, e: area(e), "not the entry's own area"),
    (lambda b, e: max(0.0, area(e) - area(b)), "expected"),                         # difference of the two areas
    (lambda b, e: (max(b[2], e[2]) - b[0]) * (max(b[3], e[3]) - b[1]) - area(b), "expected"),  # grows only up-right
    (lambda b, e: str(enlargement_reference(b, e)), "must be a number"),
])
def test_enlargement_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_enlargement(wrong)


# -- lesson 09, core: ChooseLeaf on the tree's arrays --------------------------
def make_choose_leaf(rule="guttman"):
    def choose_leaf(box, level, count, child, root, entry):
        if root < 0:
            return -1
        v = root
        while level[v] > (1 if rule == "stops_above_leaves" else 0):
            kids = child[v] if rule == "whole_row" else child[v, : count[v]]
            best, best_key = -1, None
            for c in kids:
                e, a = enlargement_reference(box[c], entry), area(box[c])
                key = {"smallest_area": (a,), "no_area_tie": (e,)}.get(rule, (e, a))
                if best_key is None or (key <= best_key if rule == "last_on_ties" else key < best_key):
                    best, best_key = c, key
            v = best
        return int(v) if rule != "float" else float(v)
    return choose_leaf


def test_choose_leaf_reference_passes(capsys):
    checks.check_choose_leaf(make_choose_leaf())
    assert "passed" in capsys.readouterr().out


def test_choose_leaf_stub_fails():
    with pytest.raises(CheckFailed, match="choose_leaf is not written yet"):
        checks.check_choose_leaf(stub)


@pytest.mark.parametrize("rule, message", [
    ("smallest_area", "least enlargement decides"),         # area instead of enlargement
    ("no_area_tie", "the one with the smaller area wins"),   # no tie-break on area
    ("last_on_ties", "keep the child listed first"),         # <= keeps the last of equal children
    ("whole_row", "leftovers, not children"),                # reads child[v] past count[v]
    ("stops_above_leaves", "keep descending"),               # returns a level-1 node
    ("float", "must be an integer"),
])
def test_choose_leaf_wrong_answers_fail(rule, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_choose_leaf(make_choose_leaf(rule))


def test_choose_leaf_empty_tree_and_none():
    def crashes_when_empty(box, level, count, child, root, entry):
        if root < 0:
            raise IndexError("no root")
        return make_choose_leaf()(box, level, count, child, root, entry)

    with pytest.raises(CheckFailed, match="raised IndexError"):
        checks.check_choose_leaf(crashes_when_empty)
    with pytest.raises(CheckFailed, match="returned None"):
        checks.check_choose_leaf(lambda *a: None)


# -- lesson 09: PickSeeds --------------------------------------------------------
def make_pick_seeds(rule="guttman"):
    def pick_seeds(b):
        best, seeds = (0.0 if rule == "starts_at_zero" else -np.inf), (0, 1)
        for i in range(len(b)):
            for j in range(i + 1, len(b)):
                J = (min(b[i][0], b[j][0]), min(b[i][1], b[j][1]), max(b[i][2], b[j][2]), max(b[i][3], b[j][3]))
                d = area(J) if rule == "largest_union" else area(J) - area(b[i]) - area(b[j])
                if d >= best if rule == "last_on_ties" else d > best:
                    best, seeds = d, ((j, i) if rule == "reversed" else (i, j))
        return seeds
    return pick_seeds


def test_pick_seeds_reference_passes(capsys):
    checks.check_pick_seeds(make_pick_seeds())
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (make_pick_seeds("largest_union"), "largest covering box"),
    (make_pick_seeds("starts_at_zero"), "every waste is negative"),
    (make_pick_seeds("last_on_ties"), "keep the first pair found"),
    (make_pick_seeds("reversed"), "smaller index first"),
    (lambda b: 0, "must be a tuple of 2 integers"),
])
def test_pick_seeds_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_pick_seeds(wrong)


# -- lesson 10: STR --------------------------------------------------------------
def test_str_reference_passes(capsys):
    checks.check_str_level(checks.str_level_reference)
    assert "passed" in capsys.readouterr().out


def x_only(c, M):
    o = np.argsort(c[:, 0], kind="stable")
    return [o[a:a + M] for a in range(0, len(c), M)]


def make_str(ties="stable", slices="ceil"):
    """The textbook steps with one knob turned: equal x in reverse order, or S = floor(sqrt(P))."""
    def str_level(c, M):
        k = len(c)
        if k == 0:
            return []
        P = math.ceil(k / M)
        S = math.ceil(math.sqrt(P)) if slices == "ceil" else max(1, math.isqrt(P))
        by_x = np.argsort(c[:, 0], kind="stable") if ties == "stable" else np.argsort(-c[:, 0], kind="stable")[::-1]
        groups = []
        for first in range(0, k, S * M):
            part = by_x[first:first + S * M]
            part = part[np.argsort(c[part, 1], kind="stable")]
            groups += [part[a:a + M] for a in range(0, len(part), M)]
        return groups
    return str_level


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (x_only, "sort each slice by y"),
    (make_str(ties="reversed"), "group"),   # equal x in the other order (an unstable sort)
    (make_str(slices="floor"), "group"),    # S = floor(sqrt(P))
    (lambda c, M: [np.array([i]) for i in range(len(c))], "groups, expected"),
    (lambda c, M: [np.arange(len(c))] * 2 if len(c) else [], "repeated"),
    (lambda c, M: [np.arange(len(c), dtype=float)] if len(c) else [], "integer ids"),
    (lambda c, M: [np.arange(len(c))], "groups, expected 0"),  # an empty group for no centres
    (lambda c, M: np.arange(len(c)), "list of groups"),
])
def test_str_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_str_level(wrong)


def test_str_reference_shape():
    c = np.random.default_rng(0).uniform(0, 1, (100, 2))
    g = checks.str_level_reference(c, 4)
    assert len(g) == 25 and sorted(np.concatenate(g).tolist()) == list(range(100))
    assert checks.str_level_reference(np.empty((0, 2)), 4) == []


# -- lesson 10: morton -----------------------------------------------------------
def test_morton_reference_passes(capsys):
    checks.check_morton(lambda x, y: int(morton_encode(x, y)))
    assert "passed" in capsys.readouterr().out


def eight_bits(x, y):
    return sum((((x >> i) & 1) << (2 * i)) | (((y >> i) & 1) << (2 * i + 1)) for i in range(8))


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (lambda x, y: int(morton_encode(y, x)), "x and y are swapped"),
    (lambda x, y: (y << 16) | x, "side by side"),
    (eight_bits, "the low 8 bits of x and y only"),
    (lambda x, y: float(morton_encode(x, y)), "must be an integer"),
])
def test_morton_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_morton(wrong)


# -- lesson 10, core: the k-d median split ---------------------------------------
def make_split(rule="select"):
    def median_split(perm, lo, hi, centres, axis):
        k = hi - lo
        keys = centres[perm[lo:hi], 1 - axis if rule == "other_axis" else axis]
        if rule == "full_sort":
            order = np.argsort(keys, kind="stable")
        elif rule == "lower_median":
            order = np.argpartition(keys, (k - 1) // 2)
        elif rule == "value_only":
            return float(np.partition(keys, k // 2)[k // 2])
        elif rule == "ignores_lo":
            keys = centres[perm[:k], axis]
            order = np.argpartition(keys, k // 2)
            perm[:k] = perm[:k][order]
            return float(centres[perm[k // 2], axis])
        elif rule == "average":
            order = np.argpartition(keys, k // 2)
            perm[lo:hi] = perm[lo:hi][order]
            return float(np.median(keys))
        else:
            order = np.argpartition(keys, k // 2)
        perm[lo:hi] = perm[lo:hi][order]
        if rule == "returns_position":
            return lo + k // 2
        h = (k - 1) // 2 if rule == "lower_median" else k // 2
        return float(centres[perm[lo + h], axis])
    return median_split


def quickselect(perm, lo, hi, centres, axis):
    """Quickselect with Lomuto's partition written out (another way than the library's)."""
    kth = lo + (hi - lo) // 2
    left, right = lo, hi - 1
    while left < right:
        middle = (left + right) // 2
        perm[middle], perm[right] = perm[right], perm[middle]
        pivot, store = centres[perm[right], axis], left
        for i in range(left, right):
            if centres[perm[i], axis] < pivot:
                perm[store], perm[i] = perm[i], perm[store]
                store += 1
        perm[right], perm[store] = perm[store], perm[right]
        if kth == store:
            break
        if kth < store:
            right = store - 1
        else:
            left = store + 1
    return float(centres[perm[kth], axis])


@pytest.mark.parametrize("reference", [make_split(), quickselect], ids=["argpartition", "quickselect"])
def test_median_split_references_pass(reference, capsys):
    checks.check_median_split(reference)
    assert "built the same leaves as KDTree" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (make_split("full_sort"), "sorted all 501 slots"),
    (make_split("lower_median"), "the upper of the two middle ones"),
    (make_split("value_only"), "left perm as it was"),
    (make_split("ignores_lo"), "outside perm"),
    (make_split("average"), "not an average"),
    (make_split("returns_position"), "that is a position"),
    (make_split("other_axis"), "expected the key of rank"),
    (lambda perm, lo, hi, centres, axis: None, "returned None"),
])
def test_median_split_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_median_split(wrong)


# == issue 33: each kind of wrong answer that used to pass, and valid alternatives that must ==========
# -- inputs too regular ----------------------------------------------------------------------------------
def str_pages_floor(c, M):
    """P = k // M (floor): right whenever k is a multiple of M, or the floor changes nothing."""
    k = len(c)
    if k == 0:
        return []
    P = max(1, k // M)
    S = math.ceil(math.sqrt(P))
    by_x = np.argsort(c[:, 0], kind="stable")
    groups = []
    for first in range(0, k, S * M):
        part = by_x[first:first + S * M]
        part = part[np.argsort(c[part, 1], kind="stable")]
        groups += [part[a:a + M] for a in range(0, len(part), M)]
    return groups


def median_selects_the_lower_rank(perm, lo, hi, centres, axis):
    """Selects rank (k - 1) // 2 and takes position k // 2: right while argpartition happens to sort its neighbour."""
    k = hi - lo
    keys = centres[perm[lo:hi], axis]
    order = np.argpartition(keys, (k - 1) // 2)
    perm[lo:hi] = perm[lo:hi][order]
    return float(centres[perm[lo + k // 2], axis])


@pytest.mark.parametrize("check, wrong, message", [
    (checks.check_str_level, str_pages_floor, "slices of 12 centres"),
    (checks.check_median_split, median_selects_the_lower_rank, "random distinct keys .*expected the key of rank"),
])
def test_wrong_answers_right_only_on_regular_inputs_fail(check, wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check(wrong)


def test_a_wrong_slice_count_is_not_told_to_sort_by_y():
    with pytest.raises(CheckFailed) as e:
        checks.check_str_level(make_str(slices="floor"))
    assert "sort each slice by y" not in str(e.value) and "ceil(" not in str(e.value)


# -- right by accident: entries past count[v] hold garbage ------------------------------------------------
def choose_leaf_one_past_count(box, level, count, child, root, entry):
    if root < 0:
        return -1
    v = root
    while level[v] > 0:
        best, best_key = -1, None
        for t in range(min(count[v] + 1, child.shape[1])):
            c = child[v, t]
            key = (enlargement_reference(box[c], entry), area(box[c]))
            if best_key is None or key < best_key:
                best, best_key = c, key
        v = best
    return int(v)


def test_choose_leaf_reading_past_count_fails_with_its_hint():
    with pytest.raises(CheckFailed, match="is not a node of the tree.*past count\\[v\\] in a row of child are leftovers"):
        checks.check_choose_leaf(choose_leaf_one_past_count)


# -- types -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("check, wrong, message", [
    (checks.check_choose_leaf, lambda *a: np.int64(make_choose_leaf()(*a)), "Python int"),
    (checks.check_morton, lambda x, y: np.int64(morton_encode(x, y)), "Python int"),
    (checks.check_str_level, lambda c, M: [g.tolist() for g in checks.str_level_reference(c, M)],
     "each group must be a 1-D NumPy array"),
])
def test_types_as_the_exercise_asks(check, wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check(wrong)


# -- messages --------------------------------------------------------------------------------------------
def test_pick_seeds_returning_none_is_told_the_facts():
    def waste_from_zero(b):
        best, seeds = 0.0, None
        for i in range(len(b)):
            for j in range(i + 1, len(b)):
                J = (min(b[i][0], b[j][0]), min(b[i][1], b[j][1]), max(b[i][2], b[j][2]), max(b[i][3], b[j][3]))
                if area(J) - area(b[i]) - area(b[j]) > best:
                    best, seeds = area(J) - area(b[i]) - area(b[j]), (i, j)
        return seeds
    with pytest.raises(CheckFailed, match="returned None on .*though it returned a pair for other inputs.*every pair's "
                                          "waste is negative") as e:
        checks.check_pick_seeds(waste_from_zero)
    assert "forget" not in str(e.value)


def test_morton_with_15_bits_is_told_15():
    def fifteen_bits(x, y):
        return sum((((x >> i) & 1) << (2 * i)) | (((y >> i) & 1) << (2 * i + 1)) for i in range(15))
    with pytest.raises(CheckFailed, match="low 15 bits") as e:
        checks.check_morton(fifteen_bits)
    assert "8 bits" not in str(e.value)


def test_a_crash_names_the_input():
    def no_empty(c, M):
        return [np.arange(len(c))[a:a + M] for a in range(0, len(c), max(0, int(math.sqrt(len(c) / M))) * M)]
    with pytest.raises(CheckFailed, match=r"str_level raised ValueError: range\(\) arg 3 must not be zero on no centres "
                                          r"at all, M = 4 \(centres = \[\], capacity = 4\)"):
        checks.check_str_level(no_empty)


# -- valid alternatives pass -----------------------------------------------------------------------------
def str_by_lexsort(c, M):
    """Slices from x ranks; inside each slice one lexsort by (y, x rank): the same stable order."""
    k = len(c)
    if not k:
        return []
    S = math.ceil(math.sqrt(math.ceil(k / M)))
    rank = np.empty(k, np.int64)
    rank[np.argsort(c[:, 0], kind="stable")] = np.arange(k)
    out = []
    for s in range(0, k, S * M):
        members = np.flatnonzero((rank >= s) & (rank < s + S * M))
        members = members[np.lexsort((rank[members], c[members, 1]))]
        out += [members[a:a + M] for a in range(0, len(members), M)]
    return out


def morton_by_magic_numbers(x, y):
    def spread(v):
        v = (v | (v << 8)) & 0x00FF00FF
        v = (v | (v << 4)) & 0x0F0F0F0F
        v = (v | (v << 2)) & 0x33333333
        return (v | (v << 1)) & 0x55555555
    return spread(x) | (spread(y) << 1)


def choose_leaf_vectorised(box, level, count, child, root, entry):
    if root < 0:
        return -1
    v = root
    e = np.asarray(entry)
    while level[v] > 0:
        kids = child[v, : count[v]]
        b = box[kids]
        grown = (np.maximum(b[:, 2], e[2]) - np.minimum(b[:, 0], e[0])) * (np.maximum(b[:, 3], e[3]) - np.minimum(b[:, 1], e[1]))
        own = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        v = kids[np.lexsort((np.arange(len(kids)), own, grown - own))[0]]
    return int(v)


def pick_seeds_vectorised(b):
    a = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lo, hi = np.minimum(b[:, None, :2], b[None, :, :2]), np.maximum(b[:, None, 2:], b[None, :, 2:])
    waste = np.prod(hi - lo, axis=2) - a[:, None] - a[None, :]
    waste[np.tril_indices(len(b))] = -np.inf
    i, j = np.unravel_index(np.argmax(waste), waste.shape)   # argmax: the first of equal ones, row by row
    return int(i), int(j)


@pytest.mark.parametrize("check, valid", [
    (checks.check_str_level, str_by_lexsort),
    (checks.check_morton, morton_by_magic_numbers),
    (checks.check_choose_leaf, choose_leaf_vectorised),
    (checks.check_pick_seeds, pick_seeds_vectorised),
    (checks.check_enlargement, lambda b, e: (max(b[2], e[2]) - min(b[0], e[0])) * (max(b[3], e[3]) - min(b[1], e[1]))
     - (b[2] - b[0]) * (b[3] - b[1])),
])
def test_valid_alternatives_pass(check, valid):
    check(valid)

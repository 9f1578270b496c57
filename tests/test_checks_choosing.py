"""Lesson 14's capstone check: the reference passes, the stub fails, and typical mistakes fail, each named.

The check must test the *method* (the search through ``query``) as well as the answer,
and the two cases the first version of the exercise left undefined: ``k`` larger than
the number of boxes, and an empty structure.
"""
import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_nearest_by_query
from lessons_lib.checks.choosing import MAX_QUERIES, box_distances


def stub(*args):
    raise NotImplementedError


def make_search(rule="reference", r0=1.0):
    """The growing-square search, or one typical slip of it named by ``rule``."""
    def nearest_by_query(bp, boxes, point, k):
        x, y = point
        n = len(bp) if rule == "len_of_bp" else len(boxes)
        if n == 0 and rule != "crashes_when_empty":
            return np.empty(0, np.int64)
        r = r0
        while True:
            ids = bp.query([x - r, y - r, x + r, y + r])
            b = boxes[ids]
            if rule == "centre_distance":
                c = 0.5 * (b[:, :2] + b[:, 2:])
                d = np.hypot(c[:, 0] - x, c[:, 1] - y)
            else:
                d = box_distances(b, point)
            order = np.lexsort((-ids if rule == "ties_by_decreasing_id" else ids, d))
            if rule == "farthest_first":
                order = order[::-1]
            if len(ids) == n and rule not in ("never_stops_below_k", "crashes_when_empty"):
                return ids[order[:k]]
            if len(ids) >= k and (rule == "no_distance_test" or d[order[k - 1]] <= r):
                return ids[order[:k]]
            r *= 2
    return nearest_by_query


def brute_force(bp, boxes, point, k):
    return np.lexsort((np.arange(len(boxes)), box_distances(boxes, point)))[:k]


def brute_force_after_one_small_query(bp, boxes, point, k):
    if len(boxes):
        bp.query([point[0], point[1], point[0], point[1]])
    return brute_force(bp, boxes, point, k)


def one_query_for_everything(bp, boxes, point, k):
    if not len(boxes):
        return []
    bp.query([-1e9, -1e9, 1e9, 1e9])
    return brute_force(bp, boxes, point, k)


def old_reference(bp, boxes, point, k):
    """The exercise's first reference: it stops only once k boxes are found, so it never ends when fewer exist."""
    x, y = point
    r = 1.0
    while True:
        ids = bp.query([x - r, y - r, x + r, y + r])
        if len(ids) >= k:
            d = box_distances(boxes[ids], point)
            order = np.lexsort((ids, d))
            if d[order[k - 1]] <= r or len(ids) == len(boxes):
                return ids[order[:k]]
        r *= 2


def test_reference_passes(capsys):
    check_nearest_by_query(make_search())
    out = capsys.readouterr().out
    assert "agrees with brute force" in out and "empty structure" in out


@pytest.mark.parametrize("r0", [0.37, 25.0])
def test_reference_passes_whatever_the_first_radius(r0):
    check_nearest_by_query(make_search(r0=r0))


@pytest.mark.parametrize("wrong, message", [
    (stub, "nearest_by_query is not written yet"),
    (make_search("no_distance_test"), "<= the square's half-size r"),      # the corner trap
    (make_search("centre_distance"), "not to its centre"),
    (make_search("ties_by_decreasing_id"), "order equal distances by increasing id"),
    (make_search("farthest_first"), "expected ids"),
    (make_search("never_stops_below_k"), "stop once all of them are found"),   # k > number of boxes
    (old_reference, "without stopping"),
    (make_search("crashes_when_empty"), "the structure is empty"),
    (make_search("len_of_bp"), r"called len\(bp\)"),
    (brute_force, "without calling bp.query"),                             # the method is never used
    (brute_force_after_one_small_query, "which no call of bp.query returned"),
    (one_query_for_everything, "instead of asking for"),
    (lambda bp, boxes, point, k: [float(i) for i in make_search()(bp, boxes, point, k)], "must be an integer"),
    (lambda bp, boxes, point, k: list(make_search()(bp, boxes, point, k)) * 2, "expected|more than once"),
    (lambda bp, boxes, point, k: None, "returned None"),
])
def test_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_nearest_by_query(wrong)


def test_other_attributes_of_the_structure_are_refused():
    def uses_nearest(bp, boxes, point, k):
        return bp.nearest(point, k)

    with pytest.raises(CheckFailed, match="used bp.nearest"):
        check_nearest_by_query(uses_nearest)


def test_a_search_that_changes_boxes_fails():
    def sorts_boxes(bp, boxes, point, k):
        out = make_search()(bp, boxes, point, k)
        boxes.sort(axis=0)
        return out

    with pytest.raises(CheckFailed, match="changed its argument number 2 in place"):
        check_nearest_by_query(sorts_boxes)


def test_the_query_limit_is_far_above_a_doubling_search():
    # from r = 1e-3 to the farthest point of the check (about 1e4 away) is under 30 doublings
    assert MAX_QUERIES >= 100


def test_a_crash_names_the_scene_the_structure_the_point_and_k():
    """Issue 33: "index -1 is out of bounds ... size 0" alone did not say the structure was empty."""
    def crashes_when_empty(bp, boxes, point, k):
        ids = np.asarray(bp.query([point[0] - 1e9, point[1] - 1e9, point[0] + 1e9, point[1] + 1e9]), np.int64)
        return ids[np.lexsort((ids, box_distances(boxes[ids], point)))][: min(k, len(boxes))] if ids[-1] >= 0 else ids
    with pytest.raises(CheckFailed, match=r"raised IndexError: .* on nearest_by_query on an empty structure \(no boxes "
                                          r"at all\) \(0 boxes\) in a uniform_grid, point \(.*\), k = 1"):
        check_nearest_by_query(crashes_when_empty)

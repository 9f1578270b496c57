"""The exercise check of lesson 12 (the sibling search) passes the reference, fails the stub, and fails
typical wrong answers, each with its message."""
from __future__ import annotations

import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed


def stub(*args):
    raise NotImplementedError


def perimeter(b):
    return 2 * ((b[2] - b[0]) + (b[3] - b[1]))


def area(b):
    return (b[2] - b[0]) * (b[3] - b[1])


def union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def make_search(rule="reference"):
    """The reference branch and bound, or one typical mistake of it.

    (Where several mistakes give the same wrong node on the first input that fails, the check
    states the costs without a hint: those are matched on "whose cost is".)"""
    size = area if rule == "area" else perimeter

    def best_sibling(box, child1, child2, height, root, new):
        best, best_cost = root, size(union(box[root], new))
        stack = [(root, 0.0)]
        while stack:
            v, inherited = stack.pop()
            direct = size(union(box[v], new))
            cost = direct if rule == "direct" else inherited + direct
            if rule == "leaves" and height[v] > 0 and v != root:
                cost = float("inf")
            if rule == "leaves" and v == root and height[v] > 0:
                best_cost = float("inf")
            if cost < best_cost:
                best, best_cost = v, cost
            if height[v] == 0:
                continue
            below = inherited + direct - (0.0 if rule == "no_growth" else size(box[v]))
            if rule != "exhaustive" and below + size(new) >= best_cost:
                continue
            stack += [(int(child2[v]), below), (int(child1[v]), below)]
        return int(best)

    return best_sibling


def brute(rule):
    """A typical mistake written as a search over every node: the node of least (wrong) cost, ties to the lower number."""
    size = area if rule == "area" else perimeter

    def best_sibling(box, child1, child2, height, root, new):
        costs, stack = {}, [(root, 0.0)]
        while stack:
            v, inherited = stack.pop()
            direct = size(union(box[v], new))
            costs[v] = direct if rule == "direct" else inherited + direct
            if height[v] > 0:
                below = inherited + direct - (0.0 if rule == "no_growth" else size(box[v]))
                stack += [(int(child1[v]), below), (int(child2[v]), below)]
        keys = [k for k in costs if rule != "leaves" or height[k] == 0]
        return int(min(keys, key=lambda k: (costs[k], k)))

    return best_sibling


def greedy(box, child1, child2, height, root, new):
    v = root
    while height[v] > 0:
        a, b = int(child1[v]), int(child2[v])
        ga = perimeter(union(box[a], new)) - perimeter(box[a])
        gb = perimeter(union(box[b], new)) - perimeter(box[b])
        v = a if ga <= gb else b
    return int(v)


def prune_on_cost(box, child1, child2, height, root, new):
    best, best_cost = root, perimeter(union(box[root], new))
    stack = [(root, 0.0)]
    while stack:
        v, inherited = stack.pop()
        cost = inherited + perimeter(union(box[v], new))
        if cost < best_cost:
            best, best_cost = v, cost
        elif v != root:
            continue
        if height[v] > 0:
            below = cost - perimeter(box[v])
            stack += [(int(child2[v]), below), (int(child1[v]), below)]
    return int(best)


def test_reference_passes(capsys):
    checks.check_best_sibling(make_search())
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, message", [
    (stub, "not written yet"),
    (brute("direct"), "whose cost is"),                                 # ancestors' growth forgotten
    (brute("no_growth"), "only what it grows by"),                      # ancestors add their whole perimeter
    (brute("area"), "uses the perimeter"),                              # area instead of perimeter
    (brute("leaves"), "whose cost is"),                                 # only leaves considered
    (make_search("direct"), "whose cost is"),                           # the same mistakes inside a branch and bound
    (make_search("no_growth"), "whose cost is"),
    (make_search("area"), "whose cost is"),
    (greedy, "whose cost is"),                                          # a single greedy descent
    (prune_on_cost, "can still be cheaper"),                            # prunes on the node's own cost
    (make_search("exhaustive"), "not a branch and bound"),              # right answer, every node read
    (lambda *a: float(make_search()(*a)), "must be an integer"),        # a float, not a node
    (lambda box, c1, c2, h, root, new: root, "whose cost is"),          # always the root
])
def test_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        checks.check_best_sibling(wrong)

"""Exercise check for lesson 12, the dynamic AABB tree: the sibling search.

:func:`check_best_sibling`: the learner's ``best_sibling(box, child1, child2, height, root, new)``
runs on the node arrays of real :class:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree`
trees (built one insertion at a time with rotations, bulk loaded, thinned by removals so that
free nodes sit in the arrays) and must return a node of least insertion cost,

    ``cost(X) = perimeter(X u new) + sum over the ancestors A of X of (perimeter(A u new) - perimeter(A))``,

computed here by brute force over every node of the tree. The method is checked too: ``box``
records the rows read, and a search that reads (nearly) every node's box on large trees,
where branch and bound reads a small part of them, fails however right its answer.
"""
from __future__ import annotations

import numpy as np

from .common import CheckFailed, Mistakes, RowReads, adversarial_boxes, expect_int, fmt, num, run_student

__all__ = ["check_best_sibling"]

NULL = -1


def _perimeter(b) -> float:
    return 2.0 * ((float(b[2]) - float(b[0])) + (float(b[3]) - float(b[1])))


def _area(b) -> float:
    return (float(b[2]) - float(b[0])) * (float(b[3]) - float(b[1]))


def _union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _costs(box, child1, child2, height, root, new, *, size=_perimeter, growth=True) -> dict[int, float]:
    """Every node's insertion cost (``growth=False``: ancestors add their whole enlarged size, a mistake)."""
    out, stack = {}, [(root, 0.0)]
    while stack:
        v, inherited = stack.pop()
        direct = size(_union(box[v], new))
        out[v] = inherited + direct
        if height[v] > 0:
            below = inherited + direct - (size(box[v]) if growth else 0.0)
            stack += [(int(child1[v]), below), (int(child2[v]), below)]
    return out


def _argmin(costs: dict[int, float], among=None) -> int:
    keys = [k for k in costs if among is None or among(k)]
    return min(keys, key=lambda k: (costs[k], k))


def _greedy(box, child1, child2, height, root, new) -> int:
    """Mistake: descend to the child that costs less (like an R-tree's ChooseLeaf), stop at a leaf."""
    v = root
    while height[v] > 0:
        a, b = int(child1[v]), int(child2[v])
        v = a if _perimeter(_union(box[a], new)) - _perimeter(box[a]) <= \
            _perimeter(_union(box[b], new)) - _perimeter(box[b]) else b
    return int(v)


def _prune_on_cost(box, child1, child2, height, root, new) -> int:
    """Mistake: stop below a node as soon as the node itself costs no less than the best found."""
    best, best_cost = root, _perimeter(_union(box[root], new))
    stack = [(root, 0.0)]
    while stack:
        v, inherited = stack.pop()
        cost = inherited + _perimeter(_union(box[v], new))
        if cost < best_cost:
            best, best_cost = v, cost
        elif v != root:
            continue
        if height[v] > 0:
            below = cost - _perimeter(box[v])
            stack += [(int(child2[v]), below), (int(child1[v]), below)]
    return int(best)


_HINTS = {
    "direct": "You compare only perimeter(X u new): pairing the new leaf with X also enlarges every ancestor of X, "
              "and each ancestor's growth, perimeter(A u new) - perimeter(A), is part of X's cost.",
    "no_growth": "Your ancestors add their whole enlarged perimeter, perimeter(A u new); an ancestor adds only what "
                 "it grows by, perimeter(A u new) - perimeter(A).",
    "leaves": "You only consider leaves: an internal node can be the sibling too (the new parent then sits above "
              "that whole subtree), and it is often the cheapest.",
    "greedy": "You descend to one child at each level, like ChooseLeaf: the cheaper-looking child is not always "
              "where the cheapest node is. Keep every child whose lower bound can still beat the best cost found.",
    "area": "You measure boxes by area; the 2D surface-area cost uses the perimeter, 2 * (w + h).",
    "prune_on_cost": "You stop below a node whose own cost is no better than the best: a node below it can still "
                     "be cheaper. The bound for the nodes below v is v's inherited cost plus v's growth plus "
                     "perimeter(new).",
}


def _mistakes(box, child1, child2, height, root, new) -> list[tuple[str, int]]:
    args = (box, child1, child2, height, root, new)
    right = _costs(*args)
    return [
        ("direct", _argmin({k: _perimeter(_union(box[k], new)) for k in right})),
        ("no_growth", _argmin(_costs(*args, growth=False))),
        ("leaves", _argmin(right, lambda k: height[k] == 0)),
        ("greedy", _greedy(*args)),
        ("area", _argmin(_costs(*args, size=_area))),
        ("prune_on_cost", _prune_on_cost(*args)),
    ]


def _tree_cases():
    """``(name, tree, new boxes)``: trees of every kind, each with new boxes inside, outside, huge, flat, duplicate."""
    from ..structures.dynamic_aabb_tree import DynamicAABBTree

    out = []
    rng = np.random.default_rng(11)
    one = DynamicAABBTree(margin=0.0)
    one.insert(0, [1.0, 2.0, 3.0, 5.0])
    out.append(("a tree of one leaf", one))
    for k, (name, b) in enumerate(adversarial_boxes(seed=4, world=(-61.25, -17.5, 138.75, 103.3))):
        if len(b) < 2:
            continue
        t = DynamicAABBTree(margin=0.25 * (k % 3))
        for i, x in enumerate(b):
            t.insert(i, x)
        out.append((f"{name}, inserted one by one", t))
    for n, how in ((60, "inserted"), (200, "bulk"), (400, "thinned"), (1500, "inserted")):
        lo = rng.uniform(-50, 950, (n, 2))
        b = np.column_stack([lo, lo + rng.uniform(1, 20, (n, 2))])
        if how == "bulk":
            t = DynamicAABBTree.from_boxes(b, margin=0.5)
        else:
            t = DynamicAABBTree(margin=0.1)
            for i in rng.permutation(n).tolist():
                t.insert(i, b[i])
            if how == "thinned":
                for i in rng.choice(n, n // 3, replace=False).tolist():
                    t.remove(i)
        out.append((f"{n} random boxes, {how}" + (" (a third removed)" if how == "thinned" else ""), t))
    return out


def _new_boxes(tree, rng) -> list[tuple[str, tuple]]:
    nd = tree.nodes
    r = nd.box[nd.root]
    w, h = max(r[2] - r[0], 1.0), max(r[3] - r[1], 1.0)
    ids, boxes = tree.items()
    some = boxes[rng.integers(len(boxes))]
    news = [("a copy of a stored box", tuple(some)),
            ("a box far outside the tree", (r[2] + 2 * w, r[3] + h, r[2] + 2.2 * w, r[3] + 1.3 * h)),
            ("a box covering the whole tree", (r[0] - 1, r[1] - 1, r[2] + 1, r[3] + 1)),
            ("a zero-area box (a point)", (r[0] + 0.3 * w, r[1] + 0.6 * h) * 2)]
    for j in range(6):
        x, y = rng.uniform(r[0] - 0.2 * w, r[2] + 0.2 * w), rng.uniform(r[1] - 0.2 * h, r[3] + 0.2 * h)
        s = rng.uniform(0.005, 0.15) * w
        news.append((f"random box {j}", (x, y, x + s, y + rng.uniform(0.3, 1.5) * s)))
    return [(name, tuple(float(v) for v in b)) for name, b in news]


def check_best_sibling(fn) -> None:
    """Check ``fn(box, child1, child2, height, root, new) -> int``: the sibling search of a dynamic AABB tree.

    ``box`` (``(capacity, 4)`` float64: a leaf's fat box, an internal node's union),
    ``child1``, ``child2`` (``NULL`` = -1 for a leaf) and ``height`` (0 for a leaf, -1 for a
    free node) are a real tree's node arrays, ``root`` its root node and ``new`` the new
    leaf's box. The answer must be a node reachable from the root whose cost is the least
    (any one of them on a tie); the truth is every node's cost by brute force. On trees of
    hundreds of leaves, reading the boxes of more than half of the nodes fails (that is not
    a branch and bound).

    Raises
    ------
    CheckFailed
        On the stub, an exception, ``None``, an array changed in place, a result that is not
        an integer node, and on the first input whose answer is not a cheapest node.
    """
    rng = np.random.default_rng(5)
    mistakes = Mistakes()
    for name, tree in _tree_cases():
        nd = tree.nodes
        arrays = (nd.box, nd.child1, nd.child2, nd.height, nd.root)
        live = len(nd.live())
        for what, new in _new_boxes(tree, rng):
            case = f"{name}, new box {fmt(new)} ({what})"
            costs = _costs(*arrays, new)
            least = min(costs.values())
            tol = 1e-9 * max(1.0, abs(least))
            log: list = []

            def call(box, child1, child2, height, root, new_box, _log=log):
                return fn(RowReads(box, _log), child1, child2, height, root, new_box)

            got = run_student(call, *arrays, new, case=case, track=fn)
            got = expect_int(got, f"best_sibling on {case}")
            candidates = [(_HINTS[k], w if costs[w] > least + tol else None) for k, w in _mistakes(*arrays, new)]
            if got not in costs:
                raise CheckFailed(f"best_sibling on {case} returned node {got}, which is not in the tree (the tree's "
                                  f"nodes are those reachable from root {nd.root} through child1 and child2; a node "
                                  "with height -1 is free).")
            if costs[got] > least + tol:
                best = _argmin(costs)
                hint = mistakes.hint(got, best, candidates)
                raise CheckFailed(f"best_sibling on {case} returned node {got}, whose cost is {num(costs[got])}; node "
                                  f"{best} costs {num(least)}." + (f" Hint: {hint}" if hint else ""))
            mistakes.passed(got, candidates)
            read = len(set(log))
            if live >= 399 and read > live // 2:
                raise CheckFailed(f"best_sibling on {case} found a cheapest node, but it read the boxes of {read} of "
                                  f"the tree's {live} nodes: that is a search over every node, not a branch and "
                                  "bound. Do not enter a node's children when the least cost any node below it can "
                                  "have (its inherited cost plus its growth plus perimeter(new)) is no better than "
                                  "the best cost found.")
    print("check_best_sibling passed: a cheapest sibling on every tree and new box, by branch and bound.")

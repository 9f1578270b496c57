"""Exercise checks for lessons 04-05: quadrants, the split, pairs from leaves, node rectangles, free lists, cleanup.

Every check calls the learner's function through :func:`~lessons_lib.checks.common.run_student`
(on copies of its inputs), validates what comes back instead of coercing it, and runs
on inputs that catch the usual mistakes: worlds whose origin and size are not whole
numbers (so a midpoint by ``//`` fails), non-square nodes, boxes exactly on midlines
and borders, boxes outside the root, coincident boxes, unsorted lists. The core
exercises are plugged into the real structures: the learner's ``split`` builds a
:class:`~lessons_lib.structures.naive_quadtree.NaiveQuadtree`, the learner's
``cleanup_pass`` runs on a :class:`~lessons_lib.structures.quadtree.Quadtree`'s node
array, and the trees are then compared with brute force.
"""
from __future__ import annotations

import numpy as np

from ..core.freelist import FREE_MARK
from ..structures.brute_force import brute_force_pairs
from ..structures.naive_quadtree import NaiveQuadtree, Node, child_rects
from ..structures.quad_nodes import BRANCH
from ..structures.quadtree import Quadtree
from .common import (
    CheckFailed,
    adversarial_boxes,
    expect_ids,
    expect_int,
    expect_number,
    expect_pairs,
    Mistakes,
    fmt,
    num,
    random_world,
    run_student,
)

__all__ = ["check_children_touched", "check_split", "check_leaf_pairs", "check_node_rect", "check_free_list",
           "check_cleanup_pass", "run_in_place"]


def run_in_place(fn, *args, name: str | None = None, may_change=(), case: str | None = None, prepare=None,
                 may_return_none: bool = False):
    """:func:`run_student` for functions that update an argument in place: ``(result, the arguments as changed)``.

    ``run_student`` hands the learner deep copies; this returns those copies after the
    call, so a check can inspect the state the learner's function left behind.
    ``prepare(*copies)``, when given, returns the arguments actually passed (instrumented
    copies: it is how a check watches what the function reads); ``case`` names the input
    in every failure.
    """
    seen = []

    def capture(*given):
        if prepare is not None:
            given = tuple(prepare(*given))
        seen.append(given)
        return fn(*given)

    result = run_student(capture, *args, name=name or getattr(fn, "__name__", None), may_change=may_change,
                         case=case, track=fn, may_return_none=may_return_none)
    return result, seen[0]


def _touch(a, b) -> bool:
    """Closed boxes ``a`` and ``b`` meet (touching counts)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _midlines(rect):
    return 0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3])


def _names(rect) -> str:
    mx, my = _midlines(rect)
    return f"midlines x = {num(mx)}, y = {num(my)}"


# --------------------------------------------------------------------------
# Lesson 04, warm-up: which children does a box descend into?
# --------------------------------------------------------------------------
_CHILD_CASES = [
    ("a small box in the top-left quadrant", (0, 0, 100, 100), (10, 70, 20, 80)),
    ("a small box in the bottom-right quadrant", (0, 0, 100, 100), (70, 10, 80, 20)),
    ("a box across the vertical midline, bottom half", (0, 0, 100, 100), (40, 10, 60, 20)),
    ("a box covering the centre", (0, 0, 100, 100), (40, 40, 60, 60)),
    ("a box touching the vertical midline from the left", (0, 0, 100, 100), (30, 10, 50, 20)),
    ("a box touching the horizontal midline from below", (0, 0, 100, 100), (10, 30, 20, 50)),
    ("the centre point", (0, 0, 100, 100), (50, 50, 50, 50)),
    ("a box outside the node", (0, 0, 100, 100), (150, 150, 160, 160)),
    ("a box touching the node's right side from outside", (0, 0, 100, 100), (100, 10, 120, 20)),
    ("a box covering the whole node", (0, 0, 100, 100), (-10, -10, 110, 110)),
    ("an 800 x 600 node, a box above y = 300 reaching across y = 400", (0, 0, 800, 600), (100, 350, 500, 420)),
    ("an 800 x 600 node, a box in the bottom-left quadrant near y = 300", (0, 0, 800, 600), (100, 280, 120, 290)),
    ("an 800 x 600 node, a box in the top-left quadrant just above y = 300", (0, 0, 800, 600), (100, 310, 120, 330)),
    ("a node away from the origin", (-500, 200, -300, 300), (-420, 260, -380, 270)),
    ("a flat box on the node's top edge", (0, 0, 100, 100), (0, 100, 25, 100)),
    ("a node whose midline is not a whole number, a box just left of it",
     (0.5, 0.25, 101.0, 60.5), (40.0, 10.0, 50.5, 20.0)),
    ("a node whose midline is not a whole number, a box starting between floor(midline) and the midline",
     (0.5, 0.25, 101.0, 60.5), (50.5, 40.0, 60.0, 50.0)),
]


def _child_cases(seed: int):
    """The fixed cases, then seeded random ones on irregular nodes: boxes on, beside and across the midlines."""
    rng = np.random.default_rng(seed)
    cases = [(name, tuple(float(v) for v in r), tuple(float(v) for v in b)) for name, r, b in _CHILD_CASES]
    for k in range(300):
        rect = random_world(rng)
        x0, y0, x1, y1 = rect
        mx, my = _midlines(rect)
        w, h = x1 - x0, y1 - y0
        kind = k % 5
        if kind == 0:  # edges exactly on a midline
            bx0 = rng.choice([mx, mx - 0.1 * w, x0 + rng.uniform(0, w)])
            by0 = rng.choice([my, my - 0.1 * h, y0 + rng.uniform(0, h)])
            box = (bx0, by0, max(bx0, rng.choice([mx, bx0 + 0.05 * w])), max(by0, rng.choice([my, by0 + 0.05 * h])))
        elif kind == 1:  # edges a hair from a midline that is not a whole number
            e = rng.uniform(0.01, 0.4)
            box = (mx + rng.choice([-1, 1]) * e, y0 + 0.2 * h, mx + 0.3 * w, y0 + 0.3 * h) if rng.random() < 0.5 else \
                  (x0 + 0.1 * w, my + rng.choice([-1, 1]) * e, x0 + 0.2 * w, my + 0.2 * h)
            box = (min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3]))
        elif kind == 2:  # partly or wholly outside the node, or on its border
            bx0 = x0 + rng.uniform(-0.6, 1.4) * w
            by0 = y0 + rng.uniform(-0.6, 1.4) * h
            box = (bx0, by0, bx0 + rng.uniform(0, 0.5) * w, by0 + rng.uniform(0, 0.5) * h)
        elif kind == 3:  # zero-area boxes (points and segments)
            px, py = x0 + rng.uniform(0, 1) * w, y0 + rng.uniform(0, 1) * h
            box = (px, py, px + rng.choice([0.0, 0.3 * w]), py)
        else:
            bx0, by0 = x0 + rng.uniform(0, 1) * w, y0 + rng.uniform(0, 1) * h
            box = (bx0, by0, bx0 + rng.uniform(0, 0.6) * w, by0 + rng.uniform(0, 0.6) * h)
        cases.append((f"random case {k}", rect, tuple(float(v) for v in box)))
    return cases


#: Child numbers (0 TL, 1 TR, 2 BL, 3 BR) mirrored top to bottom, and with TR and BL exchanged.
_Y_FLIPPED = {0: 2, 1: 3, 2: 0, 3: 1}
_TR_BL_SWAPPED = {0: 0, 1: 2, 2: 1, 3: 3}


def _children_mistakes(rect, box, expected):
    """``(hint, answer)`` of the usual wrong ``children_touched`` on this input (answers sorted)."""
    x0, y0, x1, y1 = rect
    mx, my = _midlines(rect)
    fx, fy = (x0 + x1) // 2, (y0 + y1) // 2

    def quads_touched(quads, test=_touch):
        return [k for k, q in enumerate(quads) if test(q, box)]

    def open_sides(q, b):  # closed on the node's sides, open on the midlines
        return (_touch(rect, b) and (b[0] < mx if q[2] == mx else b[2] > mx) and (b[1] < my if q[3] == my else b[3] > my))

    def midlines_only(k):  # the side of each midline, the node's own sides never tested
        left, top = k in (0, 2), k in (0, 1)
        return (box[0] <= mx if left else box[2] >= mx) and (box[3] >= my if top else box[1] <= my)

    floor_quads = [(x0, fy, fx, y1), (fx, fy, x1, y1), (x0, y0, fx, fy), (fx, y0, x1, fy)]
    return [
        ("Hint: the node is not square; the horizontal midline is at half the *height*.",
         quads_touched(child_rects((x0, y0, x1, y0 + (x1 - x0))))),
        ("Hint: children are 0 TL, 1 TR, 2 BL, 3 BR, with y upwards (top = larger y).",
         sorted(_Y_FLIPPED[k] for k in expected)),
        ("Hint: children are 0 TL, 1 TR, 2 BL, 3 BR: 1 is top-right, 2 bottom-left.",
         sorted(_TR_BL_SWAPPED[k] for k in expected)),
        ("Hint: quadrants are closed, so a box that only touches a midline goes into both sides.",
         quads_touched(child_rects(rect), open_sides)),
        ("Hint: a box that misses the node touches none of its children.",
         [k for k in range(4) if midlines_only(k)]),
        ("Hint: the midline here is not a whole number; compute it with /, not //.", quads_touched(floor_quads)),
    ]



def check_children_touched(fn) -> None:
    """Check ``fn(rect, box) -> list of child indices`` whose closed quadrant the closed ``box`` touches.

    Children are numbered 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right,
    with y growing upwards (as in the figures). Quadrants and boxes are closed:
    a box touching the midline goes into the children on both sides. The order
    of the returned indices does not matter; each index appears once; the answer
    is a list of Python ints (a NumPy array fails: the exercise asks for a list).

    Raises
    ------
    CheckFailed
        On the first wrong answer, naming the node, the box and the expected children.
    """
    cases = _child_cases(404)
    mistakes = Mistakes()
    for name, rect, box in cases:
        expected = [k for k, q in enumerate(child_rects(rect)) if _touch(q, box)]
        what = f"{name}: children_touched({fmt(rect)}, {fmt(box)})"
        got = run_student(fn, rect, box, name="children_touched", case=what)
        if isinstance(got, (int, np.integer)):
            raise CheckFailed(f"{what} returned {got!r}: return a list of child indices (a box can go into several)")
        got_ids = expect_ids(got, f"{what}'s result", exact=True)
        if any(not 0 <= k <= 3 for k in got_ids):
            raise CheckFailed(f"{what} returned {got_ids}, expected {expected}: child indices run from 0 to 3")
        if got_ids == expected:
            mistakes.passed(got_ids, _children_mistakes(rect, box, expected))
        else:
            hint = mistakes.hint(got_ids, expected, _children_mistakes(rect, box, expected))
            raise CheckFailed(f"{what} returned {got_ids}, expected {expected} ({_names(rect)}).{' ' + hint if hint else ''}")
    print(f"children_touched passed all {len(cases)} cases: irregular and non-square nodes, boxes on midlines, "
          "outside the node and of zero area.")


# --------------------------------------------------------------------------
# Lesson 04, core exercise: the split, plugged into a NaiveQuadtree
# --------------------------------------------------------------------------
def _routed(boxes: np.ndarray, world) -> np.ndarray:
    """Boxes clamped to the root's rectangle, as the naive tree routes them."""
    x0, y0, x1, y1 = (float(v) for v in world)
    out = boxes.astype(np.float64).copy()
    out[:, 0::2] = np.clip(out[:, 0::2], x0, x1)
    out[:, 1::2] = np.clip(out[:, 1::2], y0, y1)
    return out


def _split_scenes(seed: int):
    """``(name, boxes, world, capacity, max_depth)``: named traps, then seeded irregular scenes."""
    rng = np.random.default_rng(seed)
    sq = (0.0, 0.0, 100.0, 100.0)
    wide = (-3.5, 7.25, 797.5, 607.25)
    scenes = [
        ("three boxes in one corner, capacity 2", np.array([[1, 1, 2, 2], [3, 3, 4, 4], [5, 5, 6, 6.]]), sq, 2, 4),
        ("boxes touching the root's midlines from both sides, capacity 1",
         np.array([[40, 10, 50, 20], [50, 12, 60, 18], [10, 40, 20, 50], [12, 50, 18, 60.]]), sq, 1, 3),
        ("twelve copies of one point, capacity 3, max_depth 4", np.tile([[37.5, 12.25, 37.5, 12.25]], (12, 1)), sq, 3, 4),
        ("nine boxes crowding one quadrant of one quadrant, capacity 2",
         np.array([[1 + 2 * k, 1 + 2 * k, 2 + 2 * k, 2 + 2 * k] for k in range(9)], float), sq, 2, 6),
        ("a box covering the whole root among small ones, capacity 2",
         np.array([[-5, -5, 105, 105], [10, 10, 12, 12], [80, 80, 82, 82], [10, 80, 12, 82.]]), sq, 2, 3),
        ("a non-square 801 x 600 root, boxes near y = 307.25", np.array(
            [[100, 300, 120, 307.25], [130, 307.25, 150, 320], [500, 305, 520, 310], [600, 290, 610, 300],
             [700, 400, 710, 410.]]), wide, 1, 4),
        ("boxes outside the root", np.array([[-50, 40, -45, 45], [120, 120, 130, 130], [20, -30, 30, -20],
                                             [40, 40, 41, 41], [60, 60, 61, 61.]]), sq, 1, 3),
        ("max_depth 0: the root never splits", np.array([[1, 1, 2, 2], [3, 3, 4, 4], [5, 5, 6, 6.]]), sq, 1, 0),
    ]
    for k in range(3):
        world = random_world(rng)
        for j, (name, boxes) in enumerate(adversarial_boxes(seed + k, world=world)):
            if len(boxes) >= 2 and (k == 0 or j >= 11):
                scenes.append((f"{name} in the world {fmt(world)}, capacity {1 + j % 3}, max_depth {2 + j % 4}",
                               boxes, world, 1 + j % 3, 2 + j % 4))
    return [(n, np.asarray(b, np.float64), tuple(float(v) for v in w), c, d) for n, b, w, c, d in scenes]


def _walk(node):
    """Every node under ``node`` (depth first), each with its parent's rectangle (None for ``node``)."""
    out, stack = [], [(node, None)]
    while stack:
        n, parent = stack.pop()
        out.append((n, parent))
        if isinstance(n, Node) and n.children is not None and isinstance(n.children, (list, tuple)):
            stack.extend((c, n) for c in reversed(n.children))
    return out


def _validate_tree(root, world, routed, slots, capacity, max_depth, what):
    """Raise CheckFailed unless the tree under ``root`` is exactly what the exercise asks for."""
    if not isinstance(root, Node):
        raise CheckFailed(f"{what}: split must return the node it was given (now a branch), got {root!r}")
    if tuple(root.rect) != tuple(world) or root.depth != 0:
        raise CheckFailed(f"{what}: the root came back with rect {fmt(root.rect)} and depth {root.depth}; "
                          f"it must keep its rect {fmt(world)} and depth 0")
    leaves, parent_of = [], {}
    for n, parent in _walk(root):
        parent_of[id(n)] = parent
        if not isinstance(n, Node):
            raise CheckFailed(f"{what}: a child is {n!r}, not a Node; make children with Node(rect, depth)")
        if parent is not None:
            quads = child_rects(parent.rect)
            k = next(i for i, c in enumerate(parent.children) if c is n)
            if tuple(n.rect) != quads[k]:
                raise CheckFailed(f"{what}: child {k} of node {fmt(parent.rect)} has rect {fmt(n.rect)}, expected "
                                  f"{fmt(quads[k])} (children are TL, TR, BL, BR: child_rects(node.rect) in order)")
            if n.depth != parent.depth + 1:
                raise CheckFailed(f"{what}: node {fmt(n.rect)} has depth {n.depth}, but its parent has depth "
                                  f"{parent.depth}; a child is one level deeper than its parent")
        if n.depth > max_depth:
            raise CheckFailed(f"{what}: node {fmt(n.rect)} is at depth {n.depth}, deeper than max_depth = {max_depth}")
        if n.children is None:
            elems = n.elements
            if not isinstance(elems, list):
                raise CheckFailed(f"{what}: leaf {fmt(n.rect)} has elements {elems!r}; a leaf keeps a list of slots")
            ids = [expect_int(e, f"{what}: an element of leaf {fmt(n.rect)}") for e in elems]
            if len(set(ids)) != len(ids):
                dup = next(e for e in ids if ids.count(e) > 1)
                raise CheckFailed(f"{what}: leaf {fmt(n.rect)} lists slot {dup} twice")
            leaves.append(n)
        else:
            if not isinstance(n.children, (list, tuple)) or len(n.children) != 4:
                raise CheckFailed(f"{what}: node {fmt(n.rect)} has children {n.children!r}; a branch has four")
            if n.elements:
                raise CheckFailed(f"{what}: branch {fmt(n.rect)} still holds elements {n.elements}: once a node "
                                  "is split, its elements live in its children only (empty the branch's list)")
    where = {s: set() for s in slots}
    for leaf in leaves:
        for s in leaf.elements:
            if s not in where:
                raise CheckFailed(f"{what}: leaf {fmt(leaf.rect)} holds slot {s}, which was never inserted")
            where[s].add(id(leaf))
        if len(leaf.elements) > capacity and leaf.depth < max_depth:
            raise CheckFailed(f"{what}: leaf {fmt(leaf.rect)} at depth {leaf.depth} holds {len(leaf.elements)} "
                              f"elements, more than capacity = {capacity}, below max_depth = {max_depth}. Hint: a "
                              "child can receive more than capacity elements too; it must be split in turn.")
    for s in slots:
        want = [leaf for leaf in leaves if _touch(leaf.rect, routed[s])]
        missing = [leaf for leaf in want if id(leaf) not in where[s]]
        extra = where[s] - {id(leaf) for leaf in want}
        if missing:
            leaf = missing[0]
            b = routed[s]
            parent = parent_of.get(id(leaf))
            in_sibling = parent is not None and any(id(m) in where[s] for m, _ in _walk(parent) if m is not leaf)
            edge = b[0] == leaf.rect[2] or b[2] == leaf.rect[0] or b[1] == leaf.rect[3] or b[3] == leaf.rect[1]
            hint = ""
            if in_sibling:  # the box went into another child of the same node, not into this one
                hint = (" Hint: quadrants are closed: a box that only touches a child's side belongs to that child too."
                        if edge else " Hint: a box goes into every child it touches, not only the first one.")
            raise CheckFailed(f"{what}: slot {s} (box {fmt(b)}) touches leaf {fmt(leaf.rect)} but is not in it.{hint}")
        if extra:
            leaf = next(n for n in leaves if id(n) in extra)
            raise CheckFailed(f"{what}: slot {s} (box {fmt(routed[s])}) is in leaf {fmt(leaf.rect)}, which it does "
                              "not touch")
    for n, _ in _walk(root):
        if n.children is not None:
            under = set()
            for m, _ in _walk(n):
                if m.children is None:
                    under.update(m.elements)
            if len(under) <= capacity:
                raise CheckFailed(f"{what}: node {fmt(n.rect)} was split although only {len(under)} element(s) "
                                  f"reach it (capacity = {capacity}): split only a leaf holding more than capacity")
    return leaves


def _compare_with_brute_force(tree, boxes, what):
    want = set(map(tuple, brute_force_pairs(boxes).tolist()))
    got = set(map(tuple, tree.pairs().tolist()))
    if got != want:
        bad = sorted(want - got) or sorted(got - want)
        raise CheckFailed(f"{what}: the tree your split built reports {len(got)} pairs, brute force {len(want)} "
                          f"(first difference: {bad[0]})")


def _insert_with(split, tree, slot, routed, capacity, max_depth, what):
    """Insert ``slot`` into ``tree`` as the naive tree does, calling the learner's ``split`` on a full leaf."""
    stack = [(tree.root, None, -1)]
    while stack:
        node, parent, k = stack.pop()
        if node.children is not None:
            stack.extend((c, node, j) for j, c in enumerate(node.children) if _touch(c.rect, routed[slot]))
            continue
        node.elements.append(slot)
        if len(node.elements) > capacity and node.depth < max_depth:
            new = _call_split(split, node, routed, capacity, max_depth, what)
            if parent is None:
                tree.root = new
            else:
                parent.children[k] = new


def _call_split(split, node, routed, capacity, max_depth, what):
    case = (f"{what}: split of the leaf {fmt(node.rect)} at depth {node.depth} holding slots {list(node.elements)}, "
            f"capacity = {capacity}, max_depth = {max_depth}")
    try:
        result, (given, *_) = run_in_place(split, node, routed, capacity, max_depth, may_change=(0,), case=case,
                                           name="split")
    except CheckFailed as e:
        held = routed[list(node.elements)] if len(node.elements) else np.empty((0, 4))
        _, copies = np.unique(held, axis=0, return_counts=True) if len(held) else (None, np.zeros(1, int))
        if isinstance(e.__cause__, RecursionError) and copies.max() > capacity:
            raise CheckFailed(f"{e}. Hint: this leaf holds {int(copies.max())} copies of one box, more than capacity; "
                              "copies never separate, however deep the split goes.") from None
        raise
    return result


def check_split(split) -> None:
    """Check ``split(node, boxes, capacity, max_depth) -> node``: a full leaf of the naive quadtree becomes a branch.

    ``node`` is a :class:`~lessons_lib.structures.naive_quadtree.Node` leaf holding
    more than ``capacity`` slots; ``boxes`` an ``(n, 4)`` float64 array, row ``s`` the
    box of slot ``s`` already clamped to the root. ``split`` must give the node four
    children ``Node(r, node.depth + 1)`` for ``r`` in ``child_rects(node.rect)``, put
    every slot into each child whose closed quadrant its box touches, empty the
    node's own list, split again every child holding more than ``capacity`` slots
    while its depth is below ``max_depth``, and return the node.

    The check plugs ``split`` into a real :class:`NaiveQuadtree` two ways (splitting a
    root that holds a whole scene, and inserting the scene box by box), checks every
    node, and compares the tree's ``pairs()`` and queries with brute force.

    Raises
    ------
    CheckFailed
        The first scene where the tree differs from the rules, naming the node.
    """
    scenes = _split_scenes(414)
    rng = np.random.default_rng(4140)
    for name, boxes, world, capacity, max_depth in scenes:
        n = len(boxes)
        for mode in ("split of a full root", "box by box"):
            what = f"{name} ({mode})"
            tree = NaiveQuadtree.from_boxes(boxes, world=world, capacity=max(1, n), max_depth=max_depth)
            slots = list(tree.root.elements)
            routed = _routed(tree.elements.boxes, world)
            tree.capacity = capacity
            if mode == "split of a full root":
                if n > capacity and max_depth > 0:
                    tree.root = _call_split(split, tree.root, routed, capacity, max_depth, what)
            else:
                tree.root = Node(world, 0)
                for s in rng.permutation(slots).tolist():
                    _insert_with(split, tree, int(s), routed, capacity, max_depth, what)
            _validate_tree(tree.root, world, routed, slots, capacity, max_depth, what)
            _compare_with_brute_force(tree, boxes, what)
            for q in boxes[:5]:
                want = np.flatnonzero((boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3])
                                      & (q[1] <= boxes[:, 3]))
                got = tree.query(q)
                if not np.array_equal(got, want):
                    raise CheckFailed(f"{what}: a query for {fmt(q)} on the tree your split built found "
                                      f"{got.tolist()}, brute force {want.tolist()}")
    print(f"split passed {len(scenes)} scenes, each split from a full root and built box by box in a "
          "NaiveQuadtree: every node as the rules say, pairs and queries equal to brute force.")


# --------------------------------------------------------------------------
# Lesson 04: pairs from the leaves, each once
# --------------------------------------------------------------------------
def _leaf_pair_scenes():
    """``(name, leaves, boxes)``: named traps, the leaves of NaiveQuadtrees, and leaves that are not a whole tree."""
    rng = np.random.default_rng(11)
    scenes = [
        ("one leaf, two touching boxes listed in reverse", [[1, 0]], [(0.0, 0.0, 1.0, 1.0), (1.0, 0.0, 2.0, 1.0)]),
        ("one leaf, two apart", [[0, 1]], [(0.0, 0.0, 1.0, 1.0), (5.0, 5.0, 6.0, 6.0)]),
        ("a pair sharing two leaves", [[1, 0], [0, 1]], [(45.0, 10.0, 55.0, 20.0), (48.0, 12.0, 52.0, 14.0)]),
        ("three boxes over four leaves", [[2, 0, 1], [0, 2], [1, 0], [0]],
         [(40.0, 40.0, 60.0, 60.0), (45.0, 55.0, 48.0, 70.0), (55.0, 45.0, 70.0, 48.0)]),
        ("empty leaves", [[], [0], []], [(0.0, 0.0, 1.0, 1.0)]),
        ("no leaves at all", [], []),
        # Boxes that intersect without sharing a leaf: only what the leaves list is a candidate.
        ("two overlapping boxes, each in a leaf of its own", [[0], [1]], [(0.0, 0.0, 4.0, 4.0), (2.0, 2.0, 6.0, 6.0)]),
        ("three overlapping boxes, only boxes 1 and 2 share a leaf", [[2, 1], [0]],
         [(0.0, 0.0, 10.0, 10.0), (1.0, 1.0, 3.0, 3.0), (2.0, 2.0, 5.0, 5.0)]),
        ("boxes listed in no leaf at all (only leaf [3, 1])", [[3, 1]],
         [(0.0, 0.0, 9.0, 9.0), (1.0, 1.0, 2.0, 2.0), (0.5, 0.5, 8.0, 8.0), (1.5, 1.5, 1.5, 1.5)]),
    ]
    for name, boxes in adversarial_boxes(12, world=random_world(rng)):
        if len(boxes) < 2:
            continue
        qt = NaiveQuadtree.from_boxes(boxes, world=random_world(rng), capacity=int(rng.integers(1, 4)), max_depth=5)
        leaves = [rng.permutation(n.elements).tolist() for n in qt.nodes() if n.is_leaf]
        scenes.append((f"{name}, leaves of a NaiveQuadtree", leaves, [tuple(b) for b in boxes.tolist()]))
        if len(leaves) >= 4 and name.startswith("random"):
            # The leaves of one part of the tree only: boxes of the other leaves may intersect, share no leaf here.
            part = [leaves[k] for k in sorted(rng.choice(len(leaves), len(leaves) // 2, replace=False).tolist())]
            scenes.append((f"{name}, half of the leaves of a NaiveQuadtree", part, [tuple(b) for b in boxes.tolist()]))
    return scenes


def check_leaf_pairs(fn) -> None:
    """Check ``fn(leaves, boxes) -> list of (i, j)``: the intersecting pairs that share a leaf, each once.

    ``leaves`` is a list of lists of box indices (a box spanning several leaves
    appears in each; the lists are in no particular order); ``boxes`` is a list of
    ``(xmin, ymin, xmax, ymax)``. Each pair ``(i, j)`` with ``i < j`` must appear
    once, as a tuple of ints, and only if the boxes share a leaf and intersect
    (closed: touching counts). Scenes include boxes that intersect without sharing
    a leaf (half the leaves of a tree, boxes in no leaf), so a search over all the
    boxes does not pass.

    Raises
    ------
    CheckFailed
        On the first scene where the answer differs.
    """
    scenes = _leaf_pair_scenes()
    for name, leaves, boxes in scenes:
        n = len(boxes)
        shared = set()
        for leaf in leaves:
            for a in range(len(leaf)):
                for b in range(a + 1, len(leaf)):
                    shared.add(tuple(sorted((leaf[a], leaf[b]))))
        exp = {p for p in shared if _touch(boxes[p[0]], boxes[p[1]])}
        case = f"{name} (leaves {leaves}, boxes {[fmt(b) for b in boxes]})" if n <= 8 else name
        raw = run_student(fn, [list(l) for l in leaves], [tuple(b) for b in boxes], name="leaf_pairs", case=case)
        try:
            got = expect_pairs(raw, f"{name}: leaf_pairs' result", n=n, exact=True)
        except CheckFailed as e:
            msg = str(e)
            twice = [tuple(sorted(r)) for r in (raw if isinstance(raw, (list, tuple, set)) else [])
                     if isinstance(r, (tuple, list)) and len(r) == 2]
            dup = next((p for p in twice if twice.count(p) > 1), None)
            if "twice" in msg and dup is not None and sum(dup[0] in l and dup[1] in l for l in leaves) > 1:
                raise CheckFailed(f"{msg}. Hint: boxes {dup[0]} and {dup[1]} share {sum(dup[0] in l and dup[1] in l for l in leaves)} "
                                  "leaves and meet in each of them; keep a set, or report a pair from one leaf only.") from None
            if "smaller index first" in msg:
                raise CheckFailed(f"{msg} (the leaf lists are not sorted).") from None
            raise
        if got != exp:
            extra, missing = sorted(got - exp), sorted(exp - got)
            msg = f"{name}: expected {len(exp)} pairs, got {len(got)}."
            if extra:
                i, j = extra[0]
                if (i, j) in shared:
                    msg += f" Extra {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} share a leaf but do not intersect."
                    if got == shared:
                        msg += " Hint: sharing a leaf only makes them candidates; test the boxes."
                elif _touch(boxes[i], boxes[j]):
                    msg += (f" Extra {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} intersect but share no leaf "
                            f"(the leaves are {leaves if len(leaves) <= 8 else 'those given'}): only pairs found together in a "
                            "leaf count.")
                else:
                    msg += f" Extra {extra[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} share no leaf and do not intersect."
            if missing:
                i, j = missing[0]
                touching = {p for p in exp if not (boxes[p[0]][0] < boxes[p[1]][2] and boxes[p[1]][0] < boxes[p[0]][2]
                                                   and boxes[p[0]][1] < boxes[p[1]][3] and boxes[p[1]][1] < boxes[p[0]][3])}
                msg += f" Missing {missing[0]}: boxes {fmt(boxes[i])} and {fmt(boxes[j])} share a leaf and intersect."
                if set(missing) <= touching and not (got & touching):
                    msg += " Hint: they only touch, and touching counts (closed boxes)."
            raise CheckFailed(msg)
    print(f"leaf_pairs passed all {len(scenes)} scenes (unsorted leaves, duplicates, touching boxes, boxes that "
          "intersect in no common leaf), each pair once.")


# --------------------------------------------------------------------------
# Lesson 05, warm-up: a node's rectangle, computed during the descent
# --------------------------------------------------------------------------
def _node_rect_reference(root, path):
    r = tuple(float(v) for v in root)
    for k in path:
        r = child_rects(r)[k]
    return r


def _node_rect_mistakes(root, path):
    """``(hint, rectangle)`` that the usual wrong ``node_rect`` returns for this root and path."""
    def walk(steps, *, half_height_from_width=False, y_down=False, floor=False):
        x0, y0, x1, y1 = root
        for k in steps:
            if floor:
                mx, my = (x0 + x1) // 2, (y0 + y1) // 2
            else:
                mx = (x0 + x1) / 2
                my = y0 + (x1 - x0) / 2 if half_height_from_width else (y0 + y1) / 2
            top = k in (0, 1)
            x0, x1 = (x0, mx) if k in (0, 2) else (mx, x1)
            if half_height_from_width:
                y0, y1 = (my, my + (my - y0)) if top else (y0, my)
            else:
                y0, y1 = (my, y1) if top != y_down else (y0, my)
        return (x0, y0, x1, y1)

    return [
        ("Hint: the node is not square: halve the *height* for y, not the width.", walk(path, half_height_from_width=True)),
        ("Hint: y grows upwards: the top children (0, 1) have the larger y.", walk(path, y_down=True)),
        ("Hint: path[0] is the root's child, path[-1] the last step.", walk(path[::-1])),
        ("Hint: children are 0 TL, 1 TR, 2 BL, 3 BR: 1 is top-right, 2 bottom-left.",
         walk([_TR_BL_SWAPPED[k] for k in path])),
        ("Hint: the midlines here are not whole numbers; compute them with /, not //.", walk(path, floor=True)),
    ]


def check_node_rect(fn) -> None:
    """Check ``fn(root, path) -> (xmin, ymin, xmax, ymax)``: the rectangle of the node reached by ``path``.

    ``root`` is the root's rectangle; ``path`` a list of child indices from the
    root (0 TL, 1 TR, 2 BL, 3 BR, y upwards); an empty path is the root.

    Raises
    ------
    CheckFailed
        On the first wrong rectangle (compared to 1e-12 of the root's size).
    """
    cases = [
        ("the root itself", (0, 0, 800, 600), []),
        ("top-left child of an 800 x 600 root", (0, 0, 800, 600), [0]),
        ("bottom-right child of an 800 x 600 root", (0, 0, 800, 600), [3]),
        ("three levels down, 800 x 600", (0, 0, 800, 600), [3, 0, 1]),
        ("two levels down, 800 x 600", (0, 0, 800, 600), [2, 1]),
        ("the same two children in the other order", (0, 0, 800, 600), [1, 2]),
        ("a root away from the origin", (-500, -500, 500, 500), [1, 2, 0]),
        ("a tall root", (10, 0, 20, 1000), [0, 3, 3]),
        ("an odd-sized root (midlines are not whole numbers)", (0.5, 0.25, 101, 60.5), [3, 0]),
    ]
    rng = np.random.default_rng(505)
    for k in range(100):
        cases.append((f"random case {k}", random_world(rng), rng.integers(0, 4, rng.integers(0, 9)).tolist()))
    mistakes = Mistakes(same=lambda a, b: np.allclose(a, b, rtol=1e-12, atol=1e-12))
    for name, root, path in cases:
        root = tuple(float(v) for v in root)
        expected = _node_rect_reference(root, path)
        call = f"node_rect({fmt(root)}, {path})"
        got = run_student(fn, root, list(path), name="node_rect", case=f"{name}: {call}")
        if not isinstance(got, (tuple, list, np.ndarray)) or len(got) != 4:
            raise CheckFailed(f"{name}: {call} must return four numbers (xmin, ymin, xmax, ymax), got {got!r}")
        g = [expect_number(v, f"{name}: a coordinate returned by {call}") for v in got]
        tol = 1e-12 * max(root[2] - root[0], root[3] - root[1], 1.0)
        if np.allclose(g, expected, rtol=0, atol=tol):
            mistakes.passed(g, _node_rect_mistakes(root, path))
        else:
            hint = mistakes.hint(g, expected, _node_rect_mistakes(root, path))
            raise CheckFailed(f"{name}: {call} returned {fmt(g)}, expected {fmt(expected)}.{' ' + hint if hint else ''}")
    print(f"node_rect passed all {len(cases)} cases, non-square and odd-sized roots included.")


# --------------------------------------------------------------------------
# Lesson 05: the indexed free list
# --------------------------------------------------------------------------
def _free_list_ops(seed: int):
    """Fixed operations (erasing every hole pattern), then 200 seeded ones; erases name live indices only."""
    ops = [("insert", 10), ("insert", 20), ("insert", 30), ("erase", 1), ("insert", 40), ("erase", 0),
           ("erase", 2), ("insert", 50), ("insert", 60), ("insert", 70), ("erase", 1), ("erase", 2),
           ("erase", 0), ("insert", -1), ("insert", 0)]
    rng = np.random.default_rng(seed)
    data, head, live = [], -1, set()
    for k in range(len(ops) + 200):
        if k >= len(ops):
            ops.append(("erase", int(rng.choice(sorted(live)))) if live and rng.random() < 0.45
                       else ("insert", int(rng.integers(-5, 999))))
        op, arg = ops[k]
        if op == "insert":
            i = head if head != -1 else len(data)
            if head != -1:
                head = data[i]
                data[i] = arg
            else:
                data.append(arg)
            live.add(i)
        else:
            data[arg], head = head, arg
            live.discard(arg)
    return ops


def check_free_list(insert, erase) -> None:
    """Check ``insert(data, head, value) -> (index, head)`` and ``erase(data, head, index) -> head``.

    ``data`` is a Python list used as the array (changed in place); ``head`` the
    first hole or -1. An erased slot stores the index of the next hole (the old
    head; -1 at the end), so the holes form a linked list inside ``data``.
    ``insert`` reuses the head hole when there is one (the most recently erased),
    else appends; indices of live values never change. The check replays 215
    operations and inspects ``data`` after every call: what each erased slot
    stores, what each reused slot holds.

    Raises
    ------
    CheckFailed
        On the first operation whose result or state differs from the rules.
    """
    ops = _free_list_ops(55)
    data, head = [], -1
    values: dict[int, int] = {}
    for step, (op, arg) in enumerate(ops, 1):
        what = f"step {step}, {op}({'index ' if op == 'erase' else ''}{arg}) with head = {head}, data = {data}"
        if op == "insert":
            want = head if head != -1 else len(data)
            want_head = data[head] if head != -1 else -1
            got, (new_data, *_) = run_in_place(insert, data, head, arg, may_change=(0,), case=what)
            if not isinstance(got, (tuple, list)) or len(got) != 2:
                raise CheckFailed(f"{what}: insert must return (index, head), got {got!r}")
            idx = expect_int(got[0], f"{what}: the index insert returned", exact=True)
            new_head = expect_int(got[1], f"{what}: the head insert returned", exact=True)
            if idx in values:
                raise CheckFailed(f"{what}: insert returned index {idx}, which holds the live value {values[idx]}. "
                                  "Hint: after taking the first hole, head must move on to the next hole (stored "
                                  "in that slot).")
            if idx != want:
                hint = (" Hint: there were holes; reuse the most recently erased one (the head) before appending."
                        if head != -1 else " Hint: with no hole (head = -1), append at the end.")
                raise CheckFailed(f"{what}: insert returned index {idx}, expected {want}.{hint}")
            if new_head != want_head:
                raise CheckFailed(f"{what}: insert returned head {new_head}, expected {want_head} (the next hole, "
                                  f"which the reused slot {idx} stored). Hint: head must move on to the next hole.")
            expect_len = len(data) + (head == -1)
            if len(new_data) != expect_len or new_data[idx] != arg:
                raise CheckFailed(f"{what}: after insert, data is {new_data}; expected {arg} at index {idx} and "
                                  f"{expect_len} slots in all")
            values[idx] = arg
        else:
            got, (new_data, *_) = run_in_place(erase, data, head, arg, may_change=(0,), case=what)
            new_head = expect_int(got, f"{what}: the head erase returned", exact=True)
            if len(new_data) != len(data):
                raise CheckFailed(f"{what}: erase changed the length of data from {len(data)} to {len(new_data)}; "
                                  "indices of live values must never change (mark the slot, do not delete it)")
            if new_data[arg] != head:
                raise CheckFailed(f"{what}: the erased slot {arg} now stores {new_data[arg]!r}, expected {head} "
                                  "(the hole that was first before: the erased slot links to it)")
            if new_head != arg:
                raise CheckFailed(f"{what}: erase returned head {new_head}, expected {arg} (the slot just erased "
                                  "is the first hole now)")
            values.pop(arg)
        for i, v in values.items():
            if i >= len(new_data) or new_data[i] != v:
                raise CheckFailed(f"{what}: index {i} should still hold {v}; indices of live values must never change.")
        data, head = list(new_data), new_head
    print(f"free list passed {len(ops)} operations: every erased slot links to the next hole, holes are reused "
          "last-in first-out, live indices never move.")


# --------------------------------------------------------------------------
# Lesson 05, core exercise: one cleanup pass on a Quadtree's node array
# --------------------------------------------------------------------------
def _cleanup_reference(nodes, meta):
    """The rules of the exercise, on copies: ``(nodes, meta, blocks freed in order)``."""
    nodes, meta = nodes.copy(), meta.copy()
    freed = []
    stack = [0] if nodes[0, 1] == BRANCH else []
    while stack:
        node = stack.pop()
        fc = int(nodes[node, 0])
        counts = [int(nodes[fc + j, 1]) for j in range(4)]
        stack.extend(fc + j for j in range(4) if counts[j] == BRANCH)
        if all(c == 0 for c in counts):
            nodes[fc, 0] = meta[1]
            nodes[fc:fc + 4, 1] = FREE_MARK
            meta[1] = fc
            nodes[node] = (-1, 0)
            freed.append(fc)
    return nodes, meta, freed


def _reachable(nodes):
    """Live nodes reachable from the root, with their rows (a dict), in pre-order."""
    out, stack = {}, [0]
    while stack:
        k = stack.pop()
        out[k] = (int(nodes[k, 0]), int(nodes[k, 1]))
        if nodes[k, 1] == BRANCH:
            stack.extend(int(nodes[k, 0]) + j for j in (3, 2, 1, 0))
    return out


def _chain(nodes, meta, what):
    """The free blocks from ``meta[1]`` on, validated as safe to follow (range, alignment, no cycle)."""
    out, h = [], int(meta[1])
    used = int(meta[0])
    while h != -1:
        if not (1 <= h < used) or (h - 1) % 4:
            where = f"after {out[-1]}" if out else "at the head"
            raise CheckFailed(f"{what}: the free list has {h} {where}, which is not the first node of a block of "
                              f"four (blocks start at 1, 5, 9, ... below {used}). Hint: children are freed as one "
                              "block: link the block's first node only.")
        if h in out:
            raise CheckFailed(f"{what}: the free list runs in a circle (block {h} appears twice)")
        out.append(h)
        h = int(nodes[h, 0])
    return out


def _cleanup_scenes(seed: int):
    """Real Quadtrees after removals (some with holes already in their free list), with their scenes."""
    rng = np.random.default_rng(seed)
    scenes = []
    named = [(name, b) for name, b in adversarial_boxes(seed, world=random_world(rng)) if len(b) >= 3]
    for k, (name, boxes) in enumerate(named):
        world = random_world(rng)
        lo, hi = boxes.min(axis=0), boxes.max(axis=0)
        span = np.maximum(hi[2:] - lo[:2], 1e-9)
        scale = np.array([world[2] - world[0], world[3] - world[1]]) / span * 0.9
        placed = np.column_stack([world[0] + (boxes[:, 0] - lo[0]) * scale[0], world[1] + (boxes[:, 1] - lo[1]) * scale[1],
                                  world[0] + (boxes[:, 2] - lo[0]) * scale[0], world[1] + (boxes[:, 3] - lo[1]) * scale[1]])
        for pattern in ("remove all", "remove the left half", "remove 70 % at random", "remove none",
                        "cleaned once, then remove the rest"):
            q = Quadtree(world=world, capacity=1 + k % 2, max_depth=3 + k % 4)
            ids = np.arange(len(placed)) * 3 + 7  # ids are not slots
            for i, b in zip(ids.tolist(), placed):
                q.insert(i, b)
            if pattern == "remove all":
                gone = ids
            elif pattern == "remove the left half":
                gone = ids[0.5 * (placed[:, 0] + placed[:, 2]) < 0.5 * (world[0] + world[2])]
            elif pattern == "remove 70 % at random":
                gone = ids[rng.random(len(ids)) < 0.7]
            elif pattern == "remove none":
                gone = ids[:0]
            else:
                for i in ids[: len(ids) // 2].tolist():
                    q.remove(i)
                q.cleanup()
                gone = ids[len(ids) // 2:]
            for i in gone.tolist():
                q.remove(i)
            keep = np.setdiff1d(ids, gone) if pattern != "cleaned once, then remove the rest" else ids[:0]
            scenes.append((f"{name}: {len(ids)} boxes, {pattern}", q, keep, placed[np.isin(ids, keep)], world))
    for k, flip in enumerate(((False, False), (True, False), (False, True), (True, True))):
        scenes.append(_reused_block_scene(random_world(rng), flip, k))
    return scenes


def _reused_block_scene(world, flip, k):
    """A tree whose free blocks were handed out again to a deeper split: children stored *before* their parent.

    A cluster in one corner splits deep; it is removed and the library's cleanup frees its
    blocks (low rows). Two boxes near the opposite corner then split a node of a high row
    twice, taking those low blocks; they are removed again. So a branch at a high row has its
    children in a low block, one of them a branch whose four children are empty leaves: a
    pass that visits rows in index order instead of descending from the root collapses both
    levels at once.
    """
    x0, y0, x1, y1 = world
    w, h = x1 - x0, y1 - y0

    def at(fx, fy):
        fx, fy = (1 - fx if flip[0] else fx), (1 - fy if flip[1] else fy)
        x, y = x0 + fx * w, y0 + fy * h
        return np.array([x, y, x + 0.003 * w, y + 0.003 * h])

    q = Quadtree(world=world, capacity=1, max_depth=6)
    first = [at(0.02, 0.02), at(0.1, 0.1), at(0.2, 0.2), at(0.3, 0.3), at(0.8, 0.8), at(0.6, 0.6), at(0.8, 0.2),
             at(0.2, 0.8)]
    ids = [11 + 5 * i for i in range(len(first) + 2)]
    for i, b in zip(ids, first):
        q.insert(i, b)
    for i in ids[:4]:
        q.remove(i)
    for _ in range(4):
        q.cleanup()
    for i, b in zip(ids[8:], (at(0.9, 0.9), at(0.97, 0.97))):
        q.insert(i, b)
    for i in ids[8:] + ids[4:5]:
        q.remove(i)
    keep = np.array(ids[5:8], np.int64)
    kept = np.array(first[5:8])
    return (f"freed blocks handed out again to a deeper split (case {k}: a branch at a high row whose children "
            "sit in a lower block)", q, keep, kept, world)


def check_cleanup_pass(fn) -> None:
    """Check ``fn(nodes, meta) -> blocks freed``: one deferred cleanup pass of the compact quadtree.

    ``nodes`` is a :class:`~lessons_lib.structures.quadtree.Quadtree`'s ``(c, 2)``
    int32 array of ``[first, count]`` rows (``count == -1``: a branch whose children
    are ``first .. first + 3``; ``count >= 0``: a leaf); ``meta`` its int64 array
    ``[rows handed out, first free block]``. Visiting branches from the root down
    (parents before children), every branch whose four children are empty leaves
    (``count == 0``) becomes an empty leaf ``(-1, 0)``, and its block of four goes to
    the front of the free list: the block's first row stores the old head in
    ``first``, all four rows get ``count = FREE_MARK`` (-2), and ``meta[1]`` becomes
    the block's first row. One pass collapses one level. Both arrays are changed in
    place; the function returns the number of blocks freed.

    The check runs the function on the arrays of real trees after removals (among
    them trees whose freed blocks were handed out again to deeper splits, so that a
    branch's children may sit in rows *before* the branch's own: a pass over the rows
    in index order instead of a descent from the root fails), inspects every live
    node and every hole, then plugs the arrays back into the tree and compares its
    pairs with brute force, before and after new inserts that reuse the freed blocks.
    The rows past ``meta[0]`` (not handed out) hold garbage, as spare rows may: a pass
    that reads or changes them fails. The count returned must be a Python ``int``.

    Raises
    ------
    CheckFailed
        The first tree whose arrays differ from the rules, naming the node or hole.
    """
    scenes = _cleanup_scenes(505)
    rng = np.random.default_rng(5050)
    for name, q, keep, kept_boxes, world in scenes:
        for pass_no in (1, 2, 3):
            what = f"{name}, cleanup pass {pass_no}"
            used = int(q.node_meta[0])
            nodes0, meta0 = _with_garbage_tail(q.nodes, used), q.node_meta.copy()
            want_nodes, want_meta, want_freed = _cleanup_reference(nodes0, meta0)
            case = f"{what} (meta = {meta0.tolist()}" + (f", nodes[:{used}] = {nodes0[:used].tolist()})" if used <= 41
                                                         else f", {used} rows handed out)")
            got, (nodes, meta) = run_in_place(fn, nodes0, meta0, may_change=(0, 1), name="cleanup_pass", case=case)
            freed = expect_int(got, f"{what}: the number of blocks your function returned", exact=True)
            if not isinstance(nodes, np.ndarray) or nodes.shape != nodes0.shape or nodes.dtype != nodes0.dtype:
                raise CheckFailed(f"{what}: change nodes in place; it must stay a {nodes0.shape} int32 array")
            if not isinstance(meta, np.ndarray) or meta.shape != (2,) or int(meta[0]) != int(meta0[0]):
                raise CheckFailed(f"{what}: meta must stay [rows handed out, head] with rows handed out = "
                                  f"{int(meta0[0])} (a cleanup hands out nothing); got {meta!r}")
            tail = next((r for r in range(used, len(nodes)) if not np.array_equal(nodes[r], nodes0[r])), None)
            if tail is not None:
                raise CheckFailed(f"{what}: your function changed row {tail} of nodes (from {nodes0[tail].tolist()} to "
                                  f"{nodes[tail].tolist()}), but only rows 0 .. {used - 1} are handed out (meta[0] = "
                                  f"{used}); the rows past them are not nodes of the tree, whatever they hold.")
            if want_freed and np.array_equal(nodes, nodes0) and np.array_equal(meta, meta0):
                raise CheckFailed(f"{what}: your function left nodes and meta unchanged, but {len(want_freed)} "
                                  "block(s) should have been freed. Hint: change the arrays you are given in place "
                                  "(nodes[k, 1] = ..., meta[1] = ...), not a copy.")
            live_want, live_got = _reachable(want_nodes), None
            try:
                live_got = _reachable_checked(nodes, int(meta0[0]))
            except CheckFailed as e:
                raise CheckFailed(f"{what}: {e}") from None
            for k, row in live_want.items():
                if live_got.get(k) != row:
                    before = (int(nodes0[k, 0]), int(nodes0[k, 1]))
                    got_row = live_got.get(k, "not reachable from the root")
                    hint = ""
                    if row == (-1, 0) and before[1] == BRANCH:
                        hint = " (its four children were empty leaves when the pass started)"
                    elif before[1] == BRANCH and got_row == (-1, 0):
                        fc = before[0]
                        kids = [(int(nodes0[fc + j, 0]), int(nodes0[fc + j, 1])) for j in range(4)]
                        if any(c[1] > 0 for c in kids):
                            hint = (f": it must stay a branch, one of its children held elements when the pass "
                                    f"started (children {kids}); only empty leaves, count 0, may go")
                        else:
                            hint = (f": it must stay a branch for now, one of its children was a branch when the pass "
                                    f"started (children {kids}). Hint: parents are visited before their children, "
                                    "so one pass collapses one level")
                    raise CheckFailed(f"{what}: node {k} is {got_row}, expected {row}{hint}. Before the pass it "
                                      f"was {before}.")
            extra = sorted(set(live_got) - set(live_want))
            if extra:
                raise CheckFailed(f"{what}: node {extra[0]} is reachable from the root after your pass, but it "
                                  "should have gone to the free list")
            chain = _chain(nodes, meta, what)
            old_chain = _chain(nodes0, meta0, what)
            new = chain[: len(chain) - len(old_chain)]
            if chain[len(new):] != old_chain:
                raise CheckFailed(f"{what}: after your pass the free list is {chain}; it must still end with the "
                                  f"blocks that were free before, {old_chain}, in their order. Hint: the freed "
                                  "block's first row must store the old head.")
            if sorted(new) != sorted(want_freed):
                missing = sorted(set(want_freed) - set(new))
                raise CheckFailed(f"{what}: the free list gained blocks {new}, expected {sorted(want_freed)}"
                                  + (f": block {missing[0]} was freed but is not reachable from head" if missing
                                     else ""))
            for b in new:
                marks = [int(nodes[b + j, 1]) for j in range(4)]
                if marks != [FREE_MARK] * 4:
                    raise CheckFailed(f"{what}: the freed block {b}..{b + 3} has counts {marks}; every row of a free "
                                      f"block gets count FREE_MARK = {FREE_MARK}")
            if freed != len(want_freed):
                raise CheckFailed(f"{what}: your function returned {freed}, but it freed {len(want_freed)} block(s)")
            q.nodes[:used] = nodes[:used]
            q.node_meta[:] = meta
            try:
                q.check_invariants()
            except AssertionError as e:  # pragma: no cover - the validation above leaves nothing for this
                raise CheckFailed(f"{what}: the tree rejects the arrays after your pass: {e}") from None
        if not np.array_equal(q.pairs(), _pairs_of(keep, kept_boxes)):
            raise CheckFailed(f"{name}: after your cleanup passes the tree's pairs differ from brute force")
        x0, y0, x1, y1 = world
        xy = rng.uniform((x0, y0), (x1, y1), (12, 2))
        extra_boxes = np.column_stack([xy, xy + rng.uniform(0, 0.2, (12, 2)) * (x1 - x0, y1 - y0)])
        for k, b in enumerate(extra_boxes):
            q.insert(10_000 + k, b)
        q.check_invariants()
        ids = np.concatenate([keep, 10_000 + np.arange(len(extra_boxes))])
        if not np.array_equal(q.pairs(), _pairs_of(ids, np.vstack([kept_boxes, extra_boxes]))):
            raise CheckFailed(f"{name}: after your cleanup passes, inserting 12 boxes (which reuse the freed "
                              "blocks) gives pairs that differ from brute force")
    print(f"cleanup_pass passed {len(scenes)} trees, three passes each: live nodes, free blocks and their links as "
          "the rules say; the trees, given your arrays, match brute force before and after new inserts.")


def _with_garbage_tail(nodes, used):
    """A copy of ``nodes`` whose rows past the ``used`` handed out hold garbage (a tree's spare rows may).

    The garbage looks like branches pointing at blocks of empty leaves and like leaves: a pass
    that reads rows it was never handed out (all rows, not the tree from the root) changes the tree.
    """
    out = nodes.copy()
    for r in range(used, len(out)):
        out[r] = ((1 + 4 * (r % max(1, (used - 1) // 4)), -1), (r, 0), (-1, -1))[r % 3]
    return out


def _reachable_checked(nodes, used):
    """:func:`_reachable` that first makes sure every index it follows is a valid, aligned child block."""
    out, stack = {}, [0]
    while stack:
        k = stack.pop()
        if k in out:
            raise CheckFailed(f"node {k} is reachable twice")
        out[k] = (int(nodes[k, 0]), int(nodes[k, 1]))
        first, count = out[k]
        if count == BRANCH:
            if not (1 <= first < used) or (first - 1) % 4:
                raise CheckFailed(f"branch {k} points at children {first}, which is not a block of four handed out")
            stack.extend(first + j for j in (3, 2, 1, 0))
        elif count < 0:
            raise CheckFailed(f"node {k} is reachable from the root but has count {count}, neither a leaf nor a "
                              "branch (a freed block was left linked to its parent?)")
    return out


def _pairs_of(ids, boxes):
    """Brute-force pairs of ``boxes`` under ``ids`` (sorted rows ``a < b``)."""
    p = brute_force_pairs(np.asarray(boxes, np.float64).reshape(-1, 4))
    ids = np.asarray(ids, np.int64)
    if len(p) == 0:
        return np.empty((0, 2), np.int64)
    rows = np.sort(ids[p], axis=1)
    return rows[np.lexsort((rows[:, 1], rows[:, 0]))]


"""Exercise checks of lessons 04-05: each passes the reference, fails the stub, fails named typical mistakes."""
import numpy as np
import pytest

from lessons_lib.checks import (
    CheckFailed,
    check_children_touched,
    check_cleanup_pass,
    check_free_list,
    check_leaf_pairs,
    check_node_rect,
    check_split,
)
from lessons_lib.core.freelist import FREE_MARK
from lessons_lib.structures.naive_quadtree import Node, child_rects


def stub(*args):
    raise NotImplementedError


def _touch(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


# -- lesson 04, warm-up: children_touched -----------------------------------
def children_reference(rect, box):
    x0, y0, x1, y1 = rect
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    quads = [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]
    return [k for k, q in enumerate(quads) if _touch(q, box)]


def children_height_from_width(rect, box):  # the widely copied fault
    x0, y0, x1, y1 = rect
    hx = (x1 - x0) / 2
    mx, my = x0 + hx, y0 + hx
    quads = [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]
    return [k for k, q in enumerate(quads) if _touch(q, box)]


def children_strict(rect, box):  # open quadrants: a box touching a midline goes one way only
    x0, y0, x1, y1 = rect
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    out = []
    if box[2] >= x0 and box[0] <= x1 and box[3] >= y0 and box[1] <= y1:
        for k, (left, top) in enumerate([(1, 1), (0, 1), (1, 0), (0, 0)]):
            okx = box[0] < mx if left else box[2] > mx
            oky = box[3] > my if top else box[1] < my
            if okx and oky:
                out.append(k)
    return out


def children_y_down(rect, box):  # "top" = smaller y (screen coordinates)
    x0, y0, x1, y1 = rect
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    quads = [(x0, y0, mx, my), (mx, y0, x1, my), (x0, my, mx, y1), (mx, my, x1, y1)]
    return [k for k, q in enumerate(quads) if _touch(q, box)]


def children_ignores_node(rect, box):  # forgets that a box may miss the node entirely
    x0, y0, x1, y1 = rect
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    out = []
    for k, (lo_x, lo_y) in enumerate([(True, False), (False, False), (True, True), (False, True)]):
        if (box[0] <= mx if lo_x else box[2] >= mx) and (box[1] <= my if lo_y else box[3] >= my):
            out.append(k)
    return out


def children_floor_division(rect, box):  # a midpoint by //: right only on whole-number nodes
    x0, y0, x1, y1 = rect
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    quads = [(x0, my, mx, y1), (mx, my, x1, y1), (x0, y0, mx, my), (mx, y0, x1, my)]
    return [k for k, q in enumerate(quads) if _touch(q, box)]


def children_repeats(rect, box):  # a child listed once per corner that lies in it
    return children_reference(rect, box) * 2


def children_floats(rect, box):
    return [float(k) for k in children_reference(rect, box)]


def test_children_reference_passes(capsys):
    check_children_touched(children_reference)
    assert "passed" in capsys.readouterr().out


def test_children_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_children_touched(stub)


@pytest.mark.parametrize("wrong, message", [
    (children_height_from_width, "height"),
    (children_strict, "touches a midline"),
    (children_y_down, "y upwards"),
    (children_ignores_node, "misses the node"),
    (children_floor_division, "not //"),
    (children_repeats, "more than once"),
    (children_floats, "must be an integer"),
    (lambda r, b: 3, "list of child indices"),
    (lambda r, b: None, "returned None"),
])
def test_children_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_children_touched(wrong)


# -- lesson 04, core: split -------------------------------------------------
def make_split(*, touch=_touch, first_only=False, recurse=True, limit_depth=True, empty_branch=True,
               over=lambda count, capacity: count > capacity, step=1):
    """The reference split (all defaults), or one of its typical mistakes (one argument changed)."""
    def split(node, boxes, capacity, max_depth):
        node.children = [Node(r, node.depth + step) for r in child_rects(node.rect)]
        for s in node.elements:
            for child in node.children:
                if touch(child.rect, boxes[s]):
                    child.elements.append(s)
                    if first_only:
                        break
        if empty_branch:
            node.elements = []
        for child in node.children:
            if recurse and over(len(child.elements), capacity) and (child.depth < max_depth or not limit_depth):
                split(child, boxes, capacity, max_depth)
        return node
    return split


def _open_touch(a, b):  # open quadrants: a box only touching a side is not in the child
    return (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]) or \
        ((b[0] == b[2] or b[1] == b[3]) and _touch(a, b) and a[0] < b[2] and a[1] < b[3])


split_reference = make_split()
split_no_depth_limit = make_split(limit_depth=False)
split_open_quadrants = make_split(touch=_open_touch)
split_first_child_only = make_split(first_only=True)
split_one_level = make_split(recurse=False)
split_keeps_elements = make_split(empty_branch=False)
split_at_capacity = make_split(over=lambda count, capacity: count >= capacity)
split_same_depth = make_split(step=0)


def split_returns_children(node, boxes, capacity, max_depth):
    return split_reference(node, boxes, capacity, max_depth).children


def test_split_reference_passes(capsys):
    check_split(split_reference)
    assert "passed" in capsys.readouterr().out


def test_split_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_split(stub)


@pytest.mark.parametrize("wrong, message", [
    (split_no_depth_limit, "max_depth"),
    (split_open_quadrants, "closed"),
    (split_first_child_only, "every child it touches"),
    (split_one_level, "must be split in turn"),
    (split_keeps_elements, "still holds elements"),
    (split_at_capacity, "split only a leaf holding more than capacity"),
    (split_same_depth, "one level deeper"),
    (split_returns_children, "must return the node"),
    (lambda node, boxes, c, d: None, "returned None"),
])
def test_split_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_split(wrong)


# -- lesson 04: leaf_pairs --------------------------------------------------
def leaf_pairs_reference(leaves, boxes):
    found = set()
    for leaf in leaves:
        for a in range(len(leaf)):
            for b in range(a + 1, len(leaf)):
                i, j = sorted((leaf[a], leaf[b]))
                if _touch(boxes[i], boxes[j]):
                    found.add((i, j))
    return sorted(found)


def leaf_pairs_duplicates(leaves, boxes):  # a list, not a set
    found = []
    for leaf in leaves:
        for a in range(len(leaf)):
            for b in range(a + 1, len(leaf)):
                i, j = sorted((leaf[a], leaf[b]))
                if _touch(boxes[i], boxes[j]):
                    found.append((i, j))
    return found


def leaf_pairs_unordered(leaves, boxes):  # (leaf[a], leaf[b]) as listed: fine only on sorted leaves
    return sorted({(l[a], l[b]) for l in leaves for a in range(len(l)) for b in range(a + 1, len(l))
                   if _touch(boxes[l[a]], boxes[l[b]])})


def leaf_pairs_no_test(leaves, boxes):  # every pair sharing a leaf
    return sorted({tuple(sorted((l[a], l[b]))) for l in leaves for a in range(len(l)) for b in range(a + 1, len(l))})


def leaf_pairs_strict(leaves, boxes):
    def strict(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    return sorted({tuple(sorted((l[a], l[b]))) for l in leaves for a in range(len(l)) for b in range(a + 1, len(l))
                   if strict(boxes[l[a]], boxes[l[b]])})


def leaf_pairs_clears_input(leaves, boxes):
    out = leaf_pairs_reference(leaves, boxes)
    leaves.clear()
    return out


def test_leaf_pairs_reference_passes(capsys):
    check_leaf_pairs(leaf_pairs_reference)
    assert "passed" in capsys.readouterr().out


def test_leaf_pairs_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_leaf_pairs(stub)


@pytest.mark.parametrize("wrong, message", [
    (leaf_pairs_duplicates, "more than once|twice"),
    (leaf_pairs_unordered, "smaller index first"),
    (leaf_pairs_no_test, "do not intersect"),
    (leaf_pairs_strict, "touching counts"),
    (leaf_pairs_clears_input, "changed its argument number 1 in place"),
])
def test_leaf_pairs_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_leaf_pairs(wrong)


# -- lesson 05, warm-up: node_rect ------------------------------------------
def node_rect_reference(root, path):
    x0, y0, x1, y1 = root
    for k in path:
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        x0, x1 = (x0, mx) if k in (0, 2) else (mx, x1)
        y0, y1 = (my, y1) if k in (0, 1) else (y0, my)
    return (x0, y0, x1, y1)


def node_rect_height_from_width(root, path):
    x0, y0, x1, y1 = root
    for k in path:
        hx = (x1 - x0) / 2
        mx, my = x0 + hx, y0 + hx
        x0, x1 = (x0, mx) if k in (0, 2) else (mx, x1)
        y0, y1 = (my, my + hx) if k in (0, 1) else (y0, my)
    return (x0, y0, x1, y1)


def node_rect_y_down(root, path):
    x0, y0, x1, y1 = root
    for k in path:
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        x0, x1 = (x0, mx) if k in (0, 2) else (mx, x1)
        y0, y1 = (y0, my) if k in (0, 1) else (my, y1)
    return (x0, y0, x1, y1)


def node_rect_reversed(root, path):
    return node_rect_reference(root, list(reversed(path)))


def node_rect_floor_division(root, path):
    x0, y0, x1, y1 = root
    for k in path:
        mx, my = (x0 + x1) // 2, (y0 + y1) // 2
        x0, x1 = (x0, mx) if k in (0, 2) else (mx, x1)
        y0, y1 = (my, y1) if k in (0, 1) else (y0, my)
    return (x0, y0, x1, y1)


def test_node_rect_reference_passes(capsys):
    check_node_rect(node_rect_reference)
    assert "passed" in capsys.readouterr().out


def test_node_rect_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_node_rect(stub)


@pytest.mark.parametrize("wrong, message", [
    (node_rect_height_from_width, "height"),
    (node_rect_y_down, "y grows upwards"),
    (node_rect_reversed, "path\\[0\\] is the root's child"),
    (node_rect_floor_division, "expected"),
    (lambda root, path: root, "expected"),
    (lambda root, path: "nope", "four numbers"),
])
def test_node_rect_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_node_rect(wrong)


# -- lesson 05: the free list -----------------------------------------------
def fl_insert(data, head, value):
    if head != -1:
        i = head
        head = data[i]
        data[i] = value
        return i, head
    data.append(value)
    return len(data) - 1, head


def fl_erase(data, head, index):
    data[index] = head
    return index


def fl_insert_append_only(data, head, value):
    data.append(value)
    return len(data) - 1, head


def fl_insert_head_stuck(data, head, value):  # reuses the hole but never advances head
    if head != -1:
        data[head] = value
        return head, head
    data.append(value)
    return len(data) - 1, head


def fl_erase_shifts(data, head, index):  # deletes from the list: later indices move
    del data[index]
    return index


def fl_erase_no_link(data, head, index):  # marks the hole but loses the older holes
    data[index] = -1
    return index


def fl_erase_returns_old_head(data, head, index):
    data[index] = head
    return head


def fl_insert_fifo(data, head, value):  # reuses the oldest hole (the end of the chain), not the head
    if head == -1:
        data.append(value)
        return len(data) - 1, head
    prev, h = -1, head
    while data[h] != -1:
        prev, h = h, data[h]
    if prev == -1:
        head = -1
    else:
        data[prev] = -1
    data[h] = value
    return h, head


def test_free_list_reference_passes(capsys):
    check_free_list(fl_insert, fl_erase)
    assert "passed" in capsys.readouterr().out


def test_free_list_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_free_list(stub, fl_erase)


@pytest.mark.parametrize("ins, era, message", [
    (fl_insert_append_only, fl_erase, "reuse the most recently erased"),
    (fl_insert_head_stuck, fl_erase, "head must move on"),
    (fl_insert, fl_erase_shifts, "never change"),
    (fl_insert, fl_erase_no_link, "now stores -1, expected"),
    (fl_insert, fl_erase_returns_old_head, "erase returned head"),
    (fl_insert_fifo, fl_erase, "expected"),
])
def test_free_list_wrong_answers_fail(ins, era, message):
    with pytest.raises(CheckFailed, match=message):
        check_free_list(ins, era)


# -- lesson 05, core: cleanup_pass ------------------------------------------
def make_cleanup(*, link=True, mark=True, one_level=True, empty_only=True, as_block=True, update_parent=True):
    """The reference cleanup pass (all defaults), or one of its typical mistakes (one argument changed)."""
    def collapse(nodes, meta, node, fc):
        if as_block:
            nodes[fc, 0] = meta[1] if link else -1
            if mark:
                nodes[fc:fc + 4, 1] = FREE_MARK
            meta[1] = fc
        else:
            for j in range(4):  # four single holes instead of one block
                nodes[fc + j] = (meta[1], FREE_MARK)
                meta[1] = fc + j
        if update_parent:
            nodes[node] = (-1, 0)

    def collapsible(nodes, fc):
        return all((nodes[fc + j, 1] == 0) if empty_only else (nodes[fc + j, 1] >= 0) for j in range(4))

    def cleanup(nodes, meta):
        if nodes[0, 1] != -1:
            return 0
        freed = 0
        if one_level:
            stack = [0]
            while stack:
                node = stack.pop()
                fc = nodes[node, 0]
                stack.extend(fc + j for j in range(4) if nodes[fc + j, 1] == -1)
                if collapsible(nodes, fc):
                    collapse(nodes, meta, node, fc)
                    freed += 1
            return freed
        order, stack = [], [0]  # children before parents: every level in one pass
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(nodes[node, 0] + j for j in range(4) if nodes[nodes[node, 0] + j, 1] == -1)
        for node in reversed(order):
            if nodes[node, 1] == -1 and collapsible(nodes, nodes[node, 0]):
                collapse(nodes, meta, node, nodes[node, 0])
                freed += 1
        return freed
    return cleanup


cleanup_reference = make_cleanup()
cleanup_no_link = make_cleanup(link=False)
cleanup_bottom_up = make_cleanup(one_level=False)
cleanup_any_leaves = make_cleanup(empty_only=False)
cleanup_no_mark = make_cleanup(mark=False)
cleanup_one_by_one = make_cleanup(as_block=False)
cleanup_parent_left_branch = make_cleanup(update_parent=False)


def cleanup_copies(nodes, meta):  # works on a copy: the tree never changes
    return cleanup_reference(nodes.copy(), meta.copy())


def test_cleanup_reference_passes(capsys):
    check_cleanup_pass(cleanup_reference)
    assert "passed" in capsys.readouterr().out


def test_cleanup_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_cleanup_pass(stub)


@pytest.mark.parametrize("wrong, message", [
    (cleanup_no_link, "not reachable from head|must still end with the blocks that were free before"),
    (cleanup_bottom_up, "one pass collapses one level"),
    (cleanup_any_leaves, "held elements"),
    (cleanup_no_mark, "FREE_MARK"),
    (cleanup_one_by_one, "not the first node of a block of four"),
    (cleanup_parent_left_branch, "reachable from the root but has count -2"),
    (cleanup_copies, "in place"),
    (lambda nodes, meta: None, "returned None"),
])
def test_cleanup_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_cleanup_pass(wrong)


def test_cleanup_wrong_count_fails():
    def miscounts(nodes, meta):
        cleanup_reference(nodes, meta)
        return 0
    with pytest.raises(CheckFailed, match="returned 0, but it freed"):
        check_cleanup_pass(miscounts)


def test_cleanup_check_leaves_the_structure_usable():
    """The arrays the check plugs back are the reference's: the tree still answers like brute force."""
    from lessons_lib.structures.quadtree import Quadtree
    boxes = np.array([[1, 1, 2, 2], [10, 10, 11, 11], [80, 80, 81, 81.]])  # the first two separate only at depth 4
    q = Quadtree.from_boxes(boxes, world=(0, 0, 100, 100), capacity=1, max_depth=4)
    q.remove(0)
    q.remove(1)
    nodes, meta = q.nodes.copy(), q.node_meta.copy()
    assert cleanup_reference(nodes, meta) == 1
    q.nodes[:], q.node_meta[:] = nodes, meta
    q.check_invariants()
    assert q.query([0, 0, 100, 100]).tolist() == [2]


# == issue 33: each kind of wrong answer that used to pass, and valid alternatives that must ==========
# -- inputs too regular ------------------------------------------------------------------------------
def cleanup_row_order(nodes, meta):
    """Visits the branches in row order instead of descending from the root (right while parents precede children)."""
    freed = 0
    for node in range(int(meta[0])):
        if nodes[node, 1] != -1:
            continue
        fc = nodes[node, 0]
        if all(nodes[fc + j, 1] == 0 for j in range(4)):
            nodes[fc, 0] = meta[1]
            nodes[fc:fc + 4, 1] = FREE_MARK
            meta[1] = fc
            nodes[node] = (-1, 0)
            freed += 1
    return freed


def test_cleanup_in_row_order_fails_on_a_reused_block():
    with pytest.raises(CheckFailed, match="freed blocks handed out again to a deeper split.*must stay a branch for now"):
        check_cleanup_pass(cleanup_row_order)


def test_leaf_pairs_over_every_box_fails():
    def every_intersecting_pair(leaves, boxes):
        return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if _touch(boxes[i], boxes[j])]
    with pytest.raises(CheckFailed, match="intersect but share no leaf"):
        check_leaf_pairs(every_intersecting_pair)


# -- right by accident: rows that are no node of the tree -------------------------------------------
def test_cleanup_reading_rows_past_those_handed_out_fails():
    def every_row(nodes, meta):  # scans the whole array: past meta[0] the rows are not nodes
        freed = 0
        for node in range(len(nodes)):
            fc = nodes[node, 0]
            if nodes[node, 1] == -1 and 0 < fc and fc + 3 < len(nodes) and all(nodes[fc + j, 1] == 0 for j in range(4)):
                nodes[fc, 0] = meta[1]
                nodes[fc:fc + 4, 1] = FREE_MARK
                meta[1] = fc
                nodes[node] = (-1, 0)
                freed += 1
        return freed
    with pytest.raises(CheckFailed, match="the rows past them are not nodes of the tree"):
        check_cleanup_pass(every_row)


# -- types --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("check, args, message", [
    (check_free_list, (lambda d, h, v: tuple(np.int64(x) for x in fl_insert(d, h, v)), fl_erase), "Python int"),
    (check_free_list, (fl_insert, lambda d, h, i: np.int64(fl_erase(d, h, i))), "Python int"),
    (check_cleanup_pass, (lambda n, m: np.int64(cleanup_reference(n, m)),), "Python int"),
    (check_children_touched, (lambda r, b: np.array(children_reference(r, b), np.int64),), "list of ints"),
    (check_leaf_pairs, (lambda leaves, boxes: [(np.int64(i), np.int64(j)) for i, j in leaf_pairs_reference(leaves, boxes)],),
     "Python int"),
])
def test_numpy_integers_where_ints_are_asked_fail(check, args, message):
    with pytest.raises(CheckFailed, match=message):
        check(*args)


# -- messages: a hint only when the answer proves it; a crash names its input ------------------------
def test_node_rect_with_tr_and_bl_exchanged_is_not_told_about_the_path():
    def transposed(root, path):
        return node_rect_reference(root, [{0: 0, 1: 2, 2: 1, 3: 3}[k] for k in path])
    with pytest.raises(CheckFailed, match="1 is top-right, 2 bottom-left") as e:
        check_node_rect(transposed)
    assert "path[0]" not in str(e.value)


def test_children_with_tr_and_bl_exchanged_get_their_own_hint():
    with pytest.raises(CheckFailed, match="1 is top-right, 2 bottom-left"):
        check_children_touched(lambda r, b: sorted({0: 0, 1: 2, 2: 1, 3: 3}[k] for k in children_reference(r, b)))


def test_a_wrong_answer_matching_no_mistake_gets_no_hint():
    with pytest.raises(CheckFailed, match=r"returned \[0, 1, 2, 3\], expected") as e:
        check_children_touched(lambda r, b: [0, 1, 2, 3])
    assert "Hint" not in str(e.value)


def test_a_crash_names_the_operation_and_the_list():
    def fl_insert_reads_past_the_end(data, head, value):
        if head != -1:
            nxt = data[head + 100]
            data[head] = value
            return head, nxt
        data.append(value)
        return len(data) - 1, head
    with pytest.raises(CheckFailed, match=r"raised IndexError: list index out of range on step \d+, insert\(\d+\) with "
                                          r"head = \d+, data = \["):
        check_free_list(fl_insert_reads_past_the_end, fl_erase)


# -- valid alternatives pass ---------------------------------------------------------------------------
def children_by_sides(rect, box):
    """Which side of each midline the box reaches, then the product: another way to the same answer."""
    x0, y0, x1, y1 = rect
    if box[2] < x0 or box[0] > x1 or box[3] < y0 or box[1] > y1:
        return []
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    cols = [c for c, ok in ((0, box[0] <= mx), (1, box[2] >= mx)) if ok]
    rows = [r for r, ok in ((0, box[3] >= my), (1, box[1] <= my)) if ok]
    return [2 * r + c for r in rows for c in cols]


def split_iterative(node, boxes, capacity, max_depth):
    """A stack instead of recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        n.children = [Node(r, n.depth + 1) for r in child_rects(n.rect)]
        for s in n.elements:
            for c in n.children:
                if _touch(c.rect, boxes[s]):
                    c.elements.append(s)
        n.elements = []
        stack.extend(c for c in n.children if len(c.elements) > capacity and c.depth < max_depth)
    return node


def leaf_pairs_by_box(leaves, boxes):
    """Leaves per box, then each box's partners among the boxes sharing one of its leaves."""
    where = {}
    for k, leaf in enumerate(leaves):
        for i in leaf:
            where.setdefault(i, set()).add(k)
    out = set()
    for leaf in leaves:
        for i in leaf:
            for j in leaf:
                if i < j and _touch(boxes[i], boxes[j]):
                    out.add((i, j))
    return list(out)


def node_rect_scaled(root, path):
    """Offsets in units of the node's size, scaled once at the end."""
    fx0 = fy0 = 0.0
    size = 1.0
    for k in path:
        size /= 2
        fx0 += size if k in (1, 3) else 0.0
        fy0 += size if k in (0, 1) else 0.0
    w, h = root[2] - root[0], root[3] - root[1]
    return (root[0] + fx0 * w, root[1] + fy0 * h, root[0] + (fx0 + size) * w, root[1] + (fy0 + size) * h)


def cleanup_queue(nodes, meta):
    """Breadth first (a queue) instead of a stack: still parents before children."""
    from collections import deque
    if nodes[0, 1] != -1:
        return 0
    freed, queue = 0, deque([0])
    while queue:
        node = queue.popleft()
        fc = int(nodes[node, 0])
        kids = [int(nodes[fc + j, 1]) for j in range(4)]
        queue.extend(fc + j for j in range(4) if kids[j] == -1)
        if kids == [0, 0, 0, 0]:
            nodes[fc, 0] = meta[1]
            nodes[fc:fc + 4, 1] = FREE_MARK
            meta[1] = fc
            nodes[node] = (-1, 0)
            freed += 1
    return freed


@pytest.mark.parametrize("check, args", [
    (check_children_touched, (children_by_sides,)),
    (check_split, (split_iterative,)),
    (check_leaf_pairs, (leaf_pairs_by_box,)),
    (check_node_rect, (node_rect_scaled,)),
    (check_node_rect, (lambda root, path: list(node_rect_reference(root, path)),)),
    (check_cleanup_pass, (cleanup_queue,)),
])
def test_valid_alternatives_pass(check, args):
    check(*args)

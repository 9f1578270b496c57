"""Exercise checks of lessons 04-05: each passes the reference, fails the stub, fails plausible wrong answers."""
import pytest

from lessons_lib.checks import (
    CheckFailed,
    check_children_touched,
    check_free_list,
    check_leaf_pairs,
    check_node_rect,
)


def stub(*args):
    raise NotImplementedError


# -- lesson 04, exercise 1: children_touched --------------------------------
def _touch(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


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
    (lambda r, b: 3, "list of child indices"),
])
def test_children_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_children_touched(wrong)


# -- lesson 04, exercise 2: leaf_pairs --------------------------------------
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


def leaf_pairs_no_test(leaves, boxes):  # every pair sharing a leaf
    return sorted({tuple(sorted((l[a], l[b]))) for l in leaves for a in range(len(l)) for b in range(a + 1, len(l))})


def leaf_pairs_strict(leaves, boxes):
    def strict(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    return sorted({tuple(sorted((l[a], l[b]))) for l in leaves for a in range(len(l)) for b in range(a + 1, len(l))
                   if strict(boxes[l[a]], boxes[l[b]])})


def test_leaf_pairs_reference_passes(capsys):
    check_leaf_pairs(leaf_pairs_reference)
    assert "passed" in capsys.readouterr().out


def test_leaf_pairs_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_leaf_pairs(stub)


@pytest.mark.parametrize("wrong, message", [
    (leaf_pairs_duplicates, "more than once"),
    (leaf_pairs_no_test, "do not intersect"),
    (leaf_pairs_strict, "touching counts"),
])
def test_leaf_pairs_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_leaf_pairs(wrong)


# -- lesson 05, exercise 1: node_rect ---------------------------------------
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


def test_node_rect_reference_passes(capsys):
    check_node_rect(node_rect_reference)
    assert "passed" in capsys.readouterr().out


def test_node_rect_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        check_node_rect(stub)


@pytest.mark.parametrize("wrong, message", [
    (node_rect_height_from_width, "height"),
    (node_rect_y_down, "y grows upwards"),
    (lambda root, path: root, "expected"),
])
def test_node_rect_wrong_answers_fail(wrong, message):
    with pytest.raises(CheckFailed, match=message):
        check_node_rect(wrong)


# -- lesson 05, exercise 2: the free list -----------------------------------
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
    return head


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
])
def test_free_list_wrong_answers_fail(ins, era, message):
    with pytest.raises(CheckFailed, match=message):
        check_free_list(ins, era)

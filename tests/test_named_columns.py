"""No kernel in ``lessons_lib/structures`` reads a box's side by number: ``b[i, XMIN]``, never ``b[i, 0]``.

The names are :data:`lessons_lib.core.boxes.XMIN` .. ``YMAX`` (columns 0..3 of a box row
``[xmin, ymin, xmax, ymax]``); numba compiles these module-level integers to the same code.

Detection rule (read from the source with ``ast``, nothing imported). In every module of
``lessons_lib/structures`` (except those in :data:`NOT_YET_DONE`), a subscript fails when

* its value is an expression known to hold an ``(n, 4)`` array of boxes in that module
  (:data:`BOX_ARRAYS`, plus ``boxes`` everywhere), its index is a tuple, and the tuple's last
  element is an integer literal 0..3 (``boxes[s, 2]``, ``b[:, 0]``, ``a[..., 3]``); or
* its value is a name known to hold one box in that module (:data:`ONE_BOX`) and its index is
  an integer literal 0..3 (``q[0]``).

Slices and axis offsets count as numbers too: ``b[:, :2]`` (write ``b[:, MIN_CORNER]``),
``b[i, axis + 2]`` (write ``b[i, XMAX + axis]``, since ``XMIN + axis`` and ``XMAX + axis`` are the
low and high side along ``axis`` 0 = x or 1 = y).

The expressions are listed per module because the same letter holds boxes in one module and
pairs, centres or cells in another (``out[k, 0]`` is a pair's first slot, ``centres[s, 0]`` an x).
Columns of other arrays (pairs, centres, work lists) are not box columns and are not checked
here. A module whose names change must update its entry.

Node tuples: the tree kernels take a tree's node arrays as one tuple ``nd`` (the R-tree family's
``(box, level, count, parent, child, meta, free)`` of :mod:`lessons_lib.structures.rtree_nodes`,
the dynamic AABB tree's own). A subscript ``nd[<integer literal>]`` fails in every module of
``lessons_lib/structures`` (except those in :data:`NODES_NOT_YET_DONE`): read a field by its
name (``nd[COUNT]``, ``nd[CHILD]``) or unpack the whole tuple. In these modules ``nd`` is only
ever a node tuple, so the rule is exact.

Other arrays whose columns all have names (:data:`NAMED_COLUMN_ARRAYS`, by module) are read by
those names too: ``bins[b, BIN_COUNT]``, never ``bins[b, 0]``.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

import lessons_lib.structures

ROOT = pathlib.Path(lessons_lib.structures.__file__).resolve().parent

#: Modules not converted yet (being reworked by another change).
NOT_YET_DONE: set[str] = set()

#: Expressions (as ``ast.unparse`` writes them) holding an ``(n, 4)`` array of boxes, by module.
BOX_ARRAYS: dict[str, set[str]] = {
    "aabb_tree_build": {'box', 'cb', 'child_cb', 'lb'},
    "aabb_tree_nodes": {'box', 'eb', 'old'},
    "aabb_tree_search": {'box', 'eb'},
    "brute_force": {'b', 'bf'},
    "cell_size": {'b', 'boxes'},
    "counting_sort_grid": set(),
    "dynamic_aabb_tree": {'box', 'eb', 'old'},
    "endpoints": set(),  # only ``boxes`` (refresh_keys), checked in every module
    "kdtree": {'box'},
    "loose_bounds": {'boxes', 'rects'},
    "loose_quadtree": {'boxes', 'boxes_out', 'rects', "t['bounds']"},
    "loose_quadtree_changes": {'boxes', 'rects'},
    "loose_tight_cells": {'lrect', 'rect', 'scratch'},
    "loose_tight_grid": {'b', 'copied', 'lrect', 'rects', 'self.lrect', 'self.srect', 'srect'},
    "loose_tight_pairs": {'rects', 'srect'},
    "naive_quadtree": {'clipped'},
    "point_grid": {'b', 'self.elements.boxes'},
    "quad_nodes": {'b', 'boxes', 'rect'},
    "quadtree": {'boxes', 'g'},
    "quadtree_changes": {'boxes', 'old'},
    "rstar_tree": {'b', 'pre', 'src', 'suf', 'u'},
    "rtree": {'b', 'box', 'src'},
    "rtree_nodes": {'b', 'box', 'src'},
    "rtree_quality": {'b', 'eb', 'nodes.box', 'src'},
    "rtree_search": {'box', 'eb', 'elem_boxes', 'src'},
    "rtree_split": {'b', 'g', 'gb'},
    "spatial_hash": {'b'},
    "split_broad_phase": {'a', 'b'},
    "uniform_grid": {'b', 'boxes'},
}

#: Names holding one box (a ``(4,)`` array or a 4-tuple), by module.
ONE_BOX: dict[str, set[str]] = {
    "aabb_tree_build": {'cb'},
    "cell_size": {'w'},
    "counting_sort_grid": {'box'},
    "curves": {'b'},
    "dynamic_aabb_tree": {'b', 'exact', 'fat'},
    "kdtree": {'e'},
    "loose_quadtree": {'b', 'k', 'q', 'r', 'u'},
    "loose_tight_cells": {'q'},
    "loose_tight_grid": {'b', 'box', 'q', 'r', 'ra', 'rb'},
    "loose_tight_pairs": {'r', 'ra', 'rb'},
    "naive_quadtree": {'a', 'b', 'c', 'rect'},
    "point_grid": {'w'},
    "quad_nodes": {'b'},
    "quadtree": {'b', 'c'},
    "rstar_tree": {'p', 'q'},
    "rtree": {'b', 'e', 'q'},
    "rtree_search": {'q'},
    "spatial_hash": {'b', 'box', 'w'},
    "sweep_and_prune": {'box'},
    "uniform_grid": {'b', 'box', 'w'},
}

#: Modules whose kernels still read the node tuple ``nd`` by position (empty today: every tree names its fields).
NODES_NOT_YET_DONE: set[str] = set()

#: Other arrays whose every column has a name, by module: ``a[..., <integer literal>]`` fails on them
#: (the dynamic AABB tree's build ``bins``: ``BIN_COUNT``, then ``BIN_XMIN`` .. ``BIN_YMAX``).
NAMED_COLUMN_ARRAYS: dict[str, set[str]] = {
    "aabb_tree_build": {"bins"},
}

MODULES = sorted(p.stem for p in ROOT.glob("*.py") if p.stem != "__init__")


def numbered_box_columns(module: str, src: str) -> list[str]:
    """``line: expression`` for every box column read with an integer literal (the rule above)."""
    arrays = BOX_ARRAYS.get(module, set()) | {"boxes"}
    ones = ONE_BOX.get(module, set())
    bad = []
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.Subscript):
            continue
        value = ast.unparse(node.value)
        if isinstance(node.slice, ast.Tuple) and node.slice.elts and value in arrays:
            index = node.slice.elts[-1]
        elif not isinstance(node.slice, ast.Tuple) and value in ones:
            index = node.slice
        else:
            continue
        if numbered(index):
            bad.append(f"{module}.py:{node.lineno}: {ast.unparse(node)}")
    return bad


def _int(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def numbered(index: ast.expr) -> bool:
    """Whether a box column index is written with numbers: ``2``, a slice ``:2`` / ``2:``, or ``axis + 2``."""
    if _int(index):
        return 0 <= index.value <= 3
    if isinstance(index, ast.Slice):
        return _int(index.lower) or _int(index.upper)
    if isinstance(index, ast.BinOp) and isinstance(index.op, (ast.Add, ast.Sub)):
        return _int(index.left) or _int(index.right)
    return False


@pytest.mark.parametrize("module", [m for m in MODULES if m not in NOT_YET_DONE])
def test_box_columns_are_named(module):
    bad = numbered_box_columns(module, (ROOT / f"{module}.py").read_text())
    assert not bad, "read a box side by name (XMIN, YMIN, XMAX, YMAX from lessons_lib.core.boxes):\n" + "\n".join(bad)


def test_box_rule_catches_numbers_in_every_form():
    src = ("def f(boxes, q, ax, i):\n"
           "    return (boxes[i, 2], boxes[:, :2], boxes[:, 2:], boxes[i, ax + 2], q[1],\n"
           "            boxes[i, XMAX], boxes[:, XMIN:YMIN + 1], boxes[i, XMIN + ax], boxes[i], q[XMIN])\n")
    found = [b.split(": ")[1] for b in numbered_box_columns("fake", src)]
    assert found == ["boxes[i, 2]", "boxes[:, :2]", "boxes[:, 2:]", "boxes[i, ax + 2]"]


def test_not_yet_done_still_needs_work():
    for module in sorted(NOT_YET_DONE):  # empty today: every module names its box columns
        src = (ROOT / f"{module}.py").read_text()
        assert numbered_box_columns(module, src), \
            f"{module} reads no box column by number now: remove it from NOT_YET_DONE"


def test_lists_name_real_modules():
    assert set(BOX_ARRAYS) | set(ONE_BOX) | NOT_YET_DONE | NODES_NOT_YET_DONE | set(NAMED_COLUMN_ARRAYS) <= set(MODULES)


def numbered_node_fields(module: str, src: str) -> list[str]:
    """``line: expression`` for every field of a node tuple ``nd`` read with an integer literal."""
    return [f"{module}.py:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(src))
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "nd"
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int]


@pytest.mark.parametrize("module", [m for m in MODULES if m not in NODES_NOT_YET_DONE])
def test_node_fields_are_named(module):
    bad = numbered_node_fields(module, (ROOT / f"{module}.py").read_text())
    assert not bad, ("read a node field by name (the R-tree family's BOX, LEVEL, COUNT, PARENT, CHILD, META, "
                     "FREE_STACK; the dynamic AABB tree's BOX, PARENT, CHILD1, CHILD2, HEIGHT, ELEMENT, META):\n"
                     + "\n".join(bad))


def test_node_fields_not_yet_done_still_need_work():
    for module in sorted(NODES_NOT_YET_DONE):  # empty today: every tree names its node fields
        src = (ROOT / f"{module}.py").read_text()
        assert numbered_node_fields(module, src), \
            f"{module} reads no node field by number now: remove it from NODES_NOT_YET_DONE"


def numbered_named_columns(module: str, src: str) -> list[str]:
    """``line: expression`` for every column of a :data:`NAMED_COLUMN_ARRAYS` array read with an integer literal."""
    arrays = NAMED_COLUMN_ARRAYS.get(module, set())
    return [f"{module}.py:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(src))
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) in arrays
            and isinstance(node.slice, ast.Tuple) and node.slice.elts
            and isinstance(node.slice.elts[-1], ast.Constant) and type(node.slice.elts[-1].value) is int]


@pytest.mark.parametrize("module", sorted(NAMED_COLUMN_ARRAYS))
def test_other_columns_are_named(module):
    bad = numbered_named_columns(module, (ROOT / f"{module}.py").read_text())
    assert not bad, "read these columns by their names (module constants):\n" + "\n".join(bad)


def test_named_columns_rule():
    src = "def f(bins, b):\n    bins[b, 0] += bins[b, BIN_COUNT] + bins[0, 1:].sum()\n"
    assert [b.split(": ")[1] for b in numbered_named_columns("aabb_tree_build", src)] == ["bins[b, 0]"]


def test_node_rule_catches_positions_only():
    src = "def f(nd, tr, v):\n    a = nd[2][v] + nd[COUNT][v] + tr[0]\n    nd[5][ROOT] = a\n"
    assert sorted(b.split(": ")[1] for b in numbered_node_fields("fake", src)) == ["nd[2]", "nd[5]"]


#: Each node table: its module, its tuple's field names in order, and the attributes holding those fields.
NODE_TABLES = {
    "rtree_nodes": ("NodeArrays", ("BOX", "LEVEL", "COUNT", "PARENT", "CHILD", "META", "FREE_STACK"),
                    ("box", "level", "count", "parent", "child", "meta", "free")),
    "aabb_tree_nodes": ("TreeNodes", ("BOX", "PARENT", "CHILD1", "CHILD2", "HEIGHT", "ELEMENT", "META"),
                        ("box", "parent", "child1", "child2", "height", "element", "meta")),
}


@pytest.mark.parametrize("module", sorted(NODE_TABLES))
def test_node_names_are_the_tuple_positions(module):
    import importlib

    m = importlib.import_module(f"lessons_lib.structures.{module}")
    table, constants, attributes = NODE_TABLES[module]
    names = tuple(getattr(m, c) for c in constants)
    assert names == tuple(range(7))
    nodes = getattr(m, table)(5)
    fields = tuple(getattr(nodes, a) for a in attributes)
    assert all(nodes.arrays[k] is a for k, a in zip(names, fields))


def test_aabb_tree_build_bins_are_named():
    from lessons_lib.structures import aabb_tree_build as dt

    assert (dt.BIN_COUNT, dt.BIN_XMIN, dt.BIN_YMIN, dt.BIN_XMAX, dt.BIN_YMAX) == (0, 1, 2, 3, 4)


def test_rule_catches_numbers_and_spares_other_arrays():
    src = "def f(boxes, out, q, c):\n    out[0, 1] = boxes[3, 2] + q[0] + c[:, 0].sum() + boxes[0, XMIN]\n"
    assert [b.split(": ")[1] for b in numbered_box_columns("fake", src)] == ["boxes[3, 2]"]
    ONE_BOX["fake"] = {"q"}
    try:
        assert len(numbered_box_columns("fake", src)) == 2
    finally:
        del ONE_BOX["fake"]


def test_names_are_the_columns():
    from lessons_lib.core.boxes import XMAX, XMIN, YMAX, YMIN
    from lessons_lib.structures import grid_cells

    assert (XMIN, YMIN, XMAX, YMAX) == (0, 1, 2, 3)
    assert not {"XMIN", "YMIN", "XMAX", "YMAX"} & set(grid_cells.__all__), "one set of box-column names: core.boxes"

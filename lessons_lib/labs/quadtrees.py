"""Lessons 04-05's lab: the free list stepped through, and what the compact quadtree's design choices measure.

* :func:`free_list_stepper`: an indexed free list drawn step by step;
* :func:`quadtree_array_stepper`: a compact quadtree's arrays through splits, removes and
  two cleanups (one level each);
* :func:`naive_footprint`: the naive tree's memory, measured with tracemalloc;
* :func:`stored_vs_computed_rects`: queries on the compact tree descending with
  rectangles computed from integer cells (8-byte nodes) against the same tree
  with each node's rectangle stored in it (48-byte nodes);
* :func:`cleanup_frames`: frames of moving agents with deferred cleanup (one
  ``cleanup()`` per frame) against immediate removal of empty quadrants;
* :func:`capacity_depth_sweep`: build, pairs, a frame and memory over a grid of
  ``capacity`` and ``max_depth`` values;
* :func:`sweep_map`, :func:`sweep_summary`, :func:`cleanup_summary`: how lesson 05
  draws and tabulates those stored results.

The three measurements are too long for a lesson run: ``python -m lessons_lib.labs.quadtrees --store``
writes them to ``data/results/`` (``quadtree_rects.csv``, ``quadtree_cleanup.csv``,
``quadtree_sweep.csv``), which lesson 05 plots. Every measured answer is checked
against brute force before its time is kept.

Source of the claims measured: the quadtree answer set [SO-quadtree] (computed
rectangles, deferred cleanup, leaf capacity and depth). The code is ours.
"""
from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from .. import style, viz
from ..core.freelist import HEAD, USED, FreeList, fl_erase_block, fl_holes
from ..core.jit import njit
from ..data import save_results
from ..scenes import moved, scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs
from ..structures.naive_quadtree import NaiveQuadtree
from ..structures.grid_cells import cell_of
from ..structures.quad_nodes import BL, BR, BRANCH, TL, TR
from ..structures.quadtree import Quadtree
from ..widgets import Stepper, figure_png

__all__ = ["free_list_stepper", "quadtree_array_stepper", "ARRAY_OPERATIONS", "naive_footprint", "cpu_median", "frame_median", "store_command",
           "stored_vs_computed_rects", "bounce",
           "collapse_paths", "cleanup_frames", "capacity_depth_sweep", "sweep_map", "sweep_summary",
           "cleanup_summary", "store", "main"]


def cpu_median(fn, repeat: int = 3):
    """Run ``fn()`` ``repeat`` times (at least once): ``(median CPU seconds, last result)``.

    CPU time of this process (:func:`time.process_time`), not wall time: on a machine
    shared with other programs it counts only the time this process ran, so the
    stored measurements move less when the machine is busy (the caches are still
    shared, so expect some noise).
    """
    times, result = [], None
    for _ in range(max(1, int(repeat))):
        t0 = time.process_time()
        result = fn()
        times.append(time.process_time() - t0)
    return float(np.median(times)), result


def frame_median(bp, ids, frames, refs, repeat: int, what: str) -> float:
    """Median CPU seconds of a frame (``update_many`` + ``cleanup`` + ``pairs``), ``2 * repeat`` frames.

    The frames cycle through ``frames`` (box arrays for ``ids``); after each, the
    pairs are checked against ``refs`` (the same order).

    Raises
    ------
    AssertionError
        Pairs that differ from the reference, naming ``what``.
    """
    times = []
    for r in range(2 * max(1, int(repeat))):
        k = r % len(frames)
        t0 = time.process_time()
        bp.update_many(ids, frames[k])
        bp.cleanup()
        got = bp.pairs()
        times.append(time.process_time() - t0)
        assert np.array_equal(got, refs[k]), f"{what}: pairs after a move differ from brute force"
    return float(np.median(times))


# --------------------------------------------------------------------------
# A Stepper whose still has its own layout
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# A Stepper through free-list operations (lesson 05)
# --------------------------------------------------------------------------
def free_list_stepper(operations, *, width: int = 1, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through ``("insert", value)`` / ``("erase", index)`` steps.

    Each frame draws the array as a row of cells: live cells show their value,
    holes are grey and show the next hole they point to, with an arrow from
    ``head`` along the chain of holes.

    Parameters
    ----------
    operations : sequence of tuple
        ``("insert", value)`` or ``("erase", index)``; at most 40 steps.
    width : int
        Fields per record (values are shown from field 0 of live cells).
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper` (``key_steps``: the steps of the still, two to a row).

    Raises
    ------
    ValueError
        An unknown operation, too many steps; errors of :meth:`FreeList.erase`.
    """

    ops = list(operations)
    if len(ops) > 40:
        raise ValueError(f"free_list_stepper is for at most 40 steps, got {len(ops)}")
    fl = FreeList(width=width, capacity=4)
    frames = [(fl.data[: fl.range()].copy(), fl.holes(), None, "empty free list", 0)]
    for k, op in enumerate(ops, 1):
        if not isinstance(op, (tuple, list)) or len(op) != 2 or op[0] not in ("insert", "erase"):
            raise ValueError(f"step {k}: expected ('insert', value) or ('erase', index), got {op!r}")
        if op[0] == "insert":
            i = fl.insert([op[1]] * width if width > 1 else op[1])
            label = f"insert {op[1]} -> index {i}"
        else:
            fl.erase(int(op[1]))
            i = int(op[1])
            label = f"erase index {i}: it becomes the first hole"
        frames.append((fl.data[: fl.range()].copy(), fl.holes(), i, label, k))
    size = max(len(f[0]) for f in frames)

    def draw(ax, frame, prev):
        data, holes, touched, label, step = frame
        hole_set = set(holes)
        for i in range(size):
            if i >= len(data):
                ax.add_patch(_rect(i, "white", "0.85", ":"))
                continue
            free = i in hole_set
            ax.add_patch(_rect(i, "0.85" if free else to_rgba(style.BOX_COLOR, 0.35),
                               style.HIGHLIGHT_COLOR if i == touched else "0.2", "-", lw=3 if i == touched else 1))
            txt = f"next\n{int(data[i, 0])}" if free else str(int(data[i, 0]))
            ax.text(i + 0.5, 0.5, txt, ha="center", va="center", fontsize="small")
            ax.text(i + 0.5, -0.25, str(i), ha="center", va="center", fontsize="x-small", color="0.3")
        chain = [-1.2] + [h + 0.5 for h in holes]
        ax.text(-0.9, 0.5, "head", ha="center", va="center", fontsize="small")
        for a, b in zip(chain[:-1], chain[1:]):
            ax.annotate("", xy=(b, 1.05), xytext=(a if a > 0 else -0.9, 1.05),
                        arrowprops={"arrowstyle": "->", "color": style.BLACK, "connectionstyle": "arc3,rad=-0.4"})
        ax.plot([], [], color=style.BLACK, label="free-list chain (head -> holes)")
        ax.add_patch(_rect(-10, to_rgba(style.BOX_COLOR, 0.35), "0.2", "-", label="live record"))
        ax.add_patch(_rect(-10, "white", style.HIGHLIGHT_COLOR, "-", lw=3, label="changed by this step"))
        ax.add_patch(_rect(-10, "0.85", "0.2", "-", label="hole"))
        ax.set_xlim(-1.6, size + 0.2)
        ax.set_ylim(-0.6, 2.0)
        ax.set_aspect("equal")
        ax.set_yticks([])
        ax.set_xticks([])
        ax.text(-0.9, -0.25, "index", ha="center", va="center", fontsize="x-small", color="0.3")
        ax.set_title(f"step {step}: {label}", fontsize="medium")
        ax.legend(loc="upper right", fontsize="x-small")

    options = {"figsize": (max(5.0, 0.6 * size + 2), 2.8), "still_ncols": 2, "still_panel_size": (4.6, 2.4),
               **stepper_options}
    return Stepper(frames, draw, labels=[f[3] for f in frames], title="An indexed free list", **options)



# --------------------------------------------------------------------------
# A Stepper through the compact quadtree's arrays (lesson 05)
# --------------------------------------------------------------------------
#: The default scene of :func:`quadtree_array_stepper` (world 0..64, capacity 1): the second insert splits
#: the root, the third its bottom-left child; three removes empty every leaf, but only after the third
#: does each ``cleanup()`` find four empty leaves, the lower level first, then the root's children.
ARRAY_OPERATIONS = (
    ("insert", 0, (6, 6, 14, 14)),
    ("insert", 1, (40, 42, 52, 54)),
    ("insert", 2, (20, 20, 26, 26)),
    ("remove", 0),
    ("remove", 2),
    ("cleanup",),
    ("remove", 1),
    ("cleanup",),
)


def _qt_record(qt: Quadtree, boxes: dict, label: str, ident) -> dict:
    used, eused = int(qt.node_meta[USED]), int(qt.enode_meta[USED])
    t = qt.node_table()
    free_nodes = {b + j for b in fl_holes(qt.nodes, qt.node_meta) for j in range(4)}
    return {"label": label, "id": ident, "boxes": dict(boxes),
            "nodes": qt.nodes[:used].copy(), "node_meta": qt.node_meta.copy(),
            "enodes": qt.enodes[:eused].copy(), "enode_meta": qt.enode_meta.copy(),
            "free_nodes": free_nodes, "free_enodes": set(int(h) for h in fl_holes(qt.enodes, qt.enode_meta)),
            "index": t["index"].copy(), "rect": t["rect"].copy(), "is_leaf": t["is_leaf"].copy(),
            "live": len(t["index"])}


def _qt_label(name: str, ident, before: dict, after: dict, capacity: int) -> str:
    """Describe a step from the arrays before and after it."""
    def is_branch(frame, i):
        return i < len(frame["nodes"]) and i not in frame["free_nodes"] and frame["nodes"][i, 1] == BRANCH

    split = [int(i) for i in after["index"] if is_branch(after, i) and not is_branch(before, i)]
    merged = [int(i) for i in before["index"] if is_branch(before, i) and not is_branch(after, i)]
    if name == "insert":
        if split:
            parts = []
            for i in split:
                f = int(after["nodes"][i, 0])
                parts.append(f"node {i} passes capacity {capacity} and splits: children block {f}..{f + 3}")
            return f"insert box {ident}: " + "; ".join(parts) + ", its elements moved down"
        new = sorted(set(range(len(after["enodes"]))) - after["free_enodes"]
                     - (set(range(len(before["enodes"]))) - before["free_enodes"]))
        return f"insert box {ident}: element node{'s' if len(new) != 1 else ''} {new} pushed on its leaves"
    if name == "remove":
        freed = sorted(after["free_enodes"] - before["free_enodes"])
        drops = [f"node {int(i)}: {int(before['nodes'][i, 1])} -> {int(after['nodes'][i, 1])}"
                 for i in after["index"] if i < len(before["nodes"]) and not is_branch(after, i)
                 and after["nodes"][i, 1] < before["nodes"][i, 1]]
        return (f"remove box {ident}: element node{'s' if len(freed) != 1 else ''} {freed} to the free list; "
                f"count of {', '.join(drops)}")
    if merged:
        parts = [f"node {i} is a leaf again, block {int(before['nodes'][i, 0])}..{int(before['nodes'][i, 0]) + 3}"
                 f" to the node free list" for i in merged]
        return "cleanup: " + "; ".join(parts)
    return "cleanup: nothing to merge"


def quadtree_array_stepper(operations=ARRAY_OPERATIONS, *, world=(0, 0, 64, 64), capacity: int = 1,
                           max_depth: int = 3, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through a real :class:`Quadtree`'s arrays: split, remove, cleanup.

    Each frame records copies of the tree's public arrays after one operation:
    ``nodes`` (``[first, count]`` per node, ``count == -1`` for a branch),
    ``enodes`` (element nodes ``[next, element slot]``), and the free-list
    states ``node_meta`` / ``enode_meta`` (``[used, head]``). It draws the
    tree (node rectangles *computed* from the root, each labelled with its
    index; the boxes) beside the arrays, entries changed by the step in
    orange and free-list holes in grey. A split takes a block of four nodes;
    a remove puts element nodes on their free list and lowers a leaf's count;
    ``cleanup()`` gives the block back and the parent is a leaf again, one
    level per call. The still shows the key steps one above the other.

    Parameters
    ----------
    operations : sequence of tuple
        ``("insert", id, box)``, ``("remove", id)``, ``("cleanup",)``; at most 10
        operations and 10 boxes. Default :data:`ARRAY_OPERATIONS`.
    world : array_like, shape (4,)
        ``[xmin, ymin, xmax, ymax]``, the root's rectangle.
    capacity : int
        Leaf capacity, 1 to 3 (small, so that a split happens early).
    max_depth : int
        Deepest level, 1 to 4.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`; default ``key_steps``: the second
        split, the state after the removes, and each cleanup.

    Returns
    -------
    LaidOutStepper
        Frames are dicts with keys ``step``, ``label``, ``id``, ``boxes`` (id -> box),
        ``nodes`` and ``enodes`` (int32 copies of the rows handed out),
        ``node_meta`` and ``enode_meta`` (int64 ``[used, head]``), ``free_nodes``
        and ``free_enodes`` (sets of free indices), ``index``, ``rect``,
        ``is_leaf`` (the live nodes, :meth:`Quadtree.node_table`) and ``live``
        (how many nodes are in use).

    Raises
    ------
    ValueError
        Too many operations or boxes, an unknown operation, parameters out of
        range; errors of the tree's insert / remove (bad boxes, unknown or
        duplicate ids).

    References
    ----------
    The quadtree answer set [SO-quadtree] (the layout and the deferred cleanup shown).

    Example
    -------
    >>> s = quadtree_array_stepper()
    >>> s.frame(2)["label"].startswith("insert box 1: node 0 passes capacity 1 and splits: children block 1..4")
    True
    >>> [s.frame(i)["live"] for i in (3, 6, 8)]
    [9, 5, 1]
    """
    ops = list(operations)
    if len(ops) > 10:
        raise ValueError(f"quadtree_array_stepper is for at most 10 operations, got {len(ops)}")
    if len({op[1] for op in ops if len(op) > 1}) > 10:
        raise ValueError("quadtree_array_stepper is for at most 10 boxes")
    if not 1 <= int(capacity) <= 3 or not 1 <= int(max_depth) <= 4:
        raise ValueError(f"quadtree_array_stepper needs capacity in 1..3 and max_depth in 1..4, "
                         f"got {capacity} and {max_depth}")
    qt = Quadtree(world=world, capacity=capacity, max_depth=max_depth)
    w = qt.world
    boxes: dict = {}
    frames = [_qt_record(qt, boxes, "empty tree: the root (node 0) is an empty leaf", None)]
    frames[0]["step"] = 0
    for k, op in enumerate(ops, 1):
        if not isinstance(op, (tuple, list)) or not op or op[0] not in ("insert", "remove", "cleanup") \
                or len(op) != {"insert": 3, "remove": 2, "cleanup": 1}[op[0]]:
            raise ValueError(f"operation {k}: expected ('insert', id, box), ('remove', id) or ('cleanup',), "
                             f"got {op!r}")
        name, ident = op[0], (op[1] if len(op) > 1 else None)
        if name == "insert":
            qt.insert(ident, op[2])
            boxes[ident] = np.asarray(qt.elements.boxes[qt.elements.slot(ident)], dtype=float).copy()
        elif name == "remove":
            qt.remove(ident)
            del boxes[ident]
        else:
            qt.cleanup()
        after = _qt_record(qt, boxes, "", ident)
        after["label"] = _qt_label(name, ident, frames[-1], after, qt.capacity)
        after["step"] = k
        frames.append(after)
    width = max(max(len(f["nodes"]), len(f["enodes"])) for f in frames)

    def changed(cur, prev, col):
        if prev is None:
            return set()
        a, b = cur[:, col], prev[:, col]
        return {i for i in range(len(a)) if i >= len(b) or a[i] != b[i]}

    def draw(ax, frame, prev):
        fig = ax.figure
        gs = ax.get_subplotspec().subgridspec(1, 2, width_ratios=(1.0, 1.4))
        ax.set_subplotspec(gs[0])
        tab = fig.add_subplot(gs[1])
        # the tree: node rectangles computed from the root, each with its index
        for i, r, leaf in zip(frame["index"], frame["rect"], frame["is_leaf"]):
            if not leaf:
                continue
            ax.add_patch(Rectangle((r[0], r[1]), r[2] - r[0], r[3] - r[1], facecolor="none", edgecolor="0.5",
                                   linewidth=0.8))
            new = prev is not None and (i >= len(prev["nodes"]) or i in prev["free_nodes"]
                                        or prev["nodes"][i, 1] == BRANCH)
            ax.text(r[0] + 1, r[3] - 1, f"{int(i)}", fontsize="small", va="top",
                    color=style.VERMILLION if new else "0.35", fontweight="bold" if new else "normal")
        ids = sorted(frame["boxes"])
        if ids:
            b = np.array([frame["boxes"][i] for i in ids])
            viz.draw_boxes(ax, b, ids=np.array(ids), label="box", annotate=True)
        viz.set_world(ax, w)
        viz.style_world_axes(ax, title="leaves, node index in the corner", legend=False)
        ax.set(xticks=[], yticks=[], xlabel="", ylabel="")
        ax.title.set_fontsize("small")
        # the arrays
        p = prev
        nn, ne = len(frame["nodes"]), len(frame["enodes"])
        viz.array_row(tab, 4.2, "first", frame["nodes"][:, 0],
                      changed(frame["nodes"], p and p["nodes"], 0), frame["free_nodes"])
        viz.array_row(tab, 3.2, "count", frame["nodes"][:, 1],
                      changed(frame["nodes"], p and p["nodes"], 1), frame["free_nodes"])
        viz.array_row(tab, 1.2, "next", frame["enodes"][:, 0],
                      changed(frame["enodes"], p and p["enodes"], 0), frame["free_enodes"])
        viz.array_row(tab, 0.2, "elem", frame["enodes"][:, 1],
                      changed(frame["enodes"], p and p["enodes"], 1), frame["free_enodes"])
        for i in range(nn):
            tab.text(i + 0.5, 5.35, str(i), ha="center", fontsize="x-small", color="0.4")
        for i in range(ne):
            tab.text(i + 0.5, 2.35, str(i), ha="center", fontsize="x-small", color="0.4")
        tab.text(-1.6, 5.35, "nodes", fontsize="x-small", color="0.3", ha="left")
        tab.text(-1.6, 2.35, "enodes", fontsize="x-small", color="0.3", ha="left")
        heads = []
        for what, key in (("node", "node_meta"), ("element-node", "enode_meta")):
            h = int(frame[key][HEAD])
            moved_ = p is not None and h != int(p[key][HEAD])
            heads.append((f"{what} free head = {h}", moved_))
        for k, (txt, moved_) in enumerate(heads):
            tab.text(-1.6 + 6.0 * k, -0.8, txt, fontsize="small", va="center",
                     color=style.VERMILLION if moved_ else "black", fontweight="bold" if moved_ else "normal")
        tab.set_xlim(-1.8, max(width, 10) + 0.2)
        tab.set_ylim(-1.3, 5.9)
        tab.set_aspect("equal")
        tab.set_yticks([])
        tab.set_xticks([])
        tab.set_xlabel("index; orange: changed by this step, grey: on a free list", fontsize="small")
        tab.set_title(f"step {frame['step']}: {frame['label']}", fontsize="small", loc="left", wrap=True)

    # the still: the last split, the tree after the removes before the first cleanup, and every cleanup
    splits = [i for i, f in enumerate(frames) if "splits" in f["label"]]
    cleanups = [i for i, f in enumerate(frames) if f["label"].startswith("cleanup")]
    key = sorted(set(splits[-1:] + [c - 1 for c in cleanups[:1]] + cleanups))
    options = {"figsize": (9.0, 3.3), "still_ncols": 1, "still_panel_size": (8.6, 3.1),
               **({"key_steps": key} if len(key) >= 2 else {}), **stepper_options}
    return Stepper(frames, draw, labels=[f["label"] for f in frames],
                          title="The compact quadtree's arrays: split, remove, cleanup", **options)


def _rect(i, face, edge, ls, alpha=1.0, lw=1.0, label=None):
    return Rectangle((i, 0), 1, 1, facecolor=face, edgecolor=edge, linestyle=ls, alpha=alpha, linewidth=lw,
                     label=label)


def naive_footprint(boxes, **params) -> tuple[NaiveQuadtree, int, float]:
    """Build a NaiveQuadtree under tracemalloc: ``(tree, bytes allocated and still held, build seconds)``.

    The bytes include the Python objects of the nodes, their rectangles and
    lists, and the element table's arrays (numpy reports them to tracemalloc).
    """
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        tree = NaiveQuadtree.from_boxes(boxes, **params)
        build = time.perf_counter() - t0
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return tree, held, build


# --------------------------------------------------------------------------
# Stored or computed node rectangles (lesson 05)
# --------------------------------------------------------------------------
@njit
def _scan_leaf(nodes_first, enodes, boxes, q0, q1, q2, q3, marks, hits, m):
    """Test the elements of one leaf list against ``q``; new hits are marked and appended. Returns ``m``."""
    it = nodes_first
    while it != -1:
        s = enodes[it, 1]
        if marks[s] == 0 and boxes[s, 0] <= q2 and q0 <= boxes[s, 2] and boxes[s, 1] <= q3 and q1 <= boxes[s, 3]:
            marks[s] = 1
            hits[m] = s
            m += 1
        it = enodes[it, 0]
    return m


@njit
def _queries_computed(nodes, enodes, boxes, queries, ox, oy, sx, sy, max_depth, marks, hits):
    """Total hits of ``queries``, each node's rectangle computed from integer cells during the descent."""
    n = 1 << max_depth
    stack = np.empty((3 * max_depth + 4, 4), dtype=np.int64)
    total = 0
    for k in range(queries.shape[0]):
        q0, q1, q2, q3 = queries[k, 0], queries[k, 1], queries[k, 2], queries[k, 3]
        cx0, cy0 = cell_of(q0, ox, sx, n), cell_of(q1, oy, sy, n)
        cx1, cy1 = cell_of(q2, ox, sx, n), cell_of(q3, oy, sy, n)
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, 0, 0
        top, m = 1, 0
        while top > 0:
            top -= 1
            node, depth, lx, ly = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if nodes[node, 1] != BRANCH:
                m = _scan_leaf(nodes[node, 0], enodes, boxes, q0, q1, q2, q3, marks, hits, m)
                continue
            half = (1 << (max_depth - depth)) >> 1
            mx, my = lx + half, ly + half
            fc = nodes[node, 0]
            if cy0 < my and cx1 >= mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BR, depth + 1, mx, ly
                top += 1
            if cy0 < my and cx0 < mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BL, depth + 1, lx, ly
                top += 1
            if cy1 >= my and cx1 >= mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TR, depth + 1, mx, my
                top += 1
            if cy1 >= my and cx0 < mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TL, depth + 1, lx, my
                top += 1
        for i in range(m):
            marks[hits[i]] = 0
        total += m
    return total


@njit
def _queries_stored(fat, enodes, boxes, queries, max_depth, marks, hits):
    """Total hits of ``queries`` on 48-byte nodes ``[x0, y0, x1, y1, first, count]`` (float64) that store their rectangle."""
    stack = np.empty(3 * max_depth + 4, dtype=np.int64)
    total = 0
    for k in range(queries.shape[0]):
        q0, q1, q2, q3 = queries[k, 0], queries[k, 1], queries[k, 2], queries[k, 3]
        stack[0] = 0
        top, m = 1, 0
        while top > 0:
            top -= 1
            node = stack[top]
            if fat[node, 5] != BRANCH:
                m = _scan_leaf(np.int64(fat[node, 4]), enodes, boxes, q0, q1, q2, q3, marks, hits, m)
                continue
            fc = np.int64(fat[node, 4])
            for j in range(3, -1, -1):
                c = fc + j
                if fat[c, 0] <= q2 and q0 <= fat[c, 2] and fat[c, 1] <= q3 and q1 <= fat[c, 3]:
                    stack[top] = c
                    top += 1
        for i in range(m):
            marks[hits[i]] = 0
        total += m
    return total


def _fat_nodes(tree: Quadtree) -> np.ndarray:
    """The tree's live nodes with their rectangles stored in them: ``(c, 6)`` float64 rows."""
    t = tree.node_table()
    fat = np.zeros((len(tree.nodes), 6), dtype=np.float64)
    fat[:, 5] = -2.0
    fat[t["index"], :4] = t["rect"]
    fat[t["index"], 4] = tree.nodes[t["index"], 0]
    fat[t["index"], 5] = tree.nodes[t["index"], 1]
    return fat


def stored_vs_computed_rects(sizes=(10_000, 30_000, 100_000, 300_000), *, scene="random", repeat=5, seed=0):
    """Time one query per element on the compact tree, node rectangles computed or stored.

    The same :class:`Quadtree` (defaults), the same element nodes and element
    table, the same leaf scans; only the descent differs: integer cells from the
    root's rectangle (the tree's 8-byte nodes) or a float rectangle read from each
    node (48-byte nodes). Timings alternate between the two, medians of ``repeat``.
    The total of hits is checked: with one query per element it is
    ``n + 2 * pairs`` (every box meets itself).

    Returns
    -------
    list of dict
        One row per size and layout: ``n, layout, node_bytes, nodes, query_ms``
        (all ``n`` queries), ``us_per_query``.

    Raises
    ------
    AssertionError
        A layout's hits differ from brute force.
    """
    rows = []
    rng = np.random.default_rng(seed)
    for n in sizes:
        boxes = scaled_scene(scene, n)
        tree = Quadtree.from_boxes(boxes)
        queries = boxes[rng.permutation(n)]
        want = n + 2 * len(compiled_brute_force_pairs(boxes))
        fat = _fat_nodes(tree)
        marks = np.zeros(tree.elements.capacity, dtype=np.uint8)
        hits = np.empty(tree.elements.capacity, dtype=np.int64)
        ox, oy, x1, y1 = tree.world.tolist()
        cells = tree.cells_per_axis
        args_c = (tree.nodes, tree.enodes, tree.elements.boxes, queries, ox, oy, cells / (x1 - ox), cells / (y1 - oy),
                  tree.max_depth, marks, hits)
        args_s = (fat, tree.enodes, tree.elements.boxes, queries, tree.max_depth, marks, hits)
        runs = {"computed": [], "stored": []}
        for r in range(repeat + 1):
            order = [("computed", _queries_computed, args_c), ("stored", _queries_stored, args_s)]
            for label, kernel, args in (order if r % 2 == 0 else order[::-1]):
                t0 = time.process_time()
                got = kernel(*args)
                dt = time.process_time() - t0
                assert got == want, f"{label} rectangles: {got} hits, brute force {want}"
                if r:  # the first round compiles and warms the caches
                    runs[label].append(dt)
        live = tree.node_count()
        for label, node_bytes in (("computed", 8), ("stored", 48)):
            ms = 1e3 * float(np.median(runs[label]))
            rows.append({"n": n, "layout": label, "node_bytes": node_bytes, "nodes": live, "query_ms": ms,
                         "us_per_query": 1e3 * ms / n})
    return rows


# --------------------------------------------------------------------------
# Deferred cleanup or immediate removal of empty quadrants (lesson 05)
# --------------------------------------------------------------------------
@njit
def collapse_paths(nodes, nmeta, old, ox, oy, sx, sy, max_depth, collapse):
    """Walk down to where each of the ``old`` boxes was; bottom-up, collapse branches of four empty leaves.

    What a compact quadtree that removes empty quadrants *immediately* does after
    a removal (lesson 05 measures it against the deferred ``cleanup()``).

    Parameters
    ----------
    nodes, nmeta : numpy.ndarray
        A :class:`~lessons_lib.structures.quadtree.Quadtree`'s ``nodes`` ((c, 2)
        int32) and ``node_meta`` ([used, head] int64), changed in place.
    old : numpy.ndarray, shape (k, 4), float64
        The boxes the removed elements had.
    ox, oy, sx, sy : float
        The root's lower-left corner and cells per world unit on each axis.
    max_depth : int
    collapse : bool
        False: make the same walk and change nothing (so both ways of a
        comparison pay for the walk).

    Returns
    -------
    int
        Blocks of four nodes freed.
    """
    n = 1 << max_depth
    stack = np.empty((3 * max_depth + 4, 4), dtype=np.int64)
    path = np.empty(4 ** min(max_depth, 6) + 64, dtype=np.int64)
    freed = 0
    for k in range(old.shape[0]):
        cx0, cy0 = cell_of(old[k, 0], ox, sx, n), cell_of(old[k, 1], oy, sy, n)
        cx1, cy1 = cell_of(old[k, 2], ox, sx, n), cell_of(old[k, 3], oy, sy, n)
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, 0, 0
        top, m = 1, 0
        while top > 0:
            top -= 1
            node, depth, lx, ly = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if nodes[node, 1] != BRANCH:
                continue
            if m == path.shape[0]:
                grown = np.empty(2 * m, dtype=np.int64)
                grown[:m] = path
                path = grown
            path[m] = node
            m += 1
            half = (1 << (max_depth - depth)) >> 1
            mx, my = lx + half, ly + half
            fc = nodes[node, 0]
            if cy1 >= my and cx0 < mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TL, depth + 1, lx, my
                top += 1
            if cy1 >= my and cx1 >= mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + TR, depth + 1, mx, my
                top += 1
            if cy0 < my and cx0 < mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BL, depth + 1, lx, ly
                top += 1
            if cy0 < my and cx1 >= mx:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = fc + BR, depth + 1, mx, ly
                top += 1
        for i in range(m - 1, -1, -1):  # children come after their parent in the walk: reversed, they come first
            node = path[i]
            fc = nodes[node, 0]
            if nodes[node, 1] == BRANCH and nodes[fc, 1] == 0 and nodes[fc + 1, 1] == 0 \
                    and nodes[fc + 2, 1] == 0 and nodes[fc + 3, 1] == 0:
                if collapse:
                    fl_erase_block(nodes, nmeta, fc, 4)
                    nodes[node, 0] = -1
                    nodes[node, 1] = 0
                    freed += 1
    return freed


def bounce(boxes, vel, world):
    """Boxes moved by ``vel`` (``(n, 2)``, changed in place: reversed on an axis where a box would leave ``world``)."""
    out = boxes.copy()
    for axis in (0, 1):
        lo, hi = world[axis], world[axis + 2]
        bad = (boxes[:, axis] + vel[:, axis] < lo) | (boxes[:, axis + 2] + vel[:, axis] > hi)
        vel[bad, axis] *= -1
        out[:, axis] += vel[:, axis]
        out[:, axis + 2] += vel[:, axis]
    return out


def cleanup_frames(n=20_000, frames=60, *, scene="random", speed=4.0, chunk=256, capacity=2, max_depth=8, seed=0):
    """Frames of ``n`` moving agents in two identical compact trees: cleanup deferred, or removal immediate.

    Every frame each agent moves by its velocity (at most ``speed`` units, bouncing
    off the world's edges); the moves are applied to both trees in chunks of
    ``chunk`` agents with ``update_many``. After each chunk, both trees walk down
    to the chunk's old boxes; the *immediate* tree then collapses, bottom-up, every
    branch of four empty leaves it passes (what removing empty quadrants at once
    does), the *deferred* tree changes nothing and calls ``cleanup()`` once at the
    end of the frame (one level per frame; ``merge_limit = 0``, so that it too
    collapses empty quartets only). Times alternate between the two trees.
    ``capacity=2, max_depth=8``: small leaves in a deep tree, where agents cross
    leaf borders often, the case the answer set's deferred cleanup is for.

    Returns
    -------
    list of dict
        One row per frame and way: ``frame, way, frame_ms``, ``freed`` (blocks of
        four nodes given back this frame), ``allocated`` (blocks taken by splits),
        ``nodes`` (live nodes at the end of the frame).

    Raises
    ------
    AssertionError
        The trees' pairs differ from brute force after the last frame.
    """
    rng = np.random.default_rng(seed)
    boxes = scaled_scene(scene, n, seed=seed)
    world = np.concatenate([boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)])
    trees = {way: Quadtree.from_boxes(boxes, world=world, capacity=capacity, max_depth=max_depth)
             for way in ("deferred", "immediate")}
    trees["deferred"].merge_limit = 0  # empty quartets only, as the immediate tree: only the timing differs
    ids = np.arange(n, dtype=np.int64)
    angle = rng.uniform(0, 2 * np.pi, n)
    vel = speed * rng.uniform(0.25, 1.0, n)[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    x0, y0, x1, y1 = world.tolist()
    cells = trees["deferred"].cells_per_axis
    geo = (x0, y0, cells / (x1 - x0), cells / (y1 - y0), trees["deferred"].max_depth)
    rows = []
    nodes_before = {w: t.node_count() for w, t in trees.items()}
    for frame in range(frames + 2):
        new = bounce(boxes, vel, world)
        order = ["deferred", "immediate"] if frame % 2 == 0 else ["immediate", "deferred"]
        for way in order:
            t = trees[way]
            freed = 0
            t0 = time.process_time()
            for a in range(0, n, chunk):
                t.update_many(ids[a:a + chunk], new[a:a + chunk])
                freed += int(collapse_paths(t.nodes, t.node_meta, boxes[a:a + chunk], *geo, way == "immediate"))
            if way == "deferred":
                t.cleanup()
                freed += t.last_freed_blocks
            dt = time.process_time() - t0
            live = t.node_count()
            if frame >= 2:  # two warm-up frames
                rows.append({"frame": frame - 2, "way": way, "frame_ms": 1e3 * dt, "freed": freed,
                             "allocated": (live - nodes_before[way]) // 4 + freed, "nodes": live})
            nodes_before[way] = live
        boxes = new
    want = compiled_brute_force_pairs(boxes)
    for way, t in trees.items():
        t.check_invariants()
        assert np.array_equal(t.pairs(), want), f"{way}: pairs differ from brute force"
    return rows


# --------------------------------------------------------------------------
# Leaf capacity and maximum depth (lesson 05)
# --------------------------------------------------------------------------
def capacity_depth_sweep(n=100_000, *, capacities=(1, 2, 4, 8, 16, 32, 64), depths=(4, 5, 6, 7, 8, 9, 10),
                         scene="random", repeat=3):
    """Build, ``pairs()``, one frame of motion and memory of the compact tree for each ``capacity`` and ``max_depth``.

    The scene is ``scaled_scene(scene, n)``; the frame moves every box by up to one
    unit (``update_many`` + ``cleanup`` + ``pairs``). Medians of ``repeat``; every
    ``pairs()`` is checked against brute force.

    Returns
    -------
    list of dict
        ``capacity, max_depth, build_ms, pairs_ms, frame_ms, bytes_per_element,
        nodes, enodes_per_element`` (element nodes per element: how often a box is
        stored), ``depth`` (deepest level reached).
    """
    boxes = scaled_scene(scene, n)
    after = moved(boxes, step=1.0)
    want = compiled_brute_force_pairs(boxes)
    want_after = compiled_brute_force_pairs(after)
    ids = np.arange(n, dtype=np.int64)
    rows = []
    for capacity in capacities:
        for max_depth in depths:
            params = {"capacity": capacity, "max_depth": max_depth}
            build_s, tree = cpu_median(lambda: Quadtree.from_boxes(boxes, **params), repeat)
            pairs_s, got = cpu_median(tree.pairs, repeat)
            assert np.array_equal(got, want), f"{params}: pairs differ from brute force"
            frame_s = frame_median(tree, ids, (after, boxes), (want_after, want), repeat, str(params))
            fresh = Quadtree.from_boxes(boxes, **params)
            rows.append({"capacity": capacity, "max_depth": max_depth, "build_ms": 1e3 * build_s,
                         "pairs_ms": 1e3 * pairs_s, "frame_ms": 1e3 * frame_s,
                         "bytes_per_element": fresh.memory_bytes() / n, "nodes": fresh.node_count(),
                         "enodes_per_element": int(fresh.enode_meta[0]) / n, "depth": fresh.depth()})
    return rows


def sweep_map(ax, table, column: str, *, title: str | None = None, mark_best: bool = True):
    """Draw one column of a stored :func:`capacity_depth_sweep` as a capacity x max_depth map.

    Each cell is coloured on a log scale (darker: larger) and carries its value;
    with ``mark_best`` the smallest value of each row (each capacity) is outlined
    (inside the cell, so that outlines in neighbouring rows stay apart).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    table : Results
        The stored sweep (``load_results("quadtree_sweep")``): columns ``capacity``,
        ``max_depth`` and ``column``.
    column : str
        The measure to draw, e.g. ``"frame_ms"`` or ``"bytes_per_element"``.
    title : str, optional
        Axes title (default: the column name).

    Returns
    -------
    matplotlib.image.AxesImage
        For a colour bar.

    Raises
    ------
    KeyError
        A column the table does not have.
    """
    from matplotlib.colors import LogNorm

    caps, depths = sorted(table.unique("capacity")), sorted(table.unique("max_depth"))
    grid = np.array([[table.where(capacity=c, max_depth=d)[column][0] for d in depths] for c in caps], float)
    im = ax.imshow(grid, origin="lower", cmap="viridis_r", norm=LogNorm(), aspect="auto")
    middle = np.exp(np.log(grid).mean())
    for r in range(len(caps)):
        for c in range(len(depths)):
            ax.text(c, r, f"{grid[r, c]:.0f}", ha="center", va="center", fontsize="x-small",
                    color="white" if grid[r, c] > middle else "black")
        if mark_best:
            b = int(np.argmin(grid[r]))
            # inset, so that the outlines of neighbouring rows never merge into one staircase
            ax.add_patch(Rectangle((b - 0.43, r - 0.4), 0.86, 0.8, fill=False, edgecolor=style.VERMILLION, linewidth=2))
    ax.set_xticks(range(len(depths)), depths)
    ax.set_yticks(range(len(caps)), caps)
    ax.set(xlabel="max_depth", ylabel="capacity", title=title or column)
    return im


def sweep_summary(table, advised_depth: int) -> list[dict]:
    """Per capacity of a stored sweep: the fastest ``max_depth`` for a frame, against ``advised_depth``.

    Returns
    -------
    list of dict
        ``capacity, best_depth, best_frame_ms, advised_frame_ms, best_leaves_per_box,
        advised_leaves_per_box`` (element nodes per element: in how many leaves a box
        lies on average), one row per capacity, in increasing capacity.
    """
    rows = []
    for cap in sorted(table.unique("capacity")):
        t = table.where(capacity=cap)
        best = int(np.argmin(t["frame_ms"]))
        adv = t.where(max_depth=int(advised_depth))
        rows.append({"capacity": int(cap), "best_depth": int(t["max_depth"][best]),
                     "best_frame_ms": float(t["frame_ms"][best]), "advised_frame_ms": float(adv["frame_ms"][0]),
                     "best_leaves_per_box": float(t["enodes_per_element"][best]),
                     "advised_leaves_per_box": float(adv["enodes_per_element"][0])})
    return rows


def cleanup_summary(table) -> list[dict]:
    """Per way of a stored :func:`cleanup_frames` run: frames, median and spread of the frame time, blocks.

    Returns
    -------
    list of dict
        ``way, frames, median_ms, p10_ms, p90_ms, blocks_freed, blocks_taken``, one row
        per way (``deferred``, ``immediate``).
    """
    rows = []
    for way in table.unique("way"):
        r = table.where(way=way)
        p10, p50, p90 = np.percentile(r["frame_ms"], [10, 50, 90])
        rows.append({"way": way, "frames": len(r), "median_ms": float(p50), "p10_ms": float(p10),
                     "p90_ms": float(p90), "blocks_freed": int(r["freed"].sum()),
                     "blocks_taken": int(r["allocated"].sum())})
    return rows


# --------------------------------------------------------------------------
# python -m lessons_lib.labs.quadtrees --store
# --------------------------------------------------------------------------
_COMMAND = "python -m lessons_lib.labs.quadtrees --store"


def store(which=("rects", "cleanup", "sweep")) -> list:
    """Run the lesson 05 measurements and write them to ``data/results/``; returns the paths written."""
    paths = []
    if "rects" in which:
        paths.append(save_results("quadtree_rects", stored_vs_computed_rects(), command=_COMMAND,
                                  what="lesson 05: one query per element on the compact Quadtree (defaults, scaled "
                                       "'random' scene), node rectangles computed from integer cells (8-byte nodes) "
                                       "or stored in each node (48-byte nodes); CPU time, medians of 5, alternating"))
    if "cleanup" in which:
        paths.append(save_results("quadtree_cleanup", cleanup_frames(), command=_COMMAND,
                                  what="lesson 05: 60 frames of 20,000 moving agents (scaled 'random' scene, "
                                       "speed up to 4 units per frame, capacity 2, max_depth 8) in two compact Quadtrees: "
                                       "cleanup() once per frame (deferred) or empty quadrants collapsed at once "
                                       "(immediate); update_many in chunks of 256 agents for both; CPU time per frame"))
    if "sweep" in which:
        paths.append(save_results("quadtree_sweep", capacity_depth_sweep(), command=_COMMAND,
                                  what="lesson 05: compact Quadtree on scaled_scene('random', 100000) for each "
                                       "capacity and max_depth: build, pairs(), one frame (update_many + cleanup + "
                                       "pairs, every box moved up to 1 unit), CPU time, medians of 3; memory_bytes() per "
                                       "element"))
    return paths


def store_command(argv, description: str, parts: tuple, store) -> int:
    """The command line of a lab module: ``--store`` runs ``store(parts)`` (``--only`` picks some); else help."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--store", action="store_true", help="run the measurements and write data/results/")
    parser.add_argument("--only", choices=parts, action="append", help="run only these (repeatable)")
    args = parser.parse_args(argv)
    if not args.store:
        parser.print_help()
        return 0
    for path in store(tuple(args.only or parts)):
        print("wrote", path)
    return 0


def main(argv=None) -> int:
    return store_command(argv, "Lesson 05's stored measurements.", ("rects", "cleanup", "sweep"), store)


if __name__ == "__main__":
    sys.exit(main())

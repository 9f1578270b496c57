"""Lessons 04-05's lab: the free list stepped through, and what the compact quadtree's design choices measure.

* :func:`free_list_stepper`: an indexed free list drawn step by step;
* :func:`naive_footprint`: the naive tree's memory, measured with tracemalloc;
* :func:`stored_vs_computed_rects`: queries on the compact tree descending with
  rectangles computed from integer cells (8-byte nodes) against the same tree
  with each node's rectangle stored in it (48-byte nodes);
* :func:`cleanup_frames`: frames of moving agents with deferred cleanup (one
  ``cleanup()`` per frame) against immediate removal of empty quadrants;
* :func:`capacity_depth_sweep`: build, pairs, a frame and memory over a grid of
  ``capacity`` and ``max_depth`` values.

The last three are too long for a lesson run: ``python -m lessons_lib.labs.quadtrees --store``
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
from matplotlib.patches import Rectangle

from ..core.freelist import FreeList, fl_erase_block
from ..core.jit import njit
from ..data import save_results
from ..scenes import moved, scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs
from ..structures.naive_quadtree import NaiveQuadtree
from ..structures.quadtree import BL, BR, BRANCH, TL, TR, Quadtree, cell_of
from ..widgets import Stepper

__all__ = ["free_list_stepper", "naive_footprint", "cpu_median", "frame_median", "store_command",
           "stored_vs_computed_rects", "bounce",
           "collapse_paths", "cleanup_frames", "capacity_depth_sweep", "store"]


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
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Raises
    ------
    ValueError
        An unknown operation, too many steps; errors of :meth:`FreeList.erase`.
    """

    ops = list(operations)
    if len(ops) > 40:
        raise ValueError(f"free_list_stepper is for at most 40 steps, got {len(ops)}")
    fl = FreeList(width=width, capacity=4)
    frames = [(fl.data[: fl.range()].copy(), fl.holes(), None, "empty free list")]
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
        frames.append((fl.data[: fl.range()].copy(), fl.holes(), i, label))
    size = max(len(f[0]) for f in frames)

    def draw(ax, frame, prev):
        data, holes, touched, label = frame
        hole_set = set(holes)
        for i in range(size):
            if i >= len(data):
                ax.add_patch(_rect(i, "white", "0.85", ":"))
                continue
            free = i in hole_set
            ax.add_patch(_rect(i, "0.85" if free else "tab:blue", "tab:orange" if i == touched else "0.2",
                               "-", alpha=1.0 if free else 0.35, lw=3 if i == touched else 1))
            txt = f"next\n{int(data[i, 0])}" if free else str(int(data[i, 0]))
            ax.text(i + 0.5, 0.5, txt, ha="center", va="center", fontsize="small")
            ax.text(i + 0.5, -0.25, str(i), ha="center", va="center", fontsize="x-small", color="0.3")
        chain = [-1.2] + [h + 0.5 for h in holes]
        ax.text(-0.9, 0.5, "head", ha="center", va="center", fontsize="small")
        for a, b in zip(chain[:-1], chain[1:]):
            ax.annotate("", xy=(b, 1.05), xytext=(a if a > 0 else -0.9, 1.05),
                        arrowprops={"arrowstyle": "->", "color": "tab:red", "connectionstyle": "arc3,rad=-0.4"})
        ax.plot([], [], color="tab:red", label="free-list chain (head -> holes)")
        ax.add_patch(_rect(-10, "tab:blue", "0.2", "-", alpha=0.35, label="live record"))
        ax.add_patch(_rect(-10, "0.85", "0.2", "-", label="hole"))
        ax.set_xlim(-1.6, size + 0.2)
        ax.set_ylim(-0.6, 2.0)
        ax.set_aspect("equal")
        ax.set_yticks([])
        ax.set_xlabel("index in the array")
        ax.set_title(label, fontsize="medium")
        ax.legend(loc="upper right", fontsize="x-small")

    return Stepper(frames, draw, labels=[f[3] for f in frames], title="An indexed free list",
                   **{"figsize": (max(5.0, 0.6 * size + 2), 2.8), **stepper_options})


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


def cleanup_frames(n=20_000, frames=60, *, scene="random", speed=4.0, chunk=256, capacity=2, seed=0):
    """Frames of ``n`` moving agents in two identical compact trees: cleanup deferred, or removal immediate.

    Every frame each agent moves by its velocity (at most ``speed`` units, bouncing
    off the world's edges); the moves are applied to both trees in chunks of
    ``chunk`` agents with ``update_many``. After each chunk, both trees walk down
    to the chunk's old boxes; the *immediate* tree then collapses, bottom-up, every
    branch of four empty leaves it passes (what removing empty quadrants at once
    does), the *deferred* tree changes nothing and calls ``cleanup()`` once at the
    end of the frame (one level per frame). Times alternate between the two trees.

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
    trees = {"deferred": Quadtree.from_boxes(boxes, world=world, capacity=capacity),
             "immediate": Quadtree.from_boxes(boxes, world=world, capacity=capacity)}
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
                                       "speed up to 4 units per frame, capacity 2) in two compact Quadtrees: "
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

"""Lessons 06-07's pictures and small measurements: loose bounds, the double grid, the uniform-size trick.

The structures are :class:`~lessons_lib.structures.loose_quadtree.LooseQuadtree`,
:class:`~lessons_lib.structures.loose_tight_grid.LooseTightGrid` and
:class:`~lessons_lib.structures.point_grid.PointGrid`; this module holds what the two
lessons draw and measure with them, so that notebook cells stay short:

* :func:`loose_quadtree_stepper`: inserts, a removal and a cleanup, showing
  each node's quadrant and its loose bounds growing and shrinking;
* :func:`double_grid_stepper` and :func:`draw_double_grid_query`: the
  loose/tight double grid built up element by element, and which loose cells
  a query visits;
* :func:`draw_uniform_size_trick`: why searching twice the common radius
  finds every centre;
* :func:`measure_structures` and :func:`split_frame_rows`: timed
  comparisons (build, pairs, queries, a frame of motion), every answer
  checked against brute force first;
* :func:`memory_over_frames`: bytes per element frame after frame while agents move.

The large runs are stored: ``python -m lessons_lib.labs.loose --store`` writes
``data/results/loose_structures.csv``, ``loose_split.csv`` and ``loose_memory.csv``,
which lessons 06 and 07 plot.

Source: the quadtree answer set on Stack Overflow [SO-quadtree], sections "Loose quadtree", "Loose/tight double
grid" and "Dirty trick: uniform sizes". The code and wording here are ours.
"""
from __future__ import annotations

import copy
import sys
import time

import numpy as np
from matplotlib.patches import Circle, Rectangle

from .. import viz
from ..base import STRUCTURES
from ..data import save_results
from ..scenes import scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs
from ..structures.loose_quadtree import LooseQuadtree
from ..structures.loose_tight_grid import LooseTightGrid
from ..structures.split_broad_phase import SplitBroadPhase, split_by_half_size
from ..structures.point_grid import half_sizes
from ..widgets import Stepper
from .quadtrees import bounce, cpu_median, frame_median, store_command

__all__ = [
    "loose_quadtree_stepper",
    "double_grid_stepper",
    "draw_double_grid_query",
    "draw_uniform_size_trick",
    "measure_structures",
    "split_frame_rows",
    "memory_over_frames",
    "store",
]


def _apply(bp, op):
    kind = op[0]
    if kind == "insert":
        bp.insert(op[1], op[2])
        return f"insert {op[1]} {viz_box(op[2])}", op[1]
    if kind == "remove":
        bp.remove(op[1])
        return f"remove {op[1]}", None
    if kind == "update":
        bp.update(op[1], op[2])
        return f"move {op[1]} to {viz_box(op[2])}", op[1]
    if kind == "cleanup":
        bp.cleanup()
        return "cleanup(): refit every bound", None
    raise ValueError(f"unknown operation {op!r}: use insert, remove, update or cleanup")


def viz_box(box) -> str:
    return "[" + ", ".join(f"{v:g}" for v in np.asarray(box, dtype=float).tolist()) + "]"


# --------------------------------------------------------------------------
# Lesson 06: the loose quadtree, step by step
# --------------------------------------------------------------------------
def loose_quadtree_stepper(operations, *, world=(0, 0, 100, 100), capacity=2, max_depth=4, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through operations on a small :class:`LooseQuadtree`.

    Each frame shows the leaves' quadrants (thin grey: where centres go), the
    loose bounds of every non-empty node (coloured by depth: what a query
    tests), the boxes with their centres, and the element just touched in red.

    Parameters
    ----------
    operations : sequence of tuple
        ``("insert", id, box)``, ``("remove", id)``, ``("update", id, box)`` or
        ``("cleanup",)``; at most 40.
    world, capacity, max_depth
        Passed to :class:`LooseQuadtree`.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Raises
    ------
    ValueError
        An unknown operation, too many steps, or the structure's own errors.
    """
    ops = list(operations)
    if len(ops) > 40:
        raise ValueError(f"loose_quadtree_stepper is for at most 40 steps, got {len(ops)}")
    lq = LooseQuadtree(world=world, capacity=capacity, max_depth=max_depth)
    frames = [_lq_frame(lq, "an empty loose quadtree", None)]
    for op in ops:
        label, touched = _apply(lq, op)
        frames.append(_lq_frame(lq, label, touched))
    deepest = max(int(f["depth"].max()) for f in frames)
    w = np.asarray(world, dtype=float)

    def draw(ax, f, prev):
        leaf = f["is_leaf"]
        viz.draw_regions(ax, (f["cell"][leaf], np.zeros(leaf.sum(), np.int64)), color="0.6", linewidth=0.8,
                         linestyle=":", label="leaf quadrant (centres decide)")
        keep = f["bounds"][:, 0] <= f["bounds"][:, 2]
        if keep.any():
            viz.draw_regions(ax, (np.clip(f["bounds"][keep], -1e9, 1e9), f["depth"][keep]), max_depth=deepest,
                             linewidth=2.0, linestyle="--", label="loose bounds (by depth)")
        if len(f["ids"]):
            viz.draw_boxes(ax, f["boxes"], ids=f["ids"], highlight=[f["touched"]] if f["touched"] is not None else None,
                           label="element", highlight_label="just inserted / moved", annotate=True)
            c = 0.5 * (f["boxes"][:, :2] + f["boxes"][:, 2:])
            ax.plot(c[:, 0], c[:, 1], "k.", markersize=4, label="centre")
        viz.set_world(ax, _cover(w, f["bounds"][keep] if keep.any() else None))
        ax.set_title(f["label"], fontsize="medium")
        ax.set_xlabel("x (world units)")
        ax.set_ylabel("y (world units)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="x-small")

    opts = {"title": "A loose quadtree, step by step", "figsize": (7.5, 4.6), **stepper_options}
    return Stepper(frames, draw, labels=[f["label"] for f in frames], **opts)


def _lq_frame(lq, label, touched):
    ids, boxes = lq.items()
    t = lq.node_table()
    return {"ids": ids, "boxes": boxes, "cell": t["cell"], "bounds": t["bounds"], "depth": t["depth"],
            "is_leaf": t["is_leaf"], "label": label, "touched": touched}


def _cover(world, rects):
    if rects is None or len(rects) == 0:
        return world
    return np.array([min(world[0], rects[:, 0].min()), min(world[1], rects[:, 1].min()),
                     max(world[2], rects[:, 2].max()), max(world[3], rects[:, 3].max())])


# --------------------------------------------------------------------------
# Lesson 07: the loose/tight double grid
# --------------------------------------------------------------------------
def _grid_lines(ax, world, size, *, color, linewidth, label):
    x0, y0, x1, y1 = world
    xs = np.arange(x0, x1 + 1e-9 * size, size)
    ys = np.arange(y0, y1 + 1e-9 * size, size)
    ax.vlines(xs, ys[0], ys[-1], colors=color, linewidth=linewidth, label=label, zorder=0.5)
    ax.hlines(ys, xs[0], xs[-1], colors=color, linewidth=linewidth, zorder=0.5)


def _grid_world(g):
    return np.array([g.world[0], g.world[1], g.world[0] + g.cols * g.cell_size, g.world[1] + g.rows * g.cell_size])


def draw_double_grid(ax, g, *, touched=None, query=None, title=None):
    """Draw a :class:`LooseTightGrid`: both grids, the loose cells' rectangles, the boxes; optionally a query.

    With ``query``, the tight cells it covers are shaded, the loose cells it
    visits (listed there and meeting it) are drawn thick, and the hits are
    highlighted; returns ``(visited loose cells, hits)``.
    """
    w = _grid_world(g)
    _grid_lines(ax, w, g.cell_size, color="0.85", linewidth=0.6, label="loose grid")
    _grid_lines(ax, w, g.tight_cell_size, color="0.45", linewidth=1.4, label="tight grid")
    cells = g.loose_cells()
    visited, hits = [], np.zeros(0, np.int64)
    if query is not None:
        q = np.asarray(query, dtype=float)
        hits = g.query(q)
        tc0, tr0 = [int(v) for v in np.floor((q[:2] - g.world[:2]) / g.tight_cell_size)]
        tc1, tr1 = [int(v) for v in np.floor((q[2:] - g.world[:2]) / g.tight_cell_size)]
        tc0, tc1 = max(tc0, 0), min(tc1, g.tcols - 1)
        tr0, tr1 = max(tr0, 0), min(tr1, g.trows - 1)
        s = g.tight_cell_size
        ax.add_patch(Rectangle((g.world[0] + tc0 * s, g.world[1] + tr0 * s), (tc1 - tc0 + 1) * s, (tr1 - tr0 + 1) * s,
                               facecolor="gold", alpha=0.25, edgecolor="none", label="tight cells read", zorder=0.4))
        listed = {c for tr in range(tr0, tr1 + 1) for tc in range(tc0, tc1 + 1) for c in g.listed_in(tc, tr)}
        for k, c in enumerate(cells["index"].tolist()):
            b = cells["bounds"][k]
            if c in listed and b[0] <= q[2] and q[0] <= b[2] and b[1] <= q[3] and q[1] <= b[3]:
                visited.append(c)
        ax.add_patch(Rectangle(q[:2], *(q[2:] - q[:2]), facecolor="none", edgecolor="black", linewidth=2,
                               label="query", zorder=4))
    if len(cells["index"]):
        vis = np.isin(cells["index"], visited)
        viz.draw_regions(ax, (cells["bounds"][~vis], np.zeros((~vis).sum(), np.int64)), color="tab:purple",
                         linewidth=1.8, linestyle="--", label="loose cell rectangle", zorder=3.5)
        if vis.any():
            viz.draw_regions(ax, (cells["bounds"][vis], np.zeros(vis.sum(), np.int64)), color="tab:red",
                             linewidth=2.5, label="loose cell visited", zorder=3.6)
    ids, boxes = g.items()
    if len(ids):
        hl = hits.tolist() if query is not None else ([touched] if touched is not None else None)
        viz.draw_boxes(ax, boxes, ids=ids, highlight=hl or None, label="element",
                       highlight_label="query hit" if query is not None else "just inserted / moved",
                       annotate=len(ids) <= 30)
    viz.set_world(ax, _cover(w, cells["bounds"] if len(cells["index"]) else None))
    ax.set_xlabel("x (world units)")
    ax.set_ylabel("y (world units)")
    if title:
        ax.set_title(title, fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="x-small")
    return visited, hits


def draw_double_grid_query(ax, g, query, title=None):
    """:func:`draw_double_grid` with a query box; returns ``(visited loose cells, hits)``."""
    return draw_double_grid(ax, g, query=query, title=title)


def double_grid_stepper(operations, *, world=(0, 0, 80, 60), cell_size=10.0, tight_factor=2, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through operations on a small :class:`LooseTightGrid`.

    Each frame shows both grids, every non-empty loose cell's rectangle and
    the tight cells that list it (in the label).

    Raises
    ------
    ValueError
        An unknown operation, more than 40 steps, or the structure's own errors.
    """
    ops = list(operations)
    if len(ops) > 40:
        raise ValueError(f"double_grid_stepper is for at most 40 steps, got {len(ops)}")
    g = LooseTightGrid(world=world, cell_size=cell_size, tight_factor=tight_factor)
    states = [(_copy_grid(g), "an empty double grid", None)]
    for op in ops:
        label, touched = _apply(g, op)
        if touched is not None and op[0] != "cleanup":
            slot = g.elements.slot(touched)
            c = int(_centre_cell_of(g, g.elements.boxes[slot]))
            reg = g.lreg[c].tolist()
            label += f"\nloose cell {c}, listed in tight x {reg[0]}..{reg[2]}, y {reg[1]}..{reg[3]}"
        states.append((_copy_grid(g), label, touched))

    def draw(ax, state, prev):
        grid, label, touched = state
        draw_double_grid(ax, grid, touched=touched, title=label)

    opts = {"title": "The loose/tight double grid, step by step", "figsize": (7.5, 4.6), **stepper_options}
    return Stepper(states, draw, labels=[s[1] for s in states], **opts)


def _centre_cell_of(g, box):
    col = min(max(int(np.floor((0.5 * box[0] + 0.5 * box[2] - g.world[0]) / g.cell_size)), 0), g.cols - 1)
    row = min(max(int(np.floor((0.5 * box[1] + 0.5 * box[3] - g.world[1]) / g.cell_size)), 0), g.rows - 1)
    return row * g.cols + col


def _copy_grid(g):
    """A frozen copy of the grid for one frame (its rectangles as they are, stale growth included)."""
    return copy.deepcopy(g)


# --------------------------------------------------------------------------
# Lesson 07: the uniform-size trick, in one picture
# --------------------------------------------------------------------------
def draw_uniform_size_trick(ax, h=1.0):
    """Why searching twice the radius finds every centre: three circles of radius ``h``, one search square.

    The green circle at the origin searches the square of half-side ``2 h``
    around its centre. The blue circle touches it (centres ``2 h`` apart): its
    centre is on the square's edge, found. The grey circle is a hair further:
    its centre is outside, and indeed the circles do not touch.
    """
    cases = [((0.0, 0.0), "tab:green", "searching element"), ((2 * h, 0.6 * h), "tab:blue", None),
             ((-1.2 * h, 2.15 * h), "0.5", None)]
    d = np.hypot(*cases[1][0])
    cases[1] = ((2 * h * cases[1][0][0] / d, 2 * h * cases[1][0][1] / d), "tab:blue", "touches: centre inside")
    cases[2] = (cases[2][0], "0.5", "misses: centre outside")
    for (x, y), color, label in cases:
        ax.add_patch(Circle((x, y), h, facecolor=color, alpha=0.25, edgecolor=color, linewidth=1.5, label=label))
        ax.plot([x], [y], "o", color=color, markersize=4)
    ax.add_patch(Rectangle((-h, -h), 2 * h, 2 * h, facecolor="none", edgecolor="tab:green", linestyle=":",
                           label="its box (half-size h)"))
    ax.add_patch(Rectangle((-2 * h, -2 * h), 4 * h, 4 * h, facecolor="none", edgecolor="black", linewidth=2,
                           linestyle="--", label="search area: centre ± 2h"))
    ax.set_xlim(-3.4 * h, 3.6 * h)
    ax.set_ylim(-2.8 * h, 3.6 * h)
    ax.set_aspect("equal")
    ax.set_xlabel("x (units of h)")
    ax.set_ylabel("y (units of h)")
    ax.set_title("Points in the index, searched 2h around a centre", fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")


# --------------------------------------------------------------------------
# Small timed comparisons
# --------------------------------------------------------------------------

def measure_structures(boxes, structures, *, queries=200, step=1.0, repeat=5, seed=0):
    """Build, pairs, queries and one frame of motion for each structure on ``boxes``, checked against brute force.

    Times are CPU time of this process (:func:`~lessons_lib.labs.quadtrees.cpu_median`), medians of ``repeat``.

    Parameters
    ----------
    boxes : numpy.ndarray, shape (n, 4)
    structures : dict
        Label -> ``(registry name, parameters)``.
    queries : int
        Query boxes (each the size of a random stored box, at random places).
    step : float
        Each box moves by up to ``step`` units per frame.

    Returns
    -------
    list of dict
        ``structure, build_ms, pairs_ms, queries_ms, frame_ms`` (``update_many``
        + ``cleanup`` + ``pairs``), ``bytes_per_element`` (``memory_bytes()`` after
        the frames), ``built_bytes_per_element`` (right after the bulk load),
        ``query_nodes`` (nodes or cells visited per query, when the structure
        counts them), ``table_bytes_per_element`` (the shared element table's
        part), ``layout_bytes_per_element`` (the copy of the boxes in cell order
        that :class:`LooseTightGrid` keeps for ``pairs()``; 0 for the others) and
        ``nodes`` (tree nodes; 0 for grids).

    Raises
    ------
    AssertionError
        A structure's pairs or query answers differ from brute force.
    """
    rng = np.random.default_rng(seed)
    n = len(boxes)
    ref = compiled_brute_force_pairs(boxes)
    lo = boxes.min(axis=0)[:2]
    hi = boxes.max(axis=0)[2:]
    pick = rng.integers(0, n, queries)
    qsize = boxes[pick, 2:] - boxes[pick, :2]
    qlo = rng.uniform(lo, hi - qsize.max(axis=0), size=(queries, 2))
    qboxes = np.column_stack([qlo, qlo + qsize])
    d = rng.uniform(-step, step, size=(n, 2))
    moved = boxes + np.column_stack([d, d])
    ref_moved = compiled_brute_force_pairs(moved)
    ids = np.arange(n, dtype=np.int64)
    rows = []
    for label, (name, params) in structures.items():
        cls = STRUCTURES[name]
        build_s, bp = cpu_median(lambda: cls.from_boxes(boxes, **params), repeat)
        built_bytes = bp.memory_bytes()
        pairs_s, got = cpu_median(bp.pairs, repeat)
        assert np.array_equal(got, ref), f"{label}: pairs differ from brute force"
        visits = []

        def run_queries():
            out = []
            for q in qboxes:
                out.append(bp.query(q))
                visits.append(getattr(bp, "last_query_nodes", getattr(bp, "last_query_cells", 0)))
            return out

        queries_s, answers = cpu_median(run_queries, repeat)
        for q, a in zip(qboxes[:20], answers[:20]):
            want = np.flatnonzero((boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3]) & (q[1] <= boxes[:, 3]))
            assert np.array_equal(a, want), f"{label}: a query differs from brute force"
        frame_s = frame_median(bp, ids, (moved, boxes), (ref_moved, ref), repeat, label)
        rows.append({"structure": label, "n": n, "build_ms": 1e3 * build_s, "pairs_ms": 1e3 * pairs_s,
                     "queries_ms": 1e3 * queries_s, "frame_ms": 1e3 * frame_s,
                     "bytes_per_element": bp.memory_bytes() / n, "built_bytes_per_element": built_bytes / n,
                     "query_nodes": float(np.mean(visits)),
                     "table_bytes_per_element": bp.elements.nbytes() / n,
                     "layout_bytes_per_element": _layout_bytes(bp) / n,
                     "nodes": bp.node_count() if hasattr(bp, "node_count") else 0})
    return rows


def split_frame_rows(boxes, *, bound=None, static_giants=0.5, step=1.0, repeat=5, seed=0):
    """Lesson 07's content split, measured: one frame (move, update, pairs) per approach on ``boxes``.

    The boxes are split by :func:`~lessons_lib.structures.split_broad_phase.split_by_half_size`
    at ``bound`` (default: the largest half-size among the 98 % smallest);
    a fraction ``static_giants`` of the giants are static scenery (castles),
    the rest move (dragons). Every agent and dragon moves by up to ``step``
    units; the scenery stays. Compared: :class:`UniformGrid`, the compact
    :class:`Quadtree`, :class:`LooseTightGrid`, each holding everything, and
    :class:`~lessons_lib.structures.split_broad_phase.SplitBroadPhase`.

    Returns
    -------
    list of dict
        ``approach, frame_ms, update_ms, pairs_ms, agents, giants, scenery``.

    Raises
    ------
    AssertionError
        An approach whose pairs differ from brute force.
    """
    rng = np.random.default_rng(seed)
    hs = half_sizes(boxes)
    bound = float(np.sort(hs)[int(0.98 * (len(hs) - 1))]) if bound is None else float(bound)
    big = np.flatnonzero(hs > bound)
    static = np.zeros(len(boxes), dtype=bool)
    static[big[rng.random(len(big)) < static_giants]] = True
    groups = split_by_half_size(boxes, bound, static=static)
    movers = np.flatnonzero(~static)
    d = rng.uniform(-step, step, size=(len(movers), 2))
    frames = [boxes.copy(), boxes.copy()]
    frames[0][movers] += np.column_stack([d, d])
    refs = [compiled_brute_force_pairs(f) for f in frames]
    makers = {
        "UniformGrid (everything)": lambda: STRUCTURES["uniform_grid"].from_boxes(boxes),
        "Quadtree (everything)": lambda: STRUCTURES["quadtree"].from_boxes(boxes, capacity=16),
        "LooseTightGrid (everything)": lambda: STRUCTURES["loose_tight_grid"].from_boxes(boxes),
        "split: PointGrid + LooseTightGrid + BulkRTree": lambda: SplitBroadPhase(boxes, groups, bound=bound),
    }
    rows = []
    for label, make in makers.items():
        bp = make()
        ups, prs = [], []
        for r in range(2 * repeat):
            target = frames[r % 2]
            t0 = time.process_time()
            bp.update_many(movers, target[movers])
            t1 = time.process_time()
            p = bp.pairs()
            t2 = time.process_time()
            assert np.array_equal(p, refs[r % 2]), f"{label}: pairs differ from brute force"
            ups.append(t1 - t0)
            prs.append(t2 - t1)
        up, pr = 1e3 * float(np.median(ups)), 1e3 * float(np.median(prs))
        rows.append({"approach": label, "frame_ms": up + pr, "update_ms": up, "pairs_ms": pr,
                     "agents": len(groups["agents"]), "giants": len(groups["giants"]),
                     "scenery": len(groups["scenery"])})
    return rows


def _layout_bytes(bp) -> int:
    """Bytes of the pairs layout a :class:`LooseTightGrid` keeps (its boxes copied in cell order); 0 otherwise."""
    if not isinstance(bp, LooseTightGrid):
        return 0
    return sum(a.nbytes for a in (bp.start, bp.srect, bp.px0, bp.py0, bp.px1, bp.py1, bp.ps))


def memory_over_frames(structures, n=100_000, frames=60, *, scene="random", speed=1.0, seed=0):
    """``memory_bytes()`` per element and frame time while ``n`` agents move, frame after frame.

    Every frame each agent moves by its velocity (at most ``speed`` units,
    bouncing off the world's edges), then ``update_many``, ``cleanup`` and ``pairs``.

    Parameters
    ----------
    structures : dict
        Label -> ``(registry name, parameters)``.

    Returns
    -------
    list of dict
        ``structure, frame, bytes_per_element, frame_ms``; frame 0 is the
        structure right after its bulk load (``frame_ms`` 0).

    Raises
    ------
    AssertionError
        A structure's pairs differ from brute force after the last frame.
    """
    rng = np.random.default_rng(seed)
    start = scaled_scene(scene, n, seed=seed)
    world = np.concatenate([start[:, :2].min(axis=0), start[:, 2:].max(axis=0)])
    angle = rng.uniform(0, 2 * np.pi, n)
    vel0 = speed * rng.uniform(0.25, 1.0, n)[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    ids = np.arange(n, dtype=np.int64)
    rows = []
    for label, (name, params) in structures.items():
        bp = STRUCTURES[name].from_boxes(start, world=world, **params)
        boxes, vel = start, vel0.copy()
        rows.append({"structure": label, "frame": 0, "bytes_per_element": bp.memory_bytes() / n, "frame_ms": 0.0})
        for frame in range(1, frames + 1):
            boxes = bounce(boxes, vel, world)
            t0 = time.process_time()
            bp.update_many(ids, boxes)
            bp.cleanup()
            bp.pairs()
            rows.append({"structure": label, "frame": frame, "bytes_per_element": bp.memory_bytes() / n,
                         "frame_ms": 1e3 * (time.process_time() - t0)})
        assert np.array_equal(bp.pairs(), compiled_brute_force_pairs(boxes)), f"{label}: pairs differ"
    return rows


# --------------------------------------------------------------------------
# python -m lessons_lib.labs.loose --store
# --------------------------------------------------------------------------
_COMMAND = "python -m lessons_lib.labs.loose --store"
#: The structures lessons 06 and 07 compare, by label.
COMPARED = {"UniformGrid": ("uniform_grid", {}), "Quadtree": ("quadtree", {}),
            "LooseQuadtree": ("loose_quadtree", {}), "LooseTightGrid": ("loose_tight_grid", {})}


def store(which=("structures", "split", "memory")) -> list:
    """Run lessons 06-07's large measurements and write them to ``data/results/``; returns the paths written."""
    paths = []
    if "structures" in which:
        rows = []
        for n in (20_000, 100_000):
            for scene in ("random", "mixed_sizes"):
                rows += [{"scene": scene, **r} for r in measure_structures(scaled_scene(scene, n), COMPARED, repeat=5)]
        paths.append(save_results("loose_structures", rows, command=_COMMAND,
                                  what="lessons 06-07: build, pairs(), 200 queries and one frame (every box moved up to "
                                       "1 unit: update_many + cleanup + pairs), CPU time, medians of 5, and memory_bytes() per "
                                       "element, for four structures with default parameters on scaled scenes"))
    if "split" in which:
        rows = []
        for n in (20_000, 100_000):
            rows += [{"n": n, **r} for r in split_frame_rows(scaled_scene("mixed_sizes", n), repeat=5)]
        paths.append(save_results("loose_split", rows, command=_COMMAND,
                                  what="lesson 07: one frame (agents and dragons move up to 1 unit, castles stay; "
                                       "update_many of the movers + pairs) on scaled 'mixed_sizes', one structure "
                                       "for everything against the content split; CPU time, medians of 5"))
    if "memory" in which:
        paths.append(save_results("loose_memory", memory_over_frames(COMPARED), command=_COMMAND,
                                  what="lessons 06-07: memory_bytes() per element and frame CPU time over 60 frames of "
                                       "100,000 agents moving up to 1 unit per frame (scaled 'random' scene, "
                                       "bouncing off the walls; update_many + cleanup + pairs)"))
    return paths


def main(argv=None) -> int:
    return store_command(argv, "Lessons 06-07's stored measurements.", ("structures", "split", "memory"), store)


if __name__ == "__main__":
    sys.exit(main())

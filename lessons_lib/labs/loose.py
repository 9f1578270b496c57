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
* :func:`memory_over_frames`: bytes per element frame after frame while agents move;
* :func:`query_visits` and :func:`tight_grid_visits`: nodes or loose cells a query visits (exact counts);
* readers of the stored results that the two lessons print and plot: :func:`time_ratio_rows`
  and :func:`plot_time_ratios` (one tree's times as a multiple of another's),
  :func:`case_rows`, :func:`memory_rows`, :func:`memory_parts_rows`, :func:`memory_change_rows`,
  :func:`settling_rows` and :func:`drift_settling` (when memory stops
  changing, lessons 06 and 13),
  :func:`frame_spread_rows`, :func:`plot_memory_over_frames`, :func:`anchor_rows` (the
  answer set's own C code on the same frames), :func:`double_grid_rows` (the double grid
  against the compact quadtree in every stored comparison of the course),
  :func:`uniform_size_rows` (what storing agents as points saves), :func:`plot_structure_times`
  and :func:`plot_split_frames`.

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

from .. import style, viz
from ..base import STRUCTURES
from ..data import Results, load_results, save_results
from ..scenes import scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs
from ..structures.loose_quadtree import LooseQuadtree
from ..structures.loose_tight_grid import LooseTightGrid
from ..structures.quadtree import Quadtree
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
    "query_visits",
    "tight_grid_visits",
    "case_rows",
    "memory_parts_rows",
    "memory_change_rows",
    "TIME_KEYS",
    "time_ratio_rows",
    "plot_time_ratios",
    "memory_rows",
    "frame_spread_rows",
    "settling_rows",
    "drift_settling",
    "plot_memory_over_frames",
    "anchor_rows",
    "double_grid_rows",
    "uniform_size_rows",
    "plot_structure_times",
    "plot_split_frames",
    "store",
    "viz_box", "leaves_holding", "draw_double_grid", "main",
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


def leaves_holding(tree: Quadtree, ids) -> np.ndarray:
    """How many leaves of a compact :class:`Quadtree` hold each element of ``ids`` (its element nodes).

    Returns an int64 array, one count per id, in the order of ``ids``.
    """
    slots = tree.elements.slots_of(np.asarray(ids, dtype=np.int64))
    t = tree.node_table()
    count = np.zeros(tree.elements.high_water, dtype=np.int64)
    for node in t["index"][t["is_leaf"]].tolist():
        for s in tree.leaf_elements(int(node)):
            count[s] += 1
    return count[slots]


def _cover(world, rects):
    if rects is None or len(rects) == 0:
        return world
    return np.array([min(world[0], rects[:, 0].min()), min(world[1], rects[:, 1].min()),
                     max(world[2], rects[:, 2].max()), max(world[3], rects[:, 3].max())])


# --------------------------------------------------------------------------
# Lesson 07: the loose/tight double grid
# --------------------------------------------------------------------------
#: The loose cells' rectangles: a dark purple, apart from the grey region ramp and every meaning colour.
_LOOSE_RECT_COLOR = "#440154"


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
        tc0, tr0, tc1, tr1 = _tight_range(g, q)
        s = g.tight_cell_size
        ax.add_patch(Rectangle((g.world[0] + tc0 * s, g.world[1] + tr0 * s), (tc1 - tc0 + 1) * s, (tr1 - tr0 + 1) * s,
                               facecolor=style.YELLOW, alpha=0.35, edgecolor="none", label="tight cells read", zorder=0.4))
        listed = {c for tr in range(tr0, tr1 + 1) for tc in range(tc0, tc1 + 1) for c in g.listed_in(tc, tr)}
        for k, c in enumerate(cells["index"].tolist()):
            b = cells["bounds"][k]
            if c in listed and b[0] <= q[2] and q[0] <= b[2] and b[1] <= q[3] and q[1] <= b[3]:
                visited.append(c)
        ax.add_patch(Rectangle(q[:2], *(q[2:] - q[:2]), facecolor="none", edgecolor=style.QUERY_COLOR, linewidth=2.5,
                               label="query", zorder=4))
    if len(cells["index"]):
        vis = np.isin(cells["index"], visited)
        viz.draw_regions(ax, (cells["bounds"][~vis], np.zeros((~vis).sum(), np.int64)), color=_LOOSE_RECT_COLOR,
                         linewidth=1.5, linestyle="--", label="loose cell rectangle", zorder=3.5)
        if vis.any():
            viz.draw_regions(ax, (cells["bounds"][vis], np.zeros(vis.sum(), np.int64)), color=style.HIGHLIGHT_COLOR,
                             linewidth=2.5, label="loose cell visited", zorder=3.6)
    ids, boxes = g.items()
    if len(ids):
        hl = hits.tolist() if query is not None else ([touched] if touched is not None else None)
        viz.draw_boxes(ax, boxes, ids=ids, highlight=hl or None, label="element",
                       highlight_color=style.QUERY_COLOR if query is not None else style.HIGHLIGHT_COLOR,
                       highlight_label="query hit" if query is not None else "just inserted / moved",
                       annotate=len(ids) <= 30)
    viz.set_world(ax, _cover(w, cells["bounds"] if len(cells["index"]) else None))
    ax.set_xlabel("x (world units)")
    ax.set_ylabel("y (world units)")
    if title:
        ax.set_title(title, fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="x-small")
    return visited, hits


def _tight_range(g, q):
    """``(tc0, tr0, tc1, tr1)``: the tight cells under the closed box ``q`` (a true floor, clamped to the grid)."""
    tc0, tr0 = [int(v) for v in np.floor((q[:2] - g.world[:2]) / g.tight_cell_size)]
    tc1, tr1 = [int(v) for v in np.floor((q[2:] - g.world[:2]) / g.tight_cell_size)]
    return max(tc0, 0), max(tr0, 0), min(tc1, g.tcols - 1), min(tr1, g.trows - 1)


def draw_double_grid_query(ax, g, query, title=None, *, zoom_ax=None):
    """:func:`draw_double_grid` with a query box; returns ``(visited loose cells, hits)``.

    With ``zoom_ax``, the same picture is drawn there cut to the tight cells the
    query reads (plus a quarter of a tight cell), where small hits can be seen,
    and one legend for both panels goes below the figure.
    """
    out = draw_double_grid(ax, g, query=query, title=title)
    if zoom_ax is not None:
        q = np.asarray(query, dtype=float)
        draw_double_grid(zoom_ax, g, query=q, title="Close-up: the tight cells read")
        tc0, tr0, tc1, tr1 = _tight_range(g, q)
        s, m = g.tight_cell_size, g.tight_cell_size / 4
        zoom_ax.set_xlim(g.world[0] + tc0 * s - m, g.world[0] + (tc1 + 1) * s + m)
        zoom_ax.set_ylim(g.world[1] + tr0 * s - m, g.world[1] + (tr1 + 1) * s + m)
        handles, labels = ax.get_legend_handles_labels()
        ax.get_legend().remove()
        zoom_ax.get_legend().remove()
        ax.figure.legend(handles, labels, loc="outside lower center", ncols=4, fontsize="small")
    return out


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
    cases = [((0.0, 0.0), style.QUERY_COLOR, "searching element"), ((2 * h, 0.6 * h), style.BOX_COLOR, None),
             ((-1.2 * h, 2.15 * h), "0.5", None)]
    d = np.hypot(*cases[1][0])
    cases[1] = ((2 * h * cases[1][0][0] / d, 2 * h * cases[1][0][1] / d), style.BOX_COLOR, "touches: centre inside")
    cases[2] = (cases[2][0], "0.5", "misses: centre outside")
    for (x, y), color, label in cases:
        ax.add_patch(Circle((x, y), h, facecolor=color, alpha=0.25, edgecolor=color, linewidth=1.5, label=label))
        ax.plot([x], [y], "o", color=color, markersize=4)
    ax.add_patch(Rectangle((-h, -h), 2 * h, 2 * h, facecolor="none", edgecolor=style.QUERY_COLOR, linestyle=":",
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
    units; the scenery stays. Compared: :class:`~lessons_lib.structures.uniform_grid.UniformGrid`, the compact
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
# Lesson 06: how many nodes a query visits (exact counts, no timing)
# --------------------------------------------------------------------------
def query_visits(scenes=("random", "mixed_sizes"), n: int = 20_000, queries: int = 500, size: float = 14.0,
                 seed: int = 6) -> list[dict]:
    """Nodes a query visits in the loose and in the compact quadtree, both with default parameters.

    ``queries`` square query boxes of side ``size`` at random places on the scaled
    scene. The loose tree counts its own visits (``last_query_nodes``); for the
    compact tree the count is the nodes whose computed rectangles meet the query,
    which are the nodes its descent enters. Both trees' answers are compared.

    Returns
    -------
    list of dict
        ``scene, loose_nodes, loose_visits, compact_nodes, compact_visits`` (visits: mean per query).

    Raises
    ------
    AssertionError
        The two trees answer a query differently.
    """
    from ..structures.loose_quadtree import LooseQuadtree

    rng = np.random.default_rng(seed)
    rows = []
    for scene in scenes:
        boxes = scaled_scene(scene, n)
        q_lo = rng.uniform(boxes[:, :2].min(0), boxes[:, 2:].max(0) - 20, size=(queries, 2))
        lq, cq = LooseQuadtree.from_boxes(boxes), Quadtree.from_boxes(boxes)
        rect = cq.node_table()["rect"]
        lv, cv = [], []
        for q in np.column_stack([q_lo, q_lo + size]):
            assert np.array_equal(lq.query(q), cq.query(q)), f"{scene}: the trees disagree on query {q}"
            lv.append(lq.last_query_nodes)
            cv.append(np.count_nonzero((rect[:, 0] <= q[2]) & (q[0] <= rect[:, 2])
                                       & (rect[:, 1] <= q[3]) & (q[1] <= rect[:, 3])))
        rows.append({"scene": scene, "loose_nodes": lq.node_count(), "loose_visits": float(np.mean(lv)),
                     "compact_nodes": cq.node_count(), "compact_visits": float(np.mean(cv))})
    return rows


def tight_grid_visits(scenes=("random", "mixed_sizes"), n: int = 20_000, queries: int = 500, size: float = 14.0,
                      seed: int = 7) -> list[dict]:
    """Loose cells a :class:`LooseTightGrid` query visits and elements it tests (exact counts), default parameters.

    ``queries`` square query boxes of side ``size`` at random places on the scaled
    scene; every answer is compared with a brute-force scan.

    Returns
    -------
    list of dict
        ``scene, loose grid`` (rows x columns), ``non-empty`` (loose cells holding
        something), ``tight grid``, ``cells visited`` and ``elements tested`` (means per query).

    Raises
    ------
    AssertionError
        A query whose answer differs from brute force.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for scene in scenes:
        boxes = scaled_scene(scene, n)
        g = LooseTightGrid.from_boxes(boxes)
        q_lo = rng.uniform(boxes[:, :2].min(0), boxes[:, 2:].max(0) - 20, size=(queries, 2))
        cells, tests = [], []
        for q in np.column_stack([q_lo, q_lo + size]):
            want = np.flatnonzero((boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2])
                                  & (boxes[:, 1] <= q[3]) & (q[1] <= boxes[:, 3]))
            assert np.array_equal(g.query(q), want), f"{scene}: query {q} differs from brute force"
            cells.append(g.last_query_cells)
            tests.append(g.last_query_tests)
        rows.append({"scene": scene, "loose grid": f"{g.rows} x {g.cols}", "non-empty": len(g.loose_cells()["index"]),
                     "tight grid": f"{g.trows} x {g.tcols}", "cells visited": float(np.mean(cells)),
                     "elements tested": float(np.mean(tests))})
    return rows


# --------------------------------------------------------------------------
# Reading the stored results (lessons 06 and 07)
# --------------------------------------------------------------------------
#: The timed operations of ``loose_structures.csv``: column -> what the lessons call it.
TIME_KEYS = {"build_ms": "build", "pairs_ms": "all pairs", "queries_ms": "200 queries", "frame_ms": "one frame"}
_CASES = tuple((n, scene) for n in (20_000, 100_000) for scene in ("random", "mixed_sizes"))


def _row(table: Results, **equal) -> dict:
    rows = table.where(**equal).rows()
    if len(rows) != 1:
        raise KeyError(f"expected one stored row for {equal}, found {len(rows)}")
    return rows[0]


def time_ratio_rows(table: Results, base: str = "Quadtree", other: str = "LooseQuadtree",
                    keys=tuple(TIME_KEYS)) -> list[dict]:
    """``other``'s time as a multiple of ``base``'s, per scene and n of ``loose_structures.csv``.

    Returns
    -------
    list of dict
        ``scene, n`` and one ratio per key (above 1: ``other`` is slower).
    """
    rows = []
    for n, scene in _CASES:
        b, o = _row(table, n=n, scene=scene, structure=base), _row(table, n=n, scene=scene, structure=other)
        rows.append({"scene": scene, "n": n, **{k: o[k] / b[k] for k in keys}})
    return rows


def plot_time_ratios(ax, rows: list[dict], keys=tuple(TIME_KEYS), *, base: str = "the compact quadtree",
                     other: str = "the loose quadtree") -> None:
    """Grouped bars of :func:`time_ratio_rows`: one group per operation, one bar per scene and n, a line at 1."""
    width = 0.8 / len(rows)
    colors = [style.SKY, style.BLUE, style.PURPLE, style.VERMILLION]
    x = np.arange(len(keys))
    for k, r in enumerate(rows):
        ax.bar(x + (k - (len(rows) - 1) / 2) * width, [r[key] for key in keys], width=width,
               color=colors[k % len(colors)], label=f"'{r['scene']}', n = {r['n']:,}")
    ax.axhline(1.0, color="black", linewidth=1.0, linestyle="--")
    ax.annotate("same time", (len(keys) - 0.5, 1.0), xytext=(0, 3), textcoords="offset points",
                ha="right", va="bottom", fontsize="small")
    ax.set_xticks(x, [TIME_KEYS.get(k, k) for k in keys])
    ax.set(ylabel=f"time of {other}\n/ time of {base}",
           title=f"{other[0].upper() + other[1:]} against {base} (above 1: slower)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), title="scene and size")


def memory_rows(table: Results, names=("Quadtree", "LooseQuadtree")) -> list[dict]:
    """Bytes per element of ``loose_structures.csv``, right after the bulk load and after the frames of motion.

    Returns
    -------
    list of dict
        ``scene, n``, then for each name ``<name> built`` and ``<name> moving``; with two
        names also ``change %`` (the second against the first, moving, in per cent) and
        always ``element table`` (the part every structure shares).
    """
    rows = []
    for n, scene in _CASES:
        row = {"scene": scene, "n": n}
        got = [_row(table, n=n, scene=scene, structure=name) for name in names]
        for name, r in zip(names, got):
            row[f"{name} built"] = r["built_bytes_per_element"]
            row[f"{name} moving"] = r["bytes_per_element"]
        if len(names) == 2:
            row["change %"] = 100 * (got[1]["bytes_per_element"] / got[0]["bytes_per_element"] - 1)
        row["element table"] = got[0]["table_bytes_per_element"]
        rows.append(row)
    return rows


def case_rows(table: Results, names, key: str = "frame_ms") -> list[dict]:
    """One row per structure of ``loose_structures.csv``, one column per scene and n: the value of ``key``."""
    return [{"structure": name, **{f"{scene} {n // 1000}k": _row(table, n=n, scene=scene, structure=name)[key]
                                   for n, scene in _CASES}} for name in names]


def memory_parts_rows(table: Results, names, n: int = 100_000) -> list[dict]:
    """Bytes per element of ``loose_structures.csv`` at ``n``, after the frames of motion, split into parts.

    Returns
    -------
    list of dict
        ``scene, structure, bytes, element table, cell-order copy`` (the copy of the
        boxes a :class:`LooseTightGrid` keeps for ``pairs()``; 0 for the others) and
        ``without the copy``.
    """
    rows = []
    for scene in ("random", "mixed_sizes"):
        for name in names:
            r = _row(table, n=n, scene=scene, structure=name)
            rows.append({"scene": scene, "structure": name, "bytes": r["bytes_per_element"],
                         "element table": r["table_bytes_per_element"],
                         "cell-order copy": r["layout_bytes_per_element"],
                         "without the copy": r["bytes_per_element"] - r["layout_bytes_per_element"]})
    return rows


def memory_change_rows(mem: Results, names) -> list[dict]:
    """``loose_memory.csv`` per structure: bytes per element after the bulk load and at the end, change in per cent."""
    rows = []
    for name in names:
        b = mem.where(structure=name)["bytes_per_element"]
        rows.append({"structure": name, "bytes after load": float(b[0]), "bytes at end": float(b[-1]),
                     "change %": float(100 * (b[-1] / b[0] - 1)),
                     "last change": _last_change(mem.where(structure=name)["frame"], b)})
    return rows


def _last_change(frames, values) -> int:
    """The frame at which ``values`` last changed (the first frame if never)."""
    changed = np.flatnonzero(np.diff(np.asarray(values)) != 0)
    return int(frames[changed[-1] + 1]) if len(changed) else int(frames[0])


def frame_spread_rows(mem: Results, names=("Quadtree", "LooseQuadtree")) -> list[dict]:
    """Memory and frame times of ``loose_memory.csv``, per structure.

    Returns
    -------
    list of dict
        ``structure``, ``bytes after load``, ``bytes at end``, ``growth %``,
        ``last change`` (frame), ``median ms``, ``p10-p90 ms`` (spread of the frame
        times, frame 0 excluded) and ``spread %`` (that spread against the median).
    """
    rows = []
    for name in names:
        r = mem.where(structure=name)
        b, t = r["bytes_per_element"], r["frame_ms"][1:]
        p10, p50, p90 = np.percentile(t, [10, 50, 90])
        rows.append({"structure": name, "bytes after load": float(b[0]), "bytes at end": float(b[-1]),
                     "growth %": float(100 * (b[-1] / b[0] - 1)), "last change": _last_change(r["frame"], b),
                     "median ms": float(p50), "p10-p90 ms": float(p90 - p10),
                     "spread %": float(100 * (p90 - p10) / p50)})
    return rows


def settling_rows(extra=()) -> list[dict]:
    """When each quadtree's memory last changed, in lesson 06's drift and lesson 13's simulation (stored runs).

    Lesson 06 (``loose_memory.csv``): 100,000 agents drifting in straight lines,
    bouncing off the walls only, every frame recorded. Lesson 13
    (``sim_frames.csv``): 20,000 agents that collide and bounce off each other,
    every 5th frame recorded. ``extra`` rows (the same keys, e.g. from
    :func:`drift_settling`) follow lesson 06's row.

    Returns
    -------
    list of dict
        ``run, agents, frames, compact, loose`` (the last frame at which
        ``memory_bytes()`` changed, for ``quadtree`` and ``loose_quadtree``).
    """
    mem = load_results("loose_memory")
    drift = {name: _last_change(mem.where(structure=name)["frame"], mem.where(structure=name)["bytes_per_element"])
             for name in ("Quadtree", "LooseQuadtree")}
    rows = [{"run": "lesson 06: drift", "agents": 100_000, "frames": int(mem["frame"].max()),
             "compact": drift["Quadtree"], "loose": drift["LooseQuadtree"]}]
    rows += [dict(r) for r in extra]
    sim = load_results("sim_frames").where(n=20_000)
    last = {name: _last_change(sim.where(structure=name)["frame"], sim.where(structure=name)["memory_bytes"])
            for name in ("quadtree", "loose_quadtree")}
    rows.append({"run": "lesson 13: collisions", "agents": 20_000,
                 "frames": int(sim.where(structure="quadtree")["frame"].max()),
                 "compact": last["quadtree"], "loose": last["loose_quadtree"]})
    return rows


def drift_settling(n: int = 20_000, frames: int = 60) -> dict:
    """Lesson 06's drift run at ``n`` agents, memory only: ``run, agents, frames, compact, loose``."""
    rows = memory_over_frames({"Quadtree": ("quadtree", {}), "LooseQuadtree": ("loose_quadtree", {})},
                              n=n, frames=frames)
    out = {"run": "lesson 06: drift", "agents": n, "frames": frames}
    for name, key in (("Quadtree", "compact"), ("LooseQuadtree", "loose")):
        r = [x for x in rows if x["structure"] == name]
        out[key] = _last_change(np.array([x["frame"] for x in r]), [x["bytes_per_element"] for x in r])
    return out


def plot_memory_over_frames(ax_mem, ax_time, mem: Results, names) -> None:
    """``loose_memory.csv``: bytes per element (``ax_mem``) and, if ``ax_time`` is given, ms per frame."""
    for name, color in zip(names, style.PALETTE):
        r = mem.where(structure=name)
        ax_mem.plot(r["frame"], r["bytes_per_element"], color=color, label=name, drawstyle="steps-post")
        if ax_time is not None:
            ax_time.plot(r["frame"][1:], r["frame_ms"][1:], color=color, label=name, linewidth=1.2)
    ax_mem.set(xlabel="frame (0: right after the bulk load)", ylabel="bytes per element",
               title="Memory while 100,000 agents move")
    if ax_time is not None:
        viz.frame_budget_lines(ax_time)
        ax_time.set(xlabel="frame", ylabel="ms per frame (CPU time)", title="Time per frame", ylim=(0, None))
        ax_time.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        ax_mem.legend(loc="upper left", bbox_to_anchor=(1.01, 1))


def anchor_rows(structures=("quadtree", "loose_quadtree")) -> list[dict]:
    """The answer set's own C code against ours on the same frames (``bench_anchor_c.csv``, lesson 13).

    Returns
    -------
    list of dict
        ``agents``, ``C quadtree``, ``C loose/tight grid`` (ms per frame, the answer
        set's code in its id order) and one column per name of ``structures``
        (ours, defaults), each the median over interleaved runs.
    """
    t = load_results("bench_anchor_c").where(status="ok")
    rows = []
    for n in t.unique("n"):
        here = t.where(n=n)
        row = {"agents": int(n),
               "C quadtree": float(_row(here, entrant="C_quadtree_O2_id")["total_ms"]),
               "C loose/tight grid": float(_row(here, entrant="C_loose_tight_grid_O2_id")["total_ms"])}
        for s in structures:
            row[s] = float(_row(here, kind="lessons_lib", structure=s)["total_ms"])
        rows.append(row)
    return rows


def double_grid_rows(dynamic_min_n: int = 10_000) -> list[dict]:
    """The double grid against the compact quadtree in every stored comparison of the course, ms per frame.

    Rows: this lesson's comparison (``loose_structures.csv``, scenes ``random`` and
    ``mixed_sizes``: one frame, every box moved, ``update_many + cleanup + pairs``),
    lesson 12's dynamic suite (``bench_dynamic.csv``, each scene at ``dynamic_min_n``
    boxes or more: ``update_many + pairs``), lesson 13's simulation (``sim_scaling.csv``:
    a whole simulation step, 20,000 agents or more), lesson 13's resting-bodies scenes
    (``sim_scenes.csv``, scenes ``resting`` and ``giants``: each structure in the faster
    of its two modes, ``update_many`` or a rebuild every frame) and lesson 13's run of
    the answer set's own C code on the same frames (``bench_anchor_c.csv``).

    Parameters
    ----------
    dynamic_min_n : int
        Smallest box count of the dynamic suite kept (its 1,000-box frames take a
        tenth of a millisecond, too little to rank structures by).

    Returns
    -------
    list of dict
        ``where, n, double grid, compact quadtree, grid / tree, fastest`` (the
        fastest entrant of that comparison at that size) and ``grid / fastest``
        (the double grid's time over the fastest's: 1.0 when it is the fastest).

    Raises
    ------
    FileNotFoundError
        If one of the stored files is missing (``make bench`` writes them).
    """
    rows = []

    def add(where, n, grid, tree, candidates):
        fastest = min(candidates, key=candidates.get)
        rows.append({"where": where, "n": int(n), "double grid": float(grid), "compact quadtree": float(tree),
                     "grid / tree": float(grid) / float(tree), "fastest": fastest,
                     "grid / fastest": float(grid) / float(candidates[fastest])})

    t = load_results("loose_structures")
    for scene in ("random", "mixed_sizes"):
        for n in t.where(scene=scene).unique("n"):
            here = {r["structure"]: r["frame_ms"] for r in t.where(scene=scene, n=n).rows()}
            add(f"lesson 07: one frame, '{scene}'", n, here["LooseTightGrid"], here["Quadtree"], here)
    d = load_results("bench_dynamic").where(status="ok")
    for scene in d.unique("scene"):
        for n in d.where(scene=scene).unique("n"):
            here = {r["structure"]: r["frame_ms"] for r in d.where(scene=scene, n=n).rows()}
            if n >= dynamic_min_n and "loose_tight_grid" in here and "quadtree" in here:
                add(f"lesson 12: dynamic suite, '{scene}'", n, here["loose_tight_grid"], here["quadtree"], here)
    s = load_results("sim_scaling")
    for n in s.unique("n"):
        here = {r["structure"]: r["step_ms"] for r in s.where(n=n).rows()}
        if "loose_tight_grid" in here and "quadtree" in here and n >= 20_000:
            add("lesson 13: simulation step", n, here["loose_tight_grid"], here["quadtree"], here)
    sc = load_results("sim_scenes")
    for scene in ("resting", "giants"):
        for n in sc.where(scene=scene).unique("n"):
            here = {}
            for r in sc.where(scene=scene, n=n).rows():
                here[r["structure"]] = min(here.get(r["structure"], np.inf), r["step_ms"])
            if "loose_tight_grid" in here and "quadtree" in here:
                add(f"lesson 13: step, '{scene}'", n, here["loose_tight_grid"], here["quadtree"], here)
    for r in anchor_rows(("quadtree", "loose_tight_grid")):
        add("lesson 13: the source's C code", r["agents"], r["C loose/tight grid"], r["C quadtree"],
            {"C loose/tight grid": r["C loose/tight grid"], "C quadtree": r["C quadtree"]})
    return rows


def uniform_size_rows() -> list[dict]:
    """What storing agents as points saves: ``PointGrid`` against ``UniformGrid``, ms per frame, from stored runs.

    Rows: lesson 13's simulation (``sim_scaling.csv``, agents of sizes within a
    narrow range, a whole step) and lesson 12's dynamic suite (``bench_dynamic.csv``,
    ``update_many + pairs``) on each of its scenes.

    Returns
    -------
    list of dict
        ``where, n, boxes (UniformGrid), points (PointGrid), speed-up`` (boxes / points).
    """
    rows = []
    s = load_results("sim_scaling")
    for n in s.unique("n"):
        here = {r["structure"]: r["step_ms"] for r in s.where(n=n).rows()}
        if "point_grid" in here and "uniform_grid" in here:
            rows.append({"where": "lesson 13: simulation step", "n": int(n), "boxes (UniformGrid)": here["uniform_grid"],
                         "points (PointGrid)": here["point_grid"]})
    d = load_results("bench_dynamic").where(status="ok")
    for scene in d.unique("scene"):
        for n in d.where(scene=scene).unique("n"):
            here = {r["structure"]: r["frame_ms"] for r in d.where(scene=scene, n=n).rows()}
            if "point_grid" in here and "uniform_grid" in here:
                rows.append({"where": f"lesson 12: dynamic, '{scene}'", "n": int(n),
                             "boxes (UniformGrid)": here["uniform_grid"], "points (PointGrid)": here["point_grid"]})
    for r in rows:
        r["speed-up"] = r["boxes (UniformGrid)"] / r["points (PointGrid)"]
    return rows


def plot_structure_times(fig, table: Results, names, keys=("pairs_ms", "queries_ms", "frame_ms")) -> None:
    """Small multiples of ``loose_structures.csv``: one panel per scene and n, grouped bars per operation."""
    axes = fig.subplots(2, 2, sharex=True)
    width = 0.8 / len(names)
    x = np.arange(len(keys))
    for ax, (n, scene) in zip(axes.flat, _CASES):
        for k, (name, color) in enumerate(zip(names, style.PALETTE)):
            r = _row(table, n=n, scene=scene, structure=name)
            ax.bar(x + (k - (len(names) - 1) / 2) * width, [r[key] for key in keys], width=width,
                   color=color, label=name)
        ax.set_xticks(x, [TIME_KEYS.get(k, k) for k in keys])
        ax.set(title=f"'{scene}', n = {n:,}", ylabel="ms (median of 5)")
        if ax.get_ylim()[1] > viz.FRAME_BUDGETS_MS[0][0]:   # the frame budgets, where the bars reach them
            viz.frame_budget_lines(ax)
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="outside right upper")


def plot_split_frames(fig, split: Results) -> None:
    """``loose_split.csv``: one frame per approach, ``update_many`` and ``pairs()`` stacked, one panel per n."""
    sizes = split.unique("n")
    axes = fig.subplots(1, len(sizes), sharey=True)
    for ax, n in zip(np.atleast_1d(axes), sizes):
        r = split.where(n=n)
        labels = [a.replace(" (everything)", "").replace("split: ", "split:\n").replace(" + ", " +\n", 1)
                  for a in r["approach"]]
        y = np.arange(len(labels))[::-1]
        ax.barh(y, r["update_ms"], color=style.ORANGE, label="update_many (movers only)")
        ax.barh(y, r["pairs_ms"], left=r["update_ms"], color=style.BLUE, label="pairs()")
        ax.set_yticks(y, labels)
        ax.set(title=f"n = {n:,}", xlabel="ms per frame (median of 5)")
        if r["frame_ms"].max() > viz.FRAME_BUDGETS_MS[0][0] / 2:   # the 60 fps budget, where it is in reach
            ax.axvline(viz.FRAME_BUDGETS_MS[0][0], color="0.35", linestyle="--", linewidth=1.0,
                       label=viz.FRAME_BUDGETS_MS[0][1])
    handles = {}
    for ax in np.atleast_1d(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=3)


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

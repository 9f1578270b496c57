"""Helpers of lessons 02-03 that are longer than a notebook cell: measurements and pictures of grids.

Drawing and stepping:

* :func:`draw_grid` draws a grid's cells with the number of boxes in each;
  :func:`draw_grid_scene` a grid with its boxes, pairs, shaded cells, a query and marked
  points (lesson 02's pictures); :func:`draw_big_boxes` the big-object scene;
  :func:`draw_hierarchy` a hierarchical grid's coarse marks.
* :func:`insert_stepper` steps through inserts, filling the cells each new box lands in;
  :func:`reuse_stepper` through inserts, removes and updates beside the grid's arrays;
  :func:`hash_stepper` from cells to buckets and key compares (lesson 03). Their stills
  (what a notebook shows without a kernel) are strips of key steps (a :class:`~lessons_lib.widgets.Stepper` with ``still_ncols`` and ``still_panel_size``).
* :func:`draw_filed_boxes`, :func:`draw_neighbour_rule`, :func:`draw_sorted_arrays`: the
  counting-sort grid's picture (lesson 02): boxes filed under the cell of their lower-left
  corner, the four neighbours a box is tested against, and the ``start`` / ``order`` arrays.
* :func:`table` formats rows as an aligned text table (the lessons print results that way).

Small live measurements (lesson cells):

* :func:`cell_size_sweep` measures a uniform grid for several cell sizes (tests, nodes,
  times): the cell-size trade-off; :func:`plot_cell_size_sweep` draws it.
* :func:`moving_frames` times frames in which every box moves: the list grid's update
  against the counting-sort grid's sort, on one thread and on all.
* :func:`neighbourhood_loop` is the lecture's game loop ([gamedev-lecture]): every object
  asks the 3 x 3 cells around its centre, so every touching pair is met twice.
* :func:`corner_cells`, :func:`corner_only_pairs`: the article's corner-only grid hashing,
  wrong on purpose ([magley2026]).
* :func:`scattered_groups`, :func:`spread_clusters`: sparse scenes in worlds of any size.
* :func:`occupied_cells`, :func:`hash_buckets`, :func:`bucket_histogram`: bucket loads of a
  hash with any constants (the lecture's, [Teschner2003]'s, the bad ``cx + cy``);
  :func:`bucket_runs` one bucket sorted into cells as the pair search does it.
* :func:`dense_grid_bytes` is the memory a dense grid would need for a world.

Stored measurements, too slow for a lesson (``python -m lessons_lib.labs.grids --store``
writes them under ``data/results/``; the lessons plot them):

* :func:`grid_scaling`: the uniform grid against the compiled brute force as n grows
  (``grid_scaling.csv``, lesson 02);
* :func:`hierarchy_sweep`: uniform against hierarchical grid as the world (and the number
  of fine cells) grows around the same clusters (``grid_hierarchy.csv``, lesson 02);
* :func:`hash_load_sweep`: the good hash against the bad one as the load grows
  (``hash_load.csv``, lesson 03).
"""
from __future__ import annotations

import math

import numpy as np

from .. import style, viz
from ..base import world_for
from ..geometry import as_box, as_boxes
from ..scenes import make_scene, scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs, pair_test_count
from ..structures.hierarchical_grid import HierarchicalGrid
from ..structures.spatial_hash import SpatialHash
from ..structures.uniform_grid import UniformGrid
from ..timing import best_time
from ..widgets import Stepper

__all__ = [
    "cell_size_sweep",
    "table",
    "plot_cell_size_sweep",
    "moving_frames",
    "draw_grid",
    "draw_grid_scene",
    "draw_big_boxes",
    "draw_hierarchy",
    "draw_filed_boxes",
    "draw_neighbour_rule",
    "draw_sorted_arrays",
    "draw_counting_sort",
    "insert_stepper",
    "reuse_stepper",
    "hash_stepper",
    "REUSE_OPERATIONS",
    "HASH_BOXES",
    "HASH_LOOKUPS",
    "bucket_histogram",
    "bucket_runs",
    "dense_grid_bytes",
    "corner_cells",
    "corner_only_pairs",
    "grid_pair_tests",
    "neighbourhood_loop",
    "scattered_groups",
    "spread_clusters",
    "occupied_cells",
    "hash_buckets",
    "LECTURE_CONSTANTS",
    "TESCHNER_CONSTANTS",
    "grid_scaling",
    "hierarchy_sweep",
    "hash_load_sweep",
    "store",
    "main",
]

#: The two constants of the lecture's cell hash ([gamedev-lecture]); both are prime.
LECTURE_CONSTANTS = (92837111, 689287499)
#: The first two constants of [Teschner2003]'s hash (the library's "good" hash); the first is prime,
#: the second is 41 x 471943.
TESCHNER_CONSTANTS = (73856093, 19349663)
_MASK62 = (1 << 62) - 1



def cell_size_sweep(boxes, cell_sizes, *, repeat: int = 3) -> dict[str, np.ndarray]:
    """Build a :class:`UniformGrid` of ``boxes`` for each cell size and measure it.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    cell_sizes : sequence of float
        World units, each > 0 (and giving at most ``DEFAULT_MAX_CELLS`` cells).
    repeat : int
        Timings are the best of ``repeat`` runs.

    Returns
    -------
    dict of numpy.ndarray, one entry per cell size
        ``cell_size``; ``cells`` (rows x cols); ``nodes`` (box-cell entries);
        ``tests`` (box-box tests made by ``pairs()``); ``pairs`` (found; the
        same for every size); ``build_ms`` and ``pairs_ms`` (best times, ms).
    """
    b = as_boxes(boxes)
    rows = []
    for s in cell_sizes:
        build, g = best_time(lambda: UniformGrid.from_boxes(b, cell_size=float(s)), repeat)
        t_pairs, p = best_time(g.pairs, repeat)
        rows.append((float(s), g.rows * g.cols, g.nodes_in_use(), g.last_pair_tests, len(p),
                     1e3 * build, 1e3 * t_pairs))
    names = ("cell_size", "cells", "nodes", "tests", "pairs", "build_ms", "pairs_ms")
    cols = list(zip(*rows)) if rows else [()] * len(names)
    return {k: np.array(v) for k, v in zip(names, cols)}


def table(rows, columns, floats: str = "{:.2f}") -> str:
    """``rows`` (dicts) as an aligned text table of ``columns``: ints with thousands separators,
    floats with ``floats``, text left-aligned, numbers right-aligned."""
    def cell(v):
        if isinstance(v, (bool, np.bool_)):
            return str(bool(v))
        if isinstance(v, (int, np.integer)):
            return f"{int(v):,}"
        if isinstance(v, (float, np.floating)):
            return floats.format(float(v)) if np.isfinite(v) else "-"
        return str(v)

    body = [[cell(r.get(c, "")) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(b[k]) for b in body]) for k, c in enumerate(columns)]
    numeric = [all(b[k][:1].isdigit() or b[k][:1] in "-." for b in body) if body else False
               for k in range(len(columns))]
    lines = ["  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(columns, widths, numeric))]
    lines += ["  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(b, widths, numeric)) for b in body]
    return "\n".join(line.rstrip() for line in lines)


def plot_cell_size_sweep(fig, sweeps, defaults, *, n: int):
    """Lesson 02's cell-size plot on ``fig``: work (box tests, nodes) and time against the cell size.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    sweeps : dict of str to dict
        :func:`cell_size_sweep` results by scene name.
    defaults : dict of str to float
        The default cell size of each scene (drawn as a dotted vertical line on the time plot).
    n : int
        Boxes per scene (for the titles and the brute-force line).

    Returns
    -------
    numpy.ndarray of 2 Axes
    """
    axes = fig.subplots(1, 2)
    for k, (name, sw) in enumerate(sweeps.items()):
        color = style.PALETTE[k]
        axes[0].loglog(sw["cell_size"], sw["tests"], "o-", color=color, label=f"{name}: box tests")
        axes[0].loglog(sw["cell_size"], sw["nodes"], "s--", color=color, label=f"{name}: nodes")
        axes[1].loglog(sw["cell_size"], sw["build_ms"] + sw["pairs_ms"], "o-", color=color,
                       label=f"{name}: build + pairs")
        if name in defaults:
            axes[1].axvline(defaults[name], color=color, linestyle=":", linewidth=1.2,
                            label=f"{name}: default cell")
    axes[0].axhline(pair_test_count(n), color="0.3", linestyle=":", label="brute force tests")
    axes[0].set(title=f"Work against cell size, n = {n:,}", xlabel="cell size (world units)", ylabel="count")
    viz.frame_budget_lines(axes[1])
    axes[1].set(title=f"Time against cell size, n = {n:,}", xlabel="cell size (world units)",
                ylabel="time (ms, this machine)")
    handles, labels = [], []
    for ax in axes:
        for h, text in zip(*ax.get_legend_handles_labels()):
            handles.append(h)
            labels.append(text)
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize="small", frameon=False)
    return axes


def moving_frames(n: int = 20_000, *, frames: int = 7, step: float = 2.0, seed: int = 0) -> list[dict]:
    """Frames in which every box moves, then all pairs are asked: the list grid against the counting-sort grid.

    On ``scaled_scene("random", n)`` (the article's density), each frame moves every box by up
    to ``step`` units (alternately there and back) with ``update_many`` and calls ``pairs()``.
    The :class:`UniformGrid` edits the lists of the boxes that changed cells; the
    :class:`~lessons_lib.structures.counting_sort_grid.CountingSortGrid` sorts everything again.
    Both run on one thread (the counting-sort grid's parallel kernels are set to one thread for
    the run, then given back their number), start from ``from_boxes`` with their default cell
    sizes, and their pairs are compared on the first frames.

    Returns
    -------
    list of dict
        One row per grid: ``structure``, ``threads`` (1), ``ms_per_frame`` (the fastest frame's
        wall time, update + pairs), ``pairs``.

    Raises
    ------
    AssertionError
        If the two grids find different pairs.
    """
    import time

    from ..core.jit import set_threads
    from ..structures.counting_sort_grid import CountingSortGrid

    boxes = scaled_scene("random", int(n))
    rng = np.random.default_rng(seed)
    moved = boxes + np.tile(rng.uniform(-step, step, (len(boxes), 2)), 2)
    ids = np.arange(len(boxes))
    rows, reference = [], {}
    for name, cls in (("uniform_grid", UniformGrid), ("counting_sort_grid", CountingSortGrid)):
        before = set_threads(1)
        try:
            g = cls.from_boxes(boxes)
            g.pairs()
            times = []
            for k in range(int(frames)):
                t0 = time.perf_counter()
                g.update_many(ids, moved if k % 2 == 0 else boxes)
                p = g.pairs()
                times.append(time.perf_counter() - t0)
                if k < 2:
                    if k in reference:
                        assert np.array_equal(reference[k], p), f"{name} disagrees with the list grid"
                    else:
                        reference[k] = p
        finally:
            set_threads(before)
        rows.append({"structure": name, "threads": 1, "ms_per_frame": 1e3 * min(times),
                     "pairs": len(p)})
    return rows


def draw_grid(ax, grid, *, counts: bool = True, fill_cells=(), fill_label: str | None = None,
              color: str = "0.6", linewidth: float = 0.6, zorder: float = 1.0):
    """Draw the cell borders of ``grid`` (and the number of boxes in each non-empty cell).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    grid : UniformGrid or another grid with ``cell_size``, ``world``, ``rows``, ``cols``,
        ``occupancy()`` and ``cell_box(row, col)`` (the counting-sort grid has them too).
    counts : bool
        Write each non-empty cell's occupancy at its centre.
    fill_cells : iterable of (row, col)
        Cells to shade.
    fill_label : str, optional
        Legend label of the shaded cells.
    color : matplotlib colour of the borders.
    linewidth : float
        Width of the borders in points.
    zorder : float
        Drawing order of the borders (boxes are drawn at 2: above 2 the lines cross the boxes).
    """
    s, (x0, y0) = grid.cell_size, grid.world[:2]
    xs = x0 + s * np.arange(grid.cols + 1)
    ys = y0 + s * np.arange(grid.rows + 1)
    # Axis-aligned lines lose nothing without antialiasing, and the stored PNG is smaller.
    ax.vlines(xs, ys[0], ys[-1], colors=color, linewidth=linewidth, zorder=zorder, label="grid cell",
              antialiased=False)
    ax.hlines(ys, xs[0], xs[-1], colors=color, linewidth=linewidth, zorder=zorder, antialiased=False)
    cells = list(fill_cells)
    if cells:
        rects = np.array([grid.cell_box(r, c) for r, c in cells])
        viz.draw_boxes(ax, rects, color=style.HIGHLIGHT_COLOR, alpha=0.35, linewidth=0.0, label=fill_label,
                       zorder=1.2)
    if counts:
        occ = grid.occupancy()
        for r, c in zip(*np.nonzero(occ)):
            ax.text(x0 + (c + 0.5) * s, y0 + (r + 0.5) * s, str(occ[r, c]), ha="center", va="center",
                    fontsize=8, color="0.25", zorder=4)
    return ax


#: Scenes with more boxes than this are drawn without antialiasing: a stored PNG of a dense scene
#: is then two to three times smaller, and its box outlines stay sharp.
DENSE = 100


def _crisp(artists) -> None:
    """Draw the box collections among ``artists`` without antialiasing (dense scenes)."""
    for a in artists:
        if hasattr(a, "set_antialiased") and not hasattr(a, "get_text"):
            a.set_antialiased(False)


def draw_grid_scene(ax, grid, boxes, *, pairs=None, counts: bool = False, strong_lines: bool = False,
                    fill_cells=(), fill_label: str | None = None, highlight=None, highlight_label: str | None = None,
                    query=None, points=None, points_label: str | None = None, annotate: bool = False,
                    view=None, title: str | None = None):
    """A grid with its boxes: the lesson-02 pictures in one call.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    grid : UniformGrid
    boxes : array_like, shape (n, 4)
        The boxes, row ``i`` drawn as box ``i``.
    pairs : array_like, shape (k, 2), optional
        Intersecting pairs of rows, drawn as segments between centres.
    counts : bool
        Write each non-empty cell's number of boxes.
    strong_lines : bool
        Dark cell borders drawn over the boxes (for dense scenes), instead of light ones under them.
    fill_cells : iterable of (row, col)
        Cells to shade, labelled ``fill_label``.
    highlight : array_like of int, optional
        Rows drawn in the highlight colour, labelled ``highlight_label``; with a ``query``, in
        the query colour instead (a query's hits, as the Explorer draws them).
    query : array_like, shape (4,), optional
        A query box, outlined in the query colour; the cells it visits are shaded (labelled
        "cells visited") unless ``fill_cells`` is given.
    points : array_like, shape (m, 2), optional
        Points to mark, labelled ``points_label``.
    annotate : bool
        Write each box's row number at its centre.
    view : array_like, shape (4,), optional
        The part of the world to show (default: the grid's world).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``, with world-unit axis labels and a legend outside the data, on the right.
    """
    b = as_boxes(boxes)
    fill_cells = list(fill_cells)
    if query is not None and not fill_cells:
        c0, r0, c1, r1 = grid.cell_range(query)
        fill_cells = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        fill_label = fill_label or "cells visited"
    if strong_lines:
        draw_grid(ax, grid, counts=counts, fill_cells=fill_cells, fill_label=fill_label, color="0.15",
                  linewidth=0.9, zorder=3)
    else:
        draw_grid(ax, grid, counts=counts, fill_cells=fill_cells, fill_label=fill_label)
    drawn = viz.draw_boxes(ax, b, label="box", annotate=annotate, linewidth=0.5 if len(b) > DENSE else 1.0,
                           highlight=highlight, highlight_label=highlight_label,
                           highlight_color=style.HIGHLIGHT_COLOR if query is None else style.QUERY_COLOR)
    if len(b) > DENSE:
        _crisp(drawn)
    if pairs is not None:
        viz.draw_pairs(ax, b, pairs, linewidth=1.0, label="intersecting pair")
    if query is not None:
        viz.draw_boxes(ax, np.array([as_box(query, name="query")]), fill=False, color=style.QUERY_COLOR,
                       linestyle="--", linewidth=2.5, label="query box", zorder=4)
    if points is not None:
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        ax.plot(pts[:, 0], pts[:, 1], "o", ms=5, color=style.VERMILLION, zorder=5, label=points_label)
    viz.set_world(ax, grid.world if view is None else view)
    viz.style_world_axes(ax, title=title, legend=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


def draw_big_boxes(ax, boxes, big, *, cell_size: float | None = None):
    """Lesson 02's big-object picture: the scene with its big boxes highlighted.

    ``big`` is a boolean mask of the big boxes; with ``cell_size``, the grid's cell size is
    given in the title.
    """
    b = as_boxes(boxes)
    big = np.asarray(big, dtype=bool)
    _crisp(viz.draw_boxes(ax, b, highlight=np.flatnonzero(big), label="small box", highlight_label="big box",
                          linewidth=0.4))
    viz.set_world(ax, world_for(b))
    title = f"{int(big.sum())} big boxes among {int((~big).sum()):,} small ones"
    if cell_size is not None:
        title += f"\n(cells of {cell_size:.1f} units, sized for the small ones)"
    viz.style_world_axes(ax, title=title, legend=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


def draw_hierarchy(ax, h, *, title: str | None = None):
    """A :class:`HierarchicalGrid`'s marks: marked grandparent cells (grey), marked parent cells
    and non-empty fine cells (outlined), each labelled with its side in world units."""
    rects, depths = h.regions()          # grandparent cells (0), marked parent cells (1), non-empty fine cells (2)
    marked = h.grandparent.ravel()       # one bool per grandparent cell, row by row
    fine, parent = h.cell_size, h.cell_size * h.parent_factor
    _crisp(viz.draw_boxes(ax, rects[depths == 0][marked], color="0.6", alpha=0.25, linewidth=0.5,
                          label=f"marked grandparent cell ({parent * h.grandparent_factor:g} units)"))
    _crisp(viz.draw_boxes(ax, rects[depths == 1], color=style.GREEN, fill=False, linewidth=0.8, zorder=3,
                          label=f"marked parent cell ({parent:g} units)"))
    _crisp(viz.draw_boxes(ax, rects[depths == 2], color=style.ORANGE, fill=False, linewidth=0.4, zorder=2.5,
                          label=f"non-empty fine cell ({fine:g} units)"))
    viz.set_world(ax, h.world)
    viz.style_world_axes(ax, title=title, legend=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


# --------------------------------------------------------------------------
# The counting-sort grid's picture (lesson 02, section 7)
# --------------------------------------------------------------------------
def draw_filed_boxes(ax, grid, boxes):
    """Boxes filed under the cell of their lower-left corner, as a counting-sort grid files them.

    Draws ``grid``'s cells with their numbers (``row * cols + col``), shading those that hold
    filed boxes, every box (giants dashed: they are kept on a list of their own) and a dot at
    each box's lower-left corner. ``grid`` is a
    :class:`~lessons_lib.structures.counting_sort_grid.CountingSortGrid` holding ``boxes``
    with ids ``0 .. n - 1`` (it is sorted first if stale).
    """
    b = as_boxes(boxes)
    occ = grid.occupancy()                       # sorts the grid if it is stale
    cols = grid.cols
    giant = np.zeros(len(b), bool)
    giant[np.asarray(grid.giants, dtype=np.int64)] = True
    filled = [(r, c) for r, c in zip(*np.nonzero(occ))]
    draw_grid(ax, grid, counts=False, fill_cells=filled, fill_label="cell holding filed boxes")
    viz.draw_boxes(ax, b[~giant], ids=np.flatnonzero(~giant), annotate=True, label="box", fill=False,
                   linewidth=1.4)
    if giant.any():
        viz.draw_boxes(ax, b[giant], ids=np.flatnonzero(giant), annotate=True, fill=False, color=style.GREY,
                       linestyle="--", linewidth=1.4, label="giant (over 2 columns or rows)")
    ax.plot(b[~giant, 0], b[~giant, 1], "o", ms=5, color=style.VERMILLION, zorder=5,
            label="lower-left corner (where a box is filed)")
    s, (x0, y0) = grid.cell_size, grid.world[:2]
    for r in range(grid.rows):
        for c in range(cols):
            ax.text(x0 + c * s + 0.04 * s, y0 + r * s + 0.04 * s, str(r * cols + c), ha="left", va="bottom",
                    fontsize="x-small", color="0.35", zorder=6)
    viz.set_world(ax, grid.world)
    viz.style_world_axes(ax, title="Each box filed under one cell\n(grey: cell numbers, row * cols + col)",
                         legend=False)
    return ax


def draw_neighbour_rule(ax):
    """The cells a box of the counting-sort grid is tested against: its own and four neighbours.

    A 3 x 3 block of cells around the box's cell ``x``: the cell to the right and the three
    above are searched, the four others are not (their pairs are found from the other side).
    """
    from matplotlib.patches import Rectangle

    searched = {(1, 0), (-1, 1), (0, 1), (1, 1)}
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx, dy) == (0, 0):
                face, text = style.HIGHLIGHT_COLOR, "x:\nthe box's\ncell"
            elif (dx, dy) in searched:
                face, text = style.SKY, "tested"
            else:
                face, text = "white", "not\ntested"
            ax.add_patch(Rectangle((dx - 0.5, dy - 0.5), 1, 1, facecolor=face, edgecolor="0.3", linewidth=1.0,
                                   alpha=0.8 if face != "white" else 1.0))
            ax.text(dx, dy, text, ha="center", va="center", fontsize="x-small",
                    color="0.1" if face != "white" else "0.45")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.6, 1.6)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title("The pair rule", fontsize="medium")
    return ax


def draw_counting_sort(fig, grid, boxes):
    """The counting-sort grid's whole picture on ``fig``: :func:`draw_filed_boxes` (with its
    legend), :func:`draw_neighbour_rule` beside it and :func:`draw_sorted_arrays` below.

    Returns the axes by name: ``"cells"``, ``"rule"``, ``"arrays"``.
    """
    axes = fig.subplot_mosaic([["cells", "rule"], ["cells", "legend"], ["arrays", "arrays"]],
                              width_ratios=(1.5, 1), height_ratios=(1.6, 1.2, 1.4))
    draw_filed_boxes(axes["cells"], grid, boxes)
    draw_neighbour_rule(axes["rule"])
    draw_sorted_arrays(axes["arrays"], grid)
    axes["legend"].set_axis_off()
    axes["legend"].legend(*axes["cells"].get_legend_handles_labels(), loc="center", fontsize="small",
                          frameon=False)
    return axes


def draw_sorted_arrays(ax, grid):
    """The counting-sort grid's ``start`` (one entry per cell, plus the total) and ``order``
    (slots, cell by cell), each non-empty cell's range bracketed under ``order``."""
    from matplotlib.patches import Rectangle

    grid.occupancy()                             # sorts the grid if it is stale
    start = grid.start.tolist()
    n = start[-1]
    order = grid.order[:n].tolist()
    cells = len(start) - 1
    shades = (style.SKY, style.ORANGE)
    filled = [c for c in range(cells) if start[c + 1] > start[c]]
    tint = {c: shades[k % 2] for k, c in enumerate(filled)}
    for i, v in enumerate(start):
        face = tint.get(i, "white") if i < cells else "0.85"
        ax.add_patch(Rectangle((i, 2.2), 1, 1, facecolor=face, alpha=0.6 if face != "white" else 1.0,
                               edgecolor="0.3", linewidth=0.8))
        ax.text(i + 0.5, 2.7, str(v), ha="center", va="center", fontsize="small")
        ax.text(i + 0.5, 3.45, str(i) if i < cells else "end", ha="center", va="center", fontsize="x-small",
                color="0.4")
    ax.text(-0.3, 2.7, "start", ha="right", va="center", family="monospace", fontsize="small")
    ax.text(-0.3, 3.45, "cell", ha="right", va="center", fontsize="x-small", color="0.4")
    for i, v in enumerate(order):
        c = next(c for c in filled if start[c] <= i < start[c + 1])
        ax.add_patch(Rectangle((i, 0.4), 1, 1, facecolor=tint[c], alpha=0.6, edgecolor="0.3", linewidth=0.8))
        ax.text(i + 0.5, 0.9, str(v), ha="center", va="center", fontsize="small")
    ax.text(-0.3, 0.9, "order", ha="right", va="center", family="monospace", fontsize="small")
    for c in filled:
        a, z = start[c], start[c + 1]
        ax.plot([a + 0.1, z - 0.1], [0.25, 0.25], color="0.3", linewidth=1.0)
        ax.text((a + z) / 2, 0.05, f"cell {c}", ha="center", va="top", fontsize="x-small")
    ax.set_xlim(-2.2, max(cells + 1, n) + 0.2)
    ax.set_ylim(-0.6, 3.8)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title("After the sort: cell c's slots are order[start[c] : start[c + 1]]", fontsize="medium")
    return ax


def _steps(key_steps, n: int) -> list[int] | None:
    """``key_steps`` within ``0 .. n - 1`` (negative ones count from the end), each once, in order;
    None when none is left (the Stepper then picks the first, middle and last)."""
    out = []
    for k in key_steps:
        k = int(k)
        if -n <= k < n and k % n not in out:
            out.append(k % n)
    return out or None


def insert_stepper(boxes, *, cell_size: float, world, key_steps=(2, 3, -1), **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through inserts: step ``k`` adds box ``k - 1``.

    Each step shades the cells the new box lands in and writes every cell's
    occupancy. Meant for a handful of boxes in a small grid.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 30 boxes, inserted with ids ``0 .. n - 1``.
    cell_size : float
    world : array_like, shape (4,)
    key_steps : sequence of int
        The steps of the still (default: the second and third inserts, and the end).
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Raises
    ------
    ValueError
        Bad boxes, world or cell size; more than 30 boxes.
    """
    b = as_boxes(boxes)
    if len(b) > 30:
        raise ValueError(f"insert_stepper is for at most 30 boxes, got {len(b)}")
    w = as_box(world, name="world")
    frames = [(0, [])]
    for k in range(len(b)):
        c0, r0, c1, r1 = UniformGrid(world=w, cell_size=cell_size).cell_range(b[k])
        frames.append((k + 1, [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]))
    labels = ["empty grid"] + [f"insert box {k - 1}: {len(cells)} cell{'s' if len(cells) != 1 else ''}"
                               for k, cells in frames[1:]]

    def draw(ax, frame, prev):
        k, cells = frame
        g = UniformGrid(world=w, cell_size=cell_size)
        for i in range(k):
            g.insert(i, b[i])
        draw_grid(ax, g, fill_cells=cells, fill_label="cells of the new box")
        viz.draw_boxes(ax, b[:k], annotate=True, label="box", highlight=[k - 1] if k else None,
                       highlight_label="new box")
        viz.set_world(ax, w)
        viz.style_world_axes(ax, title=labels[frames.index(frame)] if k else "empty grid")

    options = {"still_ncols": 3, "still_panel_size": (3.2, 3.3), "key_steps": _steps(key_steps, len(frames)),
               **stepper_options}
    return Stepper(frames, draw, labels=labels, title="Inserting into a uniform grid", **options)


def bucket_histogram(sh) -> tuple[np.ndarray, np.ndarray]:
    """``(load, buckets)``: how many buckets hold exactly ``load`` distinct cells, for ``load = 0 .. max``.

    ``sh`` is a :class:`SpatialHash` (its :meth:`~SpatialHash.bucket_loads`) or an int array of
    distinct cells per bucket (as :func:`hash_buckets` counts them).
    """
    cells = sh.bucket_loads()[1] if isinstance(sh, SpatialHash) else np.asarray(sh, dtype=np.int64)
    counts = np.bincount(cells)
    return np.arange(len(counts)), counts


def occupied_cells(boxes, cell_size: float) -> np.ndarray:
    """The distinct cells ``(cx, cy) = (floor(x / s), floor(y / s))`` the boxes cover, an ``(m, 2)`` int64 array.

    Unbounded cells, as in a spatial hash (no world, no clamping). Sorted by ``cx`` then ``cy``.

    Raises
    ------
    ValueError
        Bad boxes or cell size, or boxes covering more than 10 million cells in all.
    """
    b = as_boxes(boxes)
    s = float(cell_size)
    if not s > 0:
        raise ValueError(f"cell_size must be > 0, got {cell_size!r}")
    lo = np.floor(b[:, :2] / s).astype(np.int64)
    hi = np.floor(b[:, 2:] / s).astype(np.int64)
    span = hi - lo + 1
    count = span[:, 0] * span[:, 1]
    if count.sum() > 10_000_000:
        raise ValueError(f"the boxes cover {int(count.sum()):,} cells; occupied_cells is for small scenes")
    who = np.repeat(np.arange(len(b)), count)
    k = np.arange(len(who)) - np.repeat(np.cumsum(count) - count, count)
    cx = lo[who, 0] + k % span[who, 0]
    cy = lo[who, 1] + k // span[who, 0]
    return np.unique(np.column_stack([cx, cy]), axis=0).reshape(-1, 2)


def hash_buckets(cells, table_size: int, constants=TESCHNER_CONSTANTS) -> np.ndarray:
    """Distinct cells per bucket: ``(table_size,)`` int64, for cells hashed with ``constants``.

    The hash is ``((cx * p1) xor (cy * p2)) & (2**62 - 1)`` modulo ``table_size`` in int64
    arithmetic (products wrap around; the low 62 bits do not depend on it), the library's
    "good" hash for ``constants = TESCHNER_CONSTANTS`` [Teschner2003]; ``constants="bad"`` is
    ``cx + cy``. ``cells`` must be distinct (as :func:`occupied_cells` returns them).

    Raises
    ------
    ValueError
        ``table_size`` not a positive integer, unknown ``constants``, cells not ``(m, 2)``.
    """
    c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    if isinstance(table_size, bool) or not isinstance(table_size, (int, np.integer)) or table_size < 1:
        raise ValueError(f"table_size must be a positive integer, got {table_size!r}")
    with np.errstate(over="ignore"):
        if isinstance(constants, str):
            if constants != "bad":
                raise ValueError(f"constants must be (p1, p2) or 'bad', got {constants!r}")
            h = c[:, 0] + c[:, 1]
        else:
            p1, p2 = (np.int64(int(v)) for v in constants)
            h = (c[:, 0] * p1) ^ (c[:, 1] * p2)
    bucket = (h & np.int64(_MASK62)) % np.int64(table_size)
    return np.bincount(bucket, minlength=int(table_size)).astype(np.int64)


def scattered_groups(width: float, *, groups: int = 8, per_group: int = 250, seed: int = 3) -> np.ndarray:
    """``groups`` copies of the ``random`` scene (``per_group`` boxes in 800 x 600 each), centred at
    random points of a square ``width`` units wide centred on the origin; ``(groups * per_group, 4)``.

    The same ``seed`` gives the same groups and the same relative centres at every width, so a
    sweep over ``width`` spreads one scene over ever larger, emptier worlds (lesson 03).
    """
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-1.0, 1.0, size=(groups, 2)) * (float(width) / 2)
    parts = [make_scene("random", per_group, seed=k) + np.tile(c - [400.0, 300.0], 2) for k, c in enumerate(centres)]
    return np.vstack(parts) if parts else np.empty((0, 4))


def spread_clusters(n: int, width: float, *, clusters: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` boxes in ``clusters`` tight clusters (as the ``clustered`` scene: spread 32 units, sides 6
    to 14) at random places of a world ``width`` x ``0.75 width``; returns ``(boxes, world)``.

    The clusters keep their size whatever the width, so a wider world is an emptier one.
    """
    rng = np.random.default_rng(seed)
    w, h = float(width), 0.75 * float(width)
    centres = rng.uniform([80.0, 60.0], [w - 80.0, h - 60.0], size=(clusters, 2))
    c = centres[rng.integers(0, clusters, n)] + rng.normal(0.0, 32.0, size=(n, 2))
    size = rng.uniform(6, 14, (n, 2))
    lo = np.clip(c - size / 2, 0.0, [w, h] - size)
    return np.column_stack([lo, lo + size]), np.array([0.0, 0.0, w, h])


def bucket_runs(sh: SpatialHash, bucket: int) -> dict:
    """One bucket of a spatial hash as its pair search sees it (lesson 03, section 3).

    Walks the bucket's list from ``head`` along ``nxt`` and inserts each node's ``(key, slot)``
    into a list kept sorted by key, counting the key comparisons as the library's pair search
    does (one per shifted entry, plus one per insert); then splits the sorted list into runs of
    equal keys, one per cell.

    Returns
    -------
    dict
        ``"walk"``: ``[((cx, cy), slot), ...]`` in list order; ``"runs"``: ``[((cx, cy), [slots]),
        ...]`` in key order; ``"compares"``: the key comparisons of the sort.

    Raises
    ------
    ValueError
        ``bucket`` outside ``0 .. table_size - 1``.
    """
    bucket = int(bucket)
    if not 0 <= bucket < sh.table_size:
        raise ValueError(f"bucket must be in 0 .. {sh.table_size - 1}, got {bucket}")
    walk, keys, slots, compares = [], [], [], 0
    node = int(sh.head[bucket])
    while node != -1:
        k, s = int(sh.key[node]), int(sh.elem[node])
        walk.append((_key_cell(k), s))
        u = len(keys) - 1
        while u >= 0 and keys[u] > k:
            u -= 1
            compares += 1
        compares += 1
        keys.insert(u + 1, k)
        slots.insert(u + 1, s)
        node = int(sh.nxt[node])
    runs = []
    for k, s in zip(keys, slots):
        if runs and runs[-1][0] == _key_cell(k):
            runs[-1][1].append(s)
        else:
            runs.append((_key_cell(k), [s]))
    return {"walk": walk, "runs": runs, "compares": compares}


def dense_grid_bytes(world, cell_size: float) -> int:
    """Bytes of the ``head`` array of a dense grid (4 per cell) over ``world``; no limit, no allocation."""
    w = as_box(world, name="world")
    cols = max(1, math.ceil((w[2] - w[0]) / cell_size))
    rows = max(1, math.ceil((w[3] - w[1]) / cell_size))
    return 4 * rows * cols


# --------------------------------------------------------------------------
# The corner-only pitfall (lesson 02): wrong on purpose, not registered
# --------------------------------------------------------------------------
def corner_cells(box, cell_size: float, world=None) -> list[tuple[int, int]]:
    """Cells ``(row, col)`` of a box's four corners, without repeats (the article's grid hashing).

    Uses the same clamped ``floor`` as :class:`UniformGrid` over ``world``
    (default the article's 800 x 600).
    """
    grid = UniformGrid(world=world, cell_size=cell_size)
    c0, r0, c1, r1 = grid.cell_range(box)
    return sorted({(r0, c0), (r0, c1), (r1, c0), (r1, c1)})


def corner_only_pairs(boxes, cell_size: float, world=None) -> tuple[np.ndarray, int]:
    """Pairs found when each box is put only in the cells of its four corners.

    The benchmark article's grid hashing ([magley2026]) and its flaw: a box longer than a cell skips
    the cells between its corners, so two boxes that cross in such a cell are
    never compared. Correct only when every box is at most one cell wide and
    tall. Plain Python, for small lessons.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    cell_size : float
        Side of a cell, world units (> 0).
    world : array_like, shape (4,), optional
        Default the boxes' bounding box.

    Returns
    -------
    pairs : numpy.ndarray, shape (k, 2), int64
        Canonical order (``i < j``, rows sorted); a subset of the true pairs.
    tests : int
        Box-box tests made (each unordered pair at most once).

    Raises
    ------
    ValueError
        Bad boxes, world or cell size.
    """
    b = as_boxes(boxes)
    w = world_for(b) if world is None else world
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, box in enumerate(b):
        for cell in corner_cells(box, cell_size, w):
            buckets.setdefault(cell, []).append(i)
    seen: set[tuple[int, int]] = set()
    found = []
    for members in buckets.values():
        for u in range(len(members)):
            for v in range(u + 1, len(members)):
                i, j = members[u], members[v]
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                if b[i, 0] <= b[j, 2] and b[j, 0] <= b[i, 2] and b[i, 1] <= b[j, 3] and b[j, 1] <= b[i, 3]:
                    found.append((i, j))
    pairs = np.array(sorted(found), dtype=np.int64).reshape(-1, 2)
    return pairs, len(seen)


def grid_pair_tests(boxes, cell_size: float, world=None) -> int:
    """Box-box tests a :class:`UniformGrid` with ``cell_size`` makes on ``boxes`` (vs ``C(n, 2)``)."""
    g = UniformGrid.from_boxes(boxes, cell_size=cell_size, world=world)
    g.pairs()
    return g.last_pair_tests


# --------------------------------------------------------------------------
# The lecture's game loop: every object asks its 3 x 3 neighbourhood
# --------------------------------------------------------------------------
def neighbourhood_loop(boxes, cell_size: float, world=None) -> tuple[np.ndarray, int]:
    """Run the lecture's collision loop ([gamedev-lecture]) and return what it meets.

    Each box is put into the one cell of its centre; then, for every box, the boxes in the
    3 x 3 cells around its own cell are tested against it, skipping itself. This is how the
    lecture's ``for obj: for other in query(obj): if other is not obj and collides(...)``
    works with a grid of centre cells. Plain Python, for lessons.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    cell_size : float
        Side of a cell, world units (> 0).
    world : array_like, shape (4,), optional
        Default the boxes' bounding box; cells are clamped to it as in :class:`UniformGrid`.

    Returns
    -------
    met : numpy.ndarray, shape (k, 2), int64
        Every ``(obj, other)`` the loop found intersecting, in the order met: each
        intersecting pair appears twice, once from each side (if both boxes are at most one
        cell wide and tall; larger boxes can be missed, as their centres may be more than one
        cell apart).
    tests : int
        Box-box tests made.

    Raises
    ------
    ValueError
        Bad boxes, world or cell size.
    """
    b = as_boxes(boxes)
    w = world_for(b) if world is None else world
    grid = UniformGrid(world=w, cell_size=cell_size)
    cells: dict[tuple[int, int], list[int]] = {}
    home = []
    for i, box in enumerate(b):
        cx, cy = 0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3])
        col, row = grid.cell_range((cx, cy, cx, cy))[:2]
        home.append((col, row))
        cells.setdefault((col, row), []).append(i)
    met, tests = [], 0
    for i, (col, row) in enumerate(home):
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                for j in cells.get((col + dc, row + dr), ()):
                    if j == i:
                        continue
                    tests += 1
                    if b[i, 0] <= b[j, 2] and b[j, 0] <= b[i, 2] and b[i, 1] <= b[j, 3] and b[j, 1] <= b[i, 3]:
                        met.append((i, j))
    return np.array(met, dtype=np.int64).reshape(-1, 2), tests


# --------------------------------------------------------------------------
# Stored measurements (python -m lessons_lib.labs.grids --store)
# --------------------------------------------------------------------------
def _cpu_median(fn, repeat: int):
    """``(median CPU seconds, last result)`` of ``repeat`` calls of ``fn()``.

    Process CPU time (``time.process_time``) rather than wall time: the kernels are
    single-threaded, and on a shared machine CPU time does not count the other programs'
    turns. Stored measurements use it; lesson cells time live with wall clocks.
    """
    import statistics
    import time

    times, result = [], None
    for _ in range(max(1, int(repeat))):
        t0 = time.process_time()
        result = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), result


def _warm_up() -> None:
    """Compile the kernels the stored measurements time (numba compiles on first call)."""
    b = make_scene("random", 50)
    for g in (UniformGrid.from_boxes(b), HierarchicalGrid.from_boxes(b)):
        g.pairs()
        g.query([100, 100, 300, 300])
    for name in ("good", "bad"):
        SpatialHash.from_boxes(b, hash=name).pairs()
    compiled_brute_force_pairs(b)


def grid_scaling(ns=(1_000, 3_000, 10_000, 30_000, 100_000, 300_000), *, brute_force_max: int = 30_000,
                 repeat: int = 5) -> list[dict]:
    """The uniform grid against the compiled brute force on ``scaled_scene("random", n)``.

    One row per ``(n, method)``: ``n``, ``method`` (``"uniform_grid"``: ``from_boxes`` then
    ``pairs()`` with the default cell size; ``"brute_force"``: :func:`compiled_brute_force_pairs`,
    only up to ``brute_force_max``), ``build_ms``, ``pairs_ms``, ``total_ms`` (CPU-time medians
    of ``repeat`` runs), ``pairs`` (found; both methods agree, checked) and ``tests`` (box-box tests).

    Raises
    ------
    AssertionError
        If the grid's pairs differ from brute force's.
    """
    _warm_up()
    rows = []
    for n in ns:
        boxes = scaled_scene("random", int(n))
        build, g = _cpu_median(lambda: UniformGrid.from_boxes(boxes), repeat)
        t_pairs, p = _cpu_median(g.pairs, repeat)
        rows.append({"n": int(n), "method": "uniform_grid", "build_ms": 1e3 * build, "pairs_ms": 1e3 * t_pairs,
                     "total_ms": 1e3 * (build + t_pairs), "pairs": len(p), "tests": int(g.last_pair_tests)})
        if n <= brute_force_max:
            t_bf, q = _cpu_median(lambda: compiled_brute_force_pairs(boxes), max(1, repeat // 2))
            assert np.array_equal(p, q), f"uniform grid and brute force disagree at n = {n}"
            rows.append({"n": int(n), "method": "brute_force", "build_ms": 0.0, "pairs_ms": 1e3 * t_bf,
                         "total_ms": 1e3 * t_bf, "pairs": len(q), "tests": pair_test_count(int(n))})
    return rows


def _query_boxes(world, k: int, seed: int) -> list[list[float]]:
    """``k`` query boxes half the world wide and high, at random places inside it."""
    x0, y0, x1, y1 = (float(v) for v in world)
    w, h = (x1 - x0) / 2, (y1 - y0) / 2
    rng = np.random.default_rng(seed)
    return [[x, y, x + w, y + h] for x, y in rng.uniform([x0, y0], [x0 + w, y0 + h], size=(k, 2))]


def hierarchy_sweep(widths=(800, 1_600, 3_200, 6_400, 12_800), *, n: int = 2_000, cell_size: float = 4.0,
                    queries: int = 20, repeat: int = 5) -> list[dict]:
    """The uniform against the hierarchical grid as the same clusters spread over wider worlds.

    For each width, :func:`spread_clusters` places ``n`` boxes in 8 clusters in a world
    ``width`` x ``0.75 width``; both grids use fine cells of ``cell_size`` (so the number of
    fine cells grows with the area) and answer ``queries`` query boxes half the world wide and
    high (their answers compared). One row per ``(width, structure)``: ``width``,
    ``fine_cells``, ``structure``, ``query_ms`` (per query, median of ``repeat`` runs of all
    queries), ``cells_visited`` (fine cells per query, mean), ``build_ms``, ``pairs_ms``
    (medians) and ``bytes`` (``memory_bytes()``).

    Raises
    ------
    AssertionError
        If the two grids answer a query or the pairs differently.
    """
    _warm_up()
    rows = []
    for width in widths:
        boxes, world = spread_clusters(n, width)
        qs = _query_boxes(world, queries, seed=1)
        made = {}
        for name, cls in (("uniform_grid", UniformGrid), ("hierarchical_grid", HierarchicalGrid)):
            build, g = _cpu_median(lambda: cls.from_boxes(boxes, cell_size=cell_size, world=world,
                                                          max_cells=1 << 26), repeat)
            t_pairs, p = _cpu_median(g.pairs, repeat)
            visited = []
            for q in qs:
                g.query(q)
                visited.append(g.last_query_cells)
            t_q, _ = _cpu_median(lambda: [g.query(q) for q in qs], repeat)
            made[name] = (g, p)
            rows.append({"width": float(width), "fine_cells": int(g.rows * g.cols), "structure": name,
                         "query_ms": 1e3 * t_q / len(qs), "cells_visited": float(np.mean(visited)),
                         "build_ms": 1e3 * build, "pairs_ms": 1e3 * t_pairs, "bytes": int(g.memory_bytes())})
        (u, pu), (h, ph) = made["uniform_grid"], made["hierarchical_grid"]
        assert np.array_equal(pu, ph), f"pairs differ at width {width}"
        assert all(np.array_equal(u.query(q), h.query(q)) for q in qs), f"queries differ at width {width}"
    return rows


def hash_load_sweep(ns=(1_000, 3_000, 10_000, 30_000, 100_000, 300_000), *, cell_size: float = 16.0,
                    repeat: int = 5) -> list[dict]:
    """The good hash against the bad one as the number of boxes, and so of occupied cells, grows.

    For each ``n``, ``scaled_scene("random", n)`` (the article's density) goes into a
    :class:`SpatialHash` with 16-unit cells and each hash function, once with a table of
    ``2 n`` buckets (the default of ``from_boxes``, ``table = "2n"``) and once with a fixed
    4,096 buckets (``table = "4096"``). One row per ``(n, hash, table)``: ``table_size``,
    ``cells`` (occupied), ``buckets_used``, ``max_cells`` (most distinct cells in one bucket),
    ``key_compares`` and ``box_tests`` of ``pairs()``, ``pairs_ms`` (median of ``repeat``),
    ``pairs``.

    Raises
    ------
    AssertionError
        If the two hash functions find different pairs.
    """
    _warm_up()
    rows = []
    for n in ns:
        boxes = scaled_scene("random", int(n))
        for table, size in (("2n", None), ("4096", 4096)):
            found = {}
            for name in ("good", "bad"):
                sh = SpatialHash.from_boxes(boxes, cell_size=cell_size, table_size=size, hash=name)
                t, p = _cpu_median(sh.pairs, repeat)
                found[name] = p
                cells = sh.bucket_loads()[1]
                rows.append({"n": int(n), "hash": name, "table": table, "table_size": int(sh.table_size),
                             "cells": int(cells.sum()), "buckets_used": int((cells > 0).sum()),
                             "max_cells": int(cells.max()), "key_compares": int(sh.last_key_compares),
                             "box_tests": int(sh.last_pair_tests), "pairs_ms": 1e3 * t, "pairs": len(p)})
            assert np.array_equal(found["good"], found["bad"]), f"the hashes disagree at n = {n}"
    return rows


def store() -> list:
    """Run the three stored measurements and write them under ``data/results/`` (several minutes).

    Returns the paths written: ``grid_scaling.csv``, ``grid_hierarchy.csv``, ``hash_load.csv``.
    """
    from ..data import save_results

    cmd = "python -m lessons_lib.labs.grids --store"
    return [
        save_results("grid_scaling", grid_scaling(), command=cmd,
                     what="uniform grid (from_boxes + pairs, default cell size) vs compiled brute force on "
                          "scaled_scene('random', n); CPU times in ms, medians"),
        save_results("grid_hierarchy", hierarchy_sweep(), command=cmd,
                     what="uniform vs hierarchical grid, 2,000 boxes in 8 clusters in ever wider worlds, 4-unit "
                          "fine cells: 20 queries half the world wide, pairs, build, memory; CPU times in ms, medians"),
        save_results("hash_load", hash_load_sweep(), command=cmd,
                     what="spatial hash, good vs bad hash, 16-unit cells, scaled_scene('random', n), tables of 2n "
                          "and of 4096 buckets: key compares, box tests and pairs() CPU time in ms (median)"),
    ]


def main(argv=None) -> int:
    """``python -m lessons_lib.labs.grids --store``: regenerate the stored results of lessons 02-03."""
    import argparse

    parser = argparse.ArgumentParser(description="Stored measurements of lessons 02-03.")
    parser.add_argument("--store", action="store_true", help="run them and write data/results/*.csv")
    args = parser.parse_args(argv)
    if not args.store:
        parser.print_help()
        return 0
    for path in store():
        print("wrote", path)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


# --------------------------------------------------------------------------
# Step-through views of the arrays (lessons 02 and 03)
# --------------------------------------------------------------------------
#: The default scene of :func:`reuse_stepper`: ``(operation, id, box)`` on a 3 x 2 grid of 40-unit cells.
REUSE_OPERATIONS = (
    ("insert", 0, (10, 10, 30, 30)),
    ("insert", 1, (30, 20, 70, 35)),
    ("insert", 2, (90, 50, 110, 70)),
    ("remove", 1, None),
    ("insert", 3, (50, 45, 95, 60)),
    ("update", 0, (60, 5, 100, 30)),
)


def _free_chain(nxt, free_head) -> list[int]:
    out, node = [], int(free_head)
    while node != -1 and len(out) <= len(nxt):
        out.append(node)
        node = int(nxt[node])
    return out


def reuse_stepper(operations=REUSE_OPERATIONS, *, cell_size: float = 40, world=(0, 0, 120, 80),
                  key_steps=(4, 5), **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through inserts, removes and updates of a real :class:`UniformGrid`.

    Each frame records copies of the grid's public arrays ``head``, ``nxt``,
    ``elem`` and ``state`` (``state[1]`` is the head of the free list of nodes)
    after one operation, and draws the grid beside the arrays, with the entries
    the operation changed in orange and free nodes in grey: a removed box's
    nodes go on the free list, and the next insert or update takes them back
    before handing out new ones.

    Parameters
    ----------
    operations : sequence of ``(op, id, box)``
        ``op`` in ``"insert"``, ``"remove"`` (box ignored), ``"update"``; at most 8
        distinct ids and 12 operations. Default :data:`REUSE_OPERATIONS`.
    cell_size : float
        World units per cell.
    world : array_like, shape (4,)
        ``[xmin, ymin, xmax, ymax]``; at most 12 cells in all.
    key_steps : sequence of int
        The steps of the still; the default (for :data:`REUSE_OPERATIONS`) shows the remove
        that fills the free list and the insert that takes its nodes back. Steps out of range
        are dropped.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Returns
    -------
    lessons_lib.widgets.Stepper
        Frames are dicts with keys ``label``, ``head``, ``nxt``, ``elem``,
        ``state`` (int copies), ``boxes`` (id -> box) and ``id`` (the box operated on).

    Raises
    ------
    ValueError
        Too many operations, ids or cells; an unknown operation; errors of the grid's
        insert / remove / update (bad boxes, unknown or duplicate ids).

    Example
    -------
    >>> s = reuse_stepper()
    >>> s.frame(5)["label"].startswith("insert box 3: reuses")
    True
    """
    ops = list(operations)
    if len(ops) > 12:
        raise ValueError(f"reuse_stepper is for at most 12 operations, got {len(ops)}")
    if len({op[1] for op in ops}) > 8:
        raise ValueError("reuse_stepper is for at most 8 distinct ids")
    w = as_box(world, name="world")
    grid = UniformGrid(world=w, cell_size=cell_size)
    if grid.rows * grid.cols > 12:
        raise ValueError(f"reuse_stepper is for at most 12 cells, got {grid.rows} x {grid.cols}")
    boxes: dict = {}

    def record(label, ident):
        return {"label": label, "head": grid.head.copy(), "nxt": grid.nxt.copy(), "elem": grid.elem.copy(),
                "state": grid.state.copy(), "boxes": dict(boxes), "id": ident}

    frames = [record("empty grid: no nodes, free list empty (-1)", None)]
    for k, op in enumerate(ops, 1):
        if len(op) != 3 or op[0] not in ("insert", "remove", "update"):
            raise ValueError(f"operation {k}: expected (op, id, box) with op insert/remove/update, got {op!r}")
        name, ident, box = op
        before = frames[-1]
        was_free = set(_free_chain(before["nxt"], before["state"][1]))
        if name == "insert":
            grid.insert(ident, box)
            boxes[ident] = as_box(box)
        elif name == "remove":
            grid.remove(ident)
            del boxes[ident]
        else:
            grid.update(ident, box)
            boxes[ident] = as_box(box)
        used = int(grid.state[0])
        now_free = _free_chain(grid.nxt, grid.state[1])
        if name == "remove":
            freed = [n for n in now_free if n not in was_free]
            label = f"remove box {ident}: node{'s' if len(freed) != 1 else ''} {freed} go on the free list"
        else:
            fresh = used - int(before["state"][0])
            slot = grid.elements.slot(ident)
            old_nodes = {n for n in range(int(before["state"][0])) if before["elem"][n] == slot}
            new_nodes = {n for n in range(used) if grid.elem[n] == slot}
            if name == "insert":
                old_nodes = set()
            reused = sorted(new_nodes & (old_nodes | was_free))
            label = f"{name} box {ident}: "
            if name == "update":
                label += f"frees {sorted(old_nodes)}, "
            if reused:
                label += f"reuses node{'s' if len(reused) != 1 else ''} {reused}, {fresh} new"
            else:
                label += f"free list empty, {fresh} new node{'s' if fresh != 1 else ''}"
        frames.append(record(label, ident))
    width = max(int(f["state"][0]) for f in frames)
    n_cells = grid.rows * grid.cols
    s, rows, cols = grid.cell_size, grid.rows, grid.cols
    x0, y0 = w[0], w[1]

    def changed(a, b, n):
        return {i for i in range(n) if b is None or a[i] != b[i]}

    def draw(ax, frame, prev):
        fig = ax.figure
        gs = ax.get_subplotspec().subgridspec(1, 2, width_ratios=(1.0, 1.25))
        ax.set_subplotspec(gs[0])
        tab = fig.add_subplot(gs[1])
        # the grid
        ax.vlines(x0 + s * np.arange(cols + 1), y0, y0 + s * rows, colors="0.6", linewidth=0.6)
        ax.hlines(y0 + s * np.arange(rows + 1), x0, x0 + s * cols, colors="0.6", linewidth=0.6)
        for r in range(rows):
            for c in range(cols):
                ax.text(x0 + c * s + 2, y0 + r * s + 2, str(r * cols + c), fontsize="x-small",
                        color="0.4", va="bottom")
        ids = sorted(frame["boxes"])
        if ids:
            b = np.array([frame["boxes"][i] for i in ids])
            viz.draw_boxes(ax, b, ids=np.array(ids), label="box", annotate=True)
            if frame["id"] in frame["boxes"]:
                viz.draw_boxes(ax, np.array([frame["boxes"][frame["id"]]]), color=style.HIGHLIGHT_COLOR,
                               linewidth=2.0, label="the box of this step")
        viz.set_world(ax, w)
        viz.style_world_axes(ax, title="grid; grey: cell k", legend=False)
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.tick_params(labelsize="x-small")
        ax.title.set_fontsize("small")
        # the arrays
        p = prev or {}
        free = set(_free_chain(frame["nxt"], frame["state"][1]))
        viz.array_row(tab, 2.6, "head", frame["head"][:n_cells],
                   changed(frame["head"], p.get("head"), n_cells) if prev else ())
        viz.array_row(tab, 1.0, "nxt", frame["nxt"][:width],
                   changed(frame["nxt"], p.get("nxt"), width) if prev else (), free)
        viz.array_row(tab, 0.0, "elem", frame["elem"][:width],
                   changed(frame["elem"], p.get("elem"), width) if prev else (), free)
        fh = int(frame["state"][1])
        moved = prev is not None and fh != int(prev["state"][1])
        tab.text(0.0, -0.9, f"free list head {fh}, nodes handed out {int(frame['state'][0])}",
                 fontsize="x-small", color=style.VERMILLION if moved else "black", va="center")
        for i in range(max(n_cells, width)):
            tab.text(i + 0.5, 3.9, str(i), ha="center", fontsize="x-small", color="0.4")
        tab.set_xlim(-2.2, max(n_cells, width) + 0.2)
        tab.set_ylim(-1.4, 4.4)
        tab.set_aspect("equal")
        tab.set_yticks([])
        tab.set_xticks([])
        for side in tab.spines.values():
            side.set_visible(False)
        tab.set_xlabel("orange: changed by this step; grey: on the free list", fontsize="x-small")
        tab.set_title(frame["label"], fontsize="small")

    options = {"figsize": (7.2, 2.9), "still_ncols": 1, "still_panel_size": (6.2, 2.5),
               "key_steps": _steps(key_steps, len(frames)),
               **stepper_options}
    return Stepper(frames, draw, labels=[f["label"] for f in frames], title="Remove and update reuse list nodes",
                      **options)


#: The default boxes of :func:`hash_stepper` (cell size 10, table of 8 buckets, good hash).
HASH_BOXES = ((12, 12, 18, 17), (-8, -7, -2, -3), (2, 2, 16, 6), (-5, 3, 5, 8))
#: The cells :func:`hash_stepper` looks up after the inserts: two that collide, a shared one, an empty one.
HASH_LOOKUPS = ((1, 1), (-1, -1), (0, 0), (2, 0))


def _key_cell(k: int) -> tuple[int, int]:
    from ..structures.spatial_hash import CELL_LIMIT, KEY_SHIFT

    return int(k) // KEY_SHIFT - CELL_LIMIT, int(k) % KEY_SHIFT - CELL_LIMIT


def hash_stepper(boxes=HASH_BOXES, lookups=HASH_LOOKUPS, *, cell_size: float = 10, table_size: int = 8,
                 hash: str = "good", key_steps=(4, 5), **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` from cells to buckets in a real :class:`SpatialHash`.

    The first frames insert the boxes one by one: each shows the box's cells
    ``(cx, cy)``, their keys (:func:`~lessons_lib.structures.spatial_hash.cell_key`)
    and buckets (:meth:`SpatialHash.bucket_of`). The next frames look cells up:
    the cell's bucket is walked from ``head`` along ``nxt`` and each node's
    ``key`` is compared with the cell's key; only equal keys belong to the cell,
    so two different cells sharing a bucket (a collision) are told apart.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 8 boxes, ids ``0 .. n - 1``, each covering at most 4 cells.
    lookups : sequence of (cx, cy)
        Cells looked up after the inserts (at most 8).
    cell_size, table_size, hash :
        As :class:`SpatialHash` (``table_size`` at most 16).
    key_steps : sequence of int
        The steps of the still; the default (for :data:`HASH_BOXES` and :data:`HASH_LOOKUPS`)
        shows the filled table and the first lookup, whose bucket holds another cell too.
        Steps out of range are dropped.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Returns
    -------
    lessons_lib.widgets.Stepper
        Frames are dicts: ``label``, ``head``, ``nxt``, ``elem``, ``key``, ``state``
        (copies), ``n`` (boxes inserted), ``cells`` (list of ``(cx, cy, key, bucket)``
        of the step), and for lookups ``compares`` (list of ``(node, node_key, equal)``).

    Raises
    ------
    ValueError
        Too many boxes, lookups or buckets; a box over 4 cells; errors of :class:`SpatialHash`.

    Example
    -------
    >>> s = hash_stepper()
    >>> s.frame(len(s) - 1)["cells"][0][:2]
    (2, 0)
    """
    from ..structures.spatial_hash import cell_key

    b = as_boxes(boxes)
    looks = [(int(cx), int(cy)) for cx, cy in lookups]
    if len(b) > 8 or len(looks) > 8:
        raise ValueError(f"hash_stepper is for at most 8 boxes and 8 lookups, got {len(b)} and {len(looks)}")
    if not 1 <= int(table_size) <= 16:
        raise ValueError(f"hash_stepper is for table_size 1 .. 16, got {table_size}")
    sh = SpatialHash(cell_size=cell_size, table_size=int(table_size), hash=hash)

    def record(label, n, cells, compares=None):
        return {"label": label, "head": sh.head.copy(), "nxt": sh.nxt.copy(), "elem": sh.elem.copy(),
                "key": sh.key.copy(), "state": sh.state.copy(), "n": n, "cells": cells, "compares": compares}

    def cells_of(box):
        cx0, cy0, cx1, cy1 = sh.cell_range(box)
        if (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > 4:
            raise ValueError(f"hash_stepper boxes cover at most 4 cells, {box.tolist()} covers more")
        return [(cx, cy, cell_key(cx, cy), sh.bucket_of(cx, cy))
                for cy in range(cy0, cy1 + 1) for cx in range(cx0, cx1 + 1)]

    frames = [record(f"empty table of {sh.table_size} buckets", 0, [])]
    for i, box in enumerate(b):
        cells = cells_of(box)
        sh.insert(i, box)
        where = ", ".join(f"({cx}, {cy}) -> bucket {bk}" for cx, cy, _, bk in cells)
        frames.append(record(f"insert box {i}: cell {where}", i + 1, cells))
    for cx, cy in looks:
        k, bk = cell_key(cx, cy), sh.bucket_of(cx, cy)
        compares, node = [], int(sh.head[bk])
        while node != -1:
            compares.append((node, int(sh.key[node]), int(sh.key[node]) == k))
            node = int(sh.nxt[node])
        hits = sum(c[2] for c in compares)
        other = sorted({_key_cell(c[1]) for c in compares if not c[2]})
        label = (f"look up cell ({cx}, {cy}) in bucket {bk}: {len(compares)} key compare"
                 f"{'s' if len(compares) != 1 else ''}, {hits} equal")
        if other:
            label += f"; collision with cell{'s' if len(other) > 1 else ''} {', '.join(map(str, other))}"
        frames.append(record(label, len(b), [(cx, cy, k, bk)], compares))
    all_cells = [c for f in frames for c in f["cells"]]
    lo = (min(c[0] for c in all_cells) - 1, min(c[1] for c in all_cells) - 1) if all_cells else (-1, -1)
    hi = (max(c[0] for c in all_cells) + 2, max(c[1] for c in all_cells) + 2) if all_cells else (2, 2)
    s, size = sh.cell_size, sh.table_size

    def draw(ax, frame, prev):
        from matplotlib.patches import Rectangle

        fig = ax.figure
        gs = ax.get_subplotspec().subgridspec(1, 2, width_ratios=(1.0, 1.3))
        ax.set_subplotspec(gs[0])
        tab = fig.add_subplot(gs[1])
        ax.vlines(s * np.arange(lo[0], hi[0] + 1), s * lo[1], s * hi[1], colors="0.75", linewidth=0.6)
        ax.hlines(s * np.arange(lo[1], hi[1] + 1), s * lo[0], s * hi[0], colors="0.75", linewidth=0.6)
        if frame["n"]:
            viz.draw_boxes(ax, b[: frame["n"]], annotate=True, label="box")
        lookup = frame["compares"] is not None
        for j, (cx, cy, _, bk) in enumerate(frame["cells"]):
            ax.add_patch(Rectangle((cx * s, cy * s), s, s, facecolor=style.HIGHLIGHT_COLOR, alpha=0.35,
                                   label=("looked-up cell" if lookup else "cells of the new box") if j == 0 else None))
            ax.text((cx + 0.5) * s, (cy + 0.85) * s, f"({cx},{cy})", ha="center", fontsize="x-small")
        ax.set_xlim(s * lo[0], s * hi[0])
        ax.set_ylim(s * lo[1], s * hi[1])
        ax.set_aspect("equal")
        ax.set_xlabel(f"x (world units; cells of {s:g})")
        ax.set_ylabel("y (world units)")
        ax.set_title("the unbounded plane", fontsize="small")
        if frame["n"] or frame["cells"]:
            ax.legend(loc="upper left", fontsize="x-small")
        # the table: one row per bucket, its nodes from head along nxt
        buckets = {c[3] for c in frame["cells"]}
        matched = {c[0] for c in (frame["compares"] or []) if c[2]}
        compared = {c[0] for c in (frame["compares"] or [])}
        new_nodes = set(range(int(prev["state"][0]) if prev else 0, int(frame["state"][0]))) if not lookup else set()
        for bk in range(size):
            y = size - 1 - bk
            tab.add_patch(Rectangle((0, y + 0.1), 1, 0.8, facecolor=style.HIGHLIGHT_COLOR if bk in buckets else "white",
                                    edgecolor="0.3", linewidth=0.8))
            tab.text(0.5, y + 0.5, str(bk), ha="center", va="center", fontsize="small")
            node, x = int(frame["head"][bk]), 1.4
            while node != -1:
                cx, cy = _key_cell(frame["key"][node])
                face = (style.GREEN if node in matched else style.VERMILLION if node in compared
                        else style.HIGHLIGHT_COLOR if node in new_nodes else "0.92")
                tab.add_patch(Rectangle((x, y + 0.1), 2.6, 0.8, facecolor=face, alpha=0.5, edgecolor="0.3",
                                        linewidth=0.8))
                tab.text(x + 1.3, y + 0.5, f"n{node} ({cx},{cy}) box {int(frame['elem'][node])}", ha="center",
                         va="center", fontsize=7)
                node, x = int(frame["nxt"][node]), x + 2.9
        for face, text in ((style.GREEN, "key equal: in the cell"), (style.VERMILLION, "key differs: other cell"),
                           (style.HIGHLIGHT_COLOR, "new node / bucket of the step")):
            tab.add_patch(Rectangle((0, -10), 1, 1, facecolor=face, alpha=0.5, label=text))
        tab.set_xlim(-0.2, 10.5)
        tab.set_ylim(-0.2, size + 0.1)
        tab.set_yticks([])
        tab.set_xticks([])
        tab.set_xlabel("bucket, then its nodes: n<node> (cell of its key) box <slot>", fontsize="x-small")
        tab.set_ylabel("bucket = hash(cx, cy) mod table size", fontsize="x-small")
        tab.set_title(frame["label"], fontsize="small", wrap=True)
        tab.legend(loc="lower right", fontsize="x-small")

    options = {"figsize": (9.0, 3.8), "still_ncols": 1, "still_panel_size": (9.0, 3.6),
               "key_steps": _steps(key_steps, len(frames)), **stepper_options}
    return Stepper(frames, draw, labels=[f["label"] for f in frames], title="From a cell to its bucket",
                      **options)

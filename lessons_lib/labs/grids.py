"""Helpers of lessons 02-03 that are longer than a notebook cell: measurements and pictures of grids.

* :func:`cell_size_sweep` measures a uniform grid for several cell sizes
  (tests, nodes, times): the cell-size trade-off.
* :func:`draw_grid` draws a grid's cells with the number of boxes in each.
* :func:`insert_stepper` steps through inserts, filling the cells each new box
  lands in.
* :func:`bucket_histogram` counts buckets by load for a spatial hash.
* :func:`dense_grid_bytes` is the memory a dense grid would need for a world.
"""
from __future__ import annotations

import math

import numpy as np

from .. import viz
from ..geometry import as_box, as_boxes
from ..timing import best_time
from ..structures.spatial_hash import SpatialHash
from ..base import world_for
from ..structures.uniform_grid import UniformGrid

__all__ = [
    "cell_size_sweep",
    "draw_grid",
    "insert_stepper",
    "bucket_histogram",
    "dense_grid_bytes",
    "corner_cells",
    "corner_only_pairs",
    "grid_pair_tests",
]



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


def draw_grid(ax, grid: UniformGrid, *, counts: bool = True, fill_cells=(), fill_label: str | None = None,
              color: str = "0.6"):
    """Draw the cell borders of ``grid`` (and the number of boxes in each non-empty cell).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    grid : UniformGrid
    counts : bool
        Write each non-empty cell's occupancy at its centre.
    fill_cells : iterable of (row, col)
        Cells to shade.
    fill_label : str, optional
        Legend label of the shaded cells.
    color : matplotlib colour of the borders.
    """
    s, (x0, y0) = grid.cell_size, grid.world[:2]
    xs = x0 + s * np.arange(grid.cols + 1)
    ys = y0 + s * np.arange(grid.rows + 1)
    ax.vlines(xs, ys[0], ys[-1], colors=color, linewidth=0.6, zorder=1, label="grid cell")
    ax.hlines(ys, xs[0], xs[-1], colors=color, linewidth=0.6, zorder=1)
    cells = list(fill_cells)
    if cells:
        rects = np.array([grid.cell_box(r, c) for r, c in cells])
        viz.draw_boxes(ax, rects, color="tab:orange", alpha=0.35, linewidth=0.0, label=fill_label, zorder=1.2)
    if counts:
        occ = grid.occupancy()
        for r, c in zip(*np.nonzero(occ)):
            ax.text(x0 + (c + 0.5) * s, y0 + (r + 0.5) * s, str(occ[r, c]), ha="center", va="center",
                    fontsize=8, color="0.25", zorder=4)
    return ax


def insert_stepper(boxes, *, cell_size: float, world, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through inserts: step ``k`` adds box ``k - 1``.

    Each step shades the cells the new box lands in and writes every cell's
    occupancy. Meant for a handful of boxes in a small grid.

    Raises
    ------
    ValueError
        Bad boxes, world or cell size; more than 30 boxes.
    """
    from ..widgets import Stepper

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

    return Stepper(frames, draw, labels=labels, title="Inserting into a uniform grid", **stepper_options)


def bucket_histogram(sh: SpatialHash) -> tuple[np.ndarray, np.ndarray]:
    """``(load, buckets)``: how many buckets hold exactly ``load`` distinct cells, for ``load = 0 .. max``."""
    cells = sh.bucket_loads()[1]
    counts = np.bincount(cells)
    return np.arange(len(counts)), counts


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

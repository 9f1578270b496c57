"""Helpers of lessons 02-03 that are longer than a notebook cell: measurements and pictures of grids.

Drawing and stepping:

* :func:`draw_grid` draws a grid's cells with the number of boxes in each.
* :func:`insert_stepper` steps through inserts, filling the cells each new box lands in.

Small live measurements (lesson cells):

* :func:`cell_size_sweep` measures a uniform grid for several cell sizes (tests, nodes,
  times): the cell-size trade-off.
* :func:`neighbourhood_loop` is the lecture's game loop ([gamedev-lecture]): every object
  asks the 3 x 3 cells around its centre, so every touching pair is met twice.
* :func:`corner_cells`, :func:`corner_only_pairs`: the article's corner-only grid hashing,
  wrong on purpose ([magley2026]).
* :func:`scattered_groups`, :func:`spread_clusters`: sparse scenes in worlds of any size.
* :func:`occupied_cells`, :func:`hash_buckets`, :func:`bucket_histogram`: bucket loads of a
  hash with any constants (the lecture's, [Teschner2003]'s, the bad ``cx + cy``).
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

from .. import viz
from ..base import world_for
from ..geometry import as_box, as_boxes
from ..scenes import make_scene, scaled_scene
from ..structures.brute_force import compiled_brute_force_pairs, pair_test_count
from ..structures.hierarchical_grid import HierarchicalGrid
from ..structures.spatial_hash import SpatialHash
from ..structures.uniform_grid import UniformGrid
from ..timing import best_time

__all__ = [
    "cell_size_sweep",
    "draw_grid",
    "insert_stepper",
    "bucket_histogram",
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

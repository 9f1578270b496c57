"""Lessons 09-10's lab: R-tree splits stepped through, the nodes a query enters, and the stored measurements.

* :func:`split_stepper`, :func:`visited_nodes`, :func:`mean_visits`: what lesson 09
  draws and counts;
* :func:`loader_costs` and :func:`median_costs`: the build and pair-search times
  of every way to make a tree (inserts, R*, the three packings, the k-d tree)
  as ``n`` grows, and the median by sorting against selection; too slow for a
  lesson, so ``python -m lessons_lib.labs.rtrees --store`` writes them to
  ``data/results/`` (:func:`store_results`) and lessons 09 and 10 plot them.

Sources: [Guttman1984], [Beckmann1990], [Roussopoulos1985], [Leutenegger1997],
[Kamel1993], [Bentley1975].
"""
from __future__ import annotations

import numpy as np

from .. import viz
from ..base import STRUCTURES
from ..geometry import as_boxes, boxes_overlap
from ..structures.rtree import LOG_COLS
from ..structures.rtree_nodes import NodeArrays, query_with_visits
from ..widgets import Stepper

__all__ = ["split_stepper", "visited_nodes", "mean_visits", "LOADERS", "loader_costs", "median_costs",
           "store_results", "LOADER_RESULTS", "MEDIAN_RESULTS"]

#: The stored measurements (``data/results/<name>.csv``).
LOADER_RESULTS = "tree_loaders"
MEDIAN_RESULTS = "kd_median"

#: Every way to make a tree, by the name the stored results use: (structure, parameters).
LOADERS = {
    "insert (quadratic)": ("rtree", {}),
    "insert (R*)": ("rstar_tree", {}),
    "nearest_x": ("bulk_rtree", {"method": "nearest_x"}),
    "str": ("bulk_rtree", {"method": "str"}),
    "hilbert": ("bulk_rtree", {"method": "hilbert"}),
    "k-d tree": ("kdtree", {}),
}


# --------------------------------------------------------------------------
# A Stepper through inserts, showing each split and its seeds
# --------------------------------------------------------------------------
def split_stepper(boxes, *, structure="rtree", title=None, **params):
    """A :class:`~lessons_lib.widgets.Stepper` inserting ``boxes`` one by one, showing every split.

    Each frame draws the nodes by depth, the boxes inserted so far (the new one
    highlighted) and, when the insert split nodes, the two groups' new boxes in
    thick lines and the chosen seeds filled.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 60 closed boxes.
    structure : {"rtree", "rstar_tree"}
    title : str, optional
    **params
        Tree parameters (e.g. ``max_entries=4, split="linear"``); ``figsize`` too.

    Raises
    ------
    ValueError
        Bad boxes or parameters, or more than 60 boxes.
    """

    b = as_boxes(boxes)
    if len(b) > 60:
        raise ValueError(f"split_stepper is for at most 60 boxes, got {len(b)}")
    figsize = params.pop("figsize", (6, 4.5))
    tree = STRUCTURES[structure](**params)
    frames = [(tree.nodes_by_level(), 0, np.zeros((0, LOG_COLS)))]
    for i, box in enumerate(b):
        tree.insert(i, box)
        frames.append((tree.nodes_by_level(), i + 1, tree.last_splits.copy()))
    labels = ["empty tree"]
    for levels, k, splits in frames[1:]:
        what = f"insert box {k - 1}"
        if len(splits):
            lv = ", ".join(str(int(s[0])) for s in splits)
            what += f": {len(splits)} split{'s' if len(splits) > 1 else ''} (level {lv})"
        labels.append(what + f"; height {len(levels)}")
    world = viz.covering_box(b)
    max_depth = max((len(f[0]) for f in frames), default=1)

    def draw(ax, frame, prev):
        levels, k, splits = frame
        depth_of = [np.full(len(r), d, np.int64) for d, r in enumerate(levels)]
        if levels:
            viz.draw_regions(ax, (np.concatenate(levels), np.concatenate(depth_of)), max_depth=max_depth,
                             label="node (colour = depth)")
        viz.draw_boxes(ax, b[:k], highlight=[k - 1] if k else [], annotate=True, label="box",
                       highlight_label="just inserted")
        if len(splits):
            seeds = np.concatenate([splits[:, 3:7], splits[:, 7:11]])
            seeds = seeds[~np.isnan(seeds).any(axis=1)]
            if len(seeds):
                viz.draw_boxes(ax, seeds, color="tab:red", alpha=0.35, label="split seeds", zorder=2.5)
        viz.set_world(ax, world)
        viz.style_world_axes(ax, title=f"{k} boxes, height {len(levels)}"
                             + (f", {len(splits)} split(s)" if len(splits) else ""))

    return Stepper(frames, draw, labels=labels, figsize=figsize,
                   title=title or f"{type(tree).__name__} (M={tree.max_entries}, {getattr(tree, 'split', 'R*')}): inserts and splits")


def visited_nodes(nodes: NodeArrays, box) -> tuple[np.ndarray, np.ndarray]:
    """Boxes and depths (root 0) of the nodes a query for ``box`` enters, for drawing.

    Same pruning as :func:`query_with_visits` (so ``len`` of the result equals
    its ``visits``), written in plain Python: use it on small trees.
    """
    q = np.asarray(box, np.float64)
    root = nodes.root
    out, depth = [], []
    if root < 0 or not boxes_overlap(nodes.box[root], q):
        return np.empty((0, 4)), np.empty(0, np.int64)
    stack = [(root, 0)]
    while stack:
        v, d = stack.pop()
        out.append(v)
        depth.append(d)
        if nodes.level[v] > 0:
            for c in nodes.child[v, : nodes.count[v]].tolist():
                if boxes_overlap(nodes.box[c], q):
                    stack.append((c, d + 1))
    return nodes.box[np.array(out, np.int64)].copy(), np.array(depth, np.int64)


def mean_visits(tree, queries) -> float:
    """Average number of nodes entered per query over ``queries`` ((q, 4) boxes), for any tree structure."""
    qs = np.asarray(queries, np.float64).reshape(-1, 4)
    if len(qs) == 0:
        return 0.0
    return float(np.mean([query_with_visits(tree.nodes, tree.elements.boxes, q)[1] for q in qs]))


# --------------------------------------------------------------------------
# Stored measurements (lessons 09-10)
# --------------------------------------------------------------------------
def _cpu_ms(fn, repeat: int):
    """Median CPU milliseconds of ``fn()`` over ``repeat`` runs, and its last result."""
    import time

    times, out = [], None
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return 1e3 * float(np.median(times)), out


def loader_costs(ns=(1_000, 3_000, 10_000, 30_000, 100_000), repeat: int = 3, log=None) -> list[dict]:
    """Build and pair-search times of every loader in :data:`LOADERS` on the ``random`` scene scaled to each ``n``.

    Median CPU milliseconds of ``repeat`` runs (``from_boxes``, then ``pairs()``
    on the built tree), with every loader's pairs checked equal to the first's.

    Returns
    -------
    list of dict
        ``n, loader, structure, build_ms, pairs_ms, total_ms, pairs, nodes, height``.

    Raises
    ------
    AssertionError
        If two loaders find different pairs (a bug, not a measurement).
    """
    from ..scenes import scaled_scene

    warm = scaled_scene("random", 200)
    for name, params in LOADERS.values():  # compile the kernels before anything is timed
        STRUCTURES[name].from_boxes(warm, **params).pairs()
    rows = []
    for n in ns:
        boxes = scaled_scene("random", n)
        ref = None
        for loader, (name, params) in LOADERS.items():
            cls = STRUCTURES[name]
            t_build, tree = _cpu_ms(lambda: cls.from_boxes(boxes, **params), repeat)
            t_pairs, pairs = _cpu_ms(tree.pairs, repeat)
            if ref is None:
                ref = pairs
            assert np.array_equal(pairs, ref), f"{loader}: pairs differ from {next(iter(LOADERS))}'s"
            rows.append({"n": int(n), "loader": loader, "structure": name, "build_ms": t_build, "pairs_ms": t_pairs,
                         "total_ms": t_build + t_pairs, "pairs": int(len(pairs)), "nodes": int(tree.nodes.n_nodes()),
                         "height": int(tree.height)})
            if log:
                log(f"n={n:,} {loader}: build {t_build:.2f} ms, pairs {t_pairs:.2f} ms")
    return rows


def median_costs(sizes=(1_000, 10_000, 100_000, 1_000_000), seed: int = 5, log=None) -> list[dict]:
    """Milliseconds to find the median of ``k`` random floats by sorting and by selection, for each ``k``.

    ``median_by_sort`` (``np.sort``) against ``median_by_selection``
    (``np.partition``, introselect) of :mod:`lessons_lib.structures.kdtree`;
    medians of enough repeats to run about 2 million values each.

    Returns
    -------
    list of dict
        ``k, sort_ms, selection_ms``.
    """
    from ..structures.kdtree import median_by_selection, median_by_sort

    rng = np.random.default_rng(seed)
    rows = []
    for k in sizes:
        v = rng.uniform(size=k)
        assert median_by_sort(v) == median_by_selection(v)
        reps = max(5, 2_000_000 // k)
        t_sort, _ = _cpu_ms(lambda: median_by_sort(v), reps)
        t_sel, _ = _cpu_ms(lambda: median_by_selection(v), reps)
        rows.append({"k": int(k), "sort_ms": t_sort, "selection_ms": t_sel})
        if log:
            log(f"k={k:,}: sort {t_sort:.4f} ms, selection {t_sel:.4f} ms")
    return rows


def store_results(log=print, *, ns=(1_000, 3_000, 10_000, 30_000, 100_000), sizes=(1_000, 10_000, 100_000, 1_000_000),
                  names=(LOADER_RESULTS, MEDIAN_RESULTS)) -> list:
    """Write ``data/results/tree_loaders.csv`` and ``kd_median.csv`` (or the two paths in ``names``); return their paths."""
    from ..data import save_results

    cmd = "python -m lessons_lib.labs.rtrees --store"
    loaders = loader_costs(ns, log=log)
    medians = median_costs(sizes, log=log)
    return [save_results(names[0], loaders, command=cmd,
                         what="lessons 09-10: build and pairs() of every way to make a tree, random scene scaled to n, "
                              "median CPU ms of 3 runs, max_entries/capacity at their defaults"),
            save_results(names[1], medians, command=cmd,
                         what="lesson 10: the median of k random floats by np.sort and by np.partition (selection), "
                              "median CPU ms")]


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if "--store" in sys.argv[1:]:
        for path in store_results():
            print(f"wrote {path}")
    else:
        print("usage: python -m lessons_lib.labs.rtrees --store   (writes data/results/tree_loaders.csv, kd_median.csv)")

"""Lessons 09-10's lab: R-tree splits stepped through, the nodes a query enters, and the stored measurements.

* :func:`split_stepper`, :func:`reinsert_stepper`, :func:`visited_nodes`, :func:`mean_visits`: what lesson 09
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

__all__ = ["split_stepper", "reinsert_frames", "reinsert_stepper", "visited_nodes", "mean_visits", "LOADERS", "loader_costs", "median_costs",
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


# --------------------------------------------------------------------------
# A Stepper through one R* forced reinsertion
# --------------------------------------------------------------------------
def reinsert_frames(boxes, *, max_entries: int = 5, reinsert_fraction: float = 0.4, which: int = 0) -> list[dict]:
    """Record one forced reinsertion of an :class:`~lessons_lib.structures.rstar_tree.RStarTree`.

    The boxes are inserted one by one (box ``i`` has id ``i``). Before each
    insert the leaf R*'s ChooseSubtree picks is found with the tree's own
    :func:`~lessons_lib.structures.rstar_tree.choose_subtree` on its node
    arrays; when that leaf is full and not the root, the insert overflows it
    and R* reinserts instead of splitting. The ``which``-th such insert is
    recorded: its leaf's ``M + 1`` entries, their distances from the leaf's
    centre (on the boxes :func:`~lessons_lib.structures.rtree_nodes.unit_boxes`
    compares), the ``p`` farthest taken out, and the leaf each of them ends in
    after the real insert. The tree's own ``reinsertions`` counter must grow by ``p``.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 60 closed boxes.
    max_entries, reinsert_fraction
        The tree's ``M`` and ``p / M``.
    which : int
        Which overflowing insert to record (0 = the first).

    Returns
    -------
    list of dict
        One dict per frame, keys ``stage`` ("before", "overflow", "removed",
        "reinsert", "after"), ``k`` (the box being inserted), ``levels`` (node
        rectangles by depth), ``leaf`` (the overflowing leaf's rectangle),
        ``entries``, ``dist``, ``removed`` (ids, removed nearest first),
        ``done`` (removed ids back in so far), ``landed`` (id -> rectangle of the
        leaf it ends in), ``centre``, ``splits``, ``p``, ``note``.

    Raises
    ------
    ValueError
        Bad boxes or parameters, more than 60 boxes, or fewer than ``which + 1``
        forced reinsertions while inserting them.

    Example
    -------
    >>> from lessons_lib import make_scene
    >>> frames = reinsert_frames(make_scene("random", 12, seed=2))
    >>> frames[0]["stage"], frames[-1]["stage"]
    ('before', 'after')
    """
    from ..structures.rstar_tree import choose_subtree
    from ..structures.rtree_nodes import unit_boxes

    b = as_boxes(boxes)
    if len(b) > 60:
        raise ValueError(f"reinsert_frames is for at most 60 boxes, got {len(b)}")
    tree = STRUCTURES["rstar_tree"](max_entries=max_entries, reinsert_fraction=reinsert_fraction)
    p, M = tree.reinsert_count, tree.max_entries
    if p == 0:
        raise ValueError("reinsert_fraction gives p = 0: no forced reinsertion to show")
    seen = 0
    for k, box in enumerate(b):
        nd = tree.nodes.arrays
        leaf = -1
        if len(tree) and tree.height >= 2:
            v = int(choose_subtree(nd, box.copy(), 0))
            if nd[2][v] == M:
                leaf = v
        if leaf < 0 or seen < which:
            seen += leaf >= 0
            tree.insert(k, box)
            continue
        levels = [r.copy() for r in tree.nodes_by_level()]
        slot_ids = tree.elements.ids
        entries = [int(slot_ids[s]) for s in nd[4][leaf, :nd[2][leaf]]] + [k]
        eb = np.array([b[i] for i in entries])
        u = unit_boxes(eb)
        cx = 0.5 * u[:, 0].min() + 0.5 * u[:, 2].max()
        cy = 0.5 * u[:, 1].min() + 0.5 * u[:, 3].max()
        d = np.sqrt((0.5 * u[:, 0] + 0.5 * u[:, 2] - cx) ** 2 + (0.5 * u[:, 1] + 0.5 * u[:, 3] - cy) ** 2)
        order = np.argsort(d ** 2, kind="mergesort")
        kept = [entries[t] for t in order[: len(entries) - p]]
        removed = [entries[t] for t in order[len(entries) - p:]]
        full = np.r_[eb[:, :2].min(axis=0), eb[:, 2:].max(axis=0)]
        centre = (0.5 * (full[0] + full[2]), 0.5 * (full[1] + full[3]))
        before = tree.reinsertions
        tree.insert(k, box)
        if tree.reinsertions - before < p:  # pragma: no cover - would mean the re-run is not faithful
            raise RuntimeError("the tree did not reinsert where the re-run expected it")
        nb = tree.nodes.box
        landed = {i: nb[int(tree.leaf_of[np.flatnonzero(tree.elements.ids == i)[0]])].copy() for i in removed}
        kb = b[kept]
        shrunk = np.r_[kb[:, :2].min(axis=0), kb[:, 2:].max(axis=0)]
        base = dict(k=k, levels=levels, entries=entries, dist=dict(zip(entries, d.tolist())), removed=removed,
                    kept=kept, centre=centre, p=p, done=[], landed=landed, splits=0, leaf=full)
        frames = [dict(base, stage="before", leaf=None,
                       note=f"box {k} arrives; the tree holds {k} boxes (M = {M}, p = {p})"),
                  dict(base, stage="overflow",
                       note=f"box {k} goes to a full leaf: {M + 1} entries, one too many; R* reinserts "
                            f"before it splits (distances from the leaf's centre drawn)"),
                  dict(base, stage="removed", leaf=shrunk,
                       note=f"the {p} entries farthest from the centre, {removed}, are taken out; "
                            f"the leaf shrinks to the other {len(kept)}")]
        for j, i in enumerate(removed):
            frames.append(dict(base, stage="reinsert", leaf=shrunk, done=removed[: j + 1],
                               note=f"entry {i} goes back in ({'the nearer' if j == 0 else 'then the next'} of those taken out); "
                                    f"it ends in the leaf outlined"))
        after = [r.copy() for r in tree.nodes_by_level()]
        n_split = len(tree.last_splits)
        frames.append(dict(base, stage="after", levels=after, leaf=None, done=removed, splits=n_split,
                           note=f"after the insert: {len(after[-1])} leaves (were {len(levels[-1])}), "
                                f"{viz.plural(n_split, 'split')}"))
        return frames
    raise ValueError(f"inserting these {len(b)} boxes overflows a non-root leaf {seen} time(s); "
                     f"which={which} asks for one more")


def reinsert_stepper(boxes, *, max_entries: int = 5, reinsert_fraction: float = 0.4, which: int = 0,
                     title=None, figsize=(6.5, 5), **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through one R* forced reinsertion (:func:`reinsert_frames`).

    Frames: the tree before the insert (new box dashed); the overflowing leaf
    with its ``M + 1`` entries, its centre and their distances (the ``p``
    farthest in red); the leaf shrunk without them; each taken-out entry going
    back in, nearest first, with the leaf it ends in; the whole tree after.

    Parameters
    ----------
    boxes, max_entries, reinsert_fraction, which
        As :func:`reinsert_frames`.
    title : str, optional
    figsize : tuple of 2 floats
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper` (``dpi``, ``interval``).

    Raises
    ------
    ValueError
        As :func:`reinsert_frames`.
    """
    b = as_boxes(boxes)
    frames = reinsert_frames(b, max_entries=max_entries, reinsert_fraction=reinsert_fraction, which=which)
    k = frames[0]["k"]
    world = viz.covering_box(b)
    max_depth = max(len(f["levels"]) for f in frames)

    def draw(ax, fr, prev):
        levels = fr["levels"]
        depth_of = [np.full(len(r), d, np.int64) for d, r in enumerate(levels)]
        viz.draw_regions(ax, (np.concatenate(levels), np.concatenate(depth_of)), max_depth=max_depth,
                         label="node before the insert" if fr["stage"] != "after" else "node after the insert")
        viz.draw_boxes(ax, b[:k], annotate=True, label="box")
        viz.draw_boxes(ax, b[[k]], fill=False, color="black", linestyle="--", linewidth=1.5,
                       label=f"new box {k}", zorder=5)
        if fr["leaf"] is not None:
            viz.draw_boxes(ax, fr["leaf"][None, :], fill=False, color="magenta", linewidth=2.5,
                           label="overflowing leaf", zorder=6)
        if fr["stage"] == "overflow":
            cx, cy = fr["centre"]
            ax.plot(cx, cy, "k+", markersize=12, label="leaf centre", zorder=7)
            for i in fr["entries"]:
                ex, ey = 0.5 * (b[i, 0] + b[i, 2]), 0.5 * (b[i, 1] + b[i, 3])
                far = i in fr["removed"]
                ax.plot([cx, ex], [cy, ey], color="tab:red" if far else "0.3", linewidth=1.5 if far else 0.8,
                        zorder=7)
        out = [i for i in fr["removed"] if i not in fr["done"]] if fr["stage"] != "overflow" else fr["removed"]
        if fr["stage"] in ("overflow", "removed", "reinsert") and out:
            viz.draw_boxes(ax, b[out], color="tab:red", alpha=0.45, label=f"{fr['p']} farthest: taken out",
                           zorder=6)
        if fr["done"]:
            viz.draw_boxes(ax, b[fr["done"]], color="tab:green", alpha=0.45, label="reinserted", zorder=6)
            if fr["stage"] == "reinsert":
                last = fr["done"][-1]
                viz.draw_boxes(ax, fr["landed"][last][None, :], fill=False, color="tab:green", linewidth=2.5,
                               linestyle=":", label=f"leaf where {last} ends", zorder=6)
        viz.set_world(ax, world)
        stage = {"before": f"before inserting box {k}", "overflow": f"leaf overflows: {len(fr['entries'])} entries",
                 "removed": f"{fr['p']} farthest taken out", "reinsert": f"reinserted {len(fr['done'])}/{fr['p']}",
                 "after": f"after: {len(fr['levels'][-1])} leaves, {viz.plural(fr['splits'], 'split')}"}
        viz.style_world_axes(ax, title=stage[fr["stage"]])

    labels = [f"{i}/{len(frames) - 1}: {f['note']}" for i, f in enumerate(frames)]
    return Stepper(frames, draw, labels=labels, figsize=figsize,
                   title=title or f"R*-tree forced reinsertion (M={max_entries}, p={frames[0]['p']})",
                   **stepper_options)


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

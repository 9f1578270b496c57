"""Lessons 09-10's lab: R-tree splits stepped through, the nodes a query enters, and the stored measurements.

* :func:`split_stepper`, :func:`reinsert_stepper`, :func:`deletion_stepper`, :func:`visited_nodes`,
  :func:`mean_visits`, :func:`split_area_ratios`: what lesson 09 draws and counts;
* :func:`packing_stepper`, :func:`kd_split_stepper`, :func:`draw_curves`, :func:`loader_quality`,
  :func:`plot_visits`, :func:`sliced_runs`,
  :func:`article_str_groups`, :func:`leaf_rects`, :func:`leaves_met`: what lesson 10 draws and counts;
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

from .. import style, viz
from ..base import STRUCTURES
from ..geometry import as_boxes, boxes_overlap
from ..structures.bulk_rtree import METHODS, BulkRTree, pack_order, str_groups
from ..structures.kdtree import KDTree
from ..structures.rtree import LOG_COLS
from ..structures.rtree_nodes import CHILD, COUNT, NodeArrays, centres_of
from ..structures.rtree_search import query_with_visits
from ..widgets import Stepper, figure_png

__all__ = ["split_stepper", "reinsert_frames", "reinsert_stepper", "deletion_stepper", "packing_stepper",
           "kd_split_stepper", "PACKING_NAMES", "visited_nodes", "mean_visits", "split_area_ratios",
           "QUALITY_LOADERS", "loader_quality", "plot_visits", "draw_curves", "sliced_runs", "article_str_groups", "leaf_rects", "leaves_met",
           "LOADERS", "loader_costs", "median_costs", "store_results", "LOADER_RESULTS", "MEDIAN_RESULTS"]

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
# A Stepper whose still (the picture a notebook keeps without a kernel) stays readable
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# A Stepper through inserts, showing each split and its seeds
# --------------------------------------------------------------------------
def split_stepper(boxes, *, structure="rtree", title=None, key_steps=None, **params):
    """A :class:`Stepper` inserting ``boxes`` one by one, showing every split.

    Each frame draws the nodes by depth, the boxes inserted so far (the new one
    highlighted) and, when the insert split nodes, the two groups' new boxes in
    thick lines and the chosen seeds filled.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 60 closed boxes.
    structure : {"rtree", "rstar_tree"}
    title : str, optional
    key_steps : sequence of int, optional
        The steps of the still. Default: the step before the first split, the
        first split, the first split of the root's children (the tree grows to
        height 3; the second split if it never does) and the last step.
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
                viz.draw_boxes(ax, seeds, color=style.VERMILLION, alpha=0.45, label="split seeds", zorder=2.5)
        viz.set_world(ax, world)
        viz.style_world_axes(ax, title=f"{k} boxes, height {len(levels)}"
                             + (f", {len(splits)} split(s)" if len(splits) else ""))

    if key_steps is None:
        split_at = [i for i, f in enumerate(frames) if len(f[2])]
        taller = [i for i, f in enumerate(frames) if len(f[0]) >= 3]
        key_steps = [0, len(frames) - 1]
        if split_at:
            third = taller[0] if taller else split_at[min(1, len(split_at) - 1)]
            key_steps = sorted({max(split_at[0] - 1, 0), split_at[0], third, len(frames) - 1})
    return Stepper(frames, draw, labels=labels, figsize=figsize, key_steps=key_steps,
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
            if nd[COUNT][v] == M:
                leaf = v
        if leaf < 0 or seen < which:
            seen += leaf >= 0
            tree.insert(k, box)
            continue
        levels = [r.copy() for r in tree.nodes_by_level()]
        slot_ids = tree.elements.ids
        entries = [int(slot_ids[s]) for s in nd[CHILD][leaf, :nd[COUNT][leaf]]] + [k]
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
                     title=None, figsize=(6.5, 5), key_steps=(1, 2, 3, -1), **stepper_options):
    """A :class:`Stepper` through one R* forced reinsertion (:func:`reinsert_frames`).

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
    key_steps : sequence of int
        The steps of the still: by default the overflow, the entries taken out,
        the first one back in and the tree after.
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
                         label="node (colour = depth)")
        viz.draw_boxes(ax, b[:k], annotate=True, label="box")
        viz.draw_boxes(ax, b[[k]], fill=False, color="black", linestyle="--", linewidth=1.5,
                       label="new box", zorder=5)
        if fr["leaf"] is not None:
            viz.draw_boxes(ax, fr["leaf"][None, :], fill=False, color=style.NEW_COLOR, linewidth=2.5,
                           label="overflowing leaf", zorder=6)
        if fr["stage"] == "overflow":
            cx, cy = fr["centre"]
            ax.plot(cx, cy, "k+", markersize=12, label="leaf centre", zorder=7)
            for i in fr["entries"]:
                ex, ey = 0.5 * (b[i, 0] + b[i, 2]), 0.5 * (b[i, 1] + b[i, 3])
                far = i in fr["removed"]
                ax.plot([cx, ex], [cy, ey], color=style.VERMILLION if far else "0.3", linewidth=1.5 if far else 0.8,
                        zorder=7)
        out = [i for i in fr["removed"] if i not in fr["done"]] if fr["stage"] != "overflow" else fr["removed"]
        if fr["stage"] in ("overflow", "removed", "reinsert") and out:
            viz.draw_boxes(ax, b[out], color=style.VERMILLION, alpha=0.45, label="taken out",
                           zorder=6)
        if fr["done"]:
            viz.draw_boxes(ax, b[fr["done"]], color=style.GREEN, alpha=0.45, label="reinserted", zorder=6)
            if fr["stage"] == "reinsert":
                last = fr["done"][-1]
                viz.draw_boxes(ax, fr["landed"][last][None, :], fill=False, color=style.GREEN, linewidth=2.5,
                               linestyle=":", label="leaf it lands in", zorder=6)
        viz.set_world(ax, world)
        stage = {"before": f"before inserting box {k}", "overflow": f"leaf overflows: {len(fr['entries'])} entries",
                 "removed": f"{fr['p']} farthest taken out", "reinsert": f"reinserted {len(fr['done'])}/{fr['p']}",
                 "after": f"after: {len(fr['levels'][-1])} leaves, {viz.plural(fr['splits'], 'split')}"}
        viz.style_world_axes(ax, title=stage[fr["stage"]])

    labels = [f"{i}/{len(frames) - 1}: {f['note']}" for i, f in enumerate(frames)]
    return Stepper(frames, draw, labels=labels, figsize=figsize, key_steps=key_steps,
                      title=title or f"R*-tree forced reinsertion (M={max_entries}, p={frames[0]['p']})",
                      **stepper_options)


# --------------------------------------------------------------------------
# A Stepper through deletions (CondenseTree)
# --------------------------------------------------------------------------
def deletion_stepper(boxes, remove, *, max_entries: int = 4, min_entries: int = 2, world=None, title=None,
                     key_steps=None, **stepper_options):
    """A :class:`Stepper` inserting ``boxes`` into an R-tree, then removing the ids ``remove`` one by one.

    Box ``i`` gets id ``i``. The frames are those of
    :meth:`~lessons_lib.widgets.Stepper.from_operations` (new node boxes drawn
    thick, freed ones dashed).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed boxes, world units.
    remove : sequence of int
        Ids to remove, in order.
    max_entries, min_entries : int
        The tree's ``M`` and ``m``.
    world : array_like, shape (4,), optional
        The tree's world (default: the boxes' covering box).
    title : str, optional
    key_steps : sequence of int, optional
        The steps of the still. Default: the last insert, the removal just
        before the first one that dissolves a node (the region count drops),
        that removal, and the last step.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper` (``figsize``, ``dpi``, ``interval``).

    Raises
    ------
    ValueError, KeyError
        Bad boxes or parameters, an id in ``remove`` that is not stored.
    """
    b = as_boxes(boxes)
    world = viz.covering_box(b) if world is None else world
    ops = [("insert", i, b[i]) for i in range(len(b))] + [("remove", int(i)) for i in remove]
    tree = STRUCTURES["rtree"](max_entries=max_entries, min_entries=min_entries, world=world)
    st = Stepper.from_operations(tree, ops, title=title or f"RTree(M={max_entries}, m={min_entries}): "
                                    f"{len(b)} inserts, then {len(remove)} deletions",
                                    key_steps=key_steps, **stepper_options)
    if key_steps is None:
        regions = [len(st.frame(i).rects) for i in range(len(st))]
        drops = [i for i in range(len(b) + 1, len(st)) if regions[i] < regions[i - 1]]
        last = len(st) - 1
        st.key_steps = sorted({len(b), max(drops[0] - 1, len(b)), drops[0], last}) if drops else [len(b), last]
    return st


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


def split_area_ratios(nodes: int = 300, entries: int = 9, min_entries: int = 3, seed: int = 3,
                      methods=("quadratic", "linear")) -> dict:
    """How much area Guttman's heuristics give away against the exhaustive split, on random overfull nodes.

    Each of ``nodes`` nodes holds ``entries`` random boxes (lower corners
    uniform in 0..100, sides 1..20); each is split by every method of
    :func:`~lessons_lib.structures.rtree_split.split_entries` with at least
    ``min_entries`` per group. The measure is the total area of the two
    groups' covering boxes divided by the exhaustive split's (the optimum), so
    1.0 is optimal.

    Returns
    -------
    dict
        ``method -> numpy.ndarray`` of ``nodes`` ratios (>= 1).

    Sources: [Guttman1984].
    """
    from ..structures.rtree_split import split_entries

    def total_area(b, groups):
        out = 0.0
        for g in (0, 1):
            s = b[groups == g]
            out += (s[:, 2].max() - s[:, 0].min()) * (s[:, 3].max() - s[:, 1].min())
        return out

    rng = np.random.default_rng(seed)
    ratios = {m: [] for m in methods}
    for _ in range(nodes):
        corner = rng.uniform(0, 100, size=(entries, 2))
        b = np.column_stack([corner, corner + rng.uniform(1, 20, size=(entries, 2))])
        best = total_area(b, split_entries(b, min_entries, "exhaustive"))
        for m in methods:
            ratios[m].append(total_area(b, split_entries(b, min_entries, m)) / best)
    return {m: np.array(r) for m, r in ratios.items()}


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


# --------------------------------------------------------------------------
# Lesson 10: packing level by level, and the k-d tree's median splits
# --------------------------------------------------------------------------
#: Display names of the packing orders of :class:`~lessons_lib.structures.bulk_rtree.BulkRTree`.
PACKING_NAMES = {"nearest_x": "Nearest-X", "str": "STR", "hilbert": "Hilbert"}


def packing_stepper(boxes, methods=METHODS, *, max_entries=4, title=None, figsize=(5.4, 4.0), dpi=100, key_steps=None):
    """A :class:`Stepper` packing ``boxes`` bottom-up, one tree level per frame.

    For each method, the first frame draws the boxes and the order in which
    the leaves take them (a line through the centres, from the same
    ``pack_order`` / ``str_groups`` the tree uses); the next frames draw the
    nodes of level 0 (the leaves: runs of about ``max_entries`` boxes), level 1,
    ... up to the root, each level's rectangles in thick lines over the
    levels below it. The rectangles are read from a real
    :class:`~lessons_lib.structures.bulk_rtree.BulkRTree` (``nodes_by_level()``).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 80 closed boxes, world units.
    methods : str or sequence of str
        Packing orders among ``"nearest_x"``, ``"str"``, ``"hilbert"``, shown one after the other.
    max_entries : int
        ``M`` of the trees (>= 2).
    title, figsize, dpi
        As for :class:`~lessons_lib.widgets.Stepper`.
    key_steps : sequence of int, optional
        The steps of the still; default: the leaves of each method.

    Returns
    -------
    Stepper
        Frames are dicts: ``method``, ``level`` (-1 for the order frame),
        ``levels`` (list of (k, 4) rectangle arrays, leaves first) and ``order``
        (the leaf-level packing order, indices into ``boxes``).

    Raises
    ------
    ValueError
        Bad boxes, an unknown method, bad ``max_entries``, more than 80 boxes.

    Sources: [Roussopoulos1985], [Leutenegger1997], [Kamel1993].

    Examples
    --------
    >>> from lessons_lib import make_scene
    >>> s = packing_stepper(make_scene("random", 40, seed=1, world=[0, 0, 200, 150]), "str", max_entries=4)
    >>> len(s), s.label(-1)
    (4, 'STR: level 2 (the root), 1 node')
    """
    b = as_boxes(boxes)
    if len(b) > 80:
        raise ValueError(f"packing_stepper is for at most 80 boxes, got {len(b)}")
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    centres = centres_of(b)
    frames, labels = [], []
    for m in methods:
        tree = BulkRTree.from_boxes(b, method=m, max_entries=max_entries)
        levels = tree.nodes_by_level()[::-1]  # leaves first, root last
        order = str_groups(centres, max_entries)[0] if m == "str" else pack_order(centres, m)
        name = PACKING_NAMES[m]
        frames.append({"method": m, "level": -1, "levels": levels, "order": order})
        labels.append(f"{name}: the order of the {len(b)} boxes")
        for lvl in range(len(levels)):
            frames.append({"method": m, "level": lvl, "levels": levels, "order": order})
            what = "the leaves" if lvl == 0 else "the root" if lvl == len(levels) - 1 else "nodes of nodes"
            labels.append(f"{name}: level {lvl} ({what}), {viz.plural(len(levels[lvl]), 'node')}")
    world = viz.covering_box(b)
    top = max(len(f["levels"]) for f in frames)

    def draw(ax, frame, prev):
        name, lvl, levels = PACKING_NAMES[frame["method"]], frame["level"], frame["levels"]
        viz.draw_boxes(ax, b, color="0.6", alpha=0.25, label="box")
        if lvl <= 0:
            c = centres[frame["order"]]
            ax.plot(c[:, 0], c[:, 1], "-", color=style.PURPLE, lw=1.2 if lvl < 0 else 0.8,
                    alpha=1.0 if lvl < 0 else 0.6, label="packing order", zorder=3)
            ax.plot(c[:1, 0], c[:1, 1], "o", color=style.PURPLE, ms=5, label="first box", zorder=3)
        for below in range(max(lvl, 0)):
            viz.draw_regions(ax, (levels[below], np.full(len(levels[below]), top - 1 - below)), color="0.45",
                             linewidth=0.8, label="levels below" if below == 0 else None)
        if lvl >= 0:
            viz.draw_regions(ax, (levels[lvl], np.zeros(len(levels[lvl]), np.int64)), color=style.VERMILLION,
                             linewidth=2.2, label="nodes of this level", zorder=4)
            title = f"{name}: level {lvl}, {viz.plural(len(levels[lvl]), 'node')}"
        else:
            title = f"{name}: the packing order"
        viz.set_world(ax, world)
        viz.style_world_axes(ax, title=title)

    if key_steps is None:
        key_steps = [i for i, f in enumerate(frames) if f["level"] == 0]
    return Stepper(frames, draw, labels=labels, figsize=figsize, dpi=dpi, key_steps=key_steps,
                      title=title or f"Packing {len(b)} boxes bottom-up, M = {max_entries}")


def kd_split_stepper(boxes, *, capacity=4, split_axis="alternate", title=None, figsize=(5.4, 4.0), dpi=100,
                     key_steps=None):
    """A :class:`Stepper` through a k-d tree's median splits, one split per frame.

    The splits are those :class:`~lessons_lib.structures.kdtree.KDTree` makes
    when built from ``boxes``: a node holding more than ``capacity`` boxes is
    cut along ``depth % 2`` (``split_axis="alternate"``; or the axis along which
    its centres spread more, ``"spread"``) at the key of rank ``k // 2`` of its
    ``k`` centres; the ``k // 2`` smaller keys go left, the rest right. They are
    replayed here in plain Python, breadth first (the tree's compiled kernel
    uses a stack; the splits are the same). Each frame shades the cell being
    split, draws the cut through it, the median box and the two halves; the
    last frame draws the bounds of every node, which equal the tree's
    ``regions()``.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 80 closed boxes with distinct centres along each axis (ties
        may be split differently from the compiled kernel).
    capacity : int
        Most boxes per leaf (>= 1).
    split_axis : {"alternate", "spread"}
    title, figsize, dpi
        As for :class:`~lessons_lib.widgets.Stepper`.
    key_steps : sequence of int, optional
        The steps of the still; default: the first split, the first split at
        depth 1, the first at depth 2, and the node bounds.

    Returns
    -------
    Stepper
        Frames are dicts: ``kind`` (``"start"``, ``"split"`` or ``"bounds"``),
        ``cuts`` (the cuts made so far, each ``(cell, axis, value)``) and, for a
        split, ``cell``, ``depth``, ``axis``, ``value``, ``median`` (the box
        index whose key is the cut), ``left``, ``right`` (box indices); the
        last frame has ``bounds``, (k, 4), one row per node.

    Raises
    ------
    ValueError
        Bad boxes or parameters, more than 80 boxes.

    Sources: [Bentley1975].

    Examples
    --------
    >>> from lessons_lib import make_scene
    >>> s = kd_split_stepper(make_scene("random", 40, seed=1, world=[0, 0, 200, 150]), capacity=4)
    >>> len(s), s.frame(1)["axis"], len(s.frame(1)["left"])
    (17, 0, 20)
    """
    b = as_boxes(boxes)
    if len(b) > 80:
        raise ValueError(f"kd_split_stepper is for at most 80 boxes, got {len(b)}")
    tree = KDTree.from_boxes(b, capacity=capacity, split_axis=split_axis)  # checks the parameters
    centres = centres_of(b)
    world = viz.covering_box(b)
    cuts, bounds = [], []
    frames = [{"kind": "start", "cuts": []}]
    queue = [(np.arange(len(b)), world.copy(), 0)]
    while queue:
        idx, cell, depth = queue.pop(0)
        if len(idx) == 0:
            continue
        sub = b[idx]
        bounds.append([sub[:, 0].min(), sub[:, 1].min(), sub[:, 2].max(), sub[:, 3].max()])
        if len(idx) <= capacity:
            continue
        if split_axis == "alternate":
            axis = depth % 2
        else:
            lo, hi = centres[idx].min(axis=0), centres[idx].max(axis=0)
            axis = 0 if 0.5 * hi[0] - 0.5 * lo[0] >= 0.5 * hi[1] - 0.5 * lo[1] else 1
        order = idx[np.argsort(centres[idx, axis], kind="stable")]
        mid = len(idx) // 2
        value = float(centres[order[mid], axis])
        left_cell, right_cell = cell.copy(), cell.copy()
        left_cell[2 + axis] = value
        right_cell[axis] = value
        frames.append({"kind": "split", "cuts": list(cuts), "cell": cell, "depth": depth, "axis": axis,
                       "value": value, "median": int(order[mid]), "left": order[:mid], "right": order[mid:]})
        cuts.append((cell, axis, value))
        queue += [(order[:mid], left_cell, depth + 1), (order[mid:], right_cell, depth + 1)]
    frames.append({"kind": "bounds", "cuts": list(cuts), "bounds": np.array(bounds, np.float64).reshape(-1, 4)})
    labels = [f"{len(b)} boxes, one cell" if f["kind"] == "start" else
              f"split {k}: depth {f['depth']}, {len(f['left']) + len(f['right'])} boxes cut at "
              f"{'xy'[f['axis']]} = {f['value']:.1f}" if f["kind"] == "split" else
              f"the node bounds: {viz.plural(len(f['bounds']), 'node')}, height {tree.height}"
              for k, f in enumerate(frames)]

    def draw_cut(ax, cell, axis, value, **kw):
        if axis == 0:
            return ax.plot([value, value], [cell[1], cell[3]], **kw)
        return ax.plot([cell[0], cell[2]], [value, value], **kw)

    def draw(ax, frame, prev):
        for k, (cell, axis, value) in enumerate(frame["cuts"]):
            draw_cut(ax, cell, axis, value, color="0.45", lw=0.8, label="earlier cuts" if k == 0 else None)
        if frame["kind"] == "split":
            f = frame
            viz.draw_boxes(ax, [f["cell"]], color=style.YELLOW, alpha=0.25, linewidth=0, label="cell being split",
                           zorder=0.5)
            viz.draw_boxes(ax, b[f["left"]], color=style.BLUE, alpha=0.35, label="left / below half")
            viz.draw_boxes(ax, b[f["right"]], color=style.GREEN, alpha=0.35, label="right / above half")
            viz.draw_boxes(ax, b[[f["median"]]], color=style.VERMILLION, alpha=0.6, label="median box", zorder=3)
            draw_cut(ax, f["cell"], f["axis"], f["value"], color=style.VERMILLION, lw=2.2, label="the cut", zorder=4)
            title = f"depth {f['depth']}: {'xy'[f['axis']]} = {f['value']:.1f} splits {len(f['left']) + len(f['right'])} boxes"
        elif frame["kind"] == "bounds":
            viz.draw_boxes(ax, b, color="0.6", alpha=0.25, label="box")
            viz.draw_regions(ax, (frame["bounds"], np.zeros(len(frame["bounds"]), np.int64)), color=style.VERMILLION,
                             linewidth=1.2, label="node bounds", zorder=3)
            title = f"node bounds ({len(frame['bounds'])} nodes)"
        else:
            viz.draw_boxes(ax, b, color="0.6", alpha=0.25, label="box")
            title = f"{len(b)} boxes, capacity {capacity}"
        viz.set_world(ax, world)
        viz.style_world_axes(ax, title=title)

    if key_steps is None:
        first = {}
        for i, f in enumerate(frames):
            if f["kind"] == "split":
                first.setdefault(f["depth"], i)
        key_steps = sorted({first[d] for d in (0, 1, 2) if d in first} | {len(frames) - 1})
    return Stepper(frames, draw, labels=labels, figsize=figsize, dpi=dpi, key_steps=key_steps,
                      title=title or f"k-d tree median splits ({split_axis} axes)")


# --------------------------------------------------------------------------
# Lesson 10: tree quality by loader, and STR's slices read two ways
# --------------------------------------------------------------------------
#: The trees lesson 10 compares, by name: (structure, parameters); all with ``max_entries=16``.
QUALITY_LOADERS = {
    "insert quadratic": ("rtree", {}),
    "insert R*": ("rstar_tree", {}),
    "nearest_x": ("bulk_rtree", {"method": "nearest_x"}),
    "nearest_x variance": ("bulk_rtree", {"method": "nearest_x", "sort_axis": "variance"}),
    "str": ("bulk_rtree", {"method": "str"}),
    "hilbert": ("bulk_rtree", {"method": "hilbert"}),
}


def loader_quality(scenes=("random", "clustered", "mixed_sizes", "xline"), n: int = 3000, *, queries=None,
                   seed: int = 2, max_entries: int = 16, loaders=None) -> list[dict]:
    """Quality of the tree every loader builds on each scene: nodes, leaf margin and overlap, node visits.

    Parameters
    ----------
    scenes : sequence of str
        Scene names of :func:`~lessons_lib.scenes.make_scene`.
    n : int
        Boxes per scene.
    queries : array_like, shape (q, 4), optional
        Query boxes; default 300 squares of 20 x 20 units with lower corners
        uniform in 0..780 (seed 1).
    seed : int
        The scenes' seed.
    max_entries : int
        ``M`` of every tree.
    loaders : dict, optional
        ``name -> (structure, parameters)``; default :data:`QUALITY_LOADERS`.

    Returns
    -------
    list of dict
        ``scene, loader, nodes, leaf_margin, leaf_overlap, overlap`` (all levels)
        and ``visits`` (mean nodes entered per query), one row per scene and loader.
    """
    from ..scenes import make_scene

    if queries is None:
        corners = np.random.default_rng(1).uniform(0, 780, size=(300, 2))
        queries = np.column_stack([corners, corners + 20])
    rows = []
    for scene in scenes:
        b = make_scene(scene, n, seed=seed)
        for name, (structure, params) in (loaders or QUALITY_LOADERS).items():
            t = STRUCTURES[structure].from_boxes(b, max_entries=max_entries, **params)
            q = t.quality()
            rows.append({"scene": scene, "loader": name, "nodes": int(t.nodes.n_nodes()),
                         "leaf_margin": float(q[-1].margin), "leaf_overlap": float(q[-1].overlap),
                         "overlap": float(sum(r.overlap for r in q)), "visits": mean_visits(t, queries)})
    return rows


def plot_visits(ax, rows) -> None:
    """Grouped bars of :func:`loader_quality` rows: nodes entered per query, one group per scene, one bar per loader.

    The legend is the caller's (``fig.legend(...)`` outside the data).
    """
    scenes = list(dict.fromkeys(r["scene"] for r in rows))
    names = list(dict.fromkeys(r["loader"] for r in rows))
    visits = {(r["scene"], r["loader"]): r["visits"] for r in rows}
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        ax.bar(np.arange(len(scenes)) + k * width, [visits[s, name] for s in scenes], width, label=name)
    ax.set_xticks(np.arange(len(scenes)) + 0.4 - width / 2, scenes)
    ax.set(xlabel="scene", ylabel="nodes entered per query (mean)")


def draw_curves(axes) -> None:
    """Draw the Hilbert (orders 1, 2, 3), Peano (1, 2, 3) and Z-order (1, 2, 3) curves on a 3 x 3 grid of axes.

    Each panel draws the curve through the cell centres, its start (a dot) and
    its end (a square); the first panel's lines carry the legend labels.
    Sources: [Hilbert1891], [Morton1966].
    """
    from ..structures import curves

    rows = (("Hilbert", curves.hilbert_curve, (1, 2, 3)), ("Peano", curves.peano_curve, (1, 2, 3)),
            ("Z-order", curves.morton_curve, (1, 2, 3)))
    for row, (name, make, orders) in enumerate(rows):
        for ax, k in zip(np.asarray(axes)[row], orders):
            pts = make(k) + 0.5
            side = int(pts.max() + 0.5)
            ax.plot(pts[:, 0], pts[:, 1], color=style.BLUE, linewidth=1.2 if side < 20 else 0.8, label="curve")
            ax.plot(*pts[0], "o", color=style.GREEN, label="start")
            ax.plot(*pts[-1], "s", color=style.VERMILLION, label="end")
            ax.set(xlim=(0, side), ylim=(0, side), aspect="equal", title=f"{name}, order {k}: {side} x {side}")
            ax.set_xticks([0, side])
            ax.set_yticks([0, side])


def sliced_runs(centres, max_entries: int, slice_entries: int) -> list[np.ndarray]:
    """Leaf groups by sorting on x, cutting slices of ``slice_entries``, sorting each on y, then runs of ``max_entries``.

    The runs are cut from the concatenated slices, across slice borders, as the
    article's code does. ``slice_entries = S * M`` (a multiple of ``M``) is
    textbook STR [Leutenegger1997]; ``slice_entries = 1`` is Nearest-X.

    Parameters
    ----------
    centres : array_like, shape (k, 2)
    max_entries : int
        ``M`` (>= 1).
    slice_entries : int
        Entries per slice (>= 1).

    Returns
    -------
    list of numpy.ndarray
        Row indices into ``centres``, one array per leaf, in packing order.

    Raises
    ------
    ValueError
        ``max_entries`` or ``slice_entries`` below 1.
    """
    if max_entries < 1 or slice_entries < 1:
        raise ValueError(f"max_entries and slice_entries must be >= 1, got {max_entries} and {slice_entries}")
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    by_x = np.argsort(c[:, 0], kind="stable")
    order = np.concatenate([s[np.argsort(c[s, 1], kind="stable")]
                            for s in np.split(by_x, range(slice_entries, len(c), slice_entries))]) if len(c) else by_x
    return [order[a:a + max_entries] for a in range(0, len(order), max_entries)]


def article_str_groups(centres, max_entries: int) -> list[np.ndarray]:
    """STR's leaf groups as the article's code forms them: slices of ``ceil(sqrt(k / M))`` *entries*.

    Textbook STR makes ``S = ceil(sqrt(ceil(k / M)))`` slices of ``S * M``
    entries [Leutenegger1997]; the article ([magley2026], section "Bulk-loaded
    R-tree", and [magley-code] ``source/impl/bulk_r_tree.d``, function
    ``build_str``) takes ``ceil(sqrt(k / M))``, about ``S``, as the number of
    entries in each slice. Slices then hold fewer entries than a node, and
    the leaves are nearly those of Nearest-X.
    """
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    return sliced_runs(c, max_entries, max(1, int(np.ceil(np.sqrt(len(c) / max_entries)))))


def leaf_rects(boxes, groups) -> np.ndarray:
    """The covering rectangle of each group of ``boxes`` rows: a (len(groups), 4) array."""
    b = as_boxes(boxes)
    return np.array([[b[g, 0].min(), b[g, 1].min(), b[g, 2].max(), b[g, 3].max()] for g in groups],
                    np.float64).reshape(-1, 4)


def leaves_met(rects, queries) -> float:
    """Mean number of ``rects`` each of ``queries`` intersects (closed boxes): the leaves a query must open."""
    r = np.asarray(rects, np.float64).reshape(-1, 4)
    q = np.asarray(queries, np.float64).reshape(-1, 4)
    if len(q) == 0:
        return 0.0
    hit = ((r[None, :, 0] <= q[:, None, 2]) & (q[:, None, 0] <= r[None, :, 2])
           & (r[None, :, 1] <= q[:, None, 3]) & (q[:, None, 1] <= r[None, :, 3]))
    return float(hit.sum(axis=1).mean())

"""Lessons 09-10's lab: R-tree splits stepped through, and the nodes a query enters."""
from __future__ import annotations

import numpy as np

from .. import viz
from ..base import STRUCTURES
from ..geometry import as_boxes, boxes_overlap
from ..structures.rtree import LOG_COLS
from ..structures.rtree_nodes import NodeArrays, query_with_visits
from ..widgets import Stepper

__all__ = ["split_stepper", "visited_nodes", "mean_visits"]


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

"""Lesson 12's lab: the dynamic AABB tree drawn, stepped through and measured.

* :func:`agent_frames`: small scenes of moving agents (all moving, most at rest,
  a few giants among them), the same for every structure;
* :func:`draw_tree`: a tree over its boxes (internal nodes by depth, the leaves'
  fat boxes dashed, the exact boxes filled);
* :func:`node_table`: the node table's named fields, one row per node, and the free list;
* :func:`trace_sibling_search`, :func:`node_costs`: the sibling search by branch and
  bound, written out in Python so that a picture can show the nodes it visits;
* :func:`insertion_stepper`: one insertion step by step (search, new parent,
  refit, rotation), a world view beside a node-link diagram;
* :func:`insertion_quality`: height and cost after sorted or shuffled insertions,
  with and without rotations, against a fresh build;
* :func:`margin_sweep`: what the margin trades: leaves re-filed against candidate pairs;
* :func:`frame_times`: milliseconds per frame of several structures on the same frames;
* :func:`anchor_table`, :func:`plot_anchor`: the stored comparison with Box2D's own tree.

Costs here are perimeters, ``2 (w + h)``, as ``DynamicAABBTree.cost()`` reports them
(the structure compares an eighth of them, which changes no decision).

Sources: [Catto2019], [box2d], [Bittner2012], [Kopta2012], [MacDonald1990].
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from .. import style, viz
from ..base import STRUCTURES
from ..data import load_results
from ..structures.aabb_tree_nodes import FREE, HEAD, NULL
from ..structures.dynamic_aabb_tree import DynamicAABBTree
from ..widgets import Stepper

__all__ = ["agent_frames", "agent_walk", "draw_tree", "node_table", "free_list", "perimeter", "node_costs",
           "trace_sibling_search", "insertion_frames", "insertion_stepper", "insertion_quality",
           "margin_sweep", "plot_margin_sweep", "frame_times", "SCENES", "scene_times", "times_table",
           "ANCHOR_RESULTS", "anchor_table", "plot_anchor"]

#: The stored comparison with Box2D's tree (``data/results/<name>.csv``).
ANCHOR_RESULTS = "bench_anchor_box2d"


# --------------------------------------------------------------------------
# Scenes of moving agents
# --------------------------------------------------------------------------
def agent_frames(n: int, frames: int, *, moving: float = 1.0, giants: int = 0, giant_size=(100.0, 200.0),
                 speed: float = 0.5, seed: int = 0) -> list[np.ndarray]:
    """``frames + 1`` snapshots of ``n`` square agents bouncing in a square world.

    Agents are 2 to 4 units wide (the size of the course's simulation agents), in a
    world of ``sqrt(40 n)`` units a side, and move ``speed`` units per frame in a fixed
    random direction, turning back at the walls.

    Parameters
    ----------
    n, frames : int
        Agents, and frames after frame 0.
    moving : float
        Fraction of the agents that move (the first ``round(moving * n)`` ids); the rest
        keep their frame-0 box: ``0.05`` is a scene of resting bodies.
    giants : int
        How many of the *resting* agents are replaced by giants, squares of side
        ``giant_size`` (a range, at most half the world's side: 25 to 100 times as wide as an
        agent, hundreds to thousands of times its area).
    speed : float
        Units per frame.
    seed : int

    Returns
    -------
    list of numpy.ndarray, each (n, 4) float64
    """
    if n < 1 or frames < 0 or not 0.0 <= moving <= 1.0:
        raise ValueError(f"need n >= 1, frames >= 0 and 0 <= moving <= 1, got {n}, {frames}, {moving}")
    walk = agent_walk(n, moving=moving, giants=giants, giant_size=giant_size, speed=speed, seed=seed)
    return [next(walk) for _ in range(frames + 1)]


def agent_walk(n: int, *, moving: float = 1.0, giants: int = 0, giant_size=(100.0, 200.0), speed: float = 0.5,
               seed: int = 0):
    """The frames of :func:`agent_frames`, one at a time and without end: frame 0, then each next frame.

    Each frame is a new ``(n, 4)`` float64 array (the caller may keep it); the parameters are
    :func:`agent_frames`', checked at once (``ValueError``). For long runs whose frames need not
    all be kept.
    """
    if n < 1 or not 0.0 <= moving <= 1.0:
        raise ValueError(f"need n >= 1 and 0 <= moving <= 1, got {n}, {moving}")
    rng = np.random.default_rng(seed)
    side = float(np.sqrt(40.0 * n))
    size = rng.uniform(2.0, 4.0, n)
    lo = rng.uniform(0.0, side - size[:, None], (n, 2))
    boxes = np.column_stack([lo, lo + size[:, None]])
    k = int(round(moving * n))
    if giants:
        if giants > n - k:
            raise ValueError(f"{giants} giants need as many resting agents, there are {n - k}")
        g = np.arange(n - giants, n)
        gs = np.minimum(rng.uniform(giant_size[0], giant_size[1], giants), 0.5 * side)
        glo = rng.uniform(0.0, side - gs[:, None], (giants, 2))
        boxes[g] = np.column_stack([glo, glo + gs[:, None]])
    angle = rng.uniform(0.0, 2 * np.pi, k)
    v = speed * np.column_stack([np.cos(angle), np.sin(angle)])
    return _bounce_frames(boxes, v, k, side)


def _bounce_frames(cur, v, k, side):
    """Yield ``cur``, then, without end, a copy in which the first ``k`` agents moved by ``v``, turning at the walls."""
    yield cur
    while True:
        cur = cur.copy()
        lo = cur[:k, :2] + v
        hi = cur[:k, 2:] + v
        bounce = (lo < 0.0) | (hi > side)
        v = np.where(bounce, -v, v)
        d = np.where(bounce, 0.0, v)
        cur[:k, :2] += d
        cur[:k, 2:] += d
        yield cur


# --------------------------------------------------------------------------
# Drawing a tree
# --------------------------------------------------------------------------
def draw_tree(ax, tree: DynamicAABBTree, *, max_depth: int | None = None, fat: bool = True, exact: bool = True,
              annotate: bool = False, title: str | None = None, legend: bool = True):
    """Draw ``tree``: internal nodes' boxes coloured by depth, the leaves' fat boxes dashed, the exact boxes filled.

    Returns the Axes.
    """
    nd = tree.nodes
    live = nd.live()
    depth = nd.depths_of_live()
    inner = nd.height[live] > 0
    if inner.any():
        viz.draw_regions(ax, (nd.box[live[inner]], depth[inner]), max_depth=max_depth,
                         label="internal node (dark: root)")
    ids, boxes = tree.items()
    if fat and len(ids):
        viz.draw_boxes(ax, tree.fat_boxes()[1], fill=False, color=style.GREY, linestyle="--", linewidth=0.9,
                       label=f"fat box (margin {tree.margin:g})", zorder=1.5)
    if exact and len(ids):
        viz.draw_boxes(ax, boxes, ids=ids, alpha=0.45, label="exact box", annotate=annotate)
    if len(ids):
        viz.set_world(ax, viz.covering_box(nd.box[live]))
    viz.style_world_axes(ax, title=title, legend=False)
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


# --------------------------------------------------------------------------
# The node table
# --------------------------------------------------------------------------
def free_list(tree: DynamicAABBTree) -> list[int]:
    """The free nodes, in the order they will be reused (the chain through ``child1`` from ``meta[HEAD]``)."""
    nd, out = tree.nodes, []
    v = int(nd.meta[HEAD])
    while v != NULL and len(out) <= nd.capacity:
        out.append(v)
        v = int(nd.child1[v])
    return out


def node_table(tree: DynamicAABBTree) -> str:
    """The node table of ``tree`` as aligned text: every node handed out, its named fields, and the free list."""
    nd = tree.nodes
    used = int(nd.meta[1])
    lines = [f"{'node':>4} {'parent':>6} {'child1':>6} {'child2':>6} {'height':>6} {'element':>7}   box (fat for a leaf)"]
    for v in range(used):
        if nd.height[v] == FREE:
            lines.append(f"{v:>4} {'':>6} {int(nd.child1[v]):>6} {'':>6} {'free':>6} {'':>7}   (on the free list; "
                         "child1 = next free node)")
            continue
        b = ", ".join(f"{x:g}" for x in np.round(nd.box[v], 2))
        lines.append(f"{v:>4} {int(nd.parent[v]):>6} {int(nd.child1[v]):>6} {int(nd.child2[v]):>6} "
                     f"{int(nd.height[v]):>6} {int(nd.element[v]):>7}   [{b}]")
    lines.append(f"root = {nd.root}, free list = {free_list(tree)} (-1 means none)")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# The sibling search, written out
# --------------------------------------------------------------------------
def perimeter(b) -> float:
    """Perimeter ``2 (w + h)`` of a box ``[xmin, ymin, xmax, ymax]``: the 2D "surface area"."""
    return 2.0 * ((float(b[2]) - float(b[0])) + (float(b[3]) - float(b[1])))


def _union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def node_costs(nodes, new) -> dict[int, float]:
    """The cost of pairing a new leaf of box ``new`` with each node of the tree (brute force over every node).

    ``cost(X) = perimeter(X u new) + sum over the ancestors A of X of (perimeter(A u new) - perimeter(A))``.
    """
    box, c1, c2, h = nodes.box, nodes.child1, nodes.child2, nodes.height
    out, stack = {}, [(nodes.root, 0.0)] if nodes.root != NULL else []
    while stack:
        v, inherited = stack.pop()
        direct = perimeter(_union(box[v], new))
        out[int(v)] = inherited + direct
        if h[v] > 0:
            below = inherited + direct - perimeter(box[v])
            stack += [(int(c1[v]), below), (int(c2[v]), below)]
    return out


def trace_sibling_search(nodes, new) -> tuple[int, float, list[int]]:
    """The sibling search by branch and bound: ``(best node, its cost, nodes visited in order)``.

    Depth first from the root, carrying the inherited cost; a node's children are not
    entered when its inherited cost plus its own enlargement plus ``perimeter(new)``
    (the least any node below it can cost) is no better than the best found.
    """
    box, c1, c2, h = nodes.box, nodes.child1, nodes.child2, nodes.height
    root = nodes.root
    p_new = perimeter(new)
    best, best_cost = root, perimeter(_union(box[root], new))
    visited, stack = [], [(root, 0.0)]
    while stack:
        v, inherited = stack.pop()
        visited.append(int(v))
        cost = inherited + perimeter(_union(box[v], new))
        if cost < best_cost:
            best, best_cost = int(v), cost
        if h[v] == 0:
            continue
        below = cost - perimeter(box[v])
        if below + p_new >= best_cost:
            continue
        stack += [(int(c2[v]), below), (int(c1[v]), below)]
    return int(best), float(best_cost), visited


# --------------------------------------------------------------------------
# One insertion, step by step
# --------------------------------------------------------------------------
def _shape(nodes) -> dict:
    """A copy of what a frame needs of a tree: live nodes, their boxes, children, depths."""
    live = nodes.live()
    return {"live": live, "box": nodes.box.copy(), "child1": nodes.child1.copy(), "child2": nodes.child2.copy(),
            "height": nodes.height.copy(), "parent": nodes.parent.copy(), "depth": dict(zip(live.tolist(), nodes.depths_of_live().tolist())),
            "root": nodes.root, "element": nodes.element.copy()}


def _grown(boxes, new, margin: float, rotations: bool) -> DynamicAABBTree:
    tree = DynamicAABBTree(margin=margin)
    for i, b in enumerate(boxes):
        tree.insert(i, b)
    tree.rotations = rotations
    tree.insert(len(boxes), new)
    return tree


def insertion_frames(boxes, new, *, margin: float = 0.0) -> list[dict]:
    """The frames of one insertion: before, the sibling search, the new parent and refit, the rotations.

    ``boxes`` are inserted one by one (with rotations) into a
    ``DynamicAABBTree(margin=margin)``; then ``new`` is inserted twice over copies of
    that tree, without and with rotations, so that the frame before the rotations
    and the one after can be shown apart (node numbers are the same in both).
    """
    b = np.asarray(boxes, np.float64)
    new = np.asarray(new, np.float64)
    base = DynamicAABBTree(margin=margin)
    for i, x in enumerate(b):
        base.insert(i, x)
    fat_new = new + np.array([-margin, -margin, margin, margin])
    best, best_cost, visited = trace_sibling_search(base.nodes, fat_new)
    costs = node_costs(base.nodes, fat_new)
    plain = _grown(b, new, margin, rotations=False)
    turned = _grown(b, new, margin, rotations=True)
    assert plain.stats["sibling"] == best == turned.stats["sibling"], "the traced search disagrees with the tree"
    leaf = int(turned.leaf_of[turned.elements.slots_of(np.array([len(b)]))[0]])
    parent = int(plain.nodes.parent[leaf])
    n_rot = turned.stats["rotations"]
    before_shape, plain_shape, turned_shape = _shape(base.nodes), _shape(plain.nodes), _shape(turned.nodes)
    moved = [v for v in turned_shape["live"].tolist()  # the nodes a rotation swapped: their parent changed
             if v in plain_shape["depth"] and turned_shape["parent"][v] != plain_shape["parent"][v]]
    frames = [
        {"shape": before_shape, "new": new, "k": len(b), "stage": "before", "cost": base.cost(),
         "text": f"{len(b)} leaves; a new box arrives (cost {base.cost():.0f})"},
        {"shape": before_shape, "new": new, "k": len(b), "stage": "search", "visited": visited, "best": best,
         "costs": costs, "cost": base.cost(),
         "text": f"search: {len(visited)} of {len(before_shape['live'])} nodes visited; sibling {best}, "
                 f"cost {best_cost:.0f}"},
        {"shape": plain_shape, "new": new, "k": len(b) + 1, "stage": "parent", "best": best, "leaf": leaf,
         "parent": parent, "cost": plain.cost(),
         "text": f"new parent {parent} over {best} and leaf {leaf}; refit up (cost {plain.cost():.0f})"},
        {"shape": turned_shape, "new": new, "k": len(b) + 1, "stage": "rotated", "leaf": leaf, "parent": parent,
         "moved": moved, "cost": turned.cost(), "rotations": n_rot,
         "text": f"{n_rot} rotation{'s' if n_rot != 1 else ''} (nodes {viz.and_list(moved)} swap): cost {plain.cost():.0f} -> {turned.cost():.0f}, "
                 f"height {plain.height} -> {turned.height}"},
    ]
    return frames


def _tree_positions(shape) -> dict[int, tuple[float, float]]:
    """Node-link layout: leaves spread left to right in tree order, a parent above the middle of its children."""
    pos, order = {}, []

    def walk(v, d):
        if shape["height"][v] == 0:
            pos[v] = (float(len(order)), -float(d))
            order.append(v)
            return
        a, b = int(shape["child1"][v]), int(shape["child2"][v])
        walk(a, d + 1)
        walk(b, d + 1)
        pos[v] = (0.5 * (pos[a][0] + pos[b][0]), -float(d))

    if shape["root"] != NULL:
        walk(int(shape["root"]), 0)
    return pos


def _draw_insertion(ax, frame, prev, *, world, max_depth):
    shape = frame["shape"]
    live = shape["live"]
    ax.set_axis_off()
    ax.set_title(frame["text"], fontsize=10)
    left = ax.inset_axes([0.0, 0.0, 0.56, 1.0])
    right = ax.inset_axes([0.6, 0.02, 0.4, 0.92])
    inner = [v for v in live.tolist() if shape["height"][v] > 0]
    leaves = [v for v in live.tolist() if shape["height"][v] == 0]
    depth = np.array([shape["depth"][v] for v in inner], np.int64)
    if inner:
        viz.draw_regions(left, (shape["box"][inner], depth), max_depth=max_depth, label=None)
    viz.draw_boxes(left, shape["box"][leaves], alpha=0.35, label=None)
    viz.draw_boxes(left, frame["new"].reshape(1, 4), color=style.NEW_COLOR, alpha=0.55, label=None, zorder=3)
    special = {}
    if frame["stage"] == "search":
        for v in frame["visited"]:
            special[v] = style.GREY
        special[frame["best"]] = style.HIGHLIGHT_COLOR
    elif frame["stage"] == "parent":
        special = {frame["best"]: style.HIGHLIGHT_COLOR, frame["parent"]: style.VERMILLION,
                   frame["leaf"]: style.NEW_COLOR}
    elif frame["stage"] == "rotated":
        special = {v: style.VERMILLION for v in frame["moved"]}
        special[frame["leaf"]] = style.NEW_COLOR
    for v, colour in special.items():
        if v in shape["depth"] and colour != style.GREY:
            viz.draw_boxes(left, shape["box"][v].reshape(1, 4), fill=False, color=colour, linewidth=2.2,
                           label=None, zorder=4)
    for v in special:  # the numbers of the nodes this step is about, at the top-left corner of their boxes
        if v not in shape["depth"] or special[v] == style.GREY:
            continue
        b = shape["box"][v]
        left.text(b[0], b[3], str(v), fontsize=7, va="bottom", ha="left", color="0.2", zorder=5)
    viz.set_world(left, world)
    left.set_aspect("equal", adjustable="box")
    left.set_xticks([])
    left.set_yticks([])
    # the node-link diagram
    pos = _tree_positions(shape)
    for v in inner:
        for c in (int(shape["child1"][v]), int(shape["child2"][v])):
            right.plot([pos[v][0], pos[c][0]], [pos[v][1], pos[c][1]], color="0.55", linewidth=1, zorder=1)
    for v, (x, y) in pos.items():
        face = special.get(v, style.BOX_COLOR if shape["height"][v] == 0 else "white")
        right.scatter([x], [y], s=170, facecolor=face, edgecolor="0.25", zorder=2)
        right.text(x, y, str(v), fontsize=7, ha="center", va="center", zorder=3,
                   color="white" if face in (style.BOX_COLOR, style.VERMILLION, style.NEW_COLOR) else "black")
    if pos:
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        right.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
        right.set_ylim(min(ys) - 0.7, 0.7)
    right.set_axis_off()
    # one legend for both panels (proxies on the outer Axes, which a still collects)
    proxies = [("leaf (exact box)", style.BOX_COLOR, "s"), ("new box / new leaf", style.NEW_COLOR, "s"),
               ("sibling chosen", style.HIGHLIGHT_COLOR, "s"), ("new parent / rotated node", style.VERMILLION, "s"),
               ("visited by the search", style.GREY, "o")]
    for text, colour, marker in proxies:
        ax.plot([], [], marker=marker, linestyle="none", color=colour, label=text)


def insertion_stepper(boxes, new, *, margin: float = 0.0, key_steps=None, title=None) -> Stepper:
    """A :class:`~lessons_lib.widgets.Stepper` through one insertion (:func:`insertion_frames`).

    Each step shows the boxes (left; node numbers at the corners, internal nodes
    coloured by depth) and the tree as a node-link diagram (right). The still shows
    all four steps: before, the search, the new parent, the rotation.
    """
    frames = insertion_frames(boxes, new, margin=margin)
    world = viz.covering_box(*[f["shape"]["box"][f["shape"]["live"]] for f in frames], np.asarray(new).reshape(1, 4))
    max_depth = max(max(f["shape"]["depth"].values()) for f in frames)

    def draw(ax, frame, prev):
        _draw_insertion(ax, frame, prev, world=world, max_depth=max_depth)

    labels = [f"step {i}/3: {f['text']}" for i, f in enumerate(frames)]
    return Stepper(frames, draw, labels=labels, figsize=(9.0, 4.2), key_steps=key_steps or [0, 1, 2, 3],
                   still_ncols=2, still_panel_size=(6.6, 3.3),
                   title=title or "One insertion into a DynamicAABBTree: search, new parent, refit, rotation")


# --------------------------------------------------------------------------
# Rotations: the tree under one-by-one insertions
# --------------------------------------------------------------------------
def insertion_quality(boxes, orders: dict, *, margin: float = 0.1) -> list[dict]:
    """Height and cost of trees built by inserting ``boxes`` one by one in each order, with and without rotations.

    ``orders`` maps a name to a permutation of the rows. Each row of the result:
    ``order``, ``rotations`` (True/False), ``height``, ``cost`` and ``vs_build``
    (cost / the cost of ``DynamicAABBTree.from_boxes`` on the same boxes: a fresh,
    top-down build).
    """
    b = np.asarray(boxes, np.float64)
    fresh = DynamicAABBTree.from_boxes(b, margin=margin)
    rows = [{"order": "fresh build (from_boxes)", "rotations": "-", "height": fresh.height, "cost": fresh.cost(),
             "vs_build": 1.0}]
    for name, perm in orders.items():
        for rot in (True, False):
            t = DynamicAABBTree(margin=margin)
            t.rotations = rot
            for i in np.asarray(perm).tolist():
                t.insert(i, b[i])
            rows.append({"order": name, "rotations": rot, "height": t.height, "cost": t.cost(),
                         "vs_build": t.cost() / fresh.cost()})
    return rows


# --------------------------------------------------------------------------
# The margin's trade
# --------------------------------------------------------------------------
def _pair_count(boxes) -> int:
    return len(STRUCTURES["sweep_and_prune"].from_boxes(boxes).pairs())


def margin_sweep(frames: list[np.ndarray], margins, *, displacement_multiplier: float = 0.0) -> list[dict]:
    """For each margin, run the frames through a tree and count, per frame (means over frames 1..):

    ``refiled``: leaves whose fat box had to change (re-inserted, or refitted in place in
    a large batch); ``candidates``: pairs of leaves whose **fat** boxes overlap (what the
    descent proposes); ``exact``: pairs whose exact boxes overlap (the answer); and
    ``ratio`` = candidates / exact. Counts, not times: the same on every run.
    """
    ids = np.arange(len(frames[0]), dtype=np.int64)
    rows = []
    for m in margins:
        t = DynamicAABBTree.from_boxes(frames[0], margin=float(m), displacement_multiplier=displacement_multiplier)
        refiled, cand, exact = [], [], []
        for f in frames[1:]:
            t.update_many(ids, f)
            s = t.stats
            refiled.append(s["inserted"] + s["refitted"])
            cand.append(_pair_count(t.fat_boxes()[1]))
            exact.append(len(t.pairs()))
        rows.append({"margin": float(m), "refiled": float(np.mean(refiled)), "candidates": float(np.mean(cand)),
                     "exact": float(np.mean(exact)), "ratio": float(np.sum(cand) / max(1, np.sum(exact)))})
    return rows


def plot_margin_sweep(rows: list[dict], *, title: str | None = None):
    """Two panels against the margin: leaves re-filed per frame, and candidate pairs per exact pair."""
    import matplotlib.pyplot as plt

    m = [r["margin"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10.0, 3.8))
    a1.plot(m, [r["refiled"] for r in rows], marker="o", color=style.VERMILLION)
    a1.set_xlabel("margin (world units)")
    a1.set_ylabel("leaves re-filed per frame")
    a1.set_title("fewer leaves leave their fat box")
    a1.set_ylim(bottom=0)
    a2.plot(m, [r["ratio"] for r in rows], marker="o", color=style.BLUE)
    a2.axhline(1.0, color=style.GREY, linewidth=1)
    a2.set_xlabel("margin (world units)")
    a2.set_ylabel("candidate pairs per exact pair")
    a2.set_title("more fat boxes overlap")
    for ax in (a1, a2):
        ax.grid(True, alpha=0.3)
    if title:
        fig.suptitle(title)
    return fig


# --------------------------------------------------------------------------
# Times per frame (live, this machine)
# --------------------------------------------------------------------------
def frame_times(structures, frames: list[np.ndarray], *, repeat: int = 3, params=None) -> dict[str, float]:
    """Median milliseconds per frame (``update_many`` of every agent, then ``pairs()``) of each structure.

    Each structure is built from frame 0 (untimed), then runs every later frame;
    the median over frames, then the best of ``repeat`` runs. Every frame's pairs are
    compared with the first structure's, so a wrong answer raises ``AssertionError``.
    """
    params = params or {}
    ids = np.arange(len(frames[0]), dtype=np.int64)
    out, ref = {}, None
    for name in structures:
        best = np.inf
        for _ in range(repeat):
            bp = STRUCTURES[name].from_boxes(frames[0], **params.get(name, {}))
            bp.pairs()
            times, counts = [], []
            for f in frames[1:]:
                t0 = time.perf_counter()
                bp.update_many(ids, f)
                p = bp.pairs()
                times.append(time.perf_counter() - t0)
                counts.append(len(p))
            best = min(best, statistics.median(times))
        if ref is None:
            ref = counts
        assert counts == ref, f"{name} found other pair counts than {structures[0]}"
        out[name] = 1e3 * best
    return out


#: The three scenes of the lesson's comparison: ``agent_frames`` keyword arguments.
SCENES = {"every agent moves": {}, "5 % move": {"moving": 0.05}, "5 % move, 10 giants": {"moving": 0.05, "giants": 10}}


def scene_times(structures, n: int = 3000, frames: int = 15, *, seed: int = 2, repeat: int = 3) -> dict:
    """:func:`frame_times` of ``structures`` on each of :data:`SCENES` (``n`` agents): ``{scene: {structure: ms}}``."""
    return {name: frame_times(structures, agent_frames(n, frames, seed=seed, **kw), repeat=repeat)
            for name, kw in SCENES.items()}


def times_table(times: dict, base: str = "dynamic_aabb_tree") -> str:
    """Aligned text: one row per structure, per scene its ms per frame and its time / ``base``'s."""
    scenes = list(times)
    names = list(times[scenes[0]])
    head = f"{'structure':<20}" + "".join(f"{s:>28}" for s in scenes)
    lines = [head, f"{'':<20}" + "".join(f"{'ms/frame  x tree':>28}" for _ in scenes)]
    for name in names:
        cells = "".join(f"{times[s][name]:>20.3f}  {times[s][name] / times[s][base]:>5.1f}" + " " for s in scenes)
        lines.append(f"{name:<20}" + cells)
    return "\n".join(lines)


# --------------------------------------------------------------------------
# The stored comparison with Box2D's tree
# --------------------------------------------------------------------------
def anchor_table(name: str = ANCHOR_RESULTS):
    """The stored anchor results: ``(results, {(frames_kind, n): {entrant: cpu_ms}})``."""
    r = load_results(name)
    table: dict = {}
    for row in r.rows():
        table.setdefault((row["frames_kind"], int(row["n"])), {})[row["entrant"]] = float(row["cpu_ms"])
    return r, table


#: How the stored entrants are named in a legend.
_NAMES = {"Box2D enlarge + rebuild": "Box2D's tree, enlarge + rebuild", "Box2D MoveProxy": "Box2D's tree, MoveProxy",
          "dynamic_aabb_tree": "our dynamic_aabb_tree", "counting_sort_grid": "our counting_sort_grid"}


def plot_anchor(table: dict, *, entrants=("Box2D enlarge + rebuild", "Box2D MoveProxy", "dynamic_aabb_tree",
                                          "counting_sort_grid")):
    """Two panels (all agents moving; 5 % moving), ms per frame against n, log-log, one line per entrant."""
    import matplotlib
    import matplotlib.pyplot as plt

    colours = {"Box2D enlarge + rebuild": style.BLACK, "Box2D MoveProxy": style.GREY,
               "dynamic_aabb_tree": style.VERMILLION, "counting_sort_grid": style.BLUE}
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.2), sharey=True)
    for ax, kind, what in zip(axes, ("agents", "resting"), ("every agent moves", "5 % of the agents move")):
        ns = sorted(n for k, n in table if k == kind)
        for e in entrants:
            ax.plot(ns, [table[(kind, n)][e] for n in ns], marker="o", color=colours.get(e), label=_NAMES.get(e, e))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(ns, [f"{n:,}" for n in ns])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("agents n")
        ax.set_title(f"{what}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("processor time per frame (ms)")
    viz.frame_budget_lines(axes[0])
    viz.frame_budget_lines(axes[1])
    axes[1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig

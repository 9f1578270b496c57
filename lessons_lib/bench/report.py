"""Reading and drawing the suites' stored results (lesson 12).

The suites (:mod:`lessons_lib.bench.suites`) write ``data/results/bench_*.csv``;
these helpers turn a loaded table (:func:`lessons_lib.data.load_results`)
into the lesson's figures and small tables. Only rows with status ``"ok"`` are
ever used for a time: a ``FAILED`` row's time measures a wrong answer.
"""
from __future__ import annotations

import re

import numpy as np

from ..data import Results

__all__ = [
    "PARALLEL_STRUCTURES",
    "article_claims",
    "article_quadtree_misses",
    "article_quadtree_pairs",
    "best_rows",
    "build_shares",
    "cores",
    "corner_only_misses",
    "default_highlight",
    "format_table",
    "grey_legend_handles",
    "leaders",
    "plot_suite_grid",
    "plot_time_vs_n",
    "speedups",
    "threads_used",
]

#: Peers are drawn dashed with their own markers, so that they read as one family.
PEER_MARKERS = {"cKDTree": "s", "shapely.STRtree": "^", "rtree.index": "v", "pyqtree": "D"}
#: Structures whose kernels run on every core (numba parallel loops): the counting-sort grid's keys,
#: box copy and pair search. Every other structure of ours, and every peer, searches on one thread.
PARALLEL_STRUCTURES = ("counting_sort_grid",)
#: The grey of the lines that are context (opaque: no blending, so figures stay small).
LIGHT_GREY = "#bdbdbd"


def _ok(table: Results) -> Results:
    return table.where(status="ok")


def cores(table: Results) -> int:
    """Cores of the machine a stored table was measured on (from its ``machine`` line; 1 if unknown)."""
    m = re.search(r"(\d+) cores?", table.meta.get("machine", ""))
    return int(m.group(1)) if m else 1


def threads_used(name: str, table: Results) -> int:
    """Threads ``name``'s pair search used in a stored run: all the machine's cores for
    :data:`PARALLEL_STRUCTURES` (numba's default), one for every other structure and every peer."""
    return cores(table) if name in PARALLEL_STRUCTURES else 1


def default_highlight(table: Results, scene: str, column: str = "total_ms") -> list[str]:
    """The fastest of ours and the fastest peer at the largest n where both have an ``ok`` row of ``scene``."""
    t = _ok(table).where(scene=scene)
    out = []
    for kind in ("ours", "peer"):
        k = t.where(kind=kind)
        if len(k):
            n = max(k["n"])
            r = k.where(n=n)
            out.append(str(r["structure"][int(np.argmin(r[column]))]))
    return out


def plot_time_vs_n(ax, table: Results, scene: str, *, column: str = "total_ms", structures=None,
                   highlight=None, label_ends: bool = True, title: str | None = None):
    """Log-log ``column`` (milliseconds) against n for every entrant of ``scene``, with the frame budgets.

    Every entrant is drawn in grey (ours solid, peers dashed) except the few in ``highlight``
    (default :func:`default_highlight`), drawn in the course's colours
    (:data:`lessons_lib.style.PALETTE`) and labelled at their right end (``label_ends``) or
    in the legend. With ``label_ends``, a key under the figure names the frame budgets and
    the grey lines. Returns the highlighted names that were drawn.
    """
    from .. import style
    from ..viz import frame_budget_lines

    t = _ok(table).where(scene=scene)
    names = [s for s in table.unique("structure") if structures is None or s in structures]
    highlight = default_highlight(table, scene, column) if highlight is None else list(highlight)
    series = {}
    for name in names:
        r = t.where(structure=name)
        if len(r):
            order = np.argsort(r["n"])
            series[name] = (r["n"][order], r[column][order], r["kind"][0] == "peer")
    colors = style.entrant_colors(highlight)  # a structure keeps its colour from figure to figure
    drawn = []
    for name, (x, y, peer) in series.items():
        look = {"linestyle": "--" if peer else "-", "marker": PEER_MARKERS.get(name, "o") if peer else "o",
                "markersize": 3}
        if name not in colors:  # no markers on the grey lines: they are context, not data to read
            ax.plot(x, y, color=LIGHT_GREY, linewidth=1.0, zorder=1, linestyle=look["linestyle"], antialiased=False)
            continue
        label = name + (" (library)" if peer else "")
        ax.plot(x, y, color=colors[name], linewidth=2.2, zorder=3, label=None if label_ends else label, **look)
        if label_ends:
            ax.annotate(label, (x[-1], y[-1]), xytext=(5, 0), textcoords="offset points", color=colors[name],
                        va="center", fontsize="small", annotation_clip=False)
        drawn.append(name)
    budgets = frame_budget_lines(ax)
    if label_ends:  # a key for what the end labels do not name, under the figure
        ax.figure.legend(handles=budgets + grey_legend_handles(), loc="outside lower center", ncols=4,
                         fontsize="small")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (boxes)")
    ax.set_ylabel({"total_ms": "build + pairs (ms)", "pairs_ms": "pairs() (ms)", "build_ms": "build (ms)",
                   "frame_ms": "update + pairs per frame (ms)"}.get(column, column))
    ax.set_title(title or scene)
    return drawn


def grey_legend_handles() -> list:
    """Legend entries for the grey lines of :func:`plot_time_vs_n`: the rest of ours, the rest of the libraries."""
    from matplotlib.lines import Line2D

    from .. import style

    return [Line2D([], [], color=LIGHT_GREY, linestyle="-", label="other structures of ours"),
            Line2D([], [], color=LIGHT_GREY, linestyle="--", label="other libraries")]


def best_rows(table: Results, n: int, kind: str) -> dict:
    """Per scene, the ``ok`` row of ``kind`` (``"ours"`` or ``"peer"``) with the smallest ``total_ms`` at ``n``."""
    out = {}
    t = _ok(table).where(n=n, kind=kind)
    for row in t.rows():
        best = out.get(row["scene"])
        if best is None or row["total_ms"] < best["total_ms"]:
            out[row["scene"]] = row
    return out


def speedups(table: Results, n: int, scenes=None) -> list[dict]:
    """Per scene: fastest structure of ours, fastest peer, the ratio of their build + pairs times,
    and the threads each side searched on (``ours_threads``, ``peer_threads``: :func:`threads_used`)."""
    ours, peers = best_rows(table, n, "ours"), best_rows(table, n, "peer")
    rows = []
    for scene in scenes or table.unique("scene"):
        a, b = ours.get(scene), peers.get(scene)
        rows.append({"scene": scene, "ours": a["structure"] if a else "-",
                     "ours_threads": threads_used(a["structure"], table) if a else "-",
                     "ours_ms": a["total_ms"] if a else np.nan,
                     "peer": b["structure"] if b else "-",
                     "peer_threads": threads_used(b["structure"], table) if b else "-",
                     "peer_ms": b["total_ms"] if b else np.nan,
                     "speedup": (b["total_ms"] / a["total_ms"]) if a and b else np.nan})
    return rows


def leaders(table: Results, n: int, *, scenes=None, column: str = "frame_ms", kind: str | None = "ours",
            tree: str = "dynamic_aabb_tree") -> list[dict]:
    """Per scene at ``n``: the fastest entrant by ``column``, the runner-up, and where ``tree`` stands.

    Reads a dynamic-suite table (``bench_dynamic.csv``: ``frame_ms``, ``kind``,
    ``status``) or the simulation's scenes (``sim_scenes.csv``: ``step_ms`` and a
    ``mode`` column, ``"update"`` or ``"rebuild"``). With a ``mode`` column each
    structure counts once, in its faster mode, and that mode is reported. Only
    ``ok`` rows count when the table has a ``status`` column; ``kind`` filters
    when it has a ``kind`` column (``None``: every entrant).

    Parameters
    ----------
    table : Results
    n : int
        Boxes (agents).
    scenes : sequence of str, optional
        Default: every scene of the table, in its order.
    column : str
        Milliseconds to rank by, smallest first (``"frame_ms"``, ``"step_ms"``).
    kind : {"ours", "peer", None}
    tree : str
        The structure whose time and rank are reported beside the leaders.

    Returns
    -------
    list of dict
        One per scene with at least one row: ``scene``, ``entrants`` (how many
        ranked), ``fastest``, ``fastest_mode``, ``fastest_ms``, ``runner_up``,
        ``runner_up_mode``, ``runner_up_ms``, ``runner_up_ratio`` (runner-up ms /
        fastest ms), ``tree_mode``, ``tree_ms``, ``tree_rank`` (1 = fastest) and
        ``tree_ratio`` (tree ms / fastest ms). A missing entrant is ``"-"`` with
        nan times; the mode is ``"-"`` without a ``mode`` column.

    Raises
    ------
    KeyError
        If the table has no ``column``, ``scene``, ``n`` or ``structure`` column.
    """
    for need in (column, "scene", "n", "structure"):
        table[need]  # KeyError naming the missing column
    t = table.where(n=n)
    if "status" in t.columns:
        t = t.where(status="ok")
    if kind is not None and "kind" in t.columns:
        t = t.where(kind=kind)
    has_mode = "mode" in t.columns
    rows = []
    for scene in (table.unique("scene") if scenes is None else scenes):
        s = t.where(scene=scene)
        best = {}  # structure -> (ms, mode), its faster mode
        for name, ms, mode in zip(s["structure"].tolist(), s[column].astype(np.float64).tolist(),
                                  s["mode"].tolist() if has_mode else ["-"] * len(s)):
            if np.isfinite(ms) and (name not in best or ms < best[name][0]):
                best[name] = (ms, str(mode))
        if not best:
            continue
        order = sorted(best, key=lambda k: best[k][0])  # stable: the table's order breaks ties
        first = order[0]
        second = order[1] if len(order) > 1 else "-"
        nan = float("nan")
        ms1 = best[first][0]
        ms2, mode2 = best.get(second, (nan, "-"))
        mst, modet = best.get(tree, (nan, "-"))
        rows.append({"scene": scene, "entrants": len(order), "fastest": first, "fastest_mode": best[first][1],
                     "fastest_ms": ms1, "runner_up": second, "runner_up_mode": mode2, "runner_up_ms": ms2,
                     "runner_up_ratio": ms2 / ms1, "tree_mode": modet, "tree_ms": mst,
                     "tree_rank": order.index(tree) + 1 if tree in best else "-", "tree_ratio": mst / ms1})
    return rows


def build_shares(table: Results, n: int, scene: str) -> dict:
    """``{structure: build_ms / total_ms}`` of the ``ok`` rows of ``scene`` at ``n`` (ours only)."""
    t = _ok(table).where(n=n, scene=scene, kind="ours")
    return {r["structure"]: r["build_ms"] / r["total_ms"] for r in t.rows() if r["total_ms"] > 0}


def _total(t: Results, scene: str, n: int, structure: str):
    r = t.where(scene=scene, n=n, structure=structure)
    return float(r["total_ms"][0]) if len(r) else None


#: Our counterparts of the article's structures (naive, grid hashing, sweep and prune, quadtree,
#: R-tree, R*-tree, bulk-loaded R-trees, k-d tree).
ARTICLE_COUNTERPARTS = ("brute_force", "uniform_grid", "sweep_and_prune", "quadtree", "rtree", "rstar_tree",
                        "bulk_rtree", "kdtree")


def _verdict(good: int, total: int) -> str:
    if total == 0:
        return "not measured"
    return "holds" if good == total else "does not hold" if good == 0 else "partly"


def article_claims(table: Results, n: int = 2000) -> list[dict]:
    """The article's conclusions ([magley2026]) read against our article suite.

    Returns rows ``claim``, ``measured`` (our numbers) and ``verdict``:
    ``"holds"``, ``"partly"``, ``"does not hold"`` or ``"not measured"`` (the
    structures involved are missing from the table).
    """
    t = _ok(table).where(kind="ours")
    out = []
    scenes = [s for s in ("random", "large_boxes", "xline", "yline", "true_uniform") if s in t.unique("scene")]

    # 1. Below 500 boxes the choice hardly matters: every structure within a quarter of a 60 fps frame.
    small = t.where(n=[10, 100, 500])
    worst = {name: float(small.where(structure=name)["total_ms"].max()) for name in small.unique("structure")}
    slow = {k: v for k, v in worst.items() if v > 16.7 / 4}
    out.append({"claim": "below n = 500 the choice of structure hardly matters",
                "measured": f"{len(worst) - len(slow)} of {len(worst)} structures stay under 4 ms (a quarter of the "
                            f"60 fps budget) on every scene at n <= 500"
                            + ("; slower: " + ", ".join(f"{k} {v:.0f} ms" for k, v in sorted(slow.items()))
                               if slow else ""),
                "verdict": "not measured" if not worst else "holds" if not slow else
                           "partly" if len(slow) <= len(worst) // 4 else "does not hold"})

    # 2. Sweep and prune is the fastest, except on xline.
    ranks = []
    for scene in scenes:
        r = t.where(scene=scene, n=n)
        if "sweep_and_prune" in r.unique("structure"):
            order = list(r["structure"][np.argsort(r["total_ms"])])
            ranks.append((scene, order.index("sweep_and_prune") + 1, len(order), order[0]))
    right = sum((k == 1) != (s == "xline") for s, k, _, _ in ranks)  # first everywhere but xline
    out.append({"claim": "sweep and prune is the fastest, except on xline",
                "measured": "; ".join(f"{s}: #{k} of {m}" + ("" if k == 1 else f" ({w} first)")
                                      for s, k, m, w in ranks) or "not measured",
                "verdict": _verdict(right, len(ranks))})

    # 3. The quadtree is much slower on yline than on xline.
    qx, qy = _total(t, "xline", n, "quadtree"), _total(t, "yline", n, "quadtree")
    out.append({"claim": "the quadtree is much slower on yline than on xline",
                "measured": "not measured" if qx is None or qy is None else
                f"quadtree: xline {qx:.1f} ms, yline {qy:.1f} ms ({qy / qx:.1f}x)",
                "verdict": "not measured" if qx is None or qy is None else
                           "holds" if qy > 1.5 * qx else "does not hold"})

    # 4. R-trees built one insert at a time disappoint; bulk loading helps.
    good, texts = 0, []
    for scene in scenes:
        dyn = [_total(t, scene, n, s) for s in ("rtree", "rstar_tree")]
        bulk = _total(t, scene, n, "bulk_rtree")
        if None in dyn or bulk is None:
            continue
        good += bulk < min(dyn)
        texts.append(f"{scene}: R-tree {dyn[0]:.1f}, R* {dyn[1]:.1f}, bulk {bulk:.1f} ms")
    out.append({"claim": "R-trees built one insert at a time disappoint; bulk loading helps",
                "measured": "; ".join(texts) or "not measured", "verdict": _verdict(good, len(texts))})

    # 5. The k-d tree is slow.
    kd = []
    for scene in scenes:
        r = t.where(scene=scene, n=n)
        if "kdtree" in r.unique("structure"):
            order = list(r["structure"][np.argsort(r["total_ms"])])
            kd.append((scene, order.index("kdtree") + 1, len(order)))
    out.append({"claim": "the k-d tree is slow (sorting to find medians)",
                "measured": "; ".join(f"{s}: #{k} of {m}" for s, k, m in kd) or "not measured",
                "verdict": _verdict(sum(k > m / 2 for _, k, m in kd), len(kd))})

    # 6. Build share: R-trees highest, k-d trees next (among the article's structures).
    shares = {}
    for scene in scenes:
        for name, share in build_shares(table, n, scene).items():
            if name in ARTICLE_COUNTERPARTS and name != "brute_force":
                shares.setdefault(name, []).append(share)
    mean = {k: float(np.mean(v)) for k, v in shares.items()}
    top = sorted(mean, key=mean.get, reverse=True)
    rtrees = {"rtree", "rstar_tree", "bulk_rtree"}
    k = sum(x in rtrees for x in top)  # R-tree variants measured
    if not top:
        verdict = "not measured"
    elif set(top[:k]) == rtrees & set(top) and top[k:k + 1] == ["kdtree"]:
        verdict = "holds"
    elif top[0] in rtrees or "kdtree" in top[:3]:
        verdict = "partly"
    else:
        verdict = "does not hold"
    out.append({"claim": "R-trees spend the largest share of their time building, k-d trees next",
                "measured": "mean build share over the five scenes: "
                            + ", ".join(f"{k} {mean[k]:.0%}" for k in top) if top else "not measured",
                "verdict": verdict})
    return out


def corner_only_misses(scenes=("random", "large_boxes", "xline", "yline", "true_uniform"), n: int = 2000,
                       cell_size: float = 50.0, seed: int = 0) -> list[dict]:
    """Pairs the article's corner-only grid misses, against brute force, in the article's 800 x 600 world.

    Each box goes only into the cells of its four corners (``cell_size`` units,
    50 as in one version of the article's code); pairs that meet only in a cell
    where neither box has a corner are lost.
    """
    from ..structures.brute_force import compiled_brute_force_pairs
    from ..geometry import ARTICLE_WORLD
    from ..scenes import make_scene
    from ..labs.grids import corner_only_pairs

    rows = []
    for scene in scenes:
        boxes = make_scene(scene, n, seed=seed)
        true = compiled_brute_force_pairs(boxes)
        found, _ = corner_only_pairs(boxes, cell_size, world=ARTICLE_WORLD)
        longest = float(np.max(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
        rows.append({"scene": scene, "n": n, "true_pairs": len(true), "found": len(found),
                     "missed": len(true) - len(found),
                     "missed_share": (len(true) - len(found)) / max(1, len(true)), "longest_side": longest})
    return rows


def article_quadtree_pairs(boxes, capacity: int = 4, world=(0.0, 0.0, 800.0, 600.0),
                           min_side: float = 50.0) -> np.ndarray:
    """All pairs found by the article's quadtree routing ([magley-code] ``source/impl/quad_tree.d``,
    ``QuadNode.insert`` and ``child_index``), re-implemented in plain Python.

    A leaf keeps up to ``capacity`` ids and splits into 2 x 2 children when it holds more
    and both its sides exceed ``min_side``; an inner node sends a box to the child of each of
    its four corners (x greater than the midline: right; y at or past the midline: the
    second row). Pairs are every intersecting pair inside some leaf, each once.

    Returns
    -------
    numpy.ndarray, shape (k, 2), int64
        Canonical pairs (i < j, rows sorted), as :meth:`BroadPhase.pairs`.

    Notes
    -----
    With one 2 x 2 split per level, the x values of a box's corners are its two x
    edges, so between them they pick every column of children the box overlaps (and the
    y values every row): the four corners reach every child a box overlaps. Unlike the
    corner-only *grid* (:func:`corner_only_misses`), which has many columns per level,
    this routing misses no pair.
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    areas, children, items = [tuple(map(float, world))], [-1], [[]]

    def insert(node: int, i: int) -> None:
        while children[node] >= 0:  # an inner node: route by the four corners
            x0, y0, x1, y1 = areas[node]
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            b = boxes[i]
            kids = {int(x > mx) + 2 * int(y >= my) for x in (b[0], b[2]) for y in (b[1], b[3])}
            first = children[node]
            for k in sorted(kids)[1:]:
                insert(first + k, i)
            node = first + min(kids)
        if i in items[node]:
            return
        items[node].append(i)
        x0, y0, x1, y1 = areas[node]
        if len(items[node]) > capacity and x1 - x0 > min_side and y1 - y0 > min_side:
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            children[node] = len(areas)
            for quad in ((x0, y0, mx, my), (mx, y0, x1, my), (x0, my, mx, y1), (mx, my, x1, y1)):
                areas.append(quad)
                children.append(-1)
                items.append([])
            held, items[node] = items[node], []
            for j in held:
                insert(node, j)

    for i in range(len(boxes)):
        insert(0, i)
    found = [np.empty((0, 2), dtype=np.int64)]
    for node, ids in enumerate(items):
        if children[node] >= 0 or len(ids) < 2:
            continue
        ids = np.array(ids, dtype=np.int64)
        b = boxes[ids]
        touch = ((b[:, None, 0] <= b[None, :, 2]) & (b[None, :, 0] <= b[:, None, 2])
                 & (b[:, None, 1] <= b[None, :, 3]) & (b[None, :, 1] <= b[:, None, 3]))
        a, c = np.nonzero(np.triu(touch, 1))
        found.append(np.column_stack([np.minimum(ids[a], ids[c]), np.maximum(ids[a], ids[c])]))
    keys = np.unique(np.concatenate(found) @ np.array([len(boxes), 1], dtype=np.int64))  # one int per pair
    return np.column_stack([keys // max(1, len(boxes)), keys % max(1, len(boxes))]).astype(np.int64)


def article_quadtree_misses(scenes=("random", "large_boxes", "xline", "yline", "true_uniform"), n: int = 2000,
                            capacities=(1, 4, 16), seed: int = 0) -> list[dict]:
    """Pairs the article's quadtree routing (:func:`article_quadtree_pairs`) misses or adds, against brute
    force, on the article's scenes in its 800 x 600 world, for a few leaf capacities."""
    from ..structures.brute_force import compiled_brute_force_pairs
    from ..geometry import ARTICLE_WORLD
    from ..scenes import make_scene

    rows = []
    for scene in scenes:
        boxes = make_scene(scene, n, seed=seed)
        key = np.array([n, 1], dtype=np.int64)  # a pair (i, j) as the one integer i * n + j
        true = compiled_brute_force_pairs(boxes) @ key
        for cap in capacities:
            got = article_quadtree_pairs(boxes, cap, ARTICLE_WORLD) @ key
            both = len(np.intersect1d(true, got))
            rows.append({"scene": scene, "n": n, "capacity": cap, "true_pairs": len(true), "found": both,
                         "missed": len(true) - both, "extra": len(got) - both})
    return rows


def plot_suite_grid(table: Results, scenes, *, column: str = "total_ms", ncols: int = 3, structures=None,
                    highlight=None, title: str = "", panel_size=(3.3, 2.6)):
    """Small multiples: one log-log panel per scene (:func:`plot_time_vs_n`), the same few entrants
    highlighted in every panel (default: the fastest of ours and the fastest peer over all the
    scenes' largest n), a shared legend below; returns the figure."""
    import matplotlib.pyplot as plt

    scenes = list(scenes)
    if highlight is None:
        highlight = list(dict.fromkeys(h for sc in scenes for h in default_highlight(table, sc, column)))[:4]
    nrows = -(-len(scenes) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows + 0.9),
                             squeeze=False)
    for ax, scene in zip(axes.flat, scenes):
        plot_time_vs_n(ax, table, scene, column=column, structures=structures, highlight=highlight,
                       label_ends=False)
    for ax in list(axes.flat)[len(scenes):]:
        ax.set_visible(False)
    for ax in axes[:, 1:].flat:
        ax.set_ylabel("")
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    for h in grey_legend_handles():
        handles[h.get_label()] = h
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=4, fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def format_table(rows, columns, floats: str = "{:.2f}") -> str:
    """Rows (dicts) as an aligned text table with the given columns (floats formatted with ``floats``)."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "-" if not np.isfinite(v) else floats.format(v)
        if isinstance(v, (int, np.integer)):
            return f"{v:,}"
        return str(v)

    body = [[cell(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(b[k]) for b in body)) if body else len(c) for k, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.rjust(w) if v[:1].isdigit() or v[:1] in "-." else v.ljust(w) for v, w in zip(b, widths))
              for b in body]
    return "\n".join(lines)

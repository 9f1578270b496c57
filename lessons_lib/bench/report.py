"""Reading and drawing the suites' stored results (lesson 11).

The suites (:mod:`lessons_lib.bench.suites`) write ``data/results/bench_*.csv``;
these helpers turn a loaded table (:func:`lessons_lib.data.load_results`)
into the lesson's figures and small tables. Only rows with status ``"ok"`` are
ever used for a time: a ``FAILED`` row's time measures a wrong answer.
"""
from __future__ import annotations

import numpy as np

from ..data import Results

__all__ = [
    "article_claims",
    "best_rows",
    "build_shares",
    "corner_only_misses",
    "format_table",
    "plot_suite_grid",
    "plot_time_vs_n",
    "speedups",
    "structure_colors",
]

PEER_STYLE = {"linestyle": "--", "marker": "s", "markersize": 3}
OURS_STYLE = {"linestyle": "-", "marker": "o", "markersize": 3}


#: Peers are drawn in greys with their own markers, dashed, so that they read as one family.
PEER_LOOK = {"cKDTree": ("0.0", "s"), "shapely.STRtree": ("0.35", "^"), "rtree.index": ("0.55", "v"),
             "pyqtree": ("0.75", "D")}


def structure_colors(names) -> dict:
    """A stable colour per structure name: tab10 then the light half of tab20 for ours, greys for the peers."""
    import matplotlib

    cmap = [matplotlib.colormaps["tab10"](k) for k in range(10) if k != 7] + \
        [matplotlib.colormaps["tab20"](2 * k + 1) for k in range(10) if k != 7]  # greys are the peers'
    ours = [n for n in names if n not in PEER_LOOK]
    out = {name: cmap[k % len(cmap)] for k, name in enumerate(ours)}
    out.update({name: PEER_LOOK[name][0] for name in names if name in PEER_LOOK})
    return out


def _ok(table: Results) -> Results:
    return table.where(status="ok")


def plot_time_vs_n(ax, table: Results, scene: str, *, column: str = "total_ms", structures=None,
                   colors=None, legend: bool = True, title: str | None = None):
    """Log-log ``column`` (milliseconds) against n for every entrant of ``scene`` with the frame budgets.

    Our structures are solid lines, peers dashed. Returns the plotted names.
    """
    from ..viz import frame_budget_lines

    t = _ok(table).where(scene=scene)
    names = [s for s in table.unique("structure") if structures is None or s in structures]
    colors = colors or structure_colors(names)
    drawn = []
    for name in names:
        r = t.where(structure=name)
        if not len(r):
            continue
        order = np.argsort(r["n"])
        peer = r["kind"][0] == "peer"
        style = dict(PEER_STYLE if peer else OURS_STYLE)
        if peer and name in PEER_LOOK:
            style["marker"] = PEER_LOOK[name][1]
        ax.plot(r["n"][order], r[column][order], label=name + (" (peer)" if peer else ""),
                color=colors.get(name, "k" if peer else None), **style)
        drawn.append(name)
    frame_budget_lines(ax)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (boxes)")
    ax.set_ylabel({"total_ms": "build + pairs (ms)", "pairs_ms": "pairs() (ms)", "build_ms": "build (ms)",
                   "frame_ms": "update + pairs per frame (ms)"}.get(column, column))
    ax.set_title(title or scene)
    if legend:
        ax.legend(fontsize=7, ncol=2)
    return drawn


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
    """Per scene: fastest structure of ours, fastest peer, and the ratio of their build + pairs times."""
    ours, peers = best_rows(table, n, "ours"), best_rows(table, n, "peer")
    rows = []
    for scene in scenes or table.unique("scene"):
        a, b = ours.get(scene), peers.get(scene)
        rows.append({"scene": scene, "ours": a["structure"] if a else "-",
                     "ours_ms": a["total_ms"] if a else np.nan,
                     "peer": b["structure"] if b else "-", "peer_ms": b["total_ms"] if b else np.nan,
                     "speedup": (b["total_ms"] / a["total_ms"]) if a and b else np.nan})
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


def plot_suite_grid(table: Results, scenes, *, column: str = "total_ms", ncols: int = 3, structures=None,
                    title: str = "", panel_size=(4.6, 3.6)):
    """One log-log panel per scene (:func:`plot_time_vs_n`), a shared legend on the right; returns the figure."""
    import matplotlib.pyplot as plt

    scenes = list(scenes)
    nrows = -(-len(scenes) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols + 2.6, panel_size[1] * nrows),
                             squeeze=False)
    names = [s for s in table.unique("structure") if structures is None or s in structures]
    colors = structure_colors(names)
    for ax, scene in zip(axes.flat, scenes):
        plot_time_vs_n(ax, table, scene, column=column, structures=names, colors=colors, legend=False)
    for ax in list(axes.flat)[len(scenes):]:
        ax.set_visible(False)
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="center right", fontsize=8, title="structure")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1 - 2.5 / fig.get_figwidth(), 1))
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

"""Lesson 14: choosing a structure from measured results, not from folklore.

The benchmark (``make bench``, lesson 12) stores its figures in
``data/results/bench_scaled.csv``; the simulation (lesson 13) stores its own.
This module turns those tables into the lesson's decision table, so the table is
recomputed from the data every time rather than typed by hand: if a structure
gets faster, the advice changes with it.

Columns read from the benchmark table (see :mod:`lessons_lib.data`):
``scene``, ``n``, ``structure``, ``kind`` ("ours" or "peer"), ``build_ms``,
``pairs_ms``, ``total_ms``, ``bytes_per_box``, ``status`` ("ok", "FAILED",
"skipped"). Only rows with status "ok" count. The simulation tables
(``sim_scaling.csv``, ``sim_rebuild_vs_update.csv``) have ``structure``, ``n``,
``mode`` ("update" or "rebuild") and per-frame milliseconds (``step_ms``,
``update_ms``, ``pairs_ms``); ``sim_scenes.csv`` adds ``scene`` (``moving``,
``resting``, ``giants``). The dynamic suite (``bench_dynamic.csv``) has
``frame_ms`` per scene (``random``, ``clustered``, ``resting``, ``mixed_sizes``).

Threads: a stored time is only comparable with another when both searched on the same
number of threads. The counting-sort grid's pair search runs on every core of the
machine that stored the table; every other structure of ours, and every library, on one
(:func:`lessons_lib.bench.report.threads_used`). The decision table says so beside each
time, and also names the fastest of ours that searched on one thread.
"""
from __future__ import annotations

import numpy as np

from ..bench.report import leaders, threads_used
from ..data import Results

__all__ = ["fastest", "ranking", "decision_table", "speedup_grid", "moving_verdict", "moving_leaders", "readings",
           "markdown_table", "SIMILAR_SCENES", "THIN_SCENES", "TREES"]

#: Scenes of boxes of similar size, spread or clustered.
SIMILAR_SCENES = ("random", "clustered", "true_uniform")
#: Scenes of long thin boxes stacked along a line.
THIN_SCENES = ("xline", "yline")
#: The trees among the registered structures.
TREES = ("rtree", "rstar_tree", "bulk_rtree", "kdtree", "naive_quadtree", "quadtree", "loose_quadtree",
         "dynamic_aabb_tree")


def _ok(table: Results, **where) -> Results:
    sub = table.where(**where)
    return sub.where(status="ok") if "status" in sub.columns else sub


def _scenes(table: Results, n: int) -> list[str]:
    """Scenes with at least one successful row of ours at ``n`` (in the table's order)."""
    return _ok(table, n=n, kind="ours").unique("scene")


def ranking(table: Results, *, scene: str, n: int, kind: str | None = "ours",
            column: str = "total_ms") -> list[tuple[str, float]]:
    """``(structure, value)`` pairs for one scene and n, smallest ``column`` first.

    Parameters
    ----------
    table : Results
        A benchmark table (see the module docstring for its columns).
    scene : str
        Scene name, e.g. ``"random"``.
    n : int
        Number of boxes.
    kind : {"ours", "peer", None}
        Keep only our structures, only the peers, or both (``None``).
    column : str
        What to rank by (milliseconds or bytes), e.g. ``"total_ms"``, ``"pairs_ms"``.

    Raises
    ------
    KeyError
        If the table has no such column.
    ValueError
        If no successful row matches ``scene`` and ``n``.
    """
    where = {"scene": scene, "n": n}
    if kind is not None:
        where["kind"] = kind
    sub = _ok(table, **where)
    if len(sub) == 0:
        have = sorted({(str(s), int(m)) for s, m in zip(table["scene"].tolist(), table["n"].tolist())})
        raise ValueError(f"no successful {kind or 'any'} row for scene={scene!r}, n={n}; "
                         f"the table has (scene, n) in {have[:12]}{' ...' if len(have) > 12 else ''}")
    values = sub[column].astype(np.float64)
    order = np.argsort(values, kind="stable")
    return [(str(sub["structure"][i]), float(values[i])) for i in order.tolist()]


def fastest(table: Results, *, scene: str, n: int, kind: str | None = "ours",
            column: str = "total_ms") -> tuple[str, float]:
    """The structure with the smallest ``column`` for one scene and n, and that value.

    Same parameters and errors as :func:`ranking`.
    """
    return ranking(table, scene=scene, n=n, kind=kind, column=column)[0]


def decision_table(table: Results, *, n: int, scenes=None) -> list[dict]:
    """One row per scene at ``n`` boxes: the fastest of ours, the runner-up, the fastest peer.

    Returns
    -------
    list of dict
        Keys ``scene``, ``fastest``, ``ms``, ``threads`` (threads its pair search
        used), ``runner_up``, ``runner_up_ms``, ``peer``, ``peer_ms``,
        ``peer_threads``, ``speedup`` (peer time / our time; nan without a peer),
        ``single``, ``single_ms`` and ``single_speedup`` (the fastest of ours that
        searched on one thread, its time, and the peer's time over it),
        ``leanest`` (the smallest ``bytes_per_box`` among our structures within
        2x of the fastest time) and ``leanest_bytes``.
    """
    scenes = scenes or _scenes(table, n)
    rows = []
    for scene in scenes:
        ours = ranking(table, scene=scene, n=n)
        try:
            peer, peer_ms = fastest(table, scene=scene, n=n, kind="peer")
        except ValueError:
            peer, peer_ms = "-", float("nan")
        best, best_ms = ours[0]
        close = {s for s, ms in ours if ms <= 2 * best_ms}
        mem = [(s, b) for s, b in ranking(table, scene=scene, n=n, column="bytes_per_box")
               if s in close and np.isfinite(b)]
        lean, lean_b = mem[0] if mem else (best, float("nan"))
        second, second_ms = ours[1] if len(ours) > 1 else ("-", float("nan"))
        single, single_ms = next(((s, ms) for s, ms in ours if threads_used(s, table) == 1), ("-", float("nan")))
        rows.append({"scene": scene, "fastest": best, "ms": best_ms, "threads": threads_used(best, table),
                     "runner_up": second, "runner_up_ms": second_ms, "peer": peer, "peer_ms": peer_ms,
                     "peer_threads": threads_used(peer, table) if peer != "-" else 0,
                     "speedup": peer_ms / best_ms, "single": single, "single_ms": single_ms,
                     "single_speedup": peer_ms / single_ms, "leanest": lean, "leanest_bytes": lean_b})
    return rows


def speedup_grid(table: Results, *, n: int, scenes=None, structures=None,
                 column: str = "total_ms") -> tuple[list[str], list[str], np.ndarray]:
    """``(structures, scenes, grid)``: ``grid[i, j]`` is structure i's time / the best time on scene j.

    1.0 marks the winner of a scene; nan marks a missing or failed case. Used for
    the lesson's heat map.
    """
    scenes = scenes or _scenes(table, n)
    ok = _ok(table, n=n, kind="ours")
    structures = structures or ok.unique("structure")
    grid = np.full((len(structures), len(scenes)), np.nan)
    for j, scene in enumerate(scenes):
        ranked = dict(ranking(table, scene=scene, n=n, column=column))
        best = min(ranked.values())
        for i, s in enumerate(structures):
            if s in ranked:
                grid[i, j] = ranked[s] / best
    return list(structures), list(scenes), grid


def moving_verdict(scaling: Results, rebuild_vs_update: Results | None = None) -> list[dict]:
    """One row per agent count of the simulation: who is fastest per frame, and should it rebuild?

    Parameters
    ----------
    scaling : Results
        ``sim_scaling.csv``: ``structure``, ``n``, ``step_ms`` (median simulation step per frame).
    rebuild_vs_update : Results, optional
        ``sim_rebuild_vs_update.csv``: ``structure``, ``n``, ``mode``, ``update_ms``, ``pairs_ms``.

    Returns
    -------
    list of dict
        Keys ``n``, ``fastest``, ``step_ms``, ``fps`` (1000 / step_ms), ``threads``
        (threads the fastest one's pair search used), ``runner_up``, ``runner_up_ms``,
        ``runner_up_ratio`` (runner-up time / fastest time) and ``rebuild_better``
        (True, False, or None when ``rebuild_vs_update`` has no row for the fastest
        structure at that n).
    """
    rows = []
    for n in sorted(scaling.unique("n")):
        t = scaling.where(n=n)
        order = np.argsort(t["step_ms"], kind="stable")
        best, second = order[0], (order[1] if len(order) > 1 else None)
        name = str(t["structure"][best])
        verdict = None
        if rebuild_vs_update is not None:
            r = rebuild_vs_update.where(n=n, structure=name)
            cost = {}
            for mode in ("update", "rebuild"):
                m = r.where(mode=mode)
                if len(m):
                    cost[mode] = float(m["update_ms"][0] + m["pairs_ms"][0])
            if len(cost) == 2:
                verdict = cost["rebuild"] < cost["update"]
        ms = float(t["step_ms"][best])
        second_ms = float("nan") if second is None else float(t["step_ms"][second])
        rows.append({"n": int(n), "fastest": name, "step_ms": ms, "fps": 1000.0 / ms,
                     "threads": threads_used(name, scaling),
                     "runner_up": "-" if second is None else str(t["structure"][second]),
                     "runner_up_ms": second_ms, "runner_up_ratio": second_ms / ms,
                     "rebuild_better": verdict})
    return rows


def moving_leaders(table: Results, *, n: int, scenes=None, tree: str = "dynamic_aabb_tree") -> list[dict]:
    """Moving scenes, who wins where: per scene at ``n``, the fastest of ours, the runner-up and ``tree``.

    Reads either the dynamic suite (``bench_dynamic.csv``: ranked by ``frame_ms``,
    update_many + pairs per frame, our structures only, ``ok`` rows only) or the
    simulation's scenes (``sim_scenes.csv``: ranked by ``step_ms``, the whole
    simulation step; each structure counts once, in the faster of its two modes,
    ``"update"`` or ``"rebuild"``, which is reported). The ranking is
    :func:`lessons_lib.bench.report.leaders`.

    Parameters
    ----------
    table : Results
        ``bench_dynamic.csv`` or ``sim_scenes.csv`` (see the module docstring).
    n : int
        Agents.
    scenes : sequence of str, optional
        Default: every scene of the table, in its order.
    tree : str
        The structure reported beside the two leaders (its mode, ms, rank and
        time / the fastest time).

    Returns
    -------
    list of dict
        One per scene: ``scene``, ``moving`` (fraction of agents moving, where
        known, else nan), ``entrants``, ``fastest``, ``fastest_mode``,
        ``fastest_ms``, ``runner_up``, ``runner_up_mode``, ``runner_up_ms``,
        ``runner_up_ratio``, ``tree_mode``, ``tree_ms``, ``tree_rank``,
        ``tree_ratio`` (modes are ``"-"`` for the dynamic suite, which always
        updates).

    Raises
    ------
    KeyError
        If the table has neither ``frame_ms`` nor ``step_ms``.
    ValueError
        If a requested scene (or, without ``scenes``, every scene) has no
        usable row at ``n``.
    """
    column = next((c for c in ("frame_ms", "step_ms") if c in table.columns), None)
    if column is None:
        raise KeyError(f"no frame_ms or step_ms column; columns are {list(table.columns)}")
    rows = leaders(table, n, scenes=scenes, column=column, kind="ours", tree=tree)
    wanted = list(table.unique("scene")) if scenes is None else list(scenes)
    missing = [s for s in wanted if s not in {r["scene"] for r in rows}]
    if not rows or (scenes is not None and missing):
        have = sorted({(str(s), int(m)) for s, m in zip(table["scene"].tolist(), table["n"].tolist())})
        raise ValueError(f"no usable row at n={n} for scene(s) {missing}; the table has (scene, n) in "
                         f"{have[:12]}{' ...' if len(have) > 12 else ''}")
    if "moving" in table.columns:
        share = {str(s): float(m) for s, m in zip(table["scene"].tolist(), table["moving"].tolist())}
    else:
        from ..bench.suites import MOVING_SCENES
        share = {s: float(f) for s, (_, f) in MOVING_SCENES.items()}
    for r in rows:
        r["moving"] = share.get(r["scene"], float("nan"))
    return rows


def readings(table: Results, *, n: int) -> dict:
    """The few numbers the lesson's reading of the decision table rests on, at ``n`` boxes.

    Returns
    -------
    dict
        ``within_2x`` (scene -> our structures within 2x of the fastest time, for
        :data:`SIMILAR_SCENES`), ``best_tree_ratio`` (the smallest time / fastest
        time of any of :data:`TREES` on those scenes), ``not_run`` (scene -> our
        registered structures without an ``ok`` row, for :data:`THIN_SCENES`),
        ``thin_pairs`` (the most pairs on those scenes), ``point_grid_mixed``
        (the point grid's time / fastest on ``mixed_sizes``, nan without it),
        and ``speedups`` (scene -> peer / ours as in :func:`decision_table`, where
        a peer finished), with ``threads`` and ``peer_threads`` (scene -> threads).
        Scenes missing from ``table`` are left out.
    """
    structures, scenes, grid = speedup_grid(table, n=n)
    col = {s: j for j, s in enumerate(scenes)}
    similar = [s for s in SIMILAR_SCENES if s in col]
    thin = [s for s in THIN_SCENES if s in col]
    ratios = [grid[i, col[s]] for i, name in enumerate(structures) if name in TREES for s in similar]
    ratios = [r for r in ratios if np.isfinite(r)]
    mixed = float("nan")
    if "mixed_sizes" in col and "point_grid" in structures:
        mixed = float(grid[structures.index("point_grid"), col["mixed_sizes"]])
    rows = {r["scene"]: r for r in decision_table(table, n=n)}
    found = [r for r in rows.values() if np.isfinite(r["speedup"])]
    return {
        "within_2x": {s: sorted(name for i, name in enumerate(structures) if grid[i, col[s]] <= 2.0) for s in similar},
        "best_tree_ratio": min(ratios) if ratios else float("nan"),
        "not_run": {s: [name for i, name in enumerate(structures) if np.isnan(grid[i, col[s]])] for s in thin},
        "thin_pairs": int(max(_ok(table, scene=s, n=n)["pairs"].max() for s in thin)) if thin else 0,
        "point_grid_mixed": mixed,
        "speedups": {r["scene"]: float(r["speedup"]) for r in found},
        "threads": {r["scene"]: int(r["threads"]) for r in found},
        "peer_threads": {r["scene"]: int(r["peer_threads"]) for r in found},
    }


def markdown_table(header, rows, *, digits: int = 1) -> str:
    """A Markdown table (for ``IPython.display.Markdown``): floats to ``digits`` decimals, nan as a dash.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequence
        One value per column; ints get thousands separators, str are written as they are.
    """
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "-" if not np.isfinite(v) else f"{v:,.{digits}f}"
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return f"{v:,}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)

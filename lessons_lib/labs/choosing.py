"""Lesson 13: choosing a structure from measured results, not from folklore.

The benchmark (``make bench``, lesson 11) stores its figures in
``data/results/bench_scaled.csv``; the simulation (lesson 12) stores its own.
This module turns those tables into the lesson's decision table, so the table is
recomputed from the data every time rather than typed by hand: if a structure
gets faster, the advice changes with it.

Columns read from the benchmark table (see :mod:`lessons_lib.data`):
``scene``, ``n``, ``structure``, ``kind`` ("ours" or "peer"), ``build_ms``,
``pairs_ms``, ``total_ms``, ``bytes_per_box``, ``status`` ("ok", "FAILED",
"skipped"). Only rows with status "ok" count. The simulation tables
(``sim_scaling.csv``, ``sim_rebuild_vs_update.csv``) have ``structure``, ``n``,
``mode`` ("update" or "rebuild") and per-frame milliseconds (``step_ms``,
``update_ms``, ``pairs_ms``).
"""
from __future__ import annotations

import numpy as np

from ..data import Results

__all__ = ["fastest", "ranking", "decision_table", "speedup_grid", "moving_verdict"]


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
        Keys ``scene``, ``fastest``, ``ms``, ``runner_up``, ``runner_up_ms``,
        ``peer``, ``peer_ms``, ``speedup`` (peer time / our time; nan without a
        peer), ``leanest`` (the smallest ``bytes_per_box`` among our structures
        within 2x of the fastest time) and ``leanest_bytes``.
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
        rows.append({"scene": scene, "fastest": best, "ms": best_ms, "runner_up": second,
                     "runner_up_ms": second_ms, "peer": peer, "peer_ms": peer_ms,
                     "speedup": peer_ms / best_ms, "leanest": lean, "leanest_bytes": lean_b})
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
        Keys ``n``, ``fastest``, ``step_ms``, ``fps`` (1000 / step_ms), ``runner_up``,
        ``runner_up_ms`` and ``rebuild_better`` (True, False, or None when
        ``rebuild_vs_update`` has no row for the fastest structure at that n).
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
        rows.append({"n": int(n), "fastest": name, "step_ms": ms, "fps": 1000.0 / ms,
                     "runner_up": "-" if second is None else str(t["structure"][second]),
                     "runner_up_ms": float("nan") if second is None else float(t["step_ms"][second]),
                     "rebuild_better": verdict})
    return rows

"""Lesson 13's stored measurement: does numbering the agents along a Hilbert curve pay?

:class:`~lessons_lib.labs.sim.Simulation` numbers its agents, once, at the start,
along a Hilbert curve (``layout="hilbert"``, lesson 10's space-filling curve), so that
agents near in space are near in memory; ``layout="random"`` keeps the order in
which they were drawn. Both runs start from the same agents; only where each agent
sits in the arrays differs (and, with it, the order in which contacts are resolved, so
the two runs drift apart slowly, as two runs with different seeds would).

Large crowds take too long for a lesson, so the measurement is stored::

    python -m lessons_lib.labs.sim_layout --store     # writes data/results/sim_layout.csv

For each agent count and structure, the two layouts are run one after the other,
three times over (interleaved, so that a slow moment of a shared machine hits both),
and the CPU time per frame of the whole simulation step is kept: the median of the
three runs, each the mean over its timed frames.
"""
from __future__ import annotations

import time

import numpy as np

from .sim import Simulation

__all__ = ["LAYOUT_RESULTS", "layout_costs", "store_results"]

#: The stored file (``data/results/<name>.csv``).
LAYOUT_RESULTS = "sim_layout"


def _cpu_ms_per_frame(sim: Simulation, frames: int) -> float:
    t0 = time.process_time()
    sim.run(frames)
    return 1e3 * (time.process_time() - t0) / frames


def layout_costs(sizes=(20_000, 100_000, 500_000),
                 structures=("uniform_grid", "point_grid", "sweep_and_prune", "quadtree"),
                 *, frames: int = 12, warmup: int = 3, reps: int = 3, seed: int = 0, log=print) -> list[dict]:
    """CPU milliseconds per simulation step with the agents in Hilbert order and in random order.

    Parameters
    ----------
    sizes : sequence of int
        Agent counts.
    structures : sequence of str
        Registered structure names.
    frames, warmup : int
        Frames timed per run, after ``warmup`` untimed ones (compilation, first growth of buffers).
    reps : int
        Interleaved runs per layout; the median is kept.
    seed : int
        The simulation's seed (the same agents for both layouts).

    Returns
    -------
    list of dict
        One row per (n, structure, layout): ``n``, ``structure``, ``layout``,
        ``frames``, ``reps``, ``cpu_ms`` (median over the runs of the CPU time per
        frame), ``cpu_lo_ms``, ``cpu_hi_ms`` (fastest and slowest run), and
        ``contacts`` (of the last frame; the two layouts resolve contacts in a
        different order, so their runs, and these counts, drift apart slightly).

    Example
    -------
    >>> rows = layout_costs(sizes=(500,), structures=("uniform_grid",), frames=2, warmup=1, reps=1, log=None)
    >>> [r["layout"] for r in rows]
    ['hilbert', 'random']
    """
    rows = []
    for n in sizes:
        for name in structures:
            runs = {"hilbert": [], "random": []}
            contacts = {}
            for _ in range(reps):
                for layout in runs:
                    sim = Simulation(n, structure=name, seed=seed, layout=layout)
                    sim.run(warmup)
                    runs[layout].append(_cpu_ms_per_frame(sim, frames))
                    contacts[layout] = int(sim.history()["contacts"][-1])
            for layout, ms in runs.items():
                rows.append({"n": int(n), "structure": name, "layout": layout, "frames": frames, "reps": reps,
                             "cpu_ms": float(np.median(ms)), "cpu_lo_ms": float(min(ms)),
                             "cpu_hi_ms": float(max(ms)), "contacts": contacts[layout]})
            if log:
                log(f"n = {n:>7,} {name:<16} hilbert {rows[-2]['cpu_ms']:8.2f} ms, random {rows[-1]['cpu_ms']:8.2f} ms "
                    f"per frame ({rows[-1]['cpu_ms'] / rows[-2]['cpu_ms']:.2f}x)")
    return rows


def store_results(log=print, *, name=LAYOUT_RESULTS, **kwargs):
    """Run :func:`layout_costs` and write ``data/results/sim_layout.csv`` (or ``name``); return its path."""
    from ..data import save_results

    return save_results(name, layout_costs(log=log, **kwargs), command="python -m lessons_lib.labs.sim_layout --store",
                        what="lesson 13: CPU ms per simulation step (update_many mode) with agents numbered along a "
                             "Hilbert curve or in random order; median of interleaved runs, each the mean over its "
                             "timed frames")


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if "--store" in sys.argv[1:]:
        print(f"wrote {store_results()}")
    else:
        print("usage: python -m lessons_lib.labs.sim_layout --store   (writes data/results/sim_layout.csv)")

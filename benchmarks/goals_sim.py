"""Targets of lesson 13: the agent simulation at the scale of the quadtree answer set [SO-quadtree].

Goals (issue 9), one core, the simulation step only (move, update, pairs,
narrow phase, response; not drawing), with the fastest registered structure:

* 20,000 agents under 8 ms per frame;
* 100,000 agents under 33 ms per frame;
* 500,000 agents under 250 ms per frame;
* the structure's ``memory_bytes()`` flat (within 1 %) after the first 100
  frames of a 1,000-frame run. At 500,000 agents the run is 300 frames (about
  a minute on the course's machine) instead of 1,000; flatness is judged on
  frames 101-300 there.

Beside them, the figures the C++ author of the quadtree answer set reports
[SO-quadtree]: 20,000 agents in about 3 MB of RAM;
100,000 agents at 60+ fps on one i7 core with his quadtree (drawing included,
about half the time), memory steady after about 5 s; 500,000 agents with the
loose/tight double grid, running better than the quadtree did at 100,000.

Which structure is fastest is measured, not assumed: every registered
structure runs a short probe (15 frames) at each size, sizes growing, and a
structure slower than ``PRUNE_MS`` per frame at one size is not tried at the
next. Every probe's last frame is checked against cKDTree before any time is
reported. The machines are shared: times are medians over frames.

The measurement itself is lesson 13's, in :mod:`lessons_lib.labs.sim_measure`;
``python -m benchmarks.goals_sim --store`` also writes the CSV files lesson 13
plots (as ``python -m lessons_lib.labs.sim_measure --store`` does, from the same
run; see data/README.md).
"""
from __future__ import annotations

import sys
import time

import numpy as np

from lessons_lib.labs.sim_measure import (LONG_FRAMES, PROBE_FRAMES, SETTLE_FRAMES, WARMUP, fastest, measure,
                                          store_results)
from . import Line, goal

#: The course's goals: agents -> milliseconds per frame.
GOALS_MS = {20_000: 8.0, 100_000: 33.0, 500_000: 250.0}
#: What the answer set's author reports [SO-quadtree], by agent count.
SEED_FIGURES = {
    20_000: "C++ author: 20,000 agents, quadtree, about 3 MB of RAM for the whole simulation",
    100_000: "C++ author: 100,000 agents at 60+ fps (<= 16.7 ms per frame, drawing included) with his quadtree, "
             "one i7 core; memory steady after about 5 s",
    500_000: "C++ author: 500,000 agents with the loose/tight double grid, faster than his quadtree at 100,000",
}


def _lines(rows, longs) -> list[Line]:
    lines = []
    for n, goal_ms in GOALS_MS.items():
        best = fastest(rows, n)
        if best is None:
            lines.append(Line(f"{n:,} agents", "no structure ran at this size", f"< {goal_ms:g} ms per frame", False))
            continue
        others = sorted((r for r in rows if r["n"] == n), key=lambda r: r["step_ms"])[1:3]
        runner = ", ".join(f"{r['structure']} {r['step_ms']:.1f} ms" for r in others)
        lines.append(Line(f"{n:,} agents, fastest structure {best['structure']} (median of "
                          f"{PROBE_FRAMES - WARMUP} frames; next: {runner or '-'})",
                          f"{best['step_ms']:.1f} ms per frame ({1000 / best['step_ms']:.0f} fps); "
                          f"{best['candidates']:,} candidate pairs, {best['contacts']:,} contacts",
                          f"< {goal_ms:g} ms", best["step_ms"] < goal_ms))
        s = longs.get(n)
        if s is not None:
            lines.append(Line(f"  {s['frames']:,}-frame run with {s['structure']}",
                              f"median {s['step_ms']:.1f} ms, 90th percentile {s['step_p90_ms']:.1f} ms per frame",
                              f"< {goal_ms:g} ms", s["step_ms"] < goal_ms))
            lines.append(Line(f"  memory_bytes() over frames {SETTLE_FRAMES + 1}-{s['frames']}",
                              f"{s['memory_at_settle'] / 1e6:.2f} MB at frame {SETTLE_FRAMES}, max "
                              f"{s['memory_max'] / 1e6:.2f} MB, last {s['memory_last'] / 1e6:.2f} MB: spread "
                              f"{100 * s['spread_after_settle']:.2f} % (frame 1: {s['memory_first'] / 1e6:.2f} MB)",
                              "flat within 1 %", s["spread_after_settle"] <= 0.01))
        lines.append(Line("  beside the answer set", SEED_FIGURES[n], "reported, not measured here", True))
    return lines


def run_all(store: bool = False, log=print) -> list[Line]:
    """Probe, pick the fastest per size, run the long memory runs; optionally store the CSVs."""
    if store:
        m = measure(log=log)
        store_results(log=log, measured=m)
    else:
        m = measure(log=log, frame_structures=(), rebuild_sizes=())
    return _lines(m["scaling"], m["long"])


@goal("lesson 13 simulation: 20k / 100k / 500k agents, fastest structure, memory flat")
def simulation_targets():
    return run_all(store=False)


def main(argv) -> None:  # pragma: no cover - a maintenance command
    from lessons_lib.data import machine_info

    store = "--store" in argv
    import datetime

    print(f"# lesson 13 simulation targets, {datetime.date.today()}: {machine_info()}")
    t0 = time.perf_counter()
    lines = run_all(store=store)
    print()
    for line in lines:
        print(line.row())
    print(f"\n{sum(not l.ok for l in lines)} goals missed; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])

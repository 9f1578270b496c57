"""Targets of lesson 12: the agent simulation at the seed's scale.

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

``python -m benchmarks.goals_sim --store`` also writes the CSV files
lesson 12 plots (see data/README.md):

* ``data/results/sim_scaling.csv``: per structure and n, the median time of
  each phase, pairs and memory;
* ``data/results/sim_frames.csv``: frame by frame (every ``EVERY``-th frame)
  step time and memory of the long runs;
* ``data/results/sim_rebuild_vs_update.csv``: ``update_many`` against
  ``from_boxes`` every frame, per structure.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from lessons_lib.base import STRUCTURES
from lessons_lib.labs.sim import PHASES, Simulation
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs

#: The issue's goals: agents -> milliseconds per frame.
GOALS_MS = {20_000: 8.0, 100_000: 33.0, 500_000: 250.0}
#: Frames of the memory runs per size (1,000 as the issue asks, 300 at 500,000 to keep the run near a minute).
LONG_FRAMES = {20_000: 1000, 100_000: 1000, 500_000: 300}
#: Memory is judged after this many frames.
SETTLE_FRAMES = 100
#: Sizes of the scaling probe, and frames per probe (the first ``WARMUP`` are not timed).
SIZES = (1_000, 5_000, 20_000, 100_000, 500_000)
PROBE_FRAMES = 15
WARMUP = 3
#: Frames of each run of the rebuild-vs-update comparison.
REBUILD_FRAMES = 12
#: A structure slower than this per frame (median) at one size is not tried at the next.
PRUNE_MS = 120.0
#: Structures never probed above 5,000 agents (O(n^2) or Python-object trees).
SMALL_ONLY = {"brute_force", "naive_quadtree"}
#: sim_frames.csv keeps every EVERY-th frame.
EVERY = 5
#: What the seed's author reports [SO-quadtree], by agent count.
SEED_FIGURES = {
    20_000: "C++ author: 20,000 agents, quadtree, about 3 MB of RAM for the whole simulation",
    100_000: "C++ author: 100,000 agents at 60+ fps (<= 16.7 ms per frame, drawing included) with his quadtree, "
             "one i7 core; memory steady after about 5 s",
    500_000: "C++ author: 500,000 agents with the loose/tight double grid, faster than his quadtree at 100,000",
}


def structures_to_probe() -> list[str]:
    """Every registered structure, in registry order."""
    return list(STRUCTURES)


def probe(structure: str, n: int, *, frames: int = PROBE_FRAMES, mode: str = "update", seed: int = 0,
          check: bool = True) -> dict:
    """Run ``frames`` frames; return the medians of each phase (after ``WARMUP`` frames) and memory.

    Raises ``AssertionError`` if the last frame's candidate pairs differ from
    cKDTree's on the same boxes (a wrong answer is never timed).
    """
    sim = Simulation(n, structure=structure, seed=seed, mode=mode)
    h = sim.run(frames)
    if check:
        ref = ckdtree_pairs(sim.boxes)
        assert np.array_equal(sim.candidates(), ref), f"{structure}, n={n}: candidate pairs differ from cKDTree"
    tail = slice(min(WARMUP, frames - 1), None)
    row = {"structure": structure, "n": n, "mode": mode, "frames": frames}
    for p in (*PHASES, "step"):
        row[f"{p}_ms"] = float(np.median(h[f"{p}_ms"][tail]))
    row["candidates"] = int(np.median(h["candidates"][tail]))
    row["contacts"] = int(np.median(h["contacts"][tail]))
    row["memory_bytes"] = int(h["memory_bytes"][-1])
    row["bytes_per_agent"] = float(h["memory_bytes"][-1] / n)
    return row


def scaling(sizes=SIZES, log=print) -> list[dict]:
    """Probe every structure at growing ``n``, dropping the ones slower than ``PRUNE_MS``."""
    alive = structures_to_probe()
    rows = []
    for n in sizes:
        nxt = []
        for name in alive:
            if name in SMALL_ONLY and n > 5_000:
                continue
            t0 = time.perf_counter()
            row = probe(name, n)
            rows.append(row)
            log(f"  {name:<20} n={n:>7,}: step {row['step_ms']:8.2f} ms (update {row['update_ms']:.2f}, "
                f"pairs {row['pairs_ms']:.2f}), {row['bytes_per_agent']:.0f} B/agent  [{time.perf_counter() - t0:.0f} s]")
            if row["step_ms"] < PRUNE_MS:
                nxt.append(name)
        alive = nxt
    return rows


def fastest(rows: list[dict], n: int) -> dict | None:
    """The row with the smallest median step time at ``n``."""
    at = [r for r in rows if r["n"] == n]
    return min(at, key=lambda r: r["step_ms"]) if at else None


def long_run(structure: str, n: int, frames: int, seed: int = 0) -> tuple[dict, list[dict]]:
    """A long run: (summary, frame rows every ``EVERY`` frames) with memory flatness after ``SETTLE_FRAMES``."""
    sim = Simulation(n, structure=structure, seed=seed)
    h = sim.run(frames)
    ref = ckdtree_pairs(sim.boxes)
    assert np.array_equal(sim.candidates(), ref), f"{structure}, n={n}: candidate pairs differ from cKDTree"
    mem = h["memory_bytes"]
    after = mem[SETTLE_FRAMES:]
    spread = float((after.max() - after.min()) / after.min())
    summary = {"structure": structure, "n": n, "frames": frames,
               "step_ms": float(np.median(h["step_ms"][WARMUP:])),
               "step_p90_ms": float(np.percentile(h["step_ms"][WARMUP:], 90)),
               "memory_first": int(mem[0]), "memory_at_settle": int(mem[SETTLE_FRAMES - 1]),
               "memory_max": int(mem.max()), "memory_last": int(mem[-1]), "spread_after_settle": spread}
    frame_rows = [{"structure": structure, "n": n, "frame": int(h["frame"][i]),
                   **{f"{p}_ms": float(h[f"{p}_ms"][i]) for p in (*PHASES, "step")},
                   "candidates": int(h["candidates"][i]), "memory_bytes": int(mem[i])}
                  for i in range(len(mem)) if (i + 1) % EVERY == 0 or i == 0]
    return summary, frame_rows


def rebuild_vs_update(sizes=(20_000, 100_000), frames: int = REBUILD_FRAMES, log=print) -> list[dict]:
    """Both modes for every structure, sizes growing; a structure slower than ``PRUNE_MS`` in both
    modes at one size is not tried at the next."""
    rows = []
    alive = [s for s in structures_to_probe() if s not in SMALL_ONLY]
    for n in sizes:
        nxt = []
        for name in alive:
            pair = [probe(name, n, frames=frames, mode=m, check=(m == "update")) for m in ("update", "rebuild")]
            if min(pair[0]["step_ms"], pair[1]["step_ms"]) < PRUNE_MS:
                nxt.append(name)
            for r in pair:
                rows.append({k: r[k] for k in ("structure", "n", "mode", "frames", "update_ms", "pairs_ms",
                                               "step_ms", "memory_bytes")})
            log(f"  {name:<20} n={n:>7,}: update_many {pair[0]['update_ms']:8.2f} ms + pairs {pair[0]['pairs_ms']:.2f}"
                f" | rebuild {pair[1]['update_ms']:8.2f} ms + pairs {pair[1]['pairs_ms']:.2f}")
        alive = nxt
    return rows


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
        lines.append(Line("  beside the seed", SEED_FIGURES[n], "reported, not measured here", True))
    return lines


def run_all(store: bool = False, log=print) -> list[Line]:
    """Probe, pick the fastest per size, run the long memory runs; optionally store the CSVs."""
    log("scaling probe (update_many every frame):")
    rows = scaling(log=log)
    longs, frame_rows = {}, []
    for n, frames in LONG_FRAMES.items():
        best = fastest(rows, n)
        if best is None:
            continue
        log(f"long run: {best['structure']}, n={n:,}, {frames} frames")
        longs[n], fr = long_run(best["structure"], n, frames)
        frame_rows += fr
    if store:
        from lessons_lib.data import save_results

        cmd = "python -m benchmarks.goals_sim --store"
        # Memory over frames of a few structures at 20,000 agents too (not only the fastest).
        for name in ("uniform_grid", "quadtree", "loose_tight_grid", "loose_quadtree", "sweep_and_prune"):
            if name in STRUCTURES and name != (fastest(rows, 20_000) or {}).get("structure"):
                log(f"frame run: {name}, n=20,000, 300 frames")
                frame_rows += long_run(name, 20_000, 300)[1]
        log("rebuild vs update:")
        rvu = rebuild_vs_update(log=log)
        save_results("sim_scaling", rows, command=cmd,
                     what=f"lesson 12 simulation: median ms per phase over frames {WARMUP + 1}-{PROBE_FRAMES} "
                          f"per structure and agent count (update_many mode), pairs and memory_bytes()")
        save_results("sim_frames", frame_rows, command=cmd,
                     what=f"lesson 12 simulation: every {EVERY}th frame of long runs (phase ms, candidate pairs, "
                          "memory_bytes()); the fastest structure per size and others at 20,000 agents")
        save_results("sim_rebuild_vs_update", rvu, command=cmd,
                     what="lesson 12 simulation: update_many + cleanup every frame against from_boxes every frame; "
                          f"medians over frames {WARMUP + 1}-{REBUILD_FRAMES}")
    return _lines(rows, longs)


@goal("lesson 12 simulation: 20k / 100k / 500k agents, fastest structure, memory flat")
def simulation_targets():
    return run_all(store=False)


def main(argv) -> None:  # pragma: no cover - a maintenance command
    from lessons_lib.data import machine_info

    store = "--store" in argv
    import datetime

    print(f"# lesson 12 simulation targets, {datetime.date.today()}: {machine_info()}")
    t0 = time.perf_counter()
    lines = run_all(store=store)
    print()
    for line in lines:
        print(line.row())
    print(f"\n{sum(not l.ok for l in lines)} goals missed; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])

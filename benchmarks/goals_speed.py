"""Speed goals on both cores: ten times the best Python library, whole simulation frames in milliseconds.

Two measurements, each printed as goal lines and stored under ``data/results/``:

``peers``  (``bench_peers_sparse.csv``)
    100,000 boxes with sides uniform in [2, 8] in a 10,000 x 10,000 world, on
    four sparse scenes: ``uniform``; ``clustered`` (10 clusters, normal with
    sigma 250 around uniform centres); ``vstrip`` (x normal around the middle
    with sigma 62.5, y uniform) and ``hstrip`` (the same, lying). Build +
    ``pairs()`` of each fast lessons_lib structure and of cKDTree,
    shapely.STRtree and rtree, interleaved, median of :data:`REPEATS` runs,
    every result's pairs checked against cKDTree's. Goal: the fastest of ours at
    least :data:`PEER_SPEEDUP` x faster than the fastest peer, on every scene.

``frames`` (``sim_frame_goals.csv``)
    Whole frames of lesson 13's simulation (``Simulation(n, structure=...,
    seed=0)``: move, ``update_many`` + ``cleanup``, ``pairs()``, narrow phase,
    response), median of :data:`FRAMES` frames after :data:`WARMUP`, for the
    fast structures at each size (at 2,000,000 only the fastest of 1,000,000).
    Goals: :data:`FRAME_GOALS_MS`.

``skew`` (printed only)
    Bytes per element (``memory_bytes()`` after build + ``pairs()``) of every
    structure on :data:`lessons_lib.SKEWED_SCENES` at :data:`SKEW_N` boxes,
    against the same structure on the uniform scene. Goal: at most
    :data:`SKEW_BYTES_FACTOR` x (``tests/test_skew.py`` asserts the same at a
    smaller size, with a loose bound on time).

The first two use every thread numba has (``lessons_lib.core.jit.threads()``, printed);
set ``NUMBA_NUM_THREADS=1`` for a one-core run. Run on a quiet machine:
``python -m benchmarks.goals_speed [--store] [--only peers|frames]``.
"""
from __future__ import annotations

import argparse
import datetime
import gc
import statistics
import sys
import time

import numpy as np

from lessons_lib import SKEWED_SCENES, STRUCTURES, skewed_scene
from lessons_lib.bench.peers import PEERS
from lessons_lib.core.jit import threads
from lessons_lib.data import machine_info, save_results
from lessons_lib.labs.sim import Simulation

from . import Line, goal

N = 100_000
WORLD = 10_000.0
SIDE = (2.0, 8.0)
REPEATS = 5
PEER_SPEEDUP = 10.0
PEER_NAMES = ("cKDTree", "shapely.STRtree", "rtree.index")
#: lessons_lib structures tried on the peers' scenes (the rest are 10-1000x slower there).
FAST_STRUCTURES = ("counting_sort_grid", "uniform_grid", "point_grid", "sweep_and_prune", "quadtree",
                   "loose_tight_grid")
SCENES = ("uniform", "clustered", "vstrip", "hstrip")

FRAME_GOALS_MS = {100_000: 5.0, 500_000: 30.0, 1_000_000: 60.0, 2_000_000: 130.0}
FRAME_STRUCTURES = ("counting_sort_grid", "uniform_grid", "point_grid", "sweep_and_prune")
WARMUP = 5
FRAMES = 20

SKEW_N = 20_000
SKEW_BYTES_FACTOR = 3.0
#: O(n^2) or Python objects by design (lessons 01 and 04 show it): not held to the skew goal.
SKEW_EXEMPT = ("brute_force", "naive_quadtree")


# --------------------------------------------------------------------------
# Peers
# --------------------------------------------------------------------------
def sparse_scene(kind: str, n: int = N, seed: int = 0) -> np.ndarray:
    """``(n, 4)`` float64 boxes of one of :data:`SCENES` (see the module notes)."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(*SIDE, (n, 2))
    if kind == "uniform":
        lo = rng.uniform(0, WORLD, (n, 2))
    elif kind == "clustered":
        centres = rng.uniform(0, WORLD, (10, 2))
        lo = centres[rng.integers(0, 10, n)] + rng.normal(0, 250.0, (n, 2))
    elif kind in ("vstrip", "hstrip"):
        lo = np.column_stack([rng.normal(WORLD / 2, 62.5, n), rng.uniform(0, WORLD, n)])
        if kind == "hstrip":
            lo = lo[:, ::-1]
    else:
        raise ValueError(f"unknown scene {kind!r}; choose from {SCENES}")
    return np.ascontiguousarray(np.column_stack([lo, lo + size]))


def _timed(fn) -> tuple[float, np.ndarray]:
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _ours(name):
    cls = STRUCTURES[name]
    return lambda boxes, prepared: cls.from_boxes(boxes).pairs()


def _peer(peer):
    return lambda boxes, prepared: peer.pairs(peer.build(boxes, prepared), boxes, prepared)


def run_peers(log=print) -> list[dict]:
    """Every entrant on every scene, interleaved, checked; one row per (scene, entrant)."""
    peers = [PEERS[p] for p in PEER_NAMES if PEERS[p].available()]
    rows = []
    for scene in SCENES:
        boxes = sparse_scene(scene)
        entrants = [(name, "ours", _ours(name), None) for name in FAST_STRUCTURES]
        entrants += [(p.name, "peer", _peer(p), p.prepare(boxes) if p.prepare else None) for p in peers]
        times = {e[0]: [] for e in entrants}
        reference, status = None, {}
        for e in entrants:  # warm up (compilation) and check once
            _, got = _timed(lambda: e[2](boxes, e[3]))
            if reference is None and e[0] == "cKDTree":
                reference = got
            status[e[0]] = got
        if reference is None:  # no cKDTree: the first structure is the reference
            reference = status[FAST_STRUCTURES[0]]
        for name in status:
            status[name] = "ok" if np.array_equal(status[name], reference) else "FAILED"
        for _ in range(REPEATS):
            for name, kind, fn, prepared in entrants:
                t, _ = _timed(lambda: fn(boxes, prepared))
                times[name].append(t)
        for name, kind, _, _ in entrants:
            ms = 1e3 * statistics.median(times[name])
            rows.append(dict(scene=scene, n=len(boxes), pairs=len(reference), entrant=name, kind=kind,
                             total_ms=ms, lo_ms=1e3 * min(times[name]), hi_ms=1e3 * max(times[name]),
                             threads=threads(), status=status[name]))
            log(f"  {scene:10s} {name:20s} {ms:9.2f} ms  {status[name]}")
    return rows


def peer_lines(rows) -> list[Line]:
    lines = []
    for scene in SCENES:
        here = [r for r in rows if r["scene"] == scene and r["status"] == "ok"]
        ours = [r for r in here if r["kind"] == "ours"]
        peers = [r for r in here if r["kind"] == "peer"]
        what = f"{scene}, {N:,} boxes: fastest lessons_lib vs fastest of {', '.join(PEER_NAMES)} (build + pairs)"
        if not ours or not peers:
            lines.append(Line(what, "not measured (no checked result on one side)", f">= {PEER_SPEEDUP:g}x", False))
            continue
        a, b = min(ours, key=lambda r: r["total_ms"]), min(peers, key=lambda r: r["total_ms"])
        ratio = b["total_ms"] / a["total_ms"]
        lines.append(Line(what, f"{a['entrant']} {a['total_ms']:.2f} ms vs {b['entrant']} {b['total_ms']:.1f} ms: "
                                f"{ratio:.1f}x ({a['pairs']:,} pairs, {a['threads']} threads)",
                          f">= {PEER_SPEEDUP:g}x", ratio >= PEER_SPEEDUP))
    failed = [r for r in rows if r["status"] != "ok"]
    lines.append(Line("entrants whose pairs differ from cKDTree's", ", ".join(
        f"{r['entrant']} on {r['scene']}" for r in failed) or "none", "none", not failed))
    return lines


# --------------------------------------------------------------------------
# Whole frames
# --------------------------------------------------------------------------
def frame_run(n: int, structure: str) -> dict:
    """Median per-phase and whole-step ms of :data:`FRAMES` frames after :data:`WARMUP`."""
    sim = Simulation(n, structure=structure, seed=0)
    for _ in range(WARMUP):
        sim.step()
    stats = [sim.step() for _ in range(FRAMES)]
    med = {f: statistics.median(getattr(s, f) for s in stats)
           for f in ("move_ms", "update_ms", "pairs_ms", "narrow_ms", "respond_ms", "step_ms")}
    row = dict(n=n, structure=structure, frames=FRAMES, threads=threads(), **med,
               candidates=stats[-1].candidates, contacts=stats[-1].contacts)
    del sim
    gc.collect()
    return row


def run_frames(log=print) -> list[dict]:
    rows = []
    sizes = sorted(FRAME_GOALS_MS)
    for n in sizes:
        names = FRAME_STRUCTURES
        if n == sizes[-1]:  # the largest size: only the fastest of the size before
            prev = [r for r in rows if r["n"] == sizes[-2]]
            names = (min(prev, key=lambda r: r["step_ms"])["structure"],)
        for name in names:
            r = frame_run(n, name)
            rows.append(r)
            log(f"  {n:>9,} {name:20s} step {r['step_ms']:7.2f} ms (move {r['move_ms']:.2f}, update "
                f"{r['update_ms']:.2f}, pairs {r['pairs_ms']:.2f}, narrow {r['narrow_ms']:.2f}, respond "
                f"{r['respond_ms']:.2f})")
    return rows


def frame_lines(rows) -> list[Line]:
    lines = []
    for n, goal_ms in FRAME_GOALS_MS.items():
        here = [r for r in rows if r["n"] == n]
        if not here:
            lines.append(Line(f"{n:,} agents, whole frame", "not measured", f"<= {goal_ms:g} ms", False))
            continue
        best = min(here, key=lambda r: r["step_ms"])
        lines.append(Line(f"{n:,} agents, whole frame, fastest structure ({best['structure']}, median of "
                          f"{best['frames']} frames, {best['threads']} threads)",
                          f"{best['step_ms']:.1f} ms (pairs {best['pairs_ms']:.1f}, update {best['update_ms']:.1f})",
                          f"<= {goal_ms:g} ms", best["step_ms"] <= goal_ms))
    return lines


# --------------------------------------------------------------------------
@goal("speed: fastest lessons_lib vs the best Python library, 100,000 sparse boxes")
def peers_goal(store: bool = False):
    rows = run_peers(log=lambda *a: None)
    if store:
        save_results("bench_peers_sparse", rows, what="build + pairs of 100,000 sparse boxes: lessons_lib vs peers",
                     command="python -m benchmarks.goals_speed --store --only peers")
    return peer_lines(rows)


@goal("speed: whole simulation frames, 100,000 to 2,000,000 agents")
def frames_goal(store: bool = False):
    rows = run_frames(log=lambda *a: None)
    if store:
        save_results("sim_frame_goals", rows, what="whole frames of lesson 13's simulation, fastest structures",
                     command="python -m benchmarks.goals_speed --store --only frames")
    return frame_lines(rows)


def skew_lines(n: int = SKEW_N) -> list:
    """One goal line per structure: its worst bytes per element on a skewed scene over its uniform one."""
    scenes = {kind: skewed_scene(kind, n) for kind in ("uniform",) + SKEWED_SCENES}
    lines = []
    for name in sorted(set(STRUCTURES) - set(SKEW_EXEMPT)):
        per = {}
        for kind, boxes in scenes.items():
            bp = STRUCTURES[name].from_boxes(boxes)
            bp.pairs()
            per[kind] = bp.memory_bytes() / len(boxes)
        worst = max(SKEWED_SCENES, key=per.get)
        ratio = per[worst] / per["uniform"]
        lines.append(Line(f"{name}: bytes per element, worst skewed scene over uniform, n = {n:,}",
                          f"{ratio:.2f}x ({worst}: {per[worst]:.1f} B vs {per['uniform']:.1f} B)",
                          f"<= {SKEW_BYTES_FACTOR:g}x", ratio <= SKEW_BYTES_FACTOR))
    return lines


@goal("skew: bytes per element on skewed scenes against the uniform one, every structure")
def skew_goal(store: bool = False):
    return skew_lines()


def main(argv=None) -> int:  # pragma: no cover - a maintenance command
    parser = argparse.ArgumentParser(prog="python -m benchmarks.goals_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="store_true", help="write the CSV files under data/results/")
    parser.add_argument("--only", choices=("peers", "frames", "skew"), help="run one of the three measurements")
    args = parser.parse_args(argv)
    print(f"# speed goals, {datetime.date.today()}: {machine_info()}; {threads()} threads")
    missed = 0
    for name, fn in (("peers", peers_goal), ("frames", frames_goal), ("skew", skew_goal)):
        if args.only and args.only != name:
            continue
        print(f"\n## {name}", flush=True)
        for line in fn(store=args.store):
            print(line.row(), flush=True)
            missed += not line.ok
    print(f"\n{missed} goals missed")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

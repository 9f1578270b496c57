"""Lesson 13's stored measurements: the simulation at 1,000 to 2,000,000 agents.

Large crowds and long runs take minutes, too long for a lesson, so they are run once
and stored (see ``data/README.md``)::

    python -m lessons_lib.labs.sim_measure --store

writes four files under ``data/results/``:

* ``sim_scaling.csv``: per structure and agent count, the median time of each phase
  of a frame (move, update, pairs, narrow, respond) and of the whole step, candidate
  pairs, contacts and ``memory_bytes()`` (:func:`scaling`);
* ``sim_frames.csv``: every ``EVERY``-th frame of long runs, the fastest structure
  at 20,000, 100,000 and 500,000 agents and a few others at 20,000 (:func:`long_run`);
* ``sim_rebuild_vs_update.csv``: ``update_many`` + ``cleanup()`` every frame against
  ``from_boxes`` every frame, per structure (:func:`rebuild_vs_update`);
* ``sim_scenes.csv``: both modes again on the scenes of :data:`SIM_SCENES`, a crowd
  where every agent moves, a physics scene where 5 % of the agents move and the rest
  rest, and the same with 10 giants among the resting bodies (:func:`scenes`).

``python -m lessons_lib.labs.sim_measure --store sim_frames`` rewrites ``sim_frames.csv``
alone (:func:`store_frames`), its long runs following the stored ``sim_scaling.csv``;
``--store sim_scenes`` rewrites ``sim_scenes.csv`` alone (:func:`store_scenes`).

Which structure is fastest is measured, not assumed: every registered structure runs
a short probe at each size, sizes growing, and a structure slower than ``PRUNE_MS``
per frame at one size is not tried at the next. Every probe's last frame is checked
against scipy's cKDTree before any time is kept. Times are medians over frames; the
machine the course was measured on is shared, so expect tens of percent between runs.
"""
from __future__ import annotations

import time

import numpy as np

from ..base import STRUCTURES
from ..bench.peers import ckdtree_pairs
from ..structures.brute_force import brute_force_pairs
from .sim import PHASES, Simulation

__all__ = ["SIZES", "LONG_FRAMES", "SETTLE_FRAMES", "PROBE_FRAMES", "WARMUP", "REBUILD_FRAMES", "PRUNE_MS",
           "SMALL_ONLY", "EVERY", "FRAME_STRUCTURES", "RESULTS", "probe", "scaling", "fastest", "long_run",
           "rebuild_vs_update", "frame_runs", "measure", "store_results", "store_frames", "reference_pairs",
           "SIM_SCENES", "SCENE_SIZES", "scenes", "store_scenes"]

#: Sizes of the scaling probe.
SIZES = (1_000, 5_000, 20_000, 100_000, 500_000, 1_000_000, 2_000_000)
#: Frames of the long runs of the fastest structure, by agent count (300 at 500,000 to keep the run near a minute).
LONG_FRAMES = {20_000: 1000, 100_000: 1000, 500_000: 300}
#: Memory is read after this many frames (pools have grown to the crowd's needs by then).
SETTLE_FRAMES = 100
#: Frames per probe; the first ``WARMUP`` are not timed (compilation, first growth of buffers).
PROBE_FRAMES = 15
WARMUP = 3
#: Frames of each run of the rebuild-vs-update comparison.
REBUILD_FRAMES = 12
#: A structure slower than this per frame (median) at one size is not tried at the next.
PRUNE_MS = 120.0
#: Structures never probed above 5,000 agents (O(n^2), or trees of Python objects).
SMALL_ONLY = {"brute_force", "naive_quadtree"}
#: ``sim_frames.csv`` keeps every EVERY-th frame.
EVERY = 5
#: Structures also run for 300 frames at 20,000 agents, for the memory-over-time plot.
FRAME_STRUCTURES = ("uniform_grid", "quadtree", "loose_tight_grid", "loose_quadtree", "sweep_and_prune")
#: The scenes of ``sim_scenes.csv``: name -> keyword arguments of :class:`~lessons_lib.labs.sim.Simulation`
#: (``moving``: fraction of agents that start moving, the others at rest; ``giants``: resting giants).
SIM_SCENES = {"moving": {}, "resting": {"moving": 0.05}, "giants": {"moving": 0.05, "giants": 10}}
#: Agent counts of ``sim_scenes.csv``.
SCENE_SIZES = (20_000, 100_000)
#: The stored files (``data/results/<name>.csv``).
RESULTS = ("sim_scaling", "sim_frames", "sim_rebuild_vs_update", "sim_scenes")
_COMMAND = "python -m lessons_lib.labs.sim_measure --store"
_FRAMES_COMMAND = "python -m lessons_lib.labs.sim_measure --store sim_frames"
_SCENES_COMMAND = "python -m lessons_lib.labs.sim_measure --store sim_scenes"


def reference_pairs(boxes) -> np.ndarray:
    """The pairs a frame is checked against: scipy's cKDTree, or compiled brute force without scipy (small runs)."""
    try:
        return ckdtree_pairs(boxes)
    except ImportError:
        if len(boxes) > 20_000:
            raise
        return brute_force_pairs(boxes)


def probe(structure: str, n: int, *, frames: int = PROBE_FRAMES, mode: str = "update", seed: int = 0,
          check: bool = True, **scene) -> dict:
    """Run ``frames`` frames of ``Simulation(n, structure, seed, mode, **scene)``; medians per phase and memory.

    Parameters
    ----------
    structure : str
        A registered structure name.
    n : int
        Agents.
    frames : int
        Frames run; the medians are taken after the first ``WARMUP``.
    mode : {"update", "rebuild"}
        ``update_many`` + ``cleanup()`` every frame, or ``from_boxes`` every frame.
    check : bool
        Compare the last frame's candidate pairs with cKDTree's.
    **scene
        More keyword arguments of :class:`~lessons_lib.labs.sim.Simulation`
        (``moving``, ``giants``: see :data:`SIM_SCENES`).

    Returns
    -------
    dict
        ``structure, n, mode, frames``, ``<phase>_ms`` for each phase and ``step_ms``
        (medians), ``candidates``, ``contacts`` (medians), ``memory_bytes`` and
        ``bytes_per_agent`` (last frame).

    Raises
    ------
    AssertionError
        If ``check`` and the candidate pairs differ from cKDTree's (a wrong answer is never timed).

    Example
    -------
    >>> probe("uniform_grid", 500, frames=4)["n"]
    500
    """
    return _probe(structure, n, frames=frames, mode=mode, seed=seed, check=check, scene=scene)[0]


def _probe(structure, n, *, frames, mode, seed, check, scene) -> tuple[dict, Simulation]:
    """:func:`probe`'s row, and the simulation it ran."""
    sim = Simulation(n, structure=structure, seed=seed, mode=mode, **scene)
    h = sim.run(frames)
    if check:
        ref = reference_pairs(sim.boxes)
        where = "".join(f", {k}={v}" for k, v in scene.items())
        assert np.array_equal(sim.candidates(), ref), \
            f"{structure}, n={n}, {mode}{where}: candidate pairs differ from cKDTree"
    tail = slice(min(WARMUP, frames - 1), None)
    row = {"structure": structure, "n": n, "mode": mode, "frames": frames}
    for p in (*PHASES, "step"):
        row[f"{p}_ms"] = float(np.median(h[f"{p}_ms"][tail]))
    row["candidates"] = int(np.median(h["candidates"][tail]))
    row["contacts"] = int(np.median(h["contacts"][tail]))
    row["memory_bytes"] = int(h["memory_bytes"][-1])
    row["bytes_per_agent"] = float(h["memory_bytes"][-1] / n)
    return row, sim


def scaling(sizes=SIZES, structures=None, log=print) -> list[dict]:
    """:func:`probe` every structure (default: all registered) at growing ``sizes``, dropping those slower than ``PRUNE_MS``."""
    alive = list(STRUCTURES) if structures is None else list(structures)
    rows = []
    for n in sizes:
        nxt = []
        for name in alive:
            if name in SMALL_ONLY and n > 5_000:
                continue
            t0 = time.perf_counter()
            row = probe(name, n)
            rows.append(row)
            if log:
                log(f"  {name:<20} n={n:>7,}: step {row['step_ms']:8.2f} ms (update {row['update_ms']:.2f}, "
                    f"pairs {row['pairs_ms']:.2f}), {row['bytes_per_agent']:.0f} B/agent  "
                    f"[{time.perf_counter() - t0:.0f} s]")
            if row["step_ms"] < PRUNE_MS:
                nxt.append(name)
        alive = nxt
    return rows


def fastest(rows: list[dict], n: int) -> dict | None:
    """The row with the smallest median ``step_ms`` at ``n`` (None if no row has that ``n``)."""
    at = [r for r in rows if r["n"] == n]
    return min(at, key=lambda r: r["step_ms"]) if at else None


def long_run(structure: str, n: int, frames: int, seed: int = 0) -> tuple[dict, list[dict]]:
    """A long run: ``(summary, frame rows)``, a frame row every ``EVERY`` frames.

    The summary holds the median and 90th percentile step time and the memory at
    frame 1, at ``SETTLE_FRAMES``, its maximum, its last value and
    ``spread_after_settle`` = (max - min) / min of ``memory_bytes()`` after frame
    ``SETTLE_FRAMES``. The last frame is checked against cKDTree (``AssertionError``).
    """
    sim = Simulation(n, structure=structure, seed=seed)
    h = sim.run(frames)
    ref = reference_pairs(sim.boxes)
    assert np.array_equal(sim.candidates(), ref), f"{structure}, n={n}: candidate pairs differ from cKDTree"
    mem = h["memory_bytes"]
    after = mem[SETTLE_FRAMES:] if len(mem) > SETTLE_FRAMES else mem[-1:]
    spread = float((after.max() - after.min()) / after.min())
    summary = {"structure": structure, "n": n, "frames": frames,
               "step_ms": float(np.median(h["step_ms"][WARMUP:])),
               "step_p90_ms": float(np.percentile(h["step_ms"][WARMUP:], 90)),
               "memory_first": int(mem[0]), "memory_at_settle": int(mem[min(SETTLE_FRAMES, len(mem)) - 1]),
               "memory_max": int(mem.max()), "memory_last": int(mem[-1]), "spread_after_settle": spread}
    frame_rows = [{"structure": structure, "n": n, "frame": int(h["frame"][i]),
                   **{f"{p}_ms": float(h[f"{p}_ms"][i]) for p in (*PHASES, "step")},
                   "candidates": int(h["candidates"][i]), "memory_bytes": int(mem[i])}
                  for i in range(len(mem)) if (i + 1) % EVERY == 0 or i == 0]
    return summary, frame_rows


def rebuild_vs_update(sizes=(20_000, 100_000), frames: int = REBUILD_FRAMES, structures=None,
                      log=print) -> list[dict]:
    """Both modes of :func:`probe` for every structure, sizes growing.

    A structure slower than ``PRUNE_MS`` in both modes at one size is not tried at
    the next. Rows: ``structure, n, mode, frames, update_ms, pairs_ms, step_ms, memory_bytes``.
    """
    rows = []
    alive = [s for s in (STRUCTURES if structures is None else structures) if s not in SMALL_ONLY]
    for n in sizes:
        nxt = []
        for name in alive:
            pair = [probe(name, n, frames=frames, mode=m, check=(m == "update")) for m in ("update", "rebuild")]
            if min(pair[0]["step_ms"], pair[1]["step_ms"]) < PRUNE_MS:
                nxt.append(name)
            for r in pair:
                rows.append({k: r[k] for k in ("structure", "n", "mode", "frames", "update_ms", "pairs_ms",
                                               "step_ms", "memory_bytes")})
            if log:
                log(f"  {name:<20} n={n:>7,}: update_many {pair[0]['update_ms']:8.2f} ms + pairs "
                    f"{pair[0]['pairs_ms']:.2f} | rebuild {pair[1]['update_ms']:8.2f} ms + pairs {pair[1]['pairs_ms']:.2f}")
        alive = nxt
    return rows


def scenes(sizes=SCENE_SIZES, structures=None, scenes=None, frames: int = PROBE_FRAMES, log=print) -> list[dict]:
    """Both modes of :func:`probe` for every structure on each scene of :data:`SIM_SCENES`, sizes growing.

    Pruned as :func:`scaling` prunes, per scene: a structure slower than
    ``PRUNE_MS`` per frame in both modes at one size is not tried at the next
    (nor those of ``SMALL_ONLY`` above 5,000 agents). Every probe's last frame,
    in both modes, is checked against cKDTree (``AssertionError``).

    Parameters
    ----------
    sizes : tuple of int
        Agent counts, ascending.
    structures : list of str, optional
        Registered names (default: every registered structure).
    scenes : dict, optional
        ``{name: Simulation keyword arguments}`` (default :data:`SIM_SCENES`).
    frames : int
        Frames per probe (the first ``WARMUP`` not timed).

    Returns
    -------
    list of dict
        ``scene, moving, giants, structure, n, mode, frames``, median
        ``update_ms, pairs_ms, step_ms``, median ``candidates, contacts``,
        ``memory_bytes`` (last frame) and ``resting`` (the fraction of agents
        with velocity 0 at the last frame: resting bodies woken by a push
        move from then on).
    """
    chosen = SIM_SCENES if scenes is None else scenes
    rows = []
    for scene, kw in chosen.items():
        alive = list(STRUCTURES if structures is None else structures)
        for n in sizes:
            nxt = []
            for name in alive:
                if name in SMALL_ONLY and n > 5_000:
                    continue
                pair = [_scene_probe(name, n, m, frames, kw) for m in ("update", "rebuild")]
                if min(pair[0]["step_ms"], pair[1]["step_ms"]) < PRUNE_MS:
                    nxt.append(name)
                for r in pair:
                    rows.append({"scene": scene, "moving": float(kw.get("moving", 1.0)),
                                 "giants": int(kw.get("giants", 0)),
                                 **{k: r[k] for k in ("structure", "n", "mode", "frames", "update_ms", "pairs_ms",
                                                      "step_ms", "candidates", "contacts", "memory_bytes",
                                                      "resting")}})
                if log:
                    log(f"  {scene:<8} {name:<26} n={n:>7,}: update_many {pair[0]['update_ms']:8.2f} ms + pairs "
                        f"{pair[0]['pairs_ms']:.2f} | rebuild {pair[1]['update_ms']:8.2f} ms + pairs "
                        f"{pair[1]['pairs_ms']:.2f}")
            alive = nxt
    return rows


def _scene_probe(name: str, n: int, mode: str, frames: int, kw: dict) -> dict:
    """:func:`probe`, plus the fraction of agents at rest at the end (``resting``)."""
    row, sim = _probe(name, n, frames=frames, mode=mode, seed=0, check=True, scene=kw)
    row["resting"] = float(np.all(sim.vel == 0.0, axis=1).mean())
    return row


def frame_runs(rows: list[dict], log=print, *, long_frames=None, frame_structures=FRAME_STRUCTURES,
               frame_n: int = 20_000, frame_frames: int = 300) -> tuple[dict, list[dict]]:
    """The long runs behind ``sim_frames``: ``({n: summary}, frame rows)``.

    For each size of ``long_frames`` (default ``LONG_FRAMES``) the fastest structure of
    the scaling ``rows`` (:func:`fastest`) runs :func:`long_run`; then each of
    ``frame_structures`` other than the fastest at ``frame_n`` runs ``frame_frames`` frames.
    """
    say = log or (lambda *_: None)
    longs, frame_rows = {}, []
    for n, frames in (LONG_FRAMES if long_frames is None else long_frames).items():
        best = fastest(rows, n)
        if best is None:
            continue
        say(f"long run: {best['structure']}, n={n:,}, {frames} frames")
        longs[n], fr = long_run(best["structure"], n, frames)
        frame_rows += fr
    for name in frame_structures:
        if name in STRUCTURES and name != (fastest(rows, frame_n) or {}).get("structure"):
            say(f"frame run: {name}, n={frame_n:,}, {frame_frames} frames")
            frame_rows += long_run(name, frame_n, frame_frames)[1]
    return longs, frame_rows


def measure(log=print, *, sizes=SIZES, long_frames=None, frame_structures=FRAME_STRUCTURES,
            frame_n: int = 20_000, frame_frames: int = 300, rebuild_sizes=(20_000, 100_000),
            scene_sizes=SCENE_SIZES, structures=None) -> dict:
    """Everything :func:`store_results` stores, as a dict.

    Keys: ``scaling`` (rows of :func:`scaling`), ``long`` (``{n: summary}`` of the
    fastest structure's long run per size of ``long_frames``, default
    ``LONG_FRAMES``), ``frames`` (their frame rows, then ``frame_frames`` frames at
    ``frame_n`` agents of each of ``frame_structures`` other than the fastest there)
    ``rebuild_vs_update`` (rows of :func:`rebuild_vs_update`) and ``scenes``
    (rows of :func:`scenes` at ``scene_sizes``; ``()`` skips them).
    """
    say = log or (lambda *_: None)
    say("scaling probe (update_many every frame):")
    rows = scaling(sizes, structures=structures, log=log)
    longs, frame_rows = frame_runs(rows, log=log, long_frames=long_frames, frame_structures=frame_structures,
                                   frame_n=frame_n, frame_frames=frame_frames)
    say("rebuild vs update:")
    rvu = rebuild_vs_update(rebuild_sizes, structures=structures, log=log)
    say("scenes: every agent moving, 5 % moving, 5 % moving among giants (both modes):")
    sc = scenes(scene_sizes, structures=structures, log=log)
    return {"scaling": rows, "long": longs, "frames": frame_rows, "rebuild_vs_update": rvu, "scenes": sc}


_WHATS = {
    "scaling": f"lesson 13 simulation: median ms per phase over frames {WARMUP + 1}-{PROBE_FRAMES} per structure and "
               "agent count (update_many mode), pairs and memory_bytes()",
    "frames": f"lesson 13 simulation: every {EVERY}th frame of long runs (phase ms, candidate pairs, memory_bytes()); "
              "the fastest structure per size and others at 20,000 agents",
    "rebuild_vs_update": "lesson 13 simulation: update_many + cleanup every frame against from_boxes every frame; "
                         f"medians over frames {WARMUP + 1}-{REBUILD_FRAMES}",
    "scenes": "lesson 13 simulation on three scenes (moving: every agent moves; resting: 5 % start moving, the "
              "rest at rest until pushed; giants: the same with 10 resting giants of radius 50-100), update_many + "
              f"cleanup or from_boxes every frame; medians over frames {WARMUP + 1}-{PROBE_FRAMES}, candidate pairs, "
              "resting = fraction of agents at rest at the last frame",
}


def store_results(log=print, *, measured: dict | None = None, names=RESULTS, **kwargs) -> list:
    """Write ``sim_scaling``, ``sim_frames``, ``sim_rebuild_vs_update`` and ``sim_scenes`` (or ``names``); return their paths.

    ``measured`` is a result of :func:`measure` (run with ``kwargs`` when not given);
    ``names`` pairs with those four in order (fewer names write fewer files).
    """
    from ..data import save_results

    m = measure(log=log, **kwargs) if measured is None else measured
    return [save_results(name, m[key], command=_COMMAND, what=_WHATS[key])
            for name, key in zip(names, ("scaling", "frames", "rebuild_vs_update", "scenes"))]


def store_frames(log=print, *, name="sim_frames", scaling_rows=None, **kwargs):
    """Rewrite ``sim_frames`` alone (a minute or two); return its path.

    The fastest structure per size is read from ``scaling_rows`` (default: the stored
    ``sim_scaling.csv``, so the long runs follow the structures the lesson names
    fastest); ``kwargs`` go to :func:`frame_runs`.
    """
    from ..data import load_results, save_results

    rows = load_results("sim_scaling").rows() if scaling_rows is None else scaling_rows
    frame_rows = frame_runs(rows, log=log, **kwargs)[1]
    return save_results(name, frame_rows, command=_FRAMES_COMMAND, what=_WHATS["frames"])


def store_scenes(log=print, *, name="sim_scenes", **kwargs):
    """Rewrite ``sim_scenes`` alone (a few minutes); return its path. ``kwargs`` go to :func:`scenes`."""
    from ..data import save_results

    return save_results(name, scenes(log=log, **kwargs), command=_SCENES_COMMAND, what=_WHATS["scenes"])


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if sys.argv[1:] == ["--store", "sim_frames"]:
        print(f"wrote {store_frames()}")
    elif sys.argv[1:] == ["--store", "sim_scenes"]:
        print(f"wrote {store_scenes()}")
    elif "--store" in sys.argv[1:]:
        for path in store_results():
            print(f"wrote {path}")
    else:
        print(f"usage: {_COMMAND}   (writes data/results/{{{','.join(RESULTS)}}}.csv, about 10 minutes)\n"
              f"       {_FRAMES_COMMAND}   (rewrites sim_frames.csv alone, its long runs following the "
              "stored sim_scaling.csv)\n"
              f"       {_SCENES_COMMAND}   (rewrites sim_scenes.csv alone, a few minutes)")

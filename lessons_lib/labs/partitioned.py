"""Lesson 15's pictures and measurements: partitions drawn, balance and replication tabled, a cost model checked.

The join itself is :mod:`lessons_lib.partitioned`; this module only draws and
measures it for the lesson. The cost model (:func:`model_time`) is fitted to the
stored one-worker run and checked against the others (:func:`model_check`);
:func:`time_floor` is what the measured task sizes guarantee whatever the
machines: no run on ``W`` workers can finish sooner.
"""
from __future__ import annotations

import heapq

import numpy as np
from matplotlib.collections import LineCollection

from ..geometry import as_box, as_boxes
from ..partitioned import fit_partitioning, sample_centres
from .natural_earth import load_cities, load_countries

__all__ = [
    "draw_partitioning",
    "partition_borders",
    "balance_rows",
    "lpt_makespan",
    "phase_seconds",
    "model_time",
    "fitted_task_cost",
    "effective_workers",
    "model_check",
    "time_floor",
    "projected_time",
    "natural_earth_sets",
]

#: The phases of the join's task graph, in the order they run: ``sample`` (make a
#: chunk and draw its share of the sample), ``chunk`` (the map task: make it again,
#: assign it, cut it into pieces) and ``partition`` (the join task of one partition).
PHASES = ("sample", "chunk", "partition")


def _clipped_edges(cuts, lo, hi) -> np.ndarray:
    return np.clip(np.concatenate([[lo], cuts, [hi]]), lo, hi)


def partition_borders(partitioning, world) -> np.ndarray:
    """Segments where two cells of different partitions meet, clipped to ``world``: ``(s, 2, 2)`` float64.

    Parameters
    ----------
    partitioning : lessons_lib.partitioned.Partitioning
    world : array_like, shape (4,)
        ``[xmin, ymin, xmax, ymax]`` of the drawing (the outer partitions reach
        to infinity; only this window is drawn).
    """
    w = as_box(world, name="world")
    xe = _clipped_edges(partitioning.xcuts, w[0], w[2])
    ye = _clipped_edges(partitioning.ycuts, w[1], w[3])
    own = partitioning.owner
    segs = []
    i, j = np.nonzero(own[1:, :] != own[:-1, :])  # between columns i and i + 1, in row j
    segs += [[(xe[a + 1], ye[b]), (xe[a + 1], ye[b + 1])] for a, b in zip(i.tolist(), j.tolist())]
    i, j = np.nonzero(own[:, 1:] != own[:, :-1])  # between rows j and j + 1, in column i
    segs += [[(xe[a], ye[b + 1]), (xe[a + 1], ye[b + 1])] for a, b in zip(i.tolist(), j.tolist())]
    return np.array(segs, np.float64).reshape(-1, 2, 2)


def draw_partitioning(ax, partitioning, world, *, cmap="tab20", alpha: float = 0.35, borders: bool = True,
                      border_color="0.15", linewidth: float = 1.0) -> list:
    """Colour each partition and draw the borders between partitions, inside ``world``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    partitioning : lessons_lib.partitioned.Partitioning
    world : array_like, shape (4,)
        The window drawn, world units.
    cmap : str
        A qualitative colormap; partition ``p`` gets colour ``p`` modulo its size.
    alpha : float
        Fill opacity.
    borders : bool
        Draw the borders between partitions as lines.
    border_color, linewidth
        Style of the borders.

    Returns
    -------
    list of matplotlib.artist.Artist
        The filled mesh and (with ``borders``) the LineCollection.
    """
    w = as_box(world, name="world")
    xe = _clipped_edges(partitioning.xcuts, w[0], w[2])
    ye = _clipped_edges(partitioning.ycuts, w[1], w[3])
    colours = (partitioning.owner % 20).T.astype(float)
    artists = [ax.pcolormesh(xe, ye, colours, cmap=cmap, vmin=0, vmax=19, alpha=alpha, shading="flat",
                             linewidth=0, zorder=0.5)]
    if borders:
        lines = LineCollection(partition_borders(partitioning, w), colors=border_color, linewidths=linewidth,
                               zorder=3, label="partition border")
        ax.add_collection(lines)
        artists.append(lines)
    return artists


def balance_rows(boxes, partitioners, counts, *, sample_size: int = 5000, seed: int = 0) -> list[dict]:
    """Replication and load balance of each partitioner at each partition count, on ``boxes``.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        The scene (closed AABBs).
    partitioners : iterable of str
        Keys of :data:`lessons_lib.partitioned.PARTITIONERS`.
    counts : iterable of int
        Partition counts to ask for.
    sample_size, seed
        The sample each partitioner is fitted on (the same for all).

    Returns
    -------
    list of dict
        One row per (partitioner, count): ``partitioner, asked, partitions``
        (made), ``replication`` (boxes received / n), ``load_balance``
        (largest partition / mean), ``largest`` and ``empty`` (partitions
        receiving no box).
    """
    b = as_boxes(boxes)
    sample = sample_centres(b, sample_size, seed)
    rows = []
    for kind in partitioners:
        for k in counts:
            part = fit_partitioning(kind, sample, k)
            c = part.counts(b)
            rows.append({"partitioner": kind, "asked": int(k), "partitions": part.n_partitions,
                         "replication": float(c.sum() / len(b)), "load_balance": float(c.max() / c.mean()),
                         "largest": int(c.max()), "empty": int((c == 0).sum())})
    return rows


def lpt_makespan(seconds, workers: int) -> float:
    """Time until the last of ``workers`` finishes, tasks handed out longest first to the least loaded worker.

    The "longest processing time first" rule (Graham 1969): a good and simple
    stand-in for what a scheduler achieves with tasks of known length.

    Parameters
    ----------
    seconds : array_like, shape (t,)
        Task durations.
    workers : int
        Number of workers (>= 1).
    """
    loads = [0.0] * max(1, int(workers))
    heapq.heapify(loads)
    for s in sorted(np.asarray(seconds, float).tolist(), reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + s)
    return max(loads)


def phase_seconds(tasks, run: str) -> dict:
    """Measured seconds of every task of ``run``, by phase.

    Parameters
    ----------
    tasks : lessons_lib.data.Results
        The stored per-task table (``load_results("partitioned_tasks")``).
    run : str
        A run with per-task times (``"cluster-1"``, ``"out-of-core"``).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{phase: seconds}`` for each of :data:`PHASES`, float64.

    Raises
    ------
    ValueError
        ``run`` has no task rows.
    """
    mine = tasks.where(run=run)
    if len(mine) == 0:
        raise ValueError(f"no per-task times stored for run {run!r}")
    return {kind: np.asarray(mine.where(kind=kind)["seconds"], np.float64) for kind in PHASES}


def _total(phases) -> float:
    return float(sum(np.sum(v) for v in phases.values()))


def model_time(workers: int, phases, *, fit_s: float, n_tasks: int, per_task_s: float) -> float:
    """The cost model: the join's wall time on ``workers`` workers, from measured task times.

    ``fit_s + sum over phases of lpt_makespan(phase, workers) + n_tasks * per_task_s``: the
    phases run one after the other, each one's tasks shared among the workers (longest
    first, each to the least loaded), plus a cost per task that the tasks' own times
    do not include (scheduling, pickling, moving pieces between processes).

    Parameters
    ----------
    workers : int
        Workers running tasks at the same time (>= 1). The model assumes each runs
        its tasks as fast as they were measured: the assumption :func:`model_check` tests.
    phases : dict of str to array_like
        Seconds of every task, by phase (:func:`phase_seconds`).
    fit_s : float
        Fitting the partitioner on the sample (once, in the driver).
    n_tasks : int
        Tasks in the graph.
    per_task_s : float
        Seconds per task beyond its own work (:func:`fitted_task_cost`).

    Returns
    -------
    float
        Seconds.
    """
    w = max(1, int(workers))
    return float(fit_s) + sum(lpt_makespan(v, w) for v in phases.values()) + int(n_tasks) * float(per_task_s)


def fitted_task_cost(wall_s: float, phases, *, fit_s: float, n_tasks: int) -> float:
    """The per-task cost that makes :func:`model_time` on one worker equal a measured one-worker run.

    ``(wall_s - fit_s - all task seconds) / n_tasks``: what one worker spent per
    task beyond the tasks' own measured work.
    """
    if n_tasks < 1:
        raise ValueError(f"n_tasks must be >= 1, got {n_tasks}")
    return (float(wall_s) - float(fit_s) - _total(phases)) / int(n_tasks)


def effective_workers(wall_s: float, phases, *, fit_s: float, n_tasks: int, per_task_s: float) -> float:
    """How many workers' worth of task work a run did at once: all task seconds / the time left for them.

    ``all task seconds / (wall_s - fit_s - n_tasks * per_task_s)``. 1.0 for the run the
    per-task cost was fitted on; ``W`` if ``W`` workers had each run tasks at their
    measured speed all the time.
    """
    left = float(wall_s) - float(fit_s) - int(n_tasks) * float(per_task_s)
    if left <= 0:
        raise ValueError(f"no time left for the tasks: wall {wall_s} s, fixed parts {wall_s - left} s")
    return _total(phases) / left


def model_check(runs, tasks, *, fitted_on: str = "cluster-1") -> list[dict]:
    """The cost model fitted to one stored run and checked against every run it can be checked on.

    The per-task cost is fitted on ``fitted_on`` (one worker process). It is then
    applied to the two-worker cluster run (the same graph and data, so the same
    task times) and, with no per-task cost (threads pass pieces in memory), to
    the out-of-core run on two threads with its own task times.

    Parameters
    ----------
    runs, tasks : lessons_lib.data.Results
        ``load_results("partitioned_runs")`` and ``load_results("partitioned_tasks")``.
    fitted_on : str
        The one-worker run that fixes the per-task cost.

    Returns
    -------
    list of dict
        One row per run: ``run, engine, workers, measured_s, model_s, error``
        (model / measured - 1), ``effective_workers`` and ``per_task_ms`` (the cost
        the model charged per task).
    """
    by_run = {r["run"]: r for r in runs.rows()}
    base = by_run[fitted_on]
    base_phases = phase_seconds(tasks, fitted_on)
    cost = fitted_task_cost(base["wall_s"], base_phases, fit_s=base["fit_s"], n_tasks=base["tasks"])
    plan = [(fitted_on, base_phases, cost)]
    if "cluster-2" in by_run:
        plan.append(("cluster-2", base_phases, cost))
    if "out-of-core" in by_run and len(tasks.where(run="out-of-core")):
        plan.append(("out-of-core", phase_seconds(tasks, "out-of-core"), 0.0))
    rows = []
    for name, phases, c in plan:
        r = by_run[name]
        model = model_time(r["workers"], phases, fit_s=r["fit_s"], n_tasks=r["tasks"], per_task_s=c)
        rows.append({"run": name, "engine": r["engine"], "workers": int(r["workers"]), "measured_s": float(r["wall_s"]),
                     "model_s": model, "error": model / float(r["wall_s"]) - 1.0,
                     "effective_workers": effective_workers(r["wall_s"], phases, fit_s=r["fit_s"], n_tasks=r["tasks"],
                                                            per_task_s=c),
                     "per_task_ms": 1e3 * c})
    return rows


def time_floor(workers: int, phases, *, fit_s: float) -> float:
    """No run on ``workers`` equal workers can finish sooner: ``fit_s + sum over phases of max(longest, total / workers)``.

    Holds whatever the machines, as long as every task takes at least its measured
    time and each phase waits for the one before (as the join's graph does):
    a phase cannot end before its longest task, nor before its work shared evenly.

    Parameters
    ----------
    workers : int
        >= 1.
    phases : dict of str to array_like
        Seconds of every task, by phase (:func:`phase_seconds`).
    fit_s : float
        The part done once, by the driver.

    Returns
    -------
    float
        Seconds.
    """
    w = max(1, int(workers))
    out = float(fit_s)
    for v in phases.values():
        v = np.asarray(v, np.float64)
        if len(v):
            out += max(float(v.max()), float(v.sum()) / w)
    return out


def projected_time(workers: int, *, fit_s: float, chunk_s, partition_s, shipped_bytes: float, n_tasks: int,
                   task_overhead_s: float, sample_s=(), bandwidth: float = 125e6) -> dict:
    """A model of the join's wall time on ``workers`` machines, from per-task times measured on one.

    Parameters
    ----------
    workers : int
        Machines, one task at a time each.
    fit_s : float
        Fitting the partitioner on the sample, done once by the driver (does not shrink).
    chunk_s, partition_s : array_like
        Measured seconds of each map task and each partition's join.
    sample_s : array_like
        Measured seconds of each sampling task (a first pass over the chunks).
    shipped_bytes : float
        Bytes of all the pieces the map tasks hand out.
    n_tasks : int
        Tasks in the graph.
    task_overhead_s : float
        The scheduler's cost per task (measured), paid one task after another.
    bandwidth : float
        Bytes per second each worker receives over the network (an assumption:
        125e6 is a 1 Gbit/s link).

    Returns
    -------
    dict
        ``sample, fit, map, ship, join, scheduler, total`` in seconds.

    Notes
    -----
    Sampling, map and join phases, one after the other: :func:`lpt_makespan` of the measured tasks. Shipping:
    a piece stays on its worker with probability ``1 / workers``; the rest,
    ``shipped_bytes * (workers - 1) / workers``, is spread evenly over the
    workers' links, which work in parallel. No stragglers, no failures, the
    same per-task times on every machine: a projection, not a measurement.
    Checked against the stored runs it is too fast by 40 % on one worker and
    71 % on two (lesson 15's appendix); :func:`model_time`, fitted to the
    one-worker run, replaces it in the lesson.
    """
    w = max(1, int(workers))
    out = {
        "sample": lpt_makespan(sample_s, w),
        "fit": float(fit_s),
        "map": lpt_makespan(chunk_s, w),
        "ship": float(shipped_bytes) * (w - 1) / w / w / float(bandwidth),
        "join": lpt_makespan(partition_s, w),
        "scheduler": float(n_tasks) * float(task_overhead_s),
    }
    out["total"] = sum(out.values())
    return out


def natural_earth_sets():
    """The two sets of the lesson's real-data join: cities as zero-size boxes, and the countries' bounding boxes.

    Returns
    -------
    city_names : list of str
    city_boxes : numpy.ndarray, shape (243, 4), float64
        ``[lon, lat, lon, lat]`` in degrees.
    countries : list of dict
        As :func:`lessons_lib.labs.natural_earth.load_countries` returns them.
    country_boxes : numpy.ndarray, shape (177, 4), float64
        Bounding boxes, degrees.
    """
    names, cities = load_cities()
    countries = load_countries()
    return (names, np.column_stack([cities, cities]), countries,
            np.array([c["bbox"] for c in countries], np.float64).reshape(-1, 4))

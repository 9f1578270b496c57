"""Lesson 14's pictures and measurements: partitions drawn, balance and replication tabled, 100 workers projected.

The join itself is :mod:`lessons_lib.partitioned`; this module only draws and
measures it for the lesson.
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
    "projected_time",
    "natural_earth_sets",
]


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

"""The partitioned join as a Dask task graph: sample, partition, ship, join locally, report once.

:func:`partitioned_join` writes the join as a Dask task graph ([Rocklin2015]): a
dictionary whose values are tasks, ``(function, argument, ...)``, an argument
being either a value or the key of another task. Dask runs the tasks in an order
that respects these dependencies, on as many workers as it has:

1. **sample**: a few thousand boxes, drawn from every chunk of the input; the
   driver fits a :class:`~lessons_lib.partitioned.partitioners.Partitioning` on
   their centres (small, shipped once to every worker), and checks on the
   sampled boxes how many partitions a box would be copied into on average
   (the *replication*): beyond ``max_replication`` (default
   :data:`MAX_REPLICATION`) it **refits with half as many partitions**, again
   until the estimate is within the limit, and says so with a
   :class:`ReplicationWarning` before the join runs (2,000 mutually
   overlapping boxes at 200 k-d tree partitions were copied into 146
   partitions each: 98 s against 1 s with one partition, with no word);
2. **map**, one task per input chunk: make or load the chunk, send each box to
   every partition it reaches (:meth:`Partitioning.assign`), and hand out one
   piece (ids and boxes) per partition;
3. **shuffle**: Dask moves each piece to the worker that joins its partition
   (with ``spill_dir`` the pieces go through files instead, one pair of files
   per map task, so no process holds much more than a chunk and a partition at a
   time: out of core);
4. **reduce**, one task per partition: join the pieces locally with a
   registered structure and keep the pairs whose reference point the partition
   holds (:func:`~lessons_lib.partitioned.local.join_partition`);
5. the driver concatenates the partitions' pairs and sorts them into the
   canonical order. There is no de-duplication step: no pair is found twice.

``scheduler=None`` runs the graph on Dask's local threaded scheduler, in this
process, with nothing to start. A scheduler address (``"tcp://host:8786"``, e.g.
``distributed.LocalCluster(...).scheduler_address``) or a ``distributed.Client``
runs it on that cluster; any other name Dask knows (``"threads"``,
``"processes"``, ``"sync"``) is passed on.

This is how Apache Sedona joins on Spark ([Yu2019]); dask-geopandas
([dask-geopandas]) sorts each side into Hilbert-ordered partitions instead, with
no box sent twice, and joins every pair of partitions whose bounds meet.
"""
from __future__ import annotations

import contextlib
import math
import operator
import os
import pickle
import shutil
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..base import resolve_structure
from ..core.params import check_int, check_positive
from ..geometry import as_boxes
from .local import PartitionResult, join_partition, sort_pair_rows
from .partitioners import Partitioning, fit_partitioning

__all__ = ["BoxChunks", "JoinResult", "MAX_REPLICATION", "ReplicationWarning", "partitioned_join", "compute_on"]

#: Default most partitions a box may be copied into on average (estimated on the sample) before the join refits.
MAX_REPLICATION = 4.0


class ReplicationWarning(UserWarning):
    """The partitioning asked for would copy each box into too many partitions: the join refitted it with fewer."""


# --------------------------------------------------------------------------
# Inputs made chunk by chunk
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class BoxChunks:
    """A set of boxes that is never whole in one place: chunk ``k`` is ``make(k)``, made where it is needed.

    Attributes
    ----------
    sizes : tuple of int
        Boxes in each chunk. The ids of chunk ``k`` are ``starts[k] .. starts[k] + sizes[k] - 1``.
    make : callable
        ``make(k) -> (sizes[k], 4)`` float64 boxes. It runs on the workers, so it
        must pickle: a module-level function or a ``functools.partial`` of one
        (reading a file, generating a scene...).

    Raises
    ------
    ValueError
        A negative chunk size. A chunk of the wrong length raises when it is made.
    """

    sizes: tuple
    make: Callable[[int], np.ndarray]

    def __post_init__(self):
        sizes = tuple(check_int("chunk size", s, 0) for s in self.sizes)
        object.__setattr__(self, "sizes", sizes)

    @property
    def n(self) -> int:
        """Total number of boxes."""
        return int(sum(self.sizes))

    @property
    def starts(self) -> np.ndarray:
        """First id of each chunk: ``(chunks,)`` int64."""
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64) if self.sizes else np.zeros(0, np.int64)


def _made_chunk(make, k: int, size: int, where: str) -> np.ndarray:
    b = as_boxes(make(k), name=f"{where}, chunk {k}")
    if len(b) != size:
        raise ValueError(f"{where}, chunk {k}: made {len(b)} boxes, its size says {size}")
    return b


def _chunk_sample(make, k: int, size: int, take: int, seed: int, where: str):
    """Make chunk ``k``, keep ``take`` random boxes of it: ``(boxes, seconds)``."""
    t0 = time.perf_counter()
    b = _made_chunk(make, k, size, where)
    if take < len(b):
        b = b[np.sort(np.random.default_rng([seed, k]).choice(len(b), take, replace=False))]
    return b, time.perf_counter() - t0


# --------------------------------------------------------------------------
# Map and reduce tasks
# --------------------------------------------------------------------------
#: Bytes a pickled piece (an id array and a box array) takes beyond its raw data.
PIECE_HEADER_BYTES = len(pickle.dumps((np.zeros(0, np.int64), np.zeros((0, 4))), protocol=5))


def _chunk_files(spill: str, where: str, chunk: int) -> tuple[str, str]:
    stem = os.path.join(spill, f"{where}{chunk}")
    return stem + "_ids.npy", stem + "_boxes.npy"


def _map_chunk(boxes, start: int, partitioning: Partitioning, chunk: int, where: str, spill: str | None):
    """Assign one chunk; return ``(stats, piece_0, ..., piece_{P-1})`` (pieces ``None`` when written to files).

    With ``spill``, the chunk's boxes are written once, grouped by partition, to
    two files (ids and boxes), and ``stats["offsets"]`` says where each
    partition's piece starts: one file per map task with an index, as Spark's
    sort-based shuffle writes it.
    """
    t0 = time.perf_counter()
    rows, offsets = partitioning.assign(boxes)
    ids = rows + start
    counts = np.diff(offsets)
    stats = {"chunk": chunk, "set": where, "boxes": len(boxes), "assigned": len(rows), "offsets": offsets}
    if spill is None:  # what Dask ships: the raw arrays plus a pickle header per piece
        pieces = [(ids[offsets[p]:offsets[p + 1]], boxes[rows[offsets[p]:offsets[p + 1]]])
                  for p in range(partitioning.n_partitions)]
        stats["bytes"] = int(sum(pid.nbytes + pbox.nbytes + PIECE_HEADER_BYTES
                                 for (pid, pbox), c in zip(pieces, counts) if c))
    else:
        f_ids, f_boxes = _chunk_files(spill, where, chunk)
        np.save(f_ids, ids)
        np.save(f_boxes, boxes[rows])
        stats["bytes"] = os.path.getsize(f_ids) + os.path.getsize(f_boxes)
        pieces = [None] * partitioning.n_partitions
    stats["seconds"] = time.perf_counter() - t0
    return (stats, *pieces)


def _map_generated(make, k: int, size: int, start: int, partitioning, where: str, spill):
    t0 = time.perf_counter()
    boxes = _made_chunk(make, k, size, where)
    out = _map_chunk(boxes, start, partitioning, k, where, spill)
    out[0]["seconds"] = time.perf_counter() - t0  # making the chunk is part of the map task
    return out


def _gather_pieces(pieces, p: int, spill, where: str):
    """The ids and boxes of one partition from its pieces (or from the files the map tasks wrote)."""
    ids, boxes = [], []
    for item in pieces:
        if spill is None:
            pid, pbox = item
        else:  # item is a map task's stats: read this partition's rows of the files it wrote
            lo, hi = item["offsets"][p], item["offsets"][p + 1]
            if hi == lo:
                continue
            f_ids, f_boxes = _chunk_files(spill, where, item["chunk"])
            pid = np.array(np.load(f_ids, mmap_mode="r")[lo:hi])
            pbox = np.array(np.load(f_boxes, mmap_mode="r")[lo:hi])
        ids.append(pid)
        boxes.append(pbox)
    if not ids:
        return np.zeros(0, np.int64), np.zeros((0, 4))
    return np.concatenate(ids), np.ascontiguousarray(np.concatenate(boxes))


def _reduce_partition(p: int, partitioning, pieces_a, pieces_b, spill, options) -> PartitionResult:
    ids_a, boxes_a = _gather_pieces(pieces_a, p, spill, "a")
    ids_b = boxes_b = None
    if pieces_b is not None:
        ids_b, boxes_b = _gather_pieces(pieces_b, p, spill, "b")
    return join_partition(p, partitioning, ids_a, boxes_a, ids_b, boxes_b, **options)


# --------------------------------------------------------------------------
# Running a graph
# --------------------------------------------------------------------------
@contextlib.contextmanager
def compute_on(scheduler=None, num_workers: int | None = None):
    """A function running Dask task graphs on ``scheduler``, for the time of a ``with`` block.

    Parameters
    ----------
    scheduler : None, str or distributed.Client
        ``None``: Dask's default (the local threaded scheduler, or the
        ``distributed.Client`` set as default in this session, if any). A string
        with ``"://"``: the address of a ``distributed`` scheduler, connected to
        and closed again. A ``distributed.Client``: used as it is. Another string
        (``"threads"``, ``"processes"``, ``"sync"``): that local scheduler.
    num_workers : int, optional
        Threads or processes of a local scheduler (ignored by a cluster, which
        has its own workers).

    Yields
    ------
    callable
        ``run(graph, keys) -> list`` of the keys' results, in order; ``graph``
        is a dict of Dask tasks.

    Raises
    ------
    ValueError
        A bad ``num_workers``, or a scheduler name Dask does not know.
    OSError
        No scheduler answers at the address (raised by ``distributed``).
    """
    import dask.threaded
    from dask.base import get_scheduler

    num_workers = None if num_workers is None else check_int("num_workers", num_workers, 1)
    local = {} if num_workers is None else {"num_workers": num_workers}
    if isinstance(scheduler, str) and "://" in scheduler:
        from distributed import Client

        with Client(scheduler, set_as_default=False) as client:
            yield lambda graph, keys: list(client.get(graph, list(keys)))
    elif scheduler is not None and not isinstance(scheduler, str):
        yield lambda graph, keys: list(scheduler.get(graph, list(keys)))
    else:
        try:
            get = get_scheduler(scheduler=scheduler) if scheduler is not None else get_scheduler()
        except ValueError:
            raise ValueError(f"unknown scheduler {scheduler!r}: give None, 'threads', 'processes', 'sync', "
                             "a scheduler address or a distributed.Client") from None
        get = get or dask.threaded.get
        if getattr(get, "__self__", None) is not None:  # the default distributed Client's get
            local = {}
        yield lambda graph, keys: list(get(graph, list(keys), **local))


# --------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------
@dataclass
class JoinResult:
    """What :func:`partitioned_join` found, and what it cost, partition by partition.

    Attributes
    ----------
    pairs : numpy.ndarray, shape (k, 2), int64, or None
        Self-join: ``(i, j)`` ids with ``i < j``; two-set join: ``(i in boxes, j in other)``.
        Rows sorted. ``None`` with ``return_pairs=False``.
    n_pairs : int
        ``k``, also when the pairs were not gathered.
    partitioning : Partitioning
    n_input : int
        Boxes given (both sets).
    n_boxes, candidates, pairs_per_partition : numpy.ndarray, shape (P,), int64
        Per partition: boxes received, pairs its local join found, pairs it kept.
    partition_seconds : numpy.ndarray, shape (P,), float64
        Per partition: time of its local join and rule, measured in the task.
    verified : numpy.ndarray, shape (P,), bool, or None
        Per partition: a second structure found the same local pairs.
    chunk_seconds, chunk_bytes : numpy.ndarray, shape (C,)
        Per input chunk: time of its map task (making or loading included), and
        the bytes of the pieces it handed out (pickled, or written to files).
    sample_seconds : numpy.ndarray, shape (C,) or (0,)
        Per input chunk made on demand: the task that made it and drew its share
        of the sample (a first pass over the data; none for arrays, sampled here).
    fit_seconds : float
        Fitting the partitioner on the sample, in the driver (0 for a partitioning given).
    wall_seconds : float
        The whole call.
    n_tasks : int
        Tasks in the main graph.
    notes : dict
        ``notes["replication"]`` (a partitioner fitted on a sample): the
        estimated replication, the limit, the partitions asked for and fitted,
        and, when the join refitted, the estimate at the partitions asked for.
    """

    pairs: np.ndarray | None
    n_pairs: int
    partitioning: Partitioning
    n_input: int
    n_boxes: np.ndarray
    candidates: np.ndarray
    pairs_per_partition: np.ndarray
    partition_seconds: np.ndarray
    verified: np.ndarray | None
    chunk_seconds: np.ndarray
    chunk_bytes: np.ndarray
    sample_seconds: np.ndarray
    fit_seconds: float
    wall_seconds: float
    n_tasks: int
    notes: dict = field(default_factory=dict)

    @property
    def replication(self) -> float:
        """Boxes received by all partitions / boxes given (1.0: no box crosses an edge)."""
        return float(self.n_boxes.sum() / max(1, self.n_input))

    @property
    def load_balance(self) -> float:
        """Boxes of the largest partition / mean boxes per partition (1.0: perfectly even)."""
        return float(self.n_boxes.max() / max(1e-300, self.n_boxes.mean()))

    @property
    def bytes_per_box(self) -> float:
        """Bytes shipped per box received by a partition (pieces' bytes / boxes in them)."""
        return float(self.chunk_bytes.sum() / max(1, self.n_boxes.sum()))

    def summary(self) -> str:
        """A few lines: partitions, replication, balance, pairs, times."""
        ver = "" if self.verified is None else f"; {int(self.verified.sum())}/{len(self.verified)} partitions verified"
        return (f"{self.partitioning.kind} partitioner, {self.partitioning.n_partitions} partitions, "
                f"{self.n_input:,} boxes in {len(self.chunk_seconds)} chunks\n"
                f"replication {self.replication:.3f}, load balance (largest / mean) {self.load_balance:.2f}\n"
                f"{self.n_pairs:,} pairs ({int(self.candidates.sum() - self.n_pairs):,} found twice or more "
                f"and kept once by the reference-point rule){ver}\n"
                f"{self.n_tasks:,} tasks; fitting {self.fit_seconds:.3f} s, whole join {self.wall_seconds:.3f} s"
                + self._refit_line())

    def _refit_line(self) -> str:
        r = self.notes.get("replication", {})
        if "estimated at the partitions asked" not in r:
            return ""
        return (f"\nrefitted: {r['partitions asked']} partitions would have copied each box into "
                f"{r['estimated at the partitions asked']:.1f} partitions (limit {r['limit']:g})")


# --------------------------------------------------------------------------
# The join
# --------------------------------------------------------------------------
def _chunked(source, chunk_size: int, where: str):
    """``(n, sizes, starts, array or None, BoxChunks or None)`` of an input."""
    if isinstance(source, BoxChunks):
        return source.n, list(source.sizes), source.starts, None, source
    b = as_boxes(source, name=where)
    sizes = [min(chunk_size, len(b) - s) for s in range(0, len(b), chunk_size)]
    return len(b), sizes, np.arange(0, len(b), chunk_size, dtype=np.int64), b, None


def _sample_boxes(inputs, sample_size: int, seed: int, run) -> tuple[np.ndarray, np.ndarray]:
    """Sampled boxes of all inputs, and the seconds of each sampling task (none for arrays, sampled here)."""
    total = sum(n for n, *_ in inputs)
    points, graph, name = [], {}, f"lesson15-{uuid.uuid4().hex[:12]}"
    for w, (n, sizes, starts, arr, gen) in zip("ab", inputs):
        for k, size in enumerate(sizes):
            take = min(size, math.ceil(sample_size * size / max(1, total)))
            if arr is not None:
                chunk = arr[starts[k]:starts[k] + size]
                if take < size:
                    chunk = chunk[np.sort(np.random.default_rng([seed, k, ord(w)]).choice(size, take, replace=False))]
                points.append(chunk)
            else:
                graph[(f"{name}-sample", w, k)] = (_chunk_sample, gen.make, k, size, take, seed, f"boxes {w}")
    seconds = []
    if graph:
        for pts, sec in run(graph, list(graph)):
            points.append(pts)
            seconds.append(sec)
    return (np.concatenate(points) if points else np.zeros((0, 4))), np.array(seconds, np.float64)


def _fit_within(partitioner, sample: np.ndarray, n_partitions: int, max_replication: float):
    """Fit ``partitioner`` on the centres of ``sample`` for ``n_partitions``; while the sampled boxes would be
    copied into more than ``max_replication`` partitions on average, refit with half as many.

    Returns ``(partitioning, estimated replication, partitions asked for at the last fit)``.
    """
    points = 0.5 * (sample[:, :2] + sample[:, 2:]) if len(sample) else np.zeros((1, 2))
    n = n_partitions
    while True:
        part = fit_partitioning(partitioner, points, n)
        estimate = float(part.counts(sample).sum() / len(sample)) if len(sample) else 1.0
        if estimate <= max_replication or n == 1:
            return part, estimate, n
        n = max(1, n // 2)


def _join_graph(inputs, part: Partitioning, spill, options) -> tuple[dict, list, list]:
    """The task graph of the join: ``(graph, keys of the map statistics, keys of the partition results)``.

    Keys carry a fresh random name, so that joins sent to one cluster at the same
    time (two notebooks, say) never mistake each other's tasks for their own.
    """
    name = f"lesson15-{uuid.uuid4().hex[:12]}"
    P = part.n_partitions
    part_key = (f"{name}-partitioning",)
    graph = {part_key: part}  # a value, shipped once to each worker that needs it
    stats_keys, pieces = [], {}
    for w, (n, sizes, starts, arr, gen) in zip("ab", inputs):
        for k, size in enumerate(sizes):
            key = (f"{name}-map", w, k)
            if arr is not None:
                graph[(f"{name}-chunk", w, k)] = arr[starts[k]:starts[k] + size]
                graph[key] = (_map_chunk, (f"{name}-chunk", w, k), int(starts[k]), part_key, k, w, spill)
            else:
                graph[key] = (_map_generated, gen.make, k, size, int(starts[k]), part_key, w, spill)
            graph[(f"{name}-stats", w, k)] = (operator.getitem, key, 0)
            stats_keys.append((f"{name}-stats", w, k))
            if spill is None:  # one small task per piece: Dask moves it to the partition's worker
                for p in range(P):
                    graph[(f"{name}-piece", w, k, p)] = (operator.getitem, key, 1 + p)
        pieces[w] = lambda p, w=w, m=len(sizes): [
            (f"{name}-stats", w, k) if spill is not None else (f"{name}-piece", w, k, p) for k in range(m)]
    red_keys = []
    for p in range(P):
        graph[(f"{name}-join", p)] = (_reduce_partition, p, part_key, pieces["a"](p),
                                      pieces["b"](p) if "b" in pieces else None, spill, options)
        red_keys.append((f"{name}-join", p))
    return graph, stats_keys, red_keys


def partitioned_join(boxes, other=None, *, partitioner="kdtree", n_partitions: int = 16,
                     structure="uniform_grid", structure_params: dict | None = None, sample_size: int = 10_000,
                     seed: int = 0, chunk_size: int = 100_000, scheduler=None, num_workers: int | None = None,
                     verify_with=None, return_pairs: bool = True, spill_dir=None,
                     max_replication: float | None = MAX_REPLICATION) -> JoinResult:
    """Every overlapping pair of ``boxes`` (or between ``boxes`` and ``other``), computed partition by partition on Dask.

    Parameters
    ----------
    boxes : array_like, shape (n, 4), or BoxChunks
        Closed AABBs ``[xmin, ymin, xmax, ymax]``, world units; ids are row
        numbers (for :class:`BoxChunks`, chunk ``k`` starts at ``starts[k]``).
    other : array_like, shape (m, 4), or BoxChunks, optional
        A second set: the join reports ``(i in boxes, j in other)``. ``None``: self-join.
    partitioner : str or Partitioning
        A key of :data:`~lessons_lib.partitioned.partitioners.PARTITIONERS`
        (``"grid"``, ``"quadtree"``, ``"kdtree"``, ``"str"``, ``"hilbert"``),
        fitted on a sample; or a partitioning fitted beforehand.
    n_partitions : int
        Partitions to ask the partitioner for (>= 1); fewer when they would
        copy the boxes too often (``max_replication``).
    structure : str or BroadPhase subclass
        The registered structure each partition joins with.
    structure_params : dict, optional
        Its keyword parameters.
    sample_size : int
        Box centres the partitioner is fitted on, drawn from every chunk in
        proportion to its size.
    seed : int
        Seed of the sample.
    chunk_size : int
        Rows per map task when ``boxes`` is an array.
    scheduler, num_workers
        Where the graph runs (see :func:`compute_on`); default Dask's local
        threaded scheduler.
    verify_with : str or BroadPhase subclass, optional
        A second structure each partition checks its local pairs against.
    return_pairs : bool
        ``False``: count pairs without gathering them (for runs whose pairs do not fit the driver).
    spill_dir : str or Path, optional
        Shuffle through files in a fresh folder under this one (removed at the
        end): the out-of-core mode. Every worker must see the folder (one
        machine, or a shared file system).
    max_replication : float or None
        The stated factor (>= 1, default :data:`MAX_REPLICATION`): when the
        sampled boxes would each be copied into more partitions than this on
        average, the partitioner is fitted again with half as many partitions,
        until the estimate is within it (or one partition is left), with a
        :class:`ReplicationWarning` naming both counts and the estimates,
        before the join runs. ``result.notes["replication"]`` holds the
        estimate either way. ``None``: no check. A :class:`Partitioning`
        given is used as it is (nothing is sampled).

    Returns
    -------
    JoinResult

    Raises
    ------
    ValueError
        Bad boxes (naming the set, chunk and row), an unknown partitioner or
        structure, a bad parameter (named).

    Warns
    -----
    ReplicationWarning
        The partitioning was refitted with fewer partitions (see ``max_replication``).

    Notes
    -----
    Work: O(n) to assign (times the replication, at most about
    ``max_replication`` once refitted), plus the local joins; the
    only global steps are fitting the partitioner on the sample and, with
    ``return_pairs``, sorting the output. The result equals the single-machine
    ``pairs()`` (the tests check it against brute force for every partitioner).

    Examples
    --------
    >>> from lessons_lib import make_scene, brute_force_pairs
    >>> import numpy as np
    >>> boxes = make_scene("clustered", 500, seed=3)
    >>> result = partitioned_join(boxes, partitioner="str", n_partitions=6, chunk_size=200)
    >>> np.array_equal(result.pairs, brute_force_pairs(boxes)), result.partitioning.n_partitions
    (True, 6)
    """
    t_start = time.perf_counter()
    n_partitions = check_int("n_partitions", n_partitions, 1)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    sample_size = check_int("sample_size", sample_size, 1)
    if max_replication is not None:
        max_replication = check_positive("max_replication", max_replication, unit="partitions per box")
        if max_replication < 1:
            raise ValueError(f"max_replication must be at least 1 (a box reaches at least one partition), "
                             f"got {max_replication!r}")
    resolve_structure(structure)
    if verify_with is not None:
        resolve_structure(verify_with)
    inputs = [_chunked(boxes, chunk_size, "boxes")]
    if other is not None:
        inputs.append(_chunked(other, chunk_size, "other"))
    options = {"structure": structure, "verify_with": verify_with, "return_pairs": return_pairs,
               "params": dict(structure_params or {})}
    spill = None if spill_dir is None else tempfile.mkdtemp(prefix="partitioned-join-", dir=str(spill_dir))
    try:
        with compute_on(scheduler, num_workers) as run:
            sample_seconds = np.zeros(0)
            notes = {}
            if isinstance(partitioner, Partitioning):
                part, fit_seconds = partitioner, 0.0
            else:
                sample, sample_seconds = _sample_boxes(inputs, sample_size, seed, run)
                t_fit = time.perf_counter()  # no boxes at all: any partitioning gives the answer, no pairs
                part, estimate, asked = _fit_within(partitioner, sample, n_partitions,
                                                    np.inf if max_replication is None else max_replication)
                fit_seconds = time.perf_counter() - t_fit
                notes["replication"] = {"estimated": estimate, "limit": max_replication,
                                        "partitions asked": n_partitions, "partitions fitted": part.n_partitions}
                if asked < n_partitions:
                    first = fit_partitioning(partitioner, 0.5 * (sample[:, :2] + sample[:, 2:]), n_partitions)
                    before = float(first.counts(sample).sum() / len(sample))
                    notes["replication"]["estimated at the partitions asked"] = before
                    warnings.warn(
                        f"{partitioner} partitioning with {n_partitions} partitions would copy each box into "
                        f"{before:.1f} partitions on average (estimated on {len(sample):,} sampled boxes), more "
                        f"than max_replication={max_replication:g}: refitted with {part.n_partitions} partitions "
                        f"(estimated replication {estimate:.2f}); pass max_replication=None to keep "
                        f"{n_partitions}", ReplicationWarning, stacklevel=2)
            graph, stats_keys, red_keys = _join_graph(inputs, part, spill, options)
            n_tasks = sum(isinstance(v, tuple) for v in graph.values())
            out = run(graph, stats_keys + red_keys)
    finally:
        if spill is not None:
            shutil.rmtree(spill, ignore_errors=True)
    chunk_stats, parts = out[:len(stats_keys)], out[len(stats_keys):]
    pairs = sort_pair_rows(np.concatenate([r.pairs for r in parts])) if return_pairs else None
    as_arr = lambda key, dtype: np.array([getattr(r, key) for r in parts], dtype)  # noqa: E731
    verified = None if verify_with is None else as_arr("verified", bool)
    return JoinResult(
        pairs=pairs,
        n_pairs=int(sum(r.n_pairs for r in parts)),
        partitioning=part,
        n_input=int(sum(n for n, *_ in inputs)),
        n_boxes=as_arr("n_boxes", np.int64),
        candidates=as_arr("candidates", np.int64),
        pairs_per_partition=as_arr("n_pairs", np.int64),
        partition_seconds=as_arr("seconds", np.float64),
        verified=verified,
        chunk_seconds=np.array([s["seconds"] for s in chunk_stats], np.float64),
        chunk_bytes=np.array([s["bytes"] for s in chunk_stats], np.int64),
        sample_seconds=sample_seconds,
        fit_seconds=fit_seconds,
        wall_seconds=time.perf_counter() - t_start,
        n_tasks=n_tasks,
        notes=notes,
    )

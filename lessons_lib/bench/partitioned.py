"""Stored results of lesson 15: the partitioned join on one and two workers, and ten million boxes out of core.

``python -m lessons_lib.bench.partitioned`` (``make bench`` runs it; about three
minutes on the course's 2-core machine) writes two files under ``data/results/``
with :func:`lessons_lib.data.save_results`:

``partitioned_runs.csv``, one row per run:
    1,000,000 boxes (the ``random`` scene at the article's density,
    :func:`lessons_lib.scenes.scaled_scene`) made chunk by chunk on the workers,
    k-d tree partitioner, 64 partitions, joined with the uniform grid: on one
    machine with one structure (``pairs()``, the reference), on Dask's local
    threaded scheduler with 1 and 2 threads, and on a ``distributed.LocalCluster``
    with 1 and 2 worker processes (medians of 3 runs; every partitioned result
    is compared with the reference, pair for pair). Then the out-of-core run:
    10,000,000 boxes in chunks of 250,000, 256 partitions, shuffled through
    files, counts only, each partition's local pairs verified against sweep and
    prune, in a fresh process whose peak resident memory is the whole run's.
    Columns: ``run, engine, workers, n, chunks, partitions, partitioner,
    structure, wall_s, fit_s`` (fitting the partitioner on the sample, in the
    driver), ``pairs, check, replication, load_balance,
    bytes_per_box, tasks, peak_rss_mb, start_rss_mb, task_overhead_ms`` (the two
    memory columns for the out-of-core run only: the peak, and what the process
    held before the join started).
``partitioned_tasks.csv``, one row per task of the 1-worker cluster run and of
    the 10-million run: ``run, kind`` (``sample``: make a chunk and draw its share
    of the sample; ``chunk``: make it again and assign it; ``partition``: join
    one partition), ``index, boxes, pairs, seconds, bytes``. Lesson 15 fits its cost
    model to them and bounds the speedup with them.

Options: ``--n`` and ``--big-n`` change the sizes, ``--skip-big`` leaves the
out-of-core run out, ``--no-save`` only prints. Timings never fail the run; a
partitioned result that differs from the reference does (exit code 1).
"""
from __future__ import annotations

import argparse
import functools
import json
import logging
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..base import STRUCTURES
from ..scenes import make_scene, scale_to

__all__ = ["scene_chunks", "run_small", "big_run", "main"]

PARTITIONER = "kdtree"
STRUCTURE = "uniform_grid"
CHECK_STRUCTURE = "sweep_and_prune"


def _scene_chunk(scene: str, n: int, chunk_size: int, seed: int, k: int) -> np.ndarray:
    size = min(chunk_size, n - k * chunk_size)
    return make_scene(scene, size, seed=seed * 1_000_003 + k, world=scale_to(n))


def scene_chunks(scene: str, n: int, chunk_size: int, seed: int = 0):
    """``n`` boxes of ``scene`` at the article's density, as :class:`~lessons_lib.partitioned.BoxChunks`.

    Chunk ``k`` is ``make_scene(scene, size, seed=seed * 1000003 + k,
    world=scale_to(n))``: made on the worker that needs it, never all at once.
    Together the chunks are one scene of ``n`` boxes (each chunk spread over the
    whole world).
    """
    from ..partitioned import BoxChunks

    sizes = [min(chunk_size, n - s) for s in range(0, n, chunk_size)]
    return BoxChunks(tuple(sizes), functools.partial(_scene_chunk, scene, n, chunk_size, seed))


def _run_row(run, engine, workers, result, wall, check, **extra):
    return {"run": run, "engine": engine, "workers": workers, "n": result.n_input,
            "chunks": len(result.chunk_seconds), "partitions": result.partitioning.n_partitions,
            "partitioner": result.partitioning.kind, "structure": STRUCTURE, "wall_s": wall,
            "fit_s": result.fit_seconds, "pairs": result.n_pairs, "check": check,
            "replication": result.replication, "load_balance": result.load_balance,
            "bytes_per_box": result.bytes_per_box, "tasks": result.n_tasks,
            "peak_rss_mb": extra.get("peak_rss_mb", float("nan")),
            "start_rss_mb": float("nan"),
            "task_overhead_ms": extra.get("task_overhead_ms", float("nan"))}


def _task_rows(run, chunk_boxes, sample_seconds, chunk_seconds, chunk_bytes, n_boxes, pairs, seconds):
    rows = [{"run": run, "kind": "sample", "index": k, "boxes": int(b), "pairs": 0, "seconds": float(s), "bytes": 0}
            for k, (b, s) in enumerate(zip(chunk_boxes, sample_seconds))]
    rows += [{"run": run, "kind": "chunk", "index": k, "boxes": int(b), "pairs": 0, "seconds": float(s),
             "bytes": int(nb)} for k, (b, s, nb) in enumerate(zip(chunk_boxes, chunk_seconds, chunk_bytes))]
    rows += [{"run": run, "kind": "partition", "index": p, "boxes": int(b), "pairs": int(k), "seconds": float(s),
              "bytes": 0} for p, (b, k, s) in enumerate(zip(n_boxes, pairs, seconds))]
    return rows


def _noop(i):
    return i


def _task_overhead_ms(address: str, tasks: int = 1000) -> float:
    """Milliseconds per trivial task through the cluster (median of 3 batches of ``tasks``)."""
    from distributed import Client

    with Client(address, set_as_default=False) as client:
        times = []
        for rep in range(3):
            t0 = time.perf_counter()
            client.gather(client.map(_noop, range(rep * tasks, (rep + 1) * tasks), pure=False))
            times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times) / tasks


def _rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux ``/proc``; NaN elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return float("nan")


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB.

    ``VmHWM`` of ``/proc/self/status`` (Linux): the high-water mark of this
    program's own memory. ``getrusage``'s ``ru_maxrss`` is not used where
    ``/proc`` exists, because Linux carries it over an ``exec``: a child started
    by a big parent would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def big_run(n: int, chunk_size: int, partitions: int, workers: int = 2, seed: int = 0) -> dict:
    """The out-of-core self-join (counts only, every partition verified); returns figures and per-task lists.

    Runs on Dask's local threaded scheduler in this process, so the process's peak
    resident memory (``peak_rss_mb``, read at the end) is the whole run's;
    ``start_rss_mb`` is what the process held before the join started (Python,
    numpy, numba, Dask and the library, imported).
    """
    import dask.threaded  # noqa: F401  (imported before the start is measured, as the join would)

    from ..partitioned import partitioned_join

    start_rss = _rss_mb()
    source = scene_chunks("random", n, chunk_size, seed)
    with tempfile.TemporaryDirectory(prefix="lesson15-") as spill:
        t0 = time.perf_counter()
        r = partitioned_join(source, partitioner=PARTITIONER, n_partitions=partitions, structure=STRUCTURE,
                             sample_size=20_000, seed=seed, scheduler="threads", num_workers=workers,
                             verify_with=CHECK_STRUCTURE, return_pairs=False, spill_dir=spill)
        wall = time.perf_counter() - t0
    return {"wall": wall, "peak_rss_mb": _peak_rss_mb(), "start_rss_mb": start_rss, "n": r.n_input,
            "chunks": len(r.chunk_seconds),
            "partitions": r.partitioning.n_partitions, "fit": r.fit_seconds, "pairs": r.n_pairs,
            "verified": int(r.verified.sum()), "replication": r.replication, "load_balance": r.load_balance,
            "bytes_per_box": r.bytes_per_box, "tasks": r.n_tasks, "chunk_boxes": list(source.sizes),
            "sample_seconds": r.sample_seconds.tolist(), "chunk_seconds": r.chunk_seconds.tolist(), "chunk_bytes": r.chunk_bytes.tolist(),
            "n_boxes": r.n_boxes.tolist(), "pairs_per_partition": r.pairs_per_partition.tolist(),
            "partition_seconds": r.partition_seconds.tolist()}


def _median_run(fn, repeat):
    walls, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), result


def _single_machine(source, repeat):
    """Median seconds of one structure's ``from_boxes`` + ``pairs()`` on all the boxes, and its pairs."""
    boxes = np.concatenate([source.make(k) for k in range(len(source.sizes))])
    cls = STRUCTURES[STRUCTURE]
    cls.from_boxes(boxes[:1000]).pairs()  # compile once
    return _median_run(lambda: cls.from_boxes(boxes).pairs(), repeat)


def run_small(n: int, partitions: int = 64, chunk_size: int = 250_000, repeat: int = 3):
    """Single machine, local threads (1, 2) and a LocalCluster (1, 2 workers) on ``n`` boxes; rows and task rows."""
    from distributed import LocalCluster

    from ..partitioned import partitioned_join

    source = scene_chunks("random", n, chunk_size)
    single_s, reference = _single_machine(source, repeat)
    rows, task_rows, failed = [], [], 0
    print(f"one machine, one {STRUCTURE}: {single_s:.3f} s, {len(reference):,} pairs", flush=True)
    rows.append({"run": "single", "engine": "one structure, pairs()", "workers": 1, "n": n, "chunks": 1,
                 "partitions": 1, "partitioner": "none", "structure": STRUCTURE, "wall_s": single_s, "fit_s": 0.0,
                 "pairs": len(reference), "check": "reference", "replication": 1.0, "load_balance": 1.0,
                 "bytes_per_box": float("nan"), "tasks": 0, "peak_rss_mb": float("nan"),
                 "start_rss_mb": float("nan"), "task_overhead_ms": float("nan")})

    def join(**kw):
        return partitioned_join(source, partitioner=PARTITIONER, n_partitions=partitions, structure=STRUCTURE, **kw)

    join(scheduler="threads", num_workers=2)  # warm up (compiles the kernels once)
    for workers in (1, 2):
        wall, r = _median_run(lambda: join(scheduler="threads", num_workers=workers), repeat)
        same = np.array_equal(r.pairs, reference)
        failed += not same
        print(f"local threads x{workers}: {wall:.3f} s, same pairs as pairs(): {same}", flush=True)
        rows.append(_run_row(f"threads-{workers}", "Dask local threads", workers, r, wall, "equal" if same else "FAILED"))
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.CRITICAL) as cl:
            join(scheduler=cl.scheduler_address)  # warm up the workers
            wall, r = _median_run(lambda: join(scheduler=cl.scheduler_address), repeat)
            overhead = _task_overhead_ms(cl.scheduler_address)
        same = np.array_equal(r.pairs, reference)
        failed += not same
        print(f"LocalCluster x{workers}: {wall:.3f} s, same pairs as pairs(): {same}, "
              f"{overhead:.2f} ms per trivial task", flush=True)
        rows.append(_run_row(f"cluster-{workers}", "distributed.LocalCluster", workers, r, wall,
                             "equal" if same else "FAILED", task_overhead_ms=overhead))
        if workers == 1:
            task_rows += _task_rows("cluster-1", source.sizes, r.sample_seconds, r.chunk_seconds, r.chunk_bytes, r.n_boxes,
                                    r.pairs_per_partition, r.partition_seconds)
    return rows, task_rows, failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons_lib.bench.partitioned",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="boxes of the one- and two-worker runs")
    parser.add_argument("--big-n", type=int, default=10_000_000, help="boxes of the out-of-core run")
    parser.add_argument("--big-chunk", type=int, default=250_000, help="chunk size of the out-of-core run")
    parser.add_argument("--big-partitions", type=int, default=256, help="partitions of the out-of-core run")
    parser.add_argument("--skip-big", action="store_true", help="leave the out-of-core run out")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--big-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.big_child:  # the out-of-core run, in its own process: print its figures as JSON
        print(json.dumps(big_run(args.big_n, args.big_chunk, args.big_partitions)))
        return 0

    from ..data import machine_info, save_results

    print(f"# lesson 15 stored results: {machine_info()}", flush=True)
    t_all = time.perf_counter()
    rows, task_rows, failed = run_small(args.n)
    if not args.skip_big:
        print(f"out of core: {args.big_n:,} boxes in chunks of {args.big_chunk:,}, {args.big_partitions} partitions "
              "(a fresh process) ...", flush=True)
        proc = subprocess.run([sys.executable, "-m", "lessons_lib.bench.partitioned", "--big-child",
                               "--big-n", str(args.big_n), "--big-chunk", str(args.big_chunk),
                               "--big-partitions", str(args.big_partitions)],
                              capture_output=True, text=True, check=True)
        big = json.loads(proc.stdout.strip().splitlines()[-1])
        ok = big["verified"] == big["partitions"]
        failed += not ok
        print(f"  {big['wall']:.1f} s, peak memory {big['peak_rss_mb']:.0f} MB ({big['start_rss_mb']:.0f} MB before "
              f"the join), {big['pairs']:,} pairs, "
              f"{big['verified']}/{big['partitions']} partitions verified", flush=True)
        rows.append({"run": "out-of-core", "engine": "Dask local threads, shuffle through files", "workers": 2,
                     "n": big["n"], "chunks": big["chunks"], "partitions": big["partitions"],
                     "partitioner": PARTITIONER, "structure": STRUCTURE, "wall_s": big["wall"], "fit_s": big["fit"],
                     "pairs": big["pairs"], "check": f"verified {big['verified']}/{big['partitions']}",
                     "replication": big["replication"], "load_balance": big["load_balance"],
                     "bytes_per_box": big["bytes_per_box"], "tasks": big["tasks"],
                     "peak_rss_mb": big["peak_rss_mb"], "start_rss_mb": big["start_rss_mb"],
                     "task_overhead_ms": float("nan")})
        task_rows += _task_rows("out-of-core", big["chunk_boxes"], big["sample_seconds"], big["chunk_seconds"], big["chunk_bytes"],
                                big["n_boxes"], big["pairs_per_partition"], big["partition_seconds"])
    print(f"all: {time.perf_counter() - t_all:.0f} s", flush=True)
    if failed:
        print(f"FAILED: {failed} partitioned result(s) differ from the reference", flush=True)
    if not args.no_save:
        command = "python -m lessons_lib.bench.partitioned " + " ".join(argv if argv is not None else sys.argv[1:])
        for name, table, what in (("partitioned_runs", rows, "lesson 15: partitioned join runs"),
                                  ("partitioned_tasks", task_rows, "lesson 15: per-task times of two runs")):
            path = save_results(name, table, what=what, command=command.strip())
            print(f"wrote {path}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

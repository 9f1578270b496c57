"""Targets of lessons 04-05: the compact quadtree against cKDTree and the naive quadtree.

Goals (issue "Lessons 04-05"), on the ``random`` scene scaled to n = 100,000
(:func:`lessons_lib.scenes.scaled_scene`), all in one run:

* compact ``Quadtree.pairs()`` at least 3x faster than ``scipy.spatial.cKDTree``
  and at least 50x faster than ``NaiveQuadtree.pairs()``;
* ``memory_bytes()`` under 64 bytes per element (the shared element table
  included), and at least 5x less than the naive tree's footprint measured
  with :mod:`tracemalloc`;
* one frame of 100,000 moving agents (move every element with
  ``update_many``, one ``cleanup()``, all ``pairs()``) under 33 ms.

:func:`scaling_rows` measures both trees against n for lesson 05's plot
(``python -m benchmarks.goals_quadtrees`` writes the CSV).
"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from lessons_lib.labs.quadtrees import naive_footprint
from lessons_lib.structures.quadtree import Quadtree
from lessons_lib.timing import median_time
from lessons_lib.scenes import moved
from lessons_lib.scenes import scaled_scene
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs

N = 100_000
#: Parameters of the compact tree in these targets (the class defaults are capacity 8, max_depth 8).
COMPACT = {"capacity": 16, "max_depth": 8}


@goal("quadtrees: random, n = 100,000: compact vs cKDTree vs naive, memory")
def compact_vs_peers():
    boxes = scaled_scene("random", N)
    t_kd, ref = median_time(lambda: ckdtree_pairs(boxes), 3)
    qt = Quadtree.from_boxes(boxes, **COMPACT)
    mem = qt.memory_bytes() / N
    t_qt, got = median_time(qt.pairs, 5)
    default = Quadtree.from_boxes(boxes)
    mem_default = default.memory_bytes() / N
    naive, naive_bytes, naive_build = naive_footprint(boxes)
    t_nv, got_nv = median_time(naive.pairs, 1)
    same = np.array_equal(got, ref) and np.array_equal(got_nv, ref) and np.array_equal(default.pairs(), ref)
    table = qt.elements.nbytes() / N
    return [
        Line("compact == naive == cKDTree pairs", f"{len(ref):,} pairs each" if same else "FAILED: results differ",
             "identical", bool(same)),
        Line(f"compact Quadtree({COMPACT}) pairs vs cKDTree",
             f"{1e3 * t_qt:.1f} ms vs {1e3 * t_kd:.1f} ms ({t_kd / t_qt:.1f}x)", ">= 3x faster", t_kd / t_qt >= 3),
        Line("compact vs NaiveQuadtree pairs", f"{1e3 * t_qt:.1f} ms vs {1e3 * t_nv:,.0f} ms ({t_nv / t_qt:,.0f}x)",
             ">= 50x faster", t_nv / t_qt >= 50),
        Line("compact memory_bytes() per element",
             f"{mem:.1f} B (element table {table:.1f} B, nodes {qt.nodes.nbytes / N:.1f} B, "
             f"element nodes {qt.enodes.nbytes / N:.1f} B, marks {qt._seen.nbytes / N:.1f} B)", "< 64 B", mem < 64),
        Line(f"Quadtree with its defaults (capacity {default.capacity}, max_depth {default.max_depth}): memory_bytes() "
             "per element", f"{mem_default:.1f} B ({default.enode_meta[0] / N:.2f} element nodes per element)",
             "<= 64 B", mem_default <= 64),
        Line("naive footprint (tracemalloc) vs compact",
             f"{naive_bytes / N:,.0f} B vs {mem:.1f} B per element ({naive_bytes / N / mem:.1f}x)", ">= 5x less",
             naive_bytes / N / mem >= 5),
        Line("  naive build (under tracemalloc)", f"{naive_build:.1f} s, {naive.node_count():,} nodes", "information", True),
    ]


@goal("quadtrees: a frame of 100,000 moving agents (update_many + cleanup + pairs)")
def moving_frame():
    boxes = scaled_scene("random", N)
    qt = Quadtree.from_boxes(boxes, **COMPACT)
    ids = np.arange(N, dtype=np.int64)
    positions = [moved(boxes, 1.0, seed=1), boxes]
    kernel_times = []
    inner = Quadtree._update_many

    def timed_update_many(self, slots, old, new):  # time the tree's own work inside update_many
        t0 = time.perf_counter()
        inner(self, slots, old, new)
        kernel_times.append(time.perf_counter() - t0)

    qt._update_many = timed_update_many.__get__(qt)
    frames, parts, moved_counts = [], [], []
    pairs = None
    for r in range(8):
        target_boxes = positions[r % 2]
        t0 = time.perf_counter()
        qt.update_many(ids, target_boxes)
        t1 = time.perf_counter()
        qt.cleanup()
        t2 = time.perf_counter()
        p = qt.pairs()
        t3 = time.perf_counter()
        if r >= 2:  # the first frames warm caches
            frames.append(t3 - t0)
            parts.append((t1 - t0, t2 - t1, t3 - t2, kernel_times[-1]))
            moved_counts.append(qt.last_moved)
        if r % 2 == 0:
            pairs = p
    ref = ckdtree_pairs(positions[0])
    ok = np.array_equal(pairs, ref)
    frame = statistics.median(frames)
    up, cl, pr, kern = (statistics.median(x) for x in zip(*parts))
    return [
        Line("pairs after moving == cKDTree", f"{len(ref):,} pairs" if ok else "FAILED: results differ", "identical", ok),
        Line(f"frame of {N:,} agents, Quadtree({COMPACT})", f"{1e3 * frame:.1f} ms", "< 33 ms", frame < 0.033),
        Line("  update_many / cleanup / pairs", f"{1e3 * up:.1f} / {1e3 * cl:.2f} / {1e3 * pr:.1f} ms", "information", True),
        Line("  of update_many: the tree's kernel (remove, move, re-insert)",
             f"{1e3 * kern:.1f} ms ({statistics.median(moved_counts):,.0f} of {N:,} changed leaves; the rest "
             f"is BroadPhase.update_many's id -> slot lookup and checks)", "information", True),
    ]


def scaling_rows(ns=(1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000), naive_max=20_000, seed=0):
    """Both trees on ``scaled_scene("random", n)``: time of ``pairs()`` and bytes per element.

    Returns a list of dicts ``structure, n, pairs_ms, build_ms, bytes_per_element`` (the naive tree up
    to ``naive_max`` elements; its bytes by tracemalloc, the compact one's by ``memory_bytes()``).
    Every result is checked against cKDTree.
    """
    rows = []
    for n in ns:
        boxes = scaled_scene("random", n, seed=seed)
        ref = ckdtree_pairs(boxes)
        t_b, qt = median_time(lambda: Quadtree.from_boxes(boxes), 3)
        t_p, got = median_time(qt.pairs, 5)
        assert np.array_equal(got, ref), "compact quadtree pairs differ from cKDTree"
        rows.append({"structure": "Quadtree", "n": n, "pairs_ms": 1e3 * t_p, "build_ms": 1e3 * t_b,
                     "bytes_per_element": qt.memory_bytes() / n})
        if n <= naive_max:
            naive, held, t_b = naive_footprint(boxes)
            t_p, got = median_time(naive.pairs, 1)
            assert np.array_equal(got, ref), "naive quadtree pairs differ from cKDTree"
            rows.append({"structure": "NaiveQuadtree", "n": n, "pairs_ms": 1e3 * t_p, "build_ms": 1e3 * t_b,
                         "bytes_per_element": held / n})
    return rows


def main(path: str) -> None:  # pragma: no cover - a maintenance command
    """Write :func:`scaling_rows` to ``path`` as CSV with a provenance header."""
    import csv
    import datetime

    from lessons_lib.data import machine_info

    rows = scaling_rows()
    with open(path, "w", newline="") as f:
        f.write(f"# quadtree scaling, random scene (scaled_scene), {datetime.date.today()}; {machine_info()}\n")
        f.write("# written by: python -m benchmarks.goals_quadtrees data/results/quadtree_scaling.csv\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in r.items()})


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1] if len(sys.argv) > 1 else "data/results/quadtree_scaling.csv")

"""Targets of lessons 06-07: the loose/tight double grid, 500,000 moving agents, loose quadtree memory.

Goals (issue "Lessons 06-07"), scenes scaled to n = 100,000
(:func:`lessons_lib.scenes.scaled_scene`), all in one run:

* ``LooseTightGrid.pairs()`` at least 5x faster than ``scipy.spatial.cKDTree``
  on ``random``, and on ``mixed_sizes`` faster than ``UniformGrid`` and the
  compact ``Quadtree`` (with the parameters of the quadtree targets and with
  its defaults);
* a frame of 500,000 moving agents (move every agent, ``update_many``,
  ``cleanup``, all ``pairs()``) with ``LooseTightGrid`` under 200 ms, with
  ``memory_bytes()`` per element flat over 100 frames;
* ``LooseQuadtree`` memory per element and per node, beside the compact
  ``Quadtree`` (information, no goal).

Every result is checked against a reference before its time is reported.
Times are wall-clock medians; on a shared machine, rerun before trusting a
close call.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from lessons_lib.structures.loose_quadtree import LooseQuadtree
from lessons_lib.structures.loose_tight_grid import LooseTightGrid
from lessons_lib.structures.quadtree import Quadtree
from lessons_lib.structures.uniform_grid import UniformGrid
from lessons_lib.timing import median_time
from lessons_lib.scenes import scaled_scene
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs
from .goals_quadtrees import COMPACT

N = 100_000
AGENTS = 500_000
FRAMES = 100


def _pairs_time(bp, repeat=7):
    return median_time(bp.pairs, repeat)


@goal("loose: LooseTightGrid pairs vs cKDTree (random) and vs UniformGrid / Quadtree (mixed_sizes), n = 100,000")
def loose_tight_vs_peers():
    lines = []
    boxes = scaled_scene("random", N)
    t_kd, ref = median_time(lambda: ckdtree_pairs(boxes), 3)
    ltg = LooseTightGrid.from_boxes(boxes)
    t_lt, got = _pairs_time(ltg)
    ok = np.array_equal(got, ref)
    lines += [
        Line("random: LooseTightGrid == cKDTree pairs", f"{len(ref):,} pairs" if ok else "FAILED: results differ",
             "identical", ok),
        Line("random: LooseTightGrid pairs vs cKDTree",
             f"{1e3 * t_lt:.1f} ms vs {1e3 * t_kd:.1f} ms ({t_kd / t_lt:.1f}x)", ">= 5x faster", ok and t_kd / t_lt >= 5),
        Line("  LooseTightGrid layout", f"{ltg.rows}x{ltg.cols} loose cells of {ltg.cell_size:.1f}, "
             f"{ltg.trows}x{ltg.tcols} tight cells, {ltg.memory_bytes() / N:.1f} B per element", "information", True),
    ]
    boxes = scaled_scene("mixed_sizes", N)
    ref = ckdtree_pairs(boxes)
    rows = []
    for label, bp in [("LooseTightGrid", LooseTightGrid.from_boxes(boxes)),
                      ("UniformGrid", UniformGrid.from_boxes(boxes)),
                      (f"Quadtree({COMPACT})", Quadtree.from_boxes(boxes, **COMPACT)),
                      ("Quadtree (defaults)", Quadtree.from_boxes(boxes)),
                      ("LooseQuadtree (defaults)", LooseQuadtree.from_boxes(boxes))]:
        t, got = _pairs_time(bp)
        rows.append((label, t, np.array_equal(got, ref), bp.memory_bytes() / N))
    ok = all(r[2] for r in rows)
    lt = rows[0][1]
    lines.append(Line("mixed_sizes: all == cKDTree pairs", f"{len(ref):,} pairs each" if ok else "FAILED: results differ",
                      "identical", ok))
    for label, t, _, mem in rows[1:4]:
        lines.append(Line(f"mixed_sizes: LooseTightGrid vs {label} pairs",
                          f"{1e3 * lt:.1f} ms vs {1e3 * t:.1f} ms ({t / lt:.2f}x)", "faster", ok and lt < t))
    lines.append(Line("  memory per element (mixed_sizes)",
                      ", ".join(f"{label} {mem:.1f} B" for label, _, _, mem in rows), "information", True))
    lines.append(Line("  LooseQuadtree pairs (mixed_sizes)", f"{1e3 * rows[4][1]:.1f} ms", "information", True))
    return lines


def agent_frames(n=AGENTS, frames=FRAMES, seed=0, structure=LooseTightGrid, check_every=25, **params):
    """Run ``frames`` frames of ``n`` agents bouncing in their world; return per-frame measurements.

    Agents are the boxes of ``scaled_scene("random", n)`` with a constant
    velocity each (up to 1.5 units per frame in each axis), reflected at the
    world's edges. A frame: move every agent (numpy), ``update_many`` (ids and
    new boxes), ``cleanup`` (refit the loose rectangles), ``pairs()``.

    Returns
    -------
    dict of lists
        ``frame_s``, ``move_s``, ``update_s``, ``cleanup_s``, ``pairs_s``,
        ``bytes_per_element``, ``pairs``, and ``checked`` (frames whose pairs
        were compared with cKDTree: all equal, or an AssertionError).
    """
    boxes = scaled_scene("random", n, seed=seed)
    world = np.array([0.0, 0.0, boxes[:, 2].max(), boxes[:, 3].max()])
    rng = np.random.default_rng(seed + 1)
    vel = rng.uniform(-1.5, 1.5, size=(n, 2))
    bp = structure.from_boxes(boxes, world=world, **params)
    ids = np.arange(n, dtype=np.int64)
    size = boxes[:, 2:] - boxes[:, :2]
    lo = boxes[:, :2].copy()
    out = {k: [] for k in ("frame_s", "move_s", "update_s", "cleanup_s", "pairs_s", "bytes_per_element", "pairs",
                           "checked")}
    for f in range(frames):
        t0 = time.perf_counter()
        lo += vel
        for ax in (0, 1):  # bounce off the world's edges
            over = lo[:, ax] + size[:, ax] > world[2 + ax]
            under = lo[:, ax] < world[ax]
            vel[over | under, ax] *= -1
            lo[over, ax] = world[2 + ax] - size[over, ax]
            lo[under, ax] = world[ax]
        new = np.concatenate([lo, lo + size], axis=1)
        t1 = time.perf_counter()
        bp.update_many(ids, new)
        t2 = time.perf_counter()
        bp.cleanup()
        t3 = time.perf_counter()
        p = bp.pairs()
        t4 = time.perf_counter()
        for k, v in (("frame_s", t4 - t0), ("move_s", t1 - t0), ("update_s", t2 - t1), ("cleanup_s", t3 - t2),
                     ("pairs_s", t4 - t3), ("bytes_per_element", bp.memory_bytes() / n), ("pairs", len(p))):
            out[k].append(v)
        if check_every and f % check_every == check_every - 1:
            assert np.array_equal(p, ckdtree_pairs(new)), f"frame {f}: pairs differ from cKDTree"
            out["checked"].append(f)
    return out


@goal("loose: a frame of 500,000 moving agents with LooseTightGrid, memory over 100 frames")
def half_million_agents():
    try:
        r = agent_frames()
        ok = True
    except AssertionError as e:  # pragma: no cover - a wrong answer is reported, never timed
        return [Line("pairs of moving agents == cKDTree", f"FAILED: {e}", "identical", False)]
    warm = slice(5, None)  # the first frames warm caches and settle the tight lists
    frame = statistics.median(r["frame_s"][warm])
    parts = [statistics.median(r[k][warm]) for k in ("move_s", "update_s", "cleanup_s", "pairs_s")]
    mem = np.array(r["bytes_per_element"])
    flat = mem[warm].max() - mem[warm].min()
    return [
        Line("pairs == cKDTree on checked frames", f"frames {r['checked']}: equal", "identical", ok),
        Line(f"frame of {AGENTS:,} agents (move + update_many + cleanup + pairs)",
             f"{1e3 * frame:.1f} ms median over frames 6-{FRAMES} (p90 {1e3 * np.percentile(r['frame_s'][warm], 90):.1f} ms)",
             "< 200 ms", frame < 0.2),
        Line("  move / update_many / cleanup / pairs", " / ".join(f"{1e3 * t:.1f}" for t in parts) + " ms",
             "information", True),
        Line("  pairs per frame", f"{int(np.median(r['pairs'])):,}", "information", True),
        Line(f"memory_bytes() per element over {FRAMES} frames",
             f"{mem[0]:.2f} B at frame 1, {mem[warm].min():.2f} .. {mem[warm].max():.2f} B from frame 6 "
             f"(spread {flat:.2f} B)", "flat (spread < 1 B after warm-up)", flat < 1.0),
    ]


@goal("loose: LooseQuadtree memory per element and per node beside the compact Quadtree, n = 100,000")
def loose_quadtree_memory():
    lines = []
    for scene in ("random", "mixed_sizes"):
        boxes = scaled_scene(scene, N)
        ref = ckdtree_pairs(boxes)
        lq = LooseQuadtree.from_boxes(boxes)
        qt = Quadtree.from_boxes(boxes)
        t_lq, got_lq = _pairs_time(lq, 5)
        t_qt, got_qt = _pairs_time(qt, 5)
        ok = np.array_equal(got_lq, ref) and np.array_equal(got_qt, ref)
        lq_nodes, qt_nodes = lq.node_count(), qt.node_count()
        lq_own = lq._nbytes() - lq.nodes.nbytes - lq.rects.nbytes  # per-slot arrays
        qt_en = int(qt.enode_meta[0])
        lines += [
            Line(f"{scene}: both trees == cKDTree", f"{len(ref):,} pairs" if ok else "FAILED: results differ",
                 "identical", ok),
            Line(f"{scene}: memory_bytes() per element, loose vs compact (defaults)",
                 f"{lq.memory_bytes() / N:.1f} B vs {qt.memory_bytes() / N:.1f} B "
                 f"(element table {lq.elements.nbytes() / N:.1f} B in both)", "information", True),
            Line(f"{scene}:   bytes per node",
                 f"loose {(lq.nodes.itemsize * 2 + lq.rects.itemsize * 4)} B x {lq_nodes:,} live nodes "
                 f"({lq.nodes.shape[0]:,} allocated); compact {qt.nodes.itemsize * 2} B x {qt_nodes:,} "
                 f"({qt.nodes.shape[0]:,} allocated)", "information", True),
            Line(f"{scene}:   bytes per element beyond the table",
                 f"loose {lq_own / N:.1f} B (one slot link + leaf, always 1 leaf); compact "
                 f"{qt.enodes.nbytes / N:.1f} B element nodes ({qt_en / N:.2f} leaves per element) + "
                 f"{qt._seen.nbytes / N:.1f} B query marks", "information", True),
            Line(f"{scene}:   pairs, loose vs compact", f"{1e3 * t_lq:.1f} ms vs {1e3 * t_qt:.1f} ms",
                 "information", True),
        ]
    return lines

"""Targets of lesson 08: sweep and prune at n = 100,000.

The issue's goals, on scenes scaled to n = 100,000 (``scale_to``):

* ``SweepAndPrune.from_boxes(boxes).pairs()`` on ``random`` at least 3x faster
  than ``scipy.spatial.cKDTree`` (:func:`lessons_lib.bench.peers.ckdtree_pairs`);
* on ``xline`` and ``yline`` with the automatic axis, no worse than 2x the
  ``random`` time *per pair found*;
* a coherent frame (every box moved a small step, ``update_many`` with the
  insertion-sort kernel, then ``pairs()``) at least 3x faster than the same
  frame with a full re-sort of the endpoints (``incremental=False``); swaps
  per frame reported.

Each total is broken down, so that the share of the shared element table and
of ``BroadPhase.update_many``'s id -> slot lookups (Python dict work that is not
the structure's) is visible beside the structure's own kernels.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from lessons_lib.structures.brute_force import compiled_brute_force_pairs
from lessons_lib.core.elements import ElementTable
from lessons_lib.core.pair_order import canonical_pairs
from lessons_lib.structures.persistent_sweep_and_prune import PersistentSweepAndPrune
from lessons_lib.structures.endpoints import refresh_keys, sort_endpoints
from lessons_lib.structures.sweep_and_prune import SweepAndPrune, insertion_sort_endpoints, sweep_pairs
from lessons_lib.bench import measure, measure_moving
from lessons_lib.timing import median_time
from lessons_lib.scenes import moved
from lessons_lib.scenes import scaled_scene
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs

N = 100_000


def _cpu(fn, repeat: int = 5) -> float:
    """Median *CPU* seconds of ``fn()`` (``time.process_time``): on a shared, loaded machine
    wall times include waiting for a core, CPU times do not. Every timed call here is
    single-threaded (numba kernels, numpy sorts, cKDTree's query_pairs)."""
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def _kernels(bp: SweepAndPrune, repeat: int = 5):
    """Median times of the structure's own work: full sort, sweep, canonical order."""
    t_sort, _ = median_time(lambda: bp.ends.fill(bp.elements), repeat)
    args = (bp.keys, bp.codes, bp.m, bp.elements.boxes, bp.axis, bp.elements.high_water)
    t_sweep, (sp, tests) = median_time(lambda: sweep_pairs(*args), repeat)
    t_order, _ = median_time(lambda: canonical_pairs(sp, bp.elements), repeat)
    return t_sort, t_sweep, t_order, tests


@goal("sweep and prune vs cKDTree, random, n = 100,000")
def sap_vs_ckdtree():
    boxes = scaled_scene("random", N)
    t_kd, ref = median_time(lambda: ckdtree_pairs(boxes), 5)
    m = measure(SweepAndPrune, boxes, repeat=5, reference=ref)
    total = m.build_s + m.pairs_s
    ids = np.arange(N, dtype=np.int64)
    t_table, _ = median_time(lambda: ElementTable().add_many(ids, boxes), 5)
    bp = SweepAndPrune.from_boxes(boxes)
    t_sort, t_sweep, t_order, tests = _kernels(bp)
    own = t_sort + t_sweep + t_order
    lines = [
        Line("SweepAndPrune pairs == cKDTree pairs", f"{len(ref):,} pairs each", "identical", True),
        Line("sweep", f"axis {'xy'[bp.axis]} (by variance), {tests:,} other-axis tests "
             f"({tests / N:.0f} open intervals met per box)", "-", True),
        Line("cKDTree build + query_pairs + box filter", f"{1e3 * t_kd:.1f} ms", "reference", True),
        Line("SweepAndPrune.from_boxes(boxes).pairs()",
             f"{1e3 * total:.1f} ms = build {1e3 * m.build_s:.1f} + pairs {1e3 * m.pairs_s:.1f}; "
             f"{t_kd / total:.1f}x faster than cKDTree", ">= 3x faster than cKDTree", t_kd / total >= 3),
        Line("  of which the shared element table (ElementTable.add_many of 100,000 ids)",
             f"{1e3 * t_table:.1f} ms", "not the structure's", True),
        Line("  the structure's own kernels (sort endpoints + sweep + canonical order)",
             f"{1e3 * own:.1f} ms = {1e3 * t_sort:.1f} + {1e3 * t_sweep:.1f} + {1e3 * t_order:.1f}; "
             f"{t_kd / own:.1f}x faster than cKDTree", ">= 3x", t_kd / own >= 3),
        Line("memory_bytes()", f"{bp.memory_bytes() / N:.1f} B/box (endpoints {bp.ends.nbytes / N:.1f} B/box)",
             "-", True),
    ]
    c_kd = _cpu(lambda: ckdtree_pairs(boxes))
    c_sap = _cpu(lambda: SweepAndPrune.from_boxes(boxes).pairs())
    c_own = _cpu(lambda: bp.ends.fill(bp.elements)) + _cpu(lambda: canonical_pairs(bp.ends.sweep(bp.elements)[0],
                                                                                  bp.elements))
    lines.append(Line("the same in CPU time (process_time, immune to other load)",
                      f"cKDTree {1e3 * c_kd:.1f} ms; SweepAndPrune {1e3 * c_sap:.1f} ms ({c_kd / c_sap:.1f}x); "
                      f"own kernels {1e3 * c_own:.1f} ms ({c_kd / c_own:.1f}x)", ">= 3x", c_kd / c_sap >= 3))
    return lines


@goal("sweep and prune, axis choice: xline and yline vs random, n = 100,000")
def sap_axis_choice():
    rows, per_pair = [], {}
    for scene in ("random", "xline", "yline"):
        boxes = scaled_scene(scene, N)
        ref = ckdtree_pairs(boxes) if scene == "random" else compiled_brute_force_pairs(boxes)
        m = measure(SweepAndPrune, boxes, repeat=3 if scene == "random" else 1, reference=ref)
        bp = SweepAndPrune.from_boxes(boxes)
        total = m.build_s + m.pairs_s
        per_pair[scene] = total / max(1, m.pairs)
        rows.append((scene, bp.axis, m, total))
        del ref, bp
    lines = [Line("pairs == reference (cKDTree on random, compiled brute force on the lines)",
                  "identical on all three", "identical", True)]
    for scene, axis, m, total in rows:
        lines.append(Line(f"{scene}: axis {'xy'[axis]} (auto)",
                          f"{1e3 * total:,.0f} ms for {m.pairs:,} pairs = {1e9 * per_pair[scene]:.0f} ns per pair",
                          "-" if scene == "random" else "<= 2x random per pair",
                          True if scene == "random" else per_pair[scene] <= 2 * per_pair["random"]))
    # the wrong axis, at a size where it still finishes
    small = scaled_scene("xline", 20_000)
    good = SweepAndPrune.from_boxes(small)
    bad = SweepAndPrune.from_boxes(small, axis=0)
    t_good, p_good = median_time(good.pairs, 1)
    t_bad, p_bad = median_time(bad.pairs, 1)
    lines.append(Line("xline, n = 20,000: forced axis x vs auto axis y",
                      f"{1e3 * t_bad:,.0f} ms ({bad.last_tests:,} tests) vs {1e3 * t_good:,.0f} ms "
                      f"({good.last_tests:,} tests); same {len(p_good):,} pairs", "auto axis avoids O(n^2)",
                      np.array_equal(p_good, p_bad) and t_good < t_bad))
    return lines


@goal("sweep and prune, coherent frame: insertion sort vs full re-sort, random, n = 100,000")
def sap_coherent_frame():
    boxes = scaled_scene("random", N)
    after = moved(boxes)
    ref = ckdtree_pairs(after)
    inc = measure_moving(SweepAndPrune, boxes, repeat=5, reference=ref, label="insertion sort")
    full = measure_moving(SweepAndPrune, boxes, repeat=5, reference=ref, label="full re-sort", incremental=False)
    t_inc, t_full = inc.update_s + inc.pairs_s, full.update_s + full.pairs_s

    # The sort step alone, on the same moved keys: what the insertion sort replaces.
    bp = SweepAndPrune.from_boxes(boxes)
    bp.elements.boxes[:N] = after
    k0, c0 = bp.keys[: bp.m].copy(), bp.codes[: bp.m].copy()
    keys, codes = k0.copy(), c0.copy()
    refresh_keys(keys, codes, bp.m, bp.elements.boxes, bp.axis)

    def step(sorter):
        k, c = keys.copy(), codes.copy()
        return sorter(k, c, len(k))

    t_isort, swaps = median_time(lambda: step(insertion_sort_endpoints), 7)
    t_fsort, _ = median_time(lambda: step(sort_endpoints), 7)
    t_refresh, _ = median_time(lambda: refresh_keys(keys, codes, bp.m, bp.elements.boxes, bp.axis), 7)
    lines = [
        Line("pairs after the move == cKDTree pairs", f"{len(ref):,} pairs, both modes", "identical", True),
        Line("motion", f"every box moved <= 1 unit (boxes are 12-16 units); {swaps:,} swaps per frame = "
             f"{swaps / (2 * N):.1f} per endpoint", "swaps reported", True),
        Line("frame, insertion sort: update_many + pairs()",
             f"{1e3 * t_inc:.1f} ms = update {1e3 * inc.update_s:.1f} + pairs {1e3 * inc.pairs_s:.1f}", "-", True),
        Line("frame, full re-sort:   update_many + pairs()",
             f"{1e3 * t_full:.1f} ms = update {1e3 * full.update_s:.1f} + pairs {1e3 * full.pairs_s:.1f}; "
             f"insertion-sort frame {t_full / t_inc:.2f}x faster", ">= 3x faster (whole frame)", t_full / t_inc >= 3),
        Line("  the sort step alone (same moved keys, after a {:.1f} ms key refresh)".format(1e3 * t_refresh),
             f"insertion sort {1e3 * t_isort:.2f} ms vs full re-sort {1e3 * t_fsort:.2f} ms: "
             f"{t_fsort / t_isort:.2f}x", ">= 3x", t_fsort / t_isort >= 3),
    ]
    c_isort = _cpu(lambda: step(insertion_sort_endpoints), 7)
    c_fsort = _cpu(lambda: step(sort_endpoints), 7)
    lines.append(Line("  the sort step in CPU time (process_time, immune to other load)",
                      f"insertion sort {1e3 * c_isort:.2f} ms vs full re-sort {1e3 * c_fsort:.2f} ms: "
                      f"{c_fsort / c_isort:.2f}x", ">= 3x", c_fsort / c_isort >= 3))
    lines += _coherence_bound(boxes, after, t_full, repeat=5)
    # How the advantage depends on the step: swaps grow with the distance moved.
    table = []
    for s in (0.1, 0.3, 1.0, 3.0):
        bp.elements.boxes[:N] = moved(boxes, s)
        keys, codes = k0.copy(), c0.copy()
        refresh_keys(keys, codes, bp.m, bp.elements.boxes, bp.axis)
        sw = step(insertion_sort_endpoints)
        ti = _cpu(lambda: step(insertion_sort_endpoints), 5)
        tf = _cpu(lambda: step(sort_endpoints), 5)
        table.append(f"step {s:g}: {sw:,} swaps, {1e3 * ti:.2f} vs {1e3 * tf:.2f} ms ({tf / ti:.1f}x)")
    lines.append(Line("sort step (CPU time) by distance moved per frame", "; ".join(table), "-", True))
    return lines


class _NoIndexUpdate(SweepAndPrune):
    """update_many with the structure's own work removed: what is left is the base class's."""

    def _update_many(self, slots, old, new):
        pass


def _frames_cpu(bp, ids, positions, repeat):
    """Median CPU seconds of ``update_many`` + ``pairs()`` frames, alternating between ``positions``."""
    times = []
    for r in range(2 * repeat):
        t0 = time.process_time()
        bp.update_many(ids, positions[r % 2])
        bp.pairs()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def _coherence_bound(boxes, after, t_full, repeat=5):
    """Why the whole-frame goal is out of reach: frames in CPU time, and the floor of an incremental pair set.

    Keeping the *pairs* between frames (the classic incremental SAP of I-COLLIDE)
    needs the endpoints sorted on **both** axes: a pair can start to overlap on
    the other axis while it overlapped on the sweep axis all along, and no swap
    on the sweep axis tells. So such a frame costs at least the base class's
    ``update_many`` plus one insertion sort per axis, before any pair bookkeeping.
    """
    n = len(boxes)
    ids = np.arange(n, dtype=np.int64)
    c_inc = _frames_cpu(SweepAndPrune.from_boxes(boxes), ids, [after, boxes], repeat)
    c_full = _frames_cpu(SweepAndPrune.from_boxes(boxes, incremental=False), ids, [after, boxes], repeat)
    nop = _NoIndexUpdate.from_boxes(boxes)
    t_base, _ = median_time(lambda: nop.update_many(ids, after), repeat)
    sorts = []
    for axis in (0, 1):
        bp = SweepAndPrune.from_boxes(boxes, axis=axis)
        k0, c0 = bp.keys[: bp.m].copy(), bp.codes[: bp.m].copy()
        bp.elements.boxes[:n] = after

        def isort():
            k, c = k0.copy(), c0.copy()
            refresh_keys(k, c, len(k), bp.elements.boxes, axis)
            return insertion_sort_endpoints(k, c, len(k))

        sorts.append(median_time(isort, repeat))
    floor = t_base + sorts[0][0] + sorts[1][0]
    return [
        Line("  the whole frame in CPU time (process_time)",
             f"insertion sort {1e3 * c_inc:.1f} ms vs full re-sort {1e3 * c_full:.1f} ms: {c_full / c_inc:.2f}x",
             ">= 3x", c_full / c_inc >= 3),
        Line("  floor of an incremental pair set (both axes sorted, I-COLLIDE)",
             f"base update_many {1e3 * t_base:.1f} + insertion sort x {1e3 * sorts[0][0]:.1f} ({sorts[0][1]:,} swaps) "
             f"+ y {1e3 * sorts[1][0]:.1f} ms ({sorts[1][1]:,} swaps) = {1e3 * floor:.1f} ms before any pair "
             f"bookkeeping, vs the full re-sort frame {1e3 * t_full:.1f} ms: at most {t_full / floor:.1f}x",
             "information", True),
    ]


# --------------------------------------------------------------------------
# Persistent pairs (I-COLLIDE): both axes sorted, the pair set kept between frames
# --------------------------------------------------------------------------
STEPS = (0.1, 0.25, 0.5, 1.0, 2.0)
JUDGED_STEP = 1.0


def _lesson12_motion(n: int = N, frames: int = 4):
    """What "a small step" means in lesson 13: its agents' motion, relative to their size and in swaps.

    Returns ``(speed / side, swaps per endpoint on the sweep axis)``: the mean
    distance an agent moves per frame over the mean side of its box, and the
    insertion-sort swaps per endpoint of a ``Simulation`` of ``n`` agents with
    its default parameters and the ``sweep_and_prune`` structure (median of
    ``frames`` frames after the first, in which overlapping starts are pushed apart).
    """
    from lessons_lib.labs.sim import Simulation

    sim = Simulation(n, structure="sweep_and_prune", seed=0)
    rel = float(np.hypot(sim.vel[:, 0], sim.vel[:, 1]).mean() / (2 * sim.radius).mean())
    per = []
    for f in range(frames + 1):
        sim.step()
        if f:
            per.append(sim.bp.last_swaps / sim.bp.m)
    return rel, statistics.median(per)


@goal("sweep and prune, persistent pairs (I-COLLIDE) vs full re-sort, by step, random, n = 100,000")
def sap_persistent_pairs():
    boxes = scaled_scene("random", N)
    ids = np.arange(N, dtype=np.int64)
    side = float(np.mean(np.concatenate([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]])))
    rows = {}
    for s in STEPS:
        after = moved(boxes, s)
        ref = ckdtree_pairs(after)
        pp = PersistentSweepAndPrune.from_boxes(boxes)
        pp.update_many(ids, after)
        swaps_both = pp.last_swaps
        assert np.array_equal(pp.pairs(), ref), f"persistent pairs differ from cKDTree at step {s}: FAILED"
        inc = SweepAndPrune.from_boxes(boxes)
        inc.update_many(ids, after)
        assert np.array_equal(inc.pairs(), ref)
        full = SweepAndPrune.from_boxes(boxes, incremental=False)
        c_pp = _frames_cpu(pp, ids, [boxes, after], 5)  # pp is at `after`: the first frame moves back
        c_inc = _frames_cpu(inc, ids, [boxes, after], 5)
        c_full = _frames_cpu(full, ids, [boxes, after], 5)
        rows[s] = (swaps_both, inc.last_swaps, c_pp, c_inc, c_full, len(ref))
    rel12, swaps12 = _lesson12_motion()
    # the step at which the random scene makes lesson 13's swaps per endpoint (swaps grow linearly with the step)
    per_unit = rows[1.0][1] / (2 * N)  # sweep-axis swaps per endpoint per unit of step
    step_swaps = swaps12 / per_unit
    # moved(): a uniform shift in a square of half-side step / sqrt(2): mean length 0.541 * step
    step_size = rel12 * side / 0.5412
    lines = [
        Line("pairs after each move == cKDTree pairs", "persistent, insertion-sort and re-sort modes, every step",
             "identical", True),
        Line("which step is 'small'",
             f"lesson 13's agents (Simulation defaults) move {100 * rel12:.1f}% of their box side per frame "
             f"(mean), and a lesson-12 frame at n = 100,000 makes {swaps12:.1f} swaps per endpoint on its sweep "
             f"axis; the random scene (boxes {side:.0f} units) makes as many swaps at a step of {step_swaps:.2f} "
             f"and moves as far relative to size at {step_size:.1f}; judged at step {JUDGED_STEP:g}, the issue's "
             f"own 'small step' (moved()'s default), between the two", "stated", True),
    ]
    curve = []
    for s in STEPS:
        sw, sw1, c_pp, c_inc, c_full, k = rows[s]
        curve.append(f"step {s:g}: {sw:,} swaps ({sw / (4 * N):.1f}/endpoint, both axes), persistent "
                     f"{1e3 * c_pp:.1f} ms, insertion sort {1e3 * c_inc:.1f}, re-sort {1e3 * c_full:.1f}: "
                     f"{c_full / c_pp:.2f}x")
    lines.append(Line("frame (update_many + pairs(), CPU ms) by step", "; ".join(curve), "-", True))
    sw, _, c_pp, _, c_full, k = rows[JUDGED_STEP]
    lines.append(Line(f"persistent-pairs frame vs full re-sort frame at step {JUDGED_STEP:g}",
                      f"{1e3 * c_pp:.1f} ms vs {1e3 * c_full:.1f} ms: {c_full / c_pp:.2f}x ({sw:,} swaps on 2 axes)",
                      ">= 3x faster (whole frame)", c_full / c_pp >= 3))
    pays = [s for s in STEPS if rows[s][4] > rows[s][2]]
    lines.append(Line("where the persistent pair set stops paying off",
                      f"faster than a re-sort at steps {', '.join(f'{s:g}' for s in pays) or 'none'}; "
                      f"best {max(rows[s][4] / rows[s][2] for s in STEPS):.2f}x", "information", True))
    for s in (STEPS[0], JUDGED_STEP):  # even with free pair bookkeeping, at the smallest step too
        lines += _persistent_floor(boxes, ids, s, rows[s][4])
    pp = PersistentSweepAndPrune.from_boxes(boxes)
    ends = pp.ends[0].nbytes + pp.ends[1].nbytes
    table = pp.kept.nbytes
    lines.append(Line("memory_bytes(), persistent pairs",
                      f"{pp.memory_bytes() / N:.1f} B/box: endpoints on both axes {ends / N:.1f} + pair set "
                      f"{table / N:.1f} ({pp.npairs:,} pairs in {len(pp.kept.table):,} entries) + element table "
                      f"{pp.elements.nbytes() / N:.1f}; SweepAndPrune "
                      f"{SweepAndPrune.from_boxes(boxes).memory_bytes() / N:.1f}",
                      "-", True))
    return lines


def _persistent_floor(boxes, ids, step, c_full, repeat=5):
    """The cheapest a persistent-pair frame could be here: the work that is not pair bookkeeping."""
    n = len(boxes)
    after = moved(boxes, step)
    nop = _NoIndexUpdate.from_boxes(boxes)
    t_base = _cpu(lambda: nop.update_many(ids, after), repeat)
    pp = PersistentSweepAndPrune.from_boxes(boxes)
    t_out = _cpu(pp.pairs, repeat)
    pp.elements.boxes[:n] = after
    sorts = 0.0
    for ends in pp.ends:
        k0, c0, axis = ends.keys[: ends.m].copy(), ends.codes[: ends.m].copy(), ends.axis

        def isort():
            k, c = k0.copy(), c0.copy()
            refresh_keys(k, c, len(k), pp.elements.boxes, axis)
            return insertion_sort_endpoints(k, c, len(k))

        sorts += _cpu(isort, repeat)
    floor = t_base + sorts + t_out
    return [Line(f"  floor at step {step:g}: no pair bookkeeping at all",
                 f"base update_many {1e3 * t_base:.1f} + key refresh and insertion sort of both axes "
                 f"{1e3 * sorts:.1f} + pairs() output (canonical order) {1e3 * t_out:.1f} = {1e3 * floor:.1f} ms "
                 f"vs re-sort frame {1e3 * c_full:.1f} ms: at most {c_full / floor:.1f}x", "information", True)]

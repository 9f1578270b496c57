"""Targets of lesson 01: brute force and its compiled double loop, beside cKDTree.

No goal here is a promise of speed: they show the O(n^2) wall in numbers.
"""
from __future__ import annotations

import numpy as np

from lessons_lib.structures.brute_force import brute_force_pairs, compiled_brute_force_pairs
from lessons_lib.timing import median_time
from lessons_lib.scenes import scaled_scene
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs


@goal("brute force vs cKDTree, random, n = 20,000")
def brute_force_wall():
    boxes = scaled_scene("random", 20_000)
    t_np, ref = median_time(lambda: brute_force_pairs(boxes), 1)
    t_nb, got = median_time(lambda: compiled_brute_force_pairs(boxes), 3)
    t_kd, kd = median_time(lambda: ckdtree_pairs(boxes), 3)
    same = np.array_equal(got, ref) and np.array_equal(kd, ref)
    return [
        Line("compiled double loop == numpy brute force == cKDTree", f"{len(ref):,} pairs each" if same else "FAILED: results differ", "identical", bool(same)),
        Line("numpy brute force", f"{1e3 * t_np:.0f} ms", "reference", True),
        Line("compiled double loop", f"{1e3 * t_nb:.0f} ms ({t_np / t_nb:.1f}x numpy)", "faster than numpy", t_nb < t_np),
        Line("cKDTree (centres, then box filter)", f"{1e3 * t_kd:.1f} ms ({t_nb / t_kd:.0f}x faster than the compiled loop)", "a spatial index beats any O(n^2) loop", t_kd < t_nb),
    ]

"""Targets of lessons 09-10: R-trees, bulk loading and k-d trees beside shapely, rtree and cKDTree.

Goals (issue 7), on the article's scenes scaled to n = 100,000:

* ``BulkRTree`` (STR): build plus all pairs faster than ``shapely.STRtree``
  (build, ``query(boxes, predicate="intersects")``, keep ``i < j``). The
  shapely geometries are made before the clock starts (their cost is printed
  apart).
* ``RTree`` (quadratic split): inserting the boxes one by one through the
  public ``insert`` faster than the ``rtree`` package's one-by-one insert.
* ``KDTree``: build plus pairs within 2x of ``scipy.spatial.cKDTree``.

Every result is checked against the cKDTree pairs (exact, see
:func:`~lessons_lib.bench.peers.ckdtree_pairs`) before its time is reported.
"""
from __future__ import annotations

import time

import numpy as np

from lessons_lib.structures.bulk_rtree import BulkRTree
from lessons_lib.structures.kdtree import KDTree
from lessons_lib.structures.rstar_tree import RStarTree
from lessons_lib.structures.rtree import RTree
from lessons_lib.bench import measure
from lessons_lib.timing import median_time
from lessons_lib.scenes import scaled_scene
from . import Line, goal
from lessons_lib.bench.peers import ckdtree_pairs, rtree_insert_one_by_one, shapely_strtree_pairs

N = 100_000
SCENES = ("random", "clustered")


def _ms(t: float) -> str:
    return f"{1e3 * t:,.0f} ms"


def _warm_up(*classes) -> None:
    """Load or compile each structure's kernels once, so no timing includes numba's start-up."""
    small = scaled_scene("random", 2_000)
    for cls in classes:
        t = cls.from_boxes(small)
        t.pairs()
        t.insert(10**9, small[0])
        t.remove(10**9)


@goal("R-trees: BulkRTree (STR) build + pairs vs shapely.STRtree, n = 100,000")
def str_vs_shapely():
    import shapely

    _warm_up(BulkRTree)
    lines = []
    for scene in SCENES:
        boxes = scaled_scene(scene, N)
        ref = ckdtree_pairs(boxes)
        ours = measure(BulkRTree, boxes, label=f"BulkRTree str ({scene})", reference=ref, method="str")
        t_geom, geoms = median_time(lambda: shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]), 1)
        t_sh, got = median_time(lambda: shapely_strtree_pairs(boxes, geometries=geoms), 3)
        same = np.array_equal(got, ref)
        lines.append(Line(f"{scene}: shapely.STRtree pairs == cKDTree pairs == ours",
                          f"{len(ref):,} pairs" if same else "FAILED: results differ", "identical", same))
        lines.append(Line(f"{scene}: BulkRTree(str) build + pairs",
                          f"{_ms(ours.build_s)} + {_ms(ours.pairs_s)} = {_ms(ours.total_s)}; shapely.STRtree "
                          f"{_ms(t_sh)} (+ {_ms(t_geom)} to make the polygons): {t_sh / ours.total_s:.1f}x faster",
                          "faster than shapely.STRtree", ours.total_s < t_sh))
    return lines


@goal("R-trees: RTree (quadratic) one-by-one insert vs the rtree package, n = 100,000")
def insert_vs_rtree_package():
    _warm_up(RTree, RStarTree)
    boxes = scaled_scene("random", N)
    ref = ckdtree_pairs(boxes)

    def ours():
        t = RTree(split="quadratic")
        for i, b in enumerate(boxes):
            t.insert(i, b)
        return t

    t0 = time.perf_counter()
    tree = ours()
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    idx = rtree_insert_one_by_one(boxes)
    t_pkg = time.perf_counter() - t0
    ok = np.array_equal(tree.pairs(), ref)
    q = [200.0, 200.0, 400.0, 300.0]
    agree = sorted(idx.intersection(q)) == tree.query(q).tolist()
    tree.check_invariants()
    bulk = measure(RTree, boxes, label="RTree from_boxes", repeat=1, reference=ref)
    rstar = measure(RStarTree, boxes, label="RStarTree from_boxes", repeat=1, reference=ref)
    return [
        Line("RTree pairs == cKDTree pairs; a window query == the rtree package's",
             f"{len(ref):,} pairs, invariants hold" if ok and agree else "FAILED", "identical", ok and agree),
        Line("RTree(quadratic): 100,000 public insert() calls",
             f"{t_ours:.2f} s ({1e6 * t_ours / N:.1f} us per insert); rtree package {t_pkg:.2f} s: "
             f"{t_pkg / t_ours:.1f}x faster", "faster than the rtree package", t_ours < t_pkg),
        Line("for reference: RTree / RStarTree from_boxes (one compiled loop of inserts) + pairs",
             f"RTree {_ms(bulk.build_s)} + {_ms(bulk.pairs_s)}; RStarTree {_ms(rstar.build_s)} + {_ms(rstar.pairs_s)}",
             "information", True),
    ]


@goal("k-d tree: KDTree build + pairs vs cKDTree, n = 100,000")
def kdtree_vs_ckdtree():
    _warm_up(KDTree)
    lines = []
    for scene in SCENES:
        boxes = scaled_scene(scene, N)
        t_kd, ref = median_time(lambda: ckdtree_pairs(boxes), 3)
        ours = measure(KDTree, boxes, label=f"KDTree ({scene})", reference=ref)
        lines.append(Line(f"{scene}: KDTree build + pairs",
                          f"{_ms(ours.build_s)} + {_ms(ours.pairs_s)} = {_ms(ours.total_s)}; cKDTree "
                          f"{_ms(t_kd)}: ratio {ours.total_s / t_kd:.2f}", "within 2x of cKDTree",
                          ours.total_s <= 2 * t_kd))
    return lines

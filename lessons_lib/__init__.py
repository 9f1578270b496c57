"""lessons_lib: the shared library of the 2D broad-phase course.

Everything a lesson needs is importable from here::

    from lessons_lib import STRUCTURES, make_scene, brute_force_pairs

Modules, in the order the lessons meet them:

* :mod:`lessons_lib.geometry`     shapes, metrics, closed intersection tests, ``as_boxes``
* :mod:`lessons_lib.scenes`       the benchmark article's scenes and ours
* :mod:`lessons_lib.base`         ``BroadPhase`` (the common interface) and ``STRUCTURES``
* :mod:`lessons_lib.elements`     the element table every structure shares
* :mod:`lessons_lib.brute_force`  the O(n^2) reference
* :mod:`lessons_lib.two_clusters` lesson 01's split at the widest gap
* :mod:`lessons_lib.freelist`     lesson 05's indexed free list
* :mod:`lessons_lib.naive_quadtree` lesson 04's textbook quadtree (node objects, lists)
* :mod:`lessons_lib.quadtree`     lesson 05's compact quadtree (8-byte nodes, index lists)
* :mod:`lessons_lib.loose_quadtree` lesson 06's loose quadtree (one leaf per element, float32 loose bounds)
* :mod:`lessons_lib.uniform_grid` lesson 02's fixed grid (and the corner-only pitfall)
* :mod:`lessons_lib.hierarchical_grid` lesson 02's coarse/fine grids, per-row lists
* :mod:`lessons_lib.spatial_hash` lesson 03's unbounded hashed grid
* :mod:`lessons_lib.loose_tight_grid` lesson 07's loose/tight double grid (elements by centre, coarse lists of loose cells)
* :mod:`lessons_lib.point_grid` lesson 07's uniform-size trick (elements as points under one size bound)
* :mod:`lessons_lib.grid_cells` what the three grids share
* :mod:`lessons_lib.sweep_and_prune` lesson 08's sweep over sorted endpoints, insertion-sort updates
* :mod:`lessons_lib.rtree_nodes`  lessons 09-10: node arrays, pruned query and self-join shared by the trees
* :mod:`lessons_lib.rtree`        lesson 09's Guttman R-tree (exhaustive, quadratic, linear splits)
* :mod:`lessons_lib.rstar_tree`   lesson 09's R*-tree
* :mod:`lessons_lib.curves`       lesson 10's Hilbert, Morton and Peano curves
* :mod:`lessons_lib.bulk_rtree`   lesson 10's packed R-trees (Nearest-X, STR, Hilbert)
* :mod:`lessons_lib.kdtree`       lesson 10's k-d tree with exact node bounds
* :mod:`lessons_lib.jit`          numba on/off (``LESSONS_JIT=0``)
* :mod:`lessons_lib.buffers`      growable output buffers of the kernels
* :mod:`lessons_lib.viz`          drawing boxes, pairs and a structure's regions
* :mod:`lessons_lib.widgets`      ``Stepper``, the step-through widget
* :mod:`lessons_lib.sim`          lesson 12's agent simulation (``Simulation``); ``sim_widget`` plays it live
* :mod:`lessons_lib.checks`       automatic checks of the exercises (one module per topic)
* :mod:`lessons_lib.results`      stored results under data/results/ (save_results, load_results)
"""
from .base import STRUCTURES, BroadPhase, normalize_pairs, register
from .bulk_rtree import BulkRTree
from .brute_force import (
    BruteForce,
    brute_force_nearest,
    brute_force_pairs,
    compiled_brute_force_pairs,
    double_loop_pairs,
    pair_test_count,
)
from .geometry import ARTICLE_WORLD, as_box, as_boxes
from .hierarchical_grid import HierarchicalGrid
from .jit import JIT_ENABLED, jit_status
from .kdtree import KDTree
from .rstar_tree import RStarTree
from .rtree import RTree
from .freelist import FreeList
from .naive_quadtree import NaiveQuadtree
from .paths import DATA_DIR, data_path
from .quadtree import Quadtree
from .loose_quadtree import LooseQuadtree
from .loose_tight_grid import LooseTightGrid
from .point_grid import PointGrid
from .scenes import ARTICLE_SCENES, SCENES, make_scene, scale_to
from .spatial_hash import SpatialHash
from .sweep_and_prune import SweepAndPrune
from .two_clusters import split_two_clusters, two_cluster_pairs
from .uniform_grid import UniformGrid, corner_only_pairs, suggest_cell_size
from .viz import draw_boxes, draw_pairs, draw_regions, draw_structure, frame_budget_lines, set_world
from .sim import Simulation
from .widgets import Stepper

__version__ = "0.1.0"

__all__ = [
    "DATA_DIR",
    "data_path",
    "ARTICLE_SCENES",
    "ARTICLE_WORLD",
    "BroadPhase",
    "BruteForce",
    "BulkRTree",
    "KDTree",
    "RStarTree",
    "RTree",
    "FreeList",
    "NaiveQuadtree",
    "Quadtree",
    "LooseQuadtree",
    "LooseTightGrid",
    "PointGrid",
    "HierarchicalGrid",
    "JIT_ENABLED",
    "SCENES",
    "STRUCTURES",
    "SpatialHash",
    "SweepAndPrune",
    "Stepper",
    "Simulation",
    "UniformGrid",
    "as_box",
    "as_boxes",
    "brute_force_nearest",
    "brute_force_pairs",
    "compiled_brute_force_pairs",
    "corner_only_pairs",
    "double_loop_pairs",
    "draw_boxes",
    "draw_pairs",
    "draw_regions",
    "draw_structure",
    "frame_budget_lines",
    "jit_status",
    "make_scene",
    "normalize_pairs",
    "pair_test_count",
    "register",
    "scale_to",
    "set_world",
    "split_two_clusters",
    "suggest_cell_size",
    "two_cluster_pairs",
]

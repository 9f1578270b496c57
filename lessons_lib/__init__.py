"""lessons_lib: the shared library of the 2D broad-phase course.

Everything a lesson needs most is importable from here::

    from lessons_lib import STRUCTURES, make_scene, brute_force_pairs
    bp = STRUCTURES["uniform_grid"].from_boxes(make_scene("random", 2000))
    bp.pairs()          # (k, 2) int64, i < j per row, rows sorted

The folders say what each file is for, and imports flow one way (down this list):

* top level: the common interface and what every lesson uses:
  :mod:`~lessons_lib.base` (``BroadPhase``, ``STRUCTURES``), :mod:`~lessons_lib.geometry`
  (closed shapes, metrics, input validation), :mod:`~lessons_lib.scenes` (the benchmark
  article's scenes and ours), :mod:`~lessons_lib.viz` (drawing), :mod:`~lessons_lib.widgets`
  (``Stepper``), :mod:`~lessons_lib.explorer` (``Explorer``: any structure by mouse),
  :mod:`~lessons_lib.timing`, :mod:`~lessons_lib.data` (paths and stored
  results), :mod:`~lessons_lib.sources` (the works the course cites, by key);
* :mod:`lessons_lib.core`: plumbing every structure shares (element table, canonical pair
  order, buffers, free list, parameter validation, numba on/off);
* :mod:`lessons_lib.structures`: the structures the lessons teach, one module each, and
  the kernels several of them share;
* :mod:`lessons_lib.labs`: what one lesson draws, steps through and measures;
* :mod:`lessons_lib.checks`: automatic checks of the exercises;
* :mod:`lessons_lib.bench`: the benchmark harness of lesson 12.

``structures`` and ``core`` never import drawing, widgets, labs, checks or the benchmark
harness (a test reads the imports). The words the course uses (id, slot, element,
element node, reference cell, canonical pair order, capacity...) are defined in
:mod:`lessons_lib.glossary`.
"""
from . import style as _style

_style.use()

from .base import STRUCTURES, BroadPhase, normalize_pairs, register
from .core.freelist import FreeList
from .core.jit import JIT_ENABLED, jit_status
from .data import DATA_DIR, data_path, load_results, save_results
from .geometry import ARTICLE_WORLD, as_box, as_boxes
from .scenes import ARTICLE_SCENES, SCENES, SKEWED_SCENES, make_scene, moved, scale_to, scaled_scene, skewed_scene
from .structures import (
    BruteForce,
    BulkRTree,
    CountingSortGrid,
    DynamicAABBTree,
    HierarchicalGrid,
    KDTree,
    LooseQuadtree,
    LooseTightGrid,
    NaiveQuadtree,
    PersistentSweepAndPrune,
    PointGrid,
    Quadtree,
    RStarTree,
    RTree,
    SpatialHash,
    SplitBroadPhase,
    SweepAndPrune,
    UniformGrid,
)
from .structures.brute_force import (
    brute_force_nearest,
    brute_force_pairs,
    compiled_brute_force_pairs,
    double_loop_pairs,
    pair_test_count,
)
from .structures.cell_size import suggest_cell_size
from .timing import best_time, median_time
from .viz import draw_boxes, draw_pairs, draw_regions, draw_structure, frame_budget_lines, set_world
from .widgets import Stepper
from .labs.sim import Simulation
from .labs.two_clusters import split_two_clusters, two_cluster_pairs

__version__ = "0.1.0"

__all__ = [
    "ARTICLE_SCENES",
    "ARTICLE_WORLD",
    "BroadPhase",
    "BruteForce",
    "BulkRTree",
    "CountingSortGrid",
    "DATA_DIR",
    "DynamicAABBTree",
    "FreeList",
    "HierarchicalGrid",
    "JIT_ENABLED",
    "KDTree",
    "LooseQuadtree",
    "LooseTightGrid",
    "NaiveQuadtree",
    "PersistentSweepAndPrune",
    "PointGrid",
    "Quadtree",
    "RStarTree",
    "RTree",
    "SCENES",
    "SKEWED_SCENES",
    "STRUCTURES",
    "Simulation",
    "SpatialHash",
    "SplitBroadPhase",
    "Stepper",
    "SweepAndPrune",
    "UniformGrid",
    "as_box",
    "as_boxes",
    "best_time",
    "brute_force_nearest",
    "brute_force_pairs",
    "compiled_brute_force_pairs",
    "data_path",
    "double_loop_pairs",
    "draw_boxes",
    "draw_pairs",
    "draw_regions",
    "draw_structure",
    "frame_budget_lines",
    "jit_status",
    "load_results",
    "make_scene",
    "median_time",
    "moved",
    "normalize_pairs",
    "pair_test_count",
    "register",
    "save_results",
    "scale_to",
    "scaled_scene",
    "skewed_scene",
    "set_world",
    "split_two_clusters",
    "suggest_cell_size",
    "two_cluster_pairs",
]

"""The structures the lessons teach: one module per registered name, plus shared kernels.

Importing this package registers every structure in
:data:`lessons_lib.base.STRUCTURES`. Shared-kernel modules (not registered):
:mod:`~lessons_lib.structures.grid_cells` (what the grids share),
:mod:`~lessons_lib.structures.rtree_nodes` (node arrays of the R-trees and the k-d tree),
:mod:`~lessons_lib.structures.curves` (Hilbert and Morton orders).

Modules here import only :mod:`lessons_lib.base`, :mod:`lessons_lib.geometry`,
:mod:`lessons_lib.core` and each other: never drawing, widgets, lesson helpers,
checks or the benchmark harness.
"""
from .brute_force import BruteForce
from .bulk_rtree import BulkRTree
from .counting_sort_grid import CountingSortGrid
from .dynamic_aabb_tree import DynamicAABBTree
from .hierarchical_grid import HierarchicalGrid
from .kdtree import KDTree
from .loose_quadtree import LooseQuadtree
from .loose_tight_grid import LooseTightGrid
from .naive_quadtree import NaiveQuadtree
from .persistent_sweep_and_prune import PersistentSweepAndPrune
from .point_grid import PointGrid
from .quadtree import Quadtree
from .rstar_tree import RStarTree
from .rtree import RTree
from .spatial_hash import SpatialHash
from .split_broad_phase import SplitBroadPhase
from .sweep_and_prune import SweepAndPrune
from .uniform_grid import UniformGrid

__all__ = [
    "BruteForce",
    "BulkRTree",
    "CountingSortGrid",
    "DynamicAABBTree",
    "HierarchicalGrid",
    "KDTree",
    "LooseQuadtree",
    "LooseTightGrid",
    "NaiveQuadtree",
    "PersistentSweepAndPrune",
    "PointGrid",
    "Quadtree",
    "RStarTree",
    "RTree",
    "SpatialHash",
    "SplitBroadPhase",
    "SweepAndPrune",
    "UniformGrid",
]

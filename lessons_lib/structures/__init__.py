"""The structures the lessons teach: one module per registered name, plus shared kernels.

Importing this package registers every structure in
:data:`lessons_lib.base.STRUCTURES`. Shared-kernel modules (not registered):
:mod:`~lessons_lib.structures.grid_cells` (what the grids share),
:mod:`~lessons_lib.structures.cell_size` (a grid's cell size: the default, the checks, lesson 02's suggestion),
:mod:`~lessons_lib.structures.rtree_nodes` (node arrays of the R-trees and the k-d tree, and the areas they compare),
:mod:`~lessons_lib.structures.rtree_search` (their query, pairs and nearest neighbours),
:mod:`~lessons_lib.structures.rtree_quality` (their quality per level and invariants),
:mod:`~lessons_lib.structures.rtree_split` (the R-tree's SplitNode heuristics),
:mod:`~lessons_lib.structures.curves` (Hilbert and Morton orders),
:mod:`~lessons_lib.structures.endpoints` (the two sweep-and-prune structures' endpoints: their order, sort and edits).
A structure whose lesson has many steps keeps some of them in modules of its own,
each read in one sitting: :mod:`~lessons_lib.structures.quadtree_changes` (the compact
quadtree's insert, split, remove and update), :mod:`~lessons_lib.structures.loose_quadtree_changes`
(the loose quadtree's layout, insert and move, split and remove), :mod:`~lessons_lib.structures.loose_tight_cells`
and :mod:`~lessons_lib.structures.loose_tight_pairs` (the loose/tight grid's cells and pair
search), :mod:`~lessons_lib.structures.aabb_tree_nodes`,
:mod:`~lessons_lib.structures.aabb_tree_search` and :mod:`~lessons_lib.structures.aabb_tree_build`
(the dynamic AABB tree's node table and changes, searches, and binned build).

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

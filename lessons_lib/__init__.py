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
* :mod:`lessons_lib.jit`          numba on/off (``LESSONS_JIT=0``)
* :mod:`lessons_lib.viz`          drawing boxes, pairs and a structure's regions
* :mod:`lessons_lib.widgets`      ``Stepper``, the step-through widget
* :mod:`lessons_lib.checks`       automatic checks of the exercises
"""
from .base import STRUCTURES, BroadPhase, normalize_pairs, register
from .brute_force import (
    BruteForce,
    brute_force_pairs,
    compiled_brute_force_pairs,
    double_loop_pairs,
    pair_test_count,
)
from .geometry import ARTICLE_WORLD, as_box, as_boxes
from .jit import JIT_ENABLED, jit_status
from .scenes import ARTICLE_SCENES, SCENES, make_scene, scale_to
from .two_clusters import split_two_clusters, two_cluster_pairs
from .viz import draw_boxes, draw_pairs, draw_regions, draw_structure, frame_budget_lines, set_world
from .widgets import Stepper

__version__ = "0.1.0"

__all__ = [
    "ARTICLE_SCENES",
    "ARTICLE_WORLD",
    "BroadPhase",
    "BruteForce",
    "JIT_ENABLED",
    "SCENES",
    "STRUCTURES",
    "Stepper",
    "as_box",
    "as_boxes",
    "brute_force_pairs",
    "compiled_brute_force_pairs",
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
    "two_cluster_pairs",
]

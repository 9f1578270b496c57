"""Targets of lesson 11: the dynamic AABB tree stays as good as a fresh build over 1,000 frames.

Goal (issue "The dynamic AABB tree"): after 1,000 frames of moving agents, the tree's
surface-area cost (:meth:`~lessons_lib.structures.dynamic_aabb_tree.DynamicAABBTree.cost`,
the sum of its internal nodes' perimeters) and its memory per element within 10 % of a
tree freshly built on the same boxes, and its memory flat over the frames (within 2 %:
the pairs the tree keeps for the next ``pairs()`` follow the number of pairs).

Two scenes of 20,000 square agents from :func:`lessons_lib.labs.aabb_tree.agent_walk` (2 to 4
units wide, half a unit per frame in a fixed direction, turning back at the walls):
every agent moving (the refit-and-rebuild path of ``update_many``) and 5 % moving (the
re-insertion path, with rotations). Each frame is ``update_many`` of every agent; every
100th frame the pairs are checked against the counting-sort grid's. The speed goals against
Box2D's own tree are in :mod:`benchmarks.anchor_box2d`.
"""
from __future__ import annotations

import numpy as np

from lessons_lib.labs.aabb_tree import agent_walk
from lessons_lib.structures.counting_sort_grid import CountingSortGrid
from lessons_lib.structures.dynamic_aabb_tree import DynamicAABBTree

from . import Line, goal

N = 20_000
FRAMES = 1_000
SPEED = 0.5
#: "Flat": the largest memory after the first tenth of the frames at most this times the smallest.
FLAT = 1.02


def _run(moving: float) -> list[Line]:
    walk = agent_walk(N, moving=moving, speed=SPEED)
    tree = DynamicAABBTree.from_boxes(next(walk))
    ids = np.arange(N)
    memory = []
    wrong = 0
    for frame in range(1, FRAMES + 1):
        boxes = next(walk)
        tree.update_many(ids, boxes)
        memory.append(tree.memory_bytes())
        if frame % 100 == 0:
            wrong += not np.array_equal(tree.pairs(), CountingSortGrid.from_boxes(boxes).pairs())
    fresh = DynamicAABBTree.from_boxes(boxes)
    cost = tree.cost() / fresh.cost()
    per_element = tree.memory_bytes() / fresh.memory_bytes()
    settled = memory[FRAMES // 10:]
    flat = max(settled) <= FLAT * min(settled)
    scene = f"{moving:.0%} of {N:,} agents moving, {FRAMES:,} frames"
    return [
        Line(f"{scene}: pairs every 100th frame == the counting-sort grid's",
             "identical" if not wrong else f"FAILED on {wrong} frames", "identical", not wrong),
        Line(f"{scene}: surface-area cost / a fresh tree's", f"{cost:.3f}", "<= 1.10", cost <= 1.10),
        Line(f"{scene}: memory per element / a fresh tree's",
             f"{tree.memory_bytes() / N:.1f} / {fresh.memory_bytes() / N:.1f} B = {per_element:.2f}", "<= 1.10",
             per_element <= 1.10),
        Line(f"{scene}: memory after frame {FRAMES // 10}", f"{min(settled):,} to {max(settled):,} B",
             f"flat: within {FLAT - 1:.0%} (the pairs kept for the next frame follow the pair count)", flat),
    ]


@goal("aabb tree: cost and memory after 1,000 frames against a fresh build, n = 20,000")
def aabb_tree_quality():
    return _run(1.0) + _run(0.05)

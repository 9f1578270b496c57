"""Memory of the node-array trees stays flat over long runs of moving elements.

A thousand frames of agents taking small random steps (some frames move a few agents one by
one, some move them all at once): the bytes each tree holds after the first hundred frames are
the bytes it holds after a thousand.
"""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib import STRUCTURES, brute_force_pairs

TREES = ["rtree", "rstar_tree", "bulk_rtree", "kdtree"]


@pytest.mark.parametrize("name", TREES)
def test_memory_is_flat_over_1000_frames(name):
    rng = np.random.default_rng(0)
    n = 150
    pos = rng.uniform(0, 300, (n, 2))
    size = rng.uniform(1, 4, (n, 1))
    boxes = np.hstack([pos - size, pos + size])
    tree = STRUCTURES[name].from_boxes(boxes)
    ids = np.arange(n)
    after_100 = None
    for frame in range(1000):
        moved = ids if frame % 10 == 0 else rng.choice(n, 12, replace=False)
        pos[moved] = np.clip(pos[moved] + rng.normal(0, 1.0, (len(moved), 2)), 0, 300)
        boxes = np.hstack([pos - size, pos + size])
        tree.update_many(moved, boxes[moved])
        if frame == 100:
            after_100 = tree.memory_bytes()
        if frame > 100:
            assert tree.memory_bytes() <= after_100, f"frame {frame}: {tree.memory_bytes()} > {after_100} bytes"
    # the tree was built for the moved boxes, not the first ones
    np.testing.assert_array_equal(tree.pairs(), brute_force_pairs(boxes))
    if hasattr(tree, "check_invariants"):
        tree.check_invariants()

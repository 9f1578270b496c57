"""Memory stays flat over a long run of moving boxes, for every structure.

A broad phase in a game lives for hours: a structure whose bytes creep up frame after
frame (nodes never freed, free lists that only grow, buffers sized by the worst frame
ever seen and then by a larger one) runs out of memory eventually even when each frame is
right. Here 150 boxes wander in a closed world for 1,000 frames (``update_many`` and
``cleanup`` every frame, as the simulation of lesson 13 does), a few are removed and
re-inserted every frame, and the structure's ``memory_bytes()`` over the last 500 frames
must stay within a small factor of its peak over the first 500. A structure that doubles a
buffer once on a rare crowded frame passes; one that grows a little every frame does not.
Bytes are exact (no timing), so the test is not noisy.
"""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib import STRUCTURES, brute_force_pairs

N = 150
FRAMES = 1_000
WORLD = np.array([0.0, 0.0, 240.0, 180.0])
#: Allowed growth of the late peak over the early peak.
FACTOR = 1.25
#: Structures whose memory is not yet flat over long runs (this set only shrinks).
PENDING: set[str] = set()


def _walk(seed: int = 0):
    """Boxes of side 2-6 bouncing off the world's walls, one frame at a time."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(2.0, 6.0, (N, 2))
    pos = rng.uniform(WORLD[:2], WORLD[2:] - size)
    vel = rng.uniform(-1.5, 1.5, (N, 2))
    while True:
        pos += vel
        low, high = pos < WORLD[:2], pos + size > WORLD[2:]
        vel[low | high] *= -1
        pos = np.clip(pos, WORLD[:2], WORLD[2:] - size)
        yield np.column_stack([pos, pos + size])


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_memory_is_flat_over_a_thousand_frames(name):
    if name in PENDING:
        pytest.skip("memory not yet flat over long runs")
    walk = _walk()
    boxes = next(walk)
    bp = STRUCTURES[name].from_boxes(boxes, world=WORLD) if _takes_world(name) else STRUCTURES[name].from_boxes(boxes)
    ids = np.arange(N)
    rng = np.random.default_rng(1)
    memory = np.empty(FRAMES, dtype=np.int64)
    for frame in range(FRAMES):
        boxes = next(walk)
        gone = rng.choice(N, 4, replace=False)
        for i in gone:
            bp.remove(int(i))
        keep = np.setdiff1d(ids, gone)
        bp.update_many(keep, boxes[keep])
        for i in gone:
            bp.insert(int(i), boxes[i])
        bp.cleanup()
        memory[frame] = bp.memory_bytes()
    got = bp.pairs()
    want = brute_force_pairs(boxes)
    assert np.array_equal(got, want), f"{name}: wrong pairs after {FRAMES} frames"
    early, late = memory[: FRAMES // 2].max(), memory[FRAMES // 2 :].max()
    assert late <= FACTOR * early, (
        f"{name}: memory grew from a peak of {early:,} bytes in frames 0-499 "
        f"to {late:,} bytes in frames 500-999"
    )


def _takes_world(name: str) -> bool:
    import inspect

    params = inspect.signature(STRUCTURES[name].__init__).parameters
    return "world" in params

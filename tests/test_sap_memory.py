"""Memory stays flat over 1,000 frames of moving agents: sweep and prune (both kinds) and brute force.

Agents of radius 1-2 move half a unit per frame at most and bounce off the walls
of a world they fill to 10 %, as in lesson 12; each frame is ``update_many``,
``cleanup`` and ``pairs()``. Flat means: the structure's own arrays
(``memory_bytes()``) are no larger in the second half of the run than in the
first, and the compiled kernels hold no more live allocations at the end than
after the first frames (numba's runtime counts them when ``NUMBA_NRT_STATS=1``,
which must be set before numba starts: the run is a subprocess).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NAMES = ["sweep_and_prune", "persistent_sweep_and_prune", "brute_force"]

RUN = """
import json, sys
import numpy as np
from lessons_lib import JIT_ENABLED, STRUCTURES, brute_force_pairs

N, FRAMES = 1500, 1000


def live_allocations():
    if not JIT_ENABLED:
        return 0
    from numba.core.runtime import rtsys
    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free


out = {}
for name in sys.argv[1:]:
    rng = np.random.default_rng(0)
    r = rng.uniform(1.0, 2.0, N)
    side = np.sqrt(np.pi * np.sum(r * r) / 0.1)
    pos = rng.uniform(2.0, side - 2.0, (N, 2))
    angle = rng.uniform(0, 2 * np.pi, N)
    vel = rng.uniform(0, 0.5, N)[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    boxes = np.column_stack([pos - r[:, None], pos + r[:, None]])
    bp = STRUCTURES[name].from_boxes(boxes)
    ids = np.arange(N)
    memory, live = [], []
    for frame in range(FRAMES):
        pos += vel
        for d in (0, 1):  # bounce off the walls
            vel[(pos[:, d] < r) | (pos[:, d] > side - r), d] *= -1
            np.clip(pos[:, d], r, side - r, out=pos[:, d])
        boxes = np.column_stack([pos - r[:, None], pos + r[:, None]])
        bp.update_many(ids, boxes)
        bp.cleanup()
        p = bp.pairs()
        memory.append(bp.memory_bytes())
        if frame in (50, FRAMES - 1):
            live.append(live_allocations())
    out[name] = {"same": bool(np.array_equal(p, brute_force_pairs(boxes))), "pairs": len(p),
                 "first": max(memory[: FRAMES // 2]), "second": max(memory[FRAMES // 2:]), "live": live}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs() -> dict:
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    proc = subprocess.run([sys.executable, "-c", RUN, *NAMES], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", NAMES)
def test_memory_is_flat_over_1000_frames(runs, name):
    run = runs[name]
    assert run["same"] and run["pairs"] > 0, "the last frame's pairs differ from brute force"
    assert run["second"] <= run["first"], f"memory grew from {run['first']:,} to {run['second']:,} bytes"
    assert run["live"][1] <= run["live"][0], f"live kernel allocations grew: {run['live']}"

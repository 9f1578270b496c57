"""The quadtrees' memory stays flat in a long simulation.

Agents that move keep making leaves go over capacity (a split) and under it again. A
cleanup that only collapsed four *empty* leaves kept every other split for good, so the
tree grew towards every place that had ever been crowded: 6 % (compact) and 11 % (loose)
more ``memory_bytes()`` between frames 100 and 300 of a 20,000-agent run, and the live
node count almost doubled by frame 1,000. Cleanup now merges four leaves holding at most
half the capacity together (``merge_limit``), so the tree follows where the agents are now,
without merging a leaf that the next arrival would split again.
"""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib.labs.sim import Simulation


@pytest.mark.parametrize("name", ["quadtree", "loose_quadtree"])
def test_memory_is_flat_over_a_thousand_frames(name):
    sim = Simulation(1000, structure=name, seed=0)
    memory, nodes = [], []
    for frame in range(1000):
        sim.step()
        memory.append(sim.bp.memory_bytes())
        nodes.append(sim.bp.node_count() if frame % 50 == 49 else 0)
    memory = np.array(memory)
    early, late = memory[:500].max(), memory[500:].max()  # arrays grow in steps while the crowd settles, then stop
    assert late <= early, f"memory_bytes still growing: peak {early:,} in frames 1-500, {late:,} in 501-1,000"
    early, late = max(nodes[50:150]), max(nodes[-100:])
    assert late <= 1.25 * early, f"live nodes grew from {early} around frame 100 to {late} by frame 1,000"
    sim.bp.check_invariants()

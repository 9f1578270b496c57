"""Lesson 12's lab (lessons_lib.labs.aabb_tree): scenes, the traced sibling search, the insertion Stepper, the measurements."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import lessons_lib as ll
from lessons_lib.labs import aabb_tree as al
from lessons_lib.structures.dynamic_aabb_tree import DynamicAABBTree


def test_agent_frames_move_only_the_movers_and_keep_giants():
    fr = al.agent_frames(200, 5, moving=0.1, giants=3, seed=1)  # a world of 89 units: giants of 44.7
    assert len(fr) == 6 and all(f.shape == (200, 4) for f in fr)
    assert np.array_equal(fr[0][20:], fr[5][20:])            # the resting ones never move
    assert not np.array_equal(fr[0][:20], fr[1][:20])
    widths = fr[0][:, 2] - fr[0][:, 0]
    assert (widths[-3:] >= 40).all() and (widths[:-3] <= 4).all()
    again = al.agent_frames(200, 5, moving=0.1, giants=3, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(fr, again))
    with pytest.raises(ValueError):
        al.agent_frames(10, 2, moving=1.0, giants=1)


@pytest.mark.parametrize("seed", range(6))
def test_traced_search_is_the_trees_and_the_cheapest(seed):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 100, (40, 2))
    b = np.column_stack([lo, lo + rng.uniform(1, 9, (40, 2))])
    t = DynamicAABBTree(margin=0.0)
    for i, x in enumerate(b[:-1]):
        t.insert(i, x)
    best, cost, visited = al.trace_sibling_search(t.nodes, b[-1])
    costs = al.node_costs(t.nodes, b[-1])
    assert cost == pytest.approx(min(costs.values()))
    assert len(visited) <= len(costs)
    t.insert(39, b[-1])
    assert t.stats["sibling"] == best


def test_insertion_stepper_tells_the_story():
    r = np.random.default_rng(172)
    lo = r.uniform(0, 90, (8, 2))
    b = np.round(np.column_stack([lo, lo + r.uniform(4, 14, (8, 2))]))
    st = al.insertion_stepper(b[:7], b[7])
    assert len(st) == 4 and st.still_steps() == [0, 1, 2, 3]
    assert st.frame(3)["rotations"] == 1 and len(st.frame(3)["moved"]) == 2
    assert st.frame(2)["cost"] > st.frame(3)["cost"]
    assert st.still_png()[:4] == b"\x89PNG"


def test_node_table_names_fields_and_free_list():
    t = DynamicAABBTree(margin=0.5)
    for i, x in enumerate([[0, 0, 2, 2], [5, 5, 6, 6], [1, 4, 3, 5]]):
        t.insert(i, x)
    t.remove(1)
    text = al.node_table(t)
    assert "parent" in text and "child1" in text and "free" in text
    assert f"free list = {al.free_list(t)}" in text and len(al.free_list(t)) == 2


def test_rotations_keep_sorted_insertions_close_to_a_build():
    b = ll.make_scene("random", 600, seed=2)
    order = np.argsort(b[:, 0], kind="stable")
    rows = al.insertion_quality(b, {"sorted by x": order})
    by = {(r["order"], r["rotations"]): r for r in rows}
    assert by[("sorted by x", True)]["cost"] < by[("sorted by x", False)]["cost"]
    assert by[("sorted by x", True)]["height"] < by[("sorted by x", False)]["height"]


def test_margin_sweep_trades_refiles_for_candidates():
    fr = al.agent_frames(300, 6, seed=3)
    rows = al.margin_sweep(fr, [0.0, 0.5, 2.0])
    assert rows[0]["candidates"] == rows[0]["exact"] and rows[0]["refiled"] == 300
    assert rows[0]["refiled"] > rows[1]["refiled"] > rows[2]["refiled"]
    assert rows[0]["candidates"] < rows[1]["candidates"] < rows[2]["candidates"]


def test_frame_times_and_the_stored_anchor():
    fr = al.agent_frames(300, 3, moving=0.05, giants=2, seed=4)
    t = al.frame_times(["dynamic_aabb_tree", "sweep_and_prune"], fr, repeat=1)
    assert set(t) == {"dynamic_aabb_tree", "sweep_and_prune"} and all(v > 0 for v in t.values())
    r, table = al.anchor_table()
    assert ("resting", 20000) in table and "dynamic_aabb_tree" in table[("agents", 100000)]
    fig = al.plot_anchor(table)
    assert len(fig.axes) == 2

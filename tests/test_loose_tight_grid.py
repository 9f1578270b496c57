"""The loose/tight double grid of lesson 07 against brute force, its invariants, and its two grids.

Fixed scenes, hypothesis scenes, long random operation sequences with
invariants along the way (``exact=True`` after every cleanup: each
loose rectangle equals the union of its elements, each registration its
rectangle's tight range), giants and far-away elements, and parameter errors.
The common contract runs in test_base.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bp_strategies import box_arrays, filter_query, nested_loop_pairs
from grid_invariants import check_loose_tight_grid
from loose_helpers import check_against, run_sequence
from lessons_lib import SCENES, LooseTightGrid, brute_force_pairs, make_scene
from lessons_lib.structures.loose_bounds import EMPTY_RECT

FACTORS = [1, 2, 4, 7]


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("tight_factor", [1, 4])
def test_scenes_equal_brute_force(scene, tight_factor):
    boxes = make_scene(scene, 400, seed=3)
    ref = brute_force_pairs(boxes)
    for cell_size in (None, 7.0, 90.0):
        bp = LooseTightGrid.from_boxes(boxes, cell_size=cell_size, tight_factor=tight_factor)
        check_loose_tight_grid(bp, exact=True)  # a bulk load leaves exact rectangles
        np.testing.assert_array_equal(bp.pairs(), ref)
        q = [100.0, 100.0, 300.0, 250.0]
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))


#: Small worlds, so that a fixed small cell size gives few cells (the invariants walk every cell).
SMALL_WORLDS = [None, [0.0, 0.0, 30.0, 30.0], [-20.0, -10.0, 40.0, 30.0], [3.0, -7.0, 13.0, 0.0]]


@settings(max_examples=40)
@given(boxes=box_arrays(max_size=40), factor=st.sampled_from(FACTORS), world=st.sampled_from(SMALL_WORLDS),
       cell=st.sampled_from([None, 0.5, 3.0, 40.0]))
def test_hypothesis_scenes(boxes, factor, world, cell):
    cell = cell if world is not None else None  # a tiny fixed cell over an inferred far-reaching world: too many cells
    bp = LooseTightGrid.from_boxes(boxes, tight_factor=factor, world=world, cell_size=cell)
    check_loose_tight_grid(bp, exact=True)
    want = np.array(sorted(nested_loop_pairs(boxes)), dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(bp.pairs(), want)
    bp2 = LooseTightGrid(world=world, tight_factor=factor, cell_size=cell)
    for i, b in enumerate(boxes):
        bp2.insert(i, b)
    np.testing.assert_array_equal(bp2.pairs(), want)
    model = {i: b for i, b in enumerate(boxes.tolist())}
    for i in range(0, len(boxes), 2):
        bp2.remove(i)
        del model[i]
    check_against(bp2, model, [[0, 0, 10, 10], [5, 5, 5, 5]], exact=True)  # remove refits at once


@pytest.mark.parametrize("cell_size, tight_factor, seed", [(5.0, 1, 0), (10.0, 2, 1), (4.0, 4, 2), (25.0, 3, 3)])
def test_long_random_sequences(cell_size, tight_factor, seed):
    bp = LooseTightGrid(world=[0.0, 0.0, 100.0, 100.0], cell_size=cell_size, tight_factor=tight_factor)
    model = run_sequence(bp, seed)
    for i in list(model):
        bp.remove(i)
    check_loose_tight_grid(bp, exact=True)
    assert (bp.lcount == 0).all() and (bp.thead == -1).all()
    assert int(bp.tstate[0]) > 0  # nodes were handed out and are all back on the free list


def test_rectangles_grow_on_move_refit_on_remove_and_cleanup():
    bp = LooseTightGrid(world=[0, 0, 100, 100], cell_size=10, tight_factor=2)
    bp.insert(0, [11, 11, 13, 13])
    bp.insert(1, [14, 14, 18, 18])
    c = 1 * bp.cols + 1
    np.testing.assert_array_equal(bp.lrect[c], [11, 11, 18, 18])
    assert bp.listed_in(0, 0) == [c]
    bp.update(1, [15, 12, 19, 16])  # same loose cell: its rectangle only grows
    np.testing.assert_array_equal(bp.lrect[c], [11, 11, 19, 18])
    with pytest.raises(AssertionError, match="stale growth"):
        check_loose_tight_grid(bp, exact=True)
    bp.cleanup()
    check_loose_tight_grid(bp, exact=True)
    np.testing.assert_array_equal(bp.lrect[c], [11, 11, 19, 16])
    bp.insert(2, [12, 12, 38, 14])  # centre (25, 13): loose cell (2, 1) in tight cell (1, 0), reaching back into (0, 0)
    c2 = 1 * bp.cols + 2
    assert bp.lreg[c2].tolist() == [0, 0, 1, 0]
    assert bp.listed_in(0, 0) == [c2, c] and bp.listed_in(1, 0) == [c2]
    check_loose_tight_grid(bp, exact=True)
    bp.remove(2)  # remove refits and leaves the tight lists
    np.testing.assert_array_equal(bp.lrect[c2], EMPTY_RECT)
    assert bp.listed_in(0, 0) == [c] and bp.listed_in(1, 0) == []
    check_loose_tight_grid(bp, exact=True)


def test_a_giant_is_one_element_listed_in_many_tight_cells():
    boxes = make_scene("random", 500, seed=1)
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600], cell_size=20, tight_factor=2)
    small = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600], cell_size=20, tight_factor=2)
    small.insert(1000, [100, 100, 101, 101])
    bp.insert(1000, [100, 100, 700, 500])
    assert bp.enext.nbytes == small.enext.nbytes  # one slot, whatever its size
    lists = bp.tight_cells()["lists"]
    assert (lists > 0).sum() > 100  # ... but its loose cell is listed all over the tight grid
    check_loose_tight_grid(bp, exact=True)
    ref = brute_force_pairs(np.vstack([boxes, [[100, 100, 700, 500]]]))
    ref[ref == 500] = 1000
    np.testing.assert_array_equal(bp.pairs(), ref)


def test_query_visits_only_listed_loose_cells():
    boxes = make_scene("random", 2000, seed=2)
    bp = LooseTightGrid.from_boxes(boxes)
    q = [100, 100, 120, 120]
    np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(2000), boxes, q))
    assert 0 < bp.last_query_cells <= 16
    assert bp.last_query_tests < 60


def test_memory_is_stable_once_the_population_is_known():
    rng = np.random.default_rng(0)
    boxes = make_scene("random", 3000, seed=5)
    bp = LooseTightGrid.from_boxes(boxes)
    ids = np.arange(len(boxes))
    sizes = []
    size = boxes[:, 2:] - boxes[:, :2]
    for frame in range(30):
        lo = np.clip(boxes[:, :2] + rng.uniform(-2, 2, size=(len(boxes), 2)), 0, [800, 600] - size)  # stay inside
        boxes = np.column_stack([lo, lo + size])
        bp.update_many(ids, boxes)
        bp.cleanup()
        sizes.append(bp.memory_bytes())
    assert len(set(sizes[5:])) == 1
    check_loose_tight_grid(bp, exact=True)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))


def test_bad_input_changes_nothing():
    bp = LooseTightGrid.from_boxes(make_scene("mixed_sizes", 100, seed=4))
    arrays = lambda: [a.copy() for a in (bp.lhead, bp.lcount, bp.lrect, bp.lreg, bp.enext, bp.thead)]  # noqa: E731
    before = arrays()
    with pytest.raises(ValueError, match="xmin 5.0 > xmax 1.0"):
        bp.update_many([1, 2], [[0, 0, 1, 1], [5, 0, 1, 1]])
    with pytest.raises(KeyError, match="unknown id 100"):
        bp.remove(100)
    for a, b in zip(before, arrays()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kw, pattern", [
    ({"tight_factor": 0}, "tight_factor"), ({"tight_factor": 1.5}, "tight_factor"),
    ({"tight_factor": 65}, "tight_factor"), ({"tight_factor": True}, "tight_factor"),
    ({"cell_size": 0}, "cell_size"), ({"cell_size": -2}, "cell_size"), ({"cell_size": 1e-6}, "max_cells"),
])
def test_bad_parameters(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        LooseTightGrid(**kw)


def test_tight_grid_shape():
    bp = LooseTightGrid(world=[0, 0, 100, 60], cell_size=10, tight_factor=4)
    assert (bp.rows, bp.cols, bp.trows, bp.tcols) == (6, 10, 2, 3)
    assert bp.tight_cell_size == 40
    assert "tight=2x3" in repr(bp)


# --------------------------------------------------------------------------
# pairs(): near elements by cell, giants apart (the layout of LooseTightGrid.lay_out)
# --------------------------------------------------------------------------
def _giant_scene():
    """mixed_sizes plus boxes that make every part of the pair search work: far away, on cell borders, huge."""
    boxes = make_scene("mixed_sizes", 600, seed=11)
    extra = [[-1e6, -1e6, -1e6 + 3, -1e6 + 2], [1e6, 5, 1e6 + 4, 9], [-50, -40, 900, 700],  # far, far, world-sized
             [100, 100, 100, 100], [100, 100, 100, 100], [99.5, 99.5, 100, 100],  # coincident points, touching
             [0, 0, 800, 0], [400, -10, 400, 610]]  # segments crossing everything
    return np.vstack([boxes, extra])


def test_pairs_split_near_elements_and_giants():
    from lessons_lib.structures.loose_tight_pairs import is_near

    boxes = _giant_scene()
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600])
    assert bp._laid_out and 0 < bp.g0 < len(bp.px0) - 10  # the bulk load laid the pairs out, with giants
    check_loose_tight_grid(bp, exact=True)  # includes the layout: each live slot once, near ones in their cell's run
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    # A change marks the layout stale; the next pairs() lays it out again (and it is checked again).
    bp.update(3, [300, 300, 500, 420])  # a small element becomes a giant ...
    world_sized = len(boxes) - 6
    assert not is_near(*boxes[world_sized], 0, bp.cols, *bp.world[:2], bp.cell_size)
    bp.update(world_sized, [10, 10, 12, 12])  # ... and a giant a small element
    boxes[3], boxes[world_sized] = [300, 300, 500, 420], [10, 10, 12, 12]
    assert not bp._laid_out
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    assert bp._laid_out
    check_loose_tight_grid(bp)


def test_touching_across_the_near_limit():
    """A box exactly half a cell out of its loose cell is a giant (the near test is strict); pairs touching
    at that limit, at cell borders and at float noise around them are all found."""
    s = 10.0
    boxes = np.array([[10, 0, 15, 5], [15, 0, 20, 5],  # cells 1 and 1: touch at x = 15 (inside)
                      [5, 20, 15, 25], [15, 20, 25, 25],  # cells 1 and 2 (x = 15 is the 1.5-cell limit of cell 0)
                      [24.999, 40, 29.99, 45], [29.99, 40, 35.001, 45]], dtype=float)
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 60, 60], cell_size=s)
    check_loose_tight_grid(bp, exact=True)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))


def test_pairs_core_output_trusted_only_below_its_size():
    from lessons_lib.structures.loose_tight_pairs import pairs_core

    boxes = _giant_scene()
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600])
    big = int(bp.lcount.max())
    sweep = (bp.py0, bp.py1, bp.px0, bp.px1) if bp._sweep_y else (bp.px0, bp.px1, bp.py0, bp.py1)
    args = (bp.layout, bp.g0, bp.geom, sweep, (np.empty(big, np.int64), np.empty(3 * big, np.int64)))
    marks = np.zeros(2, np.int64)
    m, tests = pairs_core(*args, np.empty((100_000, 2), np.int32), marks)
    ref = {tuple(p) for p in brute_force_pairs(boxes).tolist()}
    assert m == len(ref) > 0 and tests >= m
    assert 0 < marks[0] < marks[1] < m  # the giants' rows against near elements, then the giants' sweep
    for size in (0, 1, m // 3, m - 1, m, m + 1):  # full early, late, exactly, not at all
        out = np.empty((size, 2), np.int32)
        assert pairs_core(*args, out, marks) == (m, tests)
        if size > m:  # below the size: every row is a real pair
            assert {tuple(sorted(p)) for p in out[:m].tolist()} == ref
    bp._pair_hint = 5  # the wrapper's second run
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))


PLAIN_PYTHON = """
import json, numpy as np
import lessons_lib
from lessons_lib import LooseTightGrid, make_scene
assert not lessons_lib.JIT_ENABLED
boxes = np.vstack([make_scene("mixed_sizes", 300, seed=5), [[-1e6, 0, -1e6 + 1, 1], [-50, -40, 900, 700]]])
out = {}
for hint in (1024, 7):
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600])
    bp._pair_hint = hint
    raw = bp._pairs()
    out[hint] = {"raw": raw.tolist(), "tests": bp.last_pair_tests, "pairs": bp.pairs().tolist(),
                 "g0": bp.g0, "start": bp.start.tolist(), "srect": bp.srect.tolist()}
line = make_scene("xline", 200, seed=2)  # every box a giant, swept along y
bp = LooseTightGrid.from_boxes(line, cell_size=5.0)
out["xline"] = {"raw": bp._pairs().tolist(), "tests": bp.last_pair_tests, "sweep_y": bp._sweep_y}
print(json.dumps(out))
"""


def test_pair_kernels_without_numba_give_identical_results():
    """The kernels of pairs() run as plain Python (LESSONS_JIT=0) with the same raw output, order included."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, LESSONS_JIT="0")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", PLAIN_PYTHON], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    plain = json.loads(proc.stdout)
    here: dict = {}
    exec(PLAIN_PYTHON.replace("assert not lessons_lib.JIT_ENABLED", "").replace("print(json.dumps(out))", ""),
         here)
    assert json.loads(json.dumps({str(k): v for k, v in here["out"].items()})) == plain


@pytest.mark.parametrize("movers", [3, 60, 400])  # few movers: cells noted per element; many: every cell checked after
def test_update_many_keeps_registrations_before_cleanup(movers):
    rng = np.random.default_rng(movers)
    boxes = make_scene("mixed_sizes", 400, seed=6)
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600], cell_size=40, tight_factor=2)
    assert 2 * 3 < bp.rows * bp.cols <= 2 * 400
    for frame in range(6):
        ids = rng.choice(len(boxes), size=movers, replace=False)
        step = rng.uniform(-60, 60, (movers, 2))
        boxes[ids] += np.column_stack([step, step])
        bp.update_many(ids, boxes[ids])
        check_loose_tight_grid(bp)  # rectangles cover, registrations cover their tight ranges
        for q in ([0, 0, 800, 600], [100, 100, 180, 140], [395, 295, 405, 305]):
            np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))
        np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    bp.cleanup()
    check_loose_tight_grid(bp, exact=True)


# --------------------------------------------------------------------------
# The budget: boxes that would make their loose cell reach more than max_box_cells tight cells
# --------------------------------------------------------------------------
@pytest.mark.parametrize("budget, tight_factor, seed", [(1, 1, 0), (25, 1, 1), (16, 2, 2), (200, 1, 3)])
def test_long_random_sequences_across_the_budget(budget, tight_factor, seed):
    """Boxes cross the budget both ways (insert, update, update_many, remove, cleanup); every loose cell's
    registration stays within it (check_invariants), and every answer equals brute force."""
    bp = LooseTightGrid(world=[0.0, 0.0, 100.0, 100.0], cell_size=2.0, tight_factor=tight_factor,
                        max_box_cells=budget)
    model = run_sequence(bp, seed, steps=400)
    assert bp._budgeted and 0 < len(bp.oversize()) < len(model)
    for i in list(model):
        bp.remove(i)
    bp.check_invariants(exact=True)
    assert len(bp.oversize()) == 0 and int(bp.olist[0]) == -1 and (bp.lcount == 0).all()


def test_oversize_boxes_are_paired_as_giants_and_cost_no_tight_nodes():
    boxes = np.vstack([make_scene("random", 300, seed=7), [[-5, -5, 805, 605], [0, 290, 800, 310], [1, 1, 2, 2]]])
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600], cell_size=1.0, tight_factor=1)
    np.testing.assert_array_equal(bp.oversize(), [300, 301])  # a world-sized box and a full-width band
    before = int(bp.tstate[0])
    bp.check_invariants(exact=True)
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    assert set(bp.ps[bp.g0:].tolist()) >= {300, 301}  # laid out with the giants for pairs()
    for q in ([0, 0, 1, 1], [400, 300, 400, 300], [700, 0, 800, 100]):
        np.testing.assert_array_equal(bp.query(q), filter_query(np.arange(len(boxes)), boxes, q))
    small = LooseTightGrid.from_boxes(boxes[:300], world=[0, 0, 800, 600], cell_size=1.0, tight_factor=1)
    assert before <= int(small.tstate[0]) + 16  # the two giants took no tight list nodes
    bp.update(300, [10, 10, 11, 11])  # out of the list, into its loose cell
    bp.update(2, [0, 0, 800, 600])  # into the list
    boxes[300], boxes[2] = [10, 10, 11, 11], [0, 0, 800, 600]
    np.testing.assert_array_equal(bp.oversize(), [2, 301])
    bp.check_invariants()
    np.testing.assert_array_equal(bp.pairs(), brute_force_pairs(boxes))
    bp.cleanup()
    bp.check_invariants(exact=True)
    with pytest.raises(ValueError, match="max_box_cells"):
        LooseTightGrid(max_box_cells=0)


def test_grid_invariants_leave_the_oversize_list_out_of_the_loose_cells():
    """tests/grid_invariants.py's own check accepts a grid with oversize boxes, laid out or not, and reads the list."""
    boxes = np.vstack([make_scene("random", 200, seed=4), [[-5, -5, 805, 605], [0, 290, 800, 310]]])
    bp = LooseTightGrid.from_boxes(boxes, world=[0, 0, 800, 600], cell_size=1.0, tight_factor=1)
    assert bp.oversize().tolist() == [200, 201]
    check_loose_tight_grid(bp, exact=True)  # the layout holds the oversize boxes with the giants
    bp.update(3, [0, 0, 800, 600])  # into the list; the layout is stale until pairs()
    check_loose_tight_grid(bp)
    bp.pairs()
    check_loose_tight_grid(bp)
    bp.olist[1] += 1
    with pytest.raises(AssertionError, match="oversize list"):
        check_loose_tight_grid(bp)


def test_an_interrupt_while_boxes_cross_the_budget_leaves_the_call_whole(sigint_raises):
    """SIGINT at every line of an insert, update_many, remove and cleanup that move boxes on and off the
    oversize list: the KeyboardInterrupt comes right after the call (or before it begins), never half-way, as
    test_interrupts.py checks with default grids, where nothing is over the budget."""
    from interrupt_helpers import count_lines, interrupt_at

    def populated():
        boxes = np.vstack([make_scene("random", 40, seed=5) / 8, [[0, 0, 100, 100], [10, 10, 90, 20]]])
        return LooseTightGrid.from_boxes(boxes, world=[0, 0, 100, 100], cell_size=2.0, tight_factor=1,
                                         max_box_cells=25)

    ops = [lambda bp: bp.insert(100, [5.0, 5.0, 60.0, 40.0]),
           lambda bp: bp.update_many([40, 41, 2, 3], [[1, 1, 2, 2], [0, 0, 99, 99], [3, 3, 80, 70], [4, 4, 5, 5]]),
           lambda bp: bp.remove(41),
           lambda bp: bp.cleanup()]
    for op in ops:
        want = populated()
        assert want.oversize().tolist() == [40, 41]
        op(want)
        counted = populated()
        lines = count_lines(lambda: op(counted))
        hits = 0
        for k in sorted(set(np.linspace(1, lines, 25).astype(int).tolist())):
            bp = populated()
            raised, interrupted = interrupt_at(k, lambda: op(bp))
            assert interrupted == raised, f"SIGINT at line {k} of {lines}: the interrupt was lost"
            hits += interrupted
            bp.check_invariants()
            ref = next((r for r in (want, populated()) if all(np.array_equal(a, b) for a, b in
                                                              zip(bp.items(), r.items()))), None)
            assert ref is not None, f"SIGINT at line {k} of {lines}: neither the state before nor after the call"
            np.testing.assert_array_equal(bp.oversize(), ref.oversize())
            np.testing.assert_array_equal(bp.pairs(), ref.pairs())
        assert hits >= 20, f"only {hits} of the injected interrupts landed inside the call"

"""The labs of lessons 08-10: the endpoint arrays the exercises see, brute-force swap counts, and the
stored measurements (run small here; the lessons plot the stored full-size files)."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from lessons_lib import load_results, make_scene
from lessons_lib.labs import rtrees as rl
from lessons_lib.labs import sweep as sl
from lessons_lib.structures.sweep_and_prune import SweepAndPrune, insertion_sort_endpoints


def test_endpoint_arrays_are_sorted_copies_by_slot():
    boxes = make_scene("random", 50, seed=2)
    sap = SweepAndPrune.from_boxes(boxes, axis=1)
    sap.remove(3)
    keys, codes, table = sl.endpoint_arrays(sap)
    assert len(keys) == len(codes) == 2 * 49 and table.shape == (50, 4)
    assert np.array_equal(keys, sl.refreshed_keys(codes, table, 1))  # keys are the boxes' y min / max
    assert all((a, ma) <= (b, mb) for a, ma, b, mb in zip(keys[:-1], codes[:-1] & 1, keys[1:], codes[1:] & 1))
    assert 3 not in set((codes >> 1).tolist())
    keys[:] = 0.0
    assert sap.is_sorted()  # copies: the structure is untouched


def test_refreshed_keys_rejects_a_bad_axis():
    with pytest.raises(ValueError, match="axis"):
        sl.refreshed_keys(np.array([0, 1]), np.zeros((1, 4)), 2)


@pytest.mark.parametrize("seed", range(5))
def test_count_inversions_equals_the_insertion_sorts_swaps(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 80))
    keys = rng.integers(0, 6, m).astype(float)  # many ties, mins and maxes among them
    codes = rng.permutation(m).astype(np.int64)
    expected = sl.count_inversions(keys, codes)
    k, c = keys.copy(), codes.copy()
    assert insertion_sort_endpoints(k, c, m) == expected


def test_count_inversions_checks_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        sl.count_inversions([1.0, 2.0], [0])


def test_frame_costs_small_and_stored(tmp_path):
    rows = sl.frame_costs(2_000, steps=(0.5,), repeat=1)
    (r,) = rows
    assert r["n"] == 2_000 and r["step"] == 0.5 and r["swaps_per_endpoint"] > 0
    assert r["pairs"] > 0 and all(r[k] > 0 for k in ("sort_insertion_ms", "sort_full_ms", "frame_insertion_ms",
                                                     "frame_resort_ms", "frame_kept_pairs_ms"))
    path = sl.store_results(1_000, repeat=1, log=None, steps=(0.25,), name=tmp_path / "coherence.csv")
    table = load_results(path)
    assert table.meta["command"] == "python -m lessons_lib.labs.sweep --store" and len(table) == 1


def test_the_stored_coherence_file_has_what_lesson_08_reads():
    table = load_results(sl.COHERENCE_RESULTS)
    for column in ("step", "swaps_per_endpoint", "sort_insertion_ms", "sort_full_ms", "frame_insertion_ms",
                   "frame_resort_ms", "frame_kept_pairs_ms", "n"):
        assert len(table[column]) >= 3, column
    assert np.all(np.diff(table["step"]) > 0)


def test_loader_costs_agree_and_store(tmp_path):
    rows = rl.loader_costs(ns=(400,), repeat=1)
    assert [r["loader"] for r in rows] == list(rl.LOADERS)
    assert len({r["pairs"] for r in rows}) == 1  # loader_costs also asserts every loader finds the same pairs
    paths = rl.store_results(log=None, ns=(300,), sizes=(1_000,), names=(tmp_path / "l.csv", tmp_path / "m.csv"))
    assert len(load_results(paths[0])) == len(rl.LOADERS) and len(load_results(paths[1])) == 1


def test_median_costs():
    (row,) = rl.median_costs(sizes=(2_001,))
    assert row["k"] == 2_001 and row["sort_ms"] > 0 and row["selection_ms"] > 0


def test_the_stored_tree_files_have_what_lessons_09_10_read():
    loaders = load_results(rl.LOADER_RESULTS)
    assert set(loaders.unique("loader")) == set(rl.LOADERS)
    for column in ("n", "build_ms", "pairs_ms", "nodes", "height"):
        assert len(loaders[column]) == len(loaders), column
    medians = load_results(rl.MEDIAN_RESULTS)
    assert list(medians["k"]) == sorted(medians["k"]) and len(medians) >= 2


def _rows(rects):
    r = np.asarray(rects, np.float64).reshape(-1, 4)
    return r[np.lexsort(r.T[::-1])]


def test_packing_stepper_steps_up_to_the_trees_levels():
    from lessons_lib.labs.rtrees import packing_stepper
    from lessons_lib.structures.bulk_rtree import BulkRTree

    boxes = make_scene("random", 48, seed=3, world=[0, 0, 200, 150])
    s = packing_stepper(boxes, max_entries=4)
    assert len(s) > 1
    for method in ("nearest_x", "str", "hilbert"):
        mine = [i for i in range(len(s)) if s.frame(i)["method"] == method]
        assert len(mine) > 2 and s.frame(mine[0])["level"] == -1
        assert sorted(s.frame(mine[0])["order"].tolist()) == list(range(len(boxes)))
        last = s.frame(mine[-1])
        tree = BulkRTree.from_boxes(boxes, method=method, max_entries=4)
        assert last["level"] == len(last["levels"]) - 1 and len(last["levels"][-1]) == 1  # the root
        shown = np.concatenate(last["levels"][: last["level"] + 1])
        assert np.array_equal(_rows(shown), _rows(tree.regions()[0]))
        assert len(last["levels"][0]) == -(-len(boxes) // 4)  # leaves of about M boxes
    assert s.png(1) != s.png(2)


def test_kd_split_stepper_cuts_at_medians_and_ends_on_the_trees_bounds():
    from lessons_lib.labs.rtrees import kd_split_stepper
    from lessons_lib.structures.kdtree import KDTree
    from lessons_lib.structures.rtree_nodes import centres_of

    boxes = make_scene("random", 48, seed=3, world=[0, 0, 200, 150])
    centres = centres_of(boxes)
    for split_axis in ("alternate", "spread"):
        s = kd_split_stepper(boxes, capacity=4, split_axis=split_axis)
        assert len(s) > 2
        splits = [s.frame(i) for i in range(len(s)) if s.frame(i)["kind"] == "split"]
        assert splits
        for f in splits:
            keys = np.sort(centres[np.concatenate([f["left"], f["right"]]), f["axis"]])
            assert f["value"] == keys[len(keys) // 2] == centres[f["median"], f["axis"]]  # the median
            assert len(f["left"]) == len(keys) // 2
            assert (centres[f["left"], f["axis"]] <= f["value"]).all()
            assert (centres[f["right"], f["axis"]] >= f["value"]).all()
        tree = KDTree.from_boxes(boxes, capacity=4, split_axis=split_axis)
        assert np.array_equal(_rows(s.frame(-1)["bounds"]), _rows(tree.regions()[0]))
    with pytest.raises(ValueError, match="at most 80"):
        kd_split_stepper(make_scene("random", 81, seed=0))



def _readable(png):
    w, h = struct.unpack(">II", png[16:24])
    return w >= 480 and h >= 240 and w <= 3 * h


def test_tree_steppers_keep_readable_stills_of_their_key_steps():
    small = make_scene("random", 16, seed=4, world=[0, 0, 200, 150])
    split = rl.split_stepper(small, max_entries=4)
    first_split = min(i for i in range(len(split)) if "split" in split.label(i))
    assert split.still_steps()[:2] == [first_split - 1, first_split] and split.still_steps()[-1] == len(split) - 1
    assert "height 3" in split.label(split.still_steps()[2])
    few = make_scene("random", 16, seed=8, world=[0, 0, 200, 150])
    deletion = rl.deletion_stepper(few, np.argsort(few[:, 0])[:7].tolist(), world=[0, 0, 200, 150])
    assert len(deletion) == 16 + 7 + 1
    regions = [len(deletion.frame(i).rects) for i in deletion.still_steps()]
    assert deletion.still_steps()[0] == 16 and regions[2] < regions[1]  # the step that dissolves a leaf
    boxes = make_scene("random", 48, seed=3, world=[0, 0, 200, 150])
    packing, kd = rl.packing_stepper(boxes, max_entries=4), rl.kd_split_stepper(boxes, capacity=4)
    assert [packing.frame(i)["level"] for i in packing.still_steps()] == [0, 0, 0]
    assert [kd.frame(i).get("depth") for i in kd.still_steps()] == [0, 1, 2, None]
    reinsertion = rl.reinsert_stepper(make_scene("random", 12, seed=2, world=[0, 0, 200, 150]))
    for st in (split, deletion, packing, kd, reinsertion):
        assert _readable(st.still_png())


def test_split_area_ratios_are_at_least_the_optimum():
    ratios = rl.split_area_ratios(nodes=20, entries=7, min_entries=2, seed=1)
    for r in ratios.values():
        assert len(r) == 20 and (r >= 1 - 1e-12).all()
    assert ratios["quadratic"].mean() <= ratios["linear"].mean()


def test_loader_quality_rows_and_the_str_readings():
    rows = rl.loader_quality(("random",), n=300)
    assert [r["loader"] for r in rows] == list(rl.QUALITY_LOADERS)
    assert all(r["visits"] > 0 and r["nodes"] > 0 for r in rows)
    boxes = make_scene("random", 2000, seed=0)
    centres = 0.5 * (boxes[:, :2] + boxes[:, 2:])
    for groups in (rl.sliced_runs(centres, 16, 1), rl.article_str_groups(centres, 16), rl.sliced_runs(centres, 16, 192)):
        assert sorted(np.concatenate(groups).tolist()) == list(range(2000)) and len(groups) == 125
    by_x = np.argsort(centres[:, 0], kind="stable")
    assert np.array_equal(np.concatenate(rl.sliced_runs(centres, 16, 1)), by_x)  # slices of 1: Nearest-X
    rects = {k: rl.leaf_rects(boxes, g) for k, g in (("article", rl.article_str_groups(centres, 16)),
                                                      ("textbook", rl.sliced_runs(centres, 16, 192)))}
    q = np.array([[100.0, 100.0, 120.0, 120.0], [500.0, 300.0, 520.0, 320.0]])
    assert rl.leaves_met(rects["article"], q) > 2 * rl.leaves_met(rects["textbook"], q)
    assert rl.leaves_met(rects["article"], np.empty((0, 4))) == 0.0
    with pytest.raises(ValueError, match="must be >= 1"):
        rl.sliced_runs(centres, 0, 4)

def _axis_overlaps(boxes, axis):
    """Pairs (i < j) whose closed intervals on ``axis`` meet: brute force."""
    n = len(boxes)
    return {(i, j) for i in range(n) for j in range(i + 1, n)
            if boxes[i, axis] <= boxes[j, axis + 2] and boxes[j, axis] <= boxes[i, axis + 2]}


@pytest.mark.parametrize("seed, axis", [(0, 0), (3, 1), (7, 0)])
def test_repair_frames_count_inversions_and_overlap_events(seed, axis):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 80, (10, 2))
    boxes = np.c_[lo, lo + rng.uniform(4, 20, (10, 2))]
    shift = np.zeros(4)
    moved = {}
    for i in rng.choice(10, 4, replace=False):
        shift[[axis, axis + 2]] = rng.uniform(-30, 30)
        moved[int(i)] = boxes[i] + shift
    frames, new = sl.repair_frames(boxes, moved, axis)
    assert len(frames) > 1
    last = frames[-1]
    assert last.swaps == sl.count_inversions(frames[1].keys, frames[1].codes) == len(frames) - 2
    assert all(f.swapped is not None for f in frames[2:])
    net: dict = {}
    for f in frames[2:]:
        if f.event:
            pair = tuple(sorted(f.pair))
            net[pair] = net.get(pair, 0) + (1 if f.event == "starts" else -1)
    assert last.starts == sum(f.event == "starts" for f in frames) and last.stops == sum(f.event == "stops" for f in frames)
    before, after = _axis_overlaps(boxes, axis), _axis_overlaps(new, axis)
    expected = {p: 1 for p in after - before} | {p: -1 for p in before - after}
    assert {p: v for p, v in net.items() if v} == expected
    keys = last.keys
    assert np.all(keys[:-1] <= keys[1:])
    st = sl.repair_stepper(boxes, moved, axis)
    assert len(st) == len(frames) and st.png(0) != st.png(2)


def test_repair_frames_rejects_an_unknown_id():
    with pytest.raises(ValueError, match="moved names id"):
        sl.repair_frames([[0, 0, 1, 1]], {5: [0, 0, 1, 1]})


def test_repair_stepper_still_shows_the_start_an_overlap_ending_and_the_end():
    row = np.array([[0, 0, 14, 10], [18, 12, 30, 22], [34, 0, 44, 10], [50, 12, 66, 22]], dtype=float)
    moved = {1: row[1] + [30, 0, 30, 0]}  # box 1 overtakes box 2 completely, then meets box 3
    st = sl.repair_stepper(row, moved)
    steps = st.still_steps()
    assert steps[0] == 1 and steps[-1] == len(st) - 1 and len(steps) == 3
    frames, _ = sl.repair_frames(row, moved)
    assert frames[steps[1]].event == "stops"
    w, h = struct.unpack(">II", st.still_png()[16:24])
    assert w >= 480 and h >= 240 and w <= 3 * h  # readable without a kernel


def test_sweep_growth_counts_tests_against_pairs():
    small, big = sl.sweep_growth((2_000, 8_000))
    assert small["n"] == 2_000 and big["n"] == 8_000 and big["world_width"] == pytest.approx(2 * small["world_width"])
    assert small["tests"] >= small["pairs"] > 0
    # at constant density the pairs grow like n (4 times), the sweep's tests like n ** 1.5 (8 times)
    assert 3.2 < big["pairs"] / small["pairs"] < 4.8
    assert 6.4 < big["tests"] / small["tests"] < 9.6
    assert big["tests_over_n15"] == pytest.approx(big["tests"] / 8_000 ** 1.5)


def test_reinsert_frames_take_out_the_farthest_and_the_tree_agrees():
    boxes = make_scene("random", 12, seed=2)
    frames = rl.reinsert_frames(boxes, max_entries=5, reinsert_fraction=0.4)
    assert [f["stage"] for f in frames] == ["before", "overflow", "removed", "reinsert", "reinsert", "after"]
    f = frames[1]
    assert len(f["entries"]) == 6 and len(f["removed"]) == f["p"] == 2
    dist = f["dist"]
    assert min(dist[i] for i in f["removed"]) >= max(dist[i] for i in f["kept"])  # the farthest go out
    assert dist[f["removed"][0]] <= dist[f["removed"][1]]  # nearest of them back in first
    for i in f["removed"]:  # each ends in a leaf that covers it
        leaf, b = f["landed"][i], boxes[i]
        assert leaf[0] <= b[0] and leaf[1] <= b[1] and b[2] <= leaf[2] and b[3] <= leaf[3]
    st = rl.reinsert_stepper(boxes)
    assert len(st) == len(frames) > 1 and st.png(1) != st.png(2)
    with pytest.raises(ValueError, match="which"):
        rl.reinsert_frames(boxes[:6], which=3)

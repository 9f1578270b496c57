"""lessons_lib.labs.grids: the lecture's neighbourhood loop, bucket loads with any constants, sparse
scenes, and the stored measurements of lessons 02-03 (run small here; the stored files are checked)."""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib import brute_force_pairs, make_scene
from lessons_lib.data import load_results
from lessons_lib.labs import grids as G
from lessons_lib.widgets import Stepper
from lessons_lib.structures.spatial_hash import SpatialHash


def _pairs(rows) -> set[tuple[int, int]]:
    return set(map(tuple, np.sort(np.asarray(rows).reshape(-1, 2), axis=1).tolist()))


@pytest.mark.parametrize("seed", range(4))
def test_neighbourhood_loop_meets_every_pair_twice_when_boxes_fit_a_cell(seed):
    boxes = make_scene("random", 300, seed=seed)            # sides 12 to 16
    met, tests = G.neighbourhood_loop(boxes, 16.0, [0, 0, 800, 600])
    truth = brute_force_pairs(boxes)
    assert len(met) == 2 * len(truth)
    assert _pairs(met) == _pairs(truth)
    assert set(map(tuple, met.tolist())) == {(j, i) for i, j in met.tolist()}   # both directions
    assert (met[:, 0] != met[:, 1]).all() and tests >= len(met)


def test_neighbourhood_loop_misses_pairs_when_boxes_outgrow_the_cells():
    boxes = make_scene("random", 500, seed=1)
    met, _ = G.neighbourhood_loop(boxes, 6.0, [0, 0, 800, 600])
    truth = _pairs(brute_force_pairs(boxes))
    assert _pairs(met) < truth                               # only true pairs, but not all


def test_neighbourhood_loop_empty_and_bad_input():
    met, tests = G.neighbourhood_loop(np.empty((0, 4)), 10.0, [0, 0, 10, 10])
    assert met.shape == (0, 2) and met.dtype == np.int64 and tests == 0
    with pytest.raises(ValueError):
        G.neighbourhood_loop([[1.0, 0.0, 0.0, 1.0]], 10.0)


def test_occupied_cells_match_the_spatial_hash():
    rng = np.random.default_rng(5)
    lo = rng.uniform(-300, 300, (200, 2))
    boxes = np.column_stack([lo, lo + rng.uniform(0, 40, (200, 2))])
    cells = G.occupied_cells(boxes, 12.5)
    sh = SpatialHash.from_boxes(boxes, cell_size=12.5, table_size=97)
    rects = sh.regions()[0]
    expected = np.unique(np.round(rects[:, :2] / 12.5).astype(np.int64), axis=0)
    np.testing.assert_array_equal(cells, expected)
    assert G.occupied_cells(np.empty((0, 4)), 3.0).shape == (0, 2)
    with pytest.raises(ValueError, match="cell_size"):
        G.occupied_cells(boxes, 0.0)


@pytest.mark.parametrize("table_size", [7, 64, 257, 4096])
@pytest.mark.parametrize("hash_name", ["good", "bad"])
def test_hash_buckets_agree_with_the_structure(table_size, hash_name):
    boxes = make_scene("clustered", 400, seed=2) - [400.0, 300.0, 400.0, 300.0]   # negative cells too
    sh = SpatialHash.from_boxes(boxes, cell_size=9.0, table_size=table_size, hash=hash_name)
    constants = G.TESCHNER_CONSTANTS if hash_name == "good" else "bad"
    loads = G.hash_buckets(G.occupied_cells(boxes, 9.0), table_size, constants)
    np.testing.assert_array_equal(loads, sh.bucket_loads()[1])
    load, count = G.bucket_histogram(loads)
    np.testing.assert_array_equal((load, count), G.bucket_histogram(sh))


def test_hash_buckets_bad_arguments_and_huge_cells():
    with pytest.raises(ValueError, match="table_size"):
        G.hash_buckets([[0, 0]], 0)
    with pytest.raises(ValueError, match="constants"):
        G.hash_buckets([[0, 0]], 8, "worse")
    huge = np.array([[2**40, -(2**41)], [-(2**45), 3]])            # products wrap around in int64
    loads = G.hash_buckets(huge, 1009)
    mask = (1 << 62) - 1
    exact = [((cx * 73856093) ^ (cy * 19349663)) & mask for cx, cy in huge.tolist()]
    assert loads.sum() == 2 and all(loads[h % 1009] >= 1 for h in exact)


def test_the_constants_are_what_the_lessons_say():
    def is_prime(n):
        return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))

    assert all(is_prime(p) for p in G.LECTURE_CONSTANTS)
    p1, p2 = G.TESCHNER_CONSTANTS
    assert is_prime(p1) and not is_prime(p2) and p2 == 41 * 471943


def test_scattered_groups_and_spread_clusters():
    a, b = G.scattered_groups(1e4), G.scattered_groups(1e4)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (2000, 4) and (a[:, :2] <= a[:, 2:]).all()
    wide = G.scattered_groups(1e7)
    assert np.ptp(wide[:, 0]) > 100 * np.ptp(G.scattered_groups(2e3)[:, 0])
    boxes, world = G.spread_clusters(500, 3200.0)
    assert boxes.shape == (500, 4) and world.tolist() == [0.0, 0.0, 3200.0, 2400.0]
    assert (boxes[:, :2] >= 0).all() and (boxes[:, 2] <= 3200).all() and (boxes[:, 3] <= 2400).all()


def test_stored_measurements_run_small():
    rows = G.grid_scaling(ns=(500, 1500), brute_force_max=1500, repeat=1)
    assert {r["method"] for r in rows} == {"uniform_grid", "brute_force"}
    assert all(r["pairs"] == next(q["pairs"] for q in rows if q["n"] == r["n"]) for r in rows)
    rows = G.hierarchy_sweep(widths=(800, 1600), n=300, queries=3, repeat=1)
    assert len(rows) == 4 and rows[0]["fine_cells"] < rows[2]["fine_cells"]
    rows = G.hash_load_sweep(ns=(500,), repeat=1)
    assert {(r["hash"], r["table"]) for r in rows} == {("good", "2n"), ("bad", "2n"), ("good", "4096"), ("bad", "4096")}
    bad = next(r for r in rows if r["hash"] == "bad" and r["table"] == "2n")
    good = next(r for r in rows if r["hash"] == "good" and r["table"] == "2n")
    assert bad["key_compares"] > good["key_compares"] and bad["box_tests"] == good["box_tests"]


@pytest.mark.parametrize("name, columns", [
    ("grid_scaling", {"n", "method", "build_ms", "pairs_ms", "total_ms", "pairs", "tests"}),
    ("grid_hierarchy", {"width", "fine_cells", "structure", "query_ms", "cells_visited", "build_ms", "pairs_ms", "bytes"}),
    ("hash_load", {"n", "hash", "table", "table_size", "cells", "buckets_used", "max_cells", "key_compares",
                   "box_tests", "pairs_ms", "pairs"}),
])
def test_the_stored_files_the_lessons_plot(name, columns):
    table = load_results(name)
    assert set(table.columns) == columns and len(table) > 0
    assert table.meta["command"] == "python -m lessons_lib.labs.grids --store"


def test_main_without_store_only_prints_help(capsys):
    assert G.main([]) == 0
    assert "--store" in capsys.readouterr().out


# --------------------------------------------------------------------------
# Step-through views: list nodes reused (lesson 02), cell to bucket (lesson 03)
# --------------------------------------------------------------------------
def test_reuse_stepper_records_the_real_grids_arrays_and_reuses_freed_nodes():
    from lessons_lib.structures.uniform_grid import UniformGrid

    s = G.reuse_stepper()
    assert len(s) == len(G.REUSE_OPERATIONS) + 1 > 1
    g = UniformGrid(world=(0, 0, 120, 80), cell_size=40)
    for op, ident, box in G.REUSE_OPERATIONS:
        {"insert": lambda: g.insert(ident, box), "remove": lambda: g.remove(ident),
         "update": lambda: g.update(ident, box)}[op]()
    last = s.frame(len(s) - 1)
    for name in ("head", "nxt", "elem", "state"):
        np.testing.assert_array_equal(last[name], getattr(g, name))
    removed = next(i for i, (op, *_rest) in enumerate(G.REUSE_OPERATIONS, 1) if op == "remove")
    before, after, reused = s.frame(removed - 1), s.frame(removed), s.frame(removed + 1)
    assert after["state"][1] != -1 and before["state"][1] == -1          # the remove fills the free list
    assert reused["state"][0] == after["state"][0]                         # the next insert takes no new node
    assert reused["state"][1] == -1 and "reuses" in reused["label"]
    assert s.png(removed) != s.png(removed + 1)


def test_hash_stepper_shows_a_real_collision_told_apart_by_keys():
    from lessons_lib.structures.spatial_hash import cell_key

    s = G.hash_stepper()
    assert len(s) > 1
    sh = SpatialHash(cell_size=10, table_size=8)
    for i, box in enumerate(G.HASH_BOXES):
        sh.insert(i, box)
    last = s.frame(len(s) - 1)
    for name in ("head", "nxt", "elem", "key", "state"):
        np.testing.assert_array_equal(last[name], getattr(sh, name))
    lookups = [f for f in (s.frame(i) for i in range(len(s))) if f["compares"] is not None]
    collision = next(f for f in lookups if any(c[2] for c in f["compares"]) and not all(c[2] for c in f["compares"]))
    cx, cy, key, bucket = collision["cells"][0]
    assert sh.bucket_of(cx, cy) == bucket and cell_key(cx, cy) == key
    keys = {c[1] for c in collision["compares"]}
    assert len(keys) >= 2                                                 # two different cells ...
    assert all(sh.bucket_of(k // 2**32 - (2**30 - 1), k % 2**32 - (2**30 - 1)) == bucket for k in keys)  # ... one bucket
    hits = [c[0] for c in collision["compares"] if c[2]]
    in_cell = [i for i, box in enumerate(G.HASH_BOXES)
               if (lambda r: r[0] <= cx <= r[2] and r[1] <= cy <= r[3])(sh.cell_range(box))]
    assert sorted(int(sh.elem[n]) for n in hits) == in_cell


# --------------------------------------------------------------------------
# Tables, pictures and stills of lessons 02-03
# --------------------------------------------------------------------------
def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    return struct.unpack(">II", png[16:24])


def test_table_aligns_numbers_right_and_text_left():
    out = G.table([{"name": "random", "n": 1234, "ms": 1.5, "same": True},
                   {"name": "xline", "n": 5, "ms": float("nan"), "same": False}], ["name", "n", "ms", "same"])
    head, first, second = out.splitlines()
    assert first.split() == ["random", "1,234", "1.50", "True"]
    assert second.split() == ["xline", "5", "-", "False"]
    assert head.index(" n ") + 2 == first.index("1,234") + len("1,234")            # numbers right-aligned
    assert G.table([], ["a", "b"]).split() == ["a", "b"]


def test_moving_frames_compare_both_grids_on_one_thread():
    from lessons_lib.core.jit import threads

    before = threads()
    rows = G.moving_frames(2_000, frames=3)
    assert [r["structure"] for r in rows] == ["uniform_grid", "counting_sort_grid"]
    assert all(r["threads"] == 1 and r["ms_per_frame"] > 0 for r in rows)
    assert rows[0]["pairs"] == rows[1]["pairs"] > 0
    assert threads() == before                                              # the thread count is given back


def test_lesson_pictures_draw():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessons_lib import CountingSortGrid, HierarchicalGrid
    from lessons_lib.structures.uniform_grid import UniformGrid

    boxes = make_scene("random", 300, seed=1)
    grid = UniformGrid.from_boxes(boxes, cell_size=32, world=[0, 0, 800, 600])
    fig, ax = plt.subplots()
    G.draw_grid_scene(ax, grid, boxes, pairs=grid.pairs(), query=[100, 100, 200, 180], strong_lines=True,
                      points=[[10, 10]], points_label="a point", title="t")
    labels = ax.get_legend_handles_labels()[1]
    assert {"grid cell", "box", "intersecting pair", "query box", "cells visited", "a point"} <= set(labels)
    few = np.array([[10, 10, 30, 25], [25, 20, 50, 50], [70, 5, 75, 110], [120, 40, 120, 40]], float)
    packed = CountingSortGrid.from_boxes(few, cell_size=40, world=[0, 0, 160, 120])
    axes = G.draw_counting_sort(plt.figure(), packed, few)
    assert set(axes) == {"cells", "rule", "arrays", "legend"}
    assert "giant (over 2 columns or rows)" in axes["cells"].get_legend_handles_labels()[1]
    G.draw_hierarchy(plt.subplots()[1], HierarchicalGrid.from_boxes(boxes, cell_size=8), title="h")
    big = (boxes[:, 2] - boxes[:, 0]) > 14
    G.draw_big_boxes(plt.subplots()[1], boxes, big, cell_size=8.0)
    sweeps = {"random": G.cell_size_sweep(boxes, [16, 32], repeat=1)}
    G.plot_cell_size_sweep(plt.figure(), sweeps, {"random": 20.0}, n=len(boxes))
    plt.close("all")


def test_stills_show_the_key_steps_at_a_readable_size():
    few = np.array([[10, 10, 30, 25], [25, 20, 50, 50], [70, 5, 75, 110]], float)
    for stepper, keys in ((G.reuse_stepper(), [4, 5]),
                          (G.insert_stepper(few, cell_size=40, world=[0, 0, 160, 120]), [2, 3])):
        assert stepper.still_steps() == keys
        w, h = _png_size(stepper.still_png())
        assert w >= 480 and h >= 240 and w <= 3 * h
    assert G.insert_stepper(few[:1], cell_size=40, world=[0, 0, 160, 120]).still_steps() == [1]
    with pytest.raises(ValueError, match="still_ncols"):
        Stepper([0], lambda ax, f, p: None, still_ncols=0)


def test_bucket_runs_count_the_key_comparisons_of_the_pair_search():
    boxes = make_scene("random", 600, seed=3)
    for name in ("good", "bad"):
        sh = SpatialHash.from_boxes(boxes, cell_size=16, table_size=64, hash=name)
        sh.pairs()
        runs = [G.bucket_runs(sh, b) for b in range(sh.table_size)]
        assert sum(r["compares"] for r in runs) == sh.last_key_compares
        nodes, cells = sh.bucket_loads()
        assert [len(r["runs"]) for r in runs] == cells.tolist()            # one run per distinct cell
        assert [len(r["walk"]) for r in runs] == nodes.tolist()
        for r in runs:
            assert sorted(s for _, s in r["walk"]) == sorted(s for _, slots in r["runs"] for s in slots)
    with pytest.raises(ValueError, match="bucket"):
        G.bucket_runs(sh, 64)


def test_hash_stepper_still_shows_the_filled_table_and_a_collision():
    s = G.hash_stepper()
    assert s.still_steps() == [4, 5]
    assert s.frame(5)["compares"] is not None and "collision" in s.label(5)
    w, h = _png_size(s.still_png())
    assert w >= 480 and h >= 240 and w <= 3 * h

"""The partitioned join (lesson 15) on Dask's local scheduler: partitioners, assignment, the reference-point
rule, self- and two-set joins against brute force on random, clustered, long-box and touching-on-edge scenes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lessons_lib import brute_force_pairs, make_scene
from lessons_lib.bench.partitioned import scene_chunks
from lessons_lib.partitioned import (
    PARTITIONERS,
    BoxChunks,
    Partitioning,
    brute_force_cross_pairs,
    cross_pairs,
    fit_partitioning,
    from_tiles,
    keep_mask,
    partitioned_join,
    reference_points,
    sample_centres,
)

ROOT = Path(__file__).resolve().parents[1]
KINDS = sorted(PARTITIONERS)


def edge_scene(part: Partitioning, seed: int = 0) -> np.ndarray:
    """Boxes whose sides and corners lie exactly on the partitioning's cuts, touching each other there."""
    rng = np.random.default_rng(seed)
    xs = part.xcuts if len(part.xcuts) else np.array([part.bounds[[0, 2]].mean()])
    ys = part.ycuts if len(part.ycuts) else np.array([part.bounds[[1, 3]].mean()])
    xs = rng.choice(xs, min(6, len(xs)), replace=False)
    ys = rng.choice(ys, min(6, len(ys)), replace=False)
    out = []
    for cx in xs.tolist():
        for cy in ys.tolist():
            w, h = rng.uniform(0.5, 20.0, 2)
            out += [[cx - w, cy - h, cx, cy], [cx, cy, cx + w, cy + h], [cx - w, cy, cx, cy + h],
                    [cx, cy - h, cx + w, cy], [cx, cy, cx, cy], [cx - w, cy - 1.0, cx, cy + 1.0]]
    return np.array(out, np.float64)


def scenes(seed=0):
    yield "random", make_scene("random", 700, seed=seed)
    yield "clustered", make_scene("clustered", 700, seed=seed)
    yield "long boxes", np.concatenate([make_scene("xline", 150, seed=seed), make_scene("yline", 150, seed=seed + 1)])
    yield "mixed sizes", make_scene("mixed_sizes", 500, seed=seed)


# --------------------------------------------------------------------------
# Partitioners
# --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("asked", [1, 2, 5, 16, 40])
def test_every_point_of_the_plane_has_one_partition(kind, asked):
    sample = sample_centres(make_scene("clustered", 2000, seed=asked), 800)
    part = fit_partitioning(kind, sample, asked)
    assert part.owner.shape == (len(part.xcuts) + 1, len(part.ycuts) + 1)
    assert 0 <= part.owner.min() and part.owner.max() < part.n_partitions
    rng = np.random.default_rng(asked)
    pts = np.concatenate([rng.uniform(-1e6, 1e6, (500, 2)), rng.uniform(0, 800, (500, 2)),
                          np.array([[x, y] for x in part.xcuts[:5] for y in part.ycuts[:5]]).reshape(-1, 2)])
    owner = part.partition_of(pts)
    assert ((0 <= owner) & (owner < part.n_partitions)).all()
    if part.tiles is not None:  # the point lies in its partition's half-open tile, and in no other
        t = part.tiles
        inside = ((t[None, :, 0] <= pts[:, None, 0]) & (pts[:, None, 0] < t[None, :, 2])
                  & (t[None, :, 1] <= pts[:, None, 1]) & (pts[:, None, 1] < t[None, :, 3]))
        assert (inside.sum(axis=1) == 1).all()
        assert np.array_equal(inside.argmax(axis=1), owner)


@pytest.mark.parametrize("kind", KINDS)
def test_partition_counts(kind):
    sample = sample_centres(make_scene("random", 3000, seed=1), 1000)
    for asked in (1, 4, 7, 16, 64):
        made = fit_partitioning(kind, sample, asked).n_partitions
        if kind in ("kdtree", "str", "hilbert"):
            assert made == asked
        elif kind == "quadtree":
            assert 1 <= made <= asked and (asked < 4 or made >= asked // 4)
        else:
            assert abs(made - asked) <= max(2, asked // 4)


def test_kdtree_and_str_balance_the_sample():
    sample = sample_centres(make_scene("clustered", 5000, seed=4), 4000)
    for kind in ("kdtree", "str", "hilbert"):
        part = fit_partitioning(kind, sample, 16)
        counts = np.bincount(part.partition_of(sample), minlength=16)
        assert counts.max() <= 1.2 * counts.mean(), (kind, counts)


def test_a_cut_belongs_to_the_cell_above_it():
    part = fit_partitioning("grid", np.array([[0.0, 0.0], [10.0, 10.0]]), 4)
    assert part.xcuts.tolist() == [5.0] and part.ycuts.tolist() == [5.0]
    got = part.partition_of([[5.0, 5.0], [np.nextafter(5.0, 0), 5.0], [5.0, np.nextafter(5.0, 0)], [4.0, 4.0]])
    tiles = part.tiles
    for p, (x, y) in zip(got.tolist(), [(5, 5), (4.9, 5), (5, 4.9), (4, 4)]):
        assert tiles[p][0] <= x < tiles[p][2] and tiles[p][1] <= y < tiles[p][3]
    assert len(set(got.tolist())) == 4


def test_degenerate_samples():
    same = np.full((50, 2), 3.0)
    for kind in KINDS:
        part = fit_partitioning(kind, same, 8)
        b = np.array([[2.0, 2.0, 4.0, 4.0], [3.0, 3.0, 3.0, 3.0], [100.0, -5.0, 101.0, -4.0]])
        rows, offsets = part.assign(b)
        assert set(rows.tolist()) == {0, 1, 2}
    line = np.column_stack([np.arange(100.0), np.zeros(100)])  # every point on y = 0
    for kind in KINDS:
        part = fit_partitioning(kind, line, 6)
        assert part.n_partitions >= 1
        res = partitioned_join(make_scene("random", 200, seed=2), partitioner=part)
        assert np.array_equal(res.pairs, brute_force_pairs(make_scene("random", 200, seed=2)))


@pytest.mark.parametrize("kind", KINDS)
def test_assign_sends_a_box_to_exactly_the_partitions_of_the_cells_it_meets(kind):
    boxes = np.concatenate([make_scene("mixed_sizes", 400, seed=3), [[-1e7, -1e7, -1e7, -1e7], [-50, -50, 2000, 9]]])
    part = fit_partitioning(kind, sample_centres(boxes, 300, seed=1), 12)
    rows, offsets = part.assign(boxes)
    got = [set() for _ in boxes]
    for p in range(part.n_partitions):
        for r in rows[offsets[p]:offsets[p + 1]].tolist():
            got[r].add(p)
    for p in range(part.n_partitions):
        seg = rows[offsets[p]:offsets[p + 1]]
        assert (np.diff(seg) > 0).all(), "rows of a partition are increasing, each once"
    cells, owner = part.cells()
    for i, b in enumerate(boxes):  # a closed box meets a half-open cell [c0, c2) x [c1, c3)
        meets = (cells[:, 0] <= b[2]) & (b[0] < cells[:, 2]) & (cells[:, 1] <= b[3]) & (b[1] < cells[:, 3])
        assert got[i] == set(owner[meets].tolist()), i
    assert len(rows) >= len(boxes)
    assert np.array_equal(part.counts(boxes), np.diff(offsets))


def test_from_tiles_refuses_gaps_and_overlaps():
    inf = np.inf
    with pytest.raises(ValueError, match="cover the cell"):
        from_tiles("x", [[-inf, -inf, 0, inf], [1, -inf, inf, inf]], [0, 0, 1, 1])  # a gap between 0 and 1
    with pytest.raises(ValueError, match="cover the cell"):
        from_tiles("x", [[-inf, -inf, 1, inf], [0, -inf, inf, inf]], [0, 0, 1, 1])  # overlap
    with pytest.raises(ValueError, match="without NaN"):
        from_tiles("x", [[np.nan, 0, 1, 1]], [0, 0, 1, 1])


def test_bad_parameters_name_the_problem():
    pts = np.random.default_rng(0).uniform(0, 10, (30, 2))
    with pytest.raises(ValueError, match="partitioner"):
        fit_partitioning("voronoi", pts, 4)
    with pytest.raises(ValueError, match="n_partitions"):
        fit_partitioning("kdtree", pts, 0)
    with pytest.raises(ValueError, match="n_partitions"):
        fit_partitioning("kdtree", pts, 2.5)
    with pytest.raises(ValueError, match="empty"):
        fit_partitioning("grid", np.zeros((0, 2)), 4)
    with pytest.raises(ValueError, match="sample"):
        fit_partitioning("grid", [[0.0, np.nan]], 4)
    with pytest.raises(ValueError, match="max_depth"):
        fit_partitioning("quadtree", pts, 4, max_depth=40)
    with pytest.raises(ValueError, match="order"):
        fit_partitioning("hilbert", pts, 4, order=0)
    with pytest.raises(ValueError, match="strictly increasing"):
        Partitioning("x", [2.0, 1.0], [], np.zeros((3, 1), np.int64), 1, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="owner must have shape"):
        Partitioning("x", [1.0], [], np.zeros((3, 1), np.int64), 1, [0, 0, 1, 1])
    boxes = make_scene("random", 50)
    with pytest.raises(ValueError, match="structure"):
        partitioned_join(boxes, structure="no_such_structure")
    with pytest.raises(ValueError, match="box 3"):
        bad = boxes.copy()
        bad[3, 0] = np.nan
        partitioned_join(bad)
    with pytest.raises(ValueError, match="other: box 1 has xmin"):
        partitioned_join(boxes, [[0, 0, 1, 1], [5, 0, 4, 1]])
    with pytest.raises(ValueError, match="chunk_size"):
        partitioned_join(boxes, chunk_size=0)
    with pytest.raises(ValueError, match="num_workers"):
        partitioned_join(boxes, scheduler="threads", num_workers=0)


# --------------------------------------------------------------------------
# The reference-point rule
# --------------------------------------------------------------------------
def test_reference_point_is_the_lower_left_corner_of_the_intersection():
    a = np.array([[0.0, 0.0, 4.0, 4.0], [5.0, 1.0, 9.0, 2.0]])
    b = np.array([[2.0, 3.0, 6.0, 8.0], [1.0, 0.0, 5.0, 7.0]])
    assert reference_points(a, b).tolist() == [[2.0, 3.0], [5.0, 1.0]]


@pytest.mark.parametrize("kind", KINDS)
def test_each_overlapping_pair_is_kept_by_exactly_one_partition_that_received_both(kind):
    boxes = make_scene("clustered", 600, seed=5)
    part = fit_partitioning(kind, sample_centres(boxes, 400), 9)
    boxes = np.concatenate([boxes, edge_scene(part, seed=1)])
    everything = brute_force_pairs(boxes)
    rows, offsets = part.assign(boxes)
    kept = np.zeros(len(everything), np.int64)
    index = {tuple(p): k for k, p in enumerate(everything.tolist())}
    for p in range(part.n_partitions):
        mine = rows[offsets[p]:offsets[p + 1]]
        local = brute_force_pairs(boxes[mine])
        keep = keep_mask(part, p, boxes[mine[local[:, 0]]], boxes[mine[local[:, 1]]])
        for i, j in local[keep].tolist():
            kept[index[(int(mine[i]), int(mine[j]))]] += 1
    assert (kept == 1).all(), f"{(kept == 0).sum()} pairs lost, {(kept > 1).sum()} reported twice"


# --------------------------------------------------------------------------
# Whole joins against brute force (local scheduler)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_self_join_equals_brute_force(kind):
    for name, boxes in scenes():
        got = partitioned_join(boxes, partitioner=kind, n_partitions=7, chunk_size=170, sample_size=300,
                               verify_with="sweep_and_prune")
        assert np.array_equal(got.pairs, brute_force_pairs(boxes)), (kind, name)
        assert got.verified.all() and got.n_pairs == len(got.pairs)
        assert got.replication >= 1.0 and got.load_balance >= 1.0
        assert got.candidates.sum() >= got.n_pairs


@pytest.mark.parametrize("kind", KINDS)
def test_touching_on_partition_edges(kind):
    part = fit_partitioning(kind, sample_centres(make_scene("random", 1000, seed=8), 500), 10)
    boxes = edge_scene(part, seed=2)
    got = partitioned_join(boxes, partitioner=part, chunk_size=50, structure="quadtree")
    want = brute_force_pairs(boxes)
    assert len(want) > len(boxes)  # the boxes do touch
    assert np.array_equal(got.pairs, want)
    other = edge_scene(part, seed=3)
    got2 = partitioned_join(boxes, other, partitioner=part, chunk_size=64)
    assert np.array_equal(got2.pairs, brute_force_cross_pairs(boxes, other))


@pytest.mark.parametrize("kind", KINDS)
def test_two_set_join_equals_brute_force(kind):
    for (name, a), (_, b) in zip(scenes(1), scenes(2)):
        b = b[:300]
        got = partitioned_join(a, b, partitioner=kind, n_partitions=6, chunk_size=200, sample_size=250,
                               verify_with="brute_force")
        assert np.array_equal(got.pairs, brute_force_cross_pairs(a, b)), (kind, name)
        assert got.verified.all()


def test_boxes_outside_every_sampled_partition():
    part = fit_partitioning("kdtree", sample_centres(make_scene("random", 500), 200), 8)
    far = np.array([[-1e9, -1e9, -1e9 + 3, -1e9 + 3], [-1e9 + 2, -1e9 + 2, -1e9 + 6, -1e9 + 6],
                    [5e8, 10.0, 5e8 + 1, 12.0], [5e8 + 1, 11.0, 5e8 + 2, 20.0],
                    [-100.0, 300.0, 2000.0, 301.0]])  # a long box across the whole sampled area
    boxes = np.concatenate([make_scene("random", 300, seed=1), far])
    assert set(part.partition_of(far[:, :2]).tolist()) <= set(range(part.n_partitions))
    got = partitioned_join(boxes, partitioner=part)
    assert np.array_equal(got.pairs, brute_force_pairs(boxes))
    n = len(boxes)
    assert {(n - 5, n - 4), (n - 3, n - 2)} <= set(map(tuple, got.pairs.tolist()))


def test_empty_and_tiny_inputs():
    none = np.zeros((0, 4))
    one = np.array([[0.0, 0.0, 1.0, 1.0]])
    assert partitioned_join(one).pairs.shape == (0, 2)
    assert partitioned_join(one, none).pairs.shape == (0, 2)
    assert partitioned_join(one, one).pairs.tolist() == [[0, 0]]
    r = partitioned_join(np.array([[0.0, 0, 1, 1], [1.0, 1, 2, 2]]), n_partitions=4)
    assert r.pairs.tolist() == [[0, 1]]


def test_more_partitions_than_boxes_and_a_prefitted_partitioning_reused():
    boxes = make_scene("random", 60, seed=4)
    r = partitioned_join(boxes, n_partitions=200, partitioner="str")
    assert np.array_equal(r.pairs, brute_force_pairs(boxes))
    assert (r.n_boxes == 0).any()
    again = partitioned_join(make_scene("random", 60, seed=5), partitioner=r.partitioning)
    assert again.partitioning is r.partitioning


def test_cross_pairs_of_one_structure():
    a, b = make_scene("random", 200, seed=1), make_scene("clustered", 150, seed=2)
    assert np.array_equal(cross_pairs("uniform_grid", a, b), brute_force_cross_pairs(a, b))
    assert cross_pairs("uniform_grid", a, np.zeros((0, 4))).shape == (0, 2)


@pytest.mark.parametrize("scheduler, workers", [(None, None), ("sync", None), ("threads", 2), ("threads", 1)])
def test_local_schedulers(scheduler, workers):
    boxes = make_scene("clustered", 500, seed=6)
    got = partitioned_join(boxes, n_partitions=5, chunk_size=150, scheduler=scheduler, num_workers=workers)
    assert np.array_equal(got.pairs, brute_force_pairs(boxes))


def test_an_unknown_scheduler_name():
    with pytest.raises(ValueError, match="unknown scheduler 'fast'"):
        partitioned_join(make_scene("random", 20), scheduler="fast")


# --------------------------------------------------------------------------
# Chunks made on demand, and the out-of-core shuffle through files
# --------------------------------------------------------------------------
def test_chunks_made_on_demand_and_spilled_to_files(tmp_path):
    source = scene_chunks("random", 3000, 700, seed=3)
    assert source.sizes == (700, 700, 700, 700, 200) and source.n == 3000
    whole = np.concatenate([source.make(k) for k in range(5)])
    want = brute_force_pairs(whole)
    for kind in KINDS:
        got = partitioned_join(source, partitioner=kind, n_partitions=6, spill_dir=tmp_path,
                               verify_with="sweep_and_prune")
        assert np.array_equal(got.pairs, want), kind
        assert got.verified.all() and (got.chunk_bytes > 0).all()
        counts = partitioned_join(source, partitioner=kind, n_partitions=6, spill_dir=tmp_path, return_pairs=False)
        assert counts.pairs is None and counts.n_pairs == len(want)
    assert list(tmp_path.iterdir()) == [], "the shuffle files are removed"
    other = scene_chunks("clustered", 900, 400, seed=1)
    got = partitioned_join(source, other, n_partitions=5, spill_dir=tmp_path)
    assert np.array_equal(got.pairs, brute_force_cross_pairs(whole, np.concatenate([other.make(k) for k in range(3)])))


def test_a_chunk_of_the_wrong_size_is_an_error():
    bad = BoxChunks((3, 2), lambda k: np.zeros((3, 4)))
    with pytest.raises(ValueError, match="chunk 1: made 3 boxes, its size says 2"):
        partitioned_join(bad, scheduler="sync")
    with pytest.raises(ValueError, match="chunk size"):
        BoxChunks((3, -1), lambda k: np.zeros((3, 4)))


def test_plain_python_kernel_gives_the_same_assignment():
    code = ("import json, numpy as np\n"
            "import lessons_lib\n"
            "from lessons_lib import make_scene\n"
            "from lessons_lib.partitioned import fit_partitioning, sample_centres\n"
            "assert not lessons_lib.JIT_ENABLED\n"
            "b = make_scene('mixed_sizes', 300, seed=2)\n"
            "out = {}\n"
            "for kind in ['grid', 'quadtree', 'kdtree', 'str', 'hilbert']:\n"
            "    rows, off = fit_partitioning(kind, sample_centres(b, 100), 9).assign(b)\n"
            "    out[kind] = [rows.tolist(), off.tolist()]\n"
            "print(json.dumps(out))\n")
    env = dict(os.environ, LESSONS_JIT="0", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    b = make_scene("mixed_sizes", 300, seed=2)
    here = {}
    for kind in KINDS:
        rows, off = fit_partitioning(kind, sample_centres(b, 100), 9).assign(b)
        here[kind] = [rows.tolist(), off.tolist()]
    assert json.loads(proc.stdout) == here


def test_summary_and_figures():
    boxes = make_scene("clustered", 800, seed=9)
    r = partitioned_join(boxes, n_partitions=8)
    text = r.summary()
    assert "8 partitions" in text and f"{r.n_pairs:,} pairs" in text
    assert r.bytes_per_box >= 40  # an int64 id and four float64 per box, plus a header per piece
    assert len(r.partition_seconds) == 8 and (r.partition_seconds >= 0).all()
    assert r.n_tasks > 8 and r.fit_seconds >= 0 and r.wall_seconds >= r.fit_seconds


def test_the_package_imports_only_the_lower_layers():
    """lessons_lib.partitioned builds on base, core, geometry and structures only (and numpy, Dask)."""
    import ast

    allowed = ("lessons_lib.base", "lessons_lib.core", "lessons_lib.geometry", "lessons_lib.structures",
               "lessons_lib.partitioned")
    bad = []
    for path in sorted((ROOT / "lessons_lib" / "partitioned").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ["lessons_lib", "partitioned"][: 3 - node.level] if node.level <= 2 else []
                mod = ".".join(base + ([node.module] if node.module else []))
                if not mod.startswith(allowed):
                    bad.append(f"{path.name}: from {'.' * node.level}{node.module or ''} import ...")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                bad += [f"{path.name}: import {n}" for n in names
                        if n.split(".")[0] not in ("numpy", "dask", "distributed", "__future__", "contextlib", "math",
                                                   "operator", "os", "pickle", "shutil", "tempfile", "time", "uuid",
                                                   "dataclasses", "typing", "warnings")]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("partitioner", ["grid", "quadtree", "kdtree", "str", "hilbert"])
@pytest.mark.parametrize("empty", [np.zeros((0, 4)), []], ids=["array", "list"])
def test_a_join_of_no_boxes_has_no_pairs(partitioner, empty):
    result = partitioned_join(empty, partitioner=partitioner, n_partitions=4)
    assert result.pairs.shape == (0, 2) and result.n_pairs == 0
    other = partitioned_join(make_scene("random", 50, seed=1), empty, partitioner=partitioner, n_partitions=4)
    assert other.pairs.shape == (0, 2) and other.n_pairs == 0

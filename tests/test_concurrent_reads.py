"""Concurrent reads on one instance (issue 34, item 8).

Queries and ``pairs()`` only read a structure, and a Dask threaded scheduler or a
student's ``ThreadPoolExecutor`` will run them from several threads at once on
one instance. They used to share scratch: the loose quadtree, the loose/tight
grid and the point grid kept one output buffer per instance (a query could
return another thread's result), the compact quadtree and the hierarchical grid
one array of "already reported" marks, and the counting-sort grid's lazy
rebuild, run by every thread that found the grid stale at once, crashed the
process. Each structure is checked here against a single-threaded reference:
four threads run the same queries and ``pairs()`` on a fresh instance, and on
one left stale by ``update_many`` (the first reads after it rebuild lazily).
"""
from __future__ import annotations

import copy
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from lessons_lib import STRUCTURES, make_scene

NAMES = sorted(STRUCTURES)
THREADS = 4


def scene(seed: int = 0) -> np.ndarray:
    """Mixed sizes with a few giants (the point grid's and the spatial hash's separate lists see use)."""
    boxes = make_scene("mixed_sizes", 1500, seed=seed)
    rng = np.random.default_rng(seed)
    big = rng.uniform(0, 600, (6, 2))
    return np.vstack([boxes, np.column_stack([big, big + rng.uniform(150, 300, (6, 2))])])


def query_boxes(k: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-20, 800, (k, 2))
    size = np.where(rng.random((k, 1)) < 0.1, rng.uniform(100, 400, (k, 2)), rng.uniform(0, 30, (k, 2)))
    return np.column_stack([lo, lo + size])


def moved(boxes: np.ndarray, seed: int = 2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shift = rng.uniform(-15, 15, (len(boxes), 2))
    return boxes + np.hstack([shift, shift])


def read_concurrently(bp, queries) -> list:
    """Four threads, each running every query (in its own order) and ``pairs()`` twice; results by thread."""
    def work(t):
        order = np.random.default_rng(100 + t).permutation(len(queries))
        got = {}
        for k, i in enumerate(order.tolist()):
            got[i] = bp.query(queries[i])
            if k in (len(order) // 3, 2 * len(order) // 3):
                got[("pairs", k)] = bp.pairs()
        return got

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(work, range(THREADS)))


def check_against(results, want_queries, want_pairs) -> None:
    for t, got in enumerate(results):
        for key, value in got.items():
            if isinstance(key, tuple):
                np.testing.assert_array_equal(value, want_pairs, err_msg=f"thread {t}: pairs()")
            else:
                np.testing.assert_array_equal(value, want_queries[key], err_msg=f"thread {t}: query {key}")


@pytest.mark.parametrize("name", NAMES)
def test_concurrent_queries_and_pairs_match_one_thread(name):
    cls = STRUCTURES[name]
    boxes = scene()
    queries = query_boxes(150 if name == "naive_quadtree" else 400)
    ref = cls.from_boxes(boxes)
    want = [ref.query(q) for q in queries]
    want_pairs = ref.pairs()
    bp = cls.from_boxes(boxes)
    for _ in range(2):
        check_against(read_concurrently(bp, queries), want, want_pairs)


@pytest.mark.parametrize("name", NAMES)
def test_concurrent_reads_after_update_many_rebuild_once(name):
    """The instance is stale (``update_many`` moved everything): the first reads of four threads find it so at
    once. A structure that rebuilds lazily does it once, under a lock; the others see the rebuilt state."""
    cls = STRUCTURES[name]
    boxes, new = scene(3), moved(scene(3))
    ids = np.arange(len(boxes))
    queries = query_boxes(100 if name == "naive_quadtree" else 300, seed=4)
    ref = cls.from_boxes(boxes)
    ref.update_many(ids, new)
    want = [ref.query(q) for q in queries]
    want_pairs = ref.pairs()
    for _ in range(3):
        bp = cls.from_boxes(boxes)
        bp.update_many(ids, new)
        check_against(read_concurrently(bp, queries), want, want_pairs)
    if hasattr(bp, "rebuilds"):  # the counting-sort grid: the threads rebuilt once between them, as one thread did
        assert bp.rebuilds == ref.rebuilds == 1


@pytest.mark.parametrize("name", NAMES)
def test_structures_still_copy_and_pickle(name):
    """The per-thread scratch and the rebuild lock are not copied: a copy or an unpickled structure answers
    the same, from any thread."""
    cls = STRUCTURES[name]
    boxes = scene(5)
    bp = cls.from_boxes(boxes)
    q = [100.0, 100.0, 300.0, 250.0]
    want, want_pairs = bp.query(q), bp.pairs()
    for other in (copy.deepcopy(bp), pickle.loads(pickle.dumps(bp))):
        np.testing.assert_array_equal(other.query(q), want)
        np.testing.assert_array_equal(other.pairs(), want_pairs)
        with ThreadPoolExecutor(2) as pool:
            for got in pool.map(lambda _: other.query(q), range(4)):
                np.testing.assert_array_equal(got, want)

"""The partitioned join on a distributed.LocalCluster with two worker processes, started and closed here.

The cluster is shared by the module's tests (starting one costs a few seconds); every join is checked
against brute force, for every partitioner, on random, clustered, long-box and touching-on-edge scenes.
"""
from __future__ import annotations

import logging

import numpy as np
import pytest

from lessons_lib import brute_force_pairs, make_scene
from lessons_lib.bench.partitioned import scene_chunks
from lessons_lib.partitioned import PARTITIONERS, brute_force_cross_pairs, fit_partitioning, partitioned_join, \
    sample_centres

from test_partitioned import edge_scene

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as c:
        yield c


def _scenes():
    yield "random", make_scene("random", 400, seed=1)
    yield "clustered", make_scene("clustered", 400, seed=2)
    yield "long boxes", np.concatenate([make_scene("xline", 80, seed=3), make_scene("yline", 80, seed=4)])


def test_two_worker_processes(cluster):
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.parametrize("kind", sorted(PARTITIONERS))
def test_every_partitioner_on_the_cluster_by_address(kind, cluster):
    for name, boxes in _scenes():
        got = partitioned_join(boxes, partitioner=kind, n_partitions=6, chunk_size=150, sample_size=200,
                               scheduler=cluster.scheduler_address, verify_with="sweep_and_prune")
        assert np.array_equal(got.pairs, brute_force_pairs(boxes)), (kind, name)
        assert got.verified.all()
    part = fit_partitioning(kind, sample_centres(make_scene("random", 500, seed=5), 300), 8)
    touching = edge_scene(part, seed=4)
    got = partitioned_join(touching, partitioner=part, chunk_size=60, scheduler=cluster.scheduler_address)
    assert np.array_equal(got.pairs, brute_force_pairs(touching)), (kind, "touching on the edges")


def test_two_sets_chunks_made_on_the_workers_and_a_client(cluster, tmp_path):
    source, other = scene_chunks("clustered", 1200, 500, seed=1), scene_chunks("random", 700, 300, seed=2)
    a = np.concatenate([source.make(k) for k in range(len(source.sizes))])
    b = np.concatenate([other.make(k) for k in range(len(other.sizes))])
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        got = partitioned_join(source, other, partitioner="hilbert", n_partitions=5, scheduler=client)
        assert np.array_equal(got.pairs, brute_force_cross_pairs(a, b))
        spilled = partitioned_join(source, partitioner="str", n_partitions=5, scheduler=client, spill_dir=tmp_path)
        assert np.array_equal(spilled.pairs, brute_force_pairs(a))

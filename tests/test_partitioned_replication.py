"""The partitioned join's replication, checked before the join runs (issue 34, item 9, the join).

2,000 mutually overlapping boxes split into 200 k-d tree or STR partitions were
copied into about 146 partitions each: right answers, 98 s against 1 s with one
partition, and no word to the user. The join now estimates, on the sampled
boxes, how many partitions a box would reach on average; beyond
``max_replication`` (default :data:`~lessons_lib.partitioned.MAX_REPLICATION`)
it refits the partitioner with half as many partitions, again until the
estimate is within the limit, and says so with a ``ReplicationWarning`` and in
``result.notes``, before any box is shipped. Every partitioner is checked.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from lessons_lib import brute_force_pairs, make_scene
from lessons_lib.partitioned import (MAX_REPLICATION, PARTITIONERS, ReplicationWarning, fit_partitioning,
                                     partitioned_join, sample_centres)

KINDS = sorted(PARTITIONERS)


def overlapping(n: int = 400, seed: int = 0) -> np.ndarray:
    """``n`` boxes all containing (50, 50), of many sizes: every box meets every other."""
    rng = np.random.default_rng(seed)
    d = rng.uniform(1, 40, (n, 4))
    return np.column_stack([50 - d[:, 0], 50 - d[:, 1], 50 + d[:, 2], 50 + d[:, 3]])


@pytest.mark.parametrize("kind", KINDS)
def test_overlapping_boxes_refit_with_fewer_partitions_and_a_warning(kind):
    boxes = overlapping()
    asked = fit_partitioning(kind, sample_centres(boxes, 10_000), 200)
    before = asked.counts(boxes).sum() / len(boxes)
    assert before > 2 * MAX_REPLICATION  # what the join would have shipped: the case to catch
    with pytest.warns(ReplicationWarning, match="refitted"):
        result = partitioned_join(boxes, partitioner=kind, n_partitions=200, scheduler="sync")
    assert result.replication <= MAX_REPLICATION
    assert result.partitioning.n_partitions < 200
    r = result.notes["replication"]
    assert r["partitions asked"] == 200 and r["estimated"] <= MAX_REPLICATION
    assert r["estimated at the partitions asked"] == pytest.approx(before)
    assert "refitted" in result.summary()
    np.testing.assert_array_equal(result.pairs, brute_force_pairs(boxes))


@pytest.mark.parametrize("kind", KINDS)
def test_ordinary_scenes_keep_their_partitions_without_a_word(kind):
    boxes = make_scene("clustered", 3000, seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicationWarning)
        result = partitioned_join(boxes, partitioner=kind, n_partitions=16, scheduler="sync")
    assert result.notes["replication"]["partitions fitted"] == result.partitioning.n_partitions
    assert result.notes["replication"]["estimated"] <= MAX_REPLICATION
    assert "refitted" not in result.summary()
    assert result.partitioning.n_partitions == fit_partitioning(kind, sample_centres(boxes, 10_000), 16).n_partitions


def test_the_limit_is_a_parameter():
    boxes = overlapping(120)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicationWarning)
        kept = partitioned_join(boxes, partitioner="kdtree", n_partitions=16, scheduler="sync", max_replication=None)
    assert kept.partitioning.n_partitions == 16 and kept.replication > MAX_REPLICATION
    with pytest.warns(ReplicationWarning):
        tight = partitioned_join(boxes, partitioner="kdtree", n_partitions=16, scheduler="sync", max_replication=1.0)
    assert tight.partitioning.n_partitions == 1
    for bad in (0.5, 0, -1, float("nan"), "4"):
        with pytest.raises(ValueError, match="max_replication"):
            partitioned_join(boxes, max_replication=bad)
    np.testing.assert_array_equal(kept.pairs, tight.pairs)


def test_a_partitioning_given_is_used_as_it_is():
    boxes = overlapping(120)
    part = fit_partitioning("str", sample_centres(boxes, 1000), 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicationWarning)
        result = partitioned_join(boxes, partitioner=part, scheduler="sync")
    assert result.partitioning is part and result.replication > MAX_REPLICATION
    np.testing.assert_array_equal(result.pairs, brute_force_pairs(boxes))

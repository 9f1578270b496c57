"""Partitioned spatial joins: the course's structures when the data is split over many workers (lesson 15).

When the boxes do not fit one machine, engines such as Apache Sedona on Spark
([Yu2019]) and dask-geopandas on Dask ([dask-geopandas]) split the plane into
partitions, send every box to the partitions it overlaps, join each partition on
its own with an ordinary index, and report each pair once. This package does the
same with the course's own pieces, on Dask ([Rocklin2015])::

    from lessons_lib import make_scene
    from lessons_lib.partitioned import partitioned_join

    boxes = make_scene("clustered", 20_000)
    result = partitioned_join(boxes, partitioner="kdtree", n_partitions=16)
    result.pairs            # (k, 2) int64, i < j, sorted: the same as pairs() on one machine
    print(result.summary()) # replication, load balance, times

Modules
-------
:mod:`~lessons_lib.partitioned.partitioners`
    :class:`Partitioning` (half-open cells covering the whole plane) and the five
    partitioners fitted on a sample: uniform grid, quadtree leaves, k-d tree,
    STR tiles, Hilbert ranges.
:mod:`~lessons_lib.partitioned.local`
    One partition's work: the local join with a registered structure and the
    reference-point rule.
:mod:`~lessons_lib.partitioned.engine`
    The Dask graph, the schedulers (local by default, a cluster by address),
    inputs made chunk by chunk (:class:`BoxChunks`) and the out-of-core shuffle
    through files.

Imports only :mod:`lessons_lib.base`, :mod:`lessons_lib.core`,
:mod:`lessons_lib.geometry` and :mod:`lessons_lib.structures` (and Dask, when a
join runs).
"""
from .engine import MAX_REPLICATION, BoxChunks, JoinResult, ReplicationWarning, compute_on, partitioned_join
from .local import (
    PartitionResult,
    brute_force_cross_pairs,
    cross_pairs,
    join_partition,
    keep_mask,
    local_pairs,
    reference_points,
    sort_pair_rows,
)
from .partitioners import (
    PARTITIONERS,
    Partitioning,
    fit_partitioning,
    from_tiles,
    grid_partitioning,
    hilbert_partitioning,
    kdtree_partitioning,
    quadtree_partitioning,
    sample_centres,
    str_partitioning,
)

__all__ = [
    "MAX_REPLICATION",
    "ReplicationWarning",
    "BoxChunks",
    "JoinResult",
    "PARTITIONERS",
    "PartitionResult",
    "Partitioning",
    "brute_force_cross_pairs",
    "compute_on",
    "cross_pairs",
    "fit_partitioning",
    "from_tiles",
    "grid_partitioning",
    "hilbert_partitioning",
    "join_partition",
    "keep_mask",
    "kdtree_partitioning",
    "local_pairs",
    "partitioned_join",
    "quadtree_partitioning",
    "reference_points",
    "sample_centres",
    "sort_pair_rows",
    "str_partitioning",
]

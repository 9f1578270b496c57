"""What one partition does: a local join with a registered structure, then the reference-point rule.

A box that crosses a partition edge is sent to both sides, so two such boxes
that overlap are found by *both* partitions. Rather than gathering every pair
and removing the duplicates afterwards (a global step that needs all the pairs
in one place), each partition keeps a pair only if it holds the pair's
**reference point**: the lower-left corner of the intersection of the two boxes,
``(max(xmin_a, xmin_b), max(ymin_a, ymin_b))`` (the reference-point method
[Dittrich2000]; Sedona's join applies it [Yu2019]). That point lies in both
boxes, partitions are half-open and cover the plane, so exactly one partition
holds it, and that partition received both boxes.
No partition needs to know what another one found.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..base import resolve_structure
from ..geometry import as_boxes
from .partitioners import Partitioning

__all__ = [
    "PartitionResult",
    "brute_force_cross_pairs",
    "cross_pairs",
    "join_partition",
    "keep_mask",
    "local_pairs",
    "reference_points",
    "sort_pair_rows",
]


def reference_points(boxes_a, boxes_b) -> np.ndarray:
    """Lower-left corners of the intersections of ``boxes_a[k]`` and ``boxes_b[k]``.

    Parameters
    ----------
    boxes_a, boxes_b : numpy.ndarray, shape (k, 4), float64
        Overlapping closed boxes, row by row.

    Returns
    -------
    numpy.ndarray, shape (k, 2), float64
        ``(max(xmin_a, xmin_b), max(ymin_a, ymin_b))``: a corner of both boxes'
        intersection, copied from the input (no arithmetic, so no rounding).
    """
    a = np.asarray(boxes_a, np.float64).reshape(-1, 4)
    b = np.asarray(boxes_b, np.float64).reshape(-1, 4)
    return np.column_stack([np.maximum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])])


def keep_mask(partitioning: Partitioning, partition: int, boxes_a, boxes_b) -> np.ndarray:
    """Which of the pairs ``(boxes_a[k], boxes_b[k])`` partition ``partition`` reports: ``(k,)`` bool.

    True when the pair's reference point (:func:`reference_points`) lies in the
    partition, in its half-open region.
    """
    return partitioning.partition_of(reference_points(boxes_a, boxes_b)) == partition


def local_pairs(structure, boxes, **params) -> np.ndarray:
    """``STRUCTURES[structure].from_boxes(boxes, **params).pairs()``: ``(k, 2)`` int64 row pairs, ``i < j``, sorted.

    Fewer than two boxes give no pair without building anything.

    Raises
    ------
    ValueError
        An unknown structure name, bad boxes or parameters.
    """
    cls = resolve_structure(structure)
    if len(boxes) < 2:
        return np.empty((0, 2), np.int64)
    return cls.from_boxes(boxes, **params).pairs()


def cross_pairs(structure, boxes_a, boxes_b, **params) -> np.ndarray:
    """Overlapping pairs between two sets with one structure: ``(k, 2)`` int64 rows ``(i in a, j in b)``, sorted.

    The registered structures find the pairs of *one* set, so both sets go into
    one structure (``a`` first) and only the pairs with one box from each set
    are kept. The pairs inside ``a`` and inside ``b`` are found and thrown away:
    cheap when they are few (points against regions), wasteful otherwise.
    """
    na = len(boxes_a)
    if na == 0 or len(boxes_b) == 0:
        return np.empty((0, 2), np.int64)
    p = local_pairs(structure, np.concatenate([boxes_a, boxes_b]), **params)
    p = p[(p[:, 0] < na) & (p[:, 1] >= na)]
    return np.column_stack([p[:, 0], p[:, 1] - na])  # still sorted: column 0 unchanged, column 1 shifted


def brute_force_cross_pairs(boxes_a, boxes_b) -> np.ndarray:
    """Every overlapping ``(i, j)``, ``i`` a row of ``boxes_a``, ``j`` of ``boxes_b``, by testing all pairs.

    The oracle of the two-set join: ``(k, 2)`` int64, rows sorted. O(na * nb),
    in blocks of rows of ``a`` so memory stays near 4 million booleans.

    Raises
    ------
    ValueError
        Bad boxes, naming the row.
    """
    a, b = as_boxes(boxes_a, name="boxes_a"), as_boxes(boxes_b, name="boxes_b")
    out = []
    step = max(1, 4_000_000 // max(1, len(b)))
    for s in range(0, len(a), step):
        blk = a[s:s + step]
        hit = ((blk[:, None, 0] <= b[None, :, 2]) & (b[None, :, 0] <= blk[:, None, 2])
               & (blk[:, None, 1] <= b[None, :, 3]) & (b[None, :, 1] <= blk[:, None, 3]))
        i, j = np.nonzero(hit)
        out.append(np.column_stack([i + s, j]))
    return np.concatenate(out).astype(np.int64) if out else np.empty((0, 2), np.int64)


def sort_pair_rows(pairs) -> np.ndarray:
    """``(k, 2)`` int64 rows sorted lexicographically (one sort of a combined key when the ids allow it).

    Ids in ``0 .. 2**31 - 1`` are packed into one int64 key per row, which sorts
    several times faster than ``np.lexsort`` of the two columns.
    """
    p = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(p) == 0:
        return p
    if p.min() >= 0 and p.max() < 2**31:
        key = np.sort((p[:, 0] << 31) | p[:, 1])
        return np.column_stack([key >> 31, key & (2**31 - 1)])
    return np.ascontiguousarray(p[np.lexsort((p[:, 1], p[:, 0]))])


def _increasing(v) -> bool:
    return v is None or len(v) < 2 or bool((v[1:] > v[:-1]).all())


@dataclass
class PartitionResult:
    """What one partition's task returns.

    Attributes
    ----------
    partition : int
    n_boxes : int
        Boxes it received (both sets for a two-set join).
    candidates : int
        Pairs its local join found, before the reference-point rule.
    n_pairs : int
        Pairs it keeps (reports).
    seconds : float
        Wall time of the local join and the rule in the task (the verification is not counted).
    pairs : numpy.ndarray, shape (n_pairs, 2), int64, or None
        Global ids; ``None`` when only counts were asked for.
    verified : bool or None
        Whether a second structure found the same local pairs (``None``: not checked).
    """

    partition: int
    n_boxes: int
    candidates: int
    n_pairs: int
    seconds: float
    pairs: np.ndarray | None = None
    verified: bool | None = None


def join_partition(partition: int, partitioning: Partitioning, ids_a, boxes_a, ids_b=None, boxes_b=None, *,
                   structure="uniform_grid", verify_with=None, return_pairs: bool = True,
                   params: dict | None = None) -> PartitionResult:
    """Join the boxes one partition received, and keep the pairs whose reference point it holds.

    Parameters
    ----------
    partition : int
        This partition's number in ``partitioning``.
    partitioning : Partitioning
    ids_a : numpy.ndarray, shape (na,), int64
        Global ids of the boxes received (of the first set, for a two-set join).
    boxes_a : numpy.ndarray, shape (na, 4), float64
    ids_b, boxes_b : numpy.ndarray, optional
        The second set's boxes received; ``None`` for a self-join.
    structure : str or BroadPhase subclass
        The registered structure that joins locally.
    verify_with : str or BroadPhase subclass, optional
        A second structure (checked against brute force by the tests) whose
        local pairs must be the same; the answer goes in ``verified``.
    return_pairs : bool
        ``False`` keeps only the counts (for runs too big to gather).
    params : dict, optional
        Keyword parameters of ``structure``.

    Returns
    -------
    PartitionResult
        Self-join pairs are ``(id_a, id_b)`` with ``id_a < id_b``; two-set
        pairs are ``(id in a, id in b)``. Rows sorted.
    """
    params = params or {}
    t0 = time.perf_counter()
    if boxes_b is None:
        local = local_pairs(structure, boxes_a, **params)
        ra, rb = boxes_a[local[:, 0]], boxes_a[local[:, 1]]
        ga, gb = ids_a[local[:, 0]], ids_a[local[:, 1]]
        n_boxes = len(boxes_a)
    else:
        local = cross_pairs(structure, boxes_a, boxes_b, **params)
        ra, rb = boxes_a[local[:, 0]], boxes_b[local[:, 1]]
        ga, gb = ids_a[local[:, 0]], ids_b[local[:, 1]]
        n_boxes = len(boxes_a) + len(boxes_b)
    keep = keep_mask(partitioning, partition, ra, rb)
    pairs = np.column_stack([ga[keep], gb[keep]]).astype(np.int64).reshape(-1, 2)
    if not (_increasing(ids_a) and _increasing(ids_b)):  # increasing ids keep the local order: sorted already
        if boxes_b is None:
            pairs.sort(axis=1)
        pairs = sort_pair_rows(pairs)
    seconds = time.perf_counter() - t0
    verified = None
    if verify_with is not None:
        other = (local_pairs(verify_with, boxes_a, **{}) if boxes_b is None
                 else cross_pairs(verify_with, boxes_a, boxes_b))
        verified = bool(np.array_equal(other, local))
    return PartitionResult(partition, n_boxes, len(local), len(pairs), seconds,
                           pairs if return_pairs else None, verified)

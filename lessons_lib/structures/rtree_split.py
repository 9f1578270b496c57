"""SplitNode's heuristics: exhaustive, quadratic, linear.

Lesson 09, section 3 ("The split problem"), step 3 of
:mod:`~lessons_lib.structures.rtree`: when an insert leaves a node with
``M + 1`` entries, :func:`~lessons_lib.structures.rtree.split_node` divides
them into two groups of at least ``m`` entries each. Every heuristic gives the
group (0 or 1) of every entry. In the lesson's order:

* ``"exhaustive"``: there are up to ``2**M - 1`` partitions
  (:func:`count_splits`); :func:`exhaustive_split` tries every one and keeps
  the one of least total area (ties: least overlap), so it is for
  ``M <= EXHAUSTIVE_MAX`` only;
* ``"quadratic"``: :func:`pick_seeds_quadratic` (Guttman's quadratic
  PickSeeds: the two entries that would waste the most area together), then
  PickNext (:func:`pick_next`: the entry with the strongest preference first),
  each to the group whose box grows least;
* ``"linear"``: :func:`pick_seeds_linear` (linear PickSeeds: the most
  separated pair along either axis), then the remaining entries in order.

Both Guttman heuristics hand out the entries after the seeds with
:func:`distribute`, which stops choosing when one group needs every remaining
entry to reach ``m``. :func:`split_groups` is the step the tree calls, on the
entries' boxes mapped onto the unit square when their areas would overflow or
underflow (:func:`~lessons_lib.structures.rtree_nodes.unit_boxes`);
:func:`split_entries` and :func:`pick_seeds` run one heuristic on boxes of the
lesson's own. The area kernels compared here,
:func:`~lessons_lib.structures.rtree_nodes.box_area` and
:func:`~lessons_lib.structures.rtree_nodes.enlarged_by`, are the ones ChooseLeaf
compares, in the scale-safe geometry of :mod:`~lessons_lib.structures.rtree_nodes`.

Source: [Guttman1984], section 3.5.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.boxes import MAX_CORNER, MIN_CORNER, XMAX, XMIN, YMAX, YMIN
from ..core.jit import njit
from ..core.params import check_choice, check_int
from .rtree_nodes import box_area, enlarged_by, unit_boxes

__all__ = [
    "SPLITS", "EXHAUSTIVE_MAX", "count_splits", "exhaustive_split", "pick_seeds_quadratic", "pick_next",
    "pick_seeds_linear", "distribute", "split_groups", "split_entries", "pick_seeds",
]

#: Split heuristics by name, and their kernel codes.
EXHAUSTIVE, QUADRATIC, LINEAR = 0, 1, 2
SPLITS = {"exhaustive": EXHAUSTIVE, "quadratic": QUADRATIC, "linear": LINEAR}
#: Largest ``max_entries`` for the exhaustive split (2**M partitions).
EXHAUSTIVE_MAX = 12


# --------------------------------------------------------------------------
# The exhaustive split: every partition, and how many there are
# --------------------------------------------------------------------------
def count_splits(max_entries: int, min_entries: int = 1) -> int:
    """Ways to split ``M + 1`` entries into two unordered groups of at least ``m`` each.

    ``sum(C(M + 1, k) for k in [m, M + 1 - m]) / 2``: with ``m = 1`` that is
    ``2**M - 1``, which is why the exhaustive split is only for tiny nodes.

    >>> count_splits(4), count_splits(4, 2)
    (15, 10)
    """
    M = check_int("max_entries", max_entries, 1)
    m = check_int("min_entries", min_entries, 1, (M + 1) // 2)
    return sum(math.comb(M + 1, k) for k in range(m, M + 2 - m)) // 2


@njit
def exhaustive_split(b, m):
    """Every partition into two groups of at least ``m``: the one with the least total area (ties: overlap)."""
    k = b.shape[0]
    best_mask = -1
    best_area = np.inf
    best_ov = np.inf
    g = np.empty((2, 4))
    for mask in range(1 << (k - 1)):  # entry 0 always in group 0: each partition once
        n1 = 0
        g[:, MIN_CORNER] = np.inf
        g[:, MAX_CORNER] = -np.inf
        for i in range(k):
            s = (mask >> (i - 1)) & 1 if i > 0 else 0
            n1 += s
            g[s, XMIN] = min(g[s, XMIN], b[i, XMIN])
            g[s, YMIN] = min(g[s, YMIN], b[i, YMIN])
            g[s, XMAX] = max(g[s, XMAX], b[i, XMAX])
            g[s, YMAX] = max(g[s, YMAX], b[i, YMAX])
        if n1 < m or k - n1 < m:
            continue
        a = box_area(g[0, XMIN], g[0, YMIN], g[0, XMAX], g[0, YMAX]) + box_area(g[1, XMIN], g[1, YMIN], g[1, XMAX], g[1, YMAX])
        w = min(g[0, XMAX], g[1, XMAX]) - max(g[0, XMIN], g[1, XMIN])
        h = min(g[0, YMAX], g[1, YMAX]) - max(g[0, YMIN], g[1, YMIN])
        ov = w * h if (w > 0 and h > 0) else 0.0
        if a < best_area or (a == best_area and ov < best_ov):
            best_mask, best_area, best_ov = mask, a, ov
    group = np.zeros(k, np.int64)
    for i in range(1, k):
        group[i] = (best_mask >> (i - 1)) & 1
    return group


# --------------------------------------------------------------------------
# The quadratic split: PickSeeds, then PickNext
# --------------------------------------------------------------------------
@njit
def pick_seeds_quadratic(b):
    """Quadratic PickSeeds: the two entries that would waste the most area together, area(J) - area(E1) - area(E2).

    ``b`` is ``(k, 4)`` float64, ``k >= 2``; returns ``(i, j)``, ``i < j``, the
    first such pair on ties. Lesson 09's exercise 3; :func:`pick_seeds` runs it on boxes of your own.
    """
    sa, sb = 0, 1
    worst = -np.inf
    for i in range(b.shape[0]):
        for j in range(i + 1, b.shape[0]):
            aj = box_area(b[j, XMIN], b[j, YMIN], b[j, XMAX], b[j, YMAX])
            d = enlarged_by(b[i, XMIN], b[i, YMIN], b[i, XMAX], b[i, YMAX], b[j, XMIN], b[j, YMIN], b[j, XMAX], b[j, YMAX]) - aj
            if d > worst:
                worst, sa, sb = d, i, j
    return sa, sb


@njit
def pick_next(b, group, gb):
    """Guttman's PickNext: the unassigned entry with the strongest preference for one group."""
    pick, best = -1, -1.0
    for i in range(b.shape[0]):
        if group[i] < 0:
            diff = abs(_growth(gb, 0, b, i) - _growth(gb, 1, b, i))
            if diff > best:
                best, pick = diff, i
    return pick


@njit
def _growth(gb, g, b, i):
    """Enlargement of group ``g``'s box by entry ``i``."""
    return enlarged_by(gb[g, XMIN], gb[g, YMIN], gb[g, XMAX], gb[g, YMAX], b[i, XMIN], b[i, YMIN], b[i, XMAX], b[i, YMAX])


# --------------------------------------------------------------------------
# The linear split: PickSeeds along the axes, then the entries in order
# --------------------------------------------------------------------------
@njit
def pick_seeds_linear(b):
    """Linear PickSeeds: along each axis, the entry with the highest low side and the one with the lowest high side.

    Their separation, divided by the width of the whole set on that axis, picks
    the axis with the most extreme pair (Guttman's LPS1-LPS3).
    """
    k = b.shape[0]
    best_sep = -np.inf
    sa, sb = 0, 1
    for ax in range(2):
        hi_low = 0
        lo_high = 0
        for i in range(k):
            if b[i, XMIN + ax] > b[hi_low, XMIN + ax]:
                hi_low = i
            if b[i, XMAX + ax] < b[lo_high, XMAX + ax]:
                lo_high = i
        if hi_low == lo_high:  # one entry is both: take the next lowest high side
            lo_high = 1 if hi_low == 0 else 0
            for i in range(k):
                if i != hi_low and b[i, XMAX + ax] < b[lo_high, XMAX + ax]:
                    lo_high = i
        width = b[:, XMAX + ax].max() - b[:, XMIN + ax].min()
        sep = b[hi_low, XMIN + ax] - b[lo_high, XMAX + ax]
        if width > 0:
            sep = sep / width
        if sep > best_sep:
            best_sep, sa, sb = sep, lo_high, hi_low
    return min(sa, sb), max(sa, sb)


# --------------------------------------------------------------------------
# Handing out the rest (both heuristics): each entry to the group that grows least
# --------------------------------------------------------------------------
@njit
def distribute(b, m, sa, sb, quadratic):
    """Seeds ``sa``, ``sb`` start the groups; the rest follow PickNext (quadratic) or come in order (linear).

    When one group needs every remaining entry to reach ``m``, it gets them all.
    """
    k = b.shape[0]
    group = np.full(k, -1, np.int64)
    n = np.zeros(2, np.int64)
    gb = np.empty((2, 4), np.float64)
    gb[:, MIN_CORNER] = np.inf
    gb[:, MAX_CORNER] = -np.inf
    _assign(b, sa, group, 0, n, gb)
    _assign(b, sb, group, 1, n, gb)
    left = k - 2
    while left > 0:
        for g in range(2):
            if n[g] + left == m:
                for i in range(k):
                    if group[i] < 0:
                        _assign(b, i, group, g, n, gb)
                left = 0
        if left == 0:
            break
        if quadratic:
            pick = pick_next(b, group, gb)
        else:
            pick = 0
            while group[pick] >= 0:
                pick += 1
        _assign(b, pick, group, _better_group(b, pick, n, gb), n, gb)
        left -= 1
    return group


@njit
def _better_group(b, i, n, gb):
    """Group whose box grows least to take entry ``i``; ties: smaller area, then fewer entries."""
    d0, d1 = _growth(gb, 0, b, i), _growth(gb, 1, b, i)
    if d0 != d1:
        return 0 if d0 < d1 else 1
    a0 = box_area(gb[0, XMIN], gb[0, YMIN], gb[0, XMAX], gb[0, YMAX])
    a1 = box_area(gb[1, XMIN], gb[1, YMIN], gb[1, XMAX], gb[1, YMAX])
    if a0 != a1:
        return 0 if a0 < a1 else 1
    return 0 if n[0] <= n[1] else 1


@njit
def _assign(b, i, group, g, n, gb):
    """Put entry ``i`` in group ``g``: update the group's box ``gb[g]`` and size ``n[g]``."""
    group[i] = g
    n[g] += 1
    gb[g, XMIN] = min(gb[g, XMIN], b[i, XMIN])
    gb[g, YMIN] = min(gb[g, YMIN], b[i, YMIN])
    gb[g, XMAX] = max(gb[g, XMAX], b[i, XMAX])
    gb[g, YMAX] = max(gb[g, YMAX], b[i, YMAX])


# --------------------------------------------------------------------------
# SplitNode: the step the tree calls, and one heuristic on the lesson's boxes
# --------------------------------------------------------------------------
@njit
def split_groups(b, m, heuristic):
    """Group (0/1) of each of the ``M + 1`` entries with boxes ``b``, and the two seeds (-1 for the exhaustive split)."""
    u = unit_boxes(b)
    if heuristic == EXHAUSTIVE:
        return exhaustive_split(u, m), -1, -1
    sa, sb = pick_seeds_quadratic(u) if heuristic == QUADRATIC else pick_seeds_linear(u)
    return distribute(u, m, sa, sb, heuristic == QUADRATIC), sa, sb


def split_entries(boxes, min_entries: int, method: str = "quadratic") -> np.ndarray:
    """Split the boxes of an overfull node into two groups with one heuristic.

    Parameters
    ----------
    boxes : array_like, shape (k, 4)
        The ``M + 1`` entry boxes, closed ``[xmin, ymin, xmax, ymax]``.
    min_entries : int
        ``m``: each group gets at least this many, ``1 <= m <= k // 2``.
    method : {"exhaustive", "quadratic", "linear"}

    Returns
    -------
    numpy.ndarray, shape (k,), int64
        0 or 1 for each box.

    Raises
    ------
    ValueError
        Unknown method, bad ``min_entries``, fewer than 2 boxes, or more than
        ``EXHAUSTIVE_MAX + 1`` boxes for the exhaustive split.

    Notes
    -----
    Exhaustive: O(2^k k), the exact minimum of total area. Quadratic: O(k^2).
    Linear: O(k) seeds plus O(k) assignment. ([Guttman1984], section 3.5.)
    """
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    method = check_choice("split method", method, tuple(SPLITS))
    if len(b) < 2:
        raise ValueError(f"a split needs at least 2 boxes, got {len(b)}")
    m = check_int("min_entries", min_entries, 1, len(b) // 2)
    if method == "exhaustive" and len(b) > EXHAUSTIVE_MAX + 1:
        raise ValueError(f"the exhaustive split is for at most {EXHAUSTIVE_MAX + 1} boxes, got {len(b)}")
    return split_groups(b, m, SPLITS[method])[0]


def pick_seeds(boxes) -> tuple[int, int]:
    """Guttman's quadratic PickSeeds on boxes of the lesson's own (lesson 09, exercise 3).

    Parameters
    ----------
    boxes : array_like, shape (k, 4)
        Closed ``[xmin, ymin, xmax, ymax]`` boxes, ``k >= 2``.

    Returns
    -------
    tuple of int
        ``(i, j)``, ``i < j``: the pair wasting the most area together,
        ``area(J) - area(E_i) - area(E_j)``; on ties the first pair in the order
        ``(0, 1), (0, 2), ..., (1, 2), ...`` (:func:`pick_seeds_quadratic` on
        the boxes mapped onto the unit square when their areas would overflow or
        underflow).

    Raises
    ------
    ValueError
        Fewer than 2 boxes.
    """
    b = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4)
    if len(b) < 2:
        raise ValueError(f"PickSeeds needs at least 2 boxes, got {len(b)}")
    sa, sb = pick_seeds_quadratic(unit_boxes(b))
    return int(sa), int(sb)

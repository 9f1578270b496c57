"""Benchmark harness: ``python -m lessons_lib.bench``.

Speed and memory are measured here, never in timed unit tests (machines are
shared and noisy). The harness times cases, checks every result against a
reference, and prints figures and ratios; it fails nothing on timing.

Pieces
------
:func:`measure`
    Build (``from_boxes``) and ``pairs()`` times of one structure on one scene,
    with the pair count and ``memory_bytes()`` per box.
:func:`measure_moving`
    A frame of motion: every box moved a small step with ``update_many``, then
    ``pairs()``.
:mod:`lessons_lib.bench.peers`
    The libraries people use, timed the same way (``scipy.spatial.cKDTree``).

The course's own speed and memory goals are not part of the package: they live
in the top-level ``benchmarks/`` folder (``python -m benchmarks``), which uses
this harness.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from ..base import resolve_structure
from ..scenes import moved
from ..timing import median_time

__all__ = [
    "Measurement",
    "measure",
    "measure_moving",
]


@dataclass
class Measurement:
    """Times in seconds (medians), the pair count, and bytes per box."""

    label: str
    n: int
    build_s: float
    pairs_s: float
    pairs: int
    bytes_per_box: float = float("nan")
    update_s: float = 0.0

    @property
    def total_s(self) -> float:
        return self.build_s + self.update_s + self.pairs_s

    def row(self) -> str:
        first = f"update {1e3 * self.update_s:8.1f} ms" if self.update_s else f"build {1e3 * self.build_s:8.1f} ms"
        mem = "" if np.isnan(self.bytes_per_box) else f"  {self.bytes_per_box:6.1f} B/box"
        return (f"{self.label:<38} n={self.n:>7,}  {first}  pairs {1e3 * self.pairs_s:8.1f} ms"
                f"  total {1e3 * self.total_s:8.1f} ms  {self.pairs:>9,} pairs{mem}")






def measure(structure, boxes: np.ndarray, *, label: str | None = None, repeat: int = 3,
            reference: np.ndarray | None = None, **params) -> Measurement:
    """Median build and pairs times of ``structure`` on ``boxes``.

    Raises ``AssertionError`` when ``reference`` (a ``(k, 2)`` pairs array) is
    given and the structure's pairs differ from it: a wrong answer is never timed.
    """
    cls = resolve_structure(structure)
    build_s, bp = median_time(lambda: cls.from_boxes(boxes, **params), repeat)
    pairs_s, pairs = median_time(bp.pairs, repeat)
    if reference is not None:
        assert np.array_equal(pairs, reference), f"{cls.name}: pairs differ from the reference: FAILED"
    return Measurement(label or cls.name, len(boxes), build_s, pairs_s, len(pairs),
                       bp.memory_bytes() / max(1, len(boxes)))


def measure_moving(structure, boxes: np.ndarray, *, step: float = 1.0, label: str | None = None,
                   repeat: int = 3, reference: np.ndarray | None = None, **params) -> Measurement:
    """One frame of motion: ``update_many`` to moved boxes (and back, alternately), then ``pairs()``.

    ``reference``, if given, is the pairs of the *moved* boxes.
    """
    cls = resolve_structure(structure)
    bp = cls.from_boxes(boxes, **params)
    ids = np.arange(len(boxes), dtype=np.int64)
    frames = [moved(boxes, step), boxes]
    update_times, pairs_times, pairs = [], [], None
    for r in range(2 * max(1, repeat)):
        target_boxes = frames[r % 2]
        t, _ = median_time(lambda: bp.update_many(ids, target_boxes), 1)
        update_times.append(t)
        t, p = median_time(bp.pairs, 1)
        if r % 2 == 0:
            pairs_times.append(t)
            pairs = p
    if reference is not None:
        assert np.array_equal(pairs, reference), f"{cls.name}: pairs after moving differ from the reference: FAILED"
    return Measurement(label or f"{cls.name} (move + pairs)", len(boxes), 0.0,
                       statistics.median(pairs_times), len(pairs), bp.memory_bytes() / max(1, len(boxes)),
                       update_s=statistics.median(update_times))

"""Benchmark harness: ``python -m lessons_lib.bench``.

Speed and memory are measured here, never in timed unit tests (machines are
shared and noisy). The harness times cases, checks every result against a
reference, and prints figures and ratios; it fails nothing on timing.

Pieces
------
:func:`median_time`
    Median wall time of repeated calls.
:func:`measure`
    Build (``from_boxes``) and ``pairs()`` times of one structure on one scene,
    with the pair count and ``memory_bytes()`` per box.
:func:`measure_moving`
    A frame of motion: every box moved a small step with ``update_many``, then
    ``pairs()``.
:mod:`lessons_lib.bench.peers`
    The libraries people use, timed the same way (``scipy.spatial.cKDTree``).
Targets
    Each lesson's speed and memory goals live in a module
    ``lessons_lib/bench/targets_<topic>.py`` that decorates functions with
    :func:`target`. A target function returns a list of :class:`Line` (what was
    measured, the figure, the goal, met or not); ``python -m lessons_lib.bench``
    runs all of them, or those whose name contains ``--only TEXT``.
"""
from __future__ import annotations

import importlib
import pkgutil
import platform
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..base import STRUCTURES, BroadPhase
from ..scenes import make_scene, scale_to

__all__ = [
    "Line",
    "Measurement",
    "TARGETS",
    "machine_info",
    "measure",
    "measure_moving",
    "median_time",
    "moved",
    "scaled_scene",
    "target",
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


@dataclass
class Line:
    """One checked goal: ``measured`` compared with ``goal`` (``ok`` says if it is met)."""

    what: str
    measured: str
    goal: str
    ok: bool

    def row(self) -> str:
        return f"  [{'met ' if self.ok else 'MISS'}] {self.what}: {self.measured} (goal: {self.goal})"


#: name -> function returning a list of Line; filled by the targets_* modules.
TARGETS: dict[str, Callable[[], list[Line]]] = {}


def target(name: str):
    """Register a benchmark target function under ``name``."""

    def deco(fn):
        TARGETS[name] = fn
        return fn

    return deco


def machine_info() -> str:
    """One line: processor, cores, Python and numpy/numba versions."""
    from ..jit import jit_status
    import os

    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, numpy {np.__version__}; {jit_status()}")


def median_time(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """Run ``fn()`` ``repeat`` times; return (median seconds, last result)."""
    times, result = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def scaled_scene(name: str, n: int, seed: int = 0) -> np.ndarray:
    """Scene ``name`` with ``n`` boxes in the world :func:`scale_to` gives (the article's density)."""
    return make_scene(name, n, seed=seed, world=scale_to(n))


def moved(boxes: np.ndarray, step: float = 1.0, seed: int = 1) -> np.ndarray:
    """Every box shifted by a random vector of length <= ``step`` units (one frame of motion)."""
    rng = np.random.default_rng(seed)
    d = rng.uniform(-step, step, size=(len(boxes), 2)) / np.sqrt(2)
    return boxes + np.column_stack([d, d])


def _structure(structure) -> type[BroadPhase]:
    return STRUCTURES[structure] if isinstance(structure, str) else structure


def measure(structure, boxes: np.ndarray, *, label: str | None = None, repeat: int = 3,
            reference: np.ndarray | None = None, **params) -> Measurement:
    """Median build and pairs times of ``structure`` on ``boxes``.

    Raises ``AssertionError`` when ``reference`` (a ``(k, 2)`` pairs array) is
    given and the structure's pairs differ from it: a wrong answer is never timed.
    """
    cls = _structure(structure)
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
    cls = _structure(structure)
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


def load_targets() -> None:
    """Import every ``targets_*`` module of this package so their targets register."""
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("targets_"):
            importlib.import_module(f"{__name__}.{info.name}")

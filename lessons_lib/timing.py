"""Timing for lessons and benchmarks: one timer, so that every figure is measured the same way.

Machines are shared and noisy: a single run says little. :func:`median_time`
repeats a call and keeps the median (robust to a stray slow run); lessons that
compare settings on a small scene may prefer :func:`best_time` (the least
disturbed run). Both use :func:`time.perf_counter` (wall-clock seconds).
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

__all__ = ["median_time", "best_time"]


def _runs(fn: Callable[[], object], repeat: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(max(1, int(repeat))):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def median_time(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """Run ``fn()`` ``repeat`` times (at least once); return ``(median seconds, last result)``."""
    times, result = _runs(fn, repeat)
    return statistics.median(times), result


def best_time(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """Run ``fn()`` ``repeat`` times (at least once); return ``(fastest seconds, last result)``."""
    times, result = _runs(fn, repeat)
    return min(times), result

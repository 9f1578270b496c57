"""How long each lesson's Restart & Run All takes once the kernels are compiled.

    python -m benchmarks.lesson_times [NN ...]

Run after ``make warm`` (``make lesson-times`` does both). Each lesson is executed headless
once, as a student's Run All would (a fresh kernel, every cell in order), and its wall-clock
time is printed beside the goal of 30 seconds. A figure, never a test: the machine's load
moves it.
"""
from __future__ import annotations

import datetime
import importlib.util
import pathlib
import sys

from lessons_lib.data import machine_info

GOAL_S = 30.0
ROOT = pathlib.Path(__file__).resolve().parent.parent


def _warm_cache():
    spec = importlib.util.spec_from_file_location("warm_cache", ROOT / "tools" / "warm_cache.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    warm = _warm_cache()
    print(f"# lesson Run All times, {datetime.date.today()}: {machine_info()}")
    print(f"{'lesson':40s} {'seconds':>8s}  goal <= {GOAL_S:.0f} s")
    worst = 0.0
    for path in warm.lessons(argv):
        seconds = warm.run_lesson(path)
        worst = max(worst, seconds)
        print(f"{path.name:40s} {seconds:8.1f}  {'met' if seconds <= GOAL_S else 'MISSED'}", flush=True)
    print(f"slowest lesson: {worst:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

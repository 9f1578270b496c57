"""Runs tests/extreme_cases.py in a subprocess with numba's bounds checking on.

A kernel that reads or writes past an array's end then raises IndexError instead of
corrupting memory, and a crash (a signal) fails this test with the last lines printed,
instead of killing the whole test run. The compiled kernels of this run are cached apart
(``build/numba-boundscheck``), so they never mix with the normal ones.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_extreme_cases_in_a_bounds_checked_subprocess():
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(ROOT / "build" / "numba-boundscheck"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                           str(ROOT / "tests" / "extreme_cases.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
    assert proc.returncode >= 0, f"the extreme-input run crashed (signal {-proc.returncode}):\n{tail}"
    assert proc.returncode == 0, f"extreme inputs gave wrong answers or errors:\n{tail}"

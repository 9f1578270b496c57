"""Optional numba compilation of the library's hot kernels.

Every kernel in ``lessons_lib`` is a small free function over flat numpy arrays
(the "arrays of ints" layout of the quadtree answer set in the seeds). It is
decorated with :func:`njit` from this module, which compiles it with numba when
numba is installed and ``LESSONS_JIT`` is not ``0``; otherwise the decorator
returns the function unchanged, so the same code runs as plain Python. Plain
Python is slow but can be stepped through in a debugger, and it must give
identical results (the test suite checks that in a subprocess).

Set ``LESSONS_JIT=0`` in the environment *before* importing ``lessons_lib``::

    LESSONS_JIT=0 python -m pytest tests/test_brute_force.py
"""
from __future__ import annotations

import os

__all__ = ["JIT_ENABLED", "njit", "jit_status"]

_requested = os.environ.get("LESSONS_JIT", "1").strip().lower() not in {"0", "false", "no", "off"}

try:  # numba is a declared dependency, but a missing one must not break the lessons
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only on machines without numba
    _numba = None

#: True when kernels are compiled by numba, False when they run as plain Python.
JIT_ENABLED: bool = _requested and _numba is not None


def njit(func=None, **options):
    """Compile ``func`` in nopython mode when JIT is enabled, else return it as is.

    Usable bare (``@njit``) or with numba options (``@njit(parallel=False)``).
    Defaults: ``cache=True`` (compiled code is kept on disk between sessions)
    and ``nogil=True``.
    """
    def wrap(f):
        if not JIT_ENABLED:
            return f
        opts = {"cache": True, "nogil": True}
        opts.update(options)
        return _numba.njit(**opts)(f)

    if func is None:
        return wrap
    return wrap(func)


def jit_status() -> str:
    """One line saying how kernels run, for the top of a notebook or benchmark."""
    if JIT_ENABLED:
        return f"kernels compiled with numba {_numba.__version__}"
    if _numba is None:
        return "kernels run as plain Python (numba is not installed)"
    return "kernels run as plain Python (LESSONS_JIT=0)"

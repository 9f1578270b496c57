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

Threads
-------
A few kernels split their work over the cores with numba's parallel loops
(``@njit(parallel=True)`` and :data:`prange`); every such kernel gives the same
answer whatever the number of threads. By default numba starts one thread per
core. To choose the number, set ``NUMBA_NUM_THREADS`` in the environment
before Python starts (an upper bound for the whole process), or call
:func:`set_threads` at any time (at most that bound); :func:`threads` tells the
number in use. ``set_threads(1)`` runs everything on one core, which is the
fair setting for comparing against single-threaded code. With
``LESSONS_JIT=0``, :data:`prange` is plain ``range`` and there is one thread.
"""
from __future__ import annotations

import os
import threading
import types

__all__ = ["JIT_ENABLED", "njit", "njit_parallel_and_serial", "prange", "threads", "set_threads", "use_threads",
           "jit_status"]

_requested = os.environ.get("LESSONS_JIT", "1").strip().lower() not in {"0", "false", "no", "off"}

# Threads of a parallel kernel that finish early sleep instead of spinning: on a machine whose
# cores are shared with other programs (a classroom server, CI), spinning threads slowed the
# parallel kernels down threefold here. Set OMP_WAIT_POLICY yourself to choose otherwise.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

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


def njit_parallel_and_serial(func):
    """``(parallel, serial)``: ``func`` compiled with its :data:`prange` loops shared among the threads, and without.

    One source for both: numba runs a ``prange`` loop as a plain ``range`` when
    a kernel is compiled without ``parallel=True``. The serial one is for a
    caller that must not start threads (one thread wanted, or a call from a
    thread other than the main one). It is compiled from a copy of ``func``
    under its own name, so that numba's on-disk cache keeps the two apart.
    With ``LESSONS_JIT=0`` both are ``func`` itself.
    """
    if not JIT_ENABLED:
        return func, func
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__ = func.__qualname__ + "_serial"
    copy.__doc__ = func.__doc__
    return njit(parallel=True)(func), njit(copy)


#: numba's parallel range when kernels are compiled, else the built-in ``range``.
prange = _numba.prange if JIT_ENABLED else range


def threads() -> int:
    """Threads the parallel kernels use now (1 when kernels run as plain Python)."""
    return int(_numba.get_num_threads()) if JIT_ENABLED else 1


def set_threads(n: int) -> int:
    """Use ``n`` threads in the parallel kernels from now on; returns the previous number.

    Raises
    ------
    ValueError
        ``n`` below 1 or above the process's bound (``NUMBA_NUM_THREADS``,
        by default the number of cores).
    """
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"the number of threads must be an integer, got {n!r}")
    n = int(n)
    bound = int(_numba.config.NUMBA_NUM_THREADS) if JIT_ENABLED else 1
    if not 1 <= n <= bound:
        raise ValueError(f"the number of threads must be between 1 and {bound} (NUMBA_NUM_THREADS), got {n}")
    before = threads()
    if JIT_ENABLED:
        _numba.set_num_threads(n)
    return before


def use_threads() -> bool:
    """Should a kernel with a parallel twin run it now? More than one thread, and called from the main thread.

    From any other thread (a Dask worker, say) the serial twin runs: numba's
    pool of threads is started from, and driven by, the main thread.
    """
    return threads() > 1 and threading.current_thread() is threading.main_thread()


def jit_status() -> str:
    """One line saying how kernels run, for the top of a notebook or benchmark."""
    if JIT_ENABLED:
        return f"kernels compiled with numba {_numba.__version__}"
    if _numba is None:
        return "kernels run as plain Python (numba is not installed)"
    return "kernels run as plain Python (LESSONS_JIT=0)"

"""Reads from several threads at once on one structure: scratch per thread, a lazy rebuild done once.

A query or ``pairs()`` only reads a structure, so a Dask threaded scheduler, a
``ThreadPoolExecutor`` or a simulation's worker threads may run them on one
instance at the same time (the kernels release the GIL). Two things would then
be shared: a scratch buffer kept on the instance to save an allocation (one
thread's kernel writes another thread's answer into it), and a lazy rebuild
(several threads finding the structure stale would all rebuild it, in place, at
once). So:

* :class:`ThreadScratch` keeps such buffers per thread (the thread that made
  the instance may keep using the instance's own);
* :class:`RebuildLock` is the lock a lazy rebuild runs under: the first reader
  that finds the structure stale rebuilds, the others wait and then read the
  rebuilt state (check, lock, check again).

Both are dropped by ``copy.deepcopy`` and ``pickle`` (a lock cannot be copied,
and another thread's buffers mean nothing elsewhere): the copy gets new, empty
ones. Reads concurrent with a *change* (``insert``, ``update``, ...) are not
supported: changes are for one thread at a time, with no reads meanwhile.
"""
from __future__ import annotations

import threading

__all__ = ["ThreadScratch", "RebuildLock", "on_main_thread"]


def on_main_thread() -> bool:
    """True in Python's main thread (the one a notebook's cells run in)."""
    return threading.current_thread() is threading.main_thread()


class ThreadScratch:
    """Named scratch values, one set per thread: ``get(name, make)`` makes a value the first time a thread asks.

    Examples
    --------
    >>> import numpy as np
    >>> scratch = ThreadScratch()
    >>> out = scratch.get("out", lambda: np.empty(64, np.int64))
    >>> scratch.get("out", lambda: None) is out   # the same thread gets the same buffer back
    True
    """

    def __init__(self):
        self._local = threading.local()

    def get(self, name: str, make):
        """This thread's value of ``name``, made with ``make()`` if it has none yet."""
        value = getattr(self._local, name, None)
        if value is None:
            value = make()
            setattr(self._local, name, value)
        return value

    def put(self, name: str, value):
        """Replace this thread's value of ``name`` (a buffer grown, say); returns ``value``."""
        setattr(self._local, name, value)
        return value

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self._local = threading.local()

    def __deepcopy__(self, memo):
        return ThreadScratch()


class RebuildLock:
    """A re-entrant lock for a lazy rebuild (``with lock: ...``); copies and pickles get a fresh one."""

    def __init__(self):
        self._lock = threading.RLock()

    def __enter__(self):
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()
        return False

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self._lock = threading.RLock()

    def __deepcopy__(self, memo):
        return RebuildLock()

"""An interrupt (Ctrl-C, JupyterLab's "Interrupt kernel") waits until a structure's call has finished.

A structure's ``insert`` is several steps (grow an array, write a node, link it,
count it); a ``KeyboardInterrupt`` raised between two of them would leave the
structure neither as it was nor as it should be, and every later answer wrong.
So every public call that changes a structure runs inside :func:`uninterrupted`:
while it runs, a SIGINT is only recorded; when it returns (or raises), the
previous handler is put back and the signal is delivered again, so the
``KeyboardInterrupt`` arrives right after the call, with the structure whole.

Only the main thread receives SIGINT in Python, and only there can a handler be
installed: in other threads the calls run as they are. A call made inside another
deferred call (``update_many`` calling ``insert``) does not install a second handler.
The cost is three ``signal`` calls per public call, about 2 microseconds.
"""
from __future__ import annotations

import functools
import signal
import threading

__all__ = ["uninterrupted", "deferring"]

_state = threading.local()


def deferring() -> bool:
    """True inside a call that holds back interrupts (in this thread)."""
    return getattr(_state, "depth", 0) > 0


def _record(signum, frame) -> None:
    _state.pending = True


def uninterrupted(method):
    """Decorate a method so that a SIGINT during the call takes effect right after it."""

    @functools.wraps(method)
    def call(*args, **kwargs):
        depth = getattr(_state, "depth", 0)
        if depth or threading.current_thread() is not threading.main_thread():
            try:
                _state.depth = depth + 1
                return method(*args, **kwargs)
            finally:
                _state.depth = depth
        previous = signal.getsignal(signal.SIGINT)
        if previous in (signal.SIG_IGN, None):  # ignored, or set outside Python: leave it alone
            return method(*args, **kwargs)
        _state.pending = False
        signal.signal(signal.SIGINT, _record)  # from here on a SIGINT is only recorded
        try:
            _state.depth = 1
            return method(*args, **kwargs)
        finally:
            _state.depth = 0
            signal.signal(signal.SIGINT, previous)
            if _state.pending:
                _state.pending = False
                signal.raise_signal(signal.SIGINT)  # now, to the handler the caller had

    call.__uninterrupted__ = True
    return call

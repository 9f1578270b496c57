"""Automatic checks of the exercises.

Each ``check_*`` function takes the learner's function, runs it against the
library's reference on fixed edge cases and on seeded random scenes, and either
prints a short success line or raises :class:`CheckFailed` (an
``AssertionError``) saying which input failed, what was expected and what came
back, with a hint that points at the idea without giving the answer away.

A function that still raises ``NotImplementedError`` (the student stub) fails
the check with a message asking for the body to be written.

One module per topic (``lesson01``, ``grids``, ``quadtrees``, ``sweep_and_prune``,
``rtrees``, ...); a new topic adds its module and one line to ``_TOPICS`` below.
"""
from __future__ import annotations

from importlib import import_module

from .common import CheckFailed

_TOPICS = ["lesson01", "grids", "quadtrees", "sweep_and_prune", "rtrees", "choosing", "sim", "bench", "loose", "partitioned"]

__all__ = ["CheckFailed"]
for _name in _TOPICS:
    _module = import_module(f"{__name__}.{_name}")
    for _check in _module.__all__:
        globals()[_check] = getattr(_module, _check)
    __all__ += _module.__all__
del _name, _module, _check

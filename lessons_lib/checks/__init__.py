"""Automatic checks of the exercises.

Each ``check_*`` function takes the learner's function, runs it against the
library's reference on fixed edge cases and on seeded random scenes, and either
prints a short success line or raises :class:`CheckFailed` (an
``AssertionError``) saying which input failed, what was expected and what came
back. A hint is added only when the answer proves the mistake it names (it is
exactly what that one typical mistake returns, and no case passed before rules
the mistake out: :class:`~lessons_lib.checks.common.Mistakes`); it points at the
idea, never prints the solution's line. A function that raises fails with the
input that made it raise. Where the exercise is a method (walking a structure's
lists or cells, an insertion sort), the check watches what the function reads or
writes, so a right answer found another way fails too.

A function that still raises ``NotImplementedError`` (the student stub) fails
the check with a message asking for the body to be written.

One module per topic (``lesson01``, ``grids``, ``quadtrees``, ``sweep_and_prune``, ``aabb_tree``,
``rtrees``, ...); a new topic adds its module and one line to ``_TOPICS`` below.
"""
from __future__ import annotations

from importlib import import_module

from .common import CheckFailed

_TOPICS = ["lesson01", "grids", "quadtrees", "sweep_and_prune", "rtrees", "aabb_tree", "choosing", "sim", "bench", "loose", "partitioned"]

__all__ = ["CheckFailed"]
for _name in _TOPICS:
    _module = import_module(f"{__name__}.{_name}")
    for _check in _module.__all__:
        globals()[_check] = getattr(_module, _check)
    __all__ += _module.__all__
del _name, _module, _check

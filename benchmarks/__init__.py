"""The course's own speed and memory goals: ``python -m benchmarks``.

This folder is course tooling, not part of ``lessons_lib``: students never
import it. Each ``goals_<topic>.py`` module measures one lesson's structures
with the harness in :mod:`lessons_lib.bench` and states what the course set
out to reach, as a list of :class:`Line` (what was measured, the figure, the
goal, met or not). ``python -m benchmarks`` runs every goal, or those whose
name contains ``--only TEXT``; timing never fails the run.

``make bench`` runs the benchmark suites of lesson 12 first
(``python -m lessons_lib.bench --suite all``), then these goals.

Suites that compare with code outside the project (kept beside the repository,
never copied into it) are run by hand: :mod:`benchmarks.anchor_c` runs the
quadtree answer set's own C/C++ (compact quadtree, loose/tight double grid)
beside every structure on the same frames of moving agents; without that
folder it prints one ``skipped: ...`` line and exits 0.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

__all__ = ["GOALS", "Line", "goal", "load_goals"]


@dataclass
class Line:
    """One checked goal: ``measured`` compared with ``goal`` (``ok`` says if it is met)."""

    what: str
    measured: str
    goal: str
    ok: bool

    def row(self) -> str:
        return f"  [{'met ' if self.ok else 'MISS'}] {self.what}: {self.measured} (goal: {self.goal})"


#: name -> function returning a list of :class:`Line`; filled by the goals_* modules.
GOALS: dict[str, Callable[[], list[Line]]] = {}


def goal(name: str):
    """Register a goal function under ``name``."""

    def deco(fn):
        GOALS[name] = fn
        return fn

    return deco


def load_goals() -> None:
    """Import every ``goals_*`` module of this folder so that their goals register."""
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("goals_"):
            importlib.import_module(f"{__name__}.{info.name}")

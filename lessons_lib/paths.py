"""Where the course's data lives, whatever the current folder.

Notebooks run from ``notebooks/``, their student copies from ``build/student/``,
the browser test from a temporary copy: a relative path such as ``../data``
breaks in some of them. Use :func:`data_path` instead.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "data_path"]

#: The repository's ``data/`` folder (``lessons_lib`` is installed in editable mode).
DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def data_path(*parts: str) -> Path:
    """Path of a file under ``data/``, e.g. ``data_path("results", "quadtree_scaling.csv")``.

    Raises ``FileNotFoundError`` naming the path when it does not exist.
    """
    p = DATA_DIR.joinpath(*parts)
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing (see data/README.md for how it is made)")
    return p

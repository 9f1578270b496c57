"""The course's data folder: where its files live, and the stored results lessons plot.

Paths. Notebooks run from ``notebooks/``, their student copies from
``build/student/``, the browser test from a temporary copy: a relative path
such as ``../data`` breaks in some of them. Use :func:`data_path` instead.

Stored results. Big runs (``make bench``, long simulations) are too slow for a
notebook in CI, so they write their figures under ``data/results/`` once and the
lessons read them back. Every file says where it came from in ``# key: value``
comment lines before the header::

    # what: scaled benchmark suite, build and pairs per structure
    # command: python -m lessons_lib.bench --suite scaled
    # machine: x86_64, 2 cores, Python 3.11.7, numpy 2.4.6; kernels compiled with numba 0.68.1
    # date: 2026-11-30
    suite,scene,n,structure,build_ms,pairs_ms
    scaled,random,1000,uniform_grid,0.41,0.20
    ...

:func:`save_results` writes such a file, :func:`load_results` reads it into a
:class:`Results` table (columns as numpy arrays; numbers become floats or ints,
everything else stays text). Only the standard library and numpy are used.
"""
from __future__ import annotations

import csv
import datetime
import io
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from .core.jit import jit_status

__all__ = ["DATA_DIR", "data_path", "Results", "load_results", "save_results", "results_path", "machine_info"]

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


def machine_info() -> str:
    """One line: processor, cores, Python and numpy/numba versions."""
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, numpy {np.__version__}; {jit_status()}")


def results_path(name: str) -> Path:
    """``data/results/<name>`` (``.csv`` added when ``name`` has no suffix)."""
    p = Path(name)
    if not p.suffix:
        p = p.with_suffix(".csv")
    return p if p.is_absolute() or p.parent != Path(".") else DATA_DIR / "results" / p


def _parse(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@dataclass
class Results:
    """A small read-only table: ``meta`` (the ``# key: value`` lines) and named columns.

    ``table["n"]`` is a numpy array (int64, float64 or object for text);
    ``table.where(scene="random")`` keeps the matching rows; ``len(table)`` is the row count;
    ``table.rows()`` gives dictionaries.
    """

    meta: dict[str, str]
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.columns[name]
        except KeyError:
            raise KeyError(f"no column {name!r}; columns are {list(self.columns)}") from None

    def unique(self, name: str) -> list:
        """Distinct values of a column, in order of first appearance."""
        return list(dict.fromkeys(self[name].tolist()))

    def where(self, **equal) -> "Results":
        """Rows whose columns equal the given values (a value may also be a list of allowed values)."""
        keep = np.ones(len(self), bool)
        for name, value in equal.items():
            col = self[name]
            allowed = value if isinstance(value, (list, tuple, set)) else [value]
            keep &= np.isin(col, list(allowed))
        return Results(dict(self.meta), {k: v[keep] for k, v in self.columns.items()})

    def rows(self) -> list[dict]:
        names = list(self.columns)
        return [dict(zip(names, vals)) for vals in zip(*(self.columns[n].tolist() for n in names))]


def save_results(name: str | Path, rows: Iterable[Mapping], *, what: str, command: str,
                 extra_meta: Mapping[str, str] | None = None) -> Path:
    """Write ``rows`` (dictionaries with the same keys) to ``data/results/<name>``.

    Parameters
    ----------
    name : str or Path
        File name under ``data/results/`` (``.csv`` added if missing) or a path.
    rows : iterable of mappings
        One dictionary per row; the first row's keys are the columns, in order.
        Floats are written with 6 significant digits.
    what, command : str
        What the file holds and the command that regenerates it (kept in the file).
    extra_meta : mapping, optional
        More ``# key: value`` lines (e.g. versions of peer libraries).

    Returns
    -------
    Path
        Where the file was written. The machine line comes from
        :func:`machine_info`.

    Raises
    ------
    ValueError
        If there are no rows, or a row's keys differ from the first row's.
    """

    rows = [dict(r) for r in rows]
    if not rows:
        raise ValueError("save_results got no rows")
    names = list(rows[0])
    for i, r in enumerate(rows):
        if list(r) != names:
            raise ValueError(f"row {i} has columns {list(r)}, expected {names}")
    meta = {"what": what, "command": command, "machine": machine_info(),
            "date": datetime.date.today().isoformat(), **(extra_meta or {})}
    out = io.StringIO()
    for k, v in meta.items():
        out.write(f"# {k}: {v}\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for r in rows:
        w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in r.values()])
    path = results_path(str(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(out.getvalue())
    return path


def load_results(name: str | Path) -> Results:
    """Read a file written by :func:`save_results` (or any CSV with ``#`` comment lines first).

    Raises ``FileNotFoundError`` naming the path and how to regenerate results when
    the file is missing.
    """
    path = results_path(str(name))
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: regenerate it with `make bench` "
                                "(see data/README.md)")
    meta, body = {}, []
    for line in path.read_text().splitlines():
        if line.startswith("#") and not body:
            key, _, value = line[1:].partition(":")
            meta[key.strip()] = value.strip()
        elif line.strip():
            body.append(line)
    reader = csv.reader(body)
    names = next(reader)
    raw = list(reader)
    cols = {}
    for j, n in enumerate(names):
        vals = [_parse(r[j]) for r in raw]
        if all(isinstance(v, int) for v in vals):
            cols[n] = np.array(vals, dtype=np.int64)
        elif all(isinstance(v, (int, float)) for v in vals):
            cols[n] = np.array(vals, dtype=np.float64)
        else:
            cols[n] = np.array([str(v) for v in vals], dtype=object)
    return Results(meta, cols)

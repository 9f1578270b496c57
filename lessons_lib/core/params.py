"""Validation of constructor parameters: one rule for every structure.

The common interface (:class:`lessons_lib.base.BroadPhase`) promises that a bad
parameter raises :class:`ValueError` whose message names the parameter and the
value given, and that nothing is built. Every structure validates its keyword
parameters with these functions, so ``Quadtree(capacity=2.5)``,
``RTree(max_entries="8")`` and ``UniformGrid(cell_size=float("nan"))`` all fail
the same way::

    >>> check_int("capacity", 2.5, 1)
    Traceback (most recent call last):
    ...
    ValueError: capacity must be an integer, got 2.5 (float)

Booleans are refused where numbers are meant (``True`` is an ``int`` in Python,
but ``capacity=True`` is a mistake, not a request for one element per leaf).
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = ["check_int", "check_number", "check_positive", "check_choice", "check_flag", "check_optional"]


def _describe(value) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """``value`` as a Python ``int`` in ``lo .. hi`` (``hi=None``: no upper bound).

    Raises
    ------
    ValueError
        ``value`` is not an integer (a float such as ``2.5`` or ``8.0``, a
        string, a bool, NaN) or lies outside ``lo .. hi``; the message names
        ``name``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise ValueError(f"{name} must be an integer, got {_describe(value)}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        bounds = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{name} must be an integer {bounds}, got {v}")
    return v


def check_number(name: str, value, lo: float, hi: float, *, unit: str = "") -> float:
    """``value`` as a finite ``float`` in the closed range ``[lo, hi]``.

    Raises
    ------
    ValueError
        Not a real number (a string, a bool, ``None``), NaN or infinite, or
        outside ``[lo, hi]``; the message names ``name``.
    """
    what = f" {unit}" if unit else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number{what}, got {_describe(value)}")
    v = float(value)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise ValueError(f"{name} must be a finite number{what} in [{lo:g}, {hi:g}], got {v!r}")
    return v


def check_positive(name: str, value, *, unit: str = "world units") -> float:
    """``value`` as a finite ``float`` greater than 0 (a cell size, a distance).

    Raises
    ------
    ValueError
        Not a real number, NaN, infinite, zero or negative; the message names
        ``name``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a positive number of {unit}, got {_describe(value)}")
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number of {unit}, got {v!r}")
    return v


def check_choice(name: str, value, choices) -> object:
    """The member of ``choices`` (strings or integers) equal to ``value``.

    A string matches only a string and an integer only an integer: ``True``,
    ``1.0`` or ``"0"`` never stand for the axis ``0``.

    Raises
    ------
    ValueError
        Anything else; the message names ``name`` and lists the choices.
    """
    if isinstance(value, str):
        found = [c for c in choices if isinstance(c, str) and c == value]
    elif isinstance(value, (Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        found = [c for c in choices if isinstance(c, int) and not isinstance(c, bool) and c == int(value)]
    else:
        found = []
    if found:
        return found[0]
    listed = ", ".join(repr(c) for c in choices)
    raise ValueError(f"{name} must be one of {listed}, got {_describe(value)}")


def check_flag(name: str, value) -> bool:
    """``value`` as a ``bool``; only ``True`` and ``False`` (and numpy bools) are accepted.

    Raises
    ------
    ValueError
        Anything else (``1``, ``"yes"``, ``None``); the message names ``name``.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)


def check_optional(check, name: str, value, *args, **kwargs):
    """``None`` if ``value`` is ``None``, else ``check(name, value, *args, **kwargs)``."""
    return None if value is None else check(name, value, *args, **kwargs)

"""What every exercise check shares: the failure type, calling the learner's code, formatting."""
from __future__ import annotations

import numpy as np


__all__ = ["CheckFailed", "call_student", "fmt", "as_pair_rows", "rect_box_cases"]


class CheckFailed(AssertionError):
    """An exercise check did not pass; the message says why."""


def call_student(fn, *args):
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{getattr(fn, '__name__', 'your function')} is not written yet "
            "(it raised NotImplementedError): replace the stub with your code."
        ) from None


def fmt(box) -> str:
    return "(" + ", ".join(f"{v:g}" for v in box) + ")"


def as_pair_rows(got, n):
    try:
        arr = np.asarray(list(got) if not isinstance(got, np.ndarray) else got)
    except TypeError:
        raise CheckFailed(f"all_pairs must return a list of (i, j) tuples, got {type(got).__name__}") from None
    if arr.size == 0:
        return np.empty((0, 2), np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise CheckFailed(f"all_pairs must return (i, j) pairs; got something of shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CheckFailed("all_pairs must return pairs of integer indices i, j (positions in the list of boxes)")
    if (arr < 0).any() or (arr >= n).any():
        raise CheckFailed(f"all_pairs returned an index outside 0..{n - 1}: {arr[((arr < 0) | (arr >= n)).any(1)][0].tolist()}")
    return arr.astype(np.int64)


def rect_box_cases(fixed, seed: int, *, margin: int, box_div: int, box_extra: int):
    """``fixed`` plus 300 seeded random ``(name, node rectangle, box)`` cases, coordinates as floats.

    Rectangles have even integer sides (so midlines are whole numbers); box corners
    fall up to ``margin`` outside the rectangle, box sides up to ``w // box_div + box_extra``.
    """
    rng = np.random.default_rng(seed)
    cases = list(fixed)
    for k in range(300):
        x0, y0 = rng.integers(-50, 50, 2)
        w, h = rng.integers(2, 20, 2) * 2
        bx, by = rng.integers(x0 - margin, x0 + w + margin), rng.integers(y0 - margin, y0 + h + margin)
        bw, bh = rng.integers(0, w // box_div + box_extra, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + w, y0 + h), (bx, by, bx + bw, by + bh)))
    return [(name, tuple(float(v) for v in rect), tuple(float(v) for v in box)) for name, rect, box in cases]

"""What every exercise check shares: the failure type, calling the learner's code, formatting."""
from __future__ import annotations

import numpy as np


__all__ = ["CheckFailed"]


class CheckFailed(AssertionError):
    """An exercise check did not pass; the message says why."""


def _call(fn, *args):
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{getattr(fn, '__name__', 'your function')} is not written yet "
            "(it raised NotImplementedError): replace the stub with your code."
        ) from None


def _fmt(box) -> str:
    return "(" + ", ".join(f"{v:g}" for v in box) + ")"


def _as_pair_rows(got, n):
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

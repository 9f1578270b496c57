"""Hypothesis strategies and small oracles shared by the test modules.

Boxes are drawn mostly on a small integer lattice so that exact touching
(shared edges, shared corners), zero-area boxes and duplicates happen often;
a fraction use arbitrary floats and far-away coordinates.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

#: Coordinates of boxes "far outside" the article's 800 x 600 world.
FAR = 1.0e6


@st.composite
def lattice_box(draw, lo: int = -4, hi: int = 24, max_size: int = 8):
    """A box with integer-valued corners; width/height may be 0 (segments, points)."""
    x = draw(st.integers(lo, hi))
    y = draw(st.integers(lo, hi))
    w = draw(st.integers(0, max_size))
    h = draw(st.integers(0, max_size))
    return [float(x), float(y), float(x + w), float(y + h)]


@st.composite
def float_box(draw, lo: float = -50.0, hi: float = 850.0, max_size: float = 120.0):
    """A box with arbitrary finite float corners (sizes may be 0)."""
    fin = {"allow_nan": False, "allow_infinity": False}
    x = draw(st.floats(lo, hi, **fin))
    y = draw(st.floats(lo, hi, **fin))
    w = draw(st.one_of(st.just(0.0), st.floats(0.0, max_size, **fin)))
    h = draw(st.one_of(st.just(0.0), st.floats(0.0, max_size, **fin)))
    return [x, y, x + w, y + h]


@st.composite
def far_box(draw):
    """A small box far outside the world, in any direction."""
    cx = draw(st.sampled_from([-FAR, 0.0, FAR]))
    cy = draw(st.sampled_from([-FAR, 0.0, FAR]))
    if cx == 0.0 and cy == 0.0:
        cx = FAR
    d = draw(st.integers(0, 3))
    w = draw(st.integers(0, 4))
    return [cx + d, cy + d, cx + d + w, cy + d + w]


def any_box():
    """Lattice boxes most of the time, floats and far boxes sometimes."""
    return st.one_of(lattice_box(), lattice_box(), lattice_box(), float_box(), far_box())


@st.composite
def box_arrays(draw, min_size: int = 0, max_size: int = 40, box=None):
    """An ``(n, 4)`` float64 array of valid boxes, with duplicates mixed in."""
    box = box if box is not None else any_box()
    rows = draw(st.lists(box, min_size=min_size, max_size=max_size))
    if rows and draw(st.booleans()):  # repeat a few rows verbatim: duplicate boxes
        k = draw(st.integers(1, min(5, len(rows))))
        rows = rows + rows[:k]
    return np.array(rows, dtype=np.float64).reshape(-1, 4)


def nested_loop_pairs(boxes) -> set[tuple[int, int]]:
    """The definition of the answer, written independently of the library."""
    b = np.asarray(boxes, dtype=np.float64).tolist()
    out = set()
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            ax0, ay0, ax1, ay1 = b[i]
            bx0, by0, bx1, by1 = b[j]
            if max(ax0, bx0) <= min(ax1, bx1) and max(ay0, by0) <= min(ay1, by1):
                out.add((i, j))
    return out


def filter_query(ids, boxes, q) -> np.ndarray:
    """Ids whose closed box meets the closed query box ``q``, sorted (int64)."""
    ids = np.asarray(ids, dtype=np.int64)
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    hit = (b[:, 0] <= q[2]) & (q[0] <= b[:, 2]) & (b[:, 1] <= q[3]) & (q[1] <= b[:, 3])
    return np.sort(ids[hit])


def model_pairs(model: dict[int, list[float]]) -> np.ndarray:
    """Intersecting id pairs of a ``{id: box}`` dict: ``(k, 2)`` int64, rows a < b, sorted."""
    ids = sorted(model)
    boxes = [model[i] for i in ids]
    found = sorted((ids[i], ids[j]) for i, j in nested_loop_pairs(boxes))
    return np.array(found, dtype=np.int64).reshape(-1, 2)

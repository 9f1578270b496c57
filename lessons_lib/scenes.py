"""Deterministic test scenes: the benchmark article's placements and two of ours.

Every generator returns an ``(n, 4)`` float64 array of closed AABBs
``[xmin, ymin, xmax, ymax]`` in world units, the same for the same arguments on
every machine (numpy's PCG64 generator seeded with ``seed``).

The five placements of the benchmark article (magley, "Algorithms and data
structures in the broad phase", 2026; [magley2026]; its code
is public as ``magley/broad-phase``) are defined in its 800 x 600 world:

============== ==================================================================
name           placement (lower-left corner ``x, y``; width ``w``, height ``h``)
============== ==================================================================
random         x in [0, 784], y in [0, 584], w and h in [12, 16]
large_boxes    x in [0, 700], y in [0, 500], w and h in [50, 100]
xline          x = 250, y = i / n * 580, w in [30, 300], h in [10, 20]
yline          y = 150, x = i / n * 780, w in [10, 20], h in [30, 300]
true_uniform   a regular lattice filling the world; each box is its lattice
               pitch plus 10 units, so neighbours overlap
============== ==================================================================

Ours:

* ``clustered``: boxes of size 6..14 around 8 Gaussian cluster centres
  (standard deviation 4 % of the world's width), clipped to the world.
* ``mixed_sizes``: a few huge objects among many small ones (our paraphrase of the big-object example in
  [SO-quadtree], answer "2. Fundamentals"): 98 % small boxes (4..10 units), 2 % huge ones
  (60..200 units), which defeat structures tuned to one element size.

A different ``world`` rescales *positions* to that world; sizes stay as above, so
a larger world is a sparser scene. :func:`scale_to` gives the world that keeps
the article's density (at n = 2000) for any ``n``.
"""
from __future__ import annotations

import math

import numpy as np

from .geometry import as_box

__all__ = ["SCENES", "ARTICLE_SCENES", "SKEWED_SCENES", "make_scene", "scale_to", "scaled_scene", "skewed_scene",
           "moved"]

#: The five placements of the benchmark article, in its order.
ARTICLE_SCENES = ("random", "large_boxes", "xline", "yline", "true_uniform")
#: Every scene name :func:`make_scene` accepts.
SCENES = ARTICLE_SCENES + ("clustered", "mixed_sizes")
#: Scenes whose extent or density is skewed, compared with ``"uniform"`` by :func:`skewed_scene`.
SKEWED_SCENES = ("line", "column", "clustered", "duplicates", "giants")


def scale_to(n: int, base_n: int = 2000) -> np.ndarray:
    """World ``[0, 0, W, H]`` in which ``n`` boxes have the density of ``base_n`` in 800 x 600.

    Each axis grows by ``sqrt(n / base_n)``; for ``n <= base_n`` the article's
    world is returned unchanged.

    Raises
    ------
    ValueError
        If ``n`` or ``base_n`` is not a positive integer.
    """
    for label, v in (("n", n), ("base_n", base_n)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{label} must be a positive integer, got {v!r}")
    f = max(1.0, math.sqrt(n / base_n))
    return np.array([0.0, 0.0, 800.0 * f, 600.0 * f])


def _boxes(x, y, w, h):
    return np.column_stack([x, y, x + w, y + h]).astype(np.float64)


def _random(rng, n):
    return _boxes(rng.uniform(0, 784, n), rng.uniform(0, 584, n), rng.uniform(12, 16, n), rng.uniform(12, 16, n))


def _large_boxes(rng, n):
    return _boxes(rng.uniform(0, 700, n), rng.uniform(0, 500, n), rng.uniform(50, 100, n), rng.uniform(50, 100, n))


def _xline(rng, n):
    y = np.arange(n) / max(n, 1) * 580.0
    return _boxes(np.full(n, 250.0), y, rng.uniform(30, 300, n), rng.uniform(10, 20, n))


def _yline(rng, n):
    x = np.arange(n) / max(n, 1) * 780.0
    return _boxes(x, np.full(n, 150.0), rng.uniform(10, 20, n), rng.uniform(30, 300, n))


def _true_uniform(rng, n):
    # Rows ~ sqrt(n); enough columns for exactly n boxes, filled row by row.
    rows = max(1, int(math.sqrt(n)))
    cols = max(1, math.ceil(n / rows))
    pitch_x, pitch_y = 800.0 / cols, 600.0 / rows
    k = np.arange(n)
    x, y = (k % cols) * pitch_x, (k // cols) * pitch_y
    return _boxes(x, y, np.full(n, pitch_x + 10.0), np.full(n, pitch_y + 10.0))


def _clustered(rng, n, k=8):
    centres = rng.uniform([80, 60], [720, 540], size=(k, 2))
    which = rng.integers(0, k, n)
    c = centres[which] + rng.normal(0.0, 32.0, size=(n, 2))
    w, h = rng.uniform(6, 14, n), rng.uniform(6, 14, n)
    x = np.clip(c[:, 0] - w / 2, 0, 800 - w)
    y = np.clip(c[:, 1] - h / 2, 0, 600 - h)
    return _boxes(x, y, w, h)


def _mixed_sizes(rng, n):
    big = rng.random(n) < 0.02
    size = np.where(big[:, None], rng.uniform(60, 200, (n, 2)), rng.uniform(4, 10, (n, 2)))
    x = rng.uniform(0, 800 - size[:, 0])
    y = rng.uniform(0, 600 - size[:, 1])
    return _boxes(x, y, size[:, 0], size[:, 1])


_GENERATORS = {
    "random": _random,
    "large_boxes": _large_boxes,
    "xline": _xline,
    "yline": _yline,
    "true_uniform": _true_uniform,
    "clustered": _clustered,
    "mixed_sizes": _mixed_sizes,
}


def make_scene(name: str, n: int, seed: int = 0, world=None) -> np.ndarray:
    """Generate a named scene of ``n`` boxes.

    Parameters
    ----------
    name : str
        One of :data:`SCENES`.
    n : int
        Number of boxes, >= 0.
    seed : int
        Seed of the random generator; the same arguments give the same boxes.
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` of the world. ``None`` means the article's
        ``[0, 0, 800, 600]``. Positions are mapped linearly from 800 x 600 to
        this world; box sizes are kept. Use ``world=scale_to(n)`` for the
        article's density at any ``n``.

    Returns
    -------
    numpy.ndarray, shape (n, 4), dtype float64
        Rows ``[xmin, ymin, xmax, ymax]``; ``xmin <= xmax``, ``ymin <= ymax``.

    Raises
    ------
    ValueError
        Unknown scene name, negative or non-integer ``n``, or a bad ``world``
        box (NaN, inverted, zero width or height).
    """
    if name not in _GENERATORS:
        raise ValueError(f"unknown scene {name!r}; choose one of {', '.join(SCENES)}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    rng = np.random.default_rng(seed)
    boxes = _GENERATORS[name](rng, int(n)).reshape(-1, 4)
    if world is not None:
        w = as_box(world, name="world")
        if w[2] == w[0] or w[3] == w[1]:
            raise ValueError(f"world must have positive width and height, got {w.tolist()}")
        sx = (w[2] - w[0]) / 800.0
        sy = (w[3] - w[1]) / 600.0
        size = boxes[:, 2:] - boxes[:, :2]
        lo = boxes[:, :2] * [sx, sy] + w[:2]
        boxes = np.column_stack([lo, lo + size])
    return np.ascontiguousarray(boxes)


def scaled_scene(name: str, n: int, seed: int = 0) -> np.ndarray:
    """Scene ``name`` with ``n`` boxes in the world :func:`scale_to` gives (the article's density).

    Returns a ``(n, 4)`` float64 array, as :func:`make_scene`.
    """
    return make_scene(name, n, seed=seed, world=scale_to(n))


def skewed_scene(kind: str, n: int, seed: int = 0) -> np.ndarray:
    """A scene that stresses a structure's assumptions about extent and density, or its uniform baseline.

    ``kind`` is ``"uniform"`` (the scaled ``random`` scene) or one of :data:`SKEWED_SCENES`:

    * ``line``: ``n`` boxes of 0.5 x 0.5 along a line ``n`` units long and one unit tall
      (a world inferred from the data is ``n`` times wider than tall);
    * ``column``: the same line standing upright;
    * ``clustered``: the scaled ``clustered`` scene (8 Gaussian clusters);
    * ``duplicates``: ``n // 4`` scaled random boxes, each repeated four times;
    * ``giants``: the scaled ``mixed_sizes`` scene (2 % of the boxes 60-200 units among 4-10 unit ones).

    Returns an ``(n, 4)`` float64 array of closed AABBs (``(n // 4 * 4, 4)`` for
    ``duplicates``). Raises ``ValueError`` for an unknown ``kind`` or a bad ``n``.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if kind == "uniform":
        return scaled_scene("random", n, seed=seed)
    if kind in ("line", "column"):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, n, n)
        y = rng.uniform(0, 0.5, n)
        line = np.column_stack([x, y, x + 0.5, y + 0.5])
        return line if kind == "line" else np.ascontiguousarray(line[:, [1, 0, 3, 2]])
    if kind == "clustered":
        return scaled_scene("clustered", n, seed=seed)
    if kind == "duplicates":
        return np.repeat(make_scene("random", n // 4, seed=seed, world=scale_to(n)), 4, axis=0)
    if kind == "giants":
        return scaled_scene("mixed_sizes", n, seed=seed)
    raise ValueError(f"unknown skewed scene {kind!r}; choose 'uniform' or one of {', '.join(SKEWED_SCENES)}")


def moved(boxes: np.ndarray, step: float = 1.0, seed: int = 1) -> np.ndarray:
    """Every box shifted by a random vector of length at most ``step`` world units (one frame of motion).

    ``boxes`` is ``(n, 4)`` float64; the result is a new ``(n, 4)`` float64 array,
    each box keeping its size. Deterministic for a given ``seed``.
    """
    rng = np.random.default_rng(seed)
    d = rng.uniform(-step, step, size=(len(boxes), 2)) / np.sqrt(2)
    return boxes + np.column_stack([d, d])

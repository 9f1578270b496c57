"""Choosing a grid's cell size: lesson 02's suggestion, then the one default and the checks every grid uses.

Lesson 02, section 5, "The cell size trade-off, measured": the lesson's
:func:`typical_box_size` (the median of the boxes' larger sides) and
:func:`suggest_cell_size` (twice it, the default of ``from_boxes``), and the
same from its parts for grids that have validated the boxes already
(:func:`cell_size_for`). Every grid over a world (the uniform grid, the
hierarchical grid, the counting-sort grid, the point grid and the loose/tight
grid through :class:`~lessons_lib.structures.uniform_grid.FixedGrid`, and the
spatial hash) also takes from here:

* **the default** when no cell size is given and no boxes are known
  (:func:`default_cell_size`: the world's longer side / :data:`DEFAULT_CELLS_ACROSS`);
* **the checks**: a cell size whose inverse is a finite float
  (:func:`check_cell_size`) and a grid of at most ``max_cells`` cells
  (:func:`grid_shape`).

Every size and count is computed in a form that cannot overflow: a world's
width as ``(0.5 * hi - 0.5 * lo) * 2`` (:func:`cells_across`), so worlds as wide
as the float range work. The grid's steps and classes are in
:mod:`~lessons_lib.structures.uniform_grid`; the kernels every grid shares
(cell ranges, node lists) in :mod:`~lessons_lib.structures.grid_cells`.

References
----------
A game-development lecture on spatial data structures [gamedev-lecture]: cell
size about the typical object size.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.boxes import XMAX, XMIN, YMAX, YMIN
from ..core.params import check_int, check_positive
from ..geometry import as_box, as_boxes
from .grid_cells import FLOAT_MAX, MIN_CELL_SIZE, grid_world

__all__ = [
    "typical_box_size", "suggest_cell_size", "cell_size_for",
    "cells_across", "default_cell_size", "check_cell_size", "grid_shape",
    "DEFAULT_MAX_CELLS", "DEFAULT_CELLS_ACROSS", "DEFAULT_CELL_FACTOR",
]

#: Most cells a grid may have by default (4 bytes each: 16 MiB).
DEFAULT_MAX_CELLS = 1 << 22
#: Cells along the longer side of the world when no cell size is given and no boxes are known.
DEFAULT_CELLS_ACROSS = 64
#: Default multiple of the typical box size used by :func:`suggest_cell_size` (measured, see Notes there).
DEFAULT_CELL_FACTOR = 2.0


# --------------------------------------------------------------------------
# Lesson 02, section 5: the cell size from the boxes
# --------------------------------------------------------------------------
def typical_box_size(boxes: np.ndarray, world=None) -> float:
    """Median of ``max(width, height)`` of validated ``boxes`` (at most the largest float).

    When that is 0 (points, segments), the side of a square holding one box on
    average in ``world`` (default the boxes' bounding box); 1.0 if that is 0 too.
    """
    if len(boxes):
        half = np.maximum(0.5 * boxes[:, XMAX] - 0.5 * boxes[:, XMIN], 0.5 * boxes[:, YMAX] - 0.5 * boxes[:, YMIN])
        typical = min(2.0 * float(np.median(half)), FLOAT_MAX)
        if typical > 0:
            return typical
    w = grid_world(boxes) if world is None else world
    typical = _side_over(w, max(1, len(boxes)))
    return typical if 0 < typical < math.inf else 1.0


def suggest_cell_size(boxes, world=None, *, factor: float = DEFAULT_CELL_FACTOR,
                      max_cells: int = DEFAULT_MAX_CELLS) -> float:
    """A cell size for ``boxes``: the typical box size times ``factor`` (default 2).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs, world units.
    world : array_like, shape (4,), optional
        The grid's world; default the boxes' bounding box.
    factor : float
        Multiplier of the typical size (> 0). Lesson 02 measures the trade-off.
    max_cells : int
        Upper bound on the resulting number of cells.

    Returns
    -------
    float
        ``factor`` x the median of ``max(width, height)``; for boxes of zero
        size (points), the side of a cell holding one box on average. Enlarged,
        if needed, so that the grid has at most ``max(1024, 4 n)`` cells and at
        most ``max_cells``: a sparse, huge world gets coarser cells rather than
        an enormous array (memory stays O(n)). Always between
        :data:`~lessons_lib.structures.grid_cells.MIN_CELL_SIZE` and the largest
        float, whatever the boxes' scale.

    Raises
    ------
    ValueError
        Bad boxes, world, ``factor`` or ``max_cells``.

    Notes
    -----
    Why twice the typical size: the fewest box tests come with cells about
    one box wide, but then a box covers about 4 cells, and writing, walking
    and de-duplicating those nodes costs more than the extra tests of larger
    cells. Measured on the ``random`` scene (lesson 02's sweep at n = 2,000 and
    the benchmark at n = 100,000), the pair search is fastest for cells 1.5 to
    3 times the typical box size and the curve is flat there.
    """
    b = as_boxes(boxes)
    w = grid_world(b) if world is None else as_box(world, name="world")
    return cell_size_for(len(b), w, typical_box_size(b, w), factor=factor, max_cells=max_cells)


def cell_size_for(n: int, w, typical: float, *, factor: float = DEFAULT_CELL_FACTOR,
                  max_cells: int = DEFAULT_MAX_CELLS, cells_per_box: int = 4) -> float:
    """:func:`suggest_cell_size` from its parts: ``n`` boxes of ``typical`` size in the checked world ``w``.

    ``factor * typical``, enlarged until the grid has at most
    ``min(max_cells, max(1024, cells_per_box * n))`` cells; ``ValueError`` for
    a non-positive ``factor`` or ``typical`` or a bad ``max_cells``. For
    callers that have validated the boxes and know their typical size already.
    """
    factor = check_positive("factor", factor, unit="box sizes")
    max_cells = check_int("max_cells", max_cells, 1)
    size = max(min(factor * check_positive("typical", typical, unit="world units"), FLOAT_MAX), MIN_CELL_SIZE)
    budget = min(max_cells, max(1024, cells_per_box * n))

    def cells(count):  # ceil(count), at least 1, without overflow
        return math.ceil(count) if count < 2.0**62 else math.inf

    # ceil() adds up to one row and one column: leave room for them.
    while size < FLOAT_MAX and cells(cells_across(w[XMIN], w[XMAX], size)) * cells(cells_across(w[YMIN], w[YMAX], size)) > budget:
        size = min(max(size * 1.05, _side_over(w, budget)), FLOAT_MAX)
    return float(size)


# --------------------------------------------------------------------------
# The default without boxes, the checks, and sizes computed without overflow
# --------------------------------------------------------------------------
def cells_across(lo: float, hi: float, size: float) -> float:
    """``(hi - lo) / size`` as a float, computed from halves so that ``hi - lo`` cannot overflow (may be inf)."""
    return (0.5 * hi - 0.5 * lo) / size * 2.0


def default_cell_size(world) -> float:
    """The cell size a grid takes when none is given: the world's longer side / :data:`DEFAULT_CELLS_ACROSS`.

    Parameters
    ----------
    world : (4,) float64 array
        The closed world box ``[xmin, ymin, xmax, ymax]``, already validated.

    Returns
    -------
    float
        The side of a square cell, in world units (computed from halves: no overflow).

    Raises
    ------
    ValueError
        If that size is below :data:`~lessons_lib.structures.grid_cells.MIN_CELL_SIZE`
        (a world too small to divide), naming the world and the two sizes.
    """
    w = world
    size = max(cells_across(w[XMIN], w[XMAX], DEFAULT_CELLS_ACROSS), cells_across(w[YMIN], w[YMAX], DEFAULT_CELLS_ACROSS))
    if not size >= MIN_CELL_SIZE:
        raise ValueError(f"world {np.asarray(w).tolist()} is too small for a grid: its default cell (the longer side / "
                         f"{DEFAULT_CELLS_ACROSS}) would be {size:.3g} units, below the smallest cell size "
                         f"{MIN_CELL_SIZE:.3g}; give a larger world or a cell_size")
    return size


def check_cell_size(cell_size, name: str = "cell_size") -> float:
    """``cell_size`` as a float in ``[MIN_CELL_SIZE, float max]``: positive, finite, with a finite inverse.

    Raises
    ------
    ValueError
        Not a positive finite number, or so small that ``1 / cell_size``
        overflows (below about 5.6e-309); the message names ``name``.
    """
    c = check_positive(name, cell_size)
    if c < MIN_CELL_SIZE:
        raise ValueError(f"{name} must be at least {MIN_CELL_SIZE:.3g} world units (1 / {name} must be a finite "
                         f"float), got {c!r}")
    return c


def grid_shape(world, cell_size: float, max_cells: int = DEFAULT_MAX_CELLS) -> tuple[int, int]:
    """``(rows, cols)`` of square cells of side ``cell_size`` covering ``world``.

    Raises
    ------
    ValueError
        A bad cell size (see :func:`check_cell_size`), or more than
        ``max_cells`` cells (the message gives the grid it would have made).
    """
    w = as_box(world, name="world")
    c = check_cell_size(cell_size)
    max_cells = check_int("max_cells", max_cells, 1)
    fc, fr = cells_across(w[XMIN], w[XMAX], c), cells_across(w[YMIN], w[YMAX], c)
    if not (fc * fr <= max_cells and fc <= max_cells and fr <= max_cells):
        raise ValueError(
            f"cell_size {c:g} gives a {fr:.3g} x {fc:.3g} grid over the world {w.tolist()}, more than "
            f"max_cells={max_cells:,} cells; use larger cells or raise max_cells"
        )
    return max(1, math.ceil(fr)), max(1, math.ceil(fc))


def _side_over(w, parts: float) -> float:
    """``sqrt(width * height / parts)`` of the world ``w``, without overflow."""
    return 2.0 * math.sqrt(0.5 * w[XMAX] - 0.5 * w[XMIN]) * (math.sqrt(0.5 * w[YMAX] - 0.5 * w[YMIN]) / math.sqrt(parts))

"""The course's one figure style: a colour-blind-safe palette and readable sizes.

``import lessons_lib`` calls :func:`use` once, so every lesson's figures share it:

* colours from the Okabe-Ito palette (distinguishable with the common colour-vision
  deficiencies, and in greyscale by lightness for the first few), in the order of
  :data:`PALETTE`; regions use a grey ramp (:data:`REGION_CMAP`: dark for the shallow
  levels, light for the deep ones), so that no meaning colour is close to a region line;
* one meaning per colour across the course (:data:`BOX_COLOR`, :data:`PAIR_COLOR`, ...),
  shared by static figures, Stepper frames and the Explorer's canvas;
* fonts of 11 points on figures drawn at 100 dpi, so a 6.4-inch figure is 640 pixels
  wide and its text is readable at the size a notebook shows it;
* ``constrained`` layout, so titles, tick labels and legends never collide.

Plots with many series should not ask the reader to match colours to a legend:
:func:`highlight_lines` greys every series but the few a sentence is about and labels
those at their right end.

References
----------
Okabe, M. and Ito, K., *Color Universal Design (CUD): how to make figures and
presentations that are friendly to colorblind people*, 2008 [Okabe-Ito].
"""
from __future__ import annotations

import matplotlib as mpl
from cycler import cycler
from matplotlib.colors import LinearSegmentedColormap

__all__ = [
    "BLACK",
    "ENTRANT_COLORS",
    "entrant_colors",
    "BLUE",
    "BOX_COLOR",
    "GREEN",
    "GREY",
    "HIGHLIGHT_COLOR",
    "NEW_COLOR",
    "ORANGE",
    "PAIR_COLOR",
    "PALETTE",
    "PURPLE",
    "QUERY_COLOR",
    "REGION_CMAP",
    "REGION_RAMP",
    "RC",
    "SKY",
    "VERMILLION",
    "YELLOW",
    "highlight_lines",
    "use",
]

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
SKY = "#56B4E9"
YELLOW = "#F0E442"
BLACK = "#000000"
GREY = "#999999"

#: Series colours, in the order a plot's lines take them.
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, BLACK, YELLOW)

#: One meaning per colour, everywhere in the course.
BOX_COLOR = BLUE          # a stored box
HIGHLIGHT_COLOR = ORANGE  # a box that is in a candidate pair / the boxes a step is about
PAIR_COLOR = VERMILLION   # the segment joining a pair
QUERY_COLOR = GREEN       # a query window and its hits
NEW_COLOR = PURPLE        # what the last step added (a new box, a new region)
REGION_CMAP = "lessons_regions"  # a structure's regions, by depth or level (grey ramp, below)

#: The region ramp: near-black at depth 0 to mid grey at 80 % (where
#: :func:`lessons_lib.viz.draw_regions` puts the deepest level), light grey at 100 %. A grey
#: has no hue, so it stays apart from every meaning colour above (and from their
#: colour-blind renderings); lightness alone orders the levels, readable in greyscale too.
REGION_RAMP = ((0.0, "#1f1f1f"), (0.8, "#a3a3a3"), (1.0, "#c4c4c4"))
if REGION_CMAP not in mpl.colormaps:  # registered once, so ``colormaps[REGION_CMAP]`` works everywhere
    mpl.colormaps.register(LinearSegmentedColormap.from_list(REGION_CMAP, list(REGION_RAMP)))

#: The rcParams :func:`use` sets.
RC = {
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "image.cmap": "viridis",  # the default for imshow (heat maps); regions pass REGION_CMAP themselves
    "figure.dpi": 100,
    "savefig.dpi": "figure",
    "figure.figsize": (6.4, 4.2),
    "figure.constrained_layout.use": True,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "figure.titlesize": 13,
    "lines.linewidth": 1.8,
    "axes.grid": False,
}


#: Fixed line colours of the entrants the course's timing plots highlight most, so that a
#: structure keeps its colour from one figure to the next (:func:`entrant_colors`).
ENTRANT_COLORS = {
    "counting_sort_grid": BLUE,
    "cKDTree": ORANGE,
    "loose_tight_grid": GREEN,
    "rtree": VERMILLION,
    "dynamic_aabb_tree": PURPLE,
    "sweep_and_prune": SKY,
    "brute_force": BLACK,
}


def entrant_colors(names) -> dict:
    """A colour for each of ``names``: its own from :data:`ENTRANT_COLORS`, else the first palette colour unused.

    Raises ``ValueError`` when there are more names than palette colours.

    Examples
    --------
    >>> entrant_colors(["quadtree", "counting_sort_grid"]) == {"quadtree": ORANGE, "counting_sort_grid": BLUE}
    True
    """
    names = list(names)
    if len(names) > len(PALETTE):
        raise ValueError(f"at most {len(PALETTE)} highlighted names, got {len(names)}")
    out = {n: ENTRANT_COLORS[n] for n in names if n in ENTRANT_COLORS}
    free = iter(c for c in PALETTE if c not in out.values())
    for n in names:
        if n not in out:
            out[n] = next(free)
    return out


def use() -> None:
    """Apply the course's style to matplotlib (idempotent; called by ``import lessons_lib``)."""
    mpl.rcParams.update(RC)


def highlight_lines(ax, series, highlight, *, colors=None, label_ends: bool = True, **plot_kwargs) -> dict:
    """Draw many series, greying all but a few, and label those few at their right end.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    series : mapping of str to (x, y)
        Every series by name; ``x`` and ``y`` are 1-D sequences of equal length.
    highlight : sequence of str
        The names to draw in colour (at most ``len(PALETTE)``), in the palette's order.
    colors : sequence of colour, optional
        Colours for ``highlight`` instead of the palette.
    label_ends : bool
        Write each highlighted name beside its last point (a direct label); when False
        the highlighted series get legend labels instead.
    **plot_kwargs
        Passed to every ``ax.plot`` call (``marker="o"``, ...).

    Returns
    -------
    dict
        The ``Line2D`` of every series, by name.

    Raises
    ------
    KeyError
        A highlighted name that is not in ``series``.
    ValueError
        More highlighted names than colours.
    """
    highlight = list(highlight)
    missing = [h for h in highlight if h not in series]
    if missing:
        raise KeyError(f"highlighted series not among the series: {missing}")
    colors = list(PALETTE if colors is None else colors)
    if len(highlight) > len(colors):
        raise ValueError(f"{len(highlight)} highlighted series but only {len(colors)} colours")
    lines = {}
    for name, (x, y) in series.items():
        if name in highlight:
            continue
        (lines[name],) = ax.plot(x, y, color=GREY, alpha=0.6, linewidth=1.0, zorder=1, **plot_kwargs)
    for name, color in zip(highlight, colors):
        x, y = series[name]
        (lines[name],) = ax.plot(x, y, color=color, linewidth=2.2, zorder=3,
                                 label=None if label_ends else name, **plot_kwargs)
        if label_ends and len(x):
            ax.annotate(name, (x[-1], y[-1]), xytext=(4, 0), textcoords="offset points",
                        color=color, va="center", fontsize="small", annotation_clip=False)
    return lines

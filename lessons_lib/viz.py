"""Drawing boxes, pairs and a structure's regions on a matplotlib Axes.

Every function draws on the ``Axes`` it is given and returns what it added;
nothing here imports :mod:`matplotlib.pyplot` or calls ``show()``, so the same
code serves a lesson's inline figures, static small multiples and the PNG
frames of :class:`lessons_lib.widgets.Stepper`. A lesson usually needs one call::

    import matplotlib.pyplot as plt
    from lessons_lib import STRUCTURES, make_scene
    from lessons_lib.viz import draw_structure

    bp = STRUCTURES["brute_force"].from_boxes(make_scene("random", 40))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw_structure(ax, bp)

Conventions
-----------
* Boxes are ``(n, 4)`` float64 ``[xmin, ymin, xmax, ymax]`` in world units,
  validated with :func:`lessons_lib.geometry.as_boxes`.
* All rectangles of one kind go into a single
  :class:`~matplotlib.collections.PolyCollection` (one artist for ``n`` boxes,
  not ``n`` patches), and all pair segments into one
  :class:`~matplotlib.collections.LineCollection`, so drawing 10,000 boxes stays
  well under a second.
* The ``draw_*`` functions return the list of artists they added (empty when
  there was nothing to draw) and give each series a legend label;
  :func:`style_world_axes` adds the axis labels, the title and the legend.
* Layers, bottom to top (``zorder``): regions 1, boxes 2, highlighted boxes
  2.5, pair segments 4, id labels 5.
"""
from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_rgba

from . import style
from .geometry import as_box, as_boxes

__all__ = [
    "AUTO_LABEL_MAX",
    "FRAME_BUDGETS_MS",
    "X_LABEL",
    "Y_LABEL",
    "add_legend",
    "array_row",
    "draw_boxes",
    "draw_pairs",
    "draw_regions",
    "draw_scene",
    "draw_structure",
    "frame_budget_lines",
    "covering_box",
    "plural",
    "and_list",
    "region_label",
    "set_world",
    "style_world_axes",
]

#: Axis labels of every world-space figure.
X_LABEL = "x (world units)"
Y_LABEL = "y (world units)"

#: ``(milliseconds, label)`` of the frame budgets drawn on timing plots.
FRAME_BUDGETS_MS = (
    (1000.0 / 60.0, "60 fps budget (16 ms)"),
    (1000.0 / 30.0, "30 fps budget (33 ms)"),
)

#: ``annotate="auto"`` labels boxes with their ids up to this many boxes.
AUTO_LABEL_MAX = 30

BOX_COLOR = style.BOX_COLOR
HIGHLIGHT_COLOR = style.HIGHLIGHT_COLOR
PAIR_COLOR = style.PAIR_COLOR
REGION_CMAP = style.REGION_CMAP
#: Regions use the colour map from 0 (depth 0) to this fraction (deepest), skipping pale yellows.
REGION_CMAP_TOP = 0.8

# Corner order of a box polygon, as (column of x, column of y) in [xmin, ymin, xmax, ymax].
_CORNERS = np.array([[0, 1], [2, 1], [2, 3], [0, 3]])


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------
def _box_polygons(boxes: np.ndarray) -> np.ndarray:
    """Corners of each box, counter-clockwise from the lower left: ``(n, 4, 2)``."""
    return boxes[:, _CORNERS]


def _add_rects(ax, rects, *, facecolor, edgecolor, linewidth, linestyle, label, zorder):
    """Add ``rects`` (validated ``(m, 4)``) to ``ax`` as one PolyCollection and return it."""
    coll = PolyCollection(
        _box_polygons(rects),
        closed=True,
        facecolors=facecolor,
        edgecolors=edgecolor,
        linewidths=linewidth,
        linestyles=linestyle,
        label=label,
        zorder=zorder,
    )
    ax.add_collection(coll, autolim=True)
    ax.autoscale_view()
    return coll


def _check_ids(ids, n: int) -> np.ndarray | None:
    """Validate element ids for ``n`` boxes: ``None`` or ``(n,)`` unique int64."""
    if ids is None:
        return None
    arr = np.asarray(ids)
    if arr.shape != (n,) or (n and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"ids must be {n} integers (one per box), got shape {arr.shape} of {arr.dtype}")
    arr = arr.astype(np.int64)
    if len(np.unique(arr)) != n:
        raise ValueError("ids must be unique: two boxes share an id")
    return arr


def _rows_of(values, ids: np.ndarray | None, n: int, *, what: str) -> np.ndarray:
    """Row numbers of ``values``: element ids when ``ids`` is given, else row numbers already."""
    v = np.asarray(values, dtype=np.int64).ravel()
    if ids is None:
        bad = (v < 0) | (v >= n)
        if bad.any():
            raise ValueError(f"{what} {int(v[bad][0])} is not a row of the {n} boxes")
        return v
    order = np.argsort(ids)
    pos = np.clip(np.searchsorted(ids[order], v), 0, max(n - 1, 0))
    found = ids[order][pos] == v if n else np.zeros(len(v), dtype=bool)
    if not found.all():
        raise ValueError(f"{what} {int(v[~found][0])} is not among the drawn ids")
    return order[pos]


def _select_mask(n: int, ids: np.ndarray | None, select, *, what: str) -> np.ndarray:
    """Turn ``select`` (None, a boolean mask, or ids / row numbers) into an ``(n,)`` mask."""
    mask = np.zeros(n, dtype=bool)
    if select is None:
        return mask
    arr = np.asarray(select)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(f"{what} mask must have shape ({n},), got {arr.shape}")
        return arr.copy()
    mask[_rows_of(arr, ids, n, what=f"{what} id" if ids is not None else f"{what} row")] = True
    return mask


def _as_regions(obj) -> tuple[np.ndarray, np.ndarray]:
    """``(rects, depths)`` from a structure (anything with ``regions()``) or a 2-tuple."""
    if callable(getattr(obj, "regions", None)):
        obj = obj.regions()
    if not (isinstance(obj, (tuple, list)) and len(obj) == 2):
        raise TypeError(f"expected a BroadPhase or a (rects, depths) tuple, got {type(obj).__name__}")
    rects = as_boxes(obj[0], name="region rects")
    depths = np.asarray(obj[1])
    if depths.shape != (len(rects),) or (len(rects) and not np.issubdtype(depths.dtype, np.integer)):
        raise ValueError(f"region depths must be {len(rects)} integers, got shape {depths.shape} of {depths.dtype}")
    if len(depths) and depths.min() < 0:
        raise ValueError(f"region depth {int(depths.min())} is negative")
    return rects, depths.astype(np.int64)


def plural(k: int, word: str, words: str | None = None) -> str:
    """``"1 box"``, ``"3 boxes"``."""
    return f"{k} {word}" if k == 1 else f"{k} {words or word + 's'}"


def and_list(items, *, code: bool = False) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"`` (each item in backticks with ``code=True``); ``""`` for none.

    >>> and_list([1_000, 5_000]), and_list(["quadtree", "kdtree", "rtree"], code=True)
    ('1000 and 5000', '`quadtree`, `kdtree` and `rtree`')
    """
    items = [f"`{x}`" if code else str(x) for x in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


# --------------------------------------------------------------------------
# Boxes, pairs, regions
# --------------------------------------------------------------------------
def draw_boxes(
    ax,
    boxes,
    *,
    ids=None,
    color=BOX_COLOR,
    alpha: float = 0.3,
    fill: bool = True,
    linewidth: float = 1.0,
    linestyle="solid",
    highlight=None,
    highlight_color=HIGHLIGHT_COLOR,
    label: str | None = None,
    highlight_label: str | None = None,
    annotate: bool = False,
    max_labels: int = 100,
    zorder: float = 2.0,
) -> list:
    """Draw axis-aligned boxes as one collection, optionally highlighting some.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    boxes : array_like, shape (n, 4), float64
        ``[xmin, ymin, xmax, ymax]`` in world units; ``n`` may be 0.
    ids : array_like, shape (n,), int64, optional
        Element id of each row (as returned by ``BroadPhase.items()``). When
        given, ``highlight`` holds ids and ``annotate`` prints ids; otherwise
        both use row numbers.
    color : matplotlib colour
        Edge colour; the face is the same colour at ``alpha``.
    alpha : float
        Face opacity in [0, 1] (edges stay opaque).
    fill : bool
        ``False`` draws outlines only.
    linewidth : float
        Edge width in points (highlighted boxes get twice this).
    linestyle : str
        Edge style, e.g. ``"solid"`` or ``"--"``.
    highlight : array_like, optional
        Boxes to draw in ``highlight_color``: a boolean mask of shape ``(n,)``,
        or ids (row numbers when ``ids`` is None).
    highlight_color : matplotlib colour
    label, highlight_label : str, optional
        Legend labels of the two series.
    annotate : bool
        Write each box's id (or row number) at its centre.
    max_labels : int
        ``annotate=True`` with more boxes than this raises ``ValueError``.
    zorder : float
        Layer of the plain boxes; highlighted ones go 0.5 above, labels 3 above.

    Returns
    -------
    list of matplotlib.artist.Artist
        The PolyCollection of plain boxes (if any), the PolyCollection of
        highlighted boxes (if any), then one Text per label.

    Raises
    ------
    ValueError
        Bad boxes (naming the row), ``ids`` of the wrong shape or repeated, a
        highlighted id that is not drawn, or too many boxes to annotate.

    Notes
    -----
    O(n) time and memory: one ``(n, 4, 2)`` array of corners per collection.
    A zero-area box (a point) has no visible outline.
    """
    b = as_boxes(boxes)
    ids = _check_ids(ids, len(b))
    hot = _select_mask(len(b), ids, highlight, what="highlight")
    if annotate and len(b) > max_labels:
        raise ValueError(f"annotate=True writes one label per box: {len(b)} boxes is more than max_labels={max_labels}")
    artists = []
    series = ((~hot, color, linewidth, label, zorder), (hot, highlight_color, 2 * linewidth, highlight_label, zorder + 0.5))
    for mask, col, lw, lab, z in series:
        if mask.any():
            face = to_rgba(col, alpha) if fill else "none"
            artists.append(
                _add_rects(ax, b[mask], facecolor=face, edgecolor=to_rgba(col), linewidth=lw,
                           linestyle=linestyle, label=lab, zorder=z)
            )
    if annotate:
        artists += _annotate(ax, b, ids, zorder + 3)
    return artists


def _annotate(ax, boxes: np.ndarray, ids: np.ndarray | None, zorder: float) -> list:
    """One Text per box with its id (or row number) at the box centre."""
    names = ids if ids is not None else np.arange(len(boxes))
    centres = 0.5 * (boxes[:, :2] + boxes[:, 2:])
    return [
        ax.text(x, y, str(k), ha="center", va="center", fontsize="x-small", zorder=zorder)
        for (x, y), k in zip(centres.tolist(), names.tolist())
    ]


def draw_pairs(
    ax,
    boxes,
    pairs,
    *,
    ids=None,
    color=PAIR_COLOR,
    linewidth: float = 1.5,
    lines: bool = True,
    mark_boxes: bool = False,
    label: str | None = "overlapping pair",
    box_label: str | None = "box in a pair",
    zorder: float = 4.0,
) -> list:
    """Show overlapping pairs: a segment between the centres of each pair, and/or their outlines.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    boxes : array_like, shape (n, 4), float64
        All boxes, ``[xmin, ymin, xmax, ymax]`` in world units.
    pairs : array_like, shape (k, 2), int64
        Element ids (row numbers when ``ids`` is None) of the pairs, e.g.
        ``BroadPhase.pairs()``; ``k`` may be 0.
    ids : array_like, shape (n,), int64, optional
        Element id of each row of ``boxes``.
    color : matplotlib colour
    linewidth : float
        Width of the segments in points (outlines get ``1.5 *`` this).
    lines : bool
        Draw one segment per pair (a single LineCollection).
    mark_boxes : bool
        Outline every box that has at least one pair (a single PolyCollection).
    label, box_label : str, optional
        Legend labels of the segments and of the outlines.
    zorder : float
        Layer of the segments; outlines go 0.5 below.

    Returns
    -------
    list of matplotlib.artist.Artist
        The LineCollection (if ``lines`` and ``k > 0``), then the outline
        PolyCollection (if ``mark_boxes`` and ``k > 0``).

    Raises
    ------
    ValueError
        Bad boxes, ``pairs`` not of shape ``(k, 2)``, or a pair naming an id
        that is not among ``ids`` (a row number out of range).

    Notes
    -----
    O(n + k log n): ids are matched to rows by one sort and a binary search.
    """
    b = as_boxes(boxes)
    ids = _check_ids(ids, len(b))
    p = np.asarray(pairs, dtype=np.int64)
    if p.size == 0:
        p = p.reshape(0, 2)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"pairs must have shape (k, 2), got {p.shape}")
    rows = _rows_of(p, ids, len(b), what="pair id" if ids is not None else "pair row").reshape(-1, 2)
    artists = []
    if len(rows) == 0:
        return artists
    if lines:
        centres = 0.5 * (b[:, :2] + b[:, 2:])
        segs = LineCollection(centres[rows], colors=to_rgba(color), linewidths=linewidth, label=label, zorder=zorder)
        ax.add_collection(segs, autolim=True)
        ax.autoscale_view()
        artists.append(segs)
    if mark_boxes:
        artists += draw_boxes(ax, b[np.unique(rows)], color=color, fill=False, linewidth=1.5 * linewidth,
                              label=box_label, zorder=zorder - 0.5)
    return artists


def region_label(depths) -> str:
    """Legend label for regions: ``"world"`` for a lone depth-0 region, else by depth."""
    d = np.asarray(depths)
    return "world" if d.shape == (1,) and d[0] == 0 else "region (colour = depth)"


def draw_regions(
    ax,
    structure_or_regions,
    *,
    color=None,
    cmap=REGION_CMAP,
    max_depth: int | None = None,
    linewidth: float | None = None,
    linestyle="solid",
    alpha: float = 1.0,
    label: str | None = "auto",
    zorder: float = 1.0,
) -> list:
    """Draw the outlines of a structure's cells or nodes, coloured by depth.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    structure_or_regions : BroadPhase or tuple
        A structure (its ``regions()`` is called) or the pair ``(rects,
        depths)``: ``(m, 4)`` float64 rectangles in world units and ``(m,)``
        int64 depths, 0 for the root or a grid's cells.
    color : matplotlib colour, optional
        One colour for every outline; ``None`` colours by depth with ``cmap``.
    cmap : str or matplotlib.colors.Colormap
        Depth 0 takes the start of the map, ``max_depth`` 80 % of the way along.
    max_depth : int, optional
        Depth given the last colour; default the deepest region drawn. Pass
        the same value to several calls (e.g. the frames of a Stepper) so that
        a depth keeps its colour.
    linewidth : float, optional
        Width in points; ``None`` thins with depth: ``max(0.5, 2 - 0.5 * depth)``.
    linestyle : str
        E.g. ``"solid"``, or ``"--"`` for ghosts of freed regions.
    alpha : float
        Outline opacity in [0, 1].
    label : str or None
        Legend label; ``"auto"`` uses :func:`region_label`.
    zorder : float

    Returns
    -------
    list of matplotlib.artist.Artist
        One PolyCollection with unfilled outlines, or nothing if ``m == 0``.

    Raises
    ------
    TypeError
        Neither a structure nor a 2-tuple.
    ValueError
        Bad rectangles (naming the row), depths of the wrong shape or negative.

    Notes
    -----
    O(m) time and memory.
    """
    rects, depths = _as_regions(structure_or_regions)
    if len(rects) == 0:
        return []
    if color is None:
        top = max(int(depths.max()) if max_depth is None else int(max_depth), 1)
        cm = colormaps[cmap] if isinstance(cmap, str) else cmap
        edges = cm(REGION_CMAP_TOP * np.minimum(depths, top) / top)
        edges[:, 3] = alpha
    else:
        edges = to_rgba(color, alpha)
    widths = np.maximum(0.5, 2.0 - 0.5 * depths) if linewidth is None else linewidth
    if label == "auto":
        label = region_label(depths)
    coll = _add_rects(ax, rects, facecolor="none", edgecolor=edges, linewidth=widths,
                      linestyle=linestyle, label=label, zorder=zorder)
    return [coll]


# --------------------------------------------------------------------------
# Axes: limits, labels, legend, frame budgets
# --------------------------------------------------------------------------

def array_row(ax, y, name, values, changed=(), free=(), *, x0: float = 0.0) -> None:
    """Draw ``values`` as a row of unit cells at height ``y``, one labelled cell per entry.

    What the step-through views of lessons 02 and 05 show beside their
    pictures: entry ``i`` is the cell ``[x0 + i, x0 + i + 1] x [y, y + 1]``
    holding ``int(values[i])``, with ``name`` written left of the row.
    Entries whose index is in ``changed`` are filled orange, those in
    ``free`` (holes of a free list) light grey, the rest white.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Data coordinates: one unit per entry (use ``set_aspect("equal")``).
    y : float
        Bottom of the row.
    name : str
        Row label (e.g. an array's name).
    values : sequence of int
    changed, free : collections of int
        Indices to highlight.
    x0 : float
        Left edge of entry 0.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> array_row(ax, 0, "head", [3, -1, 0], changed={0})
    >>> len(ax.patches)
    3
    """
    from matplotlib.patches import Rectangle

    ax.text(x0 - 0.2, y + 0.5, name, ha="right", va="center", fontsize="small", family="monospace")
    for i, v in enumerate(values):
        face = style.HIGHLIGHT_COLOR if i in changed else ("0.85" if i in free else "white")
        ax.add_patch(Rectangle((x0 + i, y), 1, 1, facecolor=face, edgecolor="0.3", linewidth=0.8))
        ax.text(x0 + i + 0.5, y + 0.5, str(int(v)), ha="center", va="center", fontsize="small")

def set_world(ax, world, *, pad: float = 0.03):
    """Set the axes limits to a world box plus a margin.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    world : array_like, shape (4,)
        ``[xmin, ymin, xmax, ymax]`` in world units.
    pad : float
        Margin on every side as a fraction of the larger of width and height
        (the same number of world units on both axes).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Raises
    ------
    ValueError
        A bad world box or a negative ``pad``.
    """
    w = as_box(world, name="world")
    if not pad >= 0:
        raise ValueError(f"pad must be >= 0, got {pad}")
    extent = max(w[2] - w[0], w[3] - w[1])
    margin = pad * extent if extent > 0 else 0.5
    ax.set_xlim(w[0] - margin, w[2] + margin)
    ax.set_ylim(w[1] - margin, w[3] + margin)
    return ax


def add_legend(ax, **kwargs):
    """Add a legend beside ``ax`` if it has more than one labelled series.

    Repeated labels are shown once. Keyword arguments go to ``ax.legend``.

    Returns
    -------
    matplotlib.legend.Legend or None
    """
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    if len(unique) < 2:
        return None
    options = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small")
    options.update(kwargs)
    return ax.legend(list(unique.values()), list(unique.keys()), **options)


def style_world_axes(ax, title: str | None = None, *, legend: bool = True):
    """Equal aspect, world-unit axis labels, a title and (if useful) a legend.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    title : str, optional
    legend : bool
        Call :func:`add_legend`.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    if title is not None:
        ax.set_title(title)
    if legend:
        add_legend(ax)
    return ax


def frame_budget_lines(ax, *, color="0.35", linewidth: float = 1.0) -> list:
    """Draw the 60 fps and 30 fps frame budgets on a timing plot.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A plot whose y axis is a time in **milliseconds**.
    color : matplotlib colour
    linewidth : float

    Returns
    -------
    list of matplotlib.lines.Line2D
        Horizontal lines at 16.7 ms (dashed, "60 fps budget (16 ms)") and
        33.3 ms (dotted, "30 fps budget (33 ms)"). They are included in the
        y autoscaling, so they stay visible above fast timings.
    """
    styles = ("--", ":")
    return [
        ax.axhline(ms, color=color, linestyle=style, linewidth=linewidth, label=label, zorder=1.5)
        for (ms, label), style in zip(FRAME_BUDGETS_MS, styles)
    ]


# --------------------------------------------------------------------------
# One-call pictures
# --------------------------------------------------------------------------
def covering_box(*box_sets) -> np.ndarray | None:
    """The smallest box covering every non-empty ``(m, 4)`` set, or None."""
    rows = [np.asarray(b, dtype=np.float64).reshape(-1, 4) for b in box_sets if b is not None]
    rows = [r for r in rows if len(r)]
    if not rows:
        return None
    a = np.concatenate(rows)
    return np.array([a[:, 0].min(), a[:, 1].min(), a[:, 2].max(), a[:, 3].max()])


def draw_scene(
    ax,
    ids,
    boxes,
    *,
    pairs=None,
    regions=None,
    highlight=None,
    world=None,
    title: str | None = None,
    annotate="auto",
    legend: bool = True,
):
    """Draw regions, boxes and pairs given as arrays, then label the axes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ids : array_like, shape (n,), int64, or None
        Element ids of the rows of ``boxes`` (None: row numbers).
    boxes : array_like, shape (n, 4), float64
        World units.
    pairs : array_like, shape (k, 2), int64, optional
        Overlapping pairs of ids; drawn as segments and outlines.
    regions : tuple of (m, 4) float64 and (m,) int64, optional
        Cells or nodes, as returned by ``BroadPhase.regions()``.
    highlight : array_like, optional
        Ids (or a boolean mask) of boxes to draw in the highlight colour.
    world : array_like, shape (4,), optional
        The view covers this box, every box and every region.
    title : str, optional
        Default: the counts of boxes, pairs and regions.
    annotate : bool or "auto"
        Write ids at box centres; ``"auto"``: when ``n <= AUTO_LABEL_MAX``.
    legend : bool

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    b = as_boxes(boxes)
    if annotate == "auto":
        annotate = len(b) <= AUTO_LABEL_MAX
    parts = [plural(len(b), "box", "boxes")]
    if regions is not None:
        draw_regions(ax, regions)
        parts.append(plural(len(regions[0]), "region"))
    draw_boxes(ax, b, ids=ids, highlight=highlight, label="box", highlight_label="highlighted", annotate=annotate)
    if pairs is not None:
        draw_pairs(ax, b, pairs, ids=ids, mark_boxes=True)
        parts.insert(1, plural(len(np.asarray(pairs).reshape(-1, 2)), "pair"))
    view = covering_box(None if world is None else as_box(world, name="world"), b,
                         None if regions is None else regions[0])
    if view is not None:
        set_world(ax, view)
    return style_world_axes(ax, ", ".join(parts) if title is None else title, legend=legend)


def draw_structure(ax, bp, *, pairs: bool = True, regions: bool = True, highlight=None,
                   title: str | None = None, annotate="auto"):
    """The one-call picture of a structure: its regions, its boxes and their pairs.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    bp : lessons_lib.base.BroadPhase
        Any structure; read through ``items()``, ``pairs()`` and ``regions()``.
    pairs : bool
        Draw the overlapping pairs (segments between centres, outlined boxes).
    regions : bool
        Draw the cells or nodes, coloured by depth.
    highlight : array_like, optional
        Ids (or a boolean mask over ``bp.items()`` rows) to highlight.
    title : str, optional
        Default: ``"<Class>: n boxes, k pairs, m regions"``.
    annotate : bool or "auto"
        Write ids at box centres (``"auto"``: for at most ``AUTO_LABEL_MAX`` boxes).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``, with equal aspect, axis labels in world units, a title and a
        legend when more than one series is drawn.

    Notes
    -----
    Calls ``bp.pairs()``: O(cost of the structure's pair search), plus O(n + m)
    drawing. The view covers ``bp.world``, every box and every region.
    """
    ids, boxes = bp.items()
    p = bp.pairs() if pairs else None
    r = bp.regions() if regions else None
    if title is None:
        counts = [plural(len(ids), "box", "boxes")]
        if p is not None:
            counts.append(plural(len(p), "pair"))
        if r is not None:
            counts.append(plural(len(r[0]), "region"))
        title = f"{type(bp).__name__}: " + ", ".join(counts)
    return draw_scene(ax, ids, boxes, pairs=p, regions=r, highlight=highlight, world=bp.world,
                      title=title, annotate=annotate)

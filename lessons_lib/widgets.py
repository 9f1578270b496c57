"""``Stepper``: step through recorded states of a structure, forwards and back.

A lesson shows how a structure changes one operation at a time::

    from lessons_lib.widgets import Stepper

    ops = [("insert", 0, [10, 10, 30, 30]), ("insert", 1, [20, 20, 40, 40]),
           ("update", 0, [60, 60, 80, 80]), ("remove", 1), ("cleanup",)]
    stepper = Stepper.from_operations("quadtree", ops)
    stepper                       # the widget: Play, Prev, Next, a slider, the picture
    stepper.show_steps([0, 2, 4]) # static small multiples, visible without a kernel

How it works
------------
:meth:`Stepper.from_operations` applies the operations once, recording a
:class:`Snapshot` (copies of ids, boxes, regions and pairs) after each one.
Stepping never re-runs an operation: going back re-draws an earlier snapshot,
so it shows exactly what was there. Each step is rendered once to a PNG
(matplotlib's Agg canvas on a :class:`matplotlib.figure.Figure`, never
pyplot, so nothing leaks into the notebook's figures) and cached; the widget
shows it in an ``ipywidgets.Image``.

The generic :class:`Stepper` takes any list of frames and a function
``draw(ax, frame, prev_frame_or_None)``, for lessons whose states are not a
``BroadPhase`` (e.g. the steps of a sort or of a split).

ipywidgets is imported only when the widget is first built, so this module
imports (and its non-widget API runs) without a kernel or a display.
"""
from __future__ import annotations

import functools
import io
import math
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import style, viz
from .base import BroadPhase, resolve_structure
from .geometry import as_box

__all__ = ["OPERATIONS", "Snapshot", "StaticFigure", "Stepper", "draw_snapshot", "figure_png", "snapshot_changes"]

#: Operation names accepted by :meth:`Stepper.from_operations` -> their arguments after the name.
OPERATIONS = {
    "insert": ("id", "box"),
    "remove": ("id",),
    "update": ("id", "box"),
    "move": ("id", "box"),
    "cleanup": (),
    "clear": (),
}

NEW_REGION_COLOR = style.NEW_COLOR
FREED_REGION_COLOR = "0.45"
GHOST_COLOR = "0.45"


# --------------------------------------------------------------------------
# Rendering a Figure without pyplot
# --------------------------------------------------------------------------
def figure_png(fig: Figure) -> bytes:
    """Render ``fig`` to PNG bytes with the Agg canvas, at the figure's own dpi.

    The picture is stored with a palette of at most 256 colours (a diagram of
    boxes and lines has far fewer), which makes the PNG two to three times
    smaller than full colour: notebooks store every still and widget frame.
    The output is deterministic: the same figure drawn the same way gives the
    same bytes (the PNG holds no timestamp).
    """
    from PIL import Image

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buf = io.BytesIO()
    image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(buf, format="png", optimize=True)
    return buf.getvalue()


class StaticFigure(Figure):
    """A Figure that shows itself as a PNG in IPython even when pyplot was never imported.

    What :meth:`Stepper.figure` and :meth:`Stepper.show_steps` return, so that
    a notebook cell ending with them stores a PNG output (readable on the web
    without a kernel) without registering the figure with pyplot.
    """

    def _repr_png_(self) -> bytes:
        return figure_png(self)


# --------------------------------------------------------------------------
# Snapshots of a structure
# --------------------------------------------------------------------------
def _frozen(a) -> np.ndarray:
    """A read-only copy of ``a``."""
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


def _fmt_box(box) -> str:
    return "[" + ", ".join(f"{v:g}" for v in np.asarray(box, dtype=float).tolist()) + "]"


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The recorded state of a structure after one operation.

    Attributes
    ----------
    step : int
        0 for the initial state, ``j`` after the ``j``-th operation.
    op : tuple or None
        The operation as given, e.g. ``("insert", 7, box)``; None for step 0.
    ids : numpy.ndarray, shape (n,), int64
        Stored ids, ascending (``BroadPhase.items()``).
    boxes : numpy.ndarray, shape (n, 4), float64
        Their boxes, world units.
    rects : numpy.ndarray, shape (m, 4), float64
        ``BroadPhase.regions()`` rectangles.
    depths : numpy.ndarray, shape (m,), int64
        Their depths.
    pairs : numpy.ndarray, shape (k, 2), int64
        ``BroadPhase.pairs()``.
    n : int
        ``len(structure)``.
    world : numpy.ndarray, shape (4,), float64
        The structure's world box.

    All arrays are read-only copies: a snapshot never changes after it is taken.
    """

    step: int
    op: tuple | None
    ids: np.ndarray
    boxes: np.ndarray
    rects: np.ndarray
    depths: np.ndarray
    pairs: np.ndarray
    n: int
    world: np.ndarray

    @classmethod
    def record(cls, bp: BroadPhase, step: int, op: tuple | None = None) -> "Snapshot":
        """Copy the state of ``bp`` (O(n + m + cost of ``bp.pairs()``))."""
        ids, boxes = bp.items()
        rects, depths = bp.regions()
        return cls(step, op, _frozen(ids), _frozen(boxes), _frozen(rects), _frozen(depths),
                   _frozen(bp.pairs()), len(bp), _frozen(bp.world))

    @property
    def action(self) -> str:
        """The operation in short: ``"insert id 7"``, ``"cleanup"``, ``"initial state"``."""
        if self.op is None:
            return "initial state"
        verb, *args = self.op
        return f"{verb} id {args[0]}" if args else verb

    @property
    def action_detail(self) -> str:
        """The operation with its box: ``"insert id 7 at [10, 10, 30, 30]"``."""
        if self.op is None or len(self.op) < 3:
            return self.action
        where = " to " if self.op[0] in ("update", "move") else " at "
        return self.action + where + _fmt_box(self.op[2])

    @property
    def counts(self) -> str:
        """``"5 boxes, 2 pairs, 9 regions"``."""
        return ", ".join([viz.plural(self.n, "box", "boxes"), viz.plural(len(self.pairs), "pair"),
                          viz.plural(len(self.rects), "region")])


# --------------------------------------------------------------------------
# What changed between two snapshots
# --------------------------------------------------------------------------
def _rows_missing(rects, depths, other_rects, other_depths) -> np.ndarray:
    """Mask over ``rects``: the (rect, depth) rows that do not appear in the other set."""
    seen = set(map(tuple, np.column_stack([other_rects, other_depths]).tolist()))
    rows = np.column_stack([rects, depths]).tolist()
    return np.array([tuple(r) not in seen for r in rows], dtype=bool)


def snapshot_changes(prev: Snapshot | None, snap: Snapshot) -> SimpleNamespace:
    """Boxes and regions that appeared, moved or went away between ``prev`` and ``snap``.

    Returns a namespace with ``hot`` (mask over ``snap.ids``: inserted or
    moved), ``ghosts`` (``(g, 4)`` old boxes of removed or moved elements),
    ``new_regions`` (mask over ``snap.rects``) and ``freed`` (``(rects,
    depths)`` of regions that disappeared).
    """
    if prev is None:
        return SimpleNamespace(hot=np.zeros(len(snap.ids), bool), ghosts=np.empty((0, 4)),
                               new_regions=np.zeros(len(snap.rects), bool),
                               freed=(np.empty((0, 4)), np.empty(0, np.int64)))
    _, i_prev, i_cur = np.intersect1d(prev.ids, snap.ids, assume_unique=True, return_indices=True)
    moved = (prev.boxes[i_prev] != snap.boxes[i_cur]).any(axis=1)
    hot = ~np.isin(snap.ids, prev.ids)
    hot[i_cur[moved]] = True
    if snap.op is not None and snap.op[0] in ("insert", "update", "move"):
        hot |= snap.ids == int(snap.op[1])
    removed = ~np.isin(prev.ids, snap.ids)
    ghosts = np.concatenate([prev.boxes[removed], prev.boxes[i_prev[moved]]])
    freed = _rows_missing(prev.rects, prev.depths, snap.rects, snap.depths)
    return SimpleNamespace(hot=hot, ghosts=ghosts,
                           new_regions=_rows_missing(snap.rects, snap.depths, prev.rects, prev.depths),
                           freed=(prev.rects[freed], prev.depths[freed]))


def draw_snapshot(ax, snap: Snapshot, prev: Snapshot | None, *, view=None, max_depth=None,
                  last_step: int | None = None, annotate="auto"):
    """Draw one recorded state, emphasising what changed since ``prev``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    snap : Snapshot
        The state to draw.
    prev : Snapshot or None
        The state before it; None draws ``snap`` without change marks.
    view : array_like, shape (4,), optional
        World box to show (keep it fixed across steps so the picture does not
        jump); default ``snap.world`` and everything in ``snap``.
    max_depth : int, optional
        Depth given the last region colour (keep it fixed across steps).
    last_step : int, optional
        The ``N`` of ``"step i/N"`` in the title.
    annotate : bool or "auto"
        Write ids at box centres (``"auto"``: up to ``viz.AUTO_LABEL_MAX`` boxes).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Notes
    -----
    Layers: regions by depth; new regions thick magenta; freed regions dashed
    grey; ghosts (old places of removed or moved boxes) dashed grey; boxes,
    with inserted or moved ones in the highlight colour; pair segments.
    """
    ch = snapshot_changes(prev, snap)
    keep = ~ch.new_regions
    viz.draw_regions(ax, (snap.rects[keep], snap.depths[keep]), max_depth=max_depth,
                     label=viz.region_label(snap.depths))
    viz.draw_regions(ax, (snap.rects[ch.new_regions], snap.depths[ch.new_regions]), color=NEW_REGION_COLOR,
                     linewidth=2.5, label="new region", zorder=1.4)
    viz.draw_regions(ax, ch.freed, color=FREED_REGION_COLOR, linewidth=1.5, linestyle="--", alpha=0.8,
                     label="freed region", zorder=1.2)
    viz.draw_boxes(ax, ch.ghosts, color=GHOST_COLOR, alpha=0.1, linestyle="--", label="old place", zorder=1.8)
    if annotate == "auto":
        annotate = len(snap.ids) <= viz.AUTO_LABEL_MAX
    viz.draw_boxes(ax, snap.boxes, ids=snap.ids, highlight=ch.hot, label="box",
                   highlight_label="inserted / moved", annotate=annotate)
    viz.draw_pairs(ax, snap.boxes, snap.pairs, ids=snap.ids, mark_boxes=True)
    viz.set_world(ax, viz.covering_box(snap.world, snap.boxes, snap.rects) if view is None else view)
    of = "" if last_step is None else f"/{last_step}"
    return viz.style_world_axes(ax, f"step {snap.step}{of}: {snap.action}\n{snap.counts}")


# --------------------------------------------------------------------------
# Applying operations
# --------------------------------------------------------------------------
def _new_or_given(structure, world) -> BroadPhase:
    """A BroadPhase instance as given, or a new empty one of a registered name or class."""
    if isinstance(structure, BroadPhase):
        return structure
    return resolve_structure(structure)(world=world)


def _parse_op(op, step: int) -> tuple:
    """Check an operation's name and arity; return it as a tuple (a bare name becomes ``(name,)``)."""
    if isinstance(op, str):
        op = (op,)
    if not isinstance(op, (tuple, list)) or len(op) == 0:
        raise ValueError(f"step {step}: an operation is a tuple like ('insert', id, box), got {op!r}")
    verb = op[0]
    if verb not in OPERATIONS:
        raise ValueError(f"step {step}: unknown operation {verb!r}; expected one of {', '.join(OPERATIONS)}")
    params = OPERATIONS[verb]
    if len(op) - 1 != len(params):
        usage = ", ".join((repr(verb),) + params)
        raise ValueError(f"step {step}: {verb!r} takes {len(params)} argument(s), as ({usage}); got {tuple(op)!r}")
    return tuple(op)


def _apply(bp: BroadPhase, op: tuple, step: int) -> tuple:
    """Apply ``op`` to ``bp``; re-raise its error naming the step. Returns the op as recorded."""
    verb, *args = op
    method = "update" if verb == "move" else verb
    try:
        getattr(bp, method)(*args)
    except (KeyError, ValueError, TypeError) as exc:
        msg = exc.args[0] if exc.args else repr(exc)
        where = f"step {step} ({verb} id {args[0]!r})" if args else f"step {step} ({verb})"
        raise type(exc)(f"{where}: {msg}") from exc
    if len(args) == 2:  # record the validated float64 box, not the caller's (mutable) object
        return (verb, int(args[0]), as_box(args[1]))
    return (verb, *(int(a) for a in args))


# --------------------------------------------------------------------------
# The stepper
# --------------------------------------------------------------------------
class Stepper:
    """Step through a list of recorded frames: by index, as images, or with a widget.

    Parameters
    ----------
    frames : sequence
        Snapshots of any kind, in order; at least one. Index 0 is the first.
    draw : callable
        ``draw(ax, frame, prev_frame_or_None)`` draws one frame on a
        matplotlib Axes (``prev`` is the frame before, None for frame 0). It
        should give the Axes a title, axis labels and a legend.
    title : str, optional
        Figure title above every step (``suptitle``).
    figsize : tuple of 2 floats
        Size of one step's figure in inches (the PNG is ``figsize * dpi`` pixels).
    labels : sequence of str, optional
        One line per frame shown above the widget's image; default
        ``"step i/N"`` with ``N = len(frames) - 1``.
    dpi : float
        Resolution of the PNGs, pixels per inch.
    interval : int
        Milliseconds between steps when the widget's Play button runs.
    key_steps : sequence of int, optional
        The steps that tell the story (the start, the step that matters, the end): the
        still a notebook stores beside the widget shows them side by side, so a reader
        without a kernel sees the story. Default: the first, middle and last steps.
    still_ncols : int, optional
        Panels per row in the still (default: 2 for two or four key steps, else at most 3).
    still_panel_size : tuple of 2 floats
        Inches per panel in the still; a frame that is a wide row of array cells needs
        wider panels and fewer per row than a picture of the world.

    Raises
    ------
    ValueError
        No frames, wrong number of labels, bad ``figsize``.
    TypeError
        ``draw`` is not callable.

    Notes
    -----
    Memory: the frames plus one cached PNG (tens of kB) per step shown.
    Time: the first view of a step costs one matplotlib render (~0.1 s);
    later views of it are free.
    """

    def __init__(self, frames, draw, *, title=None, figsize=(6, 4.5), labels=None, dpi=100, interval=800,
                 key_steps=None, still_ncols=None, still_panel_size=(3.6, 3.9)):
        self._frames = list(frames)
        n = len(self._frames)
        if n == 0:
            raise ValueError("Stepper needs at least one frame")
        if not callable(draw):
            raise TypeError(f"draw must be callable as draw(ax, frame, prev), got {type(draw).__name__}")
        if len(figsize) != 2 or not all(v > 0 for v in figsize):
            raise ValueError(f"figsize must be (width, height) in inches, both > 0, got {figsize!r}")
        labels = [f"step {i}/{n - 1}" for i in range(n)] if labels is None else [str(s) for s in labels]
        if len(labels) != n:
            raise ValueError(f"labels must have one entry per frame ({n}), got {len(labels)}")
        self._draw = draw
        self._labels = labels
        self.title = title
        self.figsize = tuple(figsize)
        self.dpi = dpi
        self.interval = int(interval)
        self._index = 0
        self._png_cache: dict[int, bytes] = {}
        self._ui = None
        self._still: bytes | None = None
        self.key_steps = None if key_steps is None else [self._check_index(i) for i in key_steps]
        if still_ncols is not None and (isinstance(still_ncols, bool) or int(still_ncols) < 1):
            raise ValueError(f"still_ncols must be >= 1, got {still_ncols}")
        if len(still_panel_size) != 2 or not all(v > 0 for v in still_panel_size):
            raise ValueError(f"still_panel_size must be (width, height) in inches, both > 0, got {still_panel_size!r}")
        self.still_ncols = None if still_ncols is None else int(still_ncols)
        self.still_panel_size = (float(still_panel_size[0]), float(still_panel_size[1]))

    # -- building from operations ----------------------------------------
    @classmethod
    def from_operations(cls, structure, operations, *, world=None, title=None, annotate="auto", **kwargs):
        """Apply operations to a structure one by one, recording a snapshot after each.

        Parameters
        ----------
        structure : BroadPhase or str
            The structure to drive (it is modified in place and left in the
            final state), or a name in :data:`lessons_lib.STRUCTURES` to start
            from an empty one.
        operations : sequence of tuple
            Each one of ``("insert", id, box)``, ``("remove", id)``,
            ``("update", id, box)`` (alias ``"move"``), ``("cleanup",)``,
            ``("clear",)``; boxes are ``[xmin, ymin, xmax, ymax]`` in world units.
        world : array_like, shape (4,), optional
            World of a structure created from a name (default: the article's 800 x 600).
        title : str, optional
            Figure title; default ``"<Class>: <k> operations"``.
        annotate : bool or "auto"
            Write ids on the boxes (``"auto"``: up to ``viz.AUTO_LABEL_MAX`` boxes).
        **kwargs
            Passed to :class:`Stepper` (``figsize``, ``dpi``, ``interval``).

        Returns
        -------
        Stepper
            ``len(operations) + 1`` frames of :class:`Snapshot`; frame 0 is the
            state before the first operation.

        Raises
        ------
        ValueError
            A malformed or unknown operation, a duplicate id on insert, a bad
            box. The message starts with ``"step j"`` (``j`` = 1 for
            ``operations[0]``).
        KeyError
            Remove or update of an id that is not stored (again ``"step j: ..."``),
            or an unknown structure name.
        TypeError
            A non-integer id.

        Notes
        -----
        Each step costs the operation plus one ``pairs()`` call and a copy of
        the ids, boxes and regions: O(steps * (n + m + k)) memory in total, so
        keep step-through scenes small (tens of boxes, tens of steps).
        """
        bp = _new_or_given(structure, world)
        frames = [Snapshot.record(bp, 0)]
        for step, op in enumerate(operations, start=1):
            recorded = _apply(bp, _parse_op(op, step), step)
            frames.append(Snapshot.record(bp, step, recorded))
        last = len(frames) - 1
        view = viz.covering_box(*[f.world for f in frames], *[f.boxes for f in frames], *[f.rects for f in frames])
        max_depth = max(int(f.depths.max()) if len(f.depths) else 0 for f in frames)
        draw = functools.partial(draw_snapshot, view=view, max_depth=max_depth, last_step=last, annotate=annotate)
        labels = [f"step {f.step}/{last}: {f.action_detail} \u2014 {f.counts}" for f in frames]
        if title is None:
            title = f"{type(bp).__name__}: {viz.plural(last, 'operation')}"
        return cls(frames, draw, title=title, labels=labels, **kwargs)

    # -- navigation --------------------------------------------------------
    def __len__(self) -> int:
        return len(self._frames)

    @property
    def n_steps(self) -> int:
        """Number of frames (initial state included); valid indices are ``0 .. n_steps - 1``."""
        return len(self._frames)

    @property
    def index(self) -> int:
        """The current step; assigning to it is :meth:`goto`."""
        return self._index

    @index.setter
    def index(self, i: int) -> None:
        self.goto(i)

    def _check_index(self, i) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"step index must be an integer, got {i!r}")
        n = len(self._frames)
        j = int(i) + n if i < 0 else int(i)
        if not 0 <= j < n:
            raise IndexError(f"step {int(i)} is out of range: steps are 0 .. {n - 1}")
        return j

    def goto(self, i: int) -> int:
        """Make step ``i`` current (negative counts from the end) and return it.

        Raises ``IndexError`` outside ``-n_steps .. n_steps - 1``. Updates the
        widget if it has been built.
        """
        i = self._check_index(i)
        self._index = i
        if self._ui is not None:
            if self._ui.slider.value != i:
                self._ui.slider.value = i  # its observer calls goto(i) again, which refreshes
            else:
                self._refresh()
        return i

    def next(self) -> int:
        """Go one step forward (stays on the last step); return the new index."""
        return self.goto(min(self._index + 1, len(self) - 1))

    def prev(self) -> int:
        """Go one step back (stays on step 0); return the new index."""
        return self.goto(max(self._index - 1, 0))

    def frame(self, i: int | None = None):
        """The recorded frame of step ``i`` (default: the current step)."""
        return self._frames[self._index if i is None else self._check_index(i)]

    def label(self, i: int | None = None) -> str:
        """The one-line description of step ``i`` (default: the current step)."""
        return self._labels[self._index if i is None else self._check_index(i)]

    # -- pictures ----------------------------------------------------------
    def _draw_step(self, ax, i: int) -> None:
        prev = self._frames[i - 1] if i > 0 else None
        self._draw(ax, self._frames[i], prev)

    def figure(self, i: int | None = None) -> Figure:
        """A new Figure (not registered with pyplot) showing step ``i`` (default: current)."""
        i = self._index if i is None else self._check_index(i)
        fig = StaticFigure(figsize=self.figsize, dpi=self.dpi, layout="constrained")
        self._draw_step(fig.add_subplot(), i)
        if self.title:
            fig.suptitle(self.title)
        return fig

    def png(self, i: int | None = None) -> bytes:
        """PNG bytes of step ``i`` (default: current), rendered once and cached."""
        i = self._index if i is None else self._check_index(i)
        if i not in self._png_cache:
            self._png_cache[i] = figure_png(self.figure(i))
        return self._png_cache[i]

    def show_steps(self, indices=None, ncols: int = 3, *, panel_size=(3.6, 3.2)) -> Figure:
        """Small multiples of several steps in one Figure, for static notebook output.

        Parameters
        ----------
        indices : sequence of int, optional
            Steps to show, in order (default: all).
        ncols : int
            Panels per row.
        panel_size : tuple of 2 floats
            Inches per panel.

        Returns
        -------
        matplotlib.figure.Figure
            Not registered with pyplot; it displays as a PNG in IPython (so the
            output is stored in the notebook) and one shared legend sits below
            the panels.

        Raises
        ------
        IndexError, TypeError
            A step out of range or not an integer.
        ValueError
            No steps, or ``ncols < 1``.
        """
        steps = [self._check_index(i) for i in (range(len(self)) if indices is None else indices)]
        if not steps:
            raise ValueError("show_steps needs at least one step")
        if ncols < 1:
            raise ValueError(f"ncols must be >= 1, got {ncols}")
        ncols = min(ncols, len(steps))
        nrows = math.ceil(len(steps) / ncols)
        fig = StaticFigure(figsize=(ncols * panel_size[0], nrows * panel_size[1]), dpi=self.dpi, layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        legend_items: dict[str, object] = {}
        for ax, i in zip(axes, steps):
            self._draw_step(ax, i)
            if ax.get_legend() is not None:
                ax.get_legend().remove()
            for handle, text in zip(*ax.get_legend_handles_labels()):
                legend_items.setdefault(text, handle)
        for ax in axes[len(steps):]:
            ax.set_axis_off()
        if len(legend_items) > 1:
            fig.legend(list(legend_items.values()), list(legend_items), loc="outside lower center",
                       ncols=min(4, len(legend_items)), fontsize="small")
        if self.title:
            fig.suptitle(self.title)
        return fig

    # -- the widget --------------------------------------------------------
    @property
    def controls(self) -> SimpleNamespace | None:
        """The widget's parts (``box, play, slider, prev_button, next_button, label, image``); None before :meth:`widget`."""
        return self._ui

    def widget(self):
        """The interactive view: Play, Prev, Next, a step slider, a description and the picture.

        Built on first call (importing ipywidgets then) and reused afterwards.
        Play and the slider are linked in the browser (``jslink``); the slider,
        the buttons and :meth:`goto` all move the same current step.

        Returns
        -------
        ipywidgets.VBox
        """
        if self._ui is None:
            self._ui = self._build_ui()
        self._refresh()
        return self._ui.box

    def _build_ui(self) -> SimpleNamespace:
        import ipywidgets as w

        last = len(self) - 1
        play = w.Play(value=self._index, min=0, max=last, step=1, interval=self.interval,
                      description="Play", layout=w.Layout(width="auto"))
        slider = w.IntSlider(value=self._index, min=0, max=last, step=1, description="step")
        w.jslink((play, "value"), (slider, "value"))
        prev_button = w.Button(description="Prev", icon="step-backward", tooltip="previous step",
                               layout=w.Layout(width="auto"))
        next_button = w.Button(description="Next", icon="step-forward", tooltip="next step",
                               layout=w.Layout(width="auto"))
        label = w.Label(value=self.label())
        image = w.Image(value=self.png(), format="png")
        prev_button.on_click(lambda _button: self.prev())
        next_button.on_click(lambda _button: self.next())
        slider.observe(lambda change: self.goto(change["new"]), names="value")
        box = w.VBox([w.HBox([play, prev_button, next_button, slider]), label, image])
        box.add_class("lessons-stepper")  # a stable selector for tools/browser_test.py
        return SimpleNamespace(box=box, play=play, slider=slider, prev_button=prev_button,
                               next_button=next_button, label=label, image=image)

    def _refresh(self) -> None:
        """Show the current step in the widget."""
        ui, i = self._ui, self._index
        ui.image.value = self.png(i)
        ui.label.value = self.label(i)
        ui.prev_button.disabled = i == 0
        ui.next_button.disabled = i == len(self) - 1

    def still_steps(self) -> list[int]:
        """The steps of the still: :attr:`key_steps`, or the first, middle and last steps."""
        if self.key_steps:
            return list(self.key_steps)
        last = len(self) - 1
        return sorted({0, last // 2, last})

    def still_png(self) -> bytes:
        """PNG of :meth:`show_steps` over :meth:`still_steps`: the story without a kernel."""
        if self._still is None:
            steps = self.still_steps()
            k = len(steps)  # two or four key steps in a square-ish grid, three in a row, more in rows of three
            fig = self.show_steps(steps, ncols=self.still_ncols or (2 if k in (2, 4) else min(k, 3)),
                                  panel_size=self.still_panel_size)
            fig.set_dpi(max(self.dpi, 100))  # readable at the size a notebook shows it, whatever the frames' dpi
            self._still = figure_png(fig)
        return self._still

    def _ipython_display_(self) -> None:
        """Display the widget, with a short text and the key steps' still as fallbacks for static viewers."""
        from IPython.display import display

        box = self.widget()
        bundle = {
            "text/plain": repr(self),
            "image/png": self.still_png(),
            "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                         "model_id": box.model_id},
        }
        display(bundle, raw=True)

    def __repr__(self) -> str:
        return f"Stepper({len(self)} steps, at {self.label()})"

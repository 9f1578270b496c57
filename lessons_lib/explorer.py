"""``Explorer``: play with any structure by mouse: add, remove and query boxes.

One widget for every registered structure (:data:`lessons_lib.base.STRUCTURES`)::

    from lessons_lib.explorer import Explorer
    from lessons_lib import make_scene

    ex = Explorer("quadtree", make_scene("random", 60), capacity=4)
    ex                  # the widget: the picture, buttons, counts, the array view

In the widget
-------------
* **Boxes mode** (the default): click on empty space to add a box of
  ``new_box_size`` centred there, drag to add a box of the dragged size,
  click on a box to remove it (the top one: the highest id).
* **Query mode** (or shift-drag in boxes mode): drag a query window. The
  structure's hits are filled green (the query colour); they are checked
  against a brute-force scan of the stored boxes, and the cells or nodes the query visited are
  counted where the structure keeps such a counter (``last_query_*``
  attributes), else the regions touching the window are counted.
* **Cleanup**, **Undo** (of the last add or remove) and **Reset** (back to the
  boxes given) buttons; the structure's regions (cells or nodes, in greys:
  dark for shallow levels, light for deep ones) are drawn under the boxes,
  and under them the loose/tight grid's tight cells (dashed, shaded where
  they list a loose cell); the boxes in at least one overlapping pair are
  outlined, and the counts of boxes, pairs and regions are shown. A status
  line says what the last gesture did; for Cleanup, what it changed (nodes
  or cells before and after, ``memory_bytes()``, array entries rewritten),
  or that there was nothing to clean up. A legend under the canvas gives
  each colour its one meaning (:func:`canvas_colors`, the course style), the
  same colours and meanings as the still (:meth:`Explorer.static`).
* What the last gesture touched is drawn on top, thick: the box just added
  (or a dashed ghost of the box just removed), the boxes it overlaps, the
  query window and its hits. From :data:`CROWDED_BOXES` boxes the rest is
  drawn thin and faint and, once a gesture has touched something, faded
  under a white veil, so that a click can be seen where it landed.
* ``remove=ids`` starts from a structure that has lost some of its boxes
  (what removal leaves behind, e.g. a quadtree's empty leaves, waits for
  Cleanup).
* For the structures whose lessons are about their arrays (uniform grid,
  compact quadtree, loose/tight grid, R-trees) an **array view** beside the
  picture shows those arrays and marks the entries the last operation changed.
* A bad gesture (a drag with zero width or height, a click outside the
  world, input the structure refuses) shows the error's text and changes
  nothing.

How it works
------------
State lives in the structure (a :class:`~lessons_lib.base.BroadPhase`): every
gesture is a call of its public interface (``insert``, ``remove``, ``query``,
``cleanup``, ``items``, ``pairs``, ``regions``). The browser part is an
`anywidget <https://anywidget.dev>`_ (``explorer.js`` beside this file, an
HTML canvas): it sends each gesture as a small message, which
:meth:`Explorer.handle` turns into one of the methods :meth:`click`,
:meth:`drag`, :meth:`cleanup`, :meth:`undo`, :meth:`reset` (the same ones a
test or a notebook cell can call), then the widget's synchronised traits are
refreshed and the canvas redraws (calling those methods from a cell refreshes
the widget too). anywidget is imported only when the widget
is first built, so everything else runs without a kernel or a display.

:meth:`Explorer.static` draws the current state with matplotlib, and
displaying an Explorer also stores that PNG beside the widget, so a viewer
without a kernel (and nbval) still shows the picture.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from . import style, viz
from .base import BroadPhase, resolve_structure
from .geometry import ARTICLE_WORLD, as_box, as_boxes, boxes_overlap
from .widgets import StaticFigure, figure_png

__all__ = ["ARRAY_VIEWS", "ArrayRow", "CROWDED_BOXES", "Explorer", "GESTURE_ERRORS", "LEGEND_WORDS",
           "canvas_colors", "changed_entries", "structure_arrays", "visit_counts"]

#: Exceptions a gesture may raise that the widget shows as text (anything else is a bug and propagates).
GESTURE_ERRORS = (ValueError, KeyError, TypeError, IndexError)

#: Entries of one array shown in the array view (a window around the first change).
ARRAY_WINDOW = 16

_JS = Path(__file__).with_name("explorer.js")

#: From this many boxes the picture is *crowded*: boxes and their pair outlines are drawn
#: thin and faint, and when a gesture has touched something (a box added or removed, a
#: query) a white veil fades the rest so that what it touched, drawn on top, stands out.
CROWDED_BOXES = 300

#: The loose/tight grid's tight cells: dashed outlines, and a fill for those listing a loose cell.
TIGHT_LINE_COLOR = "#8f8f8f"
TIGHT_FILL_COLOR = "#ececec"

#: Opacity of the veil over a crowded picture (0: none, 1: hides everything under it).
VEIL_ALPHA = 0.6

#: What each mark means, in the words of both legends: the canvas's (explorer.js) and the still's.
LEGEND_WORDS = {
    "box": "box",
    "pair": "box in an overlapping pair",
    "touched": "overlaps the box just added or removed",
    "query": "query window (dashed)",
    "hit": "hit of the query",
    "new": "box just added",
    "ghost": "box just removed (dashed)",
    "tight": "tight cells (dashed; shaded: listing a loose cell)",
    "layered": " (dark: shallow, light: deep)",
    "veil": "faded: what the last action did not touch",
}

# Words for the ``last_query_<suffix>`` counters structures keep.
_COUNTER_WORDS = {
    "cells": "cells visited",
    "nodes": "nodes visited",
    "coarse": "coarse cells visited",
    "tests": "box tests",
}


# --------------------------------------------------------------------------
# What a query visited
# --------------------------------------------------------------------------
def visit_counts(bp: BroadPhase, box) -> list[tuple[str, int]]:
    """What the last ``bp.query(box)`` visited, as ``(words, count)`` rows.

    Reads the structure's own ``last_query_*`` counters where it keeps them
    (grids: cells visited; trees and lists: nodes visited; tests made).
    Without such counters, counts the rectangles of ``bp.regions()`` that
    touch ``box``: the cells or nodes a descent to the window would meet.

    Parameters
    ----------
    bp : BroadPhase
        Right after ``bp.query(box)``.
    box : array_like, shape (4,)
        The query window, world units.

    Returns
    -------
    list of (str, int)

    Raises
    ------
    ValueError
        A bad ``box``.

    Example
    -------
    >>> from lessons_lib import STRUCTURES
    >>> g = STRUCTURES["uniform_grid"].from_boxes([[0, 0, 10, 10], [50, 50, 60, 60]], cell_size=20)
    >>> _ = g.query([0, 0, 15, 15])
    >>> visit_counts(g, [0, 0, 15, 15])
    [('cells visited', 1), ('nodes visited', 1)]
    """
    q = as_box(box, name="query box")
    rows = []
    for name in sorted(vars(bp)):
        if name.startswith("last_query_") and isinstance(getattr(bp, name), (int, np.integer)):
            suffix = name[len("last_query_"):]
            rows.append((_COUNTER_WORDS.get(suffix, suffix.replace("_", " ")), int(getattr(bp, name))))
    if rows:
        return rows
    rects, _ = bp.regions()
    return [("regions touching the window", int(boxes_overlap(rects, q).sum()) if len(rects) else 0)]


# --------------------------------------------------------------------------
# The array view
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ArrayRow:
    """One array of a structure as the array view shows it.

    Attributes
    ----------
    name : str
        The array's name, as in the structure's docstring (``head``, ``nodes.first``...).
    meaning : str
        One line: what an entry holds.
    values : numpy.ndarray, shape (k,), int64
        A copy of the entries in use (capacity past the high-water mark is left out).
    """

    name: str
    meaning: str
    values: np.ndarray


def _ints(a) -> np.ndarray:
    return np.array(a, dtype=np.int64, copy=True).reshape(-1)


def _uniform_grid_arrays(g) -> list[ArrayRow]:
    used = int(g.state[0])
    return [
        ArrayRow("head", "first list node of each cell, row by row (-1: empty cell)", _ints(g.head)),
        ArrayRow("next", "next list node in the same cell (-1: end of list)", _ints(g.nxt[:used])),
        ArrayRow("elem", "element slot of each list node", _ints(g.elem[:used])),
        ArrayRow("free", "first free list node (-1: none)", _ints(g.state[1:2])),
    ]


def _quadtree_arrays(qt) -> list[ArrayRow]:
    n_used, e_used = int(qt.node_meta[0]), int(qt.enode_meta[0])
    return [
        ArrayRow("nodes.first", "leaf: first element node; branch: first of its 4 children", _ints(qt.nodes[:n_used, 0])),
        ArrayRow("nodes.count", "leaf: element count; branch: -1", _ints(qt.nodes[:n_used, 1])),
        ArrayRow("enodes.next", "next element node in the same leaf (-1: end)", _ints(qt.enodes[:e_used, 0])),
        ArrayRow("enodes.element", "element slot of each element node", _ints(qt.enodes[:e_used, 1])),
        ArrayRow("node free list", "first freed block of 4 nodes (-1: none)", _ints(qt.node_meta[1:2])),
        ArrayRow("enode free list", "first freed element node (-1: none)", _ints(qt.enode_meta[1:2])),
    ]


def _loose_tight_arrays(g) -> list[ArrayRow]:
    used = int(g.tstate[0])
    return [
        ArrayRow("lhead", "first element of each loose cell (-1: empty)", _ints(g.lhead)),
        ArrayRow("lcount", "elements in each loose cell", _ints(g.lcount)),
        ArrayRow("enext", "next element in the same loose cell, by slot", _ints(g.enext[: g.elements.high_water])),
        ArrayRow("thead", "first list node of each tight cell (-1: empty)", _ints(g.thead)),
        ArrayRow("tnext", "next list node in the same tight cell", _ints(g.tnxt[:used])),
        ArrayRow("tcell", "loose cell listed by each tight list node", _ints(g.tcell[:used])),
    ]


def _rtree_arrays(tree) -> list[ArrayRow]:
    nd = tree.nodes
    used = int(nd.meta[1])
    return [
        ArrayRow("root", "the root node (-1: empty tree)", _ints(nd.meta[0:1])),
        ArrayRow("level", "0 for a leaf; the level above its children otherwise", _ints(nd.level[:used])),
        ArrayRow("count", "entries in use in each node", _ints(nd.count[:used])),
        ArrayRow("parent", "parent node (-1: the root or a free node)", _ints(nd.parent[:used])),
        ArrayRow("child", f"entries, {nd.width} per node: element slots in a leaf, nodes above (-1: unused)",
                 _ints(nd.child[:used])),
    ]


#: Registered structure name -> function returning its :class:`ArrayRow` list.
ARRAY_VIEWS = {
    "uniform_grid": _uniform_grid_arrays,
    "quadtree": _quadtree_arrays,
    "loose_tight_grid": _loose_tight_arrays,
    "rtree": _rtree_arrays,
    "rstar_tree": _rtree_arrays,
}


def structure_arrays(bp: BroadPhase) -> list[ArrayRow]:
    """The arrays the array view shows for ``bp`` (empty for structures without one).

    Reads public attributes only (see :data:`ARRAY_VIEWS`). A structure whose
    layout changed so that an attribute is missing gets an empty list rather
    than an error: the picture still works.

    Parameters
    ----------
    bp : BroadPhase

    Returns
    -------
    list of ArrayRow

    Example
    -------
    >>> from lessons_lib import STRUCTURES
    >>> g = STRUCTURES["uniform_grid"](world=[0, 0, 40, 20], cell_size=20)
    >>> g.insert(7, [1, 1, 2, 2])
    >>> [(r.name, r.values.tolist()) for r in structure_arrays(g)]
    [('head', [0, -1]), ('next', [-1]), ('elem', [0]), ('free', [-1])]
    """
    fn = ARRAY_VIEWS.get(type(bp).name)
    if fn is None:
        return []
    try:
        return fn(bp)
    except AttributeError:
        return []


def changed_entries(old: np.ndarray | None, new: np.ndarray) -> np.ndarray:
    """Indices of ``new`` that differ from ``old`` (entries past ``old``'s end count as changed).

    Example
    -------
    >>> changed_entries(np.array([1, 2, 3]), np.array([1, 5, 3, 4])).tolist()
    [1, 3]
    """
    if old is None:
        return np.zeros(0, dtype=np.int64)
    k = min(len(old), len(new))
    diff = np.flatnonzero(old[:k] != new[:k])
    return np.concatenate([diff, np.arange(k, len(new))]).astype(np.int64)


# --------------------------------------------------------------------------
# The explorer
# --------------------------------------------------------------------------

def canvas_colors(depths: int = 9) -> dict:
    """The live canvas's colours, one per meaning, the same as :meth:`Explorer.static`'s.

    Returns
    -------
    dict
        ``box``, ``pair`` (outline of a box in an overlapping pair), ``query`` (the
        window and its hits), ``new`` (the box just added): hex colours from
        :mod:`lessons_lib.style`; ``regions``: ``depths`` hex colours of the region
        colour map, shallow to deep, as :func:`lessons_lib.viz.draw_regions` uses it.
        ``tight_line`` and ``tight_fill``: the loose/tight grid's tight cells (dashed
        outlines; the fill of those listing a loose cell), greys lighter than any region line.
    """
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps[style.REGION_CMAP]
    regions = [to_hex(cmap(viz.REGION_CMAP_TOP * k / max(1, depths - 1))) for k in range(depths)]
    return {"box": style.BOX_COLOR, "pair": style.HIGHLIGHT_COLOR, "query": style.QUERY_COLOR,
            "new": style.NEW_COLOR, "regions": regions, "tight_line": TIGHT_LINE_COLOR,
            "tight_fill": TIGHT_FILL_COLOR}

class Explorer:
    """Insert, remove and query boxes of any structure by mouse, and watch it change.

    Parameters
    ----------
    structure : str or BroadPhase subclass
        A name in :data:`~lessons_lib.base.STRUCTURES` (e.g. ``"quadtree"``) or the class.
    boxes : array_like, shape (n, 4), optional
        The starting boxes ``[xmin, ymin, xmax, ymax]``, world units, stored
        under ids ``0 .. n-1`` with ``from_boxes``. Default: none.
    world : array_like, shape (4,), optional
        The area shown and clickable. Default: the article's 800 x 600 world,
        grown to cover ``boxes`` if they stick out.
    new_box_size : (float, float), optional
        Width and height of the box a click adds. Default: 1/20 of the
        world's width and height.
    title : str, optional
        Shown above the picture. Default: the structure's class name.
    remove : array_like of int, optional
        Ids (rows of ``boxes``) removed right after the build, one ``remove`` call
        each: the structure keeps what removals leave behind (a quadtree's empty
        leaves, for one) until **Cleanup**. **Reset** comes back to this state.
    **params
        Keyword parameters of the structure (``capacity=4``, ``cell_size=50``...).

    Attributes
    ----------
    bp : BroadPhase
        The structure; every gesture goes through its public methods.
    hits : numpy.ndarray, int64
        Ids found by the last query (empty before one).
    query_box : numpy.ndarray or None
        The last query window.
    visited : list of (str, int)
        What the last query visited (:func:`visit_counts`).
    error : str
        The text of the last refused gesture ("" after a successful one).
    last_inserted : int or None
        The id the last gesture inserted (outlined in purple, the colour of what is new).
    last_removed : numpy.ndarray or None
        The box the last gesture removed, shape (4,) (a dashed purple ghost in the picture).
    message : str
        What the last gesture did.

    Raises
    ------
    ValueError, TypeError
        An unknown structure, bad boxes, a bad world or bad parameters (the
        structure's own message); a ``remove`` id that is not a row of ``boxes``.

    Example
    -------
    >>> ex = Explorer("quadtree", [[10, 10, 50, 50], [40, 40, 90, 90]], capacity=2)
    >>> ex.counts()
    {'boxes': 2, 'pairs': 1, 'regions': 1}
    >>> ex.click(400, 300)            # empty space: adds box 2
    ('insert', 2)
    >>> ex.drag(0, 0, 100, 100, mode="query").tolist()
    [0, 1]
    >>> ex.handle({"event": "click", "x": -5, "y": 10})   # outside the world: refused
    'click at (-5, 10) is outside the world [0, 0, 800, 600]'
    >>> ex.undo(); len(ex.bp)
    2
    """

    def __init__(self, structure="quadtree", boxes=None, *, world=None, new_box_size=None, title=None, remove=None,
                 **params):
        self.cls = resolve_structure(structure)
        b = as_boxes(np.zeros((0, 4)) if boxes is None else boxes)
        if world is None:
            w = ARTICLE_WORLD.copy()
            if len(b):
                w = np.array([min(w[0], b[:, 0].min()), min(w[1], b[:, 1].min()),
                              max(w[2], b[:, 2].max()), max(w[3], b[:, 3].max())])
        else:
            w = as_box(world, name="world")
            if not (w[2] > w[0] and w[3] > w[1]):
                raise ValueError(f"world must have positive width and height, got {w.tolist()}")
        self.world = w
        if new_box_size is None:
            new_box_size = ((w[2] - w[0]) / 20.0, (w[3] - w[1]) / 20.0)
        size = np.asarray(new_box_size, dtype=np.float64).reshape(-1)
        if size.shape != (2,) or not np.all(np.isfinite(size)) or np.any(size <= 0):
            raise ValueError(f"new_box_size must be two positive numbers (width, height), got {new_box_size!r}")
        self.new_box_size = size
        self.title = title or self.cls.__name__
        self._start_boxes = b.copy()
        gone = np.unique(np.asarray([] if remove is None else remove, dtype=np.int64).reshape(-1))
        if len(gone) and (gone[0] < 0 or gone[-1] >= len(b)):
            raise ValueError(f"remove must hold ids of the boxes given, 0 .. {len(b) - 1}; got {int(gone[0])} "
                             f"and {int(gone[-1])} among them")
        self._start_removed = gone
        self._params = dict(params)
        self._widget = None
        self._handling = False
        self.bp = self._build()
        self._clear_transient()
        self.message = self._start_message()
        self._arrays: dict[str, np.ndarray] = {}
        self._note_arrays()
        self._changed = {}

    # -- state ---------------------------------------------------------
    def _build(self) -> BroadPhase:
        bp = self.cls.from_boxes(self._start_boxes, world=self.world, **self._params)
        for i in self._start_removed.tolist():
            bp.remove(i)
        return bp

    def _start_message(self) -> str:
        if not len(self._start_removed):
            return viz.plural(len(self.bp), "box", "boxes")
        return (f"{viz.plural(len(self._start_boxes), 'box', 'boxes')} built, "
                f"{len(self._start_removed)} removed: Cleanup tidies what the removals left")

    def _clear_transient(self) -> None:
        self.history: list[tuple] = []
        self.next_id = len(self._start_boxes)
        self.hits = np.zeros(0, dtype=np.int64)
        self.query_box = None
        self.visited: list[tuple[str, int]] = []
        self.error = ""
        self.last_inserted = None
        self.last_removed = None

    def counts(self) -> dict[str, int]:
        """``{"boxes": n, "pairs": k, "regions": m}`` of the structure now.

        Calls ``pairs()`` and ``regions()``: the cost of the structure's pair search.
        """
        return {"boxes": len(self.bp), "pairs": int(len(self.bp.pairs())), "regions": int(len(self.bp.regions()[0]))}

    def _check_point(self, x, y, what: str) -> tuple[float, float]:
        try:
            x, y = float(x), float(y)
        except (TypeError, ValueError):
            raise TypeError(f"{what} needs numbers for x and y, got {x!r}, {y!r}") from None
        w = self.world
        if not (np.isfinite(x) and np.isfinite(y)):
            raise ValueError(f"{what} at ({x:g}, {y:g}) is not a finite point")
        if not (w[0] <= x <= w[2] and w[1] <= y <= w[3]):
            raise ValueError(f"{what} at ({x:.5g}, {y:.5g}) is outside the world [{', '.join(f'{v:g}' for v in w)}]")
        return x, y

    def _after_edit(self, message: str) -> None:
        """Record what changed in the arrays, forget the last query, clear the error."""
        self.message = message
        self.error = ""
        self.last_inserted = None
        self.last_removed = None
        self.hits = np.zeros(0, dtype=np.int64)
        self.query_box = None
        self.visited = []
        self._note_arrays()

    def _note_arrays(self) -> None:
        rows = structure_arrays(self.bp)
        self._meanings = {r.name: r.meaning for r in rows}
        new = {r.name: r.values for r in rows}
        self._changed = {k: changed_entries(self._arrays.get(k), v) for k, v in new.items()}
        self._arrays = new

    # -- gestures (the methods the widget calls) --------------------------
    def insert(self, box) -> int:
        """Add ``box`` under the next free id; return that id.

        Raises
        ------
        ValueError
            A bad box (the library's message); nothing is stored then.
        """
        i = self.next_id
        self.bp.insert(i, box)
        self.next_id += 1
        self.history.append(("insert", i, as_box(box)))
        self._after_edit(f"inserted box {i}")
        self.last_inserted = i
        self._sync()
        return i

    def remove(self, id) -> None:
        """Remove box ``id``.

        Raises
        ------
        KeyError
            ``id`` is not stored (the library's message).
        """
        ids, boxes = self.bp.items()
        self.bp.remove(id)
        box = boxes[np.searchsorted(ids, int(id))]
        self.history.append(("remove", int(id), box.copy()))
        self._after_edit(f"removed box {int(id)}")
        self.last_removed = box.copy()
        self._sync()

    def click(self, x, y) -> tuple[str, int]:
        """A click at world point ``(x, y)``: remove the top box there, or add a new box centred there.

        The top box is the one with the highest id among those containing
        the point (found with ``bp.query`` of the point). A new box has size
        ``new_box_size``.

        Returns
        -------
        ("remove", id) or ("insert", id)

        Raises
        ------
        ValueError
            The point is outside the world, or the structure refuses the box.
        """
        x, y = self._check_point(x, y, "click")
        under = self.bp.query([x, y, x, y])
        if len(under):
            top = int(under[-1])
            self.remove(top)
            return ("remove", top)
        hw, hh = self.new_box_size / 2.0
        return ("insert", self.insert([x - hw, y - hh, x + hw, y + hh]))

    def drag(self, x0, y0, x1, y1, mode: str = "insert"):
        """A drag from ``(x0, y0)`` to ``(x1, y1)``, world units: add that box, or query it.

        Parameters
        ----------
        mode : {"insert", "query"}

        Returns
        -------
        int (the new id) for ``"insert"``; the hits (sorted int64 ids) for ``"query"``.

        Raises
        ------
        ValueError
            An unknown mode, an end outside the world, a drag with zero width
            or height, or a box the structure refuses.
        """
        if mode not in ("insert", "query"):
            raise ValueError(f"drag mode must be 'insert' or 'query', got {mode!r}")
        x0, y0 = self._check_point(x0, y0, "drag start")
        x1, y1 = self._check_point(x1, y1, "drag end")
        box = [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
        if box[2] == box[0] or box[3] == box[1]:
            raise ValueError(f"the dragged box [{', '.join(f'{v:g}' for v in box)}] has zero "
                             f"{'width' if box[2] == box[0] else 'height'}: drag across, not along a line")
        if mode == "query":
            return self.query(box)
        return self.insert(box)

    def query(self, box) -> np.ndarray:
        """Query window ``box``: store and return the hits, checked against brute force.

        Returns
        -------
        numpy.ndarray, int64, sorted
            ``bp.query(box)``.

        Raises
        ------
        ValueError
            A bad box; or the structure's hits differ from a brute-force scan
            of ``bp.items()`` (a bug in the structure; the message lists the difference).
        """
        q = as_box(box, name="query box")
        hits = self.bp.query(q)
        visited = visit_counts(self.bp, q)
        ids, boxes = self.bp.items()
        brute = ids[boxes_overlap(boxes, q)] if len(ids) else ids
        if not np.array_equal(hits, brute):
            missing = np.setdiff1d(brute, hits).tolist()
            extra = np.setdiff1d(hits, brute).tolist()
            raise ValueError(f"{type(self.bp).__name__}.query disagrees with brute force: "
                             f"missing {missing}, extra {extra}")
        self.hits, self.query_box, self.visited = hits, q, visited
        self.error = ""
        self._changed = {}
        seen = ", ".join(f"{v} {k}" for k, v in visited)
        self.message = f"query: {len(hits)} hits (brute force agrees); {seen}"
        self._sync()
        return hits

    def cleanup(self) -> str:
        """Call the structure's ``cleanup()`` (e.g. a quadtree collapses empty leaves); say what it changed.

        Compares the structure before and after: its region count (cells or
        nodes), ``memory_bytes()``, and for structures with an array view the
        entries rewritten. The sentence is also :attr:`message` (the widget's
        status line).

        Returns
        -------
        str
            E.g. ``"cleanup: 489 -> 241 nodes (248 fewer); memory unchanged at 27,026
            bytes; 310 array entries rewritten"``, or ``"cleanup: nothing to clean
            up: still 61 nodes, 27,026 bytes (it tidies what removals leave behind:
            remove boxes first)"``.
        """
        word = self.region_word()
        before, mem0 = len(self.bp.regions()[0]), int(self.bp.memory_bytes())
        self.bp.cleanup()
        after, mem1 = len(self.bp.regions()[0]), int(self.bp.memory_bytes())
        self._after_edit("cleanup")
        rewritten = sum(len(c) for c in self._changed.values())
        parts = []
        if after != before:
            parts.append(f"{before} -> {viz.plural(after, word)} ({abs(before - after)} "
                         f"{'fewer' if after < before else 'more'})")
        if mem1 != mem0:
            parts.append(f"memory {mem0:,} -> {mem1:,} bytes")
        if parts and mem1 == mem0:
            parts.append(f"memory unchanged at {mem1:,} bytes")
        if rewritten:
            parts.append(f"{viz.plural(rewritten, 'array entry', 'array entries')} rewritten")
        if parts:
            self.message = "cleanup: " + "; ".join(parts)
        else:
            self.message = (f"cleanup: nothing to clean up: still {viz.plural(after, word)}, {mem1:,} bytes "
                            "(it tidies what removals leave behind: remove boxes first)")
        self._sync()
        return self.message

    def undo(self) -> None:
        """Undo the last add or remove (cleanup and queries are not undone).

        Raises
        ------
        IndexError
            Nothing left to undo.
        """
        if not self.history:
            raise IndexError("nothing to undo")
        op, i, box = self.history[-1]
        if op == "insert":
            self.bp.remove(i)
        else:
            self.bp.insert(i, box)
        self.history.pop()
        self._after_edit(f"undid {'insert' if op == 'insert' else 'removal'} of box {i}")
        if op == "insert":
            self.last_removed = np.asarray(box, dtype=np.float64).copy()
        else:
            self.last_inserted = i
        self._sync()

    def reset(self) -> None:
        """Rebuild the structure from the starting boxes (the same calls as at the start)."""
        self.bp = self._build()
        self._clear_transient()
        self._after_edit(f"reset to the {viz.plural(len(self.bp), 'starting box', 'starting boxes')}")
        self._sync()

    def handle(self, message: dict) -> str:
        """Carry out one gesture message from the widget; return the error text ("" when it worked).

        Messages: ``{"event": "click", "x", "y"}``, ``{"event": "drag", "x0",
        "y0", "x1", "y1", "mode"}`` with mode ``"insert"`` or ``"query"``,
        ``{"event": "button", "name"}`` with name ``"cleanup"``, ``"undo"`` or
        ``"reset"``. Errors in :data:`GESTURE_ERRORS` are caught, their text
        kept in :attr:`error`, and the structure is left as it was.

        Raises
        ------
        Nothing for a refused gesture; other exceptions (bugs) propagate.

        Example
        -------
        >>> ex = Explorer("uniform_grid")
        >>> ex.handle({"event": "drag", "x0": 5, "y0": 5, "x1": 5, "y1": 40})
        'the dragged box [5, 5, 5, 40] has zero width: drag across, not along a line'
        >>> len(ex.bp)
        0
        """
        self._handling = True
        try:
            event = message.get("event")
            if event == "click":
                self.click(message.get("x"), message.get("y"))
            elif event == "drag":
                self.drag(message.get("x0"), message.get("y0"), message.get("x1"), message.get("y1"),
                          message.get("mode", "insert"))
            elif event == "button":
                name = message.get("name")
                actions = {"cleanup": self.cleanup, "undo": self.undo, "reset": self.reset}
                if name not in actions:
                    raise ValueError(f"unknown button {name!r}")
                actions[name]()
            else:
                raise ValueError(f"unknown gesture {event!r}")
        except GESTURE_ERRORS as exc:
            self.error = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            self._changed = {}
        finally:
            self._handling = False
        if self._widget is not None:
            self._push(seq=message.get("seq", 0))
        return self.error

    # -- what the widget shows --------------------------------------------
    def array_rows(self) -> list[dict]:
        """The array view: per array its name, meaning, length, a window of entries and the changed ones.

        Each row is a dict ``name, meaning, length, start, values`` (the
        entries ``start .. start + len(values) - 1``), ``changed`` (indices
        changed by the last operation, absolute) and ``more`` (changed
        entries outside the window). The window holds :data:`ARRAY_WINDOW`
        entries from a little before the first changed one.
        """
        rows = []
        for name, values in self._arrays.items():
            ch = self._changed.get(name, np.zeros(0, dtype=np.int64))
            start = max(0, int(ch[0]) - 2) if len(ch) else 0
            start = max(0, min(start, len(values) - ARRAY_WINDOW))
            stop = min(len(values), start + ARRAY_WINDOW)
            inside = ch[(ch >= start) & (ch < stop)]
            rows.append({"name": name, "meaning": self._meanings.get(name, ""), "length": int(len(values)), "start": start,
                         "values": values[start:stop].tolist(), "changed": inside.tolist(),
                         "more": int(len(ch) - len(inside))})
        return rows

    def region_word(self) -> str:
        """What the structure's regions are: ``"cell"`` (grids, hashes; ``"loose cell"`` for the loose/tight
        grid), ``"node"`` (trees) or ``"region"``."""
        name = type(self.bp).name
        if name == "loose_tight_grid":  # its regions are the loose cells' rectangles; tight cells are drawn apart
            return "loose cell"
        if "grid" in name or "hash" in name:
            return "cell"
        if "tree" in name:
            return "node"
        return "region"

    def crowded(self) -> bool:
        """Whether the picture is crowded (:data:`CROWDED_BOXES` boxes or more): faint boxes, a veil."""
        return len(self.bp) >= CROWDED_BOXES

    def touched(self, ids=None, boxes=None) -> np.ndarray:
        """Which stored boxes overlap the box just added or removed: the pairs the last gesture made or broke.

        Returns
        -------
        numpy.ndarray, shape (n,), bool
            In the order of ``bp.items()`` (the box just added itself excluded).
        """
        if ids is None:
            ids, boxes = self.bp.items()
        focus = None
        if self.last_inserted is not None and self.last_inserted in self.bp:
            focus = boxes[ids == self.last_inserted][0]
        elif self.last_removed is not None:
            focus = self.last_removed
        if focus is None or not len(ids):
            return np.zeros(len(ids), bool)
        hit = boxes_overlap(boxes, focus)
        if self.last_inserted is not None:
            hit &= ids != self.last_inserted
        return hit

    def tight_cells(self):
        """The tight cells of a loose/tight grid: ``(rects (T, 4) float64, listing (T,) bool)``, or None.

        ``listing`` marks the tight cells whose list holds at least one loose
        cell. None for structures without a tight grid (no ``tight_cells()``).
        """
        fn = getattr(self.bp, "tight_cells", None)
        if fn is None:
            return None
        t = fn()
        return np.asarray(t["rect"], dtype=np.float64).reshape(-1, 4), np.asarray(t["lists"]) > 0

    def _state(self) -> dict:
        ids, boxes = self.bp.items()
        pairs = self.bp.pairs()
        rects, depths = self.bp.regions()
        in_pair = np.isin(ids, pairs.reshape(-1)) if len(pairs) else np.zeros(len(ids), bool)
        hit = np.isin(ids, self.hits) if len(self.hits) else np.zeros(len(ids), bool)
        new = ids == self.last_inserted if self.last_inserted is not None else np.zeros(len(ids), bool)
        # bit 0: in an overlapping pair; bit 1: hit by the last query; bit 2: the box just inserted;
        # bit 3: overlaps the box just inserted or removed
        flags = (in_pair.astype(np.uint8) | (hit.astype(np.uint8) << 1) | (new.astype(np.uint8) << 2)
                 | (self.touched(ids, boxes).astype(np.uint8) << 3))
        tight = self.tight_cells()
        big = np.finfo(np.float64).max
        return {
            "ids": ids.astype(np.float64).tobytes(),
            "boxes": np.ascontiguousarray(boxes, dtype=np.float64).tobytes(),
            "flags": flags.tobytes(),
            "regions": np.nan_to_num(np.ascontiguousarray(rects, dtype=np.float64), posinf=big, neginf=-big).tobytes(),
            "depths": np.asarray(depths, dtype=np.float64).tobytes(),
            "query": [] if self.query_box is None else self.query_box.tolist(),
            "hits": self.hits.tolist(),
            "ghost": [] if self.last_removed is None else np.asarray(self.last_removed, dtype=np.float64).tolist(),
            "tight": b"" if tight is None else np.ascontiguousarray(tight[0]).tobytes(),
            "tight_listing": b"" if tight is None else tight[1].astype(np.uint8).tobytes(),
            "info": {"structure": type(self.bp).__name__, "boxes": int(len(ids)), "pairs": int(len(pairs)),
                     "regions": int(len(rects)), "region_word": self.region_word(),
                     "layered": bool(len(depths) and int(np.max(depths)) > 0),
                     "crowded": self.crowded(), "veil": VEIL_ALPHA, "words": LEGEND_WORDS,
                     "message": self.message, "undo": len(self.history)},
            "error": self.error,
            "arrays": self.array_rows(),
        }

    def _sync(self) -> None:
        """Refresh the widget after a method called directly (``handle`` refreshes once itself)."""
        if self._widget is not None and not self._handling:
            self._push()

    def _push(self, seq: int = 0) -> None:
        w = self._widget
        state = self._state()
        with w.hold_sync():
            for k, v in state.items():
                setattr(w, k, v)
            w.ack = int(seq or 0)
            w.version = w.version + 1

    def widget(self):
        """The anywidget view (built on first call, importing anywidget then; reused afterwards).

        Returns
        -------
        anywidget.AnyWidget
            Its gestures call :meth:`handle`.
        """
        if self._widget is None:
            cls = _widget_class()
            self._widget = cls(world=self.world.tolist(), title=self.title, new_box_size=self.new_box_size.tolist(),
                               colors=canvas_colors())
            self._widget.on_msg(lambda _w, content, _buffers: self.handle(content))
            self._push()
        return self._widget

    # -- static pictures ---------------------------------------------------
    def static(self, *, figsize=None, dpi: int = 100) -> Figure:
        """The current state drawn with matplotlib: what the widget shows, as a figure.

        Regions, boxes, overlapping pairs, the last query window and its hits
        (highlighted), and for structures with an array view, the start of
        each array beside the picture (changed entries in brackets).

        Returns
        -------
        StaticFigure
            Shows itself as a PNG in a notebook without pyplot.

        Example
        -------
        >>> fig = Explorer("quadtree", [[10, 10, 50, 50]]).static()
        >>> len(fig.axes)
        2
        """
        rows = self.array_rows()
        if figsize is None:
            figsize = (9.6, 4.8) if rows else (6.4, 4.8)
        fig = StaticFigure(figsize=figsize, dpi=dpi, layout="constrained")
        if rows:
            ax, tax = fig.subplots(1, 2, width_ratios=[1.5, 1])
        else:
            ax, tax = fig.add_subplot(), None
        c = self.counts()
        title = (f"{self.title}: {viz.plural(c['boxes'], 'box', 'boxes')}, {viz.plural(c['pairs'], 'pair')}, "
                 f"{viz.plural(c['regions'], self.region_word())}")
        if self.message != viz.plural(len(self._start_boxes), "box", "boxes"):  # the status line, as in the widget
            title += "\n" + textwrap.shorten(f"Last: {self.message}", 90, placeholder="...")
        self._draw_state(ax, title)
        if tax is not None:
            tax.set_axis_off()
            lines = []
            for r in rows:
                shown = r["values"][:10]
                cells = [f"[{v}]" if r["start"] + k in r["changed"] else str(v) for k, v in enumerate(shown)]
                tail = " ..." if r["length"] > r["start"] + len(shown) else ""
                lines.append(f"{r['name']} ({viz.plural(r['length'], 'entry', 'entries')}, from {r['start']}):")
                lines.append("  " + " ".join(cells) + tail)
            tax.text(0, 1, "\n".join(lines), va="top", ha="left", family="monospace", fontsize=9,
                     transform=tax.transAxes)
            tax.set_title("arrays ([x]: changed by the last operation)", fontsize=9)
        return fig

    def _draw_state(self, ax, title: str) -> None:
        """The live canvas's picture with matplotlib, in the same colours and layers, with its legend below.

        Tight cells (loose/tight grid) dashed in :data:`TIGHT_LINE_COLOR`, those
        listing a loose cell shaded; regions by depth (:data:`~lessons_lib.style.REGION_CMAP`),
        boxes in :data:`~lessons_lib.style.BOX_COLOR`, boxes in an overlapping pair
        outlined in :data:`~lessons_lib.style.HIGHLIGHT_COLOR`; then on top, what the
        last gesture touched: the query window and its hits in
        :data:`~lessons_lib.style.QUERY_COLOR`, the box just added (or the ghost of the
        box just removed) in :data:`~lessons_lib.style.NEW_COLOR` with the boxes it
        overlaps outlined thick. A crowded picture (:meth:`crowded`) draws boxes and
        pairs thin and faint and fades them under a veil when a gesture touched
        something: the meanings the canvas's legend names (:data:`LEGEND_WORDS`).
        """
        from matplotlib.collections import PolyCollection
        from matplotlib.patches import Rectangle

        ids, boxes = self.bp.items()
        rects, depths = self.bp.regions()
        crowded, words = self.crowded(), LEGEND_WORDS
        tight = self.tight_cells()
        if tight is not None and len(tight[0]):
            if tight[1].any():
                viz.draw_boxes(ax, tight[0][tight[1]], color=TIGHT_FILL_COLOR, alpha=1.0, linewidth=0, zorder=0.3)
            viz.draw_regions(ax, (tight[0], np.zeros(len(tight[0]), np.int64)), color=TIGHT_LINE_COLOR, linewidth=1.6, linestyle=(0, (6, 3)),
                             label=words["tight"], zorder=0.5)
        if len(rects):
            layered = len(depths) and int(np.max(depths)) > 0
            label = f"{self.region_word()}s" + (words["layered"] if layered else "")
            viz.draw_regions(ax, (rects, depths), label=label)
        faint = 0.5 if crowded else 1.0
        for coll in viz.draw_boxes(ax, boxes, ids=ids, label=words["box"], alpha=0.15 if crowded else 0.3,
                                   linewidth=0.6 if crowded else 1.0, annotate=len(ids) <= viz.AUTO_LABEL_MAX):
            if isinstance(coll, PolyCollection):  # not the id labels
                coll.set_edgecolor(to_rgba(style.BOX_COLOR, faint))
        for coll in viz.draw_pairs(ax, boxes, self.bp.pairs(), ids=ids, lines=False, mark_boxes=True,
                                   color=style.HIGHLIGHT_COLOR, box_label=words["pair"],
                                   linewidth=0.7 if crowded else 1.33):
            coll.set_edgecolor(to_rgba(style.HIGHLIGHT_COLOR, 0.6 if crowded else 1.0))
        touched = self.touched(ids, boxes)
        focus = bool(len(self.hits) or self.query_box is not None or touched.any()
                     or self.last_inserted is not None or self.last_removed is not None)
        if crowded and focus:
            ax.add_patch(Rectangle((0, 0), 1, 1, transform=ax.transAxes, facecolor="white", alpha=VEIL_ALPHA,
                                   edgecolor="none", zorder=3.0, label=words["veil"]))
        if touched.any():
            viz.draw_boxes(ax, boxes[touched], color=style.HIGHLIGHT_COLOR, alpha=0.3, linewidth=2.5,
                           label=words["touched"], zorder=3.2)
        if len(self.hits):
            viz.draw_boxes(ax, boxes[np.isin(ids, self.hits)], color=style.QUERY_COLOR, alpha=0.6, linewidth=1.5,
                           label=words["hit"], zorder=3.3)
        if self.query_box is not None:
            viz.draw_boxes(ax, self.query_box.reshape(1, 4), fill=False, color=style.QUERY_COLOR, linestyle="--",
                           linewidth=2.5, label=words["query"], zorder=3.5)
        if self.last_removed is not None:
            viz.draw_boxes(ax, np.reshape(self.last_removed, (1, 4)), fill=False, color=style.NEW_COLOR,
                           linestyle="--", linewidth=2.5, label=words["ghost"], zorder=3.6)
        if self.last_inserted is not None and self.last_inserted in self.bp:
            viz.draw_boxes(ax, boxes[ids == self.last_inserted], fill=False, color=style.NEW_COLOR, linewidth=3,
                           label=words["new"], zorder=3.7)
        view = viz.covering_box(self.world, boxes, rects if len(rects) else None)
        viz.set_world(ax, view)
        viz.style_world_axes(ax, title, legend=False)
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.figure.legend(handles, labels, loc="outside lower center", ncols=3, fontsize="small", frameon=False)

    def png(self, dpi: int = 100) -> bytes:
        """:meth:`static` as PNG bytes (deterministic), at ``dpi`` dots per inch."""
        return figure_png(self.static(dpi=dpi))

    def _ipython_display_(self) -> None:
        """Display the widget, with a text and the static PNG as fallbacks for viewers without a kernel."""
        from IPython.display import display

        w = self.widget()
        display({
            "text/plain": repr(self),
            "image/png": self.png(),
            "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                         "model_id": w.model_id},
        }, raw=True)

    def __repr__(self) -> str:
        return f"Explorer({type(self.bp).__name__}, {len(self.bp)} boxes)"


_WIDGET_CLASS = None


def _widget_class():
    """The anywidget class (defined on first use so that anywidget is imported only then)."""
    global _WIDGET_CLASS
    if _WIDGET_CLASS is not None:
        return _WIDGET_CLASS
    import anywidget
    import traitlets as t

    class ExplorerWidget(anywidget.AnyWidget):
        """The browser half of :class:`Explorer`: a canvas, buttons and the array view (``explorer.js``)."""

        _esm = _JS.read_text(encoding="utf-8")
        world = t.List(t.Float()).tag(sync=True)
        title = t.Unicode("").tag(sync=True)
        new_box_size = t.List(t.Float()).tag(sync=True)
        ids = t.Bytes(b"").tag(sync=True)
        boxes = t.Bytes(b"").tag(sync=True)
        flags = t.Bytes(b"").tag(sync=True)
        regions = t.Bytes(b"").tag(sync=True)
        depths = t.Bytes(b"").tag(sync=True)
        query = t.List(t.Float()).tag(sync=True)
        hits = t.List(t.Int()).tag(sync=True)
        info = t.Dict().tag(sync=True)
        error = t.Unicode("").tag(sync=True)
        arrays = t.List(t.Dict()).tag(sync=True)
        ghost = t.List(t.Float()).tag(sync=True)
        tight = t.Bytes(b"").tag(sync=True)
        tight_listing = t.Bytes(b"").tag(sync=True)
        colors = t.Dict().tag(sync=True)
        ack = t.Int(0).tag(sync=True)
        version = t.Int(0).tag(sync=True)

    _WIDGET_CLASS = ExplorerWidget
    return _WIDGET_CLASS

"""Lesson 08's warm-ups and step-through views for sweep and prune.

The structure itself is :class:`lessons_lib.structures.sweep_and_prune.SweepAndPrune`;
this module holds the small reference functions the lesson builds it from, in
the order the lesson meets them:

1. the bracket string: count, then list, the overlapping intervals of a string
   of ``[`` and ``]`` (:func:`count_bracket_overlaps`, :func:`list_bracket_overlaps`);
2. the *pseudo* sweep and prune: sort by the lower edge, find each box's
   candidates with a binary search for the upper bound
   (:func:`pseudo_sap_pairs`), and see why a binary search for the lower
   bound gives wrong answers;
3. the real sweep over sorted endpoints, recorded event by event for a
   :class:`~lessons_lib.widgets.Stepper` (:func:`sweep_events`, :func:`sweep_stepper`),
   and what it pays as ``n`` grows (:func:`sweep_growth`);
4. the endpoint arrays of :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune`
   as the exercises see them (:func:`endpoint_arrays`), keys refreshed after a
   move (:func:`refreshed_keys`) and the swaps an insertion sort needs
   (:func:`count_inversions`, by brute force), and the insertion-sort repair
   stepped through swap by swap (:func:`repair_frames`, :func:`repair_stepper`);
5. temporal coherence, frame after frame (:func:`coherence_run`), and the
   stored measurement at n = 100,000 that the lesson plots
   (:func:`store_results`, ``python -m lessons_lib.labs.sweep --store``).

Sources: the sweep-and-prune section of magley's broad-phase article (2026),
[magley2026]; the swap-based kept pairs of [Baraff1992] and [Cohen1995]. The
code and wording here are ours.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import style
from ..base import normalize_pairs
from ..geometry import as_boxes

__all__ = [
    "count_bracket_overlaps",
    "list_bracket_overlaps",
    "intervals_to_tokens",
    "tokens_to_string",
    "pseudo_sap_pairs",
    "pseudo_sap_window",
    "SweepEvent",
    "sweep_events",
    "sweep_stepper",
    "sweep_growth",
    "endpoint_arrays",
    "refreshed_keys",
    "count_inversions",
    "RepairFrame",
    "repair_frames",
    "repair_stepper",
    "coherence_run",
    "frame_costs",
    "store_results",
    "COHERENCE_RESULTS",
]

#: The stored measurement of lesson 08 (``data/results/<name>.csv``).
COHERENCE_RESULTS = "sweep_coherence"

#: The sweep line asks "which boxes are open here?", a query: it takes the query colour.
SWEEP_LINE_COLOR = style.QUERY_COLOR
#: The repair's swaps: a min passing a max starts an overlap (the pair colour), a max
#: passing a min ends one, any other swap changes no overlap.
SWAP_COLORS = {"starts": style.PAIR_COLOR, "stops": style.BLUE, None: style.ORANGE}


# --------------------------------------------------------------------------
# 1. Brackets
# --------------------------------------------------------------------------
def count_bracket_overlaps(s: str) -> int:
    """Number of overlapping pairs of intervals in a string of ``[`` and ``]``.

    Each ``[`` opens an interval and meets every interval still open, so it
    adds the current depth to the count. Which ``]`` closes which ``[`` does
    not change the answer, so the intervals need no names.

    Parameters
    ----------
    s : str
        Only ``[`` and ``]``, balanced (never more ``]`` than ``[`` so far,
        equal counts at the end).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Another character, or an unbalanced string (naming the position).

    Examples
    --------
    >>> count_bracket_overlaps("[[]][[][]][]")
    3
    """
    if not isinstance(s, str):
        raise TypeError(f"s must be a str of '[' and ']', got {type(s).__name__}")
    depth = count = 0
    for pos, ch in enumerate(s):
        if ch == "[":
            count += depth
            depth += 1
        elif ch == "]":
            if depth == 0:
                raise ValueError(f"unbalanced: ']' at position {pos} closes nothing")
            depth -= 1
        else:
            raise ValueError(f"character {ch!r} at position {pos} is not '[' or ']'")
    if depth:
        raise ValueError(f"unbalanced: {depth} interval(s) never closed")
    return count


def list_bracket_overlaps(tokens) -> list[tuple[int, int]]:
    """The overlapping pairs of *named* intervals, from a sequence of ``(bracket, name)`` tokens.

    Keep the set of open names. At ``("[", j)`` report ``(i, j)`` for every
    open ``i`` (smaller name first), then open ``j``; at ``("]", j)`` close
    ``j``, which need not be the most recently opened one: ``[1 [2 ]1 ]2``.

    Parameters
    ----------
    tokens : iterable of (str, int)
        Each name opens once and then closes once.

    Returns
    -------
    list of (int, int)
        ``(i, j)`` with ``i < j``, sorted.

    Raises
    ------
    ValueError
        A bad bracket, a name opened twice, or closed without being open.

    Notes
    -----
    O(t + k) for ``t`` tokens and ``k`` pairs: O(t^2) when every interval
    contains every other, O(t) when few overlap.
    """
    open_ = {}  # name -> None, in opening order (dicts keep insertion order)
    seen = set()
    out = []
    for pos, tok in enumerate(tokens):
        try:
            ch, name = tok
        except (TypeError, ValueError):
            raise ValueError(f"token {pos} must be a (bracket, name) pair, got {tok!r}") from None
        if ch == "[":
            if name in seen:
                raise ValueError(f"token {pos}: interval {name!r} is opened twice")
            out += [(min(i, name), max(i, name)) for i in open_]
            open_[name] = None
            seen.add(name)
        elif ch == "]":
            if name not in open_:
                raise ValueError(f"token {pos}: interval {name!r} closes but is not open")
            del open_[name]
        else:
            raise ValueError(f"token {pos}: {ch!r} is not '[' or ']'")
    if open_:
        raise ValueError(f"intervals {sorted(open_)} never closed")
    return sorted(out)


def intervals_to_tokens(intervals) -> list[tuple[str, int]]:
    """Closed intervals ``[(lo, hi), ...]`` -> the bracket tokens of their sorted endpoints.

    Interval ``i`` gives ``("[", i)`` at ``lo`` and ``("]", i)`` at ``hi``. At
    equal coordinates every ``[`` comes before every ``]``, so intervals that
    only touch overlap (closed intervals).

    Raises
    ------
    ValueError
        An interval with ``lo > hi`` or a non-finite bound.
    """
    iv = np.asarray(intervals, dtype=np.float64).reshape(-1, 2)
    if not np.isfinite(iv).all():
        raise ValueError("interval bounds must be finite")
    bad = np.flatnonzero(iv[:, 0] > iv[:, 1])
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"interval {i} has lo {iv[i, 0]} > hi {iv[i, 1]}")
    ends = [(lo, 0, i) for i, (lo, _) in enumerate(iv.tolist())] + [(hi, 1, i) for i, (_, hi) in enumerate(iv.tolist())]
    ends.sort()
    return [("[" if kind == 0 else "]", i) for _, kind, i in ends]


def tokens_to_string(tokens) -> str:
    """Drop the names: ``[("[", 0), ("]", 0)]`` -> ``"[]"``."""
    return "".join(ch for ch, _ in tokens)


# --------------------------------------------------------------------------
# 2. The pseudo sweep and prune
# --------------------------------------------------------------------------
def _sorted_by_lower_edge(b: np.ndarray, axis) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if isinstance(axis, bool) or axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis!r}")
    order = np.argsort(b[:, axis], kind="stable")
    return order, b[order, axis], b[order, axis + 2]


def _overlap(b, p, q) -> bool:
    return bool((b[p, 0] <= b[q, 2]) & (b[q, 0] <= b[p, 2]) & (b[p, 1] <= b[q, 3]) & (b[q, 1] <= b[p, 3]))


def pseudo_sap_pairs(boxes, axis: int = 0) -> tuple[np.ndarray, int]:
    """Sort by the lower edge; compare each box with the boxes after it, up to a binary-searched upper bound.

    In the order of lower edges, the boxes that can meet box ``i`` *and come
    after it* form one run: from ``i + 1`` up to the first box whose lower
    edge is beyond ``i``'s upper edge. The lower edges are sorted, so that
    upper bound is a binary search. Every pair is found exactly once, from the
    box that starts first, so no lower bound is needed for all pairs.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs.
    axis : {0, 1}
        The axis sorted on.

    Returns
    -------
    pairs : numpy.ndarray, shape (k, 2), int64
        Row indices, ``i < j``, sorted.
    tests : int
        Box-box tests made (candidates in the runs).

    Raises
    ------
    ValueError
        Bad boxes or axis.

    Notes
    -----
    O(n log n) to sort and search, plus one test per candidate: O(n^2) when
    every box spans the whole axis (``xline`` sorted on x), near O(n log n)
    when few boxes overlap on the axis.
    """
    b = as_boxes(boxes)
    order, lo, hi = _sorted_by_lower_edge(b, axis)
    upper = np.searchsorted(lo, hi, side="right")  # first lower edge > my upper edge
    found, tests = [], 0
    for i in range(len(b)):
        for j in range(i + 1, int(upper[i])):
            tests += 1
            p, q = int(order[i]), int(order[j])
            if _overlap(b, p, q):
                found.append((p, q))
    return normalize_pairs(found), tests


def pseudo_sap_window(boxes, row: int, axis: int = 0, *, lower: str = "linear") -> dict:
    """The candidate window of one box in the pseudo sweep: from a lower bound to the upper bound.

    To list *all* neighbours of one box (not only those after it), the window
    must also reach left, to the first box (in lower-edge order) whose upper
    edge reaches this box's lower edge. Upper edges are not sorted in that
    order, so that lower bound needs a linear scan; ``lower="binary"`` bisects
    them anyway, the tempting mistake, which can cut off a long box that
    started early.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
    row : int
        The box (row index) whose window is wanted.
    axis : {0, 1}
    lower : {"linear", "binary"}

    Returns
    -------
    dict
        ``order`` (rows in lower-edge order), ``position`` of ``row`` in it,
        ``lower`` and ``upper`` (window ``[lower, upper)`` of positions),
        ``neighbours`` (rows in the window that really intersect ``row``,
        sorted) and ``true_neighbours`` (by brute force, sorted).

    Raises
    ------
    ValueError
        Bad boxes, axis, ``lower`` or ``row``.
    """
    b = as_boxes(boxes)
    if lower not in ("linear", "binary"):
        raise ValueError(f"lower must be 'linear' or 'binary', got {lower!r}")
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < len(b):
        raise ValueError(f"row must be an index 0 .. {len(b) - 1}, got {row!r}")
    order, lo, hi = _sorted_by_lower_edge(b, axis)
    i = int(np.flatnonzero(order == row)[0])
    upper = int(np.searchsorted(lo, hi[i], side="right"))
    if lower == "linear":
        reach = np.flatnonzero(hi[:i] >= lo[i])
        lb = int(reach[0]) if len(reach) else i
    else:  # WRONG on purpose: `hi` is not sorted, bisecting it is meaningless
        lb = min(i, int(np.searchsorted(hi, lo[i], side="left")))
    window = [int(order[j]) for j in range(lb, upper) if j != i]
    return {
        "order": order,
        "position": i,
        "lower": lb,
        "upper": upper,
        "neighbours": sorted(q for q in window if _overlap(b, row, q)),
        "true_neighbours": [int(q) for q in np.flatnonzero(
            (b[:, 0] <= b[row, 2]) & (b[row, 0] <= b[:, 2]) & (b[:, 1] <= b[row, 3]) & (b[row, 1] <= b[:, 3]))
            if q != row],
    }


# --------------------------------------------------------------------------
# 3. The sweep, event by event
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepEvent:
    """One endpoint of the sweep and the state just after it.

    Attributes
    ----------
    coord : float
        Position of the sweep line.
    box : int
        Row of the box whose endpoint this is.
    opens : bool
        True for a min endpoint (the interval opens), False for a max.
    active : tuple of int
        Boxes open after this event, in opening order.
    tested : tuple of int
        Open boxes compared with ``box`` on the other axis (openings only).
    new_pairs : tuple of (int, int)
        Pairs found at this event (``i < j``).
    pairs : tuple of (int, int)
        Every pair found so far.
    """

    coord: float
    box: int
    opens: bool
    active: tuple
    tested: tuple
    new_pairs: tuple
    pairs: tuple


def sweep_events(boxes, axis: int = 0) -> list[SweepEvent]:
    """Run the sweep in plain Python and record every endpoint event.

    The same algorithm as :func:`lessons_lib.structures.sweep_and_prune.sweep_pairs`,
    written for reading: sort the ``2 n`` endpoints by ``(coordinate,
    is_max)`` (min before max at equal coordinates: touching boxes pair), keep
    the open boxes, and test each opening box against them on the other axis.

    Raises
    ------
    ValueError
        Bad boxes or axis.
    """
    b = as_boxes(boxes)
    if axis not in (0, 1) or isinstance(axis, bool):
        raise ValueError(f"axis must be 0 or 1, got {axis!r}")
    other = 1 - axis
    ends = sorted([(b[i, axis], 0, i) for i in range(len(b))] + [(b[i, axis + 2], 1, i) for i in range(len(b))])
    active: list[int] = []
    pairs: list[tuple[int, int]] = []
    events = []
    for coord, is_max, i in ends:
        if is_max:
            active.remove(i)
            events.append(SweepEvent(float(coord), i, False, tuple(active), (), (), tuple(pairs)))
            continue
        new = tuple(
            (min(a, i), max(a, i)) for a in active
            if b[a, other] <= b[i, other + 2] and b[i, other] <= b[a, other + 2]
        )
        pairs.extend(new)
        tested = tuple(active)
        active.append(i)
        events.append(SweepEvent(float(coord), i, True, tuple(active), tested, new, tuple(pairs)))
    return events


def sweep_stepper(boxes, axis: int = 0, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` walking the sweep line endpoint by endpoint.

    Step 0 shows the boxes and their endpoints on the sweep axis; step ``t``
    shows event ``t``: the sweep line (green), the open boxes (filled orange),
    the box whose endpoint it is (thick purple outline), the open boxes it was
    tested against (dashed black) and every pair found so far (vermillion).
    Pass ``key_steps=[...]`` to choose the steps of the still stored beside the
    widget.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 12 boxes (24 events).
    axis : {0, 1}
        Sweep axis.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Raises
    ------
    ValueError
        Bad boxes or axis, or more than 12 boxes.
    """
    from .. import viz
    from ..widgets import Stepper

    b = as_boxes(boxes)
    if len(b) > 12:
        raise ValueError(f"sweep_stepper is for at most 12 boxes, got {len(b)}")
    events = sweep_events(b, axis)
    frames = [None] + events
    name = "xy"[axis]
    labels = ["the boxes and their endpoints on the sweep axis"]
    for t, e in enumerate(events, start=1):
        if e.opens:
            what = (f"{name} = {e.coord:.4g}: box {e.box} opens, tested against {list(e.tested)}, "
                    f"new pairs {[tuple(p) for p in e.new_pairs]}")
        else:
            what = f"{name} = {e.coord:.4g}: box {e.box} closes"
        labels.append(f"event {t}/{len(events)}: {what}; open now {list(e.active)}")
    world = viz.covering_box(b)
    span = world[axis + 2] - world[axis]
    world = world.copy()
    world[1 - axis] -= 0.08 * max(span, 1.0)  # room for the endpoint ticks below the boxes

    def draw(ax, ev, prev):
        active = [] if ev is None else list(ev.active)
        viz.draw_boxes(ax, b, annotate=True, label="box", highlight=active, highlight_label="open on the sweep axis")
        if ev is not None and (ev.opens and ev.tested):
            viz.draw_boxes(ax, b[list(ev.tested)], fill=False, color=style.BLACK, linestyle="--",
                           linewidth=1.5, label="tested on the other axis", zorder=5)
        if ev is not None:
            viz.draw_boxes(ax, b[[ev.box]], fill=False, color=style.NEW_COLOR, linewidth=2.5,
                           label="box of this endpoint", zorder=6)
        pairs = np.array([] if ev is None else ev.pairs, dtype=np.int64).reshape(-1, 2)
        viz.draw_pairs(ax, b, pairs, label="pair found", box_label=None)
        # endpoints as ticks along the sweep axis
        base = world[1 - axis]
        for i in range(len(b)):
            for v, mark in ((b[i, axis], "|"), (b[i, axis + 2], "|")):
                xy = (v, base) if axis == 0 else (base, v)
                ax.plot(*xy, marker=mark, color="0.4", markersize=8)
        if ev is not None:
            if axis == 0:
                ax.axvline(ev.coord, color=SWEEP_LINE_COLOR, linewidth=1.5, label="sweep line")
            else:
                ax.axhline(ev.coord, color=SWEEP_LINE_COLOR, linewidth=1.5, label="sweep line")
        viz.set_world(ax, world)
        if ev is None:
            title = "before the sweep"
        else:
            title = (f"{name} = {ev.coord:.4g}: box {ev.box} {'opens' if ev.opens else 'closes'}, "
                     f"{viz.plural(len(ev.pairs), 'pair')} so far")
        viz.style_world_axes(ax, title=title)

    return Stepper(frames, draw, labels=labels, title=f"Sweep and prune along {name}, endpoint by endpoint",
                   **stepper_options)


def sweep_growth(ns=(2_000, 20_000, 200_000), scene: str = "random", seed: int = 0) -> list[dict]:
    """What the sweep pays as ``n`` grows at constant density: its tests against the true pairs.

    For each ``n`` the scene is made in a world scaled to keep the article's density
    (:func:`lessons_lib.scenes.scale_to`), ``SweepAndPrune.from_boxes(boxes).pairs()``
    is run and its pairs compared with the compiled brute force (for ``n`` up to 20,000)
    or with a spatial grid (above).

    Returns
    -------
    list of dict
        One row per ``n``: ``n``, ``world_width`` (world units), ``axis`` ("x" or "y"),
        ``pairs`` (the true pairs, ``k``), ``tests`` (other-axis tests of the sweep:
        the pairs that overlap on the sweep axis, ``s``), ``tests_per_box``,
        ``pairs_per_box`` and ``tests_over_n15`` (``tests / n ** 1.5``).

    Notes
    -----
    Counts, not times: they do not depend on the machine. At constant density the
    world's side grows as ``sqrt(n)``, so the sweep line crosses about ``sqrt(n)``
    boxes at a time and each opening box is tested against that many: ``s`` grows as
    ``n ** 1.5`` while ``k`` grows as ``n``.
    """
    from ..scenes import make_scene, scale_to
    from ..structures.brute_force import compiled_brute_force_pairs
    from ..structures.counting_sort_grid import CountingSortGrid
    from ..structures.sweep_and_prune import SweepAndPrune

    rows = []
    for n in ns:
        world = scale_to(int(n))
        boxes = make_scene(scene, int(n), seed=seed, world=world)
        sap = SweepAndPrune.from_boxes(boxes)
        pairs = sap.pairs()
        ref = compiled_brute_force_pairs(boxes) if n <= 20_000 else CountingSortGrid.from_boxes(boxes).pairs()
        if not np.array_equal(pairs, ref):
            raise AssertionError(f"sweep and prune disagrees with the reference at n = {n}")
        rows.append({"n": int(n), "world_width": float(world[2] - world[0]), "axis": "xy"[sap.axis],
                     "pairs": int(len(pairs)), "tests": int(sap.last_tests),
                     "tests_per_box": sap.last_tests / n, "pairs_per_box": len(pairs) / n,
                     "tests_over_n15": sap.last_tests / n ** 1.5})
    return rows


# --------------------------------------------------------------------------
# 4. The endpoint arrays, as the exercises see them
# --------------------------------------------------------------------------
def endpoint_arrays(sap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Copies of a :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune`'s flat arrays.

    Returns
    -------
    keys : numpy.ndarray, shape (m,), float64
        Coordinates of the ``m = 2 n`` endpoints on the sweep axis, sorted by
        ``(key, is_max)``.
    codes : numpy.ndarray, shape (m,), int64
        ``2 * slot + is_max`` of each endpoint: ``codes >> 1`` is the slot
        (the box's row in ``boxes``), ``codes & 1`` is 1 for a max endpoint.
    boxes : numpy.ndarray, shape (high_water, 4), float64
        The element table's boxes by slot. Rows of freed slots keep the box
        they last held: only the slots named in ``codes`` are in the structure.
    """
    m = int(sap.m)
    hw = int(sap.elements.high_water)
    return sap.keys[:m].copy(), sap.codes[:m].copy(), sap.elements.boxes[:hw].copy()


def refreshed_keys(codes, boxes, axis: int) -> np.ndarray:
    """The key of every endpoint read again from ``boxes`` (after the boxes moved), in the order of ``codes``.

    ``keys[t] = boxes[codes[t] >> 1, axis + 2 * (codes[t] & 1)]``: the min or max
    coordinate of the endpoint's box on the sweep axis. The result is no longer
    sorted when boxes overtook each other: that is what the insertion sort repairs.
    """
    c = np.asarray(codes, np.int64)
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if isinstance(axis, bool) or axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis!r}")
    return b[c >> 1, axis + 2 * (c & 1)].astype(np.float64)


def count_inversions(keys, codes) -> int:
    """Swaps an insertion sort makes: the pairs ``u < v`` whose endpoint ``v`` sorts strictly before ``u``.

    "Before" is the order of the sweep: smaller key, or equal key with a min
    (``codes & 1 == 0``) before a max. Equal endpoints (same key, both mins or
    both maxes) are never exchanged, so they do not count. Brute force,
    O(m^2) in blocks: for checks and small examples.
    """
    k = np.asarray(keys, np.float64).ravel()
    mx = np.asarray(codes, np.int64).ravel() & 1
    if len(k) != len(mx):
        raise ValueError(f"keys and codes differ in length: {len(k)} and {len(mx)}")
    total = 0
    for start in range(0, len(k), 512):
        ku, mu = k[start:start + 512, None], mx[start:start + 512, None]
        later = np.arange(len(k))[None, :] > np.arange(start, min(start + 512, len(k)))[:, None]
        ahead = (k[None, :] < ku) | ((k[None, :] == ku) & (mx[None, :] < mu))
        total += int((later & ahead).sum())
    return total


# --------------------------------------------------------------------------
# 4b. The insertion-sort repair, swap by swap
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class RepairFrame:
    """One state of the endpoint array during the insertion-sort repair.

    Attributes
    ----------
    keys : numpy.ndarray, shape (m,), float64
        Endpoint coordinates on the sweep axis, in array order.
    codes : numpy.ndarray, shape (m,), int64
        ``2 * id + is_max`` of each endpoint, in array order.
    swapped : tuple of 2 int or None
        Array positions ``(u, u + 1)`` exchanged to reach this state.
    event : str or None
        ``"starts"`` when a min passed a max (the two boxes begin to overlap on
        the axis), ``"stops"`` when a max passed a min, None otherwise.
    pair : tuple of 2 int or None
        The ids of the two endpoints exchanged (walking one first).
    swaps, starts, stops : int
        Running counts after this state.
    note : str
        One line saying what happened.
    """

    keys: np.ndarray
    codes: np.ndarray
    swapped: tuple | None
    event: str | None
    pair: tuple | None
    swaps: int
    starts: int
    stops: int
    note: str


def repair_frames(boxes, moved, axis: int = 0) -> tuple[list[RepairFrame], np.ndarray]:
    """Record the insertion-sort repair of a sweep-and-prune endpoint array after boxes move.

    The boxes are stored in a :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune`
    (ids ``0..n-1``, sweep axis ``axis``); its sorted endpoint arrays are
    copied (:func:`endpoint_arrays`), the keys refreshed from the moved boxes
    (:func:`refreshed_keys`), then sorted by insertion sort one adjacent swap
    at a time, with the order of
    :func:`~lessons_lib.structures.endpoints.endpoint_before`. The result
    is checked against the library's own kernel
    (:func:`~lessons_lib.structures.sweep_and_prune.insertion_sort_endpoints`):
    same final arrays, same number of swaps.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        At most 12 closed boxes ``[xmin, ymin, xmax, ymax]``; box ``i`` has id ``i``.
    moved : dict of int -> array_like, shape (4,)
        New boxes of the ids that move.
    axis : {0, 1}
        Sweep axis.

    Returns
    -------
    frames : list of RepairFrame
        Frame 0: the sorted array before the move; frame 1: new keys in the
        old order; then one frame per swap.
    new_boxes : numpy.ndarray, shape (n, 4), float64

    Raises
    ------
    ValueError
        Bad boxes or axis, more than 12 boxes, an unknown id in ``moved``.

    Example
    -------
    >>> frames, _ = repair_frames([[0, 0, 1, 1], [2, 0, 3, 1]], {0: [4, 0, 5, 1]})
    >>> frames[-1].swaps, frames[-1].starts, frames[-1].stops
    (4, 1, 1)
    """
    from ..structures.endpoints import endpoint_before
    from ..structures.sweep_and_prune import SweepAndPrune, insertion_sort_endpoints

    b = as_boxes(boxes)
    if len(b) > 12:
        raise ValueError(f"repair_frames is for at most 12 boxes, got {len(b)}")
    if isinstance(axis, bool) or axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis!r}")
    new = b.copy()
    for i, box in dict(moved).items():
        if not (isinstance(i, (int, np.integer)) and 0 <= i < len(b)):
            raise ValueError(f"moved names id {i!r}, but the ids are 0..{len(b) - 1}")
        new[int(i)] = as_boxes([box])[0]
    sap = SweepAndPrune(axis=axis)
    for i, box in enumerate(b):
        sap.insert(i, box)
    keys, codes, table = endpoint_arrays(sap)
    ids = sap.elements.ids[: len(table)]
    codes = 2 * ids[codes >> 1] + (codes & 1)  # slots -> ids
    name = "xy"[axis]
    frames = [RepairFrame(keys.copy(), codes.copy(), None, None, None, 0, 0, 0,
                          f"sorted endpoints on {name} before the move")]
    keys = refreshed_keys(codes, new, axis)
    frames.append(RepairFrame(keys.copy(), codes.copy(), None, None, None, 0, 0, 0,
                              f"new {name} coordinates read into the old order: "
                              f"{count_inversions(keys, codes)} endpoint pairs out of order"))
    swaps = starts = stops = 0
    for t in range(1, len(keys)):
        u = t
        while u > 0 and endpoint_before(keys[u], codes[u], keys[u - 1], codes[u - 1]):
            walker, passed = int(codes[u]), int(codes[u - 1])
            keys[[u - 1, u]] = keys[[u, u - 1]]
            codes[[u - 1, u]] = codes[[u, u - 1]]
            swaps += 1
            event = None
            if walker & 1 == 0 and passed & 1 == 1:
                event, starts = "starts", starts + 1
            elif walker & 1 == 1 and passed & 1 == 0:
                event, stops = "stops", stops + 1
            end = ("min", "max")
            note = (f"swap {swaps}: {walker >> 1} {end[walker & 1]} passes {passed >> 1} {end[passed & 1]}"
                    + (f": boxes {walker >> 1} and {passed >> 1} {'start' if event == 'starts' else 'stop'}"
                       f" overlapping on {name}" if event else ""))
            frames.append(RepairFrame(keys.copy(), codes.copy(), (u - 1, u), event,
                                      (walker >> 1, passed >> 1), swaps, starts, stops, note))
            u -= 1
    # the library's own kernel must agree
    k2, c2 = refreshed_keys(frames[1].codes, new, axis), frames[1].codes.copy()
    lib_swaps = insertion_sort_endpoints(k2, c2, len(k2))
    if lib_swaps != swaps or not (np.array_equal(k2, keys) and np.array_equal(c2, codes)):
        raise RuntimeError("the recorded repair disagrees with insertion_sort_endpoints")
    return frames, new


def repair_stepper(boxes, moved, axis: int = 0, *, still_steps=None, still_ncols: int = 2,
                   still_panel=(4.8, 2.9), **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through the insertion-sort repair after boxes move.

    Each frame draws the endpoint array as a row of cells (top, labelled id and
    min/max, the swapped pair filled: vermillion when a min passed a max, blue
    when a max passed a min, orange otherwise) joined by a line to each
    endpoint's coordinate on the sweep axis (bottom): lines that cross are the
    pairs still out of order. The title counts swaps and overlap events so far.

    Parameters
    ----------
    boxes, moved, axis
        As :func:`repair_frames`.
    still_steps : sequence of int, optional
        The steps of the still stored beside the widget (default: the new
        coordinates in the old order, the first swap that ends an overlap (or
        else the first that starts one), and the sorted end).
    still_ncols : int
        Panels per row of the still.
    still_panel : tuple of 2 floats
        Inches per panel of the still: the array of cells needs more room than
        :meth:`~lessons_lib.widgets.Stepper.show_steps`' default.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper` (``figsize`` etc.).

    Raises
    ------
    ValueError
        As :func:`repair_frames`.

    Example
    -------
    >>> st = repair_stepper([[0, 0, 1, 1], [2, 0, 3, 1]], {0: [4, 0, 5, 1]})
    >>> len(st) > 1
    True
    """
    from ..widgets import Stepper

    frames, new = repair_frames(boxes, moved, axis)
    b = as_boxes(boxes)
    name = "xy"[axis]
    lo = float(min(b[:, axis].min(), new[:, axis].min()))
    hi = float(max(b[:, axis + 2].max(), new[:, axis + 2].max()))
    span = max(hi - lo, 1e-9)
    m = len(frames[0].keys)
    cells = lo + span * (np.arange(m) + 0.5) / m

    def draw(ax, fr, prev):
        rank = np.empty(m, dtype=np.int64)
        rank[np.argsort(fr.keys, kind="stable")] = np.arange(m)
        for t in range(m):
            c = int(fr.codes[t])
            is_max = c & 1
            hit = fr.swapped is not None and t in fr.swapped
            ax.plot([cells[t], fr.keys[t]], [1.0, 0.0], color="0.6", linewidth=0.8, zorder=1)
            ax.text(cells[t], 1.0, f"{c >> 1}\n{'max' if is_max else 'min'}", ha="center", va="center",
                    fontsize=8, zorder=3,
                    bbox=dict(boxstyle="round,pad=0.2", fc=SWAP_COLORS[fr.event] if hit else "white",
                              ec=style.BLACK if hit else "0.5"))
            ax.plot(fr.keys[t], 0.0, marker="<" if is_max else ">", color=style.PURPLE if is_max else style.GREEN,
                    markersize=7, zorder=2)
            # box ids under the axis, on two staggered rows so that neighbours do not collide
            ax.annotate(str(c >> 1), (fr.keys[t], 0.0), xytext=(0, -11 - 10 * (rank[t] % 2)),
                        textcoords="offset points", ha="center", va="top", fontsize=8)
        ax.plot([], [], ">", color=style.GREEN, label="min endpoint")
        ax.plot([], [], "<", color=style.PURPLE, label="max endpoint")
        for event, text in (("starts", "min passes max: overlap starts"), ("stops", "max passes min: overlap stops"),
                            (None, "other swap")):
            ax.plot([], [], "s", color=SWAP_COLORS[event], markeredgecolor=style.BLACK, label=text)
        ax.axhline(0.0, color=style.BLACK, linewidth=0.8)
        ax.set_ylim(-0.55, 1.3)
        ax.set_xlim(lo - 0.04 * span, hi + 0.04 * span)
        ax.set_yticks([0.0, 1.0], [f"on {name}", "array"])
        ax.set_xlabel(f"{name} (world units)")
        if fr.swapped is None:
            title = "sorted, before the move" if fr is frames[0] else "new keys in the old order"
        else:
            title = f"after swap {fr.swaps}: overlaps started {fr.starts}, stopped {fr.stops}"
        ax.set_title(title, fontsize="medium")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3, fontsize="small")

    if still_steps is None:
        first = {fr.event: i for i, fr in reversed(list(enumerate(frames))) if fr.event}
        still_steps = sorted({1, first.get("stops", first.get("starts", 1)), len(frames) - 1})
    options = {"figsize": (7.5, 4.2), "title": f"Insertion-sort repair of the endpoints on {name}",
               "key_steps": still_steps, "still_ncols": still_ncols, "still_panel_size": still_panel}
    options.update(stepper_options)
    labels = [f"{i}/{len(frames) - 1}: {fr.note}" for i, fr in enumerate(frames)]
    return Stepper(frames, draw, labels=labels, **options)


# --------------------------------------------------------------------------
# 5. Temporal coherence, frame after frame
# --------------------------------------------------------------------------
def coherence_run(boxes, frames: int = 30, step: float = 1.0, seed: int = 0) -> dict[str, np.ndarray]:
    """Move every box a small step per frame; compare insertion sort with a full re-sort.

    Two :class:`~lessons_lib.structures.sweep_and_prune.SweepAndPrune` structures follow
    the same motion (each box keeps a random velocity of length ``step`` per
    frame, reflected at the edges of the starting bounding box): one with
    ``incremental=False`` (sort from scratch each frame), one with
    ``incremental=True`` (insertion sort from the last frame's order). Each
    frame both call ``update_many`` and ``pairs()``, and their pairs are
    checked equal. The *sort step* alone is also timed on copies of the
    endpoint arrays: refresh the keys, then insertion sort or full sort.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Starting boxes.
    frames : int
        Number of frames (>= 1).
    step : float
        Distance moved per frame, in world units (>= 0).
    seed : int

    Returns
    -------
    dict of numpy.ndarray, each shape (frames,)
        ``"swaps"`` (int64: neighbour exchanges of the insertion sort);
        ``"insertion_ms"``, ``"resort_ms"`` (float64: the sort step alone,
        key refresh included, best of 3, milliseconds); ``"update_inc_ms"``, ``"update_full_ms"``
        (``update_many`` wall times, which also include the base class's id
        lookups); ``"pairs"`` (int64).

    Raises
    ------
    ValueError
        Bad boxes, ``frames < 1`` or ``step < 0``.
    AssertionError
        If the two structures ever disagree (a bug).
    """
    from ..structures.endpoints import refresh_keys, sort_endpoints
    from ..structures.sweep_and_prune import SweepAndPrune, insertion_sort_endpoints

    b = as_boxes(boxes).copy()
    if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
        raise ValueError(f"frames must be a positive integer, got {frames!r}")
    if not step >= 0:
        raise ValueError(f"step must be >= 0, got {step!r}")
    # a seed sequence unlike the scenes' plain seeds: with the same stream, the angles
    # would follow the x positions and neighbours would move in step (no swaps)
    rng = np.random.default_rng((808, seed))
    angle = rng.uniform(0, 2 * np.pi, len(b))
    vel = step * np.column_stack([np.cos(angle), np.sin(angle)])
    lo, hi = b[:, :2].min(axis=0), b[:, 2:].max(axis=0)
    full = SweepAndPrune.from_boxes(b, incremental=False)
    inc = SweepAndPrune.from_boxes(b, incremental=True)
    ids = np.arange(len(b), dtype=np.int64)
    inc.update_many(ids, b)  # compile / warm up the kernels
    full.update_many(ids, b)
    out = {k: [] for k in ("swaps", "insertion_ms", "resort_ms", "update_inc_ms", "update_full_ms", "pairs")}
    for _ in range(frames):
        b[:, :2] += vel
        b[:, 2:] += vel
        for d in (0, 1):  # bounce off the edges of the starting bounding box
            vel[(b[:, d] < lo[d]) | (b[:, d + 2] > hi[d]), d] *= -1
        m, keys, codes = inc.m, inc.keys[: inc.m].copy(), inc.codes[: inc.m].copy()
        t0 = time.perf_counter()
        full.update_many(ids, b)
        t1 = time.perf_counter()
        inc.update_many(ids, b)
        t2 = time.perf_counter()
        sort_ms = []
        for sorter in (insertion_sort_endpoints, sort_endpoints):
            best = np.inf
            for _ in range(3):  # best of 3: a shared machine adds spikes, not savings
                k, c = keys.copy(), codes.copy()
                t3 = time.perf_counter()
                refresh_keys(k, c, m, inc.elements.boxes, inc.axis)
                sorter(k, c, m)
                best = min(best, time.perf_counter() - t3)
            sort_ms.append(1e3 * best)
        p_full, p_inc = full.pairs(), inc.pairs()
        assert np.array_equal(p_full, p_inc), "full re-sort and insertion sort disagree"
        out["update_full_ms"].append(1e3 * (t1 - t0))
        out["update_inc_ms"].append(1e3 * (t2 - t1))
        out["insertion_ms"].append(sort_ms[0])
        out["resort_ms"].append(sort_ms[1])
        out["swaps"].append(inc.last_swaps)
        out["pairs"].append(len(p_inc))
    return {k: np.array(v, dtype=np.int64 if k in ("swaps", "pairs") else np.float64) for k, v in out.items()}


# --------------------------------------------------------------------------
# 6. The stored measurement: one frame at n = 100,000, by distance moved
# --------------------------------------------------------------------------
def _cpu_ms(fn, repeat: int) -> float:
    """Median CPU milliseconds of ``fn()`` (``time.process_time``: waiting for a shared core does not count)."""
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return 1e3 * float(np.median(times))


def frame_costs(n: int = 100_000, steps=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0), repeat: int = 5, seed: int = 1,
                log=None) -> list[dict]:
    """Measure one frame of motion on the ``random`` scene scaled to ``n``, for each distance moved.

    For each ``step`` (world units per frame; the boxes are 12 to 16 units wide)
    every box moves by a random vector of length at most ``step``
    (:func:`lessons_lib.scenes.moved`). Measured, as median CPU milliseconds
    over ``repeat`` frames that go back and forth between the two positions:

    * the sort step alone on the sweep axis: insertion sort from last frame's
      order against a full re-sort (numpy's quicksort), on copies of the same
      refreshed keys;
    * a whole frame, ``update_many`` of every box then ``pairs()``, for three
      designs: insertion sort + sweep (``SweepAndPrune()``), full re-sort +
      sweep (``incremental=False``), and the kept pair set of [Cohen1995]
      (``PersistentSweepAndPrune()``: both axes sorted, no sweep).

    The three designs' pairs are checked equal every frame.

    Returns
    -------
    list of dict
        One row per step: ``n, step, swaps_per_endpoint, sort_insertion_ms,
        sort_full_ms, frame_insertion_ms, frame_resort_ms, frame_kept_pairs_ms,
        pairs``.

    Raises
    ------
    AssertionError
        If the designs ever disagree (a bug, not a measurement).
    """
    from ..scenes import moved, scaled_scene
    from ..structures.endpoints import sort_endpoints
    from ..structures.persistent_sweep_and_prune import PersistentSweepAndPrune
    from ..structures.sweep_and_prune import SweepAndPrune, insertion_sort_endpoints

    boxes = scaled_scene("random", n)
    ids = np.arange(n, dtype=np.int64)
    rows = []
    for step in steps:
        there = moved(boxes, step, seed=seed)
        base = SweepAndPrune.from_boxes(boxes)
        keys, codes, _ = endpoint_arrays(base)
        fresh = refreshed_keys(codes, there, base.axis)
        m = len(codes)

        def sort_with(sorter):
            k, c = fresh.copy(), codes.copy()
            return sorter(k, c, m)

        swaps = int(sort_with(insertion_sort_endpoints))
        t_ins = _cpu_ms(lambda: sort_with(insertion_sort_endpoints), repeat)
        t_full = _cpu_ms(lambda: sort_with(sort_endpoints), repeat)
        designs = {"insertion": SweepAndPrune.from_boxes(boxes),
                   "resort": SweepAndPrune.from_boxes(boxes, incremental=False),
                   "kept_pairs": PersistentSweepAndPrune.from_boxes(boxes)}
        frame, found = {}, {}
        for name, bp in designs.items():
            times = []
            for r in range(2 * max(1, repeat)):
                target = there if r % 2 == 0 else boxes
                t0 = time.process_time()
                bp.update_many(ids, target)
                p = bp.pairs()
                times.append(time.process_time() - t0)
                if r % 2 == 0:
                    found[name] = p
            frame[name] = 1e3 * float(np.median(times))
        ref = found["resort"]
        for name, p in found.items():
            assert np.array_equal(p, ref), f"{name}: pairs differ from the full re-sort's"
        rows.append({"n": int(n), "step": float(step), "swaps_per_endpoint": swaps / m,
                     "sort_insertion_ms": t_ins, "sort_full_ms": t_full,
                     "frame_insertion_ms": frame["insertion"], "frame_resort_ms": frame["resort"],
                     "frame_kept_pairs_ms": frame["kept_pairs"], "pairs": int(len(ref))})
        if log:
            log(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in rows[-1].items()))
    return rows


def store_results(n: int = 100_000, repeat: int = 5, log=print, *, steps=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                  name: str = COHERENCE_RESULTS):
    """Run :func:`frame_costs` and write ``data/results/<name>.csv`` (``name`` may be a path); return its path."""
    from ..data import save_results

    rows = frame_costs(n, steps=steps, repeat=repeat, log=log)
    return save_results(name, rows, command="python -m lessons_lib.labs.sweep --store",
                        what=f"lesson 08: one frame of the random scene scaled to n = {n:,}, by distance moved per "
                             f"frame; sort step and whole frame (update_many + pairs), median CPU ms of {repeat} "
                             "frames back and forth")


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if "--store" in sys.argv[1:]:
        print(f"wrote {store_results()}")
    else:
        print("usage: python -m lessons_lib.labs.sweep --store   (writes data/results/sweep_coherence.csv)")

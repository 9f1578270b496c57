"""Lesson 01's lab: the double loop of brute force, one box test per step."""
from __future__ import annotations

import numpy as np

from .. import style, viz
from ..geometry import as_boxes
from ..widgets import Stepper

__all__ = ["HIT_COLOR", "MISS_COLOR", "pair_test_stepper"]

#: The two boxes of a test that finds a pair (the course's colour for a box in a pair).
HIT_COLOR = style.HIGHLIGHT_COLOR
#: The two boxes of a test that finds nothing.
MISS_COLOR = style.BLACK


def pair_test_stepper(boxes, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through the double loop, one box test per step.

    Step 0 shows the boxes; step ``t`` shows test number ``t``: the two boxes
    compared (outlined), whether they intersect, and every pair found so far.
    Meant for a handful of boxes (``n (n - 1) / 2`` steps).

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        Closed AABBs, ``n <= 12``.
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper` (e.g. ``figsize``, or
        ``key_steps``: the tests its still shows side by side).

    Raises
    ------
    ValueError
        Bad boxes, or more than 12 boxes (66 steps).
    """

    b = as_boxes(boxes)
    if len(b) > 12:
        raise ValueError(f"pair_test_stepper is for at most 12 boxes, got {len(b)}")
    frames = [(None, None, False, ())]
    found = ()
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            hit = bool(
                (b[i, 0] <= b[j, 2]) & (b[j, 0] <= b[i, 2]) & (b[i, 1] <= b[j, 3]) & (b[j, 1] <= b[i, 3])
            )
            found = found + ((i, j),) if hit else found
            frames.append((i, j, hit, found))
    total = len(frames) - 1
    labels = ["the boxes, before any test"] + [
        f"test {t}/{total}: boxes {i} and {j} {'intersect' if hit else 'do not intersect'}; "
        f"{len(f)} pair{'s' if len(f) != 1 else ''} found"
        for t, (i, j, hit, f) in enumerate(frames[1:], start=1)
    ]
    world = viz.covering_box(b)

    def draw(ax, frame, prev):
        i, j, hit, pairs = frame
        tested = [] if i is None else [i, j]
        viz.draw_boxes(ax, b, highlight=tested, annotate=True, label="box",
                       highlight_color=HIT_COLOR if hit else MISS_COLOR,
                       highlight_label="tested pair: " + ("hit" if hit else "miss"))
        viz.draw_pairs(ax, b, np.array(pairs, dtype=np.int64).reshape(-1, 2), label="pair found")
        viz.set_world(ax, world)
        short = "before any test" if i is None else f"test {frames.index(frame)}/{total}: {i} vs {j}, {'hit' if hit else 'miss'}"
        viz.style_world_axes(ax, title=short)

    return Stepper(frames, draw, labels=labels, title="Brute force: every pair, one test at a time",
                   **stepper_options)

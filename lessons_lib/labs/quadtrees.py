"""Lessons 04-05's lab: the free list stepped through, and the naive tree's memory measured."""
from __future__ import annotations

import time
import tracemalloc

from matplotlib.patches import Rectangle

from ..core.freelist import FreeList
from ..structures.naive_quadtree import NaiveQuadtree
from ..widgets import Stepper

__all__ = ["free_list_stepper", "naive_footprint"]


# --------------------------------------------------------------------------
# A Stepper through free-list operations (lesson 05)
# --------------------------------------------------------------------------
def free_list_stepper(operations, *, width: int = 1, **stepper_options):
    """A :class:`~lessons_lib.widgets.Stepper` through ``("insert", value)`` / ``("erase", index)`` steps.

    Each frame draws the array as a row of cells: live cells show their value,
    holes are grey and show the next hole they point to, with an arrow from
    ``head`` along the chain of holes.

    Parameters
    ----------
    operations : sequence of tuple
        ``("insert", value)`` or ``("erase", index)``; at most 40 steps.
    width : int
        Fields per record (values are shown from field 0 of live cells).
    **stepper_options
        Passed to :class:`~lessons_lib.widgets.Stepper`.

    Raises
    ------
    ValueError
        An unknown operation, too many steps; errors of :meth:`FreeList.erase`.
    """

    ops = list(operations)
    if len(ops) > 40:
        raise ValueError(f"free_list_stepper is for at most 40 steps, got {len(ops)}")
    fl = FreeList(width=width, capacity=4)
    frames = [(fl.data[: fl.range()].copy(), fl.holes(), None, "empty free list")]
    for k, op in enumerate(ops, 1):
        if not isinstance(op, (tuple, list)) or len(op) != 2 or op[0] not in ("insert", "erase"):
            raise ValueError(f"step {k}: expected ('insert', value) or ('erase', index), got {op!r}")
        if op[0] == "insert":
            i = fl.insert([op[1]] * width if width > 1 else op[1])
            label = f"insert {op[1]} -> index {i}"
        else:
            fl.erase(int(op[1]))
            i = int(op[1])
            label = f"erase index {i}: it becomes the first hole"
        frames.append((fl.data[: fl.range()].copy(), fl.holes(), i, label))
    size = max(len(f[0]) for f in frames)

    def draw(ax, frame, prev):
        data, holes, touched, label = frame
        hole_set = set(holes)
        for i in range(size):
            if i >= len(data):
                ax.add_patch(_rect(i, "white", "0.85", ":"))
                continue
            free = i in hole_set
            ax.add_patch(_rect(i, "0.85" if free else "tab:blue", "tab:orange" if i == touched else "0.2",
                               "-", alpha=1.0 if free else 0.35, lw=3 if i == touched else 1))
            txt = f"next\n{int(data[i, 0])}" if free else str(int(data[i, 0]))
            ax.text(i + 0.5, 0.5, txt, ha="center", va="center", fontsize="small")
            ax.text(i + 0.5, -0.25, str(i), ha="center", va="center", fontsize="x-small", color="0.3")
        chain = [-1.2] + [h + 0.5 for h in holes]
        ax.text(-0.9, 0.5, "head", ha="center", va="center", fontsize="small")
        for a, b in zip(chain[:-1], chain[1:]):
            ax.annotate("", xy=(b, 1.05), xytext=(a if a > 0 else -0.9, 1.05),
                        arrowprops={"arrowstyle": "->", "color": "tab:red", "connectionstyle": "arc3,rad=-0.4"})
        ax.plot([], [], color="tab:red", label="free-list chain (head -> holes)")
        ax.add_patch(_rect(-10, "tab:blue", "0.2", "-", alpha=0.35, label="live record"))
        ax.add_patch(_rect(-10, "0.85", "0.2", "-", label="hole"))
        ax.set_xlim(-1.6, size + 0.2)
        ax.set_ylim(-0.6, 2.0)
        ax.set_aspect("equal")
        ax.set_yticks([])
        ax.set_xlabel("index in the array")
        ax.set_title(label, fontsize="medium")
        ax.legend(loc="upper right", fontsize="x-small")

    return Stepper(frames, draw, labels=[f[3] for f in frames], title="An indexed free list",
                   **{"figsize": (max(5.0, 0.6 * size + 2), 2.8), **stepper_options})


def _rect(i, face, edge, ls, alpha=1.0, lw=1.0, label=None):
    return Rectangle((i, 0), 1, 1, facecolor=face, edgecolor=edge, linestyle=ls, alpha=alpha, linewidth=lw,
                     label=label)


def naive_footprint(boxes, **params) -> tuple[NaiveQuadtree, int, float]:
    """Build a NaiveQuadtree under tracemalloc: ``(tree, bytes allocated and still held, build seconds)``.

    The bytes include the Python objects of the nodes, their rectangles and
    lists, and the element table's arrays (numpy reports them to tracemalloc).
    """
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        tree = NaiveQuadtree.from_boxes(boxes, **params)
        build = time.perf_counter() - t0
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return tree, held, build

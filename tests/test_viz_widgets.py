"""Drawing helpers (lessons_lib.viz) and the step-through widget (lessons_lib.widgets).

Everything runs headless: figures are ``matplotlib.figure.Figure`` objects
rendered with Agg, and ipywidgets work without a kernel.
"""
import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np
import pytest
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

from lessons_lib import STRUCTURES, make_scene
from lessons_lib.base import BroadPhase
from lessons_lib.structures.brute_force import brute_force_pairs
from lessons_lib.viz import (
    FRAME_BUDGETS_MS,
    X_LABEL,
    Y_LABEL,
    draw_boxes,
    draw_pairs,
    draw_regions,
    draw_structure,
    frame_budget_lines,
    set_world,
)
from lessons_lib.widgets import Stepper, snapshot_changes

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def ax():
    return Figure().add_subplot()


def n_paths(artist):
    return len(artist.get_paths()) if isinstance(artist, PolyCollection) else len(artist.get_segments())


def legend_texts(ax):
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


# -- a toy structure whose regions change ------------------------------------
class LazyGrid(BroadPhase):
    """4 x 4 grid over the world; a cell becomes a region when a box touches it
    and is only dropped by cleanup(), so new and freed regions both show up."""

    def __init__(self, *, world=None):
        super().__init__(world=world)
        self._cells = set()

    def _cell_range(self, box):
        w = self.world
        sx, sy = (w[2] - w[0]) / 4, (w[3] - w[1]) / 4
        cx = np.clip(((box[[0, 2]] - w[0]) // sx).astype(int), 0, 3)
        cy = np.clip(((box[[1, 3]] - w[1]) // sy).astype(int), 0, 3)
        return {(i, j) for i in range(cx[0], cx[1] + 1) for j in range(cy[0], cy[1] + 1)}

    def _insert(self, slot, box):
        self._cells |= self._cell_range(box)

    def _remove(self, slot, box):
        pass

    def _clear(self):
        pass

    def _cleanup(self):
        slots = self.elements.live_slots()
        self._cells = set().union(*[self._cell_range(self.elements.boxes[s]) for s in slots.tolist()])

    def _query(self, box):
        slots = self.elements.live_slots()
        b = self.elements.boxes[slots]
        return slots[(b[:, 0] <= box[2]) & (box[0] <= b[:, 2]) & (b[:, 1] <= box[3]) & (box[1] <= b[:, 3])]

    def _pairs(self):
        slots = self.elements.live_slots()
        return slots[brute_force_pairs(self.elements.boxes[slots])]

    def regions(self):
        w = self.world
        sx, sy = (w[2] - w[0]) / 4, (w[3] - w[1]) / 4
        cells = sorted(self._cells)
        rects = [[w[0] + i * sx, w[1] + j * sy, w[0] + (i + 1) * sx, w[1] + (j + 1) * sy] for i, j in cells]
        rects = np.array([w.tolist()] + rects, dtype=np.float64)
        return rects, np.array([0] + [1] * len(cells), dtype=np.int64)


OPS = [
    ("insert", 0, [10, 10, 30, 30]),
    ("insert", 1, [20, 20, 40, 40]),
    ("insert", 2, [100, 50, 130, 90]),
    ("update", 0, [110, 60, 140, 80]),
    ("remove", 1),
    ("cleanup",),
    ("move", 2, [5, 5, 15, 15]),
    ("clear",),
]
WORLD = [0, 0, 160, 120]


@pytest.fixture(scope="module")
def stepper():
    return Stepper.from_operations("brute_force", OPS, world=WORLD, dpi=40)


# -- viz: boxes ---------------------------------------------------------------
def test_draw_boxes_empty_adds_nothing(ax):
    assert draw_boxes(ax, np.empty((0, 4))) == []
    assert draw_boxes(ax, [], annotate=True) == []
    assert len(ax.collections) == 0


def test_draw_boxes_one_box(ax):
    (coll,) = draw_boxes(ax, [[1, 2, 3, 4]], label="box")
    assert isinstance(coll, PolyCollection) and n_paths(coll) == 1
    assert coll.get_label() == "box"
    assert np.allclose(coll.get_paths()[0].vertices[:4], [[1, 2], [3, 2], [3, 4], [1, 4]])


def test_draw_boxes_uses_one_collection_per_series(ax):
    boxes = make_scene("random", 500)
    ids = np.arange(500, dtype=np.int64) * 10
    artists = draw_boxes(ax, boxes, ids=ids, highlight=[0, 30, 4990])
    assert len(artists) == 2 and len(ax.collections) == 2 and len(ax.patches) == 0
    assert [n_paths(a) for a in artists] == [497, 3]


def test_draw_boxes_highlight_by_mask_and_rows(ax):
    boxes = make_scene("random", 10)
    mask = np.zeros(10, bool)
    mask[[2, 5]] = True
    assert [n_paths(a) for a in draw_boxes(ax, boxes, highlight=mask)] == [8, 2]
    assert [n_paths(a) for a in draw_boxes(ax, boxes, highlight=[9])] == [9, 1]
    assert [n_paths(a) for a in draw_boxes(ax, boxes, highlight=np.ones(10, bool))] == [10]


def test_draw_boxes_annotate_writes_ids(ax):
    artists = draw_boxes(ax, make_scene("random", 5), ids=[4, 8, 15, 16, 23], annotate=True)
    assert [t.get_text() for t in ax.texts] == ["4", "8", "15", "16", "23"]
    assert len(artists) == 1 + 5


def test_draw_boxes_rejects_bad_input(ax):
    with pytest.raises(ValueError, match="box 1 has xmin 5.0 > xmax 3.0"):
        draw_boxes(ax, [[0, 0, 1, 1], [5, 0, 3, 1]])
    with pytest.raises(ValueError, match="highlight id 99"):
        draw_boxes(ax, [[0, 0, 1, 1]], ids=[7], highlight=[99])
    with pytest.raises(ValueError, match="max_labels"):
        draw_boxes(ax, make_scene("random", 200), annotate=True)
    with pytest.raises(ValueError, match="unique"):
        draw_boxes(ax, [[0, 0, 1, 1], [0, 0, 1, 1]], ids=[3, 3])


# -- viz: pairs and regions ------------------------------------------------------
def test_draw_pairs_lines_and_marked_boxes(ax):
    boxes = make_scene("large_boxes", 60)
    pairs = brute_force_pairs(boxes)
    assert len(pairs) > 0
    lines, marks = draw_pairs(ax, boxes, pairs, mark_boxes=True)
    assert isinstance(lines, LineCollection) and n_paths(lines) == len(pairs)
    assert n_paths(marks) == len(np.unique(pairs))
    seg = lines.get_segments()[0]
    i, j = pairs[0]
    assert np.allclose(seg, [0.5 * (boxes[i, :2] + boxes[i, 2:]), 0.5 * (boxes[j, :2] + boxes[j, 2:])])


def test_draw_pairs_maps_ids_and_handles_no_pairs(ax):
    boxes = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [10, 10, 11, 11]], dtype=float)
    (lines,) = draw_pairs(ax, boxes, [[70, 50]], ids=[50, 70, 90])
    assert np.allclose(lines.get_segments()[0], [[2, 2], [1, 1]])
    assert draw_pairs(ax, boxes, np.empty((0, 2), np.int64)) == []
    assert draw_pairs(ax, np.empty((0, 4)), []) == []
    with pytest.raises(ValueError, match="pair id 60"):
        draw_pairs(ax, boxes, [[50, 60]], ids=[50, 70, 90])


def test_draw_regions_from_structure_and_tuple(ax):
    bp = STRUCTURES["brute_force"].from_boxes(make_scene("random", 20))
    (coll,) = draw_regions(ax, bp)
    assert n_paths(coll) == 1 and coll.get_label() == "world"
    rects = np.array([[0, 0, 8, 8], [0, 0, 4, 4], [4, 0, 8, 4], [0, 0, 2, 2]], dtype=float)
    (coll,) = draw_regions(ax, (rects, np.array([0, 1, 1, 2])))
    assert n_paths(coll) == 4
    assert list(coll.get_linewidths()) == [2.0, 1.5, 1.5, 1.0]  # thinner with depth
    assert len({tuple(c) for c in coll.get_edgecolors()}) == 3  # one colour per depth
    assert draw_regions(ax, (np.empty((0, 4)), np.empty(0, np.int64))) == []
    with pytest.raises(ValueError, match="negative"):
        draw_regions(ax, (rects[:1], np.array([-1])))
    with pytest.raises(TypeError):
        draw_regions(ax, rects)


# -- viz: axes ------------------------------------------------------------------------
def test_set_world_pads_equally(ax):
    assert set_world(ax, [0, 0, 800, 600], pad=0.05) is ax
    assert ax.get_xlim() == (-40, 840) and ax.get_ylim() == (-40, 640)
    with pytest.raises(ValueError):
        set_world(ax, [0, 0, 1, 1], pad=-1)


def test_frame_budget_lines(ax):
    ax.plot([1, 2, 3], [0.5, 2.0, 4.0], label="measured")
    lines = frame_budget_lines(ax)
    assert [line.get_label() for line in lines] == ["60 fps budget (16 ms)", "30 fps budget (33 ms)"]
    assert [line.get_ydata()[0] for line in lines] == pytest.approx([16.67, 33.33], abs=0.01)
    assert [ms for ms, _ in FRAME_BUDGETS_MS] == pytest.approx([16.67, 33.33], abs=0.01)
    assert ax.get_ylim()[1] >= 33.3  # budgets stay in view above fast timings


@pytest.mark.parametrize("n", [0, 1, 40])
def test_draw_structure_labels_everything(ax, n):
    bp = STRUCTURES["brute_force"].from_boxes(make_scene("large_boxes", n))
    assert draw_structure(ax, bp, highlight=[0] if n > 1 else None) is ax
    assert ax.get_xlabel() == X_LABEL and ax.get_ylabel() == Y_LABEL
    assert ax.get_title().startswith(f"BruteForce: {n} box")
    assert ax.get_aspect() == 1.0
    if n:
        assert {"world", "box"} <= set(legend_texts(ax))
    if n == 40:
        assert "overlapping pair" in legend_texts(ax)
        assert len(ax.texts) == 0  # too many boxes for automatic id labels
    ax.figure.savefig(os.devnull, format="png")  # renders without error


def test_draw_structure_without_pairs_or_regions(ax):
    bp = STRUCTURES["brute_force"].from_boxes(make_scene("random", 5))
    draw_structure(ax, bp, pairs=False, regions=False, title="five boxes")
    assert ax.get_title() == "five boxes"
    assert len(ax.collections) == 1 and ax.get_legend() is None  # one series: no legend
    assert len(ax.texts) == 5


# -- widgets: recording ---------------------------------------------------------
def test_from_operations_records_one_snapshot_per_op(stepper):
    assert len(stepper) == stepper.n_steps == len(OPS) + 1
    assert [stepper.frame(i).n for i in range(len(stepper))] == [0, 1, 2, 3, 3, 2, 2, 2, 0]
    assert [len(stepper.frame(i).pairs) for i in range(len(stepper))] == [0, 0, 1, 1, 1, 1, 1, 0, 0]
    assert stepper.frame(0).op is None
    assert stepper.label(1) == "step 1/8: insert id 0 at [10, 10, 30, 30] \u2014 1 box, 0 pairs, 1 region"
    assert stepper.label(4).startswith("step 4/8: update id 0 to [110, 60, 140, 80]")
    assert stepper.label(7).startswith("step 7/8: move id 2")
    snap = stepper.frame(3)
    assert snap.ids.tolist() == [0, 1, 2] and not snap.boxes.flags.writeable


def test_snapshots_are_copies_not_views():
    bp = STRUCTURES["brute_force"](world=WORLD)
    s = Stepper.from_operations(bp, OPS[:3])
    bp.insert(99, [0, 0, 1, 1])
    assert s.frame(-1).n == 3 and 99 not in s.frame(-1).ids
    assert len(bp) == 4  # the given structure was driven in place


def test_changes_between_snapshots():
    bp = LazyGrid(world=WORLD)
    s = Stepper.from_operations(bp, OPS[:6])
    ch = snapshot_changes(s.frame(0), s.frame(1))  # first insert: cells (0, 0) and (0, 1) appear
    assert ch.hot.tolist() == [True] and ch.new_regions.sum() == 2 and len(ch.freed[0]) == 0
    ch = snapshot_changes(s.frame(2), s.frame(3))  # insert id 2: 2 x 3 new cells
    assert ch.hot.tolist() == [False, False, True] and ch.new_regions.sum() == 6
    ch = snapshot_changes(s.frame(3), s.frame(4))  # update id 0: old place ghosted, lands in id 2's cells
    assert ch.hot.tolist() == [True, False, False] and ch.ghosts.tolist() == [[10, 10, 30, 30]]
    assert ch.new_regions.sum() == 0
    ch = snapshot_changes(s.frame(4), s.frame(5))  # remove id 1: ghost, regions kept until cleanup
    assert not ch.hot.any() and ch.ghosts.tolist() == [[20, 20, 40, 40]] and len(ch.freed[0]) == 0
    ch = snapshot_changes(s.frame(5), s.frame(6))  # cleanup frees the 2 x 2 cells of id 1 and old id 0
    assert ch.new_regions.sum() == 0 and ch.freed[1].tolist() == [1, 1, 1, 1]
    png = s.png(6)  # freed regions are drawn (dashed) without error
    assert png.startswith(PNG_MAGIC)


@pytest.mark.parametrize(
    "ops, step, exc, words",
    [
        ([("insert", 0, [0, 0, 1, 1]), ("remove", 5)], 2, KeyError, "unknown id 5"),
        ([("insert", 0, [0, 0, 1, 1]), ("insert", 0, [2, 2, 3, 3])], 2, ValueError, "already stored"),
        ([("update", 3, [0, 0, 1, 1])], 1, KeyError, "unknown id 3"),
        ([("insert", 0, [5, 0, 1, 1])], 1, ValueError, "xmin 5.0 > xmax 1.0"),
        ([("cleanup",), ("explode", 1)], 2, ValueError, "unknown operation 'explode'"),
        ([("insert", 0)], 1, ValueError, "takes 2 argument"),
        ([42], 1, ValueError, "an operation is a tuple"),
    ],
)
def test_bad_operation_raises_naming_the_step(ops, step, exc, words):
    with pytest.raises(exc, match=f"step {step}") as info:
        Stepper.from_operations("brute_force", ops)
    assert words in str(info.value)


def test_unknown_structure_name():
    with pytest.raises(ValueError, match="no_such_tree"):
        Stepper.from_operations("no_such_tree", [])


# -- widgets: navigation and pictures ----------------------------------------------
def test_going_back_shows_exactly_the_same_picture(stepper):
    stepper.goto(5)
    forward = stepper.png()
    stepper.goto(2)
    assert stepper.png() != forward
    stepper.goto(5)
    assert stepper.png() == forward
    fresh = Stepper.from_operations("brute_force", OPS, world=WORLD, dpi=40)
    assert fresh.png(5) == forward  # rendering is deterministic, not just cached


def test_next_prev_clamp_at_the_ends(stepper):
    assert stepper.goto(0) == 0
    assert stepper.prev() == 0
    assert stepper.next() == 1
    assert stepper.goto(-1) == len(stepper) - 1
    assert stepper.next() == len(stepper) - 1
    assert stepper.prev() == len(stepper) - 2
    with pytest.raises(IndexError, match="out of range"):
        stepper.goto(len(stepper))
    with pytest.raises(TypeError):
        stepper.goto(1.5)
    stepper.index = 3
    assert stepper.index == 3


def test_figure_is_pyplot_free_and_labelled(stepper):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    fig = stepper.figure(4)
    assert isinstance(fig, Figure) and plt.get_fignums() == before
    (ax,) = fig.axes
    assert ax.get_title().startswith("step 4/8: update id 0")
    assert ax.get_xlabel() == X_LABEL and ax.get_ylabel() == Y_LABEL
    assert {"old place", "inserted / moved", "overlapping pair"} <= set(legend_texts(ax))
    assert fig._suptitle.get_text() == "BruteForce: 8 operations"


def test_show_steps_small_multiples(stepper):
    fig = stepper.show_steps([0, 3, 5, 8], ncols=3)
    drawn = [ax for ax in fig.axes if ax.axison]
    assert len(fig.axes) == 6 and len(drawn) == 4
    assert all(ax.get_legend() is None for ax in drawn) and len(fig.legends) == 1
    assert fig._repr_png_().startswith(PNG_MAGIC)
    with pytest.raises(IndexError):
        stepper.show_steps([0, 99])


def test_generic_stepper_with_any_frames():
    calls = []

    def draw(ax, frame, prev):
        calls.append((frame, prev))
        ax.plot([0, frame], [0, frame], label="line")
        ax.set_title(f"frame {frame}")

    s = Stepper([1, 2, 3], draw, title="toy", figsize=(2, 2), dpi=30)
    assert len(s) == 3 and s.label(2) == "step 2/2"
    assert s.png(1).startswith(PNG_MAGIC)
    assert calls == [(2, 1)]
    s.png(1)
    assert len(calls) == 1  # cached: drawn once
    with pytest.raises(ValueError):
        Stepper([], draw)
    with pytest.raises(TypeError):
        Stepper([1], "not callable")


# -- widgets: the ipywidget ----------------------------------------------------------
def test_widget_slider_and_buttons_drive_the_image():
    import ipywidgets

    s = Stepper.from_operations("brute_force", OPS[:4], world=WORLD, dpi=30)
    box = s.widget()
    ui = s.controls
    assert isinstance(box, ipywidgets.VBox) and s.widget() is box  # built once
    assert isinstance(ui.play, ipywidgets.Play) and isinstance(ui.image, ipywidgets.Image)
    assert "lessons-stepper" in box._dom_classes  # tools/browser_test.py finds Steppers by it
    assert ui.slider.max == len(s) - 1 and ui.prev_button.disabled
    first = ui.image.value
    assert first == s.png(0)

    ui.slider.value = 3
    assert s.index == 3 and ui.image.value == s.png(3) != first
    assert ui.label.value.startswith("step 3/4: insert id 2")

    ui.prev_button.click()
    assert s.index == 2 and ui.slider.value == 2 and ui.image.value == s.png(2)
    ui.next_button.click()
    ui.next_button.click()
    assert s.index == 4 and ui.next_button.disabled
    s.goto(0)
    assert ui.slider.value == 0 and ui.image.value == first


def test_repr_is_short_text(stepper):
    stepper.goto(0)
    assert repr(stepper) == "Stepper(9 steps, at step 0/8: initial state \u2014 0 boxes, 0 pairs, 1 region)"


def test_still_shows_the_key_steps_side_by_side(stepper):
    import struct

    last = len(stepper) - 1
    assert stepper.still_steps() == sorted({0, last // 2, last})
    png = stepper.still_png()
    w, h = struct.unpack(">II", png[16:24])
    assert w >= 480 and h >= 240 and w <= 3 * h, (w, h)  # readable at the size a notebook shows it
    chosen = Stepper.from_operations("uniform_grid", [("insert", 0, [0, 0, 10, 10]), ("insert", 1, [5, 5, 20, 20]),
                                                      ("remove", 0)], key_steps=[1, 2])
    assert chosen.still_steps() == [1, 2]
    with pytest.raises(IndexError, match="out of range"):
        Stepper.from_operations("uniform_grid", [("insert", 0, [0, 0, 10, 10])], key_steps=[5])


def test_the_course_style_is_applied_and_colour_blind_safe():
    import matplotlib as mpl

    from lessons_lib import style

    assert mpl.rcParams["figure.dpi"] == 100
    assert [c.lower() for c in mpl.rcParams["axes.prop_cycle"].by_key()["color"][:4]] == [
        c.lower() for c in style.PALETTE[:4]]
    meanings = [style.BOX_COLOR, style.HIGHLIGHT_COLOR, style.PAIR_COLOR, style.QUERY_COLOR, style.NEW_COLOR]
    assert len(set(meanings)) == len(meanings)  # one meaning per colour

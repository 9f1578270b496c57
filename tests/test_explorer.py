"""The Explorer widget's Python half: every gesture through the methods the browser calls.

The browser half (mouse events on the canvas) is driven by tools/browser_test.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lessons_lib import STRUCTURES, make_scene
from lessons_lib.explorer import (
    CROWDED_BOXES,
    LEGEND_WORDS,
    Explorer,
    changed_entries,
    structure_arrays,
    visit_counts,
)
from lessons_lib.geometry import boxes_overlap
from lessons_lib.structures.brute_force import brute_force_pairs

SMALL = make_scene("random", 25, seed=3)


def snapshot(ex: Explorer):
    """Everything a refused gesture must leave alone."""
    ids, boxes = ex.bp.items()
    rects, depths = ex.bp.regions()
    return ids.copy(), boxes.copy(), ex.bp.pairs().copy(), rects.copy(), depths.copy(), len(ex.history), ex.next_id


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def brute(ex: Explorer, q) -> np.ndarray:
    ids, boxes = ex.bp.items()
    return ids[boxes_overlap(boxes, np.asarray(q, float))]


@pytest.fixture(scope="module", params=sorted(STRUCTURES))
def name(request):
    return request.param


def test_every_structure_click_drag_query_undo(name):
    ex = Explorer(name, SMALL)
    assert len(ex.bp) == len(SMALL)
    before = snapshot(ex)
    # a click on empty space adds a box centred there
    op, i = ex.click(790, 590)
    assert (op, i) == ("insert", len(SMALL)) and i in ex.bp
    # a click on that box removes it
    assert ex.click(790, 590) == ("remove", i) and i not in ex.bp
    # a drag adds a box of the dragged size, given corners in any order
    j = ex.drag(300, 200, 250, 150)
    assert np.array_equal(ex.bp.items()[1][-1], [250, 150, 300, 200])
    # a query drag: hits equal brute force and are kept for the picture
    q = [100, 100, 500, 400]
    hits = ex.drag(500, 100, 100, 400, mode="query")
    assert np.array_equal(hits, brute(ex, q)) and np.array_equal(ex.hits, hits)
    assert ex.visited and all(isinstance(v, int) for _, v in ex.visited)
    # undo the drag-insert, the removal and the click-insert: back to the start
    ex.undo()
    assert j not in ex.bp
    ex.undo()
    ex.undo()
    assert not ex.history and not ex.hits.size
    assert np.array_equal(ex.bp.items()[0], before[0]) and np.array_equal(ex.bp.items()[1], before[1])
    assert np.array_equal(ex.bp.pairs(), before[2])


@pytest.mark.parametrize("message, text", [
    ({"event": "drag", "x0": 10, "y0": 10, "x1": 10, "y1": 50}, "zero width"),
    ({"event": "drag", "x0": 10, "y0": 10, "x1": 60, "y1": 10, "mode": "query"}, "zero height"),
    ({"event": "click", "x": -1, "y": 10}, "outside the world"),
    ({"event": "click", "x": 10, "y": 601}, "outside the world"),
    ({"event": "drag", "x0": 10, "y0": 10, "x1": 900, "y1": 50}, "outside the world"),
    ({"event": "click", "x": float("nan"), "y": 10}, "not a finite point"),
    ({"event": "click", "x": "a", "y": 10}, "needs numbers"),
    ({"event": "button", "name": "undo"}, "nothing to undo"),
    ({"event": "button", "name": "explode"}, "unknown button"),
    ({"event": "wiggle"}, "unknown gesture"),
])
def test_bad_gestures_show_text_and_change_nothing(message, text):
    ex = Explorer("quadtree", SMALL, capacity=4)
    before = snapshot(ex)
    err = ex.handle(message)
    assert text in err and ex.error == err
    assert same(snapshot(ex), before)


def test_input_the_structure_refuses_is_shown_and_changes_nothing():
    ex = Explorer("uniform_grid", SMALL)
    before = snapshot(ex)
    with pytest.raises(ValueError, match="xmin 10.0 > xmax 5.0"):
        ex.insert([10, 10, 5, 5])
    assert same(snapshot(ex), before)
    ex.remove(0)
    ex.undo()
    err = ex.handle({"event": "button", "name": "undo"})
    assert err == "nothing to undo"
    with pytest.raises(KeyError):
        ex.remove(12345)
    assert same(snapshot(ex), before)


def test_error_clears_after_a_good_gesture():
    ex = Explorer("rtree", SMALL)
    assert ex.handle({"event": "click", "x": -5, "y": 5})
    assert ex.handle({"event": "click", "x": 795, "y": 5}) == ""
    assert ex.error == "" and "inserted" in ex.message


def test_reset_rebuilds_the_start_and_cleanup_shrinks_a_quadtree():
    ex = Explorer("quadtree", SMALL, capacity=2)
    start = snapshot(ex)
    n0 = ex.counts()["regions"]
    for k in range(6):
        ex.drag(700 + 3 * k, 500, 702 + 3 * k, 502)
    grown = ex.counts()["regions"]
    assert grown > n0
    for _ in range(6):
        ex.undo()
    assert ex.counts()["regions"] == grown  # removal alone leaves the empty leaves
    ex.handle({"event": "button", "name": "cleanup"})
    assert ex.counts()["regions"] < grown
    ex.click(1, 1)
    ex.handle({"event": "button", "name": "reset"})
    assert same(snapshot(ex), start)


def test_query_disagreeing_with_brute_force_is_reported():
    class Lossy(STRUCTURES["brute_force"]):
        def _query(self, box):
            return super()._query(box)[1:]

    ex = Explorer(Lossy, SMALL)
    err = ex.handle({"event": "drag", "x0": 0, "y0": 0, "x1": 800, "y1": 600, "mode": "query"})
    assert "disagrees with brute force" in err and "missing" in err


@pytest.mark.parametrize("name", ["uniform_grid", "quadtree", "loose_tight_grid", "rtree", "rstar_tree"])
def test_array_view_marks_what_an_insert_changed(name):
    ex = Explorer(name, SMALL)
    rows = ex.array_rows()
    assert rows and all(r["changed"] == [] for r in rows)
    ex.click(400, 300)
    rows = ex.array_rows()
    assert sum(len(r["changed"]) + r["more"] for r in rows) > 0
    for r in rows:
        assert all(r["start"] <= c < r["start"] + len(r["values"]) for c in r["changed"])
        full = next(a.values for a in structure_arrays(ex.bp) if a.name == r["name"])
        assert r["values"] == full[r["start"]: r["start"] + len(r["values"])].tolist()
    ex.drag(0, 0, 100, 100, mode="query")  # a query changes no array
    assert all(r["changed"] == [] and r["more"] == 0 for r in ex.array_rows())


def test_no_array_view_for_other_structures():
    assert structure_arrays(STRUCTURES["kdtree"].from_boxes(SMALL)) == []
    assert Explorer("brute_force", SMALL).array_rows() == []


def test_changed_entries():
    assert changed_entries(None, np.arange(3)).tolist() == []
    assert changed_entries(np.arange(4), np.arange(2)).tolist() == []
    assert changed_entries(np.array([1, 2]), np.array([1, 3, 4])).tolist() == [1, 2]


def test_visit_counts_without_counters_counts_regions():
    bp = STRUCTURES["rtree"].from_boxes(SMALL)
    rects, _ = bp.regions()
    rows = visit_counts(bp, [0, 0, 800, 600])
    assert rows == [("regions touching the window", len(rects))]


def test_static_picture_and_display_bundle():
    ex = Explorer("quadtree", SMALL, capacity=4)
    ex.drag(0, 0, 300, 300, mode="query")
    fig = ex.static()
    assert len(fig.axes) == 2 and "Quadtree" in fig.axes[0].get_title()
    png = ex.png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == ex.png()
    assert len(Explorer("kdtree", SMALL).static().axes) == 1


def test_widget_state_follows_gestures():
    pytest.importorskip("anywidget")
    ex = Explorer("uniform_grid", SMALL, cell_size=100)
    w = ex.widget()
    v0 = w.version
    assert w.info["boxes"] == len(SMALL) and len(w.boxes) == 32 * len(SMALL)
    ex.handle({"event": "click", "x": 790, "y": 590, "seq": 7})
    assert w.version == v0 + 1 and w.ack == 7 and w.info["boxes"] == len(SMALL) + 1
    assert any(r["changed"] for r in w.arrays)
    ex.handle({"event": "click", "x": -3, "y": 0, "seq": 8})
    assert w.ack == 8 and "outside the world" in w.error and w.info["boxes"] == len(SMALL) + 1
    ex.handle({"event": "drag", "x0": 0, "y0": 0, "x1": 400, "y1": 300, "mode": "query", "seq": 9})
    assert w.hits == ex.hits.tolist() and w.query == [0, 0, 400, 300]
    flags = np.frombuffer(w.flags, dtype=np.uint8)
    ids = np.frombuffer(w.ids, dtype=np.float64).astype(np.int64)
    assert np.array_equal(ids[(flags & 2) > 0], ex.hits)


def test_bad_construction():
    with pytest.raises(ValueError, match="unknown structure"):
        Explorer("no_such")
    with pytest.raises(ValueError, match="new_box_size"):
        Explorer("rtree", new_box_size=(0, 3))
    with pytest.raises(ValueError, match="world"):
        Explorer("rtree", world=[0, 0, 0, 10])
    assert np.array_equal(Explorer("rtree", [[-50, 0, 10, 10]]).world, [-50, 0, 800, 600])


# --------------------------------------------------------------------------
# Random gesture sequences: the structure always agrees with brute force, and undo unwinds all
# --------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

coord = st.floats(-50, 850, allow_nan=False)
gesture = st.one_of(
    st.builds(lambda x, y: {"event": "click", "x": x, "y": y}, coord, coord),
    st.builds(lambda a, b, c, d, q: {"event": "drag", "x0": a, "y0": b, "x1": c, "y1": d,
                                      "mode": "query" if q else "insert"}, coord, coord, coord, coord, st.booleans()),
    st.sampled_from([{"event": "button", "name": n} for n in ("cleanup", "undo", "undo")]),
)


@settings(max_examples=15)
@given(name=st.sampled_from(["quadtree", "uniform_grid", "loose_tight_grid", "rtree", "loose_quadtree"]),
       gestures=st.lists(gesture, max_size=12))
def test_random_gestures(name, gestures):
    ex = Explorer(name, SMALL[:8], capacity=2) if "quadtree" in name else Explorer(name, SMALL[:8])
    start = ex.bp.items()
    for g in gestures:
        before = snapshot(ex)
        err = ex.handle(g)
        if err:
            assert same(snapshot(ex), before), (g, err)
        elif g.get("mode") == "query":
            assert np.array_equal(ex.hits, brute(ex, ex.query_box))
        ids, boxes = ex.bp.items()
        expect = ids[brute_force_pairs(boxes)] if len(ids) else np.zeros((0, 2), np.int64)
        assert np.array_equal(ex.bp.pairs(), expect.reshape(-1, 2))
    while ex.history:
        ex.undo()
    assert all(np.array_equal(a, b) for a, b in zip(ex.bp.items(), start))


def test_last_inserted_flag():
    pytest.importorskip("anywidget")
    ex = Explorer("rtree", SMALL)
    w = ex.widget()
    i = ex.click(795, 5)[1]
    flags = np.frombuffer(w.flags, dtype=np.uint8)
    ids = np.frombuffer(w.ids, dtype=np.float64).astype(np.int64)
    assert ids[(flags & 4) > 0].tolist() == [i] == [ex.last_inserted]
    ex.undo()
    assert ex.last_inserted is None and not (np.frombuffer(w.flags, dtype=np.uint8) & 4).any()


def test_canvas_and_still_share_one_colour_per_meaning():
    import re

    from lessons_lib import style
    from lessons_lib.explorer import canvas_colors

    colors = canvas_colors()
    assert (colors["box"], colors["pair"], colors["query"], colors["new"]) == (
        style.BOX_COLOR, style.HIGHLIGHT_COLOR, style.QUERY_COLOR, style.NEW_COLOR)
    assert all(re.fullmatch("#[0-9a-f]{6}", c) for c in colors["regions"])  # what explorer.js's rgba() reads
    assert Explorer("quadtree", SMALL).widget().colors == colors  # the canvas draws with these
    js = (Path(__file__).resolve().parents[1] / "lessons_lib" / "explorer.js").read_text()
    canvas_code = js.split("function render", 1)[1]
    assert not re.findall(r"#[0-9a-fA-F]{6}\b", canvas_code)  # no colour of its own beside the synced ones
    fallback = js.split("const FALLBACK_WORDS", 1)[1].split("};", 1)[0]
    for word in LEGEND_WORDS.values():
        assert json.dumps(word) in fallback  # the live legend names each meaning, in the still's words
    ex = Explorer("loose_tight_grid", SMALL)
    ex.drag(0, 0, 400, 300, mode="query")
    ex.click(790, 590)
    ex.click(790, 590)  # removed again: a ghost
    ex.drag(0, 0, 400, 300, mode="query")
    w = ex.widget()
    assert w.info["words"] == LEGEND_WORDS
    ex.remove(0)
    fig = ex.static()
    labels = set(fig.legends[0].texts[k].get_text() for k in range(len(fig.legends[0].texts)))
    assert {LEGEND_WORDS["tight"], LEGEND_WORDS["ghost"], LEGEND_WORDS["box"]} <= labels


def _lab(hex_colour):
    """CIE L*a*b* of an sRGB colour (D65)."""
    from matplotlib.colors import to_rgb

    c = np.array(to_rgb(hex_colour))
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ c
    xyz /= [0.95047, 1.0, 1.08883]
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_region_colours_are_a_ramp_far_from_every_meaning_colour():
    from lessons_lib import style
    from lessons_lib.explorer import canvas_colors

    regions = canvas_colors()["regions"]
    lightness = [_lab(c)[0] for c in regions]
    assert all(a < b for a, b in zip(lightness, lightness[1:]))  # sequential: dark (shallow) to light (deep)
    assert lightness[-1] < 75  # the deepest level still shows on white
    for meaning in (style.BOX_COLOR, style.HIGHLIGHT_COLOR, style.QUERY_COLOR, style.NEW_COLOR, style.PAIR_COLOR):
        gap = min(np.linalg.norm(_lab(meaning) - _lab(c)) for c in regions)
        assert gap > 30, (meaning, gap)  # far apart in CIELAB (a just noticeable difference is about 2.3)


def test_tight_cells_of_the_loose_tight_grid():
    ex = Explorer("loose_tight_grid", SMALL)
    rects, listing = ex.tight_cells()
    g = ex.bp
    assert rects.shape == (g.trows * g.tcols, 4) and listing.shape == (len(rects),) and listing.any()
    assert ex.region_word() == "loose cell" and Explorer("quadtree", SMALL).tight_cells() is None
    pytest.importorskip("anywidget")
    w = ex.widget()
    assert len(w.tight) == 32 * len(rects) and np.array_equal(np.frombuffer(w.tight_listing, np.uint8) > 0, listing)


def test_the_last_gesture_is_drawn_on_top_and_a_crowded_picture_is_veiled():
    pytest.importorskip("anywidget")
    ex = Explorer("quadtree", make_scene("random", CROWDED_BOXES, seed=5))
    w = ex.widget()
    assert w.info["crowded"] and ex.crowded()
    ids, boxes = ex.bp.items()
    box = boxes[0]
    i = ex.insert(box + [1, 1, 1, 1])  # overlaps box 0 at least
    flags = np.frombuffer(w.flags, np.uint8)
    ids, boxes = ex.bp.items()
    touched = ids[(flags & 8) > 0]
    assert 0 in touched and i not in touched
    assert np.array_equal(touched, ids[boxes_overlap(boxes, boxes[ids == i][0]) & (ids != i)])
    ex.remove(i)  # the ghost of the box just removed, and the boxes it overlapped
    ids = ex.bp.items()[0]
    assert w.ghost == ex.last_removed.tolist() and 0 in ids[(np.frombuffer(w.flags, np.uint8) & 8) > 0]
    fig = ex.static()
    assert LEGEND_WORDS["veil"] in [t.get_text() for t in fig.legends[0].texts]
    ex.undo()  # undoing the removal shows the box again as just added
    assert ex.last_inserted == i and ex.last_removed is None
    ex.undo()  # undoing the insert leaves its ghost
    assert i not in ex.bp and ex.last_removed is not None
    assert not Explorer("quadtree", SMALL).crowded()


def test_cleanup_says_what_it_changed():
    ex = Explorer("quadtree", make_scene("random", 40, seed=2), capacity=2)
    assert ex.cleanup().startswith("cleanup: nothing to clean up: still ") and "remove boxes first" in ex.message
    for i in range(30):
        ex.remove(i)
    before = ex.counts()["regions"]
    said = ex.cleanup()
    after = ex.counts()["regions"]
    assert after < before and said == ex.message
    assert said.startswith(f"cleanup: {before} -> {after} nodes ({before - after} fewer); memory ")
    assert "array entries rewritten" in said


def test_start_with_removals_then_cleanup_and_reset():
    boxes = make_scene("random", 200, seed=1)
    gone = np.flatnonzero(boxes[:, 2] < 400)
    ex = Explorer("quadtree", boxes, capacity=4, remove=gone)
    assert len(ex.bp) == 200 - len(gone) and not ex.history and ex.next_id == 200
    assert "removed" in ex.message and "Cleanup" in ex.message
    start = snapshot(ex)
    assert "fewer" in ex.cleanup() and not same(snapshot(ex), start)
    ex.reset()
    assert same(snapshot(ex), start)
    with pytest.raises(ValueError, match="remove must hold ids"):
        Explorer("quadtree", boxes, remove=[200])

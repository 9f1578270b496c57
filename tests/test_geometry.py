"""Tests of lessons_lib.geometry: validation, closed intersection tests, metrics, balls."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bp_strategies import box_arrays, lattice_box
from lessons_lib import geometry as g
from lessons_lib.geometry import (
    ARTICLE_WORLD,
    METRICS,
    as_box,
    as_boxes,
    as_points,
    bounding_box,
    box_centers,
    box_contains_point,
    box_sizes,
    boxes_overlap,
    chebyshev,
    circle_box_overlap,
    circles_overlap,
    euclidean,
    in_ball,
    manhattan,
    point_in_polygon,
    segments_intersect,
)

UNIT = [0.0, 0.0, 1.0, 1.0]


# --------------------------------------------------------------------------
# as_boxes / as_box
# --------------------------------------------------------------------------
class TestAsBoxes:
    def test_returns_float64_c_contiguous(self):
        out = as_boxes([[0, 0, 1, 1], [2, 3, 4, 5]])
        assert out.dtype == np.float64
        assert out.shape == (2, 4)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(out, [[0, 0, 1, 1], [2, 3, 4, 5]])

    def test_valid_float64_array_is_returned_as_is(self):
        arr = np.array([[0.0, 0.0, 1.0, 1.0]])
        assert as_boxes(arr) is arr

    def test_non_contiguous_input_is_copied_contiguous(self):
        big = np.zeros((6, 8))
        big[:, 2] = 1.0
        big[:, 3] = 1.0
        view = big[::2, :4]
        out = as_boxes(view)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(out, view)

    @pytest.mark.parametrize("empty", [[], np.empty((0, 4)), np.empty(0)])
    def test_empty_is_0_by_4(self, empty):
        out = as_boxes(empty)
        assert out.shape == (0, 4)
        assert out.dtype == np.float64

    @pytest.mark.parametrize(
        "boxes",
        [
            [[1.0, 1.0, 1.0, 1.0]],  # a point
            [[0.0, 2.0, 5.0, 2.0]],  # a horizontal segment
            [[3.0, 0.0, 3.0, 5.0]],  # a vertical segment
        ],
    )
    def test_degenerate_boxes_are_valid(self, boxes):
        np.testing.assert_array_equal(as_boxes(boxes), boxes)

    @pytest.mark.parametrize(
        "bad, pattern",
        [
            ([[0, 0, 1, 1], [5.0, 0, 3.0, 1]], r"box 1 has xmin 5\.0 > xmax 3\.0"),
            ([[0, 7.5, 1, 2.5]], r"box 0 has ymin 7\.5 > ymax 2\.5"),
            ([[0, 0, 1, 1], [0, 0, 1, 1], [0, np.nan, 1, 1]], r"box 2 has ymin = nan"),
            ([[0, 0, np.inf, 1]], r"box 0 has xmax = inf"),
            ([[-np.inf, 0, 1, 1]], r"box 0 has xmin = -inf"),
            ([[0, 0, 1, 1], [0, 0, 1, np.nan]], r"box 1 has ymax = nan"),
        ],
    )
    def test_bad_rows_name_row_and_value(self, bad, pattern):
        with pytest.raises(ValueError, match=pattern):
            as_boxes(bad)

    def test_first_offending_row_is_named(self):
        bad = [[0, 0, 1, 1], [0, 0, 1, 1], [3, 0, 1, 1], [9, 0, 1, 1]]
        with pytest.raises(ValueError, match=r"box 2 has xmin 3\.0 > xmax 1\.0"):
            as_boxes(bad)

    def test_custom_name_in_message(self):
        with pytest.raises(ValueError, match=r"^obstacles: box 0 has xmin"):
            as_boxes([[2, 0, 1, 1]], name="obstacles")

    @pytest.mark.parametrize(
        "bad, shape",
        [
            ([0, 0, 1, 1], r"\(4,\)"),
            ([[0, 0, 1]], r"\(1, 3\)"),
            (np.zeros((2, 4, 1)), r"\(2, 4, 1\)"),
            (np.zeros((0, 3)), r"\(0, 3\)"),
            (5.0, r"\(\)"),
        ],
    )
    def test_wrong_shape_names_shape(self, bad, shape):
        with pytest.raises(ValueError, match=r"shape \(n, 4\).*got shape " + shape):
            as_boxes(bad)

    @pytest.mark.parametrize("bad", [[[0, 0, 1], [0, 0, 1, 1]]])
    def test_ragged_rows_are_value_errors(self, bad):
        with pytest.raises(ValueError, match="boxes must be numbers"):
            as_boxes(bad)

    @pytest.mark.parametrize("bad", [[["a", 0, 1, 1]], "boxes", ["0", "0", "1", "1"], np.ones((2, 4), bool),
                                     np.ones((1, 4), complex), [[0, 0, None, 1]], "abcd"])
    def test_non_real_numbers_are_type_errors_naming_the_dtype(self, bad):
        with pytest.raises(TypeError, match="must be real numbers"):
            as_boxes(bad)
        with pytest.raises(TypeError, match="must be real numbers"):
            as_box(np.asarray(bad, dtype=object).reshape(-1)[:4] if np.size(bad) >= 4 else bad)

    def test_a_number_too_large_for_a_float_names_its_box(self):
        with pytest.raises(ValueError, match="box 1 has a coordinate too large for a float64"):
            as_boxes([[0, 0, 1, 1], [0, 0, 10**400, 1]])
        with pytest.raises(ValueError, match="too large for a float64"):
            as_box([0, 0, 10**400, 1])

    def test_integer_and_float32_boxes_are_read_as_numbers(self):
        np.testing.assert_array_equal(as_boxes(np.array([[0, 0, 2, 3]], np.int32)), [[0.0, 0.0, 2.0, 3.0]])
        np.testing.assert_array_equal(as_boxes(np.array([[0, 0, 2, 3]], np.float32)), [[0.0, 0.0, 2.0, 3.0]])
        np.testing.assert_array_equal(as_boxes(np.array([[0, 0, 2, 3]], object)), [[0.0, 0.0, 2.0, 3.0]])

    @given(box_arrays())
    def test_valid_boxes_round_trip(self, boxes):
        out = as_boxes(boxes)
        np.testing.assert_array_equal(out, boxes)
        assert (out[:, 0] <= out[:, 2]).all() and (out[:, 1] <= out[:, 3]).all()


class TestAsBox:
    def test_returns_copy_of_shape_4(self):
        src = np.array([0.0, 1.0, 2.0, 3.0])
        out = as_box(src)
        assert out.shape == (4,) and out.dtype == np.float64
        assert out is not src
        out[0] = 99.0
        assert src[0] == 0.0

    @pytest.mark.parametrize("ok", [[1, 1, 1, 1], (0, 0, 5, 0), np.array([0, 0, 1, 1], dtype=np.int32)])
    def test_accepts_degenerate_and_int(self, ok):
        np.testing.assert_array_equal(as_box(ok), np.asarray(ok, dtype=np.float64))

    @pytest.mark.parametrize(
        "bad, pattern",
        [
            ([3, 0, 1, 1], r"box has xmin 3\.0 > xmax 1\.0"),
            ([0, 4, 1, 1], r"box has ymin 4\.0 > ymax 1\.0"),
            ([0, 0, np.nan, 1], r"box has xmax = nan"),
            ([0, -np.inf, 1, 1], r"box has ymin = -inf"),
            ([0, 0, 1], r"shape \(4,\).*got shape \(3,\)"),
            ([[0, 0, 1, 1]], r"got shape \(1, 4\)"),
        ],
    )
    def test_bad_box(self, bad, pattern):
        with pytest.raises(ValueError, match=pattern):
            as_box(bad)

    def test_custom_name(self):
        with pytest.raises(ValueError, match=r"^world has xmin"):
            as_box([1, 0, 0, 1], name="world")


class TestAsPoints:
    def test_shapes(self):
        assert as_points([1, 2]).shape == (2,)
        assert as_points([[1, 2], [3, 4], [5, 6]]).shape == (3, 2)

    @pytest.mark.parametrize("bad", [[1, 2, 3], 5.0, [[1, 2, 3]]])
    def test_wrong_last_axis(self, bad):
        with pytest.raises(ValueError, match=r"shape \(\.\.\., 2\)"):
            as_points(bad)

    def test_nan_names_index(self):
        with pytest.raises(ValueError, match=r"index \(1, 0\)"):
            as_points([[0, 0], [np.nan, 1]])


# --------------------------------------------------------------------------
# Box helpers
# --------------------------------------------------------------------------
def test_centers_sizes_bounding_box():
    b = [[0, 0, 2, 4], [10, -2, 10, 6]]
    np.testing.assert_array_equal(box_centers(b), [[1, 2], [10, 2]])
    np.testing.assert_array_equal(box_sizes(b), [[2, 4], [0, 8]])
    np.testing.assert_array_equal(bounding_box(b), [0, -2, 10, 6])
    assert box_centers([]).shape == (0, 2)
    assert box_sizes([]).shape == (0, 2)


def test_bounding_box_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        bounding_box(np.empty((0, 4)))


def test_helpers_validate():
    with pytest.raises(ValueError, match="box 0 has xmin"):
        box_centers([[1, 0, 0, 1]])
    with pytest.raises(ValueError, match="box 0 has ymin"):
        box_sizes([[0, 1, 1, 0]])


def test_article_world():
    np.testing.assert_array_equal(ARTICLE_WORLD, [0, 0, 800, 600])


# --------------------------------------------------------------------------
# boxes_overlap, box_contains_point
# --------------------------------------------------------------------------
class TestBoxesOverlap:
    @pytest.mark.parametrize(
        "other, expected",
        [
            ([0.5, 0.5, 2, 2], True),  # proper overlap
            ([1, 0, 2, 1], True),  # shares the right edge
            ([0, 1, 1, 2], True),  # shares the top edge
            ([1, 1, 2, 2], True),  # shares only a corner
            ([-1, -1, 0, 0], True),  # shares the opposite corner
            ([0.25, 0.25, 0.75, 0.75], True),  # contained
            ([-5, -5, 5, 5], True),  # contains
            ([0.5, 0.5, 0.5, 0.5], True),  # a point inside
            ([1, 1, 1, 1], True),  # a point on the corner
            ([1, 0.5, 1, 0.5], True),  # a point on the edge
            ([0.5, -3, 0.5, 3], True),  # a vertical segment crossing
            ([1.0000001, 0, 2, 1], False),  # just to the right
            ([0, 1.0000001, 1, 2], False),  # just above
            ([2, 2, 3, 3], False),  # diagonal, apart
            ([1.5, 1.5, 1.5, 1.5], False),  # a point outside
        ],
    )
    def test_cases_both_orders(self, other, expected):
        assert boxes_overlap(UNIT, other) is expected
        assert boxes_overlap(other, UNIT) is expected

    def test_point_boxes(self):
        assert boxes_overlap([3, 3, 3, 3], [3, 3, 3, 3]) is True
        assert boxes_overlap([3, 3, 3, 3], [3, 4, 3, 4]) is False

    def test_broadcasts(self):
        others = np.array([[0.5, 0.5, 2, 2], [2, 2, 3, 3], [1, 1, 2, 2]])
        out = boxes_overlap(UNIT, others)
        assert isinstance(out, np.ndarray) and out.dtype == bool
        np.testing.assert_array_equal(out, [True, False, True])
        grid = boxes_overlap(others[:, None, :], others[None, :, :])
        assert grid.shape == (3, 3)
        np.testing.assert_array_equal(grid, grid.T)

    @given(lattice_box(), lattice_box())
    def test_symmetric_and_agrees_with_interval_definition(self, a, b):
        expected = max(a[0], b[0]) <= min(a[2], b[2]) and max(a[1], b[1]) <= min(a[3], b[3])
        assert boxes_overlap(a, b) is expected
        assert boxes_overlap(b, a) is expected

    @given(lattice_box())
    def test_a_box_meets_itself(self, a):
        assert boxes_overlap(a, a) is True


class TestContainsPoint:
    @pytest.mark.parametrize(
        "p, expected",
        [
            ((0.5, 0.5), True),
            ((0, 0), True),
            ((1, 1), True),
            ((1, 0.5), True),
            ((0.5, 0), True),
            ((1.0000001, 0.5), False),
            ((-1e-9, 0.5), False),
            ((0.5, 2), False),
        ],
    )
    def test_closed(self, p, expected):
        assert box_contains_point(UNIT, p) is expected

    def test_degenerate_box_contains_its_point(self):
        assert box_contains_point([2, 3, 2, 3], (2, 3)) is True
        assert box_contains_point([2, 3, 2, 3], (2, 3.5)) is False

    def test_broadcasts(self):
        out = box_contains_point(UNIT, [[0, 0], [2, 2], [1, 0.5]])
        np.testing.assert_array_equal(out, [True, False, True])


# --------------------------------------------------------------------------
# Circles
# --------------------------------------------------------------------------
class TestCircles:
    def test_tangent_counts(self):
        assert circles_overlap((0, 0), 1, (2, 0), 1) is True
        assert circles_overlap((0, 0), 3, (0, 5), 2) is True  # externally tangent, 3-4-5 free
        assert circles_overlap((0, 0), 3, (3, 4), 2) is True
        assert circles_overlap((0, 0), 1, (2.000001, 0), 1) is False

    def test_overlap_contain_and_apart(self):
        assert circles_overlap((0, 0), 2, (1, 1), 1) is True
        assert circles_overlap((0, 0), 10, (1, 1), 0.5) is True  # contained
        assert circles_overlap((0, 0), 1, (3, 3), 1) is False

    def test_zero_radius_is_a_point(self):
        assert circles_overlap((0, 0), 0, (0, 0), 0) is True
        assert circles_overlap((1, 0), 0, (0, 0), 1) is True  # point on the circle
        assert circles_overlap((1.5, 0), 0, (0, 0), 1) is False

    def test_broadcasts(self):
        centres = np.array([[0, 0], [2, 0], [5, 0]])
        np.testing.assert_array_equal(circles_overlap((0, 0), 1, centres, 1), [True, True, False])
        np.testing.assert_array_equal(circles_overlap((0, 0), 1, (3, 0), [1, 2, 3]), [False, True, True])

    @pytest.mark.parametrize("r1, r2", [(-1, 1), (1, -0.5), ([1, -1], 1)])
    def test_negative_radius(self, r1, r2):
        with pytest.raises(ValueError, match="radius must be >= 0"):
            circles_overlap((0, 0), r1, (1, 1), r2)

    @pytest.mark.parametrize(
        "center, radius, expected",
        [
            ((0.5, 0.5), 0.1, True),  # centre inside
            ((2, 0.5), 1, True),  # tangent to the right edge
            ((0.5, -1), 1, True),  # tangent to the bottom edge
            ((4, 5), 5, True),  # tangent at corner (1, 1): distance 5 (3-4-5)
            ((4, 5), 4.999, False),  # just short of the corner
            ((2, 2), 1, False),  # corner distance sqrt(2) > 1 though the AABBs overlap
            ((-5, 0.5), 1, False),
            ((0.5, 0.5), 0, True),  # a point inside
            ((1, 1), 0, True),  # a point on the corner
        ],
    )
    def test_circle_box(self, center, radius, expected):
        assert circle_box_overlap(center, radius, UNIT) is expected

    def test_circle_box_broadcasts_and_rejects_negative_radius(self):
        out = circle_box_overlap([[2, 0.5], [3, 0.5]], 1, UNIT)
        np.testing.assert_array_equal(out, [True, False])
        with pytest.raises(ValueError, match="radius must be >= 0"):
            circle_box_overlap((0, 0), -1, UNIT)


# --------------------------------------------------------------------------
# Segments
# --------------------------------------------------------------------------
class TestSegments:
    @pytest.mark.parametrize(
        "p1, p2, q1, q2, expected",
        [
            ((0, 0), (2, 2), (0, 2), (2, 0), True),  # proper crossing (an X)
            ((0, 0), (2, 0), (1, -1), (1, 1), True),  # crossing a horizontal segment
            ((0, 0), (1, 1), (1, 1), (2, 0), True),  # share an endpoint
            ((0, 0), (2, 0), (1, 0), (1, 5), True),  # endpoint touches the interior (a T)
            ((0, 0), (3, 0), (1, 0), (5, 0), True),  # collinear, overlapping
            ((0, 0), (4, 0), (1, 0), (2, 0), True),  # collinear, one inside the other
            ((0, 0), (1, 0), (1, 0), (2, 0), True),  # collinear, touching end to end
            ((0, 0), (0, 3), (0, 1), (0, 5), True),  # vertical collinear overlap
            ((0, 0), (1, 0), (2, 0), (3, 0), False),  # collinear, disjoint
            ((0, 0), (1, 1), (2, 2), (3, 3), False),  # diagonal collinear, disjoint
            ((0, 0), (2, 0), (0, 1), (2, 1), False),  # parallel
            ((0, 0), (1, 1), (0, 1), (1, 2), False),  # parallel diagonals
            ((0, 0), (2, 0), (3, -1), (3, 1), False),  # would cross if extended
            ((0, 0), (2, 0), (1, 1), (1, 3), False),  # a T that falls short
        ],
    )
    def test_cases_all_orders(self, p1, p2, q1, q2, expected):
        for a, b, c, d in [(p1, p2, q1, q2), (p2, p1, q1, q2), (q1, q2, p1, p2), (q2, q1, p2, p1)]:
            assert segments_intersect(a, b, c, d) is expected

    def test_point_segments(self):
        assert segments_intersect((1, 1), (1, 1), (0, 0), (2, 2)) is True  # point on segment
        assert segments_intersect((1, 2), (1, 2), (0, 0), (2, 2)) is False
        assert segments_intersect((1, 1), (1, 1), (1, 1), (1, 1)) is True
        assert segments_intersect((1, 1), (1, 1), (1, 2), (1, 2)) is False
        assert segments_intersect((5, 5), (5, 5), (0, 0), (2, 2)) is False  # collinear, beyond

    def test_broadcasts(self):
        q1 = np.array([[0, 2], [5, 5], [1, 1]])
        q2 = np.array([[2, 0], [6, 6], [1, 1]])
        out = segments_intersect((0, 0), (2, 2), q1, q2)
        np.testing.assert_array_equal(out, [True, False, True])

    @given(
        st.tuples(*[st.integers(-6, 6)] * 8),
    )
    def test_symmetric(self, c):
        p1, p2, q1, q2 = c[0:2], c[2:4], c[4:6], c[6:8]
        r = segments_intersect(p1, p2, q1, q2)
        assert r == segments_intersect(q1, q2, p1, p2)
        assert r == segments_intersect(p2, p1, q2, q1)

    @given(st.tuples(*[st.integers(-6, 6)] * 8))
    def test_agrees_with_parametric_solution(self, c):
        """Exact check with rationals: solve p1 + t (p2 - p1) = q1 + u (q2 - q1)."""
        from fractions import Fraction as F

        p1, p2, q1, q2 = c[0:2], c[2:4], c[4:6], c[6:8]
        rx, ry = p2[0] - p1[0], p2[1] - p1[1]
        sx, sy = q2[0] - q1[0], q2[1] - q1[1]
        qpx, qpy = q1[0] - p1[0], q1[1] - p1[1]
        denom = rx * sy - ry * sx
        if denom != 0:
            t = F(qpx * sy - qpy * sx, denom)
            u = F(qpx * ry - qpy * rx, denom)
            expected = 0 <= t <= 1 and 0 <= u <= 1
        elif qpx * ry - qpy * rx != 0 or qpx * sy - qpy * sx != 0:
            expected = False  # parallel on different lines (or a point off the line)
        else:
            # Collinear (or degenerate): compare the projections on both axes.
            expected = all(
                max(min(p1[k], p2[k]), min(q1[k], q2[k])) <= min(max(p1[k], p2[k]), max(q1[k], q2[k]))
                for k in (0, 1)
            )
        assert segments_intersect(p1, p2, q1, q2) is expected


# --------------------------------------------------------------------------
# Polygons
# --------------------------------------------------------------------------
SQUARE = [(0, 0), (4, 0), (4, 4), (0, 4)]
# A "U": concave, with the notch [1, 3] x [1, 4] cut out of the top.
U_SHAPE = [(0, 0), (4, 0), (4, 4), (3, 4), (3, 1), (1, 1), (1, 4), (0, 4)]


class TestPointInPolygon:
    @pytest.mark.parametrize(
        "p, expected",
        [
            ((2, 2), True),
            ((0.1, 3.9), True),
            ((5, 2), False),
            ((-1, 2), False),
            ((2, -0.001), False),
            ((2, 0), True),  # on an edge
            ((4, 2), True),  # on an edge
            ((0, 0), True),  # on a vertex
            ((4, 4), True),  # on a vertex
            ((6, 4), False),  # on the line of the top edge, beyond
            ((-2, 0), False),  # ray passes exactly through two vertices
        ],
    )
    def test_convex(self, p, expected):
        assert point_in_polygon(p, SQUARE) is expected
        assert point_in_polygon(p, SQUARE[::-1]) is expected  # orientation does not matter

    @pytest.mark.parametrize(
        "p, expected",
        [
            ((0.5, 3), True),  # left arm
            ((3.5, 3), True),  # right arm
            ((2, 0.5), True),  # base
            ((2, 3), False),  # in the notch
            ((2, 1.0), True),  # notch floor is an edge
            ((1, 2), True),  # notch side is an edge
            ((3, 4), True),  # a vertex at the notch
            ((2, 4), False),  # between the arms at the top
            ((-1, 1), False),  # ray along the notch floor's line
            ((-1, 4), False),  # ray along the top edges' line
            ((0.5, 1), True),  # ray through the concave vertex (1, 1)
        ],
    )
    def test_concave(self, p, expected):
        assert point_in_polygon(p, U_SHAPE) is expected
        assert point_in_polygon(p, U_SHAPE[::-1]) is expected

    def test_triangle_and_many_points(self):
        tri = [(0, 0), (4, 0), (0, 4)]
        pts = [(1, 1), (2, 2), (3, 3), (0, 2), (-1, 0)]
        out = point_in_polygon(pts, tri)
        assert isinstance(out, np.ndarray) and out.shape == (5,)
        np.testing.assert_array_equal(out, [True, True, False, True, False])

    @given(st.integers(-2, 6), st.integers(-2, 6))
    def test_square_agrees_with_box(self, x, y):
        assert point_in_polygon((x, y), SQUARE) == box_contains_point([0, 0, 4, 4], (x, y))

    @given(st.floats(-2, 6, allow_nan=False), st.floats(-2, 6, allow_nan=False))
    def test_u_agrees_with_union_of_boxes(self, x, y):
        pieces = [[0, 0, 4, 1], [0, 0, 1, 4], [3, 0, 4, 4]]
        assert point_in_polygon((x, y), U_SHAPE) == any(box_contains_point(b, (x, y)) for b in pieces)

    @pytest.mark.parametrize("poly", [[(0, 0), (1, 1)], [(0, 0)], np.empty((0, 2))])
    def test_fewer_than_three_vertices(self, poly):
        with pytest.raises(ValueError, match="k >= 3"):
            point_in_polygon((0, 0), poly)

    def test_bad_inputs(self):
        with pytest.raises(ValueError, match="polygon"):
            point_in_polygon((0, 0), [(0, 0, 0), (1, 1, 1), (2, 0, 0)])
        with pytest.raises(ValueError, match="polygon has a NaN"):
            point_in_polygon((0, 0), [(0, 0), (np.nan, 1), (2, 0)])
        with pytest.raises(ValueError, match="point has a NaN"):
            point_in_polygon((np.nan, 0), SQUARE)
        with pytest.raises(ValueError, match="point must have shape"):
            point_in_polygon((0, 0, 0), SQUARE)


# --------------------------------------------------------------------------
# Metrics and balls
# --------------------------------------------------------------------------
points = st.tuples(
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
)


class TestMetrics:
    def test_values(self):
        a, b = (1, 2), (4, 6)
        assert euclidean(a, b) == 5.0
        assert manhattan(a, b) == 7.0
        assert chebyshev(a, b) == 4.0
        assert euclidean(a, a) == manhattan(a, a) == chebyshev(a, a) == 0.0

    def test_broadcast(self):
        pts = np.array([[3, 4], [0, 0], [-1, 1]])
        np.testing.assert_allclose(euclidean(pts, (0, 0)), [5, 0, math.sqrt(2)])
        np.testing.assert_array_equal(manhattan(pts, (0, 0)), [7, 0, 2])
        np.testing.assert_array_equal(chebyshev(pts, (0, 0)), [4, 0, 1])

    def test_registry(self):
        assert METRICS == {"euclidean": euclidean, "manhattan": manhattan, "chebyshev": chebyshev}

    @pytest.mark.parametrize("name", sorted(METRICS))
    @given(a=points, b=points)
    def test_symmetric_and_non_negative(self, name, a, b):
        d = METRICS[name]
        assert d(a, b) == d(b, a)
        assert d(a, b) >= 0
        assert d(a, a) == 0

    @pytest.mark.parametrize("name", sorted(METRICS))
    @given(a=points, b=points, c=points)
    def test_triangle_inequality(self, name, a, b, c):
        d = METRICS[name]
        assert d(a, c) <= d(a, b) + d(b, c) + 1e-9 * (1 + d(a, b) + d(b, c))

    @given(a=points, b=points)
    def test_ordering_between_metrics(self, a, b):
        """chebyshev <= euclidean <= manhattan <= 2 * chebyshev (in the plane)."""
        ch, eu, ma = chebyshev(a, b), euclidean(a, b), manhattan(a, b)
        tol = 1e-9 * (1 + ma)
        assert ch <= eu + tol
        assert eu <= ma + tol
        assert ma <= 2 * ch + tol


class TestInBall:
    # Lattice points of [-3, 3]^2 around the origin, radius 2.
    GRID = np.array([(x, y) for x in range(-3, 4) for y in range(-3, 4)], dtype=float)

    def test_chebyshev_ball_is_a_square(self):
        got = in_ball(self.GRID, (0, 0), 2, "chebyshev")
        expected = box_contains_point([-2, -2, 2, 2], self.GRID)
        np.testing.assert_array_equal(got, expected)
        assert got.sum() == 25

    def test_manhattan_ball_is_a_diamond(self):
        got = in_ball(self.GRID, (0, 0), 2, "manhattan")
        diamond = [(2, 0), (0, 2), (-2, 0), (0, -2)]
        np.testing.assert_array_equal(got, point_in_polygon(self.GRID, diamond))
        assert got.sum() == 13
        assert in_ball((1, 1), (0, 0), 2, "manhattan")  # on the diamond's edge
        assert not in_ball((2, 1), (0, 0), 2, "manhattan")  # inside the square, outside the diamond

    def test_euclidean_ball_is_a_disc(self):
        got = in_ball(self.GRID, (0, 0), 2)  # euclidean is the default
        np.testing.assert_array_equal(got, (self.GRID**2).sum(axis=1) <= 4)
        assert got.sum() == 13
        assert in_ball((0, 2), (0, 0), 2)  # on the circle: closed ball
        assert not in_ball((1.5, 1.5), (0, 0), 2)  # in the square, not the disc

    def test_centre_offset_and_radius_zero(self):
        assert in_ball((10, 20), (10, 20), 0, "manhattan")
        assert not in_ball((10, 20.5), (10, 20), 0, "chebyshev")

    @given(p=st.tuples(st.integers(-30, 30), st.integers(-30, 30)), r=st.integers(0, 40))
    def test_balls_are_nested(self, p, r):
        """Manhattan ball within Euclidean ball within Chebyshev ball (exact on integers)."""
        ma, eu, ch = (in_ball(p, (0, 0), r, m) for m in ("manhattan", "euclidean", "chebyshev"))
        assert (not ma or eu) and (not eu or ch)

    def test_unknown_metric(self):
        with pytest.raises(ValueError, match=r"unknown metric 'minkowski'.*chebyshev.*euclidean.*manhattan"):
            in_ball((0, 0), (0, 0), 1, "minkowski")

    def test_negative_radius(self):
        with pytest.raises(ValueError, match=r"radius must be >= 0, got -1"):
            in_ball((0, 0), (0, 0), -1)


def test_all_exports_exist():
    for name in g.__all__:
        assert hasattr(g, name), name

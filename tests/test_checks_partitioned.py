"""Lesson 15's check: the reference-point rule passes, the stub fails, and named typical mistakes fail with their hint."""
import math

import numpy as np
import pytest

from lessons_lib import checks
from lessons_lib.checks import CheckFailed
from lessons_lib.checks.partitioned import KEEPS_PAIR_MISTAKES


def reference(cell, box_a, box_b):
    x, y = max(box_a[0], box_b[0]), max(box_a[1], box_b[1])
    return cell[0] <= x < cell[2] and cell[1] <= y < cell[3]


def stub(cell, box_a, box_b):
    raise NotImplementedError


def test_reference_passes(capsys):
    checks.check_keeps_pair(reference)
    out = capsys.readouterr().out
    assert "exactly once" in out and "edge cases" in out


def test_numpy_bools_are_accepted():
    checks.check_keeps_pair(lambda c, a, b: np.bool_(reference(c, a, b)))


def test_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_keeps_pair(stub)


@pytest.mark.parametrize("name, words", [
    ("closed cell", "reported twice"),
    ("open cell", "inside no region"),
    ("corner of the union", "two boxes taken together"),
    ("corner of box a", "box_a alone"),
    ("upper-right corner", "upper-right corner"),
    ("x only", "Test y the same way"),
])
def test_typical_mistakes_fail_with_their_hint(name, words):
    rule, _ = KEEPS_PAIR_MISTAKES[name]
    with pytest.raises(CheckFailed, match=f"Hint: .*{words}") as failed:
        checks.check_keeps_pair(rule)
    message = str(failed.value)
    # the student never sees KEEPS_PAIR_MISTAKES: no message names it; and no message prints the rule
    assert "the mistake called" not in message
    assert "max(" not in message and "min(" not in message


def test_mistakes_are_really_wrong():
    """Each named mistake loses or duplicates some pair (none is an equally good rule in disguise)."""
    assert len(KEEPS_PAIR_MISTAKES) >= 3
    for name, (rule, _) in KEEPS_PAIR_MISTAKES.items():
        with pytest.raises(CheckFailed):
            checks.check_keeps_pair(rule)


def test_other_wrong_answers():
    with pytest.raises(CheckFailed, match="must return True or False"):
        checks.check_keeps_pair(lambda c, a, b: "yes")
    # answers that match no typical mistake: the input, what was expected and what came back, no hint
    for wrong in (lambda c, a, b: True,
                  lambda c, a, b: c[0] <= (max(a[0], b[0]) + min(a[2], b[2])) / 2 < c[2]   # the intersection's centre
                  and c[1] <= (max(a[1], b[1]) + min(a[3], b[3])) / 2 < c[3]):
        with pytest.raises(CheckFailed, match="should be reported by the .* region only; your keeps_pair says") as failed:
            checks.check_keeps_pair(wrong)
        assert "Hint" not in str(failed.value) and "max(" not in str(failed.value)


def test_a_rule_right_on_the_grid_but_wrong_in_the_join_fails():
    """Right on the 2 x 2 grid of the edge cases (cuts at 10), wrong for other cells: the whole-join part catches it."""
    def grid_only(cell, a, b):
        x, y = max(a[0], b[0]), max(a[1], b[1])
        x0 = -math.inf if cell[0] < 10 else 10.0  # pretends every cell is one of the 2 x 2 grid's
        x1 = 10.0 if cell[2] <= 10 else math.inf
        y0 = -math.inf if cell[1] < 10 else 10.0
        y1 = 10.0 if cell[3] <= 10 else math.inf
        return x0 <= x < x1 and y0 <= y < y1
    with pytest.raises(CheckFailed, match="in a join over"):
        checks.check_keeps_pair(grid_only)


def test_a_crash_names_the_case():
    def crashes_on_infinite_cells(cell, a, b):
        if math.isinf(cell[0]) or math.isinf(cell[2]):
            raise OverflowError("cannot handle an infinite side")
        return reference(cell, a, b)
    with pytest.raises(CheckFailed, match=r"raised OverflowError: cannot handle an infinite side on two boxes inside "
                                          r"one region, the lower left region: keeps_pair\(\(-inf, -inf, 10, 10\)"):
        checks.check_keeps_pair(crashes_on_infinite_cells)


def test_valid_alternatives_pass():
    """Other ways to write the rule: the reference point named, the comparisons chained differently."""
    def by_point(cell, a, b):
        px, py = (a[0] if a[0] >= b[0] else b[0]), (a[1] if a[1] >= b[1] else b[1])
        return bool(not (px < cell[0] or px >= cell[2] or py < cell[1] or py >= cell[3]))

    def with_numpy(cell, a, b):
        p = np.maximum(np.asarray(a[:2]), np.asarray(b[:2]))
        return np.all((np.asarray(cell[:2]) <= p) & (p < np.asarray(cell[2:])))

    checks.check_keeps_pair(by_point)
    checks.check_keeps_pair(with_numpy)


# --------------------------------------------------------------------------
# Exercise 2: k-d cells fitted on a sample
# --------------------------------------------------------------------------
from lessons_lib.checks.partitioned import KD_CELLS_MISTAKES, kd_cells_with  # noqa: E402
from lessons_lib.partitioned import fit_partitioning, kdtree_partitioning  # noqa: E402


def kd_cells(sample, n_partitions, *, below_test_le=False, on_cut_low=False, share=False, copy_on_append=False):
    """The lesson's solution: a stack of nodes (points, rectangle, cells to make); the keywords add a learner's
    slips: the "any point below?" test with <=, the points on the cut sent low, both children sharing the
    parent's rectangle (cells kept as references, or copied when kept)."""
    cells = []
    stack = [(sample, np.array([-np.inf, -np.inf, np.inf, np.inf]), n_partitions)]
    while stack:
        pts, rect, k = stack.pop()
        m = len(pts)
        cut = None
        if k > 1 and m > 1:
            spread = pts.max(axis=0) - pts.min(axis=0)
            first = 0 if spread[0] >= spread[1] else 1
            for axis in (first, 1 - first):
                v = pts[:, axis]
                r = max(1, m * (k // 2) // k)
                value = np.partition(v, r)[r]
                if ((v <= value) if below_test_le else (v < value)).any():
                    cut = axis, value
                    break
        if cut is None:
            cells.append(rect.copy() if copy_on_append else rect)
            continue
        axis, value = cut
        low = (pts[:, axis] <= value) if on_cut_low else (pts[:, axis] < value)
        lo_rect, hi_rect = (rect, rect) if share else (rect.copy(), rect.copy())
        lo_rect[axis + 2] = value
        hi_rect[axis] = value
        stack.append((pts[low], lo_rect, k // 2))
        stack.append((pts[~low], hi_rect, k - k // 2))
    return np.array(cells)


def kd_cells_recursive(sample, n_partitions):
    """A valid alternative: recursion, full sorts, rectangles as lists, cells returned in another order."""
    def split(pts, rect, k):
        m = len(pts)
        if k > 1 and m > 1:
            spread = np.ptp(pts, axis=0)
            for a in ([0, 1] if spread[0] >= spread[1] else [1, 0]):
                v = np.sort(pts[:, a])
                cut = v[max(1, m * (k // 2) // k)]
                if v[0] < cut:
                    lo, hi = list(rect), list(rect)
                    lo[a + 2], hi[a] = cut, cut
                    below = pts[:, a] < cut
                    return split(pts[~below], hi, k - k // 2) + split(pts[below], lo, k // 2)
        return [rect]
    return np.array(split(sample, [-np.inf, -np.inf, np.inf, np.inf], n_partitions), dtype=np.float64)


def kd_cells_between(sample, n_partitions):
    """A valid alternative: each cut half-way between the two points around the rank (same split of the sample)."""
    cells, stack = [], [(sample, (-np.inf, -np.inf, np.inf, np.inf), n_partitions)]
    while stack:
        pts, rect, k = stack.pop()
        m, done = len(pts), None
        if k > 1 and m > 1:
            var = pts.var(axis=0)   # the axis of larger variance (lesson 01) rather than of larger range
            for a in ((0, 1) if var[0] >= var[1] else (1, 0)):
                v = np.sort(pts[:, a])
                r = min(m - 1, max(1, -(-m * (k // 2) // k)))   # the rank rounded up
                value = (v[r - 1] + v[r]) / 2 if v[r - 1] < v[r] else v[r]
                if v[0] < value:
                    done = a, value
                    break
        if done is None:
            cells.append(rect)
            continue
        a, value = done
        lo, hi = list(rect), list(rect)
        lo[a + 2], hi[a] = value, value
        below = pts[:, a] < value
        stack += [(pts[below], tuple(lo), k // 2), (pts[~below], tuple(hi), k - k // 2)]
    return np.array(cells)


def test_kd_cells_solution_passes(capsys):
    checks.check_kd_cells(kd_cells)
    out = capsys.readouterr().out
    assert "kd_cells passed" in out and "the library's kdtree" in out


@pytest.mark.parametrize("fn", [kd_cells_recursive, kd_cells_between,
                                lambda s, k: kd_cells_with(s, k, rank="round")],   # the library's rounding
                         ids=["recursive", "between-points-variance-ceil", "library-rounding"])
def test_kd_cells_valid_alternatives_pass(fn):
    checks.check_kd_cells(fn)


def test_kd_cells_stub_fails():
    with pytest.raises(CheckFailed, match="not written yet"):
        checks.check_kd_cells(lambda sample, n_partitions: (_ for _ in ()).throw(NotImplementedError()))


@pytest.mark.parametrize("name, words", [
    ("mean", "the mean of each node's coordinates"),
    ("always x", "along x at every node"),
    ("alternating axes", "alternate x, y"),
    ("smaller spread", "spread less"),
    ("median whatever the count", "at the median whatever the number of cells"),
    ("cells of the wrong side", "makes the larger number of cells"),
    ("points on the cut go low", "lying exactly on a cut to the side below"),
    ("no other axis", "tries the other axis"),
    ("cut with nothing below", "even when no point lies below"),
    ("children share a rectangle", "rectangle shared between the children"),
    ("rank 0", "rank 0"),
])
def test_kd_cells_typical_mistakes_fail_with_their_hint(name, words):
    changes, _ = KD_CELLS_MISTAKES[name]
    with pytest.raises(CheckFailed, match=f"Hint: .*{words}") as failed:
        checks.check_kd_cells(lambda s, k: kd_cells_with(s, k, **changes))
    message = str(failed.value)
    assert "KD_CELLS_MISTAKES" not in message and "the mistake called" not in message
    # no message prints the solution's lines
    assert "// k" not in message and "np.partition" not in message and "k // 2)" not in message


def test_kd_cells_every_mistake_is_listed_and_caught():
    assert len(KD_CELLS_MISTAKES) >= 8
    for name, (changes, _) in KD_CELLS_MISTAKES.items():
        with pytest.raises(CheckFailed):
            checks.check_kd_cells(lambda s, k, changes=changes: kd_cells_with(s, k, **changes))


def test_kd_cells_types_are_checked():
    """Lists where an array is asked, float32, the wrong shape: each named (the kind 'types not checked')."""
    with pytest.raises(CheckFailed, match="must return a NumPy array .* got a list"):
        checks.check_kd_cells(lambda s, k: kd_cells(s, k).tolist())
    with pytest.raises(CheckFailed, match="got a tuple"):
        checks.check_kd_cells(lambda s, k: tuple(kd_cells(s, k)))
    with pytest.raises(CheckFailed, match="dtype float32"):
        checks.check_kd_cells(lambda s, k: kd_cells(s, k).astype(np.float32))
    with pytest.raises(CheckFailed, match=r"shape \(4,\)"):
        checks.check_kd_cells(lambda s, k: kd_cells(s, k)[0])
    with pytest.raises(CheckFailed, match="holds NaN"):
        checks.check_kd_cells(lambda s, k: np.full((1, 4), np.nan))


def test_kd_cells_must_cover_the_plane_exactly_once():
    def sample_bounds(s, k):   # outer sides at the sample's bounds instead of infinity
        c = kd_cells(s, k)
        for col, value in ((0, s[:, 0].min()), (1, s[:, 1].min()), (2, s[:, 0].max()), (3, s[:, 1].max())):
            c[np.isinf(c[:, col]), col] = value
        return c

    with pytest.raises(CheckFailed, match="lies in none of your 1 cells.*No cell reaches x = -inf"):
        checks.check_kd_cells(sample_bounds)
    with pytest.raises(CheckFailed, match="lies in your cells 0 .* and 1 .*exactly one cell"):
        checks.check_kd_cells(lambda s, k: np.array([[-np.inf, -np.inf, np.inf, np.inf]] * 2))
    with pytest.raises(CheckFailed, match="needs x0 <= x1"):
        checks.check_kd_cells(lambda s, k: np.array([[np.inf, -np.inf, -np.inf, np.inf]]))
    with pytest.raises(CheckFailed, match="at most n_partitions = 4"):
        checks.check_kd_cells(lambda s, k: np.array([[-np.inf, -np.inf, np.inf, np.inf]] + [[0.0, 0.0, 0.0, 0.0]] * 4))


def test_kd_cells_wrong_answers_of_no_typical_kind_fail_without_a_hint():
    """A uniform grid over the sample's bounds, and k equal vertical slices: the facts, no hint."""
    def grid(s, k):
        n = max(1, int(np.sqrt(k)))
        lo, hi = s.min(axis=0), s.max(axis=0)
        xs = np.unique(lo[0] + (hi[0] - lo[0]) * np.arange(1, n) / n)
        ys = np.unique(lo[1] + (hi[1] - lo[1]) * np.arange(1, n) / n)
        xe, ye = np.concatenate([[-np.inf], xs, [np.inf]]), np.concatenate([[-np.inf], ys, [np.inf]])
        return np.array([[xe[i], ye[j], xe[i + 1], ye[j + 1]] for i in range(len(xe) - 1) for j in range(len(ye) - 1)])

    def slices(s, k):
        xs = np.sort(s[:, 0])
        cuts = np.unique(xs[(np.arange(1, k) * len(xs)) // k]) if len(xs) > 1 else np.array([])
        edges = np.concatenate([[-np.inf], cuts, [np.inf]])
        return np.array([[edges[i], -np.inf, edges[i + 1], np.inf] for i in range(len(edges) - 1)])

    for wrong in (grid, slices):
        with pytest.raises(CheckFailed, match="the k-d rule makes|the library's k-d cells") as failed:
            checks.check_kd_cells(wrong)
        assert "Hint" not in str(failed.value)


def test_kd_cells_calling_the_library_fails():
    for fn in (lambda s, k: kdtree_partitioning(s, k).tiles, lambda s, k: fit_partitioning("kdtree", s, k).tiles):
        with pytest.raises(CheckFailed, match="calls the library's partitioner .*write the rule yourself"):
            checks.check_kd_cells(fn)
    with pytest.raises(CheckFailed, match="calls the check's own kd_cells_with"):
        checks.check_kd_cells(lambda s, k: checks.kd_cells_with(s, k))
    checks.check_kd_cells(kd_cells)   # the profile hook is gone: the check itself still runs the library


def test_kd_cells_a_crash_names_the_input():
    def no_single_point_case(sample, n_partitions):
        if n_partitions > 1:
            v = np.sort(sample[:, 0])
            v[1]   # IndexError on a sample of one point
        return kd_cells(sample, n_partitions)
    with pytest.raises(CheckFailed, match=r"raised IndexError: .* on a sample of one point, 4 partitions: "
                                          r"kd_cells\(sample, 4\) with sample = \[\[3.25, -1.5\]\]"):
        checks.check_kd_cells(no_single_point_case)


def test_kd_cells_must_not_change_the_sample():
    def sorts_in_place(sample, n_partitions):
        sample.sort(axis=0)
        return kd_cells(sample, n_partitions)
    with pytest.raises(CheckFailed, match="changed its argument number 1 in place"):
        checks.check_kd_cells(sorts_in_place)


@pytest.mark.parametrize("slips", [{"below_test_le": True}, {"below_test_le": True, "on_cut_low": True}],
                         ids=["le-test", "le-test-and-on-cut-low"])
def test_kd_cells_le_in_the_below_test_is_named(slips):
    """`<=` in the test for a point below the cut (with or without the points on the cut sent low): the hint names it."""
    with pytest.raises(CheckFailed, match=r"Hint: .*even when no point lies below.*\(<= instead of <\)"):
        checks.check_kd_cells(lambda s, k: kd_cells(s, k, **slips))


def test_kd_cells_shared_rectangle_is_named():
    """Children sharing their parent's rectangle: the check's variant, and a learner's in either order of the stack,
    with the cells kept as references or copied when kept, all get a hint naming the shared rectangle."""
    variants = [lambda s, k: kd_cells_with(s, k, copy_rect=False),
                lambda s, k: kd_cells(s, k, share=True),
                lambda s, k: kd_cells(s, k, share=True, copy_on_append=True)]
    for fn in variants:
        with pytest.raises(CheckFailed, match="Hint: .*shared between the children.*its own copy of the rectangle"):
            checks.check_kd_cells(fn)
    kd_cells_with(np.array([[0.0, 0.0], [1.0, 1.0]]), 2, copy_rect=False)   # runs (all cells one array)

"""Exercise checks for lesson 12: benchmarks.

1. :func:`check_missed_pairs`, the warm-up: how many true pairs a result lacks, on
   real results (the article's corner-only grid against brute force) and on
   hand-made ones with wrong, repeated and shuffled rows;
2. :func:`check_time_case`, the core: one case of the benchmark harness (time the
   build and the pairs separately, repeat, keep the medians, check the first answer
   against the reference and never report the time of a wrong one), run with a
   *scripted* clock and structures whose every call takes a known time, then with
   real structures and the real clock;
3. :func:`check_speedup_over_peers`: reading a speed-up from benchmark rows.

Every check calls the learner's function on copies of its inputs
(:func:`~lessons_lib.checks.common.run_student`), validates what comes back
instead of coercing it, and says which input failed, with every digit.
"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np

from .common import CheckFailed, Mistakes, adversarial_boxes, expect_int, num, run_student

__all__ = ["check_missed_pairs", "check_time_case", "check_speedup_over_peers", "speedup_reference"]


def _rows(pairs) -> set:
    return {tuple(r) for r in np.asarray(pairs, np.int64).reshape(-1, 2).tolist()}


def _pairs(rows) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


# --------------------------------------------------------------------------
# Exercise 1 (warm-up): missed pairs
# --------------------------------------------------------------------------
def _missed_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(name, reference, found)``: hand-made cases, then the corner-only grid on adversarial and article scenes."""
    from ..geometry import ARTICLE_WORLD
    from ..labs.grids import corner_only_pairs
    from ..scenes import make_scene
    from ..structures.brute_force import brute_force_pairs

    ref = _pairs([(0, 1), (0, 4), (1, 2), (2, 3), (3, 5)])
    cases = [
        ("identical results", ref, ref.copy()),
        ("nothing found", ref, _pairs([])),
        ("no true pairs and nothing found", _pairs([]), _pairs([])),
        ("no true pairs, one wrong pair found", _pairs([]), _pairs([(2, 7)])),
        ("two pairs missed", ref, _pairs([(0, 1), (2, 3), (3, 5)])),
        ("the same pairs in another row order", ref, ref[::-1].copy()),
        ("one pair missed and one wrong pair added (same length)", ref, _pairs([(0, 1), (0, 4), (1, 2), (2, 3), (1, 5)])),
        ("one pair missed and a found pair listed twice (same length)", ref,
         _pairs([(0, 1), (0, 4), (1, 2), (2, 3), (2, 3)])),
        # every index of the missed pairs (0, 4) and (3, 5) appears in other found pairs
        ("missed pairs whose indices all appear in found pairs", ref, _pairs([(0, 1), (1, 2), (2, 3), (4, 5), (0, 3)])),
    ]
    for name, boxes in adversarial_boxes(seed=11, world=(-61.25, -17.5, 138.75, 103.3)):
        truth = brute_force_pairs(boxes)
        if len(boxes) < 2:
            continue
        found, _ = corner_only_pairs(boxes, 7.5)
        cases.append((f"{name}: corner-only grid with 7.5-unit cells", truth, found))
    for scene in ("large_boxes", "xline"):
        boxes = make_scene(scene, 300, seed=4)
        found, _ = corner_only_pairs(boxes, 50.0, world=ARTICLE_WORLD)
        cases.append((f"{scene} (300 boxes): corner-only grid with 50-unit cells", brute_force_pairs(boxes), found))
    rng = np.random.default_rng(1111)
    for k in range(6):
        n = 30
        every = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64)
        truth = every[rng.random(len(every)) < 0.1]
        keep = truth[rng.random(len(truth)) < 0.7]
        extra = every[rng.random(len(every)) < 0.02]
        found = np.vstack([keep, extra, keep[: k]])  # some found pairs listed twice
        cases.append((f"random case {k}", truth, found[rng.permutation(len(found))]))
    return cases


def _missed_reference(reference, found) -> int:
    return len(_rows(reference) - _rows(found))


def check_missed_pairs(fn) -> None:
    """Check ``fn(reference, found) -> int``: how many pairs of ``reference`` are not in ``found``.

    Both are ``(k, 2)`` int64 arrays of pairs ``(i, j)``; the reference's rows have
    ``i < j``; ``found`` may hold wrong pairs, a pair twice, rows in any order.
    Cases: hand-made ones (a wrong pair or a repeated pair hiding a missed one,
    indices of missed pairs that appear in other found pairs, nothing found, no
    true pairs), the article's corner-only grid against brute force on
    adversarial scenes (touching, zero-area, duplicated, negative, outside the
    world) and on the article's ``large_boxes`` and ``xline``, seeded random ones.

    Raises
    ------
    CheckFailed
        On the first wrong count (a float or a bool is not a count), or if an
        input was changed.
    """
    cases = _missed_cases()
    mistakes = Mistakes()
    for name, ref, found in cases:
        want = _missed_reference(ref, found)
        what = f"missed_pairs on {name} ({len(ref)} true pairs, {len(found)} found)"
        case = f"{what}: reference {ref.tolist()}, found {found.tolist()}" if len(ref) + len(found) <= 16 else what
        got = expect_int(run_student(fn, ref, found, name="missed_pairs", case=case), what, exact=True)
        candidates = [
            (" Hint: the difference of the lengths is not enough: a wrong or a repeated pair in `found` hides a "
             "missed one. Compare the pairs themselves.", len(ref) - len(found)),
            (" Hint: count only the reference's pairs missing from `found`, not `found`'s extra pairs.",
             len(_rows(ref) ^ _rows(found))),
            (" Hint: a pair is found when the same row (i, j) is in `found`; testing i and j separately "
             "accepts two indices taken from different pairs.", int(sum(not np.isin(r, found).all() for r in ref))),
        ]
        if got == want:
            mistakes.passed(got, candidates)
            continue
        raise CheckFailed(f"{what}: returned {got}, expected {want}.{mistakes.hint(got, want, candidates)}")
    print(f"missed_pairs passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Exercise 2 (core): one case of the harness, timed with a scripted clock
# --------------------------------------------------------------------------
#: Times read from a clock near 18,342 s carry rounding of a few 1e-9 ms: one nanosecond is equal.
_MS_TOL = 1e-6


def _scripted(build_ms, pairs_ms, answers):
    """A structure class whose k-th ``from_boxes`` and ``pairs()`` take exactly the scripted time on ``clock``.

    ``answers(k)`` is what the k-th ``pairs()`` returns. The clock starts at a
    large, non-round number of seconds (as ``time.perf_counter`` does).
    """
    state = {"t": 18_342.125, "builds": 0, "pairs": 0, "clock_calls": 0}

    def clock():
        state["clock_calls"] += 1
        return state["t"]

    class Scripted:
        """A structure whose calls take a scripted time."""

        def __init__(self, k):
            self.k = k

        @classmethod
        def from_boxes(cls, boxes):
            k = state["builds"]
            state["builds"] += 1
            state["t"] += build_ms[k % len(build_ms)] / 1e3
            return cls(k)

        def pairs(self):
            k = state["pairs"]
            state["pairs"] += 1
            state["t"] += pairs_ms[k % len(pairs_ms)] / 1e3
            return answers(k).copy()

    return Scripted, clock, state


def _time_cases():
    """``(name, build_ms, pairs_ms, reference, answers, repeat)`` with scripted structures."""
    ref = _pairs([(0, 1), (0, 3), (2, 5), (4, 5)])
    same_count = _pairs([(0, 1), (0, 3), (2, 5), (3, 5)])
    right = lambda k: ref  # noqa: E731
    return [
        ("a right structure, one slow run among five", [3.25, 2.0, 50.0, 2.5, 2.125], [7.0, 6.5, 6.0, 90.0, 6.25],
         ref, right, 5),
        ("a right structure, four runs (an even number: the median is the mean of the middle two)",
         [4.0, 1.0, 2.0, 3.5], [0.5, 0.25, 8.0, 0.75], ref, right, 4),
        ("a right structure, a single run", [12.375], [0.625], ref, right, 1),
        ("a right structure whose build is slow and pairs() fast", [40.0, 41.5, 39.0], [0.001, 0.002, 0.0015],
         ref, right, 3),
        ("a structure that forgets a pair", [1.0, 1.5, 1.25], [0.5, 0.5, 0.5], ref, lambda k: ref[1:], 3),
        ("a structure that finds the right number of pairs, one of them wrong", [2.0, 2.5, 2.25], [1.0, 1.25, 1.5],
         ref, lambda k: same_count, 3),
        ("a structure with an extra pair (i, i)", [2.0, 2.0, 2.0], [1.0, 1.0, 1.0], ref,
         lambda k: _pairs([(0, 0), (0, 1), (0, 3), (2, 5), (4, 5)]), 3),
        ("no boxes: no pairs expected, none found", [0.0625, 0.125, 0.09375], [0.03125, 0.0, 0.015625],
         _pairs([]), lambda k: _pairs([]), 3),
        # Runs that do not all return the same pairs: only the first run's answer decides.
        ("a structure wrong in its first run only (a cache filled late)", [3.0, 2.0, 2.5], [1.0, 1.5, 1.25], ref,
         lambda k: ref[1:] if k == 0 else ref, 3),
        ("a structure right in its first run, wrong in the later ones (state left by the first)",
         [3.0, 2.0, 2.5, 2.25], [1.0, 1.5, 1.25, 1.75], ref, lambda k: ref if k == 0 else ref[::-1].copy(), 4),
    ]


def _expect_case_result(got, what):
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        raise CheckFailed(f"{what} returned {got!r}: return a tuple (status, build_ms, pairs_ms).")
    status, b, p = got
    if status not in ("ok", "FAILED") or not isinstance(status, str):
        raise CheckFailed(f"{what} returned the status {status!r}: it must be the string 'ok' or 'FAILED'.")
    out = []
    for v, label in ((b, "build_ms"), (p, "pairs_ms")):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise CheckFailed(f"{what} returned {label} = {v!r} ({type(v).__name__}): it must be a number "
                              "(nan for a FAILED case).")
        out.append(float(v))
    return status, out[0], out[1]


def _time_hint(got_b, got_p, build_ms, pairs_ms, repeat, state):
    """Name the slip that turns the scripted times into what came back, if one does."""
    builds, pairs = build_ms[:repeat], pairs_ms[:repeat]
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=_MS_TOL)  # noqa: E731
    med_b, med_p = statistics.median(builds), statistics.median(pairs)
    if state["clock_calls"] == 0:
        return (" Hint: time_case never called clock(): time with the clock it is given (the check's clock runs "
                "exactly as long as each call takes).")
    if repeat > 1 and state["builds"] == 1 and state["pairs"] == 1:
        return f" Hint: that is the first run only; run {repeat} times and keep the medians."
    if state["builds"] < repeat:
        return (f" Hint: cls.from_boxes was called {state['builds']} time(s) for {repeat} runs: build a new "
                "structure in every run, and time each build.")
    if close(got_b, 1e-3 * med_b) and close(got_p, 1e-3 * med_p):
        return " Hint: clock() counts seconds; report milliseconds."
    if close(got_b, statistics.fmean(builds)) or close(got_p, statistics.fmean(pairs)):
        return " Hint: that is the mean; one slow run pulls it up. The median ignores it."
    if close(got_b, min(builds)) or close(got_p, min(pairs)):
        return " Hint: that is the fastest run; report the median."
    if repeat % 2 == 0 and (close(got_b, sorted(builds)[repeat // 2]) or close(got_p, sorted(pairs)[repeat // 2])):
        return " Hint: with an even number of runs the median is the mean of the two middle values."
    if close(got_b, statistics.median([b + q for b, q in zip(builds, pairs)])):
        return " Hint: stop the build's clock before calling pairs(): build_ms is the build alone."
    if close(got_p, statistics.median([b + q for b, q in zip(builds, pairs)])):
        return " Hint: start the pairs' clock after the build: pairs_ms is pairs() alone."
    return ""


def check_time_case(fn) -> None:
    """Check ``fn(cls, boxes, reference, repeat, clock) -> (status, build_ms, pairs_ms)``: one benchmark case.

    In each of ``repeat`` runs: ``cls.from_boxes(boxes)``, timed with ``clock()``
    (seconds) before and after, then that structure's ``pairs()``, timed the same
    way. The first run's pairs must equal ``reference`` (``np.array_equal``): if
    they do, return ``("ok", median build ms, median pairs ms)`` (the median of an
    even number of runs is the mean of the two middle values); if not,
    ``("FAILED", nan, nan)``, since the time of a wrong answer is never used.

    First with a scripted clock and scripted structures whose every call takes a
    known time (a slow outlier, an even number of runs, one run, a slow build, a
    structure that forgets a pair, one that finds the right *number* of pairs with
    one wrong, one that pairs a box with itself, no boxes at all); then with
    ``time.perf_counter`` and real structures (brute force and the uniform grid must
    be ``ok``, a brute force that drops a pair ``FAILED``).

    Raises
    ------
    CheckFailed
        On the first wrong status or time, naming the case, the scripted times and
        what came back; or if an input was changed.
    """
    nan = float("nan")
    for name, build_ms, pairs_ms, ref, answers, repeat in _time_cases():
        cls, clock, state = _scripted(build_ms, pairs_ms, answers)
        boxes = np.array([[0.5, 0.5, 2.0, 1.5]] * 6) + np.arange(6)[:, None] * 0.75
        what = f"time_case on {name} (repeat = {repeat})"
        got = _expect_case_result(run_student(fn, cls, boxes, ref, repeat, clock, name="time_case", case=what), what)
        first = answers(0)
        right = np.array_equal(first, ref)
        want = ("ok", statistics.median(build_ms[:repeat]), statistics.median(pairs_ms[:repeat])) if right \
            else ("FAILED", nan, nan)
        status, b, p = got
        if status != want[0]:
            if right:
                differ = [k for k in range(1, repeat) if not np.array_equal(answers(k), ref)]
                raise CheckFailed(f"{what}: returned status {status!r}, but its first run's pairs equal the reference: "
                                  "expected 'ok'." + (f" (Run {differ[0] + 1} returns other pairs; the first run's "
                                                      "answer is the one checked.)" if differ else ""))
            hint = ""
            later = [answers(k) for k in range(1, repeat)]
            if later and all(np.array_equal(a, ref) for a in later):
                hint = (" Its later runs return the reference; the first run's pairs are the ones to compare (the "
                        "time of a run whose answer was not checked would be reported).")
            elif len(first) == len(ref):
                hint = (" Hint: the number of pairs is right, but one pair is not: compare the pairs themselves "
                        "(np.array_equal), not their count.")
            raise CheckFailed(f"{what}: returned status {status!r}, expected 'FAILED': its first pairs() gives "
                              f"{first.tolist()}, the reference is {ref.tolist()}.{hint}")
        if status == "FAILED":
            if not (math.isnan(b) and math.isnan(p)):
                raise CheckFailed(f"{what}: a FAILED case returned build_ms = {num(b)} and pairs_ms = {num(p)}; "
                                  "the time of a wrong answer is never used: return nan for both.")
            continue
        if not (math.isclose(b, want[1], rel_tol=1e-9, abs_tol=_MS_TOL)
                and math.isclose(p, want[2], rel_tol=1e-9, abs_tol=_MS_TOL)):
            raise CheckFailed(f"{what}: the builds took {', '.join(num(v) for v in build_ms[:repeat])} ms and the "
                              f"pairs() calls {', '.join(num(v) for v in pairs_ms[:repeat])} ms; returned "
                              f"build_ms = {num(b)}, pairs_ms = {num(p)}, expected {num(want[1])} and {num(want[2])}."
                              + _time_hint(b, p, build_ms, pairs_ms, repeat, state))
    _check_time_case_live(fn)
    print(f"time_case passed all {len(_time_cases())} scripted cases and 3 real structures timed with "
          "time.perf_counter.")


def _check_time_case_live(fn) -> None:
    from ..scenes import make_scene
    from ..structures.brute_force import BruteForce, brute_force_pairs
    from ..structures.uniform_grid import UniformGrid

    class DropsAPair(BruteForce):
        """Brute force that forgets its first pair."""

        def pairs(self):
            return super().pairs()[1:]

    boxes = make_scene("random", 400, seed=11)
    ref = brute_force_pairs(boxes)
    for cls, want in ((BruteForce, "ok"), (UniformGrid, "ok"), (DropsAPair, "FAILED")):
        what = f"time_case on {cls.__name__} (400 random boxes, repeat = 3, clock = time.perf_counter)"
        status, b, p = _expect_case_result(run_student(fn, cls, boxes, ref, 3, time.perf_counter, name="time_case",
                                                       case=what), what)
        if status != want:
            raise CheckFailed(f"{what}: returned status {status!r}, expected {want!r}.")
        if want == "ok" and not (math.isfinite(b) and math.isfinite(p) and b >= 0 and p >= 0 and b + p < 60_000):
            raise CheckFailed(f"{what}: returned build_ms = {num(b)}, pairs_ms = {num(p)}: expected two times in "
                              "milliseconds, finite and not negative.")


# --------------------------------------------------------------------------
# Exercise 3: the speed-up over the peers
# --------------------------------------------------------------------------
def speedup_reference(rows, scene: str, n: int):
    """(fastest of ours, fastest peer, peer total / ours total) among the ``ok`` rows of ``scene`` at ``n``.

    The first row wins a tie; a side without an ``ok`` row is ``"-"`` and the speed-up ``nan``.
    """
    here = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "ok"]
    best = {}
    for r in here:
        if r["kind"] not in best or r["total_ms"] < best[r["kind"]]["total_ms"]:
            best[r["kind"]] = r
    ours, peer = best.get("ours"), best.get("peer")
    return (ours["structure"] if ours else "-", peer["structure"] if peer else "-",
            peer["total_ms"] / ours["total_ms"] if ours and peer else float("nan"))


def _row(scene, n, structure, kind, build, pairs, status="ok", total=None):
    """A benchmark row; ``total`` when the case's total is more than build + pairs (a copy of the input, the
    checks), as a real harness may record it."""
    return {"suite": "scaled", "scene": scene, "n": n, "structure": structure, "kind": kind, "build_ms": build,
            "pairs_ms": pairs, "total_ms": build + pairs if total is None else total, "status": status}


def _speedup_table():
    r = _row
    return [
        r("random", 100_000, "uniform_grid", "ours", 6.125, 10.0),
        r("random", 100_000, "sweep_and_prune", "ours", 6.0, 14.5),
        r("random", 100_000, "quadtree", "ours", 80.0, 9.0),          # fastest pairs(), slow build
        r("random", 100_000, "cheater", "ours", 1.0, 1.0, status="FAILED"),  # fast because wrong
        r("random", 100_000, "cKDTree", "peer", 25.0, 60.25),
        r("random", 100_000, "shapely.STRtree", "peer", 26.0, 385.0),
        r("random", 100_000, "pyqtree", "peer", 0.5, 0.5, status="skipped"),  # never measured
        r("random", 10_000, "uniform_grid", "ours", 0.5, 0.75),
        r("random", 10_000, "point_grid", "ours", 0.25, 1.0),         # a tie with uniform_grid: the first listed wins
        r("random", 10_000, "cKDTree", "peer", 2.0, 5.5),
        r("xline", 100_000, "sweep_and_prune", "ours", 9.0, 600.0),
        r("xline", 100_000, "uniform_grid", "ours", 8.0, 900.0),
        r("xline", 100_000, "shapely.STRtree", "peer", 300.0, 21000.0),
        r("xline", 100_000, "rtree.index", "peer", 250.0, 21050.0),  # a tie between peers
        r("tiny", 1_000, "uniform_grid", "ours", 0.25, 0.125),
        r("tiny", 1_000, "shapely.STRtree", "peer", 0.125, 0.125),    # the peer is faster here: speed-up < 1
        r("clustered", 100_000, "uniform_grid", "ours", 7.0, 17.0),   # no peer finished
        r("clustered", 100_000, "cKDTree", "peer", 30.0, 190.0, status="skipped"),
        r("dense", 100_000, "cKDTree", "peer", 30.0, 190.0),          # none of ours finished
        r("dense", 100_000, "uniform_grid", "ours", 3.0, 4.0, status="FAILED"),
        # total_ms is a column of its own: here it is more than build + pairs, and summing the two picks
        # another winner and another ratio.
        r("overhead", 50_000, "uniform_grid", "ours", 4.0, 5.0, total=21.5),
        r("overhead", 50_000, "sweep_and_prune", "ours", 6.0, 6.5, total=13.0),
        r("overhead", 50_000, "cKDTree", "peer", 10.0, 30.0, total=52.0),
        r("overhead", 50_000, "shapely.STRtree", "peer", 12.0, 29.5, total=58.25),
    ]


def _speedup_variant(rows, scene, n, *, status=True, same_n=True, key="total_ms", first_on_ties=True,
                     total_of=None):
    """``speedup_reference`` with one of its rules changed (a typical mistake)."""
    here = [r for r in rows if r["scene"] == scene and (r["n"] == n or not same_n) and (r["status"] == "ok" or not status)]
    if not first_on_ties:
        here = here[::-1]
    cost = total_of or (lambda r: r[key])
    best = {}
    for r in here:
        if r["kind"] not in best or cost(r) < cost(best[r["kind"]]):
            best[r["kind"]] = r
    ours, peer = best.get("ours"), best.get("peer")
    return (ours["structure"] if ours else "-", peer["structure"] if peer else "-",
            cost(peer) / cost(ours) if ours and peer else float("nan"))


def _speedup_hint(rows, scene, n, got, want) -> str:
    """The hint of the one typical mistake whose answer is ``got`` (names, and the ratio to 1e-9), else ``""``."""
    def same(a, b):
        return a[:2] == b[:2] and ((math.isnan(a[2]) and math.isnan(b[2])) or
                                   (not math.isnan(a[2]) and not math.isnan(b[2]) and math.isclose(a[2], b[2], rel_tol=1e-9)))

    upside = (want[0], want[1], 1 / want[2] if math.isfinite(want[2]) and want[2] else float("nan"))
    candidates = [
        (" Hint: keep only rows whose status is 'ok': a FAILED row is fast because it is wrong, a skipped row was "
         "never measured.", _speedup_variant(rows, scene, n, status=False)),
        (f" Hint: keep only the rows of scene {scene!r} and n = {n}: rows of another n do not count.",
         _speedup_variant(rows, scene, n, same_n=False)),
        (" Hint: compare total_ms, not pairs_ms alone: the build is part of the cost.",
         _speedup_variant(rows, scene, n, key="pairs_ms")),
        (" Hint: total_ms is a column of its own, here more than build_ms + pairs_ms (the case costs more than the "
         "two calls): read it, do not add the other two.",
         _speedup_variant(rows, scene, n, total_of=lambda r: r["build_ms"] + r["pairs_ms"])),
        (" Hint: on a tie keep the row listed first.", _speedup_variant(rows, scene, n, first_on_ties=False)),
        (" Hint: the ratio is upside down: speedup = peer time / our time (bigger means we are faster).", upside),
        (" Hint: when one side has no ok row, its name is '-' and the speed-up nan.",
         (want[0], want[1], 0.0) if "-" in want[:2] else None),
    ]
    hits = {h for h, wrong in candidates if wrong is not None and same(got, wrong) and not same(want, wrong)}
    if len(hits) == 1:
        return hits.pop()
    if got[:2] == want[:2] and math.isfinite(want[2]) and any(math.isclose(got[2], round(want[2], d), rel_tol=1e-12)
                                                                for d in range(0, 5)):
        return " The ratio is rounded; return it as computed (a check compares every digit)."
    return ""


def check_speedup_over_peers(fn) -> None:
    """Check ``fn(rows, scene, n) -> (ours, peer, speedup)`` read from benchmark rows.

    ``rows`` is a list of dictionaries (``scene``, ``n``, ``structure``, ``kind``
    ``"ours"``/``"peer"``, ``build_ms``, ``pairs_ms``, ``total_ms``, ``status``).
    Among the rows of that scene and n whose status is ``"ok"``: the fastest of
    ours and the fastest peer by ``total_ms`` (the first listed wins a tie), and
    ``speedup = peer total_ms / ours total_ms`` (below 1 when the peer is faster).
    A side with no ``ok`` row is ``"-"``, and the speed-up is then ``nan``.
    Cases: a fast FAILED row, a skipped row, a slow build with the fastest
    ``pairs()``, ties, a faster peer, no peer, none of ours.

    Raises
    ------
    CheckFailed
        On the first wrong answer, with every digit; or if ``rows`` was changed.
    """
    rows = _speedup_table()
    cases = [("random", 100_000), ("random", 10_000), ("xline", 100_000), ("tiny", 1_000), ("clustered", 100_000),
             ("dense", 100_000), ("overhead", 50_000)]
    for scene, n in cases:
        want = speedup_reference(rows, scene, n)
        what = f"speedup_over_peers(rows, {scene!r}, {n})"
        got = run_student(fn, rows, scene, n, name="speedup_over_peers", case=what)
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise CheckFailed(f"{what} returned {got!r}; return a tuple (our structure's name, the peer's name, "
                              "speedup).")
        ours, peer = got[0], got[1]
        if not isinstance(ours, str) or not isinstance(peer, str):
            raise CheckFailed(f"{what} returned the names {ours!r} and {peer!r}: both must be strings ('-' when "
                              "that side has no ok row).")
        if isinstance(got[2], (bool, np.bool_)) or not isinstance(got[2], (int, float, np.integer, np.floating)):
            raise CheckFailed(f"{what} returned the speed-up {got[2]!r}: it must be a number (nan when a side is "
                              "missing).")
        ratio = float(got[2])
        same = (ours, peer) == want[:2] and (math.isclose(ratio, want[2], rel_tol=1e-9) if math.isfinite(want[2])
                                              else math.isnan(ratio))
        if same:
            continue
        hint = _speedup_hint(rows, scene, n, (ours, peer, ratio), want)
        raise CheckFailed(f"{what} returned ({ours!r}, {peer!r}, {num(ratio)}), expected "
                          f"({want[0]!r}, {want[1]!r}, {num(want[2])}).{hint}")
    print(f"speedup_over_peers read all {len(cases)} cases right.")

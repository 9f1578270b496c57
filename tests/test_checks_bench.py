"""Lesson 12's exercise checks pass the reference, fail the stub, and fail typical wrong answers, each named."""
import math
import statistics
import time

import numpy as np
import pytest

from lessons_lib.checks import CheckFailed, check_missed_pairs, check_speedup_over_peers, check_time_case


def stub(*args):
    raise NotImplementedError


# -- exercise 1 (warm-up): missed pairs ------------------------------------------------
def missed_reference(reference, found):
    return len({tuple(r) for r in reference.tolist()} - {tuple(r) for r in found.tolist()})


def test_missed_pairs_reference_passes(capsys):
    check_missed_pairs(missed_reference)
    check_missed_pairs(lambda ref, found: int((~(ref[:, None, :] == found[None, :, :]).all(2).any(1)).sum()))
    assert "passed" in capsys.readouterr().out


def missed_sorting_in_place(reference, found):
    found.sort(axis=0)  # sorts each column on its own: changes the caller's array (and breaks its pairs)
    return missed_reference(reference, found)


@pytest.mark.parametrize("wrong, words", [
    (stub, "not written yet"),
    (lambda ref, found: len(ref) - len(found), "difference of the lengths"),             # lengths only
    (lambda ref, found: len({tuple(r) for r in ref.tolist()} ^ {tuple(r) for r in found.tolist()}),
     "not `found`'s extra pairs"),                                                       # symmetric difference
    (lambda ref, found: int(sum(not np.isin(r, found).all() for r in ref)), "testing i and j separately"),
    (lambda ref, found: float(missed_reference(ref, found)), "must be an integer"),
    (lambda ref, found: len(set(map(tuple, ref.tolist())) - set(map(tuple, found[: len(ref)].tolist()))), "expected"),
    (missed_sorting_in_place, "changed its argument number 2 in place"),
    (lambda ref, found: None, "returned None"),
])
def test_missed_pairs_wrong_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_missed_pairs(wrong)


# -- exercise 2 (core): one case of the harness -------------------------------------------
def make_time_case(rule="reference"):
    """The harness's case, or one typical slip of it named by ``rule``."""
    def time_case(cls, boxes, reference, repeat, clock):
        clock_fn = time.perf_counter if rule == "own_clock" else clock
        builds, pairs = [], []
        bp = None
        for r in range(1 if rule == "first_run_only" else repeat):
            t0 = clock_fn()
            if bp is None or rule != "build_once":
                bp = cls.from_boxes(boxes)
            t1 = clock_fn()
            found = bp.pairs()
            t2 = clock_fn()
            unit = 1.0 if rule == "seconds" else 1e3
            builds.append(unit * ((t2 if rule == "build_includes_pairs" else t1) - t0))
            pairs.append(unit * (t2 - (t0 if rule == "pairs_include_build" else t1)))
            if r == 0 and rule != "no_check":
                same = len(found) == len(reference) if rule == "count_only" else np.array_equal(found, reference)
                if not same:
                    if rule == "keeps_failed_times":
                        return "FAILED", builds[0], pairs[0]
                    return "FAILED", math.nan, math.nan
        summary = {"mean": statistics.fmean, "min": min,
                   "upper_middle": lambda v: sorted(v)[len(v) // 2]}.get(rule, statistics.median)
        return "ok", summary(builds), summary(pairs)
    return time_case


def test_time_case_reference_passes(capsys):
    check_time_case(make_time_case())
    assert "passed all" in capsys.readouterr().out


@pytest.mark.parametrize("rule, words", [
    ("mean", "that is the mean"),
    ("min", "that is the fastest run"),
    ("upper_middle", "mean of the two middle values"),
    ("seconds", "report milliseconds"),
    ("build_includes_pairs", "stop the build's clock before calling pairs"),
    ("pairs_include_build", "start the pairs' clock after the build"),
    ("build_once", "build a new structure in every run"),
    ("first_run_only", "that is the first run only"),
    ("own_clock", "never called clock"),
    ("no_check", "expected 'FAILED'"),
    ("count_only", "compare the pairs themselves"),
    ("keeps_failed_times", "return nan for both"),
])
def test_time_case_wrong_answers_fail(rule, words):
    with pytest.raises(CheckFailed, match=words):
        check_time_case(make_time_case(rule))


@pytest.mark.parametrize("wrong, words", [
    (stub, "time_case is not written yet"),
    (lambda cls, boxes, ref, repeat, clock: None, "returned None"),
    (lambda cls, boxes, ref, repeat, clock: ("ok", 1.0), "return a tuple"),
    (lambda cls, boxes, ref, repeat, clock: (True, 1.0, 2.0), "the string 'ok' or 'FAILED'"),
    (lambda cls, boxes, ref, repeat, clock: ("ok", "1.0", 2.0), "must be a number"),
])
def test_time_case_malformed_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_time_case(wrong)


def test_time_case_that_clears_the_reference_fails():
    def clears(cls, boxes, reference, repeat, clock):
        result = make_time_case()(cls, boxes, reference, repeat, clock)
        reference.resize((0, 2), refcheck=False)
        return result

    with pytest.raises(CheckFailed, match="changed its argument number 3 in place"):
        check_time_case(clears)


# -- exercise 3: the speed-up over the peers ------------------------------------------------
def make_speedup(rule="reference"):
    def speedup_over_peers(rows, scene, n):
        here = [r for r in rows if r["scene"] == scene and (rule == "any_n" or r["n"] == n)
                and (rule == "any_status" or r["status"] == "ok")]
        if rule == "last_on_ties":
            here = here[::-1]
        key = "pairs_ms" if rule == "pairs_only" else "total_ms"
        ours = [r for r in here if r["kind"] == "ours"]
        peers = [r for r in here if r["kind"] == "peer"]
        if rule == "crashes_without_a_peer":
            o, p = min(ours, key=lambda r: r[key]), min(peers, key=lambda r: r[key])
        else:
            o = min(ours, key=lambda r: r[key]) if ours else None
            p = min(peers, key=lambda r: r[key]) if peers else None
        if o is None or p is None:
            return (o["structure"] if o else "-", p["structure"] if p else "-", 0.0 if rule == "zero" else math.nan)
        ratio = o[key] / p[key] if rule == "inverted" else p[key] / o[key]
        return o["structure"], p["structure"], ratio
    return speedup_over_peers


def test_speedup_reference_passes(capsys):
    check_speedup_over_peers(make_speedup())
    assert "read all" in capsys.readouterr().out


@pytest.mark.parametrize("rule, words", [
    ("any_status", "status is 'ok'"),
    ("pairs_only", "compare total_ms"),
    ("inverted", "upside down"),
    ("any_n", "rows of another n"),
    ("last_on_ties", "keep the row listed first"),
    ("zero", "the speed-up nan"),
    ("crashes_without_a_peer", "raised ValueError"),
])
def test_speedup_wrong_answers_fail(rule, words):
    with pytest.raises(CheckFailed, match=words):
        check_speedup_over_peers(make_speedup(rule))


def sorts_the_rows(rows, scene, n):
    rows.sort(key=lambda r: r["total_ms"])
    return make_speedup()(rows, scene, n)


@pytest.mark.parametrize("wrong, words", [
    (stub, "not written yet"),
    (lambda rows, scene, n: 5.0, "return a tuple"),
    (lambda rows, scene, n: None, "returned None"),
    (lambda rows, scene, n: ("uniform_grid", None, 5.0), "must be strings"),
    (sorts_the_rows, "changed its argument number 1 in place"),
])
def test_speedup_malformed_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_speedup_over_peers(wrong)


# == issue 33: each kind of wrong answer that used to pass =========================================
def speedup_summing_two_columns(rows, scene, n):
    rows = [dict(r, total_ms=r["build_ms"] + r["pairs_ms"]) for r in rows]
    return make_speedup()(rows, scene, n)


def speedup_rounded(rows, scene, n):
    ours, peer, ratio = make_speedup()(rows, scene, n)
    return ours, peer, round(ratio, 2) if math.isfinite(ratio) else ratio


def time_case_checks_the_last_run(cls, boxes, reference, repeat, clock):
    builds, pairs, found = [], [], None
    for _ in range(repeat):
        t0 = clock()
        bp = cls.from_boxes(boxes)
        t1 = clock()
        found = bp.pairs()
        t2 = clock()
        builds.append(1e3 * (t1 - t0))
        pairs.append(1e3 * (t2 - t1))
    if not np.array_equal(found, reference):
        return "FAILED", math.nan, math.nan
    return "ok", statistics.median(builds), statistics.median(pairs)


@pytest.mark.parametrize("check, wrong, words", [
    (check_speedup_over_peers, speedup_summing_two_columns, "total_ms is a column of its own"),
    (check_time_case, time_case_checks_the_last_run, "the first run's"),
    (check_missed_pairs, lambda ref, found: np.int64(missed_reference(ref, found)), "must be a Python int"),
])
def test_issue33_kinds_fail(check, wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check(wrong)


def test_a_rounded_ratio_is_not_told_about_other_rows():
    with pytest.raises(CheckFailed, match="The ratio is rounded") as e:
        check_speedup_over_peers(speedup_rounded)
    assert "another n" not in str(e.value)


def test_crashes_name_the_case():
    with pytest.raises(CheckFailed, match=r"raised ValueError: .* on speedup_over_peers\(rows, 'clustered', 100000\)"):
        check_speedup_over_peers(make_speedup("crashes_without_a_peer"))

    def crashes_on_one_run(cls, boxes, reference, repeat, clock):
        if repeat == 1:
            raise ZeroDivisionError("no spread with one run")
        return make_time_case()(cls, boxes, reference, repeat, clock)
    with pytest.raises(CheckFailed, match=r"raised ZeroDivisionError: no spread with one run on time_case on a right "
                                          r"structure, a single run \(repeat = 1\)"):
        check_time_case(crashes_on_one_run)

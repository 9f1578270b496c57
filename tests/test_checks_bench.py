"""Lesson 11's exercise checks pass the reference, fail the stub, and fail plausible wrong answers."""
import pytest

from lessons_lib.checks import CheckFailed, check_build_share, check_missed_pairs, check_speedup_over_peers


def stub(*args):
    raise NotImplementedError


# -- exercise 1: build share ----------------------------------------------------
def share_reference(build_ms, pairs_ms):
    total = build_ms + pairs_ms
    return build_ms / total if total else 0.0


def share_ratio(build_ms, pairs_ms):  # build / pairs: a ratio, not a share
    return build_ms / pairs_ms if pairs_ms else 1.0


def share_percent(build_ms, pairs_ms):
    total = build_ms + pairs_ms
    return 100 * build_ms / total if total else 0.0


def share_of_pairs(build_ms, pairs_ms):
    total = build_ms + pairs_ms
    return pairs_ms / total if total else 0.0


def share_no_zero_guard(build_ms, pairs_ms):
    return build_ms / (build_ms + pairs_ms)


def test_build_share_reference_passes(capsys):
    check_build_share(share_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, words", [
    (stub, "not written yet"),
    (share_ratio, "ratio"),
    (share_percent, "percentage"),
    (share_of_pairs, "share of pairs"),
    (share_no_zero_guard, "divided by zero"),
])
def test_build_share_wrong_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_build_share(wrong)


# -- exercise 2: missed pairs ------------------------------------------------------
def missed_reference(reference, found):
    return len({tuple(r) for r in reference.tolist()} - {tuple(r) for r in found.tolist()})


def missed_by_length(reference, found):
    return len(reference) - len(found)


def missed_symmetric(reference, found):  # counts the extra pairs too
    return len({tuple(r) for r in reference.tolist()} ^ {tuple(r) for r in found.tolist()})


def missed_as_float(reference, found):
    return float(missed_reference(reference, found))


def test_missed_pairs_reference_passes(capsys):
    check_missed_pairs(missed_reference)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, words", [
    (stub, "not written yet"),
    (missed_by_length, "difference of the lengths"),
    (missed_symmetric, "extra pairs"),
    (missed_as_float, "return an int"),
])
def test_missed_pairs_wrong_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_missed_pairs(wrong)


# -- exercise 3: speed-up over the peers ---------------------------------------------
def speedup_reference(rows, scene, n):
    here = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "ok"]
    ours = min((r for r in here if r["kind"] == "ours"), key=lambda r: r["total_ms"])
    peer = min((r for r in here if r["kind"] == "peer"), key=lambda r: r["total_ms"])
    return ours["structure"], peer["structure"], peer["total_ms"] / ours["total_ms"]


def speedup_any_status(rows, scene, n):
    here = [r for r in rows if r["scene"] == scene and r["n"] == n]
    ours = min((r for r in here if r["kind"] == "ours"), key=lambda r: r["total_ms"])
    peer = min((r for r in here if r["kind"] == "peer"), key=lambda r: r["total_ms"])
    return ours["structure"], peer["structure"], peer["total_ms"] / ours["total_ms"]


def speedup_pairs_only(rows, scene, n):
    here = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "ok"]
    ours = min((r for r in here if r["kind"] == "ours"), key=lambda r: r["pairs_ms"])
    peer = min((r for r in here if r["kind"] == "peer"), key=lambda r: r["pairs_ms"])
    return ours["structure"], peer["structure"], peer["pairs_ms"] / ours["pairs_ms"]


def speedup_inverted(rows, scene, n):
    a, b, r = speedup_reference(rows, scene, n)
    return a, b, 1 / r


def speedup_any_n(rows, scene, n):
    here = [r for r in rows if r["scene"] == scene and r["status"] == "ok"]
    ours = min((r for r in here if r["kind"] == "ours"), key=lambda r: r["total_ms"])
    peer = min((r for r in here if r["kind"] == "peer"), key=lambda r: r["total_ms"])
    return ours["structure"], peer["structure"], peer["total_ms"] / ours["total_ms"]


def test_speedup_reference_passes(capsys):
    check_speedup_over_peers(speedup_reference)
    assert "read all" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, words", [
    (stub, "not written yet"),
    (speedup_any_status, "status is 'ok'"),
    (speedup_pairs_only, "total_ms"),
    (speedup_inverted, "upside down"),
    (speedup_any_n, "n = "),
])
def test_speedup_wrong_answers_fail(wrong, words):
    with pytest.raises(CheckFailed, match=words):
        check_speedup_over_peers(wrong)


def test_speedup_rejects_a_bare_number():
    with pytest.raises(CheckFailed, match="return a tuple"):
        check_speedup_over_peers(lambda rows, scene, n: 5.0)

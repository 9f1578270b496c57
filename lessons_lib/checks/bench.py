"""Exercise checks for lesson 11: reading a benchmark (build share, missed pairs, speed-up over the peers)."""
from __future__ import annotations

import math

import numpy as np

from .common import CheckFailed, call_student

__all__ = ["check_build_share", "check_missed_pairs", "check_speedup_over_peers"]


# --------------------------------------------------------------------------
# Build share
# --------------------------------------------------------------------------
def build_share_reference(build_ms: float, pairs_ms: float) -> float:
    """Fraction of build + pairs spent building (0 when both are 0)."""
    total = build_ms + pairs_ms
    return 0.0 if total == 0 else build_ms / total


def check_build_share(fn) -> None:
    """Check ``fn(build_ms, pairs_ms) -> float``: the share of the total time spent building, in [0, 1].

    Raises
    ------
    CheckFailed
        On the first wrong value, naming the input and, where it is a common
        slip (a ratio instead of a share, a percentage, the pairs' share), saying so.
    """
    cases = [(3.0, 1.0), (1.0, 3.0), (2.0, 2.0), (0.5, 0.0), (0.0, 4.0), (12.5, 37.5), (0.0, 0.0), (7.0, 0.25)]
    for b, p in cases:
        want = build_share_reference(b, p)
        try:
            got = call_student(fn, b, p)
        except ZeroDivisionError:
            raise CheckFailed(f"build_share({b}, {p}) divided by zero. Hint: divide by the *total* (build + pairs); "
                              "when both are 0 return 0.") from None
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, float, np.floating, np.integer)):
            raise CheckFailed(f"build_share({b}, {p}) returned {got!r}; return a number between 0 and 1.")
        if math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        hint = ""
        if p and math.isclose(float(got), b / p, rel_tol=1e-9):
            hint = " Hint: that is build / pairs, a ratio; the share divides by the total, build + pairs."
        elif math.isclose(float(got), 100 * want, rel_tol=1e-9):
            hint = " Hint: return a fraction (0.75), not a percentage (75)."
        elif math.isclose(float(got), 1 - want, rel_tol=1e-9):
            hint = " Hint: that is the share of pairs(); the question asks for the build's share."
        raise CheckFailed(f"build_share({b}, {p}) returned {got!r}, expected {want:g}.{hint}")
    print(f"build_share passed all {len(cases)} cases.")


# --------------------------------------------------------------------------
# Missed pairs
# --------------------------------------------------------------------------
def missed_pairs_reference(reference, found) -> int:
    """Pairs of ``reference`` not in ``found`` (rows ``(i, j)``, ``i < j``, any order)."""
    a = {tuple(r) for r in np.asarray(reference, dtype=np.int64).reshape(-1, 2).tolist()}
    b = {tuple(r) for r in np.asarray(found, dtype=np.int64).reshape(-1, 2).tolist()}
    return len(a - b)


def _pair_cases():
    p = lambda rows: np.array(rows, dtype=np.int64).reshape(-1, 2)  # noqa: E731
    ref = p([(0, 1), (0, 4), (1, 2), (2, 3), (3, 5)])
    cases = [
        ("identical results", ref, ref.copy()),
        ("nothing found", ref, p([])),
        ("two pairs missed", ref, p([(0, 1), (2, 3), (3, 5)])),
        ("the same pairs in another order", ref, ref[::-1].copy()),
        ("one pair missed and one wrong pair added (same length!)", ref, p([(0, 1), (0, 4), (1, 2), (2, 3), (1, 5)])),
        ("no true pairs, one wrong pair found", p([]), p([(2, 7)])),
    ]
    rng = np.random.default_rng(1111)
    for k in range(10):
        n = 30
        all_pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64)
        truth = all_pairs[rng.random(len(all_pairs)) < 0.1]
        keep = truth[rng.random(len(truth)) < 0.7]
        extra = all_pairs[rng.random(len(all_pairs)) < 0.02]
        found = np.unique(np.vstack([keep, extra]), axis=0)
        cases.append((f"random case {k}", truth, found[rng.permutation(len(found))]))
    return cases


def check_missed_pairs(fn) -> None:
    """Check ``fn(reference, found) -> int``: how many true pairs a structure missed.

    ``reference`` and ``found`` are ``(k, 2)`` int64 arrays of pairs ``(i, j)``
    with ``i < j``, in any row order; ``found`` may also hold wrong pairs.

    Raises
    ------
    CheckFailed
        On the first wrong count, naming the case.
    """
    for name, ref, found in _pair_cases():
        want = missed_pairs_reference(ref, found)
        got = call_student(fn, ref.copy(), found.copy())
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
            raise CheckFailed(f"{name}: missed_pairs returned {got!r}; return an int (a count of pairs).")
        if got == want:
            continue
        hint = ""
        if got == len(ref) - len(found):
            hint = (" Hint: the difference of the lengths is not enough: a wrong pair in `found` hides a missed one."
                    " Compare the pairs themselves (e.g. as sets of (i, j) tuples).")
        elif got == len(ref) + len(found) - 2 * (len(ref) - want):
            hint = " Hint: count only the reference's pairs missing from `found`, not `found`'s extra pairs."
        raise CheckFailed(f"{name}: missed_pairs returned {got}, expected {want} "
                          f"(reference {len(ref)} pairs, found {len(found)}).{hint}")
    print(f"missed_pairs passed all {len(_pair_cases())} cases.")


# --------------------------------------------------------------------------
# Speed-up over the peers
# --------------------------------------------------------------------------
def speedup_reference(rows, scene: str, n: int):
    """(fastest of ours, fastest peer, peer total / ours total) among the ``ok`` rows of ``scene`` at ``n``."""
    here = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "ok"]
    ours = min((r for r in here if r["kind"] == "ours"), key=lambda r: r["total_ms"])
    peer = min((r for r in here if r["kind"] == "peer"), key=lambda r: r["total_ms"])
    return ours["structure"], peer["structure"], peer["total_ms"] / ours["total_ms"]


def _table():
    def r(scene, n, structure, kind, build, pairs, status="ok"):
        return {"scene": scene, "n": n, "structure": structure, "kind": kind, "build_ms": build,
                "pairs_ms": pairs, "total_ms": build + pairs, "status": status}

    return [
        r("random", 100_000, "uniform_grid", "ours", 6.0, 10.0),
        r("random", 100_000, "sweep_and_prune", "ours", 6.0, 14.0),
        r("random", 100_000, "quadtree", "ours", 80.0, 9.0),  # fastest pairs, slow build
        r("random", 100_000, "cheater", "ours", 1.0, 1.0, status="FAILED"),  # fast because wrong
        r("random", 100_000, "cKDTree", "peer", 25.0, 60.0),
        r("random", 100_000, "shapely.STRtree", "peer", 26.0, 385.0),
        r("random", 10_000, "uniform_grid", "ours", 0.5, 0.7),
        r("random", 10_000, "cKDTree", "peer", 2.0, 5.0),
        r("xline", 100_000, "sweep_and_prune", "ours", 9.0, 600.0),
        r("xline", 100_000, "uniform_grid", "ours", 8.0, 900.0),
        r("xline", 100_000, "pyqtree", "peer", 1.0, 0.5, status="skipped"),  # never measured
        r("xline", 100_000, "shapely.STRtree", "peer", 300.0, 21000.0),
    ]


def check_speedup_over_peers(fn) -> None:
    """Check ``fn(rows, scene, n) -> (ours, peer, speedup)`` read from a benchmark table.

    ``rows`` are dictionaries with ``scene, n, structure, kind ("ours"/"peer"),
    build_ms, pairs_ms, total_ms, status``. The answer names the fastest of
    our structures and the fastest peer by ``total_ms`` (build + pairs) among
    rows whose status is ``"ok"``, and ``speedup = peer total / ours total``.

    Raises
    ------
    CheckFailed
        On a wrong answer, with a hint for the usual slips: a FAILED or skipped
        row used, ``pairs_ms`` instead of ``total_ms``, the ratio upside down,
        rows of another ``n``.
    """
    rows = _table()
    for scene, n in (("random", 100_000), ("random", 10_000), ("xline", 100_000)):
        want = speedup_reference(rows, scene, n)
        got = call_student(fn, [dict(r) for r in rows], scene, n)
        try:
            ours, peer, ratio = got
            ratio = float(ratio)
        except (TypeError, ValueError):
            raise CheckFailed(f"speedup_over_peers(rows, {scene!r}, {n}) returned {got!r}; "
                              "return a tuple (our structure's name, the peer's name, speedup).") from None
        if (ours, peer) == want[:2] and math.isclose(ratio, want[2], rel_tol=1e-6):
            continue
        hint = ""
        if ours == "cheater" or peer == "pyqtree":
            hint = (" Hint: keep only rows whose status is 'ok': a FAILED row is fast because it is wrong, a"
                    " skipped row was never measured.")
        elif ours == "quadtree" or (peer, ours) == ("cKDTree", "sweep_and_prune") and scene == "xline":
            hint = " Hint: compare total_ms (build + pairs), not pairs_ms alone: the build is part of the cost."
        elif math.isclose(ratio, 1 / want[2], rel_tol=1e-6):
            hint = " Hint: the ratio is upside down: speedup = peer time / our time (bigger means we are faster)."
        elif not math.isclose(ratio, want[2], rel_tol=1e-6) and (ours, peer) == want[:2]:
            hint = (f" Hint: the names are right but the ratio is not: keep only the rows of scene {scene!r} and"
                    f" n = {n:,}, then divide the two rows' total_ms.")
        else:
            hint = f" Hint: keep only the rows of scene {scene!r} and n = {n:,}."
        raise CheckFailed(f"speedup_over_peers(rows, {scene!r}, {n}) returned {got!r}, expected "
                          f"({want[0]!r}, {want[1]!r}, {want[2]:.3g}).{hint}")
    print("speedup_over_peers read all 3 cases right.")

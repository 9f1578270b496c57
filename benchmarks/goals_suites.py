"""Goals of the benchmark suites (lesson 12), read from the stored ``bench_*.csv`` files.

At n = 100,000 on the scaled ``random``, ``clustered``, ``xline`` and ``yline``
scenes, the fastest lessons_lib structure at least 5x faster than the fastest
peer, build included; and no wrong pair anywhere in any suite.
"""
from __future__ import annotations

from lessons_lib.bench.suites import HEADLINE_N, HEADLINE_SCENES
from lessons_lib.data import load_results

from . import Line, goal

SPEEDUP = 5.0


def suite_lines(rows: list[dict], *, scenes=HEADLINE_SCENES, n: int = HEADLINE_N,
                 speedup: float = SPEEDUP, every_row: list[dict] | None = None) -> list[Line]:
    """The suites' goals, read from suite rows: met or not.

    Per scene: the fastest lessons_lib structure (``total_ms`` = build +
    pairs, status ok) against the fastest peer at ``n`` in ``rows`` (the scaled
    suite's); and no lessons_lib row ``FAILED`` anywhere in ``every_row``
    (default ``rows``: pass every suite's rows).
    """
    lines = []
    for scene in scenes:
        here = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "ok"]
        ours = [r for r in here if r["kind"] == "ours"]
        peers = [r for r in here if r["kind"] == "peer"]
        what = f"{scene}, n = {n:,}: fastest lessons_lib structure vs fastest peer (build + pairs)"
        if not ours or not peers:
            missing = "lessons_lib structure" if not ours else "peer"
            why = [r for r in rows if r["scene"] == scene and r["n"] == n and r["status"] == "skipped"
                   and r["kind"] == ("ours" if not ours else "peer")]
            detail = "; ".join(f"{r['structure']}: {r['note']}" for r in why[:4])
            have = f"; fastest of ours: {min(ours, key=lambda r: r['total_ms'])['structure']} " \
                   f"{min(r['total_ms'] for r in ours):.1f} ms" if ours else ""
            lines.append(Line(what, f"not measured: no {missing} finished at this n{have}"
                                    + (f" ({detail})" if detail else ""), f">= {speedup:g}x", False))
            continue
        a = min(ours, key=lambda r: r["total_ms"])
        b = min(peers, key=lambda r: r["total_ms"])
        ratio = b["total_ms"] / a["total_ms"]
        lines.append(Line(what, f"{a['structure']} {a['total_ms']:.1f} ms vs {b['structure']} "
                                f"{b['total_ms']:.1f} ms: {ratio:.1f}x", f">= {speedup:g}x", ratio >= speedup))
    failed = [r for r in (rows if every_row is None else every_row)
              if r["kind"] == "ours" and r["status"] == "FAILED"]
    lines.append(Line("lessons_lib structures reporting a wrong pair (every suite row given)",
                      "none" if not failed else "; ".join(f"{r['structure']} on {r['scene']} n={r['n']} "
                                                         f"({r['suite']})" for r in failed[:5])
                      + (" ..." if len(failed) > 5 else ""), "none", not failed))
    return lines


@goal("suites: fastest lessons_lib structure vs fastest peer, stored results")
def stored_suites():
    every = []
    for name in ("article", "scaled", "dynamic"):
        try:
            every += load_results(f"bench_{name}").rows()
        except FileNotFoundError:
            pass
    scaled = [r for r in every if r["suite"] == "scaled"]
    return suite_lines(scaled, every_row=every)

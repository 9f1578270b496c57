"""Benchmark suites: every structure x scene x n, checked, timed, compared with the libraries people use.

``python -m lessons_lib.bench --suite article|scaled|dynamic`` (``make bench``
runs all three) measures, for each scene and each ``n``:

* every structure registered in :data:`lessons_lib.STRUCTURES` *when the suite
  runs* (lessons added later are picked up without a change here), or those
  chosen with ``--structures``;
* the peers of :data:`lessons_lib.bench.peers.PEERS` that are installed
  (``pip install -e .[peers]``): ``cKDTree``, ``shapely.STRtree``, ``rtree``
  and ``pyqtree``.

Each case is repeated and the **median** kept; the build (``from_boxes``) and
``pairs()`` are timed separately (the article's "share of time spent building"
is a result of its own), beside ``memory_bytes()`` per element. Every result is
**checked** against a reference before its time is kept: brute force (the
compiled double loop) up to :data:`BRUTE_MAX` boxes, above that a lessons_lib
structure that matched brute force on the same scene earlier in the same run
(:data:`REFERENCE_ORDER`), or cKDTree. A case whose pairs differ is marked
``FAILED`` and printed loudly.

A **time budget** per case keeps a slow structure from hanging the run: a case
whose time, extrapolated from the smaller ``n`` of the same scene, exceeds the
budget is skipped with a note, and so is every larger ``n`` once a case ran over
it. A structure that cannot take a scene (its constructor raises ``ValueError``,
e.g. a grid of points for boxes larger than its bound) is ``skipped`` with the
reason. Results go to ``data/results/bench_<suite>.csv`` through
:func:`lessons_lib.data.save_results` (machine, versions and date included).

Suites
------
``article``
    The five placements of magley's article [magley2026]
    in its 800 x 600 world at n = 10, 100, 500, 1000, 2000, as the article ran them.
``scaled``
    Those placements plus ``clustered`` and ``mixed_sizes`` in the world
    :func:`lessons_lib.scenes.scale_to` gives (the article's density at n = 2000),
    n = 1,000 ... 100,000, and 500,000 for the structures fast enough.
``dynamic``
    ``n`` agents for ``frames`` frames, one unit per frame, bouncing off the
    world's walls (:func:`agent_frames`), on four scenes (:data:`MOVING_SCENES`):
    ``random`` and ``clustered`` (every agent moves); ``resting`` (the
    ``random`` placement, but only 5 % of the agents move, a fixed random
    subset, and the others keep their frame-0 box: most bodies of a physics
    scene rest); ``mixed_sizes`` (the ``mixed_sizes`` placement, 2 % of the
    boxes 6 to 50 times as wide as the rest, 36 to 2,500 times their area,
    every agent moving: sizes that differ by orders of magnitude, kept apart
    from resting bodies so that each effect shows on its own; lesson 13's
    simulation has giants *among* resting bodies). Per frame, ``update_many``
    with **every** id, moved or not, then ``pairs()``: an engine's step hands
    the broad phase every body's box, so a structure must notice an unchanged
    box cheaply itself (passing only the moved ids would measure the caller's
    bookkeeping instead). Peers, which cannot move an element, rebuild every
    frame, whatever moved.

Headline cases (:data:`HEADLINE_SCENES` at :data:`HEADLINE_N`, scaled suite):
the fastest structure and the fastest peer both get a longer time budget there,
so that lesson 12 can compare them.
"""
from __future__ import annotations

import gc
import math
import statistics
import sys
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping

import numpy as np

from ..base import STRUCTURES, BroadPhase
from ..structures.brute_force import compiled_brute_force_pairs
from ..scenes import ARTICLE_SCENES, SCENES, make_scene, scale_to
from .peers import PEERS, Peer

__all__ = [
    "BRUTE_MAX",
    "HEADLINE_N",
    "HEADLINE_SCENES",
    "COLUMNS",
    "DYNAMIC_COLUMNS",
    "REFERENCE_ORDER",
    "SUITES",
    "Suite",
    "Entrant",
    "predict_seconds",
    "contenders",
    "main_suites",
    "MOVING_SCENES",
    "RESTING_FRACTION",
    "agent_frames",
    "print_table",
    "run_dynamic",
    "run_suite",
    "save_suite",
]

#: Columns of ``bench_article.csv`` and ``bench_scaled.csv``, in order.
COLUMNS = ("suite", "scene", "n", "structure", "kind", "build_ms", "pairs_ms", "total_ms", "pairs",
           "bytes_per_box", "repeats", "status", "note", "reference")
#: Columns of ``bench_dynamic.csv``, in order.
DYNAMIC_COLUMNS = ("suite", "scene", "n", "frames", "structure", "kind", "build_ms", "update_ms", "pairs_ms",
                   "frame_ms", "pairs", "bytes_per_box", "status", "note", "reference")

#: Up to this many boxes the reference is the compiled brute force (O(n^2) but exact by construction).
BRUTE_MAX = 10_000
#: Above BRUTE_MAX, the reference is the first of these that matched brute force on the same scene earlier
#: in the run (then cKDTree, whose radius rule plus exact filter is exact too).
REFERENCE_ORDER = ("sweep_and_prune", "uniform_grid", "spatial_hash", "quadtree", "kdtree", "bulk_rtree")
#: A run longer than this (seconds) is not repeated: at that length one run is a steady measurement.
SINGLE_RUN_S = 1.0
#: The headline comparison of lesson 12: fastest structure vs fastest peer on these scaled scenes at this n.
HEADLINE_SCENES = ("random", "clustered", "xline", "yline")
HEADLINE_N = 100_000


@dataclass(frozen=True)
class Suite:
    """What a suite runs.

    Attributes
    ----------
    name : str
        ``"article"``, ``"scaled"``, ``"dynamic"`` or a name of your own (tests).
    scenes : tuple of str
        Scene names of :data:`lessons_lib.SCENES`.
    ns : tuple of int
        Box counts, ascending.
    scaled : bool
        World from :func:`scale_to` (True) or the article's 800 x 600 (False).
    repeat : int
        Repetitions per case (the median is kept); fewer when the budget runs out.
    budget_s : float
        Seconds per case (all repetitions, build and pairs together).
    big_n : int or None
        An extra, larger ``n`` run once (no repeats) only by the entrants whose
        time at ``ns[-1]`` on that scene was at most ``big_max_s``, and only on
        scenes with at most ``big_max_pairs_per_box`` pairs per box at
        ``ns[-1]`` (memory).
    frames : int
        Dynamic suite only: frames timed per case (after ``warmup`` untimed ones).
    headline_budget_factor : float
        At the headline cases (scaled suite, n = 100,000 on the targets' scenes)
        the fastest of ours and the fastest peer so far get this many times the
        budget, even if they were over it at a smaller n: the comparison needs
        a time from each side.
    """

    name: str
    scenes: tuple
    ns: tuple
    scaled: bool = True
    repeat: int = 3
    budget_s: float = 5.0
    big_n: int | None = None
    big_max_s: float = 0.25
    big_max_pairs_per_box: float = 20.0
    frames: int = 20
    warmup: int = 2
    step: float = 1.0
    headline_budget_factor: float = 8.0

    def scene(self, scene: str, n: int, seed: int = 0) -> np.ndarray:
        """The boxes of one case."""
        return make_scene(scene, n, seed=seed, world=scale_to(n) if self.scaled else None)


SUITES: dict[str, Suite] = {
    "article": Suite("article", ARTICLE_SCENES, (10, 100, 500, 1000, 2000), scaled=False, repeat=5, budget_s=3.0),
    "scaled": Suite("scaled", SCENES, (1_000, 3_000, 10_000, 30_000, 100_000), scaled=True, repeat=3,
                    budget_s=3.0, big_n=500_000, big_max_s=0.1),
    "dynamic": Suite("dynamic", ("random", "clustered", "resting", "mixed_sizes"), (1_000, 10_000, 100_000),
                     scaled=True, repeat=1, budget_s=8.0, frames=20),
}

#: Fraction of the agents that move in the dynamic suite's ``resting`` scene (as in Box2D's anchor frames).
RESTING_FRACTION = 0.05
#: The dynamic suite's scenes: name -> (placement of :func:`lessons_lib.make_scene`, fraction of agents moving).
#: Any other placement name runs with every agent moving.
MOVING_SCENES = {"random": ("random", 1.0), "clustered": ("clustered", 1.0),
                 "resting": ("random", RESTING_FRACTION), "mixed_sizes": ("mixed_sizes", 1.0)}


# --------------------------------------------------------------------------
# Entrants: our structures and the peers, behind one small interface
# --------------------------------------------------------------------------
@dataclass
class Entrant:
    name: str
    kind: str  # "ours" or "peer"
    cls: type[BroadPhase] | None = None
    peer: Peer | None = None
    unavailable: str = ""  # reason the entrant cannot run at all (peer not installed)


def _entrants(structures, peers) -> list[Entrant]:
    """Resolve ``structures`` (None = the registry now; names; classes; or a name -> class mapping) and ``peers``."""
    if structures is None:
        items = list(STRUCTURES.items())
    elif isinstance(structures, Mapping):
        items = list(structures.items())
    else:
        items = []
        for s in structures:
            if isinstance(s, str):
                if s not in STRUCTURES:
                    raise ValueError(f"unknown structure {s!r}; registered: {', '.join(STRUCTURES)}")
                items.append((s, STRUCTURES[s]))
            elif isinstance(s, type) and issubclass(s, BroadPhase):
                registered = bool(s.name) and STRUCTURES.get(s.name) is s
                items.append((s.name if registered else s.__name__, s))
            else:
                raise TypeError(f"structures must be names or BroadPhase subclasses, got {s!r}")
    out = [Entrant(name, "ours", cls=cls) for name, cls in items]
    if peers is True or peers is None:
        chosen = list(PEERS.values())
    elif peers is False:
        chosen = []
    else:
        chosen = []
        for p in peers:
            if isinstance(p, Peer):
                chosen.append(p)
            elif p in PEERS:
                chosen.append(PEERS[p])
            else:
                raise ValueError(f"unknown peer {p!r}; known: {', '.join(PEERS)}")
    for p in chosen:
        out.append(Entrant(p.name, "peer", peer=p,
                            unavailable="" if p.available() else
                            f"not installed ({p.module}): pip install -e .[peers]"))
    return out


def _build(e: Entrant, boxes: np.ndarray, prepared):
    if e.kind == "ours":
        return e.cls.from_boxes(boxes)
    return e.peer.build(boxes, prepared)


def _pairs(e: Entrant, index, boxes, prepared) -> np.ndarray:
    if e.kind == "ours":
        return index.pairs()
    return e.peer.pairs(index, boxes, prepared)


def _warm(e: Entrant) -> None:
    """Compile (or load from numba's cache) the entrant's kernels on a tiny scene, so no timing includes it.

    The scene holds one box far larger than the rest, so that the kernels some
    structures keep for such giants are compiled here too.
    """
    boxes = np.vstack([make_scene("random", 64, seed=3), [[0.0, 0.0, 400.0, 300.0]]])
    try:
        prepared = e.peer.prepare(boxes) if e.kind == "peer" and e.peer.prepare else None
        idx = _build(e, boxes, prepared)
        _pairs(e, idx, boxes, prepared)
        if e.kind == "ours":
            idx.update_many(np.arange(8, dtype=np.int64), boxes[:8] + 0.5)
            idx.pairs()
    except Exception:  # noqa: BLE001 - a failure shows up, with its reason, in the timed case
        pass


# --------------------------------------------------------------------------
# Reference pairs
# --------------------------------------------------------------------------
class _References:
    """The reference pairs of each (scene, n), and which structures matched brute force on each scene."""

    def __init__(self, by_name: dict[str, type[BroadPhase]], brute_max: int):
        self.by_name = by_name
        self.brute_max = brute_max
        self.checked: dict[str, set[str]] = {}  # scene -> names that matched brute force there
        self.failed: dict[str, set[str]] = {}  # scene -> names that failed there

    def note_result(self, scene: str, name: str, ok: bool, by_brute: bool) -> None:
        if not ok:
            self.failed.setdefault(scene, set()).add(name)
            self.checked.get(scene, set()).discard(name)
        elif by_brute and name not in self.failed.get(scene, set()):
            self.checked.setdefault(scene, set()).add(name)

    def pairs(self, scene: str, boxes: np.ndarray) -> tuple[np.ndarray, str, bool]:
        """(pairs, description, computed by brute force?)."""
        n = len(boxes)
        if n <= self.brute_max:
            return compiled_brute_force_pairs(boxes), "brute force", True
        for name in REFERENCE_ORDER:
            if name in self.checked.get(scene, set()) and name in self.by_name:
                return self.by_name[name].from_boxes(boxes).pairs(), f"{name} (matched brute force at n <= " \
                    f"{self.brute_max:,} on this scene)", False
        if PEERS["cKDTree"].available():
            p = PEERS["cKDTree"]
            return p.pairs(p.build(boxes, None), boxes, None), "cKDTree (exact box filter)", False
        return compiled_brute_force_pairs(boxes), "brute force", True


# --------------------------------------------------------------------------
# Progress and printing
# --------------------------------------------------------------------------
class _Progress:
    """How a run reports its progress.

    ``enabled=True``: a tqdm bar (text in a terminal, a widget in a notebook) when tqdm is
    installed; ``"summary"``: one finished line when the run ends (cases, statuses, seconds),
    which a saved notebook keeps as it is, where a widget's bar would stay frozen at its first
    state; ``False``: nothing.
    """

    def __init__(self, total: int, desc: str, enabled):
        self.bar = None
        self.total, self.desc, self.done = total, desc, 0
        self.summary = enabled == "summary"
        self.statuses: dict[str, int] = {}
        self.start = time.perf_counter()
        if enabled is True:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="case", leave=True, dynamic_ncols=True)
            except ImportError:
                pass

    def step(self, label: str, status: str | None = None) -> None:
        self.done += 1
        if status is not None:
            self.statuses[status] = self.statuses.get(status, 0) + 1
        if self.bar is not None:
            self.bar.set_postfix_str(label, refresh=False)
            self.bar.update(1)

    def write(self, text: str, out) -> None:
        if out is None:
            return
        if self.bar is not None and out is print:
            self.bar.write(text)
        else:
            out(text)

    def summary_line(self) -> str:
        """``"live suite: 20 of 20 cases in 2.1 s (20 ok)"``."""
        counts = ", ".join(f"{v} {k}" for k, v in sorted(self.statuses.items()))
        return (f"{self.desc}: {self.done} of {self.total} cases in {time.perf_counter() - self.start:.1f} s"
                + (f" ({counts})" if counts else ""))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.summary:
            print(self.summary_line(), flush=True)


def _fmt_row(r: dict) -> str:
    if r["status"] == "skipped":
        return f"  {r['scene']:<12} n={r['n']:>7,}  {r['structure']:<18} skipped: {r['note']}"
    loud = "  !!! FAILED !!!" if r["status"] == "FAILED" else ""
    mem = "" if not np.isfinite(r.get("bytes_per_box", np.nan)) else f"  {r['bytes_per_box']:6.1f} B/box"
    if "frame_ms" in r:
        body = (f"build {r['build_ms']:8.2f}  update {r['update_ms']:8.2f}  pairs {r['pairs_ms']:8.2f}  "
                f"frame {r['frame_ms']:8.2f} ms")
    else:
        body = f"build {r['build_ms']:8.2f}  pairs {r['pairs_ms']:8.2f}  total {r['total_ms']:8.2f} ms"
    note = f"  ({r['note']})" if r["note"] else ""
    return (f"  {r['scene']:<12} n={r['n']:>7,}  {r['structure']:<18} {body}  {r['pairs']:>10,} pairs"
            f"{mem}{loud}{note}")


# --------------------------------------------------------------------------
# Budget: extrapolate from the smaller n of the same scene
# --------------------------------------------------------------------------
def predict_seconds(history: list[tuple[int, float]], n: int) -> float:
    """Seconds one run should take at ``n``, from (n, seconds) measured before on the same scene (0 if none).

    The growth exponent is taken from the last two points (clamped to [1, 2.2]:
    between linear and a little worse than quadratic), 1.3 with a single point.
    """
    pts = [(m, t) for m, t in history if m > 0 and t > 0]
    if not pts:
        return 0.0
    (n1, t1) = pts[-1]
    k = 1.3
    if len(pts) >= 2:
        (n0, t0) = pts[-2]
        if n1 > n0 and t0 > 1e-4:  # tiny times are mostly overhead: their ratio says little
            k = min(2.2, max(1.0, math.log(t1 / t0) / math.log(n1 / n0)))
    return t1 * (n / n1) ** k


def contenders(entrants, history, n: int) -> set[str]:
    """The entrant of each kind (ours, peer) predicted fastest at ``n`` (the headline rivals)."""
    best = {}
    for e in entrants:
        if e.unavailable or not history[e.name]:
            continue
        guess = predict_seconds(history[e.name], n)
        if e.kind not in best or guess < best[e.kind][0]:
            best[e.kind] = (guess, e.name)
    return {name for _, name in best.values()}


def _row(suite, scene, n, e, **values) -> dict:
    base = {"suite": suite, "scene": scene, "n": int(n), "structure": e.name, "kind": e.kind,
            "build_ms": math.nan, "pairs_ms": math.nan, "total_ms": math.nan, "pairs": -1,
            "bytes_per_box": math.nan, "repeats": 0, "status": "ok", "note": "", "reference": ""}
    base.update(values)
    return base


# --------------------------------------------------------------------------
# Static suites (article, scaled)
# --------------------------------------------------------------------------
def _run_case(e: Entrant, boxes: np.ndarray, ref: np.ndarray, repeat: int, budget_s: float) -> dict:
    """Build + pairs up to ``repeat`` times within ``budget_s``; check the first result against ``ref``."""
    with _no_gc():
        return _run_case_inner(e, boxes, ref, repeat, budget_s)


class _no_gc:
    """Python's cyclic garbage collector off while timing (as :mod:`timeit` does); back on after."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def _settle() -> None:
    """Collect garbage, then freeze what survives (modules, compiled kernels) so later collections are quick."""
    gc.collect()
    gc.freeze()


def _run_case_inner(e: Entrant, boxes: np.ndarray, ref: np.ndarray, repeat: int, budget_s: float) -> dict:
    prepared = e.peer.prepare(boxes) if e.kind == "peer" and e.peer.prepare else None
    builds, pairs_t, status, note, count, mem = [], [], "ok", "", -1, math.nan
    spent = 0.0
    for r in range(max(1, repeat)):
        t0 = time.perf_counter()
        index = _build(e, boxes, prepared)
        t1 = time.perf_counter()
        got = _pairs(e, index, boxes, prepared)
        t2 = time.perf_counter()
        builds.append(t1 - t0)
        pairs_t.append(t2 - t1)
        spent += t2 - t0
        if r == 0:
            count = len(got)
            if not np.array_equal(got, ref):
                status = "FAILED"
                missing, extra = _difference(got, ref)
                note = f"pairs differ from the reference: {missing:,} missing, {extra:,} extra"
            if e.kind == "ours":
                mem = index.memory_bytes() / max(1, len(boxes))
        del index, got
        if status == "FAILED":
            break
        if spent + (t2 - t0) > budget_s:  # another run would exceed the budget
            break
        if t2 - t0 > SINGLE_RUN_S:  # long runs are steady enough: one is the measurement
            break
    if len(builds) < repeat and status == "ok":
        note = (f"1 run (over {SINGLE_RUN_S:g} s)" if len(builds) == 1 and spent > SINGLE_RUN_S
                and spent + spent <= budget_s else f"{len(builds)} of {repeat} repeats (budget {budget_s:g} s)")
    return {"build_ms": 1e3 * statistics.median(builds), "pairs_ms": 1e3 * statistics.median(pairs_t),
            "total_ms": 1e3 * statistics.median([b + p for b, p in zip(builds, pairs_t)]),
            "pairs": int(count), "bytes_per_box": mem, "repeats": len(builds), "status": status, "note": note,
            "_seconds": spent / len(builds)}


def _difference(got: np.ndarray, ref: np.ndarray) -> tuple[int, int]:
    """(pairs of ``ref`` missing from ``got``, pairs of ``got`` not in ``ref``)."""
    got = np.asarray(got, dtype=np.int64).reshape(-1, 2)
    a = {tuple(r) for r in got.tolist()}
    b = {tuple(r) for r in ref.tolist()}
    return len(b - a), len(a - b)


def run_suite(suite: str | Suite, *, structures=None, peers=True, max_n: int | None = None,
              repeat: int | None = None, budget: float | None = None, scenes: Iterable[str] | None = None,
              brute_max: int = BRUTE_MAX, progress: bool | str = True, out: Callable[[str], None] | None = print,
              seed: int = 0) -> list[dict]:
    """Run a static suite (``article``, ``scaled`` or a :class:`Suite` of your own).

    Parameters
    ----------
    suite : str or Suite
        A name of :data:`SUITES` or a :class:`Suite`.
    structures : None, iterable or mapping, optional
        ``None``: every structure in :data:`lessons_lib.STRUCTURES` at call time.
        Else registry names, :class:`~lessons_lib.BroadPhase` subclasses (even
        unregistered ones), or a ``{name: class}`` mapping.
    peers : bool or iterable of str, optional
        ``True``: every peer of :data:`~lessons_lib.bench.peers.PEERS` (those not
        installed give a ``skipped`` row); ``False``: none; or peer names.
    max_n : int, optional
        Drop the ``n`` above this (the extra ``big_n`` included).
    repeat, budget : optional
        Override the suite's repetitions and per-case budget (seconds).
    scenes : iterable of str, optional
        Override the suite's scenes.
    brute_max : int
        Largest ``n`` whose reference is the compiled brute force.
    progress : bool or "summary"
        ``True``: a progress bar (tqdm; text in a terminal, a widget in a notebook);
        ``"summary"``: one finished line when the run ends (what a saved notebook should
        keep); ``False``: nothing.
    out : callable or None
        Where to print one line per case (``None``: silent).
    seed : int
        Seed of the scenes.

    Returns
    -------
    list of dict
        One row per (scene, n, entrant) with the keys of :data:`COLUMNS`: times
        in milliseconds (medians), ``pairs`` found, ``bytes_per_box``
        (``memory_bytes() / n``; NaN for peers), ``status`` ``"ok"``,
        ``"FAILED"`` (pairs differ from the reference: never trust its time)
        or ``"skipped"`` (with the reason in ``note``).

    Raises
    ------
    ValueError
        Unknown suite, structure, peer or scene name.
    """
    s = SUITES[suite] if isinstance(suite, str) and suite in SUITES else suite
    if not isinstance(s, Suite):
        raise ValueError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
    if s.name == "dynamic":
        raise ValueError("the dynamic suite has its own runner: run_dynamic()")
    if scenes is not None:
        s = replace(s, scenes=tuple(scenes))
    for sc in s.scenes:
        if sc not in SCENES:
            raise ValueError(f"unknown scene {sc!r}; choose from {', '.join(SCENES)}")
    repeat = s.repeat if repeat is None else int(repeat)
    budget_s = s.budget_s if budget is None else float(budget)
    ns = [n for n in s.ns if max_n is None or n <= max_n]
    big = s.big_n if s.big_n is not None and (max_n is None or s.big_n <= max_n) else None
    entrants = _entrants(structures, peers)
    refs = _References({e.name: e.cls for e in entrants if e.kind == "ours"}, brute_max)
    for e in entrants:
        if not e.unavailable:
            _warm(e)
    _settle()
    total = len(s.scenes) * (len(ns) + (big is not None)) * len(entrants)
    bar = _Progress(total, f"{s.name} suite", progress)
    rows: list[dict] = []
    try:
        for scene in s.scenes:
            history: dict[str, list[tuple[int, float]]] = {e.name: [] for e in entrants}
            stopped: dict[str, str] = {}
            last_pairs_per_box = 0.0
            for n in ns + ([big] if big else []):
                is_big = big is not None and n == big
                boxes = s.scene(scene, n, seed)
                ref_pairs, ref_name, by_brute = None, "", False
                headline = set()
                if s.scaled and scene in HEADLINE_SCENES and n == HEADLINE_N:
                    headline = contenders(entrants, history, n)
                for e in entrants:
                    label = f"{scene} n={n:,} {e.name}"
                    row = None
                    case_budget = budget_s
                    if e.name in headline:  # the headline comparison needs a time from each side
                        case_budget = budget_s * s.headline_budget_factor
                        stopped.pop(e.name, None)
                    if e.unavailable:
                        row = _row(s.name, scene, n, e, status="skipped", note=e.unavailable)
                    elif e.name in stopped:
                        row = _row(s.name, scene, n, e, status="skipped", note=stopped[e.name])
                    elif is_big and last_pairs_per_box > s.big_max_pairs_per_box:
                        row = _row(s.name, scene, n, e, status="skipped",
                                   note=f"n = {n:,} only for sparse scenes (here {last_pairs_per_box:.0f} pairs "
                                        f"per box at n = {ns[-1]:,})")
                    elif is_big and not (history[e.name] and history[e.name][-1][0] == ns[-1]
                                         and history[e.name][-1][1] <= s.big_max_s):
                        row = _row(s.name, scene, n, e, status="skipped",
                                   note=f"n = {n:,} only for entrants under {1e3 * s.big_max_s:g} ms "
                                        f"at n = {ns[-1]:,}")
                    else:
                        guess = predict_seconds(history[e.name], n)
                        if guess > case_budget:
                            row = _row(s.name, scene, n, e, status="skipped",
                                       note=f"predicted {guess:.1f} s per run > budget {case_budget:g} s")
                            stopped[e.name] = f"skipped at a smaller n (over the {case_budget:g} s budget)"
                    if row is None:
                        if ref_pairs is None:
                            ref_pairs, ref_name, by_brute = refs.pairs(scene, boxes)
                        try:
                            res = _run_case(e, boxes, ref_pairs, 1 if is_big else repeat, case_budget)
                        except (ValueError, MemoryError) as exc:
                            row = _row(s.name, scene, n, e, status="skipped",
                                       note=f"cannot take this scene: {type(exc).__name__}: {exc}")
                            stopped[e.name] = row["note"]
                        except Exception as exc:  # noqa: BLE001 - a crash is a failure, reported, not fatal
                            row = _row(s.name, scene, n, e, status="FAILED",
                                       note=f"raised {type(exc).__name__}: {exc}", reference=ref_name)
                            stopped[e.name] = f"FAILED at a smaller n ({type(exc).__name__})"
                        else:
                            seconds = res.pop("_seconds")
                            row = _row(s.name, scene, n, e, reference=ref_name, **res)
                            history[e.name].append((n, seconds))
                            if e.kind == "ours":
                                refs.note_result(scene, e.name, row["status"] == "ok", by_brute)
                            if seconds > case_budget:
                                stopped[e.name] = f"over the {case_budget:g} s budget at n = {n:,}"
                    rows.append(row)
                    bar.step(label, row["status"])
                    bar.write(_fmt_row(row), out)
                    if row["status"] == "FAILED":
                        bar.write(f"!!! FAILED: {e.name} on {scene}, n = {n:,}: {row['note']} !!!", out)
                if ref_pairs is not None:
                    last_pairs_per_box = len(ref_pairs) / max(1, n)
                del boxes, ref_pairs
                if n >= 10_000:
                    gc.collect()
    finally:
        bar.close()
    return rows


# --------------------------------------------------------------------------
# Dynamic suite: agents moving for F frames
# --------------------------------------------------------------------------
def agent_frames(scene: str, n: int, frames: int, *, step: float = 1.0, seed: int = 0,
                 scaled: bool = True, moving: float | None = None) -> list[np.ndarray]:
    """``frames + 1`` snapshots of ``n`` agents moving at ``step`` units per frame, bouncing off the walls.

    Frame 0 is the scene; each moving agent keeps a random direction and turns
    back when its box would leave the world (:func:`scale_to` of ``n``, or
    800 x 600); the agents at rest keep their frame-0 box, bit for bit.

    Parameters
    ----------
    scene : str
        A name of :data:`MOVING_SCENES` (``"resting"``: the ``random``
        placement with 5 % of the agents moving) or any placement of
        :func:`lessons_lib.make_scene` (every agent moving).
    n, frames : int
        Agents, and frames after frame 0.
    step : float
        World units per frame.
    seed : int
        Same seed, same frames; the directions of the agents do not depend on
        ``moving``, so the movers of a resting scene move as they would in the
        scene where everyone moves.
    scaled : bool
        World from :func:`scale_to` (True) or the article's 800 x 600.
    moving : float, optional
        Fraction of the agents that move, in ``[0, 1]`` (default: the scene's
        own, 1.0 for a placement); ``round(moving * n)`` of them, chosen at
        random once (``seed``), move in every frame.

    Returns
    -------
    list of numpy.ndarray, each (n, 4) float64

    Raises
    ------
    ValueError
        An unknown scene, or ``moving`` outside ``[0, 1]``.
    """
    placement, fraction = MOVING_SCENES.get(scene, (scene, 1.0))
    if moving is not None:
        fraction = moving
    if isinstance(fraction, (bool, np.bool_)) or not isinstance(fraction, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(fraction) <= 1.0:
        raise ValueError(f"moving must be a fraction in [0, 1], got {fraction!r}")
    world = scale_to(n) if scaled else np.array([0.0, 0.0, 800.0, 600.0])
    boxes = make_scene(placement, n, seed=seed, world=world if scaled else None)
    rng = np.random.default_rng(seed + 1)
    angle = rng.uniform(0.0, 2 * np.pi, n)
    v = step * np.column_stack([np.cos(angle), np.sin(angle)])
    if fraction < 1.0:  # a fixed random subset moves; the others rest (drawn after the angles: same movers' paths)
        still = np.ones(n, dtype=bool)
        still[rng.choice(n, int(round(float(fraction) * n)), replace=False)] = False
        v[still] = 0.0
    out = [boxes]
    cur = boxes.copy()
    for _ in range(frames):
        lo = cur[:, :2] + v
        hi = cur[:, 2:] + v
        bounce = (lo < world[:2]) | (hi > world[2:])
        v = np.where(bounce, -v, v)
        d = np.where(bounce, 0.0, v)
        cur = np.column_stack([cur[:, :2] + d, cur[:, 2:] + d])
        out.append(cur)
    return out


def _run_moving(e: Entrant, frames: list[np.ndarray], refs: list[np.ndarray], warmup: int,
                budget_s: float) -> dict:
    with _no_gc():
        return _run_moving_inner(e, frames, refs, warmup, budget_s)


def _run_moving_inner(e: Entrant, frames: list[np.ndarray], refs: list[np.ndarray], warmup: int,
                      budget_s: float) -> dict:
    ids = np.arange(len(frames[0]), dtype=np.int64)
    t0 = time.perf_counter()
    index = e.cls.from_boxes(frames[0]) if e.kind == "ours" else None
    build = time.perf_counter() - t0
    updates, pairs_t, status, note, count = [], [], "ok", "", -1
    start = time.perf_counter()
    for f in range(1, len(frames)):
        boxes = frames[f]
        t0 = time.perf_counter()
        if e.kind == "ours":
            index.update_many(ids, boxes)
        else:  # a peer cannot move an element: convert and rebuild
            prepared = e.peer.prepare(boxes) if e.peer.prepare else None
            index = e.peer.build(boxes, prepared)
        t1 = time.perf_counter()
        got = index.pairs() if e.kind == "ours" else e.peer.pairs(index, boxes, prepared)
        t2 = time.perf_counter()
        if not np.array_equal(got, refs[f]):
            missing, extra = _difference(got, refs[f])
            status, note = "FAILED", f"frame {f}: pairs differ from the reference: {missing:,} missing, {extra:,} extra"
            count = len(got)
            break
        count = len(got)
        if f > warmup:
            updates.append(t1 - t0)
            pairs_t.append(t2 - t1)
        if time.perf_counter() - start > budget_s and f < len(frames) - 1:
            note = f"stopped after {f} of {len(frames) - 1} frames (budget {budget_s:g} s)"
            break
    if not updates:  # stopped during warm-up: keep what was measured
        updates, pairs_t = [math.nan], [math.nan]
    mem = index.memory_bytes() / max(1, len(ids)) if e.kind == "ours" else math.nan
    up, pr = statistics.median(updates), statistics.median(pairs_t)
    return {"frames": len(updates) if np.isfinite(up) else 0,
            "build_ms": 1e3 * build if e.kind == "ours" else math.nan, "update_ms": 1e3 * up,
            "pairs_ms": 1e3 * pr, "frame_ms": 1e3 * (up + pr), "pairs": int(count), "bytes_per_box": mem,
            "status": status, "note": note, "_seconds": (time.perf_counter() - start) / max(1, len(frames) - 1)}


def run_dynamic(suite: str | Suite = "dynamic", *, structures=None, peers=True, max_n: int | None = None,
                frames: int | None = None, budget: float | None = None, scenes: Iterable[str] | None = None,
                brute_max: int = BRUTE_MAX, progress: bool | str = True, out: Callable[[str], None] | None = print,
                seed: int = 0) -> list[dict]:
    """Agents moving: per frame ``update_many`` + ``pairs()`` (peers rebuild), checked every frame.

    ``update_many`` gets every id each frame, the agents at rest included (see
    the module's docstring: an engine's loop does so). Frames come from
    :func:`agent_frames` (scenes of :data:`MOVING_SCENES` or placements).
    Parameters are those of :func:`run_suite`, plus ``frames`` (frames timed;
    the suite's ``warmup`` frames before them are checked but not timed).

    Returns
    -------
    list of dict
        One row per (scene, n, entrant) with the keys of
        :data:`DYNAMIC_COLUMNS`: ``update_ms``, ``pairs_ms`` and ``frame_ms``
        are medians per frame; ``build_ms`` is the first ``from_boxes``.
    """
    s = SUITES[suite] if isinstance(suite, str) else suite
    if scenes is not None:
        s = replace(s, scenes=tuple(scenes))
    if frames is not None:
        s = replace(s, frames=int(frames))
    budget_s = s.budget_s if budget is None else float(budget)
    ns = [n for n in s.ns if max_n is None or n <= max_n]
    entrants = _entrants(structures, peers)
    refs = _References({e.name: e.cls for e in entrants if e.kind == "ours"}, brute_max)
    for e in entrants:
        if not e.unavailable:
            _warm(e)
    _settle()
    bar = _Progress(len(s.scenes) * len(ns) * len(entrants), f"{s.name} suite", progress)
    rows = []
    total_frames = s.warmup + s.frames
    try:
        for scene in s.scenes:
            history: dict[str, list[tuple[int, float]]] = {e.name: [] for e in entrants}
            stopped: dict[str, str] = {}
            for n in ns:
                snaps = agent_frames(scene, n, total_frames, step=s.step, seed=seed, scaled=s.scaled)
                ref_list, ref_name = None, ""
                for e in entrants:
                    base = {"suite": s.name, "scene": scene, "n": int(n), "frames": 0, "structure": e.name,
                            "kind": e.kind, "build_ms": math.nan, "update_ms": math.nan, "pairs_ms": math.nan,
                            "frame_ms": math.nan, "pairs": -1, "bytes_per_box": math.nan, "status": "skipped",
                            "note": "", "reference": ""}
                    guess = predict_seconds(history[e.name], n) * total_frames
                    if e.unavailable:
                        base["note"] = e.unavailable
                    elif e.name in stopped:
                        base["note"] = stopped[e.name]
                    elif guess > budget_s:
                        base["note"] = f"predicted {guess:.1f} s for {total_frames} frames > budget {budget_s:g} s"
                        stopped[e.name] = f"skipped at a smaller n (over the {budget_s:g} s budget)"
                    else:
                        if ref_list is None:
                            ref_list = []
                            for snap in snaps:
                                p, ref_name, by_brute = refs.pairs(scene, snap)
                                ref_list.append(p)
                        try:
                            res = _run_moving(e, snaps, ref_list, s.warmup, budget_s)
                        except (ValueError, MemoryError) as exc:
                            base["note"] = f"cannot take this scene: {type(exc).__name__}: {exc}"
                            stopped[e.name] = base["note"]
                        except Exception as exc:  # noqa: BLE001
                            base.update(status="FAILED", note=f"raised {type(exc).__name__}: {exc}")
                            stopped[e.name] = f"FAILED at a smaller n ({type(exc).__name__})"
                        else:
                            seconds = res.pop("_seconds")
                            base.update(res, reference=ref_name)
                            history[e.name].append((n, seconds))
                            if e.kind == "ours":
                                refs.note_result(scene, e.name, base["status"] == "ok", by_brute)
                            if "stopped after" in base["note"]:
                                stopped[e.name] = f"over the {budget_s:g} s budget at n = {n:,}"
                    rows.append(base)
                    bar.step(f"{scene} n={n:,} {e.name}", base["status"])
                    bar.write(_fmt_row(base), out)
                    if base["status"] == "FAILED":
                        bar.write(f"!!! FAILED: {e.name} moving on {scene}, n = {n:,}: {base['note']} !!!", out)
                del snaps, ref_list
                gc.collect()
    finally:
        bar.close()
    return rows


# --------------------------------------------------------------------------
# Tables, files
# --------------------------------------------------------------------------

def print_table(rows: list[dict], out: Callable[[str], None] = print) -> None:
    """The FAILED cases, loudly, and a count of ok / FAILED / skipped."""
    failed = [r for r in rows if r["status"] == "FAILED"]
    counts = {k: sum(r["status"] == k for r in rows) for k in ("ok", "FAILED", "skipped")}
    if failed:
        out("")
        out("!" * 78)
        out(f"!!! {len(failed)} FAILED case(s): pairs differ from the reference !!!")
        for r in failed:
            out(f"!!!   {r['structure']} on {r['scene']}, n = {r['n']:,}: {r['note']}")
        out("!" * 78)
    out(f"{len(rows)} cases: {counts['ok']} ok, {counts['FAILED']} FAILED, {counts['skipped']} skipped")


def save_suite(name: str, rows: list[dict], *, command: str, path=None):
    """Write suite rows to ``data/results/bench_<name>.csv`` (or ``path``) with provenance.

    The columns are :data:`COLUMNS` (:data:`DYNAMIC_COLUMNS` for the dynamic
    suite); the peers' library versions go in a ``# peers:`` line.
    """
    from ..data import save_results

    cols = DYNAMIC_COLUMNS if rows and "frame_ms" in rows[0] else COLUMNS
    clean = [{c: r.get(c, "") for c in cols} for r in rows]
    versions = ", ".join(f"{p.name} {p.version()}" for p in PEERS.values() if p.available()) or "none installed"
    what = {"article": "article suite: the article's five scenes in 800 x 600, build and pairs per structure and peer",
            "scaled": "scaled suite: seven scenes in scale_to(n) worlds, build and pairs per structure and peer",
            "dynamic": "dynamic suite: agents moving (scene resting: 5 % of them, the rest still), per-frame "
                       "update_many of every id + pairs per structure; peers rebuild"}
    return save_results(path or f"bench_{name}", clean, what=what.get(name, f"{name} suite"), command=command,
                        extra_meta={"peers": versions,
                                    "times": "milliseconds, medians of the repeats (or frames); "
                                             "status FAILED = pairs differ from the reference"})


def main_suites(names: list[str], *, structures=None, max_n=None, repeat=None, budget=None, frames=None,
                save: bool = True, progress: bool = True, command: str = "") -> int:
    """Run the named suites, print their rows and failures; save the CSV files. Returns FAILED count."""
    from ..data import machine_info

    print(f"# lessons_lib benchmark suites: {machine_info()}", flush=True)
    failures = 0
    all_rows = []
    for name in names:
        print(f"\n## suite {name}", flush=True)
        t0 = time.perf_counter()
        if name == "dynamic":
            rows = run_dynamic(structures=structures, max_n=max_n, frames=frames, budget=budget, progress=progress)
        else:
            rows = run_suite(name, structures=structures, max_n=max_n, repeat=repeat, budget=budget,
                             progress=progress)
        print_table(rows)
        print(f"suite {name}: {time.perf_counter() - t0:.0f} s", flush=True)
        if save and rows:
            path = save_suite(name, rows, command=command or f"python -m lessons_lib.bench --suite {name}")
            print(f"wrote {path}", flush=True)
        failures += sum(r["status"] == "FAILED" for r in rows)
        all_rows += rows
    sys.stdout.flush()
    return failures

"""Box2D anchor: Box2D's own dynamic tree and lessons_lib's on the same frames of moving agents.

Usage (from the repository root; the suite lowers its own priority to nice 10)::

    python -m benchmarks.anchor_box2d [--sizes 20000,100000,500000] [--frames 30] [--reps 3]
        [--resting 0.05] [--margin 0.1] [--structures dynamic_aabb_tree,counting_sort_grid]
        [--anchor DIR] [--per-frame] [--save]

The anchor folder (default ``../shared/anchors/box2d`` beside the repository, or
``$ANCHOR_BOX2D_DIR``) holds Box2D's own sources, unchanged, and a C harness that drives
``b2DynamicTree`` with Box2D's broad-phase step (see its README). Nothing from it is
copied here: at bench time this suite

1. compiles the harness and Box2D's files into ``build/anchor_box2d/bin/b2_O2`` with
   the anchor's flags (``-std=gnu17 -ffp-contract=off -O2 -DNDEBUG``);
2. takes the frames of moving agents of :mod:`benchmarks.anchor_c` (the C anchor's
   ``gen_frames.py``: every agent moves about half a unit every frame), and derives from
   each a **resting-bodies** file (``--resting``: that fraction of the agents, chosen at
   random, move as in the original; the others stay where they were in frame 0),
   written to ``build/anchor_box2d/frames/``;
3. runs, interleaved and ``--reps`` times: Box2D's tree in its two modes (``enlarge``:
   enlarge the moved proxies' fat boxes, then ``b2DynamicTree_Rebuild``, Box2D v3's
   world step; ``move``: ``b2DynamicTree_MoveProxy``, remove and re-insert), each in its
   own process with fat-box margin ``--margin``; and lessons_lib's ``dynamic_aabb_tree``
   (same margin) and the other ``--structures`` through
   :func:`benchmarks.anchor_c.run_structure` (``update_many`` of every agent, ``cleanup``,
   ``pairs``). Every frame's pair count and checksum must equal Box2D's ``enlarge`` run's
   (itself checked against brute force by the anchor), or the run is ``FAILED``;
4. prints, per frames file, every entrant's median CPU and wall ms per frame and its
   ratio to Box2D (CPU time: the machine is shared), per-frame CPU times with
   ``--per-frame``, and the issue's goals as met / not met;
5. with ``--save``, writes ``data/results/bench_anchor_box2d.csv``.

Without the anchor folder, a C compiler, or the C anchor's frame generator, it prints one
``skipped: ...`` line and exits 0.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lessons_lib import STRUCTURES, jit_status
from lessons_lib.data import machine_info

from . import Line
from .anchor_c import (HEADER_BYTES, anchor_problem, check_against, compiler_version, default_anchor,
                       ensure_frames, lower_priority, read_frames, run_c, run_structure)

REPO = Path(__file__).resolve().parents[1]
ANCHOR_ENV = "ANCHOR_BOX2D_DIR"
ANCHOR_REL = Path("..") / "shared" / "anchors" / "box2d"
BUILD_DIR = REPO / "build" / "anchor_box2d"
RESULTS_FILE = REPO / "data" / "results" / "bench_anchor_box2d.csv"

DEFAULT_SIZES = (20_000, 100_000, 500_000)
#: lessons_lib structures run beside Box2D by default: the tree, and the course's fastest on these frames.
DEFAULT_STRUCTURES = ("dynamic_aabb_tree", "counting_sort_grid")
#: Box2D's files the harness needs (under the anchor's ``src/src``), and the anchor's compiler flags.
BOX2D_SOURCES = ("dynamic_tree.c", "aabb.c", "core.c", "math_functions.c", "table.c", "bitset.c")
BOX2D_FLAGS = ("-std=gnu17", "-ffp-contract=off", "-O2", "-DNDEBUG", "-w")
#: Box2D's modes, as the harness names them, and how this suite labels them.
MODES = {"enlarge": "Box2D enlarge + rebuild", "move": "Box2D MoveProxy"}
#: The goals of issue 32: tree / Box2D (enlarge) on the agents' frames and on the resting frames;
#: the course's fastest structure / Box2D on the resting frames.
GOAL_AGENTS, GOAL_RESTING, GOAL_FASTEST_RESTING = 1.5, 1.0, 0.5


# ----------------------------------------------------------------------------------------------
# The anchor: find it, build its harness, derive the resting-bodies frames
# ----------------------------------------------------------------------------------------------

def box2d_anchor() -> Path:
    """``$ANCHOR_BOX2D_DIR``, else ``../shared/anchors/box2d`` beside the repository."""
    if os.environ.get(ANCHOR_ENV):
        return Path(os.environ[ANCHOR_ENV])
    return (REPO / ANCHOR_REL).resolve()


def box2d_problem(anchor: Path) -> str | None:
    """Why this suite cannot run (a one-line ``skipped: ...``), or None."""
    if not anchor.is_dir():
        return f"skipped: Box2D anchor folder not found at {anchor} (give --anchor DIR or set {ANCHOR_ENV})"
    needed = [Path("harness") / "box2d_harness.c", *(Path("src") / "src" / f for f in BOX2D_SOURCES)]
    missing = [str(p) for p in needed if not (anchor / p).is_file()]
    if missing:
        return f"skipped: Box2D anchor folder {anchor} lacks {', '.join(missing)}"
    if shutil.which("gcc") is None:
        return "skipped: gcc not found on the PATH (needed to build Box2D's harness)"
    return None


def build_box2d(anchor: Path, build_dir: Path = BUILD_DIR) -> Path:
    """Compile the anchor's harness with Box2D's files (rebuilt when older than any of them)."""
    binary = build_dir / "bin" / "b2_O2"
    binary.parent.mkdir(parents=True, exist_ok=True)
    sources = [anchor / "harness" / "box2d_harness.c", *(anchor / "src" / "src" / f for f in BOX2D_SOURCES)]
    inputs = sources + [p for d in ("harness", "src/src", "src/include/box2d") for p in (anchor / d).glob("*.h")]
    if not binary.exists() or binary.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        cmd = ["gcc", *BOX2D_FLAGS, f"-I{anchor / 'src' / 'include'}", f"-I{anchor / 'src' / 'src'}", "-o",
               str(binary), *map(str, sources), "-lm"]
        print("build:", shlex.join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    return binary


def resting_frames(source: Path, fraction: float, *, seed: int = 0, build_dir: Path = BUILD_DIR) -> Path:
    """A frames file in which only ``fraction`` of ``source``'s agents move; the others rest where frame 0 has them.

    The moving agents are chosen at random (``seed``) and move exactly as in ``source``;
    the header is ``source``'s. Cached under ``build_dir/frames`` while it exists.
    """
    header, blocks = read_frames(source)
    out = build_dir / "frames" / f"resting{fraction:g}_{source.stem}.bin"
    if out.exists():
        try:
            h, _ = read_frames(out)
            if (h.n, h.frames) == (header.n, header.frames):
                return out
        except ValueError:
            pass
    out.parent.mkdir(parents=True, exist_ok=True)
    moving = np.zeros(header.n, bool)
    moving[np.random.default_rng(seed).choice(header.n, int(round(fraction * header.n)), replace=False)] = True
    tmp = out.with_suffix(".part")
    with open(tmp, "wb") as fh:
        np.fromfile(source, dtype="<i4", count=HEADER_BYTES // 4).tofile(fh)
        for f in range(blocks.shape[0]):
            block = np.array(blocks[0], dtype="<i4")
            block[moving] = blocks[f][moving]
            block.tofile(fh)
    tmp.replace(out)
    print(f"frames: wrote {out} ({int(moving.sum()):,} of {header.n:,} agents move)", flush=True)
    return out


# ----------------------------------------------------------------------------------------------
# One frames file: every entrant, interleaved
# ----------------------------------------------------------------------------------------------

@dataclass
class Entrant:
    name: str
    kind: str  # "Box2D" or "lessons_lib"
    what: str  # a Box2D mode or a registry name
    runs: list = field(default_factory=list)
    status: str = "ok"
    note: str = ""

    def median(self, phase: str = "cpu") -> float:
        vals = [r.median(phase) for r in self.runs if r.frames_done]
        return statistics.median(vals) if vals else float("nan")

    @property
    def usable(self) -> bool:
        return self.status == "ok" and bool(self.runs)


@dataclass
class FileResult:
    label: str  # "agents" or "resting"
    n: int
    frames: int
    entrants: list

    def entrant(self, name: str) -> Entrant | None:
        return next((e for e in self.entrants if e.name == name), None)

    def box2d(self, mode: str = "enlarge") -> Entrant | None:
        e = self.entrant(MODES[mode])
        return e if e is not None and e.usable else None

    def fastest_ours(self) -> Entrant | None:
        ok = [e for e in self.entrants if e.kind == "lessons_lib" and e.usable]
        return min(ok, key=lambda e: e.median()) if ok else None


def run_file(binary: Path, frames_file: Path, label: str, *, structures, margin: float, reps: int,
             budget_s: float) -> FileResult:
    header, blocks = read_frames(frames_file)
    entrants = [Entrant(MODES[m], "Box2D", m) for m in MODES]
    entrants += [Entrant(s, "lessons_lib", s) for s in structures]
    ref = None
    for rep in range(reps):
        k = rep % len(entrants)
        order = entrants[k:] + entrants[:k]
        if rep == 0:  # Box2D's enlarge run first: every other run is checked against it
            order = [entrants[0]] + [e for e in order if e is not entrants[0]]
        for e in order:
            t0 = time.perf_counter()
            if e.kind == "Box2D":
                run = run_c(binary, frames_file, e.what, (margin,))
            else:
                params = {"margin": margin} if e.what == "dynamic_aabb_tree" else {}
                run = run_structure(e.what, header, blocks, budget_s=budget_s, params=params)
            wall = time.perf_counter() - t0
            if ref is None:
                ref = run
            else:
                check_against(run, ref)
            e.runs.append(run)
            if run.status != "ok":
                e.status, e.note = run.status, run.note
            print(f"  run {rep + 1}/{reps} {label:<8}{header.n:>9,} {e.name:<26} {run.median('cpu'):9.2f} ms/frame CPU "
                  f"({run.frames_done} frames, {wall:5.1f} s) {run.status}", flush=True)
    return FileResult(label, header.n, header.frames, entrants)


# ----------------------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------------------

def _ratio(a: Entrant | None, b: Entrant | None) -> float:
    return a.median() / b.median() if (a is not None and b is not None and a.runs and b.runs) else float("nan")


def file_report(res: FileResult, reps: int, per_frame: bool) -> str:
    b2e, b2m = res.box2d("enlarge"), res.box2d("move")
    out = [f"\n== {res.label} frames, {res.n:,} agents, {res.frames} frames, {reps} interleaved runs ==",
           "median ms per frame: CPU (process time; the ratios use it) and wall (update / cleanup / pairs)",
           f"{'entrant':<26}{'cpu':>9}{'wall':>9}{'update':>9}{'cleanup':>9}{'pairs':>9}"
           f"{'/B2 enl':>9}{'/B2 move':>9}{'pairs/frame':>13}  status"]
    for e in sorted(res.entrants, key=lambda e: e.median() if e.runs else float("inf")):
        cnt = e.runs[0].counts if e.runs else []
        out.append(f"{e.name:<26}{e.median():9.2f}{e.median('total'):9.2f}{e.median('update'):9.2f}"
                   f"{e.median('cleanup'):9.2f}{e.median('pairs'):9.2f}{_ratio(e, b2e):9.2f}{_ratio(e, b2m):9.2f}"
                   f"{int(statistics.median(cnt)) if cnt else 0:>13,}  {e.status}{': ' + e.note if e.note else ''}")
    if per_frame:
        out.append("per-frame CPU ms (last run of each entrant):")
        for e in res.entrants:
            if e.runs:
                out.append(f"  {e.name:<24}" + " ".join(f"{v:.1f}" for v in e.runs[-1].cpu_ms))
    return "\n".join(out)


def goal_lines(results: list) -> list:
    """The issue's goals, as :class:`benchmarks.Line`, from CPU medians."""
    lines = []
    for res in results:
        b2 = res.box2d("enlarge")
        tree = res.entrant("dynamic_aabb_tree")
        where = f"{res.label} frames, {res.n:,} agents"
        if b2 is None:
            lines.append(Line(f"{where}: Box2D", "no usable Box2D run", "a Box2D figure", False))
            continue
        if tree is not None and tree.usable:
            r = tree.median() / b2.median()
            goal = GOAL_AGENTS if res.label == "agents" else GOAL_RESTING
            lines.append(Line(f"{where}: dynamic_aabb_tree / Box2D enlarge + rebuild",
                              f"{tree.median():.2f} / {b2.median():.2f} ms = {r:.2f}", f"<= {goal:.2f}", r <= goal))
        if res.label == "resting":
            fast = res.fastest_ours()
            if fast is not None:
                r = fast.median() / b2.median()
                lines.append(Line(f"{where}: fastest lessons_lib ({fast.name}) / Box2D enlarge + rebuild",
                                  f"{fast.median():.2f} / {b2.median():.2f} ms = {r:.2f}",
                                  f"<= {GOAL_FASTEST_RESTING:.2f} (2x faster)", r <= GOAL_FASTEST_RESTING))
    return lines


def csv_rows(results: list) -> list:
    rows = []
    for res in results:
        b2e, b2m = res.box2d("enlarge"), res.box2d("move")
        for e in res.entrants:
            cnt = e.runs[0].counts if e.runs else []
            rows.append(dict(
                frames_kind=res.label, n=res.n, frames=res.frames, reps=len(e.runs), entrant=e.name, kind=e.kind,
                cpu_ms=e.median(), wall_ms=e.median("total"), update_ms=e.median("update"),
                cleanup_ms=e.median("cleanup"), pairs_ms=e.median("pairs"),
                vs_box2d_enlarge=_ratio(e, b2e), vs_box2d_move=_ratio(e, b2m),
                pairs=int(statistics.median(cnt)) if cnt else 0,
                frames_checked=min((r.frames_done for r in e.runs), default=0), status=e.status, note=e.note,
            ))
    return rows


# ----------------------------------------------------------------------------------------------
# The suite
# ----------------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.anchor_box2d", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="agent counts, comma-separated")
    ap.add_argument("--frames", type=int, default=30, help="moves per run (default 30)")
    ap.add_argument("--reps", type=int, default=3, help="interleaved runs per entrant (default 3)")
    ap.add_argument("--resting", type=float, default=0.05,
                    help="fraction of the agents that move in the resting-bodies frames (default 0.05; 0: none)")
    ap.add_argument("--margin", type=float, default=0.1,
                    help="fat-box margin of both trees, world units (default 0.1, Box2D's b2_aabbMargin)")
    ap.add_argument("--structures", default=",".join(DEFAULT_STRUCTURES),
                    help="lessons_lib registry names, comma-separated (default: %(default)s)")
    ap.add_argument("--anchor", type=Path, default=None,
                    help=f"the Box2D anchor folder (default ${ANCHOR_ENV} or {ANCHOR_REL} beside the repository)")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per lessons_lib run (default 120)")
    ap.add_argument("--seed", type=int, default=0, help="gen_frames.py's seed")
    ap.add_argument("--per-frame", action="store_true", help="print every frame's CPU time")
    ap.add_argument("--nice", type=int, default=10, help="niceness to run at (default 10)")
    ap.add_argument("--save", action="store_true", help=f"write {RESULTS_FILE.relative_to(REPO)}")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    anchor = (a.anchor if a.anchor is not None else box2d_anchor()).resolve()
    frames_anchor = default_anchor().resolve()
    problem = box2d_problem(anchor) or anchor_problem(frames_anchor)
    if problem:
        print(problem)
        return 0
    sizes = [int(s) for s in a.sizes.replace("_", "").split(",") if s.strip()]
    structures = [s for s in a.structures.split(",") if s]
    unknown = [s for s in structures if s not in STRUCTURES]
    if unknown:
        raise SystemExit(f"unknown structures {unknown}; registered: {', '.join(STRUCTURES)}")
    if not sizes or min(sizes) <= 0 or a.frames < 1 or a.reps < 1 or not 0 <= a.resting <= 1 or a.margin < 0:
        raise SystemExit(f"bad arguments: sizes {sizes}, frames {a.frames}, reps {a.reps}, resting {a.resting}, "
                         f"margin {a.margin}")
    lower_priority(a.nice)
    start, load0 = time.perf_counter(), os.getloadavg()[0]
    print(f"# Box2D anchor suite, {time.strftime('%Y-%m-%d %H:%M')}: {machine_info()}\n# anchor: {anchor}\n"
          f"# {jit_status()}", flush=True)
    binary = build_box2d(anchor)
    results = []
    for n in sizes:
        agents = ensure_frames(frames_anchor, n, a.frames, seed=a.seed)
        files = [("agents", agents)] + ([("resting", resting_frames(agents, a.resting, seed=a.seed))]
                                        if a.resting > 0 else [])
        if not results:  # compile (or load from numba's cache) every path before the clock runs
            for _, path in files:
                h, blocks = read_frames(path)
                for s in structures:
                    run_structure(s, h, blocks[:6], params={"margin": a.margin} if s == "dynamic_aabb_tree" else {})
        for label, path in files:
            results.append(run_file(binary, path, label, structures=structures, margin=a.margin, reps=a.reps,
                                    budget_s=a.budget))
            print(file_report(results[-1], a.reps, a.per_frame), flush=True)
    elapsed = time.perf_counter() - start
    print("\n== goals of issue 32 (CPU medians; benchmark tooling only) ==")
    goals = goal_lines(results)
    for line in goals:
        print(line.row())
    failed = [f"{r.label} {r.n}: {e.name}" for r in results for e in r.entrants if e.status == "FAILED"]
    print(f"\n{sum(g.ok for g in goals)} of {len(goals)} goals met; {len(failed)} wrong results"
          + (f" -- FAILED: {', '.join(failed)}" if failed else "")
          + f"; whole run {elapsed / 60:.1f} min (load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end)")
    if a.save:
        from lessons_lib.data import save_results

        cmd = "nice -n 10 python -m benchmarks.anchor_box2d " + shlex.join(sys.argv[1:] if argv is None else argv)
        meta = {
            "anchor": f"{anchor.name} (outside the repository, its README names Box2D's commit; harness built "
                      f"with gcc {' '.join(BOX2D_FLAGS)})",
            "compiler": compiler_version("gcc"),
            "lessons_lib": jit_status(),
            "frames": f"agents: the C anchor's gen_frames.py; resting: {a.resting:g} of the agents move, the rest "
                      f"stay at frame 0; margin {a.margin:g} for both trees",
            "medians": f"per run the median over {a.frames} frames of process CPU time (wall in wall_ms); per entrant "
                       f"the median of {a.reps} interleaved runs; shared 2-core machine",
            "goals": "; ".join(f"{g.what}: {g.measured} ({'met' if g.ok else 'not met'})" for g in goals),
            "run": f"{elapsed / 60:.1f} min, load average {load0:.2f} -> {os.getloadavg()[0]:.2f}",
        }
        path = save_results(RESULTS_FILE, csv_rows(results), what="Box2D's dynamic tree vs lessons_lib's "
                            "dynamic_aabb_tree and fastest structure, same frames, ms per frame",
                            command=cmd.strip(), extra_meta=meta)
        print(f"saved {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

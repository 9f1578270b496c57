"""C anchor: the quadtree answer set's C/C++ code and lessons_lib on the same moving agents.

Usage (from the repository root; the suite lowers its own priority to nice 10)::

    python -m benchmarks.anchor_c [--sizes 20000,100000,500000] [--frames 30] [--reps 3]
        [--anchor DIR] [--structures a,b] [--budget SECONDS] [--c-opt O2[,O3n]]
        [--c-orders id,cell] [--save]

The anchor folder (default ``../shared/anchors/dragon_space_c`` beside the repository,
or ``$ANCHOR_C_DIR``) holds the answer set's C/C++ sources, a C harness for each of its
two structures, and ``gen_frames.py``, which writes frames of moving agents on an exact
integer lattice. Nothing from it is copied here: at bench time this suite

1. compiles the anchor's two harnesses (compact quadtree in C, loose/tight double grid
   in C++) into ``build/anchor_c/bin/`` (``-O2 -DNDEBUG`` by default, the anchor's flags);
2. runs the anchor's ``gen_frames.py`` once per agent count into ``build/anchor_c/frames/``
   (cached: the same file is reused while it exists);
3. runs, interleaved and ``--reps`` times, each C harness binary (one process per run) and
   every registered lessons_lib structure through :func:`run_structure` below, our driver:
   build with ``from_boxes(frame 0, world=[0, 0, W, W])``, then per frame time
   ``update_many(all agents)``, ``cleanup()`` and ``pairs()``; every frame's pair count and
   an order-independent checksum of the pairs must equal the C reference run's, or the run
   is ``FAILED`` (exit code 1);
4. prints per agent count the median ms per frame of every entrant (and of each phase), the
   ratios to the C loose/tight grid, and the two course goals as met / not met;
5. with ``--save``, writes ``data/results/bench_anchor_c.csv`` (one row per agent count and
   entrant, with machine and date lines).

Figures are medians: per run, the median over its frames; then the median of the runs'
medians (``total_lo``/``total_hi`` are the lowest and highest run medians, a measure of
the noise of a shared machine). The C loose/tight grid is given lessons_lib's own
``LooseTightGrid`` cell sizes so both grids have the same cells; the C figure kept for the
ratios is the faster of its query orders (``id``: agent 0, 1, ...; ``cell``/``leaf``: the
structure's own storage order).

A lessons_lib structure gets ``--budget`` seconds per run (build included): a run that
goes over it stops (``over budget``), and so does every larger agent count; so does one
whose run, extrapolated linearly from the previous agent count, would go over it. A structure
other than the seven core ones (``CORE_STRUCTURES``) that is more than ``--keep-up`` times slower
than the C loose/tight grid (default 10) is not run at larger agent counts.

When the anchor folder is absent (CI, students' machines), the suite prints one line,
``skipped: anchor folder not found at ...``, and exits 0.
"""
from __future__ import annotations

import argparse
import gc
import math
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

REPO = Path(__file__).resolve().parents[1]
ANCHOR_ENV = "ANCHOR_C_DIR"
ANCHOR_REL = Path("..") / "shared" / "anchors" / "dragon_space_c"
BUILD_DIR = REPO / "build" / "anchor_c"
RESULTS_FILE = REPO / "data" / "results" / "bench_anchor_c.csv"

DEFAULT_SIZES = (20_000, 100_000, 500_000)
#: The structures the suite always tries (the rest of the registry is tried too, within the budget).
CORE_STRUCTURES = ("counting_sort_grid", "uniform_grid", "point_grid", "loose_tight_grid", "quadtree",
                   "loose_quadtree", "sweep_and_prune")

#: Compiler flags per optimisation label (the anchor's build script uses these two sets).
C_OPTS = {"O2": ["-O2", "-DNDEBUG"], "O3n": ["-O3", "-march=native", "-DNDEBUG"]}
#: The anchor's harnesses: label, compiler, source under the anchor folder, alternative query order.
C_HARNESSES = {
    "loose_tight_grid": ("g++", "harness/lg_harness.cpp", "cell"),
    "quadtree": ("gcc", "harness/qt_harness.c", "leaf"),
}
C_LABELS = {"loose_tight_grid": "C loose/tight grid", "quadtree": "C quadtree"}

# ----------------------------------------------------------------------------------------------
# The frames file (written by the anchor's gen_frames.py)
#
#   8 little-endian int32: magic, n, frames, scale, world side (lattice units), seed, layout, 0
#   then frames + 1 blocks of n rows [x0, y0, x1, y1] int32 in lattice units
#   (block 0: the agents before any move; block f: after f moves). World units = lattice / scale.
# ----------------------------------------------------------------------------------------------

FRAMES_MAGIC = 0x51414E43  # "CNAQ" read as a little-endian int32
HEADER_BYTES = 8 * 4
LAYOUTS = {0: "hilbert", 1: "random"}


@dataclass(frozen=True)
class FramesHeader:
    """The header of a frames file: ``n`` agents, ``frames`` moves, lattice ``scale``, world side."""

    n: int
    frames: int
    scale: int
    world_lattice: int
    seed: int = 0
    layout: int = 0

    @property
    def world(self) -> float:
        """Side of the square world ``[0, world]^2`` in world units."""
        return self.world_lattice / self.scale

    @property
    def layout_name(self) -> str:
        return LAYOUTS.get(self.layout, f"layout {self.layout}")


def read_frames(path) -> tuple[FramesHeader, np.ndarray]:
    """Open a frames file: its header and a read-only ``(frames + 1, n, 4)`` int32 memory map.

    Raises ``ValueError`` naming the file when the magic number, the header values or the
    file size do not fit the format.
    """
    path = Path(path)
    head = np.fromfile(path, dtype="<i4", count=8)
    if len(head) < 8:
        raise ValueError(f"{path}: {path.stat().st_size} bytes, too short for the 32-byte header")
    if int(head[0]) != FRAMES_MAGIC:
        raise ValueError(f"{path}: magic {int(head[0]):#x}, expected {FRAMES_MAGIC:#x} (not a frames file)")
    h = FramesHeader(*(int(v) for v in head[1:7]))
    if h.n <= 0 or h.frames < 0 or h.scale <= 0 or h.world_lattice <= 0:
        raise ValueError(f"{path}: bad header {h}")
    expected = HEADER_BYTES + (h.frames + 1) * h.n * 16
    size = path.stat().st_size
    if size != expected:
        raise ValueError(f"{path}: {size} bytes, expected {expected} for n={h.n} and {h.frames} frames")
    blocks = np.memmap(path, dtype="<i4", mode="r", offset=HEADER_BYTES, shape=(h.frames + 1, h.n, 4))
    return h, blocks


def frame_boxes(blocks: np.ndarray, f: int, scale: int) -> np.ndarray:
    """Block ``f`` as ``(n, 4)`` float64 boxes in world units (exact: the scale is a power of two)."""
    return np.asarray(blocks[f], dtype=np.float64) / scale


# ----------------------------------------------------------------------------------------------
# Pair checksum: the same order-independent value as the anchor's harnesses print, i.e. the
# 64-bit wrapping sum over pairs (i, j), i < j, of the SplitMix64 output function applied to
# the 64-bit key (i << 32) | j.
# ----------------------------------------------------------------------------------------------

_U64 = np.uint64


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output step (Steele, Lea and Flood 2014) on a uint64 array, wrapping."""
    x = x + _U64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> _U64(27))) * _U64(0x94D049BB133111EB)
    return x ^ (x >> _U64(31))


def pair_checksum(pairs) -> int:
    """Order-independent checksum of a ``(k, 2)`` array of pairs ``(i, j)`` with ``i < j``."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(p) == 0:
        return 0
    key = (p[:, 0].astype(_U64) << _U64(32)) | p[:, 1].astype(_U64)
    with np.errstate(over="ignore"):
        return int(np.sum(_splitmix64(key), dtype=_U64))


# ----------------------------------------------------------------------------------------------
# One run: per-frame times, pair counts and checksums
# ----------------------------------------------------------------------------------------------

PHASES = ("update", "cleanup", "pairs", "total")


@dataclass
class Run:
    """One run of one entrant over the frames: per-frame ms of each phase, counts, checksums."""

    name: str
    kind: str  # "C" or "lessons_lib"
    ms: dict = field(default_factory=lambda: {p: [] for p in PHASES})
    cpu_ms: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    checksums: list = field(default_factory=list)
    build_ms: float = float("nan")
    status: str = "ok"
    note: str = ""

    @property
    def frames_done(self) -> int:
        return len(self.counts)

    def median(self, phase: str = "total") -> float:
        v = self.cpu_ms if phase == "cpu" else self.ms[phase]
        return statistics.median(v) if v else float("nan")

    def add_frame(self, update, cleanup, pairs, cpu, count, checksum) -> None:
        for p, v in zip(PHASES, (update, cleanup, pairs, update + cleanup + pairs)):
            self.ms[p].append(v)
        self.cpu_ms.append(cpu)
        self.counts.append(int(count))
        self.checksums.append(int(checksum))


def run_structure(name: str, header: FramesHeader, blocks: np.ndarray, *, budget_s: float = float("inf"),
                  params: dict | None = None) -> Run:
    """Our driver: ``name`` from lessons_lib on frames ``1 .. len(blocks) - 1`` of ``blocks``.

    Builds with ``from_boxes(block 0, world=[0, 0, W, W], **params)``, then per frame times
    ``update_many(every agent)``, ``cleanup()`` and ``pairs()`` (wall, ``time.perf_counter``;
    CPU, ``time.process_time``); the count and checksum of the pairs are taken after the clock
    stops. Stops with status ``over budget`` once ``budget_s`` seconds (build included) have
    passed. ``blocks`` may be a slice of a frames file (fewer agents or frames) for a warm-up.
    """
    cls = STRUCTURES[name]
    n, scale = blocks.shape[1], header.scale
    run = Run(name, "lessons_lib")
    ids = np.arange(n, dtype=np.int64)
    world = [0.0, 0.0, header.world, header.world]
    gc.collect()
    start = time.perf_counter()
    bp = cls.from_boxes(frame_boxes(blocks, 0, scale), world=world, **(params or {}))
    run.build_ms = 1e3 * (time.perf_counter() - start)
    clock, cpu = time.perf_counter, time.process_time
    for f in range(1, blocks.shape[0]):
        boxes = frame_boxes(blocks, f, scale)
        c0, t0 = cpu(), clock()
        bp.update_many(ids, boxes)
        t1 = clock()
        bp.cleanup()
        t2 = clock()
        pairs = bp.pairs()
        t3, c3 = clock(), cpu()
        run.add_frame(1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (c3 - c0), len(pairs),
                      pair_checksum(pairs))
        del pairs
        if t3 - start > budget_s and f < blocks.shape[0] - 1:
            run.status = "over budget"
            run.note = f"stopped after {f} of {blocks.shape[0] - 1} frames ({budget_s:g} s budget)"
            break
    del bp
    gc.collect()
    return run


def parse_c_output(name: str, text: str) -> Run:
    """A C harness's stdout: a header line, then one CSV line per frame
    ``frame,update_ms,cleanup_ms,pairs_ms,total_ms,pairs,checksum[,cpu_update,cpu_cleanup,cpu_pairs,cpu_total]``."""
    run = Run(name, "C")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if not lines or not lines[0].startswith("frame,"):
        raise ValueError(f"{name}: unexpected output {text[:200]!r}")
    cols = lines[0].split(",")
    for ln in lines[1:]:
        row = dict(zip(cols, ln.split(",")))
        upd, cln, prs = (float(row[c]) for c in ("update_ms", "cleanup_ms", "pairs_ms"))
        cpu = float(row.get("cpu_total_ms", "nan"))
        run.add_frame(upd, cln, prs, cpu, int(row["pairs"]), int(row["checksum"]))
    return run


def check_against(run: Run, ref: Run) -> None:
    """Mark ``run`` ``FAILED`` when a frame's pair count or checksum differs from ``ref``'s."""
    for f, (c, s) in enumerate(zip(run.counts, run.checksums), start=1):
        if f > len(ref.counts):
            break
        if c != ref.counts[f - 1] or s != ref.checksums[f - 1]:
            run.status = "FAILED"
            what = "count" if c != ref.counts[f - 1] else "checksum"
            run.note = (f"frame {f}: {c:,} pairs vs {ref.counts[f - 1]:,} from {ref.name} ({what} differs)"
                        + (f"; {run.note}" if run.note else ""))
            return


# ----------------------------------------------------------------------------------------------
# The anchor folder: find it, build its harnesses, generate frames
# ----------------------------------------------------------------------------------------------

def default_anchor() -> Path:
    """``$ANCHOR_C_DIR``, else ``../shared/anchors/dragon_space_c`` beside the repository.

    In a git worktree (a checkout outside the main one) the folder beside the main
    checkout is used when there is none beside the worktree.
    """
    if os.environ.get(ANCHOR_ENV):
        return Path(os.environ[ANCHOR_ENV])
    here = (REPO / ANCHOR_REL).resolve()
    if here.is_dir():
        return here
    try:
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=REPO, check=False,
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        common = ""
    if common:
        main_checkout = Path(common).parent
        other = (main_checkout / ANCHOR_REL).resolve()
        if main_checkout != REPO and other.is_dir():
            return other
    return here


def anchor_problem(anchor: Path) -> str | None:
    """Why the suite cannot run with this anchor folder (a one-line ``skipped: ...``), or None."""
    if not anchor.is_dir():
        return f"skipped: anchor folder not found at {anchor} (give --anchor DIR or set {ANCHOR_ENV})"
    missing = [p for p in ("gen_frames.py", *(h[1] for h in C_HARNESSES.values())) if not (anchor / p).is_file()]
    if missing:
        return f"skipped: anchor folder {anchor} lacks {', '.join(missing)}"
    for cc in {h[0] for h in C_HARNESSES.values()}:
        if shutil.which(cc) is None:
            return f"skipped: {cc} not found on the PATH (needed to build the anchor's harnesses)"
    return None


def compiler_version(cc: str) -> str:
    out = subprocess.run([cc, "--version"], check=False, capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else cc


def build_harnesses(anchor: Path, opts, build_dir: Path = BUILD_DIR) -> dict:
    """Compile each harness with each optimisation label; return ``{(structure, opt): binary}``.

    A binary is rebuilt when missing or older than any file of the anchor's ``harness/`` and
    ``src/`` folders.
    """
    bindir = build_dir / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    inputs = [p for d in ("harness", "src") for p in (anchor / d).glob("*") if p.is_file()]
    newest = max((p.stat().st_mtime for p in inputs), default=0.0)
    out = {}
    for structure, (cc, source, _) in C_HARNESSES.items():
        for opt in opts:
            binary = bindir / f"{structure}_{opt}"
            if not binary.exists() or binary.stat().st_mtime < newest:
                cmd = [cc, *C_OPTS[opt], "-w", "-o", str(binary), str(anchor / source)]
                print("build:", shlex.join(cmd), flush=True)
                subprocess.run(cmd, check=True)
            out[structure, opt] = binary
    return out


def curves_checkout(build_dir: Path = BUILD_DIR) -> Path:
    """A directory whose ``lessons_lib`` package is this repository's, plus the old top-level ``curves`` module.

    Its ``__init__`` extends the package path with the real ``lessons_lib`` folder (so every
    other module is the real one) and its ``curves`` re-exports
    :mod:`lessons_lib.structures.curves` for the anchor's frame generator.
    """
    pkg = build_dir / "checkout" / "lessons_lib"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("# Written by benchmarks/anchor_c.py: the real package's modules, found by path.\n"
                                     f"__path__.append({str(REPO / 'lessons_lib')!r})\n")
    (pkg / "curves.py").write_text("# Written by benchmarks/anchor_c.py: the module's name before the layout change.\n"
                                   "from lessons_lib.structures.curves import *  # noqa: F401,F403\n"
                                   "from lessons_lib.structures.curves import hilbert_keys  # noqa: F401\n")
    return pkg.parent


def ensure_frames(anchor: Path, n: int, frames: int, *, seed: int = 0, build_dir: Path = BUILD_DIR) -> Path:
    """The frames file for ``n`` agents and ``frames`` moves, generated by the anchor's script if missing.

    The script numbers the agents along a Hilbert curve with lessons_lib's curves, imported
    as the package's top-level ``curves`` module from the checkout named by ``$CHECKOUT``. That
    module now lives at ``lessons_lib.structures.curves``, so ``$CHECKOUT`` names :func:`curves_checkout`, a
    two-file package under ``build/`` that points the old name at the new one.
    """
    fdir = build_dir / "frames"
    fdir.mkdir(parents=True, exist_ok=True)
    path = fdir / f"agents_{n}_{frames}f_seed{seed}.bin"
    if path.exists():
        try:
            h, _ = read_frames(path)
            if (h.n, h.frames, h.seed) == (n, frames, seed):
                return path
        except ValueError:
            pass
    tmp = path.with_suffix(".part")
    cmd = [sys.executable, str(anchor / "gen_frames.py"), str(n), str(frames), str(tmp), "--seed", str(seed)]
    env = dict(os.environ, CHECKOUT=str(curves_checkout(build_dir)))
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=build_dir, env=env, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed:\n{done.stderr.strip()}")
    tmp.replace(path)
    print(f"frames: {done.stdout.strip().replace(str(tmp), str(path))} ({time.perf_counter() - t0:.1f} s)", flush=True)
    return path


def run_c(binary: Path, frames_file: Path, order: str, extra=()) -> Run:
    """One run of a C harness binary (its own process) on a frames file."""
    cmd = [str(binary), str(frames_file), order, *map(str, extra)]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return parse_c_output(binary.name, done.stdout)


def ltg_cells(header: FramesHeader, blocks: np.ndarray) -> tuple[float, float]:
    """The loose and tight cell sides lessons_lib's LooseTightGrid picks for frame 0."""
    bp = STRUCTURES["loose_tight_grid"].from_boxes(frame_boxes(blocks, 0, header.scale),
                                                   world=[0.0, 0.0, header.world, header.world])
    return float(bp.cell_size), float(bp.tight_cell_size)


# ----------------------------------------------------------------------------------------------
# The suite
# ----------------------------------------------------------------------------------------------

@dataclass
class Entrant:
    """Something timed at one agent count: a C harness in one query order, or a lessons_lib structure."""

    name: str  # e.g. "C_loose_tight_grid_O2_id" or "point_grid"
    kind: str  # "C" or "lessons_lib"
    structure: str  # "loose_tight_grid", "quadtree", or the registry name
    variant: str = ""
    cmd: tuple = ()  # C: (binary, order, extra args)
    runs: list = field(default_factory=list)
    status: str = "ok"
    note: str = ""

    def median(self, phase: str = "total") -> float:
        """Median over runs of each run's median over frames."""
        vals = [r.median(phase) for r in self.runs if r.frames_done]
        return statistics.median(vals) if vals else float("nan")

    def spread(self) -> tuple[float, float]:
        vals = [r.median() for r in self.runs if r.frames_done]
        return (min(vals), max(vals)) if vals else (float("nan"), float("nan"))

    @property
    def usable(self) -> bool:
        return self.status == "ok" and bool(self.runs)


def interleave(a: list, b: list) -> list:
    out = []
    for k in range(max(len(a), len(b))):
        out += a[k:k + 1] + b[k:k + 1]
    return out


@dataclass
class SizeResult:
    n: int
    frames: int
    layout: str
    entrants: list
    cells: tuple

    def best_c(self, structure: str) -> Entrant | None:
        c = [e for e in self.entrants if e.kind == "C" and e.structure == structure and e.usable]
        return min(c, key=lambda e: e.median()) if c else None

    def ours(self) -> list:
        return [e for e in self.entrants if e.kind == "lessons_lib"]

    def fastest_ours(self) -> Entrant | None:
        ok = [e for e in self.ours() if e.usable]
        return min(ok, key=lambda e: e.median()) if ok else None

    def entrant(self, name: str) -> Entrant | None:
        return next((e for e in self.entrants if e.name == name), None)


def goal_lines(res: SizeResult) -> list:
    """The course's two goals at one agent count, as :class:`benchmarks.Line` (met / not met)."""
    lines = []
    c = res.best_c("loose_tight_grid")
    fast, ltg = res.fastest_ours(), res.entrant("loose_tight_grid")
    where = f"{res.n:,} agents"
    if c is None:
        return [Line(f"{where}: C loose/tight grid", "no usable C run", "a C figure", False)]
    if fast is not None:
        r = fast.median() / c.median()
        lines.append(Line(f"{where}: fastest lessons_lib ({fast.name}) / C loose/tight grid",
                          f"{fast.median():.1f} / {c.median():.1f} ms = {r:.2f}", "<= 0.50 (2x faster)", r <= 0.5))
    if ltg is not None and ltg.usable:
        r = ltg.median() / c.median()
        lines.append(Line(f"{where}: LooseTightGrid / C loose/tight grid",
                          f"{ltg.median():.1f} / {c.median():.1f} ms = {r:.2f}", "<= 1.00 (at most as slow)", r <= 1.0))
    else:
        lines.append(Line(f"{where}: LooseTightGrid / C loose/tight grid", "not measured"
                          + (f" ({ltg.status})" if ltg else ""), "<= 1.00", False))
    return lines


def _fmt(v: float, width: int = 8) -> str:
    return f"{v:{width}.1f}" if not math.isnan(v) else f"{'-':>{width}}"


def size_report(res: SizeResult, reps: int) -> str:
    """The per-size block: every entrant's median ms per phase and its ratio to the C loose/tight grid."""
    c = res.best_c("loose_tight_grid")
    cref = c.median() if c else float("nan")
    out = [(f"\n== {res.n:,} agents, {res.frames} frames ({res.layout} layout), {reps} interleaved runs; "
            f"cells {res.cells[0]:g} / {res.cells[1]:g} =="),
           "median ms per frame (median of the runs' medians; lo-hi = fastest and slowest run)",
           (f"{'entrant':<28}{'total':>8}{'lo-hi':>14}{'update':>8}{'cleanup':>8}{'pairs':>8}{'cpu':>8}"
            f"{'/C lg':>7}{'pairs/frame':>13}  status")]
    for e in sorted(res.entrants, key=lambda e: (e.kind != "C", e.median() if e.runs else float("inf"))):
        lo, hi = e.spread()
        ratio = e.median() / cref if e.runs else float("nan")
        cnt = e.runs[0].counts if e.runs else []
        out.append(f"{e.name:<28}{_fmt(e.median())}{f'{lo:.1f}-{hi:.1f}' if e.runs else '-':>14}"
                   f"{_fmt(e.median('update'))}{_fmt(e.median('cleanup'))}{_fmt(e.median('pairs'))}"
                   f"{_fmt(e.median('cpu'))}{ratio:7.2f}{int(statistics.median(cnt)) if cnt else 0:>13,}  "
                   f"{e.status}{': ' + e.note if e.note else ''}")
    return "\n".join(out)


def summary_table(results: list) -> str:
    """Entrants down, agent counts across: median ms per frame, then the two ratios."""
    def cell(e):
        if e is None:
            return "-"
        if not e.usable:
            return f"{e.median():.1f} ({e.status})" if e.runs else e.status
        return f"{e.median():.1f}"

    rows = []
    for structure in C_HARNESSES:
        best = [r.best_c(structure) for r in results]
        rows.append([C_LABELS[structure]] + [f"{cell(b)} ({b.variant.split()[1]})" if b else "-" for b in best])
    ours = list(dict.fromkeys(e.structure for r in results for e in r.ours()))
    def order(s):  # by the largest agent count the structure was measured at, then by its time there
        done = [(r.n, r.entrant(s).median()) for r in results if r.entrant(s) is not None and r.entrant(s).usable]
        return (-done[-1][0], done[-1][1]) if done else (0, 0.0)

    for s in sorted(ours, key=order):
        rows.append([s] + [cell(r.entrant(s)) for r in results])
    fast = [r.fastest_ours() for r in results]
    cl = [r.best_c("loose_tight_grid") for r in results]
    ltg = [r.entrant("loose_tight_grid") for r in results]
    rows.append(["fastest lessons_lib"] + [f.name if f else "-" for f in fast])
    rows.append(["fastest / C loose/tight grid"]
                + [f"{f.median() / c.median():.2f}" if (f and c) else "-" for f, c in zip(fast, cl)])
    rows.append(["LooseTightGrid / C loose/tight grid"]
                + [f"{e.median() / c.median():.2f}" if (e and e.usable and c) else "-" for e, c in zip(ltg, cl)])
    head = ["ms per frame"] + [f"{r.n:,} agents" for r in results]
    widths = [max(len(h), *(len(row[k]) for row in rows)) for k, h in enumerate(head)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if k == 0 else c.rjust(w)
                                 for k, (c, w) in enumerate(zip(cells, widths))) + " |"

    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def phase_table(results: list) -> str:
    """Per phase, lessons_lib's LooseTightGrid and fastest structure over the C loose/tight grid."""
    out = ["per phase, lessons_lib / C loose/tight grid (same phase; C's cleanup is lgrid_optimize):"]
    for r in results:
        c = r.best_c("loose_tight_grid")
        if c is None:
            continue
        for e in (r.entrant("loose_tight_grid"), r.fastest_ours()):
            if e is None or not e.runs:
                continue
            parts = []
            for p in ("update", "cleanup", "pairs"):
                a, b = e.median(p), c.median(p)
                parts.append(f"{p} {a:.1f}/{b:.1f} ms ({a / b:.2f}x)" if b > 0 else f"{p} {a:.1f}/{b:.1f} ms")
            out.append(f"  {r.n:>9,} {e.name:<18} " + ", ".join(parts))
    return "\n".join(out)


def csv_rows(results: list, reps: int) -> list:
    rows = []
    for r in results:
        c = r.best_c("loose_tight_grid")
        for e in r.entrants:
            lo, hi = e.spread()
            counts = e.runs[0].counts if e.runs else []
            rows.append(dict(
                n=r.n, frames=r.frames, reps=len(e.runs), layout=r.layout, structure=e.structure, kind=e.kind,
                entrant=e.name, variant=e.variant,
                total_ms=e.median(), update_ms=e.median("update"), cleanup_ms=e.median("cleanup"),
                pairs_ms=e.median("pairs"), cpu_total_ms=e.median("cpu"), total_lo_ms=lo, total_hi_ms=hi,
                vs_c_lgrid=(e.median() / c.median()) if (c and e.runs) else float("nan"),
                pairs=int(statistics.median(counts)) if counts else 0,
                frames_checked=min((x.frames_done for x in e.runs), default=0),
                status=e.status, note=e.note,
            ))
    return rows


def run_size(anchor_bins: dict, frames_file: Path, *, structures, reps: int, budget_s: float, c_opts, c_orders,
             skip: dict, history: dict) -> SizeResult:
    header, blocks = read_frames(frames_file)
    n, nf = header.n, header.frames
    lc, tc = ltg_cells(header, blocks)
    c_entrants = []
    for structure, (_, _, alt) in C_HARNESSES.items():
        for opt in c_opts:
            for order in c_orders:
                order = alt if order in ("cell", "leaf") else order
                extra = (lc, tc) if structure == "loose_tight_grid" else ()
                c_entrants.append(Entrant(f"C_{structure}_{opt}_{order}", "C", structure, f"-{opt} {order} order",
                                          (anchor_bins[structure, opt], order, extra)))
    ours = []
    for s in structures:
        e = Entrant(s, "lessons_lib", s, "defaults")
        if s in skip:
            e.status, e.note = "skipped", skip[s]
        elif s in history:
            prev_n, prev_s = history[s]
            predicted = prev_s * n / prev_n
            if predicted > budget_s:
                e.status = "skipped"
                e.note = f"predicted {predicted:.0f} s per run from {prev_n:,} agents ({budget_s:g} s budget)"
        ours.append(e)
    todo = [e for e in ours if e.status == "ok"]
    ref, walls = None, {}
    for rep in range(reps):
        order = interleave(c_entrants, todo)
        k = (rep * 3) % len(order)
        order = order[k:] + order[:k]
        if rep == 0:  # the C reference runs first
            order.remove(c_entrants[0])
            order.insert(0, c_entrants[0])
        for e in order:
            if e.kind == "lessons_lib" and e.status != "ok":
                continue
            t0 = time.perf_counter()
            if e.kind == "C":
                binary, qorder, extra = e.cmd
                run = run_c(binary, frames_file, qorder, extra)
            else:
                run = run_structure(e.structure, header, blocks, budget_s=budget_s)
            wall = time.perf_counter() - t0
            if ref is None:
                ref = run
                if run.frames_done != nf:
                    raise RuntimeError(f"{e.name} gave {run.frames_done} frames, expected {nf}")
            else:
                check_against(run, ref)
            e.runs.append(run)
            if run.status != "ok":
                e.status, e.note = run.status, run.note
            if e.kind == "lessons_lib":
                walls.setdefault(e.structure, []).append(wall)
                if run.status == "over budget":
                    skip[e.structure] = f"over budget at {n:,} agents"
            print(f"  run {rep + 1}/{reps} {n:>9,} {e.name:<26} {run.median():9.2f} ms/frame "
                  f"({run.frames_done} frames, {wall:5.1f} s) {run.status}", flush=True)
    for s, w in walls.items():  # the slowest run at this size predicts the next size's
        history[s] = (n, max(w))
    return SizeResult(n, nf, header.layout_name, c_entrants + ours, (lc, tc))


def too_slow(res: SizeResult, factor: float) -> dict:
    """``{structure: reason}`` for the structures (other than the core ones) that did not keep up:
    more than ``factor`` times the C loose/tight grid's time at this agent count."""
    c = res.best_c("loose_tight_grid")
    if c is None:
        return {}
    out = {}
    for e in res.ours():
        if e.structure not in CORE_STRUCTURES and e.usable and e.median() > factor * c.median():
            out[e.structure] = (f"{e.median() / c.median():.0f}x the C loose/tight grid at {res.n:,} agents "
                                f"(keep-up limit {factor:g}x)")
    return out


def warm_up(structures, frames_file: Path) -> dict:
    """Compile (or load from numba's cache) every structure's kernels on a slice of the frames.

    Returns ``{structure: reason}`` for those that raised (they are skipped).
    """
    header, blocks = read_frames(frames_file)
    small = blocks[:3, :min(header.n, 2000)]
    bad = {}
    t0 = time.perf_counter()
    for s in structures:
        try:
            run_structure(s, header, small)
        except Exception as exc:  # a structure that cannot take these agents is skipped, not fatal
            bad[s] = f"{type(exc).__name__}: {exc}"
            print(f"  warm-up: {s} raised {bad[s]}", flush=True)
    print(f"warm-up (JIT compile or cache load) of {len(structures)} structures: "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    return bad


def lower_priority(target: int) -> None:
    """Raise this process's niceness to at least ``target`` (children inherit it)."""
    try:
        cur = os.nice(0)
        if cur < target:
            os.nice(target - cur)
    except OSError:
        pass


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.anchor_c", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="agent counts, comma-separated")
    ap.add_argument("--frames", type=int, default=30, help="moves per run (default 30)")
    ap.add_argument("--reps", type=int, default=3, help="interleaved runs per entrant (default 3)")
    ap.add_argument("--anchor", type=Path, default=None,
                    help=f"the anchor folder (default ${ANCHOR_ENV} or {ANCHOR_REL} beside the repository)")
    ap.add_argument("--structures", default=None,
                    help="lessons_lib registry names, comma-separated (default: every registered structure)")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="seconds per lessons_lib run (build included) before it stops (default 30)")
    ap.add_argument("--keep-up", type=float, default=10.0,
                    help="a structure (other than the six core ones) slower than this many times the C "
                         "loose/tight grid is not run at larger agent counts (default 10)")
    ap.add_argument("--c-opt", default="O2", help=f"C optimisation labels, comma-separated: {', '.join(C_OPTS)}")
    ap.add_argument("--c-orders", default="id,cell",
                    help="C query orders: id and/or cell (the quadtree's is leaf); default both")
    ap.add_argument("--seed", type=int, default=0, help="gen_frames.py's seed")
    ap.add_argument("--nice", type=int, default=10, help="niceness to run at (default 10)")
    ap.add_argument("--save", action="store_true", help=f"write {RESULTS_FILE.relative_to(REPO)}")
    ap.add_argument("--out", type=Path, default=RESULTS_FILE, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    anchor = (a.anchor if a.anchor is not None else default_anchor()).resolve()
    problem = anchor_problem(anchor)
    if problem:
        print(problem)
        return 0
    sizes = [int(s) for s in a.sizes.replace("_", "").split(",") if s.strip()]
    c_opts = [o for o in a.c_opt.split(",") if o]
    c_orders = [o for o in a.c_orders.split(",") if o]
    bad = [o for o in c_opts if o not in C_OPTS] + [o for o in c_orders if o not in ("id", "cell", "leaf")]
    if bad or not sizes or min(sizes) <= 0 or a.frames < 1 or a.reps < 1:
        raise SystemExit(f"bad arguments: {bad or (sizes, a.frames, a.reps)}")
    if a.structures:
        structures = [s for s in a.structures.split(",") if s]
        unknown = [s for s in structures if s not in STRUCTURES]
        if unknown:
            raise SystemExit(f"unknown structures {unknown}; registered: {', '.join(STRUCTURES)}")
    else:
        structures = list(CORE_STRUCTURES) + [s for s in STRUCTURES if s not in CORE_STRUCTURES]
    lower_priority(a.nice)
    start = time.perf_counter()
    load0 = os.getloadavg()[0]
    print(f"# C anchor suite, {time.strftime('%Y-%m-%d %H:%M')}: {machine_info()}\n# anchor: {anchor}", flush=True)
    bins = build_harnesses(anchor, c_opts)
    skip, history, results = {}, {}, []
    for i, n in enumerate(sizes):
        frames_file = ensure_frames(anchor, n, a.frames, seed=a.seed)
        if i == 0:
            skip.update(warm_up(structures, frames_file))
        results.append(run_size(bins, frames_file, structures=structures, reps=a.reps, budget_s=a.budget,
                                c_opts=c_opts, c_orders=c_orders, skip=skip, history=history))
        print(size_report(results[-1], a.reps), flush=True)
        skip.update(too_slow(results[-1], a.keep_up))
    elapsed = time.perf_counter() - start
    print("\n== summary: median ms per frame (update_many + cleanup + pairs), C figures the faster query order ==")
    print(summary_table(results))
    print("\n" + phase_table(results))
    print("\n== course goals (benchmark tooling only) ==")
    goals = [line for r in results for line in goal_lines(r)]
    for line in goals:
        print(line.row())
    failed = [f"{r.n}:{e.name}" for r in results for e in r.entrants if e.status == "FAILED"]
    print(f"\n{sum(g.ok for g in goals)} of {len(goals)} goals met; {len(failed)} wrong results"
          + (f" -- FAILED: {', '.join(failed)}" if failed else "")
          + f"; whole run {elapsed / 60:.1f} min (load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end)")
    if a.save:
        # The one module path used below the package's top level: the brief's named writer.
        from lessons_lib.data import save_results

        cmd = "nice -n 10 python -m benchmarks.anchor_c " + shlex.join(
            [x for x in (sys.argv[1:] if argv is None else argv)])
        meta = {
            "anchor": f"{anchor.name} (outside the repository; C harnesses built with "
                      + "; ".join(f"{o}: {' '.join(C_OPTS[o])}" for o in c_opts) + ")",
            "compilers": "; ".join(compiler_version(cc) for cc in sorted({h[0] for h in C_HARNESSES.values()})),
            "lessons_lib": jit_status(),
            "medians": f"per run the median over {a.frames} frames; per entrant the median of {a.reps} interleaved "
                       "runs' medians (total_lo_ms/total_hi_ms: fastest and slowest run); shared 2-core machine",
            "goals": "; ".join(f"{g.what}: {g.measured} ({'met' if g.ok else 'not met'})" for g in goals),
            "run": f"{elapsed / 60:.1f} min, load average {load0:.2f} -> {os.getloadavg()[0]:.2f}",
        }
        path = save_results(a.out, csv_rows(results, a.reps), what="the quadtree answer set's C/C++ structures "
                            "vs lessons_lib, same frames of moving agents, ms per frame", command=cmd.strip(),
                            extra_meta=meta)
        print(f"saved {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

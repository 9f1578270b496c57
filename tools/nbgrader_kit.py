"""The course in nbgrader's own format: cell metadata, and a course directory built by nbgrader.

    python tools/nbgrader_kit.py mark            # write nbgrader metadata into notebooks/*.ipynb
    python tools/nbgrader_kit.py mark --check    # exit 1 if any notebook's metadata is missing or stale
    python tools/nbgrader_kit.py course          # build/nbgrader: source/, then nbgrader generate_assignment

Metadata (``mark``). In every lesson, each exercise cell (the code cell holding
``### BEGIN SOLUTION`` ... ``### END SOLUTION``) becomes an nbgrader *solution* cell,
and the code cell after it, which calls the exercise's check from
``lessons_lib.checks``, an *autograded test* cell worth :data:`POINTS` points, locked.
The ``grade_id`` comes from the lesson number and the name of the first function
the exercise defines (``02-cell_pairs``, ``02-cell_pairs-check``): it stays the same
when lessons are re-run, re-linked (``tools/update_nav.py``) or edited elsewhere, and
changes only when the exercise itself is renamed. Other cells are left as they are.

Course (``course``). ``build/nbgrader/`` is a standard nbgrader course directory: one
assignment per lesson with exercises (``lesson01`` ... ``lesson14``), the teacher's
notebooks under ``source/``, and nbgrader's own ``generate_assignment`` writes the
student versions under ``release/``. TEACHING.md shows the whole workflow (release,
collect, autograde, feedback).

nbgrader is an optional dependency for teachers (``pip install -e '.[nbgrader]'``,
which ``make assignments`` runs); ``mark`` needs only nbformat.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BEGIN = "### BEGIN SOLUTION"
#: Points of each autograded check.
POINTS = 1
SCHEMA = 3

CONFIG = '''\
# nbgrader configuration of the broad-phase course (written by tools/nbgrader_kit.py).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "broadphase"
c.CourseDirectory.root = {root!r}
# Lessons import lessons_lib and plot: give each cell time (numba compiles on first use).
c.ExecutePreprocessor.timeout = 600
c.Execute.timeout = 600
c.ClearSolutions.code_stub = {{"python": "raise NotImplementedError(\\"write your solution here\\")"}}
'''


def lesson_number(path: pathlib.Path) -> str:
    return path.name[:2]


def exercise_name(source: str) -> str:
    """The name of the first function an exercise cell defines (``ValueError`` if it defines none)."""
    m = re.search(r"^\s*def\s+(\w+)\s*\(", source, flags=re.M)
    if not m:
        raise ValueError("an exercise cell must define a function (its name is the exercise's stable id)")
    return m.group(1)


def exercises(nb) -> list[tuple[int, int, str]]:
    """``(exercise cell index, check cell index, name)`` for each exercise of notebook ``nb``."""
    out = []
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    for k, i in enumerate(code):
        if BEGIN in nb.cells[i].source:
            if k + 1 >= len(code):
                raise ValueError(f"exercise cell {i} has no check cell after it")
            out.append((i, code[k + 1], exercise_name(nb.cells[i].source)))
    return out


def solution_meta(grade_id: str) -> dict:
    return {"grade": False, "grade_id": grade_id, "locked": False, "schema_version": SCHEMA,
            "solution": True, "task": False}


def check_meta(grade_id: str) -> dict:
    return {"grade": True, "grade_id": grade_id, "locked": True, "points": POINTS, "schema_version": SCHEMA,
            "solution": False, "task": False}


def marked(nb, number: str):
    """A copy of ``nb`` with nbgrader metadata on its exercise and check cells (stale metadata removed)."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    seen = set()
    for i, j, name in exercises(nb):
        grade_id = f"{number}-{name}"
        if grade_id in seen:
            raise ValueError(f"two exercises of lesson {number} define {name}(): grade ids must be unique")
        seen.add(grade_id)
        nb.cells[i].metadata["nbgrader"] = solution_meta(grade_id)
        nb.cells[j].metadata["nbgrader"] = check_meta(f"{grade_id}-check")
    return nb


def lesson_paths() -> list[pathlib.Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def mark(check: bool = False) -> list[str]:
    """Write (or, with ``check``, only compare) the metadata of every lesson; return the stale names."""
    stale = []
    for path in lesson_paths():
        nb = nbformat.read(path, as_version=4)
        new = marked(nb, lesson_number(path))
        if [c.metadata for c in new.cells] != [c.metadata for c in nb.cells]:
            stale.append(path.name)
            if not check:
                nbformat.write(new, path)
    return stale


def assignment_name(path: pathlib.Path) -> str:
    return f"lesson{lesson_number(path)}"


def build_course(out: pathlib.Path) -> list[pathlib.Path]:
    """Write ``out``/source/lessonNN/, the config, and run ``nbgrader generate_assignment`` on each lesson.

    Returns the released notebooks. Raises ``RuntimeError`` with nbgrader's output when it fails.
    """
    if shutil.which("nbgrader", path=str(pathlib.Path(sys.executable).parent)) is None:
        raise RuntimeError("nbgrader is not installed: run `make assignments` (it installs the nbgrader extra)")
    stale = mark(check=True)
    if stale:
        raise RuntimeError(f"nbgrader metadata is stale in {stale}: run `python tools/nbgrader_kit.py mark`")
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(root=str(out.resolve())))
    bin_dir = pathlib.Path(sys.executable).parent
    nbgrader = str(bin_dir / "nbgrader")
    env = dict(os.environ, PATH=os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]))  # nbgrader runs alembic
    released = []
    for path in lesson_paths():
        if not exercises(nbformat.read(path, as_version=4)):
            continue
        name = assignment_name(path)
        src = out / "source" / name
        if src.exists():
            shutil.rmtree(src)
        src.mkdir(parents=True)
        shutil.copy2(path, src / path.name)
        proc = subprocess.run([nbgrader, "generate_assignment", name, "--force"],
                              cwd=out, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{proc.stdout}\n{proc.stderr}")
        released.append(out / "release" / name / path.name)
    return released


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("mark", help="write nbgrader metadata into the lessons")
    m.add_argument("--check", action="store_true", help="only report notebooks whose metadata is stale (exit 1)")
    c = sub.add_parser("course", help="build the nbgrader course directory and release every lesson")
    c.add_argument("--out", default=str(ROOT / "build" / "nbgrader"), help="course directory")
    args = parser.parse_args(argv)
    if args.command == "mark":
        stale = mark(check=args.check)
        verb = "stale" if args.check else "updated"
        print(f"nbgrader metadata {verb}: {', '.join(stale) if stale else 'none'}")
        return 1 if (args.check and stale) else 0
    released = build_course(pathlib.Path(args.out))
    print(f"released {len(released)} lessons into {pathlib.Path(args.out) / 'release'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

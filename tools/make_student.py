"""Write the student version of every lesson notebook.

    python tools/make_student.py [--out build/student]

For each ``notebooks/NN_*.ipynb``:

* in every code cell, the lines from ``### BEGIN SOLUTION`` to
  ``### END SOLUTION`` (markers included) become one stub line,
  ``raise NotImplementedError("write your solution here")``, indented like the
  marker, so the function's signature and docstring stay in place;
* the outputs of those exercise cells and of the check cell that follows each
  one are cleared, and the check cell gets the cell tag ``raises-exception`` (which
  nbval and JupyterLab's Run All honour), since a check on a stub must fail;
* everything else is copied unchanged.

The markers are nbgrader's, so a teacher can also give the teacher's notebooks
to nbgrader (``nbgrader generate_assignment``) instead.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = 'raise NotImplementedError("write your solution here")'
RAISES = "raises-exception"


def stub_source(source: str) -> str:
    """Replace each BEGIN..END SOLUTION block of ``source`` by a stub line.

    Raises ``ValueError`` if the markers do not pair up.
    """
    out, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError("nested ### BEGIN SOLUTION")
            inside = True
            out.append(line[: len(line) - len(line.lstrip())] + STUB)
        elif stripped == END:
            if not inside:
                raise ValueError("### END SOLUTION without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError("### BEGIN SOLUTION without END")
    return "\n".join(out)


def is_exercise(cell) -> bool:
    return cell.cell_type == "code" and BEGIN in cell.source


def student_notebook(nb):
    """Return a student copy of notebook ``nb`` (an nbformat node); ``nb`` is not changed."""
    nb = nbformat.from_dict(nb)  # deep copy
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        if not is_exercise(cell):
            continue
        cell.source = stub_source(cell.source)
        cell.outputs, cell.execution_count = [], None
        if i + 1 < len(code):
            check = code[i + 1]
            check.outputs, check.execution_count = [], None
            tags = check.metadata.setdefault("tags", [])
            if RAISES not in tags:
                tags.append(RAISES)
    return nb


def write_student_versions(out: pathlib.Path, notebooks: pathlib.Path = ROOT / "notebooks") -> list[pathlib.Path]:
    """Write a student copy of every ``NN_*.ipynb`` into ``out``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        nb = student_notebook(nbformat.read(path, as_version=4))
        target = out / path.name
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "student"), help="output folder")
    args = parser.parse_args(argv)
    written = write_student_versions(pathlib.Path(args.out))
    exercises = sum(
        sum(1 for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code" and STUB in c.source)
        for p in written
    )
    print(f"wrote {len(written)} student notebooks with {exercises} exercises to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
* right after each check cell comes a markdown cell holding the reference solution
  inside a collapsed ``<details>`` block ("Show a solution"): one deliberate click
  away, never in sight while the student tries;
* everything else is copied unchanged (a lesson's Questions already keep their answers
  in a collapsed "Answers" block).

``make lab`` writes this edition into ``student/`` with ``--keep-existing``, so a
student's own work there is never overwritten (delete a notebook to get a fresh copy);
``make test`` writes it afresh into ``build/student/``.

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
SOLUTION_SUMMARY = "Show a solution (try the exercise and its check first)"


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


def solution_cell(reference_source: str, cell_id: str):
    """A markdown cell showing ``reference_source`` (the exercise cell, markers removed) collapsed."""
    lines = [ln for ln in reference_source.splitlines() if ln.strip() not in (BEGIN, END)]
    body = "\n".join(lines).replace("```", "ʼʼʼ")
    cell = nbformat.v4.new_markdown_cell(
        f"<details><summary>{SOLUTION_SUMMARY}</summary>\n\n```python\n{body}\n```\n\n</details>")
    cell.metadata["tags"] = ["solution"]
    cell.id = cell_id
    return cell


def student_notebook(nb, *, with_solutions: bool = False):
    """Return a student copy of notebook ``nb`` (an nbformat node); ``nb`` is not changed.

    With ``with_solutions``, a collapsed "Show a solution" cell follows each check cell.
    """
    nb = nbformat.from_dict(nb)  # deep copy
    code = [c for c in nb.cells if c.cell_type == "code"]
    after_check = []  # (check cell, reference source)
    for i, cell in enumerate(code):
        if not is_exercise(cell):
            continue
        reference = cell.source
        cell.source = stub_source(cell.source)
        cell.outputs, cell.execution_count = [], None
        if i + 1 < len(code):
            check = code[i + 1]
            check.outputs, check.execution_count = [], None
            tags = check.metadata.setdefault("tags", [])
            if RAISES not in tags:
                tags.append(RAISES)
            after_check.append((check, reference))
    if with_solutions:
        for check, reference in after_check:
            k = next(j for j, c in enumerate(nb.cells) if c is check)
            nb.cells.insert(k + 1, solution_cell(reference, f"solution-{k}"))
    return nb


def write_student_versions(out: pathlib.Path, notebooks: pathlib.Path = ROOT / "notebooks", *,
                           keep_existing: bool = False) -> list[pathlib.Path]:
    """Write the student edition of every ``NN_*.ipynb`` into ``out``; return the paths written.

    With ``keep_existing``, a notebook already in ``out`` (a student's work) is left as it is.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        target = out / path.name
        if keep_existing and target.exists():
            continue
        nb = student_notebook(nbformat.read(path, as_version=4), with_solutions=True)
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "student"), help="output folder")
    parser.add_argument("--keep-existing", action="store_true",
                        help="leave notebooks already in the output folder as they are (a student's work)")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    kept = sorted(p.name for p in out.glob("[0-9][0-9]_*.ipynb")) if args.keep_existing and out.is_dir() else []
    written = write_student_versions(out, keep_existing=args.keep_existing)
    if kept:
        print(f"kept your own copies of {len(kept)} notebooks in {args.out} (delete one to get a fresh copy)")
    exercises = sum(
        sum(1 for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code" and STUB in c.source)
        for p in written
    )
    print(f"wrote {len(written)} student notebooks with {exercises} exercises to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

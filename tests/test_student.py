"""The student versions: stubs keep signatures and docstrings, and every check fails on them."""
import ast
import pathlib
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_student  # noqa: E402

from lessons_lib.checks import CheckFailed  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

EXERCISE = '''def f(x):
    """Double x."""
    ### BEGIN SOLUTION
    y = 2 * x
    return y
    ### END SOLUTION
'''


def test_stub_keeps_signature_and_docstring():
    out = make_student.stub_source(EXERCISE)
    assert "2 * x" not in out and "SOLUTION" not in out
    tree = ast.parse(out)
    fn = tree.body[0]
    assert fn.name == "f" and [a.arg for a in fn.args.args] == ["x"]
    assert ast.get_docstring(fn) == "Double x."
    ns = {}
    exec(out, ns)
    with pytest.raises(NotImplementedError):
        ns["f"](1)


@pytest.mark.parametrize(
    "source, problem",
    [
        ("### BEGIN SOLUTION\nx = 1\n", "without END"),
        ("x = 1\n### END SOLUTION\n", "without BEGIN"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "nested"),
    ],
)
def test_unpaired_markers_are_errors(source, problem):
    with pytest.raises(ValueError, match=problem):
        make_student.stub_source(source)


def exercise_pairs(nb):
    code = [c for c in nb.cells if c.cell_type == "code"]
    return [(c, code[i + 1]) for i, c in enumerate(code) if make_student.is_exercise(c) and i + 1 < len(code)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_student_notebook_has_no_solutions_and_failing_checks(path):
    teacher = nbformat.read(path, as_version=4)
    student = make_student.student_notebook(teacher)
    assert len(student.cells) == len(teacher.cells)
    for t_cell, s_cell in zip(teacher.cells, student.cells):
        if not make_student.is_exercise(t_cell) and make_student.RAISES not in s_cell.metadata.get("tags", []):
            assert s_cell == t_cell, "cells other than exercises and their checks must be unchanged"
    for t_ex, t_check in exercise_pairs(teacher):
        stub = make_student.stub_source(t_ex.source)
        assert make_student.STUB in stub
        namespace = {}
        exec(stub, namespace)                    # defines the stubbed function(s)
        with pytest.raises(CheckFailed, match="not written yet"):
            exec(t_check.source, namespace)      # the check must fail on the stub
    for s_ex, s_check in exercise_pairs(student):
        assert not s_ex.outputs and not s_check.outputs
        assert make_student.RAISES in s_check.metadata.get("tags", [])
        assert "NBVAL" not in s_check.source  # markers are cell tags, not comments students read


def test_write_student_versions(tmp_path):
    written = make_student.write_student_versions(tmp_path)
    assert [p.name for p in written] == [p.name for p in NOTEBOOKS]
    for p in written:
        code = [c.source for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"]
        assert not any("### BEGIN SOLUTION" in src for src in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_student_edition_keeps_each_solution_one_click_away(path):
    teacher = nbformat.read(path, as_version=4)
    student = make_student.student_notebook(teacher, with_solutions=True)
    cells = student.cells
    for k, cell in enumerate(cells):
        if cell.cell_type == "code" and make_student.STUB in cell.source:
            check = next(j for j in range(k + 1, len(cells)) if cells[j].cell_type == "code")
            shown = cells[check + 1]
            assert shown.cell_type == "markdown" and "solution" in shown.metadata.get("tags", [])
            assert shown.source.startswith(f"<details><summary>{make_student.SOLUTION_SUMMARY}</summary>")
            assert "### BEGIN SOLUTION" not in shown.source
    visible = [c.source for c in cells if c.cell_type == "code"]
    assert not any("### BEGIN SOLUTION" in src for src in visible)


def test_keep_existing_never_overwrites_a_students_work(tmp_path):
    make_student.write_student_versions(tmp_path)
    mine = tmp_path / NOTEBOOKS[1].name
    mine.write_text(mine.read_text().replace("NotImplementedError", "NotImplementedError", 1) + "\n")
    before = mine.read_text()
    (tmp_path / NOTEBOOKS[0].name).unlink()
    written = make_student.write_student_versions(tmp_path, keep_existing=True)
    assert [p.name for p in written] == [NOTEBOOKS[0].name]
    assert mine.read_text() == before

"""nbgrader's metadata on every exercise and check cell: present, current, unique and stable.

The ids come from the lesson number and the exercise's function name only, so running the
lessons again, re-linking them (tools/update_nav.py) or editing other cells never changes
them. The slow end-to-end grading by nbgrader is tests/nbgrader_autograde.py (make
test-nbgrader).
"""
from __future__ import annotations

import pathlib
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_student  # noqa: E402
import nbgrader_kit  # noqa: E402
import update_nav  # noqa: E402

NOTEBOOKS = nbgrader_kit.lesson_paths()


def test_metadata_is_current():
    stale = nbgrader_kit.mark(check=True)
    assert not stale, f"run `python tools/nbgrader_kit.py mark`: stale nbgrader metadata in {stale}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ids_are_unique_and_cells_are_what_make_student_stubs(path):
    nb = nbformat.read(path, as_version=4)
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids))
    solutions = [i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("solution")]
    stubbed = [i for i, c in enumerate(make_student.student_notebook(nb).cells) if make_student.STUB in c.source]
    assert solutions == stubbed, "nbgrader's solution cells and make student's stubs disagree"
    for i, j, name in nbgrader_kit.exercises(nb):
        check = nb.cells[j].metadata["nbgrader"]
        assert check["grade"] and check["locked"] and check["points"] > 0 and not check["solution"]
        assert check["grade_id"] == f"{path.name[:2]}-{name}-check"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ids_survive_relinking_rerunning_and_editing(path):
    nb = nbformat.read(path, as_version=4)
    before = nbgrader_kit.marked(nb, path.name[:2])
    changed = nbformat.from_dict(nb)
    for cell in changed.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None          # as if re-run
        elif cell.source.startswith(update_nav.NAV):
            cell.source = update_nav.NAV + "\n[somewhere else](x.ipynb)"  # as if re-linked
        elif cell.cell_type == "markdown":
            cell.source += "\n\nA sentence added by a teacher."
    after = nbgrader_kit.marked(changed, path.name[:2])
    assert [c.metadata.get("nbgrader") for c in after.cells] == [c.metadata.get("nbgrader") for c in before.cells]


def test_an_exercise_must_define_a_function():
    with pytest.raises(ValueError, match="must define a function"):
        nbgrader_kit.exercise_name("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")

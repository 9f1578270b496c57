"""The course graded by nbgrader itself, with the commands TEACHING.md gives teachers.

Slow (every lesson is executed three times), so not part of ``make test``: ``make
test-nbgrader`` runs it (CI does, after ``make test``). Needs the nbgrader extra
(``make assignments`` installs it).

In a fresh course directory: ``tools/nbgrader_kit.py course`` releases every lesson with
nbgrader's ``generate_assignment``; three students submit (``untouched``: the release as
handed out; ``reference``: the teacher's notebooks; ``typo``: the reference with one typical
wrong answer in one exercise); ``nbgrader autograde`` grades each lesson; the gradebook must
show 0 for every untouched exercise, full marks for the reference, and exactly one lost
exercise for ``typo``; ``generate_feedback`` and ``export`` must work.
"""
from __future__ import annotations

import csv
import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_student  # noqa: E402
import nbgrader_kit  # noqa: E402

BIN = pathlib.Path(sys.executable).parent
STUDENTS = ("untouched", "reference", "typo")


def _nbgrader(course: pathlib.Path, *args: str) -> str:
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    proc = subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def _typo(nb) -> tuple[object, str]:
    """A copy of ``nb`` with one exercise's closed comparisons made open (``<=`` to ``<``): its grade id.

    The exercise is one that compares with ``<=`` and that no other exercise of the lesson
    calls (a wrong answer there would also sink the exercises built on it).
    """
    nb = nbformat.from_dict(nb)
    solutions = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    for cell in solutions:
        name = nbgrader_kit.exercise_name(cell.source)
        used_elsewhere = any(re.search(rf"\b{name}\(", other.source) for other in solutions if other is not cell)
        if "<=" in cell.source and not used_elsewhere:
            cell.source = cell.source.replace("<=", "<")
            return nb, cell.metadata["nbgrader"]["grade_id"]
    return None, ""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    if shutil.which("nbgrader", path=str(BIN)) is None:
        pytest.fail("nbgrader is not installed: run `make assignments` first")
    out = tmp_path_factory.mktemp("nbgrader") / "course"
    released = nbgrader_kit.build_course(out)
    assert released, "no lesson was released"
    typo_lesson = None
    for rel in released:
        name = rel.parent.name
        source = out / "source" / name / rel.name
        for student, src in (("untouched", rel), ("reference", source)):
            dest = out / "submitted" / student / name
            dest.mkdir(parents=True)
            shutil.copy2(src, dest / rel.name)
        if typo_lesson is None:
            wrong, grade_id = _typo(nbformat.read(source, as_version=4))
            if wrong is not None:
                dest = out / "submitted" / "typo" / name
                dest.mkdir(parents=True)
                nbformat.write(wrong, dest / rel.name)
                typo_lesson = (name, grade_id)
    assert typo_lesson, "no exercise compares with <=: pick another typical wrong answer"
    for rel in released:
        _nbgrader(out, "autograde", rel.parent.name, "--force")
    return out, released, typo_lesson


def _scores(out: pathlib.Path) -> dict:
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{out / 'gradebook.db'}") as gb:
        for assignment in gb.assignments:
            for sub in gb.assignment_submissions(assignment.name):
                for nb in sub.notebooks:
                    for g in nb.grades:
                        scores[(assignment.name, sub.student.id, g.name)] = (g.score, g.max_score)
    return scores


def test_release_stubs_the_same_cells_as_make_student(course):
    out, released, _ = course
    for rel in released:
        teacher = nbformat.read(out / "source" / rel.parent.name / rel.name, as_version=4)
        nbg = nbformat.read(rel, as_version=4)
        mine = make_student.student_notebook(teacher)
        stubbed_nbg = [i for i, c in enumerate(nbg.cells) if c.metadata.get("nbgrader", {}).get("solution")]
        stubbed_mine = [i for i, c in enumerate(mine.cells) if make_student.STUB in c.source]
        assert stubbed_nbg == stubbed_mine, rel.name
        for i in stubbed_nbg:
            assert "NotImplementedError" in nbg.cells[i].source and "### BEGIN SOLUTION" not in nbg.cells[i].source


def test_untouched_scores_zero_and_reference_full_marks(course):
    out, released, _ = course
    scores = _scores(out)
    lessons = {rel.parent.name for rel in released}
    graded = {(a, g) for (a, s, g) in scores}
    assert {a for a, _ in graded} == lessons
    for (assignment, student, grade_id), (score, max_score) in scores.items():
        if student == "untouched":
            assert score == 0, f"{assignment} {grade_id}: the untouched release scored {score}"
        elif student == "reference":
            assert score == max_score > 0, f"{assignment} {grade_id}: the reference scored {score} of {max_score}"


def test_one_wrong_answer_loses_exactly_its_points(course):
    out, _, (lesson, grade_id) = course
    scores = {g: s for (a, st, g), s in _scores(out).items() if a == lesson and st == "typo"}
    assert scores, "the typo submission was not graded"
    for g, (score, max_score) in scores.items():
        if g == f"{grade_id}-check":
            assert score == 0, f"{g}: the wrong answer scored {score}"
        else:
            assert score == max_score, f"{g}: lost points although only {grade_id} is wrong"


def test_feedback_and_export(course):
    out, released, (lesson, _) = course
    _nbgrader(out, "generate_feedback", lesson, "--force")
    html = list((out / "feedback").rglob("*.html"))
    assert {p.parts[-3] for p in html} >= {"untouched", "reference", "typo"}
    _nbgrader(out, "export")
    rows = list(csv.DictReader(open(out / "grades.csv")))
    ref = [r for r in rows if r["student_id"] == "reference" and r["assignment"] == lesson]
    assert ref and float(ref[0]["raw_score"]) == float(ref[0]["max_score"]) > 0
    assert re.fullmatch(r"lesson\d\d", lesson)

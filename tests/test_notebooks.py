"""Static checks of the committed notebooks (nbval executes them separately)."""
import pathlib
import re
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))
import update_nav  # noqa: E402


def code_cells(path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_there_are_lessons():
    names = [p.name for p in NOTEBOOKS]
    assert "00_start_here.ipynb" in names
    assert "01_metric_spaces_and_n_squared.ipynb" in names


def test_navigation_links_are_current():
    stale = update_nav.update(check=True)
    assert not stale, f"run `python tools/update_nav.py`: stale links in {stale}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_executed_and_clean(path):
    cells = code_cells(path)
    assert "%matplotlib inline" in cells[0].source, "the first code cell must say %matplotlib inline"
    counts = [c.execution_count for c in cells]
    assert all(counts), "every code cell must have been run before committing"
    assert counts == sorted(counts), "cells must have been run top to bottom (Restart & Run All)"
    for i, c in enumerate(cells):
        for out in c.outputs:
            assert out.output_type != "error", f"code cell {i} stored an error: {out.get('ename')}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_are_marked_and_checked(path):
    cells = code_cells(path)
    for i, c in enumerate(cells):
        begins, ends = c.source.count("### BEGIN SOLUTION"), c.source.count("### END SOLUTION")
        assert begins == ends, f"code cell {i}: BEGIN/END SOLUTION markers do not pair up"
        if begins:
            follower = cells[i + 1].source if i + 1 < len(cells) else ""
            assert "lessons_lib.checks" in follower and "check_" in follower, (
                f"code cell {i} is an exercise; the next code cell must call a check from lessons_lib.checks"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_opens_with_objectives_and_ends_with_recap(path):
    md = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]
    assert md[0].startswith("# "), "the first cell is the lesson's title"
    assert any("you will" in src.lower() for src in md[:4]), "the lesson opens with its objectives ('You will ...')"
    assert any(re.search(r"^## Recap", src, flags=re.M) for src in md), "the lesson ends with a '## Recap' section"
    assert md[1].startswith("<!-- nav -->") and md[-1].startswith("<!-- nav -->"), "nav cells after the title and at the end"

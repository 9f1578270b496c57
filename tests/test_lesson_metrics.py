"""Every lesson's core path fits the time it states, and every figure can be read.

The measures are those of ``tools/lesson_metrics.py`` (its docstring gives the
reading-time model): a core path of at most 60 minutes, a stated time within 20 % of
the model's, core paragraphs of at most 150 words, exercise headings with stars and
minutes, figures of at least 480 x 240 pixels and at most 3:1, a still for every widget.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("lesson_metrics", ROOT / "tools" / "lesson_metrics.py")
metrics = importlib.util.module_from_spec(_spec)
sys.modules["lesson_metrics"] = metrics
_spec.loader.exec_module(metrics)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_lesson_fits_its_time_and_figures_are_readable(path):
    problems = metrics.measure(path).problems()
    assert not problems, "\n".join(problems)


def test_model_counts_what_it_says():
    assert metrics.words("A box [0, 1.5] touches 2,000 others.") == 7
    assert metrics.png_size("iVBORw0KGgoAAAANSUhEUgAAAeAAAADwCAYAAAA=") == (480, 240)

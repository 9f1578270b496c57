"""Lesson 15's cost model: fitted to one run, checked on the others, and the floor no schedule can beat."""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib.data import load_results
from lessons_lib.labs import partitioned as lab

PHASES = {"sample": np.array([0.3, 0.2, 0.25]), "chunk": np.array([1.0, 0.5, 0.8]),
          "partition": np.array([0.4, 0.1, 0.1, 0.2, 0.3])}
TOTAL = sum(v.sum() for v in PHASES.values())


def test_one_worker_model_is_the_sum_of_the_parts():
    t = lab.model_time(1, PHASES, fit_s=0.05, n_tasks=11, per_task_s=0.01)
    assert t == pytest.approx(0.05 + TOTAL + 0.11)


def test_fitted_cost_reproduces_the_run_it_was_fitted_on():
    wall = 5.0
    c = lab.fitted_task_cost(wall, PHASES, fit_s=0.05, n_tasks=11)
    assert lab.model_time(1, PHASES, fit_s=0.05, n_tasks=11, per_task_s=c) == pytest.approx(wall)
    assert lab.effective_workers(wall, PHASES, fit_s=0.05, n_tasks=11, per_task_s=c) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        lab.fitted_task_cost(wall, PHASES, fit_s=0.05, n_tasks=0)


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 8, 100])
def test_floor_is_never_above_the_scheduled_time(workers):
    floor = lab.time_floor(workers, PHASES, fit_s=0.05)
    assert floor <= lab.model_time(workers, PHASES, fit_s=0.05, n_tasks=11, per_task_s=0.0) + 1e-12
    longest = 0.05 + sum(v.max() for v in PHASES.values())
    assert floor >= longest - 1e-12


def test_floor_on_one_worker_and_on_many():
    assert lab.time_floor(1, PHASES, fit_s=0.05) == pytest.approx(0.05 + TOTAL)
    assert lab.time_floor(1000, PHASES, fit_s=0.05) == pytest.approx(0.05 + 0.3 + 1.0 + 0.4)


def test_effective_workers_refuses_a_run_with_no_time_left():
    with pytest.raises(ValueError):
        lab.effective_workers(1.0, PHASES, fit_s=0.5, n_tasks=11, per_task_s=0.1)


def test_model_check_on_the_stored_runs():
    runs, tasks = load_results("partitioned_runs"), load_results("partitioned_tasks")
    rows = lab.model_check(runs, tasks)
    assert [r["run"] for r in rows][0] == "cluster-1"
    assert rows[0]["error"] == pytest.approx(0.0, abs=1e-9)
    assert rows[0]["effective_workers"] == pytest.approx(1.0)
    for r in rows:
        assert r["model_s"] > 0 and np.isfinite(r["error"]) and r["effective_workers"] > 0
    with pytest.raises(ValueError):
        lab.phase_seconds(tasks, "no-such-run")

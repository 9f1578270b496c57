"""Tests of lessons_lib.core.jit: plain Python (LESSONS_JIT=0) gives exactly the compiled results."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lessons_lib
from lessons_lib import JIT_ENABLED, STRUCTURES, jit_status, make_scene
from lessons_lib.core.jit import njit

ROOT = Path(__file__).resolve().parents[1]

#: Small scenes every structure is run on, in and out of process.
CASES = [("random", 120, 0), ("clustered", 120, 1), ("xline", 60, 2), ("mixed_sizes", 150, 3), ("true_uniform", 49, 0)]
QUERIES = [[0, 0, 800, 600], [100, 100, 250, 250], [400, 300, 400, 300], [-1e6, -1e6, -1e6 + 1, -1e6 + 1]]

# The work compared in and out of process: build a structure on a case (bulk load,
# queries, nearest neighbours for the trees, then removes, updates, an insert and a cleanup) and return plain lists.
RUNNER = textwrap.dedent(
    """
    from lessons_lib import make_scene

    def run(cls, scene, n, seed, queries):
        boxes = make_scene(scene, n, seed=seed)
        bp = cls.from_boxes(boxes)
        out = {"pairs": bp.pairs().tolist(), "queries": [bp.query(q).tolist() for q in queries]}
        if hasattr(bp, "nearest"):  # the trees: k nearest, in the scene and across the float range
            out["nearest"] = [a.tolist() for a in bp.nearest(boxes[:5, :2], 3)]
            far = cls.from_boxes([[-1.7e308, 0, -1.7e308, 0], [0, 0, 1, 1]])
            out["nearest_far"] = [a.tolist() for a in far.nearest([[1.7e308, 0.0]], 2)]
        for i in range(0, n, 3):
            bp.remove(i)
        for i in range(1, n, 3):
            x0, y0, x1, y1 = boxes[i]
            bp.update(i, [x0 + 7, y0 - 5, x1 + 7, y1 - 5])
        bp.insert(10**6, [0, 0, 800, 600])
        bp.cleanup()
        out["after"] = bp.pairs().tolist()
        out["after_queries"] = [bp.query(q).tolist() for q in queries]
        return out
    """
)

# Runs in a fresh interpreter and prints every structure's answers as JSON.
SCRIPT = RUNNER + textwrap.dedent(
    """
    import json, sys
    import lessons_lib
    from lessons_lib import STRUCTURES

    assert lessons_lib.JIT_ENABLED is False, "LESSONS_JIT=0 did not disable numba"
    cases, queries = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    print(json.dumps({
        "jit_enabled": lessons_lib.JIT_ENABLED,
        "status": lessons_lib.jit_status(),
        "structures": sorted(STRUCTURES),
        "results": {
            name: {f"{s}-{n}-{seed}": run(cls, s, n, seed, queries) for s, n, seed in cases}
            for name, cls in sorted(STRUCTURES.items())
        },
    }))
    """
)


def in_process_run():
    namespace: dict = {}
    exec(RUNNER, namespace)
    return namespace["run"]


def run_plain_python() -> dict:
    env = dict(os.environ)
    env["LESSONS_JIT"] = "0"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(CASES), json.dumps(QUERIES)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def plain_python() -> dict:
    return run_plain_python()


def test_subprocess_runs_without_jit(plain_python):
    assert plain_python["jit_enabled"] is False
    assert plain_python["status"] == "kernels run as plain Python (LESSONS_JIT=0)"
    assert plain_python["structures"] == sorted(STRUCTURES)


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_plain_python_equals_in_process(plain_python, name):
    """Same pairs and queries, element for element, with and without numba."""
    assert name in plain_python["results"], (
        f"{name!r} is not registered in a fresh interpreter: is its module imported by lessons_lib/__init__.py?"
    )
    run = in_process_run()
    for scene, n, seed in CASES:
        key = f"{scene}-{n}-{seed}"
        here = json.loads(json.dumps(run(STRUCTURES[name], scene, n, seed, QUERIES)))
        assert here == plain_python["results"][name][key], (name, key)


def test_results_are_not_trivial(plain_python):
    """Guard against comparing empty answers: the cases do produce pairs."""
    res = plain_python["results"]["brute_force"]
    assert all(len(r["pairs"]) > 0 for r in res.values())


def test_switch_spellings_and_plain_njit():
    """One interpreter re-reads LESSONS_JIT by reloading lessons_lib.core.jit (never done in process)."""
    code = textwrap.dedent(
        """
        import importlib, os
        import lessons_lib.core.jit as jit

        def f(x):
            return x + 1

        for value in ["0", "false", "No", " off ", "OFF"]:
            os.environ["LESSONS_JIT"] = value
            importlib.reload(jit)
            assert jit.JIT_ENABLED is False, value
            assert jit.njit(f) is f and jit.njit(cache=False)(f) is f, value
            assert jit.jit_status() == "kernels run as plain Python (LESSONS_JIT=0)", value
        for value in ["1", "yes", ""]:
            os.environ["LESSONS_JIT"] = value
            importlib.reload(jit)
            assert jit.JIT_ENABLED is True, value
            assert "numba" in jit.jit_status(), value
        print("ok")
        """
    )
    env = dict(os.environ)
    env.pop("LESSONS_JIT", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


# --------------------------------------------------------------------------
# In process
# --------------------------------------------------------------------------
def test_jit_status_is_a_line():
    s = jit_status()
    assert isinstance(s, str) and s and "\n" not in s
    assert isinstance(JIT_ENABLED, bool)
    assert lessons_lib.JIT_ENABLED is JIT_ENABLED
    if JIT_ENABLED:
        import numba

        assert numba.__version__ in s
    else:
        assert "plain Python" in s


def _add(a, b):
    return a + b


def test_njit_bare_and_with_options():
    f = njit(_add)
    g = njit(nogil=True)(_add)
    assert f(2, 3) == 5 and g(2.5, 0.5) == 3.0
    if not JIT_ENABLED:
        assert f is _add and g is _add


def test_njit_kernel_over_arrays():
    @njit(cache=False)
    def total_area(boxes):
        s = 0.0
        for i in range(boxes.shape[0]):
            s += (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
        return s

    boxes = make_scene("random", 100)
    expected = float(np.sum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])))
    assert total_area(boxes) == pytest.approx(expected, rel=1e-12)

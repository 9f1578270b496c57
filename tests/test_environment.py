"""pyproject.toml and environment.yml must list the same packages (pip and conda/Binder users)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IGNORED = {"python", "pip"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    """PEP 503 normalisation: case-insensitive, runs of '-', '_', '.' are equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def split_requirement(req: str) -> tuple[str, str]:
    """``"numpy>=1.26"`` -> ``("numpy", ">=1.26")``; extras and markers are dropped."""
    req = req.split(";", 1)[0].strip()
    m = _NAME.match(req)
    assert m, f"cannot read a package name from {req!r}"
    rest = re.sub(r"^\[[^\]]*\]", "", req[m.end() :]).strip()
    return canonical(m.group(1)), rest.replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    reqs = list(data["project"]["dependencies"]) + list(data["project"]["optional-dependencies"]["dev"])
    return dict(split_requirement(r) for r in reqs)


def parse_environment_yml(text: str) -> tuple[list[str], list[str]]:
    """The conda and pip entries of ``dependencies:``, read without a YAML library.

    Handles the subset environment files use: block lists of plain strings,
    comments, and one nested ``- pip:`` list.
    """
    conda: list[str] = []
    pip: list[str] = []
    in_deps = False
    dep_indent = None
    pip_indent = None
    for raw in text.splitlines():
        line = re.sub(r"\s+#.*$", "", raw).rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            in_deps = line.strip() == "dependencies:"
            dep_indent = pip_indent = None
            continue
        if not in_deps:
            continue
        m = re.match(r"^(\s*)-\s*(.*)$", line)
        assert m, f"unexpected line in dependencies: {raw!r}"
        item_indent, item = len(m.group(1)), m.group(2).strip().strip("'\"")
        if dep_indent is None:
            dep_indent = item_indent
        if pip_indent is not None and item_indent > pip_indent:
            pip.append(item)
            continue
        pip_indent = None
        assert item_indent == dep_indent, f"unexpected nesting: {raw!r}"
        if item == "pip:":
            pip_indent = item_indent
        else:
            conda.append(item)
    return conda, pip


def environment_requirements() -> tuple[dict[str, str], list[str]]:
    conda, pip = parse_environment_yml((ROOT / "environment.yml").read_text(encoding="utf-8"))
    reqs = dict(split_requirement(r) for r in conda)
    pip_rest = [p for p in pip if p.replace(" ", "") != "-e."]
    reqs.update(split_requirement(p) for p in pip_rest)
    return {k: v for k, v in reqs.items() if k not in IGNORED}, pip


def test_same_packages():
    py = pyproject_requirements()
    env, _ = environment_requirements()
    only_py = sorted(set(py) - set(env))
    only_env = sorted(set(env) - set(py))
    assert not only_py and not only_env, f"only in pyproject.toml: {only_py}; only in environment.yml: {only_env}"


def test_same_version_bounds():
    py = pyproject_requirements()
    env, _ = environment_requirements()
    differ = {k: (py[k], env[k]) for k in set(py) & set(env) if py[k] != env[k]}
    assert not differ, f"version bounds differ (pyproject, environment.yml): {differ}"


def test_environment_installs_the_project_itself():
    _, pip = environment_requirements()
    assert "-e ." in pip


def test_lists_are_not_empty():
    """A parser that silently finds nothing would make the comparison vacuous."""
    py = pyproject_requirements()
    env, _ = environment_requirements()
    assert {"numpy", "numba", "pytest", "hypothesis"} <= set(py)
    assert len(env) == len(py) >= 8


def test_python_versions_agree():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    conda, _ = parse_environment_yml((ROOT / "environment.yml").read_text(encoding="utf-8"))
    py_spec = dict(split_requirement(r) for r in conda).get("python")
    assert py_spec == data["project"]["requires-python"].replace(" ", "")


def test_simple_parser_on_a_sample():
    sample = """
name: demo  # a comment
channels:
  - conda-forge
dependencies:
  - python>=3.11
  - numpy >=1.26   # spaces and a comment
  - "scikit_learn"
  # a commented line
  - pip
  - pip:
      - -e .
      - some-pip-only>=2
other: x
"""
    conda, pip = parse_environment_yml(sample)
    assert conda == ["python>=3.11", "numpy >=1.26", "scikit_learn", "pip"]
    assert pip == ["-e .", "some-pip-only>=2"]
    assert split_requirement("numpy >=1.26") == ("numpy", ">=1.26")
    assert split_requirement("scikit_learn") == ("scikit-learn", "")
    assert split_requirement("Foo.Bar[extra]>=1; python_version<'4'") == ("foo-bar", ">=1")


def test_simple_parser_agrees_with_yaml():
    """Where PyYAML happens to be installed (jupyter brings it), cross-check the simple parser."""
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    conda = [d for d in data["dependencies"] if isinstance(d, str)]
    pip = [p for d in data["dependencies"] if isinstance(d, dict) for p in d.get("pip", [])]
    assert (conda, pip) == parse_environment_yml(text)

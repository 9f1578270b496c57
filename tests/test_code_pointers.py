"""Every pointer into the code that a student or a reader can follow resolves.

Lessons, ``TEACHING.md``, ``README.md`` and the library's own docstrings name code in three ways;
each is checked here against the code as it is (a rename or a move that forgets one fails):

* a dotted name ``lessons_lib.<module>[.<attribute>...]`` (prose, imports, Sphinx roles such as
  ``:func:`~lessons_lib.structures.quad_nodes.merge_limit```): the longest prefix that is a module
  is imported and the rest is looked up attribute by attribute;
* an import ``from lessons_lib.<module> import a, b`` (code cells, examples in prose): each name
  is an attribute of that module (a lesson whose import breaks after a move fails here, with the
  name, before its cells are run);
* a file path ``lessons_lib/.../x.py`` (also under ``benchmarks/``, ``tools/``, ``tests/``): the
  file exists;
* inside a library module, a short Sphinx reference without a dot (``:func:`insert```,
  ``:meth:`cleanup```): the module, or a class it defines or imports, has that name, or the
  module's code sets it as an instance attribute (``self.nodes = ...``).
"""
from __future__ import annotations

import builtins
import importlib
import json
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PROSE = sorted(REPO.glob("notebooks/*.ipynb")) + [REPO / "TEACHING.md", REPO / "README.md"]
CODE = sorted(p for p in REPO.glob("lessons_lib/**/*.py")) + sorted(REPO.glob("benchmarks/*.py"))

DOTTED = re.compile(r"\blessons_lib(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
PATH = re.compile(r"\b(?:lessons_lib|benchmarks|tools|tests)/[A-Za-z0-9_/]+\.py\b")
IMPORT = re.compile(r"^\s*(?:>>>\s*)?from\s+(lessons_lib(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s+import\s+"
                    r"(\([^)]*\)|[^\n#]+)", re.M)
SELF_ATTRIBUTE = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]+)?=(?!=)")
SHORT_ROLE = re.compile(r":(?:func|class|data|meth|attr|obj):`~?([A-Za-z_][A-Za-z0-9_]*)`")


def _text(path: pathlib.Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c["source"]) for c in cells)
    return path.read_text()


def resolves(dotted: str) -> bool:
    """True when ``dotted`` names a module, or an attribute reachable from the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def imported_names(clause: str) -> list[str]:
    """The names an import clause takes: ``(a, b as c,\n d)`` -> ``["a", "b", "d"]`` (``*`` is skipped)."""
    names = clause.strip().strip("()").replace("\\", " ").split(",")
    return [n.split()[0] for n in names if n.strip() and n.split()[0] != "*"]


def _rel(path: pathlib.Path) -> str:
    return str(path.relative_to(REPO))


@pytest.mark.parametrize("path", PROSE + CODE, ids=_rel)
def test_dotted_names_and_paths_resolve(path):
    text = _text(path)
    broken = sorted({m for m in DOTTED.findall(text) if not resolves(m)})
    broken += sorted({m for m in PATH.findall(text) if not (REPO / m).exists()})
    broken += sorted({f"{module}.{name}" for module, names in IMPORT.findall(text)
                      for name in imported_names(names) if not resolves(f"{module}.{name}")})
    assert not broken, f"{_rel(path)} points to code that is not there: {broken}"


@pytest.mark.parametrize("path", [p for p in CODE if p.parts[len(REPO.parts)] == "lessons_lib"], ids=_rel)
def test_short_references_name_something_in_the_module(path):
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    module = importlib.import_module(".".join(parts))
    source = path.read_text()
    known = set(dir(module)) | set(dir(builtins)) | set(SELF_ATTRIBUTE.findall(source))
    for value in vars(module).values():
        if isinstance(value, type):
            known |= set(dir(value))
    broken = sorted({name for name in SHORT_ROLE.findall(source) if name not in known})
    assert not broken, f"{_rel(path)}: short references to names the module does not have: {broken}"


def test_the_rules_catch_a_broken_pointer():
    assert resolves("lessons_lib.core.boxes.XMIN")
    assert resolves("lessons_lib.structures")
    assert not resolves("lessons_lib.core.boxes.no_such_name")
    assert not resolves("lessons_lib.no_such_module")
    found = IMPORT.findall("from lessons_lib.core.boxes import (XMIN,\n    YMAX as top)  # x\n"
                           "    >>> from lessons_lib import make_scene\n")
    assert [(m, imported_names(n)) for m, n in found] == [("lessons_lib.core.boxes", ["XMIN", "YMAX"]),
                                                           ("lessons_lib", ["make_scene"])]

"""Every module of ``lessons_lib`` says what it offers, and the package keeps to it.

Read from the sources with ``ast`` (nothing is imported, so ``__main__`` modules are read too),
over every module ``pkgutil.walk_packages`` finds in ``lessons_lib``, none skipped:

* every public top-level function or class a module defines is listed in its ``__all__``,
  or its name starts with an underscore (deliberately private);
* every ``from .x import name`` / ``from ..x.y import name`` / ``from lessons_lib.x import name``
  inside the package takes either a submodule or a name the module ``x`` lists in its
  ``__all__``.

``KNOWN_REMAINING`` lists the modules that still break one of these rules; it may only shrink
(a module listed here that passes fails the test, so the list stays true).
"""
from __future__ import annotations

import ast
import pathlib
import pkgutil

import pytest

import lessons_lib

ROOT = pathlib.Path(lessons_lib.__file__).resolve().parent

#: Modules that break a rule today, each with the reason it is not yet fixed.
KNOWN_REMAINING: dict[str, str] = {}


def _modules() -> dict[str, pathlib.Path]:
    """Every module of the package by dotted name, with its source file."""
    out = {"lessons_lib": ROOT / "__init__.py"}
    for info in pkgutil.walk_packages([str(ROOT)], prefix="lessons_lib."):
        base = ROOT.joinpath(*info.name.split(".")[1:])
        out[info.name] = base / "__init__.py" if info.ispkg else base.with_suffix(".py")
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(), filename=str(path)) for name, path in MODULES.items()}


def _all(tree: ast.Module) -> set[str] | None:
    """The names a module's ``__all__`` lists (a literal list or tuple, possibly extended with ``+=``)."""
    names = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names = set(ast.literal_eval(node.value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            names = set(ast.literal_eval(node.value))
        elif (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
              and node.target.id == "__all__"):
            names = (names or set()) | set(ast.literal_eval(node.value))
    return names


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _absolute(here: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = here.split(".")
    if not _is_package(here):
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def unlisted_definitions(name: str) -> list[str]:
    """Public top-level functions and classes of module ``name`` missing from its ``__all__``."""
    tree = TREES[name]
    listed = _all(tree) or set()
    return [f"{name}:{node.lineno}: defines {node.name} but __all__ leaves it out"
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not node.name.startswith("_") and node.name not in listed]


def unexported_imports(name: str) -> list[str]:
    """Imports in module ``name`` of a package name that its module does not list in ``__all__``."""
    bad = []
    for node in ast.walk(TREES[name]):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = _absolute(name, node)
        if source not in MODULES:
            continue
        exported = _all(TREES[source]) or set()
        for alias in node.names:
            if f"{source}.{alias.name}" in MODULES or alias.name in exported:
                continue
            bad.append(f"{name}:{node.lineno}: imports {alias.name} from {source}, whose __all__ leaves it out")
    return bad


def _problems(name: str) -> list[str]:
    return unlisted_definitions(name) + unexported_imports(name)


def test_every_module_is_walked():
    assert "lessons_lib.structures.quadtree" in MODULES
    assert "lessons_lib.core.boxes" in MODULES
    assert len(MODULES) > 50, sorted(MODULES)


@pytest.mark.parametrize("name", sorted(set(MODULES) - set(KNOWN_REMAINING)))
def test_module_keeps_to_its_exports(name):
    problems = _problems(name)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sorted(KNOWN_REMAINING))
def test_known_remaining_still_needs_work(name):
    assert name in MODULES, f"{name} is listed in KNOWN_REMAINING but no longer exists"
    assert _problems(name), f"{name} now keeps to its exports: remove it from KNOWN_REMAINING"


def test_rules_catch_what_they_should():
    """The two rules, on a small made-up module pair."""
    src = ast.parse("__all__ = ['a']\ndef a(): pass\ndef b(): pass\ndef _c(): pass\nclass D: pass\n")
    TREES["lessons_lib._fake_x"], MODULES["lessons_lib._fake_x"] = src, ROOT / "_fake_x.py"
    TREES["lessons_lib._fake_y"] = ast.parse("from ._fake_x import a, b\nfrom . import core\n__all__ = []\n")
    MODULES["lessons_lib._fake_y"] = ROOT / "_fake_y.py"
    try:
        assert [m.split(": ")[1] for m in unlisted_definitions("lessons_lib._fake_x")] == [
            "defines b but __all__ leaves it out", "defines D but __all__ leaves it out"]
        assert len(unexported_imports("lessons_lib._fake_y")) == 1
        assert "imports b from" in unexported_imports("lessons_lib._fake_y")[0]
    finally:
        for key in ("lessons_lib._fake_x", "lessons_lib._fake_y"):
            TREES.pop(key), MODULES.pop(key)

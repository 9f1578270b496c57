"""The library's layout rules, read from the source (ast), not from a convention.

* ``lessons_lib/structures`` and ``lessons_lib/core`` never import drawing, widgets,
  lesson helpers (``labs``), checks or the benchmark harness; ``core`` imports no
  structure either.
* Nothing in ``lessons_lib`` imports the course's goal files (``benchmarks/``).
* No module imports another module's ``_private`` name, or reads one as
  ``module._name`` (library, benchmarks, tools and tests alike).
* Notebook code cells use public names only.
"""
from __future__ import annotations

import ast
import importlib
import json
import re
import pathlib
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "lessons_lib"

#: What the lowest layers must never import (module prefixes, absolute).
FORBIDDEN_BELOW = ("lessons_lib.viz", "lessons_lib.widgets", "lessons_lib.labs", "lessons_lib.checks",
                   "lessons_lib.bench", "benchmarks", "matplotlib", "ipywidgets", "IPython")


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_package(path: pathlib.Path) -> bool:
    return path.name == "__init__.py"


def _absolute(path: pathlib.Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` reads from."""
    if node.level == 0:
        return node.module or ""
    base = _module_name(path).split(".")
    if not _is_package(path):
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: pathlib.Path):
    """Yield ``(lineno, absolute module, imported name or None)`` for every import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, None
        elif isinstance(node, ast.ImportFrom):
            mod = _absolute(path, node)
            for a in node.names:
                yield node.lineno, mod, a.name


def _py_files(*folders: str) -> list[pathlib.Path]:
    return sorted(p for d in folders for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def _targets(mod: str, name: str | None) -> list[str]:
    """The modules an import touches: ``from a import b`` touches ``a`` and ``a.b``."""
    return [mod] + ([f"{mod}.{name}"] if name else [])


def _hits(mod: str, prefixes) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("folder", ["lessons_lib/structures", "lessons_lib/core"])
def test_lowest_layers_import_nothing_above_them(folder):
    forbidden = FORBIDDEN_BELOW + (("lessons_lib.structures",) if folder.endswith("core") else ())
    bad = [f"{p.relative_to(ROOT)}:{line}: imports {mod}{'.' + name if name else ''}"
           for p in _py_files(folder) for line, mod, name in _imports(p)
           if any(_hits(t, forbidden) for t in _targets(mod, name))]
    assert not bad, "\n".join(bad)


def test_library_never_imports_the_goals():
    bad = [f"{p.relative_to(ROOT)}:{line}: imports {mod}" for p in _py_files("lessons_lib")
           for line, mod, _ in _imports(p) if _hits(mod, ("benchmarks",))]
    assert not bad, "\n".join(bad)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    here = _module_name(path)
    out = []
    module_aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = _absolute(path, node)
            for a in node.names:
                if _is_private(a.name) and mod != here:
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {mod} import {a.name}")
                if any(_is_private(part) for part in mod.split(".")):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports the private module {mod}")
                module_aliases[a.asname or a.name] = f"{mod}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                module_aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _is_private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases):
            target = module_aliases[node.value.id]
            try:
                obj = importlib.import_module(target)
            except ImportError:
                continue
            if isinstance(obj, types.ModuleType):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads {target}.{node.attr}")
    return out


def test_no_private_names_across_modules():
    bad = [hit for p in _py_files("lessons_lib", "benchmarks", "tools", "tests") for hit in _private_uses(p)]
    assert not bad, "\n".join(bad)


def _notebook_code(path: pathlib.Path):
    nb = json.loads(path.read_text())
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            src = "".join(cell["source"])
            # IPython magics and shell lines are not Python
            yield k, "\n".join("" if re.match(r"\s*(%|!(?!=))", line) else line for line in src.splitlines())


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_use_public_names_only(path):
    bad = []
    for k, src in _notebook_code(path):
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom):
                bad += [f"cell {k}: from {node.module} import {a.name}" for a in node.names if _is_private(a.name)]
                if node.module and any(_is_private(part) for part in node.module.split(".")):
                    bad.append(f"cell {k}: imports the private module {node.module}")
            elif isinstance(node, ast.Attribute) and _is_private(node.attr):
                bad.append(f"cell {k}: uses .{node.attr}")
    assert not bad, f"{path.name}:\n" + "\n".join(bad)

"""Citations resolve: every ``[Key]`` cited in the library, lessons and docs is in lessons_lib.sources,
and no file names a copy of a source that readers do not have."""
from __future__ import annotations

import json
import pathlib
import re
import subprocess

import pytest

from lessons_lib.sources import SOURCES, cite, sources_list

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: How a citation looks: [Guttman1984], [SO-quadtree], [magley-code] (a markdown link "[text](url)" is not one).
CITATION = re.compile(r"\[([A-Z][A-Za-z]+\d{4}[a-z]?|[A-Za-z]+-[a-z]+(?:-[a-z]+)?)\](?!\()")
#: The file names of the copies of the sources the course was written from.
SEED_NAME = re.compile(r"\b00\d_[0-9a-f]{16}\b|seeds?/00\d")


def _tracked_text_files() -> list[pathlib.Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    keep = (".py", ".md", ".ipynb", ".txt", ".csv", ".cfg", ".toml", ".yml", ".json")
    return [ROOT / p for p in out if p.endswith(keep) and (ROOT / p).is_file()
            and not p.startswith("data/natural_earth/")]


def _text(path: pathlib.Path) -> str:
    text = path.read_text(errors="replace")
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        return "\n".join("".join(c["source"]) for c in nb["cells"])
    return text


def test_no_file_names_a_seed_copy():
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _tracked_text_files() if p.name != "test_sources.py"
           for m in SEED_NAME.finditer(p.read_text(errors="replace"))]
    assert not bad, "cite sources by key (lessons_lib.sources), not by file name:\n" + "\n".join(bad[:30])


def test_every_citation_resolves():
    bad = []
    for p in _tracked_text_files():
        rel = p.relative_to(ROOT).as_posix()
        if p.suffix not in (".py", ".md", ".ipynb") or rel.startswith(("tests/", "tools/")):
            continue
        for m in CITATION.finditer(_text(p)):
            if m.group(1) not in SOURCES:
                bad.append(f"{p.relative_to(ROOT)}: [{m.group(1)}]")
    assert not bad, "unknown source keys:\n" + "\n".join(sorted(set(bad)))


def test_cite_and_list():
    assert cite("Guttman1984").startswith("[Guttman1984] A. Guttman.")
    assert sources_list("SO-quadtree", "magley2026").count("\n") == 1
    with pytest.raises(KeyError, match="no source with key 'Nobody1999'"):
        cite("Nobody1999")
    for s in SOURCES.values():
        assert s.authors and s.title and s.year, s.key

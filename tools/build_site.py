"""Build the course as a static web site from the executed notebooks (Jupyter Book, offline).

    python tools/build_site.py [--out build/site]

Nothing is executed: the site shows the outputs committed with each lesson. The lessons
are copied into ``build/site_src/`` and prepared for reading without a kernel:

* each exercise's reference solution is hidden behind a toggle (the cell tag
  ``hide-input``: "Show code cell source"), and the Questions' answers stay in their
  collapsed "Answers" blocks;
* a live widget's view is dropped from its output, so the page shows the still stored
  beside it (every widget has one: tests/test_lesson_metrics.py);
* a page lists the sources the course cites (``lessons_lib.sources``).

The HTML lands in ``OUT/html/``; open ``OUT/html/index.html``, or publish that folder
as it is (any static host: GitHub Pages, a university web space).
"""
from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons_lib.sources import sources_list  # noqa: E402

WIDGET = "application/vnd.jupyter.widget-view+json"
BEGIN = "### BEGIN SOLUTION"

CONFIG = """\
title: "Broad-phase collision detection"
author: "the course's authors"
only_build_toc_files: true
execute:
  execute_notebooks: "off"
html:
  use_repository_button: false
  use_issues_button: false
  use_edit_page_button: false
  home_page_in_navbar: true
launch_buttons:
  notebook_interface: "classic"
  binderhub_url: ""
  thebe: false
sphinx:
  config:
    html_show_copyright: false
    suppress_warnings: ["mystnb.unknown_mime_type", "myst.header", "misc.highlighting_failure"]
    nb_merge_streams: true
"""


def _anchor(match) -> str:
    """A JupyterLab heading link (``#Heading-text``) as the id Sphinx gives that heading."""
    from docutils.nodes import make_id

    return f"](#{make_id(match.group(1).replace('-', ' '))})"


def prepare(nb):
    """A lesson ready to read without a kernel: solutions behind a toggle, widgets as their stills."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\(#([^)\s]+)\)", _anchor, cell.source)
        if cell.cell_type != "code":
            continue
        if BEGIN in cell.source:
            tags = cell.metadata.setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET, None)
    nb.metadata.pop("widgets", None)
    return nb


def write_source(src: pathlib.Path) -> list[str]:
    """Write the book's sources into ``src``; return the lesson file names in order."""
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    names = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = prepare(nbformat.read(path, as_version=4))
        nbformat.write(nb, src / path.name)
        names.append(path.name)
    (src / "sources.md").write_text("# Sources\n\nEvery work the course cites, by its key.\n\n" + sources_list() + "\n")
    toc = ["format: jb-book", f"root: {pathlib.Path(names[0]).stem}", "chapters:"]
    toc += [f"- file: {pathlib.Path(n).stem}" for n in names[1:]] + ["- file: sources"]
    (src / "_toc.yml").write_text("\n".join(toc) + "\n")
    (src / "_config.yml").write_text(CONFIG)
    return names


def build(out: pathlib.Path) -> pathlib.Path:
    """Build the site into ``out``; return the folder holding ``index.html``."""
    src = out.parent / (out.name + "_src")
    write_source(src)
    build_dir = out / "_jb"
    if build_dir.exists():  # pages of renamed or removed lessons must not linger
        shutil.rmtree(build_dir)
    jb = pathlib.Path(sys.executable).parent / "jupyter-book"
    cmd = [str(jb), "build", str(src), "--path-output", str(build_dir), "--all"]
    try:
        subprocess.run(cmd, check=True)
    except FileNotFoundError:  # pragma: no cover
        raise SystemExit("jupyter-book is missing: install the 'site' extra (make site does)")
    html = out / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(build_dir / "_build" / "html", html)
    return html


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "site"), help="output folder")
    args = parser.parse_args(argv)
    html = build(pathlib.Path(args.out).resolve())
    print(f"site built: open {html / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

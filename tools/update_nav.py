"""Regenerate the navigation cells of the course notebooks.

Every lesson notebook ``notebooks/NN_name.ipynb`` holds markdown cells whose
source starts with ``<!-- nav -->``: this script rewrites them as links to the
previous lesson, the contents (``00_start_here.ipynb``) and the next lesson. A
cell starting with ``<!-- contents -->`` (in ``00_start_here.ipynb``) becomes the
list of lessons. Titles come from each notebook's first ``# `` heading.

    python tools/update_nav.py            # rewrite the cells in place
    python tools/update_nav.py --check    # exit 1 if any cell is out of date

Only the marked cells are touched; outputs and other cells are left as they are.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

import nbformat

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
NAV, CONTENTS = "<!-- nav -->", "<!-- contents -->"


def lessons(folder: pathlib.Path = NOTEBOOKS) -> list[tuple[str, str]]:
    """(file name, title) of every numbered notebook, in reading order."""
    out = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        title = path.stem
        for cell in nb.cells:
            m = re.search(r"^# (.+)$", cell.source, flags=re.M) if cell.cell_type == "markdown" else None
            if m:
                title = m.group(1).strip()
                break
        out.append((path.name, title))
    return out


def nav_text(index: int, items: list[tuple[str, str]]) -> str:
    parts = []
    if index > 0:
        name, title = items[index - 1]
        parts.append(f"[← {title}]({name})")
    if index != 0:
        parts.append(f"[Contents]({items[0][0]})")
    if index + 1 < len(items):
        name, title = items[index + 1]
        parts.append(f"[{title} →]({name})")
    return NAV + "\n" + " · ".join(parts)


def contents_text(items: list[tuple[str, str]]) -> str:
    lines = [CONTENTS]
    lines += [f"- [{title}]({name})" for name, title in items]
    return "\n".join(lines)


def update(check: bool = False, folder: pathlib.Path = NOTEBOOKS) -> list[str]:
    """Rewrite (or, with ``check``, only compare) the marked cells; return stale notebook names."""
    items = lessons(folder)
    stale = []
    for i, (name, _) in enumerate(items):
        path = folder / name
        nb = nbformat.read(path, as_version=4)
        changed = False
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for marker, text in ((NAV, nav_text(i, items)), (CONTENTS, contents_text(items))):
                if cell.source.startswith(marker) and cell.source != text:
                    cell.source = text
                    changed = True
        if changed:
            stale.append(name)
            if not check:
                nbformat.write(nb, path)
    return stale


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report notebooks whose links are stale")
    args = parser.parse_args(argv)
    stale = update(check=args.check)
    if stale:
        verb = "out of date" if args.check else "updated"
        print(f"{verb}: {', '.join(stale)}")
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())

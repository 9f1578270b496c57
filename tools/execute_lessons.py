"""Re-execute lessons in place, as Restart & Run All would, and save them with their outputs.

    python tools/execute_lessons.py notebooks/05_efficient_quadtree.ipynb [...]
    python tools/execute_lessons.py --all

Notebooks are committed with their outputs (a reader without a kernel sees every figure and
still). This runs each in a fresh kernel from its own folder and writes it back, without the
per-cell timing metadata that would change on every run. ``make refresh-notebooks`` uses it.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent


def execute(path: pathlib.Path, *, write: bool = True, timeout: int = 1200) -> float:
    """Run ``path`` in a fresh kernel from its own folder; with ``write``, save it in place.

    Returns the seconds the run took (what a student's Restart & Run All takes).
    """
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    if write:
        for cell in nb.cells:
            cell.metadata.pop("execution", None)
        nbformat.write(nb, path)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path)
    parser.add_argument("--all", action="store_true", help="every lesson in notebooks/")
    args = parser.parse_args(argv)
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if args.all else args.notebooks
    for path in paths:
        print(f"{path.name}: {execute(path.resolve()):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

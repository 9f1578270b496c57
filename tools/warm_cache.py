"""Compile every numba kernel the lessons use, once, into the on-disk cache.

    python tools/warm_cache.py            # every lesson, with a progress bar
    python tools/warm_cache.py 09 10      # only lessons whose number is given

The library's kernels are compiled by numba the first time a lesson calls them
(``cache=True`` keeps the machine code on disk, beside the library's sources). Without
this step a student pays that wait lesson after lesson, up to a few minutes on a small
machine. This script runs every lesson's code once, headless (the outputs are thrown
away; the notebooks are not changed), so every kernel is compiled with exactly the
argument types the lessons use. ``make lab`` runs it once after installing, and again
only when the library's sources change; Binder runs it in ``postBuild``.

Prints each lesson's time; exit 1 if a lesson fails to run.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

from tqdm import tqdm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from execute_lessons import execute  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_lesson(path: pathlib.Path) -> float:
    """Execute one notebook headless in its own folder, without saving it; return the seconds it took."""
    return execute(path, write=False)


def lessons(numbers=()) -> list[pathlib.Path]:
    """The lesson notebooks, all or those whose two-digit number is in ``numbers``."""
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return [p for p in paths if not numbers or p.name[:2] in numbers]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="two-digit lesson numbers (default: every lesson)")
    args = parser.parse_args(argv)
    paths = lessons(args.lessons)
    print(f"Compiling the library's kernels for {len(paths)} lessons (once; a few minutes on a small machine)")
    failed = []
    bar = tqdm(paths, unit="lesson")
    for path in bar:
        bar.set_postfix_str(path.name[:2])
        try:
            seconds = run_lesson(path)
        except Exception as err:  # report every lesson, then fail
            failed.append(path.name)
            tqdm.write(f"{path.name}: FAILED: {type(err).__name__}: {str(err)[:300]}")
        else:
            tqdm.write(f"{path.name}: {seconds:.0f} s")
    if failed:
        print(f"{len(failed)} lessons failed to run: {', '.join(failed)}")
        return 1
    print("All kernels compiled; the lessons now start without waiting for the compiler.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

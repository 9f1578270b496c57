"""``python -m lessons_lib.bench``: the benchmark suites of lesson 12.

Every structure x scene x n, checked against a reference, beside the peers;
CSV files under data/results/ (see lessons_lib/bench/suites.py)::

    python -m lessons_lib.bench --suite article|scaled|dynamic|all [--max-n N]
        [--structures a,b] [--repeat R] [--budget SECONDS] [--frames F] [--no-save | --save]
        [--no-progress]

A partial run (--structures or --max-n) prints but does not overwrite the stored
files unless --save is given.

The exit code is 0 whatever the timings, and 1 when a lessons_lib structure
FAILED (reported a wrong pair).
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["SUITE_NAMES", "main"]

SUITE_NAMES = ("article", "scaled", "dynamic")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons_lib.bench",
                                     description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument("--suite", action="append", default=[],
                        help="run a suite: article, scaled, dynamic or all (repeatable, or comma-separated)")
    parser.add_argument("--max-n", type=int, default=None, help="largest n to run in the suites")
    parser.add_argument("--structures", default=None,
                        help="comma-separated registry names (default: every registered structure)")
    parser.add_argument("--repeat", type=int, default=None, help="repetitions per case (median kept)")
    parser.add_argument("--budget", type=float, default=None, help="seconds per case before it is skipped")
    parser.add_argument("--frames", type=int, default=None, help="frames per case of the dynamic suite")
    parser.add_argument("--no-save", action="store_true", help="do not write data/results/bench_<suite>.csv")
    parser.add_argument("--save", action="store_true",
                        help="write the CSV even for a partial run (--structures or --max-n), which by default "
                             "does not overwrite the stored full results")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    suites = []
    for item in args.suite:
        for name in item.split(","):
            name = name.strip()
            if name == "all":
                suites += list(SUITE_NAMES)
            elif name in SUITE_NAMES:
                suites.append(name)
            elif name:
                parser.error(f"unknown suite {name!r}; choose from {', '.join(SUITE_NAMES)} or all")
    suites = list(dict.fromkeys(suites))

    if args.list or not suites:
        print("suites: " + ", ".join(SUITE_NAMES) + " (run one with --suite NAME, or --suite all)")
        return 0

    from .suites import main_suites

    structures = None
    if args.structures:
        structures = [s.strip() for s in args.structures.split(",") if s.strip()]
    partial = bool(args.structures) or args.max_n is not None
    save = not args.no_save and (args.save or not partial)
    if partial and not save and not args.no_save:
        print("# a partial run (--structures or --max-n): results are not saved (add --save to save them)")
    command = "python -m lessons_lib.bench " + " ".join(argv if argv is not None else sys.argv[1:])
    failed = main_suites(suites, structures=structures, max_n=args.max_n, repeat=args.repeat,
                         budget=args.budget, frames=args.frames, save=save,
                         progress=not args.no_progress, command=command.strip())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

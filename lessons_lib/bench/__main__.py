"""``python -m lessons_lib.bench``: the speed and memory targets, and the benchmark suites.

Targets (each lesson's goals, printed as met / not met)::

    python -m lessons_lib.bench [--only TEXT] [--skip TEXT] [--list]

Suites (every structure x scene x n, checked against a reference, beside the
peers; CSV under data/results/; see lessons_lib/bench/suites.py)::

    python -m lessons_lib.bench --suite article|scaled|dynamic|all [--max-n N]
        [--structures a,b] [--repeat R] [--budget SECONDS] [--frames F] [--no-save | --save]
        [--no-progress] [--targets]

A partial run (--structures or --max-n) prints but does not overwrite the stored
files unless --save is given.

The exit code is 0 whatever the timings; with --suite it is 1 when a
lessons_lib structure FAILED (reported a wrong pair).
"""
from __future__ import annotations

import argparse
import datetime
import sys

from . import TARGETS, load_targets, machine_info

SUITE_NAMES = ("article", "scaled", "dynamic")


def run_targets(only: str = "", skip=()) -> int:
    """Run the registered targets whose name contains ``only`` and none of ``skip``; return goals missed."""
    load_targets()
    names = [n for n in TARGETS if only.lower() in n.lower() and not any(x.lower() in n.lower() for x in skip)]
    print(f"# lessons_lib benchmark, {datetime.date.today()}: {machine_info()}")
    missed = 0
    for name in names:
        print(f"\n## {name}", flush=True)
        for line in TARGETS[name]():
            print(line.row(), flush=True)
            missed += not line.ok
    print(f"\n{len(names)} targets run, {missed} goals missed")
    return missed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons_lib.bench",
                                     description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="run only targets whose name contains this text")
    parser.add_argument("--skip", action="append", default=[],
                        help="leave out targets whose name contains this text (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the targets (and suites) and exit")
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
    parser.add_argument("--targets", action="store_true", help="also run the targets after the suites")
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

    if args.list:
        load_targets()
        print("\n".join(n for n in TARGETS if args.only.lower() in n.lower()
                        and not any(x.lower() in n.lower() for x in args.skip)))
        print("\nsuites: " + ", ".join(SUITE_NAMES))
        return 0
    if not suites:
        run_targets(args.only, args.skip)
        return 0  # figures, not a test: timing never fails the run

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
    if args.targets:
        print()
        run_targets(args.only, args.skip)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

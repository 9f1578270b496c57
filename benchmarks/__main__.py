"""``python -m benchmarks``: the course's speed and memory goals, each printed as met / not met.

    python -m benchmarks [--only TEXT] [--skip TEXT] [--list]

Run from the repository root. The exit code is 0 whatever the timings: these
are figures, not tests.
"""
from __future__ import annotations

import argparse
import datetime
import sys

from lessons_lib.data import machine_info

from . import GOALS, load_goals


def run_goals(only: str = "", skip=()) -> int:
    """Run the goals whose name contains ``only`` and none of ``skip``; return how many were missed."""
    load_goals()
    names = [n for n in GOALS if only.lower() in n.lower() and not any(x.lower() in n.lower() for x in skip)]
    print(f"# course goals, {datetime.date.today()}: {machine_info()}")
    missed = 0
    for name in names:
        print(f"\n## {name}", flush=True)
        for line in GOALS[name]():
            print(line.row(), flush=True)
            missed += not line.ok
    print(f"\n{len(names)} goal groups run, {missed} goals missed")
    return missed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run only goals whose name contains this text")
    parser.add_argument("--skip", action="append", default=[],
                        help="leave out goals whose name contains this text (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the goals and exit")
    args = parser.parse_args(argv)
    if args.list:
        load_goals()
        print("\n".join(n for n in GOALS if args.only.lower() in n.lower()
                        and not any(x.lower() in n.lower() for x in args.skip)))
        return 0
    run_goals(args.only, args.skip)
    return 0


if __name__ == "__main__":
    sys.exit(main())

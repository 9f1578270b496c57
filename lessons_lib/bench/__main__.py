"""``python -m lessons_lib.bench [--only TEXT] [--list]``: run the speed and memory targets."""
from __future__ import annotations

import argparse
import datetime
import sys

from . import TARGETS, load_targets, machine_info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons_lib.bench", description=__doc__)
    parser.add_argument("--only", default="", help="run only targets whose name contains this text")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    args = parser.parse_args(argv)
    load_targets()
    names = [n for n in TARGETS if args.only.lower() in n.lower()]
    if args.list:
        print("\n".join(names))
        return 0
    print(f"# lessons_lib benchmark, {datetime.date.today()}: {machine_info()}")
    missed = 0
    for name in names:
        print(f"\n## {name}")
        for line in TARGETS[name]():
            print(line.row())
            missed += not line.ok
    print(f"\n{len(names)} targets run, {missed} goals missed")
    return 0  # figures, not a test: timing never fails the run


if __name__ == "__main__":
    sys.exit(main())

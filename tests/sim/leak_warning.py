#!/usr/bin/env python3
"""scripts/simulate warns where SimGrid's test leak (before 3.34) distorts a
run: nsr-agg or --model all with computation simulated; not for another
model, nor with --communication-only, nor with a SimGrid that has the fix.

    leak_warning.py SIMULATE
"""
import re
import subprocess
import sys
from pathlib import Path

WARNING = "simulate: warning: SimGrid"


def warned(simulate, *args):
    run = subprocess.run([simulate, "-np", "2", *args], capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        sys.exit(f"FAIL: simulate {' '.join(args)} exited {run.returncode}:\n{run.stderr}")
    return WARNING in run.stderr


def main():
    simulate = sys.argv[1]
    header = Path("/usr/include/simgrid/version.h").read_text()
    version = tuple(int(re.search(rf"define SIMGRID_VERSION_{part} (\d+)", header).group(1))
                    for part in ("MAJOR", "MINOR"))
    leaks = version < (3, 34)
    sssp = ["graphcomm", "sssp", "--scale", "5", "--roots", "2"]
    cases = [
        (sssp + ["--model", "nsr-agg"], leaks),
        (sssp + ["--model=all"], leaks),
        (["graphcomm", "match", "--graph", "rmat:5"], leaks),  # match's default: all
        (sssp + ["--model", "rma"], False),
        (["--communication-only"] + sssp + ["--model", "nsr-agg"], False),
    ]
    failures = [f"simulate {' '.join(args)}: warning {'missing' if want else 'unexpected'}"
                for args, want in cases if warned(simulate, *args) != want]
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print(f"OK: SimGrid {version[0]}.{version[1]}, {len(cases)} cases")


if __name__ == "__main__":
    main()

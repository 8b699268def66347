#!/usr/bin/env python3
"""An unmodified MPI program under LD_PRELOAD=libgraphcomm-nbr.so: its results
are the same as without (checksums of every buffer received), and the ranks
send fewer messages per call (the library reports what it combined).

    preload_test.py --program P --library L --ranks N -- LAUNCHER...
"""
import argparse
import re
import subprocess
import sys


def run(launcher, ranks, program, settings):
    # `env` sets the variables in the ranks only, not in the launcher.
    command = launcher + ["-np", str(ranks), "env"] + [f"{k}={v}" for k, v in settings.items()]
    proc = subprocess.run(command + [program], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {program} exited {proc.returncode}\n{proc.stderr[-3000:]}")
    return proc.stdout, proc.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("launcher", nargs="+")
    args = ap.parse_args()
    plain, _ = run(args.launcher, args.ranks, args.program, {})
    preloaded, report = run(args.launcher, args.ranks, args.program,
                            {"LD_PRELOAD": args.library, "GRAPHCOMM_NBR_REPORT": "1",
                             "GRAPHCOMM_NBR_K": "2"})
    if not plain.startswith("checksums:") or plain != preloaded:
        sys.exit(f"FAIL: results differ\nwithout: {plain}\nwith:    {preloaded}")
    lines = re.findall(r"graphcomm-nbr: rank (\d+): (\d+) combined calls, (\d+) messages per call "
                       r"\(library schedule: (\d+)\), (\d+) groups", report)
    if len(lines) != args.ranks:
        sys.exit(f"FAIL: expected a report from each of {args.ranks} ranks, got {len(lines)}\n"
                 f"{report[-3000:]}")
    calls = {int(l[1]) for l in lines}
    ours = sum(int(l[2]) for l in lines)
    library = sum(int(l[3]) for l in lines)
    # 5 rounds of allgather, ialltoall, alltoall (counts) and alltoallv.
    if calls != {20}:
        sys.exit(f"FAIL: combined calls per rank {sorted(calls)}, expected 20")
    if not ours < library:
        sys.exit(f"FAIL: {ours} messages per call over all ranks, not fewer than {library}")
    print(f"OK: same results; {ours} messages per call over all ranks instead of {library}")


if __name__ == "__main__":
    main()

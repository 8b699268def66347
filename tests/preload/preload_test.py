#!/usr/bin/env python3
"""An unmodified MPI program under LD_PRELOAD=libgraphcomm-nbr.so: its results
are the same as without (checksums of every buffer received), and the ranks
send fewer messages per call (the library reports what it combined). With
GRAPHCOMM_NBR_COMBINE=auto, over two made-up calibrations: where messages
cost and bytes do not, every call is combined; where the second hop costs,
none is (the results still the same); without a calibration, or with a bad
setting, one error line and a non-zero exit. Where no group can form (a
threshold above any rank's neighbours), rank 0 says so in one line and the
results are the same.

    preload_test.py --program P --library L --ranks N -- LAUNCHER...
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPORT = re.compile(r"graphcomm-nbr: rank (\d+): (\d+) combined calls, (\d+) messages per call "
                    r"\(library schedule: (\d+)\), (\d+) groups joined(?:; auto: (\d+) calls "
                    r"left to the library)?")


def run(launcher, ranks, program, settings, fails=False):
    # `env` sets the variables in the ranks only, not in the launcher.
    command = launcher + ["-np", str(ranks), "env"] + [f"{k}={v}" for k, v in settings.items()]
    proc = subprocess.run(command + [program], capture_output=True, text=True, timeout=300)
    if fails:
        return proc
    if proc.returncode != 0:
        sys.exit(f"FAIL: {program} exited {proc.returncode}\n{proc.stderr[-3000:]}")
    return proc.stdout, proc.stderr

NO_GROUP = re.compile(r"graphcomm-nbr: no group forms on this communicator \((\d+) ranks\): its "
                      r"calls are the library's own")


def check_no_group(args, plain):
    out, report = run(args.launcher, args.ranks, args.program,
                      {"LD_PRELOAD": args.library, "GRAPHCOMM_NBR_REPORT": "1",
                       "GRAPHCOMM_NBR_THETA": "1000"})
    if out != plain:
        sys.exit(f"FAIL: no group: results differ\nwithout: {plain}\nwith:    {out}")
    said = NO_GROUP.findall(report)
    if said != [str(args.ranks)] or REPORT.search(report):
        sys.exit(f"FAIL: no group: expected rank 0's one line saying so, got\n{report[-3000:]}")


def calibration(path, ranks, per_message, per_byte, per_hop):
    """A calibration file whose ring calls cost exactly what the costs say
    (one node: no byte leaves it)."""
    network = []
    for degree in (1, 2, 4):
        for block in (8, 2048, 32768):
            m, b = 2 * degree, 2 * degree * block
            network.append({"ranks": ranks, "degree": degree, "block": block, "messages": m,
                            "bytes": b, "node_bytes": 0, "hops": 1,
                            "seconds": per_message * m + per_byte * b + per_hop})
    path.write_text(json.dumps({"schema_version": 1, "name": "made-up", "samples": [],
                                "network": network}))


def check_auto(args, plain, directory):
    base = {"LD_PRELOAD": args.library, "GRAPHCOMM_NBR_REPORT": "1", "GRAPHCOMM_NBR_K": "2",
            "GRAPHCOMM_NBR_COMBINE": "auto"}
    # 5 rounds of 4 calls: every one combined, or none.
    for name, costs, combined in (("messages", (1e-5, 1e-12, 0), 20),
                                  ("hops", (0, 1e-9, 1e-4), 0)):
        path = directory / f"calibration-{name}.json"
        calibration(path, args.ranks, *costs)
        out, report = run(args.launcher, args.ranks, args.program,
                          {**base, "GRAPHCOMM_CALIBRATION": path})
        if out != plain:
            sys.exit(f"FAIL: auto ({name} cost): results differ\nwithout: {plain}\nwith:    {out}")
        lines = REPORT.findall(report)
        got = sorted({(int(l[1]), int(l[5] or -1)) for l in lines})
        if len(lines) != args.ranks or got != [(combined, 20 - combined)]:
            sys.exit(f"FAIL: auto ({name} cost): (combined, left to the library) per rank {got}, "
                     f"expected {(combined, 20 - combined)}\n{report[-3000:]}")
        # Rank 0's rule: combined blocks reach far past the program's few
        # ints (a combined call sends blocks twice: at some size it loses).
        rule = re.findall(r"graphcomm-nbr: auto \(.*\): allgather combines ([^,]+),", report)
        far = re.fullmatch(r"blocks up to (\d+) B", rule[0]) if len(rule) == 1 else None
        ok = (far and int(far[1]) >= 1 << 20) if combined else rule == ["no block size"]
        if not ok:
            sys.exit(f"FAIL: auto ({name} cost): rank 0 said {rule}")
    for settings, error in (({"GRAPHCOMM_CALIBRATION": directory / "none.json"},
                             "no such calibration file"),
                            ({"GRAPHCOMM_NBR_COMBINE": "sometimes"},
                             "GRAPHCOMM_NBR_COMBINE=sometimes: always or auto")):
        proc = run(args.launcher, args.ranks, args.program, {**base, **settings}, fails=True)
        said = [l for l in proc.stderr.splitlines() if l.startswith("graphcomm-nbr: error:")]
        if proc.returncode == 0 or len(said) != 1 or error not in said[0]:
            sys.exit(f"FAIL: {settings}: exit {proc.returncode}, error lines {said}, expected one "
                     f"saying {error!r}\n{proc.stderr[-2000:]}")
    print("OK: auto combines every call where messages cost, none where the second hop does; "
          "no calibration and a bad setting are one error line each")


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
    lines = REPORT.findall(report)
    if NO_GROUP.search(report):
        sys.exit(f"FAIL: no group forms at {args.ranks} ranks: the program's topology gives every "
                 f"rank a group of k = 2 at 8 ranks (what ctest runs), not at every count")
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
    check_no_group(args, plain)
    with tempfile.TemporaryDirectory() as directory:
        check_auto(args, plain, Path(directory))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The matching tracer on a plain MPI program (trace_program.cpp), run by
scripts/trace: the program writes which message each of its receives got;
the traces, reconstructed and replayed through linked-list
(reconstruct_check), must give exactly the same matches.

With --abort, rank 1 calls MPI_Abort half way: every rank's file must still
be readable, without an end record, and rank 1's must hold what it did
before the abort.

    trace_test.py --trace scripts/trace --mpi openmpi --library LIB \\
                  --program P --check C --ranks N [--abort]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def fail(message):
    sys.exit(f"FAIL: {message}")


def run_traced(args, out, program_args):
    env = dict(os.environ, GRAPHCOMM_MQTRACE_LIB=args.library)
    command = [args.trace, "--out", out, "--mpi", args.mpi, "-np", str(args.ranks), args.program]
    proc = subprocess.run(command + program_args, capture_output=True, text=True, timeout=240,
                          env=env)
    if f"traces in {os.path.realpath(out)}" not in proc.stdout:
        fail(f"scripts/trace did not say where the traces are\n{proc.stdout[-2000:]}"
             f"\n{proc.stderr[-2000:]}")
    return proc


def check(args, traces, matches):
    proc = subprocess.run([args.check, traces, matches], capture_output=True, text=True,
                          timeout=240)
    if proc.returncode != 0:
        fail(f"reconstruct_check exited {proc.returncode}\n{proc.stdout[-3000:]}"
             f"\n{proc.stderr[-3000:]}")
    return proc.stdout


def read_matches(path):
    with open(path) as f:
        rows = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
    if any(len(r) != 4 for r in rows):
        fail(f"{path}: a line without 4 fields")
    return sorted(rows)


def normal_run(args, tmp):
    traces = os.path.join(tmp, "traces")
    program_matches = os.path.join(tmp, "program.txt")
    proc = run_traced(args, traces, [program_matches])
    if proc.returncode != 0:
        fail(f"the traced program exited {proc.returncode}\n{proc.stderr[-3000:]}")
    files = sorted(os.listdir(traces))
    if files != sorted(f"rank-{r}.mqt" for r in range(args.ranks)):
        fail(f"trace files {files}")
    replayed_matches = os.path.join(tmp, "replayed.txt")
    summary = check(args, traces, replayed_matches)
    program = read_matches(program_matches)
    replayed = read_matches(replayed_matches)
    # Every rank took messages; each (rank, receive) once; each message once.
    if len({r[0] for r in program}) != args.ranks:
        fail(f"the program reports matches of {len({r[0] for r in program})} ranks")
    if len({r[:2] for r in program}) != len(program) or \
            len({(r[0], r[2], r[3]) for r in program}) != len(program):
        fail("the program's matches repeat a receive or a message")
    if program != replayed:
        only_program = sorted(set(program) - set(replayed))[:10]
        only_replay = sorted(set(replayed) - set(program))[:10]
        fail(f"{len(program)} matches by the program, {len(replayed)} by the replay; "
             f"only the program: {only_program}; only the replay: {only_replay}\n{summary}")
    if summary.count("complete,") != args.ranks:
        fail(f"not every trace is complete\n{summary}")
    # Every probe's result was reproduced.
    if re.search(r"[1-9]\d* probes unexplained", summary):
        fail(f"probes unexplained\n{summary}")
    moved = sum(int(m) for m in re.findall(r"(\d+) moved", summary))
    print(f"OK: {len(program)} matches of {args.ranks} ranks reproduced from the traces "
          f"({moved} arrivals moved)")


def abort_run(args, tmp):
    traces = os.path.join(tmp, "traces")
    proc = run_traced(args, traces, [os.path.join(tmp, "program.txt"), "abort"])
    if proc.returncode == 0:
        fail("the program did not fail although rank 1 called MPI_Abort")
    summary = check(args, traces, os.path.join(tmp, "replayed.txt"))
    ranks = re.findall(r"rank (\d+): (\d+) records, (\w+),", summary)
    if len(ranks) != args.ranks:
        fail(f"expected {args.ranks} readable traces\n{summary}")
    for rank, records, state in ranks:
        if state != "incomplete":
            fail(f"rank {rank}'s trace has an end record although the run aborted\n{summary}")
    # Rank 1 did phases A (4 receives per rank) and B (5 receives, 5
    # sends) before it aborted, and flushed at MPI_Abort.
    receives = int(re.search(r"rank 1: .* (\d+) receives,", summary).group(1))
    if receives < 4 * args.ranks + 5:
        fail(f"rank 1's trace holds {receives} receives, fewer than it posted\n{summary}")
    print(f"OK: the {args.ranks} traces of an aborted run are readable\n{summary}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", required=True, help="scripts/trace")
    ap.add_argument("--mpi", default="openmpi")
    ap.add_argument("--library", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--check", required=True)
    ap.add_argument("--ranks", type=int, default=3)
    ap.add_argument("--abort", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mq_trace_test.") as tmp:
        if args.abort:
            abort_run(args, tmp)
        else:
            normal_run(args, tmp)


if __name__ == "__main__":
    main()

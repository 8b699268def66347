#!/usr/bin/env python3
"""The FDS-like workload against its generator: bench/workloads/fds_like.c,
traced with scripts/trace, and `graphcomm mq synth fds` with the same ranks,
steps, meshes and seed, both replayed through linked-list. They must agree on
what does not depend on timing: the searches (posts and arrivals at rank 0)
and the queue length at every search (rank 0 starts receiving once every
other rank's messages of the step are in, as the generator assumes; a long
--root-delay-us makes sure of it). The order of arrivals, and so the
elements traversed, follows the scheduler in the trace and the seed in the
generator: only printed. Also: the program checks what rank 0 received, and
bad options get one error line and exit 2.

    fds_test.py --trace scripts/trace --mpi openmpi --library LIB --program P
                --graphcomm G --ranks N
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

STEPS, SEED, MESSAGES = 2, 7, 3


def fail(message):
    sys.exit(f"FAIL: {message}")


def run(command, timeout=240, **kw):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kw)


def replay(args, traces, out):
    proc = run([args.graphcomm, "mq", "replay", traces, "--engine", "linked-list", "--passes", "1",
                "--json", out])
    if proc.returncode != 0:
        fail(f"mq replay {traces} exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    with open(out) as f:
        doc = json.load(f)
    (rank0,) = [r for r in doc["queue_lengths"]["per_rank"] if r["rank"] == 0]
    return doc, rank0


def main():
    p = argparse.ArgumentParser()
    for name in ("trace", "mpi", "library", "program", "graphcomm"):
        p.add_argument(f"--{name}", required=True)
    p.add_argument("--ranks", type=int, required=True)
    args = p.parse_args()
    options = ["--steps", str(STEPS), "--seed", str(SEED), "--messages", str(MESSAGES),
               "--meshes-min", "1", "--meshes-max", "3"]
    with tempfile.TemporaryDirectory() as tmp:
        traced = os.path.join(tmp, "traced")
        env = dict(os.environ, GRAPHCOMM_MQTRACE_LIB=args.library)
        proc = run([args.trace, "--out", traced, "--mpi", args.mpi, "-np", str(args.ranks),
                    args.program, "--root-delay-us", "200000", "--work-us", "0"] + options, env=env)
        if proc.returncode != 0 or "check OK" not in proc.stdout:
            fail(f"fds_like exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        said = proc.stdout.splitlines()[0]
        synth = os.path.join(tmp, "synth")
        proc = run([args.graphcomm, "mq", "synth", "fds", "--ranks", str(args.ranks),
                    "--output", synth] + options)
        if proc.returncode != 0:
            fail(f"mq synth fds exited {proc.returncode}\n{proc.stderr[-2000:]}")
        t_doc, t0 = replay(args, traced, os.path.join(tmp, "traced.json"))
        s_doc, s0 = replay(args, synth, os.path.join(tmp, "synth.json"))
        # The program's own count of what rank 0 received: its messages, and
        # one gatherv contribution a step from each other rank.
        received = int(said.split("received ")[1].split()[0])
        for doc, where in ((t_doc, "trace"), (s_doc, "synth")):
            if doc["check"] != "OK":
                fail(f"{where}: replay check {doc['check']}")
            if doc["trace"]["ranks_with_events"] != 1:
                fail(f"{where}: {doc['trace']['ranks_with_events']} ranks with matching events, not 1")
            if doc["trace"]["arrivals"] != received + STEPS * (args.ranks - 1):
                fail(f"{where}: {doc['trace']['arrivals']} arrivals at rank 0, the program received "
                     f"{received} messages and {STEPS} x {args.ranks - 1} gatherv contributions")
        for key in ("posts", "arrivals", "probes"):
            if t_doc["trace"][key] != s_doc["trace"][key]:
                fail(f"{key}: trace {t_doc['trace'][key]}, synth {s_doc['trace'][key]}")
        for side in ("prq", "umq"):
            if t0[side] != s0[side]:
                fail(f"rank 0's {side} lengths: trace {t0[side]}, synth {s0[side]}")
        # Every message of a step is in before the first receive: the UMQ
        # holds them all then (the gatherv's included).
        expected_max = t_doc["trace"]["arrivals"] // STEPS
        if t0["umq"]["max"] != expected_max:
            fail(f"rank 0's longest UMQ {t0['umq']['max']}, not the step's {expected_max} messages")
        ll = [e for e in t_doc["engines"] if e["engine"] == "linked-list"][0]
        sl = [e for e in s_doc["engines"] if e["engine"] == "linked-list"][0]
        print(f"ok   {args.ranks} ranks: {said}; searches {t_doc['trace']['posts']} posts, "
              f"{t_doc['trace']['arrivals']} arrivals in both; UMQ lengths {t0['umq']} in both; "
              f"mean UMQ search: trace {ll['umq']['mean']:.2f}, synth {sl['umq']['mean']:.2f}")
        # Bad options: one line, exit 2, on every rank.
        proc = run([args.trace, "--out", os.path.join(tmp, "bad"), "--mpi", args.mpi, "-np",
                    str(args.ranks), args.program, "--steps", "0"], env=env)
        lines = [line for line in proc.stderr.splitlines() if "fds_like:" in line]
        if proc.returncode != 2 or len(lines) != 1 or "--steps" not in lines[0]:
            fail(f"--steps 0: exit {proc.returncode}, stderr {proc.stderr[-1000:]}")
    print("ok   bad option: one line, exit 2")


if __name__ == "__main__":
    main()

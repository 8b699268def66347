#!/usr/bin/env python3
"""Benchmark of collaborative neighborhood collectives (graphcomm nbr bench):
the MPI library's neighbour collective against the combined plan, on Moore,
random and graph topologies, per message size and group size; prints one
table (median latency of each, speedup, messages per rank with the plan and
without) and writes every run as JSON.

    bench/nbr.py [--ranks 16] [--topologies moore:2:1 ... random:0.5 graph:rmat:18]
                 [--collectives allgather alltoallv] [--k 2 3 4 auto]
                 [--sizes 4,64,1024,4096] [--iters 200] [--repeat 3]
                 [--spmm M ...] [--spmm-iters 50] [--out bench/results/nbr.json]

--spmm: the SpMM kernel (C = A x A) on these matrices, every gather method
(default: the paper's ash292, dwt_193 and Journals from ../shared/datasets).

More ranks than cores are oversubscribed: latencies then mostly measure the
scheduler; the message counts stay exact.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GCRUN = os.path.join(ROOT, "scripts", "gcrun")
DATASETS = os.path.join(os.path.dirname(ROOT), "shared", "datasets")
MATRICES = [os.path.join(DATASETS, f) for f in ("ash292.mtx.gz", "dwt_193.mtx.gz", "Journals.mtx.gz")]
TOPOLOGIES = ["moore:2:1", "moore:2:2", "moore:2:3", "moore:2:4", "moore:3:1", "moore:3:2",
              "random:0.05", "random:0.2", "random:0.5", "random:0.8", "graph:rmat:18"]


def graphcomm_json(binary, ranks, args):
    """Runs `graphcomm ARGS --json FILE` at `ranks` ranks; the JSON document."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [GCRUN, "-np", str(ranks), binary] + args + ["--json", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
        with open(out) as f:
            return json.load(f)


def run(binary, ranks, topology, collective, k, sizes, iters, repeat):
    return graphcomm_json(binary, ranks, [
        "nbr", "bench", "-q", "--topology", topology, "--collective", collective, "--k", k,
        "--sizes", sizes, "--iters", str(iters), "--repeat", str(repeat), "--check"])


def spmm(binary, ranks, matrix, iters):
    return graphcomm_json(binary, ranks, ["spmm", "-q", "--matrix", matrix, "--method", "all",
                                          "--iters", str(iters), "--check"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--topologies", nargs="+", default=TOPOLOGIES)
    p.add_argument("--collectives", nargs="+", default=["allgather", "alltoallv"])
    p.add_argument("--k", nargs="+", default=["2", "3", "4", "auto"])
    p.add_argument("--sizes", default="4,64,1024,4096")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--spmm", nargs="*", default=MATRICES)
    p.add_argument("--spmm-iters", type=int, default=50)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "nbr.json"))
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")
    runs = []
    print(f"{'topology':<16} {'collective':<10} {'k':>4} {'msgs/rank':>9} {'default':>8} "
          f"{'bytes':>6} {'default_us':>11} {'ours_us':>9} {'speedup':>8}")
    for topology in args.topologies:
        for collective in args.collectives:
            for k in args.k:
                print(f"bench: {topology} {collective} k={k}", file=sys.stderr, flush=True)
                try:
                    doc = run(args.graphcomm, args.ranks, topology, collective, k, args.sizes,
                              args.iters, args.repeat)
                except RuntimeError as e:
                    print(f"bench: {e}", file=sys.stderr)
                    continue
                runs.append(doc)
                plan = doc["plan"]
                for row in doc["sizes"]:
                    a = sorted(row["default_seconds"])[len(row["default_seconds"]) // 2]
                    b = sorted(row["ours_seconds"])[len(row["ours_seconds"]) // 2]
                    print(f"{topology:<16} {collective:<10} {k:>4} {plan['messages_per_rank']:>9.2f} "
                          f"{plan['default_messages_per_rank']:>8.2f} {row['bytes']:>6} "
                          f"{a * 1e6:>11.2f} {b * 1e6:>9.2f} {row['speedup']:>8.2f}")
    spmm_runs = []
    if args.spmm:
        print(f"\n{'matrix':<20} {'method':<10} {'gather_ms':>10} {'multiply_ms':>12} {'msgs/iter':>10}")
    for matrix in args.spmm:
        print(f"bench: spmm {matrix}", file=sys.stderr, flush=True)
        try:
            doc = spmm(args.graphcomm, args.ranks, matrix, args.spmm_iters)
        except RuntimeError as e:
            print(f"bench: {e}", file=sys.stderr)
            continue
        spmm_runs.append(doc)
        for r in doc["runs"]:
            print(f"{os.path.basename(matrix):<20} {r['method']:<10} {r['gather_seconds'] * 1e3:>10.3f} "
                  f"{r['multiply_seconds'] * 1e3:>12.3f} {r['messages_per_iteration']:>10}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"ranks": args.ranks, "runs": runs, "spmm": spmm_runs}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

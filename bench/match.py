#!/usr/bin/env python3
"""Benchmark of graphcomm match: all three models (nsr, rma, ncl) on the
issue's graphs at 2 and 4 ranks, repeated; prints a table of median matching
time (max over ranks), spread, rounds and messages, and writes all runs as JSON.

    bench/match.py [--repeat 3] [--ranks 2 4] [--graphs rmat:18 ...] [--out bench/results/match.json]

Times on an oversubscribed or busy machine are noisy: compare models within
one run, as ratios; messages and rounds are the deterministic evidence.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATASETS = os.path.join(ROOT, "..", "shared", "datasets")
DEFAULT_GRAPHS = ["rmat:18", "rmat:20", "rgg:1048576",
                  os.path.join(DATASETS, "ego-Twitter-undirected.txt.gz"),
                  os.path.join(DATASETS, "soc-Slashdot0902.txt.gz"),
                  os.path.join(DATASETS, "web-sk-2005.mtx.gz")]


def run(binary, ranks, graph, check):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [os.path.join(ROOT, "scripts", "gcrun"), "-np", str(ranks), binary, "match", "-q",
               "--graph", graph, "--model", "all", "--json", out] + (["--check"] if check else [])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"bench: failed: {' '.join(cmd)}\n{proc.stderr}")
        with open(out) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--graphs", nargs="+", default=DEFAULT_GRAPHS)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "match.json"))
    args = ap.parse_args()

    results = []
    header = f"{'graph':<34} {'P':>2} {'model':<5} {'median_s':>9} {'spread_s':>9} {'setup_s':>8} {'comm_s':>8} {'rounds':>7} {'messages':>11} {'weight':>16}"
    print(header)
    for graph in args.graphs:
        for ranks in args.ranks:
            docs = [run(args.binary, ranks, graph, check=(i == 0)) for i in range(args.repeat)]
            for m, first in enumerate(docs[0]["runs"]):
                times = [d["runs"][m]["seconds"] for d in docs]
                row = {"graph": graph, "ranks": ranks, "model": first["model"],
                       "median_seconds": statistics.median(times), "spread_seconds": max(times) - min(times),
                       "seconds": times, "setup_seconds": first["setup_seconds"],
                       "comm_seconds": first["comm_seconds"], "compute_seconds": first["compute_seconds"],
                       "rounds": first["rounds"], "messages": first["messages"]["sum"],
                       "bytes": first["bytes"]["sum"], "weight": first["weight"],
                       "cardinality": first["cardinality"], "check": first["check"],
                       "mpi": docs[0]["mpi"]["library"]}
                results.append(row)
                print(f"{os.path.basename(graph):<34} {ranks:>2} {row['model']:<5} {row['median_seconds']:>9.4f} "
                      f"{row['spread_seconds']:>9.4f} {row['setup_seconds']:>8.4f} {row['comm_seconds']:>8.4f} "
                      f"{row['rounds']:>7} {row['messages']:>11} {row['weight']:>16.4f}  {row['check']}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"schema_version": 1, "benchmark": "match", "repeat": args.repeat, "results": results}, f, indent=1)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Weak scaling of graphcomm match, as in the matching paper (Ghosh et al.,
IPDPS 2019): random geometric graphs with a fixed number of vertices per rank
at 1, 2, 4 and 8 ranks, every algorithm and model in one run per rank count.

    bench/match_weak.py [--per-rank 262144] [--ranks 1 2 4 8] [--repeat 3]
                        [--models nsr rma ncl] [--out bench/results/match_weak.json]

rgg:N places N points in the unit square, rank r owning the r-th vertical
strip (points sorted by x), and joins points closer than the default radius
(between the connectivity and percolation thresholds of N), so each rank talks
to at most two neighbours and the edges per rank grow slowly (with log N).
Perfect weak scaling keeps the time constant: `efficiency` is the median
1-rank time over the median P-rank time of the same algorithm and model.

This machine has few cores: rank counts above them are oversubscribed (the
table says so), and their times measure the scheduler as much as the code.
Messages, bytes and phases are the deterministic evidence there.

No reference code: every run is graphcomm's, through graphcomm-lab
(bench/lab.py), one repetition of every rank count at a time (rank counts
interleaved), into the lab's store (--store, default results/lab.sqlite;
suite bench-match_weak@TIME); this script adds the efficiency and the table.
The suite python/suites/matching-weak.toml runs the same study without it.
"""
import argparse
import json
import os
import sys

import lab
from lab import ROOT, config, median, spread


def run(session, rep, ranks, graph):
    """`match --algorithm all --model all` (checked in the first repetition)."""
    options = {"algorithm": "all", "check": True} if rep == 0 else {"algorithm": "all"}
    return session.document(rep, config("match", graph, "all", ranks, options))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--per-rank", type=int, default=262144, help="vertices per rank")
    p.add_argument("--ranks", type=int, nargs="*", default=[1, 2, 4, 8])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", nargs="*", default=["nsr", "rma", "ncl"])
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "match_weak.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")
    if args.per_rank < 1 or args.repeat < 1 or not args.ranks or min(args.ranks) < 1:
        sys.exit("bench: --per-rank, --repeat and --ranks must be positive")
    cores = os.cpu_count() or 1

    runs = {ranks: [] for ranks in args.ranks}
    session = lab.bench("match_weak", args, args.graphcomm)
    for rep in range(args.repeat):
        for ranks in args.ranks:
            print(f"bench: repetition {rep + 1}/{args.repeat}: {ranks} ranks", file=sys.stderr,
                  flush=True)
            runs[ranks].append(run(session, rep, ranks, f"rgg:{args.per_rank * ranks}"))

    rows = []
    for ranks in args.ranks:
        first = runs[ranks][0]
        # Every algorithm and model must give the same matching, verified.
        results = {(r["weight"], r["cardinality"]) for rr in runs[ranks] for r in rr["runs"]}
        failed = [r for r in first["runs"] if r["check"] != "OK"]
        if len(results) != 1 or failed:
            sys.exit(f"bench: {ranks} ranks: matchings differ or fail the check: "
                     f"{sorted(results)} {[(r['algorithm'], r['model'], r['check']) for r in failed]}")
        for i, r in enumerate(first["runs"]):
            if r["model"] not in args.models:
                continue
            times = [rr["runs"][i]["seconds"] for rr in runs[ranks]]
            rows.append({
                "ranks": ranks, "oversubscribed": ranks > cores,
                "vertices": first["graph"]["vertices"], "edges": first["graph"]["edges"],
                "algorithm": r["algorithm"], "model": r["model"], "seconds": times,
                "median_seconds": median(times), "spread_seconds": spread(times),
                "messages": r["messages"]["sum"], "messages_max": r["messages"]["max"],
                "phases": r["phases"], "rounds": r["rounds"],
                "peak_rss_max": r["peak_rss_bytes"]["max"],
                "check": r["check"], "weight": r["weight"], "cardinality": r["cardinality"]})
    base = {(r["algorithm"], r["model"]): r["median_seconds"] for r in rows
            if r["ranks"] == min(args.ranks)}
    for r in rows:
        b = base.get((r["algorithm"], r["model"]))
        r["efficiency"] = b / r["median_seconds"] if b and r["median_seconds"] > 0 else None

    print(f"weak scaling: rgg, {args.per_rank} vertices per rank, {args.repeat} repetitions, "
          f"{cores} cores here")
    print(f"{'ranks':>5} {'vertices':>9} {'edges':>9} {'algo':<6} {'model':<5} {'time_s':>8} "
          f"{'spread':>7} {'eff':>5} {'msgs':>8} {'msgs_max':>8} {'phases':>6} {'rss_MiB':>7}  "
          f"check")
    for r in rows:
        eff = f"{r['efficiency']:.2f}" if r["efficiency"] else "-"
        note = "  (oversubscribed)" if r["oversubscribed"] else ""
        print(f"{r['ranks']:>5} {r['vertices']:>9} {r['edges']:>9} {r['algorithm']:<6} "
              f"{r['model']:<5} {r['median_seconds']:>8.4f} {r['spread_seconds']:>7.4f} "
              f"{eff:>5} {r['messages']:>8} {r['messages_max']:>8} {r['phases']:>6} "
              f"{r['peak_rss_max'] / 2**20:>7.1f}  {r['check']}{note}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"schema_version": 1, "benchmark": "match_weak", "per_rank": args.per_rank,
                   "repeat": args.repeat, "cores": cores, "results": rows,
                   "runs": {str(k): v for k, v in runs.items()}}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

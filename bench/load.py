#!/usr/bin/env python3
"""Benchmark of graph loading: the time graphcomm takes to generate a
Kronecker graph and lay it out as a distributed CSR (`graph stats`'s
load_seconds: generation, shuffle to owners, CSR, ghosts), side by side with
GAP's Generate + Build times for the same SCALE, its threads = our ranks.
Runs are interleaved (ours, GAP, ours, ...) and repeated; prints the median
and spread of each and the ratio ours / GAP, and writes every run as JSON.

    bench/load.py [--scales 18 20] [--ranks 2] [--repeat 5] [--gap-dir DIR]
                  [--compare OTHER_GRAPHCOMM] [--binary build/src/graphcomm]
                  [--out bench/results/load.json]

--gap-dir names a built GAP Benchmark Suite (its `bfs`, run as
`bfs -g SCALE -n 1`); GAP is not part of graphcomm and is never downloaded by
it (bench/README.md says how to build it). --compare adds another graphcomm
binary (an older build, say) to the interleaving, as a third column.

Times on a busy machine are noisy, and on a VM that returns freed memory to
its host they depend on what ran before: compare within one run, as ratios.

graphcomm runs through graphcomm-lab (bench/lab.py): in each repetition,
`graph stats --graph rmat:SCALE` is one run of a suite into the lab's store
(--store, default results/lab.sqlite; suites bench-load@TIME and
bench-load/compare@TIME), read back from there, then GAP runs, so they stay
interleaved.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import lab
from lab import ROOT, config, ratios, summary

GAP_TIME = re.compile(r"^(Generate|Build) Time:\s*([0-9.eE+-]+)", re.M)


def ours(session, rep, scale, ranks, **where):
    doc = session.document(rep, config("graph-stats", f"rmat:{scale}", None, ranks), **where)
    return doc["timings"]["load_seconds"], doc["memory"]["peak_rss_bytes_max"]


def gap(gap_dir, scale, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [os.path.join(gap_dir, "bfs"), "-g", str(scale), "-n", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"bench: failed: {' '.join(cmd)}\n{proc.stderr}")
    found = dict(GAP_TIME.findall(proc.stdout))
    if set(found) != {"Generate", "Build"}:
        sys.exit(f"bench: no Generate/Build times in the output of {' '.join(cmd)}")
    return float(found["Generate"]) + float(found["Build"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    ap.add_argument("--ranks", type=int, nargs="+", default=[2])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gap-dir")
    ap.add_argument("--compare", help="another graphcomm binary, run in the same interleaving")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "load.json"))
    lab.add_store_option(ap)
    args = ap.parse_args()
    for path in [args.binary] + ([args.compare] if args.compare else []):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench: no graphcomm binary at {path} (build first)")
    if args.gap_dir and not os.access(os.path.join(args.gap_dir, "bfs"), os.X_OK):
        sys.exit(f"bench: no GAP bfs binary in {args.gap_dir}")
    if args.repeat < 1:
        sys.exit("bench: --repeat must be at least 1")

    results = []
    session = lab.bench("load", args, args.binary)
    columns = ["graphcomm"] + (["compare"] if args.compare else []) + (
        ["gap"] if args.gap_dir else [])
    for scale in args.scales:
        for ranks in args.ranks:
            runs = {c: [] for c in columns}
            peak = []
            for rep in range(args.repeat):
                print(f"bench: rmat:{scale} at {ranks} ranks, repetition {rep + 1}/{args.repeat}",
                      file=sys.stderr, flush=True)
                seconds, rss = ours(session, rep, scale, ranks)
                runs["graphcomm"].append(seconds)
                peak.append(rss)
                if args.compare:
                    runs["compare"].append(ours(session, rep, scale, ranks, binary=args.compare,
                                                variant="compare")[0])
                if args.gap_dir:
                    runs["gap"].append(gap(args.gap_dir, scale, ranks))
            row = {"scale": scale, "ranks": ranks, "peak_rss_bytes_max": max(peak),
                   "seconds": {c: summary(runs[c]) for c in columns}}
            # Ratios per repetition (each pair ran back to back), then their median.
            for other in columns[1:]:
                row[f"ratio_to_{other}"] = summary(ratios(runs["graphcomm"], runs[other]))
            results.append(row)

    head = f"{'graph':>9} {'ranks':>5} " + " ".join(f"{c + ' s (min-max)':>24}" for c in columns)
    head += "".join(f" {'/ ' + c:>18}" for c in columns[1:]) + f" {'peak RSS MB':>11}"
    print(head)
    for row in results:
        line = f"{'rmat:' + str(row['scale']):>9} {row['ranks']:>5} "
        line += " ".join(
            f"{s['median']:>8.3f} ({s['min']:.3f}-{s['max']:.3f})".rjust(24)
            for s in (row["seconds"][c] for c in columns))
        for c in columns[1:]:
            r = row[f"ratio_to_{c}"]
            line += f" {r['median']:>6.2f} ({r['min']:.2f}-{r['max']:.2f})".rjust(19)
        line += f" {row['peak_rss_bytes_max'] / 1e6:>11.0f}"
        print(line)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"benchmark": "load", "binary": args.binary, "compare": args.compare,
                   "gap_dir": args.gap_dir, "results": results}, f, indent=2)
    os.replace(tmp, args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

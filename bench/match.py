#!/usr/bin/env python3
"""Benchmark of graphcomm match: the three models (nsr, rma, ncl) on the
issue's graphs at 2 and 4 ranks, repeated; prints the median matching time
(max over ranks), its spread and where the time goes, and writes every run as
JSON.

    bench/match.py [--repeat 3] [--ranks 2 4] [--graphs rmat:18 ...]
                   [--mel-dir DIR] [--out bench/results/match.json]

Side by side with the paper's public code (Exa-Graph/mel, Ghosh et al. IPDPS
2019): build its three models yourself (see bench/README.md) and pass
--mel-dir with the binaries mel_nsr, mel_rma and mel_ncl. Each graph is then
converted once to mel's binary CSR and both programs run on that file, the
same graph and the same block distribution, interleaved within each
repetition; `speedup` is the median over repetitions of mel's time / ours.
mel's time is its own "Execution time for maximal edge matching" (between
barriers, averaged over ranks, so in effect the slowest rank's time).

graphcomm's runs go through graphcomm-lab (bench/lab.py): each repetition
of a graph and rank count is one run of a suite into the lab's store
(--store, default results/lab.sqlite; suite bench-match@TIME), read back
from there; mel runs after it, so the two stay interleaved.

Times on a busy machine are noisy: compare within one run, as ratios;
messages and rounds are the deterministic evidence.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import lab
from lab import DATASETS, GCRUN, ROOT, config, median, median_ratio, spread

MODELS = ["nsr", "rma", "ncl"]
DEFAULT_GRAPHS = ["rgg:262144", "rmat:18", "rmat:20", "rgg:1048576",
                  os.path.join(DATASETS, "luxembourg_osm.mtx.gz"),
                  os.path.join(DATASETS, "cit-HepPh.txt.gz"),
                  os.path.join(DATASETS, "soc-Slashdot0902.txt.gz"),
                  os.path.join(DATASETS, "ego-Twitter-undirected.txt.gz"),
                  os.path.join(DATASETS, "web-sk-2005.mtx.gz")]
MEL_TIME = re.compile(r"Execution time \(in s\) for maximal edge matching:\s*([0-9.eE+-]+)")


def ours(session, rep, ranks, graph):
    """`match --model all` at repetition `rep` (checked in the first), through the lab."""
    return session.document(rep, config("match", graph, "all", ranks,
                                        {"check": True} if rep == 0 else {}))


def mel(mel_dir, model, ranks, path, timeout):
    """mel's matching time in seconds, or None when it ran out of time."""
    cmd = [GCRUN, "-np", str(ranks), os.path.join(mel_dir, f"mel_{model}"), "-f", path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    found = MEL_TIME.search(proc.stdout)
    if proc.returncode != 0 or not found:
        sys.exit(f"bench: mel failed: {' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return float(found.group(1))


def convert_to_mel(binary, graph, path):
    cmd = [GCRUN, "-np", "2", binary, "graph", "convert", "-q", "--graph", graph, "--output", path,
           "--format", "mel"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench: failed: {' '.join(cmd)}\n{proc.stderr}")


def where_time_goes(run):
    """First phase (round 0) and the rest of the loop, from the round profile:
    per bucket the max over ranks, summed over buckets (the slowest rank's
    path, approximately)."""
    buckets = run["profile"]["buckets"]
    first = buckets[0]
    rest = buckets[1:]
    return {"phase1_compute_seconds": first["compute_seconds_max"],
            "loop_comm_seconds": sum(b["comm_seconds_max"] for b in rest),
            "loop_compute_seconds": sum(b["compute_seconds_max"] for b in rest),
            "phase1_messages": first["messages"],
            "loop_messages": sum(b["messages"] for b in rest)}


def fmt(value, spec):
    return format(value, spec) if value is not None else "-"


def measure(args, session, graph, target, ranks):
    """All repetitions at one rank count: our three models, then mel's."""
    docs, mel_times = [], {m: [] for m in MODELS}
    for rep in range(args.repeat):
        docs.append(ours(session, rep, ranks, target))
        if args.mel_dir:
            for m in MODELS:
                if mel_times[m] is not None:
                    t = mel(args.mel_dir, m, ranks, target.split(":", 1)[1], args.mel_timeout)
                    if t is None:
                        mel_times[m] = None  # ran out of time once: do not retry
                    else:
                        mel_times[m].append(t)
    rows = []
    for i, first in enumerate(docs[0]["runs"]):
        model = first["model"]
        times = [d["runs"][i]["seconds"] for d in docs]
        row = {"graph": graph, "ranks": ranks, "model": model, "mpi": docs[0]["mpi"]["library"],
               "vertices": docs[0]["graph"]["vertices"], "edges": docs[0]["graph"]["edges"],
               "seconds": times, "median_seconds": median(times), "spread_seconds": spread(times),
               "setup_seconds": first["setup_seconds"], "comm_seconds": first["comm_seconds"],
               "compute_seconds": first["compute_seconds"], "rounds": first["rounds"],
               "messages": first["messages"]["sum"], "bytes": first["bytes"]["sum"],
               "weight": first["weight"], "cardinality": first["cardinality"],
               "check": first["check"], "profile": first["profile"]}
        row.update(where_time_goes(first))
        if args.mel_dir:
            mt = mel_times[model]
            row["mel_seconds"] = mt if mt is not None else f"timeout after {args.mel_timeout} s"
            if mt:
                row["mel_median_seconds"] = median(mt)
                row["mel_spread_seconds"] = spread(mt)
                row["speedup"] = median_ratio(mt, times)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--graphs", nargs="+", default=DEFAULT_GRAPHS)
    ap.add_argument("--mel-dir", help="directory with the paper code's mel_nsr, mel_rma, mel_ncl")
    ap.add_argument("--mel-timeout", type=float, default=300, help="seconds per mel run")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "match.json"))
    lab.add_store_option(ap)
    args = ap.parse_args()
    if args.mel_dir:
        for m in MODELS:
            if not os.access(os.path.join(args.mel_dir, f"mel_{m}"), os.X_OK):
                sys.exit(f"bench: error: {args.mel_dir}/mel_{m} is not an executable")

    print(f"{'graph':<24} {'P':>2} {'model':<5} {'median_s':>9} {'spread_s':>9} {'mel_s':>9} "
          f"{'mel_sprd':>9} {'speedup':>7} | {'setup_s':>8} {'phase1_s':>8} {'loop_comm':>9} "
          f"{'loop_comp':>9} {'rounds':>7} {'messages':>10}  check")
    results = []
    session = lab.bench("match", args, args.binary)
    with tempfile.TemporaryDirectory() as tmp:
        for g, graph in enumerate(args.graphs):
            target = graph
            if args.mel_dir:
                target = "mel:" + os.path.join(tmp, f"g{g}.mel")
                convert_to_mel(args.binary, graph, target.split(":", 1)[1])
            for ranks in args.ranks:
                for row in measure(args, session, graph, target, ranks):
                    results.append(row)
                    mel_med = row.get("mel_median_seconds")
                    if args.mel_dir and mel_med is None:
                        mel_cell = "timeout"
                    else:
                        mel_cell = fmt(mel_med, ".4f")
                    print(f"{os.path.basename(graph)[:24]:<24} {ranks:>2} {row['model']:<5} "
                          f"{row['median_seconds']:>9.4f} {row['spread_seconds']:>9.4f} {mel_cell:>9} "
                          f"{fmt(row.get('mel_spread_seconds'), '.4f'):>9} {fmt(row.get('speedup'), '.2f'):>7} | "
                          f"{row['setup_seconds']:>8.4f} {row['phase1_compute_seconds']:>8.4f} "
                          f"{row['loop_comm_seconds']:>9.4f} {row['loop_compute_seconds']:>9.4f} "
                          f"{row['rounds']:>7} {row['messages']:>10}  {row['check']}", flush=True)
            if args.mel_dir:
                os.remove(target.split(":", 1)[1])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w") as f:
        json.dump({"schema_version": 1, "benchmark": "match", "repeat": args.repeat,
                   "mel_dir": args.mel_dir, "results": results}, f, indent=1)
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in {args.store}")


if __name__ == "__main__":
    lab.main(main)

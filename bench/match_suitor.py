#!/usr/bin/env python3
"""Benchmark of graphcomm match at one rank against NetworKit's SuitorMatcher:
graphcomm's two algorithms (ld, suitor) at 1 rank, and at 2 ranks over ncl
and rma, side by side with NetworKit 11.3's SuitorMatcher (one thread,
unsorted mode: SuitorMatcher(G, sortSuitor=False)) on the identical graph.

    bench/match_suitor.py [--repeat 5] [--graphs rmat:20 FILE...] [--venv bench/.venv]
                          [--two-rank-models ncl rma]
                          [--two-rank-distributions block edges metis+edges]
                          [--out bench/results/match_suitor.json]

The 2-rank runs are made once per distribution of the vertices (block: the
input's ranges; edges: edge-balanced ranges; rcm: ranges of the reverse
Cuthill-McKee order; metis, scotch: a 2-way partition balancing vertices;
metis+edges, scotch+edges: balancing degree + 1, as Suitor's work is mostly
its rows), each against the
1-rank time (one rank has nothing to distribute): the parallel-speedup
target, 2 ranks at most 0.75x one, is met on a graph where some distribution
meets it over every model. Partitioning is done when the graph is read, like
the load not part of the matching's time; its time is reported beside it.

NetworKit is never a dependency of graphcomm: the script creates a virtual
environment (--venv, default bench/.venv, not committed) and pip-installs
networkit there on first use.

The same graph: each graph is converted once by `graphcomm graph convert` to
an edge list `u v weight` (0-based; weights written in shortest round-trip
form, so exactly), which NetworKit's EdgeListReader reads, and to graphcomm's
binary CSR, which graphcomm reads; the weight and the cardinality of the
matchings must then agree (NetworKit breaks equal weights by vertex id,
graphcomm by a hash of the pair: with the seed's random weights there are no
ties to break, and the check would catch one that mattered).

Timing: graphcomm's matching time (between barriers, max over ranks; the
graph load and the exchange setup apart) and NetworKit's SuitorMatcher.run()
alone (a worker process loads the graph once, then runs the matcher on
request), so neither includes reading the graph. The programs are
interleaved within each repetition; medians and spreads (max - min) over the
repetitions; ratios are medians of the per-repetition ratios. The first
repetition runs graphcomm with --check (identity with the serial greedy
matching). Times on a busy machine are noisy: compare within one run.

graphcomm's runs go through graphcomm-lab (bench/lab.py): each is a run of a
suite into the lab's store (--store, default results/lab.sqlite; suite
bench-match_suitor@TIME) at its repetition, read back from there, so the
interleaving with NetworKit is as before.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import lab
from lab import DATASETS, GCRUN, ROOT, config, median, median_ratio, spread

# rmat:20 and the three largest real graphs (by edges, shared/datasets/README.md);
# all pattern files, so weights come from the seed.
DEFAULT_GRAPHS = ["rmat:20",
                  os.path.join(DATASETS, "ego-Twitter-undirected.txt.gz"),
                  os.path.join(DATASETS, "soc-Slashdot0902.txt.gz"),
                  os.path.join(DATASETS, "cit-HepPh.txt.gz")]
TARGET = 1.5  # graphcomm suitor at 1 rank within 1.5x NetworKit's time
SPEEDUP_TARGET = 0.75  # suitor at 2 ranks at most 0.75x its 1-rank time
# How each distribution is asked of `graphcomm match` (its options).
DISTRIBUTIONS = {"block": {"distribution": "block"}, "edges": {"distribution": "edges"},
                 "rcm": {"reorder": "rcm"}, "metis": {"partition": "metis"},
                 "scotch": {"partition": "scotch"},
                 "metis+edges": {"partition": "metis", "distribution": "edges"},
                 "scotch+edges": {"partition": "scotch", "distribution": "edges"}}

# The NetworKit side, run by the venv's python: loads the edge list once, then
# answers each "run" line with one timed SuitorMatcher.run().
WORKER = r"""
import json, sys, time
import networkit as nk
nk.setNumberOfThreads(1)
path = sys.argv[1]
t = time.perf_counter()
G = nk.graphio.EdgeListReader("\t", 0, "#", True, False).read(path)
print(json.dumps({"loaded_seconds": time.perf_counter() - t, "nodes": G.numberOfNodes(),
                  "edges": G.numberOfEdges(), "weighted": G.isWeighted(),
                  "version": nk.__version__}), flush=True)
for line in sys.stdin:
    m = nk.matching.SuitorMatcher(G, False, False)
    t = time.perf_counter()
    m.run()
    seconds = time.perf_counter() - t
    M = m.getMatching()
    print(json.dumps({"seconds": seconds, "cardinality": M.size(G), "weight": M.weight(G)}),
          flush=True)
"""


def ensure_venv(venv, version):
    python = os.path.join(venv, "bin", "python")
    probe = [python, "-c", "import networkit; print(networkit.__version__)"]
    if os.path.exists(python):
        found = subprocess.run(probe, capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip() == version:
            return python
    print(f"bench: installing networkit {version} into {venv}", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", f"networkit=={version}"], check=True)
    subprocess.run(probe, check=True, capture_output=True)
    return python


def checked(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        sys.exit(f"bench: failed: {' '.join(cmd)}\n{proc.stderr}")
    return proc


def convert(binary, graph, path):
    checked([GCRUN, "-np", "2", binary, "graph", "convert", "-q", "--graph", graph, "--output", path])


def graphcomm(session, rep, ranks, graph, model, distribution):
    """{algorithm: run} of one `match --algorithm all` run (checked in the
    first repetition), through the lab."""
    options = dict(DISTRIBUTIONS[distribution], algorithm="all")
    if rep == 0:
        options["check"] = True
    doc = session.document(rep, config("match", graph, model, ranks, options))
    return doc, {r["algorithm"]: r for r in doc["runs"]}


class NetworKit:
    def __init__(self, python, edge_list):
        self.proc = subprocess.Popen([python, "-c", WORKER, edge_list], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.info = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("bench: the NetworKit worker died")
        return json.loads(line)

    def run(self):
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def agree(where, weight, cardinality, reference):
    w0, c0 = reference
    if cardinality != c0 or abs(weight - w0) > 1e-9 * max(1.0, abs(w0)):
        sys.exit(f"bench: {where}: weight {weight!r} cardinality {cardinality}, "
                 f"expected {w0!r} and {c0}: not the same matching")


def load_average():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def measure(args, session, python, graph, tmp, index):
    el = os.path.join(tmp, f"g{index}.el")
    gcg = os.path.join(tmp, f"g{index}.gcg")
    convert(args.binary, graph, el)
    convert(args.binary, graph, gcg)
    target = "gcg:" + gcg
    nk = NetworKit(python, el)
    os.remove(el)
    # (ranks, model, distribution) and its key: "ncl/1" at one rank, "ncl/2/metis" at two.
    configs = [(1, "ncl", "block", "ncl/1")] + [
        (2, m, d, f"{m}/2/{d}") for m in args.two_rank_models for d in args.two_rank_distributions]
    times = {"networkit": []}
    for _, _, _, key in configs:
        for algorithm in ("ld", "suitor"):
            times[f"{algorithm}/{key}"] = []
    figures, doc, suitor_runs, order_seconds = None, None, {}, {}
    for rep in range(args.repeat):
        for ranks, model, distribution, key in configs:
            d, runs = graphcomm(session, rep, ranks, target, model, distribution)
            doc = doc or d
            order_seconds.setdefault(distribution, []).append(
                d["timings"].get("order_seconds", 0.0) + d["timings"].get("relabel_seconds", 0.0))
            for algorithm, r in runs.items():
                where = f"{graph} {algorithm} over {model} at {ranks} ranks ({distribution})"
                if rep == 0 and r["check"] != "OK":
                    sys.exit(f"bench: {where}: check says {r['check']}")
                figures = figures or (r["weight"], r["cardinality"])
                agree(where, r["weight"], r["cardinality"], figures)
                times[f"{algorithm}/{key}"].append(r["seconds"])
                if algorithm == "suitor":
                    suitor_runs[key] = r
            if ranks == 1:  # once a repetition, right after graphcomm's 1-rank run
                n = nk.run()
                agree(f"{graph} NetworKit", n["weight"], n["cardinality"], figures)
                times["networkit"].append(n["seconds"])
    nk.close()
    os.remove(gcg)
    if nk.info["edges"] != doc["graph"]["edges"]:
        sys.exit(f"bench: {graph}: NetworKit read {nk.info['edges']} edges, graphcomm has "
                 f"{doc['graph']['edges']}")

    def ratios(a, b):
        return median_ratio(times[a], times[b])

    row = {"graph": graph, "vertices": doc["graph"]["vertices"], "edges": doc["graph"]["edges"],
           "weight": figures[0], "cardinality": figures[1], "networkit": nk.info,
           "seconds": times,
           "median_seconds": {k: median(v) for k, v in times.items()},
           "spread_seconds": {k: spread(v) for k, v in times.items()},
           "suitor_1_over_networkit": ratios("suitor/ncl/1", "networkit"),
           "ld_1_over_networkit": ratios("ld/ncl/1", "networkit"),
           "two_rank_over_one_rank": {}, "two_rank_suitor": {},
           "order_seconds": {k: median(v) for k, v in order_seconds.items() if k != "block"}}
    for _, model, distribution, key in configs[1:]:
        for algorithm in ("ld", "suitor"):
            row["two_rank_over_one_rank"][f"{algorithm}/{model}/{distribution}"] = \
                ratios(f"{algorithm}/{key}", f"{algorithm}/ncl/1")
        r = suitor_runs[key]
        row["two_rank_suitor"][f"{model}/{distribution}"] = {
            "phases": r["phases"], "rounds": r["rounds"], "messages": r["messages"]["sum"]}
    row["target_met"] = row["suitor_1_over_networkit"] <= TARGET
    # The speedup target: the distributions under which suitor meets it over every model.
    row["speedup_met_by"] = [
        d for d in args.two_rank_distributions
        if args.two_rank_models and all(
            row["two_rank_over_one_rank"][f"suitor/{m}/{d}"] <= SPEEDUP_TARGET
            for m in args.two_rank_models)]
    return row


def cell(row, key):
    return f"{row['median_seconds'][key]:.4f}±{row['spread_seconds'][key]:.4f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--graphs", nargs="+", default=DEFAULT_GRAPHS)
    ap.add_argument("--two-rank-models", nargs="*", default=["ncl", "rma"])
    ap.add_argument("--two-rank-distributions", nargs="+",
                    default=["block", "edges", "metis+edges"],
                    choices=sorted(DISTRIBUTIONS))
    ap.add_argument("--venv", default=os.path.join(ROOT, "bench", ".venv"))
    ap.add_argument("--networkit-version", default="11.3")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "match_suitor.json"))
    lab.add_store_option(ap)
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("bench: --repeat must be at least 1")
    python = ensure_venv(args.venv, args.networkit_version)

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    load_before = load_average()
    print(f"match_suitor: {args.repeat} repetitions, load average {load_before} at start")
    print(f"{'graph':<24} {'|E|':>9} {'networkit_s':>16} {'ld_1_s':>16} {'suitor_1_s':>16} "
          f"{'suit/nk':>7} {'ld/nk':>6}  target(<= {TARGET})", flush=True)
    results = []
    session = lab.bench("match_suitor", args, args.binary)
    with tempfile.TemporaryDirectory() as tmp:
        for i, graph in enumerate(args.graphs):
            row = measure(args, session, python, graph, tmp, i)
            results.append(row)
            print(f"{os.path.basename(graph)[:24]:<24} {row['edges']:>9} {cell(row, 'networkit'):>16} "
                  f"{cell(row, 'ld/ncl/1'):>16} {cell(row, 'suitor/ncl/1'):>16} "
                  f"{row['suitor_1_over_networkit']:>7.2f} {row['ld_1_over_networkit']:>6.2f}  "
                  f"{'met' if row['target_met'] else 'NOT met'}", flush=True)
    if args.two_rank_models:
        print(f"\n2 ranks (median time, ratio to the same algorithm at 1 rank; Suitor's phases "
              f"and messages; order_s: partitioning or reordering, when the graph is read)")
        print(f"{'graph':<24} {'model':<5} {'dist':<11} {'ld_2_s':>16} {'ld 2/1':>6} "
              f"{'suitor_2_s':>16} {'sui 2/1':>7} {'phases':>6} {'messages':>9} {'order_s':>8}")
        for row in results:
            for model in args.two_rank_models:
                for dist in args.two_rank_distributions:
                    key = f"{model}/2/{dist}"
                    s = row["two_rank_suitor"][f"{model}/{dist}"]
                    order = row["order_seconds"].get(dist)
                    print(f"{os.path.basename(row['graph'])[:24]:<24} {model:<5} {dist:<11} "
                          f"{cell(row, f'ld/{key}'):>16} "
                          f"{row['two_rank_over_one_rank'][f'ld/{model}/{dist}']:>6.2f} "
                          f"{cell(row, f'suitor/{key}'):>16} "
                          f"{row['two_rank_over_one_rank'][f'suitor/{model}/{dist}']:>7.2f} "
                          f"{s['phases']:>6} {s['messages']:>9} "
                          f"{'-' if order is None else f'{order:.3f}':>8}")
        print(f"\nsuitor at 2 ranks at most {SPEEDUP_TARGET}x its 1-rank time over "
              f"{' and '.join(args.two_rank_models)}:")
        for row in results:
            met = row["speedup_met_by"]
            print(f"  {os.path.basename(row['graph'])[:24]:<24} "
                  f"{'met with ' + ', '.join(met) if met else 'NOT met'}")
    load_after = load_average()
    print(f"load average {load_after} at the end")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w") as f:
        json.dump({"schema_version": 2, "benchmark": "match_suitor", "started": started,
                   "repeat": args.repeat, "target_ratio": TARGET,
                   "speedup_target_ratio": SPEEDUP_TARGET,
                   "two_rank_distributions": args.two_rank_distributions,
                   "load_average": {"start": load_before, "end": load_after},
                   "results": results}, f, indent=1)
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in {args.store}")


if __name__ == "__main__":
    lab.main(main)

#!/usr/bin/env python3
"""Reordering and partitioning for the matching, as in the matching paper's
section V-C (Ghosh et al., IPDPS 2019, Tables V-VI): the input's block
distribution against reverse Cuthill-McKee (--reorder rcm) and k-way
partitions (--partition scotch|metis), on generated and real graphs.

    bench/match_order.py [--graphs rmat:16 DATASETS...] [--stats-ranks 4 8]
                         [--ranks 2] [--repeat 3] [--distribution block] [--models nsr rma ncl]
                         [--out bench/results/match_order.json]

Per graph and ordering: the process-graph statistics at each --stats-ranks
(cut edges, |Ep|, process degree max/avg/sigma, the largest |E'| and edge
count of a rank; deterministic counts, so oversubscription does not matter),
then `match --algorithm all --model all` at --ranks, repeated: median time of
every algorithm and model, messages, and the ordering's own cost (order and
relabel seconds). Every matching is verified (--check on the first
repetition) and must equal the block distribution's (weight, cardinality).

No reference code: every run is graphcomm's, through graphcomm-lab
(bench/lab.py), into the lab's store (--store, default results/lab.sqlite;
suite bench-match_order@TIME): the statistics once, then the matchings one
repetition at a time, orderings interleaved within each.
"""
import argparse
import json
import os
import sys

import lab
from lab import DATASETS, ROOT, config, median, spread

# Each ordering's options of graphcomm.
ORDERINGS = {"block": {}, "rcm": {"reorder": "rcm"}, "scotch": {"partition": "scotch"},
             "metis": {"partition": "metis"}}


def process_row(doc):
    d, p = doc["distribution"], doc["process_graph"]
    return {"cut_edges": d["cut_edges"], "process_edges": p["edges"],
            "process_degree_max": p["degree"]["max"], "process_degree_avg": p["degree"]["avg"],
            "process_degree_sigma": p["degree"]["stddev"],
            "max_edges_with_ghosts": d["edges_with_ghosts"]["max"], "max_edges": d["edges"]["max"]}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--graphs", nargs="*",
                   default=["rmat:16"] + [os.path.join(DATASETS, g) for g in
                                          ("email-Enron.txt.gz", "cit-HepPh.txt.gz",
                                           "soc-Slashdot0902.txt.gz")])
    p.add_argument("--orderings", nargs="*", default=list(ORDERINGS), choices=list(ORDERINGS))
    p.add_argument("--stats-ranks", type=int, nargs="*", default=[4, 8])
    p.add_argument("--ranks", type=int, default=2, help="ranks of the timed matching")
    p.add_argument("--distribution", default="block", choices=["block", "edges"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", nargs="*", default=["nsr", "rma", "ncl"],
                   help="models in the printed table (the JSON has every one)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "match_order.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")
    if args.repeat < 1 or args.ranks < 1 or min(args.stats_ranks, default=1) < 1:
        sys.exit("bench: --repeat, --ranks and --stats-ranks must be positive")
    graphs = [g for g in args.graphs if ":" in g or os.path.exists(g)]
    for g in sorted(set(args.graphs) - set(graphs)):
        print(f"bench: {g} not found: skipped", file=sys.stderr)

    results = []
    session = lab.bench("match_order", args, args.graphcomm)
    for graph in graphs:
        name = os.path.basename(graph)
        stats, runs = {}, {}
        for o in args.orderings:
            options = dict(ORDERINGS[o], distribution=args.distribution)
            for ranks in args.stats_ranks:
                print(f"bench: {name} {o}: stats at {ranks} ranks", file=sys.stderr, flush=True)
                stats[(o, ranks)] = process_row(session.document(
                    0, config("graph-stats", graph, None, ranks, options)))
            runs[o] = []
        for rep in range(args.repeat):  # orderings interleaved in each repetition
            for o in args.orderings:
                print(f"bench: {name} {o}: matching at {args.ranks} ranks, repetition "
                      f"{rep + 1}/{args.repeat}", file=sys.stderr, flush=True)
                options = dict(ORDERINGS[o], distribution=args.distribution, algorithm="all")
                if rep == 0:
                    options["check"] = True
                runs[o].append(session.document(
                    rep, config("match", graph, "all", args.ranks, options)))
        reference = None
        for o in args.orderings:
            first = runs[o][0]
            # The same matching everywhere: cardinality exactly, weight to
            # rounding (its sum runs over the ranks in another order).
            found = {(round(r["weight"], 9), r["cardinality"]) for doc in runs[o]
                     for r in doc["runs"]}
            failed = [(r["algorithm"], r["model"], r["check"]) for r in first["runs"]
                      if r["check"] != "OK"]
            reference = reference or found
            if found != reference or len(found) != 1 or failed:
                sys.exit(f"bench: {name} {o}: matching differs or fails the check: "
                         f"{sorted(found)} vs {sorted(reference)}, {failed}")
            timings = [doc["timings"] for doc in runs[o]]
            row = {"graph": name, "ordering": o, "vertices": first["graph"]["vertices"],
                   "edges": first["graph"]["edges"],
                   "order_seconds": median(t["order_seconds"] for t in timings),
                   "relabel_seconds": median(t["relabel_seconds"] for t in timings),
                   "load_seconds": median(t["load_seconds"] for t in timings),
                   "process": {str(k): stats[(o, k)] for k in args.stats_ranks}, "matching": []}
            for i, r in enumerate(first["runs"]):
                times = [doc["runs"][i]["seconds"] for doc in runs[o]]
                row["matching"].append({
                    "algorithm": r["algorithm"], "model": r["model"], "seconds": times,
                    "median_seconds": median(times), "spread_seconds": spread(times),
                    "messages": r["messages"]["sum"], "check": r["check"]})
            results.append(row)

    print(f"process graphs ({args.distribution} ranges; Tables V-VI of the matching paper)")
    print(f"{'graph':<24} {'ordering':<7} {'P':>2} {'cut':>9} {'|Ep|':>5} {'d_max':>5} "
          f"{'d_avg':>6} {'sigma':>6} {'max|E_p|':>9} {'max_edges':>9}")
    for r in results:
        for ranks, s in r["process"].items():
            print(f"{r['graph']:<24} {r['ordering']:<7} {ranks:>2} {s['cut_edges']:>9} "
                  f"{s['process_edges']:>5} {s['process_degree_max']:>5.0f} "
                  f"{s['process_degree_avg']:>6.2f} {s['process_degree_sigma']:>6.2f} "
                  f"{s['max_edges_with_ghosts']:>9.0f} {s['max_edges']:>9.0f}")
    print(f"\nmatching at {args.ranks} ranks, median of {args.repeat} (time relative to the "
          f"same algorithm and model on blocks); ordering cost apart")
    models = sorted({(m["algorithm"], m["model"]) for r in results for m in r["matching"]
                     if m["model"] in args.models})
    print(f"{'graph':<24} {'ordering':<7} {'order_s':>8} {'msgs_ld':>9} " +
          " ".join(f"{a + '/' + m:>14}" for a, m in models))
    block = {(r["graph"], m["algorithm"], m["model"]): m["median_seconds"]
             for r in results if r["ordering"] == "block" for m in r["matching"]}
    for r in results:
        cells = []
        for a, m in models:
            t = next(x for x in r["matching"] if (x["algorithm"], x["model"]) == (a, m))
            base = block.get((r["graph"], a, m))
            rel = f"({t['median_seconds'] / base:.2f})" if base else ""
            cells.append(f"{t['median_seconds']:>7.4f}{rel:>7}")
        msgs = next((x["messages"] for x in r["matching"] if x["algorithm"] == "ld"), 0)
        print(f"{r['graph']:<24} {r['ordering']:<7} "
              f"{r['order_seconds'] + r['relabel_seconds']:>8.3f} {msgs:>9} " + " ".join(cells))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"schema_version": 1, "benchmark": "match_order", "ranks": args.ranks,
                   "stats_ranks": args.stats_ranks, "distribution": args.distribution,
                   "repeat": args.repeat, "results": results}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

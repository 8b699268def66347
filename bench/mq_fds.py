#!/usr/bin/env python3
"""The message-matching engines on the FDS-like workload (the partner-queue
study's hardest case: Ghazimirsaeed, Mirsadeghi, Afsahi, CCPE 2018, Figs.
5E/F-9, FDS at 1024 and 2048 processes), in four parts:

  1. trace against generator: bench/workloads/fds_like.c traced with
     scripts/trace at --trace-ranks (oversubscribed on 2 cores: 256 ranks
     trace in about a minute), and `mq synth fds` with
     the same ranks, steps, meshes and seed: searches, rank 0's queue length
     distribution and linked-list's mean search, side by side;
  2. the engines at --ranks (1024 and 2048): every engine in one replay per
     memory regime (bounded: c sqrt(N) partners; unbounded), metric average,
     t 100, --repeat times: time per operation (median, spread), mean
     searches, partners, memory, against linked-list and rank-array;
  3. the sweep: partner-static, partner-dynamic and partner-vectors for t in
     --ts: unbounded with the average, median and outlier (fence, alpha 0)
     metrics, bounded with the average metric for c in --cs (the study's
     Fig. 7), one replay each: mean search and time against linked-list;
  4. a projection of rank 0's time per step: its messages' own cost on an
     EDR-class network (LogGP o at the receiver plus bytes over bandwidth,
     scripts/simulate's `edr` platform) plus matching, per engine.

Prints the tables and writes everything as JSON (--out).

    bench/mq_fds.py [--ranks 1024 2048] [--steps 16] [--trace-ranks 16 32 64 128 256]
                    [--ts 25 50 100 400 1600] [--cs 1 4 16] [--repeat 3] [--passes 3]
                    [--out bench/results/mq_fds.json]

No reference code: the study's engines are graphcomm's own; linked-list is
MVAPICH's and MPICH's design and rank-array Open MPI's (ob1's per-peer
queues), both replayed over the same events.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from lab import GCRUN, ROOT, median, spread
from graphcomm_lab.runner import build_workload

PARTNERS = ["partner-static", "partner-dynamic", "partner-vectors"]
METRICS = [("average", ["--metric", "average"]), ("median", ["--metric", "median"]),
           ("outlier", ["--metric", "fence", "--alpha", "0"])]
# The `edr` platform of scripts/simulate: what one message costs the
# receiving rank besides matching (docs/simulation.md, "Platforms").
EDR_OVERHEAD_S = 0.3e-6
EDR_BANDWIDTH = 12.5e9


def run(command, **kw):
    proc = subprocess.run(command, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.exit(f"bench: failed: {' '.join(command)}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def graphcomm(args, *words):
    return run([GCRUN, "-np", "1", args.graphcomm] + list(words))


def replay(args, trace, tmp, *options):
    out = os.path.join(tmp, "replay.json")
    graphcomm(args, "mq", "replay", "-q", trace, "--json", out, *options)
    with open(out) as f:
        doc = json.load(f)
    if doc["check"] != "OK":
        sys.exit(f"bench: replay of {trace} failed its check: {doc['failures'][:3]}")
    return doc


def synth(args, tmp, ranks, steps, seed, name):
    out = os.path.join(tmp, name)
    if not os.path.exists(out):
        graphcomm(args, "mq", "synth", "fds", "--ranks", str(ranks), "--steps", str(steps),
                  "--meshes-min", str(args.meshes_min), "--meshes-max", str(args.meshes_max),
                  "--messages", str(args.messages), "--seed", str(seed), "--output", out)
    return out


def rank0_lengths(doc):
    (r0,) = [r for r in doc["queue_lengths"]["per_rank"] if r["rank"] == 0]
    return r0["umq"]


def engines_of(doc):
    return {e["engine"]: e for e in doc["engines"]}


def part_trace(args, tmp):
    """fds_like traced against mq synth fds, same ranks, steps, meshes, seed."""
    program, _ = build_workload("fds", tmp)
    rows = []
    for n in args.trace_ranks:
        print(f"bench: tracing fds_like at {n} ranks", file=sys.stderr, flush=True)
        traced = os.path.join(tmp, f"traced-{n}")
        # Rank 0 waits long enough for every other rank's burst to be in:
        # about 1 ms of scheduling per rank on 2 cores.
        said = run([os.path.join(ROOT, "scripts", "trace"), "--out", traced, "-np", str(n),
                    str(program), "--steps", str(args.trace_steps), "--seed", str(args.seed),
                    "--meshes-min", str(args.meshes_min), "--meshes-max", str(args.meshes_max),
                    "--messages", str(args.messages), "--root-delay-us", str(4000 * n)])
        if "check OK" not in said:
            sys.exit(f"bench: fds_like at {n} ranks did not check OK:\n{said}")
        t_doc = replay(args, traced, tmp, "--engine", "linked-list", "--passes", "1")
        row = {"ranks": n, "trace": summary_of(t_doc), "synth": []}
        for seed in range(args.seed, args.seed + args.repeat):
            s_doc = replay(args, synth(args, tmp, n, args.trace_steps, seed, f"s-{n}-{seed}"), tmp,
                           "--engine", "linked-list", "--passes", "1")
            row["synth"].append(summary_of(s_doc) | {"seed": seed})
        rows.append(row)
    print("\n1. fds_like traced against mq synth fds (linked-list; synth: seeds "
          f"{args.seed}..{args.seed + args.repeat - 1}, the first with the program's meshes)")
    print(f"{'ranks':>5} {'source':<6} {'posts':>7} {'arrivals':>8} {'UMQ length min/median/p90/max':>30}"
          f" {'mean UMQ search':>16}")
    for row in rows:
        for name, s in [("trace", row["trace"])] + [(f"synth", s) for s in row["synth"][:1]]:
            lengths = "/".join(str(s["umq_lengths"][k]) for k in ("min", "median", "p90", "max"))
            print(f"{row['ranks']:>5} {name:<6} {s['posts']:>7} {s['arrivals']:>8} {lengths:>30}"
                  f" {s['umq_mean']:>16.2f}")
        means = [s["umq_mean"] for s in row["synth"]]
        print(f"{'':>5} {'':<6} synth over {len(means)} seeds: mean UMQ search "
              f"{median(means):.2f} ({min(means):.2f}-{max(means):.2f})")
    return rows


def summary_of(doc):
    ll = engines_of(doc)["linked-list"]
    return {"posts": doc["trace"]["posts"], "arrivals": doc["trace"]["arrivals"],
            "umq_lengths": rank0_lengths(doc), "umq_mean": ll["umq"]["mean"]}


def part_engines(args, tmp):
    """Every engine in one replay per regime, --repeat times."""
    results = []
    for n in args.ranks:
        trace = synth(args, tmp, n, args.steps, args.seed, f"fds-{n}")
        for memory in ("bounded", "unbounded"):
            print(f"bench: {n} ranks, {memory}: {args.repeat} replays of every engine",
                  file=sys.stderr, flush=True)
            docs = [replay(args, trace, tmp, "--engine", "all", "--memory", memory, "--t", "100",
                           "--passes", str(args.passes)) for _ in range(args.repeat)]
            rows = {}
            for name in engines_of(docs[0]):
                es = [engines_of(d)[name] for d in docs]
                ns = [e["ns_per_operation"] for e in es]
                rows[name] = {"ns": median(ns), "ns_spread": spread(ns), "umq_mean": es[0]["umq"]["mean"],
                              "prq_mean": es[0]["prq"]["mean"], "partners": es[0]["partners"],
                              "memory": es[0]["memory_overhead_bytes"]["max"]}
            ll, ra = rows["linked-list"], rows["rank-array"]
            for r in rows.values():
                r["search_cut"] = ll["umq_mean"] / r["umq_mean"] if r["umq_mean"] else float("inf")
                r["time_cut"] = ll["ns"] / r["ns"]
                r["time_vs_rank_array"] = r["ns"] / ra["ns"]
                r["memory_vs_rank_array"] = r["memory"] / ra["memory"]
            results.append({"ranks": n, "memory": memory, "events": docs[0]["trace"]["events"],
                            "umq_lengths": rank0_lengths(docs[0]), "engines": rows})
    print(f"\n2. rank 0 of the FDS-like workload ({args.steps} steps, meshes {args.meshes_min}-"
          f"{args.meshes_max} a rank, {args.messages} messages a mesh), metric average, t 100, "
          f"c 1; ns/op median of {args.repeat} (spread)")
    print(f"{'ranks':>5} {'memory':<9} {'engine':<16} {'ns/op':>14} {'UMQ search':>10} "
          f"{'LL/search':>9} {'LL/time':>8} {'time/RA':>8} {'partners':>8} {'memory B':>9} {'mem/RA':>7}")
    for res in results:
        for name, r in res["engines"].items():
            if res["memory"] == "unbounded" and name not in PARTNERS:
                continue  # the same as in the bounded run
            print(f"{res['ranks']:>5} {res['memory']:<9} {name:<16} "
                  f"{r['ns']:>7.1f} ±{r['ns_spread']:<5.1f} {r['umq_mean']:>10.2f} "
                  f"{r['search_cut']:>9.1f} {r['time_cut']:>8.1f} {r['time_vs_rank_array']:>8.2f} "
                  f"{r['partners']:>8} {r['memory']:>9} {r['memory_vs_rank_array']:>7.2f}")
    return results


def sweep_settings(args):
    """(regime label, metric, replay options): unbounded with every metric;
    bounded with the average metric for every c (as the study's Fig. 7)."""
    out = [("unbounded", metric, ["--memory", "unbounded"] + options) for metric, options in METRICS
           if metric in args.metrics]
    out += [(f"c={c:g}", "average", ["--memory", "bounded", "--c", str(c)]) for c in args.cs
            if "average" in args.metrics]
    return out


def part_sweep(args, tmp):
    """The partner engines for every t, metric and regime."""
    rows = []
    for n in args.ranks:
        trace = synth(args, tmp, n, args.steps, args.seed, f"fds-{n}")
        for memory, metric, options in sweep_settings(args):
            print(f"bench: sweep {n} ranks, {memory}, {metric}", file=sys.stderr, flush=True)
            for t in args.ts:
                doc = replay(args, trace, tmp, "--engine", "all", "--t", str(t), "--passes", "1",
                             *options)
                es = engines_of(doc)
                ll = es["linked-list"]
                for name in PARTNERS:
                    e = es[name]
                    rows.append({"ranks": n, "memory": memory, "metric": metric, "t": t,
                                 "engine": name, "umq_mean": e["umq"]["mean"],
                                 "search_cut": ll["umq"]["mean"] / e["umq"]["mean"],
                                 "time_cut": ll["ns_per_operation"] / e["ns_per_operation"],
                                 "partners": e["partners"], "levels": e["levels"],
                                 "memory_bytes": e["memory_overhead_bytes"]["max"]})
    print("\n3. the sweep: linked-list's mean UMQ search / the engine's, and in parentheses "
          "linked-list's time / the engine's (one pass), per t; bounded: c sqrt(N) partners")
    print(f"{'ranks':>5} {'memory':<9} {'metric':<8} {'engine':<16} " +
          " ".join(f"{'t=' + str(t):>14}" for t in args.ts))
    order = [(m, metric) for m, metric, _ in sweep_settings(args)]
    keys = sorted({(r["ranks"], r["memory"], r["metric"], r["engine"]) for r in rows},
                  key=lambda k: (k[0], order.index((k[1], k[2])), PARTNERS.index(k[3])))
    for key in keys:
        cells = {r["t"]: r for r in rows if (r["ranks"], r["memory"], r["metric"], r["engine"]) == key}
        print(f"{key[0]:>5} {key[1]:<9} {key[2]:<8} {key[3]:<16} " +
              " ".join(f"{cells[t]['search_cut']:>6.1f} ({cells[t]['time_cut']:>5.1f})"
                       for t in args.ts))
    return rows


def part_projection(args, engines):
    """Rank 0's time per step: message costs plus matching, per engine."""
    rows = []
    message_s = EDR_OVERHEAD_S + 8 * args.doubles / EDR_BANDWIDTH
    for res in engines:
        if res["memory"] != "unbounded":
            continue
        events = res["events"] / args.steps  # arrivals + posts at rank 0 a step
        messages = events / 2
        base = messages * message_s
        ll = res["engines"]["linked-list"]["ns"] * 1e-9 * events
        for name, r in res["engines"].items():
            if name not in ("linked-list", "rank-array") + tuple(PARTNERS):
                continue
            matching = r["ns"] * 1e-9 * events
            rows.append({"ranks": res["ranks"], "engine": name, "messages_per_step": messages,
                         "message_seconds": base, "matching_seconds": matching,
                         "speedup": (base + ll) / (base + matching)})
    print(f"\n4. projection: rank 0's time per step = its {args.doubles * 8}-byte messages' cost "
          f"({EDR_OVERHEAD_S * 1e6:.1f} us + bytes / {EDR_BANDWIDTH / 1e9:.1f} GB/s each) + "
          "matching (unbounded partners); speedup over linked-list")
    print(f"{'ranks':>5} {'engine':<16} {'messages':>9} {'message ms':>10} {'matching ms':>11} "
          f"{'speedup':>8}")
    for r in rows:
        print(f"{r['ranks']:>5} {r['engine']:<16} {r['messages_per_step']:>9.0f} "
              f"{r['message_seconds'] * 1e3:>10.2f} {r['matching_seconds'] * 1e3:>11.2f} "
              f"{r['speedup']:>8.2f}")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--ranks", type=int, nargs="+", default=[1024, 2048])
    p.add_argument("--steps", type=int, default=16)
    p.add_argument("--trace-ranks", type=int, nargs="*", default=[16, 32, 64, 128, 256])
    p.add_argument("--trace-steps", type=int, default=4)
    p.add_argument("--meshes-min", type=int, default=1)
    p.add_argument("--meshes-max", type=int, default=4)
    p.add_argument("--messages", type=int, default=4)
    p.add_argument("--doubles", type=int, default=8, help="fds_like's message size, in doubles")
    p.add_argument("--ts", type=int, nargs="+", default=[25, 50, 100, 400, 1600])
    p.add_argument("--cs", type=float, nargs="+", default=[1, 4, 16],
                   help="bounded memory: at most c sqrt(N) partners (the sweep)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--metrics", nargs="+", default=[m for m, _ in METRICS],
                   choices=[m for m, _ in METRICS], help="the sweep's metrics")
    p.add_argument("--skip-engines", action="store_true", help="leave out part 2 (and 4)")
    p.add_argument("--skip-sweep", action="store_true")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "mq_fds.json"))
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: {args.graphcomm} not built (scripts/build)")
    with tempfile.TemporaryDirectory() as tmp:
        doc = {"options": vars(args)}
        doc["trace_vs_synth"] = part_trace(args, tmp) if args.trace_ranks else []
        doc["engines"] = [] if args.skip_engines else part_engines(args, tmp)
        doc["sweep"] = [] if args.skip_sweep else part_sweep(args, tmp)
        doc["projection"] = part_projection(args, doc["engines"])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp_out, args.out)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()

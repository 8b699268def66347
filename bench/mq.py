#!/usr/bin/env python3
"""Benchmark of the message-matching engines (graphcomm mq replay): every
engine on synthetic traces -- many-to-one (the FDS-like extreme case of the
partner-queue study) at 64, 256 and 1024 simulated ranks and, at the
largest, with heavier and lighter heavy senders (the skew sweep), the long-queue
microbenchmark (depth) and wildcard mixes -- and optionally on real traces
recorded with the tracer. Prints one table (per workload and engine: median
and spread of the time per matching operation over the repetitions, mean
elements traversed per PRQ and UMQ search, partner queues, memory overhead,
speedup over linked-list) and writes every run as JSON.

    bench/mq.py [--ranks 64 256 1024] [--heavy-factors 8 128 512] [--messages 4]
                [--depths 1024 8192]
                [--wildcard-ranks 256] [--repeat 5] [--passes 5]
                [--traces DIR ...] [--out bench/results/mq.json]

Each repetition replays every workload once (`--engine all`: inside one run
the engines take turns rank by rank, pass by pass, and each rank's time is
its median pass); repetitions go round all workloads before starting again,
so that every workload sees the machine in the same states. Search lengths,
partners and memory are deterministic; times are not: compare ratios within
one run.

No reference code: the script makes the workloads (`graphcomm mq synth`,
scripts/trace), and the replays run through graphcomm-lab (bench/lab.py), one
run of a suite each, one repetition of every workload at a time, into the
lab's store (--store, default results/lab.sqlite; suite bench-mq@TIME).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import lab
from lab import GCRUN, ROOT, config, median, spread
from graphcomm_lab.runner import build_workload


def graphcomm(binary, args):
    cmd = [GCRUN, "-np", "1", binary] + args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"failed: {' '.join(cmd)}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def workloads(args, tmp):
    """(name, trace directory or files, synth arguments or None)."""
    out = []
    for n in args.ranks:
        out.append((f"many-to-one/{n}", ["many-to-one", "--ranks", str(n), "--messages",
                                         str(args.messages), "--seed", str(args.seed)]))
    # The skew sweep: how much of rank 0's queue the heavy senders bring
    # decides what partner queues can cut (see skew_verdicts).
    for factor in args.heavy_factors:
        n = max(args.ranks)
        out.append((f"many-to-one/{n}/x{factor}",
                    ["many-to-one", "--ranks", str(n), "--messages", str(args.messages),
                     "--heavy-factor", str(factor), "--seed", str(args.seed)]))
    for d in args.depths:
        out.append((f"depth/{d}", ["depth", "--depth", str(d), "--ranks", "64"]))
    for f in args.wildcard_fractions:
        out.append((f"wildcard/{args.wildcard_ranks}/{f}",
                    ["wildcard", "--ranks", str(args.wildcard_ranks), "--messages",
                     str(args.messages), "--fraction", str(f), "--seed", str(args.seed)]))
    made = []
    for name, synth in out:
        directory = os.path.join(tmp, name.replace("/", "_"))
        print(f"bench: synth {name}", file=sys.stderr, flush=True)
        said = graphcomm(args.graphcomm, ["mq", "synth"] + synth + ["--output", directory])
        made.append((name, [directory], synth, said.splitlines()[0]))
    for t in args.traces:
        made.append((f"trace:{os.path.basename(os.path.normpath(t))}", [t], None, None))
    if args.record:
        made += record(args, tmp)
    return made


LAMMPS_EXAMPLES = ["melt", "min", "crack", "flow/in.flow.pois"]


def record(args, tmp):
    """Real traces, recorded with scripts/trace: LAMMPS examples (Debian's
    lammps, lammps-examples), the AMG driver (bench/workloads, hypre's
    BoomerAMG from libhypre-dev) and graphcomm's own two-sided kernels."""
    trace = os.path.join(ROOT, "scripts", "trace")
    n = args.record_ranks
    programs = []
    examples = "/usr/share/lammps/examples"
    if shutil.which("lmp") and os.path.isdir(examples):
        for ex in LAMMPS_EXAMPLES:
            path = os.path.join(examples, ex if "/" in ex else f"{ex}/in.{ex}")
            programs.append((f"lammps:{ex.split('/')[0]}", os.path.dirname(path),
                             ["lmp", "-in", path, "-log", "none", "-screen", "none"]))
    else:
        print("bench: no lmp or LAMMPS examples (apt-get install lammps lammps-examples): "
              "LAMMPS not traced", file=sys.stderr)
    try:
        amg, amg_args = build_workload("amg", tmp)
        programs.append(("amg", tmp, [str(amg)] + amg_args))
    except RuntimeError as e:
        print(f"bench: AMG driver not built (apt-get install libhypre-dev): {e}", file=sys.stderr)
    programs.append(("graphcomm:match-nsr", tmp, [args.graphcomm, "match", "-q", "--graph",
                                                   "rmat:14", "--model", "nsr"]))
    programs.append(("graphcomm:bfs-nsr", tmp, [args.graphcomm, "bfs", "-q", "--graph",
                                                 "rmat:14", "--model", "nsr", "--roots", "4"]))
    made = []
    for name, cwd, cmd in programs:
        out = os.path.join(tmp, "trace_" + name.replace(":", "_").replace("/", "_"))
        print(f"bench: tracing {name} at {n} ranks", file=sys.stderr, flush=True)
        proc = subprocess.run([trace, "--out", out, "-np", str(n)] + cmd, cwd=cwd,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"bench: tracing {name} failed: {proc.stderr[-500:]}", file=sys.stderr)
            continue
        made.append((f"{name}/{n}", [out], None, None))
    return made


def replay(args, session, rep, traces):
    """`mq replay TRACE --engine E --passes N` through the lab."""
    (trace,) = traces
    return session.document(rep, config("mq", trace, args.engine, 1, {"passes": args.passes}))


def summarize(runs):
    """Per engine: median and spread of ns/op over runs, and the run-independent figures."""
    rows = []
    for i, first in enumerate(runs[0]["engines"]):
        times = [r["engines"][i]["ns_per_operation"] for r in runs]
        rows.append({
            "engine": first["engine"],
            "ns_per_operation": times,
            "median_ns": median(times),
            "spread_ns": spread(times),
            "prq_mean": first["prq"]["mean"],
            "umq_mean": first["umq"]["mean"],
            "prq_max": first["prq"]["max"],
            "umq_max": first["umq"]["max"],
            "partners": first["partners"],
            "levels": first["levels"],
            "extraction_percent": median(
                r["engines"][i]["extraction"]["percent_of_time"] for r in runs),
            "memory_max": first["memory_overhead_bytes"]["max"],
            "check": "OK" if all(r["engines"][i]["check"] == "OK" for r in runs) else "FAIL",
        })
    reference = next((r["median_ns"] for r in rows if r["engine"] == "linked-list"), None)
    for r in rows:
        r["speedup"] = reference / r["median_ns"] if reference and r["median_ns"] > 0 else None
    return rows


def print_queue_lengths(results):
    """The workload's queue lengths (the layer's view, the same for every engine)."""
    print("\nqueue length at each search, all ranks (median, p90: nearest rank)")
    print(f"{'workload':<22} {'prq_srch':>9} {'median':>7} {'p90':>7} {'max':>7} {'mean':>9} "
          f"{'umq_srch':>9} {'median':>7} {'p90':>7} {'max':>7} {'mean':>9}")
    for w in results:
        q = w["runs"][0]["queue_lengths"]["all"]
        cells = "".join(f" {q[k]['searches']:>9} {q[k]['median']:>7} {q[k]['p90']:>7} "
                        f"{q[k]['max']:>7} {q[k]['mean']:>9.2f}" for k in ("prq", "umq"))
        print(f"{w['workload']:<22}{cells}")
        w["queue_lengths"] = q


def skew_verdicts(results):
    """Many-to-one: the light senders' share of the messages against what the
    partner engines cut (the issue's target: 20x shorter searches and time
    than linked-list). A light sender's receive searches the non-partner
    queue, which holds the light share s of rank 0's queue, so the cut on
    those receives is about 1/s; heavy senders' receives add what
    linked-list spends finding their first message (little, for large
    factors)."""
    print("\nmany-to-one: light senders' share of the messages against the cut "
          "(linked-list / engine; target 20x)")
    print(f"{'workload':<22} {'light_share':>11} {'1/s':>7} {'engine':<16} {'search_cut':>10} "
          f"{'time_cut':>9} {'mem_B':>7}  verdict")
    for w in results:
        if not w["workload"].startswith("many-to-one"):
            continue
        m = re.search(r"many-to-one: (\d+) senders \((\d+) heavy, (\d+) messages a step\)",
                      w["description"] or "")
        if not m:
            continue
        senders, heavy, factor = (int(x) for x in m.groups())
        light_share = (senders - heavy) / (senders - heavy + heavy * factor)
        rows = {r["engine"]: r for r in w["engines"]}
        ll = rows.get("linked-list")
        if not ll:
            continue
        for engine in ("partner-static", "partner-dynamic", "partner-vectors"):
            r = rows.get(engine)
            if not r or r["umq_mean"] <= 0:
                continue
            search_cut = ll["umq_mean"] / r["umq_mean"]
            time_cut = r["speedup"] or 0.0
            verdict = "met" if search_cut >= 20 and time_cut >= 20 else "not met"
            print(f"{w['workload']:<22} {light_share:>11.3f} {1 / light_share:>7.1f} "
                  f"{engine:<16} {search_cut:>10.1f} {time_cut:>9.1f} {r['memory_max']:>7}  "
                  f"{verdict}")
            w.setdefault("skew", {})[engine] = {
                "light_share": light_share, "search_cut": search_cut, "time_cut": time_cut,
                "verdict": verdict}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--ranks", type=int, nargs="*", default=[64, 256, 1024],
                   help="many-to-one: simulated ranks")
    p.add_argument("--messages", type=int, default=4, help="steps of many-to-one and wildcard")
    p.add_argument("--heavy-factors", type=int, nargs="*", default=[8, 128, 512],
                   help="many-to-one at the largest --ranks with these heavy factors "
                        "(messages a step of a heavy sender; the default workload's is 32)")
    p.add_argument("--depths", type=int, nargs="*", default=[1024, 8192])
    p.add_argument("--wildcard-ranks", type=int, default=256)
    p.add_argument("--wildcard-fractions", type=float, nargs="*", default=[0.1, 0.5])
    p.add_argument("--traces", nargs="*", default=[], help="real trace directories")
    p.add_argument("--record", action="store_true",
                   help="record real traces first: LAMMPS, AMG (hypre), graphcomm match/bfs")
    p.add_argument("--record-ranks", type=int, default=8)
    p.add_argument("--engine", default="all")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--passes", type=int, default=5, help="passes per replay (median)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "mq.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")

    session = lab.bench("mq", args, args.graphcomm)
    with tempfile.TemporaryDirectory(prefix="gc-bench-mq-") as tmp:
        loads = workloads(args, tmp)
        runs = {name: [] for name, *_ in loads}
        for rep in range(args.repeat):
            for name, traces, *_ in loads:
                print(f"bench: repetition {rep + 1}/{args.repeat}: {name}", file=sys.stderr,
                      flush=True)
                runs[name].append(replay(args, session, rep, traces))

    print(f"{'workload':<22} {'engine':<15} {'ns/op':>9} {'spread':>8} {'speedup':>8} "
          f"{'prq_mean':>9} {'umq_mean':>9} {'umq_max':>8} {'partners':>8} {'ext_%':>6} "
          f"{'mem_B':>8}  check")
    results = []
    for name, traces, synth, description in loads:
        rows = summarize(runs[name])
        trace = runs[name][0]["trace"]
        results.append({"workload": name, "synth": synth, "traces": traces if not synth else None,
                        "description": description, "trace": trace, "engines": rows,
                        "runs": runs[name]})
        for r in rows:
            speedup = f"{r['speedup']:.2f}" if r["speedup"] else "-"
            print(f"{name:<22} {r['engine']:<15} {r['median_ns']:>9.1f} {r['spread_ns']:>8.1f} "
                  f"{speedup:>8} {r['prq_mean']:>9.2f} {r['umq_mean']:>9.2f} {r['umq_max']:>8} "
                  f"{r['partners']:>8} {r['extraction_percent']:>6.2f} {r['memory_max']:>8}  "
                  f"{r['check']}")
        sys.stdout.flush()
    print_queue_lengths(results)
    skew_verdicts(results)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"repeat": args.repeat, "passes": args.passes, "workloads": results}, f,
                  indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

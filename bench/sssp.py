#!/usr/bin/env python3
"""Benchmark of graphcomm sssp (Graph500 kernel 3, single-source shortest
paths) on Kronecker graphs of the given SCALEs at 2 and 4 ranks, repeated and
interleaved with the Graph500 3.0.0 reference's SSSP and GAP's sssp, side by
side; prints harmonic-mean TEPS (the Graph500 figure) and time per search,
median and spread (min-max) over repetitions, the ratios to the references,
and writes every run as JSON.

    bench/sssp.py [--scales 16 18 20] [--ranks 2 4] [--repeat 3] [--roots 16]
                  [--configurations ALGORITHM/MODEL ...] [--graph500-3-dir DIR]
                  [--gap-dir DIR] [--gap-threads 2] [--gap-delta 2]
                  [--gap-wait-policy active|passive]
                  [--store FILE] [--out bench/results/sssp.json]

What runs, in each repetition, for each SCALE:
- graphcomm: `sssp --scale SCALE --roots R` at every rank count, once in its
  default configuration (no --algorithm, no --model: delta-stepping/ncl,
  delta auto) and once per --configurations entry ALGORITHM/MODEL (e.g.
  delta-stepping/ncl bellman-ford/nsr-agg; one equal to the default's is run
  once). Through graphcomm-lab (bench/lab.py), as bench/bfs.py: each run goes
  into the lab's store (--store, default results/lab.sqlite; suite
  bench-sssp@TIME, input graph500:SCALE) and is read back from there. A run
  whose validation is not OK ends the script, as in bfs.py.
- --graph500-3-dir: Graph500 reference 3.0.0 (tag graph500-3.0.0), binary
  graph500_reference_bfs_sssp, its src/Makefile's target built with -DSSSP
  (`make MPICC=mpicc.openmpi CFLAGS="-Drestrict=__restrict__ -O3
  -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon"
  graph500_reference_bfs_sssp`: -fcommon for GCC 10 and later), run
  at the same SCALE and rank count, as `BIN SCALE 16` with SKIP_BFS=1 (else
  it runs its 64 BFSs first; its `bfs` lines are then garbage and ignored)
  and SKIP_VALIDATION=1 (validation is not timed). It always searches from 64
  roots (3.0.0 has no NBFS setting); its figures are the `sssp ...` lines
  (`sssp harmonic_mean_TEPS: ! X`, `sssp mean_time`, ...) and `median_nedge`.
- --gap-dir: the GAP Benchmark Suite's sssp (`make sssp`), once per SCALE
  (not per rank count) on --gap-threads OpenMP threads (default 2, this
  machine's cores): `sssp -g SCALE -k 16 -n R -d DELTA` (-d 2 by default, the
  delta of GAP's own benchmark for its kron graph). It prints the time of each
  trial and their mean, "Average Time".

How each figure is computed:
- TEPS: graphcomm's and the reference's own harmonic_mean_TEPS (Graph500: the
  harmonic mean over searches of nedge / time). GAP prints no TEPS; its TEPS
  is nedge / Average Time, where nedge is the edge count of a SCALE graph as
  the 3.0.0 reference counts it: the median of the reference's median_nedge
  over its runs at that SCALE, or, where the reference did not run, the
  median of graphcomm's default configuration's median nedge at that SCALE.
  For a constant nedge, nedge / mean time is exactly the harmonic mean of
  nedge / time, so the figure is of the same kind as the others.
- time per search: the mean over searches, the time behind harmonic-mean
  TEPS (graphcomm: time.mean; reference: `sssp mean_time`; GAP: Average
  Time); the JSON keeps graphcomm's and the reference's medians too.
- ratios, repetition by repetition (runs that ran back to back), then their
  median and range: graphcomm's TEPS over the reference's at the same SCALE
  and ranks (target: at least 2); graphcomm's time per search over GAP's at
  the same SCALE (target: at most 2 at 2 ranks; reported at 4 ranks too).

The graphs differ, so TEPS compare alike, not identical, graphs: every
program has its own generator of the same specification (edgefactor 16,
A=0.57, B=0.19, C=0.19). Weights: graphcomm draws doubles in (0, 1] per
vertex pair (every copy of a repeated edge alike; one kept, self-loops
dropped); the reference floats in [0, 1) per input tuple, keeping every
duplicate with its own weight (self-loops dropped); GAP integers 1..255 on a
graph without duplicates or self-loops. nedge: graphcomm counts the input
tuples in the searched component with self-loops, the reference without
them; GAP prints only its deduplicated undirected edge count (in the JSON).

Times on a busy machine are noisy: compare within one run, as ratios. GAP's
threads meet at barriers in every bucket; with both on one busy core, a
spinning waiter burns its time slice each time, and a run at SCALE 10-12
took about 1 s a search instead of 0.5 ms here, now and then (its trial
times are in the JSON). --gap-wait-policy passive (OMP_WAIT_POLICY) avoids
that at some cost on an idle machine; by default GAP runs as it comes.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import lab
from lab import GCRUN, ROOT, BenchError, config, median, ratios
from bfs import gap_figures, run
from graphcomm_lab.stats import median_range_text

REFERENCE = "graph500_reference_bfs_sssp"
REFERENCE_NAME = "graph500-3.0.0"
# `sssp harmonic_mean_TEPS:     !  1.2e+08`, `median_nedge:  65327`; not the `bfs ` lines.
SSSP_KEY = re.compile(r"^\s*(sssp\s+)?([A-Za-z_]+):\s*!?\s*([-+0-9.eE]+|-?nan|-?inf)\s*$")
GAP_GRAPH = re.compile(r"Graph has (\d+) nodes and (\d+) (?:un)?directed edges")
TEPS_TARGET = 2.0   # graphcomm / reference TEPS, at least
GAP_TARGET = 2.0    # graphcomm / GAP time per search, at most, at 2 ranks
GAP_TARGET_RANKS = 2


def configuration(text):
    """argparse type of ALGORITHM/MODEL."""
    algorithm, _, model = text.partition("/")
    if not algorithm or not model:
        raise argparse.ArgumentTypeError(f"'{text}' is not ALGORITHM/MODEL "
                                         "(e.g. delta-stepping/ncl, bellman-ford/nsr-agg)")
    return text


def ours(session, rep, scale, ranks, roots, configurations):
    """[(configuration, run record of graphcomm's JSON)], the default first."""
    options = {"roots": roots}
    default = session.document(rep, config("sssp", f"graph500:{scale}", None, ranks, options))
    runs = [default["runs"][0]]
    wanted = [c for c in configurations if c != runs[0]["configuration"]]
    configs = []
    for c in wanted:
        algorithm, model = c.split("/", 1)
        configs.append(config("sssp", f"graph500:{scale}", model, ranks,
                              dict(options, algorithm=algorithm)))
    for c, doc in zip(wanted, session.documents(rep, configs) if configs else []):
        if doc["runs"][0]["configuration"] != c:
            raise BenchError(f"asked for {c}, graphcomm ran {doc['runs'][0]['configuration']}")
        runs.append(doc["runs"][0])
    for r in runs:
        if r["validation"] != "OK":
            raise BenchError(f"validation failed: SCALE {scale}, {ranks} ranks, "
                             f"{r['configuration']}: {r['validation']}")
    return [(r["configuration"], r) for r in runs]


def reference_figures(text):
    """The reference's SSSP figures: the `sssp key:` lines without their
    prefix and the unprefixed ones (SCALE, NBFS, nedge, construction); {}
    with a note when it printed no results."""
    figures = {}
    for line in text.splitlines():
        m = SSSP_KEY.match(line)
        if m:
            figures[m.group(2)] = float(m.group(3))
    if "No results printed for invalid run" in text:
        figures["note"] = "no results printed for invalid run"
    return figures


def gap_sssp_figures(text):
    """GAP's Average Time (as median_time in bfs.py's gap_figures: here it is
    the mean) and its graph's size."""
    average = gap_figures(text)
    figures = {"mean_time": average["median_time"]} if average else {}
    m = GAP_GRAPH.search(text)
    if m:
        figures["vertices"], figures["undirected_edges"] = int(m.group(1)), int(m.group(2))
    figures["trial_times"] = [float(t) for t in re.findall(r"Trial Time:\s*([0-9.eE+-]+)", text)]
    return figures


def attempt(name, cmd, env, timeout, parse):
    """(figures, error): a failed or timed-out run is recorded, not fatal."""
    try:
        return parse(run(cmd, env, timeout)), None
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        print(f"bench: {name}: {e}", file=sys.stderr)
        return {}, str(e).splitlines()[0]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--scales", type=int, nargs="+", default=[16, 18, 20])
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--roots", type=int, default=16)
    p.add_argument("--configurations", type=configuration, nargs="+", default=[],
                   help="ALGORITHM/MODEL, run besides the default configuration")
    p.add_argument("--graph500-3-dir", help=f"directory of Graph500 3.0.0's {REFERENCE}")
    p.add_argument("--gap-dir", help="directory of GAP's sssp")
    p.add_argument("--gap-threads", type=int, default=2)
    p.add_argument("--gap-delta", default="2", help="GAP's -d (its weights are 1..255)")
    p.add_argument("--gap-wait-policy", choices=["active", "passive"],
                   help="OMP_WAIT_POLICY for GAP (default: unset, libgomp's own)")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "sssp.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")
    reference = os.path.join(args.graph500_3_dir, REFERENCE) if args.graph500_3_dir else None
    gap = os.path.join(args.gap_dir, "sssp") if args.gap_dir else None
    for path in filter(None, [reference, gap]):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench: no {path} (bench/sssp.py -h says how it is built)")
    gap_name = f"gap-sssp ({args.gap_threads} threads)"

    records = []
    # (scale, ranks or None, program): {repetition: figure}
    teps, mean_s, median_s, nedge = {}, {}, {}, {}
    configurations = {}  # scale, ranks: graphcomm's configurations in order
    session = lab.bench("sssp", args, args.graphcomm)
    env = dict(os.environ)
    for scale in args.scales:
        for rep in range(args.repeat):
            for ranks in args.ranks:
                # Interleaved: ours, then the reference, in each repetition.
                print(f"bench: SCALE {scale}, {ranks} ranks, repetition {rep + 1}/{args.repeat}",
                      file=sys.stderr, flush=True)
                for i, (name, r) in enumerate(ours(session, rep, scale, ranks, args.roots,
                                                   args.configurations)):
                    key = (scale, ranks, name)
                    configurations.setdefault((scale, ranks), {})[name] = i == 0
                    teps.setdefault(key, {})[rep] = r["harmonic_mean_TEPS"]
                    mean_s.setdefault(key, {})[rep] = r["time"]["mean"]
                    median_s.setdefault(key, {})[rep] = r["time"]["median"]
                    nedge.setdefault(key, {})[rep] = r["nedge"]["median"]
                    records.append({"scale": scale, "ranks": ranks, "repetition": rep,
                                    "program": "graphcomm", "configuration": name,
                                    "default": i == 0, "record": r})
                if reference:
                    cmd = [GCRUN, "-np", str(ranks), reference, str(scale), "16"]
                    figures, error = attempt(REFERENCE_NAME, cmd,
                                             dict(env, SKIP_BFS="1", SKIP_VALIDATION="1"),
                                             args.timeout, reference_figures)
                    records.append({"scale": scale, "ranks": ranks, "repetition": rep,
                                    "program": REFERENCE_NAME, "command": cmd,
                                    "figures": figures, "error": error})
                    key = (scale, ranks, REFERENCE_NAME)
                    for table, field in ((teps, "harmonic_mean_TEPS"), (mean_s, "mean_time"),
                                         (median_s, "median_time"), (nedge, "median_nedge")):
                        if field in figures:
                            table.setdefault(key, {})[rep] = figures[field]
                    if "harmonic_mean_TEPS" not in figures:
                        print(f"bench: {REFERENCE_NAME}: SCALE {scale}, {ranks} ranks: no TEPS",
                              file=sys.stderr)
            if gap:
                print(f"bench: SCALE {scale}, {gap_name}, repetition {rep + 1}/{args.repeat}",
                      file=sys.stderr, flush=True)
                cmd = [gap, "-g", str(scale), "-k", "16", "-n", str(args.roots),
                       "-d", str(args.gap_delta)]
                genv = dict(env, OMP_NUM_THREADS=str(args.gap_threads))
                if args.gap_wait_policy:
                    genv["OMP_WAIT_POLICY"] = args.gap_wait_policy
                figures, error = attempt(gap_name, cmd, genv, args.timeout, gap_sssp_figures)
                records.append({"scale": scale, "ranks": None, "repetition": rep,
                                "program": gap_name, "command": cmd, "figures": figures,
                                "error": error})
                if "mean_time" in figures:
                    mean_s.setdefault((scale, None, gap_name), {})[rep] = figures["mean_time"]

    # GAP's TEPS: the SCALE's nedge as the reference counts it (graphcomm's without it).
    gap_nedge = {}
    for scale in args.scales:
        ref = [v for (s, _, n), d in nedge.items() if s == scale and n == REFERENCE_NAME
               for v in d.values()]
        own = [v for (s, r, n), d in nedge.items()
               if s == scale and configurations.get((s, r), {}).get(n) for v in d.values()]
        source, counts = (REFERENCE_NAME, ref) if ref else ("graphcomm", own)
        gap_nedge[scale] = {"nedge": median(counts), "source": source}
        key = (scale, None, gap_name)
        if key in mean_s and counts:
            teps[key] = {r: median(counts) / t for r, t in mean_s[key].items() if t > 0}

    def values(table, key):
        return list(table.get(key, {}).values())

    def mark(met):
        return "" if met is None else (" ok" if met else " NO")

    def paired(num, den):
        """Ratios of the repetitions both have."""
        return ratios([num[r] for r in sorted(num) if r in den],
                      [den[r] for r in sorted(num) if r in den])

    rows = []
    print(f"\n{'SCALE':>5} {'P':>2} {'program':<32} {'hmean_MTEPS (min-max)':>26} "
          f"{'ms/search (min-max)':>30} {'nedge':>10}")
    for scale in args.scales:
        keys = []
        for ranks in args.ranks:
            keys += [(scale, ranks, n) for n in configurations.get((scale, ranks), {})]
            keys.append((scale, ranks, REFERENCE_NAME))
        keys.append((scale, None, gap_name))
        for key in keys:
            if key not in teps and key not in mean_s:
                continue
            t, s = values(teps, key), values(mean_s, key)
            n = median(values(nedge, key)) if key[2] != gap_name else gap_nedge[scale]["nedge"]
            rows.append({"scale": scale, "ranks": key[1], "name": key[2], "hmean_teps": t,
                         "mean_seconds": s, "median_seconds": values(median_s, key),
                         "nedge": n})
            print(f"{scale:>5} {key[1] or '-':>2} {key[2]:<32} "
                  f"{median_range_text([v * 1e-6 for v in t], '.2f'):>26} "
                  f"{median_range_text([v * 1e3 for v in s], '.3f'):>30} "
                  f"{'-' if n is None else format(n, '.0f'):>10}")

    comparisons = []
    print(f"\n{'SCALE':>5} {'P':>2} {'configuration':<32} {'MTEPS':>9} {'ref_MTEPS':>9} "
          f"{'x_ref (min-max)':>22} {'GAP_ms':>9} {'x_GAP_time (min-max)':>30}")
    for scale in args.scales:
        for ranks in args.ranks:
            ref_key, gap_key = (scale, ranks, REFERENCE_NAME), (scale, None, gap_name)
            for name in configurations.get((scale, ranks), {}):
                key = (scale, ranks, name)
                x_ref = paired(teps[key], teps.get(ref_key, {}))
                x_gap = paired(mean_s[key], mean_s.get(gap_key, {}))
                met_ref = median(x_ref) >= TEPS_TARGET if x_ref else None
                met_gap = (median(x_gap) <= GAP_TARGET
                           if x_gap and ranks == GAP_TARGET_RANKS else None)
                comparisons.append({
                    "scale": scale, "ranks": ranks, "configuration": name,
                    "hmean_teps": median(values(teps, key)),
                    "reference_hmean_teps": median(values(teps, ref_key)),
                    "teps_ratio_to_reference": x_ref,
                    "teps_ratio_to_reference_median": median(x_ref),
                    "teps_target_met": met_ref,
                    "gap_seconds": median(values(mean_s, gap_key)),
                    "time_ratio_to_gap": x_gap,
                    "time_ratio_to_gap_median": median(x_gap), "gap_target_met": met_gap})

                ref_t, gap_t = median(values(teps, ref_key)), median(values(mean_s, gap_key))
                print(f"{scale:>5} {ranks:>2} {name:<32} "
                      f"{median(values(teps, key)) * 1e-6:>9.2f} "
                      f"{'-' if ref_t is None else format(ref_t * 1e-6, '.2f'):>9} "
                      f"{median_range_text(x_ref, '.3g') + mark(met_ref):>22} "
                      f"{'-' if gap_t is None else format(gap_t * 1e3, '.3f'):>9} "
                      f"{median_range_text(x_gap, '.3g') + mark(met_gap):>30}")
    print(f"targets: x_ref (graphcomm TEPS / reference TEPS) at least {TEPS_TARGET:g}; "
          f"x_GAP_time (graphcomm time / GAP time) at most {GAP_TARGET:g} at "
          f"{GAP_TARGET_RANKS} ranks")

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"settings": {"scales": args.scales, "ranks": args.ranks,
                                "repeat": args.repeat, "roots": args.roots,
                                "configurations": args.configurations,
                                "graph500_3": reference, "gap": gap,
                                "gap_threads": args.gap_threads, "gap_delta": args.gap_delta,
                                "gap_wait_policy": args.gap_wait_policy,
                                "suite": session.suite_name(), "store": args.store},
                   "gap_nedge": {str(s): v for s, v in gap_nedge.items()},
                   "rows": rows, "comparisons": comparisons, "runs": records}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

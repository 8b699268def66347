#!/usr/bin/env python3
"""Benchmark of graphcomm bfs (Graph500 BFS): every algorithm/model
configuration on Kronecker graphs of the given SCALEs at 2 and 4 ranks,
repeated and interleaved with the reference codes, side by side; prints
harmonic-mean TEPS (the Graph500 figure) and time per search, median and
spread over repetitions, and writes every run as JSON.

    bench/bfs.py [--scales 16 18 20] [--ranks 2 4] [--repeat 3] [--roots 64]
                 [--configurations C ...] [--graph500-dir DIR]
                 [--graph500-2-scales 16] [--graph500-2-programs P ...]
                 [--graph500-3-dir DIR] [--gap-dir DIR]
                 [--combblas-dir DIR] [--out bench/results/bfs.json]

The reference codes are not part of graphcomm and are never downloaded by it:
build them yourself (bench/README.md says how) and name their directories.
- --graph500-dir: Graph500 reference 2.1.4, binaries graph500_mpi_simple,
  graph500_mpi_replicated, graph500_mpi_replicated_csc, graph500_mpi_one_sided
  (run as `BIN SCALE EDGEFACTOR`). It validates all 64 searches and cannot
  skip it (minutes per search at SCALE 20 here), so it runs only at the
  scales of --graph500-2-scales (default 16).
- --graph500-3-dir: Graph500 reference 3.0.0, binary graph500_reference_bfs
  (run as `BIN SCALE EDGEFACTOR` with SKIP_VALIDATION=1, which changes no
  timed figure; its BFS figures are the `bfs_` lines).
- --gap-dir: the GAP Benchmark Suite, binary bfs (`bfs -g SCALE -n N`,
  OMP_NUM_THREADS = ranks; its time per search is "Average Time").
- --combblas-dir: CombBLAS, binary dobfs (needs a square rank count, so it
  runs at 1 and 4 ranks only; `dobfs SCALE`, one OpenMP thread per rank).
Every program uses its own generator of the same specification (SCALE,
edgefactor 16, A=0.57, B=0.19, C=0.19), so the graphs are alike, not
identical; TEPS uses each program's own nedge (Graph500 counts input tuples).

graphcomm runs through graphcomm-lab (bench/lab.py): in each repetition,
`bfs --scale SCALE --model all` is one run of a suite (input graph500:SCALE)
into the lab's store (--store, default results/lab.sqlite; suite
bench-bfs@TIME), read back from there, then every reference code runs, so
they stay interleaved.

Times on a busy machine are noisy: compare within one run, as ratios.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import lab
from lab import GCRUN, ROOT, BenchError, config, median, spread

G500_KEY = re.compile(r"^\s*(?:bfs\s+)?([A-Za-z_]+):\s*!?\s*([-+0-9.eE]+|nan|inf)\s*$")


def run(cmd, env=None, timeout=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return proc.stdout + proc.stderr  # CombBLAS prints its figures on stderr


def ours(session, rep, scale, ranks, roots, configurations):
    """{configuration: (hmean TEPS, median seconds per search, record)}."""
    doc = session.document(rep, config("bfs", f"graph500:{scale}", "all", ranks,
                                       {"roots": roots}))
    result = {}
    for r in doc["runs"]:
        if configurations and r["configuration"] not in configurations:
            continue
        if r["validation"] != "OK":
            raise BenchError(f"validation failed: {r['configuration']}: {r['validation']}")
        result[r["configuration"]] = (r["harmonic_mean_TEPS"], r["time"]["median"], r)
    return result


def graph500_block(text, prefix=""):
    """The key: value lines of a Graph500 output block (3.0.0: 'bfs  key:')."""
    figures = {}
    for line in text.splitlines():
        m = G500_KEY.match(line)
        if m and (not prefix or line.lstrip().startswith(prefix)):
            figures[m.group(1)] = float(m.group(2))
    return figures


def references(args, scale, ranks):
    """[(name, command, env, parser)] for the reference codes available at this rank count."""
    refs = []
    env = dict(os.environ)
    if args.graph500_dir and scale in args.graph500_2_scales:
        env = dict(env, OMP_NUM_THREADS="1")  # 2.1.4 is built with OpenMP: one thread per rank
        for name in args.graph500_2_programs:
            binary = os.path.join(args.graph500_dir, f"graph500_{name}")
            if os.path.exists(binary):
                refs.append((f"graph500-2.1.4/{name.removeprefix('mpi_')}",
                             [GCRUN, "-np", str(ranks), binary, str(scale), "16"], env,
                             lambda t: graph500_block(t)))
    if args.graph500_3_dir:
        binary = os.path.join(args.graph500_3_dir, "graph500_reference_bfs")
        refs.append(("graph500-3.0.0", [GCRUN, "-np", str(ranks), binary, str(scale), "16"],
                     dict(env, SKIP_VALIDATION="1"), lambda t: graph500_block(t, "bfs")))
    if args.gap_dir:
        genv = dict(env, OMP_NUM_THREADS=str(ranks))
        refs.append((f"gap-bfs ({ranks} threads)",
                     [os.path.join(args.gap_dir, "bfs"), "-g", str(scale), "-n", "16"], genv,
                     gap_figures))
    if args.combblas_dir and ranks in (1, 4):
        cenv = dict(env, OMP_NUM_THREADS="1")
        refs.append(("combblas-dobfs",
                     [GCRUN, "-np", str(ranks), os.path.join(args.combblas_dir, "dobfs"),
                      str(scale)], cenv, combblas_figures))
    return refs


def gap_figures(text):
    m = re.search(r"Average Time:\s*([0-9.eE+-]+)", text)
    return {"median_time": float(m.group(1))} if m else {}


def combblas_figures(text):
    """dobfs prints 'Harmonic mean of MTEPS: X' and 'Median time: X seconds'."""
    out = {}
    m = re.search(r"Harmonic mean of MTEPS:\s*([0-9.eE+-]+)", text)
    if m:
        out["harmonic_mean_TEPS"] = float(m.group(1)) * 1e6
    m = re.search(r"Median time:\s*([0-9.eE+-]+)", text)
    if m:
        out["median_time"] = float(m.group(1))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--scales", type=int, nargs="+", default=[16, 18, 20])
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--roots", type=int, default=64)
    p.add_argument("--configurations", nargs="+", default=[],
                   help="report only these of ours (all run: --model all)")
    p.add_argument("--graph500-dir")
    p.add_argument("--graph500-2-scales", type=int, nargs="+", default=[16])
    p.add_argument("--graph500-2-programs", nargs="+",
                   default=["mpi_simple", "mpi_replicated", "mpi_replicated_csc", "mpi_one_sided"],
                   help="one_sided takes about 15 s a search at SCALE 16 here")
    p.add_argument("--graph500-3-dir")
    p.add_argument("--gap-dir")
    p.add_argument("--combblas-dir")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "bfs.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")

    records = []
    rows = []
    session = lab.bench("bfs", args, args.graphcomm)
    for scale in args.scales:
        for ranks in args.ranks:
            teps, times = {}, {}
            for rep in range(args.repeat):
                # Interleaved: ours, then every reference, in each repetition.
                print(f"bench: SCALE {scale}, {ranks} ranks, repetition {rep + 1}/{args.repeat}",
                      file=sys.stderr, flush=True)
                for name, (t, s, record) in ours(session, rep, scale, ranks, args.roots,
                                                 args.configurations).items():
                    teps.setdefault(name, []).append(t)
                    times.setdefault(name, []).append(s)
                    records.append({"scale": scale, "ranks": ranks, "repetition": rep,
                                    "program": "graphcomm", "configuration": name,
                                    "record": record})
                for name, cmd, env, parse in references(args, scale, ranks):
                    try:
                        figures = parse(run(cmd, env, args.timeout))
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        print(f"bench: {name}: {e}", file=sys.stderr)
                        continue
                    records.append({"scale": scale, "ranks": ranks, "repetition": rep,
                                    "program": name, "figures": figures})
                    if "harmonic_mean_TEPS" in figures:
                        teps.setdefault(name, []).append(figures["harmonic_mean_TEPS"])
                    if "median_time" in figures:
                        times.setdefault(name, []).append(figures["median_time"])
            for name in list(dict.fromkeys(list(teps) + list(times))):
                rows.append((scale, ranks, name, teps.get(name, []), times.get(name, [])))

    print(f"{'SCALE':>5} {'P':>2} {'configuration':<34} {'hmean_MTEPS':>12} {'spread':>8} "
          f"{'median_ms':>10} {'spread':>8}")
    def column(values, scale, width, digits):
        """median and spread of `values` times `scale`; "-" where a program
        reports no such figure (GAP prints times, not TEPS)."""
        if not values:
            return f"{'-':>{width}} {'-':>8}"
        return f"{median(values) * scale:>{width}.{digits}f} {spread(values) * scale:>8.{digits}f}"

    for scale, ranks, name, t, s in rows:
        print(f"{scale:>5} {ranks:>2} {name:<34} {column(t, 1e-6, 12, 2)} {column(s, 1e3, 10, 3)}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"rows": [{"scale": r[0], "ranks": r[1], "name": r[2], "hmean_teps": r[3],
                             "median_seconds": r[4]} for r in rows], "runs": records}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

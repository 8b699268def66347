#!/usr/bin/env python3
"""The simulator against this machine: the same graphcomm commands at 2 ranks
(one per core), measured under Open MPI (build/) and simulated under SMPI
(build-smpi/) on the `this-machine` platform (scripts/simulate); each
kernel's own timing, simulated / measured, median and spread over the
repetitions (interleaved). Prints one table and writes every figure as JSON.

    bench/simulate_vs_real.py [--repeat 5] [--out bench/results/simulate_vs_real.json]

What the simulator does not model (docs/simulation.md): the memory bandwidth
two ranks share, the real machine's noise, and everything the real MPI
library does that its model of the network does not (copies, progress).

Both sides are graphcomm, under two launchers and two builds, and there is
no reference code, so this script runs them itself (not through the lab's
store, whose `reproduce --simulate` is the lab's simulated path); its median
and spread are the lab's (bench/lab.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from lab import ROOT, median, range_text, ratios
REAL = [os.path.join(ROOT, "scripts", "gcrun"), "--mpi", "openmpi", "-np", "2",
        os.path.join(ROOT, "build", "src", "graphcomm")]
SIMULATED = [os.path.join(ROOT, "scripts", "simulate"), "-np", "2", "--platform", "this-machine",
             "graphcomm"]

NBR = ["nbr", "bench", "--topology", "moore:2:1", "--sizes", "4,1024,65536", "--iters", "200",
       "--repeat", "1"]


def nbr_times(doc):
    return {f"nbr allgather {s['bytes']} B (us/call, library)": s["default_seconds"][0] * 1e6
            for s in doc["sizes"]}


def bfs_times(doc):
    return {f"bfs scale 15 {r['algorithm']} {r['model']} (mean s/search)": r["time"]["mean"]
            for r in doc["runs"]}


def match_times(doc):
    return {f"match rmat:15 ld {r['model']} (s)": r["seconds"] for r in doc["runs"]}


CASES = [
    (NBR + ["--collective", "allgather"], nbr_times),
    (["bfs", "--scale", "15", "--roots", "4", "--algorithm", "top-down", "--model", "nsr-agg"],
     bfs_times),
    (["bfs", "--scale", "15", "--roots", "4", "--algorithm", "top-down", "--model", "ncl"],
     bfs_times),
    (["match", "--graph", "rmat:15", "--model", "nsr"], match_times),
    (["match", "--graph", "rmat:15", "--model", "rma"], match_times),
    (["match", "--graph", "rmat:15", "--model", "ncl"], match_times),
]


def run(launcher, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = launcher + args + ["-q", "--json", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
        with open(out) as f:
            return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                      "simulate_vs_real.json"))
    a = parser.parse_args()
    figures = {}  # case -> {"real": [...], "simulated": [...]}
    for rep in range(a.repeat):
        print(f"repetition {rep + 1}/{a.repeat}", file=sys.stderr, flush=True)
        for args, extract in CASES:
            for name, launcher in (("real", REAL), ("simulated", SIMULATED)):
                for case, value in extract(run(launcher, args)).items():
                    figures.setdefault(case, {"real": [], "simulated": []})[name].append(value)
    rows = []
    print(f"{'case':<52} {'real':>11} {'simulated':>11} {'sim/real':>9}  spread")
    for case, f in figures.items():
        each = ratios(f["simulated"], f["real"])
        row = {"case": case, "real": f["real"], "simulated": f["simulated"], "ratios": each,
               "median_ratio": median(each)}
        rows.append(row)
        print(f"{case:<52} {median(f['real']):>11.4g} "
              f"{median(f['simulated']):>11.4g} {row['median_ratio']:>9.2f}  "
              f"{range_text(each, '.2f')}")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"repeat": a.repeat, "rows": rows}, f, indent=1)
    print(f"written: {a.out}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Every kernel's own check at many simulated ranks (SimGrid SMPI), and the
results identical to a 1-rank run of the same build (standard library only):

  - graph stats: the graph's figures (|V|, |E|, isolated, degrees) as at 1 rank,
    and the per-rank table adds up to them;
  - match (locally dominant and Suitor) over every MPI model (SLOW: at fewer
    ranks): --check OK, the
    same weight and cardinality for every model and as at 1 rank;
  - bfs, every algorithm over every MPI model: Graph500 validation OK, and the
    edges traversed (nedge) as at 1 rank;
  - sssp, both algorithms over every MPI model: Graph500 validation OK, and
    the first search's distances bit for bit as at 1 rank;
  - nbr bench, the four collectives, blocking and nonblocking, on a Moore and
    a random topology: --check OK at every size;
  - spmm, every method (the combined gather is persistent): --check OK.

Above 64 ranks the match, bfs and spmm inputs and the random topology grow
with the ranks and keep the process graph sparse (see SMALL below).

    scale_check.py --graphcomm BIN --ranks P [--only KERNEL] -- LAUNCHER...
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from simrun import mpi_models, run_group

RUN_TIMEOUT = 900

# The 64-rank inputs (rmat, random:0.2) make every rank a neighbour of nearly
# every other at 256 ranks and more, and the simulator's work grows with the
# square of that (docs/simulation.md, "Measured here"). Above 64 ranks the
# inputs grow with the ranks and keep the process graph sparse: rgg with 64
# (match) or 16 (bfs, spmm) vertices per rank, random topologies with about
# 13 neighbours per rank. (bfs on rmat at 1024 ranks: ncl-combined's plan
# did not finish, docs/simulation.md; on rgg it validates.)
SMALL = 64


def match_graph(ranks):
    return "rmat:12" if ranks <= SMALL else f"rgg:{64 * ranks}"


def bfs_graph(ranks):
    return ["--scale", "10"] if ranks <= SMALL else ["--graph", f"rgg:{16 * ranks}"]


def spmm_matrix(ranks):
    return "rmat:10" if ranks <= SMALL else f"rgg:{16 * ranks}"


def random_topology(ranks):
    return "random:0.2" if ranks <= SMALL else f"random:{12.8 / (ranks - 1):.4g}"


class Runner:
    def __init__(self, launcher, graphcomm, workdir):
        self.launcher, self.graphcomm, self.workdir, self.count = launcher, graphcomm, workdir, 0
        self.models = mpi_models(launcher, graphcomm)  # every model of the SMPI build

    def __call__(self, ranks, *args):
        self.count += 1
        out = os.path.join(self.workdir, f"run{self.count}.json")
        # These are correctness checks: a waiting rank's simulated probes may
        # grow in cost as SMPI does by default (scripts/simulate fixes it, for
        # honest times), which takes a fraction of the wall time.
        cmd = self.launcher + ["-np", str(ranks), "--cfg", "smpi/grow-injected-times:1",
                               self.graphcomm, *args, "-q", "--json", out]
        proc = run_group(cmd, RUN_TIMEOUT)
        if proc.returncode != 0:
            raise AssertionError(f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def check_stats(run, ranks):
    one, many = run(1, "graph", "stats", "--graph", "rmat:12"), run(ranks, "graph", "stats",
                                                                    "--graph", "rmat:12")
    assert many["graph"] == one["graph"], f"stats differ: {many['graph']} vs {one['graph']}"
    rows = many["distribution"]["per_rank"]
    assert len(rows) == ranks, f"{len(rows)} rows for {ranks} ranks"
    assert sum(r["owned_vertices"] for r in rows) == one["graph"]["vertices"]
    assert sum(r["edges"] for r in rows) == 2 * one["graph"]["edges"]
    return f"stats: {one['graph']['vertices']} vertices, {one['graph']['edges']} edges"


# Suitor over nsr-agg does not finish at 64 simulated ranks within 300 s of
# wall time (16: 1 s, 32: 15 s; not understood yet, see bench/README.md):
# checked at 32 instead, said so in the output.
SLOW = {("suitor", "nsr-agg"): 32}


def check_match(run, ranks):
    lines = []
    for algorithm in ("ld", "suitor"):
        graph = match_graph(ranks)
        ref = run(1, "match", "--graph", graph, "--algorithm", algorithm, "--model", "nsr",
                  "--check")["runs"][0]
        runs = []
        for model in run.models:
            at = min(ranks, SLOW.get((algorithm, model), ranks))
            runs += run(at, "match", "--graph", graph, "--algorithm", algorithm, "--model",
                        model, "--check")["runs"]
            if at < ranks:
                lines.append(f"match {algorithm} over {model}: at {at} ranks, not {ranks} (slow)")
        models = [r["model"] for r in runs]
        for r in runs:
            where = f"match {algorithm} {r['model']} at {ranks}"
            assert r["check"] == "OK", f"{where}: check says {r['check']}"
            # The same matching; its weight summed over ranks in another order.
            same = (r["cardinality"] == ref["cardinality"] and
                    abs(r["weight"] - ref["weight"]) <= 1e-12 * abs(ref["weight"]))
            assert same, (
                f"{where}: weight {r['weight']} card {r['cardinality']}, 1 rank: "
                f"{ref['weight']} {ref['cardinality']}")
        lines.append(f"match {algorithm} on {graph}: {len(models)} models ({', '.join(models)}) OK, "
                     f"weight {ref['weight']:.6f}, cardinality {ref['cardinality']}")
    return "\n".join(lines)


def check_bfs(run, ranks):
    lines = []
    for algorithm in ("top-down", "direction-optimizing", "replicated"):
        ref = run(1, "bfs", *bfs_graph(ranks), "--roots", "2", "--algorithm", algorithm)["runs"][0]
        # Above SMALL ranks a run per model, each within the time limit.
        groups = ([[]] if algorithm == "replicated" else
                  [["--model", "all"]] if ranks <= SMALL else
                  [["--model", m] for m in run.models])
        runs = []
        for model in groups:
            runs += run(ranks, "bfs", *bfs_graph(ranks), "--roots", "2", "--algorithm", algorithm,
                        *model)["runs"]
        for r in runs:
            where = f"bfs {algorithm} {r['model']} at {ranks}"
            assert r["validation"] == "OK", f"{where}: validation {r['validation']}"
            assert r["nedge"] == ref["nedge"], f"{where}: nedge {r['nedge']} vs {ref['nedge']}"
        lines.append(f"bfs {algorithm}: {', '.join(r['model'] for r in runs)} valid")
    return "\n".join(lines)


def check_sssp(run, ranks):
    def distances(tag, at, *args):
        path = os.path.join(run.workdir, f"sssp-{tag}.txt")
        doc = run(at, "sssp", "--scale", "8", "--roots", "1", "--distances", path, *args)
        with open(path) as f:
            return doc["runs"], f.read()

    _, want = distances("ref", 1, "--model", "nsr")
    # A run per configuration: all of them in one simulation take ten times
    # the wall time of the runs apart (docs/simulation.md).
    runs = []
    for algorithm in ("delta-stepping", "bellman-ford"):
        for model in run.models:
            got_runs, got = distances(f"{algorithm}-{model}", ranks, "--algorithm", algorithm,
                                      "--model", model)
            assert got == want, (f"sssp {algorithm}/{model} at {ranks}: the distances differ "
                                 "from 1 rank's")
            runs += got_runs
    for r in runs:
        assert r["validation"] == "OK", f"sssp {r['configuration']} at {ranks}: {r['validation']}"
    return f"sssp: {', '.join(r['configuration'] for r in runs)} valid, distances as at 1 rank"


def check_nbr(run, ranks):
    calls = 0
    for topology in ("moore:2:1", random_topology(ranks)):
        for collective in ("allgather", "allgatherv", "alltoall", "alltoallv"):
            for blocking in ([], ["--nonblocking"]):
                doc = run(ranks, "nbr", "bench", "--topology", topology, "--collective",
                          collective, *blocking, "--check", "--sizes", "4,1024", "--iters", "1",
                          "--repeat", "1")
                for size in doc["sizes"]:
                    assert size["check"] == "OK", (
                        f"nbr {topology} {collective} {blocking} {size['bytes']} B: "
                        f"{size['check']}")
                calls += 1
    # The plan gathered on rank 0 (what the 4096-rank suite uses) is the
    # distributed one: the same figures, the same checked results.
    plans = {}
    for build in ("distributed", "gathered"):
        doc = run(ranks, "nbr", "bench", "--topology", "moore:2:2", "--check", "--sizes", "4",
                  "--iters", "1", "--repeat", "1", "--plan-build", build)
        assert doc["sizes"][0]["check"] == "OK", f"nbr moore:2:2 {build}: {doc['sizes']}"
        plans[build] = {k: v for k, v in doc["plan"].items() if k not in ("build", "build_seconds")}
    assert plans["gathered"] == plans["distributed"], f"nbr moore:2:2 plans differ: {plans}"
    assert plans["gathered"]["groups"] > 0, f"nbr moore:2:2 formed no group: {plans}"
    return f"nbr: {calls} configurations OK; the gathered plan is the distributed one"


def check_spmm(run, ranks):
    doc = run(ranks, "spmm", "--matrix", spmm_matrix(ranks), "--method", "all", "--check",
              "--iters", "2")
    for r in doc["runs"]:
        assert r["check"] == "OK", f"spmm {r['method']} at {ranks}: {r['check']}"
    return f"spmm: {', '.join(r['method'] for r in doc['runs'])} OK"


CHECKS = {"stats": check_stats, "match": check_match, "bfs": check_bfs, "sssp": check_sssp,
          "nbr": check_nbr, "spmm": check_spmm}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphcomm", required=True)
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--only", choices=sorted(CHECKS), action="append")
    parser.add_argument("launcher", nargs="+")
    a = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        run = Runner(a.launcher, a.graphcomm, workdir)
        for name in a.only or CHECKS:
            try:
                print(CHECKS[name](run, a.ranks), flush=True)
            except (AssertionError, subprocess.TimeoutExpired, KeyError) as e:
                failed += 1
                print(f"FAILED {name} at {a.ranks} ranks: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

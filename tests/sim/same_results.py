#!/usr/bin/env python3
"""The SMPI build gives the Open MPI build's results, at 4, 8 and 16 ranks
(simulated ones against oversubscribed real ones; standard library only):

  - graph stats: the whole JSON's figures (graph, distribution per rank,
    process graph) equal;
  - match: the --mates file of every MPI model equal, byte for byte;
  - bfs: the --levels file of the first search equal, for every algorithm;
  - nbr bench and spmm: both builds' --check OK (their results are then the
    standard's and the serial product's).

    same_results.py --graphcomm SMPI_BIN --reference OPENMPI_BIN --simulate SCRIPT --gcrun SCRIPT
"""
import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile

from simrun import mpi_models, run_group

RUN_TIMEOUT = 600


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphcomm", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--simulate", required=True)
    parser.add_argument("--gcrun", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[4, 8, 16])
    a = parser.parse_args()
    if not os.path.exists(a.reference):
        print(f"FAILED: no Open MPI build at {a.reference} (scripts/build first)")
        return 1
    builds = {"smpi": [a.simulate, "-np", "{np}", a.graphcomm],
              "openmpi": [a.gcrun, "--mpi", "openmpi", "-np", "{np}", a.reference]}
    failed = 0
    models = mpi_models([a.simulate], a.graphcomm)  # every model of the SMPI build
    with tempfile.TemporaryDirectory() as work:

        def run(build, np, *args):
            cmd = [x.replace("{np}", str(np)) for x in builds[build]] + list(args) + ["-q"]
            proc = run_group(cmd, RUN_TIMEOUT)
            if proc.returncode != 0:
                raise AssertionError(f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
            return proc.stdout

        def path(build, name):
            return os.path.join(work, f"{build}.{name}")

        for np in a.ranks:
            try:
                for build in builds:
                    run(build, np, "graph", "stats", "--graph", "rmat:11", "--json",
                        path(build, "stats.json"))
                    for model in models:
                        run(build, np, "match", "--graph", "rmat:11", "--model", model, "--mates",
                            path(build, f"mates.{model}"))
                    for algorithm in ("top-down", "direction-optimizing", "replicated"):
                        run(build, np, "bfs", "--scale", "11", "--roots", "1", "--algorithm",
                            algorithm, "--levels", path(build, f"levels.{algorithm}"))
                    for collective in ("allgatherv", "alltoallv"):
                        out = run(build, np, "nbr", "bench", "--topology", "moore:2:1",
                                  "--collective", collective, "--check", "--sizes", "4,512",
                                  "--iters", "1", "--repeat", "1")
                        assert out.count(" OK") == 2, f"{build} nbr {collective} at {np}:\n{out}"
                    out = run(build, np, "spmm", "--matrix", "rmat:9", "--method", "all",
                              "--check", "--iters", "1")
                    assert out.count(" OK") == 3, f"{build} spmm at {np}:\n{out}"
                stats = {}
                for build in builds:
                    with open(path(build, "stats.json")) as f:
                        doc = json.load(f)
                    stats[build] = {k: doc[k] for k in ("graph", "distribution", "process_graph")}
                assert stats["smpi"] == stats["openmpi"], f"graph stats differ at {np}"
                for name in [f"mates.{m}" for m in models] + [
                        f"levels.{x}" for x in ("top-down", "direction-optimizing", "replicated")]:
                    assert filecmp.cmp(path("smpi", name), path("openmpi", name), shallow=False), (
                        f"{name} differs at {np} ranks")
                print(f"{np} ranks: stats, mates of {len(models)} models, levels of 3 algorithms "
                      "equal; nbr and spmm checks OK in both builds", flush=True)
            except (AssertionError, subprocess.TimeoutExpired) as e:
                failed += 1
                print(f"FAILED at {np} ranks: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

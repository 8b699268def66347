#!/usr/bin/env python3
"""Benchmark of collaborative neighborhood collectives (graphcomm nbr bench):
the MPI library's neighbour collective against the combined plan, on Moore,
random and graph topologies, per message size and group size; prints one
table (median latency of each, speedup, messages per rank with the plan and
without) and writes every run as JSON.

    bench/nbr.py [--ranks 16] [--topologies moore:2:1 ... random:0.5 graph:rmat:18]
                 [--collectives allgather alltoallv] [--k 2 3 4 auto]
                 [--sizes 4,64,1024,4096] [--iters 200] [--repeat 3]
                 [--transports shm tcp] [--mpi-advance DRIVER --ranks-per-node 4]
                 [--spmm M ...] [--spmm-iters 50] [--out bench/results/nbr.json]

--transports: Open MPI's shared-memory transport (shm: btl self,vader, what
a single node uses) and/or TCP over the loopback device (tcp: btl
self,tcp), where every message costs a trip through the network stack, as
between nodes.

--mpi-advance DRIVER: for the alltoallv rows, MPI Advance's neighbour
alltoallv (mpi-advance/locality_aware: standard and persistent
locality-aware) on the same topology (saved by graphcomm --save-topology),
with nodes of --ranks-per-node ranks; built outside the repository (recipe
in bench/README.md). Its driver prints `size=B mpi_us=.. mpil_std_us=..
mpil_persist_std_us=.. mpil_persist_locality_us=.. check=ok` per size.

--spmm: the SpMM kernel (C = A x A) on these matrices, every gather method
(default: the paper's ash292, dwt_193 and Journals from ../shared/datasets).

More ranks than cores are oversubscribed: latencies then mostly measure the
scheduler; the message counts stay exact.

graphcomm runs through graphcomm-lab (bench/lab.py): each `nbr bench` and
`spmm` is one run of a suite into the lab's store (--store, default
results/lab.sqlite; a suite bench-nbr/TRANSPORT@TIME per transport, whose
launcher is scripts/gcrun --mca btl ...), read back from there; MPI
Advance's driver runs right after the graphcomm run of its topology.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import lab
from lab import DATASETS, GCRUN, ROOT, config

MATRICES = [os.path.join(DATASETS, f) for f in ("ash292.mtx.gz", "dwt_193.mtx.gz", "Journals.mtx.gz")]
TOPOLOGIES = ["moore:2:1", "moore:2:2", "moore:2:3", "moore:2:4", "moore:3:1", "moore:3:2",
              "random:0.05", "random:0.2", "random:0.5", "random:0.8", "graph:rmat:18"]


BTL = {"shm": "self,vader", "tcp": "self,tcp"}


def graphcomm(session, transport, cfg):
    """The JSON document of one graphcomm run over `transport`, through the lab."""
    return session.document(0, cfg, variant=transport,
                            launcher=[GCRUN, "--mca", "btl", BTL[transport]])


def run(session, ranks, topology, collective, k, sizes, iters, repeat, transport, extra):
    return graphcomm(session, transport, config("nbr", topology, collective, ranks, dict(
        extra, k=k, sizes=sizes, iters=iters, repeat=repeat, check=True)))


def mpi_advance(driver, ranks, topology_file, sizes, iters, repeat, ppn, transport):
    """MPI Advance's driver on a saved topology: {bytes: {method: seconds}}."""
    cmd = [GCRUN, "-np", str(ranks), "--mca", "btl", BTL[transport], driver, "--topology",
           topology_file, "--sizes", sizes, "--iters", str(iters), "--repeat", str(repeat),
           "--ppn", str(ppn)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"failed: {' '.join(cmd)}\n{proc.stdout[-1000:]}{proc.stderr[-1000:]}")
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("#"):  # the driver's notes
            continue
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "size" in fields:
            if fields.get("check") != "ok":
                raise RuntimeError(f"MPI Advance check failed: {line}")
            out[int(fields["size"])] = {k[:-3]: float(v) * 1e-6 for k, v in fields.items()
                                        if k.endswith("_us") and v != "NA"}
    return out


def spmm(session, ranks, matrix, iters, transport):
    return graphcomm(session, transport, config("spmm", matrix, "all", ranks,
                                                {"iters": iters, "check": True}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--topologies", nargs="+", default=TOPOLOGIES)
    p.add_argument("--collectives", nargs="+", default=["allgather", "alltoallv"])
    p.add_argument("--k", nargs="+", default=["2", "3", "4", "auto"])
    p.add_argument("--sizes", default="4,64,1024,4096")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--transports", nargs="+", default=["shm"], choices=sorted(BTL))
    p.add_argument("--mode", default="agnostic", choices=["agnostic", "aware"])
    p.add_argument("--ranks-per-node", type=int, default=4,
                   help="emulated node size: our aware mode and MPI Advance's locality")
    p.add_argument("--mpi-advance", help="MPI Advance driver (alltoallv rows)")
    p.add_argument("--spmm", nargs="*", default=MATRICES)
    p.add_argument("--spmm-iters", type=int, default=50)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "nbr.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if not os.path.exists(args.graphcomm):
        sys.exit(f"bench: no graphcomm at {args.graphcomm} (run scripts/build)")
    if args.mpi_advance and not os.path.exists(args.mpi_advance):
        sys.exit(f"bench: no MPI Advance driver at {args.mpi_advance}")
    mode = {"mode": args.mode}
    if args.mode == "aware":
        mode["ranks-per-node"] = args.ranks_per_node
    session = lab.bench("nbr", args, args.graphcomm)
    runs = []
    print(f"{'net':<4} {'topology':<14} {'collective':<10} {'k':>4} {'msgs/rank':>9} {'default':>8} "
          f"{'bytes':>6} {'default_us':>11} {'ours_us':>9} {'speedup':>8}"
          + (f" {'mpiadv_us':>10} {'vs_mpiadv':>9}" if args.mpi_advance else ""))
    with tempfile.TemporaryDirectory() as tmp:
        saved = os.path.join(tmp, "topology.txt")
        for transport in args.transports:
            for topology in args.topologies:
                for collective in args.collectives:
                    for k in args.k:
                        print(f"bench: {transport} {topology} {collective} k={k}", file=sys.stderr,
                              flush=True)
                        advance = args.mpi_advance and collective == "alltoallv"
                        extra = dict(mode, **({"save-topology": saved} if advance else {}))
                        try:
                            doc = run(session, args.ranks, topology, collective, k,
                                      args.sizes, args.iters, args.repeat, transport, extra)
                            if advance:
                                doc["mpi_advance"] = mpi_advance(
                                    args.mpi_advance, args.ranks, saved, args.sizes, args.iters,
                                    args.repeat, args.ranks_per_node, transport)
                        except RuntimeError as e:
                            print(f"bench: {e}", file=sys.stderr)
                            continue
                        doc["transport"] = transport
                        runs.append(doc)
                        plan = doc["plan"]
                        for row in doc["sizes"]:
                            a = sorted(row["default_seconds"])[len(row["default_seconds"]) // 2]
                            b = sorted(row["ours_seconds"])[len(row["ours_seconds"]) // 2]
                            line = (f"{transport:<4} {topology:<14} {collective:<10} {k:>4} "
                                    f"{plan['messages_per_rank']:>9.2f} "
                                    f"{plan['default_messages_per_rank']:>8.2f} {row['bytes']:>6} "
                                    f"{a * 1e6:>11.2f} {b * 1e6:>9.2f} {row['speedup']:>8.2f}")
                            if advance:
                                m = doc["mpi_advance"].get(row["bytes"], {})
                                c = m.get("mpil_persist_locality")  # NA where it cannot run
                                line += (f" {c * 1e6:>10.2f} {c / b:>9.2f}" if c else f" {'-':>10} {'-':>9}")
                            print(line, flush=True)
    spmm_runs = []
    if args.spmm:
        print(f"\n{'net':<4} {'matrix':<20} {'method':<10} {'gather_ms':>10} {'multiply_ms':>12} "
              f"{'msgs/iter':>10}")
    for transport in args.transports if args.spmm else []:
        for matrix in args.spmm:
            print(f"bench: {transport} spmm {matrix}", file=sys.stderr, flush=True)
            try:
                doc = spmm(session, args.ranks, matrix, args.spmm_iters, transport)
            except RuntimeError as e:
                print(f"bench: {e}", file=sys.stderr)
                continue
            doc["transport"] = transport
            spmm_runs.append(doc)
            for r in doc["runs"]:
                print(f"{transport:<4} {os.path.basename(matrix):<20} {r['method']:<10} "
                      f"{r['gather_seconds'] * 1e3:>10.3f} {r['multiply_seconds'] * 1e3:>12.3f} "
                      f"{r['messages_per_iteration']:>10}", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump({"ranks": args.ranks, "runs": runs, "spmm": spmm_runs}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"bench: wrote {args.out}; graphcomm's runs: suites {session.suite_name('TRANSPORT')} "
          f"in {args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

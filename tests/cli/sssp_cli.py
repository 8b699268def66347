#!/usr/bin/env python3
"""End-to-end test of `graphcomm sssp` at 1-4 ranks, checked by this script
alone (standard library; Dijkstra computed here, with none of the project's
code):

  - on a weighted Matrix Market file written here (a repeated entry whose
    lighter copy is the shortcut, zero weights, a second component, an
    isolated vertex), `sssp --root 0 --model all --distances D --json J`
    validates every configuration (both algorithms over every model of
    `--models`), and D is, to the last bit, the distances of a Dijkstra over
    the file's edges keeping the lightest copy of each, from vertex 0 (ids
    in the file minus one), byte-identical at every rank count;
  - `sssp --scale 10 --roots 4 --model all --json`: every configuration
    validated with 4 searches and harmonic_mean_TEPS > 0, nedge the same for
    every configuration, and the keys those `bfs` chooses with the same seed;
  - the output block of one configuration has the reference's SSSP keys
    (`sssp min_time` ...) with sane values;
  - bad input (--delta -1, --delta x, --model auto, --root of a degree-0
    vertex, neither --scale nor --graph) gives one `graphcomm: error: ` line
    and a non-zero exit, and no --json file.

    sssp_cli.py --graphcomm BIN --models M... [--ranks 1 2 3 4] -- LAUNCHER...
"""
import heapq
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

SEED = "1"
ALGORITHMS = ["delta-stepping", "bellman-ford"]
# 1-based entries "u v w" of the file; vertex 9 is isolated (n = 9 + 1).
ENTRIES = [(1, 2, 0.25), (2, 3, 0.5), (3, 1, 0.0), (3, 4, 1.0 / 3), (4, 5, 0.125),
           (1, 5, 2.0), (5, 1, 0.0625),  # repeated: the lighter copy is the shortcut
           (5, 6, 0.0), (6, 2, 0.75),
           (7, 8, 0.5)]  # another component
N = 10
BLOCK = (["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes",
          "construction_time"]
         + [f"sssp {s}_{f}" for f in ("time", "validate")
            for s in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")]
         + [f"{s}_nedge" for s in ("min", "median", "max", "mean", "stddev")]
         + [f"sssp {s}_TEPS" for s in ("min", "firstquartile", "median", "thirdquartile", "max")]
         + ["sssp harmonic_mean_TEPS", "sssp harmonic_stddev_TEPS"])


def dijkstra(root):
    """0-based vertex -> distance, over the lightest copy of each edge."""
    lightest = {}
    for u, v, w in ENTRIES:
        key = (min(u, v) - 1, max(u, v) - 1)
        lightest[key] = min(w, lightest.get(key, w))
    adj = {}
    for (u, v), w in lightest.items():
        adj.setdefault(u, []).append((v, w))
        adj.setdefault(v, []).append((u, w))
    dist = {root: 0.0}
    queue = [(0.0, root)]
    while queue:
        d, u = heapq.heappop(queue)
        if d > dist[u]:
            continue
        for v, w in adj.get(u, []):
            if v not in dist or d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(queue, (d + w, v))
    return dist


def configurations(models):
    return {f"{a}/{m}" for a in ALGORITHMS for m in models}


def check_file(run, ranks, models, path, workdir):
    where = f"sssp --graph {os.path.basename(path)} --model all at {ranks} ranks"
    dist_path = os.path.join(workdir, f"file.np{ranks}.dist")
    json_path = os.path.join(workdir, f"file.np{ranks}.json")
    run.ok(["sssp", "-q", "--graph", path, "--root", "0", "--model", "all", "--delta", "0.3",
            "--distances", dist_path, "--json", json_path], ranks)
    with open(json_path) as f:
        doc = json.load(f)
    runs = {r["configuration"]: r for r in doc["runs"]}
    assert set(runs) == configurations(models), f"{where}: runs {sorted(runs)}"
    for name, r in runs.items():
        assert r["validation"] == "OK", f"{where}: {name}: {r['validation']}"
        runner.check_combined_plan(r, r["model"], ranks, f"{where}: {name}")
    got = {}
    with open(dist_path) as f:
        for line in f:
            v, d = line.split()
            got[int(v)] = float(d)
    want = dijkstra(0)
    assert got == want, f"{where}: --distances {sorted(got.items())}, Dijkstra {sorted(want.items())}"
    with open(dist_path, "rb") as f:
        return f.read()


def check_scale(run, ranks, models, workdir):
    where = f"sssp --scale 10 --model all at {ranks} ranks"
    json_path = os.path.join(workdir, f"scale.np{ranks}.json")
    run.ok(["sssp", "-q", "--scale", "10", "--seed", SEED, "--roots", "4", "--model", "all",
            "--json", json_path], ranks)
    with open(json_path) as f:
        doc = json.load(f)
    runs = {r["configuration"]: r for r in doc["runs"]}
    assert set(runs) == configurations(models), f"{where}: runs {sorted(runs)}"
    nedge = None
    for name, r in runs.items():
        assert r["validation"] == "OK", f"{where}: {name}: {r['validation']}"
        assert r["nsssp"] == 4 and len(r["seconds"]) == 4, f"{where}: {name}: {r['nsssp']}"
        assert r["harmonic_mean_TEPS"] > 0, f"{where}: {name}: TEPS {r['harmonic_mean_TEPS']}"
        assert nedge is None or r["nedge"] == nedge, f"{where}: {name}: nedge {r['nedge']}"
        nedge = r["nedge"]
    bfs_json = os.path.join(workdir, f"bfs.np{ranks}.json")
    run.ok(["bfs", "-q", "--scale", "10", "--seed", SEED, "--roots", "4", "--algorithm",
            "top-down", "--json", bfs_json], ranks)
    with open(bfs_json) as f:
        bfs_doc = json.load(f)
    assert doc["keys"] == bfs_doc["keys"], f"{where}: keys {doc['keys']}, bfs {bfs_doc['keys']}"
    assert nedge == bfs_doc["runs"][0]["nedge"], f"{where}: nedge {nedge} is not bfs's"
    return doc["keys"]


def check_block(run, ranks):
    where = f"sssp --scale 10 --roots 3 at {ranks} ranks"
    out = run.ok(["sssp", "-q", "--scale", "10", "--seed", SEED, "--roots", "3"], ranks)
    block = {}
    for line in out.splitlines():
        m = re.match(r"^([A-Za-z_ ]+): (\S+)$", line)
        if m:
            block[m.group(1)] = m.group(2)
    missing = [k for k in BLOCK if k not in block]
    assert not missing, f"{where}: keys missing from the output block: {missing}\n{out}"
    for k in BLOCK:
        float(block[k])
    assert block["NBFS"] == "3" and block["num_mpi_processes"] == str(ranks), f"{where}: {block}"
    assert block["validation"] == "OK", f"{where}: {block.get('validation')}"
    assert float(block["delta"]) > 0, f"{where}: delta {block.get('delta')}"
    teps = [float(block[f"sssp {s}_TEPS"])
            for s in ("min", "firstquartile", "median", "thirdquartile", "max")]
    assert teps == sorted(teps) and teps[0] > 0, f"{where}: TEPS order statistics {teps}"


def check_bad_input(run, ranks, path, workdir):
    cases = [
        (["--scale", "8", "--delta", "-1"], r"--delta -1: a positive number or auto"),
        (["--scale", "8", "--delta", "x"], r"--delta x: a positive number or auto"),
        (["--scale", "8", "--model", "auto"], r"no SSSP cost model"),
        (["--graph", path, "--root", "9"], r"--root 9 has no edges"),
        (["--roots", "4"], r"needs --scale"),
    ]
    for args, expect in cases:
        json_path = os.path.join(workdir, f"bad.np{ranks}.json")
        args = ["sssp", "-q", "--seed", SEED] + args + ["--json", json_path]
        run.refused(args, expect, ranks=ranks)
        assert not os.path.exists(json_path), f"{run.what(args, ranks)}: --json file written"


def main():
    p = runner.parser(__doc__)
    p.add_argument("--models", nargs="+", required=True)
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4])
    args = runner.parse(p)
    run = runner.Runner(args.graphcomm, args.launcher, strict=True)
    with runner.workdir("sssp") as tmp:
        path = os.path.join(tmp, "weighted.mtx")
        with open(path, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{N} {N} {len(ENTRIES)}\n")
            for u, v, w in ENTRIES:
                f.write(f"{u} {v} {w!r}\n")
        files, keys = set(), set()
        for ranks in args.ranks:
            files.add(check_file(run, ranks, args.models, path, tmp))
            keys.add(tuple(check_scale(run, ranks, args.models, tmp)))
            check_block(run, ranks)
            check_bad_input(run, ranks, path, tmp)
        assert len(files) == 1, "--distances differ between rank counts"
        assert len(keys) == 1, f"keys differ between rank counts: {keys}"
    print(f"sssp_cli: OK at ranks {args.ranks}")
    return 0


if __name__ == "__main__":
    runner.main(main)

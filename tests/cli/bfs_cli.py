#!/usr/bin/env python3
"""End-to-end test of `graphcomm bfs` at 1-4 ranks, checked by this script
alone (standard library; graph files are parsed by recount.py, with none of
the project's code):

  - `bfs --scale 10 --roots 4 --model all --json F --levels L` exits 0, prints
    one table row per configuration (every algorithm with every model of
    `--model`, and replicated) with validation OK; the JSON has the same
    configurations, each with 4 searches, validation OK and
    harmonic_mean_TEPS > 0; the keys and nedge agree across rank counts;
  - the --levels file is a BFS computed here, from the first key, on the same
    graph written out by `graph convert --output X.el`, and is byte-identical
    at every rank count; likewise on a real 1-based Matrix Market file with
    `--root 0` (ids in the file minus one);
  - the Graph500 output block of a single configuration (`--algorithm
    replicated`) has every key of the reference code with sane values, and
    the 'not a valid Graph500 run' note exactly when fewer than 64 keys;
  - bad input (--root out of range, --root of a degree-0 vertex, --model with
    --algorithm replicated, neither --scale nor --graph) gives exactly one
    `graphcomm: error: ` line saying what is wrong (and nothing else on stderr
    with -q), a non-zero exit and no --json file.

    bfs_cli.py --graphcomm BIN [--dataset FILE.mtx.gz] [--ranks 1 2 3 4] -- LAUNCHER...
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recount  # noqa: E402  (the independent reader)
import runner  # noqa: E402

SEED = "1"
ALGORITHMS = ["top-down", "direction-optimizing"]  # and replicated, which has no model
BLOCK_KEYS = (["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes",
               "construction_time"]
              + [f"{s}_{f}" for f in ("time", "nedge")
                 for s in ("min", "firstquartile", "median", "thirdquartile", "max", "mean",
                           "stddev")]
              + [f"{s}_TEPS" for s in ("min", "firstquartile", "median", "thirdquartile", "max")]
              + ["harmonic_mean_TEPS", "harmonic_stddev_TEPS"])
NOT_VALID = "not a valid Graph500 run"


def bfs_levels(g, root):
    """vertex -> level of every vertex reached from root (0-based ids)."""
    adj = collections.defaultdict(list)
    for key in g.edges:
        u, v = key >> recount.ID_BITS, key & recount.ID_MASK
        adj[u].append(v)
        adj[v].append(u)
    level = {root: 0}
    queue = collections.deque([root])
    while queue:
        u = queue.popleft()
        for w in adj[u]:
            if w not in level:
                level[w] = level[u] + 1
                queue.append(w)
    return level


def read_levels(path, where):
    level = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            assert len(fields) == 2, f"{where}: {path}:{number}: not 'vertex level': {line!r}"
            v, l = int(fields[0]), int(fields[1])
            assert v not in level, f"{where}: {path}:{number}: vertex {v} twice"
            level[v] = l
    return level


def compare_levels(expected, got, where):
    for v, l in sorted(expected.items()):
        assert got.get(v) == l, f"{where}: vertex {v} has level {got.get(v)}, expected {l}"
    extra = sorted(set(got) - set(expected))
    assert not extra, f"{where}: vertices {extra[:5]} listed but not reachable from the root"


def table_rows(stdout):
    """configuration -> the fields of its table row."""
    lines = stdout.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("configuration "))
    rows = {}
    for line in lines[header + 1:]:
        fields = line.split()
        if len(fields) >= 8:
            rows[fields[0]] = fields[1:]
    return rows


def check_all_models(run, ranks, configurations, g, workdir):
    """The --model all run at one rank count; returns (levels bytes, keys, nedge)."""
    where = f"bfs --scale 10 --model all at {ranks} ranks"
    json_path = os.path.join(workdir, f"all.np{ranks}.json")
    levels_path = os.path.join(workdir, f"all.np{ranks}.levels")
    out = run.ok(["bfs", "-q", "--scale", "10", "--seed", SEED, "--roots", "4", "--model", "all",
                  "--json", json_path, "--levels", levels_path], ranks)
    rows = table_rows(out)
    assert set(rows) == set(configurations), \
        f"{where}: table rows {sorted(rows)}, expected {sorted(configurations)}"
    for name, fields in rows.items():
        assert fields[-1] == "OK", f"{where}: {name} validation says {' '.join(fields[6:])}"
        assert float(fields[0]) > 0, f"{where}: {name} hmean_MTEPS {fields[0]}"
    assert NOT_VALID in out, f"{where}: no '{NOT_VALID}' note with 4 keys"

    with open(json_path) as f:
        doc = json.load(f)
    runs = {r["configuration"]: r for r in doc["runs"]}
    assert len(runs) == len(doc["runs"]), f"{where}: a configuration twice in the JSON"
    assert set(runs) == set(configurations), f"{where}: JSON runs {sorted(runs)}"
    keys = doc["keys"]
    assert len(keys) == 4 and len(set(keys)) == 4, f"{where}: keys {keys}"
    assert doc["valid_graph500_run"] is False, f"{where}: 4 keys called a valid run"
    assert doc["graph"]["vertices"] == 1024, f"{where}: {doc['graph']}"
    assert doc["graph"]["edges"] == len(g.edges), \
        f"{where}: {doc['graph']['edges']} edges, the converted graph has {len(g.edges)}"
    nedge = None
    for name, r in runs.items():
        assert r["validation"] == "OK", f"{where}: {name}: {r['validation']}"
        runner.check_combined_plan(r, r["model"], ranks, f"{where}: {name}")
        assert r["nbfs"] == 4 and len(r["seconds"]) == 4, f"{where}: {name}: {r['nbfs']} searches"
        assert r["harmonic_mean_TEPS"] > 0, f"{where}: {name}: TEPS {r['harmonic_mean_TEPS']}"
        assert r["TEPS"]["min"] <= r["harmonic_mean_TEPS"] <= r["TEPS"]["max"] * (1 + 1e-9), \
            f"{where}: {name}: harmonic mean outside [min, max]"
        # nedge does not depend on the configuration.
        assert nedge is None or r["nedge"] == nedge, f"{where}: {name}: nedge {r['nedge']}"
        nedge = r["nedge"]
    # nedge counts input tuples (duplicates and self-loops in): at least the
    # distinct edges of the key's component, at most the 16 * 2^10 tuples.
    component_edges = []
    for key in keys:
        reached = bfs_levels(g, key)
        component_edges.append(sum(1 for e in g.edges if e >> recount.ID_BITS in reached))
    assert min(component_edges) <= nedge["min"] and nedge["max"] <= 16 * 1024, \
        f"{where}: nedge {nedge}, distinct edges in the keys' components {component_edges}"

    levels = read_levels(levels_path, where)
    compare_levels(bfs_levels(g, keys[0]), levels, f"{where}, --levels from key {keys[0]}")
    with open(levels_path, "rb") as f:
        return f.read(), keys, nedge


def check_block(run, ranks, roots):
    """The Graph500 output block of one configuration."""
    where = f"bfs --scale 10 --roots {roots} --algorithm replicated at {ranks} ranks"
    out = run.ok(["bfs", "-q", "--scale", "10", "--seed", SEED, "--roots", str(roots),
                  "--algorithm", "replicated"], ranks)
    block = {}
    for line in out.splitlines():
        m = re.match(r"^([A-Za-z_]+): (\S+)$", line)
        if m:
            block[m.group(1)] = m.group(2)
    missing = [k for k in BLOCK_KEYS if k not in block]
    assert not missing, f"{where}: keys missing from the output block: {missing}\n{out}"
    for k in BLOCK_KEYS:
        float(block[k])  # every figure is a number
    assert block["SCALE"] == "10" and block["edgefactor"] == "16", f"{where}: {block}"
    assert block["NBFS"] == str(roots), f"{where}: NBFS {block['NBFS']}"
    assert block["num_mpi_processes"] == str(ranks), f"{where}: {block['num_mpi_processes']}"
    assert block.get("configuration") == "replicated", f"{where}: {block.get('configuration')}"
    assert block.get("validation") == "OK", f"{where}: validation {block.get('validation')}"
    teps = [float(block[f"{s}_TEPS"])
            for s in ("min", "firstquartile", "median", "thirdquartile", "max")]
    assert teps == sorted(teps) and teps[0] > 0, f"{where}: TEPS order statistics {teps}"
    assert teps[0] <= float(block["harmonic_mean_TEPS"]) <= teps[-1] * (1 + 1e-5), \
        f"{where}: harmonic mean outside [min, max]"
    assert (NOT_VALID in out) == (roots < 64), \
        f"{where}: the '{NOT_VALID}' note is {'missing' if roots < 64 else 'there'}"


def check_bad_input(run, ranks, isolated, workdir):
    cases = [
        (["--scale", "10", "--root", "1024"], r"--root 1024 is not a vertex"),
        (["--scale", "10", "--root", str(isolated)], rf"--root {isolated} has no edges"),
        (["--scale", "10", "--algorithm", "replicated", "--model", "ncl"],
         r"replicated uses no exchange model"),
        (["--roots", "4"], r"needs --scale"),  # a usage error: exit 2 and the --help hint
    ]
    for args, expect in cases:
        json_path = os.path.join(workdir, f"bad.np{ranks}.json")
        args = ["bfs", "-q", "--seed", SEED] + args + ["--json", json_path]
        proc = run.refused(args, expect, ranks=ranks)
        where = run.what(args, ranks)
        usage = "needs --scale" in expect
        assert proc.returncode == 2 or not usage, f"{where}: exit {proc.returncode}"
        hint = ["Run with --help for more information."] if usage else []
        others = [l for l in proc.stderr.splitlines()
                  if l.strip() and l not in runner.error_lines(proc.stderr) and l not in hint]
        assert not others, f"{where}: more than the error line on stderr (-q):\n{proc.stderr}"
        assert not os.path.exists(json_path), f"{where}: --json file written on failure"


def check_dataset(run, ranks_list, path, workdir):
    """--graph FILE --root 0 --levels: a BFS from the file's first vertex."""
    g = recount.Graph(recount.read_graph(path))
    expected = bfs_levels(g, 0)
    reference = None
    for ranks in ranks_list:
        where = f"bfs --graph {os.path.basename(path)} --root 0 at {ranks} ranks"
        levels_path = os.path.join(workdir, f"dataset.np{ranks}.levels")
        out = run.ok(["bfs", "-q", "--graph", path, "--root", "0", "--model", "all",
                      "--levels", levels_path], ranks)
        rows = table_rows(out)
        assert rows and all(f[-1] == "OK" for f in rows.values()), f"{where}: {rows}"
        compare_levels(expected, read_levels(levels_path, where), where)
        with open(levels_path, "rb") as f:
            data = f.read()
        assert reference is None or data == reference, f"{where}: levels differ from the first run"
        reference = data
    print(f"{os.path.basename(path)}: --levels from 0 reaches {len(expected)} of {g.n} vertices, "
          f"depth {max(expected.values())}, identical at ranks {ranks_list}")


def main():
    ap = runner.parser(__doc__)
    ap.add_argument("--dataset", help="a real graph for the --root 0 --levels check")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--models", nargs="+", required=True,
                    help="the exchange models this build has (from CMake)")
    args = runner.parse(ap)
    run = runner.Runner(args.graphcomm, args.launcher)

    models = args.models
    configurations = [f"{a}/{m}" for a in ALGORITHMS for m in models] + ["replicated"]
    with runner.workdir("bfs-cli") as workdir:
        el = os.path.join(workdir, "rmat10.el")
        run.ok(["graph", "convert", "-q", "--graph", "rmat:10,ef=16", "--seed", SEED,
                "--output", el])
        g = recount.Graph(recount.read_graph(el))
        degree = collections.Counter()
        for key in g.edges:
            degree[key >> recount.ID_BITS] += 1
            degree[key & recount.ID_MASK] += 1
        isolated = min(v for v in range(1024) if degree[v] == 0)

        reference = None
        for ranks in args.ranks:
            levels, keys, nedge = check_all_models(run, ranks, configurations, g, workdir)
            if reference is None:
                reference = (levels, keys, nedge)
                reached = levels.count(b"\n")
                print(f"rmat:10 --model all: {len(configurations)} configurations OK; --levels "
                      f"from {keys[0]} = serial BFS ({reached} vertices)")
            else:
                assert levels == reference[0], f"{ranks} ranks: --levels differs from {args.ranks[0]}"
                assert keys == reference[1], f"{ranks} ranks: keys {keys} != {reference[1]}"
                assert nedge == reference[2], f"{ranks} ranks: nedge {nedge} != {reference[2]}"
            check_block(run, ranks, 4)
            check_bad_input(run, ranks, isolated, workdir)
        check_block(run, args.ranks[-1], 64)
        print(f"same levels, keys and nedge at ranks {args.ranks}; output block and bad input OK")
        if args.dataset:
            check_dataset(run, args.ranks, args.dataset, workdir)
    return 0


if __name__ == "__main__":
    runner.main(main)

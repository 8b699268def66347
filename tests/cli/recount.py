#!/usr/bin/env python3
"""Independent serial recount of `graphcomm graph stats` on a real input graph.

What it checks: for one graph file (Matrix Market, SNAP edge list or Graph
Challenge TSV, plain or gzip) this script counts, by itself, every figure that
`graphcomm graph stats --json` reports -- |V|, |E|, isolated vertices, the
degree summary, and for P = 1, 2, 3, 4 ranks under the block distribution the
per-rank owned vertices, directed edges, ghosts, cut edges, |E'| and process
degree, their summaries over ranks, the total cut and the process graph -- then
runs graphcomm at each P and compares every figure (integers exactly, floats to
1e-9 relative). With --parts K it also runs `graph stats --parts K` at 2 and 3
ranks and compares the per-part figures with the recount's for K ranks. Any difference is printed as `FIELD: recount X, graphcomm Y`
and the script exits 1.

Why it is independent: it imports nothing from the project but the way
graphcomm is launched (runner.py) and reads no project output except the
JSON under test. The file is parsed here with gzip
and plain Python; the distribution, ghosts and process graph are derived
directly from their definitions (an edge list and a vertex -> rank map), not
from CSR arrays or the program's formulas (e.g. |E'| is counted as internal
edges + cut edges, not as (edges - cut) / 2 + cut). Standard library only.

Semantics recounted (the reader's contract, see shared/datasets/README.md):
  .mtx  banner, '%' comments, size line `rows cols nnz`, 1-based, |V| = rows
  .txt/.edges  '#'/'%' comments, whitespace separated, 0-based, extra
        columns ignored, |V| = max id + 1
  .tsv  `src dst weight`, 1-based, |V| = max id
  all   self-loops dropped, edges undirected (asymmetric input symmetrized),
        duplicates merged; |E| = distinct undirected non-loop edges.
Block distribution: rank r owns ids [floor(r*n/P), floor((r+1)*n/P)).

Usage: recount.py --graphcomm BIN --graph FILE [--ranks 1,2,3,4] [--parts K] -- LAUNCHER...
(the launcher, e.g. `scripts/gcrun --mpi openmpi`, is called with -np P).
"""

import gzip
import json
import math
import os
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

ID_BITS = 40  # an undirected edge {a < b} is the integer a << ID_BITS | b
ID_MASK = (1 << ID_BITS) - 1


# ---------------------------------------------------------------- parsing


def read_bytes(path):
    """The whole file, decompressed when it is gzip (told by its magic bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def data_lines(path):
    """The whitespace-split fields of every line that is not blank or a
    '%'/'#' comment (CRLF line ends are fine: split() drops the '\\r')."""
    for line in read_bytes(path).splitlines():
        fields = line.split()
        if fields and fields[0][:1] not in (b"%", b"#"):
            yield fields


def file_format(path):
    """mtx, el or tsv from the file name (a trailing .gz is ignored)."""
    name = path[:-3] if path.endswith(".gz") else path
    ext = name.rsplit(".", 1)[-1]
    if ext in ("mtx", "mm"):
        return "mtx"
    if ext in ("txt", "edges", "el", "edgelist", "snap"):
        return "el"
    if ext == "tsv":
        return "tsv"
    raise SystemExit(f"recount: cannot tell the format of {path}")


class RawGraph:
    """What the file says: the vertex count, the number of entry lines and the
    distinct undirected non-loop edges {a < b}, packed as a << ID_BITS | b."""

    def __init__(self):
        self.vertices = 0
        self.entries = 0
        self.keys = set()

    def add(self, u, v):
        self.entries += 1
        if u != v:  # self-loops dropped; both directions map to one key
            self.keys.add(u << ID_BITS | v if u < v else v << ID_BITS | u)


def read_matrix_market(path):
    g = RawGraph()
    data = read_bytes(path)
    banner = data[: data.find(b"\n")].split()
    if len(banner) != 5 or banner[0].lower() != b"%%matrixmarket":
        raise SystemExit(f"recount: {path}: bad Matrix Market banner {banner}")
    pattern = banner[3].lower() == b"pattern"
    lines = data_lines(path)  # the banner is a '%' line: skipped
    rows, cols, promised = (int(x) for x in next(lines))
    assert rows == cols, f"{path}: not square"
    for fields in lines:
        assert len(fields) == (2 if pattern else 3), f"{path}: entry {fields}"
        u, v = int(fields[0]) - 1, int(fields[1]) - 1
        assert 0 <= u < rows and 0 <= v < rows, f"{path}: id out of range in {fields}"
        g.add(u, v)
    g.vertices = rows
    assert g.entries == promised, f"{path}: {g.entries} entries, size line says {promised}"
    return g


def read_edge_list(path, one_based):
    """SNAP edge lists (0-based) and Graph Challenge TSV (1-based)."""
    g = RawGraph()
    base = 1 if one_based else 0
    max_id = -1
    for fields in data_lines(path):
        u, v = int(fields[0]) - base, int(fields[1]) - base
        assert u >= 0 and v >= 0, f"{path}: id below the base in {fields}"
        max_id = max(max_id, u, v)  # self-loops count for |V| too
        g.add(u, v)
    g.vertices = max_id + 1
    return g


def read_graph(path):
    fmt = file_format(path)
    if fmt == "mtx":
        return read_matrix_market(path)
    return read_edge_list(path, one_based=(fmt == "tsv"))


# ---------------------------------------------------------------- the graph


class Graph:
    """Simple undirected graph: distinct non-loop edges as packed integers."""

    def __init__(self, raw):
        self.n = raw.vertices
        self.entries = raw.entries
        assert self.n <= ID_MASK
        self.edges = list(raw.keys)
        self.degree = [0] * self.n
        for key in self.edges:
            self.degree[key >> ID_BITS] += 1
            self.degree[key & ID_MASK] += 1


def summary(values):
    """min, max, avg, population stddev, total -- exact, then rounded once."""
    count, total = len(values), sum(values)
    square_sum = sum(x * x for x in values)
    variance = Fraction(count * square_sum - total * total, count * count)
    return {
        "min": min(values),
        "max": max(values),
        "avg": total / count,
        "stddev": math.sqrt(variance),
        "total": total,
    }


def graph_figures(g):
    return {
        "vertices": g.n,
        "edges": len(g.edges),
        "isolated_vertices": sum(1 for d in g.degree if d == 0),
        "degree": summary(g.degree),
    }


# ---------------------------------------------------------------- distribution


def block_owner(n, ranks):
    """owner[v] for the block distribution: r owns [r*n//P, (r+1)*n//P)."""
    owner = [0] * n
    for r in range(ranks):
        lo, hi = r * n // ranks, (r + 1) * n // ranks
        owner[lo:hi] = [r] * (hi - lo)
    return owner


def edge_balanced_owner(g, parts):
    """owner[v] for `--distribution edges` cut into `parts`: a vertex weighs
    its degree + 1; part k starts after the first vertex at which the weight
    so far reaches floor(k W / P) (W the total)."""
    total = sum(g.degree) + g.n
    owner, part, so_far = [0] * g.n, 0, 0
    for v in range(g.n):
        owner[v] = part
        so_far += g.degree[v] + 1
        while part + 1 < parts and so_far >= total * (part + 1) // parts:
            part += 1
    return owner


def distribution_figures(g, ranks, owner=None, unit="rank"):
    """Per-rank figures and the process graph, straight from the definitions
    (owner[v]: the rank of vertex v; the block distribution by default).
    With unit "part", the ranks are parts, as `graph stats --parts` names them."""
    owner = owner if owner is not None else block_owner(g.n, ranks)
    owned = [0] * ranks
    directed = [0] * ranks  # adjacency entries of owned vertices
    for v in range(g.n):
        owned[owner[v]] += 1
        directed[owner[v]] += g.degree[v]
    internal = [0] * ranks  # edges with both ends on the rank
    cut = [0] * ranks  # edges from an owned vertex to a non-owned one
    ghosts = [set() for _ in range(ranks)]
    rank_pairs = set()
    total_cut = 0
    for key in g.edges:
        u, v = key >> ID_BITS, key & ID_MASK
        ru, rv = owner[u], owner[v]
        if ru == rv:
            internal[ru] += 1
            continue
        total_cut += 1
        cut[ru] += 1
        cut[rv] += 1
        ghosts[ru].add(v)
        ghosts[rv].add(u)
        rank_pairs.add((min(ru, rv), max(ru, rv)))
    neighbours = [set() for _ in range(ranks)]
    for a, b in rank_pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)

    per_rank = []
    for r in range(ranks):
        per_rank.append({
            unit: r,
            "owned_vertices": owned[r],
            "edges": directed[r],
            "ghosts": len(ghosts[r]),
            "cut_edges": cut[r],
            "edges_with_ghosts": internal[r] + cut[r],
            "process_degree": len(neighbours[r]),
        })
    column = lambda name: [f[name] for f in per_rank]
    return {
        "distribution": {
            "owned_vertices": summary(column("owned_vertices")),
            "edges": summary(column("edges")),
            "ghosts": summary(column("ghosts")),
            "edges_with_ghosts": summary(column("edges_with_ghosts")),
            "cut_edges": total_cut,
            f"per_{unit}": per_rank,
        },
        "process_graph": {
            f"{unit}s": ranks,
            "edges": len(rank_pairs),
            "degree": summary(column("process_degree")),
        },
    }


# ---------------------------------------------------------------- comparison


def compare(expected, got, where, diffs):
    """Appends 'where: recount X, graphcomm Y' for every differing leaf.

    Integer expectations must match exactly (the JSON may spell them 3.0);
    float expectations to 1e-9 relative (1e-12 absolute near zero).
    """
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            diffs.append(f"{where}: recount an object, graphcomm {got!r}")
            return
        for key, value in expected.items():
            compare(value, got.get(key), f"{where}.{key}" if where else key, diffs)
    elif isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            diffs.append(f"{where}: recount {len(expected)} items, graphcomm {got!r}")
            return
        for i, (e, g) in enumerate(zip(expected, got)):
            compare(e, g, f"{where}[{i}]", diffs)
    elif not isinstance(got, (int, float)) or isinstance(got, bool):
        diffs.append(f"{where}: recount {expected!r}, graphcomm {got!r}")
    elif isinstance(expected, int):
        if got != expected:
            diffs.append(f"{where}: recount {expected}, graphcomm {got!r}")
    elif not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
        diffs.append(f"{where}: recount {expected!r}, graphcomm {got!r}")


def run_graphcomm(run, path, ranks, workdir, parts=0):
    out = os.path.join(workdir, f"stats.np{ranks}.parts{parts}.json")
    args = ["graph", "stats", "--graph", path, "--distribution", "block", "--json", out, "-q"]
    if parts:
        args += ["--parts", str(parts)]
    proc = run.run(args, ranks)
    if proc.returncode != 0:
        return None, f"{run.status(proc)}: {' '.join(proc.args)}\n{proc.stderr}"
    with open(out) as f:
        return json.load(f), None


def check_ranks(run, path, g, whole, ranks, workdir, parts=0):
    """Runs graphcomm at `ranks` (figures for `parts` parts when non-zero)
    and returns the list of differences."""
    doc, error = run_graphcomm(run, path, ranks, workdir, parts)
    if error:
        return [error]
    expected = {"ranks": ranks, "input": {"entries": g.entries}, "graph": whole}
    if parts:
        expected.update(distribution_figures(g, parts, unit="part"))
    else:
        expected.update(distribution_figures(g, ranks))
    diffs = []
    compare(expected, doc, "", diffs)
    return diffs


def main():
    parser = runner.parser(__doc__)
    parser.add_argument("--graph", required=True, help="the graph file")
    parser.add_argument("--ranks", default="1,2,3,4", help="rank counts, comma separated")
    parser.add_argument("--parts", type=int, default=0,
                        help="also check `--parts K` figures at 2 and 3 ranks")
    args = runner.parse(parser)
    run = runner.Runner(args.graphcomm, args.launcher)

    start = time.monotonic()
    g = Graph(read_graph(args.graph))
    whole = graph_figures(g)
    print(f"recount {os.path.basename(args.graph)}: |V| = {g.n}, |E| = {len(g.edges)}, "
          f"{g.entries} entries ({time.monotonic() - start:.1f} s)")

    failed = False
    with runner.workdir("recount") as workdir:
        runs = [(int(x), 0) for x in args.ranks.split(",")]
        runs += [(ranks, args.parts) for ranks in (2, 3) if args.parts]
        for ranks, parts in runs:
            diffs = check_ranks(run, args.graph, g, whole, ranks, workdir, parts)
            status = "ok" if not diffs else f"{len(diffs)} MISMATCHES"
            print(f"  np {ranks}{f' --parts {parts}' if parts else ''}: {status}")
            for d in diffs:
                print(f"    {d}")
            failed |= bool(diffs)
    print(f"recount {os.path.basename(args.graph)}: {'FAILED' if failed else 'passed'} "
          f"in {time.monotonic() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    runner.main(main)

#!/usr/bin/env python3
"""End-to-end test of --reorder rcm and --partition scotch|metis on one real
graph at 1-4 ranks, checked by this script alone (standard library; the graph
file is parsed by recount.py, with none of the project's code):

  - `graph convert --permutation` writes a bijection of 0..n-1 (input id ->
    new id), and the written graph is the input, in the input's ids;
  - `graph stats --json` with the ordering: the whole-graph figures are the
    input's, `before_ordering` is the block distribution of the input, and
    every per-rank figure, the cut and the process graph are recounted here
    from the edge list with each vertex on the rank that owns its new id
    (ranges of new ids sized as the JSON's owned vertices; equal ranges for
    --reorder with block, as the block distribution cuts them); with rcm,
    the same for `--parts 4` at every rank count, whose parts must be the
    ranges the 4-rank run owns;
  - `match --check --mates` gives the block run's matching, in input ids;
  - `bfs --root R --levels` gives the block run's levels and validates.
(Bad combinations of the options are cases of bad_input.py.)

    order_cli.py --graphcomm BIN --graph FILE --orderings rcm,scotch,metis -- LAUNCHER...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recount  # noqa: E402  (the independent reader)
import runner  # noqa: E402


def option(ordering):
    return ["--reorder", ordering] if ordering == "rcm" else ["--partition", ordering]


def read_pairs(path):
    with open(path) as f:
        return sorted(tuple(int(x) for x in line.split()) for line in f)


def owner_by_new_id(per_rank, n):
    """owner[new id]: consecutive ranges sized by the ranks' owned vertices."""
    owner = []
    for r, row in enumerate(per_rank):
        owner += [r] * row["owned_vertices"]
    assert len(owner) == n, f"owned vertices add up to {len(owner)}, not {n}"
    return owner


def check_stats(g, whole, doc, perm, ranks, block_ranges, where, parts=0):
    # The recount's definitions over the relabeled graph: vertex v lives on
    # the owner of perm[v]. Relabel the edge list and recount.
    relabeled = recount.Graph.__new__(recount.Graph)
    relabeled.n = g.n
    relabeled.entries = g.entries
    relabeled.degree = [0] * g.n
    for v in range(g.n):
        relabeled.degree[perm[v]] = g.degree[v]
    relabeled.edges = []
    for key in g.edges:
        u, v = perm[key >> recount.ID_BITS], perm[key & recount.ID_MASK]
        relabeled.edges.append(min(u, v) << recount.ID_BITS | max(u, v))
    unit, count = ("part", parts) if parts else ("rank", ranks)
    per_rank = doc["distribution"][f"per_{unit}"]
    owner = owner_by_new_id(per_rank, g.n)
    if block_ranges:
        assert owner == recount.block_owner(g.n, count), f"{where}: not the block ranges"
    expected = {"ranks": ranks, "graph": whole}
    expected.update(recount.distribution_figures(relabeled, count, owner, unit))
    before = recount.distribution_figures(g, count, unit=unit)
    diffs = []
    recount.compare(expected, doc, "", diffs)
    recount.compare({k: before[k] for k in ("distribution", "process_graph")},
                    doc.get("before_ordering"), "before_ordering", diffs)
    assert not diffs, f"{where}:\n  " + "\n  ".join(diffs[:20])


def main():
    parser = runner.parser(__doc__)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--orderings", default="rcm,scotch,metis")
    parser.add_argument("--ranks", default="1,2,3,4")
    args = runner.parse(parser)
    run = runner.Runner(args.graphcomm, args.launcher)
    g = recount.Graph(recount.read_graph(args.graph))
    whole = recount.graph_figures(g)
    root = max(range(g.n), key=lambda v: g.degree[v])
    print(f"order_cli {os.path.basename(args.graph)}: |V| = {g.n}, |E| = {len(g.edges)}")

    four_rank_ranges, part_ranges = {}, {}  # rcm: ranges of 4 ranks, of --parts 4
    with runner.workdir("order") as w:
        for ranks in (int(x) for x in args.ranks.split(",")):
            base_mates, base_levels = f"{w}/mates.np{ranks}", f"{w}/levels.np{ranks}"
            run.ok(["match", "-q", "--graph", args.graph, "--check", "--mates", base_mates], ranks,
                   where=f"np {ranks} block match")
            run.ok(["bfs", "-q", "--graph", args.graph, "--root", str(root), "--levels",
                    base_levels], ranks, where=f"np {ranks} block bfs")
            for ordering in args.orderings.split(","):
                for dist in ("block", "edges"):
                    where = f"np {ranks} {ordering} {dist}"
                    common = ["--graph", args.graph, "--distribution", dist] + option(ordering)
                    perm_file, out = f"{w}/perm", f"{w}/out.mtx"
                    run.ok(["graph", "convert", "-q", "--output", out, "--permutation",
                            perm_file] + common, ranks, where=where)
                    pairs = read_pairs(perm_file)
                    assert [p[0] for p in pairs] == list(range(g.n)), f"{where}: input ids"
                    perm = [p[1] for p in pairs]
                    assert sorted(perm) == list(range(g.n)), f"{where}: not a permutation"
                    written = recount.Graph(recount.read_graph(out))
                    assert set(written.edges) == set(g.edges), f"{where}: converted graph differs"
                    stats = f"{w}/stats.json"
                    run.ok(["graph", "stats", "-q", "--json", stats] + common, ranks, where=where)
                    with open(stats) as f:
                        doc = json.load(f)
                    check_stats(g, whole, doc, perm, ranks,
                                ordering == "rcm" and dist == "block", where)
                    if ordering == "rcm":
                        ranges = [row["owned_vertices"] for row in doc["distribution"]["per_rank"]]
                        if ranks == 4:
                            four_rank_ranges[dist] = ranges
                        run.ok(["graph", "stats", "-q", "--json", stats, "--parts", "4"] + common,
                               ranks, where=where + " --parts 4")
                        with open(stats) as f:
                            doc = json.load(f)
                        part_ranges[(ranks, dist)] = [
                            row["owned_vertices"] for row in doc["distribution"]["per_part"]]
                        check_stats(g, whole, doc, perm, ranks, dist == "block",
                                    where + " --parts 4", parts=4)
                    mates = f"{w}/mates"
                    run.ok(["match", "-q", "--check", "--mates", mates] + common, ranks,
                           where=where)
                    assert read_pairs(mates) == read_pairs(base_mates), f"{where}: mates differ"
                    levels = f"{w}/levels"
                    out = run.ok(["bfs", "--root", str(root), "--levels", levels] + common,
                                 ranks, where=where)
                    assert "FAIL" not in out, f"{where}: {out}"
                    assert read_pairs(levels) == read_pairs(base_levels), f"{where}: levels differ"
            print(f"  np {ranks}: ok ({args.orderings} x block, edges)")
    for (ranks, dist), ranges in part_ranges.items():
        if dist in four_rank_ranges:
            assert ranges == four_rank_ranges[dist], \
                f"np {ranks} rcm {dist} --parts 4: parts {ranges}, 4 ranks own {four_rank_ranges[dist]}"
    return 0


if __name__ == "__main__":
    runner.main(main)

#!/usr/bin/env python3
"""End-to-end test of `graphcomm match` on one graph at 1-4 ranks, checked by
this script alone (standard library; the file is parsed by recount.py, with
none of the project's code):

  - the --mates file of every model at every rank count is the same matching,
    for the locally dominant algorithm (each model's run) and for Suitor (one
    run of every model per rank count, the first model's mates);
  - it is a matching of the input graph, in 0-based ids (a 1-based file's ids
    minus one): every pair is an edge of the file, no vertex twice;
  - it is maximal: no edge of the file has both ends unmatched;
  - --json agrees with it (cardinality) and across algorithms, models and
    rank counts (weight, cardinality), --check says OK for every run; also
    with --round-messages 1 (buffers of one message per neighbour and round);
    ncl-combined with --plan-build gathered (its plan built on rank 0);
  - --comm-matrix adds up to the messages and bytes of --json, nothing is
    sent to oneself, and the round profile accounts for every message.

    match_cli.py --graphcomm BIN --graph FILE [--models M...] -- LAUNCHER...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recount  # noqa: E402  (the independent reader)
import runner  # noqa: E402

MODELS = ["nsr", "rma", "ncl"]  # the default; ctest passes every model of the build


def match(run, graph, ranks, algorithm, model, workdir, extra=()):
    tag = f"{algorithm}.{model}.np{ranks}"
    files = {k: os.path.join(workdir, f"{k}.{tag}") for k in ("json", "mates", "matrix")}
    run.ok(["match", "-q", "--graph", graph, "--algorithm", algorithm, "--model", model, "--check",
            "--json", files["json"], "--mates", files["mates"], "--comm-matrix", files["matrix"],
            *extra], ranks)
    with open(files["json"]) as f:
        doc = json.load(f)
    with open(files["matrix"]) as f:
        matrix = json.load(f)
    with open(files["mates"]) as f:
        pairs = [tuple(int(x) for x in line.split()) for line in f]
    return doc, matrix, pairs


def check_matching(g, pairs, where):
    keys = set(g.edges)
    matched = set()
    for u, v in pairs:
        assert u < v, f"{where}: pair {u} {v} not written as u < v"
        assert (u << recount.ID_BITS | v) in keys, f"{where}: {u} {v} is not an edge of the input"
        assert u not in matched and v not in matched, f"{where}: vertex matched twice near {u} {v}"
        matched.update((u, v))
    for key in g.edges:
        u, v = key >> recount.ID_BITS, key & recount.ID_MASK
        assert u in matched or v in matched, f"{where}: not maximal: edge {u} {v} has both ends free"


def check_counts(doc, matrix, ranks, where):
    several = len({run["algorithm"] for run in doc["runs"]}) > 1
    for run in doc["runs"]:
        model = run["model"]
        assert run["check"] == "OK", f"{where} {model}: check says {run['check']}"
        runner.check_combined_plan(run, model, ranks, where)
        m = matrix["models"][f"{run['algorithm']}/{model}" if several else model]
        assert len(m["messages"]) == ranks and all(len(r) == ranks for r in m["messages"])
        assert all(m["messages"][r][r] == 0 for r in range(ranks)), f"{where} {model}: self messages"
        assert sum(map(sum, m["messages"])) == run["messages"]["sum"], f"{where} {model}: matrix messages"
        assert sum(map(sum, m["bytes"])) == run["bytes"]["sum"], f"{where} {model}: matrix bytes"
        assert max(map(sum, m["messages"])) == run["messages"]["max"], f"{where} {model}: max sender"
        if run["messages"]["sum"] > 0:
            assert run["buffer_bytes_max"] > 0, f"{where} {model}: messages sent without buffers"
        buckets = run["profile"]["buckets"]
        assert buckets[0]["first_round"] == 0 and buckets[0]["last_round"] == 0, f"{where}: round 0"
        assert buckets[-1]["last_round"] == run["profile"]["rounds"] - 1, f"{where}: last round"
        for a, b in zip(buckets, buckets[1:]):
            assert b["first_round"] == a["last_round"] + 1, f"{where} {model}: profile has a gap"
        assert sum(b["messages"] for b in buckets) == run["messages"]["sum"], \
            f"{where} {model}: profile messages"


def main():
    ap = runner.parser(__doc__)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--models", nargs="+", default=MODELS)
    args = runner.parse(ap)
    run = runner.Runner(args.graphcomm, args.launcher)

    g = recount.Graph(recount.read_graph(args.graph))
    reference = None
    figures = None

    def agree(doc, pairs, where):
        """Every run of doc has the first run's figures; pairs is the first matching."""
        nonlocal reference, figures
        first = doc["runs"][0]
        assert first["cardinality"] == len(pairs), \
            f"{where}: cardinality {first['cardinality']} != {len(pairs)} pairs"
        if reference is None:
            check_matching(g, pairs, where)
            reference, figures = pairs, (first["cardinality"], first["weight"])
            print(f"{where}: {len(pairs)} pairs, valid and maximal")
        assert pairs == reference, f"{where}: a different matching than the first run"
        for r in doc["runs"]:
            at = f"{where}, {r['algorithm']} over {r['model']}"
            assert r["cardinality"] == figures[0], f"{at}: cardinality differs"
            # Sums over ranks in another order: equal up to rounding.
            assert abs(r["weight"] - figures[1]) <= 1e-9 * max(1.0, abs(figures[1])), \
                f"{at}: weight {r['weight']} != {figures[1]}"

    with runner.workdir("match-cli") as workdir:
        for ranks in args.ranks:
            # Each model: both algorithms, the mates the first's (ld).
            for model in args.models:
                where = f"{os.path.basename(args.graph)} at {ranks} ranks, {model}"
                doc, matrix, pairs = match(run, args.graph, ranks, "all", model, workdir)
                check_counts(doc, matrix, ranks, where)
                assert [r["algorithm"] for r in doc["runs"]] == ["ld", "suitor"], \
                    f"{where}: runs {[r['algorithm'] for r in doc['runs']]}"
                agree(doc, pairs, where)
            # Suitor's own mates, and every model in one run, with the
            # exchange's buffers bounded to one message per neighbour and round.
            where = f"{os.path.basename(args.graph)} at {ranks} ranks, suitor, --round-messages 1"
            doc, matrix, pairs = match(run, args.graph, ranks, "suitor", "all", workdir,
                                       ["--round-messages", "1"])
            check_counts(doc, matrix, ranks, where)
            assert doc["round_messages"] == 1, f"{where}: round_messages {doc['round_messages']}"
            for r in doc["runs"]:
                assert r["flow_waits"] >= 0 and (ranks > 1 or r["flow_waits"] == 0), \
                    f"{where}, {r['model']}: flow_waits {r['flow_waits']}"
            assert {r["algorithm"] for r in doc["runs"]} == {"suitor"}, f"{where}: not suitor"
            assert doc["plan_build"] == "distributed", f"{where}: plan_build {doc['plan_build']}"
            agree(doc, pairs, where)
            # ncl-combined with its plan built on rank 0: the same matching.
            where = f"{os.path.basename(args.graph)} at {ranks} ranks, --plan-build gathered"
            doc, matrix, pairs = match(run, args.graph, ranks, "all", "ncl-combined", workdir,
                                       ["--plan-build", "gathered"])
            check_counts(doc, matrix, ranks, where)
            assert doc["plan_build"] == "gathered", f"{where}: plan_build {doc['plan_build']}"
            agree(doc, pairs, where)
        print(f"same matching for ld and suitor over {', '.join(args.models)} at ranks {args.ranks}")
    return 0


if __name__ == "__main__":
    runner.main(main)

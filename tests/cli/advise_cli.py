#!/usr/bin/env python3
"""End-to-end test of `graphcomm advise` and `--model auto` at 1-4 ranks,
checked by this script alone (standard library; the graph file is parsed by
recount.py, with none of the project's code):

  - `advise --calibrate` at each rank count appends one sample per
    configuration of the build (matching: every algorithm over every model;
    BFS: every algorithm over every model, and replicated; SpMM: every
    gather method) and input at that
    rank count to one calibration file, keeping the samples of the others;
    one cut short by a bad input keeps the inputs it finished;
  - `advise --graph FILE --ranks 7 --json` (computed at 1-4 ranks) reports the
    features of the file cut into 7 blocks as recount.py counts them (busiest
    part's edges and cut edges, the process graph's d_max and d_avg), the same
    at every rank count; ranks every configuration, fastest first, each
    prediction the sum of its terms; says it extrapolates (7 was not
    calibrated) and names the calibrated rank counts; compares the four
    distributions (block and edge-balanced ranges, of the input order and
    of its RCM order): the edge-balanced parts' features as recount.py cuts
    them, the reordering's time apart, the choice the fastest unless it
    gains less than 5% on the given one;
  - `match --model auto --check`, `bfs --model auto` and `spmm --method auto
    --check` run the configuration
    that `advise --ranks P` ranks first at those P ranks, say so on stdout
    (`model auto: CONFIG ...`), record the advice in the JSON, and the run is
    correct (check OK, validation OK); with --algorithm, auto picks among
    that algorithm's configurations only.

    advise_cli.py --graphcomm BIN --graph FILE --models M... [--ranks 1 2 3 4] -- LAUNCHER...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recount  # noqa: E402  (the independent reader)
import runner  # noqa: E402

CALIBRATION_INPUTS = ["rmat:8", "grid:6,d=2"]  # a spec with a comma too
PARTS = 7
MATCH_ALGORITHMS = ["ld", "suitor"]
BFS_ALGORITHMS = ["top-down", "direction-optimizing"]
SPMM_METHODS = {"allgather", "neighbor", "combined"}
KERNELS = ("match", "bfs", "spmm")


def configurations(kernel, models):
    if kernel == "match":
        return {f"{a}/{m}" for a in MATCH_ALGORITHMS for m in models}
    if kernel == "spmm":
        return SPMM_METHODS
    return {f"{a}/{m}" for a in BFS_ALGORITHMS for m in models} | {"replicated"}


def check_calibration(path, models, ranks_done):
    with open(path) as f:
        doc = json.load(f)
    for kernel in KERNELS:
        for p in ranks_done:
            got = {}
            for s in doc["samples"]:
                if s["kernel"] == kernel and s["features"]["parts"] == p:
                    got.setdefault(s["input"], set()).add(s["configuration"])
                    assert s["seconds"] > 0, f"calibration: {s} has no time"
            assert sorted(got) == sorted(CALIBRATION_INPUTS), \
                f"calibration at {p} ranks, {kernel}: inputs {sorted(got)}"
            for inp, names in got.items():
                assert names == configurations(kernel, models), \
                    f"calibration at {p} ranks, {kernel} on {inp}: {sorted(names)}"
    count = len(doc["samples"])
    expected = sum(len(configurations(k, models)) for k in KERNELS) * \
        len(CALIBRATION_INPUTS) * len(ranks_done)
    assert count == expected, f"calibration: {count} samples, expected {expected}"


def check_advice(advice, expected, models, calibrated):
    f = advice["features"]
    for field, want in expected.items():
        assert abs(f[field] - want) <= 1e-9 * max(1, abs(want)), \
            f"advise {advice['kernel']}: features.{field} {f[field]}, recount {want}"
    ranked = advice["ranked"]
    names = [c["configuration"] for c in ranked]
    assert set(names) == configurations(advice["kernel"], models), \
        f"advise {advice['kernel']}: ranked {names}"
    times = [c["predicted_seconds"] for c in ranked]
    assert times == sorted(times), f"advise {advice['kernel']}: not fastest first: {times}"
    for c in ranked:
        total = sum(c["term_seconds"].values())
        assert abs(total - c["predicted_seconds"]) <= 1e-9 * total + 1e-15, \
            f"advise: {c['configuration']} predicted {c['predicted_seconds']}, terms sum {total}"
    assert advice["choice"] == names[0], f"advise: choice {advice['choice']}, first {names[0]}"
    assert advice["calibrated_ranks"] == sorted(calibrated), advice["calibrated_ranks"]
    assert f"not at {PARTS}" in advice["extrapolation"], advice["extrapolation"]


LAYOUTS = ["--distribution block", "--distribution edges", "--distribution block --reorder rcm",
           "--distribution edges --reorder rcm"]
WORTH_CHANGING = 1.05  # advise/layouts.hpp kWorthChanging


def check_layouts(advice, expected_edges_layout, n_edges):
    """The distributions advise compares: the given one first (its features
    and best prediction those of the advice), the edge-balanced cut as
    recount.py cuts it, the RCM ones with their setup time, and the choice the
    fastest unless it gains under WORTH_CHANGING on the given one."""
    d = advice["distribution"]
    layouts = d["layouts"]
    assert sorted(x["flags"] for x in layouts) == sorted(LAYOUTS), layouts
    given = layouts[0]
    assert given["flags"] == LAYOUTS[0], given
    assert given["features"] == advice["features"], (given["features"], advice["features"])
    assert given["choice"] == advice["choice"], given
    by_flags = {x["flags"]: x for x in layouts}
    f = by_flags["--distribution edges"]["features"]
    for field, want in expected_edges_layout.items():
        assert abs(f[field] - want) <= 1e-9 * max(1, abs(want)), \
            f"advise {advice['kernel']} --distribution edges: features.{field} {f[field]}, " \
            f"recount {want}"
    for x in layouts:
        assert x["features"]["edges"] == n_edges, x
        assert (x["setup_seconds"] > 0) == ("--reorder rcm" in x["flags"]), x
    fastest = min(layouts, key=lambda x: x["predicted_seconds"])
    want = given if fastest["predicted_seconds"] * WORTH_CHANGING > given["predicted_seconds"] \
        else fastest
    assert d["choice"] == want["flags"], f"advise {advice['kernel']}: chose {d['choice']}, " \
        f"predicted {[(x['flags'], x['predicted_seconds']) for x in layouts]}"


def main():
    p = runner.parser(__doc__)
    p.add_argument("--graph", required=True)
    p.add_argument("--models", nargs="+", required=True)
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4])
    args = runner.parse(p)
    run = runner.Runner(args.graphcomm, args.launcher, timeout=600, strict=True)
    g = recount.Graph(recount.read_graph(args.graph))
    per_part = recount.distribution_figures(g, PARTS)["distribution"]["per_rank"]
    degrees = [r["process_degree"] for r in per_part]
    expected = {"parts": PARTS, "vertices": g.n, "edges": len(g.edges),
                "edges_max": max(r["edges"] for r in per_part),
                "cut_max": max(r["cut_edges"] for r in per_part),
                "degree_max": max(degrees), "degree_avg": sum(degrees) / PARTS}
    per_part = recount.distribution_figures(
        g, PARTS, recount.edge_balanced_owner(g, PARTS))["distribution"]["per_rank"]
    degrees = [r["process_degree"] for r in per_part]
    expected_edges_layout = {"parts": PARTS, "edges_max": max(r["edges"] for r in per_part),
                             "cut_max": max(r["cut_edges"] for r in per_part),
                             "degree_max": max(degrees), "degree_avg": sum(degrees) / PARTS}
    with runner.workdir("advise") as tmp:
        cal = os.path.join(tmp, "calibration.json")
        done = []
        for ranks in args.ranks:
            run.ok(["advise", "-q", "--calibrate", "--calibration", cal, "--kernel", "all",
                    "--calibration-inputs", *CALIBRATION_INPUTS, "--repeats", "1"], ranks)
            done.append(ranks)
            check_calibration(cal, args.models, done)
        # A calibration cut short keeps the inputs it finished: here the second
        # input is refused after the first was measured.
        cut = os.path.join(tmp, "cut-short.json")
        run.refused(["advise", "-q", "--calibrate", "--calibration", cut, "--kernel", "bfs",
                     "--calibration-inputs", CALIBRATION_INPUTS[0], "no-such-graph.mtx",
                     "--repeats", "1"], r"no-such-graph\.mtx", ranks=2)
        with open(cut) as f:
            kept = {(s["input"], s["configuration"]) for s in json.load(f)["samples"]}
        assert kept == {(CALIBRATION_INPUTS[0], c) for c in configurations("bfs", args.models)}, \
            f"calibration cut short: kept {sorted(kept)}"
        for ranks in args.ranks:
            out = os.path.join(tmp, f"advise.np{ranks}.json")
            run.ok(["advise", "-q", "--graph", args.graph, "--kernel", "all", "--ranks",
                    str(PARTS), "--calibration", cal, "--json", out], ranks)
            with open(out) as f:
                doc = json.load(f)
            assert [a["kernel"] for a in doc["advice"]] == list(KERNELS), doc["advice"]
            for advice in doc["advice"]:
                check_advice(advice, expected, args.models, args.ranks)
                check_layouts(advice, expected_edges_layout, len(g.edges))
            # --model auto at these ranks runs what advise ranks first for them.
            at = os.path.join(tmp, f"advise-at.np{ranks}.json")
            run.ok(["advise", "-q", "--graph", args.graph, "--kernel", "all", "--calibration",
                    cal, "--json", at], ranks)
            with open(at) as f:
                choice = {a["kernel"]: a["choice"] for a in json.load(f)["advice"]}
            for kernel, extra in (("match", ["--check"]), ("bfs", ["--roots", "2"]),
                                  ("match", ["--algorithm", "suitor", "--check"]),
                                  ("spmm", ["--check", "--iters", "2"])):
                out = os.path.join(tmp, f"{kernel}.auto.np{ranks}.json")
                option = "--method" if kernel == "spmm" else "--model"
                graph = "--matrix" if kernel == "spmm" else "--graph"
                stdout = run.ok([kernel, "-q", graph, args.graph, option, "auto",
                                 "--calibration", cal, "--json", out, *extra], ranks)
                with open(out) as f:
                    doc = json.load(f)
                runs = doc["runs"]
                assert len(runs) == 1, f"{kernel} --model auto: {len(runs)} runs"
                r = runs[0]
                name = (r["configuration"] if kernel == "bfs" else r["method"] if kernel == "spmm"
                        else f"{r['algorithm']}/{r['model']}")
                want = choice[kernel]
                if "--algorithm" in extra:  # the best of suitor's configurations
                    ranked = [c["configuration"] for c in doc["auto"]["ranked"]]
                    assert all(c.startswith("suitor/") for c in ranked), ranked
                    want = ranked[0]
                assert doc["auto"]["choice"] == name == want, \
                    f"{kernel} --model auto {' '.join(extra)} at {ranks} ranks: ran {name}, " \
                    f"recorded {doc['auto']['choice']}, advise ranks {want} first"
                assert f"{option[2:]} auto: {name} (predicted " in stdout, stdout
                verdict = r["validation"] if kernel == "bfs" else r["check"]
                assert verdict == "OK", f"{kernel} --model auto: {verdict}"
    print(f"advise_cli: OK at ranks {args.ranks}")
    return 0


if __name__ == "__main__":
    runner.main(main)

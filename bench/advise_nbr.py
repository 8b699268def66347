#!/usr/bin/env python3
"""Judges `graphcomm advise --kernel nbr` (issue #30, item 1: for the
collectives, whether to combine and with which k): per topology and block
size, the configuration advise ranks first (direct, or the plan of k = 2, 3,
4 or auto) against every configuration's measured time.

Per topology: `advise --kernel nbr` (its ranking and predicted times per
size), then `nbr bench --k K` for K in 2, 3, 4 and auto (each times the
library's call, "direct", and the plan's). A configuration's time is its
median; direct's is the median over the four runs. Then per case (topology,
size):

  - chosen/best: the chosen configuration's measured time over the fastest's;
  - hit: chosen/best <= 1.10 (the issue's target: in at least 90% of cases);
  - never the slowest configuration;
  - the model's error: median |predicted/measured - 1| over the configurations.

By default on 64 simulated ranks of the `edr` platform (scripts/simulate,
the SMPI build, --communication-only: simulated time is then deterministic,
one repetition is enough): friend groups need many ranks, which this
machine does not have. The calibration (`advise --calibrate --kernel nbr`
on ring topologies, none of which is judged) is made first when its file is
missing.

    bench/advise_nbr.py [--ranks 64] [--platform edr | --real] [--topologies ...]
                        [--sizes 4,64,1024,4096] [--calibration FILE]
                        [--out bench/results/advise_nbr.json]

With --stored FILE.jsonl (runs of `nbr bench` saved by `graphcomm-lab save`,
e.g. bench/simulated/reproduce-combining-simulated-edr.jsonl: 256 to 4096
simulated ranks), nothing is simulated: each stored point (ranks,
topology, mode, size) is judged among the configurations stored for it,
and advise runs on one real rank for the stored rank count (`--ranks P
--ranks-per-node 16`: every rank's plan built there), with the platform's
calibration (default bench/simulated/calibration-edr.json). Where only some
group sizes were stored, advise's choice is its best among them.

    bench/advise_nbr.py --stored bench/simulated/reproduce-combining-simulated-edr.jsonl
"""
import argparse
import json
import os
import subprocess
import sys

import lab
from lab import GCRUN, ROOT, config, median

DEFAULT_TOPOLOGIES = ["moore:2:1", "moore:2:2", "moore:2:3", "moore:3:1", "random:0.05",
                      "random:0.2", "random:0.5"]
KS = ["2", "3", "4", "auto"]
TARGET = lab.ADVICE_TARGET


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=64)
    p.add_argument("--platform", default="edr")
    p.add_argument("--real", action="store_true",
                   help="run on this machine's ranks (scripts/gcrun, build/) instead")
    p.add_argument("--topologies", nargs="+", default=DEFAULT_TOPOLOGIES)
    p.add_argument("--sizes", default="4,64,1024,4096")
    p.add_argument("--calibration")
    p.add_argument("--stored", help="judge on these stored nbr bench runs (JSONL) instead")
    p.add_argument("--ranks-per-node", type=int, default=16,
                   help="with --stored: the platform's ranks per node (edr: 16)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "advise_nbr.json"))
    lab.add_store_option(p)
    args = p.parse_args()
    if args.stored:
        return judge_stored(args)
    where = "real" if args.real else args.platform
    calibration = args.calibration or os.path.join(ROOT, "results", "advise",
                                                   f"calibration-nbr-{where}.json")
    if args.real:
        binary, launcher, iters, repeat = (os.path.join(ROOT, "build", "src", "graphcomm"),
                                           None, 200, 5)
        calibrate = [GCRUN, "-np", str(args.ranks), binary]
    else:
        binary = os.path.join(ROOT, "build-smpi", "src", "graphcomm")
        launcher = [os.path.join(ROOT, "scripts", "simulate"), "--platform", args.platform,
                    "--communication-only"]
        iters, repeat = 1, 1
        calibrate = [*launcher, "-np", str(args.ranks), binary]
    if not os.path.exists(calibration):
        os.makedirs(os.path.dirname(calibration), exist_ok=True)
        print(f"calibrating into {calibration}", flush=True)
        subprocess.run([*calibrate, "-q", "advise", "--kernel", "nbr", "--calibrate",
                        "--calibration", calibration], check=True, stdout=subprocess.DEVNULL)
    session = lab.Bench("advise_nbr", store=args.store, binary=binary, launcher=launcher)
    cases = []
    for topology in args.topologies:
        configs = [config("advise", f"topology:{topology}", None, args.ranks,
                          {"kernel": "nbr", "calibration": calibration, "sizes": args.sizes})]
        configs += [config("nbr", topology, "allgather", args.ranks,
                           {"k": k, "sizes": args.sizes, "iters": iters, "repeat": repeat})
                    for k in KS]
        docs = session.documents(0, configs)
        advice = {a["bytes"]: a for a in docs[0]["sizes"]}
        for i, size in enumerate(int(s) for s in args.sizes.split(",")):
            measured = {"direct": median([median(d["sizes"][i]["default_seconds"])
                                          for d in docs[1:]])}
            for k, d in zip(KS, docs[1:]):
                measured[f"k={k}"] = median(d["sizes"][i]["ours_seconds"])
            # A plan that formed no group is not ranked (its calls are
            # direct's), but it is measured: judged among all measured.
            case = lab.judge_choice(advice[size], measured, among=measured)
            case["direct_over_best"] = measured["direct"] / measured[case["best"]]
            case.update(topology=topology, bytes=size, ranks=args.ranks, mode="agnostic",
                        where=where)
            cases.append(case)
            print_case(case)
    write_summary(args.out, cases, {"calibration": calibration, "where": where,
                                    "ranks": args.ranks})
    session.close()


def print_case(case):
    print(f"{case['topology']:<12} {case['ranks']:>5} {case['mode']:<8} {case['bytes']:>5} B "
          f"chose {case['chosen']:<7} {case['chosen_over_best']:5.2f}x best ({case['best']}), "
          f"direct {case['direct_over_best']:5.2f}x, worst {case['worst_over_best']:5.2f}x, "
          f"model error {case['median_error']:.0%}", flush=True)


def write_summary(out, cases, header):
    hits = sum(c["hit"] for c in cases)
    worse = sum(c["chose_slowest"] for c in cases)
    summary = {"cases": len(cases), "hits": hits, "hit_rate": hits / len(cases),
               "target_hit_rate": 0.9, "chose_slowest": worse,
               "median_model_error": median([c["median_error"] for c in cases])}
    print(f"\nchosen within {TARGET - 1:.0%} of the best in {hits} of {len(cases)} cases "
          f"({summary['hit_rate']:.0%}; target 90%); the slowest chosen in {worse}; "
          f"median model error {summary['median_model_error']:.0%}")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump({**header, "summary": summary, "cases": cases}, f, indent=1)


def stored_points(path):
    """{(ranks, topology, mode): {bytes: {configuration: [seconds]}}} from
    stored nbr bench runs: "direct" (every run's library call) and "k=K"
    (the plan of the run's --k; auto where none)."""
    points = {}
    with open(path) as f:
        for line in f:
            run = json.loads(line)
            if run["kernel"] != "nbr" or run["status"] != "ok":
                continue
            o = run["options"]
            k = f"k={o.get('k', 'auto')}"
            point = points.setdefault((run["ranks"], run["input"], o.get("mode", "agnostic")), {})
            for size in run["result"]["sizes"]:
                at = point.setdefault(size["bytes"], {})
                at.setdefault("direct", []).extend(size["default_seconds"])
                at.setdefault(k, []).extend(size["ours_seconds"])
    return points


def judge_stored(args):
    calibration = args.calibration or os.path.join(ROOT, "bench", "simulated",
                                                   "calibration-edr.json")
    binary = os.path.join(ROOT, "build", "src", "graphcomm")
    session = lab.Bench("advise_nbr", store=args.store, binary=binary)
    cases = []
    for (ranks, topology, mode), by_size in sorted(stored_points(args.stored).items()):
        sizes = ",".join(str(b) for b in sorted(by_size))
        [doc] = session.documents(0, [config(
            "advise", f"topology:{topology}", None, 1,
            {"kernel": "nbr", "calibration": calibration, "sizes": sizes, "mode": mode,
             "np": ranks, "ranks-per-node": args.ranks_per_node})])
        advice = {a["bytes"]: a for a in doc["sizes"]}
        for size, seconds in sorted(by_size.items()):
            measured = {c: median(v) for c, v in seconds.items()}
            # Advise's choice among what was stored (a plan that formed no
            # group is not ranked: its calls are direct's).
            ranked = [c for c in advice[size]["ranked"] if c["configuration"] in measured]
            chosen = {**advice[size], "ranked": ranked, "choice": ranked[0]["configuration"]}
            case = lab.judge_choice(chosen, measured, among=measured)
            case["direct_over_best"] = measured["direct"] / measured[case["best"]]
            case["advised_among_all"] = advice[size]["choice"]
            case.update(topology=topology, bytes=size, ranks=ranks, mode=mode,
                        where=f"stored: {os.path.basename(args.stored)}")
            cases.append(case)
            print_case(case)
    write_summary(args.out, cases, {"calibration": calibration, "stored": args.stored,
                                    "ranks_per_node": args.ranks_per_node})
    session.close()


if __name__ == "__main__":
    sys.exit(lab.main(main))

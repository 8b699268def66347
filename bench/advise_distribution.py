#!/usr/bin/env python3
"""Judges graphcomm advise's choice of distribution for matching (issue #30:
"for matching the algorithm and distribution"): per input and rank count,
the distribution and configuration advise advises against every
(distribution, configuration) pair's measured time.

For each input and rank count: `advise --kernel match` once (the
`distribution` of its advice: the four layouts, block and edge-balanced
ranges of the input order and of its RCM order, each with its best
configuration and predicted time), then `match --model all --algorithm all`
on each of the four distributions (their flags, e.g. `--distribution edges
--reorder rcm`), --repeat times, interleaved (repetition r of every
distribution before repetition r+1). A pair's measured time is its median
over repetitions of the run's `seconds`, one matching; the reordering is
setup (timings.order_seconds and relabel_seconds of the match document),
never in it. Then, per case (input, ranks):

  - advised/best: the advised pair's (advice's distribution.choice and that
    layout's choice) measured time over the fastest pair's;
  - hit: advised/best <= 1.10 (as bench/advise.py);
  - given/best: the given distribution's fastest configuration over the
    fastest pair: what not changing the distribution costs;
  - a wrong change: advise changes the distribution and its pair is measured
    slower than the given distribution with advise's configuration for it
    (what following the advice loses against ignoring it);
  - each layout's predicted over measured time of its chosen configuration,
    and the reordering's setup seconds (advise's and the match runs').

Prints the cases and the summary; writes everything as JSON (--out).

    bench/advise_distribution.py [--calibration FILE] [--ranks 2 4] [--inputs ...]
                                 [--repeat 3] [--out bench/results/advise_distribution.json]
                                 [--platform NAME [--binary SMPI_BUILD]]

--platform and the calibration as for bench/advise.py: simulated ranks
(scripts/simulate on that platform, the SMPI build) and the platform's
calibration; the calibration (graphcomm advise --calibrate at each rank
count) must exist.
"""
import argparse
import json
import os
import sys

import lab
from advise import DEFAULT_INPUTS, TARGET
from lab import DATASETS, ROOT, BenchError, config, median
from graphcomm_lab.measured import measured_times

# The real graphs of bench/advise.py's inputs, and two of its generated ones.
DEFAULT_DISTRIBUTION_INPUTS = [
    *(i for i in DEFAULT_INPUTS if os.path.dirname(i) == DATASETS), "rgg:262144", "grid:48"]
# What advise compares (docs/advise.md, "Which distribution"), given first by default.
DISTRIBUTIONS = ["--distribution block", "--distribution edges",
                 "--distribution block --reorder rcm", "--distribution edges --reorder rcm"]


def options_of(flags):
    """A config's options from a distribution's flags: `--distribution edges
    --reorder rcm` is {"distribution": "edges", "reorder": "rcm"}."""
    words = flags.split()
    if len(words) % 2 or not all(w.startswith("--") for w in words[::2]):
        raise BenchError(f"advise: distribution flags '{flags}' are not --NAME VALUE pairs")
    return {name[2:]: value for name, value in zip(words[::2], words[1::2])}


def check_layout(doc, flags):
    """The match document ran the distribution `flags` asked for (its input's
    distribution and ordering)."""
    want = options_of(flags)
    got = {"distribution": doc["input"].get("distribution"),
           "reorder": doc["input"].get("ordering", "none")}
    if (got["distribution"], got["reorder"]) != (want.get("distribution", "block"),
                                                  want.get("reorder", "none")):
        raise BenchError(f"match {flags}: ran distribution {got['distribution']}, ordering "
                         f"{got['reorder']}")


def reorder_seconds(docs):
    """The match runs' reordering (setup, not in `seconds`): median over
    repetitions of timings.order_seconds + relabel_seconds."""
    return median([d["timings"].get("order_seconds", 0) + d["timings"].get("relabel_seconds", 0)
                   for d in docs])


def judge_case(advice, measured, reordering):
    """measured: {flags: {configuration: seconds}}; reordering: {flags: seconds}."""
    dist = advice["distribution"]
    layouts = {lay["flags"]: lay for lay in dist["layouts"]}
    given = dist["layouts"][0]["flags"]
    advised = dist["choice"]
    advised_conf = layouts[advised]["choice"]
    for flags, lay in layouts.items():
        if lay["choice"] not in measured[flags]:
            raise BenchError(f"advise chose {lay['choice']} on {flags}, which match --model all "
                             f"--algorithm all did not run")
    pairs = [(f, c) for f in measured for c in measured[f]]
    best = min(pairs, key=lambda p: measured[p[0]][p[1]])
    best_s = measured[best[0]][best[1]]
    advised_s = measured[advised][advised_conf]
    given_best = min(measured[given], key=measured[given].get)
    given_advised_s = measured[given][layouts[given]["choice"]]
    rows = []
    for lay in dist["layouts"]:
        flags, times = lay["flags"], measured[lay["flags"]]
        fastest = min(times, key=times.get)
        rows.append({"flags": flags, "choice": lay["choice"],
                     "predicted_seconds": lay["predicted_seconds"],
                     "measured_seconds": times[lay["choice"]],
                     "predicted_over_measured": lay["predicted_seconds"] / times[lay["choice"]],
                     "best": fastest, "best_seconds": times[fastest],
                     "setup_seconds": lay["setup_seconds"],
                     "measured_reorder_seconds": reordering[flags]})
    changed = advised != given
    return {"given": given, "advised_distribution": advised,
            "advised_configuration": advised_conf,
            "advised_over_best": advised_s / best_s, "hit": advised_s <= TARGET * best_s,
            "given_best": given_best, "given_best_over_best": measured[given][given_best] / best_s,
            "best_distribution": best[0], "best_configuration": best[1], "best_seconds": best_s,
            "changed": changed, "wrong_change": changed and advised_s > given_advised_s,
            "slower_than_given_best": changed and advised_s > measured[given][given_best],
            "reason": dist["reason"], "layouts": rows,
            "measured": measured}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calibration", default=os.path.join(ROOT, "results", "advise",
                                                         "calibration.json"))
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--inputs", nargs="+", default=DEFAULT_DISTRIBUTION_INPUTS)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                 "advise_distribution.json"))
    p.add_argument("--platform", help="judge on simulated ranks of this scripts/simulate "
                                      "platform (edr, ...)")
    p.add_argument("--binary", help="graphcomm to run (default: build/, or build-smpi/ with "
                                    "--platform)")
    lab.add_store_option(p)
    args = p.parse_args()
    launcher = None
    if args.platform:
        args.binary = args.binary or os.path.join(ROOT, "build-smpi", "src", "graphcomm")
        launcher = [os.path.join(ROOT, "scripts", "simulate"), "--platform", args.platform]
        if args.calibration == p.get_default("calibration"):
            args.calibration = os.path.join(ROOT, "results", "advise",
                                            f"calibration-{args.platform}.json")
    if not os.path.exists(args.calibration):
        sys.exit(f"bench: {args.calibration}: no calibration: run `scripts/gcrun -np P "
                 f"build/src/graphcomm advise --calibrate --calibration {args.calibration}` "
                 f"for each P of --ranks")
    session = lab.Bench("advise_distribution", store=args.store, binary=args.binary,
                        launcher=launcher)
    cases = []
    for inp in args.inputs:
        for ranks in args.ranks:
            advising = config("advise", inp, None, ranks,
                              {"kernel": "match", "calibration": args.calibration})
            matches = [config("match", inp, "all", ranks, {"algorithm": "all", **options_of(f)})
                       for f in DISTRIBUTIONS]
            docs = [session.documents(rep, ([advising] if rep == 0 else []) + matches)
                    for rep in range(args.repeat)]
            advice = next(a for a in docs[0][0]["advice"] if a["kernel"] == "match")
            if "distribution" not in advice:
                raise BenchError(f"advise {inp} at {ranks} ranks: no distribution in its advice")
            compared = sorted(lay["flags"] for lay in advice["distribution"]["layouts"])
            if compared != sorted(DISTRIBUTIONS):
                raise BenchError(f"advise {inp} at {ranks} ranks compared other distributions "
                                 f"than {DISTRIBUTIONS}")
            matched = [d[-len(matches):] for d in docs]
            runs = {f: [m[i] for m in matched] for i, f in enumerate(DISTRIBUTIONS)}
            for f, ds in runs.items():
                for d in ds:
                    check_layout(d, f)
            case = judge_case(advice, {f: measured_times(ds, "match") for f, ds in runs.items()},
                              {f: reorder_seconds(ds) for f, ds in runs.items()})
            case = {"input": os.path.basename(inp), "ranks": ranks, **case}
            cases.append(case)
            ratios = " ".join(f"{r['predicted_over_measured']:.2g}" for r in case["layouts"])
            setup = max(r["setup_seconds"] for r in case["layouts"])
            print(f"{case['input']:<30} {ranks:>2} advised {case['advised_distribution']:<35} "
                  f"{case['advised_configuration']:<18} {case['advised_over_best']:5.2f}x best "
                  f"({case['best_distribution']} {case['best_configuration']}); given "
                  f"{case['given_best_over_best']:5.2f}x; predicted/measured {ratios}; rcm "
                  f"setup {setup:.3g} s", flush=True)
    hits = sum(c["hit"] for c in cases)
    changes = sum(c["changed"] for c in cases)
    wrong = sum(c["wrong_change"] for c in cases)
    errors = [abs(r["predicted_over_measured"] - 1) for c in cases for r in c["layouts"]]
    summary = {"cases": len(cases), "hits": hits, "hit_rate": hits / len(cases),
               "target": TARGET, "changes": changes, "wrong_changes": wrong,
               "slower_than_given_best": sum(c["slower_than_given_best"] for c in cases),
               "median_given_best_over_best": median([c["given_best_over_best"] for c in cases]),
               "median_model_error": median(errors)}
    print(f"\nadvised pair within {TARGET - 1:.0%} of the best in {hits} of {len(cases)} cases "
          f"({summary['hit_rate']:.0%}); distribution changed in {changes}, measured slower "
          f"than the given one in {wrong} (than the given's best configuration in "
          f"{summary['slower_than_given_best']}); staying costs "
          f"{summary['median_given_best_over_best']:.2f}x (median); median model error "
          f"{summary['median_model_error']:.0%}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"calibration": args.calibration, "platform": args.platform,
                   "repeat": args.repeat, "distributions": DISTRIBUTIONS,
                   "summary": summary, "cases": cases}, f, indent=1)
    session.close()


if __name__ == "__main__":
    lab.main(main)

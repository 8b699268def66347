#!/usr/bin/env python3
"""Judges graphcomm advise (and so --model auto) on inputs its calibration
was not fitted on (issue #30, item 4): per input, rank count and kernel, the
configuration advise ranks first against every configuration's measured time.

For each input and rank count: `advise --kernel all` (its ranking and
predicted times), `match --model all --algorithm all`, `bfs --model all
--roots R` and, for the inputs of --spmm-inputs, `spmm --method all`,
--repeat times, interleaved; a configuration's measured time is its median
over repetitions (matching: one matching; BFS: the median search; SpMM: the
gather of one iteration, what advise predicts for it).
Then, per case (input, ranks, kernel):

  - chosen/best: the chosen configuration's measured time over the fastest's;
  - hit: chosen/best <= 1.10 (the issue's target: in at least 90% of cases);
  - never the slowest configuration;
  - the model's error: median |predicted/measured - 1| over the configurations;
  - beside it, what measuring instead of predicting gets on this machine
    (with --repeat 3 or more): the fastest configuration of the first
    repetition, judged on the median of the others. On a noisy machine where
    several configurations tie, even that misses the 10% now and then: it is
    the ceiling the model is measured against;
  - with --repeat 6 or more, the same with half the repetitions against the
    other half (odd against even, both ways): a chooser that measured every
    configuration 3 times, judged on 3 other medians. Where that misses, the
    noise between two sets of medians decides the case.

Prints the cases and the summary; writes everything as JSON (--out).

    bench/advise.py [--calibration FILE] [--ranks 2 4] [--inputs ...] [--spmm-inputs ...]
                    [--kernels match bfs spmm] [--repeat 3] [--roots 8]
                    [--out bench/results/advise.json]
                    [--platform NAME [--binary SMPI_BUILD] [--skip CONFIGURATION ...]
                                     [--plan-build gathered]]
                    [--given-distribution-only]

--platform judges on simulated ranks instead (SimGrid SMPI, scripts/simulate
on that platform, the SMPI build): every time is then simulated, advise's and
the kernels' alike, and the calibration is the platform's (made by
`scripts/simulate -np P --platform NAME graphcomm advise --calibrate
--platform NAME` at a few rank counts; by default
bench/simulated/calibration-NAME.json). Repeat there too (--repeat 3): the
kernels' simulated times charge the computation SMPI measures on this
machine, and an asynchronous kernel's path follows it (one matching at 256
simulated ranks: 0.63-1.28 ms over 8 runs of one command, bench/README.md).
--given-distribution-only passes the flag to advise: the ranking judged is
the same (the kernels run on the given distribution), without the reverse
Cuthill-McKee order and the other layouts advise compares by default, which
at 1024 simulated ranks cost more wall time than the matchings judged.
--skip leaves configurations unsimulated where one run would take hours
(BFS over ncl-combined at 1024 ranks: its plan); each case names those it
was not judged against.

The calibration (graphcomm advise --calibrate at each rank count) must exist:
its inputs (rmat:10-15, er:16384 and 65536, rgg:16384 and 65536, grid:32 and
64, grid:256,d=2) are not among the judged ones here.
"""
import argparse
import hashlib
import json
import os
import sys

import lab
from lab import DATASETS, ROOT, config, median
from graphcomm_lab.measured import measured_times
from graphcomm_lab.suite import CONTENT

DEFAULT_INPUTS = [
    "rmat:16", "rmat:13,ef=4", "er:32768,d=4", "rgg:262144", "grid:48", "sbm:32768",
    *(os.path.join(DATASETS, f) for f in (
        "email-Enron.txt.gz", "cit-HepPh.txt.gz", "internet.mtx.gz", "luxembourg_osm.mtx.gz",
        "web-sk-2005.mtx.gz", "soc-Slashdot0902.txt.gz", "bio-grid-yeast.edges.gz",
        "ego-Twitter-undirected.txt.gz")),
]
# C = A x A on the large real graphs takes minutes: SpMM is judged on these.
DEFAULT_SPMM_INPUTS = ["rmat:13,ef=4", "er:32768,d=4", "grid:48", "sbm:32768",
                       *(os.path.join(DATASETS, f) for f in (
                           "email-Enron.txt.gz", "internet.mtx.gz", "luxembourg_osm.mtx.gz",
                           "bio-grid-yeast.edges.gz"))]
TARGET = lab.ADVICE_TARGET
KERNELS = ["match", "bfs", "spmm"]


# Under SMPI these models' runs take the longest wall time by far (SimGrid
# simulates every RMA operation, docs/simulation.md): run last, so that a
# suite cut short holds every other configuration.
SLOW_TO_SIMULATE = ("rma-fence", "rma-hash")


def one_per_run(advice, inp, ranks, roots, skip=(), plan_build=None):
    """{"match": configs, "bfs": configs}: a run per model of what advise
    ranked (matching: every algorithm in it), a run per algorithm/model for
    BFS, but those named in `skip` (BFS: algorithm/model; matching: the
    model); the models slowest to simulate last. With plan_build, the runs
    over ncl-combined pass it as --plan-build."""
    def plan(model):
        return {"plan-build": plan_build} if plan_build and model == "ncl-combined" else {}
    ranked = {a["kernel"]: [c["configuration"] for c in a["ranked"]] for a in advice["advice"]}
    match = sorted({name.split("/")[1] for name in ranked.get("match", [])} - set(skip))
    bfs = []
    for name in ranked.get("bfs", []):
        if name in skip:
            continue
        algorithm, _, model = name.partition("/")
        bfs.append(config("bfs", inp, model or None, ranks,
                          {"roots": roots, "algorithm": algorithm, **plan(model)}))
    match = [config("match", inp, m, ranks, {"algorithm": "all", **plan(m)}) for m in match]
    return {"match": sorted(match, key=slow_to_simulate), "bfs": sorted(bfs, key=slow_to_simulate)}


def slow_to_simulate(c):
    """A sort key: False before True, so these configurations run last."""
    return c.model in SLOW_TO_SIMULATE


def pick_and_judge(pick_docs, judge_docs, kernel):
    """The fastest configuration by the medians of pick_docs, over the
    fastest by the medians of judge_docs, both measured on judge_docs."""
    picked = measured_times(pick_docs, kernel)
    judged = measured_times(judge_docs, kernel)
    pick = min(picked, key=picked.get)
    return judged[pick] / min(judged.values())


def measure_once(docs, kernel):
    """The fastest configuration of the first repetition over the best of
    the others' medians, measured on those others (None under 3 repetitions)."""
    if len(docs) < 3:
        return None
    return pick_and_judge(docs[:1], docs[1:], kernel)


def measure_half(docs, kernel):
    """The fastest configuration by the median of half the repetitions (the
    odd ones) over the best of the other half's medians, measured on that
    other half, and the same with the halves swapped: the two ratios (None
    under 6 repetitions). What a chooser that measured every configuration
    as often as the judgement does would get: where it misses 10%, the
    machine's noise between two sets of medians is what decides the case,
    whatever a model predicts."""
    if len(docs) < 6:
        return None
    odd, even = docs[0::2], docs[1::2]
    return [pick_and_judge(odd, even, kernel), pick_and_judge(even, odd, kernel)]


def tally_by_kernel(cases):
    """Per kernel and rank count: [kernel, ranks, cases, advise's hits, the
    measured-once hits, the half-against-half hits and judgements]."""
    rows = {}
    for c in cases:
        row = rows.setdefault((c["kernel"], c["ranks"]), [c["kernel"], c["ranks"], 0, 0, 0, 0, 0])
        row[2] += 1
        row[3] += c["hit"]
        row[4] += (c["measured_once_over_best"] or float("inf")) <= TARGET
        for r in c["measured_half_over_best"] or []:
            row[5] += r <= TARGET
            row[6] += 1
    return [rows[k] for k in sorted(rows)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calibration", default=os.path.join(ROOT, "results", "advise",
                                                         "calibration.json"))
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--inputs", nargs="+", default=DEFAULT_INPUTS)
    p.add_argument("--spmm-inputs", nargs="*", default=DEFAULT_SPMM_INPUTS,
                   help="the inputs (of --inputs) SpMM is judged on too")
    p.add_argument("--kernels", nargs="+", choices=KERNELS, default=KERNELS,
                   help="the kernels judged (SpMM on --spmm-inputs only); on simulated ranks "
                        "matching alone costs a fraction of BFS over the one-sided models")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--roots", type=int, default=8)
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "advise.json"))
    p.add_argument("--platform", help="judge on simulated ranks of this scripts/simulate "
                                      "platform (edr, ...)")
    p.add_argument("--binary", help="graphcomm to run (default: build/, or build-smpi/ with "
                                    "--platform)")
    p.add_argument("--suite", help="name the lab suite (default: a new one per invocation); "
                                   "the same command with the same name resumes it, running "
                                   "only what it has not stored: for simulated ranks, whose "
                                   "runs take hours")
    p.add_argument("--given-distribution-only", action="store_true",
                   help="advise for the given distribution only (its ranking is the one "
                        "judged either way)")
    p.add_argument("--skip", nargs="+", default=[], metavar="CONFIGURATION",
                   help="with --platform: configurations not simulated (BFS: ALGORITHM/MODEL; "
                        "matching: MODEL), where one run would take hours; the case is judged "
                        "on the others and names them")
    p.add_argument("--plan-build", choices=["distributed", "gathered"],
                   help="with --platform: passed to the runs over ncl-combined (gathered: its "
                        "plan built on rank 0, the same plan; the distributed build takes the "
                        "simulator hours at 1024 ranks on dense process graphs)")
    lab.add_store_option(p)
    args = p.parse_args()
    if args.skip and not args.platform:
        p.error("--skip is for simulated ranks (--platform): here every configuration runs at once")
    if args.plan_build and not args.platform:
        p.error("--plan-build is for simulated ranks (--platform)")
    launcher = None
    if args.platform:
        args.binary = args.binary or os.path.join(ROOT, "build-smpi", "src", "graphcomm")
        launcher = [os.path.join(ROOT, "scripts", "simulate"), "--platform", args.platform]
        if args.calibration == p.get_default("calibration"):  # the platform's, kept in git
            args.calibration = os.path.join(ROOT, "bench", "simulated",
                                            f"calibration-{args.platform}.json")
    if not os.path.exists(args.calibration):
        sys.exit(f"bench: {args.calibration}: no calibration: run `scripts/gcrun -np P "
                 f"build/src/graphcomm advise --calibrate --calibration {args.calibration}` "
                 f"for each P of --ranks")
    # A resumed suite runs advise again once the calibration's content
    # changes (the kernels' runs stay): the key holds its digest, not only its path.
    with open(args.calibration, "rb") as f:
        calibration_digest = hashlib.sha1(f.read()).hexdigest()[:16]
    # Simulated ranks: one run per model, in a suite that a later invocation
    # resumes (--suite), since one input at 256 ranks takes hours.
    session = lab.Bench("advise", store=args.store, binary=args.binary, launcher=launcher,
                        timeout=lab.SIMULATED_TIMEOUT if args.platform else lab.REAL_TIMEOUT,
                        resume=args.suite)
    cases = []
    for inp in args.inputs:
        for ranks in args.ranks:
            kernels = [k for k in KERNELS if k in args.kernels and
                       (k != "spmm" or inp in args.spmm_inputs)]
            if not kernels:  # --kernels spmm, and not an SpMM input
                continue
            # One kernel judged: advise for it alone (for matching, no BFS
            # to count levels, which at 1024 simulated ranks costs minutes).
            advise_options = {"kernel": kernels[0] if len(kernels) == 1 else "all",
                              "calibration": args.calibration, CONTENT: calibration_digest}
            if args.given_distribution_only:  # only then: a stored suite's key stays
                advise_options["given-distribution-only"] = True
            advice_config = config("advise", inp, None, ranks, advise_options)
            docs = []  # per repetition: [advice, then a document per kernel judged]
            for rep in range(args.repeat):
                advice = session.document(rep, advice_config)
                by_kernel = ({"match": [config("match", inp, "all", ranks, {"algorithm": "all"})],
                              "bfs": [config("bfs", inp, "all", ranks, {"roots": args.roots})]}
                             if not args.platform
                             else one_per_run(advice, inp, ranks, args.roots, args.skip,
                                              args.plan_build))
                by_kernel["spmm"] = [config("spmm", inp, "all", ranks, {"iters": 5})]
                configs = [by_kernel[k] for k in kernels]
                flat = session.documents(rep, [c for kernel in configs for c in kernel])
                merged, at = [advice], 0
                for kernel in configs:
                    merged.append({"runs": [r for d in flat[at:at + len(kernel)]
                                            for r in d["runs"]]})
                    at += len(kernel)
                docs.append(merged)
            advice = {a["kernel"]: a for a in docs[0][0]["advice"]}
            for k, kernel in enumerate(kernels, start=1):
                measured = measured_times([d[k] for d in docs], kernel)
                if advice[kernel]["choice"] not in measured:  # matching's skip names a model
                    sys.exit(f"bench: {inp} at {ranks} ranks: advise chose "
                             f"{advice[kernel]['choice']}, which --skip leaves unmeasured")
                case = lab.judge_choice(advice[kernel], measured)
                unmeasured = sorted({c["configuration"] for c in advice[kernel]["ranked"]} -
                                    set(case["configurations"]))
                case.update(input=os.path.basename(inp), ranks=ranks, kernel=kernel,
                            unmeasured=unmeasured,
                            measured_once_over_best=measure_once([d[k] for d in docs], kernel),
                            measured_half_over_best=measure_half([d[k] for d in docs], kernel))
                cases.append(case)
                print(f"{case['input']:<32} {ranks:>2} {kernel:<6} chose {case['chosen']:<30} "
                      f"{case['chosen_over_best']:5.2f}x best ({case['best']}), worst "
                      f"{case['worst_over_best']:5.2f}x, model error {case['median_error']:.0%}"
                      + (f"; not measured: {', '.join(unmeasured)}" if unmeasured else ""),
                      flush=True)
    hits = sum(c["hit"] for c in cases)
    worse = [c for c in cases if c["chose_slowest"]]
    once = [c["measured_once_over_best"] for c in cases if c["measured_once_over_best"]]
    once_hits = sum(r <= TARGET for r in once)
    halves = [r for c in cases if c["measured_half_over_best"]
              for r in c["measured_half_over_best"]]
    half_hits = sum(r <= TARGET for r in halves)
    summary = {"cases": len(cases), "hits": hits, "hit_rate": hits / len(cases),
               "target_hit_rate": 0.9, "chose_slowest": len(worse),
               "median_model_error": median([c["median_error"] for c in cases]),
               "measured_once_hits": once_hits if once else None,
               "measured_once_hit_rate": once_hits / len(once) if once else None,
               "measured_half_judgements": len(halves) or None,
               "measured_half_hit_rate": half_hits / len(halves) if halves else None,
               "by_kernel": [dict(zip(("kernel", "ranks", "cases", "hits", "measured_once_hits",
                                       "measured_half_hits", "measured_half_judgements"), row))
                             for row in tally_by_kernel(cases)]}
    print(f"\nchosen within {TARGET - 1:.0%} of the best in {hits} of {len(cases)} cases "
          f"({summary['hit_rate']:.0%}; target 90%); the slowest chosen in {len(worse)}; "
          f"median model error {summary['median_model_error']:.0%}")
    if once:
        print(f"measuring every configuration once instead: within {TARGET - 1:.0%} in "
              f"{once_hits} of {len(once)} ({once_hits / len(once):.0%})")
    if halves:
        print(f"measuring every configuration {args.repeat // 2} times (half the repetitions) "
              f"and judging on the other half: within {TARGET - 1:.0%} in {half_hits} of "
              f"{len(halves)} ({half_hits / len(halves):.0%}): the ceiling this machine's noise "
              f"leaves")
    print(f"\n{'kernel':<7}{'ranks':>6}  {'advise':>9}  {'measured once':>13}  "
          f"{'half on half':>12}")
    for kernel, ranks, n, hit, once_hit, half_hit, half_n in tally_by_kernel(cases):
        print(f"{kernel:<7}{ranks:>6}  {f'{hit} of {n}':>9}  "
              f"{f'{once_hit} of {n}' if once else '-':>13}  "
              f"{f'{half_hit} of {half_n}' if half_n else '-':>12}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"calibration": args.calibration, "platform": args.platform,
                   "repeat": args.repeat, "roots": args.roots,
                   "summary": summary, "cases": cases}, f, indent=1)
    session.close()


if __name__ == "__main__":
    lab.main(main)

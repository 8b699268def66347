"""graphcomm-lab: run suites into a store, show and export what it holds.

    graphcomm-lab run SUITE.toml [--store FILE] [--binary B] [--launcher L]
    graphcomm-lab show [--store FILE] [--suite NAME]
    graphcomm-lab stats [--store FILE] [--suite NAME]
    graphcomm-lab export [--store FILE] [--suite NAME] [--out FILE.csv]
    graphcomm-lab save --out FILE.jsonl [--store FILE] [--suite NAME]
    graphcomm-lab load FILE.jsonl ... [--store FILE]
    graphcomm-lab compare BY A B [--metric NAME] [--store FILE] [--suite NAME]
    graphcomm-lab plot KIND KERNEL --out BASE [--metric NAME] [--store FILE]
    graphcomm-lab report [--out FILE.html] [--store FILE] [--suite NAME]
    graphcomm-lab reproduce CLAIM|all [--tiny] [--simulate [--platform P]] [--store FILE]

Errors are one line on stderr, `graphcomm-lab: error: ...`, and exit code 2
(1 when a suite ran but some runs failed; 130 when interrupted).
"""
import argparse
import csv
import json
import sys
from pathlib import Path

from .compare import CompareError, compare
from .figures import STATS_HEAD, PlotError, flatten, options_text, stats_rows
from .kernels import KERNELS
from .process_group import terminate_as_interrupt
from .runner import (DEFAULT_STORE, REAL_TIMEOUT, ROOT, SIMULATED_TIMEOUT, check_suite,
                     run_suite)
from .stats import median_text, range_text
from .store import SAVED_COLUMNS, Store, StoreError
from .suite import SuiteError, load_suite
from .text import table


def export_rows(runs):
    rows = []
    for run in runs:
        row = {k: run[k] for k in ("suite", "kernel", "input", "model", "ranks", "repeat",
                                   "status", "error", "git_commit", "mpi_library", "started",
                                   "wall_seconds")}
        for k, v in sorted(run["options"].items()):
            row[f"option.{k}"] = v
        flatten("machine", run["machine"], row)
        if run["result"] is not None:
            flatten("result", run["result"], row)  # lists (per rank, per model) left out
        rows.append(row)
    return rows


def cmd_run(args):
    suite = load_suite(args.suite)
    check_suite(suite, args.binary, args.launcher)  # before the store is made
    store = Store(args.store)
    try:
        ran, failed, skipped = run_suite(suite, store, binary=args.binary,
                                         launcher=args.launcher,
                                         timeout=args.timeout or REAL_TIMEOUT,
                                         progress=not args.quiet)
    finally:
        store.close()
    print(f"suite {suite.name}: {ran} run(s) now ({failed} failed), {skipped} already stored; "
          f"store {args.store}")
    return 1 if failed else 0


def _existing_store(path):
    if not Path(path).is_file():
        raise StoreError(f"no store at {path} (graphcomm-lab run SUITE creates it)")
    return Store(path)


def _stored_runs(args, **where):
    """The runs of the store (of --suite, which must be one of its suites)."""
    store = _existing_store(args.store)
    try:
        if args.suite is not None and args.suite not in store.suites():
            raise StoreError(f"{args.store}: no suite '{args.suite}' (stored: "
                             f"{', '.join(store.suites()) or 'none'})")
        return store.runs(suite=args.suite, **where)
    finally:
        store.close()


def cmd_show(args):
    runs = _stored_runs(args)
    if not runs:
        print("no runs stored")
        return 0
    groups = {}
    for r in runs:
        opts = options_text(r["options"])
        key = (r["suite"], r["kernel"], r["input"], r["model"] or "-", r["ranks"], opts)
        groups.setdefault(key, []).append(r)
    head = ("suite", "kernel", "input", "model", "ranks", "options", "ok", "failed",
            "wall s median", "spread")
    rows = []
    for key, rs in groups.items():
        ok = [r["wall_seconds"] for r in rs if r["status"] == "ok"]
        rows.append([*map(str, key), str(len(ok)), str(len(rs) - len(ok)),
                     median_text(ok, ".3f"), range_text(ok, ".3f")])
    print(table(head, rows))
    for r in runs:
        if r["status"] == "failed":
            print(f"failed: {r['kernel']} {r['input']} {r['model'] or ''} np{r['ranks']} "
                  f"(repeat {r['repeat'] + 1}): {r['error']}")
    return 0


def cmd_stats(args):
    rows = stats_rows(_stored_runs(args))
    if not rows:
        raise StoreError(f"{args.store}: no graph-stats runs")
    print(table(STATS_HEAD, rows))
    return 0


def cmd_export(args):
    rows = export_rows(_stored_runs(args))
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    if not args.out:
        writer = csv.DictWriter(sys.stdout, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
        return 0
    tmp = Path(args.out + ".tmp")
    with open(tmp, "w", newline="") as out:  # renamed into place: no partial file
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(args.out)
    return 0


def cmd_save(args):
    runs = sorted(_stored_runs(args), key=lambda r: (r["suite"], r["config_key"], r["repeat"]))
    tmp = Path(args.out + ".tmp")
    with open(tmp, "w") as out:  # renamed into place: no partial file
        for run in runs:
            out.write(json.dumps({k: v for k, v in run.items() if k != "id"}, sort_keys=True))
            out.write("\n")
    tmp.replace(args.out)
    print(f"saved {len(runs)} run(s) to {args.out}")
    return 0


def _saved_runs(path):
    """The runs of a file written by `save`, checked before any is stored."""
    runs = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                run = json.loads(line)
                missing = [c for c in SAVED_COLUMNS if c not in run]
            except json.JSONDecodeError:
                missing = ["(not JSON)"]
            if missing or not isinstance(run.get("options"), dict):
                raise StoreError(f"{path}:{number}: not a run saved by graphcomm-lab save "
                                 f"(missing: {', '.join(missing) or 'options'})")
            runs.append(run)
    return runs


def cmd_load(args):
    files = [(path, _saved_runs(path)) for path in args.files]  # all checked first
    store = Store(args.store)
    try:
        for path, runs in files:
            added = sum(store.merge(run) for run in runs)
            print(f"{path}: {added} of {len(runs)} run(s) added to {args.store}"
                  + (f" ({len(runs) - added} kept as the store had them)" if added < len(runs)
                     else ""))
    finally:
        store.close()
    return 0


def cmd_compare(args):
    runs = _stored_runs(args, status="ok")
    print(compare(runs, args.by, args.a, args.b, args.metric))
    return 0


def cmd_plot(args):
    from .plots import KINDS  # matplotlib only where a plot is asked for

    runs = _stored_runs(args, status="ok")
    for path in KINDS[args.kind](runs, args.kernel, args.out, args.metric):
        print(path)
    return 0


def cmd_report(args):
    from .report import write_report  # matplotlib only where a report is asked for

    runs = _stored_runs(args)
    if not runs:
        raise StoreError(f"{args.store}: no runs to report")
    print(write_report(runs, args.out, args.store))
    return 0


# scripts/simulate's platforms without bandwidth: a whole suite, whose
# points include large messages, would be wrong there.
SMALL_MESSAGES_ONLY = ("edr-latency",)


def cmd_reproduce(args):
    from .reproduce import CLAIMS, suite_of, verdict_line

    if args.claim != "all" and args.claim not in CLAIMS:
        raise SuiteError(f"unknown claim '{args.claim}' (one of: all, {', '.join(CLAIMS)})")
    claims = list(CLAIMS.values()) if args.claim == "all" else [CLAIMS[args.claim]]
    binary, launcher, platform = args.binary, args.launcher, None
    if args.simulate:  # the SMPI build, on simulated ranks (docs/simulation.md)
        platform = args.platform or "edr"
        if platform in SMALL_MESSAGES_ONLY:
            raise SuiteError(f"--platform {platform}: it models small messages only (no "
                             "bandwidth); the suites run their small-message points on it "
                             "themselves (docs/simulation.md, \"Platforms\")")
        binary = binary or ROOT / "build-smpi" / "src" / "graphcomm"
        launcher = [launcher or ROOT / "scripts" / "simulate", "--platform", platform]
    elif args.platform:
        raise SuiteError("--platform goes with --simulate")
    store = Store(args.store)
    failed = 0
    try:
        for claim in claims:
            suite = suite_of(claim, args.tiny, platform)
            if suite is not None:
                prefix = launcher
                if args.simulate:
                    prefix = launcher + list(claim.simulation.flags)
                failed += run_suite(suite, store, binary=binary, launcher=prefix,
                                    timeout=args.timeout or (SIMULATED_TIMEOUT if args.simulate
                                                             else REAL_TIMEOUT),
                                    progress=not args.quiet)[1]
            runs = store.runs(suite=suite.name) if suite is not None else []
            print(verdict_line(claim, runs, args.simulate), flush=True)
    finally:
        store.close()
    return 1 if failed else 0


SUITE_HELP = "only the runs of this suite (`show` lists the stored suites)"


def _run_options(p, store_help):
    p.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    p.add_argument("--binary", help="graphcomm binary (default build/src/graphcomm)")
    p.add_argument("--launcher", help="MPI launcher (default scripts/gcrun)")
    p.add_argument("--timeout", type=float,
                   help=f"seconds a run may take (default {REAL_TIMEOUT:.0f}; with --simulate "
                        f"{SIMULATED_TIMEOUT:.0f}: one simulated run at 1024 ranks may take "
                        f"over an hour, docs/simulation.md)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def parser():
    p = argparse.ArgumentParser(prog="graphcomm-lab", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    store_help = f"the results store (default {DEFAULT_STORE})"
    r = sub.add_parser("run", help="run a suite into the store (resumes what is stored)")
    r.add_argument("suite", help="a suite file (TOML)")
    _run_options(r, store_help)
    r.set_defaults(func=cmd_run)
    s = sub.add_parser("show", help="one line per configuration: runs and wall time")
    s.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    s.add_argument("--suite", help=SUITE_HELP)
    s.set_defaults(func=cmd_show)
    st = sub.add_parser("stats", help="graph and process-graph statistics of graph-stats runs")
    st.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    st.add_argument("--suite", help=SUITE_HELP)
    st.set_defaults(func=cmd_stats)
    e = sub.add_parser("export", help="every run as a CSV row (configuration and figures)")
    e.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    e.add_argument("--suite", help=SUITE_HELP)
    e.add_argument("--out", help="CSV file (default: standard output)")
    e.set_defaults(func=cmd_export)
    sv = sub.add_parser("save", help="every run, whole, as JSON lines (for `load` elsewhere: "
                                     "simulated suites that take longer than one machine's life)")
    sv.add_argument("--out", required=True, help="the file (JSON lines)")
    sv.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    sv.add_argument("--suite", help=SUITE_HELP)
    sv.set_defaults(func=cmd_save)
    ld = sub.add_parser("load", help="add the runs of files written by `save` to the store "
                                     "(an ok run stored here stays; `run` then resumes from them)")
    ld.add_argument("files", nargs="+", help="files written by `graphcomm-lab save`")
    ld.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    ld.set_defaults(func=cmd_load)
    c = sub.add_parser("compare", help="B against A as ratios of medians, with spreads")
    c.add_argument("by", help="what differs: git_commit (prefixes), model, ranks, input, "
                              "kernel or option.NAME")
    c.add_argument("a", help="the baseline's value of BY (e.g. a commit prefix, a model)")
    c.add_argument("b", help="the value of BY compared with A")
    c.add_argument("--metric", help="a figure of the kernel's runs (default per kernel, e.g. "
                                    "match: seconds, bfs: harmonic_mean_TEPS)")
    c.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    c.add_argument("--suite", help=SUITE_HELP)
    c.set_defaults(func=cmd_compare)
    pl = sub.add_parser("plot", help="a figure from the store, as PNG and SVG")
    pl.add_argument("kind", choices=["profile", "scaling", "scale", "sizes", "density", "speedup",
                                     "matrix", "queues"],
                    help="profile: performance profile of the models; scaling: against ranks; "
                         "scale: against R-MAT SCALE; sizes: nbr against message size; "
                         "density: nbr against random:DELTA; speedup: spmm against allgather; "
                         "queues: mq search lengths and time per engine; "
                         "matrix: messages (--metric bytes) between ranks")
    pl.add_argument("kernel", choices=sorted(KERNELS))
    pl.add_argument("--out", required=True, help="file name without extension")
    pl.add_argument("--metric", help="the figure to plot (default: the kernel's headline)")
    pl.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    pl.add_argument("--suite", help=SUITE_HELP)
    pl.set_defaults(func=cmd_plot)
    rp = sub.add_parser("report", help="one self-contained HTML page: tables and plots")
    rp.add_argument("--out", default=str(ROOT / "results" / "report.html"),
                    help="the page (default results/report.html)")
    rp.add_argument("--store", default=str(DEFAULT_STORE), help=store_help)
    rp.add_argument("--suite", help=SUITE_HELP)
    rp.set_defaults(func=cmd_report)
    rr = sub.add_parser("reproduce", help="the studies' headline claims: a verdict line each")
    rr.add_argument("claim", help="a claim (models, rcm, one-sided, hybrid, combining, partner) "
                                  "or all")
    rr.add_argument("--tiny", action="store_true", help="seconds-sized suites (for tests)")
    rr.add_argument("--simulate", action="store_true",
                    help="the claims at scale, on simulated ranks (SimGrid SMPI: the build in "
                         "build-smpi/, scripts/simulate; docs/simulation.md)")
    rr.add_argument("--platform", help="with --simulate: scripts/simulate's platform (edr, "
                                       "edr-crossbar, ethernet, this-machine or a file; default edr)")
    _run_options(rr, store_help)
    rr.set_defaults(func=cmd_reproduce)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    terminate_as_interrupt()
    try:
        return args.func(args)
    except (SuiteError, StoreError, CompareError, PlotError, FileNotFoundError) as e:
        print(f"graphcomm-lab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # every finished run is stored already
        print(f"graphcomm-lab: interrupted; the runs that finished are in "
              f"{getattr(args, 'store', DEFAULT_STORE)}, run the same command again to "
              "finish", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

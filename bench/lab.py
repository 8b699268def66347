"""What the bench scripts share: graphcomm's side runs through graphcomm-lab
(python/graphcomm_lab: its suites, runner and store; its median and
spread). Importing this module makes the lab importable: it puts python/ on
the path and, when this Python lacks the lab's dependencies (tqdm), runs the
script again under the repository's .venv (scripts/setup-python makes it).

The store is the lab's (results/lab.sqlite, --store to name another); each
invocation of a script is a suite of its own there, bench-SCRIPT@TIME."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    import tqdm  # noqa: F401  (the lab's runner needs it)
except ImportError:
    venv = os.path.join(ROOT, ".venv")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(python, [python, *sys.argv])
    sys.exit("bench: graphcomm-lab's dependencies are missing: run scripts/setup-python")

from graphcomm_lab.bench import Bench, BenchError, config  # noqa: E402,F401
from graphcomm_lab.process_group import terminate_as_interrupt  # noqa: E402
from graphcomm_lab.runner import DEFAULT_STORE, REAL_TIMEOUT, SIMULATED_TIMEOUT  # noqa: E402,F401
from graphcomm_lab.stats import (median, median_ratio, range_text, ratios,  # noqa: E402,F401
                                 spread, summary)
from graphcomm_lab.store import StoreError  # noqa: E402
from graphcomm_lab.suite import SuiteError  # noqa: E402

GCRUN = os.path.join(ROOT, "scripts", "gcrun")
DATASETS = os.path.join(os.path.dirname(ROOT), "shared", "datasets")


def add_store_option(parser):
    parser.add_argument("--store", default=str(DEFAULT_STORE),
                        help=f"graphcomm-lab's store, where graphcomm's runs go (default "
                             f"{DEFAULT_STORE}; a suite bench-SCRIPT@TIME per invocation)")


def bench(script, args, binary, timeout=REAL_TIMEOUT):
    """The lab session of one invocation of a script; a graphcomm run longer
    than `timeout` seconds is killed (its whole process group) and stored as
    failed, "timed out after ... s"."""
    return Bench(script, store=args.store, binary=binary, timeout=timeout)


def check_programs(args, time_binary):
    """Exits with one line unless the graphcomm binaries of args.binary and
    args.compare exist, and GAP's bfs in args.gap_dir and GNU time (for its
    max RSS) when args.gap_dir is given."""
    for path in [args.binary] + ([args.compare] if args.compare else []):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench: no graphcomm binary at {path} (build first)")
    if args.gap_dir and not os.access(os.path.join(args.gap_dir, "bfs"), os.X_OK):
        sys.exit(f"bench: no GAP bfs binary in {args.gap_dir}")
    if args.gap_dir and not os.access(time_binary, os.X_OK):
        sys.exit(f"bench: no {time_binary} (GNU time, for GAP's max RSS; apt-get install time)")


def main(function):
    """Runs a script's main; graphcomm's failures and the lab's errors end it
    with one line, `bench: ...`."""
    terminate_as_interrupt()
    try:
        return function()
    except (BenchError, SuiteError, StoreError, FileNotFoundError) as e:
        sys.exit(f"bench: {e}")


ADVICE_TARGET = 1.10  # issue #30: the chosen configuration within 10% of the fastest


def judge_choice(advice, measured, among=None):
    """An advice ({choice, reason, ranked: [{configuration, predicted_seconds}]})
    against measured seconds per configuration: the fastest and slowest of
    `among` (default: the configurations both ranked and measured), the
    chosen one's time over the fastest's, a hit within ADVICE_TARGET, whether
    the chosen one is the slowest (or slower: it may lie outside `among`), and
    the model's median error over the configurations both ranked and measured."""
    predicted = {c["configuration"]: c["predicted_seconds"] for c in advice["ranked"]}
    common = sorted(set(predicted) & set(measured))
    among = sorted(among) if among is not None else common
    best = min(among, key=measured.get)
    worst = max(among, key=measured.get)
    chosen = advice["choice"]
    errors = sorted(abs(predicted[c] / measured[c] - 1) for c in common)
    return {"chosen": chosen, "best": best, "worst": worst,
            "chosen_over_best": measured[chosen] / measured[best],
            "worst_over_best": measured[worst] / measured[best],
            "hit": measured[chosen] <= ADVICE_TARGET * measured[best],
            # The "never the slowest": the slowest of two or more.
            "chose_slowest": len(among) > 1 and measured[chosen] >= measured[worst],
            "median_error": errors[len(errors) // 2],
            "reason": advice["reason"],
            "configurations": {c: {"predicted": predicted.get(c), "measured": measured[c]}
                               for c in among}}

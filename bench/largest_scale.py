#!/usr/bin/env python3
"""The largest Graph500 SCALE whose BFS validates on this machine, per
program: graphcomm (this build), another graphcomm build (--compare: an
older one, say) and GAP's bfs (--gap-dir), each tried at SCALE --from,
--from + 1, ... up to --to at --ranks ranks (GAP: as many OpenMP threads),
going no higher after a program's first failure. Programs take turns at each
SCALE. Prints progress to stderr and a table at the end, and writes every
attempt as JSON.

    bench/largest_scale.py [--from 22] [--to 26] [--ranks 2] [--roots 4]
                           [--timeout 1800] [--gap-dir DIR]
                           [--compare OTHER_GRAPHCOMM] [--binary build/src/graphcomm]
                           [--out bench/results/largest_scale.json]

graphcomm runs `bfs --scale SCALE --roots R` (the Graph500 specification's
graph; it validates every search itself and exits non-zero when one fails);
GAP runs `/usr/bin/time -f %M bfs -g SCALE -n R -v` with OMP_NUM_THREADS =
ranks, and validates when each of its R trials prints "Verification: PASS".
GAP (the GAP Benchmark Suite, sbeamer/gapbs, `make bfs`) is not part of
graphcomm and is never downloaded by it: build it outside the repository
(bench/README.md) and name its directory.

Columns: `program` graphcomm, compare (the --compare binary) or gap;
`SCALE`; `outcome`: validated; refused up front (graphcomm's estimate of its
peak is above 90% of the node's available memory: one line `graphcomm:
error: ... needs an estimated ...` before the graph is made); out of memory
or killed (graphcomm's `out of memory on rank N`, GAP's bad_alloc, or a
process killed by SIGKILL, as the kernel's OOM killer does); validation
failed; timeout (after --timeout seconds the run's whole process group is
killed); not tried: would exceed memory (see below); failed: ERROR (anything
else, with its error line). `wall s` the whole run, launcher included
(generation, construction, the searches and their validation). `node MiB`
the node's peak memory: graphcomm's is ranks x memory.peak_rss_bytes_mean of
its JSON (the sum over ranks of each rank's peak RSS), ranks x
memory.peak_rss_bytes_max for a build that reports only that, "-" for one
whose bfs JSON has no memory object (builds before issue #32) or for a run
that failed; GAP's is its process's max RSS (GNU time's %M, from wait4 on
GAP alone). `sampled MiB` the same sum sampled by this script: the peak RSS
so far (VmHWM) of each of the program's processes (graphcomm's ranks, GAP's
one), polled every 0.2 s, summed over processes; a lower bound (growth after
the last poll is missed), there for runs without a node peak of their own.
`est MiB` graphcomm's memory.estimated_peak_bytes_per_rank, the estimate its
refusal rests on (for a refused run, as its error line rounds it). `available MiB` MemAvailable before the run.

A run must not take the machine down: before each, the script reads
MemAvailable (/proc/meminfo) and does not run a SCALE (outcome "not tried:
would exceed memory", ending that program's climb) when the program's node
peak at the SCALE below, x 2.1 (a SCALE doubles vertices and edges), is above
90% of it; the sampled peak stands in where there is no node peak. The script
sets its own oom_score_adj to 1000, which every run inherits, so that if
memory runs out anyway the kernel's OOM killer takes a rank or GAP rather
than another program on the machine.

graphcomm runs through graphcomm-lab (bench/lab.py): each attempt is one run
of a suite into the lab's store (--store, default results/lab.sqlite; suites
bench-largest_scale@TIME and bench-largest_scale/compare@TIME), failures
included, with their error line; GAP runs between them.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import lab
from lab import ROOT, config
from graphcomm_lab.process_group import run_group

TIME = "/usr/bin/time"  # GNU time, for GAP's max RSS
GROWTH = 2.1  # the next SCALE's peak over this SCALE's, at most (guard)
USABLE = 0.9  # of MemAvailable (guard; graphcomm's refusal uses the same share)
MIB = 2 ** 20
VALIDATED = "validated"
# graphcomm's refusal: "... needs an estimated 163.3 GiB per rank (...) ..."
REFUSAL = re.compile(r"needs an estimated ([0-9.]+) (B|KiB|MiB|GiB|TiB|PiB|EiB) per rank")
UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]


def mem_available():
    """MemAvailable of /proc/meminfo in bytes."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def prefer_to_be_killed():
    """oom_score_adj 1000 for this process and so for everything it runs."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError as e:
        print(f"bench: cannot raise oom_score_adj ({e}); going on", file=sys.stderr)


class PeakSampler(threading.Thread):
    """Polls, every `period` seconds while running, the VmHWM of every
    process under this one whose executable is `executable` and whose
    arguments include `argument` (the run's, not graphcomm-lab's question
    `graphcomm models`); `peak_bytes()` is the sum over those processes of
    the largest VmHWM seen."""

    def __init__(self, executable, argument, period=0.2):
        super().__init__(daemon=True)
        self.executable = os.path.realpath(executable)
        self.argument = argument
        self.period = period
        self.peaks = {}  # (pid, start time) -> bytes
        self.done = threading.Event()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.join()

    def run(self):
        self.sample()
        while not self.done.wait(self.period):
            self.sample()

    def sample(self):
        parent, started = {}, {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            parent[int(name)] = int(fields[1])  # the fields after comm: state, ppid, ...
            started[int(name)] = fields[19]  # starttime
        me, mine = os.getpid(), set()
        for pid in parent:
            ancestor = parent[pid]
            while ancestor > 1 and ancestor not in mine and ancestor != me:
                ancestor = parent.get(ancestor, 0)
            if ancestor == me or ancestor in mine:
                mine.add(pid)
        for pid in mine:
            try:
                if os.path.realpath(f"/proc/{pid}/exe") != self.executable:
                    continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if self.argument.encode() not in f.read().split(b"\0"):
                        continue
                with open(f"/proc/{pid}/status") as f:
                    hwm = [line for line in f if line.startswith("VmHWM:")]
            except OSError:
                continue
            if hwm:
                key = (pid, started[pid])
                self.peaks[key] = max(self.peaks.get(key, 0), int(hwm[0].split()[1]) * 1024)

    def peak_bytes(self):
        return sum(self.peaks.values()) or None


def graphcomm_outcome(error):
    """The outcome of a failed graphcomm run from its error line."""
    if "needs an estimated" in error:
        return "refused up front"
    if "timed out after" in error:
        return "timeout"
    if "validation failed" in error.lower():
        return "validation failed"
    if "out of memory" in error or error in ("exit code 137", "exit code -9") or \
            "signal 9" in error or "Killed" in error:
        return "out of memory or killed"
    return f"failed: {error}"


def graphcomm(session, scale, ranks, roots, binary, variant):
    """One attempt of a graphcomm binary: its record (outcome, wall seconds,
    node peak, estimate, error line)."""
    run = session.runs(0, [config("bfs", f"graph500:{scale}", None, ranks, {"roots": roots})],
                       binary=binary, variant=variant)[0]
    record = {"wall_seconds": run["wall_seconds"], "error": run["error"]}
    if run["status"] != "ok":
        refusal = REFUSAL.search(run["error"] or "")
        if refusal:  # the estimate, as the refusal rounds it
            record["estimated_peak_bytes_per_rank"] = (
                float(refusal.group(1)) * 1024 ** UNITS.index(refusal.group(2)))
        return dict(record, outcome=graphcomm_outcome(run["error"] or ""))
    doc = run["result"]
    memory = doc.get("memory") or {}
    per_rank = memory.get("peak_rss_bytes_mean", memory.get("peak_rss_bytes_max"))
    failed = [r["configuration"] for r in doc["runs"] if r.get("validation") != "OK"]
    return dict(record, outcome="validation failed" if failed else VALIDATED,
                node_peak_bytes=None if per_rank is None else ranks * per_rank,
                estimated_peak_bytes_per_rank=memory.get("estimated_peak_bytes_per_rank"))


def gap(gap_dir, scale, ranks, roots, timeout):
    """One attempt of GAP's bfs: its record, as graphcomm's."""
    env = dict(os.environ, OMP_NUM_THREADS=str(ranks))
    cmd = [os.path.join(gap_dir, "bfs"), "-g", str(scale), "-n", str(roots), "-v"]
    start = time.monotonic()
    with tempfile.NamedTemporaryFile("r", prefix="gap-rss-") as rss:
        try:
            proc = run_group([TIME, "-f", "%M", "-o", rss.name, *cmd], timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "wall_seconds": time.monotonic() - start,
                    "error": f"timed out after {timeout} s"}
        wall = time.monotonic() - start
        said = rss.read()
    words = said.split()
    record = {"wall_seconds": wall, "error": None,
              "node_peak_bytes": int(words[-1]) * 1024 if words and words[-1].isdigit() else None}
    if proc.returncode != 0:
        lines = [ln.strip() for ln in (proc.stderr + "\n" + said).splitlines() if ln.strip()]
        record["error"] = lines[0] if lines else f"exit code {proc.returncode}"
        killed = "bad_alloc" in proc.stderr or "signal 9" in said or proc.returncode in (137, -9)
        return dict(record, outcome="out of memory or killed" if killed
                    else f"failed: {record['error']}")
    passed = proc.stdout.count("Verification:           PASS")
    if "FAIL" in proc.stdout:
        return dict(record, outcome="validation failed")
    if passed != roots:
        return dict(record, outcome=f"failed: {passed} of {roots} trials verified")
    return dict(record, outcome=VALIDATED)


def text(value, unit=MIB, spec=".0f"):
    return "-" if value is None else format(value / unit, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="first", type=int, default=22, metavar="SCALE")
    ap.add_argument("--to", dest="last", type=int, default=26, metavar="SCALE")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--roots", type=int, default=4, help="searches per run (GAP: trials)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--gap-dir")
    ap.add_argument("--compare", help="another graphcomm binary, tried the same way")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "graphcomm"))
    ap.add_argument("--out",
                    default=os.path.join(ROOT, "bench", "results", "largest_scale.json"))
    lab.add_store_option(ap)
    args = ap.parse_args()
    lab.check_programs(args, TIME)
    if args.first > args.last or args.ranks < 1 or args.roots < 1 or args.timeout <= 0:
        sys.exit("bench: need --from <= --to, and positive --ranks, --roots and --timeout")

    prefer_to_be_killed()
    session = lab.bench("largest_scale", args, os.path.abspath(args.binary), args.timeout)
    programs = {"graphcomm": os.path.abspath(args.binary)}
    if args.compare:
        programs["compare"] = os.path.abspath(args.compare)
    if args.gap_dir:
        programs["gap"] = os.path.abspath(os.path.join(args.gap_dir, "bfs"))
    attempts = {name: [] for name in programs}
    climbing = set(programs)

    def write():
        largest = {name: max([a["scale"] for a in tried if a["outcome"] == VALIDATED],
                             default=None) for name, tried in attempts.items()}
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"benchmark": "largest_scale", "ranks": args.ranks, "roots": args.roots,
                       "from": args.first, "to": args.last, "timeout_seconds": args.timeout,
                       "programs": programs, "largest_validated": largest,
                       "attempts": attempts}, f, indent=2)
        os.replace(tmp, args.out)
        return largest

    for scale in range(args.first, args.last + 1):
        for name, executable in programs.items():
            if name not in climbing:
                continue
            available = mem_available()
            below = attempts[name][-1] if attempts[name] else None
            previous = None if below is None else (below.get("node_peak_bytes")
                                                   or below.get("sampled_node_peak_bytes"))
            attempt = {"scale": scale, "mem_available_bytes": available}
            if previous is not None and previous * GROWTH > USABLE * available:
                attempt.update(outcome="not tried: would exceed memory", wall_seconds=None,
                               error=f"{GROWTH} x {text(previous)} MiB at SCALE {scale - 1} > "
                                     f"{USABLE:.0%} of {text(available)} MiB available")
                print(f"bench: {name} SCALE {scale}: not tried ({attempt['error']})",
                      file=sys.stderr, flush=True)
            else:
                print(f"bench: {name} SCALE {scale} at {args.ranks} ranks, {args.roots} roots "
                      f"({text(available)} MiB available) ...", file=sys.stderr, flush=True)
                with PeakSampler(executable, "-g" if name == "gap" else "bfs") as sampler:
                    if name == "gap":
                        attempt.update(gap(args.gap_dir, scale, args.ranks, args.roots,
                                           args.timeout))
                    else:
                        attempt.update(graphcomm(session, scale, args.ranks, args.roots,
                                                 executable, "" if name == "graphcomm" else name))
                attempt["sampled_node_peak_bytes"] = sampler.peak_bytes()
                print(f"bench: {name} SCALE {scale}: {attempt['outcome']} in "
                      f"{attempt['wall_seconds']:.1f} s, node peak "
                      f"{text(attempt.get('node_peak_bytes'))} MiB (sampled "
                      f"{text(attempt['sampled_node_peak_bytes'])} MiB)",
                      file=sys.stderr, flush=True)
            attempts[name].append(attempt)
            if attempt["outcome"] != VALIDATED:
                climbing.discard(name)
            write()
        if not climbing:
            break
    largest = write()

    rows = [["program", "SCALE", "outcome", "wall s", "node MiB", "sampled MiB", "est MiB",
             "available MiB"]]
    for name, tried in attempts.items():
        for a in tried:
            rows.append([name, str(a["scale"]), a["outcome"],
                         text(a["wall_seconds"], 1, ".1f"), text(a.get("node_peak_bytes")),
                         text(a.get("sampled_node_peak_bytes")),
                         text(a.get("estimated_peak_bytes_per_rank")),
                         text(a["mem_available_bytes"])])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) if i in (0, 2) else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(r, widths))).rstrip())
    summary = []
    for name, scale in largest.items():
        if scale is None:
            summary.append(f"{name} none (from {args.first})")
        else:
            summary.append(f"{name} {scale}" + (" (the highest tried)" if scale == args.last else ""))
    print(f"largest SCALE validated at {args.ranks} ranks ({args.roots} searches): "
          + ", ".join(summary))
    print(f"bench: wrote {args.out}; graphcomm's runs: suite {session.suite_name()} in "
          f"{args.store}", file=sys.stderr)


if __name__ == "__main__":
    lab.main(main)

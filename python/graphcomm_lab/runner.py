"""Runs a suite into the store: each configuration once per repetition, in
that interleaved order, under the MPI launcher, with a progress bar; skips
what the store already holds, so an interrupted suite restarted finishes
the rest; a failed run is stored with its error line and the suite goes on."""
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from .kernels import catalog
from .process_group import run_group  # noqa: F401  (the runner's and the tests')
from .suite import SuiteError, check_models

ROOT = Path(os.environ.get("GRAPHCOMM_ROOT", Path(__file__).resolve().parents[2]))


DEFAULT_STORE = ROOT / "results" / "lab.sqlite"
# How long one run may take: an hour on real ranks; a simulated run at 1024
# ranks can take longer than that (docs/simulation.md).
REAL_TIMEOUT, SIMULATED_TIMEOUT = 3600, 8 * 3600


def default_binary():
    return ROOT / "build" / "src" / "graphcomm"


def default_launcher():
    return ROOT / "scripts" / "gcrun"


def machine():
    memory = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) * 1024
    except OSError:
        pass
    return {"host": platform.node(), "cores": os.cpu_count(), "memory_bytes": memory,
            "os": platform.platform()}


def git_commit(root=ROOT):
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def error_line(stderr, returncode):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if "error" in line.lower():
            return line
    return lines[-1] if lines else f"exit code {returncode}"


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _trace_path(spec):
    """Where the lab keeps the trace of an mq input spec."""
    return ROOT / "results" / "traces" / spec.replace(":", "-").replace(",", "-").replace("=", "")


def synthetic_trace(spec, binary, timeout):
    """The trace directory of an mq input `synth:KIND[,OPTION=VALUE...]`
    (KIND a `graphcomm mq synth` workload, e.g. synth:depth,depth=8,ranks=4),
    made once under results/traces and reused; None for any other input."""
    if not spec.startswith("synth:"):
        return None
    kind, *options = spec[len("synth:"):].split(",")
    path = _trace_path(spec)
    if not (path / "rank-0.mqt").exists():
        if path.exists():
            shutil.rmtree(path)  # an earlier attempt left part of it
        path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [str(binary), "-q", "mq", "synth", kind, "--output", str(path)]
        for option in options:
            name, _, value = option.partition("=")
            cmd += [f"--{name}", value]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            raise RuntimeError(error_line(proc.stderr, proc.returncode))
    return path


# Real MPI programs of bench/workloads the lab traces itself (an mq input
# `trace:NAME[,ranks=N]`): source, compiler flags, program arguments.
WORKLOADS = {
    "amg": ("amg_laplacian.c", ["-I/usr/include/hypre"], ["-lHYPRE", "-lm"], ["16"]),
    "fds": ("fds_like.c", [], [], []),
}


def build_workload(name, directory):
    """bench/workloads' program NAME, compiled with Open MPI's mpicc into
    DIRECTORY; its path and arguments. RuntimeError says why not."""
    source, cflags, libs, arguments = WORKLOADS[name]
    program = Path(directory) / Path(source).stem
    proc = subprocess.run(["mpicc.openmpi", "-O2", *cflags, str(ROOT / "bench" / "workloads" / source),
                           *libs, "-o", str(program)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot build bench/workloads/{source}: {error_line(proc.stderr, 1)}")
    return program, arguments


def recorded_trace(spec, timeout):
    """The trace directory of an mq input `trace:NAME[,ranks=N]` (NAME a
    program of WORKLOADS, N ranks, default 8), recorded once with
    scripts/trace under results/traces and reused; None for any other input."""
    if not spec.startswith("trace:"):
        return None
    name, *options = spec[len("trace:"):].split(",")
    settings = dict(o.partition("=")[::2] for o in options)
    if name not in WORKLOADS or set(settings) - {"ranks"}:
        raise RuntimeError(f"{spec}: not trace:NAME[,ranks=N] with NAME one of {', '.join(WORKLOADS)}")
    path = _trace_path(spec)
    if not (path / "rank-0.mqt").exists():
        shutil.rmtree(path, ignore_errors=True)  # an earlier attempt left part of it
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            program, arguments = build_workload(name, tmp)
            proc = subprocess.run([str(ROOT / "scripts" / "trace"), "--out", str(path), "-np",
                                   settings.get("ranks", "8"), str(program), *arguments],
                                  capture_output=True, text=True, timeout=timeout, cwd=tmp)
        if proc.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            raise RuntimeError(f"tracing {name}: {error_line(proc.stderr, proc.returncode)}")
    return path


# scripts/simulate's last line: "simulate: 64 ranks on edr (4 nodes x 16 ranks):
# simulated 0.0123 s, wall 3.2 s ..."
_SIMULATED = re.compile(r"^simulate: \d+ ranks? on (.+): simulated ([0-9.e+-]+) s, wall ([0-9.]+) s",
                        re.M)


def simulation_of(stderr):
    """What scripts/simulate said of a run (platform, simulated and simulator
    seconds), or None for a run on a real machine."""
    m = _SIMULATED.search(stderr)
    if m is None:
        return None
    return {"platform": m.group(1), "simulated_seconds": float(m.group(2)),
            "simulator_wall_seconds": float(m.group(3))}


def run_one(config, binary, launcher, timeout):
    """(status, error, result, wall seconds) of one configuration. `launcher`
    is a path or a command prefix (e.g. [scripts/simulate, --platform, edr])."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        args = config.arguments()
        if config.kernel == "mq":
            try:
                trace = (synthetic_trace(config.input, binary, timeout)
                         or recorded_trace(config.input, timeout))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                return "failed", f"cannot make the trace {config.input}: {e}", None, 0.0
            if trace is not None:
                args = [str(trace) if a == config.input else a for a in args]
        prefix = [*map(str, launcher if isinstance(launcher, (list, tuple)) else [launcher])]
        if config.platform() is not None:
            if "--platform" not in prefix:
                return ("failed", f"platform {config.platform()}: a simulated platform, for a "
                        "simulated run (--simulate)", None, 0.0)
            prefix[prefix.index("--platform") + 1] = config.platform()
        cmd = [*prefix, "-np", str(config.ranks), str(binary)] + args
        cmd += ["-q", "--json", str(out)]
        matrix = Path(tmp) / "matrix.json"
        if config.wants_comm_matrix():
            cmd += ["--comm-matrix", str(matrix)]
        start = time.monotonic()
        try:
            # From the repository root: a suite's file inputs are relative to it.
            proc = run_group(cmd, timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return "failed", f"timed out after {timeout} s", None, time.monotonic() - start
        wall = time.monotonic() - start
        if proc.returncode != 0:
            return "failed", error_line(proc.stderr, proc.returncode), None, wall
        try:
            result = json.loads(out.read_text())
            if config.wants_comm_matrix():
                result["comm_matrix"] = json.loads(matrix.read_text())
            simulation = simulation_of(proc.stderr)
            if simulation is not None:
                result["simulation"] = simulation
        except (OSError, ValueError) as e:
            return "failed", f"no valid JSON result ({e})", None, wall
        return "ok", None, result, wall


def check_suite(suite, binary=None, launcher=None):
    """(binary, launcher), defaults filled in, once both exist and the binary
    knows every model the suite names; raises FileNotFoundError or SuiteError."""
    binary = Path(binary or default_binary())
    launcher = launcher or default_launcher()
    command = launcher[0] if isinstance(launcher, (list, tuple)) else launcher
    for what, path in (("graphcomm binary", binary), ("launcher", command)):
        if not os.access(path, os.X_OK):
            raise FileNotFoundError(f"no {what} at {path} (build first: scripts/build)")
    try:
        check_models(suite, catalog(binary, launcher))
    except RuntimeError as e:
        raise SuiteError(f"cannot ask the binary for its models: {e}") from None
    return binary, launcher


def run_suite(suite, store, *, binary=None, launcher=None, timeout=REAL_TIMEOUT, progress=True,
              repeats=None):
    """Returns (runs done now, failed now, skipped as stored). `repeats`: only
    these repetitions (0-based; default every one). Raises KeyboardInterrupt
    after storing every run that finished."""
    binary, launcher = check_suite(suite, binary, launcher)
    done = store.done_keys(suite.name)
    every = [(r, c) for r, c in suite.runs() if repeats is None or r in repeats]
    pending = [(r, c) for r, c in every if (c.key(), r) not in done]
    skipped = len(every) - len(pending)
    where, commit = machine(), git_commit()
    ran = failed = 0
    bar = tqdm(total=len(pending), unit="run", disable=not progress, dynamic_ncols=True,
               desc=suite.name)
    try:
        for repeat, config in pending:
            bar.set_postfix_str(f"{config.label()} #{repeat + 1}", refresh=True)
            started = _now()
            status, error, result, wall = run_one(config, binary, launcher, timeout)
            store.record(suite.name, repeat, config, status=status, error=error,
                         git_commit=commit, machine=where, started=started, finished=_now(),
                         wall_seconds=wall, result=result)
            ran += 1
            if status == "failed":
                failed += 1
                bar.write(f"graphcomm-lab: failed: {config.label()} (repeat {repeat + 1}): "
                          f"{error}", file=sys.stderr)
            bar.update(1)
    finally:
        bar.close()
    return ran, failed, skipped

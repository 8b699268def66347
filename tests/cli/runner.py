"""What the end-to-end scripts of tests/cli share: their command line
(--graphcomm BIN, then the launcher after --), running graphcomm through the
launcher at P ranks (or directly), the one-error-line contract of a refused
input, and how a failed check ends the script.

Standard library only: the scripts check graphcomm from the outside. Each
run goes through graphcomm-lab's run_group (standard library only too, as
tests/sim uses it), in a process group of its own, so that a run that hangs
is killed with its ranks and counts as a failure.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from graphcomm_lab.process_group import run_group  # noqa: E402

ERROR_PREFIX = "graphcomm: error: "
RUN_TIMEOUT = 300  # seconds for one graphcomm run, unless a script says otherwise
# Open MPI refuses to start as root without these (containers, CI). The
# launcher (scripts/gcrun) sets them for its runs; a run without the launcher
# (an Open MPI singleton) needs them too.
ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def parser(doc):
    """An argument parser for a script whose docstring is `doc`, with --graphcomm."""
    p = argparse.ArgumentParser(description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphcomm", required=True, help="the graphcomm executable")
    return p


def parse(p):
    """Adds the launcher (everything after --, called with -np P) to `p` and
    parses the command line; args.launcher is the launcher command."""
    p.add_argument("launcher", nargs=argparse.REMAINDER,
                   help="-- then the MPI launcher command (called with -np P)")
    args = p.parse_args()
    args.launcher = args.launcher[1:] if args.launcher[:1] == ["--"] else args.launcher
    if not args.launcher:
        p.error("give the launcher after --")
    return args


def workdir(name):
    """A temporary directory for one script's files, removed at the end."""
    return tempfile.TemporaryDirectory(prefix=f"gc-{name}-")


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith(ERROR_PREFIX)]


def temporaries(output):
    """The temporary files a writer of `output` would leave (OUTPUT.tmp.*)."""
    return sorted(glob.glob(glob.escape(output) + ".tmp.*"))


def check_combined_plan(run, model, ranks, where):
    """A run's report of ncl-combined's plan: there for ncl-combined alone;
    with at most 4 ranks no friend group forms (a group of k needs k + 1
    common neighbours), so a call sends the plain schedule's messages, one
    per neighbour, and with 2 ranks or more there is one."""
    if model != "ncl-combined":
        assert "combined_plan" not in run, f"{where} {model}: a combined_plan report"
        return
    plan = run["combined_plan"]
    assert plan["groups"] == 0 and plan["steps"] >= 0, f"{where}: {plan}"
    assert plan["messages_per_call"] == plan["direct_messages_per_call"], f"{where}: {plan}"
    assert (plan["direct_messages_per_call"] > 0) == (ranks > 1), f"{where}: {plan}"


def _text(data):
    return data.decode(errors="replace") if isinstance(data, bytes) else data or ""


class Runner:
    """graphcomm through the launcher, each run within `timeout` seconds.
    strict: a successful run must not print an error line either."""

    def __init__(self, graphcomm, launcher, timeout=RUN_TIMEOUT, strict=False):
        self.graphcomm, self.launcher = graphcomm, launcher
        self.timeout, self.strict = timeout, strict

    def command(self, args, ranks=1, direct=False):
        launch = [] if direct else self.launcher + ["-np", str(ranks)]
        return launch + [self.graphcomm] + list(args)

    def what(self, args, ranks=1, direct=False):
        """How messages name a run: the graphcomm command and where it ran."""
        return f"graphcomm {' '.join(args)} ({'run directly' if direct else f'np {ranks}'})"

    def run(self, args, ranks=1, direct=False):
        """Runs graphcomm to its end and returns the subprocess.CompletedProcess;
        its returncode is None when it did not finish within the timeout (the
        whole process group is then killed; stdout and stderr hold what it
        printed until then)."""
        cmd = self.command(args, ranks, direct)
        env = dict(os.environ, **ROOT_ENV)
        try:
            return run_group(cmd, self.timeout, env=env)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(cmd, None, _text(e.output), _text(e.stderr))

    def status(self, proc):
        if proc.returncode is None:
            return f"did not finish within {self.timeout} s (hang)"
        return f"exit status {proc.returncode}"

    def ok(self, args, ranks=1, direct=False, where=None):
        """Runs graphcomm, which must succeed; returns its standard output."""
        proc = self.run(args, ranks, direct)
        where = where or self.what(args, ranks, direct)
        if proc.returncode != 0:
            raise AssertionError(f"{where}: {self.status(proc)}\n$ {' '.join(proc.args)}\n"
                                 f"{proc.stdout}{proc.stderr}")
        if self.strict:
            errors = error_lines(proc.stderr)
            assert not errors, f"{where}: error lines on success: {errors}"
        return proc.stdout

    def refusal_problems(self, proc, expect, outputs=()):
        """What breaks the bad-input contract in a finished run: it must exit
        non-zero, print exactly one line starting with ERROR_PREFIX, whose
        text after the prefix matches the regular expression `expect`
        (re.search), and leave none of `outputs` nor their temporaries.
        Returns the problems, empty when there is none."""
        if proc.returncode is None:
            return [self.status(proc)]
        problems = []
        if proc.returncode == 0:
            problems.append("exit status 0, expected failure")
        errors = error_lines(proc.stderr)
        if len(errors) != 1:
            problems.append(f"{len(errors)} lines start with '{ERROR_PREFIX}', expected 1")
        elif not re.search(expect, errors[0][len(ERROR_PREFIX):]):
            problems.append(f"error line '{errors[0]}' does not match /{expect}/")
        for output in outputs:
            if os.path.exists(output):
                problems.append(f"output {output} exists after a failure")
            if temporaries(output):
                problems.append(f"temporary files left behind: {temporaries(output)}")
        return problems

    def refused(self, args, expect, outputs=(), ranks=1, direct=False):
        """Runs graphcomm, which must refuse the input as refusal_problems
        says; returns the subprocess.CompletedProcess."""
        proc = self.run(args, ranks, direct)
        problems = self.refusal_problems(proc, expect, outputs)
        assert not problems, \
            f"{self.what(args, ranks, direct)}: {'; '.join(problems)}\n{proc.stderr}"
        return proc


def main(body):
    """Exits with body()'s status; a failed check (AssertionError) is one
    FAIL line on stderr and exit status 1."""
    try:
        sys.exit(body())
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)

"""Suites: TOML files that say what to run.

    name = "matching-models"     # optional; the file's stem otherwise
    repeats = 3                  # optional, default 1

    [[experiment]]
    kernel = "match"             # graph-stats, match, bfs, spmm, nbr, mq
    inputs = ["rmat:14", "rgg:20000"]
    models = ["nsr", "rma", "ncl"]   # the kernel's model axis; optional
    ranks = [2, 4]
    options = { algorithm = "ld", check = true }   # --algorithm ld --check

Every experiment expands to inputs x models x ranks configurations. For
weak scaling an input may grow with the ranks: with `per_rank = N` in the
experiment, `{n}` in an input is N x ranks (`inputs = ["rgg:{n}"]`). A file
input is relative to the repository root (graphcomm runs from there). A bfs
input `graph500:SCALE` is `--scale SCALE`, the Graph500 specification's graph
(TEPS over its input tuples, as the reference codes count). An mq
input is a trace directory or `synth:KIND[,OPTION=VALUE...]`, a synthetic
trace (`graphcomm mq synth KIND --OPTION VALUE`, e.g.
`synth:many-to-one,ranks=64`) the lab makes once under results/traces, or
`trace:NAME[,ranks=N]`, a real program of bench/workloads (amg: hypre's
BoomerAMG; fds: the FDS-like workload) the lab traces once there. Option
values: true is a bare flag, false leaves it out, a list is comma-joined,
anything else is its string. `"comm-matrix" = true` (match) stores the
messages and bytes between every pair of ranks with the run, under
`comm_matrix` in its result. `platform = "NAME"` runs the experiment on
that simulated platform (scripts/simulate's `--platform`) instead of the
one the suite is simulated on (`graphcomm-lab ... --simulate --platform`):
for a point only a cheaper platform can reach (edr-latency: small messages
only). Errors name the file and what is wrong, in one line (SuiteError).
"""
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .kernels import KERNELS


COMM_MATRIX = "comm-matrix"
PLATFORM = "platform"  # scripts/simulate's --platform for this experiment; not graphcomm's
# A digest of a file the run reads (bench/advise.py: the calibration), so that
# a stored run's key follows the file's content and not only its path; the
# lab's, not graphcomm's.
CONTENT = "content"


class SuiteError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    kernel: str
    input: str
    model: str | None
    ranks: int
    options: tuple = field(default=())  # sorted (key, value) pairs

    def key(self):
        """A stable id of the configuration (what resumption matches on)."""
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def as_dict(self):
        return {"kernel": self.kernel, "input": self.input, "model": self.model,
                "ranks": self.ranks, "options": dict(self.options)}

    def wants_comm_matrix(self):
        return dict(self.options).get(COMM_MATRIX) is True

    def platform(self):
        """The simulated platform this configuration asks for, or None."""
        return dict(self.options).get(PLATFORM)

    def label(self):
        parts = [self.kernel, self.input] + ([self.model] if self.model else [])
        parts += [f"{k}={v}" for k, v in self.options] + [f"np{self.ranks}"]
        return " ".join(parts)

    def arguments(self):
        """graphcomm's arguments for this configuration (without --json)."""
        kernel = KERNELS[self.kernel]
        args = list(kernel.command)
        args += kernel.input_arguments(self.input)
        if self.model is not None:
            args += [kernel.model_flag, self.model]
        for name, value in self.options:
            if name in (COMM_MATRIX, PLATFORM, CONTENT):
                continue  # the runner's: it names the file, it tells the launcher; a key's
            flag = f"--{name}"
            if value is True:
                args.append(flag)
            elif value is False:
                continue
            elif isinstance(value, list):
                args += [flag, ",".join(str(v) for v in value)]
            else:
                args += [flag, str(value)]
        return args


@dataclass
class Suite:
    name: str
    path: Path
    repeats: int
    configs: list

    def runs(self):
        """(repeat, config) in execution order: every configuration once per
        repetition, so that each sees the machine as the others do."""
        return [(r, c) for r in range(self.repeats) for c in self.configs]


def _fail(path, what):
    raise SuiteError(f"{path}: {what}")


def _string_list(path, where, value, name):
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        _fail(path, f"{where}: '{name}' must be a non-empty list of strings")
    return value


def _experiment(path, index, exp):
    where = f"experiment {index + 1}"
    if not isinstance(exp, dict):
        _fail(path, f"{where}: must be a table")
    unknown = set(exp) - {"kernel", "inputs", "models", "ranks", "options", "per_rank"}
    if unknown:
        _fail(path, f"{where}: unknown key '{sorted(unknown)[0]}' "
                    "(kernel, inputs, models, ranks, options, per_rank)")
    name = exp.get("kernel")
    if name not in KERNELS:
        _fail(path, f"{where}: unknown kernel '{name}' (one of: {', '.join(KERNELS)})")
    kernel = KERNELS[name]
    inputs = _string_list(path, where, exp.get("inputs"), "inputs")
    if kernel.model_flag is None:
        if "models" in exp:
            _fail(path, f"{where}: kernel '{name}' has no models")
        models = [None]
    else:
        # Checked against the binary's own lists when the suite runs (check_models).
        models = _string_list(path, where, exp.get("models", [kernel.default_model]), "models")
    ranks = exp.get("ranks", [1] if kernel.serial else [2])
    if isinstance(ranks, int):
        ranks = [ranks]
    if (not isinstance(ranks, list) or not ranks
            or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in ranks)):
        _fail(path, f"{where}: 'ranks' must be a list of positive integers")
    if kernel.serial and ranks != [1]:
        _fail(path, f"{where}: kernel '{name}' runs on one rank (ranks = [1])")
    options = exp.get("options", {})
    if not isinstance(options, dict):
        _fail(path, f"{where}: 'options' must be a table")
    reserved = {"json", "quiet", "q", kernel.model_flag, kernel.input_flag}
    for k, v in options.items():
        if f"--{k}" in reserved or k in reserved:
            _fail(path, f"{where}: option '{k}' is set by the lab, not by a suite")
        if isinstance(v, dict):
            _fail(path, f"{where}: option '{k}' cannot be a table")
        if k == COMM_MATRIX and (v is not True and v is not False or not kernel.comm_matrix):
            _fail(path, f"{where}: '{COMM_MATRIX}' is true or false, for match only")
        if k == PLATFORM and (not isinstance(v, str) or not v):
            _fail(path, f"{where}: '{PLATFORM}' is a simulated platform's name")
    opts = tuple(sorted(options.items()))
    per_rank = exp.get("per_rank")
    if per_rank is not None and (not isinstance(per_rank, int) or isinstance(per_rank, bool)
                                 or per_rank < 1):
        _fail(path, f"{where}: 'per_rank' must be a positive integer")
    for i in inputs:
        if ("{n}" in i) != (per_rank is not None):
            _fail(path, f"{where}: '{{n}}' in an input and 'per_rank' go together ('{i}')")

    def sized(i, r):
        return i.replace("{n}", str(per_rank * r)) if per_rank is not None else i

    return [Config(name, sized(i, r), m, r, opts) for i in inputs for m in models
            for r in ranks]


def load_suite(path):
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise SuiteError(f"{path}: cannot read: {e.strerror}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{path}: not valid TOML: {e}") from None
    return suite_from_doc(path, doc, path.stem)


def suite_from_doc(path, doc, default_name):
    """A suite from its parsed document; `path` names it in errors."""
    unknown = set(doc) - {"name", "repeats", "experiment"}
    if unknown:
        _fail(path, f"unknown key '{sorted(unknown)[0]}' (name, repeats, experiment)")
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not name:
        _fail(path, "'name' must be a non-empty string")
    repeats = doc.get("repeats", 1)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        _fail(path, "'repeats' must be a positive integer")
    experiments = doc.get("experiment")
    if not isinstance(experiments, list) or not experiments:
        _fail(path, "no [[experiment]] in the suite")
    configs = []
    for i, exp in enumerate(experiments):
        for c in _experiment(path, i, exp):
            if c not in configs:
                configs.append(c)
    return Suite(name, path, repeats, configs)


def check_models(suite, catalog):
    """Every model a suite names is one the binary knows (its `catalog`, from
    `graphcomm models --json`); raises SuiteError naming the first that is not."""
    for config in suite.configs:
        if config.model is None:
            continue
        kernel = KERNELS[config.kernel]
        known = kernel.models(catalog)
        if config.model not in known:
            raise SuiteError(f"{suite.path}: unknown model '{config.model}' for kernel "
                             f"'{config.kernel}' (one of: {', '.join(known)})")

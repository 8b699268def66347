"""graphcomm's side of a bench/ script, through the lab: the script names the
configurations of one repetition, they run as a suite (runner.run_suite)
into the store, and the script reads graphcomm's JSON documents back from
the store. One repetition at a time, so that a script runs its reference
codes between graphcomm's runs, interleaved within each repetition.

Every invocation of a script is a suite of its own, `bench-SCRIPT@TIME`
(`bench-SCRIPT/VARIANT@TIME` for another binary or launcher), so that a new
invocation measures anew instead of resuming an old one, and the store keeps
each (`graphcomm-lab show --suite NAME`). A script whose runs take hours
(simulated ranks) may instead name the suite itself (`resume`), so that an
invocation cut short is resumed by the next: runs stored are not run again."""
import datetime
from pathlib import Path

from .runner import DEFAULT_STORE, REAL_TIMEOUT, run_suite
from .store import Store
from .suite import Config, Suite


class BenchError(RuntimeError):
    """A graphcomm run of a bench script failed."""


def config(kernel, input, model=None, ranks=1, options=None):
    """A configuration; options as in a suite ({name: value}: true a bare
    flag, false left out, anything else its string)."""
    return Config(kernel, str(input), model, ranks, tuple(sorted((options or {}).items())))


class Bench:
    def __init__(self, script, store=None, binary=None, launcher=None, timeout=REAL_TIMEOUT,
                 resume=None):
        self.script = script
        now = datetime.datetime.now(datetime.timezone.utc)
        self.stamp = resume or now.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        self.store_path = Path(store or DEFAULT_STORE)
        self.store = Store(self.store_path)
        self.binary, self.launcher, self.timeout = binary, launcher, timeout

    def suite_name(self, variant=""):
        return f"bench-{self.script}{'/' + variant if variant else ''}@{self.stamp}"

    def runs(self, repeat, configs, *, variant="", binary=None, launcher=None):
        """The stored runs (as Store.runs gives them) of `configs` at the
        0-based repetition `repeat`, in their order: run now, in that order,
        unless this invocation ran them before (a configuration runs once a
        repetition)."""
        configs = list(configs)
        unique = []
        for c in configs:
            if c not in unique:
                unique.append(c)
        name = self.suite_name(variant)
        suite = Suite(name, Path(self.script), repeat + 1, unique)
        run_suite(suite, self.store, binary=binary or self.binary,
                  launcher=launcher or self.launcher, timeout=self.timeout, progress=False,
                  repeats=[repeat])
        stored = {r["config_key"]: r for r in self.store.runs(suite=name) if r["repeat"] == repeat}
        return [stored[c.key()] for c in configs]

    def documents(self, repeat, configs, **where):
        """graphcomm's JSON documents of `configs` at repetition `repeat`
        (see runs); BenchError names the first that failed."""
        configs = list(configs)
        out = []
        for c, run in zip(configs, self.runs(repeat, configs, **where)):
            if run["status"] != "ok":
                raise BenchError(f"failed: graphcomm {c.label()} (repetition {repeat + 1}): "
                                 f"{run['error']}")
            out.append(run["result"])
        return out

    def document(self, repeat, config, **where):
        return self.documents(repeat, [config], **where)[0]

    def close(self):
        self.store.close()

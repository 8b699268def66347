"""What graphcomm runs: per kernel, its command words, how it names its input
and its model axis. The values an axis takes come from the binary itself
(`graphcomm models --json`, docs/json-schema.md), so a model, algorithm or
engine added to graphcomm's tables is known here without a change."""
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .process_group import run_group


@dataclass(frozen=True)
class Kernel:
    name: str
    command: tuple  # graphcomm's subcommand words
    input_flag: str | None  # None: the input is a positional argument
    model_flag: str | None  # None: the kernel has no model axis
    axis: str | None = None  # the registry of `graphcomm models --json` the axis takes
    default_model: str | None = None  # a suite's model when it names none
    with_all: bool = False  # the axis also takes "all"
    serial: bool = False  # runs on one rank only
    comm_matrix: bool = False  # writes --comm-matrix FILE (docs/json-schema.md)
    input_forms: tuple = ()  # (prefix, flag): an input PREFIXvalue is `flag value`

    def input_arguments(self, text):
        """graphcomm's arguments naming the input `text`."""
        for prefix, flag in self.input_forms:
            if text.startswith(prefix):
                return [flag, text[len(prefix):]]
        return [self.input_flag, text] if self.input_flag else [text]

    def models(self, catalog):
        """The values of the model axis, by the binary's `catalog`."""
        names = tuple(row["name"] for row in catalog[self.axis])
        return names + (("all",) if self.with_all else ())


KERNELS = {
    k.name: k
    for k in (
        Kernel("graph-stats", ("graph", "stats"), "--graph", None),
        # graphcomm advise: the cost model's ranking (no model axis: it ranks them all);
        # topology:T is `--topology T` (advise --kernel nbr).
        Kernel("advise", ("advise",), "--graph", None, input_forms=(("topology:", "--topology"),)),
        Kernel("match", ("match",), "--graph", "--model", "exchange_models", "nsr", True,
               comm_matrix=True),
        # graph500:SCALE is `--scale SCALE`: the specification's graph, whose
        # TEPS count its input tuples as Graph500's reference codes do.
        Kernel("bfs", ("bfs",), "--graph", "--model", "exchange_models", "nsr", True,
               input_forms=(("graph500:", "--scale"),)),
        Kernel("sssp", ("sssp",), "--graph", "--model", "exchange_models", "ncl", True,
               input_forms=(("graph500:", "--scale"),)),
        Kernel("spmm", ("spmm",), "--matrix", "--method", "spmm_methods", "allgather", True),
        Kernel("nbr", ("nbr", "bench"), "--topology", "--collective", "nbr_collectives",
               "allgather"),
        Kernel("mq", ("mq", "replay"), None, "--engine", "mq_engines", "linked-list", True,
               serial=True),
    )
}

_catalogs = {}


def catalog(binary, launcher, timeout=120):
    """What `binary` runs (`graphcomm models --json`), asked once per binary
    and launcher (a path or a command prefix, as for a run)."""
    prefix = tuple(map(str, launcher if isinstance(launcher, (list, tuple)) else [launcher]))
    key = (str(binary), prefix)
    if key not in _catalogs:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "models.json"
            cmd = [*prefix, "-np", "1", str(binary), "-q", "models", "--json", str(out)]
            proc = run_group(cmd, timeout)
            try:
                _catalogs[key] = json.loads(out.read_text())
            except (OSError, ValueError):
                lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
                raise RuntimeError(f"{binary} models --json: "
                                   f"{lines[-1] if lines else f'exit code {proc.returncode}'}"
                                   ) from None
    return _catalogs[key]

"""What the simulation tests share: graphcomm-lab's run_group, which needs
nothing beyond the standard library."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from graphcomm_lab.process_group import run_group  # noqa: E402,F401


def registries(launcher, graphcomm):
    """What `graphcomm` runs (`graphcomm models --json`), run by `launcher`
    (a command prefix that takes -np) on one rank."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "models.json")
        cmd = [*launcher, "-np", "1", graphcomm, "-q", "models", "--json", out]
        proc = run_group(cmd, 300)
        if proc.returncode != 0:
            raise AssertionError(f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
        with open(out) as f:
            return json.load(f)


def mpi_models(launcher, graphcomm):
    """The exchange models this build has (the SMPI build: those of MPI alone)."""
    return [m["name"] for m in registries(launcher, graphcomm)["exchange_models"] if m["available"]]

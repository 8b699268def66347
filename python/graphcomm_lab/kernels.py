"""What graphcomm runs: per kernel, its command words, how it names its input
and its model axis, and the values that axis takes. The lab reads only the
`--json` documents the commands write (docs/json-schema.md), so a kernel that
gains a model needs one word added here and nothing else."""
from dataclasses import dataclass

EXCHANGE_MODELS = ("nsr", "nsr-agg", "rma", "ncl", "ncl-combined", "rma-fence", "rma-hash",
                   "shmem-fence", "shmem-hash", "hybrid")


@dataclass(frozen=True)
class Kernel:
    name: str
    command: tuple  # graphcomm's subcommand words
    input_flag: str | None  # None: the input is a positional argument
    model_flag: str | None  # None: the kernel has no model axis
    models: tuple = ()
    serial: bool = False  # runs on one rank only
    comm_matrix: bool = False  # writes --comm-matrix FILE (docs/json-schema.md)


KERNELS = {
    k.name: k
    for k in (
        Kernel("graph-stats", ("graph", "stats"), "--graph", None),
        Kernel("match", ("match",), "--graph", "--model", EXCHANGE_MODELS + ("all",),
               comm_matrix=True),
        Kernel("bfs", ("bfs",), "--graph", "--model", EXCHANGE_MODELS + ("all",)),
        Kernel("spmm", ("spmm",), "--matrix", "--method",
               ("allgather", "neighbor", "combined", "all")),
        Kernel("nbr", ("nbr", "bench"), "--topology", "--collective",
               ("allgather", "allgatherv", "alltoall", "alltoallv")),
        Kernel("mq", ("mq", "replay"), None, "--engine",
               ("linked-list", "rank-array", "bins", "hash", "vectors", "partner-static",
                "partner-dynamic", "partner-vectors", "all"), serial=True),
    )
}

"""What graphcomm advise predicts, as the kernels' own documents measure it:
per configuration, one matching (match), the median search (bfs), the gather
of one iteration (spmm). Shared by the report's advice and bench/advise.py."""
from .stats import median

ADVISED_KERNELS = ("match", "bfs", "spmm")


def measured_times(docs, kernel):
    """{configuration: median seconds over the documents} of one kernel's
    `--model all` (`--method all`) documents, in advise's configuration names."""
    times = {}
    for doc in docs:
        for run in doc.get("runs", []):
            if kernel == "match":
                name, seconds = f"{run['algorithm']}/{run['model']}", run["seconds"]
            elif kernel == "spmm":
                name, seconds = run["method"], run["gather_seconds"]
            else:
                name, seconds = run["configuration"], run["time"]["median"]
            times.setdefault(name, []).append(seconds)
    return {name: median(v) for name, v in times.items()}

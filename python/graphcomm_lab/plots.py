"""Plots from the store (matplotlib, PNG and SVG side by side).

- profile: performance profiles (Dolan and More, Math. Programming 91, 2002)
  of the models over many problems (inputs x rank counts), as in the matching
  study's Figure 10: for each model, the fraction of problems on which it is
  within a factor tau of the best.
- scaling: a figure against the rank count, one line per model and input
  (strong scaling; weak scaling when the inputs grow with the ranks).
- matrix: heatmaps of the messages sent between every pair of ranks, one per
  model, of the newest run stored with its communication matrix (the
  matching study's Figures 2, 9 and 11).
"""
import statistics
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .figures import DEFAULT_METRIC, PlotError, parts  # noqa: E402


def observations(runs, kernel, metric=None):
    """{(input, ranks, options, solver): [values]} of one kernel's ok runs;
    the solver is the part (model of a `--model all` run) or the run's model."""
    name, more_is_better = DEFAULT_METRIC.get(kernel, ("wall_seconds", False))
    name = metric or name
    out = defaultdict(list)
    for run in runs:
        if run["kernel"] != kernel or run["status"] != "ok":
            continue
        found = parts(run["result"])
        for label, figures in found:
            solver = label if len(found) > 1 or not run["model"] else run["model"]
            v = run["wall_seconds"] if name == "wall_seconds" else figures.get(name)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                options = " ".join(f"{k}={v}" for k, v in sorted(run["options"].items()))
                out[(run["input"], run["ranks"], options, solver or "-")].append(float(v))
    if not out:
        raise PlotError(f"no {kernel} runs reporting '{name}' in the store")
    return out, name, more_is_better


def _save(fig, out_base):
    out_base = Path(out_base)
    out_base.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = out_base.with_suffix(f".{ext}")
        tmp = path.with_name(path.name + ".tmp")
        fig.savefig(tmp, format=ext, dpi=120, bbox_inches="tight")
        tmp.replace(path)  # no partial file
        paths.append(path)
    plt.close(fig)
    return paths


def performance_profile(runs, kernel, out_base, metric=None):
    obs, name, more_is_better = observations(runs, kernel, metric)
    cost = defaultdict(dict)  # problem -> solver -> median cost (lower is better)
    for (inp, ranks, options, solver), values in obs.items():
        m = statistics.median(values)
        cost[(inp, ranks, options)][solver] = (1.0 / m if m else float("inf")) if more_is_better \
            else m
    solvers = sorted({s for c in cost.values() for s in c})
    problems = [p for p, c in cost.items() if len(c) == len(solvers)]  # every solver ran
    if not problems:
        raise PlotError(f"no {kernel} problem was run by every model ({', '.join(solvers)})")
    ratios = {s: sorted(cost[p][s] / min(cost[p].values()) if min(cost[p].values()) > 0 else 1.0
                        for p in problems) for s in solvers}
    top = max(max(r) for r in ratios.values())
    fig, ax = plt.subplots(figsize=(6, 4))
    for s in solvers:
        taus = [1.0] + ratios[s] + [max(top, 1.0) * 1.05]
        fractions = [0.0] + [(i + 1) / len(problems) for i in range(len(problems))]
        fractions.append(fractions[-1])
        ax.step(taus, fractions, where="post", label=s)
    if top > 4:
        ax.set_xscale("log", base=2)  # as Dolan and More plot wide ranges
    ax.set_xlabel(f"tau (within a factor of the best {name})")
    ax.set_ylabel("fraction of problems")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{kernel}: performance profile over {len(problems)} problems")
    ax.legend(loc="lower right")
    return _save(fig, out_base)


def scaling(runs, kernel, out_base, metric=None):
    obs, name, _ = observations(runs, kernel, metric)
    lines = defaultdict(dict)  # (input, options, solver) -> ranks -> median
    for (inp, ranks, options, solver), values in obs.items():
        lines[(inp, options, solver)][ranks] = statistics.median(values)
    fig, ax = plt.subplots(figsize=(6, 4))
    for (inp, options, solver), points in sorted(lines.items()):
        xs = sorted(points)
        label = " ".join(x for x in (solver, inp, options) if x and x != "-")
        ax.plot(xs, [points[x] for x in xs], marker="o", label=label)
    ranks = sorted({r for points in lines.values() for r in points})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ranks, [str(r) for r in ranks])
    ax.minorticks_off()
    ax.set_xlabel("ranks")
    ax.set_ylabel(name)
    ax.set_title(f"{kernel}: {name} against ranks")
    ax.legend(fontsize="small")
    return _save(fig, out_base)


def comm_matrix(runs, kernel, out_base, metric=None):
    quantity = metric or "messages"
    if quantity not in ("messages", "bytes"):
        raise PlotError("a communication matrix shows messages or bytes")
    stored = [r for r in runs if r["kernel"] == kernel and r["status"] == "ok"
              and (r["result"] or {}).get("comm_matrix")]
    if not stored:
        raise PlotError(f"no {kernel} run stored with its communication matrix "
                        "(\"comm-matrix\" = true in the suite's options)")
    run = stored[-1]
    models = run["result"]["comm_matrix"]["models"]
    cols = min(4, len(models))
    rows = (len(models) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.2 * rows), squeeze=False)
    for ax in axes.flat[len(models):]:
        ax.set_visible(False)
    for ax, (model, m) in zip(axes.flat, sorted(models.items())):
        image = ax.imshow(m[quantity], cmap="viridis", interpolation="nearest")
        ax.set_title(model)
        ax.set_xlabel("receiver")
        ax.set_ylabel("sender")
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(f"{kernel} {run['input']} on {run['ranks']} ranks: {quantity}")
    return _save(fig, out_base)


KINDS = {"profile": performance_profile, "scaling": scaling, "matrix": comm_matrix}

"""Plots from the store (matplotlib, PNG and SVG side by side).

- profile: performance profiles (Dolan and More, Math. Programming 91, 2002)
  of the models over many problems (inputs x rank counts), as in the matching
  study's Figure 10: for each model, the fraction of problems on which it is
  within a factor tau of the best.
- scaling: a figure against the rank count, one line per model and input
  (strong scaling; weak scaling when the inputs grow with the ranks).
- scale: a figure against the SCALE of R-MAT inputs, one line per model
  and rank count (TEPS against SCALE, the Graph500 study's Figures 1-4).
- sizes: nbr's speedup (or another figure) against the message size.
- density: nbr's speedup against the density of random process graphs.
- speedup: SpMM's methods against allgather.
- queues: mq's search lengths and time per operation per engine.
- matrix: heatmaps of the messages sent between every pair of ranks, of the
  newest run stored with its communication matrix (the matching study's
  Figures 2, 9 and 11): one heatmap per group of models whose matrices are
  alike (within 5% of the largest entry), with the values written in the
  cells up to 16 ranks.
- bar_chart (the report's, where a profile has too few problems): per
  problem, a bar per configuration, its median with the min-max range.
"""
import re
import textwrap
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .figures import (DEFAULT_METRIC, PlotError, metric_name, options_text,  # noqa: E402
                      parts, run_values)
from .stats import median  # noqa: E402


def observations(runs, kernel, metric=None):
    """{(input, ranks, options, solver): [values]} of one kernel's ok runs;
    the solver is the part (model of a `--model all` run) or the run's model."""
    more_is_better = DEFAULT_METRIC.get(kernel, ("wall_seconds", False))[1]
    name = metric_name(kernel, metric)
    out = defaultdict(list)
    for run in runs:
        if run["kernel"] != kernel or run["status"] != "ok":
            continue
        _, found, count = run_values(run, name)
        for label, v in found:
            solver = label if count > 1 or not run["model"] else run["model"]
            out[(run["input"], run["ranks"], options_text(run["options"]), solver or "-")].append(v)
    if not out:
        raise PlotError(f"no {kernel} runs reporting '{name}' in the store")
    return out, name, more_is_better


def _legend(ax, entries, where):
    if entries > 8:  # many configurations (bfs --model all): beside the axes
        ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    else:
        ax.legend(fontsize="small", loc=where)


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


def performance_profile(runs, kernel, out_base, metric=None, min_problems=1):
    """min_problems: fewer problems run by every model raise PlotError (the
    report asks for 3: a profile over one or two problems says less than a
    bar chart of them)."""
    if kernel == "nbr":
        raise PlotError("nbr's parts are message sizes, not models: plot sizes nbr")
    obs, name, more_is_better = observations(runs, kernel, metric)
    cost = defaultdict(dict)  # problem -> solver -> median cost (lower is better)
    for (inp, ranks, options, solver), values in obs.items():
        m = median(values)
        cost[(inp, ranks, options)][solver] = (1.0 / m if m else float("inf")) if more_is_better \
            else m
    solvers = sorted({s for c in cost.values() for s in c})
    if len(solvers) < 2:
        raise PlotError(f"a performance profile compares models; the {kernel} runs have one")
    problems = [p for p, c in cost.items() if len(c) == len(solvers)]  # every solver ran
    if not problems:
        raise PlotError(f"no {kernel} problem was run by every model ({', '.join(solvers)})")
    if len(problems) < min_problems:
        raise PlotError(f"{len(problems)} {kernel} problem(s) run by every model: a profile "
                        f"needs {min_problems}")
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
    _legend(ax, len(solvers), "lower right")
    return _save(fig, out_base)


def _against(lines, kernel, name, x_name, out_base, log_x=True):
    """One line per series: lines = {series label: {x: y}}."""
    if len({x for points in lines.values() for x in points}) < 2:
        raise PlotError(f"the {kernel} runs have fewer than two values of {x_name} to plot")
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, points in sorted(lines.items()):
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker="o", label=label)
    xs = sorted({x for points in lines.values() for x in points})
    if log_x:
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.set_xlabel(x_name)
    ax.set_ylabel(name)
    ax.set_title(f"{kernel}: {name} against {x_name}")
    _legend(ax, len(lines), "best")
    return _save(fig, out_base)


def _series(*parts):
    return " ".join(p for p in parts if p and p != "-")


def scaling(runs, kernel, out_base, metric=None):
    obs, name, _ = observations(runs, kernel, metric)
    lines = defaultdict(dict)
    for (inp, ranks, options, solver), values in obs.items():
        lines[_series(solver, inp, options)][ranks] = median(values)
    return _against(lines, kernel, name, "ranks", out_base)


def by_scale(runs, kernel, out_base, metric=None):
    """Against the SCALE of R-MAT inputs (the Graph500 study's Figures 1-4)."""
    obs, name, _ = observations(runs, kernel, metric)
    lines = defaultdict(dict)
    for (inp, ranks, options, solver), values in obs.items():
        m = re.match(r"(?:rmat|graph500):(\d+)", inp)
        if m:
            lines[_series(solver, f"np{ranks}", options)][int(m.group(1))] = \
                median(values)
    return _against(lines, kernel, name, "SCALE", out_base, log_x=False)


def _nbr_lines(runs, kernel, name, x_of, series_of):
    values = defaultdict(lambda: defaultdict(list))
    for run in runs:
        if run["kernel"] != kernel or run["status"] != "ok":
            continue
        for entry in (run["result"] or {}).get("sizes", []):
            v, x = entry.get(name), x_of(run, entry)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and x is not None:
                values[series_of(run, entry)][x].append(float(v))
    return {s: {x: median(v) for x, v in pts.items()} for s, pts in values.items()}


def by_size(runs, kernel, out_base, metric=None):
    """nbr: a figure per message size (default the speedup of the combined
    plan over the library), one line per collective, topology and ranks
    (the collectives study's Figures 5-9)."""
    name = metric or DEFAULT_METRIC["nbr"][0]
    lines = _nbr_lines(runs, kernel, name, lambda run, e: e["bytes"],
                       lambda run, e: _series(run["model"], run["input"], f"np{run['ranks']}"))
    return _against(lines, kernel, name, "bytes per block", out_base)


def by_density(runs, kernel, out_base, metric=None):
    """nbr: the figure against the density DELTA of random:DELTA process
    graphs, one line per collective, message size and ranks."""
    name = metric or DEFAULT_METRIC["nbr"][0]

    def density(run, entry):
        m = re.fullmatch(r"random:([0-9.]+)", run["input"])
        return float(m.group(1)) if m else None

    lines = _nbr_lines(runs, kernel, name, density,
                       lambda run, e: _series(run["model"], f"{e['bytes']} B",
                                              f"np{run['ranks']}"))
    return _against(lines, kernel, name, "process-graph density", out_base, log_x=False)


def spmm_speedup(runs, kernel, out_base, metric=None):
    """SpMM: each method's speedup over allgather (gather + multiply time),
    a bar per matrix and rank count (the collectives study's Figures 12-13)."""
    if kernel != "spmm":
        raise PlotError("speedup bars are for spmm")
    times = defaultdict(lambda: defaultdict(list))
    for run in runs:
        if run["kernel"] != "spmm" or run["status"] != "ok":
            continue
        for label, f in parts(run["result"]):
            if isinstance(f.get("gather_seconds"), (int, float)):
                times[f"{run['input']} np{run['ranks']}"][label].append(
                    f["gather_seconds"] + f["multiply_seconds"])
    groups = sorted(g for g, m in times.items() if "allgather" in m and len(m) > 1)
    if not groups:
        raise PlotError("no spmm runs of allgather beside another method")
    methods = sorted({m for g in groups for m in times[g]} - {"allgather"})
    fig, ax = plt.subplots(figsize=(6, 4))
    width = 0.8 / len(methods)
    for k, method in enumerate(methods):
        ys = [median(times[g]["allgather"]) / median(times[g][method])
              if times[g][method] else 0 for g in groups]
        ax.bar([i + k * width for i in range(len(groups))], ys, width, label=method)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups)
    ax.set_ylabel("speedup over allgather")
    ax.set_title("spmm: gather + multiply time")
    ax.legend(fontsize="small")
    return _save(fig, out_base)


ALIKE = 0.05  # matrices within this fraction of the largest entry share a heatmap
VALUES_UP_TO = 16  # ranks up to which the heatmap's cells carry their values


def _alike(models, quantity):
    """[(model names, matrix)]: the models grouped by alike matrices, each
    group shown by its first model's matrix."""
    groups = []
    for name, m in sorted(models.items()):
        m = m[quantity]
        for names, first in groups:
            top = max(max(map(abs, row)) for row in first + m) or 1
            if len(first) == len(m) and all(
                    abs(a - b) <= ALIKE * top for ra, rb in zip(first, m) for a, b in zip(ra, rb)):
                names.append(name)
                break
        else:
            groups.append(([name], m))
    return groups


def _compact(v):
    """A cell's count in at most 4 characters: 980, 12k, 1.2M."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= scale:
            x = v / scale
            return f"{x:.1f}{unit}" if x < 10 else f"{x:.0f}{unit}"
    return f"{v:.0f}"


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
    groups = _alike(models, quantity)
    cols = min(2, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 5.4 * rows), squeeze=False,
                             layout="constrained")
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for ax, (names, m) in zip(axes.flat, groups):
        image = ax.imshow(m, cmap="viridis", interpolation="nearest")
        n = len(m)
        title = ("every model" if len(names) == len(models) and len(models) > 1
                 else ", ".join(names))
        ax.set_title(textwrap.fill(title, 50), fontsize="medium")
        ax.set_xlabel("receiver rank")
        ax.set_ylabel("sender rank")
        if n <= VALUES_UP_TO:
            ax.set_xticks(range(n))
            ax.set_yticks(range(n))
            top = max(max(row) for row in m) or 1
            size = 11 if n <= 4 else 9 if n <= 8 else 6
            for i, row in enumerate(m):
                for j, v in enumerate(row):
                    ax.text(j, i, _compact(v), ha="center", va="center", fontsize=size,
                            color="black" if v > 0.6 * top else "white")
        fig.colorbar(image, ax=ax, shrink=0.8)
    alike = (f"; models whose matrices differ by less than {ALIKE:.0%} of the largest entry "
             "share a heatmap" if len(groups) < len(models) else "")
    fig.suptitle(textwrap.fill(f"{kernel} {run['input']} on {run['ranks']} ranks: {quantity} "
                               f"sent from each rank (row) to each (column){alike}", 60 * cols),
                 fontsize="medium")
    return _save(fig, out_base)


def bar_chart(panels, xlabel, more_is_better, out_base, title, reference=None):
    """Horizontal bars, one panel per problem: panels = [(panel title,
    {configuration: [values]})]. A bar is the median, its error bar the
    min-max range; the best configuration first, in another colour.
    `reference`: a vertical line (1 for a speedup)."""
    if not panels:
        raise PlotError("no values to draw")
    tallest = max(len(values) for _, values in panels)
    cols = min(2, len(panels))  # two side by side at most: each stays readable
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, (0.3 * tallest + 1.6) * rows + 0.3),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (name, values) in zip(axes.flat, panels):
        items = sorted(values.items(), key=lambda kv: median(kv[1]), reverse=more_is_better)
        meds = [median(v) for _, v in items]
        low = [m - min(v) for m, (_, v) in zip(meds, items)]
        high = [max(v) - m for m, (_, v) in zip(meds, items)]
        ys = list(range(len(items)))
        ax.barh(ys, meds, xerr=[low, high], capsize=3, ecolor="#333",
                color=["#e6550d"] + ["#3182bd"] * (len(items) - 1))
        ax.set_yticks(ys, [k for k, _ in items], fontsize="small")
        ax.invert_yaxis()  # the best on top
        positive = [m for m in meds if m > 0]
        if positive and max(positive) / min(positive) > 50:
            ax.set_xscale("log")
        if reference is not None:
            ax.axvline(reference, color="grey", linewidth=1, linestyle="--")
        ax.set_xlabel(xlabel)
        ax.set_title(textwrap.fill(name, 60), fontsize="medium")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title)
    return _save(fig, out_base)


def queues(runs, kernel, out_base, metric=None):
    """mq: per engine, the mean queue elements traversed per search (posted
    and unexpected queues) and the time per operation, one bar per workload
    (the message-matching study's Figures 5 and 8-10)."""
    if kernel != "mq":
        raise PlotError("queue plots are for mq")
    data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for run in runs:
        if run["kernel"] != "mq" or run["status"] != "ok":
            continue
        for label, f in parts(run["result"]):
            if isinstance(f.get("umq.mean"), (int, float)):
                data[run["input"]][label]["search"].append(f["umq.mean"] + f.get("prq.mean", 0))
                data[run["input"]][label]["ns"].append(f["ns_per_operation"])
    if not data:
        raise PlotError("no mq runs with queue figures in the store")
    engines = sorted({e for per in data.values() for e in per})
    inputs = sorted(data)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), layout="constrained")
    width = 0.8 / len(inputs)
    for ax, key, title in ((axes[0], "search", "queue elements traversed per search"),
                           (axes[1], "ns", "ns per operation")):
        for k, inp in enumerate(inputs):
            ys = [median(data[inp][e][key]) if data[inp][e][key] else 0
                  for e in engines]
            ax.bar([i + k * width for i in range(len(engines))], ys, width, label=inp)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(engines))], engines, rotation=45,
                      ha="right")
        ax.set_yscale("log")
        ax.set_title(title)
    # Above the panels: inside one, the legend hid the tallest bars.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(inputs), fontsize="small")
    return _save(fig, out_base)


KINDS = {"profile": performance_profile, "scaling": scaling, "scale": by_scale,
         "sizes": by_size, "density": by_density, "speedup": spmm_speedup,
         "matrix": comm_matrix, "queues": queues}

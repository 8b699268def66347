"""The figures of a stored run, as (part, metrics) rows. A kernel's JSON holds
one entry per model/algorithm (`runs`), per message size (`sizes`, nbr),
per engine (`engines`, mq) or per kernel advised for (`advice`, advise); each
entry is a part, its scalars the metrics.
A document without such a list is one part, "", of its flattened scalars."""

PART_LISTS = ("runs", "sizes", "engines", "advice")


class PlotError(Exception):
    pass

# The figure compare uses when none is named, per kernel, and whether more is better.
DEFAULT_METRIC = {
    "graph-stats": ("timings.load_seconds", False),
    "match": ("seconds", False),
    "bfs": ("harmonic_mean_TEPS", True),
    "sssp": ("harmonic_mean_TEPS", True),
    "spmm": ("multiply_seconds", False),
    "nbr": ("speedup", True),
    "mq": ("ns_per_operation", False),
}


def flatten(prefix, value, out):
    """Scalars of a JSON value under dotted names (lists left out)."""
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{prefix}.{k}" if prefix else k, v, out)
    elif isinstance(value, (str, int, float, bool)) or value is None:
        out[prefix] = value
    return out


def options_text(options):
    """A run's options as `key=value ...`, sorted."""
    return " ".join(f"{k}={v}" for k, v in sorted(options.items()))


def metric_name(kernel, metric=None):
    return metric or DEFAULT_METRIC.get(kernel, ("wall_seconds", False))[0]


def run_values(run, metric=None):
    """(metric name, [(part label, value)], number of parts) of one run: the
    named figure (default: the kernel's headline) of each part reporting it;
    `wall_seconds` is the run's own."""
    name = metric_name(run["kernel"], metric)
    found = parts(run["result"])
    out = []
    for label, figures in found:
        v = run["wall_seconds"] if name == "wall_seconds" else figures.get(name)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append((label, float(v)))
    return name, out, len(found)


def part_label(list_name, entry):
    if list_name == "sizes":
        return f"{entry.get('bytes')} B"
    if list_name == "advice":
        return str(entry.get("kernel"))
    if "configuration" in entry:
        return str(entry["configuration"])
    keys = ("algorithm", "model", "method", "engine")
    return "/".join(str(entry[k]) for k in keys if k in entry and not isinstance(entry[k], dict))


def parts(result):
    """[(label, {metric: value})] of one run's JSON document."""
    if result is None:
        return []
    for name in PART_LISTS:
        entries = result.get(name)
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            return [(part_label(name, e), flatten("", e, {})) for e in entries]
    return [("", flatten("", result, {}))]


STATS_HEAD = ("input", "ranks", "options", "|V|", "|E|", "isolated", "degree max", "degree avg",
              "|Ep|", "d_max", "d_avg", "sigma_d")


def stats_rows(runs):
    """The graph and process-graph statistics of the graph-stats runs, one row
    per input, rank count and options (the matching study's Tables III-VI)."""
    rows = {}
    for r in runs:
        if r["kernel"] != "graph-stats" or r["status"] != "ok":
            continue
        g, pg = r["result"]["graph"], r["result"]["process_graph"]
        opts = options_text(r["options"])
        rows[(r["input"], r["ranks"], opts)] = [
            r["input"], str(r["ranks"]), opts, str(g["vertices"]), str(g["edges"]),
            str(g.get("isolated_vertices", "-")), f"{g['degree']['max']:.0f}",
            f"{g['degree']['avg']:.2f}", str(pg["edges"]), f"{pg['degree']['max']:.0f}",
            f"{pg['degree']['avg']:.2f}", f"{pg['degree']['stddev']:.2f}"]
    return [rows[k] for k in sorted(rows, key=str)]

"""compare: two sides of the store that differ in one thing (two commits, two
models, two rank counts, two values of an option), everything else equal,
as B/A ratios of medians over the repetitions, with the spread of the ratio
over every pair of runs (min-max)."""
import json

from .figures import options_text, run_values
from .stats import median, median_range_text, range_text
from .text import table

FIELDS = ("git_commit", "model", "ranks", "input", "kernel")


class CompareError(Exception):
    pass


def _side(run, by, a, b):
    if by.startswith("option."):
        value = run["options"].get(by[len("option."):])
    elif by in FIELDS:
        value = run[by]
    else:
        raise CompareError(f"cannot compare by '{by}' (one of: {', '.join(FIELDS)}, option.NAME)")
    text = "" if value is None else str(value)
    if by == "git_commit":  # commit prefixes
        return "a" if text.startswith(a) else "b" if text.startswith(b) else None
    return "a" if text == a else "b" if text == b else None


def _group(run, by):
    fields = {f: run[f] for f in FIELDS if f != by}
    options = {k: v for k, v in run["options"].items() if f"option.{k}" != by}
    return (fields["kernel"] if "kernel" in fields else "*", fields.get("input", "*"),
            fields.get("model") or "-", str(fields.get("ranks", "*")),
            json.dumps(options, sort_keys=True))


def compare(runs, by, a, b, metric=None):
    """The comparison table as text."""
    values = {}  # (group, part, metric) -> {"a": [...], "b": [...]}
    for run in runs:
        side = _side(run, by, a, b)
        if side is None:
            continue
        name, found, count = run_values(run, metric)
        for label, v in found:
            label = label if count > 1 else ""  # one part: named by the run itself
            values.setdefault((_group(run, by), label, name), {"a": [], "b": []})[side].append(v)
    rows = []
    for (group, label, name), sides in values.items():
        if not sides["a"] or not sides["b"]:
            continue
        ma, mb = median(sides["a"]), median(sides["b"])
        ratios = [y / x for x in sides["a"] for y in sides["b"] if x != 0]
        ratio = f"{mb / ma:.3f}" if ma != 0 else "-"
        kernel, inp, model, ranks, options = group
        options = options_text(json.loads(options))
        rows.append([kernel, inp, model, ranks, options, label, name,
                     median_range_text(sides["a"], ".4g"), median_range_text(sides["b"], ".4g"),
                     ratio, range_text(ratios, ".3f")])
    if not rows:
        raise CompareError(f"no configuration has runs with {by} = {a} and with {by} = {b}"
                           + (f" reporting '{metric}'" if metric else ""))
    head = ["kernel", "input", "model", "ranks", "options", "part", "metric", f"A = {a}",
            f"B = {b}", "B/A", "spread"]
    return table(head, rows)

"""The report's per-kernel tables: each kernel's headline figure in its
units, inputs against configurations (transposed past MAX_COLUMNS), each
cell the median over the repetitions with its spread, the best of each input
marked, and the one-line summary that says what the table answers."""
import html
import math
from collections import Counter
from dataclasses import dataclass, field

from .figures import DEFAULT_METRIC, metric_name, options_text, parts
from .stats import median

MAX_COLUMNS = 8  # a kernel with more configurations is shown transposed


@dataclass(frozen=True)
class Headline:
    """A kernel's headline figure as the report shows it: the JSON metric,
    what it is, its unit and the factor from graphcomm's (SI) value to it."""
    metric: str
    what: str
    unit: str
    scale: float
    more_is_better: bool
    configurations: str = "configuration"  # what a column is
    best: str = ""  # the summary's word for the best: "fastest", "highest TEPS"
    explain: str = ""  # how to read it, where its name does not say

    def __call__(self, value):
        return value * self.scale


HEADLINES = {
    "match": Headline("seconds", "matching time", "ms", 1e3, False, "algorithm/model",
                      "fastest"),
    "bfs": Headline("harmonic_mean_TEPS", "harmonic mean TEPS over the roots", "MTEPS", 1e-6,
                    True, "algorithm/model", "highest TEPS"),
    "sssp": Headline("harmonic_mean_TEPS", "harmonic mean TEPS over the roots", "MTEPS", 1e-6,
                     True, "algorithm/model", "highest TEPS"),
    "spmm": Headline("multiply_seconds", "multiply time per iteration", "ms", 1e3, False,
                     "method", "fastest"),
    "mq": Headline("ns_per_operation", "time per matching operation", "ns", 1.0, False,
                   "engine", "fastest"),
    "nbr": Headline("speedup", "speedup of the combined plan over the library's collective",
                    "x", 1.0, True, "collective and block size", "highest speedup",
                    "the library's neighborhood collective's time over the combined plan's "
                    "(medians over the bench's timed calls); below 1 the plan is slower"),
}
NOT_PIVOTED = ("graph-stats", "advise")  # their own sections: the statistics, the answers


def headline(kernel):
    if kernel in HEADLINES:
        return HEADLINES[kernel]
    name = metric_name(kernel)
    seconds = name.endswith("seconds")
    return Headline(name, name, "ms" if seconds else "", 1e3 if seconds else 1.0,
                    DEFAULT_METRIC.get(kernel, ("", False))[1])


def number(v):
    """Four significant digits, without an exponent: 22.98, 0.1760, 1235."""
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    digits = 3 - math.floor(math.log10(abs(float(f"{v:.4g}"))))  # 9.9996: 10.00
    if digits > 6:  # below 0.001: an exponent reads better than zeros
        return f"{v:.4g}"
    return f"{v:.{max(digits, 0)}f}"


def with_unit(v, unit):
    return number(v) + ("x" if unit == "x" else f" {unit}" if unit else "")


@dataclass
class Cell:
    """The values of one configuration on one problem, one per run."""
    values: list
    best: bool = False

    @property
    def median(self):
        return median(self.values)

    @property
    def spread(self):
        """Half the min-max range over the median, in percent (None for one run)."""
        if len(self.values) < 2 or not self.median:
            return None
        return 50 * (max(self.values) - min(self.values)) / abs(self.median)

    def text(self, count=False):
        out = number(self.median)
        if self.spread is not None:
            out += f" ±{self.spread:.0f}%" if self.spread >= 1 else f" ±{self.spread:.1f}%"
        return out + (f" ({len(self.values)})" if count else "")


@dataclass
class Pivot:
    """One kernel's headline figure: problems (suite, input, ranks, options)
    against configurations, measured or simulated."""
    kernel: str
    headline: Headline
    simulated: bool
    platforms: list
    problems: list  # (suite, input, ranks, ((option, text), ...)), first seen first
    configurations: list  # first seen first
    cells: dict  # (problem, configuration) -> Cell
    runs: list = field(repr=False, default_factory=list)

    @property
    def transposed(self):
        return len(self.configurations) > MAX_COLUMNS

    @property
    def suites(self):
        return list(dict.fromkeys(p[0] for p in self.problems))

    @property
    def anchor(self):
        return f"{self.kernel}-{'simulated' if self.simulated else 'measured'}"

    def varying_options(self):
        """The option names whose values differ between the problems of a
        suite (between suites, the suite's name tells the rows apart)."""
        out = set()
        for suite in self.suites:
            every = [dict(p[3]) for p in self.problems if p[0] == suite]
            names = {k for o in every for k in o}
            out |= {k for k in names if len({o.get(k) for o in every}) > 1}
        return sorted(out)

    def common_options(self):
        """The options every problem of a suite shares, per suite: `a=1 b=2`,
        or `suite: a=1; other: none` where there are several suites."""
        varying = set(self.varying_options())
        per_suite = []
        for suite in self.suites:
            first = next(p for p in self.problems if p[0] == suite)
            per_suite.append((suite, " ".join(f"{k}={v}" for k, v in first[3]
                                              if k not in varying)))
        if len(per_suite) == 1:
            return per_suite[0][1]
        if not any(text for _, text in per_suite):
            return ""
        return "; ".join(f"{suite}: {text or 'none'}" for suite, text in per_suite)

    def problem_label(self, problem):
        suite, inp, ranks, options = problem
        varying = self.varying_options()
        extra = " ".join(f"{k}={v}" for k, v in options if k in varying)
        text = f"{inp} ({ranks} rank{'s' if ranks != 1 else ''}" + (f", {extra})" if extra
                                                                    else ")")
        return f"{suite}: {text}" if len(self.suites) > 1 else text

    def row(self, problem):
        return [self.cells.get((problem, c)) for c in self.configurations]

    def best(self, problem):
        """[(configuration, Cell)] of the problem, best first."""
        found = [(c, cell) for c in self.configurations
                 if (cell := self.cells.get((problem, c))) is not None]
        return sorted(found, key=lambda cc: cc[1].median, reverse=self.headline.more_is_better)

    def counts(self):
        return Counter(len(cell.values) for cell in self.cells.values())


def _problem_key(run):
    options = tuple((k, options_text({k: v})[len(k) + 1:])
                    for k, v in sorted(run["options"].items()))
    return run["suite"], run["input"], run["ranks"], options


def is_simulated(run):
    return bool((run["result"] or {}).get("simulation"))


def pivots(runs):
    """[Pivot] of every kernel with a headline figure in the runs: per kernel
    (in the order of their first run), measured first, then simulated."""
    kernels = list(dict.fromkeys(r["kernel"] for r in runs if r["status"] == "ok"))
    out = []
    for kernel in kernels:
        if kernel in NOT_PIVOTED:
            continue
        h = headline(kernel)
        for simulated in (False, True):
            mine = [r for r in runs if r["kernel"] == kernel and r["status"] == "ok"
                    and is_simulated(r) == simulated]
            cells, problems, configurations = {}, {}, {}
            for r in mine:
                for label, figures in parts(r["result"]):
                    v = figures.get(h.metric)
                    if not isinstance(v, (int, float)) or isinstance(v, bool):
                        continue
                    if kernel == "nbr":  # the model is the collective, the parts are sizes
                        config = " ".join(x for x in (r["model"], label) if x)
                    else:
                        config = label or r["model"] or "-"
                    problem = _problem_key(r)
                    problems.setdefault(problem, None)
                    configurations.setdefault(config, None)
                    cells.setdefault((problem, config), Cell([])).values.append(h(float(v)))
            if not cells:
                continue
            platforms = sorted({r["result"]["simulation"].get("platform", "?") for r in mine}) \
                if simulated else []
            p = Pivot(kernel, h, simulated, platforms, list(problems), list(configurations),
                      cells, mine)
            for problem in p.problems:
                ranked = p.best(problem)
                for _, cell in ranked:
                    cell.best = cell.median == ranked[0][1].median
            out.append(p)
    return out


def _overlaps(a, b):
    """Whether two cells' min-max ranges overlap (both with 2+ runs)."""
    if len(a.values) < 2 or len(b.values) < 2:
        return False
    return min(a.values) <= max(b.values) and min(b.values) <= max(a.values)


def summary(p):
    """The one line above a pivot: the best configuration of each input, by
    how much it leads the next, and (a speedup) where it is below 1."""
    h = p.headline
    word = h.best or ("highest" if h.more_is_better else "lowest")
    bests = []
    for problem in p.problems:
        ranked = p.best(problem)
        (config, cell), rest = ranked[0], ranked[1:]
        text = f"{p.problem_label(problem)} {config} {with_unit(cell.median, h.unit)}"
        if rest:
            (second, other) = rest[0]
            lead = (cell.median / other.median if h.more_is_better else
                    other.median / cell.median) if other.median and cell.median else None
            if lead is not None:
                text += f", {lead:.2f}x ahead of {second}"
                if _overlaps(cell, other):
                    text += " (within the spread)"
        bests.append((config, text))
    if len(bests) <= 6:
        line = f"{word} per input: " + "; ".join(t for _, t in bests)
    else:
        often = Counter(c for c, _ in bests).most_common(3)
        line = (f"{word} on most of the {len(bests)} inputs: "
                + ", ".join(f"{c} ({n} of {len(bests)})" for c, n in often))
    if h.unit == "x":  # a speedup: where every run says the plan is slower
        below = [f"{p.problem_label(pr)} {c} {with_unit(cell.median, 'x')}"
                 for (pr, c), cell in p.cells.items() if max(cell.values) < 1]
        if below:
            line += "; below 1x in every run (the plan slower): " + ", ".join(below[:6]) + \
                (f" and {len(below) - 6} more" if len(below) > 6 else "")
    return line + "."


def _note(p):
    """What the table holds: unit, direction, suites, options, runs per cell."""
    h = p.headline
    counts = p.counts()
    if len(counts) == 1:
        (n, _), = counts.items()
        runs = (f"each cell the median of {n} runs ± half their min-max range over the median"
                if n > 1 else "one run each (no spread)")
    else:
        n = counts.most_common(1)[0][0]
        runs = (f"each cell the median of its runs ± half their min-max range over the median; "
                f"{n} runs each, other counts in parentheses")
    suites = p.suites
    where = (f"suite {suites[0]}" if len(suites) == 1 else
             f"suites {', '.join(suites)} (named in each input)")
    common = p.common_options()
    simulated = (f" Simulated time (SimGrid SMPI, scripts/simulate) on {'; '.join(p.platforms)}, "
                 "not measured." if p.simulated else "")
    return (f"{h.explain + '; ' if h.explain else ''}"
            f"{'more' if h.more_is_better else 'less'} is better; per {h.configurations}; "
            f"{where}{'; options ' + common if common else ''}; {runs}; "
            f"★ bold: the best of each input.{simulated}")


def _cell_html(cell, count):
    if cell is None:
        return '<td class="num missing">-</td>'
    text = html.escape(cell.text(count))
    if cell.best:
        return f'<td class="num best"><b>★ {text}</b></td>'
    return f'<td class="num">{text}</td>'


def pivot_html(p):
    h = p.headline
    common_count = p.counts().most_common(1)[0][0]

    def count(cell):
        return cell is not None and len(p.counts()) > 1 and len(cell.values) != common_count

    out = ['<table class="pivot">']
    if not p.transposed:
        several = len(p.suites) > 1
        varying = p.varying_options()
        head = (["suite"] if several else []) + ["input", "ranks"] + \
            (["options"] if varying else [])
        out.append("<tr>" + "".join(f"<th>{html.escape(x)}</th>" for x in head)
                   + "".join(f'<th class="num">{html.escape(c)}</th>'
                             for c in p.configurations) + "</tr>")
        for problem in p.problems:
            suite, inp, ranks, options = problem
            labels = ([suite] if several else []) + [inp, str(ranks)] + \
                ([" ".join(f"{k}={v}" for k, v in options if k in varying)] if varying else [])
            out.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in labels)
                       + "".join(_cell_html(c, count(c)) for c in p.row(problem)) + "</tr>")
    else:
        out.append(f"<tr><th>{html.escape(h.configurations)}</th>"
                   + "".join(f'<th class="num">{html.escape(p.problem_label(pr))}</th>'
                             for pr in p.problems) + "</tr>")
        for c in p.configurations:
            cells = [p.cells.get((pr, c)) for pr in p.problems]
            out.append(f"<tr><td>{html.escape(c)}</td>"
                       + "".join(_cell_html(cell, count(cell)) for cell in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)

"""report: one self-contained static HTML page of a store (images embedded as
data URIs) that leads with the answers:

- Answers: graphcomm advise's choice per kernel (every stored ok `advise`
  run: its choice, reason and first five ranked configurations) and the
  verdict line of every claim whose reproduce suite is stored
  (reproduce-CLAIM, -tiny, -simulated-PLATFORM);
- per kernel (not per suite), one table of its headline figure in its units
  (match and spmm in ms, bfs and sssp in MTEPS, mq in ns, nbr's speedup as x): inputs
  against configurations, transposed past 8 configurations, each cell the
  median over the repetitions with its spread (± half the min-max range over
  the median) where there are 2+ runs, the best of each input in bold and
  starred, and above the table a one-line summary of what it answers;
  measured and simulated runs in tables of their own; then the plots that
  carry information: a performance profile from 3 problems on, else bars with
  error bars per configuration; readable communication heatmaps;
- the graphs' statistics, the environment, and per suite the failed runs and,
  collapsed, the flat table of every configuration's figures.

The page checks itself when opened: a script marks <body> with
data-images-ok (every image loaded), data-figures-ok (every image displayed
at least 400 px wide) and data-tables-ok (every table of more than 15 rows
has a class="summary" element right before it), which the browser test
reads."""
import base64
import datetime
import html
import re
import tempfile
from collections import defaultdict
from pathlib import Path

from .figures import STATS_HEAD, PlotError, options_text, run_values, stats_rows
from .stats import median_text, range_text

MIN_FIGURE_PX = 400  # every image is displayed at least this wide (checked on load)
LONG_TABLE = 15  # a table of more rows has a class="summary" line right before it
PROFILE_PROBLEMS = 3  # fewer: bars with error bars instead of a performance profile

from .report_answers import _advice, _claims
from .report_html import _summary, _table
from .report_pivot import _note, is_simulated, pivot_html, pivots, summary


def _environment(runs):
    rows = set()
    for r in [r for r in runs if r["status"] == "ok"] or runs:
        m = r["machine"]
        rows.add((r["git_commit"] or "-", r["mpi_library"] or "-", m.get("host", "-"),
                  str(m.get("cores", "-")), f"{(m.get('memory_bytes') or 0) / 2**30:.1f} GiB",
                  m.get("os", "-")))
    return _table(("commit", "MPI", "host", "cores", "memory", "os"), sorted(rows))


def _figures_table(runs):
    """Per configuration and part: the kernel's headline figure as graphcomm
    reports it (seconds, TEPS), median and spread: (rows, html)."""
    values = defaultdict(list)
    for r in runs:
        if r["status"] != "ok":
            continue
        name, found, _ = run_values(r)
        for label, v in found:
            key = (r["kernel"], r["input"], r["model"] or "-", r["ranks"],
                   options_text(r["options"]), label, name)
            values[key].append(v)
    rows = [(*key, len(v), median_text(v, ".4g"), range_text(v, ".4g"))
            for key, v in values.items()]
    head = ("kernel", "input", "model", "ranks", "options", "part", "figure", "runs", "median",
            "spread")
    return len(rows), _table(head, rows, numeric=(3, 7, 8, 9))


# ----------------------------------------------------------------- answers


# ------------------------------------------------------------------- plots

_ONLY_FOR = {"sizes": "nbr", "density": "nbr", "speedup": "spmm", "queues": "mq"}
CAPTIONS = {
    "scaling": "the headline figure against the rank count",
    "scale": "the headline figure against the SCALE of R-MAT inputs",
    "sizes": "the combined plan's speedup against the block size",
    "density": "the combined plan's speedup against the density of the process graph",
    "speedup": "each method's speedup over allgather (gather + multiply time)",
    "queues": "per engine: queue elements traversed per search and time per operation",
}


MIN_POINTS = 3  # a plot against an axis needs this many values on it (with 2: the table)


def _worth_plotting(kind, runs):
    """Whether a plot of this kind says more than the pivot table: 3+ values
    on its x axis (ranks, SCALE, block size, density), spmm's speedup bars
    from two inputs on; mq's queue plots always (figures the table lacks)."""
    if kind == "scaling":
        points = {r["ranks"] for r in runs}
    elif kind == "scale":
        points = {m.group(1) for r in runs
                  if (m := re.match(r"(?:rmat|graph500):(\d+)", r["input"]))}
    elif kind == "sizes":
        points = {e.get("bytes") for r in runs for e in (r["result"] or {}).get("sizes", [])}
    elif kind == "density":
        points = {r["input"] for r in runs if re.fullmatch(r"random:[0-9.]+", r["input"])}
    elif kind == "speedup":
        return len({(r["input"], r["ranks"]) for r in runs}) >= 2
    else:
        return True
    return len(points) >= MIN_POINTS


def _figure(png, caption):
    data = base64.b64encode(png).decode()
    return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _plots(p, workdir):
    """[(caption, png bytes)] of the plots that carry information for the
    pivot's runs: a performance profile over 3+ problems, else bars with
    error bars per problem (up to three); the kernel's own plots; one
    communication heatmap figure per input."""
    from . import plots  # matplotlib only here

    out, runs, kernel, h = [], p.runs, p.kernel, p.headline
    base = Path(workdir) / p.anchor
    what = f"{h.what} ({h.unit})" if h.unit else h.what
    try:
        png, _ = plots.performance_profile(runs, kernel, base.with_name(base.name + "-profile"),
                                           min_problems=PROFILE_PROBLEMS)
        out.append((f"{kernel}: performance profile: per {h.configurations}, the fraction of "
                    "problems on which it is within a factor tau of the best", png.read_bytes()))
    except PlotError:
        if len(p.problems) <= 4:
            panels = [(p.problem_label(pr), {c: cell.values for (q, c), cell in p.cells.items()
                                             if q == pr}) for pr in p.problems]
            png, _ = plots.bar_chart(panels, what, h.more_is_better,
                                     base.with_name(base.name + "-bars"),
                                     f"{kernel}: median {what}, min-max over the runs",
                                     reference=1.0 if h.unit == "x" else None)
            out.append((f"{kernel}: median {what} per {h.configurations} (the best first, "
                        "in orange), the error bar the min-max range over the runs",
                        png.read_bytes()))
    for kind in ("scaling", "scale", "sizes", "density", "speedup", "queues"):
        if _ONLY_FOR.get(kind, kernel) != kernel or not _worth_plotting(kind, runs):
            continue
        try:
            png, _ = plots.KINDS[kind](runs, kernel, base.with_name(f"{base.name}-{kind}"))
        except PlotError:
            continue  # these runs do not make this plot
        out.append((f"{kernel}: {CAPTIONS[kind]}", png.read_bytes()))
    inputs = dict.fromkeys(r["input"] for r in runs if (r["result"] or {}).get("comm_matrix"))
    for i, inp in enumerate(inputs):
        try:
            png, _ = plots.comm_matrix([r for r in runs if r["input"] == inp], kernel,
                                       base.with_name(f"{base.name}-matrix-{i}"))
        except PlotError:
            continue
        out.append((f"{kernel} {inp}: messages between every pair of ranks (the newest run "
                    "stored with its communication matrix)", png.read_bytes()))
    return out


# -------------------------------------------------------------------- page

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222;
       line-height: 1.35; }
nav { margin: 0.5em 0 1em; } nav a { margin-right: 1em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.15em; margin-top: 1.8em; }
h4 { margin: 0.8em 0 0.2em; }
table { border-collapse: collapse; margin: 0.3em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
th.num { text-align: right; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { background: #fff1c1; }
td.missing { color: #999; }
p.summary { font-weight: 600; margin: 0.5em 0 0.2em; }
p.note, figcaption { color: #555; font-size: 0.88em; margin: 0.2em 0; }
p.reason { font-size: 0.9em; margin: 0.2em 0; }
p.measured { font-size: 0.9em; margin: 0.2em 0; font-weight: 600; }
table.ranked td:nth-child(2), table.ranked th { white-space: nowrap; }
figure { margin: 1em 0; }
figure img { display: block; max-width: 100%; height: auto; }
.advice { display: flex; flex-wrap: wrap; gap: 0 1.5em; }
.advice > div { flex: 1 1 22em; min-width: min-content; }
table.claims td { font-size: 0.95em; }
.verdict .word { font-weight: bold; padding: 0 0.35em; border-radius: 3px; white-space: nowrap; }
.v-holds .word { background: #c7e9c0; color: #00441b; }
.v-part .word { background: #fdd0a2; color: #7f2704; }
.v-fails .word { background: #fcbba1; color: #67000d; }
.v-unsure .word { background: #ddd; color: #333; }
details { margin: 0.5em 0; } summary { cursor: pointer; }
.failed { color: #a00; }
"""

_CHECK = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.every(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images', String(imgs.length));
  document.body.setAttribute('data-images-ok', ok ? 'yes' : 'no');
  var narrow = imgs.filter(function (i) {
    return i.getBoundingClientRect().width < %(px)d;
  });
  document.body.setAttribute('data-figures-narrow', String(narrow.length));
  document.body.setAttribute('data-figures-ok', narrow.length ? 'no' : 'yes');
  var tables = Array.prototype.slice.call(document.getElementsByTagName('table'));
  var long = tables.filter(function (t) { return t.rows.length > %(rows)d; });
  var bare = long.filter(function (t) {
    var before = t.previousElementSibling;
    return !(before && before.classList.contains('summary'));
  });
  document.body.setAttribute('data-tables', String(tables.length));
  document.body.setAttribute('data-long-tables', String(long.length));
  document.body.setAttribute('data-tables-ok', bare.length ? 'no' : 'yes');
});
""" % {"px": MIN_FIGURE_PX, "rows": LONG_TABLE}


def _kernel_sections(pivot_list, stats, tmp):
    body = []
    for p in pivot_list:
        kind = "simulated" if p.simulated else "measured"
        unit = f" ({p.headline.unit})" if p.headline.unit else ""
        body += [f'<h3 id="{p.anchor}">{html.escape(p.kernel)}: '
                 f"{html.escape(p.headline.what + unit)} — {kind}</h3>",
                 f'<p class="note">{html.escape(_note(p)[:1].upper() + _note(p)[1:])}</p>',
                 _summary(summary(p)), pivot_html(p)]
        body += [_figure(png, caption) for caption, png in _plots(p, tmp)]
    if stats:
        body += ['<h3 id="graph-stats">graph-stats: graphs and process graphs</h3>',
                 _summary("the process graph per input: " + "; ".join(
                     f"{r[0]} at {r[1]} ranks{' ' + r[2] if r[2] else ''}: d_avg {r[10]}, "
                     f"d_max {r[9]}" for r in stats[:6])
                     + (f" and {len(stats) - 6} more" if len(stats) > 6 else "") + "."),
                 _table(STATS_HEAD, stats, numeric=tuple(range(3, len(STATS_HEAD))))]
    return body


def write_report(runs, out_path, store_path):
    out_path = Path(out_path)
    suites = list(dict.fromkeys(r["suite"] for r in runs))
    pivot_list = pivots(runs)
    stats = stats_rows(runs)
    nav = ['<a href="#answers">Answers</a>'] + [
        f'<a href="#{p.anchor}">{html.escape(p.kernel)}{" (simulated)" if p.simulated else ""}'
        "</a>" for p in pivot_list] + \
        (['<a href="#graph-stats">graph stats</a>'] if stats else []) + \
        ['<a href="#environment">Environment</a>', '<a href="#runs">Every run</a>']
    body = ["<h1>graphcomm-lab report</h1>",
            f"<p>Store <code>{html.escape(str(store_path))}</code>, {len(runs)} runs in "
            f"{len(suites)} suite(s); written "
            f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}.</p>",
            "<nav>" + "".join(nav) + "</nav>",
            '<h2 id="answers">Answers</h2>']
    body += _advice(runs)
    body += _claims(runs)
    if pivot_list:
        body.append("<h3>Measured here, per kernel</h3><ul>" + "".join(
            f'<li><a href="#{p.anchor}">{html.escape(p.kernel)}'
            f'{" (simulated)" if p.simulated else ""}</a>: {html.escape(summary(p))}</li>'
            for p in pivot_list) + "</ul>")
    body.append("<h2>Per kernel</h2>")
    with tempfile.TemporaryDirectory() as tmp:
        body += _kernel_sections(pivot_list, stats, tmp)
    body += ['<h2 id="environment">Environment</h2>', _environment(runs),
             '<h2 id="runs">Every run</h2>']
    for suite in suites:
        mine = [r for r in runs if r["suite"] == suite]
        ok = sum(r["status"] == "ok" for r in mine)
        platforms = sorted({r["result"]["simulation"]["platform"] for r in mine
                            if r["status"] == "ok" and is_simulated(r)})
        where = ("<p><b>Simulated</b> (SimGrid SMPI, scripts/simulate): times are simulated "
                 "time on " + html.escape("; ".join(platforms)) + ", not measured.</p>"
                 if platforms else "")
        body += [f"<h3>Suite {html.escape(suite)}{' (simulated)' if platforms else ''}</h3>",
                 where, f"<p>{ok} runs ok, {len(mine) - ok} failed.</p>"]
        failed = [r for r in mine if r["status"] == "failed"]
        if failed:
            body.append('<h4 class="failed">Failed runs</h4>')
            body.append(_summary(f"{len(failed)} failed run(s) of suite {suite}, with the "
                                 "error line graphcomm printed."))
            body.append(_table(("kernel", "input", "model", "ranks", "repeat", "error"),
                               [(r["kernel"], r["input"], r["model"] or "-", r["ranks"],
                                 r["repeat"] + 1, r["error"]) for r in failed]))
        count, table = _figures_table(mine)
        if count:
            body.append(f"<details><summary>Every configuration's headline figure per part, "
                        f"as graphcomm reports it ({count} rows)</summary>"
                        + _summary(f"Suite {suite}: per configuration and part, the kernel's "
                                   "headline figure in graphcomm's units (seconds, TEPS), the "
                                   "median and min-max over the runs.")
                        + table + "</details>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>graphcomm-lab report</title>"
            f"<style>{_STYLE}</style><script>{_CHECK}</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(page)
    tmp.replace(out_path)  # no partial page
    return out_path

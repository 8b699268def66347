"""report: one self-contained static HTML page of a store (images embedded as
data URIs): the environment, per suite its configurations and headline
figures, every plot that the stored runs allow, and the failed runs.

The page checks itself when opened: a script marks <body data-images-ok> once
every image has loaded with a size, which the browser test reads."""
import base64
import datetime
import html
import tempfile
from collections import defaultdict
from pathlib import Path

from .figures import STATS_HEAD, PlotError, options_text, run_values, stats_rows
from .stats import median_text, range_text

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 75em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
th { background: #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { display: inline-block; margin: 1em; }
figure img { max-width: 36em; }
.failed { color: #a00; }
"""

_CHECK = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.every(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images', String(imgs.length));
  document.body.setAttribute('data-images-ok', ok ? 'yes' : 'no');
});
"""


def _table(head, rows, numeric=()):
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{html.escape(str(c))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _environment(runs):
    rows = set()
    for r in [r for r in runs if r["status"] == "ok"] or runs:
        m = r["machine"]
        rows.add((r["git_commit"] or "-", r["mpi_library"] or "-", m.get("host", "-"),
                  str(m.get("cores", "-")), f"{(m.get('memory_bytes') or 0) / 2**30:.1f} GiB",
                  m.get("os", "-")))
    return _table(("commit", "MPI", "host", "cores", "memory", "os"), sorted(rows))


def _figures_table(runs):
    """Per configuration and part: the kernel's headline figure, median and spread."""
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
    return _table(head, rows, numeric=(3, 7, 8, 9))


_ONLY_FOR = {"sizes": "nbr", "density": "nbr", "speedup": "spmm", "queues": "mq"}  # plots of one kernel's figures


def _plots(runs, workdir):
    """[(caption, png bytes)] of every plot the runs allow."""
    from .plots import KINDS  # matplotlib only here

    out = []
    kernels = sorted({r["kernel"] for r in runs if r["status"] == "ok"})
    for kernel in kernels:
        for kind in ("profile", "scaling", "scale", "sizes", "density", "speedup", "matrix",
                     "queues"):
            if _ONLY_FOR.get(kind, kernel) != kernel:
                continue
            base = Path(workdir) / f"{kernel}-{kind}"
            try:
                png, _ = KINDS[kind](runs, kernel, base)
            except PlotError:
                continue  # these runs do not make this plot
            out.append((f"{kernel}: {kind}", png.read_bytes()))
    return out


def write_report(runs, out_path, store_path):
    out_path = Path(out_path)
    suites = sorted({r["suite"] for r in runs})
    body = ["<h1>graphcomm-lab report</h1>",
            f"<p>Store <code>{html.escape(str(store_path))}</code>, {len(runs)} runs in "
            f"{len(suites)} suite(s); written "
            f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}.</p>",
            "<h2>Environment</h2>", _environment(runs)]
    for suite in suites:
        mine = [r for r in runs if r["suite"] == suite]
        ok = sum(r["status"] == "ok" for r in mine)
        platforms = sorted({r["result"]["simulation"]["platform"] for r in mine
                            if r["status"] == "ok" and (r["result"] or {}).get("simulation")})
        where = ("<p><b>Simulated</b> (SimGrid SMPI, scripts/simulate): times are simulated "
                 "time on " + html.escape("; ".join(platforms)) + ", not measured.</p>"
                 if platforms else "")
        body += [f"<h2>Suite {html.escape(suite)}{' (simulated)' if platforms else ''}</h2>",
                 where, f"<p>{ok} runs ok, {len(mine) - ok} failed.</p>", _figures_table(mine)]
        stats = stats_rows(mine)
        if stats:
            body += ["<h3>Graphs and process graphs</h3>",
                     _table(STATS_HEAD, stats, numeric=tuple(range(3, len(STATS_HEAD))))]
        with tempfile.TemporaryDirectory() as tmp:
            for caption, png in _plots(mine, tmp):
                data = base64.b64encode(png).decode()
                body.append(f'<figure><img alt="{html.escape(caption)}" '
                            f'src="data:image/png;base64,{data}"><figcaption>'
                            f"{html.escape(caption)}</figcaption></figure>")
        failed = [r for r in mine if r["status"] == "failed"]
        if failed:
            body.append('<h3 class="failed">Failed runs</h3>')
            body.append(_table(("kernel", "input", "model", "ranks", "repeat", "error"),
                               [(r["kernel"], r["input"], r["model"] or "-", r["ranks"],
                                 r["repeat"] + 1, r["error"]) for r in failed]))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>graphcomm-lab report</title>"
            f"<style>{_STYLE}</style><script>{_CHECK}</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(page)
    tmp.replace(out_path)  # no partial page
    return out_path

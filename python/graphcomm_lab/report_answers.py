"""The answers the report leads with: graphcomm advise's choice per kernel
(every stored ok `advise` run) and the verdict line of every claim whose
reproduce suite is stored (reproduce-CLAIM, -tiny, -simulated-PLATFORM)."""
import html
import re
from collections import Counter, defaultdict

from .figures import options_text
from .measured import ADVISED_KERNELS, measured_times
from .report_pivot import number

from .report_html import _summary, _table

TOP_RANKED = 5  # configurations of each advice shown


def _measured_line(entry, measured):
    """The choice's measured time against the fastest measured, where the
    store holds the kernel's runs beside the advice (the tour does)."""
    choice = entry.get("choice")
    best = min(measured, key=measured.get)
    fastest = f"the fastest measured {best}, {number(measured[best] * 1e3)} ms"
    if choice not in measured:
        return f"measured beside it: {fastest}; the choice not measured"
    if choice == best:
        return f"measured beside it: the choice is {fastest}"
    return (f"measured beside it: the choice {number(measured[choice] * 1e3)} ms, "
            f"{measured[choice] / measured[best]:.2f}x {fastest}")


def _advice_block(entry, measured=None):
    """One kernel's advice: its choice, the reason, the first ranked; with
    `measured` ({configuration: seconds} of runs beside it), their times too."""
    rows = []
    for i, r in enumerate(entry.get("ranked", [])[:TOP_RANKED], 1):
        seconds = r.get("predicted_seconds")
        error = (r.get("fit") or {}).get("median_error")
        row = (i, r.get("configuration", "-"),
               number(seconds * 1e3) if isinstance(seconds, (int, float)) else "-",
               f"{100 * error:.0f}%" if isinstance(error, (int, float)) else "-")
        if measured:
            taken = measured.get(r.get("configuration"))
            row += (number(taken * 1e3) if taken is not None else "-",)
        rows.append(row)
    head = ("#", "configuration", "predicted ms", "fit error")
    extrapolation = entry.get("extrapolation")
    ties = entry.get("ties") or []
    return ("<div>"
            f"<h4>{html.escape(str(entry.get('kernel', '?')))}: "
            f"<b>{html.escape(str(entry.get('choice', '-')))}</b></h4>"
            f'<p class="reason">{html.escape(str(entry.get("reason", "")))}</p>'
            + (f'<p class="note">extrapolated: {html.escape(extrapolation)}</p>'
               if extrapolation else "")
            + (f'<p class="note">tied within the choice\'s fit error: '
               f'{html.escape(", ".join(map(str, ties)))}</p>' if ties else "")
            + (f'<p class="measured">{html.escape(_measured_line(entry, measured))}</p>'
               if measured else "")
            + _table(head + (("measured ms",) if measured else ()), rows,
                     numeric=(0, 2, 3, 4), cls="ranked")
            + "</div>")


def _measured_beside(runs, suite, inp, ranks):
    """{kernel: {configuration: median seconds}} of the suite's ok kernel runs
    on this input at this rank count."""
    docs = defaultdict(list)
    for r in runs:
        if (r["kernel"] in ADVISED_KERNELS and r["status"] == "ok" and r["suite"] == suite
                and r["input"] == inp and r["ranks"] == ranks and r["result"]):
            docs[r["kernel"]].append(r["result"])
    return {k: measured_times(d, k) for k, d in docs.items()}


def _entries(result):
    """An advise document's advice entries: one per kernel, or for
    `advise --kernel nbr` one per block size (its ranking is the same form)."""
    if isinstance(result.get("advice"), list):
        return result["advice"]
    if result.get("kernel") == "nbr" and isinstance(result.get("sizes"), list):
        return [dict(e, kernel=f"nbr {e.get('bytes')} B") for e in result["sizes"]]
    return None


def _agreement(runs):
    """Per kernel advised for, its choice over the runs: how many chose it."""
    choices = defaultdict(list)
    for r in runs:
        for e in _entries(r["result"]):
            choices[str(e.get("kernel"))].append(str(e.get("choice")))
    out = []
    for kernel, picks in choices.items():
        (top, n), *others = Counter(picks).most_common()
        if len(picks) == 1:
            out.append(f"{kernel} {top}" + (f" (1 of {len(runs)} runs advised {kernel})"
                                            if len(runs) > 1 else ""))
        elif not others:
            out.append(f"{kernel} {top} (all {n} runs)")
        elif n == 1:
            out.append(f"{kernel}: a different choice in each of {len(picks)} runs, "
                       + ", ".join(dict.fromkeys(picks)))
        else:
            out.append(f"{kernel} {top} ({n} of {len(picks)} runs; "
                       + ", ".join(f"{c} {k}" for c, k in others) + ")")
    return out


def _advice(runs):
    advise = [r for r in runs if r["kernel"] == "advise" and r["status"] == "ok"
              and _entries(r["result"] or {}) is not None]
    if not advise:
        return ["<h3>Advice</h3>",
                "<p>No advice stored: <code>graphcomm advise --calibrate --graph INPUT "
                "--kernel all</code> ranks each kernel's configurations for a graph "
                "(docs/advise.md); a suite experiment with <code>kernel = \"advise\"</code> "
                "stores it (the tour ends with one).</p>"]
    groups = defaultdict(list)
    for r in advise:
        groups[(r["suite"], r["input"], r["ranks"], options_text(r["options"]))].append(r)
    out = ["<h3>Advice</h3>",
           '<p class="note">graphcomm advise: per kernel the configuration a cost model fitted '
           "on calibration runs predicts fastest, why, and the first ranked with their "
           "predicted time and the fit's median leave-one-out error.</p>"]
    for (suite, inp, ranks, options), mine in groups.items():
        mine.sort(key=lambda r: (r["repeat"], r.get("started") or ""))
        newest = mine[-1]
        calibration = sorted({str(e.get("calibration")) for r in mine
                              for e in _entries(r["result"]) if e.get("calibration")})
        out.append(f"<h4>{html.escape(inp)} at {ranks} rank{'s' if ranks != 1 else ''}</h4>")
        out.append(_summary("choice: " + "; ".join(_agreement(mine)) + "."))
        out.append(f'<p class="note">suite {html.escape(suite)}'
                   + (f", options {html.escape(options)}" if options else "")
                   + (f", calibration {html.escape(', '.join(calibration))}" if calibration else "")
                   + (f"; the newest of {len(mine)} runs below, the others collapsed"
                      if len(mine) > 1 else "") + ".</p>")
        beside = _measured_beside(runs, suite, inp, ranks)
        out.append('<div class="advice">' + "".join(
            _advice_block(e, beside.get(e.get("kernel")))
            for e in _entries(newest["result"])) + "</div>")
        for r in mine[:-1]:
            picks = ", ".join(f"{e.get('kernel')} {e.get('choice')}" for e in _entries(r["result"]))
            out.append(f"<details><summary>run {r['repeat'] + 1}: {html.escape(picks)}</summary>"
                       '<div class="advice">' + "".join(_advice_block(e)
                                                        for e in _entries(r["result"]))
                       + "</div></details>")
    return out


VERDICTS = (("holds in part", "part", "◐"), ("holds", "holds", "✔"),
            ("does not hold", "fails", "✘"), ("inconclusive", "unsure", "?"))


def claim_of(suite):
    """(Claim, tiny, simulated) of a reproduce suite's name, None for another."""
    from .reproduce import CLAIMS

    if not suite.startswith("reproduce-"):
        return None
    rest = suite[len("reproduce-"):]
    for name in sorted(CLAIMS, key=len, reverse=True):
        if rest == name or rest.startswith(name + "-"):
            variant = rest[len(name):]
            tiny = variant.endswith("-tiny")
            variant = variant[:-len("-tiny")] if tiny else variant
            if variant and not re.fullmatch(r"-simulated-.+", variant):
                continue
            return CLAIMS[name], tiny, bool(variant)
    return None


def _verdict_html(verdict):
    for word, cls, mark in VERDICTS:
        if verdict.startswith(word):
            return (f'<td class="verdict v-{cls}"><span class="word">{mark} {word}</span>'
                    f"{html.escape(verdict[len(word):])}</td>")
    return f'<td class="verdict">{html.escape(verdict)}</td>'


def claim_rows(runs):
    """[(suite, claim text, measured, verdict)] of every stored reproduce
    suite, in the order of the claims, measured before tiny before simulated."""
    from .reproduce import CLAIMS, verdict_line

    order = {name: i for i, name in enumerate(CLAIMS)}
    found = []
    for suite in dict.fromkeys(r["suite"] for r in runs):
        known = claim_of(suite)
        if known is None:
            continue
        claim, tiny, simulated = known
        mine = [r for r in runs if r["suite"] == suite]
        try:
            line = verdict_line(claim, mine, simulated=simulated)
            text, rest = line.split(" | ", 1)
            measured, verdict = rest.rsplit(" | ", 1)
        except Exception as e:  # a judge on runs it cannot read: say so, report the rest
            text, measured = claim.text, "-"
            verdict = f"inconclusive (the stored runs could not be judged: {e!r})"
        found.append(((order[claim.name], simulated, tiny), (suite, text, measured, verdict)))
    return [row for _, row in sorted(found, key=lambda f: f[0])]


def _claims(runs):
    rows = claim_rows(runs)
    if not rows:
        return ["<h3>Claims of the studies</h3>",
                "<p>No claim judged: <code>graphcomm-lab reproduce all --store STORE</code> runs "
                "one small suite per headline claim of the studies into the store "
                "(<code>--tiny</code>: in seconds) and the report then shows their verdicts.</p>"]
    tally = Counter()
    for *_, verdict in rows:
        tally[next((w for w, _, _ in VERDICTS if verdict.startswith(w)), "other")] += 1
    counts = ", ".join(f"{n} {w}" for w, _, _ in VERDICTS if (n := tally[w])) or "none"
    tiny = any(s.endswith("-tiny") for s, *_ in rows)
    out = ["<h3>Claims of the studies</h3>",
           _summary(f"{len(rows)} verdict(s) from the stored reproduce suites: {counts}."
                    + (" Tiny suites run in seconds: their verdicts mean little." if tiny
                       else "")),
           '<table class="claims"><tr><th>claim</th><th>measured</th><th>verdict</th></tr>']
    for suite, text, measured, verdict in rows:
        out.append(f"<tr><td>{html.escape(text)}<br><small>suite {html.escape(suite)}</small>"
                   f"</td><td>{html.escape(measured)}</td>{_verdict_html(verdict)}</tr>")
    out.append("</table>")
    return out

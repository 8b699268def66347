"""The report's answers and per-kernel tables, on runs built here (as the
store returns them): units, the best of each input marked, the spread only
from two runs on, transposition past 8 configurations, measured and
simulated apart, the advice and the claims' verdicts, and which plots are
drawn. Each test checks something the report could get wrong."""
import re

from graphcomm_lab.report import pivots, write_report
from graphcomm_lab.reproduce import CLAIMS, verdict_line


def run(kernel, inp, result, suite="s", model=None, ranks=2, options=None, repeat=0,
        status="ok", error=None):
    return {"suite": suite, "kernel": kernel, "input": inp, "model": model, "ranks": ranks,
            "options": options or {}, "status": status, "error": error, "repeat": repeat,
            "git_commit": "abc", "mpi_library": "x", "machine": {}, "wall_seconds": 1.0,
            "started": f"2026-01-01T00:00:{repeat:02d}", "result": result}


def match(inp, seconds, suite="s", repeat=0, ranks=2, simulated=False, **extra):
    """A `match --model all` run: {model: seconds} as algorithm ld."""
    result = {"runs": [{"algorithm": "ld", "model": m, "seconds": s} for m, s in seconds.items()]}
    if simulated:
        result["simulation"] = {"platform": "edr (16 nodes x 16 ranks)"}
    result.update(extra)
    return run("match", inp, result, suite=suite, model="all", ranks=ranks, repeat=repeat)


def bfs(inp, teps, repeat=0, suite="s"):
    return run("bfs", inp, {"runs": [{"configuration": c, "harmonic_mean_TEPS": t}
                                     for c, t in teps.items()]},
               suite=suite, model="all", repeat=repeat)


def nbr(inp, collective, speedups, repeat=0, suite="s", ranks=4, simulated=False, groups=0):
    result = {"sizes": [{"bytes": b, "speedup": s} for b, s in speedups.items()],
              "plan": {"groups": groups}}
    if simulated:
        result["simulation"] = {"platform": "edr"}
    return run("nbr", inp, result, suite=suite, model=collective, ranks=ranks, repeat=repeat)


def page_of(runs, tmp_path):
    return write_report(runs, tmp_path / "r.html", tmp_path / "s.sqlite").read_text()


def section(page, anchor):
    """The HTML of one kernel's section: from its heading to the next h2/h3."""
    start = page.index(f'<h3 id="{anchor}">')
    ends = [i for i in (page.find("<h3", start + 1), page.find("<h2", start + 1)) if i > 0]
    return page[start:min(ends)]


def test_units_of_each_kernel(tmp_path):
    runs = [bfs("rmat:16", {"top-down/nsr": 2.298e7, "top-down/ncl": 1.0e7}),
            match("rmat:4", {"nsr": 0.0123, "ncl": 0.5}),
            run("spmm", "rmat:12", {"runs": [{"method": "allgather", "multiply_seconds": 0.2597},
                                             {"method": "neighbor", "multiply_seconds": 0.236}]},
                model="all"),
            run("mq", "synth:depth", {"engines": [{"engine": "bins", "ns_per_operation": 17.7},
                                                  {"engine": "hash", "ns_per_operation": 19.4}]},
                model="all", ranks=1),
            nbr("random:0.5", "allgather", {64: 0.176, 4096: 1.5})]
    page = page_of(runs, tmp_path)
    teps = section(page, "bfs-measured")
    assert "harmonic mean TEPS over the roots (MTEPS)" in teps
    assert "★ 22.98</b>" in teps and ">10.00<" in teps  # 2.298e7 TEPS
    assert "2.298e+07" not in teps and "22980000" not in teps
    assert "★ 12.30</b>" in section(page, "match-measured")  # 0.0123 s in ms
    assert "★ 236.0</b>" in section(page, "spmm-measured") and ">259.7<" in page
    assert "★ 17.70</b>" in section(page, "mq-measured")
    speedup = section(page, "nbr-measured")
    # nbr: a column is the collective and the block size, the speedup as x.
    assert ">allgather 64 B<" in speedup and ">allgather 4096 B<" in speedup
    assert ">0.1760<" in speedup and "★ 1.500</b>" in speedup
    assert "1.500x" in speedup  # the summary writes the unit
    # The summary says where every run of the plan is slower than the library.
    assert "below 1x in every run (the plan slower): random:0.5 (4 ranks) allgather 64 B" \
        in speedup


def test_best_marked_per_row(tmp_path):
    # Time: the least per input; TEPS and speedup: the most.
    runs = [match("rmat:4", {"nsr": 0.010, "ncl": 0.020, "rma": 0.030}),
            match("rgg:50", {"nsr": 0.030, "ncl": 0.005, "rma": 0.040}),
            bfs("rmat:8", {"top-down/nsr": 1e6, "top-down/ncl": 9e6, "replicated": 5e6}),
            nbr("moore:2:1", "allgather", {64: 0.9, 4096: 1.2})]
    by_kernel = {p.kernel: p for p in pivots(runs)}
    m = by_kernel["match"]
    best = {p[1]: [c for c in m.configurations if m.cells[(p, c)].best] for p in m.problems}
    assert best == {"rmat:4": ["ld/nsr"], "rgg:50": ["ld/ncl"]}
    b = by_kernel["bfs"]
    assert [c for c in b.configurations if b.cells[(b.problems[0], c)].best] == ["top-down/ncl"]
    n = by_kernel["nbr"]
    assert [c for c in n.configurations if n.cells[(n.problems[0], c)].best] == \
        ["allgather 4096 B"]
    page = page_of(runs, tmp_path)
    rows = re.findall(r"<tr><td>(rmat:4|rgg:50)</td><td>2</td>(.*?)</tr>",
                      section(page, "match-measured"))
    marked = {inp: re.findall(r'<td class="num best"><b>★ ([0-9.]+)</b></td>', cells)
              for inp, cells in rows}
    assert marked == {"rmat:4": ["10.00"], "rgg:50": ["5.000"]}
    assert "fastest per input: rmat:4 (2 ranks) ld/nsr 10.00 ms, 2.00x ahead of ld/ncl" in page
    assert "highest TEPS per input: rmat:8 (2 ranks) top-down/ncl 9.000 MTEPS" in page


def test_spread_only_from_two_runs(tmp_path):
    one = page_of([match("rmat:4", {"nsr": 0.012, "ncl": 0.02})], tmp_path)
    assert "±" not in section(one, "match-measured").split("</p>", 2)[2]  # the table: none
    assert "one run each (no spread)" in one
    two = page_of([match("rmat:4", {"nsr": 0.010, "ncl": 0.02}, repeat=0),
                   match("rmat:4", {"nsr": 0.012, "ncl": 0.02}, repeat=1)], tmp_path)
    table = section(two, "match-measured")
    # median 11 ms, half the range (2 ms) over the median: 9%; equal runs: ±0.0%
    assert "★ 11.00 ±9%</b>" in table and ">20.00 ±0.0%<" in table
    assert "the median of 2 runs ± half their min-max range over the median" in table
    # Different run counts: the odd one says its count.
    three = page_of([match("rmat:4", {"nsr": 0.010, "ncl": 0.02}, repeat=k) for k in range(3)]
                    + [match("rgg:50", {"nsr": 0.010}, repeat=0)], tmp_path)
    table = section(three, "match-measured")
    assert "★ 10.00 ±0.0%</b>" in table and "★ 10.00 (1)</b>" in table
    assert "(3)" not in table and "3 runs each, other counts in parentheses" in table


def test_transposed_past_8_configurations(tmp_path):
    models = [f"m{i}" for i in range(9)]
    wide = pivots([match("rmat:4", {m: 0.01 * (i + 1) for i, m in enumerate(models)}),
                   match("rgg:50", {m: 0.01 for m in models})])[0]
    assert wide.transposed
    narrow = pivots([match("rmat:4", {m: 0.01 for m in models[:8]})])[0]
    assert not narrow.transposed
    page = page_of([match("rmat:4", {m: 0.01 * (i + 1) for i, m in enumerate(models)}),
                    match("rgg:50", {m: 0.01 for m in models})], tmp_path)
    table = section(page, "match-measured")
    # Rows are the configurations, columns the inputs.
    assert '<tr><th>algorithm/model</th><th class="num">rmat:4 (2 ranks)</th>' \
        '<th class="num">rgg:50 (2 ranks)</th></tr>' in table
    assert table.count("<tr><td>ld/m") == 9
    # The best of each input: ld/m0 on rmat:4 (0.01 s), all nine tie on rgg:50.
    assert "<tr><td>ld/m0</td><td class=\"num best\"><b>★ 10.00</b></td>" in table
    assert table.count("<b>★") == 1 + 9
    narrow_page = page_of([match("rmat:4", {m: 0.01 for m in models[:8]})], tmp_path)
    assert '<tr><th>input</th><th>ranks</th><th class="num">ld/m0</th>' in narrow_page


def test_measured_and_simulated_apart(tmp_path):
    runs = [match("rmat:16", {"nsr": 0.5, "ncl": 0.4}, suite="tour", ranks=4),
            match("rmat:16", {"nsr": 2.0, "ncl": 3.0}, suite="at-scale", ranks=256,
                  simulated=True)]
    kinds = [(p.kernel, p.simulated, p.suites) for p in pivots(runs)]
    assert kinds == [("match", False, ["tour"]), ("match", True, ["at-scale"])]
    page = page_of(runs, tmp_path)
    measured, simulated = section(page, "match-measured"), section(page, "match-simulated")
    assert "match: matching time (ms) — measured" in measured
    assert "match: matching time (ms) — simulated" in simulated
    assert "Simulated time (SimGrid SMPI, scripts/simulate) on edr (16 nodes x 16 ranks)" \
        in simulated and "Simulated time" not in measured
    assert "★ 400.0</b>" in measured and "2000" not in measured
    assert "★ 2000</b>" in simulated and "400.0" not in simulated
    # Several suites in one table: the suite names the input.
    two = page_of([match("rmat:16", {"nsr": 0.5}, suite="tour", ranks=4),
                   match("rmat:16", {"nsr": 0.6}, suite="other", ranks=4)], tmp_path)
    assert "<th>suite</th><th>input</th>" in section(two, "match-measured")
    assert "suites tour, other" in two


def advise_run(repeat, choices, ranked=7, ties=()):
    advice = []
    for kernel, choice in choices.items():
        entries = [{"configuration": choice if i == 0 else f"{kernel}-config-{i}",
                    "predicted_seconds": 0.02539 * (i + 1), "fit": {"median_error": 0.43}}
                   for i in range(ranked)]
        advice.append({"kernel": kernel, "choice": choice, "calibration": "vm",
                       "reason": f"{choice} (predicted {entries[0]['predicted_seconds']:.4f} s; "
                                 "why not)", "ranked": entries, "extrapolation": "",
                       "ties": [f"{kernel}-config-{i}" for i in ties]})
    return run("advise", "rmat:16", {"advice": advice}, suite="tour", ranks=4, repeat=repeat,
               options={"calibrate": True, "kernel": "all"})


def test_answers_advice(tmp_path):
    runs = [advise_run(0, {"match": "suitor/rma", "bfs": "replicated"}),
            advise_run(1, {"match": "suitor/hybrid", "bfs": "replicated"}, ties=(1, 2))]
    page = page_of(runs, tmp_path)
    answers = page[page.index('<h2 id="answers">'):page.index("<h2>Per kernel</h2>")]
    assert answers.index("<h3>Advice</h3>") < answers.index("<h3>Claims of the studies</h3>")
    assert "<h4>rmat:16 at 4 ranks</h4>" in answers
    # Both runs agree on bfs, not on match; the newest run is shown open.
    assert "choice: match suitor/hybrid (1 of 2 runs" not in answers
    assert "match: a different choice in each of 2 runs, suitor/rma, suitor/hybrid" in answers
    assert "bfs replicated (all 2 runs)" in answers
    newest = answers[answers.index('<div class="advice">'):answers.index("<details>")]
    assert "<h4>match: <b>suitor/hybrid</b></h4>" in newest
    assert "suitor/hybrid (predicted 0.0254 s; why not)" in newest
    # The configurations the model cannot tell from the choice, named.
    assert "tied within the choice's fit error: match-config-1, match-config-2" in newest
    assert "tied within" not in answers[answers.index("<details>"):]  # the older run had none
    # The first five ranked: predicted time in ms, the fit's error in percent.
    assert newest.count("<tr><td class=\"num\">") == 2 * 5
    assert ">match-config-4<" in newest and "match-config-5" not in newest
    assert '<td class="num">25.39</td><td class="num">43%</td>' in newest
    assert '<td class="num">127.0</td>' in newest  # the fifth: 5 x 25.39 ms
    # The older run: collapsed, its choices in its summary line.
    assert "<details><summary>run 1: match suitor/rma, bfs replicated</summary>" in answers
    # No advise run: the part says how to get one.
    none = page_of([match("rmat:4", {"nsr": 0.01})], tmp_path)
    assert "<h4>rmat:16" not in none
    assert "No advice stored: <code>graphcomm advise --calibrate --graph INPUT" in none


def test_answers_advice_against_the_runs_beside_it(tmp_path):
    """Where the suite also ran the kernel on the advised input and ranks (the
    tour does), each ranked configuration shows its measured time, and a
    line says how the choice compares with the fastest measured."""
    advice = advise_run(0, {"match": "ld/nsr", "bfs": "replicated"}, ranked=3)
    beside = [match("rmat:16", {"nsr": s, "rma": 0.0123}, suite="tour", ranks=4, repeat=k)
              for k, s in enumerate((0.0400, 0.0500, 0.0600))]
    elsewhere = [match("rmat:16", {"nsr": 0.001}, suite="other", ranks=4),
                 match("rmat:16", {"nsr": 0.001}, suite="tour", ranks=2)]
    page = page_of([advice] + beside + elsewhere, tmp_path)
    answers = page[page.index('<h2 id="answers">'):page.index("<h2>Per kernel</h2>")]
    block = answers[answers.index("<h4>match:"):answers.index("<h4>bfs:")]
    # The median of the three runs of this suite, input and ranks: 50 ms.
    assert ("measured beside it: the choice 50.00 ms, 4.07x the fastest measured ld/rma, "
            "12.30 ms") in block
    assert "<th>measured ms</th>" in block
    assert '<td class="num">25.39</td><td class="num">43%</td><td class="num">50.00</td>' in block
    assert '<td class="num">-</td></tr>' in block  # match-config-1: not measured
    # No bfs run beside it: no measured column, no line.
    bfs_block = answers[answers.index("<h4>bfs:"):]
    assert "measured" not in bfs_block[:bfs_block.index("</table>")]
    # The choice the fastest: said so.
    best = page_of([advise_run(0, {"match": "ld/rma"}, ranked=2)] + beside, tmp_path)
    assert "measured beside it: the choice is the fastest measured ld/rma, 12.30 ms" in best


def test_answers_advice_for_the_collectives(tmp_path):
    """`advise --kernel nbr` documents (per block size, not per kernel) are
    answers too: a choice and its ranking per size."""
    sizes = [{"bytes": b, "choice": choice, "reason": f"because {b}",
              "ranked": [{"configuration": choice, "predicted_seconds": 11.5e-6},
                         {"configuration": "direct", "predicted_seconds": 22.6e-6}]}
             for b, choice in ((4, "k=auto"), (4096, "direct"))]
    page = page_of([run("advise", "topology:moore:2:3", {"kernel": "nbr", "sizes": sizes},
                        suite="bench-advise_nbr", ranks=64)], tmp_path)
    answers = page[page.index('<h2 id="answers">'):page.index("<h2>Per kernel</h2>")]
    assert "No advice stored" not in answers
    assert "<h4>nbr 4 B: <b>k=auto</b></h4>" in answers
    assert "<h4>nbr 4096 B: <b>direct</b></h4>" in answers
    assert "because 4096" in answers


def combining_runs(suite, dense_4b=1.6):
    """nbr runs as the combining claim's suite stores them."""
    return [nbr(inp, "allgather", {4: s4, 16384: 1.0}, repeat=k, suite=suite)
            for k in range(2) for inp, s4 in (("random:0.2", 1.1), ("random:0.8", dense_4b))]


def test_answers_claims(tmp_path):
    holds = combining_runs("reproduce-combining")
    fails = combining_runs("reproduce-combining-tiny", dense_4b=0.9)
    # A dense neighbourhood that gains, and one that forms no group and costs nothing.
    simulated = [nbr(inp, "allgather", {4: s4, 4096: 1.0},
                     suite="reproduce-combining-simulated-edr", ranks=256, simulated=True,
                     groups=groups)
                 for inp, s4, groups in (("moore:2:4", 2.5, 100), ("moore:2:1", 1.0, 0))]
    page = page_of(holds + fails + simulated + [match("rmat:4", {"nsr": 0.01})], tmp_path)
    claims = page[page.index("<h3>Claims of the studies</h3>"):page.index("</table>",
                                                                          page.index("claims"))]
    claim = CLAIMS["combining"]
    for runs, sim, word, mark in ((holds, False, "holds", "✔"),
                                  (fails, False, "does not hold", "✘"),
                                  (simulated, True, "holds", "✔")):
        text, measured, verdict = verdict_line(claim, runs, simulated=sim).split(" | ")
        assert verdict.startswith(word)
        row = re.search(r"<tr><td>[^<]*<br><small>suite " + runs[0]["suite"]
                        + r"</small></td><td>(.*?)</td>(.*?)</tr>", claims)
        assert row, runs[0]["suite"]
        assert row.group(1) == measured.replace("'", "&#x27;")
        assert f'<span class="word">{mark} {word}</span>' in row.group(2)
    assert "simulated on edr" in claims and "measured here" in claims
    assert "3 verdict(s) from the stored reproduce suites: 2 holds, 1 does not hold." in claims
    # Measured first, then tiny, then simulated.
    assert claims.index("reproduce-combining<") < claims.index("reproduce-combining-tiny") < \
        claims.index("reproduce-combining-simulated-edr")
    # No reproduce suite: the part says how to get one.
    none = page_of([match("rmat:4", {"nsr": 0.01})], tmp_path)
    assert "No claim judged: <code>graphcomm-lab reproduce all --store STORE</code>" in none
    assert 'class="claims"' not in none


def test_profile_from_three_problems_else_bars(tmp_path):
    two = [match(i, {"nsr": 0.01, "ncl": 0.02}) for i in ("rmat:4", "rgg:50")]
    page = page_of(two, tmp_path)
    assert 'alt="match: median matching time (ms) per algorithm/model' in page
    assert "performance profile" not in page
    three = two + [match("er:64", {"nsr": 0.01, "ncl": 0.02})]
    page = page_of(three, tmp_path)
    assert 'alt="match: performance profile' in page and "error bar" not in page


def test_flat_table_collapsed_failures_visible(tmp_path):
    runs = [match("rmat:4", {"nsr": 0.01}),
            run("match", "fail:1", None, model="all", status="failed",
                error="graphcomm: error: fake failure")]
    page = page_of(runs, tmp_path)
    every = page[page.index('<h2 id="runs">'):]
    failed = every.index('<h4 class="failed">Failed runs</h4>')
    details = every.index("<details><summary>Every configuration's headline figure")
    assert failed < details and "graphcomm: error: fake failure" in every[failed:details]
    # The flat table: inside the details, a summary right before it.
    assert re.search(r'<details><summary>[^<]*</summary><p class="summary">[^<]*</p><table>',
                     every)
    assert every.count("<table") == 2  # failed runs, flat table


def test_comm_matrix_groups_alike_models(tmp_path):
    from graphcomm_lab.plots import _alike, _compact

    models = {"nsr": {"messages": [[0, 1000], [1000, 0]]},
              "rma": {"messages": [[0, 1020], [990, 0]]},  # within 5% of nsr
              "ncl": {"messages": [[0, 500], [500, 0]]}}
    assert [names for names, _ in _alike(models, "messages")] == [["ncl"], ["nsr", "rma"]]
    assert [_compact(v) for v in (0, 980, 1234, 118384, 2.5e6)] == ["0", "980", "1.2k", "118k",
                                                                    "2.5M"]
    matrix = {"models": models, "ranks": 2}
    runs = [match("rmat:4", {"nsr": 0.01, "rma": 0.01, "ncl": 0.01}, comm_matrix=matrix),
            match("rgg:50", {"nsr": 0.01, "rma": 0.01, "ncl": 0.01}, comm_matrix=matrix)]
    page = page_of(runs, tmp_path)
    # One heatmap figure per input.
    assert 'alt="match rmat:4: messages between every pair of ranks' in page
    assert 'alt="match rgg:50: messages between every pair of ranks' in page

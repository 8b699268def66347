"""The HTML report, opened in a real browser (Debian's headless Chromium):
every image loads and is displayed at least 400 px wide, every table of more
than 15 rows has its summary line right before it, no console error, and a
screenshot is kept as a test artifact. The checks are shown to fail on a
broken image, a script error, a 100 px image and a long table without a
summary."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, lab_command
from test_report_tables import advise_run, bfs, combining_runs, match, nbr
from test_runner import SUITE, run_lab

ARTIFACTS = os.environ.get("GRAPHCOMM_TEST_ARTIFACTS", ROOT / "results" / "test-artifacts")


def chromium():
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("no chromium: Debian's chromium package is needed (scripts/setup-deps)")
    return path


def open_in_browser(page, tmp_path):
    """(body tag after load, console lines) of `page` in headless Chromium."""
    proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000",
                           "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    body = re.search(r"<body[^>]*>", proc.stdout)
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    return (body.group(0) if body else ""), console


@pytest.fixture
def report(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    suite = write_suite(SUITE.replace('inputs = ["rmat:4"]', 'inputs = ["rmat:4", "fail:1"]')
                        .replace("ranks = [2]", "ranks = [1, 2, 4]"))
    run_lab(suite, store_path, fake)
    page = tmp_path / "report.html"
    proc = subprocess.run(lab_command("report", "--store", store_path, "--out", page),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(page)
    return page


def test_report_in_browser(report, tmp_path):
    text = report.read_text()
    assert "Failed runs" in text and "graphcomm: error: fake failure" in text
    assert "Environment" in text and "Fake MPI 1.0" in text
    assert 'src="data:image/png;base64,' in text  # self-contained
    body, console = open_in_browser(report, tmp_path)
    assert 'data-images-ok="yes"' in body, body
    # A performance profile (3 problems) and the time against the rank count.
    assert int(re.search(r'data-images="(\d+)"', body).group(1)) >= 2
    assert 'data-figures-ok="yes"' in body and 'data-tables-ok="yes"' in body, body
    assert console == []
    os.makedirs(ARTIFACTS, exist_ok=True)
    shot = os.path.join(ARTIFACTS, "report.png")
    subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                    f"--user-data-dir={tmp_path / 'profile2'}", "--window-size=1280,2400",
                    f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=120,
                   check=True)
    with open(shot, "rb") as f:
        assert f.read(4) == b"\x89PNG"


def test_browser_checks_can_fail(report, tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text(report.read_text().replace(
        "</body>", '<img src="missing.png" alt="x"><script>undefinedFunction();</script></body>'))
    body, console = open_in_browser(broken, tmp_path)
    assert 'data-images-ok="no"' in body
    assert any("undefinedFunction" in line for line in console)
    # A figure shown 100 px wide (it loads) and a table of 16 rows without a summary.
    text = report.read_text()
    image = re.search(r'src="(data:image/png;base64,[^"]+)"', text).group(1)
    rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(16))
    cramped = tmp_path / "cramped.html"
    cramped.write_text(text.replace("</body>", f'<img style="width: 100px" alt="small" '
                                    f'src="{image}"><p>no summary</p><table>{rows}</table>'
                                    "</body>"))
    body, _ = open_in_browser(cramped, tmp_path)
    assert 'data-images-ok="yes"' in body, body
    assert 'data-figures-ok="no"' in body and 'data-figures-narrow="1"' in body, body
    assert 'data-tables-ok="no"' in body, body


def test_answers_and_long_tables_in_browser(tmp_path):
    """A report with every part: advice, a claim, a transposed table of 21
    configurations, bars, heatmaps, simulated runs. Its long tables have their
    summaries and its figures are wide enough, in a real browser."""
    from graphcomm_lab.report import write_report

    models = ["nsr", "nsr-agg", "rma", "ncl", "ncl-combined", "rma-fence", "rma-hash", "hybrid",
              "shmem-fence", "shmem-hash"]
    matrix = {"ranks": 4, "models": {m: {"messages": [[0 if i == j else 1000 * (i + j + k % 2)
                                                       for j in range(4)] for i in range(4)]}
                                     for k, m in enumerate(models)}}
    configs = [f"{a}/{m}" for a in ("top-down", "direction-optimizing") for m in models] + \
        ["replicated"]
    runs = [advise_run(k, {"match": "suitor/hybrid", "bfs": "replicated"}) for k in range(2)]
    runs += combining_runs("reproduce-combining")
    for k in range(3):
        runs += [match(inp, {m: 0.01 * (i + 1) * (1 + 0.1 * k) for i, m in enumerate(models)},
                       suite="tour", repeat=k, ranks=4, comm_matrix=matrix)
                 for inp in ("rmat:16", "rgg:131072")]
        runs.append(bfs("rmat:16", {c: 1e7 * (i + 1 + k) for i, c in enumerate(configs)},
                        repeat=k, suite="tour"))
        runs += [nbr(inp, c, {64: 0.9 + 0.05 * k, 4096: 1.1}, repeat=k, suite="tour")
                 for inp in ("moore:2:1", "random:0.5") for c in ("allgather", "alltoallv")]
    runs.append(match("rmat:16", {"nsr": 2.0, "ncl": 1.0}, suite="at-scale", ranks=256,
                      simulated=True))
    page = write_report(runs, tmp_path / "answers.html", tmp_path / "s.sqlite")
    body, console = open_in_browser(page, tmp_path)
    assert 'data-images-ok="yes"' in body, body
    # bars of match, bfs, nbr and the simulated match; two heatmap figures
    assert int(re.search(r'data-images="(\d+)"', body).group(1)) >= 6, body
    assert 'data-figures-ok="yes"' in body, body
    assert int(re.search(r'data-long-tables="(\d+)"', body).group(1)) >= 2, body  # bfs, flat
    assert 'data-tables-ok="yes"' in body, body
    assert console == []


def test_simulated_suites_shown_apart(tmp_path):
    from graphcomm_lab.report import write_report

    def run(suite, simulation):
        result = {"runs": [{"model": "nsr", "seconds": 1.0}]}
        if simulation:
            result["simulation"] = {"platform": "edr (16 nodes x 16 ranks)",
                                    "simulated_seconds": 1.0, "simulator_wall_seconds": 9.0}
        return {"suite": suite, "kernel": "match", "input": "rmat:4", "model": "nsr",
                "ranks": 256 if simulation else 2, "options": {}, "status": "ok", "error": None,
                "repeat": 0, "git_commit": "abc", "mpi_library": "x", "machine": {},
                "result": result}

    page = write_report([run("measured", False), run("at-scale", True)],
                        tmp_path / "r.html", tmp_path / "s.sqlite").read_text()
    assert "<h3>Suite at-scale (simulated)</h3>" in page
    assert "simulated time on edr (16 nodes x 16 ranks)" in page
    assert "<h3>Suite measured</h3>" in page
    # Per kernel, the measured and the simulated runs in tables of their own.
    assert '<h3 id="match-measured">match: matching time (ms) — measured</h3>' in page
    assert '<h3 id="match-simulated">match: matching time (ms) — simulated</h3>' in page

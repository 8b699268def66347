"""The HTML report, opened in a real browser (Debian's headless Chromium):
every image loads, no console error, and a screenshot is kept as a test
artifact. The checks are shown to fail on a broken image and a script error."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, lab_command
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
                        .replace("ranks = [2]", "ranks = [1, 2]"))
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
    assert int(re.search(r'data-images="(\d+)"', body).group(1)) >= 2
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
    assert "<h2>Suite at-scale (simulated)</h2>" in page
    assert "simulated time on edr (16 nodes x 16 ranks)" in page
    assert "<h2>Suite measured</h2>" in page

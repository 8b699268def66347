"""Running a suite through a fake launcher: everything stored once, failures
recorded with their error line, and an interrupted suite finished on restart
with nothing lost and nothing run twice."""
import json
import signal
import subprocess

import pytest

from conftest import ROOT, lab_command
from graphcomm_lab.store import Store

SUITE = """
name = "resume"
repeats = 3
[[experiment]]
kernel = "match"
inputs = ["rmat:4"]
models = ["nsr", "ncl"]
ranks = [2]
"""


def calls(log):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def foreground_sigint():
    """In the child: SIGINT back to its default, so Python turns it into
    KeyboardInterrupt as at a terminal. A test suite started as a background
    job (`scripts/test &`) inherits SIGINT ignored, and so would the lab."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_lab(suite, store, fake, env=None, extra=()):
    cmd = lab_command("run", suite, "--store", store, "--launcher", fake["launcher"],
                      "--binary", fake["binary"], "-q", *extra)
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          preexec_fn=foreground_sigint)


def test_every_run_stored_once(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    proc = run_lab(write_suite(SUITE), store_path, fake)
    assert proc.returncode == 0, proc.stderr
    store = Store(store_path)
    runs = store.runs()
    assert len(runs) == 6 and all(r["status"] == "ok" for r in runs)
    assert sorted((r["model"], r["repeat"]) for r in runs) == sorted(
        (m, k) for m in ("nsr", "ncl") for k in range(3))
    assert {r["mpi_library"] for r in runs} == {"Fake MPI 1.0"}
    assert runs[0]["machine"]["cores"] >= 1 and runs[0]["git_commit"]
    # Interleaved: nsr, ncl, nsr, ncl, ...
    assert [c[c.index("--model") + 1] for c in calls(fake["log"])] == ["nsr", "ncl"] * 3
    # Again: all stored, nothing runs.
    proc = run_lab(write_suite(SUITE), store_path, fake)
    assert proc.returncode == 0 and "0 run(s) now" in proc.stdout
    assert len(calls(fake["log"])) == 6


def test_interrupted_suite_resumes(write_suite, fake, tmp_path, monkeypatch):
    store_path = tmp_path / "lab.sqlite"
    suite = write_suite(SUITE)
    monkeypatch.setenv("FAKE_INTERRUPT_AT", "3")
    proc = run_lab(suite, store_path, fake)
    assert proc.returncode == 130, proc.stderr
    assert "interrupted" in proc.stderr
    assert len(Store(store_path).runs()) == 2  # the third never finished
    monkeypatch.delenv("FAKE_INTERRUPT_AT")
    proc = run_lab(suite, store_path, fake)
    assert proc.returncode == 0, proc.stderr
    assert "4 run(s) now" in proc.stdout and "2 already stored" in proc.stdout
    made = calls(fake["log"])
    assert len(made) == 3 + 4
    # The restart began where the interruption was: the 3rd run, then the rest.
    models = [c[c.index("--model") + 1] for c in made]
    assert models == ["nsr", "ncl", "nsr"] + ["nsr", "ncl", "nsr", "ncl"]
    runs = Store(store_path).runs()
    assert len(runs) == 6 and len({(r["config_key"], r["repeat"]) for r in runs}) == 6


def test_failed_run_recorded_and_suite_goes_on(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    suite = write_suite("""
[[experiment]]
kernel = "bfs"
inputs = ["fail:1", "rmat:5"]
ranks = [1]
""")
    proc = run_lab(suite, store_path, fake)
    assert proc.returncode == 1
    assert "graphcomm-lab: failed: bfs fail:1" in proc.stderr
    runs = {r["input"]: r for r in Store(store_path).runs()}
    assert runs["fail:1"]["status"] == "failed"
    assert runs["fail:1"]["error"] == "graphcomm: error: fake failure"
    assert runs["fail:1"]["result"] is None
    assert runs["rmat:5"]["status"] == "ok"
    # A restart retries the failure only.
    run_lab(suite, store_path, fake)
    assert [c[c.index("--graph") + 1] for c in calls(fake["log"])] == ["fail:1", "rmat:5",
                                                                        "fail:1"]
    assert len(Store(store_path).runs()) == 2


def test_show_and_export(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    run_lab(write_suite(SUITE), store_path, fake)
    show = subprocess.run(lab_command("show", "--store", store_path), capture_output=True,
                          text=True)
    assert show.returncode == 0
    lines = show.stdout.splitlines()
    assert lines[0].split()[:3] == ["suite", "kernel", "input"]
    assert len(lines) == 3 and all(" 3 " in line for line in lines[1:])
    out = tmp_path / "runs.csv"
    exp = subprocess.run(lab_command("export", "--store", store_path, "--out", out),
                         capture_output=True, text=True)
    assert exp.returncode == 0, exp.stderr
    rows = out.read_text().splitlines()
    assert len(rows) == 7
    header = rows[0].split(",")
    assert "result.timings.x" in header and "machine.cores" in header
    assert not (tmp_path / "runs.csv.tmp").exists()


def test_show_without_store(tmp_path):
    proc = subprocess.run(lab_command("show", "--store", tmp_path / "none.sqlite"),
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("graphcomm-lab: error: no store")


def test_missing_binary(write_suite, fake, tmp_path):
    cmd = lab_command("run", write_suite(SUITE), "--store", tmp_path / "s.sqlite", "--launcher",
                      fake["launcher"], "--binary", tmp_path / "nothing", "-q")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 2 and "no graphcomm binary" in proc.stderr


def test_compare_models(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    run_lab(write_suite(SUITE), store_path, fake)
    proc = subprocess.run(lab_command("compare", "model", "nsr", "ncl", "--store", store_path),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[-2:] == ["B/A", "spread"]
    # The fake reports 1 s for nsr and 2 s for ncl, three repetitions each.
    assert lines[1].split()[-2:] == ["2.000", "2.000-2.000"] and "seconds" in lines[1]
    bad = subprocess.run(lab_command("compare", "model", "nsr", "rma", "--store", store_path),
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no configuration has runs" in bad.stderr
    bad = subprocess.run(lab_command("compare", "colour", "x", "y", "--store", store_path),
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot compare by 'colour'" in bad.stderr


def test_plots_from_a_store(write_suite, fake, tmp_path):
    store_path = tmp_path / "lab.sqlite"
    suite = write_suite(SUITE.replace('inputs = ["rmat:4"]', 'inputs = ["rmat:4", "rgg:50"]')
                        .replace("ranks = [2]", "ranks = [1, 2]"))
    assert run_lab(suite, store_path, fake).returncode == 0
    for kind in ("profile", "scaling"):
        base = tmp_path / "plots" / kind
        proc = subprocess.run(lab_command("plot", kind, "match", "--out", base, "--store",
                                          store_path), capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        png, svg = base.with_suffix(".png"), base.with_suffix(".svg")
        assert proc.stdout.split() == [str(png), str(svg)]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
        assert b"<svg" in svg.read_bytes()[:2000]
    # A kernel with no runs: one clear line, no file.
    proc = subprocess.run(lab_command("plot", "profile", "bfs", "--out", tmp_path / "none",
                                      "--store", store_path), capture_output=True, text=True)
    assert proc.returncode == 2 and "no bfs runs" in proc.stderr
    assert not list(tmp_path.glob("none.*"))


def test_timeout_kills_the_launchers_grandchildren(tmp_path):
    import pytest
    from graphcomm_lab.runner import run_group

    pid_file = tmp_path / "grandchild.pid"
    # A launcher that starts a grandchild (as smpirun starts the simulator), then waits.
    script = f"sleep 60 & echo $! > {pid_file}; wait"
    with pytest.raises(subprocess.TimeoutExpired):
        run_group(["bash", "-c", script], timeout=1)
    assert_gone(int(pid_file.read_text()))


def lab(*args):
    return subprocess.run(lab_command(*args), capture_output=True, text=True)


def test_saved_runs_resume_in_another_store(write_suite, fake, tmp_path):
    """A suite begun on one machine and finished on another: save, load, run."""
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    suite = write_suite("""
[[experiment]]
kernel = "bfs"
inputs = ["fail:1", "rmat:5", "rmat:6"]
ranks = [1]
""")
    assert run_lab(suite, first, fake).returncode == 1  # fail:1 failed
    saved = tmp_path / "runs.jsonl"
    proc = lab("save", "--store", first, "--out", saved)
    assert proc.returncode == 0 and "saved 3 run(s)" in proc.stdout, proc.stderr
    proc = lab("load", saved, "--store", second)
    assert proc.returncode == 0 and "3 of 3 run(s) added" in proc.stdout, proc.stderr
    strip = lambda runs: sorted(({k: v for k, v in r.items() if k != "id"} for r in runs),
                                key=lambda r: r["input"])
    assert strip(Store(second).runs()) == strip(Store(first).runs())
    # The second store resumes: only the failure runs again.
    run_lab(suite, second, fake)
    assert [c[c.index("--graph") + 1] for c in calls(fake["log"])] == [
        "fail:1", "rmat:5", "rmat:6", "fail:1"]
    # Loading again adds nothing: the store's ok runs stay, and so does its
    # failure, which a loaded failure does not replace.
    proc = lab("load", saved, "--store", second)
    assert "0 of 3 run(s) added" in proc.stdout and "3 kept" in proc.stdout
    # An ok run loaded where the store holds a failure replaces it.
    runs = [json.loads(line) for line in saved.read_text().splitlines()]
    for r in runs:
        if r["input"] == "fail:1":
            r.update(status="ok", error=None)
    saved.write_text("".join(json.dumps(r) + "\n" for r in runs))
    proc = lab("load", saved, "--store", second)
    assert "1 of 3 run(s) added" in proc.stdout, proc.stdout
    assert {r["input"]: r["status"] for r in Store(second).runs()}["fail:1"] == "ok"


def test_load_refuses_what_save_did_not_write(tmp_path):
    bad = tmp_path / "runs.jsonl"
    bad.write_text('{"suite": "s"}\n')
    store = tmp_path / "lab.sqlite"
    proc = lab("load", bad, "--store", store)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"graphcomm-lab: error: {bad}:1: not a run saved by")
    assert Store(store).runs() == []


@pytest.mark.parametrize("installed", [True, False], ids=["lab", "script"])
def test_sigterm_kills_the_running_commands_group(tmp_path, installed):
    """`kill` of the lab (SIGTERM) ends it as Ctrl-C does: the command it runs
    (a launcher and its grandchild, as smpirun and the simulator) goes too;
    also from a script that calls run_group without terminate_as_interrupt."""
    import sys
    import time

    pid_file = tmp_path / "grandchild.pid"
    script = f"sleep 60 & echo $! > {pid_file}; wait"
    lab = subprocess.Popen([sys.executable, "-c", (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'python')!r})\n"
        "from graphcomm_lab.process_group import run_group, terminate_as_interrupt\n"
        + ("terminate_as_interrupt()\n" if installed else "") +
        "try:\n"
        f"    run_group(['bash', '-c', {script!r}], timeout=120)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(130)\n")])
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline, "the launcher did not start"
        time.sleep(0.05)
    grandchild = int(pid_file.read_text())
    lab.send_signal(signal.SIGTERM)
    assert lab.wait(timeout=10) == 130
    assert_gone(grandchild)


def assert_gone(pid):
    """The process ends within 5 s (a killed process may linger as a zombie
    until its new parent reaps it: that counts as gone)."""
    import time

    def running():
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(), f"process {pid} still runs"


def test_run_group_restores_the_callers_sigterm_handler():
    from graphcomm_lab.process_group import run_group

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        assert run_group(["true"], timeout=10).returncode == 0
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)


PLATFORM_SUITE = """
[[experiment]]
kernel = "nbr"
inputs = ["random:0.2"]
models = ["allgather"]
ranks = [4]

[[experiment]]
kernel = "nbr"
inputs = ["random:0.6"]
models = ["allgather"]
ranks = [4]
options = { platform = "edr-latency" }
"""


def test_an_experiments_platform_replaces_the_suites(write_suite, fake, tmp_path):
    """`platform` in an experiment's options goes to scripts/simulate's
    --platform, not to graphcomm; without a simulated launcher it fails."""
    from graphcomm_lab.runner import run_suite
    from graphcomm_lab.suite import load_suite

    suite = load_suite(write_suite(PLATFORM_SUITE))
    store = Store(tmp_path / "lab.sqlite")
    launcher = [fake["launcher"], "--platform", "edr"]
    assert run_suite(suite, store, binary=fake["binary"], launcher=launcher,
                     progress=False) == (2, 0, 0)
    platforms = {c[c.index("--topology") + 1]: c[c.index("--platform") + 1]
                 for c in calls(fake["log"])}
    assert platforms == {"random:0.2": "edr", "random:0.6": "edr-latency"}
    assert all(c.count("--platform") == 1 for c in calls(fake["log"]))

    proc = run_lab(write_suite(PLATFORM_SUITE), tmp_path / "real.sqlite", fake)
    assert proc.returncode == 1
    assert "platform edr-latency: a simulated platform, for a simulated run" in proc.stderr
    failed = [r for r in Store(tmp_path / "real.sqlite").runs() if r["status"] == "failed"]
    assert [r["input"] for r in failed] == ["random:0.6"]

"""graphcomm's side of the bench scripts through the lab: one repetition at a
time into the store (a fake launcher), a new invocation measuring anew, a
failure named; and bench/match.py and bench/bfs.py end to end on tiny inputs
with the real binary, their JSON output read from the runs the store holds."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, graphcomm_binary
from graphcomm_lab.bench import Bench, BenchError, config
from graphcomm_lab.stats import median, median_range_text, range_text, spread, summary
from graphcomm_lab.store import Store


def models_called(log):
    return [json.loads(line)[json.loads(line).index("--model") + 1]
            for line in log.read_text().splitlines()]


def test_one_repetition_at_a_time(fake, tmp_path):
    store = tmp_path / "lab.sqlite"
    bench = Bench("match", store=store, binary=fake["binary"], launcher=fake["launcher"])
    a, b = (config("match", "rmat:4", m, 2, {"check": True}) for m in ("nsr", "ncl"))
    for rep in range(2):  # what a script does, with its reference code between
        docs = bench.documents(rep, [a, b])
        assert [d["runs"][0]["model"] for d in docs] == ["nsr", "ncl"]
    assert models_called(fake["log"]) == ["nsr", "ncl", "nsr", "ncl"]
    assert "--check" in json.loads(fake["log"].read_text().splitlines()[0])
    # Asked again within the invocation: read from the store, not run again.
    assert bench.document(1, b)["runs"][0]["seconds"] == 2.0
    assert len(models_called(fake["log"])) == 4
    runs = Store(store).runs(suite=bench.suite_name())
    assert sorted((r["model"], r["repeat"]) for r in runs) == [
        ("ncl", 0), ("ncl", 1), ("nsr", 0), ("nsr", 1)]
    bench.close()
    # A new invocation is a suite of its own: it measures anew.
    again = Bench("match", store=store, binary=fake["binary"], launcher=fake["launcher"])
    assert again.suite_name() != bench.suite_name()
    again.documents(0, [a])
    assert len(models_called(fake["log"])) == 5
    again.close()


def test_named_suite_is_resumed(fake, tmp_path):
    # Simulated runs take hours: an invocation cut short is resumed by the
    # next one of the same name, which runs only what is not stored.
    store = tmp_path / "lab.sqlite"
    a, b = (config("match", "rmat:4", m, 2) for m in ("nsr", "ncl"))
    first = Bench("advise", store=store, binary=fake["binary"], launcher=fake["launcher"],
                  resume="edr")
    first.documents(0, [a])
    first.close()
    again = Bench("advise", store=store, binary=fake["binary"], launcher=fake["launcher"],
                  resume="edr")
    assert again.suite_name() == first.suite_name() == "bench-advise@edr"
    docs = again.documents(0, [a, b])
    assert [d["runs"][0]["model"] for d in docs] == ["nsr", "ncl"]
    assert models_called(fake["log"]) == ["nsr", "ncl"]
    again.close()


def test_failure_is_named(fake, tmp_path):
    bench = Bench("bfs", store=tmp_path / "lab.sqlite", binary=fake["binary"],
                  launcher=fake["launcher"])
    with pytest.raises(BenchError, match=r"graphcomm bfs fail:1 .*repetition 1.*fake failure"):
        bench.documents(0, [config("bfs", "fail:1", "ncl", 2)])
    bench.close()


def test_statistics():
    assert median([3, 1, 2]) == 2 and spread([3, 1, 2]) == 2
    assert median([]) is None and spread([]) is None
    assert summary([2.0, 1.0]) == {"median": 1.5, "min": 1.0, "max": 2.0, "runs": [2.0, 1.0]}
    assert range_text([], ".3f") == "-"
    assert median_range_text([1.0, 2.0, 4.0], ".4g") == "2 (1-4)"


def run_script(script, *args):
    cmd = [sys.executable, str(ROOT / "bench" / script), *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_match_script_through_the_store(tmp_path):
    store, out = tmp_path / "lab.sqlite", tmp_path / "match.json"
    proc = run_script("match.py", "--binary", graphcomm_binary(), "--graphs", "rmat:8",
                      "--ranks", "2", "--repeat", "2", "--store", store, "--out", out)
    assert proc.stdout.splitlines()[0].split()[:4] == ["graph", "P", "model", "median_s"]
    rows = json.loads(out.read_text())["results"]
    assert {r["model"] for r in rows} >= {"nsr", "rma", "ncl"}
    (suite,) = Store(store).suites()
    assert suite.startswith("bench-match@") and suite in proc.stdout
    runs = sorted(Store(store).runs(suite=suite), key=lambda r: r["repeat"])
    assert [(r["repeat"], r["options"]) for r in runs] == [(0, {"check": True}), (1, {})]
    for row in rows:  # the table's times are the stored runs' times
        stored = [next(x["seconds"] for x in r["result"]["runs"] if x["model"] == row["model"])
                  for r in runs]
        assert row["seconds"] == stored and row["median_seconds"] == median(stored)
        assert row["check"] == "OK"


def test_bfs_script_runs_the_specification_graph(tmp_path):
    store, out = tmp_path / "lab.sqlite", tmp_path / "bfs.json"
    run_script("bfs.py", "--graphcomm", graphcomm_binary(), "--scales", "8", "--ranks", "2",
               "--repeat", "1", "--roots", "2", "--configurations", "top-down/ncl",
               "--store", store, "--out", out)
    (run,) = Store(store).runs()
    assert run["input"] == "graph500:8" and "--scale" in run["result"]["argv"]
    (row,) = json.loads(out.read_text())["rows"]
    assert row["name"] == "top-down/ncl" and len(row["hmean_teps"]) == 1
    record = next(r for r in run["result"]["runs"] if r["configuration"] == "top-down/ncl")
    assert record["nedge"]["min"] == 16 * 2**8  # Graph500's count: the input tuples


def test_advise_measure_half_judges_each_half_on_the_other(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import advise

    def docs(times_a, times_b):
        return [{"runs": [{"algorithm": "suitor", "model": "a", "seconds": a},
                          {"algorithm": "suitor", "model": "b", "seconds": b}]}
                for a, b in zip(times_a, times_b)]

    # b is fast in the odd repetitions only: each half picks what the other
    # half does not find fastest.
    noisy = docs([1.0] * 6, [0.9, 1.3] * 3)
    assert advise.measure_half(noisy, "match") == pytest.approx([1.3, 1.0 / 0.9])
    steady = docs([1.0] * 6, [0.8] * 6)
    assert advise.measure_half(steady, "match") == [1.0, 1.0]
    assert advise.measure_half(noisy[:5], "match") is None


def test_advise_tally_by_kernel(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import advise

    def case(kernel, ranks, chosen, once, halves):
        return {"kernel": kernel, "ranks": ranks, "hit": chosen <= 1.1,
                "measured_once_over_best": once, "measured_half_over_best": halves}

    cases = [case("match", 4, 1.05, 1.2, [1.0, 1.3]), case("bfs", 2, 1.3, None, None),
             case("match", 4, 1.2, 1.0, [1.1, 1.0]), case("match", 2, 1.0, 1.0, None)]
    assert advise.tally_by_kernel(cases) == [
        ["bfs", 2, 1, 0, 0, 0, 0], ["match", 2, 1, 1, 1, 0, 0], ["match", 4, 2, 1, 1, 3, 4]]

"""The store: every kernel's JSON document round-trips unchanged (documents
made by the real graphcomm at tiny sizes), and a foreign or newer file is
refused with one clear error."""
import json
import sqlite3
import subprocess

import pytest

from conftest import ROOT, graphcomm_binary, lab_command
from graphcomm_lab.runner import machine
from graphcomm_lab.store import Store, StoreError
from graphcomm_lab.suite import Config

GCRUN = ROOT / "scripts" / "gcrun"


def documents(tmp_path):
    """One --json document per kernel, from the real binary."""
    g = graphcomm_binary()
    trace = tmp_path / "trace"
    subprocess.run([g, "-q", "mq", "synth", "many-to-one", "--ranks", "8", "--output", trace],
                   check=True, capture_output=True)
    cases = {
        "graph-stats": (2, ["graph", "stats", "--graph", "rmat:8"]),
        "match": (2, ["match", "--graph", "rmat:8", "--model", "all", "--check"]),
        "bfs": (3, ["bfs", "--graph", "rmat:8", "--roots", "2"]),
        "spmm": (2, ["spmm", "--matrix", "rmat:7", "--iters", "1"]),
        "nbr": (4, ["nbr", "bench", "--topology", "moore:2:1", "--sizes", "8", "--iters", "2",
                    "--repeat", "1"]),
        "mq": (1, ["mq", "replay", str(trace), "--engine", "all"]),
    }
    out = {}
    for kernel, (ranks, args) in cases.items():
        path = tmp_path / f"{kernel}.json"
        subprocess.run([GCRUN, "-np", str(ranks), g, *args, "-q", "--json", path], check=True,
                       capture_output=True)
        out[kernel] = (ranks, json.loads(path.read_text()))
    return out


def test_every_kernel_round_trips(tmp_path):
    docs = documents(tmp_path)
    store = Store(tmp_path / "lab.sqlite")
    for kernel, (ranks, doc) in docs.items():
        c = Config(kernel, "x", None, ranks)
        store.record("rt", 0, c, status="ok", error=None, git_commit="abc", machine=machine(),
                     started="t0", finished="t1", wall_seconds=1.5, result=doc)
    store.close()
    back = {r["kernel"]: r for r in Store(tmp_path / "lab.sqlite").runs(suite="rt")}
    assert set(back) == set(docs)
    for kernel, (ranks, doc) in docs.items():
        assert back[kernel]["result"] == doc, kernel
        assert back[kernel]["mpi_library"] == doc["mpi"]["library"]
        assert back[kernel]["ranks"] == ranks


def run_real(suite, tmp_path):
    """Runs a suite with the real binary into a fresh store; returns its path."""
    store_path = tmp_path / "lab.sqlite"
    proc = subprocess.run(lab_command("run", suite, "--store", store_path, "--binary",
                                      graphcomm_binary(), "-q"), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return store_path


def plot(kind, kernel, base, store_path):
    return subprocess.run(lab_command("plot", kind, kernel, "--out", base, "--store", store_path),
                          capture_output=True, text=True)


def test_foreign_file_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database, just text " * 100)
    with pytest.raises(StoreError, match="not a graphcomm-lab store"):
        Store(path)


def test_newer_schema_refused(tmp_path):
    path = tmp_path / "lab.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.close()
    with pytest.raises(StoreError, match="schema 99"):
        Store(path)


def test_comm_matrix_stored_and_plotted(tmp_path, write_suite):
    suite = write_suite("""
[[experiment]]
kernel = "match"
inputs = ["rmat:8"]
models = ["all"]
ranks = [3]
options = { "comm-matrix" = true }
""")
    store_path = run_real(suite, tmp_path)
    (run,) = Store(store_path).runs()
    matrix = run["result"]["comm_matrix"]
    assert matrix["ranks"] == 3 and "nsr" in matrix["models"]
    nsr = matrix["models"]["nsr"]["messages"]
    assert len(nsr) == 3 and all(len(row) == 3 for row in nsr) and sum(map(sum, nsr)) > 0
    base = tmp_path / "matrix"
    proc = plot("matrix", "match", base, store_path)
    assert proc.returncode == 0, proc.stderr
    assert base.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


def test_kernel_plots_and_stats(tmp_path, write_suite):
    suite = write_suite("""
[[experiment]]
kernel = "bfs"
inputs = ["rmat:7", "rmat:8"]
models = ["ncl"]
ranks = [2]
options = { roots = 2 }
[[experiment]]
kernel = "nbr"
inputs = ["random:0.3", "random:0.9"]
models = ["allgather"]
ranks = [4]
options = { sizes = [8, 64], iters = 2, repeat = 1 }
[[experiment]]
kernel = "spmm"
inputs = ["rmat:7"]
models = ["all"]
ranks = [2]
options = { iters = 1 }
[[experiment]]
kernel = "graph-stats"
inputs = ["rgg:3000"]
ranks = [3]
[[experiment]]
kernel = "mq"
inputs = ["synth:many-to-one,ranks=8", "synth:depth,depth=16,ranks=2"]
models = ["all"]
ranks = [1]
""")
    store_path = run_real(suite, tmp_path)
    for kind, kernel in (("scale", "bfs"), ("sizes", "nbr"), ("density", "nbr"),
                         ("speedup", "spmm"), ("queues", "mq")):
        base = tmp_path / kind
        proc = plot(kind, kernel, base, store_path)
        assert proc.returncode == 0, (kind, proc.stderr)
        assert base.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    proc = subprocess.run(lab_command("stats", "--store", store_path), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    head, row = proc.stdout.splitlines()
    assert head.split()[:2] == ["input", "ranks"] and "d_avg" in head
    fields = row.split()
    assert fields[:4] == ["rgg:3000", "3", "3000", fields[3]] and int(fields[3]) > 0
    proc = plot("queues", "match", tmp_path / "none", store_path)
    assert proc.returncode == 2 and "for mq" in proc.stderr


def test_unknown_suite_is_one_error_everywhere(tmp_path, write_suite):
    suite = write_suite("""
[[experiment]]
kernel = "graph-stats"
inputs = ["rgg:500"]
ranks = [1]
""")
    store_path = run_real(suite, tmp_path)
    for command in (["show"], ["stats"], ["export"], ["compare", "ranks", "1", "2"],
                    ["plot", "scale", "bfs", "--out", tmp_path / "x"],
                    ["report", "--out", tmp_path / "r.html"]):
        proc = subprocess.run(lab_command(*command, "--store", store_path, "--suite", "nosuch"),
                              capture_output=True, text=True)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert proc.stderr.startswith("graphcomm-lab: error: ") and "no suite 'nosuch'" in \
            proc.stderr and "stored: suite" in proc.stderr, (command, proc.stderr)
        assert proc.stdout == "", (command, proc.stdout)
    assert not (tmp_path / "r.html").exists()

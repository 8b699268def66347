"""Suite files: expansion into configurations, command lines, and one clear
error line for every kind of bad suite."""
import re
import subprocess

import pytest

from conftest import graphcomm_binary, lab_command
from graphcomm_lab.suite import CONTENT, Config, SuiteError, load_suite

GOOD = """
name = "s"
repeats = 2
[[experiment]]
kernel = "match"
inputs = ["rmat:10", "rgg:500"]
models = ["nsr", "ncl"]
ranks = [1, 3]
options = { algorithm = "suitor", check = true, profile = false, sizes = [4, 64] }
[[experiment]]
kernel = "graph-stats"
inputs = "er:100"
"""


def test_expansion_and_order(write_suite):
    s = load_suite(write_suite(GOOD))
    assert s.name == "s" and s.repeats == 2
    assert len(s.configs) == 2 * 2 * 2 + 1
    runs = s.runs()
    assert len(runs) == 2 * len(s.configs)
    # Interleaved: every configuration of repetition 0 before any of repetition 1.
    assert [r for r, _ in runs] == [0] * len(s.configs) + [1] * len(s.configs)
    assert len({c.key() for c in s.configs}) == len(s.configs)


def test_arguments(write_suite):
    s = load_suite(write_suite(GOOD))
    c = s.configs[0]
    assert c.arguments() == ["match", "--graph", "rmat:10", "--model", "nsr", "--algorithm",
                             "suitor", "--check", "--sizes", "4,64"]
    stats = s.configs[-1]
    assert stats.arguments() == ["graph", "stats", "--graph", "er:100"]
    assert stats.ranks == 2 and stats.model is None


def test_key_is_stable_and_distinguishes(write_suite):
    a = load_suite(write_suite(GOOD)).configs
    b = load_suite(write_suite(GOOD, "again.toml")).configs
    assert [c.key() for c in a] == [c.key() for c in b]


def test_content_digest_keys_the_run_and_stays_off_the_command_line():
    def advise(digest):
        return Config("advise", "rmat:10", None, 2,
                      tuple(sorted({"calibration": "c.json", CONTENT: digest}.items())))
    a, b = advise("0123"), advise("4567")
    assert a.key() != b.key() and a.key() == advise("0123").key()
    assert a.arguments() == b.arguments()
    assert CONTENT not in " ".join(a.arguments())


def test_weak_scaling_inputs(write_suite):
    s = load_suite(write_suite(
        "[[experiment]]\nkernel = 'match'\ninputs = ['rgg:{n}']\nranks = [1, 2, 4]\n"
        "per_rank = 1000"))
    assert [(c.input, c.ranks) for c in s.configs] == [("rgg:1000", 1), ("rgg:2000", 2),
                                                        ("rgg:4000", 4)]


@pytest.mark.parametrize("text, message", [
    ("[[experiment]]\nkernel = 'match'\ninputs = ['rgg:{n}']", "go together"),
    ("[[experiment]]\nkernel = 'bfs'\ninputs = ['x']\noptions = { \"comm-matrix\" = true }",
     "for match only"),
    ("[[experiment]]\nkernel = 'match'\ninputs = ['rgg:5']\nper_rank = 0", "'per_rank' must"),
    ("repeats = [", "not valid TOML"),
    ("name = 'x'", "no [[experiment]]"),
    ("[[experiment]]\nkernel = 'sort'\ninputs = ['a']", "unknown kernel 'sort'"),
    ("[[experiment]]\nkernel = 'match'\ninputs = []", "'inputs' must be a non-empty list"),
    ("[[experiment]]\nkernel = 'match'\ninputs = ['x']\nranks = [0]", "positive integers"),
    ("[[experiment]]\nkernel = 'mq'\ninputs = ['dir']\nranks = [2]", "runs on one rank"),
    ("[[experiment]]\nkernel = 'graph-stats'\ninputs = ['x']\nmodels = ['ncl']", "has no models"),
    ("[[experiment]]\nkernel = 'match'\ninputs = ['x']\noptions = { json = 'f' }",
     "set by the lab"),
    ("[[experiment]]\nkernel = 'match'\ninputs = ['x']\ncolour = 1", "unknown key 'colour'"),
    ("repeats = 0\n[[experiment]]\nkernel = 'match'\ninputs = ['x']", "'repeats' must be"),
])
def test_bad_suites(write_suite, text, message):
    path = write_suite(text)
    with pytest.raises(SuiteError, match=re.escape(message)) as err:
        load_suite(path)
    assert str(err.value).startswith(str(path))
    assert "\n" not in str(err.value)


def test_cli_error_is_one_line_and_exit_2(write_suite, tmp_path):
    path = write_suite("[[experiment]]\nkernel = 'sort'\ninputs = ['a']")
    proc = subprocess.run(lab_command("run", path, "--store", tmp_path / "s.sqlite"),
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("graphcomm-lab: error: ") and "unknown kernel" in proc.stderr
    assert not (tmp_path / "s.sqlite").exists()


def test_unknown_model_refused_by_the_binarys_list(write_suite, tmp_path):
    """Model names are checked against `graphcomm models --json` of the binary
    that would run them, before the store is made."""
    path = write_suite("[[experiment]]\nkernel = 'match'\ninputs = ['rmat:5']\n"
                       "models = ['nsr', 'mpi']")
    proc = subprocess.run(lab_command("run", path, "--store", tmp_path / "s.sqlite",
                                      "--binary", graphcomm_binary()),
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "unknown model 'mpi' for kernel 'match' (one of: nsr, nsr-agg," in proc.stderr
    assert not (tmp_path / "s.sqlite").exists()


def test_missing_suite_file(tmp_path):
    proc = subprocess.run(lab_command("run", tmp_path / "none.toml"), capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "cannot read" in proc.stderr

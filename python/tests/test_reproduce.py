"""reproduce: a verdict line for every claim on tiny suites (real binary),
and the verdict logic itself on hand-made runs: it can hold, fail and be
inconclusive."""
import subprocess

from conftest import graphcomm_binary, lab_command
from graphcomm_lab.reproduce import CLAIMS, judge_partner, judge_rcm

VERDICTS = ("holds", "does not hold", "inconclusive")


def test_every_claim_gets_a_verdict_line(tmp_path):
    proc = subprocess.run(lab_command("reproduce", "all", "--tiny", "-q", "--store",
                                      tmp_path / "r.sqlite", "--binary", graphcomm_binary()),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(CLAIMS)
    for line, claim in zip(lines, CLAIMS.values()):
        text, measured, verdict = line.split(" | ")
        assert text == claim.text
        assert measured.startswith("measured here: ") and "no " not in measured[:18]
        assert verdict.startswith(VERDICTS), line


def test_unknown_claim(tmp_path):
    proc = subprocess.run(lab_command("reproduce", "speed", "--store", tmp_path / "r.sqlite"),
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown claim 'speed'" in proc.stderr


def _run(kernel, inp, result, model=None, **options):
    return {"kernel": kernel, "input": inp, "model": model, "ranks": 4, "options": options,
            "status": "ok", "result": result}


def _stats(inp, reorder, d_avg):
    return _run("graph-stats", inp, {"process_graph": {"degree": {"avg": d_avg}}},
                reorder=reorder)


def test_rcm_verdicts():
    assert judge_rcm([_stats("g", "none", 1.5), _stats("g", "rcm", 2.5)])[1] == "holds"
    assert judge_rcm([_stats("g", "none", 2.5), _stats("g", "rcm", 1.5)])[1] == "does not hold"
    assert judge_rcm([_stats("g", "none", 2.5)])[1].startswith("inconclusive")


def _mq(inp, ll, pd):
    return _run("mq", inp, {"engines": [{"engine": "linked-list", "ns_per_operation": ll},
                                        {"engine": "partner-dynamic", "ns_per_operation": pd}]})


def test_partner_verdicts():
    long_q, short_q = "synth:many-to-one,ranks=512", "synth:depth,depth=4"
    assert judge_partner([_mq(long_q, 100, 10), _mq(short_q, 10, 10.2)])[1] == "holds"
    assert judge_partner([_mq(long_q, 100, 80), _mq(short_q, 10, 10.2)])[1] == "does not hold"
    assert judge_partner([_mq(long_q, 100, 10)])[1].startswith("inconclusive")

"""reproduce: one small suite per headline claim of the five studies, run into
the store (resumable like any suite, named reproduce-CLAIM), and one verdict
line per claim:

    claim ... | measured here ... | holds / does not hold / inconclusive (why)

Times on 2 cores with more ranks than cores are noisy: a comparison whose
ratio spread (over run pairs) straddles 1 is inconclusive, not a verdict.
`tiny` shrinks every suite to seconds (for the tests), where the verdicts
mean little."""
import statistics
from dataclasses import dataclass
from typing import Callable

from .figures import parts
from .suite import suite_from_doc


@dataclass
class Claim:
    name: str
    text: str
    experiments: list
    tiny: list
    repeats: int
    judge: Callable  # runs -> (measured, verdict)


def _values(runs, kernel, metric, part=None, **where):
    """The metric of the matching ok runs (and part), one value per run."""
    out = []
    for r in runs:
        if r["kernel"] != kernel or r["status"] != "ok":
            continue
        if any((r["options"].get(k) if k not in r else r[k]) != v for k, v in where.items()):
            continue
        for label, figures in parts(r["result"]):
            if part is None or label == part:
                v = figures.get(metric)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    out.append(float(v))
    return out


def _ratio(num, den):
    """(median ratio, spread straddles 1) of num/den over all run pairs."""
    if not num or not den:
        return None, True
    pairs = [a / b for a in num for b in den if b]
    return statistics.median(num) / statistics.median(den), min(pairs) < 1 < max(pairs)


def _inputs(runs, kernel):
    return sorted({r["input"] for r in runs if r["kernel"] == kernel},
                  key=lambda i: [int(t) if t.isdigit() else t for t in i.replace(":", " ").split()])


def _no_data(what):
    return f"no {what} stored", "inconclusive (runs missing or failed)"


def judge_models(runs):
    measured, sparse_ok, sparse_seen, noisy = [], True, False, False
    for inp in _inputs(runs, "match"):
        d = _values(runs, "graph-stats", "process_graph.degree.avg", input=inp)
        ranks = _values(runs, "graph-stats", "ranks", input=inp)
        nsr = _values(runs, "match", "seconds", model="nsr", input=inp)
        if not d or not nsr:
            continue
        dense = d[0] >= ranks[0] - 1
        line = f"{inp} (d_avg {d[0]:.1f}{', dense' if dense else ''}):"
        for m in ("rma", "ncl"):
            r, straddles = _ratio(_values(runs, "match", "seconds", model=m, input=inp), nsr)
            if r is None:
                return _no_data(f"match {m} runs of {inp}")
            line += f" {m}/nsr {r:.2f}"
            if not dense:
                sparse_seen = True
                sparse_ok = sparse_ok and r < 1
                noisy = noisy or straddles
        measured.append(line)
    if not measured:
        return _no_data("match runs")
    if not sparse_seen:
        return "; ".join(measured), "inconclusive (no input with a sparse process graph)"
    if noisy:
        return "; ".join(measured), "inconclusive (ratio spread straddles 1)"
    return "; ".join(measured), "holds" if sparse_ok else "does not hold"


def judge_rcm(runs):
    measured, raised = [], True
    for inp in _inputs(runs, "graph-stats"):
        none = _values(runs, "graph-stats", "process_graph.degree.avg", input=inp, reorder="none")
        rcm = _values(runs, "graph-stats", "process_graph.degree.avg", input=inp, reorder="rcm")
        if not none or not rcm:
            return _no_data(f"graph stats of {inp} with and without RCM")
        measured.append(f"{inp}: d_avg {none[0]:.2f} -> {rcm[0]:.2f} with RCM")
        raised = raised and rcm[0] > none[0]
    if not measured:
        return _no_data("graph stats")
    return "; ".join(measured), "holds" if raised else "does not hold"


def _teps(runs, inp, configuration, ranks=None):
    where = {"input": inp} | ({"ranks": ranks} if ranks else {})
    return _values(runs, "bfs", "harmonic_mean_TEPS", part=configuration, **where)


def judge_one_sided(runs):
    gains, measured = [], []
    for inp in _inputs(runs, "bfs"):
        r, straddles = _ratio(_teps(runs, inp, "top-down/rma-fence"), _teps(runs, inp, "replicated"))
        if r is None:
            return _no_data(f"bfs runs of {inp}")
        gains.append((r, straddles))
        measured.append(f"{inp}: one-sided/replicated TEPS {r:.2f}")
    if len(gains) < 2:
        return "; ".join(measured) or "-", "inconclusive (needs two SCALEs)"
    replicated_wins_small = gains[0][0] < 1
    one_sided_gains = gains[-1][0] > gains[0][0]
    verdict = "holds" if replicated_wins_small and one_sided_gains else "does not hold"
    if gains[0][1]:
        verdict = "inconclusive (ratio spread straddles 1 at the smallest SCALE)"
    return "; ".join(measured), verdict


def judge_hybrid(runs):
    measured, wins, noisy = [], True, False
    for inp in _inputs(runs, "bfs"):
        r, straddles = _ratio(_teps(runs, inp, "top-down/hybrid"), _teps(runs, inp, "top-down/nsr"))
        if r is None:
            return _no_data(f"bfs runs of {inp}")
        measured.append(f"{inp}: hybrid/nsr TEPS {r:.2f}")
        wins, noisy = wins and r > 1, noisy or straddles
    if not measured:
        return _no_data("bfs runs")
    if noisy:
        return "; ".join(measured), "inconclusive (ratio spread straddles 1)"
    return "; ".join(measured), "holds" if wins else "does not hold"


def judge_combining(runs):
    inputs = _inputs(runs, "nbr")  # random:DELTA, sparse to dense
    if len(inputs) < 2:
        return _no_data("nbr runs at two densities")
    speed = {}
    for inp in inputs:
        for size in ("4 B", "16384 B"):
            v = _values(runs, "nbr", "speedup", part=size, input=inp)
            if not v:
                return _no_data(f"nbr {inp} at {size}")
            speed[inp, size] = statistics.median(v)
    measured = "; ".join(f"{inp}: speedup {speed[inp, '4 B']:.2f} at 4 B, "
                         f"{speed[inp, '16384 B']:.2f} at 16 KiB" for inp in inputs)
    grows = speed[inputs[-1], "4 B"] > speed[inputs[0], "4 B"]
    vanishes = all(speed[i, "16384 B"] < 1.1 for i in inputs)
    return measured, "holds" if grows and vanishes else "does not hold"


def judge_partner(runs):
    measured, verdicts = [], {}
    for inp in _inputs(runs, "mq"):
        ll = _values(runs, "mq", "ns_per_operation", part="linked-list", input=inp)
        pd = _values(runs, "mq", "ns_per_operation", part="partner-dynamic", input=inp)
        r, straddles = _ratio(ll, pd)
        if r is None:
            return _no_data(f"mq runs of {inp}")
        measured.append(f"{inp}: linked-list/partner-dynamic time {r:.2f}")
        verdicts[inp] = r
    long_q = [r for i, r in verdicts.items() if "many-to-one" in i]
    short_q = [r for i, r in verdicts.items() if "depth" in i]
    if not long_q or not short_q:
        return "; ".join(measured) or "-", "inconclusive (needs both workloads)"
    holds = min(long_q) >= 2 and all(0.95 <= r <= 1.05 for r in short_q)
    return "; ".join(measured), "holds" if holds else "does not hold"


def _stats(inputs, ranks, reorder="none"):
    return {"kernel": "graph-stats", "inputs": inputs, "ranks": ranks,
            "options": {"reorder": reorder}}


CLAIMS = {c.name: c for c in (
    Claim("models", "NCL and RMA beat NSR except on dense process graphs "
          "(matching study, Tables III and VII)",
          [{"kernel": "match", "inputs": ["rgg:262144", "er:32768"],
            "models": ["nsr", "rma", "ncl"], "ranks": [4]}, _stats(["rgg:262144", "er:32768"], [4])],
          [{"kernel": "match", "inputs": ["rgg:4096"], "models": ["nsr", "rma", "ncl"],
            "ranks": [4]}, _stats(["rgg:4096"], [4])], 3, judge_models),
    Claim("rcm", "RCM reordering raises d_avg of the process graph (matching study, Table VI)",
          [_stats(["rgg:262144", "rmat:16"], [8]), _stats(["rgg:262144", "rmat:16"], [8], "rcm")],
          [_stats(["rgg:4096"], [4]), _stats(["rgg:4096"], [4], "rcm")], 1, judge_rcm),
    Claim("one-sided", "replicated BFS beats one-sided at small scale and one-sided gains more "
          "with SCALE (Graph500 one-sided study)",
          [{"kernel": "bfs", "inputs": ["rmat:12", "rmat:14", "rmat:16"], "models": ["all"],
            "ranks": [2], "options": {"roots": 16}}],
          [{"kernel": "bfs", "inputs": ["rmat:8", "rmat:9"], "models": ["all"], "ranks": [2],
            "options": {"roots": 2}}], 3, judge_one_sided),
    Claim("hybrid", "the hybrid MPI+OpenSHMEM design gains over pure MPI (OSU study)",
          [{"kernel": "bfs", "inputs": ["rmat:16"], "models": ["all"], "ranks": [4],
            "options": {"roots": 16}}],
          [{"kernel": "bfs", "inputs": ["rmat:8"], "models": ["all"], "ranks": [4],
            "options": {"roots": 2}}], 3, judge_hybrid),
    Claim("combining", "combining gains grow with density and vanish for large messages "
          "(collectives study)",
          [{"kernel": "nbr", "inputs": ["random:0.2", "random:0.8"], "models": ["allgather"],
            "ranks": [8], "options": {"sizes": [4, 16384], "iters": 100}}],
          [{"kernel": "nbr", "inputs": ["random:0.2", "random:0.8"], "models": ["allgather"],
            "ranks": [4], "options": {"sizes": [4, 16384], "iters": 3, "repeat": 1}}],
          3, judge_combining),
    Claim("partner", "partner queues give large gains on many-to-one workloads and none on "
          "short queues (message-matching study)",
          [{"kernel": "mq", "inputs": ["synth:many-to-one,ranks=512", "synth:depth,depth=4"],
            "models": ["all"], "ranks": [1]}],
          [{"kernel": "mq", "inputs": ["synth:many-to-one,ranks=16", "synth:depth,depth=4"],
            "models": ["all"], "ranks": [1]}], 3, judge_partner),
)}


def suite_of(claim, tiny=False):
    doc = {"repeats": 1 if tiny else claim.repeats,
           "experiment": claim.tiny if tiny else claim.experiments}
    name = f"reproduce-{claim.name}" + ("-tiny" if tiny else "")
    return suite_from_doc(f"claim {claim.name}", doc, name)


def verdict_line(claim, runs):
    measured, verdict = claim.judge(runs)
    return f"{claim.text} | measured here: {measured} | {verdict}"

#!/usr/bin/env python3
"""End-to-end test of `graphcomm mq` (synth, replay, profile, dump), checked by
this script alone (standard library; it never reads the binary trace files,
only what graphcomm prints and writes as text and JSON):

  - `mq synth many-to-one|depth|wildcard` writes one rank-*.mqt per simulated
    rank; `mq replay DIR --engine all --matches M --json J` exits 0, prints
    one table row per engine with check OK, and its JSON says OK for every
    engine, which means every engine gave linked-list's match pairs and
    linked-list the program's own (the synthetic completions);
  - the --matches file is a valid matching: every receive once, every
    (source, sequence) once, sequences 0..k-1 per source, and receives from
    one source take its messages in send order (MPI's non-overtaking rule);
    on `depth` it is exactly the pairing computed here from the workload's
    definition, and linked-list's search lengths and the queue length
    distribution equal the closed forms (mean (D+1)/4, max D, ...);
  - many-to-one: linked-list's mean UMQ search is long (a tenth of the ranks
    or more) and every partner engine's at least FACTOR times shorter;
  - fds (`mq synth fds`): with `--memory bounded` every partner engine keeps
    at most 2 sqrt(N) partner queues (c = 1), with `--memory unbounded`
    more, and searches shorter; rank 0's UMQ holds a whole step's messages;
  - `mq profile` writes, per source, as many queue elements as the source
    sent messages (every many-to-one message is unexpected), and replaying
    with `--profile` that file gives partner-static and partner-vectors
    exactly the figures of the profile taken from the trace itself;
  - `mq dump` prints every file; mq commands work run directly (Open MPI
    singleton) and under the launcher at one rank, and refuse two ranks;
  - bad input (missing or corrupt traces, unknown engine, bad numbers, bad
    profile, an output directory in use) gives exactly one `graphcomm:
    error: ` line, a non-zero exit and no output file (nor a temporary one).

    mq_cli.py --graphcomm BIN [--factor 3] -- LAUNCHER...
"""
import collections
import glob
import json
import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

ENGINES = ["linked-list", "rank-array", "bins", "hash", "vectors", "partner-static",
           "partner-dynamic", "partner-vectors"]
PROFILED = ["partner-static", "partner-vectors"]  # the engines that take --profile


class Runner(runner.Runner):
    def bad(self, args, expect, outputs=(), **kw):
        """One error line matching `expect`, non-zero exit, no output left."""
        proc = self.refused(args, expect, outputs, **kw)
        print(f"ok   bad input: {self.what(args, **kw)} -> {runner.error_lines(proc.stderr)[0]}")


def read_matches(path):
    rows = []
    with open(path) as f:
        for line in f:
            rank, receive, source, sequence = (int(x) for x in line.split())
            rows.append((rank, receive, source, sequence))
    return rows


def check_matching(rows, where, receives):
    """A matching of `receives` receives at rank 0; returns messages per source."""
    assert rows == sorted(rows), f"{where}: matches not sorted by rank, receive"
    assert all(r[0] == 0 for r in rows), f"{where}: a receive outside rank 0"
    assert [r[1] for r in rows] == list(range(receives)), \
        f"{where}: receives matched are not exactly 0..{receives - 1}"
    by_source = collections.defaultdict(list)
    for _, receive, source, sequence in rows:
        by_source[source].append((receive, sequence))
    for source, got in by_source.items():
        sequences = sorted(s for _, s in got)
        assert sequences == list(range(len(got))), \
            f"{where}: source {source}'s sequences are not 0..{len(got) - 1}"
    return {s: len(v) for s, v in by_source.items()}


def check_in_order(rows, where):
    """Receives from one source (one tag per step) take its messages in send order."""
    last = {}
    for _, receive, source, sequence in rows:
        assert sequence > last.get(source, -1), \
            f"{where}: receive {receive} took message {sequence} of source {source} out of order"
        last[source] = sequence


def replay(run, trace, tmp, name, extra=()):
    out_json = os.path.join(tmp, f"{name}.json")
    out_matches = os.path.join(tmp, f"{name}.matches")
    stdout = run.ok(["mq", "replay", "-q", trace, "--engine", "all", "--matches", out_matches,
                     "--json", out_json] + list(extra))
    with open(out_json) as f:
        doc = json.load(f)
    assert doc["check"] == "OK", f"{name}: check {doc['check']}: {doc['failures']}"
    engines = {e["engine"]: e for e in doc["engines"]}
    assert list(engines) == ENGINES, f"{name}: engines {list(engines)}"
    for e in doc["engines"]:
        assert e["check"] == "OK", f"{name}: {e['engine']}: {e['failures']}"
        assert re.search(rf"^{re.escape(e['engine'])} .* OK$", stdout, re.M), \
            f"{name}: no table row for {e['engine']} with check OK:\n{stdout}"
        assert e["operations"] == doc["trace"]["events"], f"{name}: {e['engine']} operations"
        assert e["ns_per_operation"] > 0, f"{name}: {e['engine']} took no time"
    assert doc["schema_version"] >= 1 and doc["ranks"] == 1 and doc["command"] == "mq replay"
    assert doc["configuration"]["profile"] == "from this trace"
    # Synthetic traces give every action its own time: nothing to reconstruct.
    for key in ("arrivals_moved", "arrivals_dropped", "receives_voided", "probes_unexplained"):
        assert doc["trace"][key] == 0, f"{name}: the reconstruction reports {key} {doc['trace'][key]}"
    assert "partner-static profile: from this trace" in stdout, f"{name}: profile source not said"
    assert "FAIL" not in stdout
    return doc, engines, read_matches(out_matches), stdout


def synth(run, tmp, name, args):
    out = os.path.join(tmp, name)
    run.ok(["mq", "synth"] + args + ["--output", out])
    return out


def test_many_to_one(run, tmp, factor):
    ranks, steps, heavy_factor = 256, 4, 32
    trace = synth(run, tmp, "many", ["many-to-one", "--ranks", str(ranks), "--messages",
                                     str(steps), "--heavy", "0.05", "--heavy-factor",
                                     str(heavy_factor), "--seed", "7"])
    files = sorted(os.listdir(trace))
    assert files == sorted(f"rank-{r}.mqt" for r in range(ranks)), f"many-to-one: files {files[:5]}"
    doc, engines, rows, stdout = replay(run, trace, tmp, "many")
    sent = check_matching(rows, "many-to-one", doc["trace"]["posts"])
    check_in_order(rows, "many-to-one")
    assert set(sent) == set(range(1, ranks)), "many-to-one: not every rank sent to rank 0"
    assert set(sent.values()) <= {steps, steps * heavy_factor}, f"many-to-one: counts {set(sent.values())}"
    heavy = sum(1 for n in sent.values() if n > steps)
    assert 0 < heavy < ranks // 5, f"many-to-one: {heavy} heavy senders"
    assert doc["trace"]["arrivals"] == doc["trace"]["posts"] == sum(sent.values())
    ll = engines["linked-list"]["umq"]["mean"]
    assert ll >= ranks / 10, f"many-to-one: linked-list mean UMQ search {ll} is not long"
    for e in ("partner-static", "partner-dynamic", "partner-vectors"):
        mine = engines[e]["umq"]["mean"]
        assert mine * factor <= ll, \
            f"many-to-one: {e} mean UMQ search {mine}, not {factor}x below linked-list's {ll}"
        assert engines[e]["partners"] > 0, f"many-to-one: {e} formed no partners"
    # Every message waits in the UMQ: its length at a post is at least 1.
    q = doc["queue_lengths"]["all"]["umq"]
    assert q["min"] >= 1 and q["max"] >= ranks - 1 and q["searches"] == doc["trace"]["posts"]
    print(f"ok   many-to-one {ranks} ranks: linked-list UMQ mean {ll:.1f}, partner-static "
          f"{engines['partner-static']['umq']['mean']:.2f}, partner-dynamic "
          f"{engines['partner-dynamic']['umq']['mean']:.2f}, partner-vectors "
          f"{engines['partner-vectors']['umq']['mean']:.2f}")

    # Profile round trip: counts are messages per source; --profile gives the same run.
    profile = os.path.join(tmp, "many.profile")
    run.ok(["mq", "profile", trace, "--output", profile])
    counts = {}
    with open(profile) as f:
        lines = [l.split() for l in f if l.strip() and not l.startswith("#")]
    assert lines[0][0] == "graphcomm-mq-profile", f"profile header {lines[0]}"
    for comm, source, count in lines[1:]:
        assert comm == "0"
        counts[int(source)] = int(count)
    assert counts == sent, "profile: queue elements per source differ from messages per source"
    for e in PROFILED:
        out_json = os.path.join(tmp, f"many-profiled-{e}.json")
        stdout = run.ok(["mq", "replay", "-q", trace, "--engine", e, "--profile", profile,
                         "--json", out_json])
        assert f"partner-static profile: {profile}" in stdout
        with open(out_json) as f:
            (mine,) = json.load(f)["engines"]
        for key in ("prq", "umq", "partners", "memory_overhead_bytes"):
            assert mine[key] == engines[e][key], \
                f"--profile: {e}'s {key} differs from the profile taken from the trace"
    print("ok   profile round trip")
    return trace, profile


def test_fds_regimes(run, tmp):
    """synth fds and the partner engines' two memory regimes: bounded keeps at
    most c * sqrt(N) partners per side, unbounded every one the metric finds,
    and both match as linked-list does."""
    ranks, steps = 256, 2
    trace = synth(run, tmp, "fds", ["fds", "--ranks", str(ranks), "--steps", str(steps),
                                    "--seed", "3"])
    cap = int(math.sqrt(ranks))
    docs = {}
    for memory in ("bounded", "unbounded"):
        doc, engines, rows, stdout = replay(run, trace, tmp, f"fds-{memory}",
                                            ["--memory", memory, "--passes", "1"])
        assert f"memory {memory}" in stdout, f"fds: the regime is not said:\n{stdout}"
        check_in_order(rows, f"fds {memory}")
        # Every message of a step waits before rank 0's first receive.
        q = doc["queue_lengths"]["all"]["umq"]
        assert q["max"] == doc["trace"]["arrivals"] // steps, f"fds: longest UMQ {q['max']}"
        docs[memory] = engines
    for e in ("partner-static", "partner-vectors"):
        bounded, unbounded = docs["bounded"][e], docs["unbounded"][e]
        assert 0 < bounded["partners"] <= 2 * cap, f"fds: {e} bounded has {bounded['partners']} queues"
        assert unbounded["partners"] > 2 * cap, f"fds: {e} unbounded has {unbounded['partners']} queues"
        assert unbounded["umq"]["mean"] < bounded["umq"]["mean"], f"fds: {e} unbounded searches longer"
    dyn_b, dyn_u = docs["bounded"]["partner-dynamic"], docs["unbounded"]["partner-dynamic"]
    assert 0 < dyn_b["partners"] <= 2 * cap < dyn_u["partners"], \
        f"fds: partner-dynamic partner queues {dyn_b['partners']} bounded, {dyn_u['partners']} unbounded"
    stdout = run.ok(["mq", "replay", "-q", trace, "--engine", "partner-dynamic", "--metric", "fence",
                     "--alpha", "0", "--passes", "1"])
    assert "metric fence (alpha 0)" in stdout, f"fds: alpha not said:\n{stdout}"
    print(f"ok   fds {ranks} ranks: partner queues bounded {docs['bounded']['partner-static']['partners']}"
          f" / unbounded {docs['unbounded']['partner-static']['partners']} (static), "
          f"{dyn_b['partners']} / {dyn_u['partners']} (dynamic); mean UMQ search linked-list "
          f"{docs['bounded']['linked-list']['umq']['mean']:.1f}, static unbounded "
          f"{docs['unbounded']['partner-static']['umq']['mean']:.1f}")


def test_depth(run, tmp):
    depth, ranks = 200, 5
    senders = ranks - 1
    trace = synth(run, tmp, "depth", ["depth", "--depth", str(depth), "--ranks", str(ranks)])
    doc, engines, rows, _ = replay(run, trace, tmp, "depth")
    # Receive i (0..D-1) waits for message i of source 1 + i % S; messages
    # come in the reverse order. Then D messages come first and receive
    # D + k takes message D-1-k.
    source = lambda i: 1 + i % senders
    sends = collections.defaultdict(list)  # per source: message ids in send order
    for i in reversed(range(depth)):
        sends[source(i)].append(("prq", i))
    for i in range(depth):
        sends[source(i)].append(("umq", i))
    sequence = {(s, m): q for s, ms in sends.items() for q, m in enumerate(ms)}
    want = [(0, i, source(i), sequence[(source(i), ("prq", i))]) for i in range(depth)]
    want += [(0, depth + k, source(depth - 1 - k), sequence[(source(depth - 1 - k),
                                                             ("umq", depth - 1 - k))])
             for k in range(depth)]
    assert rows == want, "depth: the matches differ from the workload's definition"
    ll = engines["linked-list"]
    for side in ("prq", "umq"):
        assert ll[side]["searches"] == 2 * depth, f"depth: {side} searches {ll[side]['searches']}"
        assert ll[side]["traversed"] == depth * (depth + 1) // 2, f"depth: {side} traversed"
        assert ll[side]["max"] == depth and ll[side]["length_max"] == depth
        assert abs(ll[side]["mean"] - (depth + 1) / 4) < 1e-9
        q = doc["queue_lengths"]["all"][side]
        # Lengths seen: D zeros, and D, D-1, ..., 1.
        assert (q["searches"], q["min"], q["median"], q["max"]) == (2 * depth, 0, 0, depth), q
        assert q["p90"] == -(-9 * 2 * depth // 10) - depth, q
    for e, figures in engines.items():
        assert figures["prq"]["searches"] == figures["umq"]["searches"] == 2 * depth, e
    print(f"ok   depth {depth}: exact matches and linked-list search lengths")


def test_wildcard(run, tmp):
    ranks, steps = 32, 6
    trace = synth(run, tmp, "wild", ["wildcard", "--ranks", str(ranks), "--messages", str(steps),
                                     "--fraction", "0.3", "--probes", "0.2", "--seed", "3"])
    doc, engines, rows, stdout = replay(run, trace, tmp, "wild")
    sent = check_matching(rows, "wildcard", doc["trace"]["posts"])
    assert sent == {s: steps for s in range(1, ranks)}, "wildcard: messages per source"
    assert doc["trace"]["probes"] > 0, "wildcard: no probes"
    assert doc["queue_lengths"]["all"]["prq"]["max"] > 0 and \
        doc["queue_lengths"]["all"]["umq"]["max"] > 0, "wildcard: one queue never used"
    print(f"ok   wildcard: {doc['trace']['posts']} receives, {doc['trace']['probes']} probes, "
          "every engine agrees")
    return trace


def test_dump_and_ranks(run, tmp, trace):
    out = run.ok(["mq", "dump", os.path.join(trace, "rank-0.mqt")])
    assert len(out.splitlines()) > 10, "dump: too little output"
    whole = run.ok(["mq", "dump", trace])
    assert len(whole) > len(out), "dump of a directory prints less than of one file"
    # Singleton (no launcher) and one rank under the launcher give the same replay.
    a = run.ok(["mq", "replay", "-q", trace, "--engine", "linked-list", "--passes", "1"],
               direct=True)
    b = run.ok(["mq", "replay", "-q", trace, "--engine", "linked-list", "--passes", "1"])
    strip = lambda s: [l.split()[:5] for l in s.splitlines() if l.startswith("linked-list")]
    assert strip(a) == strip(b) and strip(a), "singleton and launcher runs differ"
    print("ok   dump; replay as a singleton and under the launcher")


def test_bad_input(run, tmp, trace, profile):
    j = os.path.join(tmp, "bad.json")
    m = os.path.join(tmp, "bad.matches")
    outs = (j, m)
    replay = lambda *a: ["mq", "replay", "-q"] + list(a) + ["--json", j, "--matches", m]
    run.bad(replay(os.path.join(tmp, "no-such-dir")), "no-such-dir", outs)
    run.bad(replay(trace, "--engine", "bogus"), "bogus", outs)
    run.bad(replay(trace, "--t", "abc"), r"--t", outs)
    run.bad(replay(trace, "--t", "-1"), r"--t", outs)
    run.bad(replay(trace, "--c", "-1"), r"--c", outs)
    run.bad(replay(trace, "--metric", "mode"), r"--metric", outs)
    run.bad(replay(trace, "--memory", "some"), r"--memory", outs)
    run.bad(replay(trace, "--alpha", "-1"), r"--alpha", outs)
    run.bad(replay(trace, "--profile", os.path.join(tmp, "nothing.profile")), "nothing.profile",
            outs)
    bad_profile = os.path.join(tmp, "bad.profile")
    with open(profile) as f, open(bad_profile, "w") as g:
        g.write(f.read() + "0 1 x\n")
    run.bad(replay(trace, "--profile", bad_profile), re.escape(bad_profile) + r":\d+: ", outs)
    run.bad(replay(trace), "mq commands are serial: run with one rank", outs, ranks=2)

    # Damaged traces: a byte flipped in the middle of a file; a file cut short
    # in its header; a rank's file missing from the run.
    for name, damage in (("flipped", "flip"), ("cut", "cut"), ("missing", "remove")):
        copy = os.path.join(tmp, f"bad-{name}")
        shutil.copytree(trace, copy)
        victim = os.path.join(copy, "rank-0.mqt")
        with open(victim, "rb") as f:
            data = bytearray(f.read())
        if damage == "flip":
            data[len(data) // 2] ^= 0xFF
            with open(victim, "wb") as f:
                f.write(data)
        elif damage == "cut":
            with open(victim, "wb") as f:
                f.write(data[:6])
        else:
            os.remove(os.path.join(copy, "rank-1.mqt"))
        expect = "rank.?1" if damage == "remove" else re.escape(victim)
        run.bad(replay(copy), expect, outs)
        if damage != "remove":
            run.bad(["mq", "dump", victim], re.escape(victim))
    run.bad(["mq", "dump", os.path.join(tmp, "none.mqt")], "none.mqt")

    # synth: bad numbers and an output directory that is in use.
    out = os.path.join(tmp, "new-trace")
    run.bad(["mq", "synth", "many-to-one", "--ranks", "1", "--output", out], "--ranks", [out])
    run.bad(["mq", "synth", "many-to-one", "--heavy", "2", "--output", out], "--heavy", [out])
    run.bad(["mq", "synth", "depth", "--depth", "0", "--output", out], "--depth", [out])
    run.bad(["mq", "synth", "fds", "--meshes-min", "3", "--meshes-max", "2", "--output", out],
            "--meshes-min", [out])
    run.bad(["mq", "synth", "fds", "--messages", "0", "--output", out], "--messages", [out])
    run.bad(["mq", "synth", "wildcard", "--fraction", "x", "--output", out], "--fraction", [out])
    run.bad(["mq", "synth", "depth", "--output", os.path.join(tmp, "no", "such", "dir")],
            "no/such")
    before = sorted(os.listdir(trace))
    run.bad(["mq", "synth", "depth", "--output", trace], "exists and is not empty")
    assert sorted(os.listdir(trace)) == before, "synth touched an existing trace"
    assert not glob.glob(trace.rstrip("/") + ".tmp.*"), "synth left a temporary directory"
    prof = os.path.join(tmp, "p.out")
    run.bad(["mq", "profile", os.path.join(tmp, "no-such-dir"), "--output", prof], "no-such-dir",
            [prof])


def main():
    ap = runner.parser(__doc__)
    ap.add_argument("--factor", type=float, default=3.0,
                    help="partner engines' mean UMQ search at least this many times shorter")
    args = runner.parse(ap)
    run = Runner(args.graphcomm, args.launcher, strict=True)
    with runner.workdir("mq-cli") as tmp:
        trace, profile = test_many_to_one(run, tmp, args.factor)
        test_depth(run, tmp)
        test_fds_regimes(run, tmp)
        wild = test_wildcard(run, tmp)
        test_dump_and_ranks(run, tmp, wild)
        test_bad_input(run, tmp, trace, profile)
    print("mq_cli: all checks passed")
    return 0


if __name__ == "__main__":
    runner.main(main)

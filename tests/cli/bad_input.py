#!/usr/bin/env python3
"""The bad-input contract of graphcomm, checked end to end at 1, 2, 3 and 4 ranks.

For every bad input (a file written here into a temporary directory, a bad
generator spec, a bad option) graphcomm must:
  - exit non-zero, and do so within a time limit (a hang is a failure);
  - print exactly ONE line starting with `graphcomm: error: ` on stderr,
    counted over all ranks, and that line must say what and where (e.g.
    `FILE:LINE: ...` with the right line number for a parse error, also when
    the bad line lies in the last rank's share of a file split over 4 ranks,
    and in a gzip file);
  - for `graph convert --output OUT`: leave neither OUT nor any OUT.tmp.*.
A few inputs at the edge of validity must instead SUCCEED at every rank count
(more ranks than vertices; a Matrix Market file with rows but no entries),
with the right figures and no error line.

Why this cannot pass by accident: each case names the exact error text it
expects (matched as a regular expression against the one error line), every
case is run at every rank count, and the files are generated here, with
their bad line numbers computed from how they were written, not taken from
graphcomm. Standard library only; nothing of the project's is used but the
way graphcomm is launched (runner.py).

Usage: bad_input.py --graphcomm BIN [--ranks 1,2,3,4] [--jobs N] [--only SUBSTRING]
                    -- LAUNCHER...
(the launcher, e.g. `scripts/gcrun --mpi openmpi`, is called with -np P).
"""

import concurrent.futures
import gzip
import json
import os
import random
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

RUN_TIMEOUT = 60  # seconds; graphcomm must have finished by then
RANK_DIR = "np{np}"  # runs at different rank counts write into their own directory


# ---------------------------------------------------------------- input files


def write(path, text, compress=False):
    data = text.encode() if isinstance(text, str) else text
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if compress else data)
    return path


def matrix_market(entries, rows, field="pattern", comments=1, promised=None):
    """A Matrix Market text: banner, `comments` comment lines, size line and
    the given entry lines. Returns (text, line number of entry 0)."""
    head = [f"%%MatrixMarket matrix coordinate {field} general"]
    head += [f"% comment {i}" for i in range(comments)]
    head.append(f"{rows} {rows} {len(entries) if promised is None else promised}")
    return "\n".join(head + entries) + "\n", len(head) + 1


def big_body(count, rows, seed, base, comment_every=0, comment="%"):
    """`count` deterministic entry lines `u v` (ids from `base`), with a
    comment line after every `comment_every` entries when non-zero."""
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        lines.append(f"{rng.randrange(rows) + base} {rng.randrange(rows) + base}")
        if comment_every and i % comment_every == comment_every - 1:
            lines.append(f"{comment} a comment in the body")
    return lines


def mel_file(nv, ne, offsets, records, extra=b""):
    """A mel binary graph: int64 nv, ne, offsets[nv+1], {int64, double}[ne]."""
    data = struct.pack("<qq", nv, ne) + struct.pack(f"<{len(offsets)}q", *offsets)
    for target, weight in records:
        data += struct.pack("<qd", target, weight)
    return data + extra


# ---------------------------------------------------------------- cases


class Case:
    """One invocation of graphcomm and what must come of it.

    args: the graphcomm arguments. expect: a regular expression the error
    line (without its prefix) must match (re.search), or None for a case that
    must succeed. output: the convert output that must not exist afterwards
    (or must, for a successful convert). check_json: for successful
    `graph stats` runs, {dotted.field: value} the JSON must hold. In args and
    output, "{np}" stands for the rank count.
    """

    def __init__(self, name, args, expect, output=None, check_json=None):
        self.name, self.args, self.expect = name, args, expect
        self.output, self.check_json = output, check_json or {}


def at_line(path, line, message):
    """The regex of a parse error at FILE:LINE, message given literally."""
    return "^" + re.escape(f"{path}:{line}: {message}") + "$"


def literal(text):
    return re.escape(text)


class Builder:
    """Writes the input files into `tmp` and collects the cases."""

    def __init__(self, tmp, rank_counts):
        self.tmp = tmp
        self.out_dir = os.path.join(tmp, "out", RANK_DIR)
        for ranks in rank_counts:
            os.makedirs(self.out_dir.format(np=ranks))
        self.cases = []

    def path(self, name):
        return os.path.join(self.tmp, name)

    def stats(self, name, graph, expect, extra=(), check_json=None):
        self.cases.append(Case(f"stats/{name}", ["graph", "stats", "--graph", graph, *extra],
                               expect, check_json=check_json))

    def convert(self, name, graph, expect, output_name=None, extra=()):
        out = os.path.join(self.out_dir, output_name or f"{name}.mtx")
        self.cases.append(Case(f"convert/{name}",
                               ["graph", "convert", "--graph", graph, "--output", out, *extra],
                               expect, output=out))

    def bad(self, name, graph, expect, also_stats=False):
        """A bad input: refused by `graph convert` (which must then leave no
        output behind) and, for a representative few, by `graph stats` too
        (both load through the same code; every failing run costs mpirun 1-2 s)."""
        self.convert(name, graph, expect)
        if also_stats:
            self.stats(name, graph, expect)


def file_cases(b):
    """Files that cannot be opened or are not what their name says."""
    missing = b.path("missing.mtx")
    b.bad("missing-file", missing, literal(f"{missing}: cannot open: No such file or directory"),
          also_stats=True)
    missing_mel = b.path("missing.mel")
    b.bad("missing-mel", missing_mel,
          literal(f"{missing_mel}: cannot open: No such file or directory"))
    for name in ("dir.mtx", "dir.txt.gz", "dir.mel", "dir.gcg"):
        d = b.path(name)
        os.mkdir(d)
        b.bad(f"directory-{name}", d, "^" + literal(f"{d}: is a directory") + "$",
              also_stats=name.endswith(".mel"))
    odd = write(b.path("graph.xyz"), "0 1\n")
    b.stats("unknown-extension", odd, literal("file format cannot be told from the name"))


def matrix_market_cases(b):
    """Header and entry errors of Matrix Market files, small files."""
    p = write(b.path("banner-missing.mtx"), "%MatrixMarket matrix coordinate pattern general\n"
              "3 3 1\n1 2\n")
    b.bad("mm-banner-single-percent", p, at_line(
        p, 1, "not a Matrix Market file (the first line must be the %%MatrixMarket banner)"))
    p = write(b.path("banner-short.mtx"), "%%MatrixMarket matrix coordinate pattern\n3 3 1\n1 2\n")
    b.bad("mm-banner-short", p, at_line(
        p, 1, "malformed banner (expected: %%MatrixMarket matrix coordinate <field> <symmetry>)"))
    p = write(b.path("banner-array.mtx"), "%%MatrixMarket matrix array real general\n3 3\n1\n")
    b.bad("mm-banner-array", p, "^" + re.escape(f"{p}:1: unsupported format 'array'"))

    text, _ = matrix_market([], 3, comments=2)
    p = write(b.path("size-two-fields.mtx"), text.replace("3 3 0", "3 3"))
    b.bad("mm-size-two-fields", p,
          at_line(p, 4, "malformed size line (expected: rows cols entries)"), also_stats=True)
    p = write(b.path("size-not-number.mtx"), text.replace("3 3 0", "3 3 x"))
    b.bad("mm-size-not-number", p,
          at_line(p, 4, "malformed size line (expected three non-negative integers)"))
    p = write(b.path("size-missing.mtx"), "%%MatrixMarket matrix coordinate pattern general\n"
              "% only comments\n")
    b.bad("mm-size-missing", p, at_line(p, 3, "missing size line (rows cols entries)"))
    p = write(b.path("empty.mtx"), "")
    b.bad("mm-empty-file", p,
          at_line(p, 1, "empty file (expected a %%MatrixMarket banner)"))

    entries = ["1 2", "2 3", "3 4", "4 5", "5 1"]
    def with_entry(name, index, bad, message, field="pattern"):
        lines = list(entries)
        if field != "pattern":
            lines = [f"{e} 1.5" for e in lines]
        lines[index] = bad
        text, first = matrix_market(lines, 5, field=field, comments=3)
        p = write(b.path(name), text)
        b.bad(name.replace(".mtx", ""), p, at_line(p, first + index, message))

    with_entry("mm-entry-three-fields.mtx", 2, "3 4 7", "expected 2 fields, found 3")
    with_entry("mm-entry-one-field.mtx", 4, "5", "expected 2 fields, found 1")
    with_entry("mm-entry-bad-id.mtx", 1, "2 three", "malformed vertex id 'three'")
    with_entry("mm-id-too-large.mtx", 3, "4 6", "vertex id 6 out of range 1..5")
    with_entry("mm-id-zero.mtx", 1, "0 3", "vertex id 0 out of range (ids are 1-based)")
    with_entry("mm-negative-weight.mtx", 2, "3 4 -2.5", "negative weight -2.5", field="real")
    with_entry("mm-nan-weight.mtx", 2, "3 4 nan", "weight is NaN", field="real")
    with_entry("mm-inf-weight.mtx", 4, "5 1 inf", "weight 'inf' is not finite", field="real")
    with_entry("mm-bad-weight.mtx", 0, "1 2 heavy", "malformed weight 'heavy'", field="real")

    text, _ = matrix_market(entries[:4], 5, promised=5)
    p = write(b.path("mm-too-few.mtx"), text)
    b.bad("mm-fewer-entries", p,
          "^" + literal(f"{p}: the size line promises 5 entries, the file has 4") + "$")
    text, _ = matrix_market(entries, 5, promised=4)
    p = write(b.path("mm-too-many.mtx"), text)
    b.bad("mm-more-entries", p,
          "^" + literal(f"{p}: the size line promises 4 entries, the file has 5") + "$")
    text, _ = matrix_market([], 10**12)
    p = write(b.path("mm-huge-rows.mtx"), text)
    b.bad("mm-huge-rows", p, "^" + literal(f"graph '{p}' with 1000000000000 vertices needs an "
                                           "estimated "))


def split_file_cases(b):
    """Bad lines in files large enough to be split over 4 ranks: the line
    number must be the file's, whichever rank parsed it; with two bad lines
    the first in file order wins."""
    rows, count = 1000, 6000
    body = big_body(count, rows, seed=7, base=1, comment_every=97)
    for where, fraction in (("end", None), ("middle", 0.6), ("start", 0.01)):
        lines = list(body)
        index = len(lines) - 2 if fraction is None else int(len(lines) * fraction)
        if lines[index].startswith("%"):
            index += 1
        lines[index] = "17 abc"
        entries = sum(1 for l in lines if not l.startswith("%"))
        text, first = matrix_market(lines, rows, comments=4, promised=entries)
        for suffix, compress in ((".mtx", False), (".mtx.gz", True)):
            p = write(b.path(f"big-bad-{where}{suffix}"), text, compress)
            b.bad(f"big-mm-bad-{where}{suffix}", p,
                  at_line(p, first + index, "malformed vertex id 'abc'"),
                  also_stats=(where == "end"))

    lines = list(body)
    early, late = len(lines) // 3, len(lines) - 5
    lines[early] = "3 0"
    lines[late] = "1 2 3 4"
    text, first = matrix_market(lines, rows, promised=sum(1 for l in lines if l[0] != "%"))
    p = write(b.path("big-two-bad.mtx"), text)
    b.bad("big-mm-two-bad-lines", p,
          at_line(p, first + early, "vertex id 0 out of range (ids are 1-based)"))
    p = write(b.path("big-two-bad-crlf.mtx.gz"), text.replace("\n", "\r\n"), compress=True)
    b.bad("big-mm-two-bad-lines-crlf-gz", p,
          at_line(p, first + early, "vertex id 0 out of range (ids are 1-based)"))

    el = ["# an edge list", "# with a header"] + big_body(count, rows, 11, 0, 101, "#")
    index = len(el) - 3
    el[index] = "42"
    for suffix, compress in ((".txt", False), (".txt.gz", True)):
        p = write(b.path(f"big-el-one-field{suffix}"), "\n".join(el) + "\n", compress)
        b.bad(f"big-el-one-field{suffix}", p,
              at_line(p, index + 1, "expected 2 to 3 fields, found 1"), also_stats=compress)


def edge_list_cases(b):
    p = write(b.path("el-one-field.txt"), "# comment\n0 1\n1 2\n5\n2 3\n")
    b.bad("el-one-field", p, at_line(p, 4, "expected 2 to 3 fields, found 1"))
    p = write(b.path("el-negative.txt"), "0 1\n-1 2\n")
    b.bad("el-negative-id", p, at_line(p, 2, "malformed vertex id '-1'"))
    p = write(b.path("el-huge-id.txt"), "0 1\n1 1000000000000\n")
    b.bad("el-huge-id", p, "^" + literal(f"graph '{p}' with 1000000000001 vertices needs an "
                                         "estimated "), also_stats=True)
    for name, text in (("el-empty.txt", ""), ("el-comments-only.txt", "# nothing\n% here\n\n"),
                       ("el-empty.txt.gz", None)):
        p = write(b.path(name), text if text is not None else b"", compress=text is None)
        b.bad(name.replace(".", "-"), p, "^" + literal(f"{p}: empty graph (no vertices)") + "$",
              also_stats=(name == "el-comments-only.txt"))
    p = write(b.path("tsv-id-zero.tsv"), "1\t2\t1\n0\t2\t1\n")
    b.bad("tsv-id-zero", p, at_line(p, 2, "vertex id 0 out of range (ids are 1-based)"))
    p = write(b.path("tsv-two-fields.tsv"), "1\t2\t1\n2\t3\n")
    b.bad("tsv-two-fields", p, at_line(p, 2, "expected 3 fields, found 2"))


def gzip_cases(b):
    """Damaged gzip files must be refused, never read as a shorter graph."""
    good = gzip.compress(("\n".join(big_body(3000, 500, 3, 0)) + "\n").encode())
    p = write(b.path("garbage.txt.gz"), b"\x1f\x8b" + bytes(range(256)) * 4)
    b.bad("gzip-garbage", p, "^" + literal(f"{p}: corrupt gzip data: "))
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 0xFF
    p = write(b.path("flipped.txt.gz"), bytes(flipped))
    b.bad("gzip-bit-flip", p, "^" + literal(f"{p}: corrupt gzip data: "))
    ends_early = lambda p: "^" + literal(f"{p}: corrupt gzip data: unexpected end of file") + "$"
    p = write(b.path("truncated.txt.gz"), good[: len(good) // 2])
    b.bad("gzip-truncated", p, ends_early(p), also_stats=True)
    p = write(b.path("no-trailer.txt.gz"), good[:-4])
    b.bad("gzip-trailer-missing", p, ends_early(p))


def binary_cases(b):
    p = write(b.path("short.mel"), b"\x01" * 8)
    b.bad("mel-too-short", p, literal(f"{p}: too short for a mel binary graph (8 bytes)"))
    p = write(b.path("inconsistent.mel"), mel_file(10, 1000, [0] * 11, []))
    b.bad("mel-inconsistent-header", p, literal(
        f"{p}: not a mel binary graph (header nv=10 ne=1000 implies 16104 bytes, the file has 104)"),
          also_stats=True)
    # Consistent size, bad contents: offsets that decrease; a target out of range.
    p = write(b.path("offsets.mel"), mel_file(4, 4, [0, 2, 1, 4, 4], [(1, 1.0)] * 4))
    b.bad("mel-bad-offsets", p, literal(f"{p}: offsets of vertex 1 are not increasing"))
    p = write(b.path("target.mel"), mel_file(4, 2, [0, 1, 2, 2, 2], [(1, 1.0), (9, 1.0)]))
    b.bad("mel-target-out-of-range", p,
          literal(f"{p}: edge 0 of vertex 1 has target 9 out of range 0..3"))
    p = write(b.path("bad-magic.gcg"), b"NOTAGCG!" + b"\0" * 120)
    b.bad("gcg-bad-magic", p, literal(f"{p}: not a graphcomm binary graph (bad magic)"))


def spec_and_option_cases(b):
    b.bad("rmat-too-big", "rmat:40", "^" + literal("graph 'rmat:40' needs an estimated "),
          also_stats=True)
    b.bad("rmat-not-a-number", "rmat:abc",
          "^" + literal("graph 'rmat:abc': SCALE 'abc' is not a valid number") + "$")
    b.bad("rmat-unknown-parameter", "rmat:20,zz=1",
          "^" + literal("graph 'rmat:20,zz=1': unknown parameter 'zz'") + "$", also_stats=True)
    b.bad("rmat-scramble-not-0-or-1", "rmat:10,scramble=2",
          "^" + literal("graph 'rmat:10,scramble=2': scramble must be 0 or 1") + "$")
    b.bad("rmat-parameter-not-key-value", "rmat:10,ef",
          "^" + literal("graph 'rmat:10,ef': parameter 'ef' is not key=value") + "$")
    b.bad("rgg-zero", "rgg:0", "^" + literal("graph 'rgg:0': N must be at least 1") + "$")
    b.bad("er-bad-probability", "er:100,p=2", literal("p must be in [0,1]"))
    b.bad("grid-bad-dimension", "grid:10,d=9",
          "^" + literal("graph 'grid:10,d=9': d must be between 1 and 6") + "$")
    b.bad("grid-too-many-vertices", "grid:100000,d=6", literal("SIDE^d below 2^40"))
    b.stats("unknown-option", "rgg:10", literal("--bogus"), extra=["--bogus"])
    b.stats("bad-distribution", "rgg:10", literal("--distribution"),
            extra=["--distribution", "diagonal"])
    b.convert("convert-unknown-output-format", "rgg:10",
              literal("cannot tell the output format from the name"), output_name="out.xyz")
    b.convert("convert-output-dir-missing", "rgg:10", literal("cannot open"),
              output_name=os.path.join("no-such-dir", "out.mtx"))
    b.cases.append(Case("stats/missing-graph-option", ["graph", "stats"], literal("--graph")))
    b.stats("reorder-and-partition", "rgg:50", literal("--reorder rcm and --partition metis: "
                                                       "choose one"),
            extra=["--reorder", "rcm", "--partition", "metis"])
    b.stats("parts-with-partition", "rgg:50", literal("--parts cuts ranges of the vertex order; "
                                                      "with --partition metis the parts are the ranks"),
            extra=["--partition", "metis", "--parts", "8"])
    b.stats("negative-unsigned-seed", "rgg:50", "^" + literal("--seed: must not be negative, not -1")
            + "$", extra=["--seed", "-1"])
    b.cases.append(Case("mq/negative-depth",
                        ["mq", "synth", "depth", "--depth", "-3", "--output",
                         os.path.join(b.out_dir, "never")],
                        "^" + literal("--depth: must not be negative, not -3") + "$"))
    b.stats("parts-zero", "rgg:50", literal("--parts: Value 0 not in range"), extra=["--parts", "0"])
    b.cases.append(Case("match/unknown-partitioner",
                        ["match", "--graph", "rgg:10", "--partition", "chaco"],
                        literal("--partition: chaco not in")))
    b.cases.append(Case("bfs/unknown-reordering", ["bfs", "--graph", "rgg:10", "--reorder", "amd"],
                        literal("--reorder: amd not in")))
    b.cases.append(Case("match/negative-round-messages",
                        ["match", "--graph", "rgg:10", "--round-messages", "-1"],
                        literal("--round-messages")))
    b.cases.append(Case("bfs/unknown-plan-build",
                        ["bfs", "--graph", "rgg:10", "--plan-build", "sideways"],
                        literal("--plan-build: sideways not in")))
    b.cases.append(Case("match/unknown-algorithm",
                        ["match", "--graph", "rgg:10", "--algorithm", "greedy"],
                        "^" + literal("--algorithm: unknown matching algorithm 'greedy' "
                                      "(ld, suitor or all)") + "$"))
    missing = b.path("no-such-calibration.json")
    b.cases.append(Case("advise/missing-calibration",
                        ["advise", "--graph", "rgg:10", "--calibration", missing],
                        "^" + literal(f"{missing}: no such calibration file: make it with "
                                      "`graphcomm advise --calibrate`")))
    b.cases.append(Case("match/auto-without-calibration",
                        ["match", "--graph", "rgg:10", "--model", "auto", "--calibration", missing],
                        "^" + literal(f"{missing}: no such calibration file")))
    bad = write(b.path("bad-calibration.json"), "{not json")
    b.cases.append(Case("advise/bad-calibration",
                        ["advise", "--graph", "rgg:10", "--calibration", bad],
                        "^" + literal(f"{bad}: not a graphcomm calibration file")))
    empty = write(b.path("empty-calibration.json"),
                  '{"schema_version": 1, "name": "empty", "samples": []}')
    b.cases.append(Case("bfs/auto-no-samples",
                        ["bfs", "--graph", "rgg:10", "--model", "auto", "--calibration", empty],
                        "^" + literal("calibration empty: no bfs sample of a configuration this "
                                      "build runs")))
    b.cases.append(Case("advise/ranks-with-partition",
                        ["advise", "--graph", "rgg:10", "--partition", "metis", "--ranks", "1000",
                         "--calibration", missing],
                        "^" + literal("--ranks 1000: with --partition metis the parts are the "
                                      "ranks; run advise on 1000 ranks") + "$"))
    b.cases.append(Case("advise/unknown-kernel", ["advise", "--graph", "rgg:10", "--kernel", "sssp"],
                        literal("--kernel: sssp not in")))


def positive_cases(b):
    """Inputs at the edge of validity that must work at every rank count."""
    text, _ = matrix_market(["1 2", "2 3", "3 3"], 3)
    p = write(b.path("three.mtx"), text)
    b.stats("ok-three-vertices", p, None, check_json={
        "graph.vertices": 3, "graph.edges": 2, "graph.isolated_vertices": 0})
    b.convert("ok-three-vertices", p, None)
    text, _ = matrix_market([], 5)
    p = write(b.path("rows-no-entries.mtx"), text)
    b.stats("ok-rows-no-entries", p, None, check_json={
        "graph.vertices": 5, "graph.edges": 0, "graph.isolated_vertices": 5,
        "distribution.cut_edges": 0, "process_graph.edges": 0})
    b.convert("ok-rows-no-entries", p, None)
    p = write(b.path("loops-only.txt"), "0 0\n3 3\n")
    b.stats("ok-self-loops-only", p, None, check_json={
        "graph.vertices": 4, "graph.edges": 0, "graph.isolated_vertices": 4})


def all_cases(tmp, rank_counts):
    b = Builder(tmp, rank_counts)
    for add in (file_cases, matrix_market_cases, split_file_cases, edge_list_cases, gzip_cases,
                binary_cases, spec_and_option_cases, positive_cases):
        add(b)
    return b.cases


# ---------------------------------------------------------------- running


def json_field(doc, dotted):
    for key in dotted.split("."):
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def check(run, case, ranks, proc, json_path, output):
    """The contract for one run; returns a list of problems (empty: fine)."""
    if case.expect is not None:
        return run.refusal_problems(proc, case.expect, [output] if output else [])
    if proc.returncode is None:
        return [run.status(proc)]
    problems = []
    if proc.returncode != 0:
        problems.append(f"exit status {proc.returncode}, expected success")
    error_lines = runner.error_lines(proc.stderr)
    if error_lines:
        problems.append(f"error lines on success: {error_lines}")
    if json_path and not problems:
        with open(json_path) as f:
            doc = json.load(f)
        for field, value in case.check_json.items():
            if json_field(doc, field) != value:
                problems.append(f"{field} = {json_field(doc, field)!r}, expected {value!r}")
        if doc.get("ranks") != ranks:
            problems.append(f"ranks = {doc.get('ranks')!r}, expected {ranks}")
    if output:
        if not os.path.exists(output):
            problems.append(f"output {output} missing after success")
        if runner.temporaries(output):
            problems.append(f"temporary files left behind: {runner.temporaries(output)}")
    return problems


def run_case(run, case, ranks, tmp):
    """Runs one case at one rank count; returns (report lines, seconds)."""
    args = [a.replace("{np}", str(ranks)) for a in case.args]
    output = case.output.replace("{np}", str(ranks)) if case.output else None
    json_path = None
    if case.expect is None and args[:2] == ["graph", "stats"]:
        json_path = os.path.join(tmp, "out", RANK_DIR.format(np=ranks),
                                 case.name.replace("/", "-") + ".json")
        args += ["--json", json_path]
    start = time.monotonic()
    proc = run.run(args, ranks)
    seconds = time.monotonic() - start
    problems = check(run, case, ranks, proc, json_path, output)
    if not problems:
        return [], seconds
    report = [f"FAIL {case.name} np {ranks} ({seconds:.1f} s): graphcomm {' '.join(args)}"]
    report += [f"    {p}" for p in problems]
    report += ["    --- stderr ---"] + [f"    | {l}" for l in proc.stderr.splitlines()]
    return report, seconds


def main():
    parser = runner.parser(__doc__)
    parser.add_argument("--ranks", default="1,2,3,4", help="rank counts, comma separated")
    parser.add_argument("--jobs", type=int, default=2, help="graphcomm runs at a time")
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    args = runner.parse(parser)
    run = runner.Runner(args.graphcomm, args.launcher, RUN_TIMEOUT)
    rank_counts = [int(x) for x in args.ranks.split(",")]

    start = time.monotonic()
    failed_cases = 0
    with runner.workdir("bad-input") as tmp:
        cases = [c for c in all_cases(tmp, rank_counts) if args.only in c.name]
        if not cases:
            parser.error(f"no case matches '{args.only}'")
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [[pool.submit(run_case, run, case, ranks, tmp)
                        for ranks in rank_counts] for case in cases]
            for case, runs in zip(cases, futures):
                results = [f.result() for f in runs]
                reports = [line for report, _ in results for line in report]
                slowest = max(seconds for _, seconds in results)
                print(f"{'FAIL' if reports else 'ok  '} {case.name} (slowest {slowest:.1f} s)")
                for line in reports:
                    print(line)
                failed_cases += bool(reports)
                sys.stdout.flush()
    print(f"bad_input: {len(cases)} cases at {len(rank_counts)} rank counts, "
          f"{failed_cases} failed, {time.monotonic() - start:.0f} s")
    return 1 if failed_cases else 0


if __name__ == "__main__":
    runner.main(main)

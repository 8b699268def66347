#!/usr/bin/env python3
"""The memory a graph costs, end to end, from each command's --json (issue
#32): on a mid-size graph (rmat:18 at 2 ranks)

  - the up-front estimate (memory.estimated_peak_bytes_per_rank, what the
    load refuses a graph on) is at least the measured peak RSS of the run
    and at most 1.3 times it, for graph stats and for bfs;
  - the load's peak stays within a bound per local directed edge that a
    return to holding two copies of the edges (the input whole beside its
    shuffled copy, as before the build took its input in pieces) would
    break (30.8 bytes per local edge before, 23.7 now);
  - the graph stores 4-byte targets and no weight for BFS and statistics,
    4-byte targets and 8-byte weights for matching, 4-byte ones with
    --weights-precision float (CSR bytes per directed edge: those plus the
    offsets, amortized over about 29 edges per vertex).

    memory_cli.py --graphcomm BIN -- LAUNCHER...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

GRAPH, RANKS = "rmat:18", 2
PEAK_PER_LOCAL_EDGE = 27.0  # bytes: 23.7 measured (2026-11-27), 30.8 before


def memory_of(gc, args, tmp, name):
    path = os.path.join(tmp, f"{name}.json")
    gc.ok(list(args) + ["-q", "--json", path], RANKS)
    with open(path) as f:
        return json.load(f)["memory"]


def check_estimate(memory, where):
    estimate = memory["estimated_peak_bytes_per_rank"]
    peak = memory["peak_rss_bytes_max"]
    ratio = estimate / peak
    assert 1.0 <= ratio <= 1.3, \
        f"{where}: estimate {estimate / 2**20:.1f} MiB for a peak of {peak / 2**20:.1f} MiB " \
        f"(ratio {ratio:.2f}, want 1.0-1.3)"
    print(f"{where}: estimate {estimate / 2**20:.1f} MiB, peak {peak / 2**20:.1f} MiB, "
          f"ratio {ratio:.2f}")


def body():
    args = runner.parse(runner.parser(__doc__))
    gc = runner.Runner(args.graphcomm, args.launcher)
    with runner.workdir("memory") as tmp:
        stats = memory_of(gc, ["graph", "stats", "--graph", GRAPH], tmp, "stats")
        check_estimate(stats, f"graph stats {GRAPH}")
        per_edge = stats["peak_rss_bytes_per_local_edge_max"]
        assert per_edge <= PEAK_PER_LOCAL_EDGE, \
            f"graph stats {GRAPH}: peak {per_edge:.1f} bytes per local directed edge, " \
            f"more than {PEAK_PER_LOCAL_EDGE}"
        assert 4.0 < stats["csr_bytes_per_directed_edge"] <= 4.6, stats

        bfs = memory_of(gc, ["bfs", "--scale", "18", "--roots", "2"], tmp, "bfs")
        check_estimate(bfs, "bfs --scale 18")
        assert 4.0 < bfs["csr_bytes_per_directed_edge"] <= 4.6, bfs
        # The BFS view adds per-vertex arrays only, no copy of the rows.
        assert bfs["graph_bytes_per_directed_edge"] <= 5.5, bfs

        match = memory_of(gc, ["match", "--graph", GRAPH, "--algorithm", "suitor", "--model",
                               "nsr"], tmp, "match")
        assert 12.0 < match["csr_bytes_per_directed_edge"] <= 12.6, match
        # Float weights: 4 bytes each, and the matching still checks out
        # (--check against the serial greedy matching of the rounded weights).
        single = memory_of(gc, ["match", "--graph", GRAPH, "--algorithm", "all", "--model", "nsr",
                                "--weights-precision", "float", "--check"], tmp, "float")
        assert 8.0 < single["csr_bytes_per_directed_edge"] <= 8.6, single
    return 0


if __name__ == "__main__":
    runner.main(body)

#!/usr/bin/env python3
"""edr-latency stands in for edr where messages are small: `nbr bench` at 64
simulated ranks, 4-byte blocks, `--communication-only`, gives the same
direct and combined times on both platforms (within 2%), on a Moore
neighbourhood (agnostic) and a random one (aware). At 4 KiB it must not:
edr-latency has no bandwidth, so the check would pass for a platform that
ignores the network altogether only if the 4-byte times also agreed by
chance (standard library only).

    latency_platform.py --graphcomm SMPI_BIN --simulate SCRIPT
"""
import argparse
import json
import os
import sys
import tempfile

from simrun import run_group

CASES = [("moore:2:3", "agnostic"), ("random:0.3", "aware")]


def times(simulate, graphcomm, platform, topology, mode, work):
    """{bytes: (direct us, combined us)} of one nbr bench on one platform."""
    out = os.path.join(work, f"{platform}-{topology.replace(':', '_')}.json")
    cmd = [simulate, "-np", "64", "--platform", platform, "--communication-only", graphcomm,
           "nbr", "bench", "--topology", topology, "--mode", mode, "--plan-build", "gathered",
           "--sizes", "4,4096", "--iters", "1", "--repeat", "1", "-q", "--json", out]
    proc = run_group(cmd, 600)
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    with open(out) as f:
        result = json.load(f)
    # One repetition: each list holds one call's seconds.
    return {s["bytes"]: (s["default_seconds"][0] * 1e6, s["ours_seconds"][0] * 1e6)
            for s in result["sizes"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphcomm", required=True)
    parser.add_argument("--simulate", required=True)
    a = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for topology, mode in CASES:
            edr = times(a.simulate, a.graphcomm, "edr", topology, mode, work)
            latency = times(a.simulate, a.graphcomm, "edr-latency", topology, mode, work)
            small = [abs(x / y - 1) for x, y in zip(latency[4], edr[4])]
            large = abs(latency[4096][0] / edr[4096][0] - 1)
            ok = max(small) <= 0.02 and large > 0.1
            failed += not ok
            print(f"{'OK' if ok else 'FAILED'}: {topology} {mode}: 4 B direct/combined "
                  f"{edr[4][0]:.2f}/{edr[4][1]:.2f} us on edr, {latency[4][0]:.2f}/"
                  f"{latency[4][1]:.2f} us on edr-latency (at most 2% apart); 4 KiB direct "
                  f"{edr[4096][0]:.2f} against {latency[4096][0]:.2f} us (no bandwidth: apart)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

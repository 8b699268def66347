#!/usr/bin/env python3
"""End-to-end test of `graphcomm advise --kernel nbr` (combine or not, and
k, for a neighbour collective) at 1-4 ranks, checked by this script alone:

  - `advise --kernel nbr --calibrate` at 2, 3 and 4 ranks appends to one
    calibration file, per rank count, a direct allgather over rings of 1, 2,
    4, ... neighbours (fewer than the ranks) at 8, 2048 and 32768 bytes per
    block: 2d messages and 2d x block bytes per rank, a positive time; a
    second calibration at the same rank count replaces its calls, keeping
    the others;
  - `advise --kernel nbr --topology file:F --json` on a topology this script
    writes (rank r sends to r+1 and r+2) ranks direct with the busiest
    rank's messages and bytes counted here from the file (sends plus
    receives), each configuration's prediction the model's sum of its terms
    with the fitted costs the JSON reports, fastest first, the choice first;
  - for more ranks than run it (`--ranks 16 --ranks-per-node 16` at 1, 2
    and 3 ranks: every rank's plan built on rank 0), the same advice, to the
    last digit, as 16 ranks give running (moore:2:1 and random:0.5, where
    friend groups form); and at 64 such ranks on nodes of 16, direct's
    counts of moore:2:1 (messages, bytes, and the bytes the busiest node
    sends off it) as this script counts them on the 8 x 8 torus;
  - refused, with one error line and a non-zero exit: --ranks other than
    the running ranks without --ranks-per-node, or with a file: topology,
    or with --calibrate; --graph with --kernel nbr, --topology with another
    kernel, calibrating at 1 rank, a calibration file without network calls.

    advise_nbr_cli.py --graphcomm BIN -- LAUNCHER...
"""
import json
import os

import runner

BLOCKS = [8, 2048, 32768]
SIZES = [4, 4096]


def ring_degrees(p):
    return [d for d in (1, 2, 4, 8, 16, 32) if d <= p - 1]


def check_calibration(path, done):
    with open(path) as f:
        network = json.load(f)["network"]
    for p in done:
        calls = sorted((s["degree"], s["block"]) for s in network if s["ranks"] == p)
        want = sorted((d, b) for d in ring_degrees(p) for b in BLOCKS)
        assert calls == want, f"calibration at {p} ranks: {calls}, expected {want}"
        for s in network:
            if s["ranks"] != p:
                continue
            assert s["messages"] == 2 * s["degree"], f"{s}: messages"
            assert s["bytes"] == 2 * s["degree"] * s["block"], f"{s}: bytes"
            assert s["seconds"] > 0, f"{s}: time"
    assert len(network) == sum(len(ring_degrees(p)) * len(BLOCKS) for p in done), \
        f"{len(network)} calls in the file after {done}"


def check_advice(doc, p):
    costs = doc["network_costs"]
    # Rank r sends to r+1 and r+2 (mod p), so receives from r-1 and r-2:
    # every rank sends 2 and receives 2 messages.
    for size in doc["sizes"]:
        block = size["bytes"]
        ranked = size["ranked"]
        assert size["choice"] == ranked[0]["configuration"], size
        seconds = [c["predicted_seconds"] for c in ranked]
        assert seconds == sorted(seconds), f"{block} B: not fastest first: {seconds}"
        direct = [c for c in ranked if c["configuration"] == "direct"]
        assert len(direct) == 1, f"{block} B: direct ranked {len(direct)} times"
        assert direct[0]["messages_max"] == 4, direct[0]
        assert direct[0]["bytes_max"] == 4 * block, direct[0]
        assert direct[0]["hops"] == 1, direct[0]
        for c in ranked:
            want = (costs["per_message_seconds"] * c["messages_max"] +
                    costs["per_byte_seconds"] * c["bytes_max"] +
                    costs["per_node_byte_seconds"] * c["node_bytes_max"] +
                    costs["per_hop_seconds"] * c["hops"])
            assert abs(c["predicted_seconds"] - want) <= 1e-9 * max(want, 1e-12), \
                f"{block} B {c['configuration']}: predicted {c['predicted_seconds']}, terms {want}"
        if p <= 4:  # no friend group can save a message at 4 ranks or fewer
            assert [c["configuration"] for c in ranked] == ["direct"], ranked


def advice_json(run, tmp, cal, topology, p, extra):
    out = os.path.join(tmp, "advice-elsewhere.json")
    run.ok(["-q", "advise", "--kernel", "nbr", "--topology", topology, "--sizes",
            ",".join(map(str, SIZES)), "--calibration", cal, "--json", out, *extra], ranks=p)
    with open(out) as f:
        return json.load(f)


def moore_direct_counts(side, per_node, block):
    """moore:2:1 on a side x side torus (MPI_Dims_create's for side^2 ranks):
    each rank's 8 neighbours; the busiest node's bytes to other nodes."""
    off = {}
    for r in range(side * side):
        x, y = divmod(r, side)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    to = (x + dx) % side * side + (y + dy) % side
                    if to // per_node != r // per_node:
                        off[r // per_node] = off.get(r // per_node, 0) + block
    return 16, 16 * block, max(off.values())


def check_elsewhere(run, tmp, cal):
    for topology in ("moore:2:1", "random:0.5"):
        want = advice_json(run, tmp, cal, topology, 16, [])
        assert any(c["groups"] > 0 for s in want["sizes"] for c in s["ranked"]), \
            f"{topology} at 16 ranks: no friend group, nothing to compare"
        for p in (1, 2, 3):
            got = advice_json(run, tmp, cal, topology, p,
                              ["--ranks", "16", "--ranks-per-node", "16"])
            assert got["ranks"] == 16, got["ranks"]
            assert got["network_costs"] == want["network_costs"], (got, want)
            assert got["sizes"] == want["sizes"], \
                f"{topology}, 16 ranks advised at {p}: {got['sizes']}\nrunning: {want['sizes']}"
    doc = advice_json(run, tmp, cal, "moore:2:1", 2, ["--ranks", "64", "--ranks-per-node", "16"])
    for size in doc["sizes"]:
        [direct] = [c for c in size["ranked"] if c["configuration"] == "direct"]
        messages, nbytes, node_bytes = moore_direct_counts(8, 16, size["bytes"])
        got = (direct["messages_max"], direct["bytes_max"], direct["node_bytes_max"])
        assert got == (messages, nbytes, node_bytes), \
            f"moore:2:1 at 64 ranks, {size['bytes']} B: direct {got}, counted " \
            f"{(messages, nbytes, node_bytes)}"


def body():
    args = runner.parse(runner.parser(__doc__))
    run = runner.Runner(args.graphcomm, args.launcher)
    with runner.workdir("advise-nbr") as tmp:
        cal = os.path.join(tmp, "calibration.json")
        done = []
        for p in (2, 3, 4):
            run.ok(["-q", "advise", "--kernel", "nbr", "--calibrate", "--calibration", cal,
                    "--repeats", "1"], ranks=p)
            done.append(p)
            check_calibration(cal, done)
        run.ok(["-q", "advise", "--kernel", "nbr", "--calibrate", "--calibration", cal,
                "--repeats", "1"], ranks=3)
        check_calibration(cal, done)
        for p in (2, 3, 4):
            topology = os.path.join(tmp, f"ring{p}.txt")
            with open(topology, "w") as f:
                for r in range(p):
                    f.write(f"{r}: {(r + 1) % p} {(r + 2) % p}\n")
            out = os.path.join(tmp, f"advice{p}.json")
            text = run.ok(["advise", "--kernel", "nbr", "--topology", f"file:{topology}",
                           "--sizes", ",".join(map(str, SIZES)), "--calibration", cal,
                           "--json", out], ranks=p)
            assert "advice at 4 B: direct" in text, text
            with open(out) as f:
                check_advice(json.load(f), p)
        check_elsewhere(run, tmp, cal)
        nbr = ["advise", "--kernel", "nbr", "--calibration", cal]
        run.refused(nbr + ["--topology", "moore:2:1", "--ranks", "3"], r"--ranks-per-node",
                    ranks=2)
        run.refused(nbr + ["--topology", f"file:{os.path.join(tmp, 'ring2.txt')}", "--ranks", "3",
                           "--ranks-per-node", "1"], r"moore:D:R and random:DELTA only", ranks=2)
        run.refused(nbr + ["--calibrate", "--ranks", "3", "--ranks-per-node", "1"],
                    r"without --ranks", ranks=2)
        run.refused(nbr + ["--graph", "rmat:8", "--topology", "moore:2:1"], r"--topology", ranks=2)
        run.refused(["advise", "--graph", "rmat:8", "--topology", "moore:2:1", "--calibration",
                     cal], r"--kernel nbr", ranks=2)
        run.refused(nbr + ["--calibrate"], r"2 ranks", ranks=1)
        empty = os.path.join(tmp, "empty.json")
        with open(empty, "w") as f:
            json.dump({"schema_version": 1, "name": "x", "samples": []}, f)
        run.refused(["advise", "--kernel", "nbr", "--topology", "moore:2:1", "--calibration",
                     empty], r"calibrate --kernel nbr", ranks=2)
    return 0


if __name__ == "__main__":
    runner.main(body)

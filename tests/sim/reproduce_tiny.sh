#!/usr/bin/env bash
# `graphcomm-lab reproduce all --simulate --tiny` on the SMPI build: one line
# per claim, each a verdict or a reason it is not simulated, and every
# simulated run stored with the platform scripts/simulate reported.
set -euo pipefail
root="$1"
venv="$("$root/scripts/setup-python" | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root/python"
"$venv/bin/python" -m graphcomm_lab.cli reproduce all --simulate --tiny -q \
  --store "$work/lab.sqlite" --binary "$GRAPHCOMM_SMPI_BINARY" | tee "$work/lines"
"$venv/bin/python" - "$work/lines" "$work/lab.sqlite" <<'PY'
import sys
from graphcomm_lab.reproduce import CLAIMS
from graphcomm_lab.store import Store

lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == len(CLAIMS), f"{len(lines)} lines for {len(CLAIMS)} claims"
for line, claim in zip(lines, CLAIMS.values()):
    text, said, verdict = line.split(" | ")
    assert text == ((claim.simulation and claim.simulation.text) or claim.text), line
    if claim.simulation is None:
        assert said.startswith("not simulated: ") and verdict == "-", line
    else:
        assert said.startswith("simulated on edr"), line
        assert verdict.startswith(("holds", "does not hold", "inconclusive")), line
runs = Store(sys.argv[2]).runs()
assert runs and all(r["status"] == "ok" for r in runs), [r["error"] for r in runs]
assert all(r["result"]["simulation"]["platform"].startswith("edr") for r in runs)
print(f"OK: {len(lines)} claims, {len(runs)} simulated runs")
PY

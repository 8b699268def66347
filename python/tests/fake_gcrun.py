#!/usr/bin/env python3
"""A stand-in for scripts/gcrun + graphcomm in the lab's tests: logs its
arguments (FAKE_LOG), fails for an input containing 'fail', sends SIGINT to
the lab on call number FAKE_INTERRUPT_AT, and otherwise writes a JSON result."""
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
if "models" in args:  # the lab asks what the binary runs: the real build answers
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    real = os.environ.get("GRAPHCOMM_BINARY", root / "build" / "src" / "graphcomm")
    sys.exit(subprocess.run([str(real), *args[args.index("models"):]]).returncode)
log = os.environ["FAKE_LOG"]
with open(log, "a") as f:
    f.write(json.dumps(args) + "\n")
with open(log) as f:
    calls = sum(1 for _ in f)
if os.environ.get("FAKE_INTERRUPT_AT") == str(calls):
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(5)  # interrupted first
    sys.exit(1)
if any("fail" in a for a in args):
    print("graphcomm: error: fake failure", file=sys.stderr)
    sys.exit(1)
ranks = int(args[args.index("-np") + 1])
model = args[args.index("--model") + 1] if "--model" in args else "m"
out = args[args.index("--json") + 1]
with open(out, "w") as f:
    json.dump({"schema_version": 1, "command": " ".join(args[3:5]), "argv": args,
               "ranks": ranks, "mpi": {"library": "Fake MPI 1.0"}, "timings": {"x": 0.5},
               "runs": [{"model": model, "seconds": 2.0 if model == "ncl" else 1.0}]}, f)

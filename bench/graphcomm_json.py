"""Runs graphcomm under scripts/gcrun and returns its --json document; for the
bench scripts. Exits with the command and its stderr when it fails."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GCRUN = os.path.join(ROOT, "scripts", "gcrun")


def graphcomm(binary, ranks, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [GCRUN, "-np", str(ranks), binary] + args + ["-q", "--json", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"bench: failed: {' '.join(cmd)}\n{proc.stderr}")
        with open(out) as f:
            return json.load(f)

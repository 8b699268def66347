import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def lab_command(*args):
    return [sys.executable, "-m", "graphcomm_lab.cli", *map(str, args)]


@pytest.fixture
def write_suite(tmp_path):
    def write(text, name="suite.toml"):
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Launcher and binary of the fake; its call log."""
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    return {"launcher": HERE / "fake_gcrun.py", "binary": HERE / "fake_gcrun.py", "log": log}


def graphcomm_binary():
    """The real build (scripts/test builds it first): GRAPHCOMM_BINARY or build/src/graphcomm."""
    path = Path(os.environ.get("GRAPHCOMM_BINARY", ROOT / "build" / "src" / "graphcomm"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no graphcomm binary at {path}: build first (scripts/build)")
    return path

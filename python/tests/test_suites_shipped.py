"""Every suite shipped in python/suites parses."""
from pathlib import Path

import pytest

from graphcomm_lab.suite import load_suite

SUITES = sorted((Path(__file__).resolve().parent.parent / "suites").glob("*.toml"))


def test_there_are_suites():
    assert len(SUITES) >= 5


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.stem)
def test_shipped_suite_parses(path):
    suite = load_suite(path)
    assert suite.configs and suite.name == path.stem

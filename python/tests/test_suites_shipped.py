"""Every suite shipped in python/suites parses, and names only models the
binary runs."""
from pathlib import Path

import pytest

from conftest import graphcomm_binary
from graphcomm_lab.kernels import KERNELS, catalog
from graphcomm_lab.runner import default_launcher
from graphcomm_lab.suite import check_models, load_suite

SUITES = sorted((Path(__file__).resolve().parent.parent / "suites").glob("*.toml"))


def test_there_are_suites():
    assert len(SUITES) >= 5


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.stem)
def test_shipped_suite_parses(path):
    suite = load_suite(path)
    assert suite.configs and suite.name == path.stem
    check_models(suite, catalog(graphcomm_binary(), default_launcher()))


def test_every_model_axis_is_in_the_binarys_catalog():
    known = catalog(graphcomm_binary(), default_launcher())
    for kernel in KERNELS.values():
        if kernel.model_flag is None:
            continue
        names = kernel.models(known)
        assert kernel.default_model in names, kernel.name
        assert len(set(names)) == len(names), kernel.name

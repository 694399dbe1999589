"""Shared fixtures for the PTX front-end tests (paths, parsed hand-written fixtures)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeperf.ptx import parse_file

FIXTURES = Path(__file__).parent / "fixtures"
# The CUDA test corpus (tests/kernels/ptx); PIPEPERF_PTX_CORPUS points elsewhere.
CORPUS = Path(os.environ.get("PIPEPERF_PTX_CORPUS",
                             Path(__file__).resolve().parents[2] / "tests" / "kernels" / "ptx"))


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def branches():
    return parse_file(FIXTURES / "branches.ptx").function("branches")


@pytest.fixture(scope="session")
def memslice():
    return parse_file(FIXTURES / "memslice.ptx").function("memslice")


@pytest.fixture(scope="session")
def features_module():
    return parse_file(FIXTURES / "features.ptx")

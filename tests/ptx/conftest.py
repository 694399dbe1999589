"""Shared fixtures for the PTX front-end tests (paths, parsed hand-written fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.ptx import parse_file

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).resolve().parents[2] / "tests" / "kernels" / "ptx"


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

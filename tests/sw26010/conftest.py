"""Fixtures for the SW26010 tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import EXAMPLES


@pytest.fixture
def examples() -> Path:
    return EXAMPLES

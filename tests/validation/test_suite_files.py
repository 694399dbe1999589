"""Schema of the validation suite's case files (validation/README.md): every
validation/cases/*.yaml loads with PyYAML, ids are unique over the suite, every case has the
required keys, its kernel file exists, its measured time is positive and cited."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pipeperf.measure import suite

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
CASE_FILES = sorted((VALIDATION / "cases").glob("*.yaml"))
FAMILIES = set(suite.FAMILIES)
CASE_KEYS = {"id", "family", "kernel_file", "kernel", "gpu", "launch", "measured"}
LAUNCH_KEYS = {"grid", "block", "args"}
MEASURED_KEYS = {"seconds", "how", "quote", "file"}


def _load(path: Path) -> dict:
    with open(path) as fh:
        return yaml.safe_load(fh)


def test_there_are_case_files():
    assert CASE_FILES, "validation/cases/ holds no *.yaml"


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_case_file_schema(path: Path):
    doc = _load(path)
    assert isinstance(doc, dict) and set(doc) >= {"source", "cases"}, path.name
    src = doc["source"]
    assert src.get("repository") or src.get("paper"), "source needs repository or paper"
    if src.get("repository"):
        assert re.fullmatch(r"[0-9a-f]{40}", str(src.get("commit", ""))), \
            f"{path.name}: source.commit must be 40 hex characters"
    assert src.get("licence") or src.get("paper"), "source.licence missing"
    assert isinstance(doc["cases"], list) and doc["cases"], f"{path.name}: no cases"
    for case in doc["cases"]:
        cid = case.get("id", "?")
        missing = CASE_KEYS - set(case)
        assert not missing, f"{cid}: missing {sorted(missing)}"
        assert case["family"] in FAMILIES, f"{cid}: family {case['family']!r}"
        assert (VALIDATION / case["kernel_file"]).is_file(), f"{cid}: no {case['kernel_file']}"
        launch = case["launch"]
        assert not LAUNCH_KEYS - set(launch), f"{cid}: launch lacks {LAUNCH_KEYS - set(launch)}"
        for dim in ("grid", "block"):
            v = launch[dim]
            assert isinstance(v, list) and 1 <= len(v) <= 3 and all(
                isinstance(x, int) and x > 0 for x in v), f"{cid}: launch.{dim} {v!r}"
        assert all(isinstance(a, str) for a in launch["args"]), f"{cid}: args must be strings"
        assert isinstance(launch.get("shared", 0), int) and launch.get("shared", 0) >= 0
        if "max_blocks_per_sm" in launch:
            assert isinstance(launch["max_blocks_per_sm"], int) and launch["max_blocks_per_sm"] > 0
        measured = case["measured"]
        assert not MEASURED_KEYS - set(measured), f"{cid}: measured lacks {MEASURED_KEYS - set(measured)}"
        assert isinstance(measured["seconds"], (int, float)) and measured["seconds"] > 0, cid
        assert str(measured["quote"]).strip(), f"{cid}: empty quote"
        assert str(measured["how"]).strip(), f"{cid}: empty how"


@pytest.mark.slow
def test_ids_unique_over_suite():
    seen: dict[str, str] = {}
    for path in CASE_FILES:
        for case in _load(path)["cases"]:
            assert case["id"] not in seen, f"id {case['id']} in {path.name} and {seen[case['id']]}"
            seen[case["id"]] = path.name


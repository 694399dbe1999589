"""The mixbench validation case files (validation/cases/mixbench_*.yaml) follow the suite's schema
(validation/README.md): they load with PyYAML, ids are unique, every case has the required keys,
names an existing kernel file (and a kernel defined in it), a known GPU name, a measured time > 0
and a non-empty verbatim quote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pipeperf.measure import suite

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
CASE_FILES = sorted((VALIDATION / "cases").glob("mixbench_*.yaml"))

# The GPU names the suite may use (some are added to the database in parallel).
GPU_NAMES = {
    "volta_v100", "volta_v100_pcie", "ampere_a100", "ampere_a100_80gb", "ampere_a100_pcie",
    "ampere_a40", "ampere_rtx3090", "ada_l40", "ada_rtx4090", "hopper_h100", "hopper_h100_pcie",
    "hopper_h200", "turing_rtx2070", "pascal_gtx1060", "maxwell_k620", "kepler_gtx650ti",
}
FAMILIES = set(suite.FAMILIES)
SOURCE_KEYS = {"commit", "licence", "notes"}
CASE_KEYS = {"id", "family", "kernel_file", "kernel", "gpu", "launch", "measured"}
LAUNCH_KEYS = {"grid", "block", "args"}
MEASURED_KEYS = {"seconds", "how", "quote", "file"}


def _load(path: Path) -> dict:
    with open(path) as f:
        return yaml.safe_load(f)


def test_there_are_mixbench_case_files():
    assert CASE_FILES, "no validation/cases/mixbench_*.yaml"


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_case_file_schema(path: Path):
    doc = _load(path)
    assert isinstance(doc, dict) and set(doc) >= {"source", "cases"}, path
    source = doc["source"]
    assert set(source) >= SOURCE_KEYS, f"{path}: source lacks {SOURCE_KEYS - set(source)}"
    assert "repository" in source or "paper" in source, f"{path}: source names no repository/paper"
    assert re.fullmatch(r"[0-9a-f]{40}", str(source["commit"])), f"{path}: commit is not 40 hex digits"
    assert isinstance(doc["cases"], list) and doc["cases"], f"{path}: no cases"
    for case in doc["cases"]:
        where = f"{path.name}: {case.get('id')}"
        assert set(case) >= CASE_KEYS, f"{where}: lacks {CASE_KEYS - set(case)}"
        assert case["family"] in FAMILIES, f"{where}: family {case['family']!r}"
        assert case["gpu"] in GPU_NAMES, f"{where}: gpu {case['gpu']!r}"
        launch = case["launch"]
        assert set(launch) >= LAUNCH_KEYS, f"{where}: launch lacks {LAUNCH_KEYS - set(launch)}"
        for dim in ("grid", "block"):
            assert (isinstance(launch[dim], list) and 1 <= len(launch[dim]) <= 3
                    and all(isinstance(v, int) and v > 0 for v in launch[dim])), f"{where}: {dim}"
        assert all(isinstance(a, str) and a for a in launch["args"]), f"{where}: args"
        assert all(isinstance(f, str) for f in launch.get("nvcc_flags", [])), f"{where}: nvcc_flags"
        measured = case["measured"]
        assert set(measured) >= MEASURED_KEYS, f"{where}: measured lacks {MEASURED_KEYS - set(measured)}"
        assert isinstance(measured["seconds"], (int, float)) and measured["seconds"] > 0, where
        assert isinstance(measured["quote"], str) and measured["quote"].strip(), f"{where}: empty quote"
        assert isinstance(measured["how"], str) and measured["how"].strip(), f"{where}: empty how"
        kernel_file = VALIDATION / case["kernel_file"]
        assert kernel_file.is_file(), f"{where}: no {kernel_file}"
        text = kernel_file.read_text()
        assert re.search(r'extern\s+"C"\s+__global__\s+void\s+' + re.escape(case["kernel"]) + r"\s*\(",
                         text), f"{where}: no extern \"C\" kernel {case['kernel']} in {case['kernel_file']}"


def test_ids_unique_over_mixbench_files():
    seen: dict[str, str] = {}
    for path in CASE_FILES:
        for case in _load(path)["cases"]:
            assert case["id"] not in seen, f"id {case['id']} in {path.name} and {seen[case['id']]}"
            seen[case["id"]] = path.name


@pytest.mark.slow
def test_ids_unique_over_whole_suite():
    """The mixbench ids do not collide with any other case file of the suite."""
    mine = {c["id"] for p in CASE_FILES for c in _load(p)["cases"]}
    for path in sorted((VALIDATION / "cases").glob("*.yaml")):
        if path in CASE_FILES:
            continue
        doc = _load(path) or {}
        clash = mine & {c.get("id") for c in doc.get("cases", []) or []}
        assert not clash, f"{path.name} reuses ids {sorted(clash)[:5]}"

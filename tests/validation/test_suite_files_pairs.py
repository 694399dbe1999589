"""The optimisation-pair case files (validation/cases/effective_reduction_*.yaml) follow the suite's
schema (validation/README.md): they load with PyYAML, ids are unique, every case has the required keys,
names an existing kernel file (and a kernel defined in it), a known GPU name, a measured time > 0
and a non-empty verbatim quote; every case is in an order group of at least two variants
measured on one GPU."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pipeperf.measure import suite

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
CASE_FILES = sorted((VALIDATION / "cases").glob("effective_reduction_*.yaml"))

# The GPU names the suite may use (some are added to the database in parallel).
GPU_NAMES = {
    "volta_v100", "volta_v100_pcie", "ampere_a100", "ampere_a100_80gb", "ampere_a100_pcie",
    "ampere_a40", "ampere_rtx3090", "ada_l40", "ada_rtx4090", "hopper_h100", "hopper_h100_pcie",
    "hopper_h200", "turing_rtx2070", "pascal_gtx1060", "maxwell_k620", "kepler_gtx650ti",
    "fermi_c2050",
}
FAMILIES = set(suite.FAMILIES)
SOURCE_KEYS = {"commit", "licence", "notes"}
CASE_KEYS = {"id", "family", "kernel_file", "kernel", "gpu", "launch", "measured"}
LAUNCH_KEYS = {"grid", "block", "args"}
MEASURED_KEYS = {"seconds", "how", "quote", "file"}


def _load(path: Path) -> dict:
    with open(path) as f:
        return yaml.safe_load(f)


def test_there_are_pair_case_files():
    assert CASE_FILES, "no validation/cases/effective_reduction_*.yaml"


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


def test_ids_unique_over_pair_files():
    seen: dict[str, str] = {}
    for path in CASE_FILES:
        for case in _load(path)["cases"]:
            assert case["id"] not in seen, f"id {case['id']} in {path.name} and {seen[case['id']]}"
            seen[case["id"]] = path.name


@pytest.mark.slow
def test_ids_unique_over_whole_suite():
    """These ids do not collide with any other case file of the suite."""
    mine = {c["id"] for p in CASE_FILES for c in _load(p)["cases"]}
    for path in sorted((VALIDATION / "cases").glob("*.yaml")):
        if path in CASE_FILES:
            continue
        doc = _load(path) or {}
        clash = mine & {c.get("id") for c in doc.get("cases", []) or []}
        assert not clash, f"{path.name} reuses ids {sorted(clash)[:5]}"


def test_order_groups_hold_variants_of_one_gpu():
    groups: dict[str, list[dict]] = {}
    for path in CASE_FILES:
        for case in _load(path)["cases"]:
            assert case.get("order_group"), f"{case['id']}: no order_group"
            groups.setdefault(case["order_group"], []).append(case)
    for name, cases in groups.items():
        assert len(cases) >= 2, f"order group {name} has one case"
        assert len({c["gpu"] for c in cases}) == 1, f"order group {name} spans GPUs"
        kernels = [c["kernel"] for c in cases]
        assert len(set(kernels)) == len(kernels), f"order group {name} repeats a kernel"


def test_suite_loader_accepts_pair_files():
    """pipeperf's own loader reads the files (unknown keys, missing kernel files are errors there)."""
    from pipeperf.measure.suite import load_suite

    ids = {c["id"] for p in CASE_FILES for c in _load(p)["cases"]}
    loaded = load_suite(VALIDATION, lambda c: c.id in ids)
    assert {c.id for c in loaded} == ids

"""The CUDA test corpus (tests/kernels) is consistent: manifest <-> sources <-> committed PTX <->
executable references. These checks need no GPU and, except the regeneration check, no nvcc."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from kernel_corpus import CORPUS_DIR, PTX_DIR, corpus_archs, load_manifest, make_case

from pipeperf.ptx.toolkit import find_tool

REPO = Path(__file__).resolve().parents[2]

SPECS = load_manifest()
ARCHS = corpus_archs()

# What issue 5 asks the corpus to cover (manifest feature tags).
REQUIRED_FEATURES = {
    "int", "fp32", "fp64", "fp16", "half2", "math-lib", "fast-math", "division", "integer-division",
    "shared-memory", "barrier", "atomics", "atomics-shared", "atomic-cas-loop", "atomic-max", "atomic-exch",
    "warp-shuffle", "vote", "vector-load", "loop", "unrolled-loop", "unroll-1", "divergent-branch",
    "data-dependent-loop", "noinline-call", "local-array", "cooperative-groups", "wmma", "mma",
    "grid-2d", "block-2d", "dynamic-shared-memory", "constant-memory", "bank-conflicts",
    "bank-conflict-free", "stencil", "scan", "reduction", "bit-ops", "mul-wide", "mul-hi", "selp",
    "instruction-mix", "iterative-barrier", "cp-async",
}
# Bytes of each PTX .param type (kernel parameters).
PTX_PARAM_BYTES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2, "u32": 4, "s32": 4,
                   "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}
ENTRY_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(\w+)(?:\[(\d+)\])?")


def entry_params(ptx: str, name: str) -> list[tuple[str, int]]:
    """(param name, size in bytes) of kernel ``name``'s .entry, in order."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)", ptx)
    assert m, f".entry {name} not found"
    out = []
    for pm in ENTRY_PARAM.finditer(m.group(1)):
        ty, pname, count = pm.group(1), pm.group(2), pm.group(3)
        out.append((pname, PTX_PARAM_BYTES[ty] * (int(count) if count else 1)))
    return out


def test_manifest_has_at_least_30_uniquely_named_kernels():
    names = [s.name for s in SPECS]
    assert len(names) >= 30
    assert len(set(names)) == len(names)


def test_every_source_is_in_the_manifest_and_declares_its_kernels_unmangled():
    sources = {p.name for p in CORPUS_DIR.glob("*.cu")}
    assert sources == {s.file for s in SPECS}
    for s in SPECS:
        text = s.source_path.read_text()
        assert re.search(r'extern\s+"C"\s+__global__\s+void\s+(__launch_bounds__\([^)]*\)\s+)?'
                         + re.escape(s.name) + r"\s*\(", text), s.name


def test_required_features_are_covered():
    tags = set().union(*(s.features for s in SPECS))
    assert tags >= REQUIRED_FEATURES, sorted(REQUIRED_FEATURES - tags)


def test_params_buffers_outputs_and_launch_agree():
    for s in SPECS:
        pointers = {p.name for p in s.params if p.pointer}
        assert set(s.buffers) == pointers, s.name
        assert set(s.outputs) <= pointers and s.outputs, s.name
        for p in s.params:
            if not p.pointer:
                assert p.name in s.scalars, (s.name, p.name)
            assert s.buffers.get(p.name, 1) % p.vector == 0, (s.name, p.name)
        assert set(s.archs) <= set(ARCHS), s.name
        assert all(d >= 1 for d in s.grid + s.block), s.name


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_committed_ptx_has_the_entry_with_matching_params(spec):
    for arch in ARCHS:
        path = spec.ptx_path(arch)
        assert path.exists() == (arch in spec.archs), path
        if not path.exists():
            continue
        ptx = path.read_text()
        assert re.search(rf"^\.target\s+{arch}\b", ptx, re.M), path
        params = entry_params(ptx, spec.name)
        assert len(params) == len(spec.params), (path, params)
        for i, ((pname, nbytes), p) in enumerate(zip(params, spec.params)):
            assert pname == f"{spec.name}_param_{i}"
            assert nbytes == p.nbytes, (path, p.name, nbytes, p.nbytes)


def test_index_lists_exactly_the_committed_files_and_the_refusals():
    index = (PTX_DIR / "INDEX.txt").read_text()
    files_part = index.split("[files]")[1].split("[refused]")[0]
    listed = {ln.strip() for ln in files_part.splitlines() if ln.strip()}
    assert listed == {p.name for p in PTX_DIR.glob("*.ptx")}
    refused = {tuple(ln.split(":")[0].split()) for ln in index.split("[refused]")[1].splitlines() if ln.strip()}
    expected = {(s.stem, a) for s in SPECS for a in ARCHS if a not in s.archs}
    assert refused == expected
    assert "nvcc: Cuda compilation tools, release" in index


def test_only_sm90_carries_line_info_and_paths_are_repository_relative():
    for path in PTX_DIR.glob("*.ptx"):
        text = path.read_text()
        has_loc = re.search(r"^\s*\.loc\s", text, re.M) is not None
        assert has_loc == path.name.endswith(".sm_90.ptx"), path.name
        for f in re.findall(r'\.file\s+\d+\s+"([^"]+)"', text):
            assert f.startswith(("tests/kernels/", "cuda/include/")), (path.name, f)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_reference_case_builds_with_manifest_types_and_sizes(spec):
    case = make_case(spec.name)
    for p, a in zip(spec.params, case.args):
        if p.pointer:
            assert isinstance(a, np.ndarray) and a.dtype == p.dtype and a.size == spec.buffers[p.name]
        else:
            assert np.asarray(a).dtype == p.dtype
    assert set(case.expected) == set(spec.outputs)
    # Deterministic given the seed, and the check accepts the reference itself.
    again = make_case(spec.name)
    for k in case.expected:
        np.testing.assert_array_equal(case.expected[k], again.expected[k])
    assert case.check(case.expected) == []


def test_check_reports_a_wrong_element():
    case = make_case("saxpy")
    bad = {"y": case.expected["y"].copy()}
    bad["y"][17] += 0.5
    problems = case.check(bad)
    assert len(problems) == 1 and "first at [17]" in problems[0]
    assert case.check({}) == ["y: missing"]


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_committed_ptx_is_what_gen_ptx_produces():
    # gen_ptx runs the nvcc on PATH: the one pipeperf finds goes first (a CUDA install off PATH)
    nvcc_dir = str(Path(find_tool("nvcc")).parent)
    env = {**os.environ, "PATH": os.pathsep.join([nvcc_dir, os.environ.get("PATH", "")])}
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_ptx.py"), "--check", "saxpy"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr

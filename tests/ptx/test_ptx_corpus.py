"""Every PTX file of the CUDA test corpus (tests/kernels/ptx/*.ptx) parses, round-trips,
analyses, and prints PTX that ptxas assembles. Skipped when the corpus is absent."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pipeperf.ptx import CFG, DefUse, Slicer, parse_file, parse_ptx, print_module
from pipeperf.ptx.summary import summarize_module
from pipeperf.ptx.toolkit import find_tool  # the ptxas pipeperf runs: on PATH or not

CORPUS = Path(os.environ.get(
    "PIPEPERF_PTX_CORPUS", Path(__file__).resolve().parents[2] / "tests" / "kernels" / "ptx"))
FILES = sorted(CORPUS.glob("*.ptx")) if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason=f"no PTX corpus in {CORPUS}")


@pytest.fixture(scope="module")
def modules():
    return {p: parse_file(p) for p in FILES}


def test_corpus_parses_and_round_trips(modules):
    for path, m in modules.items():
        assert m.functions, path
        printed = print_module(m)
        assert parse_ptx(printed, f"{path.name} (printed)") == m, path


def test_corpus_analyses(modules):
    for path, m in modules.items():
        for f in m.functions:
            if not f.has_body:
                continue
            cfg = CFG(f)
            covered = sum(len(b) for b in cfg.blocks)
            assert covered == len(f.instructions), (path, f.name)
            slicer = Slicer(f, DefUse.of(f, cfg))
            for s in slicer.branch_slices().values():
                assert s.branch in s.instructions
                for i in s.instructions:
                    assert set(slicer.defuse.deps[i]) <= s.instructions
        summary = summarize_module(m)
        assert all(sum(fn["categories"].values()) == fn["instructions"]
                   for fn in summary["functions"])


def _target(path: Path) -> str:
    m = re.search(r"\.(sm_\d+[a-z]?)\.ptx$", path.name)
    return m.group(1) if m else "?"


def test_counts_match_corpus_inventory(modules):
    """Cross-check against the corpus' independently generated OPCODES.md."""
    inv = CORPUS.parent / "OPCODES.md"
    if not inv.is_file():
        pytest.skip("no OPCODES.md beside the corpus")
    text = inv.read_text()
    header = re.search(r"^\|\s*\|((?:\s*sm_\d+\s*\|)+)\s*$", text, re.M)
    total = re.search(r"^\| instruction statements \|(.*)$", text, re.M)
    if not (header and total):
        pytest.skip("OPCODES.md has no per-target statement counts")
    targets = [t.strip() for t in header.group(1).split("|") if t.strip()]
    expected = [int(v.split()[0]) for v in total.group(1).split("|") if v.strip()]
    counts: Counter[str] = Counter()
    roots: dict[str, Counter[str]] = {t: Counter() for t in targets}
    for path, m in modules.items():
        t = _target(path)
        for f in m.functions:
            counts[t] += len(f.instructions)
            if t in roots:
                roots[t].update(i.opcode.split(".")[0] for i in f.instructions)
    assert [counts[t] for t in targets] == expected
    section = re.search(r"^## Opcode roots$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not section:
        pytest.skip("OPCODES.md has no opcode-root table")
    for row in re.finditer(r"^\| `([\w]+)` \|(.*)$", section.group(1), re.M):
        values = [int(v) for v in row.group(2).split("|") if v.strip()]
        assert [roots[t][row.group(1)] for t in targets] == values, row.group(1)


def _ptxas(path: Path, text: str, tmp: str) -> str | None:
    arch = _target(path)
    src = Path(tmp) / path.name
    src.write_text(text)
    r = subprocess.run([find_tool("ptxas"), f"-arch={arch}", str(src), "-o", str(src) + ".cubin"],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else f"{path.name}: {r.stderr.strip()[:300]}"


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_printed_corpus_assembles(modules):
    """ptxas accepts the printed PTX of every file, for its own target (two workers)."""
    chosen = list(modules)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        errors = [e for e in pool.map(lambda p: _ptxas(p, print_module(modules[p]), tmp),
                                      chosen) if e]
    assert not errors, errors

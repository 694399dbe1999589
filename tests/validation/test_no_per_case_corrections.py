"""No per-kernel or per-case correction anywhere in the model: the code never decides on the name
of a kernel, a case or a source of the validation suite (docstrings may cite a source; the GPU
database cites them in `sources:` strings only, never as a condition)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
#: the packages that make predictions (measure/ and cli/ read published formats such as mixbench logs)
MODEL_PACKAGES = ("analyze", "hardware", "simulate", "models", "idg", "emulate", "ptx")


def _suite_names() -> set[str]:
    names: set[str] = set()
    for f in (ROOT / "validation" / "cases").glob("*.yaml"):
        doc = yaml.safe_load(f.read_text())
        for c in doc["cases"]:
            names.add(c["kernel"])
            names.add(c["id"].split("/")[0])          # the source's name, e.g. gpu-stream, mixbench
    return names


def _decision_strings(tree: ast.AST):
    """String constants the code decides on: compared, tested for membership, used as a dict key
    or a subscript (messages and docstrings, which only describe, are not)."""
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            parts = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Subscript):
            parts = [node.slice]
        for part in parts:
            for sub in ast.walk(part):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    yield sub.lineno, sub.value


@pytest.mark.slow
def test_the_model_code_decides_on_no_validation_kernel_or_case():
    names = _suite_names()
    assert len(names) >= 10
    hits = []
    model = [ROOT / "src" / "pipeperf" / d for d in MODEL_PACKAGES]
    for py in (p for d in model for p in d.rglob("*.py")):
        for line, text in _decision_strings(ast.parse(py.read_text())):
            if any(n in text for n in names):
                hits.append(f"{py.relative_to(ROOT)}:{line}: {text!r}")
    assert not hits, "per-case names the model code decides on:\n" + "\n".join(hits)


@pytest.mark.slow
def test_gpu_files_mention_suite_sources_only_in_citations():
    names = _suite_names()
    for f in (ROOT / "src" / "pipeperf" / "hardware" / "gpus").glob("*.yaml"):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for name in names:
                if name in line:
                    stripped = line.strip()
                    assert ("source" in stripped or stripped.startswith("#") or "#" in stripped
                            or re.match(r"^[a-z_]+\.[A-Za-z_]+: ", stripped) or stripped.startswith(("memory.", "launch."))
                            or re.match(r'^  [a-z_]+: "', line)), \
                        f"{f.name}:{n}: {name!r} outside a citation"

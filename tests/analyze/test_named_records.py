"""The analyze path passes named records, not positions (issue 40): no function of
``src/pipeperf/analysis/`` takes more than MAX_POSITIONAL positional parameters (the rest are
keyword-only), and the records its stages hand one another are frozen."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

ANALYSIS = Path(__file__).resolve().parents[2] / "src" / "pipeperf" / "analysis"
#: more than this many positional parameters and two of them are too easy to swap
MAX_POSITIONAL = 6


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return [n for n in names if n not in ("self", "cls")]


def test_no_function_on_the_analyze_path_takes_more_than_six_positional_parameters():
    over = []
    for path in sorted(ANALYSIS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = _positional(node)
                if len(names) > MAX_POSITIONAL:
                    over.append(f"{path.relative_to(ANALYSIS.parents[1])}:{node.lineno} {node.name}"
                                f"({', '.join(names)})")
    assert not over, ("more than 6 positional parameters (make the others keyword-only, after a '*'):\n"
                      + "\n".join(over))


def _frozen(cls: type) -> bool:
    return dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("where", [
    "pipeperf.analysis.options:AnalyzeOptions",
    "pipeperf.analysis.records:KernelLaunch",
    "pipeperf.analysis.builds:Build",
    "pipeperf.analysis.records:Emulation",
    "pipeperf.analysis.records:SassTiming",
    "pipeperf.analysis.records:WarpClasses",
    "pipeperf.analysis.memory_trace:MemoryMap",
    "pipeperf.analysis.results:GPUPrediction",
    "pipeperf.analysis.results:PtxLines",
    "pipeperf.analysis.results:Analysis",
])
def test_the_records_between_the_stages_are_frozen(where):
    import importlib

    module, name = where.split(":")
    assert _frozen(getattr(importlib.import_module(module), name)), f"{where} is not a frozen dataclass"

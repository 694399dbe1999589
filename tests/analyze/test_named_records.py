"""The analyze path passes named records, not positions (issue 40): no function of the path
(``src/pipeperf/analysis/``, the IDG builder, the report stage, the API and the command) takes more
than MAX_POSITIONAL positional parameters (the rest are keyword-only), and the records its stages
hand one another are frozen."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "pipeperf"
#: the analyze path: its package, the IDG builder it calls, the report stage, the API and the command
PATH = (PACKAGE / "analysis", PACKAGE / "idg" / "build.py", PACKAGE / "report", PACKAGE / "api.py",
        PACKAGE / "cli" / "analyze.py")
#: more than this many positional parameters and two of them are too easy to swap
MAX_POSITIONAL = 6


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return [n for n in names if n not in ("self", "cls")]


def test_no_function_on_the_analyze_path_takes_more_than_six_positional_parameters():
    over = []
    files = sorted(f for p in PATH for f in ([p] if p.is_file() else p.rglob("*.py")))
    assert len(files) > 30
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = _positional(node)
                if len(names) > MAX_POSITIONAL:
                    over.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}"
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
    "pipeperf.idg.build:WarpClasses",
    "pipeperf.analysis.memory_trace:MemoryMap",
    "pipeperf.analysis.results:GPUPrediction",
    "pipeperf.analysis.results:PtxLines",
    "pipeperf.analysis.results:QuantitativeRoofline",
    "pipeperf.analysis.results:Advice",
    "pipeperf.analysis.results:Bound",
    "pipeperf.analysis.stalls:LineTime",
    "pipeperf.analysis.floors:Floors",
    "pipeperf.analysis.lockstep:PhaseSensitivity",
    "pipeperf.analysis.records:SimContext",
    "pipeperf.analysis.advice:LaunchShape",
    "pipeperf.api:AnalysisReport",
    "pipeperf.analysis.results:Analysis",
])
def test_the_records_between_the_stages_are_frozen(where):
    import importlib

    module, name = where.split(":")
    assert _frozen(getattr(importlib.import_module(module), name)), f"{where} is not a frozen dataclass"

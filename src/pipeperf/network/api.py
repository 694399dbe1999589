"""``pipeperf.network.analyze_network(...)``: the Python API of ``pipeperf network``, returning a
:class:`NetworkReport` whose text, JSON, CSV and HTML are the command line's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeperf.network.report import NetworkResult


@dataclass(frozen=True)
class NetworkReport:
    result: NetworkResult

    def to_dict(self) -> dict[str, Any]:
        from pipeperf.network.report import to_dict

        return to_dict(self.result)

    def text(self, rows: int | None = None) -> str:
        from pipeperf.network.report import format_text

        return format_text(self.result, rows)

    def csv(self) -> str:
        from pipeperf.network.report import csv_text

        return csv_text(self.result)

    def html(self) -> str:
        from pipeperf.network.html import render_html

        return render_html(self.result)

    def write_html(self, path: str | Path) -> Path:
        p = Path(path)
        p.write_text(self.html())
        return p

    def __str__(self) -> str:
        return self.text()


def analyze_network(model: str | Path | Any, *, gpus: Sequence[str], builtin: bool = False, batch: int | None = None,
                    dtype: str = "fp32", fold_bn: bool = True, fuse: bool = True, warm_l2: bool = True,
                    trace_warps: int = 64, scheduler: str = "auto", workers: int | None = None,
                    cache: Any = None, arch: str | None = None) -> NetworkReport:
    """Analyse an ONNX model (a path, a ModelProto, or with ``builtin`` a built-in network's name)
    on ``gpus``: see ``pipeperf network --help`` for the options."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.network.builtin import builtin_model
    from pipeperf.network.graph import load_graph
    from pipeperf.network.lower import plan
    from pipeperf.network.report import assemble
    from pipeperf.network.run import RunOptions, analyse

    names = tuple(dict.fromkeys(gpus))
    for g in names:
        load_gpu(g)                               # an unknown GPU fails before any work
    source = builtin_model(str(model)) if builtin else model
    graph = load_graph(source, batch)
    p = plan(graph, dtype, fold_bn, fuse)
    if arch is not None:
        from pipeperf.ptx.compile import check_arch

        check_arch(arch)
    run = analyse(p, RunOptions(names, trace_warps, scheduler, workers, cache, warm_l2, arch))
    return NetworkReport(assemble(p, run, names, trace_warps, arch))

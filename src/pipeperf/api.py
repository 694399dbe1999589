"""The notebook API: ``pipeperf.analyze(...)`` returns an :class:`AnalysisReport`.

    import numpy as np
    import pipeperf
    a = np.random.default_rng(0).random(512 * 512, np.float32)
    r = pipeperf.analyze("examples/analyze/matmul_tiled.cu", grid=(32, 32), block=(16, 16),
                         args={"A": a, "B": "rand:f32:262144", "C": "zeros:f32:262144", "n": 512},
                         gpus=["volta_v100", "ampere_a100"])
    print(r.summary())      # the headline per GPU, as the terminal report prints it
    r.to_dict()             # the JSON of ``pipeperf analyze --json``
    r.to_dataframe()        # pandas: one row per kernel x GPU x model
    r                       # in Jupyter: the HTML report (``_repr_html_``)

The same records as the command line (:mod:`pipeperf.report.headline`,
:mod:`pipeperf.report.html_report`, :mod:`pipeperf.report.ncu_csv`), so a notebook and
``pipeperf analyze`` never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping, Sequence

from pipeperf.errors import PipeperfError
from pipeperf.util.launch_args import Dim3Like

if TYPE_CHECKING:
    from pipeperf.analysis.results import Analysis, GPUPrediction
    from pipeperf.report.headline import Headline
    from pipeperf.report.source_view import SourceView

#: the DataFrame's columns, units in their names
DATAFRAME_COLUMNS = ("kernel", "gpu", "model", "time_us", "cycles", "launch_overhead_us", "gflop_per_s",
                     "flop_pct_of_peak", "dram_gb_per_s", "dram_pct_of_peak", "occupancy_pct",
                     "warps_per_sm", "bound", "unsupported", "not_physical")


@dataclass(frozen=True)
class AnalysisReport:
    """One analysed launch (``analysis``) and what its reports need besides: the launch file (the
    source view reads its lines) and its build options."""

    analysis: Analysis
    path: str
    arch: str | None = None
    nvcc_flags: Sequence[str] = field(default_factory=tuple)

    @property
    def predictions(self) -> list[GPUPrediction]:
        return self.analysis.predictions

    def headlines(self) -> list[Headline]:
        """The :class:`pipeperf.report.headline.Headline` of each GPU."""
        from pipeperf.report.headline import headline

        return [headline(p) for p in self.predictions]

    def summary(self) -> str:
        """The headline per GPU, one line each (the terminal report's first lines)."""
        return "\n".join(h.text() for h in self.headlines())

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``pipeperf analyze --json`` prints (NumPy values and non-finite floats converted)."""
        from pipeperf.models.curve import jsonable

        return jsonable(self.analysis.to_dict())

    def to_dataframe(self):
        """A pandas DataFrame, one row per kernel x GPU x model (:data:`DATAFRAME_COLUMNS`): each
        model's time, and the GFLOP/s and DRAM GB/s that time implies with their % of the GPU's
        peaks (a share above 100 % only where ``not_physical`` says the time is below a floor);
        occupancy and bound are the GPU's (the Pipeline model's run)."""
        try:
            import pandas as pd
        except ImportError:
            raise PipeperfError("to_dataframe() needs pandas: pip install pandas") from None
        rows = []
        for p, h in zip(self.predictions, self.headlines()):
            flags = p.not_physical        # a time below a physical floor (analysis/floors.py): why
            for model, v in p.predictions.items():
                s = v.get("seconds")
                gflops = h.flop / s / 1e9 if h.flop is not None and s else None
                gbs = h.dram_bytes / s / 1e9 if h.dram_bytes is not None and s else None
                rows.append({"kernel": p.kernel, "gpu": p.gpu, "model": model,
                             "time_us": None if s is None else s * 1e6, "cycles": v.get("cycles"),
                             "launch_overhead_us": p.launch_overhead_seconds * 1e6, "gflop_per_s": gflops,
                             "flop_pct_of_peak": _pct(gflops, h.peak_gflops), "dram_gb_per_s": gbs,
                             "dram_pct_of_peak": _pct(gbs, h.peak_dram_gbs),
                             "occupancy_pct": 100 * h.occupancy, "warps_per_sm": h.warps_per_sm,
                             "bound": h.bound_text, "unsupported": v.get("unsupported"),
                             "not_physical": flags.get(model)})
        return pd.DataFrame(rows, columns=list(DATAFRAME_COLUMNS))

    def source_view(self) -> SourceView:
        """The per-line source view (:mod:`pipeperf.report.source_view`)."""
        from pipeperf.report.source_view import source_view

        return source_view(self.analysis, self.path)

    def html(self) -> str:
        """The whole HTML page of ``pipeperf analyze --html``."""
        from pipeperf.report.html_report import render_html

        return render_html(self.analysis, self.source_view())

    def _repr_html_(self) -> str:
        from pipeperf.report.html_report import html_body

        return html_body(self.analysis, self.source_view())

    def write_html(self, path: str | Path) -> Path:
        from pipeperf.report.html_report import write_html

        return write_html(self.analysis, path, self.source_view())

    def write_csv(self, path: str | Path) -> Path:
        """The ncu-layout CSV of ``pipeperf analyze --csv``."""
        from pipeperf.report.ncu_csv import write_csv

        return write_csv(self.analysis, path)

    def __str__(self) -> str:
        from pipeperf.report.analyze_text import format_analysis

        return format_analysis(self.analysis)


def _pct(x: float | None, peak: float | None) -> float | None:
    return 100 * x / peak if x is not None and peak else None


def analyze(path: str | Path, *, grid: Dim3Like, block: Dim3Like,
            args: Mapping[str, Any] | Sequence[Any] = (), gpus: str | Sequence[str],
            sweep: bool = True, **options: Any) -> AnalysisReport:
    """Analyse one launch as ``pipeperf analyze`` does and return its :class:`AnalysisReport`.

    ``grid``/``block``: an int, a tuple of up to three ints or an ``"X,Y"`` string; ``args``: a
    dict by parameter name, each value a number, a tuple of numbers (a ``float4`` passed by value),
    a NumPy array (a buffer's contents, its dtype the pointer's element type unless
    ``allow_dtype_mismatch=True``; with ``mode="full"`` it receives the kernel's writes) or a spec
    string (``"rand:f32:1024"``, ``"f16:2.0"``); or a list of ``--arg`` strings (``"n=512"``, ``"x=rand:f32:1024"``), or of values in
    parameter order; ``gpus``: database names. ``sweep`` (default on, as the HTML report shows
    it) adds the occupancy sweep; other keywords are the fields of
    :class:`pipeperf.analysis.options.AnalyzeOptions` (``kernel``, ``arch``, ``nvcc_flags``,
    ``trace_warps``, ``what_if``, ``warm_l2``, ...), whose defaults the command line shares."""
    from pipeperf.analysis import analyze as run
    from pipeperf.analysis.options import AnalyzeOptions

    opts = AnalyzeOptions.from_kwargs(sweep=sweep, **options)
    names = [gpus] if isinstance(gpus, str) else list(gpus)
    a = run(path, grid, block, launch_args(args), names, opts)
    return AnalysisReport(a, str(path), opts.arch, opts.nvcc_flags)


def launch_args(args: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any] | list[Any]:
    """``args`` as the analysis takes them: a dict by name (its keys strings) or a list; a lone
    string or anything else is refused in one line (a string would be read letter by letter)."""
    if isinstance(args, Mapping):
        return {str(k): v for k, v in args.items()}
    if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
        raise PipeperfError(f"args: a dict by parameter name ({{'n': 512, 'x': array}}) or a list of "
                            f"'name=spec' strings, not {type(args).__name__} {args!r:.60}")
    return list(args)

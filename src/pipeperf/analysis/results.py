"""What ``analyze`` returns: one :class:`GPUPrediction` per GPU inside the launch's :class:`Analysis`.

Plain frozen records, so the reports (:mod:`pipeperf.report`), the notebook API and the JSON read
them without importing the emulator or the simulator, and render them without compiling again or
loading GPU specs: the prediction carries its GPU's peaks (``peaks``), the analysis the kernel's
PTX lines by source line (``ptx_lines``, the source view's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeperf.analysis.records import SimContext
    from pipeperf.analysis.floors import Floors
    from pipeperf.analysis.lockstep import PhaseSensitivity
    from pipeperf.analysis.stalls import LineTime
    from pipeperf.hardware.peaks import GpuPeaks
    from pipeperf.models.quantitative import KernelMetrics, QuantitativePrediction
    from pipeperf.ptx.ir import Function, Module


@dataclass(frozen=True)
class Bound:
    """What limits the simulated run: per-subsystem busy fraction, share of the issue slots used,
    share of cycles in which no warp issued. ``clipped``: shares that came out above 1 before
    they were clipped to it (subsystem or "issue slots" -> the raw share), so the reports say why."""

    by: str
    subsystem_busy: dict[str, float]
    issue_share: float | None
    idle_share: float
    clipped: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"by": self.by, "subsystem_busy": self.subsystem_busy,
                             "issue_share": self.issue_share, "idle_share": self.idle_share}
        if self.clipped:
            d["clipped"] = self.clipped
        return d


@dataclass(frozen=True)
class Advice:
    """One change, where to make it, and the predicted time after it."""

    kind: str                  # bank conflicts | uncoalesced access | atomics | occupancy | block size |
                               # block dispatch | tail effect | dependency chain
    text: str                  # what to change, naming the source line or the launch parameter
    seconds_before: float
    seconds_after: float       # predicted for the changed kernel
    how: str                   # how seconds_after was obtained (the approximation, stated)
    change: dict[str, Any] = field(default_factory=dict)   # the change as data: {"block": 256, "grid": 4096}, ...

    @property
    def gain(self) -> float:
        """Share of the kernel time saved."""
        return 1.0 - self.seconds_after / self.seconds_before if self.seconds_before else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "seconds_before": self.seconds_before,
                "seconds_after": self.seconds_after, "gain_pct": round(100 * self.gain, 2), "how": self.how,
                "change": self.change}


@dataclass(frozen=True)
class QuantitativeRoofline:
    """Konstantinidis' quantitative roofline of the launch on one GPU: the launch's Table 1 counts
    (``metrics``: the emulation's, launch-scaled; DRAM traffic from mapper g) and their prediction."""

    metrics: KernelMetrics
    prediction: QuantitativePrediction

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": self.metrics.to_dict(), "prediction": self.prediction.to_dict()}


@dataclass(frozen=True, kw_only=True)
class GPUPrediction:
    """One kernel on one GPU: occupancy, every model's predicted time, what bounds it. Built by
    keyword only: twenty fields side by side are too easy to swap by position; frozen: each stage
    after the simulation returns a copy with its fields set (``dataclasses.replace``)."""

    gpu: str
    kernel: str
    cycles: float                # the Pipeline simulation
    seconds: float
    blocks_per_sm: int           # M simulated: the occupancy limit, or fewer when the grid is small
    block_limit: int             # resident blocks per SM the occupancy rules allow
    warps_per_block: int
    occupancy: float
    limited_by: str
    occupancy_source: str
    bound: Bound
    predictions: dict[str, dict[str, float | None]]   # model -> cycles, seconds (and "unsupported": why)
    profile: dict[str, Any]
    warp_classes: list[dict[str, Any]]
    memory: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    sweep: dict[str, Any] | None = None
    what_if: dict[str, dict[str, Any]] = field(default_factory=dict)   # fixed access pattern -> pipeline
    launch_overhead_seconds: float = 0.0   # the launch's fixed cost (the GPU's launch.overhead_us), not in `seconds`
    phase_sensitivity: PhaseSensitivity | None = None   # lockstep.PhaseSensitivity: the time at +-1 % bandwidth
    quantitative: QuantitativeRoofline | None = None   # the quantitative roofline's counts and prediction
    source_lines: list[LineTime] = field(default_factory=list)      # stalls.LineTime per source line, largest first
    time_not_on_lines: list[dict[str, Any]] = field(default_factory=list)   # idle slot time (stalls.line_times)
    advice: list[Advice] = field(default_factory=list)            # largest gain first (analysis/advice.py)
    sim: SimContext | None = field(default=None, repr=False)          # what the advice's re-simulations need
    floors: Floors | None = None       # floors.Floors: the DRAM-traffic and issue floors of the launch
    #: ptxas' resources of this GPU's own build (registers differ per target and with -maxrregcount)
    resources: dict[str, int] = field(default_factory=dict)
    build: dict[str, Any] = field(default_factory=dict)   # {"target", "note", "ptxas_options"} of that build
    compute_capability: str = ""         # the GPU's (its spec's), for reports that name it (ncu's CC column)
    #: instructions the IDGs issue per emulated (PTX) one: the SASS's share where timed from the SASS
    issued_per_traced: float = 1.0
    truncated_warps: int = 0             # warps whose trace the IDGs cut (the trace cut)
    #: the GPU's peak rates (``pipeperf gpu peaks``; None where the database has none), for the headline
    peaks: GpuPeaks | None = field(default=None, repr=False)

    @property
    def not_physical(self) -> dict[str, str]:
        """{model: why its time is below a physical floor} (:mod:`pipeperf.analysis.floors`)."""
        from pipeperf.analysis.floors import not_physical

        return not_physical(self.floors, self.predictions)

    @property
    def bound_by(self) -> str:
        return self.bound.by

    @property
    def subsystem_busy(self) -> dict[str, float]:
        return self.bound.subsystem_busy

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.kernel, "gpu": self.gpu,
             "occupancy": {"warps_per_sm": self.blocks_per_sm * self.warps_per_block,
                           "groups_per_sm": self.blocks_per_sm, "limited_by": self.limited_by,
                           "block_limit": self.block_limit, "fraction": round(self.occupancy, 4),
                           "source": self.occupancy_source},
             "predictions": self.predictions, "launch_overhead_seconds": self.launch_overhead_seconds,
             "bound": self.bound.to_dict(), "profile": self.profile,
             "warp_classes": self.warp_classes, "memory": self.memory, "notes": self.notes}
        if self.resources:
            d["resources"] = self.resources
        if self.build:
            d["build"] = self.build
        if self.sweep is not None:
            d["sweep"] = self.sweep
        if self.what_if:
            d["what_if"] = self.what_if
        if self.phase_sensitivity is not None:
            d["phase_sensitivity"] = self.phase_sensitivity.to_dict()
        if self.quantitative:
            d["quantitative_roofline"] = self.quantitative.to_dict()
        if self.source_lines:
            d["source_lines"] = [t.to_dict() for t in self.source_lines]
            d["time_not_on_lines"] = self.time_not_on_lines
        d["advice"] = [a.to_dict() for a in self.advice]
        if self.floors is not None:
            d["floors"] = self.floors.to_dict()
            d["not_physical"] = self.not_physical
        return d


@dataclass(frozen=True)
class PtxLines:
    """The kernel's PTX instructions by CUDA source line (nvcc's ``.loc``) in the build ``target``
    names: (file, line) -> [(PTX line, opcode, instruction)], and how many have no line; what the
    HTML report's source view lists beside each line."""

    target: str
    by_line: dict[tuple[str, int], list[tuple[int, str, str]]] = field(default_factory=dict)
    unmapped: int = 0


def ptx_lines(module: Module, func: Function, target: str) -> PtxLines:
    """:class:`PtxLines` of kernel ``func`` of ``module`` (a build for ``target``, '' for a .ptx file)."""
    from pipeperf.ptx.source_map import SourceMap

    smap = SourceMap(module)
    by_line: dict[tuple[str, int], list[tuple[int, str, str]]] = {}
    unmapped = 0
    for ins in func.instructions:
        loc = smap.location(func, ins)
        if loc is None:
            unmapped += 1
            continue
        by_line.setdefault((loc.file, loc.line), []).append((ins.line, ins.opcode, str(ins)))
    return PtxLines(target or "the .ptx file's own", by_line, unmapped)


@dataclass(frozen=True, kw_only=True)
class Analysis:
    """One launch analysed on each GPU (``predictions``, in the order asked)."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    resources: dict[str, int]
    warps_traced: int
    warps_total: int
    truncated_warps: int
    predictions: list[GPUPrediction] = field(default_factory=list)
    seconds_analysis: float = 0.0
    ctas_emulated: int = 0
    ctas_total: int = 0
    sampling: str = ""              # why only a CTA sample was (or could not be) emulated
    hypa: dict[str, float] = field(default_factory=dict)   # HyPA's metrics of the launch (emulate.profile.hypa_metrics)
    out_of_bounds: list[dict[str, Any]] = field(default_factory=list)   # --oob warn: per line (Profile.out_of_bounds)
    ptx_lines: PtxLines | None = field(default=None, repr=False)   # the default build's, for the source view

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON: ``{"kernels": [...one entry per GPU...], "launch": {...}}``."""
        return {"kernels": [p.to_dict() for p in self.predictions],
                "launch": {"kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
                           "resources": self.resources, "warps_traced": self.warps_traced,
                           "warps_total": self.warps_total, "truncated_warps": self.truncated_warps,
                           "ctas_emulated": self.ctas_emulated, "ctas_total": self.ctas_total,
                           "sampling": self.sampling, "hypa": self.hypa, "out_of_bounds": self.out_of_bounds,
                           "analysis_seconds": round(self.seconds_analysis, 3)}}

"""The headline of one kernel on one GPU: the few numbers a performance engineer reads first.

One record (:class:`Headline`, built by :func:`headline`) feeds every report (terminal, HTML,
``--csv`` and the notebook API's ``summary()``), so they cannot disagree: the Pipeline model's
predicted time, the achieved GFLOP/s and DRAM GB/s that time implies with their share of the
GPU's peaks (``pipeperf gpu peaks``), the occupancy and what bounds the run, in plain words.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from pipeperf.util.units import format_seconds

if TYPE_CHECKING:
    from pipeperf.analysis.results import Bound, GPUPrediction

#: subsystem of the GPU database -> (kind of bound, what it is in plain words)
SUBSYSTEM_WORDS: dict[str, tuple[str, str]] = {
    "mem": ("memory", "global memory (L2/DRAM)"),
    "lsu": ("shared-memory", "load/store unit (shared memory)"),
    "atomic": ("atomics", "L2 atomics (the atomic unit of the L2 slice that owns the address or line)"),
    "alu": ("compute", "FP32/INT32 ALUs"),
    "dpu": ("compute", "FP64 units"),
    "sfu": ("compute", "special-function units"),
    "tensor": ("compute", "tensor cores"),
    "barrier": ("synchronisation", "barriers"),
}


@dataclass(frozen=True)
class Headline:
    """The headline of one kernel on one GPU; ``None`` where the analysis has no such number
    (no quantitative roofline counts, or a GPU without the peak)."""

    kernel: str
    gpu: str
    seconds: float                      # the Pipeline model's kernel time, s (launch overhead apart)
    launch_overhead_seconds: float      # the GPU's fixed cost per launch, s
    flop: float | None                  # FP operations of the launch (W_comp, an FMA counts 2; tensor-core MMAs 2 m n k)
    gflops: float | None                # flop / seconds, GFLOP/s
    peak_gflops: float | None           # the GPU's T_SP (or T_DP for an fp64 kernel), GFLOP/s
    dram_bytes: float | None            # DRAM read + write bytes of the launch (mapper g's cache model)
    dram_gbs: float | None              # dram_bytes / seconds, GB/s (10^9 B/s)
    peak_dram_gbs: float | None         # the GPU's DRAM bandwidth the share is of, GB/s
    occupancy: float                    # theoretical: the occupancy rules' limit, fraction of the SM
    warps_per_sm: int                   # resident warps the simulation keeps on an SM
    max_warps_per_sm: int
    limited_by: str                     # what limits the theoretical occupancy
    bound: str                          # Bound.by: a subsystem, "issue limit" or "latency"
    bound_text: str                     # the bound in plain words, with the number behind it
    top_line: str | None = None         # the source line with the largest share of the time, and why
    top_advice: str | None = None       # the advice predicted to gain most, with its predicted time
    peak_dram_source: str | None = None  # what peak_dram_gbs is: "vendor peak, memory.dram_peak_gbs of ..."
    dram_floor_seconds: float | None = None    # floors.Floors: the launch's DRAM bytes at that bandwidth
    issue_floor_seconds: float | None = None   # floors.Floors: its warp instructions at the issue limit
    not_physical: str | None = None     # why `seconds` is below a floor (floors.Floors.violation), else None
    tensor: bool = False                # most operations are tensor-core MMAs (no peak of those to share)

    @property
    def flop_pct_of_peak(self) -> float | None:
        return _share(self.gflops, self.peak_gflops)

    @property
    def dram_pct_of_peak(self) -> float | None:
        return _share(self.dram_gbs, self.peak_dram_gbs)

    @property
    def resident_occupancy(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm if self.max_warps_per_sm else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["flop_pct_of_peak"] = self.flop_pct_of_peak
        d["dram_pct_of_peak"] = self.dram_pct_of_peak
        return d

    def text(self) -> str:
        """One line, e.g. ``volta_v100: 53.1 us predicted; 1,264 GFLOP/s (8% of 15,667 GFLOP/s peak);
        DRAM 812 GB/s (90% of 900 GB/s vendor peak, memory.dram_peak_gbs of volta_v100); occupancy 100% theoretical (limited by warps), 64 of
        64 warps/SM resident;
        memory bound: global memory (L2/DRAM) 91 % busy``."""
        flop = "- GFLOP/s" if self.gflops is None else \
            f"{self.gflops:,.4g} GFLOP/s" + (" (tensor cores)" if self.tensor else "") + \
            _of(self.flop_pct_of_peak, self.peak_gflops, "GFLOP/s peak")
        unit = "GB/s" if self.peak_dram_source is None else f"GB/s {self.peak_dram_source}"
        dram = "DRAM - GB/s" if self.dram_gbs is None else \
            f"DRAM {self.dram_gbs:,.4g} GB/s" + _of(self.dram_pct_of_peak, self.peak_dram_gbs, unit)
        flag = "" if self.not_physical is None else f" (not physical: {self.not_physical})"
        return (f"{self.gpu}: {format_seconds(self.seconds)} predicted{flag}; {flop}; {dram}; "
                f"occupancy {self.occupancy:.0%} theoretical (limited by {self.limited_by}), "
                f"{self.warps_per_sm} of {self.max_warps_per_sm} warps/SM resident; {self.bound_text}")


def _share(x: float | None, peak: float | None) -> float | None:
    return x / peak if x is not None and peak else None


def _of(share: float | None, peak: float | None, unit: str) -> str:
    return "" if share is None or peak is None else f" ({share:.0%} of {peak:,.0f} {unit})"


#: below this share of issue slots and of every subsystem's time the run is called latency bound
#: (the warps mostly wait); between it and the 90 % of ``bound_of`` no single resource bounds it
LATENCY_SHARE = 0.5


def _clip_note(bound: Bound, key: str) -> str:
    raw = getattr(bound, "clipped", {}).get(key)
    return "" if raw is None else f" (clipped from {raw:.0%}: busy time and cycles extrapolated separately)"


def bound_words(bound: Bound) -> str:
    """What bounds the run in plain words, from a :class:`pipeperf.analysis.predict.Bound`, always
    with the numbers that justify it: ``memory bound: global memory (L2/DRAM) 91 % busy``,
    ``issue bound: 93 % of issue slots used``, ``latency bound: 12 % of issue slots used, 38 % of
    cycles issue nothing``, or, where issue slots or a subsystem are half used or more but none
    reaches 90 %, ``no single bound: 66 % of issue slots used, ...`` (not "latency bound")."""
    slots = "" if bound.issue_share is None else f"{bound.issue_share:.0%} of issue slots used"
    if bound.by in SUBSYSTEM_WORDS:
        kind, what = SUBSYSTEM_WORDS[bound.by]
        return (f"{kind} bound: {what} {bound.subsystem_busy.get(bound.by, 0.0):.0%} busy"
                + _clip_note(bound, bound.by))
    if bound.by in bound.subsystem_busy:          # a subsystem this table does not name
        return f"{bound.by} bound: {bound.subsystem_busy[bound.by]:.0%} busy" + _clip_note(bound, bound.by)
    if bound.by == "issue limit":
        return f"issue bound: {slots or '- of issue slots used'}" + _clip_note(bound, "issue slots")
    busiest = max(bound.subsystem_busy.items(), key=lambda kv: kv[1], default=None)
    tail = ""
    if busiest is not None and busiest[1] > 0:
        tail = f" (busiest: {SUBSYSTEM_WORDS.get(busiest[0], ('', busiest[0]))[1]} {busiest[1]:.0%})"
    idle = f"{bound.idle_share:.0%} of cycles issue nothing"
    nums = f"{slots}, {idle}" if slots else idle
    if (bound.issue_share or 0.0) >= LATENCY_SHARE or (busiest is not None and busiest[1] >= LATENCY_SHARE):
        return f"no single bound (nothing >= 90 % busy): {nums}{tail}"
    return f"latency bound: {nums}{tail}"


def _max_warps(pred: GPUPrediction) -> int:
    """The SM's warp slots, from the occupancy the analysis computed (limit x warps per block /
    fraction), so a GPU given as a YAML file needs no second lookup."""
    if pred.occupancy > 0:
        return round(pred.block_limit * pred.warps_per_block / pred.occupancy)
    return pred.blocks_per_sm * pred.warps_per_block


def headline(pred: GPUPrediction) -> Headline:
    """The headline of a :class:`pipeperf.analysis.GPUPrediction`. FLOPs and DRAM bytes are the
    quantitative roofline's counts of the same launch (W_comp: fp32 and fp64 instructions, a
    multiply-add twice; DRAM traffic from mapper g's cache model); the FLOP peak is the GPU's
    ``pipeperf gpu peaks`` (its database entry, as the analysis loaded it: ``pred.peaks``), the DRAM one the bandwidth of the launch's
    :class:`~pipeperf.analysis.floors.Floors` (the vendor peak where the database has it), else
    the quantitative roofline's B_mem (an achievable figure where the database has one)."""
    seconds = float(pred.seconds)
    metrics = pred.quantitative.metrics if pred.quantitative else None
    flop: float | None = None
    dram: float | None = None
    fp64 = False
    tensor = False
    if metrics is not None:
        flop = metrics.m_fp32 + metrics.m_fma32 + metrics.m_fp64 + metrics.m_fma64
        dram = (metrics.m_tran_r + metrics.m_tran_w) * 32.0
        fp64 = metrics.m_fp64 > metrics.m_fp32
        tensor_flop = float(metrics.m_tensor_flop or 0.0)
        tensor = tensor_flop > flop              # a tensor-core kernel: its MMAs' operations
        flop += tensor_flop
    peak_flops: float | None = None
    peak_dram: float | None = None
    peaks = pred.peaks                    # the analysis loaded them; a GPU with none: no share of peak
    if peaks is not None:
        peak_flops, peak_dram = (peaks.t_dp if fp64 else peaks.t_sp), peaks.b_mem
        if tensor:                        # no tensor-core peak in the peaks table: no share of a wrong one
            peak_flops = None
    floors = getattr(pred, "floors", None)
    dram_source: str | None = None
    if floors is not None and floors.dram_gbs:
        peak_dram, dram_source = floors.dram_gbs, floors.dram_source
    elif peak_dram is not None:
        dram_source = "B_mem of pipeperf gpu peaks"
    rate = (lambda x: x / seconds / 1e9 if x is not None and seconds > 0 else None)
    return Headline(kernel=pred.kernel, gpu=pred.gpu, seconds=seconds,
                    launch_overhead_seconds=float(pred.launch_overhead_seconds),
                    flop=flop, gflops=rate(flop), peak_gflops=peak_flops,
                    dram_bytes=dram, dram_gbs=rate(dram), peak_dram_gbs=peak_dram,
                    occupancy=float(pred.occupancy), warps_per_sm=pred.blocks_per_sm * pred.warps_per_block,
                    max_warps_per_sm=_max_warps(pred),
                    limited_by=pred.limited_by, bound=pred.bound.by, bound_text=bound_words(pred.bound),
                    top_line=_top_line(pred), top_advice=_top_advice(pred), peak_dram_source=dram_source,
                    dram_floor_seconds=None if floors is None else floors.dram_seconds,
                    issue_floor_seconds=None if floors is None else floors.issue_seconds,
                    not_physical=None if floors is None else floors.violation(seconds), tensor=tensor)


def _top_line(pred: GPUPrediction) -> str | None:
    """``transpose.cu:18: 41% of the time (pipeline busy (lsu))``."""
    from pipeperf.analysis.stalls import line_label

    lines = getattr(pred, "source_lines", None)
    if not lines:
        return None
    t = lines[0]
    return f"{line_label(t)}: {100 * t.share:.0f}% of the time ({t.top_reason})"


def _top_advice(pred: GPUPrediction) -> str | None:
    """``bank conflicts: 11.1 us predicted (-19%)``."""
    items = getattr(pred, "advice", None)
    if not items:
        return None
    a = items[0]
    return f"{a.kind}: {format_seconds(a.seconds_after)} predicted (-{100 * a.gain:.0f}%)"

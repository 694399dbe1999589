"""The records the analyze path's stages hand one another, frozen, so a stage is fed by name and
can be tested alone (ARCHITECTURE.md, "Records passed between stages"):

- :class:`KernelLaunch`: what is launched (the file, grid, block, the kernel's PTX name);
- :class:`~pipeperf.analysis.builds.Build`: one compile (target, Module, ptxas resources, PTX);
- :class:`Emulation`: one emulation of a build's PTX (the :class:`~pipeperf.emulate.profile.Profile`
  and its TraceLog), in a GPU's warp width;
- :class:`SassTiming`: the SASS a GPU's IDGs hold (``--isa sass``), or why they stay PTX;
- :class:`SimContext`: what the advice re-simulates from (the prepared IDGs, the run);
- :class:`~pipeperf.idg.build.WarpClasses`: the IDG builder's output (the
  :class:`~pipeperf.idg.kernel_graph.KernelGraph` and its :class:`~pipeperf.idg.build.BuildInfo`);
- :class:`~pipeperf.analysis.memory_trace.MemoryMap`: mapper g's result;
- :class:`~pipeperf.analysis.results.GPUPrediction` and :class:`~pipeperf.analysis.results.Analysis`:
  the predictions, with the :class:`~pipeperf.analysis.results.PtxLines` the source view renders.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pipeperf.analysis.sass_trace import SassView
    from pipeperf.emulate.profile import Profile
    from pipeperf.ptx.ir import Function
    from pipeperf.ptx.source_map import SourceMap
    from pipeperf.simulate.simulator import PreparedKernel, SimResult


@dataclass(frozen=True)
class KernelLaunch:
    """One launch of kernel ``kernel`` (its PTX entry name) of ``path`` on a ``grid`` of
    ``block``-shaped thread blocks."""

    path: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]

    @property
    def threads(self) -> int:
        """Threads per block."""
        return math.prod(self.block)

    @property
    def n_blocks(self) -> int:
        return math.prod(self.grid)

    def warps_per_block(self, warp_size: int = 32) -> int:
        """Warps of ``warp_size`` threads per block (the emulator's warps are 32 wide)."""
        return -(-self.threads // warp_size)


@dataclass(frozen=True)
class Emulation:
    """One emulation of a build's PTX: its ``profile`` (counts, notes, scalar parameters, CTA
    strata) with the traced warps' TraceLog, each warp's trace kept to ``trace_cap`` entries
    (None: whole); ``warp_size``: the width of the warps the traces are keyed by (32, or a
    64-wide GPU's wavefronts after :meth:`in_warps_of`)."""

    profile: Profile
    trace_cap: int | None = None
    warp_size: int = 32

    @property
    def traces(self) -> Mapping[int, list[dict[str, Any]]]:
        """The traced warps' traces (the emulator's TraceLog; a dict once regrouped)."""
        return self.profile.traces

    def in_warps_of(self, warp_size: int, threads: int) -> Emulation:
        """This emulation with its traces regrouped into ``warp_size``-thread warps (64-wide GPUs:
        :func:`~pipeperf.analysis.wavefronts.wide_warp_traces`); itself for 32."""
        if warp_size == self.warp_size:
            return self
        from pipeperf.analysis.wavefronts import wide_warp_traces

        wide = wide_warp_traces(self.profile.traces, threads, warp_size)     # its entries are dicts, as the emulator's
        prof = replace(self.profile, traces=cast("Mapping[int, list[dict[str, Any]]]", wide))
        return replace(self, profile=prof, warp_size=warp_size)


@dataclass(frozen=True)
class SassTiming:
    """What one GPU's IDGs are built from with ``--isa sass``: ``view`` (the kernel's SASS walked
    along the PTX's paths), or None where they stay PTX; ``notes`` say which and why."""

    view: SassView | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimContext:
    """What re-simulating one kernel x GPU needs (the advice's): the prepared IDGs and the launch's
    run; ``predict_one`` makes it, the analysis drops it once the advice is given."""

    prep: PreparedKernel       # the IDGs prepared with mapper g's classes
    run: SimResult             # the launch's run (attribution on)
    warps_per_block: int
    n_blocks: int
    cut: bool                  # the run's cycles were extrapolated (IDGs cut, or loop periods skipped)
    #: resimulate(transform=None, on=None, group=, resident=, total=) -> SimResult: the launch
    #: re-simulated with changed IDGs / GPU classes / block size, extrapolated as the launch was
    resimulate: Callable[..., SimResult] | None = None
    func: Function | None = None       # the PTX function and its SourceMap, to name lines (set before the advice)
    sources: SourceMap | None = None

"""The options of one ``analyze`` run, with their defaults in one place.

``pipeperf analyze`` builds them from its arguments (:func:`pipeperf.cli.analyze.options_from_args`),
the notebook API and the Python callers from keywords (:meth:`AnalyzeOptions.from_kwargs`); the
command's ``--help`` shows these defaults, so the two never drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from pipeperf.emulate.budget import DEFAULT_STEPS
from pipeperf.errors import PipeperfError

#: rounds of resident blocks simulated before extrapolating a long launch (None: exact)
FAST_FORWARD_ROUNDS = 4
#: engine instructions of one simulation of a launch (its shorter runs included) past which the
#: what-ifs, the lock-step check and the advice's re-simulations (5-10 of them, each as costly) are
#: skipped with a note: ~8 M instructions a second on the development machine (2026-11-28: a
#: dedispersion's 267 M took 24 s a run, 8 re-simulations 3 of its 4 minutes; llm.c's softmax k8 at
#: 10 M, 16 re-simulations 12 of its 24 s), so at most ~1 s a re-simulation; every launch of
#: benchmarks/analyze_suite.py runs under 4 M; ``--resimulation-limit 0`` lifts it
RESIMULATION_LIMIT = 8_000_000
#: --oob: an out-of-bounds global access stops the emulation, or is counted per line and goes on
OOB_MODES = ("error", "warn")
#: what the IDGs are built from: the emulated PTX, or the SASS ptxas makes of it (per GPU target)
ISAS = ("ptx", "sass")


@dataclass(frozen=True)
class AnalyzeOptions:
    """How to analyze a launch (what to analyze: the file, grid, block, arguments and GPUs, is apart).

    ``trace_warps`` warps of the launch are traced (the sample the warp classes, their weights
    and mapper g's statistics come from); traces longer than ``max_nodes`` instructions are cut.
    ``memory=False`` skips mapper g (every memory instruction keeps its database class).
    ``fast_forward=R`` extrapolates long launches of identical blocks from R and 2R rounds of
    resident blocks (:meth:`PreparedKernel.run`); None simulates every block. ``what_if`` also
    simulates the launch with its bank conflicts removed and its global accesses coalesced,
    where it has any (mapper g's what-ifs), to say what fixing them would gain, and re-simulates
    the other changes :mod:`pipeperf.analysis.advice` weighs (block size, registers, tail, chains).
    ``max_blocks_per_sm`` caps the resident blocks below the occupancy rules' limit, as a
    program does with the shared-memory carve-out or a launch bound; ``nvcc_flags`` go to nvcc.
    ``warm_l2``: the launch follows one over the same buffers (back-to-back launches), so data
    that fits in L2 is there from the start; by default L2 starts cold.
    ``exact`` turns every shortcut off, slow as it may be: every loop iteration emulated and
    simulated (no periodic-loop skipping), whole traces (no cap, no ``max_nodes``), every block
    simulated (no ``fast_forward``); the reference the shortcuts are tested against.
    ``skip_loops=False`` turns only the periodic-loop skipping off. ``models=False`` evaluates the
    Pipeline model only, not the analytical ones (a third of a small launch's time; ``pipeperf
    tune`` ranks by the Pipeline time). ``phase_check`` re-simulates the launch with the DRAM and L2
    pipelines 1 % faster and slower (:mod:`pipeperf.analysis.lockstep`): by default where the
    what-ifs run; ``pipeperf tune --phase-check`` turns it on without them. ``isa="sass"`` builds
    the IDGs from the SASS ptxas makes for each GPU's target (:mod:`pipeperf.analysis.sass_trace`)
    instead of the PTX, the emulation's paths and addresses kept."""

    kernel: str | None = None
    mode: str = "hybrid"
    trace_warps: int = 256
    max_nodes: int | None = 200_000
    shared: int = 0                     # dynamic shared memory per block, bytes
    arch: str | None = None
    sweep: bool = False
    scheduler: str = "rr"
    memory: bool = True
    all_ctas: bool = False
    fast_forward: int | None = FAST_FORWARD_ROUNDS
    what_if: bool = True
    phase_check: bool | None = None     # the lock-step check (analysis/lockstep.py); None: with what_if
    #: engine instructions of one simulation past which the re-simulations (what-ifs, lock-step check,
    #: advice) are skipped with a note (RESIMULATION_LIMIT above, analysis/predict.py); None or 0: no limit
    resimulation_limit: int | None = RESIMULATION_LIMIT
    max_blocks_per_sm: int | None = None
    nvcc_flags: tuple[str, ...] = ()
    warm_l2: bool = False
    exact: bool = False
    skip_loops: bool = True
    models: bool = True                 # the analytical models besides the Pipeline model
    isa: str = "ptx"                    # the instructions the IDGs hold: "ptx", or "sass" (analysis/sass_trace.py)
    max_steps: int = DEFAULT_STEPS      # the emulation's step budget (emulate/budget.py): stops a runaway loop
    allow_dtype_mismatch: bool = False  # take a .npy whose dtype is not its pointer's element type
    oob: str = "error"                  # out-of-bounds global accesses: "error" stops, "warn" counts and goes on
    source_lines: bool = True           # the per-line time and PTX listing (pipeperf tune reports neither: skips them)
    trim_heap: bool = True              # free pages back to the system after the memory log (tune: kept for the next variant)

    @classmethod
    def from_kwargs(cls, base: AnalyzeOptions | None = None, **kwargs: Any) -> AnalyzeOptions:
        """``base`` (default: the defaults) with ``kwargs`` replaced; an unknown name is a one-line error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise PipeperfError(f"analyze: unknown option {unknown[0]!r} (expected one of {', '.join(sorted(known))})")
        if "nvcc_flags" in kwargs:
            kwargs["nvcc_flags"] = tuple(kwargs["nvcc_flags"] or ())
        if kwargs.get("oob", "error") not in OOB_MODES:
            raise PipeperfError(f"analyze: oob {kwargs['oob']!r} is not one of {', '.join(OOB_MODES)}")
        if kwargs.get("isa", "ptx") not in ISAS:
            raise PipeperfError(f"analyze: isa {kwargs['isa']!r} is not one of {', '.join(ISAS)}")
        if (kwargs.get("resimulation_limit") or 0) < 0:
            raise PipeperfError(f"analyze: resimulation_limit must be >= 0 (0: no limit), got {kwargs['resimulation_limit']}")
        return replace(base or cls(), **kwargs)

    def resolved(self, trace_cap: int | None) -> AnalyzeOptions:
        """The options as run: ``exact`` drops ``max_nodes`` and ``fast_forward``; else the IDG cut is
        at most the emulator's trace cap."""
        if self.exact:
            return replace(self, max_nodes=None, fast_forward=None)
        if self.max_nodes is not None and trace_cap is not None:
            return replace(self, max_nodes=min(int(self.max_nodes), trace_cap))
        return self

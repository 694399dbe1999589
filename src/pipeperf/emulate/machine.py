"""The SIMT machine: one kernel launch, run over batches of whole CTAs.

The machine lays the launch out (:mod:`~pipeperf.emulate.layout`), compiles the kernel
(:class:`~pipeperf.emulate.program.Program`, whose operations come from the opcode registry,
:mod:`~pipeperf.emulate.registry`), and for each batch of CTAs sets up the thread state and
hands it to the scheduler (:mod:`~pipeperf.emulate.scheduler`). Handlers reach the per-batch
shared and local arenas (``smem``, ``lmem``), the counters and the layout through it.
"""

from __future__ import annotations

import logging

import numpy as np

from pipeperf.emulate import clocks
from pipeperf.emulate.budget import DEFAULT_STEPS, StepBudget
from pipeperf.emulate.counters import Counters, Weighted
from pipeperf.emulate.layout import Layout
from pipeperf.emulate.memory import Arena, GlobalMemory
from pipeperf.emulate.program import BAR, BRA, BRX, CALL, EXIT, OP, RET, Program
from pipeperf.emulate.registry import UNCHECKED_ROOTS
from pipeperf.emulate.scheduler import execute
from pipeperf.emulate.state import State
from pipeperf.errors import PipeperfError
from pipeperf.ptx.ir import Function, Module
from pipeperf.util.progress import progress

MAX_THREADS = 1 << 31
log = logging.getLogger(__name__)


class Machine:
    """One kernel launch. ``mode`` is ``full`` or ``hybrid``."""

    def __init__(self, module: Module, kernel: Function, launch, mode: str = "full",
                 max_steps: int = DEFAULT_STEPS, batch_threads: int = 1 << 18,
                 file: str | None = None, trace_warps: int = 0, memory: bool = True,
                 optimistic: bool = False, trace: np.ndarray | None = None,
                 ctas: np.ndarray | None = None, trace_cap: int | None = None, fast_loops: bool = False,
                 weights: np.ndarray | None = None, oob: str = "error", trace_addresses: bool = True,
                 bank_conflicts: bool = True):
        """``trace``: sorted launch-wide warp ids to trace (default: the first ``trace_warps``);
        ``ctas``: sorted CTA linear indices to emulate (default: all), the rest are skipped.
        ``trace_cap``: entries kept per traced warp (the rest are executed and counted only).
        ``fast_loops``: jump over the iterations of periodic loops (:mod:`pipeperf.emulate.loops`).
        ``max_steps``: the launch's step budget (:mod:`pipeperf.emulate.budget`). ``weights``: per
        CTA of ``ctas``, how many grid CTAs it stands for: batches then hold CTAs of one weight and
        ``self.weighted`` (:class:`~pipeperf.emulate.counters.Weighted`) their weighted counts.
        ``oob``: ``error`` (an out-of-bounds global access stops the launch) or ``warn`` (it is
        counted per line; loads read zeros, stores are dropped). ``trace_addresses``: the lane
        addresses in the trace entries too (else only in the memory log). ``bank_conflicts=False``:
        shared requests are counted, their bank conflicts not (a cost nobody reads in analyze)."""
        self.module, self.kernel, self.launch, self.mode = module, kernel, launch, mode
        self.file = file or module.file
        self.max_steps = max_steps
        self.budget = StepBudget(max_steps, kernel.name)
        warps_per_cta = (launch.threads_per_block + 31) // 32
        if trace is None:
            trace = np.arange(min(int(trace_warps), launch.num_blocks * warps_per_cta), dtype=np.int64)
        self.trace_ids = np.asarray(trace, np.int64)
        self.ctas = None if ctas is None else np.asarray(ctas, np.int64)
        self.memory = memory or mode == "full"  # False: memory statistics are not collected
        self.bank_counts = bank_conflicts
        # optimistic hybrid: loads in the slice do not pull every store in; skipped stores
        # poison their bytes and a needed load of a poisoned byte aborts (HybridFallback)
        tensor = any(x.root in UNCHECKED_ROOTS for f in module.functions for x in f.instructions)
        # (skipped stores can only poison bytes when their addresses are computed: memory)
        self.optimistic = optimistic and mode == "hybrid" and not tensor and memory
        self.counters = Counters(trace_cap, self.trace_ids, trace_addresses)
        self.weights = None if weights is None or self.ctas is None else np.asarray(weights, np.float64)
        self.weighted: Weighted | None = None
        self.counters.trace.cap = trace_cap
        from pipeperf.emulate.loops import LoopSkipper

        self.loops = LoopSkipper(self) if fast_loops else None
        B = launch.threads_per_block
        if B > 1024:
            raise PipeperfError(f"block of {B} threads exceeds the CUDA limit of 1024")
        self.block_threads = B
        emulated = launch.num_blocks if self.ctas is None else len(self.ctas)
        total = B * emulated
        if total > MAX_THREADS:                  # only what is emulated counts: a sample of a huge grid is fine
            raise PipeperfError(f"{emulated} emulated blocks x {B} threads = {total} "
                                f"threads exceeds the emulator's limit of {MAX_THREADS}")
        self.cta_per_batch = max(1, batch_threads // B)
        if oob not in ("error", "warn"):
            raise PipeperfError(f"bad --oob '{oob}': expected error or warn")
        self.gmem = GlobalMemory(oob_sinks=oob == "warn")
        self.layout = Layout(module, kernel, launch, self.gmem, self.file, self.cta_per_batch, B,
                             self.optimistic)
        self.programs: dict[str, Program] = {}
        needed = None
        if mode == "hybrid":
            from pipeperf.emulate.hybrid import needed_instructions
            needed = needed_instructions(kernel, memory, self.optimistic)
        elif mode != "full":
            raise PipeperfError(f"unknown mode {mode!r} (full, hybrid)")
        self.programs[kernel.name] = Program(self, kernel, needed)
        self.clocked = clocks.reads_clock(module)     # count issued instructions for the clocks

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        nblocks = self.launch.num_blocks
        B = self.block_threads
        warps_per_cta = (B + 31) // 32
        order = self.ctas
        n_run = nblocks if order is None else len(order)
        batches = self._batches(n_run)
        if len(batches) > 1:                 # the batches' progress bar shows then, not the budget's line
            self.budget.watching = False
            self.budget.mark = 0
        try:
            self._run(batches, n_run, order, B, warps_per_cta)
        finally:
            self.budget.done()
        log.info("kernel %s: %d of the step budget's %d steps used", self.kernel.name, self.budget.used,
                 self.budget.limit)

    def _batches(self, n_run: int) -> list[tuple[int, int]]:
        """(first, count) of each batch of CTAs: at most ``cta_per_batch``, all of one weight."""
        cuts = set(range(0, n_run, self.cta_per_batch))
        if self.weights is not None:
            cuts |= {int(i) for i in np.flatnonzero(np.diff(self.weights)) + 1}
        starts = sorted(cuts)
        return [(a, b - a) for a, b in zip(starts, starts[1:] + [n_run])]

    def _run(self, batches: list[tuple[int, int]], n_run: int, order: np.ndarray | None, B: int,
             warps_per_cta: int) -> None:
        if self.weights is not None:
            self.weighted = Weighted(self.counters)
        with np.errstate(all="ignore"):
            for c0, nc in progress(batches, "emulate", "batch of CTAs"):
                ctas = (np.arange(c0, c0 + nc, dtype=np.int64) if order is None
                        else order[c0:c0 + nc])
                self._batch_ctas = ctas
                st = State(self.kernel, nc * B)
                t = np.arange(nc * B, dtype=np.int64)
                cta, tid = t // B, t % B
                st.cta = cta
                st.smem_base = cta * self.layout.shared_bytes
                st.lane = tid % 32
                # contiguous within the run (warp counting relies on it), not launch-wide when
                # CTAs are sampled; traces use the launch-wide id
                st.wid = (cta + c0) * warps_per_cta + tid // 32
                self._trace_ids(st, ctas[cta] * warps_per_cta + tid // 32)
                self._specials(st, ctas[cta], tid)
                if self.clocked:
                    st.regs[clocks.ISSUED] = np.zeros(nc * B, np.uint64)
                self.smem = Arena(nc * self.layout.shared_bytes, self.optimistic)
                self.lmem = Arena(nc * B * self.layout.local_bytes, self.optimistic)
                self.live = np.full(nc, B, np.int64)
                if self.loops is not None:
                    self.loops.new_batch()
                execute(self, self.programs[self.kernel.name], st, slice(0, nc * B))
                self.counters.ctas += nc
                self.counters.threads += nc * B
                self.counters.warps += nc * warps_per_cta
                if self.weighted is not None and self.weights is not None:
                    self.weighted.add(self.counters, float(self.weights[c0]))
        if self.mode == "full" and order is None:  # hybrid or sampled: partial, leave alone
            for _k, addr, arr in self.layout.buffers:
                arr[...] = self.gmem.read_back(addr, arr)

    def _trace_ids(self, st: State, gwid: np.ndarray) -> None:
        """Mark the batch's threads of traced warps with their launch-wide warp id (else -1)."""
        ids = self.trace_ids
        if not len(ids) or gwid[-1] < ids[0] or gwid[0] > ids[-1]:
            return
        k = np.minimum(np.searchsorted(ids, gwid), len(ids) - 1)
        hit = ids[k] == gwid
        if hit.any():
            st.trace_wid = np.where(hit, gwid, -1)
            st.traced_any = True

    def _specials(self, st: State, cta_global: np.ndarray, tid: np.ndarray) -> None:
        L = self.launch
        bx, by, bz = L.block
        gx, gy, gz = L.grid
        u = np.uint32
        sp = st.special
        sp["%tid.x"] = (tid % bx).astype(u)
        sp["%tid.y"] = ((tid // bx) % by).astype(u)
        sp["%tid.z"] = (tid // (bx * by)).astype(u)
        sp["%ctaid.x"] = (cta_global % gx).astype(u)
        sp["%ctaid.y"] = ((cta_global // gx) % gy).astype(u)
        sp["%ctaid.z"] = (cta_global // (gx * gy)).astype(u)
        for n, v in (("%ntid.x", bx), ("%ntid.y", by), ("%ntid.z", bz), ("%nctaid.x", gx),
                     ("%nctaid.y", gy), ("%nctaid.z", gz), ("WARP_SZ", 32)):
            sp[n] = u(v)
        sp["%laneid"] = st.lane.astype(u)
        sp["%warpid"] = (tid // 32).astype(u)
        sp["%nwarpid"] = u(64)
        sp["%smid"] = u(0)
        sp["%lanemask_lt"] = ((np.uint64(1) << st.lane.astype(np.uint64)) - np.uint64(1)).astype(u)

    def _execute(self, prog: Program, st: State, start, pc0: int = 0,
                 probe: tuple[int, int, int] | None = None) -> int | None:
        """:func:`pipeperf.emulate.scheduler.execute` on this machine (the loop skipper probes
        through it)."""
        return execute(self, prog, st, start, pc0, probe)


#: the loop skipper (:mod:`pipeperf.emulate.loops`) reads instruction kinds from here
__all__ = ["BAR", "BRA", "BRX", "CALL", "EXIT", "MAX_THREADS", "OP", "RET", "Machine"]

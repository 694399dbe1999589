"""Pipeline-model simulation of a kernel on a GPU (Sec. 3.2 of analytical-models-and-pipeline-model.txt).

``simulate`` maps each IDG node to (subsystem, lambda, Lambda) with the GPU's
mapper f, flattens the warp classes into arrays and runs the compiled engine
for one compute unit; all P units behave alike (N = ceil(N_total / P) groups each).
Each simulated warp gets a warp class from :meth:`KernelGraph.assign`: whole block
shapes when the kernel has group classes (so blocks that differ, such as a last
block with extra barriers, keep their barriers consistent), else per warp by weight.
A launch of more than :data:`HUGE_GROUPS` groups per core is always fast-forwarded (mixed block
shapes too, over a window that holds each shape in proportion), from the first groups of its
order: the order of every group, let alone their simulation, does not fit in seconds.

The flattened arrays are :mod:`array` buffers filled by the engine's C helpers (``take``,
``widen``), and NumPy is imported only for an execution profile: ``pipeperf simulate`` of a file
does not pay NumPy's import, which takes longer than simulating 10^6 warp instructions.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import GPUSpec
from pipeperf.idg.kernel_graph import KernelGraph
from pipeperf.simulate import engine

if TYPE_CHECKING:
    import numpy as np

SCHEDULERS = {"rr": engine.RR, "gto": engine.GTO}
#: groups per core past which a launch is always fast-forwarded, its block shapes mixed or not, from
#: the first groups of its order only (a 65535 x 65535 grid: 4e7 groups a core, whose order alone
#: was minutes and gigabytes); below, mixed shapes are simulated whole, as they always were
HUGE_GROUPS = 1 << 16
#: with mixed block shapes, the fast-forward window holds at least this many groups per shape: the
#: smooth round-robin order holds each shape in proportion within one group, so the window's mix,
#: and the extrapolated slope, is within 1/MIX_GROUPS of the launch's
MIX_GROUPS = 64
#: engine instructions of a launch of mixed block shapes (below HUGE_GROUPS) past which it is
#: fast-forwarded by instructions (PreparedKernel._weighted_window) instead of simulated whole: ~3 s of
#: engine time on the development machine (~8 M instructions a second)
MIXED_WORK = 25_000_000
#: groups per block shape in each window of that fast-forward
MIXED_GROUPS = 16
#: subsystems whose activity sets the clock under load (GPUSpec.clock_at)
ARITHMETIC = ("alu", "int", "dpu", "sfu", "tensor")
#: subsystems served first-come: the warps waiting for them go in the order their request became
#: ready, not in the warp scheduler's order. The DRAM and the L2 slices sit behind request queues
#: outside the SM (FR-FCFS at the DRAM, FIFO queues to and in the L2; docs/DESIGN.md "First-come
#: memory service"), which see requests in the order the SMs send them, not a scheduler's rotation.
FIRST_COME = ("mem", "l2", "atomic")


@dataclass
class ExecutionProfile:
    """Issue and completion time of every instruction of every warp (for Gantt charts)."""

    warp: np.ndarray
    instr: np.ndarray
    issue: np.ndarray
    complete: np.ndarray
    subsystem: np.ndarray      # subsystem index per record
    subsystems: list[str]
    group_size: int
    class_name: list[str]        # class name per record


#: why a warp slot's cycle went where it did, in the engine's column order; the dependency columns
#: follow, one per kind of producer (:func:`producer_kind`)
REASONS = ("issued", "pipeline busy", "not selected", "barrier")
#: slot cycles with no instruction to charge, in the engine's idle order
IDLE = ("no running block (retire, dispatch, none left)", "warp done, its block not")

_SUBSYSTEM_KIND = {"alu": "arithmetic", "int": "integer arithmetic", "dpu": "fp64 arithmetic",
                   "sfu": "special function", "tensor": "tensor core", "lsu": "load/store unit",
                   "mem": "global memory", "l2": "global memory", "atomic": "L2 atomics",
                   "barrier": "barrier"}


def producer_kind(class_name: str, subsystem: str) -> str:
    """What a warp waiting on this instruction's result waits for, in words: loads by state space
    (a mapper g class ``ld_global_s32@L12`` is a global load), atomics, else the subsystem's work."""
    base = class_name.split("@")[0]
    head = base.split("_")
    if head[0] in ("ld", "ldu") and len(head) > 1:
        return f"{head[1]} load"
    if head[0] in ("atom", "red"):
        return "atomic"
    return _SUBSYSTEM_KIND.get(subsystem, subsystem)


@dataclass
class Attribution:
    """Every warp slot's cycles of one simulated core, charged to an IDG node (row: the node's
    index in :class:`PreparedKernel`'s flattened arrays) and a reason (``reasons``: REASONS, then
    ``waiting on <producer kind>``; a warp is charged to its next instruction, except that a wait
    for a busy pipeline goes to the instruction occupying it and a wait at a barrier to the
    barrier, their causes); ``idle`` holds the slot cycles with no instruction to charge
    (IDLE). All of it sums to ``slots`` x the run's cycles: each slot is charged every cycle."""

    cells: np.ndarray            # float64 (n_nodes, len(reasons))
    reasons: list[str]
    idle: dict[str, float]
    slots: int

    @property
    def total(self) -> float:
        return float(self.cells.sum()) + sum(self.idle.values())


@dataclass
class SimResult:
    """Outcome of one simulation: per-core cycles and derived throughputs."""

    cycles: float
    seconds: float
    warps_per_cycle: float
    ipc: float
    subsystem_busy: dict[str, float]
    warps: int                   # concurrent warps (occupancy omega = M * |gamma|)
    group_size: int
    groups_per_core: int
    groups_total: int
    groups_on_core: int
    warps_on_core: int
    instructions_on_core: int
    scheduler: str
    gpu: str
    kernel: str
    profile: ExecutionProfile | None = field(default=None, repr=False)
    issue_cycles: float = 0.0        # cycles in which at least one instruction issued
    fast_forward: dict[str, Any] | None = None  # {"simulated_groups": [k1, k2]} when extrapolated (see run)
    clock_ghz: float = 0.0           # the clock cycles were converted with (GPUSpec.clock_at)
    attribution: Attribution | None = field(default=None, repr=False)   # with run(attribute=True)
    #: instructions the engine issued to get this result (both windows of a fast-forward, not the
    #: extrapolated count): what the run cost, which sets whether re-simulating it is affordable
    simulated_instructions: int = 0

    @property
    def bound_by(self) -> str:
        """The busiest subsystem, or 'latency' when none is close to saturation."""
        if not self.subsystem_busy:
            return "latency"
        name, frac = max(self.subsystem_busy.items(), key=lambda kv: kv[1])
        return name if frac >= 0.9 else "latency"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "gpu": self.gpu, "scheduler": self.scheduler,
            "warps": self.warps, "group_size": self.group_size, "groups_per_core": self.groups_per_core,
            "groups_total": self.groups_total, "groups_on_core": self.groups_on_core,
            "warps_on_core": self.warps_on_core, "instructions_on_core": self.instructions_on_core,
            "cycles": self.cycles, "seconds": self.seconds, "warps_per_cycle": self.warps_per_cycle,
            "ipc": self.ipc, "subsystem_busy": self.subsystem_busy, "bound_by": self.bound_by,
            "issue_cycles": self.issue_cycles, "fast_forward": self.fast_forward,
        }


#: classes whose result nothing waits for at the block's end (posted writes)
POSTED_CLASSES = frozenset({"st_global"})


class PreparedKernel:
    """A kernel's IDGs mapped onto a GPU (mapper f), flattened for the engine; reusable across runs."""

    def __init__(self, kernel: KernelGraph, gpu: GPUSpec, first_come: tuple[str, ...] | None = None):
        kernel.check_classes(gpu.name, gpu.classes)
        kernel.check_barriers()
        self.kernel, self.gpu = kernel, gpu
        self.subsystems = gpu.subsystems
        sub_index = {s: i for i, s in enumerate(self.subsystems)}
        idgs = kernel.idgs
        self.length = array("q", [len(g) for g in idgs])
        self.off = array("q", accumulate(self.length[:-1], initial=0))
        n = sum(self.length)
        self.sub, self.bar_prev = array("q", bytes(8 * n)), array("q", bytes(8 * n))
        self.lam, self.Lam, self.Lret = array("d", bytes(8 * n)), array("d", bytes(8 * n)), array("d", bytes(8 * n))
        self.dep_ptr = array("q", bytes(8 * (n + 1)))
        self.dep_idx = array("q", bytes(8 * sum(g.n_edges for g in idgs)))
        self.minlam = array("d", [math.inf]) * len(self.subsystems)
        ptr_base = 0
        for g, o in zip(idgs, self.off):
            # per class of the IDG: subsystem, lambda, Lambda and the Lambda a block's end waits for
            ic = [gpu.classes[c] for c in g.classes]
            sub_c = [sub_index[c.subsystem] for c in ic]
            lam_c = [float(c.cpi) for c in ic]
            Lam_c = [float(c.latency) for c in ic]
            # a global store is posted: the block retires once the store has left the SM (its issue
            # slot), not when the L2 acknowledges it; nothing in the warp waits for its result
            ret_c = [lam_c[k] if name.split("@")[0] in POSTED_CLASSES else Lam_c[k]
                     for k, name in enumerate(g.classes)]
            nodes = slice(o, o + len(g))
            for table, out in ((array("q", sub_c), self.sub), (array("d", lam_c), self.lam),
                               (array("d", Lam_c), self.Lam), (array("d", ret_c), self.Lret)):
                engine.take(table, g.cls_buf, memoryview(out)[nodes])
            # smallest CPI per subsystem bounds the issue slots a pipeline offers per cycle
            used = g.class_counts()
            for k, c in enumerate(g.classes):
                if c in used:
                    self.minlam[sub_c[k]] = min(self.minlam[sub_c[k]], lam_c[k])
            bar = memoryview(g.barrier_buf)  # type: ignore[arg-type]  # ndarray: idg.graph.Buffer
            self.bar_prev[nodes] = _barrier_before(bar.cast("B").tobytes())
            ptrs = memoryview(g.dep_ptr_buf)  # type: ignore[arg-type]  # ndarray: idg.graph.Buffer
            engine.widen(ptrs[:-1], ptr_base, memoryview(self.dep_ptr)[nodes])
            engine.widen(g.dep_idx_buf, 0, memoryview(self.dep_idx)[ptr_base:ptr_base + g.n_edges])
            ptr_base += g.n_edges
        self.dep_ptr[n] = ptr_base
        # per node, the warp-local node whose fill a load's L1 hits wait for (IDG.fill), -1 for none,
        # and the cycles it still takes once that fill is in (its class's after_fill); None: no such node
        self.fill: array[int] | None = None
        self.fill_cycles: array[float] | None = None
        if any(g.fill is not None for g in idgs):
            self.fill, self.fill_cycles = array("q", [-1]) * n, array("d", bytes(8 * n))
            for g, o in zip(idgs, self.off):
                if g.fill is not None:
                    nodes = slice(o, o + len(g))
                    engine.widen(g.fill, 0, memoryview(self.fill)[nodes])
                    engine.take(array("d", [float(gpu.classes[c].after_fill) for c in g.classes]), g.cls_buf,
                                memoryview(self.fill_cycles)[nodes])
        # per subsystem: served first-come (None: FIRST_COME; () serves every pipeline in scheduler order)
        fc = FIRST_COME if first_come is None else first_come
        self.fifo = array("b", [s in fc for s in self.subsystems]) if fc else None
        self.is_bar = array("b", b"".join(memoryview(g.barrier_buf).cast("B")  # type: ignore[arg-type]  # ndarray: idg.graph.Buffer
                                          for g in idgs))
        for k, v in enumerate(self.minlam):
            if not math.isfinite(v):
                self.minlam[k] = 1.0
        # the block scheduler's GPU-wide rate, as the interval between block starts on one SM
        rate = float(gpu.launch.get("blocks_per_clk", 0.0) or 0.0)
        self.dispatch_interval = gpu.cores / rate if rate > 0 else 0.0
        self.dep_reasons: list[str] = []
        self.dep_col: np.ndarray | None = None  # per node, its producer's column of the attribution (lazy)

    def name_producers(self, kinds: list[str]) -> None:
        """Name what a warp waiting on each node's result waits for (one word per node, e.g. from
        its PTX instruction: a shuffle the mapper gives a load's class is still a shuffle)."""
        if len(kinds) != len(self.sub):
            raise PipeperfError(f"{len(kinds)} producer kinds for {len(self.sub)} instructions")
        import numpy as np

        self.dep_reasons = list(dict.fromkeys(kinds))
        col = {k: len(REASONS) + i for i, k in enumerate(self.dep_reasons)}
        self.dep_col = np.array([col[k] for k in kinds], dtype=np.int64)

    def name_producers_by_pc(self, labels: list[str], first: np.ndarray, inv: np.ndarray) -> None:
        """:meth:`name_producers` with the kinds given per pc: ``labels[j]`` for the nodes where
        ``inv`` is j, ``first[j]`` the first of them (the same names and columns, without a list
        of one word per node)."""
        import numpy as np

        if len(inv) != len(self.sub):
            raise PipeperfError(f"{len(inv)} producer kinds for {len(self.sub)} instructions")
        order = np.argsort(first, kind="stable").tolist()      # the pcs in order of their first node
        self.dep_reasons = list(dict.fromkeys(labels[j] for j in order))
        col = {k: len(REASONS) + i for i, k in enumerate(self.dep_reasons)}
        self.dep_col = np.array([col[k] for k in labels], dtype=np.int64)[inv]

    def dependency_columns(self) -> np.ndarray:
        """Each node's producer column for the attribution: named by :meth:`name_producers`, else
        from its class and subsystem (computed on the first attributed run only, so a plain run
        does not pay for it)."""
        if self.dep_col is None:
            self.name_producers([producer_kind(str(n), self.subsystems[k]) for n, k in zip(self.class_names, self.sub)])
        assert self.dep_col is not None        # name_producers set it
        return self.dep_col

    def run(self, group_size: int = 1, groups_per_core: int = 1, total_groups: int | None = None,
            scheduler: str = "rr", profile: bool = False, check_limits: bool = True,
            fast_forward: int | None = None, attribute: bool = False) -> SimResult:
        """Simulate one core running its N = ceil(total_groups / cores) groups, M at a time.

        ``fast_forward=R`` (off by default): when every group on the core is the same block
        shape and N > k2, simulate only k1 = R*M + (N mod M) and k2 = k1 + R*M groups and
        extrapolate cycles, busy time and issues linearly to N from the steady state between them
        (after R rounds the resident groups' staggering has settled; both runs end with the
        launch's own last partial round, so the tail is in both). It
        trades exactness for time on long launches; benchmarks/analyze_speed.py reports the error.

        ``attribute``: also charge every warp slot's every cycle to an instruction and a reason
        (:class:`Attribution`; extrapolated as the cycles are under ``fast_forward``)."""
        gpu = self.gpu
        if scheduler not in SCHEDULERS:
            raise PipeperfError(f"unknown scheduler '{scheduler}': expected rr or gto")
        if group_size < 1 or groups_per_core < 1:
            raise PipeperfError("group size and groups per core must be >= 1")
        warps = group_size * groups_per_core
        if check_limits and warps > gpu.max_warps_per_core:
            raise PipeperfError(f"{warps} concurrent warps exceed GPU '{gpu.name}' limit of "
                                f"{gpu.max_warps_per_core} warps per core")
        if check_limits and groups_per_core > gpu.max_groups_per_core:
            raise PipeperfError(f"{groups_per_core} concurrent groups exceed GPU '{gpu.name}' limit of "
                                f"{gpu.max_groups_per_core} groups per core")
        if total_groups is None:
            total_groups = groups_per_core * gpu.cores        # one run: every slot used once
        if total_groups < 1:
            raise PipeperfError("total number of groups must be >= 1")
        n_groups = math.ceil(total_groups / gpu.cores)       # N = ceil(N_total / P)
        ff = None
        rounds = (fast_forward or 0) * groups_per_core
        k1 = rounds + n_groups % groups_per_core          # same last partial round as the launch
        k2 = k1 + rounds
        huge = bool(fast_forward) and not profile and n_groups > HUGE_GROUPS and rounds > 0
        if huge:                                          # never the whole launch's order (module docstring)
            rounds = _mixed_window(rounds, groups_per_core, len(self.kernel.group_classes))
            k1 = rounds + n_groups % groups_per_core
            k2 = k1 + rounds
            warp_cls = self.kernel.assign_buffer(k1 * group_size, group_size)
            cls2 = self.kernel.assign_buffer(k2 * group_size, group_size)
        else:
            warp_cls = self.kernel.assign_buffer(n_groups * group_size, group_size)   # whole block shapes
            cls2 = warp_cls
        same = not huge and warp_cls == warp_cls[:group_size] * n_groups     # one block shape throughout
        weighted = None if huge or same or profile or not fast_forward or rounds <= 0 else \
            self._weighted_window(warp_cls, group_size, n_groups, groups_per_core, rounds)
        if weighted is not None:
            k1, k2, f = weighted
        if huge or weighted is not None or (fast_forward and not profile and n_groups > k2 and rounds > 0 and same):
            e1 = self._engine(warp_cls[:k1 * group_size], group_size, k1, groups_per_core, scheduler, False,
                              attribute)
            e2 = self._engine(cls2[:k2 * group_size], group_size, k2, groups_per_core, scheduler, False,
                              attribute)
            if weighted is None:
                f = (n_groups - k2) / (k2 - k1)
            end = e2[0] + f * (e2[0] - e1[0])
            busy = [b2 + f * (b2 - b1) for b1, b2 in zip(e1[1], e2[1])]
            issued = int(round(e2[2] + f * (e2[2] - e1[2])))
            issue_cycles = e2[3] + f * (e2[3] - e1[3])
            prof = None
            attr = None
            if attribute:
                a1, a2 = e1[5], e2[5]
                assert a1 is not None and a2 is not None   # both runs attributed
                attr = Attribution(a2.cells + f * (a2.cells - a1.cells), a2.reasons,
                                   {k: v + f * (v - a1.idle[k]) for k, v in a2.idle.items()}, a2.slots)
            ff = {"rounds": int(fast_forward or 0), "simulated_groups": [k1, k2]}
            if weighted is not None:
                ff["by_instructions"] = True
            simulated = int(e1[2]) + int(e2[2])
        else:
            end, busy, issued, issue_cycles, prof, attr = self._engine(warp_cls, group_size, n_groups,
                                                                       groups_per_core, scheduler, profile,
                                                                       attribute)
            simulated = int(issued)
        cycles = float(end)
        n_warps = n_groups * group_size
        busy_share = {s: float(b / cycles) if cycles > 0 else 0.0 for s, b in zip(self.subsystems, busy)}
        clock = gpu.clock_at(self.arithmetic_activity(busy_share))
        return SimResult(
            cycles=cycles,
            seconds=cycles / (clock * 1e9),
            warps_per_cycle=n_warps / cycles if cycles > 0 else math.inf,
            ipc=issued / cycles if cycles > 0 else math.inf,
            subsystem_busy=busy_share,
            warps=warps, group_size=group_size, groups_per_core=groups_per_core,
            groups_total=total_groups, groups_on_core=n_groups, warps_on_core=n_warps,
            instructions_on_core=int(issued), scheduler=scheduler, gpu=gpu.name,
            kernel=self.kernel.name, profile=prof, issue_cycles=float(issue_cycles), fast_forward=ff,
            clock_ghz=clock, attribution=attr, simulated_instructions=simulated,
        )

    def _weighted_window(self, warp_cls: array[int], group_size: int, n_groups: int, groups_per_core: int,
                         rounds: int) -> tuple[int, int, float] | None:
        """(k1, k2, f) of a fast-forward of mixed block shapes by instructions, or None to simulate
        every group: only where the whole order would cost the engine more than :data:`MIXED_WORK`
        instructions, the two windows of :data:`MIXED_GROUPS` groups per shape (whole rounds) together
        hold fewer groups than the launch and the first holds every shape of the launch. The windows
        are prefixes of the launch's own order; the steady state between them is extrapolated by the
        instructions still to come,
        not by the groups (``f`` = the instructions after k2 over those between k1 and k2), so a window
        whose mix of heavy and light shapes is a group off the launch's is corrected to first order."""
        import numpy as np

        n_shapes = len(self.kernel.group_classes)
        lengths = np.frombuffer(self.length, np.int64)
        per_warp = lengths[np.frombuffer(warp_cls, np.int64)]
        if int(per_warp.sum()) <= MIXED_WORK:
            return None
        window = _mixed_window(rounds, groups_per_core, n_shapes, MIXED_GROUPS)
        k1 = window + n_groups % groups_per_core
        k2 = k1 + window
        if k1 + k2 > n_groups:            # the windows would cost the engine more than half the launch
            return None
        per_group = per_warp.reshape(n_groups, group_size).sum(axis=1)
        shapes = np.frombuffer(warp_cls, np.int64)[::group_size]
        if len(set(shapes[:k1].tolist())) < len(set(shapes.tolist())):
            return None                   # a rare shape placed late (KernelGraph._busiest_core): keep it whole
        w1, w2, wn = (int(per_group[:k].sum()) for k in (k1, k2, n_groups))
        return (k1, k2, (wn - w2) / (w2 - w1)) if w2 > w1 else None

    @cached_property
    def class_names(self) -> np.ndarray:
        """The class name of every node (object array), for execution profiles."""
        import numpy as np
        return np.array([g.classes[c] for g in self.kernel.idgs
                         for c in memoryview(g.cls_buf).cast("B").cast("i")],  # type: ignore[arg-type]  # ndarray: idg.graph.Buffer
                        dtype=object)

    def arithmetic_activity(self, busy_share: dict[str, float]) -> float:
        """How hard the run drives the arithmetic units, 0..1, for the clock under load: each
        arithmetic pipeline's busy share weighted by its lanes relative to the FP32 pipeline's
        (its smallest CPI over theirs), summed. Power follows the lanes that switch: an L40's two
        FP64 units kept busy draw little, its 128 FP32 lanes kept busy draw the board's limit."""
        idx = {s: i for i, s in enumerate(self.subsystems)}
        ref = self.minlam[idx["alu"]] if "alu" in idx else 1.0
        total = sum(busy_share[s] * min(1.0, ref / self.minlam[idx[s]]) for s in ARITHMETIC if s in idx)
        return min(1.0, total)

    def engine_input(self, warp_cls: array[int], group_size: int, n_groups: int, groups_per_core: int,
                     scheduler: str, profile: bool = False, attribute: bool = False) -> engine.EngineInput:
        """The one record an engine run reads (:class:`engine.EngineInput`): this kernel's
        flattened IDGs on this GPU, ``n_groups`` groups of ``group_size`` warps of the classes
        ``warp_cls``, M = ``groups_per_core`` resident; every issue recorded with ``profile``,
        the attribution's producer columns with ``attribute``."""
        return engine.EngineInput(
            off=self.off, length=self.length, sub=self.sub, lam=self.lam, Lam=self.Lam, Lret=self.Lret,
            is_bar=self.is_bar, bar_prev=self.bar_prev, dep_ptr=self.dep_ptr, dep_idx=self.dep_idx,
            minlam=self.minlam, fill=self.fill, fill_cycles=self.fill_cycles, fifo=self.fifo, warp_cls=warp_cls,
            group_size=group_size, n_groups=n_groups, n_resident=groups_per_core,
            issue_limit=float(self.gpu.issue_limit), scheduler=SCHEDULERS[scheduler],
            dispatch=float(self.gpu.launch.get("block_dispatch_cycles", 0.0)), interval=self.dispatch_interval,
            record=profile, dep_col=self.dependency_columns() if attribute else None,
            n_cols=len(REASONS) + len(self.dep_reasons) if attribute else 0)

    def _engine(self, warp_cls: array[int], group_size: int, n_groups: int, groups_per_core: int,
                scheduler: str, profile: bool, attribute: bool = False
                ) -> tuple[float, list[float], int, int, ExecutionProfile | None, Attribution | None]:
        """One engine run: (end time, busy per subsystem, issued, issue cycles, ExecutionProfile | None,
        Attribution | None)."""
        inp = self.engine_input(warp_cls, group_size, n_groups, groups_per_core, scheduler, profile, attribute)
        r = engine.run_core(inp)
        if r.status == engine.DEADLOCK:
            raise PipeperfError(f"simulation of '{self.kernel.name}' deadlocked at cycle {r.end:.0f} "
                                "(barriers that not every warp of a group reaches?)")
        prof = None
        if profile:
            import numpy as np
            i64, f64 = np.int64, np.float64
            pw, pi, pis, pc = (np.frombuffer(a, t) for a, t in ((r.rec_warp, i64), (r.rec_instr, i64),
                                                                 (r.rec_issue, f64), (r.rec_comp, f64)))
            g_off = np.frombuffer(self.off, i64)[np.frombuffer(warp_cls, i64)[pw]] + pi
            prof = ExecutionProfile(pw, pi, pis, pc, np.frombuffer(self.sub, i64)[g_off], list(self.subsystems),
                                    group_size, list(self.class_names[g_off]))
        attr = None
        if r.attr is not None and r.idle is not None:
            import numpy as np

            cells = np.frombuffer(r.attr, np.float64).reshape(len(self.sub), inp.n_cols)
            attr = Attribution(cells, list(REASONS) + [f"waiting on {k}" for k in self.dep_reasons],
                               dict(zip(IDLE, r.idle.tolist())), min(groups_per_core, n_groups) * group_size)
        return float(r.end), list(r.busy), int(r.issued), int(r.issue_cycles), prof, attr


def _barrier_before(barrier: bytes) -> array[int]:
    """The index of the most recent barrier strictly before each node (-1 if none), from one
    byte per node; a slice per barrier, so a barrier-free IDG costs one allocation."""
    out = array("q", [-1]) * len(barrier)
    p = barrier.find(1)
    while p != -1:
        q = barrier.find(1, p + 1)
        end = len(barrier) if q == -1 else q + 1
        out[p + 1:end] = array("q", [p]) * (end - p - 1)
        p = q
    return out


def simulate(kernel: KernelGraph, gpu: GPUSpec, group_size: int = 1, groups_per_core: int = 1,
             total_groups: int | None = None, scheduler: str = "rr", profile: bool = False,
             check_limits: bool = True) -> SimResult:
    """Simulate ``kernel`` on ``gpu`` with M = ``groups_per_core`` resident groups of ``group_size`` warps."""
    return PreparedKernel(kernel, gpu).run(group_size, groups_per_core, total_groups, scheduler, profile,
                                           check_limits)


def occupancy_sweep(kernel: KernelGraph | PreparedKernel, gpu: GPUSpec, warps: list[int], scheduler: str = "rr",
                    group_size: int = 1, runs: int = 1, groups: int | None = None) -> list[SimResult]:
    """Simulate at each occupancy (in warps) with groups of ``group_size`` warps.

    Each point runs ``runs`` rounds of groups per slot (``groups``: that many groups in all
    instead), so warps_per_cycle compares directly with the analytical models' WPC at that
    occupancy. ``kernel`` may be prepared already (:class:`PreparedKernel` on ``gpu``).
    """
    prep = kernel if isinstance(kernel, PreparedKernel) else PreparedKernel(kernel, gpu)
    out = []
    for w in warps:
        if w % group_size:
            raise PipeperfError(f"occupancy {w} is not a multiple of the group size {group_size}")
        m = w // group_size
        out.append(prep.run(group_size, m, groups if groups else m * gpu.cores * runs, scheduler,
                            check_limits=False))
    return out


def _mixed_window(rounds: int, groups_per_core: int, shapes: int, per_shape: int = MIX_GROUPS) -> int:
    """The fast-forward window of a launch of mixed block shapes: ``rounds`` groups, widened to whole
    rounds of ``groups_per_core`` holding ``per_shape`` groups of each of its ``shapes`` block shapes
    (:data:`MIX_GROUPS` for a huge launch, :data:`MIXED_GROUPS` for a costly one)."""
    need = max(rounds, per_shape * max(1, shapes))
    return -(-need // groups_per_core) * groups_per_core

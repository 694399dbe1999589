"""The compiled core of the Pipeline-model simulator (Algorithm 1, with the issue limit).

The core is C (``_engine.c``, a CPython extension built at install time): it loads in a
millisecond, where the Numba version it replaced spent most of a second importing and
finding its cache before simulating anything. This module gives it NumPy arrays.

One compute unit is simulated cycle by cycle, jumping over cycles in which
nothing can issue:

* each subsystem is a pipeline that accepts an instruction every lambda cycles
  (lambda may be fractional: 0.25 means four per cycle, at t, t+.25, t+.5, t+.75)
  and delivers its result Lambda cycles after issue;
* at most ``issue_limit`` instructions issue per cycle (a credit bucket, so
  fractional limits work too), and a warp's issues are at least one cycle apart;
* a warp issues its instructions in program order; an instruction is ready when
  the instructions it depends on have completed;
* a barrier completes for all warps of a group Lambda_bar cycles after the last
  of them reached it; instructions after a barrier wait for it;
* M groups are resident; when one finishes (its last instruction completes),
  the next waiting group takes its slots from that moment on.

Within a cycle the pipelines' issue slots are filled earliest first; at equal
times the scarcer pipeline (larger lambda) goes first, as Algorithm 1's
per-pipeline issue events pull work, and then the scheduler's priority decides:
loose round-robin (RR) starts after the warp that issued last; greedy-then-oldest
(GTO) keeps the last warp while it can issue, otherwise the oldest resident one.

The arrays are any C-contiguous buffers (:mod:`array` or NumPy) of int64, float64 or one-byte
booleans, checked by the compiled core, so ``pipeperf simulate`` runs without importing NumPy.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from pipeperf.errors import PipeperfError

try:
    from pipeperf.simulate import _engine  # type: ignore[attr-defined]  # the C extension: no stub
except ImportError as exc:              # a source tree whose extension was never built
    _engine = None
    _MISSING = str(exc)

RR = 0
GTO = 1

#: status codes returned by the engine
OK = 0
DEADLOCK = 1

#: a C-contiguous buffer: ``array.array`` or a NumPy array
Buffer = Any


@dataclass(frozen=True)
class EngineInput:
    """Everything one engine run reads, built by :meth:`PreparedKernel.engine_input
    <pipeperf.simulate.simulator.PreparedKernel.engine_input>`; the C engine and the reference
    engine (:mod:`pipeperf.simulate.reference`) take it whole.

    The warp classes' IDGs are flattened: class ``c``'s nodes are ``off[c] .. off[c] + length[c]``,
    and a node's dependences and barrier are indexes within its class (its warp's IDG). Buffers are
    int64 unless said; ``fill``, ``fill_cycles`` and ``fifo`` are None when no node or pipeline
    has one."""

    off: Buffer                  # per class: its first node
    length: Buffer               # per class: its number of nodes (instructions)
    sub: Buffer                  # per node: its subsystem (pipeline)
    lam: Buffer                  # float64 per node: lambda, the cycles it holds its pipeline
    Lam: Buffer                  # float64 per node: Lambda, the cycles from its issue to its result
    Lret: Buffer                 # float64 per node: the cycles its block waits for it before retiring
    is_bar: Buffer               # bool per node: a barrier
    bar_prev: Buffer             # per node: the most recent barrier before it, -1 for none
    dep_ptr: Buffer              # per node + 1: its dependences are dep_idx[dep_ptr[i]:dep_ptr[i + 1]]
    dep_idx: Buffer              # the nodes each node waits for
    minlam: Buffer               # float64 per subsystem: the smallest lambda, its issue slots per cycle
    fill: Buffer | None          # per node: the earlier node whose fill its completion waits for, -1 none
    fill_cycles: Buffer | None   # float64 per node: the cycles it takes after that fill
    fifo: Buffer | None          # bool per subsystem: its waiting warps are served first-come
    warp_cls: Buffer             # per warp of the launch on this core, in dispatch order: its class
    group_size: int              # warps per group (block)
    n_groups: int                # groups this core runs (N)
    n_resident: int              # groups resident at once (M)
    issue_limit: float           # warp instructions issued per cycle at most (a credit bucket)
    scheduler: int               # RR or GTO
    dispatch: float              # cycles from a group's end to the next group's start in its slots
    interval: float              # cycles between group starts on one core at least (the GPU's block rate)
    record: bool = False         # record every issue (an execution profile)
    dep_col: Buffer | None = None  # attribution: per node, its producer's column (None: off)
    n_cols: int = 0              # attribution: the columns of CoreResult.attr

    @property
    def n_sub(self) -> int:
        return len(self.minlam)

    @property
    def n_nodes(self) -> int:
        return len(self.sub)


@dataclass(frozen=True)
class CoreResult:
    """One engine run: ``status`` (OK or DEADLOCK, then ``end`` is the cycle it stopped at), the
    cycle the last group finished, each subsystem's busy cycles, instructions issued and cycles
    in which one issued. With ``record``: every issued instruction's warp, index in its IDG, issue
    and completion time, in issue order (else empty). With attribution: ``attr`` (n_nodes x
    n_cols, row-major) and ``idle`` (2) as :func:`run_core` describes (else None)."""

    status: int
    end: float
    busy: array[float]
    issued: int
    issue_cycles: int
    rec_warp: array[int]
    rec_instr: array[int]
    rec_issue: array[float]
    rec_comp: array[float]
    attr: array[float] | None = None
    idle: array[float] | None = None


def record_size(inp: EngineInput) -> int:
    """The instructions of every warp of the run (the profile's length), 0 without ``record``."""
    if not inp.record:
        return 0
    length = memoryview(inp.length)
    return int(sum(length[w] for w in memoryview(inp.warp_cls)[:inp.n_groups * inp.group_size]))


def run_core(inp: EngineInput) -> CoreResult:
    """Simulate one core (the C engine). A waiting group takes a finished group's slots
    ``dispatch`` cycles after it finished (retiring one block and dispatching the next), and never
    sooner than ``interval`` cycles after the core's previous group started: the GPU's block
    scheduler hands out blocks at a finite rate shared by all cores (the first resident groups
    too start ``interval`` apart).

    Attribution (``dep_col`` set; the results are the same with it on): ``attr`` receives every
    slot cycle charged to a node and a reason (column 0 issued, 1 pipeline busy: charged to the
    instruction occupying the pipeline, 2 ready but not selected, 3 barrier: charged to the
    barrier, then the column ``dep_col[p]`` when waiting on node p's result), ``idle`` the slot
    cycles with no running block and those of a finished warp whose block runs on; they sum to
    slots x end.

    ``fill``/``fill_cycles``: a node takes ``fill_cycles`` more at least after the completion of
    its ``fill`` node, though it issues without waiting for it: a load whose L1 hits are on
    sectors a load of the warp is still fetching gets its data after that fill
    (:func:`pipeperf.idg.build.warp_idg`).

    ``fifo``: the warps waiting for such a pipeline are served in the order their instruction
    became ready (ties in the scheduler's order), as a request queue in front of the DRAM or L2
    serves them, not in the scheduler's order."""
    _require()
    nrec = record_size(inp)
    busy = array("d", bytes(8 * inp.n_sub))
    rec_warp, rec_instr = array("q", bytes(8 * nrec)), array("q", bytes(8 * nrec))
    rec_issue, rec_comp = array("d", bytes(8 * nrec)), array("d", bytes(8 * nrec))
    attr = idle = None
    if inp.dep_col is not None:
        attr, idle = array("d", bytes(8 * inp.n_nodes * inp.n_cols)), array("d", bytes(16))
    status, end, issued, issue_cycles = _engine.run_core(inp, busy, rec_warp, rec_instr, rec_issue, rec_comp,
                                                         attr, idle)
    return CoreResult(status, end, busy, issued, issue_cycles, rec_warp, rec_instr, rec_issue, rec_comp, attr, idle)


def take(table: Buffer, index: Buffer, out: Buffer) -> None:
    """``out[i] = table[index[i]]`` (8-byte int64 or float64 items, int32 or int64 indexes) in C:
    the per-class subsystem, lambda and Lambda spread over 10^6 nodes in milliseconds."""
    _require()
    _engine.take(table, index, out)


def widen(src: Buffer, add: int, out: Buffer) -> None:
    """``out[i] = src[i] + add`` as int64, from int32 or int64 items, in C."""
    _require()
    _engine.widen(src, int(add), out)


def _require() -> None:
    if _engine is None:
        raise PipeperfError(f"the simulator's compiled engine is not built ({_MISSING}): "
                            "reinstall with 'python3 -m pip install -e .' (it needs a C compiler)")

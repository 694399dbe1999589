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
_RESULT = tuple[int, float, array, int, int, array, array, array, array]


def run_core(off: Buffer, length: Buffer, sub: Buffer, lam: Buffer, Lam: Buffer,
             Lret: Buffer, is_bar: Buffer, bar_prev: Buffer, dep_ptr: Buffer,
             dep_idx: Buffer, minlam: Buffer, warp_cls: Buffer, group_size: int,
             n_groups: int, n_resident: int, n_sub: int, issue_limit: float, scheduler: int,
             record: bool, dispatch: float, interval: float,
             attribution: tuple[Buffer, Buffer, Buffer] | None = None,
             fill: Buffer | None = None, fill_cycles: Buffer | None = None,
             fifo: Buffer | None = None) -> _RESULT:
    """Simulate one core; returns (status, end_time, busy[n_sub], issued, issue_cycles, rec arrays)
    (issue_cycles: cycles in which at least one instruction issued; the rec arrays give each
    issued instruction's warp, index, issue and completion time when ``record``). A waiting group
    takes a finished group's slots ``dispatch`` cycles after it finished (retiring one block and
    dispatching the next), and never sooner than ``interval`` cycles after the core's previous
    group started: the GPU's block scheduler hands out blocks at a finite rate shared by all
    cores (the first resident groups too start ``interval`` apart).

    ``attribution`` (off by default; the results are the same with it on): (attr, dep_col, idle),
    attr a float64 (n_nodes, n_cols) array that receives every slot cycle charged to a node and a
    reason (column 0 issued, 1 pipeline busy: charged to the instruction occupying the pipeline,
    2 ready but not selected, 3 barrier: charged to the barrier, then the column ``dep_col[p]``
    (int64) when waiting on node p's result), idle (2,) float64 the slot cycles with no running
    block and those of a finished warp whose block runs on; they sum to slots x end.

    ``fill`` (int64 per node, -1 for none; None: no node has one) and ``fill_cycles`` (float64 per
    node): the earlier node of the same warp (index in its IDG) after whose completion a node
    takes ``fill_cycles`` more at least, though it issues without waiting for it: a load whose
    L1 hits are on sectors a load of the warp is still fetching gets its data after that fill
    (:func:`pipeperf.idg.build.warp_idg`).

    ``fifo`` (one bool per subsystem; None: none): the warps waiting for such a pipeline are served
    in the order their instruction became ready (ties in the scheduler's order), as a request
    queue in front of the DRAM or L2 serves them, not in the scheduler's order."""
    _require()
    n_warps = int(n_groups) * int(group_size)
    nrec = int(sum(length[w] for w in memoryview(warp_cls)[:n_warps])) if record else 0
    busy = array("d", bytes(8 * n_sub))
    rec_warp, rec_instr = array("q", bytes(8 * nrec)), array("q", bytes(8 * nrec))
    rec_issue, rec_comp = array("d", bytes(8 * nrec)), array("d", bytes(8 * nrec))
    status, end, issued, issue_cycles = _engine.run_core(
        off, length, sub, lam, Lam, Lret, is_bar, bar_prev, dep_ptr, dep_idx, minlam, warp_cls,
        int(group_size), int(n_groups), int(n_resident), float(issue_limit), int(scheduler), float(dispatch),
        float(interval), busy, rec_warp, rec_instr, rec_issue, rec_comp, *(attribution or (None, None, None)), fill,
        fill_cycles, fifo)
    return status, end, busy, issued, issue_cycles, rec_warp, rec_instr, rec_issue, rec_comp


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

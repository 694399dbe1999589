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
"""

from __future__ import annotations

import numpy as np

from pipeperf.errors import PipeperfError

try:
    from pipeperf.simulate import _engine
except ImportError as exc:              # a source tree whose extension was never built
    _engine = None
    _MISSING = str(exc)

RR = 0
GTO = 1

#: status codes returned by the engine
OK = 0
DEADLOCK = 1

_RESULT = tuple[int, float, np.ndarray, int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def run_core(off: np.ndarray, length: np.ndarray, sub: np.ndarray, lam: np.ndarray, Lam: np.ndarray,
             Lret: np.ndarray, is_bar: np.ndarray, bar_prev: np.ndarray, dep_ptr: np.ndarray,
             dep_idx: np.ndarray, minlam: np.ndarray, warp_cls: np.ndarray, group_size: int,
             n_groups: int, n_resident: int, n_sub: int, issue_limit: float, scheduler: int,
             record: bool, dispatch: float, interval: float,
             attribution: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> _RESULT:
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
    when waiting on node p's result), idle (2,) the slot cycles with no
    running block and those of a finished warp whose block runs on; they sum to slots x end."""
    if _engine is None:
        raise PipeperfError(f"the simulator's compiled engine is not built ({_MISSING}): "
                            "reinstall with 'python3 -m pip install -e .' (it needs a C compiler)")
    i64, f64 = np.int64, np.float64
    warp_cls = np.ascontiguousarray(warp_cls, i64)
    length = np.ascontiguousarray(length, i64)
    nrec = int(length[warp_cls[:n_groups * group_size]].sum()) if record else 0
    busy = np.zeros(n_sub, f64)
    rec_warp, rec_instr = np.zeros(nrec, i64), np.zeros(nrec, i64)
    rec_issue, rec_comp = np.zeros(nrec, f64), np.zeros(nrec, f64)
    status, end, issued, issue_cycles = _engine.run_core(
        np.ascontiguousarray(off, i64), length, np.ascontiguousarray(sub, i64),
        np.ascontiguousarray(lam, f64), np.ascontiguousarray(Lam, f64), np.ascontiguousarray(Lret, f64),
        np.ascontiguousarray(is_bar, np.bool_), np.ascontiguousarray(bar_prev, i64),
        np.ascontiguousarray(dep_ptr, i64), np.ascontiguousarray(dep_idx, i64),
        np.ascontiguousarray(minlam, f64), warp_cls, int(group_size), int(n_groups), int(n_resident),
        float(issue_limit), int(scheduler), float(dispatch), float(interval),
        busy, rec_warp, rec_instr, rec_issue, rec_comp,
        *(() if attribution is None else (attribution[0], np.ascontiguousarray(attribution[1], i64),
                                          attribution[2])))
    return status, end, busy, issued, issue_cycles, rec_warp, rec_instr, rec_issue, rec_comp

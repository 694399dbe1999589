"""Clocks that advance with the emulated instructions, so clock-wait loops end as on hardware.

Why: ``long long t0 = clock64(); while (clock64() - t0 < N) {}`` spins until the clock has moved;
a clock frozen at 0 made it spin until the step budget. Each thread carries the number of
instructions its warp issued with the thread in the issuing group (predicated-off ones included,
the other side of a divergent branch not), the pseudo-register :data:`ISSUED`, and the clocks are
linear in it (per thread, starting at 0 in each batch of CTAs; only differences mean anything):

* ``%clock64`` = :data:`CPI` x issued cycles (``%clock`` its low 32 bits, ``%clock_hi`` its high ones);
* ``%globaltimer`` = ``%clock64`` x :data:`NS_PER_CYCLE` ns (a nominal 1 GHz clock; ``_lo``/``_hi``
  its 32-bit halves).

So a clock-wait loop of ``L`` instructions a iteration runs about ``N / (CPI x L)`` iterations. The
rate is a convention, not a timing prediction (the emulation is the same for every GPU). Being
linear in a per-thread count, a clock read changes by the same amount every iteration of a periodic
loop: the loop skipper (:mod:`pipeperf.emulate.loops`) extrapolates it like any counter, advancing
:data:`ISSUED` too, and a CTA's clocks do not depend on which CTAs share its batch (sampling stays
exact). Kernels that read no clock carry no counter and pay nothing.
"""

from __future__ import annotations

import numpy as np

from pipeperf.ptx.ir import Module, SpecialRegister

#: cycles a thread's clock advances per instruction its warp issues with it
CPI = 4
#: %globaltimer nanoseconds per cycle of %clock64 (a nominal 1 GHz clock)
NS_PER_CYCLE = 1
#: the pseudo-register (not a PTX name: PTX registers are declared) counting a thread's issued instructions
ISSUED = "%issued"
#: the special registers that read a clock
CLOCKS = frozenset({"%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"})

_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)
_TIMER_AS_CLOCK = {"%globaltimer": "%clock64", "%globaltimer_lo": "%clock", "%globaltimer_hi": "%clock_hi"}


def reads_clock(module: Module) -> bool:
    """Whether any function of ``module`` reads a clock (only then is :data:`ISSUED` counted)."""
    return any(type(op) is SpecialRegister and op.name in CLOCKS
               for f in module.functions for x in f.instructions for op in x.operands)


def value(name: str, issued: np.ndarray) -> np.ndarray:
    """The clock ``name`` of threads that have issued ``issued`` instructions (module docstring)."""
    cycles = issued.astype(_U64) * _U64.type(CPI)
    if name.startswith("%globaltimer"):
        cycles = cycles * _U64.type(NS_PER_CYCLE)
        name = _TIMER_AS_CLOCK[name]
    if name == "%clock64":
        return cycles
    if name == "%clock_hi":
        return (cycles >> _U64.type(32)).astype(_U32)
    return cycles.astype(_U32)                       # %clock, %globaltimer_lo: the low 32 bits

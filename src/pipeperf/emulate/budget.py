"""The emulation's step budget: the one guard against runaway loops, for every command that emulates.

Why: a kernel that spins on a flag nobody sets (``while (*flag == 0) {}``) never ends on the emulator
either. ``analyze``, ``profile``, ``tune`` and the Python API all emulate through
:class:`~pipeperf.emulate.machine.Machine`, which owns one :class:`StepBudget` per launch: it stops
the emulation after a deterministic amount of work with one line naming the loop (its PTX lines and,
through :func:`pipeperf.ptx.source_map.at_source`, its CUDA source line) and the option that raises
the budget (``--max-steps``; ``max_steps=`` in Python).

What it counts: scheduler *steps* (one instruction run for one thread group) over the whole launch:
every batch of CTAs, device-function calls and the loop skipper's probes, each weighted by what it
costs. A step of ``n`` threads costs ``1 + n >> WIDTH_SHIFT`` (:data:`TRACED_STEP` instead of 1 where
it records traces; an atomic's fixed part is :data:`ATOMIC_STEP` times that): on the development machine (2 shared cores) a step takes ~20 us plus ~8.5 ns a
thread in hybrid mode (~3 ns in full mode), ~1.5x that where it is traced, so the weighted count
bounds the wall time whatever the groups' width: ~10-30 us a unit when measured (2026-11-24), ~7-9 us
since the compiled paths (2026-11-28).
:data:`DEFAULT_STEPS` stops a runaway in ~10 CPU-seconds (the spin-wait of ``benchmarks/analyze_suite.py``:
its whole ``analyze`` 10.1 CPU s, 15.6 s wall at load 4, 2026-11-28; 400 000 steps took 3.3 CPU s)
and leaves room for the longest loops of the application suite that the loop skipper cannot jump
over: custom-mma-attn's ``cmma_fwd_f32_v1`` at N = 2048 (16 iterations of a K/V tile loop with
inner loops, no period) needs between 1.0 and 1.2 M, 10.9 CPU s (the old 400 000 stopped it, and
three other attention launches, after 3-5 s); a 1 000 000-cycle clock-wait of one CTA
(:mod:`pipeperf.emulate.clocks`: 250 000 steps) ends under ``profile``, which emulates every round.
"""

from __future__ import annotations

import sys
import time

from pipeperf.emulate.errors import EmulationError

#: the default budget of weighted steps per launch (module docstring: ~10 CPU-seconds of emulation)
DEFAULT_STEPS = 1_500_000
#: a step of n threads costs 1 + (n >> WIDTH_SHIFT): 2048 threads cost about as much as a step's fixed part
WIDTH_SHIFT = 11
#: what a step that records trace entries costs instead of 1
TRACED_STEP = 2
#: what an atomic's step costs instead of 1 (x TRACED_STEP where traced): its handler (address
#: resolution, the ordered update, the counters) takes ~6x a plain step's time, measured on
#: one-thread spin loops (``while (atomicAdd(flag, 0) == 0) {}``: 22.6 us a unit unweighted against
#: 9.3 for the same loop on a volatile load, 2026-11-28), so a decoupled look-back scan's spin on its
#: predecessor's flag stops in the time a load spin does
ATOMIC_STEP = 6
#: the option that raises the budget, as every command spells it
OPTION = "--max-steps"
#: progress on a terminal: a line every 1/PROGRESS_PARTS of the budget, once it has run a second
PROGRESS_PARTS = 50


class BudgetExhausted(EmulationError):
    """The launch ran past its step budget: a runaway loop, or a launch too big to emulate whole."""


class StepBudget:
    """What is left of one launch's budget. The scheduler subtracts each step's cost from ``left``
    and calls :meth:`checkpoint` when it drops below ``mark`` (two integer operations a step)."""

    __slots__ = ("kernel", "left", "limit", "mark", "shown", "t0", "watching")

    def __init__(self, limit: int, kernel: str) -> None:
        if limit < 1:
            raise EmulationError(f"the step budget ({OPTION}) must be at least 1, got {limit}")
        self.limit, self.left, self.kernel = int(limit), int(limit), kernel
        self.t0 = time.monotonic()
        self.shown = False
        from pipeperf.util.progress import watching

        self.watching = watching()
        self.mark = self._next_mark()

    @property
    def used(self) -> int:
        return self.limit - self.left

    def _next_mark(self) -> int:
        """The ``left`` at which :meth:`checkpoint` runs next: 0 (only the end) unless someone watches."""
        if not self.watching:
            return 0
        part = max(1, self.limit // PROGRESS_PARTS)
        return max(0, self.left - part)

    def checkpoint(self, file: str | None, prog, pc: int) -> None:
        """Raise :class:`BudgetExhausted` at the end of the budget (at ``pc``'s PTX line of ``file``:
        the emulation moves it to the source line); before it, show progress."""
        if self.left < 0:
            self.done()
            x = prog.func.instructions[min(pc, prog.n - 1)]
            raise BudgetExhausted(exhausted_message(self, prog, pc), file=file, line=x.line)
        self.mark = self._next_mark()
        if time.monotonic() - self.t0 > 1.0:
            sys.stderr.write(f"\rpipeperf: emulating {self.kernel}: {100 * self.used // self.limit}% of the "
                             f"step budget ({OPTION} {self.limit})")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        """Clear the progress line, if one was shown."""
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


def enclosing_loop(prog, pc: int) -> tuple[int, int] | None:
    """The innermost loop around ``pc``: (target, back-edge) of the shortest branch back over it."""
    best = None
    for p in range(pc, prog.n):      # (only a direct branch has a target: -1 elsewhere)
        if 0 <= prog.target[p] <= pc and (best is None or p - prog.target[p] < best[1] - best[0]):
            best = (prog.target[p], p)
    return best


def exhausted_message(budget: StepBudget, prog, pc: int) -> str:
    """One line: where the launch was when the budget ran out, and what to do."""
    raise_it = f"raise {OPTION} (now {budget.limit}) if it should end"
    ins = prog.func.instructions
    loop = enclosing_loop(prog, pc)
    if loop is None:
        return (f"kernel {budget.kernel}: the launch needs more than the step budget of {budget.limit} steps "
                f"(too many CTAs emulated whole?); {raise_it}")
    t, p = loop
    return (f"kernel {budget.kernel}: the loop at PTX lines {ins[t].line}-{ins[p].line} still runs after the step "
            f"budget of {budget.limit} steps (one that never ends, on a flag nobody sets?, or a launch too long to "
            f"emulate in seconds); {raise_it}")

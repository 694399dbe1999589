"""Issue 39: one step budget stops runaway loops with one line; clocks advance at the documented rate."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from pipeperf.emulate import run_kernel
from pipeperf.emulate.budget import DEFAULT_STEPS, OPTION, TRACED_STEP, BudgetExhausted
from pipeperf.emulate.clocks import CPI, NS_PER_CYCLE
from pipeperf.ptx import parse_ptx

ROOT = Path(__file__).resolve().parents[2]
HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"

#: spins on a flag nobody sets (lines: the loop is PTX lines 12-14)
SPIN = HEADER + """.visible .entry spin(.param .u64 flag)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [flag];
    cvta.to.global.u64 %rd2, %rd1;
$L1:
    ld.volatile.global.u32 %r1, [%rd2];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L1;
    ret;
}
"""

#: counts the iterations of ``while (CLOCK - t0 < wait) ++n`` (5 instructions a round, the first
#: read 3 instructions after t0's); CLOCK and the compare's type are filled in
CLOCK_WAIT = HEADER + """.visible .entry clock_wait(.param .u64 wait, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [wait];
    ld.param.u64 %rd2, [out];
    mov.u32 %r2, %tid.x;
    mov.{ty} %rd3, {clock};
    mov.u32 %r1, 0;
$LOOP:
    add.u32 %r1, %r1, 1;
    mov.{ty} %rd4, {clock};
    sub.s64 %rd5, %rd4, %rd3;
    setp.lt.s64 %p1, %rd5, %rd1;
    @%p1 bra $LOOP;
    cvta.to.global.u64 %rd8, %rd2;
    mul.wide.u32 %rd6, %r2, 4;
    add.s64 %rd7, %rd8, %rd6;
    st.global.u32 [%rd7], %r1;
    ret;
}
"""


def clock_wait(clock: str, ty: str) -> str:
    return CLOCK_WAIT.replace("{clock}", clock).replace("{ty}", ty)


def expected_rounds(wait: int, per_cycle: int) -> int:
    """The documented rate: the j-th read is 3 + 5 (j - 1) instructions after t0's, CPI cycles each."""
    j = 1
    while (3 + 5 * (j - 1)) * CPI * per_cycle < wait:
        j += 1
    return j


def test_spin_wait_stops_on_a_small_budget_with_one_line():
    t0 = time.perf_counter()
    with pytest.raises(BudgetExhausted) as e:
        run_kernel(parse_ptx(SPIN), 2, 64, [np.zeros(1, np.int32)], max_steps=3000)
    assert time.perf_counter() - t0 < 5
    msg = str(e.value)
    assert "\n" not in msg and "the loop at PTX lines 12-14" in msg and f"{OPTION} (now 3000)" in msg
    assert e.value.line in (12, 13, 14)


@pytest.mark.parametrize("fast_loops", [False, True])
def test_frozen_loop_is_never_skipped_and_stops_on_the_budget(fast_loops):
    """The loop skipper does not jump a loop whose iterations change no register (once 2^40 rounds
    at a time, till its counts overflowed int64): it runs on into the budget."""
    with pytest.raises(BudgetExhausted):
        run_kernel(parse_ptx(SPIN), 1, 32, [np.zeros(1, np.int32)], max_steps=5000, fast_loops=fast_loops,
                   mode="hybrid", trace_warps=1)


def test_budget_weighs_width_and_traces():
    """A step of n threads costs 1 + n >> 11 (TRACED_STEP where traced): the same budget lets a narrow
    group go further than a wide one, so wall time stays bounded."""
    from pipeperf.emulate.launch import Launch, bind_args, dim3
    from pipeperf.emulate.machine import Machine

    module = parse_ptx(SPIN)
    func = module.kernels[0]
    steps = {}
    for threads, traced in ((32, 0), (4096, 0), (32, 1)):
        values, names = bind_args(func, [np.zeros(1, np.int32)])
        launch = Launch(dim3(threads // 256, "grid") if threads > 256 else dim3(1, "grid"),
                        dim3(min(threads, 256), "block"), values, names, 0)
        m = Machine(module, func, launch, max_steps=6000, trace_warps=traced, batch_threads=threads)
        with pytest.raises(BudgetExhausted):
            m.run()
        assert 6000 < m.budget.used <= 6000 + 3
        steps[(threads, traced)] = sum(m.counters.per_prog[func.name][2]) // threads     # thread instructions / threads
    assert steps[(32, 0)] == pytest.approx(6000, abs=2)
    assert steps[(4096, 0)] == pytest.approx(6000 / 3, abs=2)        # 1 + 4096 >> 11
    assert steps[(32, 1)] == pytest.approx(6000 / TRACED_STEP, abs=2)


@pytest.mark.parametrize("fast_loops", [False, True])
@pytest.mark.parametrize("clock,ty,per_cycle", [("%clock64", "u64", 1), ("%globaltimer", "u64", NS_PER_CYCLE)])
@pytest.mark.parametrize("wait", [4000, 100_000])
def test_clock_wait_loop_ends_at_the_documented_rate(fast_loops, clock, ty, per_cycle, wait):
    out = np.zeros(64, np.uint32)
    run_kernel(parse_ptx(clock_wait(clock, ty)), 1, 64, [wait, out], fast_loops=fast_loops)
    assert (out == expected_rounds(wait, per_cycle)).all()


def test_clock_wait_skipped_in_hybrid_mode_takes_no_time():
    """A million-cycle wait: the loop skipper jumps it (the clock advances with the skipped rounds)."""
    t0 = time.perf_counter()
    prof = run_kernel(parse_ptx(clock_wait("%clock64", "u64")), 1, 32,
                      [1_000_000, np.zeros(32, np.uint32)], fast_loops=True, mode="hybrid", trace_warps=1)
    assert time.perf_counter() - t0 < 5
    rounds = expected_rounds(1_000_000, 1)
    assert prof["inst_executed_warp"] == 3 + 2 + 5 * rounds + 5      # before, t0, the rounds, after
    assert prof.counts["loop_iterations_skipped"] > rounds // 2


def test_32_bit_clock_reads_the_low_half():
    ptx = clock_wait("%clock", "u32").replace("mov.u32 %rd3", "mov.u32 %r3").replace(
        "mov.u32 %rd4", "mov.u32 %r3")
    ptx = ptx.replace("    mov.u32 %r3, %clock;\n    mov.u32 %r1, 0;",
                      "    mov.u32 %r3, %clock;\n    cvt.u64.u32 %rd3, %r3;\n    mov.u32 %r1, 0;")
    ptx = ptx.replace("    mov.u32 %r3, %clock;\n    sub.s64", "    mov.u32 %r3, %clock;\n    cvt.u64.u32 %rd4, %r3;\n    sub.s64")
    out = np.zeros(32, np.uint32)
    run_kernel(parse_ptx(ptx), 1, 32, [4000, out])
    # 6 instructions a round now, the first read 4 after t0's
    j = 1
    while (4 + 6 * (j - 1)) * CPI < 4000:
        j += 1
    assert (out == j).all()


def test_default_budget_lets_a_million_cycle_wait_end_unskipped():
    """``profile`` emulates every round: 10^6 cycles are 10^6 / CPI steps, inside the default budget."""
    assert 1_000_000 // CPI <= DEFAULT_STEPS


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_cli_spin_wait_one_line_at_the_cuda_line(cli):
    rc, out, err = cli("analyze", str(ROOT / "benchmarks" / "kernels" / "spin_wait.cu"), "--grid", "4", "--block", "64",
                       "--arg", "flag=zeros:i32:1", "--arg", "out=zeros:f32:256", "--gpu", "ampere_a100",
                       "--max-steps", "4000")
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert "spin_wait.cu:6:" in lines[0] and "PTX line" in lines[0] and "--max-steps (now 4000)" in lines[0]


@pytest.mark.requires_nvcc
def test_cli_profile_clock_wait_counts_at_the_rate(cli, tmp_path):
    rc, out, err = cli("profile", str(ROOT / "benchmarks" / "kernels" / "clock_wait.cu"), "--grid", "1", "--block", "32",
                       "--arg", "cycles=20000", "--arg", "iterations=zeros:i32:32", "--json")
    assert rc == 0, err
    import json

    warp_instructions = json.loads(out)["inst_executed_warp"]
    assert abs(warp_instructions * CPI - 20000) < 20 * CPI     # every instruction advances the clock CPI cycles


def test_progress_shows_at_a_terminal_and_is_cleared(monkeypatch):
    """At a terminal a long single-batch emulation says how much of the budget it used (after a second),
    and the line is gone before the error is printed."""
    import io
    import sys

    import pipeperf.emulate.budget as B

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    clock = iter(range(0, 10_000, 2))                   # every look at the clock: two seconds later
    monkeypatch.setattr(B.time, "monotonic", lambda: next(clock))
    with pytest.raises(BudgetExhausted):
        run_kernel(parse_ptx(SPIN), 1, 32, [np.zeros(1, np.int32)], max_steps=5000)
    shown = tty.getvalue()
    assert f"% of the step budget ({OPTION} 5000)" in shown and shown.endswith("\r\x1b[K")


def test_analyze_and_tune_take_the_budget(tmp_path):
    from pipeperf.analysis import analyze
    from pipeperf.cli.main import build_parser
    from pipeperf.errors import PipeperfError

    path = tmp_path / "spin.ptx"
    path.write_text(SPIN)
    with pytest.raises(PipeperfError, match=r"spin.ptx:1[234]: kernel spin: the loop at PTX lines 12-14 .*--max-steps"):
        analyze(path, 1, 32, ["flag=zeros:i32:1"], ["ampere_a100"], max_steps=2000)
    assert build_parser(["tune", "k.cu", "--max-steps", "7"]).parse_args(["tune", "k.cu", "--max-steps", "7"]).max_steps == 7


def test_budget_weighs_atomics():
    """An atomic's step costs ATOMIC_STEP (its handler takes ~6x a plain step's time): a spin on
    ``atom.add [flag], 0`` runs ATOMIC_STEP + 2 units a round of 3 steps, where a load spin runs 3."""
    from pipeperf.emulate.budget import ATOMIC_STEP
    from pipeperf.emulate.launch import Launch, bind_args, dim3
    from pipeperf.emulate.machine import Machine

    rounds = {}
    for name, src in (("load", SPIN), ("atomic", SPIN.replace("ld.volatile.global.u32 %r1, [%rd2]",
                                                              "atom.global.add.u32 %r1, [%rd2], 0"))):
        module = parse_ptx(src)
        func = module.kernels[0]
        values, names = bind_args(func, [np.zeros(1, np.int32)])
        m = Machine(module, func, Launch(dim3(1, "grid"), dim3(32, "block"), values, names, 0), max_steps=9000,
                    trace_warps=0, batch_threads=32)
        with pytest.raises(BudgetExhausted):
            m.run()
        rounds[name] = sum(m.counters.per_prog[func.name][2]) // 32 / 3     # steps / 3 a round
    assert rounds["load"] == pytest.approx(9000 / 3, abs=2)
    assert rounds["atomic"] == pytest.approx(9000 / (ATOMIC_STEP + 2), abs=2)


def test_loop_that_never_repeats_is_looked_at_less_and_less(monkeypatch):
    """A loop whose iterations change the registers differently every time (a hash, a search) is
    never skipped; after MISSES such back-edges its watch backs off, so the snapshots (two steps'
    cost each) stop being taken at every back-edge."""
    from pipeperf.emulate import loops

    taken = []
    real = loops.LoopSkipper._snapshot
    monkeypatch.setattr(loops.LoopSkipper, "_snapshot", lambda self, *a: taken.append(1) or real(self, *a))
    src = HEADER + """.visible .entry hash(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
$L1:
    mad.lo.u32 %r1, %r1, 1103515245, 12345;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 4000;
    setp.ne.u32 %p2, %r1, 7;
    and.pred %p1, %p1, %p2;
    @%p1 bra $L1;
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""
    run_kernel(parse_ptx(src), 1, 32, [np.zeros(1, np.int32)], mode="hybrid", trace_warps=1, fast_loops=True)
    assert 0 < len(taken) < 4000 // 20

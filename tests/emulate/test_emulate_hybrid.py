"""Hybrid mode (HyPA) gives full mode's counts while executing a fraction of the instructions."""

from __future__ import annotations

import pytest

from test_emulate_corpus import SUPPORTED, emulate_case

VOLATILE = {"seconds", "thread_instructions_per_second", "inst_emulated_thread",
            "fraction_emulated", "hybrid_fallback"}


@pytest.mark.parametrize("name", SUPPORTED)
def test_hybrid_counts_equal_full(name):
    _, full, _ = emulate_case(name, mode="full")
    _, hyb, _ = emulate_case(name, mode="hybrid")
    for k, v in full.counts.items():
        if k not in VOLATILE:
            assert hyb.counts[k] == v, k
    assert hyb.by_opcode == full.by_opcode
    assert hyb.wmma_row_bytes == full.wmma_row_bytes      # a wmma's stride is in the address slice
    assert full.counts["fraction_emulated"] == 1.0
    assert 0 < hyb.counts["fraction_emulated"] <= 1.0


def test_hybrid_emulates_less_on_compute_kernels():
    for name in ("saxpy", "matmul_tiled", "fma_chain", "mix_alu_sfu"):
        _, hyb, _ = emulate_case(name, mode="hybrid")
        assert hyb.counts["fraction_emulated"] < 0.75, name


def test_hybrid_leaves_buffers_alone():
    case, _, outputs = emulate_case("fma_chain", mode="hybrid")
    assert case.check(outputs) != []
    names = [p.name for p in case.spec.params]
    for o in case.spec.outputs:
        assert (outputs[o] == case.args[names.index(o)]).all()


def test_optimistic_slice_and_fallback():
    # collatz: the loop bound is loaded from memory no skipped store wrote: no fallback, and
    # the stores stay out of the slice; reduce_threadfence reads other blocks' partial sums,
    # written by skipped stores: the run falls back to the conservative slice, same counts.
    _, c, _ = emulate_case("collatz_steps", mode="hybrid")
    assert c.counts["hybrid_fallback"] is False
    _, r, _ = emulate_case("reduce_threadfence", mode="hybrid")
    assert r.counts["hybrid_fallback"] is True
    _, s, _ = emulate_case("saxpy", mode="hybrid")
    assert s.counts["hybrid_fallback"] is False


@pytest.mark.parametrize("name", ["saxpy", "matmul_tiled", "collatz_steps", "reduce_shared",
                                  "histogram_shared", "noinline_call", "wmma_gemm"])
def test_hybrid_without_memory_keeps_instruction_and_branch_counts(name):
    from pipeperf.emulate import run_kernel
    case, full, _ = emulate_case(name)
    spec = case.spec
    p = run_kernel(spec.ptx_path("sm_80"), spec.grid, spec.block, case.fresh_args(),
                   kernel=name, shared=spec.shared, mode="hybrid", memory=False)
    _, hyb, _ = emulate_case(name, mode="hybrid")
    for k in ("inst_executed_warp", "inst_executed_thread", "inst_fp_32", "branches",
              "divergent_branches", "branch_efficiency", "flop_count_sp"):
        assert p.counts[k] == full.counts[k], k
    assert p.counts["global_sectors"] is None and p.counts["shared_bank_conflicts"] is None
    assert 0 < p.counts["fraction_emulated"] <= 1.0


def test_hybrid_without_memory_is_smaller_on_saxpy(cli):
    from kernel_corpus import CORPUS_DIR as KERNELS
    rc, out, err = cli("profile", str(KERNELS / "ptx" / "saxpy.sm_80.ptx"), "--grid", "4",
                       "--block", "256", "--arg", "1000", "--arg", "2", "--arg",
                       "rand:f32:1000", "--arg", "zeros:f32:1000", "--mode", "hybrid",
                       "--no-memory")
    assert rc == 0, err
    assert "n/a" in out
    frac = float(next(l for l in out.splitlines() if "fraction emulated" in l).split()[-1])
    assert frac < 0.5

"""Generated micro-benchmarks: the registry, the generated CUDA text and the occupancy plan (no nvcc)."""

import re

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.measure import microbench as mb


def test_every_chain_names_a_class_and_a_subsystem():
    chains = mb.chain_benchmarks()
    names = [b.name for b in chains]
    assert len(names) == len(set(names))
    for b in chains:
        assert b.kind == "chain" and b.cls == b.name
        assert b.subsystem in {"alu", "sfu", "dpu", "lsu", "mem", "barrier"}
        assert b.n1_per_iter * b.iters >= 32, b.name          # a long chain: N >> 1
    # the brief's classes are all there
    wanted = {"add_f32", "mul_f32", "fma_f32", "mul_f64", "fma_f64", "add_s32", "mul_s32", "div_s32", "sin_f32",
              "cos_f32", "rsqrt_f32", "ex2_f32", "cvt_f32_s32", "cvt_s32_f32", "ld_shared_f32", "ld_global_s32",
              "ld_global_s32_stride32", "atom_global_add_u32", "atom_shared_add_u32", "bar_sync", "loop"}
    assert wanted <= set(names)


def test_class_names_match_the_shipped_database():
    """Fitted specs must be usable in place of the shipped ones: same class names where they overlap."""
    shipped = set(load_gpu("pascal_gtx1060").classes)
    ours = {b.cls for b in mb.chain_benchmarks()}
    assert {"add_f32", "mul_f32", "fma_f32", "mul_f64", "mul_s32", "div_f64", "div_s32", "cos_f32",
            "bar_sync", "ld_global_s32", "ld_local_s32", "ld_shared_f32", "loop"} <= shipped & ours
    # the div_f32 bench times IEEE div.rn.f32; Table 5's div.f32 is the approximate division, shipped
    # as div_approx_f32 (hardware/mapper.py), so a fitted div_f32 never replaces it under the same name
    assert "div_f32" in ours and "div_approx_f32" in shipped and "div_f32" not in shipped


def test_chain_steps_are_volatile_inline_ptx_through_one_register():
    for b in mb.chain_benchmarks():
        src = mb.kernel_source(b)
        assert "asm volatile(" in b.step, b.name
        assert src.count("pp_clock()") == 2 and "pp_record(a, t0, t1)" in src and "pp_gate(a)" in src
        assert f"for (int u = 0; u < {b.unroll}; ++u)" in src
        assert re.search(r"#pragma unroll 1\s+for \(int it = 0; it < a\.iters", src)
        if b.name not in ("bar_sync",):
            assert '"+' in b.step, b.name      # the output register is also the input: a dependent chain


def test_integer_adds_alternate_two_registers():
    """ptxas merges x += y; x += y into one IADD3, so the chain must alternate registers."""
    add = next(b for b in mb.chain_benchmarks() if b.name == "add_s32")
    assert add.n1_per_step == 2
    assert '"+r"(x) : "r"(y)' in add.step and '"+r"(y) : "r"(x)' in add.step


def test_seeds_depend_on_the_thread():
    """Warp-uniform integer chains would be moved to the uniform datapath (UIMAD)."""
    for b in mb.chain_benchmarks():
        if b.memory == "none" and b.name not in ("bar_sync",):
            assert "threadIdx" in b.decl or "pp_lane" in b.decl, b.name


def test_mix_and_barrier_kernels():
    mix = mb.mix_benchmarks()
    assert [b.param for b in mix] == list(mb.MIX_BETAS)
    b4 = next(b for b in mix if b.param == 4)
    assert b4.step.count("mul.rn.f32") == 4 and b4.step.count("cos.approx.f32") == 1
    assert (b4.n1_per_iter, b4.n2_per_iter) == (4 * b4.unroll, b4.unroll)
    bar = mb.barrier_benchmarks()[0]
    assert "bar.sync 0" in bar.step and "mul.rn.f32" in bar.step and bar.cls2 == "bar_sync"


def test_peaks_cover_table3():
    params = {b.cls for b in mb.peak_benchmarks()}
    assert params == {"T_SP", "T_DP", "T_int", "T_add", "T_ldst", "B_mem"}


def test_sources_split_over_units_keep_every_kernel_once(tmp_path):
    benches = mb.all_benchmarks()
    out = mb.write_sources(tmp_path, benches, units=3)
    assert len(out["kernels"]) == 3
    text = "".join(p.read_text() for p in out["kernels"])
    for b in benches:
        assert text.count(f'extern "C" __global__ void {b.ident}(') == 1
        assert text.count(f"{b.ident}_reg = pp_register(") == 1
    assert (tmp_path / "bench_common.cuh").is_file() and (tmp_path / "harness.cu").is_file()


def test_duplicate_and_unknown_names_are_errors(tmp_path):
    b = mb.chain_benchmarks()[0]
    with pytest.raises(PipeperfError, match="duplicate"):
        mb.write_sources(tmp_path, [b, b])
    with pytest.raises(PipeperfError, match="unknown benchmark 'nope'"):
        mb.select(mb.all_benchmarks(), only="add_f32,nope")
    with pytest.raises(PipeperfError, match="unknown benchmark kind"):
        mb.select(mb.all_benchmarks(), kinds="chain,bogus")
    assert [x.name for x in mb.select(mb.all_benchmarks(), kinds="barrier")] == ["iterative_barrier"]


def test_occupancy_plan_h100():
    """64 warps and 32 blocks per SM (CC 9.0): one-warp groups to 32, then the smallest group."""
    plan = mb.occupancy_plan(64, 32)
    warps = [g * m for g, m in plan]
    assert warps[:32] == list(range(1, 33)) and all(g == 1 for g, _ in plan[:32])
    assert all(m <= 32 for _, m in plan)
    assert {g * m: (g, m) for g, m in plan}[33] == (3, 11)
    assert 37 not in warps and 64 in warps          # 37 warps cannot be split into <= 32 equal groups
    assert len(plan) == 57


def test_occupancy_plan_quick_and_turing():
    assert [g * m for g, m in mb.occupancy_plan(64, 32, quick=True)] == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    plan = mb.occupancy_plan(32, 16)                 # CC 7.5: 32 warps, 16 blocks
    assert [g * m for g, m in plan][-1] == 32 and all(m <= 16 for _, m in plan)


def test_a_calibration_fits_a_device_session():
    """Few enough launches that the whole run takes seconds, not the 10-minute limit."""
    n = mb.estimated_launches(mb.all_benchmarks(), 64, 32, reps=5)
    assert 5_000 < n < 20_000


def test_harness_writes_the_columns_the_reader_expects():
    from pipeperf.measure import harness
    text = mb.template_text("harness.cu")
    sweep = re.search(r'SWEEP_HEADER =\s*((?:"[^"]*"\s*)+);', text).group(1)
    peak = re.search(r'PEAK_HEADER =\s*((?:"[^"]*"\s*)+);', text).group(1)
    join = lambda lits: "".join(re.findall(r'"([^"]*)"', lits)).replace("\\n", "")
    assert tuple(join(sweep).split(",")) == harness.SWEEP_COLUMNS
    assert tuple(join(peak).split(",")) == harness.PEAK_COLUMNS

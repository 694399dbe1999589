"""Volta V100, Ampere A100 and Hopper H100 database entries: loadable, sourced, sane, simulable."""

from __future__ import annotations

import pytest

from pipeperf.hardware.spec import available_gpus, load_gpu
from pipeperf.idg.paper_kernels import chain
from pipeperf.simulate import PreparedKernel

MODERN = {"volta_v100": (80, "7.0", 64), "ampere_a100": (108, "8.0", 64), "hopper_h100": (132, "9.0", 128)}
# class names used by the six seed GPUs plus those a PTX mapper needs
REQUIRED = {"cos_f32", "mul_f32", "add_f32", "fma_f32", "mul_f64", "mul_s32", "div_f32", "div_f64", "div_s32",
            "bar_sync", "ld_global_s32", "ld_local_s32", "ld_shared_f32", "add_s32", "cvt", "shfl",
            "atom_global", "st_global", "st_shared", "sqrt_f32", "rsqrt_f32", "ex2_f32",
            "add_f64", "fma_f64", "div_approx_f32", "mma_f16_f32_m16n16k16"}


@pytest.mark.parametrize("name", sorted(MODERN))
def test_loads_with_machine_facts(name):
    sms, cc, _ = MODERN[name]
    g = load_gpu(name)
    assert name in available_gpus()
    assert (g.cores, g.compute_capability, g.issue_limit, g.warp_size) == (sms, cc, 4, 32)
    assert (g.max_warps_per_core, g.max_groups_per_core) == (64, 32)
    assert set(g.classes) >= REQUIRED


def test_short_aliases():
    assert load_gpu("v100").name == "volta_v100"
    assert load_gpu("a100").name == "ampere_a100"
    assert load_gpu("hopper").name == "hopper_h100"


@pytest.mark.parametrize("name", sorted(MODERN))
def test_every_class_sourced_and_estimates_flagged(name):
    g = load_gpu(name)
    for c in g.classes.values():
        assert len(c.source) > 20, c.name
        derived = any(w in c.source for w in ("derived", "range", "approximate", "to be measured"))
        assert c.estimate == derived, (c.name, c.source)


def test_h100_arithmetic_is_flagged_to_be_measured():
    g = load_gpu("hopper_h100")
    for cls in ("mul_f32", "fma_f32", "mul_f64", "cos_f32"):
        assert g.classes[cls].estimate and "measured" in g.classes[cls].source


@pytest.mark.parametrize("name", sorted(MODERN))
def test_throughput_sanity(name):
    """cpi = 32 threads / lanes per SM: FP32 64/64/128, FP64 32/32/64, INT32 64, SFU 16."""
    lanes32 = MODERN[name][2]
    g = load_gpu(name)
    assert g.classes["mul_f32"].cpi == 32 / lanes32
    assert g.classes["fma_f32"].cpi == g.classes["add_f32"].cpi == g.classes["mul_f32"].cpi
    assert g.classes["mul_f64"].cpi == 32 / (lanes32 // 2)
    assert g.classes["add_s32"].cpi == 0.5
    assert g.classes["cos_f32"].cpi == g.classes["ex2_f32"].cpi == 2
    # memory: DRAM slower than L2 slower than L1, and global loads cost more issue slots than local
    c = g.classes
    assert c["ld_global_s32"].latency > c["st_global"].latency > c["ld_local_s32"].latency > 0
    assert c["ld_global_s32"].cpi > c["ld_local_s32"].cpi


def test_global_load_cpi_follows_bandwidth_per_sm():
    """128 B per warp load over (peak GB/s / (SMs x GHz)) bytes per SM-clock."""
    for name, gbs in (("volta_v100", 900), ("ampere_a100", 1555), ("hopper_h100", 3350)):
        g = load_gpu(name)
        assert g.classes["ld_global_s32"].cpi == pytest.approx(128 * g.cores * g.clock_ghz / gbs, abs=0.05)


@pytest.mark.parametrize("name", sorted(MODERN))
@pytest.mark.parametrize("cls", ["mul_f32", "mul_f64", "ld_shared_f32"])
def test_chain_of_one_warp_takes_n_latencies(name, cls):
    g = load_gpu(name)
    n = 50
    r = PreparedKernel(chain(n, cls), g).run(1, 1, None, "rr")
    assert r.cycles == pytest.approx(n * g.classes[cls].latency)


def test_cli_simulate_chain_on_a100(capsys):
    from pipeperf.cli.main import main
    assert main(["simulate", "chain", "--gpu", "ampere_a100", "--param", "n=100", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"cycles": 400' in out.replace(".0", "")

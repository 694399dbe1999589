"""The lock-step check: a launch whose Pipeline time moves more with a 1 % bandwidth change than
bandwidth can move it is reported as phase-bound (analysis/lockstep.py, DESIGN "lock-step warps")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeperf.analysis.lockstep import STEP, PhaseSensitivity, bandwidth_pipelines, scaled_pipelines
from pipeperf.hardware.spec import load_gpu

KERNELS = Path(__file__).resolve().parents[2] / "validation" / "kernels"
ALIGNED = KERNELS / "aligned_types.cu"
COPY_ARGS = ["--arg", "d_odata=zeros:u8:49999872", "--arg", "d_idata=zeros:u8:49999872"]
CLOCK_WAIT = Path(__file__).resolve().parents[2] / "benchmarks" / "kernels" / "clock_wait.cu"


def test_spread_is_the_range_over_the_three_runs():
    smooth = PhaseSensitivity(100e-6, 99e-6, 101e-6, ("DRAM",))
    assert smooth.spread == pytest.approx(0.02)
    assert smooth.smooth
    # the alignedTypes RGBA32 copy on an A100 80 GB before first-come memory service: faster at both probes
    rough = PhaseSensitivity(103.2e-6, 91.85e-6, 100.6e-6, ("DRAM",))
    assert rough.spread == pytest.approx((103.2 - 91.85) / 103.2)
    assert not rough.smooth
    assert "11.0%" in rough.note() and "91.85 / 103.2 / 100.6 us" in rough.note()
    assert rough.to_dict()["smooth"] is False and rough.to_dict()["step"] == STEP


def test_only_the_bandwidth_share_pipelines_are_scaled():
    gpu = load_gpu("ampere_a100")
    pipes = bandwidth_pipelines(gpu)
    assert pipes == {gpu.classes["ld_global_s32"].subsystem: "DRAM", gpu.classes["ld_global_l2"].subsystem: "L2"}
    slow = scaled_pipelines(gpu, {"mem"}, 1.0 + STEP)
    for name, c in gpu.classes.items():
        want = c.cpi * (1.0 + STEP) if c.subsystem == "mem" else c.cpi
        assert slow.classes[name].cpi == pytest.approx(want), name
        assert slow.classes[name].latency == c.latency
    assert bandwidth_pipelines(load_gpu("pascal_gtx1060")) == {"mem": "DRAM"}    # no L2 class: DRAM only


def _analyze(cli, kernel: str, elements: int, *extra: str) -> dict:
    rc, out, err = cli("analyze", str(ALIGNED), "--kernel", kernel, "--arch", "sm_80", "--gpu", "ampere_a100_80gb",
                       "--grid", "64", "--block", "256", *COPY_ARGS, "--arg", f"numElements={elements}",
                       "--warm-l2", "--json", *extra)
    assert rc == 0, err
    return json.loads(out)["kernels"][0]


@pytest.mark.slow
def test_a_lock_step_launch_is_reported(cli):
    """A launch the check finds in lock step is reported as such. The example is the clock-wait of
    benchmarks/analyze_suite.py on an A100 (1024 blocks of 256 threads spinning on clock64(): its
    Pipeline time moves 5 % with 1 % of DRAM bandwidth). The coalesced SGEMM on an RTX 4090 was the
    example until its loads and their address arithmetic were issued in ptxas' order (2026-11-28:
    1 % spread); the alignedTypes copies before that. Should a model change make this launch smooth
    too, the check is still wanted: pick another lock-step launch (benchmarks/sensitivity.py)."""
    rc, out, err = cli("analyze", str(CLOCK_WAIT), "--kernel", "clock_wait", "--gpu", "ampere_a100",
                       "--grid", "1024", "--block", "256", "--arg", "cycles=1000000",
                       "--arg", "iterations=zeros:i32:262144", "--json")
    assert rc == 0, err
    k = json.loads(out)["kernels"][0]
    ps = k["phase_sensitivity"]
    assert ps["pipelines"] == ["DRAM"]
    assert ps["seconds"] == pytest.approx(k["predictions"]["pipeline"]["seconds"])
    assert ps["spread"] > 0.03 and ps["smooth"] is False
    assert any("lock step" in n for n in k["notes"])


@pytest.mark.slow
def test_a_smooth_launch_gets_no_note_and_no_check_without_what_ifs(cli):
    """The byte copy has 1-sector requests: latency-bound with the DRAM pipeline a few % busy, so
    the time hardly moves with the bandwidth (0.1 %, not always the same way: a latency-bound run
    is not bandwidth's to order)."""
    k = _analyze(cli, "copy_uint8", 49999872)
    ps = k["phase_sensitivity"]
    assert ps["smooth"] is True and ps["spread"] < 0.01
    assert not any("lock step" in n for n in k["notes"])
    assert "phase_sensitivity" not in _analyze(cli, "copy_uint8", 49999872, "--no-what-if")


def test_advice_inside_the_phase_spread_is_not_given():
    from types import SimpleNamespace

    from pipeperf.analysis.advice import MIN_GAIN, min_gain

    rough = PhaseSensitivity(103.2e-6, 91.85e-6, 100.6e-6, ("DRAM",))
    assert min_gain(SimpleNamespace(phase_sensitivity=rough)) == pytest.approx(rough.spread)
    smooth = PhaseSensitivity(100e-6, 99e-6, 101e-6, ("DRAM",))
    assert min_gain(SimpleNamespace(phase_sensitivity=smooth)) == MIN_GAIN
    assert min_gain(SimpleNamespace(phase_sensitivity=None)) == MIN_GAIN
    small = PhaseSensitivity(100e-6, 98.4e-6, 101.6e-6, ("DRAM",))     # 3.2 %: phase-bound, below MIN_GAIN
    assert min_gain(SimpleNamespace(phase_sensitivity=small)) == MIN_GAIN


def _row(seconds: float, spread: float | None):
    from types import SimpleNamespace

    return SimpleNamespace(outcome=SimpleNamespace(seconds=seconds, phase_spread=spread))


def test_tune_says_which_leading_ranks_the_lock_step_spread_covers():
    from pipeperf.tune.report import unresolved_note

    # rank 2 is 4 % behind, inside rank 1's 11 % lock-step spread; rank 3 is 20 % behind
    assert "ranks 1, 2 are within them" in unresolved_note([_row(1.0, 0.11), _row(1.04, 0.01), _row(1.2, 0.01)])
    # smooth runs: their spread is the bandwidth's share of the time, not an uncertainty
    assert "none of these runs in lock step" in unresolved_note([_row(1.0, 0.02), _row(1.003, 0.02)])
    assert "ahead of the others" in unresolved_note([_row(1.0, 0.05), _row(1.2, 0.06)])


@pytest.mark.slow
def test_tune_phase_check_adds_the_spread_column(cli, tmp_path):
    """The clock-wait of the test above at two wait lengths (both in lock step): with --phase-check
    each variant's spread is shown (lock-step ones starred) and the note under the table; without,
    neither."""
    space = tmp_path / "wait.yaml"
    space.write_text(f"""source: {CLOCK_WAIT}
kernel: clock_wait
params: {{C: [500000, 1000000]}}
grid: [1024]
block: [256]
args: ["cycles={{C}}", "iterations=zeros:i32:262144"]
gpus: [ampere_a100]
""")
    rc, out, err = cli("tune", str(space), "--phase-check", "--cluster", "none", "--no-cache")
    assert rc == 0, err
    assert "phase spread" in out and "%*" in out and "run in lock step" in out
    rc, out, err = cli("tune", str(space), "--cluster", "none", "--no-cache")
    assert rc == 0, err
    assert "phase spread" not in out

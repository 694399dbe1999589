"""Fitting lambda/Lambda (Eq. 1, Sec. III-B), the issue limit (Eqs. 43-45) and writing the spec.

The "measurements" are the Pipeline-model simulator's own boat hulls: a fit that recovers the
spec the simulator ran with is what Sec. III-B's method promises.
"""

import math

import pytest

from pipeperf.cli.main import main
from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import load_peaks
from pipeperf.hardware.spec import InstrClass, load_gpu
from pipeperf.idg.paper_kernels import chain, instruction_mix
from pipeperf.measure import fit, harness
from pipeperf.measure import microbench as mb
from pipeperf.simulate.simulator import PreparedKernel


def eq1(N, W, lam, Lam):
    if Lam / lam >= W:
        return N * Lam + (W - 1) * lam
    return Lam + (N * W - 1) * lam


def test_boat_hull_inverts_eq1():
    for lam, Lam in ((0.25, 6), (1.75, 29), (12, 345), (0.375, 6)):
        ws = list(range(1, 65))
        lam_f, Lam_f, w_lam, w_Lam = fit.boat_hull(ws, [eq1(512, w, lam, Lam) for w in ws], 512)
        assert (lam_f, Lam_f) == pytest.approx((lam, Lam), rel=1e-12)
        assert w_Lam == 1 and w_lam == 64


@pytest.mark.parametrize("x,il,expected", [(0.2541, 4, 0.25), (1.8, 4, 1.75), (0.31, 4, 0.25), (0.33, 4, 0.25),
                                           (0.38, 8, 0.375), (28.6, 2, 28.5), (4.2, 1, 4), (0.05, 4, 0.25),
                                           (0.375, 4, 0.5), (2.5, 1, 3), (5.25, 1, 5),
                                           (7.3, math.inf, 7.3)])
def test_rounding_to_multiples_of_one_over_il(x, il, expected):
    """Sec. 4.3: 'rounded to the closest multiple of 1/N where N is the issue limit'."""
    assert fit.round_to_issue_limit(x, il, positive=True) == expected


def simulated_hull(gpu, cls, n=256):
    """(warps, cycles) of chain(n, cls) at every occupancy the harness would run (W = 1..64)."""
    prep = PreparedKernel(chain(n, cls), gpu)
    plan = mb.occupancy_plan(gpu.max_warps_per_core, gpu.max_groups_per_core)
    return [g * m for g, m in plan], [prep.run(g, m, m * gpu.cores, "rr", check_limits=False).cycles
                                      for g, m in plan]


PASCAL_CLASSES = ["add_f32", "loop", "cos_f32", "mul_f64", "div_s32", "ld_global_s32", "bar_sync"]


@pytest.mark.parametrize("cls", PASCAL_CLASSES)
def test_simulated_boat_hulls_give_back_the_spec(cls):
    """Issue 10's check: simulate chain(N, cls) for occupancies 1..64, convert to time per
    instruction, fit, compare: within 5 % raw, exact after rounding (incl. lambda 0.25 and 1.75)."""
    gpu = load_gpu("pascal_gtx1060")
    want = gpu.classes[cls]
    n = 256
    warps, cycles = simulated_hull(gpu, cls, n)
    assert warps[0] == 1 and warps[-1] == 64
    per = [t / (n * w) for w, t in zip(warps, cycles)]        # time per instruction per warp
    assert per[0] == pytest.approx(want.latency) and min(per) < 1.05 * want.cpi   # the boat hull
    lam, Lam, _, _ = fit.boat_hull(warps, cycles, n)
    assert lam == pytest.approx(want.cpi, rel=0.05)
    assert Lam == pytest.approx(want.latency, rel=0.05)
    assert fit.round_to_issue_limit(lam, gpu.issue_limit, True) == want.cpi
    assert fit.round_to_issue_limit(Lam, gpu.issue_limit) == want.latency


@pytest.mark.parametrize("cls", ["add_f32", "loop", "div_s32"])
def test_noisy_boat_hulls_stay_within_5_percent(cls):
    """+-2 % run-to-run noise on every point moves the fit by no more than that."""
    gpu = load_gpu("pascal_gtx1060")
    warps, cycles = simulated_hull(gpu, cls)
    noisy = [t * (1 + 0.02 * math.sin(3.7 * i + 1)) for i, t in enumerate(cycles)]
    lam, Lam, _, _ = fit.boat_hull(warps, noisy, 256)
    assert lam == pytest.approx(gpu.classes[cls].cpi, rel=0.05)
    assert Lam == pytest.approx(gpu.classes[cls].latency, rel=0.05)


def mix_ipc(gpu, betas=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32)):
    g, m = mb.occupancy_plan(gpu.max_warps_per_core, gpu.max_groups_per_core)[-1]
    out = []
    for beta in betas:
        reps = max(4, 128 // (beta + 1))
        r = PreparedKernel(instruction_mix(beta, reps), gpu).run(g, m, m * gpu.cores, "rr", check_limits=False)
        out.append(beta * reps * g * m / r.cycles)
    return list(map(float, betas)), out


@pytest.mark.parametrize("name,il", [("pascal_gtx1060", 4), ("fermi_c2050", 1), ("kepler_gtx650ti", 4)])
def test_issue_limit_from_the_instruction_mix(name, il):
    gpu = load_gpu(name)
    betas, ipc = mix_ipc(gpu)
    res = fit.fit_issue_limit(betas, ipc, gpu.classes["mul_f32"].cpi, gpu.classes["cos_f32"].cpi)
    assert res.issue_limit == il and res.model == "two_il"
    assert res.errors["two_il"] < 0.05 < res.errors["one"]


def test_one_pipeline_gpu_is_recognised():
    """Tonga-like: the SFU instruction on the ALU pipeline and no issue limit -> Eq. 43 fits best."""
    gpu = load_gpu("pascal_gtx1060")
    alu, sfu = gpu.classes["mul_f32"], gpu.classes["cos_f32"]
    one = gpu.with_classes(cos_f32=InstrClass("cos_f32", "alu", sfu.cpi, sfu.latency)).with_issue_limit(math.inf)
    betas, ipc = mix_ipc(one)
    assert fit.fit_issue_limit(betas, ipc, alu.cpi, sfu.cpi).model == "one"


def test_issue_limit_needs_three_points():
    with pytest.raises(PipeperfError, match="three"):
        fit.fit_issue_limit([1, 2], [1, 1], 0.25, 1)


def row(w, cycles, n=100, ok=True, bench="x", ms=0.01):
    return harness.SweepRow(bench, "chain", bench, "", "alu", 0, 1, w, w, 0, n, 0, 5, cycles, cycles, cycles, ms,
                            10, w if ok else w + 1, w if ok else w + 1, ok, 20, 1500.0, cycles / (n * w))


def test_rows_that_failed_residency_checks_are_left_out():
    rows = [row(w, eq1(100, w, 1.0, 20)) for w in range(1, 33)]
    rows[5] = row(6, 1.0, ok=False)                       # absurd, but flagged: must not become lambda
    fits, warnings = fit.fit_chains(rows)
    assert fits[0].lam_raw == pytest.approx(1.0) and fits[0].Lam_raw == pytest.approx(20)
    assert fits[0].dropped == 1 and "W = 6" in warnings[0]
    fits, warnings = fit.fit_chains([r for r in rows if r.warps_per_sm > 1 and r.valid])
    assert any("lower bound" in w for w in warnings)


def test_clock_is_cycles_over_event_time_of_long_runs():
    rows = [row(1, 3.0e6, ms=2.0), row(2, 1.5e6, ms=1.0), row(3, 1e3, ms=0.001)]
    clock, n = fit.effective_clock_ghz(rows)
    assert (clock, n) == (pytest.approx(1.5), 2)
    assert fit.effective_clock_ghz([row(3, 1e3, ms=0.001)]) == (None, 0)


def test_clock_probe_in_the_header_wins(tmp_path):
    gpu = load_gpu(tiny_spec(tmp_path))
    harness.simulate_raw(gpu, tmp_path / "raw", n=64)
    p = tmp_path / "raw" / "chains.csv"
    p.write_text("# sm_clock_ghz_start: 1.9800\n# sm_clock_ghz_end: 1.9600\n" + p.read_text())
    cal = fit.calibrate_directory(tmp_path / "raw")
    assert cal.clock_ghz == pytest.approx(1.97) and "globaltimer" in cal.clock_source


def tiny_spec(tmp_path):
    """A three-class GPU (fractional lambda, an SFU, a loop) that simulates in a second."""
    p = tmp_path / "tiny.yaml"
    p.write_text("name: tiny\nfull_name: Tiny GPU\ncompute_capability: '9.0'\ncores: 4\nclock_ghz: 1.5\n"
                 "issue_limit: 4\nmax_warps_per_core: 64\nmax_groups_per_core: 32\nclasses:\n"
                 "  mul_f32: {subsystem: alu, cpi: 0.25, latency: 4, source: test}\n"
                 "  cos_f32: {subsystem: sfu, cpi: 2, latency: 18, source: test}\n"
                 "  loop: {subsystem: alu, cpi: 1.75, latency: 29, source: test}\n")
    return p


def test_raw_files_round_trip_into_a_loadable_spec(tmp_path):
    gpu = load_gpu(tiny_spec(tmp_path))
    raw = tmp_path / "raw"
    harness.simulate_raw(gpu, raw, n=128)
    peaks = raw / "peaks.csv"
    peaks.write_text("# gpu: Tiny GPU\n" + ",".join(harness.PEAK_COLUMNS) + "\n"
                     + "".join(f'peak_{k},{k},{v},U,1,1,1,5,16,4,256,1e9,"x"\n' for k, v in
                               (("T_SP", 100), ("T_DP", 50), ("T_int", 40), ("T_add", 30), ("T_ldst", 20)))
                     + 'peak_B_mem_copy,B_mem,900,GB/s,1,1,1,5,4,4,256,1e9,"c"\n'
                     + 'peak_B_mem_read,B_mem,950,GB/s,1,1,1,5,4,4,256,1e9,"r"\n')
    cal = fit.calibrate_directory(raw, "tiny_fit")
    assert cal.issue_limit == 4 and cal.il is not None and cal.il.model == "two_il"
    out = tmp_path / "fitted.yaml"
    out.write_text(fit.spec_yaml(cal, "pipeperf calibrate --from-raw raw --out fitted.yaml"))
    spec = load_gpu(out)
    assert spec.name == "tiny_fit" and spec.cores == 4 and spec.max_warps_per_core == 64
    for name, c in gpu.classes.items():
        assert (spec.classes[name].cpi, spec.classes[name].latency, spec.classes[name].subsystem) == \
               (c.cpi, c.latency, c.subsystem)
        assert "chains.csv" in spec.classes[name].source and "pipeperf calibrate" in spec.classes[name].source
    assert "mix.csv" in spec.sources["measurements"]
    peaks_text = fit.peaks_yaml(cal)
    (tmp_path / "peaks.yaml").write_text(peaks_text)
    p = load_peaks(str(tmp_path / "peaks.yaml"))
    assert (p.t_sp, p.b_mem) == (100, 950)                 # B_mem: the better of copy and read


def test_cli_simulate_then_refit(tmp_path, capsys):
    spec = tiny_spec(tmp_path)
    out, raw = tmp_path / "sim.yaml", tmp_path / "raw"
    assert main(["calibrate", "--simulate", str(spec), "--raw-dir", str(raw), "--out", str(out)]) == 0
    fitted = load_gpu(out)
    assert (fitted.classes["loop"].cpi, fitted.classes["loop"].latency) == (1.75, 29)
    assert main(["calibrate", "--from-raw", str(raw), "--gpu-name", "again", "--out", str(tmp_path / "b.yaml")]) == 0
    assert load_gpu(tmp_path / "b.yaml").classes == fitted.classes
    assert "wrote" in capsys.readouterr().out


def test_cli_without_a_gpu_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))            # nvidia-smi nowhere
    assert main(["calibrate", "--out", str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pipeperf: error: no CUDA GPU found") and "--from-raw" in err[0]
    assert not (tmp_path / "x.yaml").exists()


def test_cli_usage_errors(tmp_path, capsys):
    assert main(["calibrate"]) == 2 and "--out" in capsys.readouterr().err
    assert main(["calibrate", "--from-raw", str(tmp_path), "--out", "x.yaml"]) == 2
    assert "no chains.csv" in capsys.readouterr().err
    assert main(["calibrate", "--list", "--kinds", "peak"]) == 0
    assert "peak_T_SP" in capsys.readouterr().out


def test_bad_csv_is_reported_with_its_line(tmp_path):
    p = tmp_path / "chains.csv"
    p.write_text("# gpu: x\n" + ",".join(harness.SWEEP_COLUMNS) + "\n" + "a,chain,a,,alu,0,1,1,1,0,100\n")
    with pytest.raises(PipeperfError, match=r"chains.csv:3: expected 24 fields"):
        harness.read_sweep_csv(p)


def test_a_hull_still_falling_at_the_top_is_flagged():
    ws = list(range(1, 65))
    # Lambda / lambda = 400 / 2 = 200 warps: never saturated within 64 warps per SM
    rows = [row(w, eq1(100, w, 2.0, 400), bench="slow") for w in ws]
    fits, warnings = fit.fit_chains(rows)
    assert not fits[0].saturated and fits[0].lam_raw > 2.0 * 2
    assert any("upper bound" in w for w in warnings)
    rows = [row(w, eq1(100, w, 2.0, 40), bench="fast") for w in ws]
    assert fit.fit_chains(rows)[0][0].saturated

"""``pipeperf campaign`` (issue 19): the simulated campaign end to end (parsing, fitting, manifest,
resume, archive), the one-line refusal without a GPU, the archive's size limit, and the dry run's
compilation of every benchmark for sm_90 (skipped without nvcc)."""

from __future__ import annotations

import json
from pathlib import Path
import shutil
import tarfile

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.measure.campaign import derive
from pipeperf.measure.campaign.archive import write_archive
from pipeperf.measure.campaign.launches import SWEEP_KERNELS, sweep_launches
from pipeperf.measure.campaign.steps import NAMES

SIM = ("campaign", "--simulate", "hopper_h200", "--quick")


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """One quick simulated campaign shared by the tests that only read its results."""
    from pipeperf.cli.main import main
    folder = tmp_path_factory.mktemp("sim") / "h200"
    archive = folder.parent / "h200.tar.gz"
    assert main([*SIM, "--out-dir", str(folder), "--archive", str(archive)]) == 0
    return folder, archive


@pytest.mark.slow
def test_every_step_is_done_and_recorded(simulated):
    folder, archive = simulated
    m = json.loads((folder / "manifest.json").read_text())
    assert list(m["steps"]) == list(NAMES)
    assert all(s["status"] == "done" for s in m["steps"].values()), m["steps"]
    for s in m["steps"].values():
        assert all((folder / f).is_file() for f in s["files"])
    assert m["commands"] and m["date"] and m["driver"] == "pipeperf simulator" and m["device"]["sms"] == "132"
    assert m["device"]["clocks.sm_under_load_mhz"].startswith("1980") and m["reference"] == "hopper_h200"
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "h200/manifest.json" in names and "h200/validate.txt" in names and "h200/calibrate/chains.csv" in names


@pytest.mark.slow
def test_derived_numbers_come_from_the_simulated_launches(simulated):
    folder, _ = simulated
    dram = {r.quantity: r for r in derive.read_results(folder / "dram.csv")}
    assert set(dram) == {"dram_read_gbs", "dram_write_gbs", "dram_copy_gbs"}
    assert all(r.value > 0 and r.unit == "GB/s" and (folder / "raw" / r.source).is_file() for r in dram.values())
    disp = {r.quantity: r.value for r in derive.read_results(folder / "dispatch.csv")}
    # the simulator's block scheduler runs at the spec's launch.blocks_per_clk: measured back within 5 %
    assert disp["blocks_per_clk"] == pytest.approx(load_gpu("hopper_h200").launch["blocks_per_clk"], rel=0.05)


@pytest.mark.slow
def test_the_fitted_file_cites_the_measurements_and_loads(simulated, cli, tmp_path):
    folder, _ = simulated
    g = load_gpu(folder / "hopper_h200_simulated_measured.yaml")
    for key in ("memory.dram_read_gbs", "launch.blocks_per_clk", "atomics.global_same_address_per_clk"):
        assert "raw/" in g.sources[key] and "simulate" in g.sources[key]
    assert {"mul_f32", "cos_f32"} <= set(g.classes)
    rc, out, _ = cli("calibrate", "--from-raw", str(folder), "--out", str(tmp_path / "f.yaml"))
    assert rc == 0 and "campaign's memory" in out
    rc, out, _ = cli("gpu", "diff", "hopper_h200", str(tmp_path / "f.yaml"), "--common")
    assert rc == 0 and "memory.dram_read_gbs" in out and "B/A" in out
    assert "memory.dram_read_gbs" in (folder / "diff.txt").read_text()


@pytest.mark.slow
def test_validate_scores_every_model(simulated):
    folder, _ = simulated
    text = (folder / "validate.txt").read_text()
    assert "pipeline" in text and "roofline" in text and "volkov" in text
    rows = (folder / "validate.csv").read_text().splitlines()
    assert rows[0] == "kernel,model,points,mape_pct" and len(rows) > 3


@pytest.mark.slow
def test_resume_skips_done_steps_and_redo_reruns_dependents(simulated, cli, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(simulated[0], folder)
    rc, out, _ = cli(*SIM, "--out-dir", str(folder), "--archive", str(tmp_path / "a.tar.gz"))
    assert rc == 0 and out.count("done before") == len(NAMES) - 1        # all but the archive
    rc, out, _ = cli(*SIM, "--out-dir", str(folder), "--redo", "dram", "--archive", str(tmp_path / "a.tar.gz"))
    ran = [l.split()[0] for l in out.splitlines() if " done in " in l]
    assert ran == ["dram", "fit", "archive"]                              # fit depends on dram
    (folder / "dram.csv").unlink()                                        # a lost file: the step is not done
    rc, out, _ = cli(*SIM, "--out-dir", str(folder), "--step", "dram")
    assert rc == 0 and "dram      done in" in out


def test_budget_skips_steps_that_do_not_fit(cli, tmp_path):
    rc, out, _ = cli(*SIM, "--out-dir", str(tmp_path / "b"), "--budget-minutes", "1.5", "--step", "device",
                     "--step", "calibrate")
    assert rc == 0
    assert "device    done" in out and "calibrate skipped: its 480 s box does not fit" in out
    m = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert m["steps"]["calibrate"]["status"] == "skipped"


def test_no_gpu_is_one_line_and_exit_2(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))                  # no nvidia-smi
    rc, out, err = cli("campaign")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("pipeperf: error: no NVIDIA GPU found (nvidia-smi")


def test_bad_options_are_one_line(cli, tmp_path):
    rc, _, err = cli(*SIM, "--out-dir", str(tmp_path), "--archive", "x.zip")
    assert rc == 2 and "tar.gz" in err and err.count("\n") == 1
    (tmp_path / "manifest.json").write_text("{not json")
    rc, _, err = cli(*SIM, "--out-dir", str(tmp_path))
    assert rc == 2 and "manifest.json" in err and err.count("\n") == 1


def test_archive_leaves_out_the_largest_raw_files(tmp_path):
    import os
    folder = tmp_path / "gpu"
    (folder / "raw").mkdir(parents=True)
    (folder / "manifest.json").write_text("{}")
    for name, size in (("big", 600_000), ("mid", 300_000), ("small", 1000)):
        (folder / "raw" / f"{name}.csv").write_bytes(os.urandom(size))     # incompressible
    target = tmp_path / "out.tar.gz"
    left = write_archive(folder, target, max_bytes=500_000)
    assert left == ["raw/big.csv"] and target.stat().st_size <= 500_000
    with pytest.raises(PipeperfError, match="do not fit"):
        (folder / "notes.bin").write_bytes(os.urandom(600_000))
        write_archive(folder, target, max_bytes=500_000)
    with pytest.raises(PipeperfError, match=r"tar.gz"):
        write_archive(folder, tmp_path / "out.zip")


def test_launcher_csv_errors_name_file_and_line(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("# gpu: g\n" + ",".join(derive.COLUMNS) + "\n1,8,0,10,abc,1,1\n")
    with pytest.raises(PipeperfError) as e:
        derive.read_points(p)
    assert e.value.line == 3 and str(p) in str(e.value)


def test_every_step_fits_one_device_command():
    from pipeperf.measure.campaign.steps import STEPS
    assert all(s.box_s < 600 for s in STEPS) and sum(s.box_s for s in STEPS) <= 30 * 60


def test_the_sweeps_are_at_least_twelve_corpus_kernels():
    launches = sweep_launches()
    assert len(launches) == len(SWEEP_KERNELS) >= 12
    saxpy = next(l for l in launches if l.kernel == "saxpy")
    assert saxpy.grid == (4 * 4096, 1, 1) and "n=4096000" in saxpy.args and "x=rand:f32:4096000" in saxpy.args


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_dry_run_compiles_every_benchmark_for_sm_90(cli):
    rc, out, err = cli("campaign", "--dry-run", "--arch", "sm_90")
    assert rc == 0, err
    assert "compiled for sm_90" in out and "52 calibrate benchmarks" in out and "campaign launches" in out
    for name in NAMES:
        assert f"  {name} " in out


@pytest.mark.slow
def test_validate_and_fit_run_later_without_a_gpu(simulated, cli, tmp_path):
    folder = tmp_path / "back_home"
    shutil.copytree(simulated[0], folder)
    rc, out, err = cli("campaign", "--out-dir", str(folder), "--step", "fit", "--step", "validate",
                       "--redo", "fit", "--redo", "validate")
    assert rc == 0, err
    assert "fit       done in" in out and "validate  done in" in out
    if shutil.which("nvidia-smi") is None:                     # here: those steps ran without a GPU
        rc, _, err = cli("campaign", "--out-dir", str(folder), "--step", "dram", "--redo", "dram")
        assert rc == 2 and "no NVIDIA GPU found" in err


RECORDED = """# pipeperf measure, launcher version 1
# gpu: NVIDIA H200
# compute_capability: 9.0
# sms: 132
# driver: 570.00
# date: 2026-11-24 04:00:00
# grid: {grid}
# block: 256,1,1
blocks_per_sm,warps_per_sm,dyn_smem,reps,ms_median,ms_min,ms_max
8,64,0,10,{ms},{ms},{ms}
"""


@pytest.mark.slow
@pytest.mark.requires_nvcc
def test_the_gpu_path_compiles_binds_and_reads_the_launcher_output(monkeypatch, tmp_path):
    """The GPU backend on recorded launcher output: the benchmarks compile for sm_90, the specs
    bind to their parameters, the command line is the launcher's, and the CSV it would write is
    derived (0.3 ms to read 1 GiB: 3579 GB/s) and cited by the fitted numbers."""
    from pipeperf.measure import harness, launcher
    from pipeperf.measure.campaign.backends import GpuBackend
    from pipeperf.measure.campaign.launches import dram_launches
    from pipeperf.measure.campaign.manifest import Manifest
    from pipeperf.measure.campaign.steps import Campaign, _timed
    seen = []

    def fake_run(cmd, timeout=None):
        seen.append(cmd)
        out = cmd[cmd.index("--out") + 1]
        grid = cmd[cmd.index("--grid") + 1]
        Path(out).write_text(RECORDED.format(grid=grid, ms=0.3))

    monkeypatch.setattr(launcher, "build", lambda build_dir=None, nvcc=None: tmp_path / "pipeperf-launch")
    monkeypatch.setattr(launcher, "run", fake_run)
    backend = GpuBackend("sm_90", tmp_path / "build", harness.require_nvcc())
    c = Campaign(tmp_path / "h200", backend, Manifest("h200"), "hopper_h200", 1.98)
    c.folder.mkdir()
    files, note = _timed(dram_launches(), "dram")(c, 60)
    assert [Path(f).name for f in files] == ["dram_read.csv", "dram_write.csv", "dram_copy.csv", "dram.csv"]
    read = seen[0]
    assert read[read.index("--kernel") + 1] == "stream_read" and "--arg" in read
    assert any(a.startswith("a=rand:f32:") for a in read) and read[read.index("--grid") + 1] == "262144,1,1"
    got = {r.quantity: r.value for r in derive.read_results(c.folder / "dram.csv")}
    assert got["dram_read_gbs"] == pytest.approx(16 * 2**26 / 0.3e-3 / 1e9)
    assert "dram_copy_gbs" in note
    if shutil.which("ncu") is None and not Path("/usr/local/cuda/bin/ncu").is_file():
        from pipeperf.measure.campaign.steps import _sweeps
        c.sweep_names, c.sweep_factor = ("saxpy", "daxpy"), 16
        files, note = _sweeps(c, 60)
        assert [Path(f).name for f in files] == ["sweep_saxpy.csv", "sweep_daxpy.csv"]
        assert "--sweep-occupancy" in seen[-1] and note == "2 kernels swept; ncu not found"


def test_same_address_atomics_count_the_l2_operations_of_the_lent_h200():
    """ptxas combines the benchmark's atomicAdd(counter, 1u) per warp: the committed H200 timing
    means 0.651 operations per clock on one address (not the threads' 20.8), the rate the GPU files use."""
    from pipeperf.measure.campaign.launches import atomics_launches
    raw = Path(__file__).parents[2] / "data/measurements/h200/raw/atomics_same_address.csv"
    (rate,) = [r.value for r in derive.derive(atomics_launches()[0], raw, 1.98) if r.quantity == "global_same_address_per_clk"]
    assert rate == pytest.approx(0.651, abs=0.001)
    assert load_gpu("hopper_h200_lent").atomics["global_same_address_per_clk"] == pytest.approx(rate, abs=0.001)

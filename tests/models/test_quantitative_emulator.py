"""Issue 8: the same kernel profiled by our emulator and described by an ncu CSV with the same
counts gives the same quantitative-roofline prediction (no GPU needed)."""

import csv
from pathlib import Path

import pytest
from kernel_corpus import make_case

from pipeperf.emulate import profile
from pipeperf.hardware.peaks import builtin_names, load_peaks
from pipeperf.measure.ncu_csv import read_ncu_csv
from pipeperf.models.quantitative import metrics_from_profile, predict

# ncu metric <- pipeperf profile key (the profile's global sectors stand in for DRAM sectors)
NCU_FROM_PROFILE = {
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "flop_count_sp_fma",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": "flop_count_dp_fma",
    "smsp__sass_thread_inst_executed_op_memory_pred_on.sum": "inst_compute_ld_st",
    "smsp__inst_executed.sum": "inst_executed_warp",
    "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum": "inst_fp_32",
    "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum": "inst_fp_64",
    "smsp__sass_thread_inst_executed_op_integer_pred_on.sum": "inst_integer",
    "dram__sectors_read.sum": "global_load_sectors",
    "dram__sectors_write.sum": "global_store_sectors",
}
HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
          "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
          "Metric Value"]


def write_ncu_long(path: Path, kernel: str, counts: dict[str, int]) -> None:
    """An ncu --csv long-format export, by hand, with thousands separators as ncu prints them."""
    with path.open("w", newline="") as f:
        f.write('==PROF== Connected to process 4242 (/tmp/app)\n')
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(HEADER)
        for metric, key in NCU_FROM_PROFILE.items():
            unit = "sector" if metric.startswith("dram") else "inst"
            w.writerow(["0", "4242", "app", "localhost", kernel, "1", "7", "(256, 1, 1)", "(4, 1, 1)",
                        "0", "9.0", "Command line profiler metrics", metric, unit, f"{counts[key]:,}"])
        w.writerow(["0", "4242", "app", "localhost", kernel, "1", "7", "(256, 1, 1)", "(4, 1, 1)",
                    "0", "9.0", "Command line profiler metrics", "gpu__time_duration.sum", "nsecond", "1,234"])


@pytest.mark.parametrize("name", ["saxpy", "matmul_tiled", "daxpy"])
def test_emulator_and_ncu_csv_predict_the_same(tmp_path, name):
    case = make_case(name)
    spec = case.spec
    prof = profile(spec.ptx_path("sm_80"), grid=spec.grid, block=spec.block, args=case.args,
                   kernel=spec.name).to_dict()
    assert prof["inst_executed_warp"] > 0
    csv_path = tmp_path / "ncu.csv"
    write_ncu_long(csv_path, spec.name, {k: int(prof[k]) for k in NCU_FROM_PROFILE.values()})
    (from_ncu,) = read_ncu_csv(csv_path)
    from_emu = metrics_from_profile(prof, spec.name)
    for gpu in map(load_peaks, builtin_names()):
        a, b = predict(from_emu, gpu), predict(from_ncu, gpu)
        assert a.predicted_seconds == b.predicted_seconds > 0
        assert a.bound == b.bound
        # every intermediate quantity (K_type, W_comp, W_traf, E_mix, D_*, E_instr, T'_op, O_krn, ...)
        # agrees; only the name, ncu's own duration and the provenance notes differ
        ignore = ("kernel", "measured_seconds", "notes")
        da = {k: v for k, v in a.to_dict().items() if k not in ignore}
        db = {k: v for k, v in b.to_dict().items() if k not in ignore}
        assert {"k_type", "w_comp", "w_traf", "e_mix", "e_instr", "o_krn", "t_op_adjusted"} <= set(da)
        assert da == db

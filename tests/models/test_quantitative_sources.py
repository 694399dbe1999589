"""The three kernel sources (ncu CSV, nvprof CSV, pipeperf profile) agree on the same counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import builtin_names, load_peaks
from pipeperf.measure.ncu_csv import read_ncu_csv
from pipeperf.measure.nvprof_csv import read_nvprof_csv
from pipeperf.models.quantitative import metrics_from_profile, predict, read_profile_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "quantitative"
FIELDS = ("m_fma32", "m_fma64", "m_ldst", "m_inst", "m_fp32", "m_fp64", "m_int", "m_tran_r",
          "m_tran_w")

# The emulator's profile of sgemm_tiled, written with the same counts as ncu_long.csv launch 0.
SGEMM_PROFILE = {
    "inst_executed_warp": 58_720_256,
    "inst_executed_thread": 1_879_000_000,
    "inst_fp_32": 1_075_838_976,
    "inst_fp_64": 0,
    "inst_fp_16": 0,
    "inst_integer": 184_549_376,
    "inst_compute_ld_st": 553_648_128,
    "flop_count_sp_fma": 1_073_741_824,
    "flop_count_dp_fma": 0,
    "dram_read_transactions": 2_621_440,
    "dram_write_transactions": 131_072,
}
JACOBI_PROFILE = {
    "inst_executed_warp": 16_777_216, "inst_fp_32": 0, "inst_fp_64": 117_440_512,
    "inst_integer": 201_326_592, "inst_compute_ld_st": 134_217_728, "flop_count_sp_fma": 0,
    "flop_count_dp_fma": 50_331_648, "dram_read_bytes": 8_650_752 * 32,
    "dram_write_bytes": 4_194_304 * 32,
}


def test_emulator_profile_and_ncu_csv_give_identical_predictions():
    ncu = {m.name.split("(")[0]: m for m in read_ncu_csv(FIXTURES / "ncu_long.csv")}
    pairs = [(metrics_from_profile(SGEMM_PROFILE, "sgemm_tiled"), ncu["sgemm_tiled"]),
             (metrics_from_profile(JACOBI_PROFILE, "jacobi3d_dp"), ncu["jacobi3d_dp"])]
    for from_profile, from_ncu in pairs:
        for gpu in map(load_peaks, builtin_names()):
            a, b = predict(from_profile, gpu), predict(from_ncu, gpu)
            assert a.predicted_seconds == b.predicted_seconds
            assert a.bound == b.bound
            ignore = ("kernel", "measured_seconds")  # name and ncu's own duration differ
            doc_a = {k: v for k, v in a.to_dict().items() if k not in ignore}
            doc_b = {k: v for k, v in b.to_dict().items() if k not in ignore}
            assert doc_a == doc_b


def test_nvprof_and_both_ncu_layouts_and_locales_read_the_same_counts():
    def by_name(kernels):
        return {k.name.split("(")[0]: k for k in kernels}

    long = by_name(read_ncu_csv(FIXTURES / "ncu_long.csv"))
    raw = by_name(read_ncu_csv(FIXTURES / "ncu_raw.csv"))
    de = by_name(read_ncu_csv(FIXTURES / "ncu_long_de.csv"))
    nvprof = by_name(read_nvprof_csv(FIXTURES / "nvprof_metrics.csv"))
    assert set(nvprof) == {"sgemm_tiled", "saxpy", "jacobi3d_dp"}
    for name, kernel in long.items():
        for other in (raw[name], de[name]):
            assert [getattr(other, f) for f in FIELDS] == [getattr(kernel, f) for f in FIELDS]
            assert other.measured_seconds == pytest.approx(kernel.measured_seconds)
        short = name.split(" [")[0]
        assert [getattr(nvprof[short], f) for f in FIELDS] == [getattr(kernel, f) for f in FIELDS]


def test_profile_json_file_with_kernel_list(tmp_path):
    path = tmp_path / "profile.json"
    path.write_text(json.dumps({"kernels": [{"name": "sgemm_tiled", "counts": SGEMM_PROFILE},
                                            {"name": "jacobi3d_dp", "counts": JACOBI_PROFILE}]}))
    kernels = read_profile_json(path)
    assert [k.name for k in kernels] == ["sgemm_tiled", "jacobi3d_dp"]
    assert kernels[1].m_tran_r == 8_650_752  # bytes converted back to 32-byte transactions
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"name": "one", **SGEMM_PROFILE}))
    assert read_profile_json(flat)[0].name == "one"


def test_profile_with_global_sectors_only_is_marked_as_estimate():
    counts = {k: v for k, v in SGEMM_PROFILE.items() if not k.startswith("dram_")}
    counts.update(global_load_sectors=2_621_440, global_store_sectors=131_072)
    m = metrics_from_profile(counts, "sgemm")
    p = predict(m, load_peaks("v100"))
    assert m.m_tran_r == 2_621_440
    assert any("upper bound" in note for note in p.notes)


@pytest.mark.parametrize("change, message", [
    ({"inst_fp_32": None}, "lacks inst_fp_32"),
    ({"dram_read_transactions": None, "dram_write_transactions": None}, "no DRAM traffic"),
    ({"dram_write_transactions": None}, "only one of"),
    ({"inst_integer": "many"}, "not a number"),
    ({"inst_integer": -5}, "not a count"),
    ({"inst_executed_thread": 32 * 58_720_256 + 1}, "exceeds"),
])
def test_malformed_profiles_are_named(change, message):
    counts = dict(SGEMM_PROFILE)
    for key, value in change.items():
        if value is None:
            counts.pop(key)
        else:
            counts[key] = value
    with pytest.raises(PipeperfError, match=message):
        metrics_from_profile(counts, "sgemm", "p.json")


def test_invalid_profile_json_reports_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "inst_fp_32": 1,\n  oops\n}')
    with pytest.raises(PipeperfError) as info:
        read_profile_json(path)
    assert info.value.line == 3 and info.value.file == str(path)

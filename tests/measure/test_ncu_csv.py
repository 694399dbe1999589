"""Nsight Compute CSV import: long and raw layouts, separators, units, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.measure.ncu_csv import NCU_COMMAND, NCU_METRICS, parse_ncu_csv, read_ncu_csv

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "quantitative"
LONG = (FIXTURES / "ncu_long.csv").read_text()


def test_long_layout_values_units_and_names():
    kernels = read_ncu_csv(FIXTURES / "ncu_long.csv")
    assert [k.name for k in kernels] == [
        "sgemm_tiled(const float *, const float *, float *, int)",
        "saxpy(int, float, const float *, float *) [ID 1]",
        "jacobi3d_dp(const double *, double *, int)",
        "saxpy(int, float, const float *, float *) [ID 3]",
    ]
    sgemm, saxpy, jacobi, _ = kernels
    assert sgemm.m_fma32 == 1_073_741_824 and sgemm.m_fp32 == 1_075_838_976
    assert sgemm.m_inst == 58_720_256 and sgemm.m_tran_r == 2_621_440
    assert sgemm.measured_seconds == pytest.approx(1234.56e-6)  # "1,234.56" usecond
    assert jacobi.measured_seconds == pytest.approx(2.05e-3)  # msecond
    assert jacobi.m_fma64 == 50_331_648 and jacobi.m_fp32 == 0
    assert saxpy.m_fp16 is None  # "n/a" in an optional metric
    assert sgemm.m_fp16 == 0
    assert saxpy.info["grid"] == "(65536, 1, 1)" and saxpy.info["id"] == "1"
    assert saxpy.info["device"] == "NVIDIA GeForce GTX 1060 6GB"


def test_raw_layout_and_german_locale_match_long_layout():
    fields = ("m_fma32", "m_fma64", "m_ldst", "m_inst", "m_fp32", "m_fp64", "m_int",
              "m_tran_r", "m_tran_w", "m_fp16")
    long = read_ncu_csv(FIXTURES / "ncu_long.csv")
    for other in (read_ncu_csv(FIXTURES / "ncu_raw.csv"), read_ncu_csv(FIXTURES / "ncu_long_de.csv")):
        assert [k.name for k in other] == [k.name for k in long]
        for a, b in zip(long, other):
            assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
            assert a.measured_seconds == pytest.approx(b.measured_seconds)


def test_command_collects_every_required_metric():
    for metric in NCU_METRICS:
        assert metric in NCU_COMMAND
    assert NCU_COMMAND.startswith("ncu --csv")


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_row_with_missing_field_reports_file_and_line():
    lines = LONG.splitlines()
    target = _line_of(LONG, "op_integer_pred_on.sum")
    lines[target - 1] = lines[target - 1].rsplit(',"', 1)[0]  # drop the value column
    with pytest.raises(PipeperfError) as info:
        parse_ncu_csv("\n".join(lines), "prof.csv")
    assert info.value.file == "prof.csv" and info.value.line == target
    assert "14 fields, header has 15" in str(info.value)
    assert str(info.value).startswith(f"prof.csv:{target}: ")


def test_missing_metric_is_named_with_the_command():
    text = "\n".join(l for l in LONG.splitlines() if "dram__sectors_write" not in l)
    with pytest.raises(PipeperfError, match=r"lacks ncu metrics dram__sectors_write.sum; collect"):
        parse_ncu_csv(text, "prof.csv")


def test_required_metric_not_available_reports_line():
    target = _line_of(LONG, "op_memory_pred_on.sum")
    lines = LONG.splitlines()
    lines[target - 1] = lines[target - 1].replace('"553,648,128"', '"n/a"')
    with pytest.raises(PipeperfError, match="is n/a") as info:
        parse_ncu_csv("\n".join(lines), "prof.csv")
    assert info.value.line == target


@pytest.mark.parametrize("bad, message", [
    ('"5x3"', "is not a number"),
    ('"12,34,567"', "misplaced thousands"),
    ('"553.5"', "not a whole count"),
])
def test_bad_values_are_refused(bad, message):
    target = _line_of(LONG, "op_memory_pred_on.sum")
    lines = LONG.splitlines()
    lines[target - 1] = lines[target - 1].replace('"553,648,128"', bad)
    with pytest.raises(PipeperfError, match=message):
        parse_ncu_csv("\n".join(lines), "prof.csv")


def test_unbalanced_quote_reports_line():
    target = _line_of(LONG, "op_integer_pred_on.sum")
    lines = LONG.splitlines()
    lines[target - 1] = lines[target - 1].rsplit(",", 1)[0]  # cuts "184,549,376" in half
    with pytest.raises(PipeperfError, match="malformed CSV line") as info:
        parse_ncu_csv("\n".join(lines), "prof.csv")
    assert info.value.line == target


def test_mixed_decimal_conventions_are_refused():
    german = (FIXTURES / "ncu_long_de.csv").read_text()
    mixed = german.replace('"1.234,56"', '"1,234.56"')
    with pytest.raises(PipeperfError, match="mixed number formats"):
        parse_ncu_csv(mixed, "prof.csv")


def test_unknown_unit_is_refused():
    mixed = LONG.replace('"dram__sectors_read.sum","sector"', '"dram__sectors_read.sum","furlong"')
    with pytest.raises(PipeperfError, match="unexpected unit 'furlong'"):
        parse_ncu_csv(mixed, "prof.csv")


def test_dram_bytes_are_accepted_instead_of_sectors():
    text = LONG.replace('"dram__sectors_read.sum","sector","2,621,440"',
                        '"dram__bytes_read.sum","Mbyte","83.88608"')
    sgemm = parse_ncu_csv(text, "prof.csv")[0]
    assert sgemm.m_tran_r == pytest.approx(2_621_440)


def test_not_an_ncu_file():
    with pytest.raises(PipeperfError, match="not an Nsight Compute CSV"):
        parse_ncu_csv("==PROF== nothing profiled\nhello\n", "x.csv")
    with pytest.raises(PipeperfError, match="no kernel launches"):
        parse_ncu_csv(LONG.splitlines()[6] + "\n", "x.csv")


def test_unreadable_file():
    with pytest.raises(PipeperfError, match="cannot read"):
        read_ncu_csv(FIXTURES / "does_not_exist.csv")


def test_version_strings_in_other_columns_do_not_confuse_the_separator():
    raw = (FIXTURES / "ncu_raw.csv").read_text().replace(
        '"NVIDIA GeForce GTX 1060 6GB","1,024"', '"535.104.05","1,024"')
    assert parse_ncu_csv(raw, "raw.csv")[0].m_fma32 == 1_073_741_824

"""The GPU peaks table of the quantitative roofline: complete, sourced, loadable."""

from __future__ import annotations

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import (
    PARAMETERS,
    builtin_names,
    load_peaks,
    peaks_to_yaml,
    read_peaks_file,
)


def test_every_gpu_has_six_positive_sourced_parameters():
    """The roofline-only table and every database GPU the roofline can use."""
    from pipeperf.hardware.spec import available_gpus

    assert builtin_names() == ["gtx480", "gtx660", "r9_nano"]        # only GPUs outside the database
    names = builtin_names() + ["pascal_gtx1060", "turing_rtx2070", "v100", "a100", "h100", "hopper_h200"]
    for name in names:
        peaks = load_peaks(name)
        for key in PARAMETERS:
            assert peaks.value(key) > 0, (name, key)
            assert len(peaks.sources[key]) > 10, (name, key)
        # sanity: FP64 never beats FP32, integer add at most one per FP32 lane-op pair
        assert peaks.t_dp <= peaks.t_sp and peaks.t_add <= peaks.t_sp
    assert set(available_gpus()).isdisjoint(builtin_names())


def test_measured_and_estimated_peaks_are_marked():
    measured = load_peaks("gtx480")
    assert set(measured.estimates) == {"T_add", "T_ldst"}
    assert "ro_GTX-480" in measured.sources["T_SP"]
    pascal = load_peaks("pascal_gtx1060")            # measured peaks from its database entry's peaks:
    assert pascal.t_sp == 4521.01 and "ro_GTX-1060" in pascal.sources["T_SP"]
    assert set(pascal.estimates) == {"T_add", "T_ldst"}
    assert "peaks.T_SP" in pascal.sources["T_SP"]


def test_old_short_names_are_database_aliases():
    """One namespace: v100/a100/h100 (the roofline's old names) are the database's aliases, so
    `roofline --gpu h100` and `--gpu hopper_h100` are one GPU with one set of rates."""
    from pipeperf.hardware.spec import load_gpu

    for short, full in (("v100", "volta_v100"), ("a100", "ampere_a100"), ("h100", "hopper_h100"),
                        ("gtx1060", "pascal_gtx1060"), ("V100", "volta_v100")):
        assert load_peaks(short) == load_peaks(full)
        assert load_peaks(short).name == full == load_gpu(short).name
    v = load_gpu("volta_v100")
    assert load_peaks("v100").t_sp == pytest.approx(v.cores * v.clock_at(1.0) * 32 / v.classes["fma_f32"].cpi * 2)
    assert "ampere_a100: memory.dram_" in load_peaks("a100").sources["B_mem"]


def test_unknown_gpu_lists_known_ones():
    with pytest.raises(PipeperfError, match=r"unknown GPU 'gtx9999'.*gtx480"):
        load_peaks("gtx9999")


def test_yaml_round_trip_and_file_selection(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text(peaks_to_yaml([load_peaks("v100")], header="test"))
    again = load_peaks(str(one))
    assert again.to_dict() == load_peaks("v100").to_dict()
    two = tmp_path / "two.yaml"
    two.write_text(peaks_to_yaml([load_peaks("v100"), load_peaks("a100")]))
    with pytest.raises(PipeperfError, match="several GPUs"):
        load_peaks(str(two))
    assert load_peaks(f"{two}:ampere_a100").t_sp == load_peaks("a100").t_sp
    with pytest.raises(PipeperfError, match="no such GPU peaks file"):
        load_peaks(str(tmp_path / "missing.yaml"))


@pytest.mark.parametrize("body, message", [
    ("gpus: [", "invalid YAML"),
    ("gpus: {}", "non-empty top-level 'gpus:'"),
    ("gpus:\n  x:\n    T_SP: {value: 1, source: s}\n", "missing parameter T_DP"),
    ("gpus:\n  x:\n    T_SP: 12\n", "must be {value: ..., source: ...}"),
    ("gpus:\n  x:\n    T_SP: {value: 12}\n", "has no 'source'"),
    ("gpus:\n  x:\n    T_SP: {value: -3, source: s}\n", "positive and finite"),
])
def test_malformed_peaks_files(tmp_path, body, message):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    with pytest.raises(PipeperfError, match=message) as info:
        read_peaks_file(path)
    assert info.value.file == str(path)


def test_gpu_database_names_give_derived_peaks():
    """One GPU namespace: every name of `pipeperf gpu list` works for the quantitative roofline,
    its rates derived from the database's SMs, clock under load and class CPIs."""
    from pipeperf.hardware.spec import available_gpus, load_gpu

    h = load_peaks("hopper_h100")
    g = load_gpu("hopper_h100")
    assert h.t_sp == pytest.approx(g.cores * g.clock_at(1.0) * 32 / g.classes["fma_f32"].cpi * 2)
    assert h.t_ldst == pytest.approx(g.cores * g.clock_at(1.0) * 32 / g.classes["ld_shared_f32"].cpi)
    assert "hopper_h100" in h.sources["T_SP"] and "fma_f32" in h.sources["T_SP"]
    a = load_peaks("ampere_a100_80gb")
    assert a.b_mem == load_gpu("ampere_a100_80gb").memory["dram_read_gbs"] and "B_mem" not in a.estimates
    derived = 0
    for name in available_gpus():
        try:
            p = load_peaks(name)
        except PipeperfError as e:          # a database entry without a class Table 3 needs: said so
            assert "for the quantitative roofline" in str(e), name
            continue
        derived += 1
        assert all(p.value(k) > 0 for k in PARAMETERS), name
    assert derived >= 15
    assert load_peaks("pascal_gtx1060").t_dp == 147.51          # its measured peaks: section first

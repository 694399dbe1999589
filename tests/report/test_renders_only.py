"""The report stage renders what the analysis produced (issue 40): with compiling, loading a GPU
spec and loading its peaks made to fail, every rendering of an analysed launch still comes out
the same (the source view's PTX lines are the analysis' ``ptx_lines``, the headline's peaks the
prediction's ``peaks``)."""

from __future__ import annotations

import re

import pytest


def _renderings(r) -> tuple[str, str, str]:
    """The headline, the text report and the HTML page (matplotlib's random SVG ids blanked)."""
    return r.summary(), str(r), re.sub(r"\b([mp])[0-9a-f]{10}\b", "ID", r.html())


def test_reports_neither_compile_nor_load_gpu_specs(transpose_report, monkeypatch, tmp_path):
    import pipeperf.hardware.peaks as peaks
    import pipeperf.hardware.spec as spec
    import pipeperf.ptx.load as load

    r = transpose_report
    before = _renderings(r)

    def refuse(*a, **k):
        raise AssertionError("the report stage compiled or loaded a GPU spec")

    for module, name in ((load, "compile_module"), (load, "load_module"), (spec, "load_gpu"),
                         (peaks, "load_peaks")):
        monkeypatch.setattr(module, name, refuse)
    assert _renderings(r) == before
    r.write_csv(tmp_path / "r.csv")
    assert r.analysis.ptx_lines is not None and r.analysis.ptx_lines.by_line
    assert all(p.peaks is not None for p in r.predictions)


@pytest.mark.parametrize("field", ["peaks", "ptx_lines"])
def test_the_records_carry_what_the_reports_need(transpose_report, field):
    holder = transpose_report.predictions[0] if field == "peaks" else transpose_report.analysis
    assert getattr(holder, field) is not None

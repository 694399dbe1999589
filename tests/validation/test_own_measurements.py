"""Our own GPU timings as cases (benchmarks/cases_from_timings.py): each quote is a row of the
timings file it names, its time is that row's median, and each file keeps its kernel source's
repository, so the development / held-out split of the own cases is that of the kernels."""

import csv
from pathlib import Path

import pytest
import yaml

from pipeperf.measure.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_every_own_case_quotes_its_timings_row_and_keeps_its_source():
    cases = [c for c in load_suite(ROOT / "validation") if c.id.startswith("own-")]
    assert len(cases) >= 150
    originals = {c.id: c for c in load_suite(ROOT / "validation", lambda c: not c.id.startswith("own-"))}
    for c in cases:
        doc = yaml.safe_load(Path(c.source.rsplit(":", 1)[0]).read_text())
        m = next(x for x in doc["cases"] if x["id"] == c.id)["measured"]
        lines = (ROOT / m["file"]).read_text().splitlines()
        header, row = m["quote"].splitlines()        # the CSV's header and the launch's row
        assert header in lines and row in lines, c.id
        r = dict(zip(header.split(","), next(csv.reader([row]))))
        assert r["status"].startswith("ok") and abs(float(r["ms_median"]) / 1e3 - c.seconds) < 1e-12
        orig = originals[c.id.split("/", 1)[1]]
        assert c.source_name == orig.source_name and c.part == orig.part and c.family == orig.family
        assert c.launch.kernel_file == orig.launch.kernel_file and c.launch.grid == orig.launch.grid
        assert c.launch.args == orig.launch.args and c.launch.warm_l2

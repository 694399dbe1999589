"""``examples/analyze.ipynb`` runs: executed by nbclient in an IPython kernel started from this
interpreter (with this pipeperf on its path), its outputs checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import pipeperf


NOTEBOOK = Path(__file__).parents[2] / "examples" / "analyze.ipynb"


@pytest.mark.slow
def test_example_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="nbformat not installed (the test extra)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient not installed (the test extra)")
    pytest.importorskip("ipykernel", reason="ipykernel not installed (the test extra)")
    spec = tmp_path / "kernels" / "pipeperf-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "pipeperf test", "language": "python",
        "env": {"PYTHONPATH": str(Path(pipeperf.__file__).parents[1])}}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="pipeperf-test",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(o.get("output_type") != "error" for c in code for o in c.outputs)
    summary = "".join(o.get("text", "") for o in code[1].outputs)
    assert summary.startswith("volta_v100: ") and "\nampere_a100: " in summary and " us predicted; " in summary
    table = code[2].outputs[0]["data"]
    assert "text/html" in table and "time_us" in table["text/html"]
    occupancy = code[3].outputs[0]["data"]["text/plain"]
    assert "'volta_v100'" in occupancy and "limited_by" in occupancy
    report = code[4].outputs[0]["data"]["text/html"]
    assert report.startswith('<div class="pipeperf-report">') and 'id="source"' in report

"""``pipeperf ptx``: text and JSON summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeperf.cli.main import main


@pytest.fixture
def fixtures_dir() -> Path:
    """The hand-written PTX of the front-end tests (tests/ptx/fixtures)."""
    return Path(__file__).resolve().parents[1] / "ptx" / "fixtures"


def test_json_summary(fixtures_dir, capsys):
    assert main(["ptx", str(fixtures_dir / "branches.ptx"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == ["sm_80"] and out["version"] == "8.0"
    (k,) = out["functions"]
    assert k["name"] == "branches" and k["kind"] == "entry"
    assert [p["name"] for p in k["params"]] == ["branches_param_0", "branches_param_1"]
    assert k["registers"] == {"pred": 4, "b32": 10, "b64": 4}
    assert k["instructions"] == 21 and k["predicated"] == 3
    assert k["basic_blocks"] == 6
    assert k["branches"] == {"total": 3, "conditional": 2, "unconditional": 1}
    cats = k["categories"]
    assert cats["ld.param"] == 2 and cats["st.global"] == 1 and cats["control"] == 4
    assert cats["move"] == 3
    assert sum(cats.values()) == 21


def test_text_summary(fixtures_dir, capsys):
    assert main(["ptx", str(fixtures_dir / "memslice.ptx")]) == 0
    out = capsys.readouterr().out
    assert "kernel memslice" in out
    assert ".const limit: u32, 4 bytes, initialised" in out
    assert "256 B shared" in out
    assert "branches     2 (2 conditional, 0 unconditional)" in out


def test_device_functions_are_listed(fixtures_dir, capsys):
    assert main(["ptx", str(fixtures_dir / "features.ptx"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    kinds = {f["name"]: f["kind"] for f in out["functions"]}
    assert kinds == {"twice": "func", "features": "entry"}
    feat = next(f for f in out["functions"] if f["name"] == "features")
    assert feat["directives"] == {"maxntid": "128, 1, 1", "minnctapersm": "2"}
    assert feat["params"][0]["ptr"] == "global"
    assert feat["categories"]["tex"] == 1 and feat["categories"]["warp"] == 2

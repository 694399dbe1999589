"""`pipeperf gpu show NAME --yaml` prints a complete spec that loads back to the same GPU."""

from __future__ import annotations

import pytest

from pipeperf.hardware.spec import available_gpus, load_gpu


def _same(a, b) -> dict:
    da, db = a.to_dict(), b.to_dict()
    da.pop("base", None), db.pop("base", None)
    return da == db


@pytest.mark.parametrize("name", available_gpus())
def test_yaml_of_every_bundled_gpu_loads_back_identical(cli, tmp_path, name):
    rc, out, err = cli("gpu", "show", name, "--yaml")
    assert rc == 0, err
    f = tmp_path / f"{name}.yaml"
    f.write_text(out)
    assert "\nbase:" not in out                     # self-contained: the base chain is merged in
    assert _same(load_gpu(f), load_gpu(name))
    assert load_gpu(f).sources == load_gpu(name).sources


def test_yaml_of_a_user_file_with_a_base_is_complete_and_editable(cli, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: my_h100\nbase: hopper_h100\nclock_ghz: 1.7\nmemory: {dram_read_gbs: 3000}\n"
                    "sources: {clock_ghz: 'my nvidia-smi -q, 2026-11-24', memory.dram_read_gbs: 'my stream run'}\n")
    rc, out, err = cli("gpu", "show", str(mine), "--yaml")
    assert rc == 0, err
    full = tmp_path / "full.yaml"
    full.write_text(out)
    g = load_gpu(full)
    assert g.name == "my_h100" and g.clock_ghz == 1.7 and g.memory["dram_read_gbs"] == 3000
    assert g.classes == load_gpu("hopper_h100").classes
    assert g.sources["clock_ghz"].startswith("my nvidia-smi")
    assert "merged with its base hopper_h100" in out
    edited = tmp_path / "edited.yaml"
    edited.write_text(out.replace("clock_ghz: 1.7", "clock_ghz: 1.6"))
    assert load_gpu(edited).clock_ghz == 1.6


def test_unknown_gpu_is_one_line(cli):
    rc, out, err = cli("gpu", "show", "nope_gpu", "--yaml")
    assert rc != 0 and "unknown GPU 'nope_gpu'" in err and "Traceback" not in err

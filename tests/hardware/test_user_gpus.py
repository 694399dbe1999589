"""User GPU folders: $PIPEPERF_GPU_PATH and ~/.config/pipeperf/gpus make a user's GPU files
available by name, after the bundled database, which they never shadow."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.hardware.spec import all_gpus, load_gpu, spec_yaml, user_gpu_dirs

MINE = "schema_version: 2\nbase: hopper_h100\nname: {name}\ncores: 66\n"


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "gpus"
    d.mkdir()
    (d / "my_gpu.yaml").write_text(MINE.format(name="my_gpu"))
    monkeypatch.setenv("PIPEPERF_GPU_PATH", str(d))
    return d


def test_a_gpu_is_found_by_name_through_pipeperf_gpu_path(folder, cli):
    g = load_gpu("my_gpu")
    assert g.cores == 66 and g.base == "hopper_h100"
    assert "my_gpu" in spec_yaml("my_gpu")
    assert all_gpus()["my_gpu"] == str(folder) and all_gpus()["hopper_h100"] == "bundled"
    rc, out, err = cli("gpu", "show", "my_gpu")
    assert rc == 0 and out.startswith("my_gpu:")
    rc, out, err = cli("gpu", "peaks", "my_gpu")
    assert rc == 0 and "my_gpu" in out


def test_the_per_user_config_folder_is_searched_after_the_path(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "pipeperf" / "gpus").mkdir(parents=True)
    (config / "pipeperf" / "gpus" / "cfg_gpu.yaml").write_text(MINE.format(name="cfg_gpu"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("PIPEPERF_GPU_PATH", "")
    assert user_gpu_dirs() == [config / "pipeperf" / "gpus"]
    assert load_gpu("cfg_gpu").name == "cfg_gpu"


def test_gpu_list_shows_where_each_gpu_comes_from(folder, cli):
    rc, out, err = cli("gpu", "list")
    assert rc == 0
    lines = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    assert lines["my_gpu"].endswith(str(folder)) and lines["volta_v100"].endswith("bundled")
    rc, out, err = cli("gpu", "list", "--json")
    assert {d["name"]: d["origin"] for d in __import__("json").loads(out)}["my_gpu"] == str(folder)


def test_a_user_file_never_shadows_a_bundled_name(folder, cli, capsys):
    """The bundled GPU wins; the user file is named as not used, in one line (list and load)."""
    (folder / "volta_v100.yaml").write_text(MINE.format(name="volta_v100"))
    assert load_gpu("volta_v100").cores == 80
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "volta_v100.yaml: not used" in err
    assert all_gpus()["volta_v100"] == "bundled"
    rc, out, err = cli("gpu", "list")
    assert rc == 0 and f"not used: {folder / 'volta_v100.yaml'}" in out
    assert load_gpu(str(folder / "volta_v100.yaml")).cores == 66          # by path it is used


def test_an_unknown_gpu_names_the_user_gpus_too(folder, cli):
    rc, out, err = cli("gpu", "show", "no_such_gpu")
    assert rc == 2 and err.count("\n") == 1 and "user GPUs: my_gpu" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [
    ["simulate", "instruction_mix", "--param", "beta=4", "--warps", "8"],
    ["models", "instruction_mix", "--param", "beta=4", "--warps", "1-4"],
    ["gpu", "show"], ["gpu", "peaks"], ["gpu", "diff", "hopper_h100"],
])
@pytest.mark.parametrize("how", ["name", "file"])
def test_every_command_takes_a_user_gpu_by_name_or_file(folder, cli, command, how):
    gpu = "my_gpu" if how == "name" else str(folder / "my_gpu.yaml")
    args = [*command, gpu] if command[0] == "gpu" else [*command, "--gpu", gpu]
    rc, out, err = cli(*args)
    assert rc == 0, err
    assert "my_gpu" in out or "66" in out


def test_a_tune_space_names_a_gpu_file_relative_to_itself(tmp_path):
    from pipeperf.tune.spacefile import CliSpace, load_space

    kernel = Path(__file__).parents[2] / "examples" / "tune" / "matmul_tiled.cu"
    (tmp_path / "mine.yaml").write_text(MINE.format(name="mine"))
    (tmp_path / "space.yaml").write_text(f"source: {kernel}\nparams: {{TILE: [8]}}\ngrid: [4]\nblock: [TILE]\n"
                                         "gpus: [mine.yaml, hopper_h100]\n")
    space = load_space(str(tmp_path / "space.yaml"), CliSpace())
    assert space.gpus == (str(tmp_path / "mine.yaml"), "hopper_h100")

"""The Rodinia kernels of the occupancy study: headers name their original, every launch names a
kernel of its file with Table 9's occupancy range, and (with nvcc) every file compiles."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from pipeperf.experiments.rodinia_occupancy import HERE, TABLE9, launches


def test_at_least_ten_of_table9_kernels_ship_with_their_launches():
    names = [k["name"] for k in launches()]
    assert len(set(names)) == len(names) >= 10
    assert set(names) <= set(TABLE9)


@pytest.mark.parametrize("launch", launches(), ids=lambda k: k["name"])
def test_launch_names_an_entry_of_its_file_and_a_table9_range(launch):
    text = (HERE / "kernels" / launch["file"]).read_text()
    assert re.search(rf'extern "C" __global__ void {launch["name"]}\(', text)
    lo, hi = launch["warps"]
    threads = 1
    for b in launch["block"]:
        threads *= b
    assert lo == threads // 32 or (lo == 1 and threads <= 32)   # Table 9: the minimum is one work group
    assert lo < hi <= 64 and launch["size"]


@pytest.mark.parametrize("path", sorted((HERE / "kernels").glob("*.cu")), ids=lambda p: p.name)
def test_header_names_repository_path_commit_and_licence(path):
    head = path.read_text()[:1500]
    assert "re-written for pipeperf" in head
    assert "yuhc/gpu-rodinia" in head and "licence" in head
    assert re.search(r"commit [0-9a-f]{40}", head)
    assert re.search(r"opencl/\S+\.cl", head)


@pytest.mark.requires_nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_every_kernel_file_compiles(tmp_path):
    for path in sorted((HERE / "kernels").glob("*.cu")):
        r = subprocess.run(["nvcc", "-ptx", str(path), "-o", str(tmp_path / f"{path.stem}.ptx")],
                           capture_output=True, text=True)
        assert r.returncode == 0, (path.name, r.stderr)

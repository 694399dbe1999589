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


def test_lavamd_host_data_is_rodinias_box_list():
    """The launch of konstantinidis-lavamd rebuilds opencl/lavaMD/main.c's boxes: the struct sizes
    match the kernel's parameters and every box lists its existing neighbours only."""
    import numpy as np

    from pipeperf.experiments.konstantinidis_lavamd import launch_args

    par, dim, boxes, rv, qv, fv = launch_args(3)
    assert par.nbytes == 4 and dim.nbytes == 56           # .param .b8 [4] and [56] in the PTX
    assert boxes.nbytes == 27 * 656 and rv.size == fv.size == 4 * 2700 and qv.size == 2700
    nn = np.frombuffer(boxes.tobytes(), "<i4").reshape(27, 164)[:, 6]     # box_str.nn at byte 24
    # per axis a box at the edge sees 2 of the 3 offsets, the middle one 3: (2 + 3 + 2)^3 - 27 (itself)
    assert nn[0] == 7 and nn[13] == 26 and nn.sum() == 7 ** 3 - 27
    assert set(np.unique(rv).tolist()) <= {float(np.float32(x / 10)) for x in range(1, 11)}     # (rand() % 10 + 1) / 10

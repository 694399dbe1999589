"""benchmarks/sass_loads.py: the PTX's and the SASS's load widths per source line.

The texts are lines of real output: ``nvcc -ptx -lineinfo -arch=sm_89`` (13.0) and ``nvdisasm -g -c``
(13.5) of the cubin ptxas 13.0 made of that PTX, for the suite's SGEMM 2D block-tiling kernel
(validation/kernels/fast_cuda_kernels_gemm.cu), cut to the lines around the inner loop's loads."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("sass_loads", ROOT / "benchmarks" / "sass_loads.py")
assert _spec and _spec.loader
sass_loads = importlib.util.module_from_spec(_spec)
sys.modules["sass_loads"] = sass_loads      # its dataclass looks its module up there
_spec.loader.exec_module(sass_loads)

PTX = """\
.visible .entry gemm_2D_blocktiling(
\t.param .u32 gemm_2D_blocktiling_param_0,
)
{
\tshl.b32 \t%r52, %r2, 6;
\t.loc\t1 148 9
\tadd.s32 \t%r56, %r72, %r54;
\t.loc\t1 151 9
\tshl.b32 \t%r60, %r59, 2;
\tadd.s32 \t%r62, %r28, %r60;
\tld.shared.f32 \t%f403, [%r62];
\t.loc\t1 148 9
\tld.shared.f32 \t%f404, [%r56];
\t.loc\t1 151 9
\tld.shared.f32 \t%f405, [%r62+4];
\t.loc\t1 148 9
\tld.shared.f32 \t%f412, [%r56+32];
\t.loc\t1 137 7
\tld.global.f32 \t%f387, [%rd22];
}
.visible .entry other(
)
{
\t.loc\t1 151 9
\tld.shared.v2.f32 \t{%f1, %f2}, [%r1];
}
\t.file\t1 "/work/main/validation/kernels/fast_cuda_kernels_gemm.cu"
"""

SASS = """\
\t.section\t.text.gemm_2D_blocktiling,"ax",@progbits
.text.gemm_2D_blocktiling:
\t//## File "/work/main/validation/kernels/fast_cuda_kernels_gemm.cu", line 137
        /*07b0*/                   LDG.E R5, [R26.64] ;
\t//## File "/work/main/validation/kernels/fast_cuda_kernels_gemm.cu", line 151
        /*0b60*/                   LDS.128 R28, [R5+0x800] ;
\t//## File "/work/main/validation/kernels/fast_cuda_kernels_gemm.cu", line 148
        /*0b70*/                   LDS.128 R24, [R7] ;
        /*0b80*/                   LDS.128 R48, [R5+0x810] ;
.text.other:
\t//## File "/work/main/validation/kernels/fast_cuda_kernels_gemm.cu", line 151
        /*0010*/                   LDS.U8 R2, [R1] ;
"""


def test_ptx_loads_by_line_and_space_of_one_entry():
    got = sass_loads.ptx_loads(PTX, "gemm_2D_blocktiling")
    name = "fast_cuda_kernels_gemm.cu"
    assert got == {(name, 151, "shared"): [4, 4], (name, 148, "shared"): [4, 4], (name, 137, "global"): [4]}
    assert sass_loads.ptx_loads(PTX, "other") == {(name, 151, "shared"): [8]}


def test_sass_loads_read_the_width_suffixes():
    name = "fast_cuda_kernels_gemm.cu"
    assert sass_loads.sass_loads(SASS, "gemm_2D_blocktiling") == {
        (name, 137, "global"): [4], (name, 151, "shared"): [16], (name, 148, "shared"): [16, 16]}
    assert sass_loads.sass_loads(SASS, "other") == {(name, 151, "shared"): [1]}


def test_compare_gives_the_load_instructions_the_gpu_issues_per_modelled_one():
    got = sass_loads.compare(PTX, SASS, "gemm_2D_blocktiling")
    shared = got[("fast_cuda_kernels_gemm.cu", 148, "shared")]
    assert sass_loads.LineLoads.mean(shared.ptx) / sass_loads.LineLoads.mean(shared.sass) == 0.25
    glob = got[("fast_cuda_kernels_gemm.cu", 137, "global")]
    assert glob.ptx == glob.sass == [4]


def _tools() -> bool:
    from pipeperf.errors import PipeperfError
    from pipeperf.ptx.toolkit import find_tool
    try:
        return all(find_tool(t) for t in ("nvcc", "ptxas", "nvdisasm"))
    except PipeperfError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not _tools(), reason="needs nvcc, ptxas and nvdisasm (pip install 'pipeperf[cuda]')")
def test_the_suite_sgemm_block_tiling_loads_are_widened_by_ptxas(tmp_path):
    """With the real tools: the block-tiling kernel's shared loads become LDS.128 (a quarter of the
    load instructions the PTX has), its global loads stay scalar."""
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sass_loads.py"), "--case",
                        "fast-cuda-kernels-gemm/rtx4090/memory_block_tiling", "--out", str(tmp_path / "t.txt")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rows = [ln.split() for ln in (tmp_path / "t.txt").read_text().splitlines() if ln.startswith("gemm_2D")]
    assert {(row[2], row[3], row[6]) for row in rows} == {("148", "shared", "0.25"), ("151", "shared", "0.25")}

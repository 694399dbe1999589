"""`pipeperf analyze` end to end: CUDA/PTX -> emulation traces -> IDGs -> occupancy -> simulator."""

import json

import pytest

from pipeperf.analysis import analyze
from pipeperf.cli.main import main
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.graph import IDG
from pipeperf.idg.kernel_graph import KernelGraph
from pipeperf.simulate import simulate

GPUS = ["pascal_gtx1060", "fermi_c2050"]
SAXPY_ARGS = ["n=2000", "a=2", "x=rand:f32:2048", "y=zeros:f32:2048"]
MATMUL_ARGS = ["A=rand:f32:1024", "B=rand:f32:1024", "C=zeros:f32:1024", "n=32"]

# y[tid] = 2 * y[tid]: every instruction and dependence known by hand.
HAND_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry twice(.param .u64 twice_param_0)
{
    .reg .b32 %r<2>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [twice_param_0];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    mul.f32 %f2, %f1, 0f40000000;
    st.global.f32 [%rd3], %f2;
    ret;
}
"""


@pytest.mark.parametrize("kernel,grid,block,args", [
    ("saxpy", "8", "256", SAXPY_ARGS), ("matmul_tiled", "2,2", "16,16", MATMUL_ARGS)])
def test_analyze_end_to_end(kernel, grid, block, args):
    a = analyze(f"tests/kernels/{kernel}.cu", grid, block, args, GPUS)
    assert [p.gpu for p in a.predictions] == GPUS
    for p in a.predictions:
        assert p.cycles > 0 and p.seconds > 0 and p.blocks_per_sm >= 1
        assert sum(c["weight"] for c in p.warp_classes) == a.warps_traced
    fermi, pascal = a.predictions[1], a.predictions[0]
    assert fermi.seconds > pascal.seconds          # Fermi's latencies and clock are worse
    if kernel == "saxpy":                          # n=2000: the last warp is out of bounds
        assert sorted(c["weight"] for c in pascal.warp_classes) == [1.0, 63.0]
    else:
        assert a.resources["shared_bytes"] == 2048 and pascal.subsystem_busy["barrier"] > 0


def test_hand_idg_equals_analyze(tmp_path):
    ptx = tmp_path / "twice.ptx"
    ptx.write_text(HAND_PTX)
    a = analyze(ptx, 4, 64, ["ones:f32:256"], ["pascal_gtx1060"], mode="full")
    gpu = load_gpu("pascal_gtx1060")
    hand = IDG.from_nodes(
        "twice", [f"i{k}" for k in range(8)],
        ["add_f32", "add_f32", "mul_s32", "add_f32", "ld_global_s32", "mul_f32", "ld_global_s32", "add_f32"],
        [[], [], ["i1"], ["i0", "i2"], ["i3"], ["i4"], ["i3", "i5"], []])
    p = a.predictions[0]
    ref = simulate(KernelGraph.single(hand), gpu, group_size=2, groups_per_core=p.blocks_per_sm, total_groups=4)
    assert p.warp_classes == [{"instructions": 8, "weight": 8.0}]
    assert p.cycles == ref.cycles and p.seconds == ref.seconds


def test_cli_json_and_unknown_gpu(capsys):
    rc = main(["analyze", "tests/kernels/saxpy.cu", "--grid", "8", "--block", "256",
               *[x for a in SAXPY_ARGS for x in ("--arg", a)], "--gpu", "pascal_gtx1060", "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    k = doc["kernels"][0]
    assert k["name"] == "saxpy" and k["gpu"] == "pascal_gtx1060"
    assert k["predictions"]["pipeline"]["cycles"] > 0 and k["predictions"]["pipeline"]["seconds"] > 0
    assert {"warps_per_sm", "groups_per_sm", "limited_by"} <= set(k["occupancy"])
    assert "by" in k["bound"] and k["profile"]
    with pytest.raises(PipeperfError, match="no_such_gpu"):
        analyze("tests/kernels/saxpy.cu", 8, 256, SAXPY_ARGS, ["no_such_gpu"])


def test_occupancy_from_ptxas_resources_on_cc75():
    from pipeperf.hardware.occupancy import occupancy

    a = analyze("tests/kernels/matmul_tiled.cu", "2,2", "16,16", MATMUL_ARGS, ["turing_rtx2070"], trace_warps=8)
    p, r = a.predictions[0], a.resources
    o = occupancy("7.5", 256, r["registers"], r["shared_bytes"])
    assert "cc 7.5" in p.occupancy_source and p.block_limit == o.blocks_per_sm and p.limited_by == o.limited_by
    assert p.blocks_per_sm == 1                    # 4 blocks over 36 SMs: one resident block each
    assert a.warps_traced == 8 and a.warps_total == 32

"""`pipeperf analyze` on a kernel whose last block runs extra barriers (reduce_threadfence).

Its warp classes reach 10 or 19 barriers; mixed per warp they were refused as a deadlock.
Built per block (group classes), every simulated group is one traced block shape."""

import json

import numpy as np
import pytest

from pipeperf.cli.main import main
from pipeperf.emulate import load_module, run_kernel, select_kernel
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.build import kernel_graph_from_profile
from pipeperf.idg.kernel_graph import KernelGraph
from pipeperf.simulate import simulate

CU = "tests/kernels/reduce_threadfence.cu"
ARGS = ["in=rand:i32:1024", "partial=zeros:i32:4", "total=zeros:i32:1", "n=1000"]


@pytest.mark.slow
def test_last_block_reduction_is_predicted_and_costs_more_than_the_ordinary_blocks(capsys):
    # 4 blocks of 8 warps: all 32 warps fit the default trace sample of 256
    rc = main(["analyze", CU, "--grid", "4", "--block", "256", *[x for a in ARGS for x in ("--arg", a)],
               "--gpu", "pascal_gtx1060", "--json", "--no-memory-analysis"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    pred = doc["kernels"][0]
    assert doc["launch"]["warps_traced"] == 32 and pred["occupancy"]["groups_per_sm"] == 1

    m = load_module(CU)
    f = select_kernel(m, None)
    prof = run_kernel(m, grid=4, block=256, trace_warps=256,
                      args=[np.ones(1024, np.int32), np.zeros(4, np.int32), np.zeros(1, np.int32), 1000])
    gpu = load_gpu("pascal_gtx1060")
    # the PTX in ptxas' load order, as analyze builds it: the loaded bytes its SASS keeps in flight
    # (none where there is no SASS: no CUDA toolkit)
    from pathlib import Path

    from pipeperf.analysis.builds import Builds
    from pipeperf.analysis.sass_trace import loaded_bytes_in_flight
    build = Builds(Path(CU), None, []).for_gpu(gpu)
    try:
        hoist = loaded_bytes_in_flight(build.sass_view(select_kernel(build.module, None)).sass)
    except PipeperfError:
        hoist = None
    built = kernel_graph_from_profile(prof, f, set(gpu.classes), gpu.name, hoist_bytes=hoist)
    kg, info = built.graph, built.info
    assert info.blocks_traced == 4 and [g.weight for g in kg.group_classes] == [3.0, 1.0]
    bars = [{kg.warp_classes[j].idg.n_barriers for j in g.warps} for g in kg.group_classes]
    assert len(bars[0]) == len(bars[1]) == 1 and bars[1].pop() > bars[0].pop()   # the last block's extra pass

    def run(k):
        return simulate(k, gpu, group_size=8, groups_per_core=1, total_groups=4)

    full = run(kg)
    assert full.cycles == pytest.approx(pred["predictions"]["pipeline"]["cycles"])
    ordinary = run(KernelGraph(kg.name, kg.warp_classes, kg.source, kg.group_classes[:1]))
    # 4 blocks on 10 SMs: the kernel lasts as long as the SM that runs the last block
    assert full.cycles > ordinary.cycles and full.instructions_on_core > ordinary.instructions_on_core
    per_warp = KernelGraph(kg.name, kg.warp_classes, kg.source)
    with pytest.raises(PipeperfError, match="different numbers of barriers"):
        run(per_warp)                                  # the old per-warp mixing: refused

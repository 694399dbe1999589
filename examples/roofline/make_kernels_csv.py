"""Write kernels_ncu.csv: three FP32 kernels in Nsight Compute's ``--csv`` layout.

The counts are illustrative, derived from per-thread instruction mixes (no GPU was used), and
chosen to span the roofline: a streaming kernel, a stencil-like convolution and a tiled SGEMM.
Run from the repository root:  python3 examples/roofline/make_kernels_csv.py

The committed charts were drawn from it with:

    pipeperf roofline --ncu examples/roofline/kernels_ncu.csv --gpu gtx660 --gpu gtx1060 \
        --gpu r9_nano --gpu v100 --quadrant examples/roofline/quadrant_split.png
    pipeperf roofline --ncu examples/roofline/kernels_ncu.csv --gpu gtx1060 --gpu v100 \
        --plot examples/roofline/roofline.png
"""

from __future__ import annotations

from pathlib import Path

N_VEC = 1 << 24  # saxpy elements
N_IMG = 4096 * 4096  # convolution outputs
N_MAT = 1024  # sgemm size

KERNELS = [
    # name, grid, block, per-launch thread-level counts (warp-level for inst_executed)
    ("saxpy(int, float, const float *, float *)", "(65536, 1, 1)", "(256, 1, 1)", {
        "ffma": N_VEC, "fp32": N_VEC, "fp64": 0, "dfma": 0, "integer": 5 * N_VEC,
        "memory": 3 * N_VEC, "inst": 12 * N_VEC // 32,
        "rd": 2 * 4 * N_VEC // 32, "wr": 4 * N_VEC // 32}),  # x and y read, y written once
    ("conv2d_5x5(const float *, float *, int, int)", "(256, 256, 1)", "(16, 16, 1)", {
        "ffma": 25 * N_IMG, "fp32": 26 * N_IMG, "fp64": 0, "dfma": 0, "integer": 20 * N_IMG,
        "memory": 28 * N_IMG, "inst": 80 * N_IMG // 32,
        "rd": 10 * N_IMG // 32, "wr": 4 * N_IMG // 32}),  # input read 2.5x: halo rows leave L2
    ("sgemm_tiled(const float *, const float *, float *, int)", "(32, 32, 1)", "(32, 32, 1)", {
        "ffma": N_MAT ** 3, "fp32": N_MAT ** 3 + 2 * N_MAT ** 2, "fp64": 0, "dfma": 0,
        "integer": 176 * N_MAT ** 2, "memory": 528 * N_MAT ** 2, "inst": 56 * N_MAT ** 2,
        "rd": 2560 * N_MAT, "wr": 128 * N_MAT}),  # tiles re-read through L2, C written once
]
METRICS = [
    ("dram__sectors_read.sum", "sector", "rd"),
    ("dram__sectors_write.sum", "sector", "wr"),
    ("smsp__inst_executed.sum", "inst", "inst"),
    ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", "dfma"),
    ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "ffma"),
    ("smsp__sass_thread_inst_executed_op_fp32_pred_on.sum", "inst", "fp32"),
    ("smsp__sass_thread_inst_executed_op_fp64_pred_on.sum", "inst", "fp64"),
    ("smsp__sass_thread_inst_executed_op_integer_pred_on.sum", "inst", "integer"),
    ("smsp__sass_thread_inst_executed_op_memory_pred_on.sum", "inst", "memory"),
]
HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
          "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
          "Metric Value"]


def main() -> None:
    lines = ['"' + '","'.join(HEADER) + '"']
    for launch, (name, grid, block, counts) in enumerate(KERNELS):
        base = [str(launch), "4242", "app", "127.0.0.1", name, "1", "7", block, grid,
                "NVIDIA GeForce GTX 1060 6GB", "6.1", "Command line profiler metrics"]
        for metric, unit, key in METRICS:
            lines.append('"' + '","'.join(base + [metric, unit, f"{counts[key]:,}"]) + '"')
    out = Path(__file__).with_name("kernels_ncu.csv")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""Simulator throughput: simulated warp-instructions per second on one core.

The issue's benchmark: 64 warps x 10 000 instructions on the Pascal spec (groups of
2 warps, 32 resident groups: Pascal's 64-warp, 32-block limits). Several IDGs, since
the cost per instruction depends on how many warps wait at a pipeline. Best wall time and best
CPU time of the thread (on a shared machine the CPU time is the steadier of the two; the
throughput is over the CPU time), and the candidate scan's vector width the engine picked:

    python3 benchmarks/simulate_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from pipeperf.hardware.spec import load_gpu
from pipeperf.idg.paper_kernels import chain, instruction_mix
from pipeperf.simulate import _engine
from pipeperf.simulate.simulator import PreparedKernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    gpu = load_gpu("pascal_gtx1060")
    cases = [
        ("instruction mix beta=4 (ALU+SFU)", instruction_mix(4, 2000)),
        ("fp32 dependent chain", chain(10_000, "mul_f32")),
        ("mixed: mix with beta=16", instruction_mix(16, 10_000 // 17)),
        ("global-load chain (memory bound)", chain(10_000, "ld_global_s32")),
    ]
    PreparedKernel(chain(10, "mul_f32"), gpu).run(2, 32)      # compile once
    print(f"candidate scan: {_engine.scan_isa()}; best of {args.repeat}")
    print(f"{'IDG':<36} {'sched':>5} {'instr':>9} {'wall s':>8} {'cpu s':>8} {'M warp-instr/s':>15}")
    for label, kernel in cases:
        prep = PreparedKernel(kernel, gpu)
        for sched in ("rr", "gto"):
            best = cpu = float("inf")
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.thread_time()
                r = prep.run(2, 32, scheduler=sched)
                best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.thread_time() - c0)
            print(f"{label:<36} {sched:>5} {r.instructions_on_core:>9} {best:>8.3f} {cpu:>8.3f} "
                  f"{r.instructions_on_core / cpu / 1e6:>15.2f}")


if __name__ == "__main__":
    main()

"""What a campaign launches: memory, dispatch and atomics benchmarks, and the corpus sweeps.

Each :class:`Launch` carries what its time means (``amount`` of ``unit`` per run), so one
derivation turns any backend's milliseconds into GB/s, ns per load or operations per second.
Sizes: DRAM streams of 1 GiB per buffer (far beyond any L2 here; as gpu-stream), L2 footprints of 4 MiB (inside every
L2 from Ampere on), a 16 KiB L1 footprint, 4 Mi empty blocks; ``scale`` < 1 shrinks the grids
(the simulated campaign of the tests), never the footprints the levels are chosen by.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from pipeperf.errors import PipeperfError


@dataclass(frozen=True)
class Launch:
    """One timed launch: ``amount`` ``unit`` per run (bytes, loads, blocks, atomics)."""

    name: str                    # file stem of its CSV
    cu: Path
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[str, ...]        # the launch grammar of profile/analyze/measure
    amount: float = 0.0
    unit: str = ""
    quantity: str = ""           # what the derived number is called in the step's summary


def benchmark_source() -> Path:
    return Path(str(resources.files("pipeperf.measure.campaign").joinpath("memory_benchmarks.cu")))


def corpus_dir() -> Path:
    """tests/kernels of a source checkout (the corpus is not installed with the package)."""
    return Path(__file__).resolve().parents[4] / "tests" / "kernels"


def _g(x: int) -> tuple[int, int, int]:
    return (max(1, int(x)), 1, 1)


def dram_launches(scale: float = 1.0) -> list[Launch]:
    cu, n = benchmark_source(), max(4096, int((1 << 26) * scale))       # float4 elements: 1 GiB
    grid = _g(-(-n // 256))
    return [
        Launch("dram_read", cu, "stream_read", grid, _g(256), (f"a=rand:f32:{4 * n}", "out=zeros:f32:1", f"n={n}"),
               16.0 * n, "bytes", "dram_read_gbs"),
        Launch("dram_write", cu, "stream_write", grid, _g(256), (f"b=zeros:f32:{4 * n}", f"n={n}"),
               16.0 * n, "bytes", "dram_write_gbs"),
        Launch("dram_copy", cu, "stream_copy", grid, _g(256),
               (f"a=rand:f32:{4 * n}", f"b=zeros:f32:{4 * n}", f"n={n}"), 32.0 * n, "bytes", "dram_copy_gbs"),
    ]


#: (level, kernel, footprint in 4-byte words, stride in words, dependent loads). L1 and L2 chases
#: revisit their 128 (L1) and 512 (L2, 64 KiB through ld.global.cg, which skips L1) lines 32 times,
#: so the first, cold pass is 3 % of the loads; the DRAM chase strides 32 KiB + 128 B over 1 GiB
#: and touches every line once (cold, as published DRAM pointer chases are).
CHASES = (("l1", "chase_ca", 1 << 12, 32, 4096), ("l2", "chase_cg", 1 << 14, 32, 16384),
          ("dram", "chase_cg", 1 << 28, 8224, 4096))


def latency_launches(scale: float = 1.0) -> list[Launch]:
    cu = benchmark_source()
    out = []
    for level, kernel, words, stride, steps in CHASES:
        steps = max(256, int(steps * scale))
        out.append(Launch(f"latency_{level}", cu, kernel, _g(1), _g(1),
                          (f"buf=arange:u32:{words}", "out=zeros:u32:1", f"steps={steps}", f"stride={stride}",
                           f"mask={words - 1}"), float(steps), "loads", f"{level}_latency_ns"))
    return out


def l2_launches(scale: float = 1.0) -> list[Launch]:
    blocks, reps, mask = max(8, int(4096 * scale)), 64, (1 << 18) - 1          # 4 MiB of float4
    return [Launch("l2_read", benchmark_source(), "l2_read", _g(blocks), _g(256),
                   (f"a=rand:f32:{4 * (mask + 1)}", "out=zeros:f32:1", f"reps={reps}", f"mask={mask}"),
                   16.0 * blocks * 256 * reps, "bytes", "l2_read_gbs")]


def dispatch_launches(scale: float = 1.0) -> list[Launch]:
    blocks = max(1024, int((1 << 22) * scale))
    return [Launch("dispatch", benchmark_source(), "empty_blocks", _g(blocks), _g(32), ("0",),
                   float(blocks), "blocks", "blocks_per_us")]


def atomics_launches(scale: float = 1.0) -> list[Launch]:
    """Same-address atomics, counted as the L2 receives them: ptxas combines a warp's
    ``atomicAdd(counter, 1u)`` on one address into one ``REDG.E.ADD`` of the warp's POPC (VOTEU.ANY,
    UFLO, POPC, then the elected lane's REDG: the SASS nvcc 13.0 emits for sm_90), so the L2
    serialises one operation per warp and iteration, not one per thread."""
    blocks, iters = max(4, int(1024 * scale)), 16
    warps = blocks * 256 // 32
    lanes = float(blocks * 256 * iters)
    cu = benchmark_source()
    return [Launch("atomics_same_address", cu, "atomic_same", _g(blocks), _g(256),
                   ("counter=zeros:u32:1", f"iters={iters}"), float(warps * iters), "atomics",
                   "global_same_address_per_clk"),
            # the same rate a lane at a time (one REDG per lane): the model's claim that each lane
            # on one word is one L2 operation, checked
            Launch("atomics_same_address_lanes", cu, "atomic_lanes", _g(max(4, blocks // 8)), _g(256),
                   ("words=zeros:u32:1", f"iters={iters}", "mask=0"), lanes / 8, "atomics",
                   "global_same_address_lane_ops_per_clk"),
            # 256 counters in 1 KiB (8 lines): contention by line or L2 slice, which the model lacks
            Launch("atomics_256_words", cu, "atomic_lanes", _g(blocks), _g(256),
                   ("words=zeros:u32:256", f"iters={iters}", "mask=255"), lanes, "atomics",
                   "global_256_words_ops_per_clk"),
            # a warp's 32 lanes on the 32 words of one line (7 is odd: lanes * 7 & 31 is a
            # permutation): one L2 request of 32 operations, which the model counts as 32 one
            # after the other on the line's slice (pmpp's shared histogram, 61-152 % too slow)
            Launch("atomics_one_line_32_words", cu, "atomic_lanes", _g(blocks), _g(256),
                   ("words=zeros:u32:32", f"iters={iters}", "mask=31"), lanes, "atomics",
                   "global_one_line_ops_per_clk"),
            *(Launch(f"atomics_8_lines_stride_{stride}", cu, "atomic_lines", _g(blocks), _g(256),
                     (f"words=zeros:u32:{7 * stride + 32}", f"iters={iters}", f"stride={stride}"), lanes,
                     "atomics", f"global_8_lines_stride_{stride}_ops_per_clk")
              for stride in (32, 64, 256, 1024, 8192, 65536)),
            Launch("atomics_shared_same_address", cu, "atomic_shared_lanes", _g(blocks), _g(256),
                   ("out=zeros:u32:1", f"iters={iters}", "mask=0"), lanes, "shared-atomics",
                   "shared_same_address_cycles")]


#: corpus kernels swept over occupancy: 1-D launches whose sizes scale with the grid
SWEEP_KERNELS = ("saxpy", "daxpy", "reduce_shared", "reduce_warp_shfl", "stencil1d", "divergent", "math_fp32",
                 "math_fp64", "int_divmod", "bitops", "hash_lcg", "fma_chain", "histogram_global", "collatz_steps")


def sweep_launches(factor: int = 4096, names: tuple[str, ...] = SWEEP_KERNELS) -> list[Launch]:
    """The corpus launches of tests/kernels/manifest.yaml with grid.x, every buffer and every
    by-value size parameter (the ones equal to the manifest's element count) times ``factor``."""
    manifest = corpus_dir() / "manifest.yaml"
    if not manifest.is_file():
        raise PipeperfError("the kernel corpus is not here (a source checkout has tests/kernels)", file=manifest)
    entries = {k["kernel"]: k for k in yaml.safe_load(manifest.read_text())["kernels"]}
    out = []
    for name in names:
        k = entries.get(name)
        if k is None:
            raise PipeperfError(f"no kernel '{name}' in the corpus", file=manifest)
        launch, buffers = k["launch"], k.get("buffers", {})
        n = launch.get("n")
        args = []
        for p in k["params"]:
            if p["type"].endswith("*"):
                args.append(f"{p['name']}=rand:{p['type'][:-1]}:{buffers[p['name']] * factor}")
            else:
                v = launch[p["name"]]
                v = v * factor if p["name"] == "n" or (n is not None and v == n and p["type"] in ("i32", "u32")) else v
                args.append(f"{p['name']}={v}")
        grid = launch["grid"]
        out.append(Launch(f"sweep_{name}", corpus_dir() / k["file"], name, (grid[0] * factor, 1, 1),
                          tuple(launch["block"] + [1] * (3 - len(launch["block"]))), tuple(args)))
    return out

"""``pipeperf analyze``: from CUDA source (or PTX) to a predicted run time on any GPU, without a GPU.

Pipeline: compile (.cu -> PTX, nvcc) and parse; emulate the launch with per-warp traces of a sample
of warps (:mod:`pipeperf.emulate`); build one IDG per warp class from the traces
(:mod:`pipeperf.idg.build`, classes by the mapper :mod:`pipeperf.hardware.mapper`); occupancy from
``ptxas -v`` resources and the block size; the Pipeline model's simulator with M = resident blocks
per SM, group size = warps per block and total groups = grid size.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pipeperf.errors import PipeperfError


@dataclass
class GPUPrediction:
    gpu: str
    cycles: float
    seconds: float
    blocks_per_sm: int          # M simulated: the occupancy limit, or fewer when the grid is small
    block_limit: int            # resident blocks per SM the occupancy rules allow
    warps_per_block: int
    occupancy: float
    limited_by: str
    occupancy_source: str
    bound_by: str
    subsystem_busy: dict[str, float]
    warp_classes: list[dict]

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Analysis:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    resources: dict[str, int]
    warps_traced: int
    warps_total: int
    truncated_warps: int
    predictions: list[GPUPrediction] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["grid"], d["block"] = list(self.grid), list(self.block)
        d["predictions"] = [p.to_dict() for p in self.predictions]
        return d


def resident_blocks(gpu, warps_per_block: int, threads: int, resources: dict[str, int],
                    dynamic_shared: int = 0) -> tuple[int, float, str, str]:
    """(blocks per SM, occupancy, limiter, source): the CUDA rules when the GPU's compute capability
    has them (7.0-9.0), else the spec's max resident warps and groups (registers, shared memory ignored)."""
    from pipeperf.hardware.occupancy import LIMITS, occupancy

    cc = str(getattr(gpu, "compute_capability", "") or "")
    if cc in LIMITS:
        o = occupancy(cc, threads, resources.get("registers", 0), resources.get("shared_bytes", 0), dynamic_shared)
        return o.blocks_per_sm, o.occupancy, o.limited_by, f"CUDA occupancy rules cc {cc}"
    by_warps = gpu.max_warps_per_core // warps_per_block
    by_groups = gpu.max_groups_per_core
    blocks = min(by_warps, by_groups)
    if blocks < 1:
        raise PipeperfError(f"a block of {warps_per_block} warps exceeds the {gpu.max_warps_per_core} "
                            f"resident warps of GPU '{gpu.name}'")
    limiter = "warps" if by_warps <= by_groups else "blocks"
    return blocks, blocks * warps_per_block / gpu.max_warps_per_core, limiter, \
        f"spec max warps/groups (cc {cc or '?'} has no register/shared-memory rules here)"


def analyze(path: str | Path, grid: Any, block: Any, args: Sequence[Any], gpus: Sequence[str],
            kernel: str | None = None, mode: str = "hybrid", trace_warps: int = 256,
            max_nodes: int | None = 200_000, shared: int = 0, arch: str | None = None,
            all_ctas: bool = False) -> Analysis:
    """Predict the run time of one launch on each GPU of ``gpus``.

    ``trace_warps`` first warps of the launch are traced (the sample the warp classes and their
    weights come from); traces longer than ``max_nodes`` instructions are cut."""
    from pipeperf.emulate import load_module, run_kernel, select_kernel
    from pipeperf.emulate.launch import dim3
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.idg.build import kernel_graph_from_profile
    from pipeperf.ptx.compile import ptxas_resources
    from pipeperf.simulate import simulate

    specs = [load_gpu(name) for name in gpus]          # an unknown GPU fails before any work
    module = load_module(path, arch)
    func = select_kernel(module, kernel)
    g3, b3 = dim3(grid, "grid"), dim3(block, "block")
    threads = math.prod(b3)
    wpb = -(-threads // 32)
    n_blocks = math.prod(g3)
    resources = _resources(Path(path), module, func.name, arch, ptxas_resources)
    prof = _emulate(run_kernel, module, func.name, g3, b3, args, mode, trace_warps, shared, all_ctas)
    out = Analysis(func.name, g3, b3, resources, len(prof.traces), n_blocks * wpb, 0)
    for spec in specs:
        kg, info = kernel_graph_from_profile(prof, func, set(spec.classes), spec.name, max_nodes, str(path))
        out.truncated_warps = info.truncated_warps
        limit, occ, limiter, source = resident_blocks(spec, wpb, threads, resources, shared)
        blocks = max(1, min(limit, -(-n_blocks // spec.cores)))   # never more resident than exist
        r = simulate(kg, spec, group_size=wpb, groups_per_core=blocks, total_groups=n_blocks)
        out.predictions.append(GPUPrediction(
            spec.name, r.cycles, r.seconds, blocks, limit, wpb, occ, limiter, source, r.bound_by,
            dict(r.subsystem_busy),
            [{"instructions": len(c.idg), "weight": c.weight} for c in kg.warp_classes]))
    return out


def _emulate(run_kernel, module, name: str, grid, block, args, mode: str, trace_warps: int,
             shared: int, all_ctas: bool):
    """Trace whole CTAs spread over the grid (first, last, evenly between; ``trace_warps`` warps
    at most, one CTA at least) with lane addresses, and emulate only those CTAs unless
    ``all_ctas`` or their traces could depend on other CTAs' writes (``prof.counts['sampling']``)."""
    return run_kernel(module, grid, block, args, kernel=name, mode=mode, trace_warps=trace_warps,
                      trace_blocks="spread", ctas=None if all_ctas else "traced", shared=shared,
                      memory=True)


def _resources(path: Path, module, name: str, arch: str | None, ptxas_resources) -> dict[str, int]:
    """Registers and static shared memory from ``ptxas -v`` on the module's PTX."""
    if path.suffix == ".ptx":
        res = ptxas_resources(path, arch)
    else:
        from pipeperf.ptx.compile import DEFAULT_ARCH, compile_cu

        with tempfile.TemporaryDirectory() as d:
            ptx = Path(d) / (path.stem + ".ptx")
            ptx.write_text(compile_cu(path, arch=arch or DEFAULT_ARCH))
            res = ptxas_resources(ptx, arch)
    if name not in res:
        raise PipeperfError(f"ptxas reported no resources for kernel '{name}'", file=str(path))
    return res[name]

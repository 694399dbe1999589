"""Kernel description of one SWACC/Athread CPE kernel (the model's inputs).

Table I's input parameters per kernel: active CPEs, the DMA requests (copy-in /
copy-out, with sizes and strides so their transactions can be counted), the
Gload requests, compute instruction counts by type and their ILP, and the loop
bounds that say how often each is repeated on one CPE (Sec. III-D assumes loop
bounds are known statically). The YAML format is documented in
``examples/sw26010/*.yaml``; :func:`load_kernel` validates it and names the
file, line and field of any mistake.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.sw26010.processor import ProcessorSpec, resolve_processor
from pipeperf.sw26010.transactions import Geometry
from pipeperf.util.yamlio import Fields, Item, check_number, load_lines

DIRECTIONS = ("in", "out", "inout")
INSTRUCTION_TYPES = ("floating", "fixed", "spm", "div_sqrt")


@dataclass(frozen=True)
class DMARequest:
    """One copy intrinsic: all its arrays form one request (Sec. III-C).

    ``count`` is how many times one CPE issues it. ``inout`` (SWACC ``copy``)
    is a copy-in and a copy-out request of the same arrays.
    """

    name: str
    direction: str
    arrays: tuple[tuple[str, Geometry], ...]
    count: int

    @property
    def useful_bytes(self) -> int:
        return sum(g.useful_bytes for _, g in self.arrays)

    def mrt(self, trans_size: int) -> int:
        return sum(g.mrt(trans_size) for _, g in self.arrays)


@dataclass(frozen=True)
class GloadRequest:
    """A Gload (ld/st to main memory) request of at most 32 bytes."""

    name: str
    size: int
    count: int
    offset: int = 0

    def mrt(self, trans_size: int) -> int:
        return Geometry(self.size, (), self.offset).mrt(trans_size)


@dataclass(frozen=True)
class ComputeBlock:
    """A basic block (or loop body) executed ``count`` times by one CPE."""

    name: str
    count: float
    floating: float = 0.0
    fixed: float = 0.0
    spm: float = 0.0
    div_sqrt: float = 0.0
    ilp: float = 1.0

    def per_execution(self) -> tuple[float, float, float, float]:
        return (self.floating, self.fixed, self.spm, self.div_sqrt)


@dataclass
class KernelSpec:
    """A validated kernel description plus the processor it runs on."""

    name: str
    active_cpes: int
    dma: list[DMARequest]
    gload: list[GloadRequest]
    compute: list[ComputeBlock]
    processor: ProcessorSpec
    double_buffer: bool = False
    description: str = ""
    measured_us: float | None = None
    loops: dict[str, int] = field(default_factory=dict)
    source: str = "<memory>"

    def to_dict(self) -> dict[str, Any]:
        """The YAML form (repetitions already multiplied out into ``count``)."""
        out: dict[str, Any] = {"kernel": self.name}
        if self.description:
            out["description"] = self.description
        out["active_cpes"] = self.active_cpes
        if self.double_buffer:
            out["double_buffer"] = True
        if self.dma:
            out["dma"] = [{"name": r.name, "direction": r.direction, "count": r.count,
                           "arrays": [{"name": n, **g.to_dict()} for n, g in r.arrays]}
                          for r in self.dma]
        if self.gload:
            out["gload"] = [{"name": g.name, "size": g.size, "count": g.count,
                             **({"offset": g.offset} if g.offset else {})} for g in self.gload]
        out["compute"] = {"blocks": [
            {"name": b.name, "count": b.count, "ilp": b.ilp,
             **{t: v for t, v in zip(INSTRUCTION_TYPES, b.per_execution()) if v}}
            for b in self.compute]}
        if self.measured_us is not None:
            out["measured_us"] = self.measured_us
        return out


_TOP_KEYS = ["kernel", "description", "active_cpes", "double_buffer", "loops", "dma", "gload",
             "compute", "processor", "measured_us"]


def load_kernel(path: str | Path, processor_file: str | Path | None = None) -> KernelSpec:
    """Read and validate a kernel description YAML file."""
    return parse_kernel(load_lines(path, "spec", strict=True), path, processor_file)


def parse_kernel(data: Any, file: str | Path, processor_file: str | Path | None = None) -> KernelSpec:
    top = Fields(data, "", file)
    top.check_keys(_TOP_KEYS)
    name = top.string("kernel", required=True)
    overrides = top.mapping("processor")
    proc = resolve_processor(processor_file, overrides.data if overrides else None, file)
    active = top.number("active_cpes", required=True, integer=True, minimum=1,
                        maximum=proc.max_cpes)
    double_buffer = top.boolean("double_buffer")
    loops = _parse_loops(top)
    spm_limit = proc.spm_bytes // (2 if double_buffer else 1)
    dma = [_parse_dma(item, i, loops, proc, spm_limit, double_buffer)
           for i, item in enumerate(top.items("dma"))]
    gload = [_parse_gload(item, i, loops, proc) for i, item in enumerate(top.items("gload"))]
    compute_fields = top.mapping("compute", required=True)
    assert compute_fields is not None
    compute = _parse_compute(compute_fields, loops, proc)
    return KernelSpec(
        name=str(name), description=top.string("description", default="") or "",
        active_cpes=active, dma=dma, gload=gload, compute=compute, processor=proc,
        double_buffer=double_buffer, measured_us=top.number("measured_us", positive=True),
        loops=loops, source=str(file),
    )


def _parse_loops(top: Fields) -> dict[str, int]:
    loops_fields = top.mapping("loops")
    if loops_fields is None:
        return {}
    out = {}
    for key in loops_fields.data:
        out[str(key)] = loops_fields.number(key, integer=True, minimum=1)
    return out


def _repeat(spec: Fields, loops: dict[str, int]) -> int:
    """How many times one CPE executes an entry: ``count`` x product of ``per`` loop trips."""
    count = spec.number("count", default=1, integer=True, minimum=1)
    per = spec.data.get("per", [])
    if isinstance(per, str):
        per = [per]
    if not isinstance(per, list):
        raise spec.error("per", "expected a loop name or a list of loop names")
    for name in per:
        if name not in loops:
            known = ", ".join(loops) or "none defined under 'loops'"
            raise spec.error("per", f"unknown loop '{name}' (known: {known})")
    return count * prod(loops[n] for n in per)


_GEOMETRY_KEYS = ["size", "block", "stride", "blocks", "offset"]


def _parse_geometry(spec: Fields) -> Geometry:
    offset = spec.number("offset", default=0, integer=True, minimum=0)
    if spec.has("size"):
        for key in ("block", "stride", "blocks"):
            if spec.has(key):
                raise spec.error(key, "give either 'size' (contiguous) or 'block'/'stride'/'blocks'")
        return Geometry(spec.number("size", integer=True, positive=True), (), offset)
    if not spec.has("block"):
        raise spec.error("size", "missing required field (or give 'block', 'stride', 'blocks')")
    block = spec.number("block", integer=True, positive=True)
    strides = _int_list(spec, "stride")
    counts = _int_list(spec, "blocks")
    if len(strides) != len(counts):
        raise spec.error("blocks", f"needs one count per stride ({len(strides)}), got {len(counts)}")
    extent = block
    levels = []
    for stride, count in zip(strides, counts):
        if count > 1 and stride < extent:
            raise spec.error("stride", f"stride {stride} overlaps the previous level's {extent} bytes")
        levels.append((stride, count))
        extent = stride * (count - 1) + extent
    return Geometry(block, tuple(levels), offset)


def _int_list(spec: Fields, key: str) -> list[int]:
    raw = spec.require(key)
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        raise spec.error(key, "must not be empty")
    return [check_number(v, spec.error_for(key), integer=True, positive=True) for v in values]


def _parse_dma(item: Item, index: int, loops: dict[str, int], proc: ProcessorSpec,
               spm_limit: int, double_buffer: bool) -> DMARequest:
    spec = item.fields()
    spec.check_keys(["name", "direction", "per", "count", "arrays"] + _GEOMETRY_KEYS)
    name = spec.string("name", default=f"dma{index}") or f"dma{index}"
    direction = spec.string("direction", required=True, choices=DIRECTIONS)
    count = _repeat(spec, loops)
    if spec.has("arrays"):
        for key in _GEOMETRY_KEYS:
            if spec.has(key):
                raise spec.error(key, "put the geometry inside each entry of 'arrays'")
        arrays = []
        for j, sub in enumerate(spec.items("arrays", nonempty=True)):
            fields_ = sub.fields()
            fields_.check_keys(["name"] + _GEOMETRY_KEYS)
            arrays.append((fields_.string("name", default=f"array{j}") or f"array{j}",
                           _parse_geometry(fields_)))
    else:
        arrays = [(name, _parse_geometry(spec))]
    request = DMARequest(name, str(direction), tuple(arrays), count)
    if request.useful_bytes > spm_limit:
        why = " (half the SPM: double buffering keeps two buffers)" if double_buffer else ""
        raise item.error(f"request moves {request.useful_bytes} bytes, more than the "
                         f"{spm_limit}-byte SPM{why}; a DMA request must fit in SPM (Sec. II-A)")
    return request


def _parse_gload(item: Item, index: int, loops: dict[str, int], proc: ProcessorSpec) -> GloadRequest:
    spec = item.fields()
    spec.check_keys(["name", "size", "per", "count", "offset"])
    name = spec.string("name", default=f"gload{index}") or f"gload{index}"
    size = spec.number("size", required=True, integer=True, positive=True,
                       maximum=proc.gload_max_bytes)
    offset = spec.number("offset", default=0, integer=True, minimum=0)
    return GloadRequest(name, size, _repeat(spec, loops), offset)


def _parse_compute(spec: Fields, loops: dict[str, int], proc: ProcessorSpec) -> list[ComputeBlock]:
    spec.check_keys(["avg_ilp", "blocks"])
    avg_ilp = spec.number("avg_ilp", minimum=1, maximum=proc.max_ilp)
    blocks = []
    for i, item in enumerate(spec.items("blocks", required=True, nonempty=True)):
        b = item.fields()
        b.check_keys(["name", "per", "count", "ilp", "body", "integers"] + list(INSTRUCTION_TYPES))
        if b.has("body"):
            counts, ilp = _counted(b, proc)
        else:
            ilp = b.number("ilp", default=avg_ilp, minimum=1, maximum=proc.max_ilp)
            if ilp is None:
                raise b.error("ilp", "missing required field (or give compute.avg_ilp for all blocks)")
            counts = {t: b.number(t, default=0, minimum=0) for t in INSTRUCTION_TYPES}
        blocks.append(ComputeBlock(b.string("name", default=f"block{i}") or f"block{i}",
                                   _repeat(b, loops), ilp=float(ilp), **counts))
    return blocks


def _counted(b: Fields, proc: ProcessorSpec) -> tuple[dict[str, Any], float]:
    """A block's counts and ILP from its ``body`` (:mod:`pipeperf.sw26010.body`), which then may
    not also be typed."""
    from pipeperf.sw26010.body import count_body

    typed = [k for k in ("ilp", *INSTRUCTION_TYPES) if b.has(k)]
    if typed:
        raise b.error(typed[0], "give either a 'body' (counted) or typed counts and ILP, not both")
    body = b.string("body", required=True) or ""
    raw = b.data.get("integers", [])
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise b.error("integers", "expected a list of variable and array names")
    c = count_body(body, proc, raw, lambda msg: b.error("body", msg))
    return {"floating": c.floating, "fixed": c.fixed, "spm": c.spm, "div_sqrt": c.div_sqrt}, c.ilp


def require_positive_work(spec: KernelSpec) -> None:
    """A kernel with no memory requests and no instructions has nothing to predict."""
    if not spec.dma and not spec.gload and not any(any(b.per_execution()) for b in spec.compute):
        raise PipeperfError("kernel has no DMA, Gload or compute instructions", file=spec.source)

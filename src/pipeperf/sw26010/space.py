"""Tuning-space description: a SWACC loop nest with tunable tiles, unrolling and CPEs.

Sec. V-D tunes SWACC ``tile`` sizes (the DMA copy granularity, Sec. II-B) and
loop unroll factors. A space file describes the loop nest once — loops with
their trip counts (the first is distributed over CPEs), the arrays it copies
and their index loops, the instructions of one innermost iteration — plus the
values to try; :mod:`pipeperf.sw26010.derive` turns each variant into a kernel
description for the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from pathlib import Path
from typing import Any

from pipeperf.sw26010.processor import ProcessorSpec, resolve_processor
from pipeperf.util.yamlio import Fields, check_number, load_lines

ARRAY_DIRECTIONS = ("in", "out", "inout", "gload")


@dataclass(frozen=True)
class Loop:
    name: str
    trip: int


@dataclass(frozen=True)
class ArrayRef:
    """An array of the loop nest: DMA-copied per tile, or read by Gload per iteration."""

    name: str
    direction: str
    dims: tuple[str, ...] = ()       # loop indexing each dimension, outermost first (row-major)
    elem_bytes: int = 8
    halo: tuple[int, ...] = ()       # extra elements per dimension (stencil neighbours)
    gload_bytes: int = 0             # Gload: bytes per load
    loads: int = 0                   # Gload: loads per innermost iteration


@dataclass(frozen=True)
class Body:
    """Instructions of one innermost iteration before unrolling."""

    floating: float
    fixed: float
    spm: float
    div_sqrt: float
    ilp: float | dict[int, float]   # ILP of one iteration, or ILP per unroll factor
    loop_overhead: float            # fixed-point instructions per executed loop iteration
    max_ilp: float

    def ilp_for(self, unroll: int) -> float:
        """Unrolling by u gives u independent copies of the body (up to max_ilp)."""
        if isinstance(self.ilp, dict):
            return self.ilp[unroll]
        return min(self.max_ilp, self.ilp * unroll)


@dataclass
class TuningSpace:
    name: str
    loops: tuple[Loop, ...]
    arrays: tuple[ArrayRef, ...]
    body: Body
    tiles: dict[str, list[int]]
    unrolls: list[int]
    active_cpes: list[int]
    double_buffer: list[bool]
    processor: ProcessorSpec
    description: str = ""
    source: str = "<memory>"

    @property
    def size(self) -> int:
        return (prod(len(self.tiles[l.name]) for l in self.loops) * len(self.unrolls)
                * len(self.active_cpes) * len(self.double_buffer))

    def trip(self, name: str) -> int:
        return next(l.trip for l in self.loops if l.name == name)


def load_space(path: str | Path, processor_file: str | Path | None = None) -> TuningSpace:
    return parse_space(load_lines(path, "spec", strict=True), path, processor_file)


def parse_space(data: Any, file: str | Path, processor_file: str | Path | None = None) -> TuningSpace:
    top = Fields(data, "", file)
    top.check_keys(["kernel", "description", "loops", "arrays", "compute", "search", "processor"])
    name = top.string("kernel", required=True)
    overrides = top.mapping("processor")
    proc = resolve_processor(processor_file, overrides.data if overrides else None, file)

    loops: list[Loop] = []
    for item in top.items("loops", required=True, nonempty=True):
        f = item.fields()
        f.check_keys(["name", "trip"])
        lname = f.string("name", required=True)
        if any(l.name == lname for l in loops):
            raise f.error("name", f"duplicate loop '{lname}'")
        loops.append(Loop(str(lname), f.number("trip", required=True, integer=True, minimum=1)))
    names = [l.name for l in loops]

    arrays = [_parse_array(item, names, proc) for item in top.items("arrays", required=True, nonempty=True)]

    search = top.mapping("search", required=True)
    assert search is not None
    search.check_keys(["tile", "unroll", "active_cpes", "double_buffer"])
    tiles: dict[str, list[int]] = {l.name: ([1] if i == 0 else [l.trip]) for i, l in enumerate(loops)}
    tile_spec = search.mapping("tile")
    if tile_spec is not None:
        tile_spec.check_keys(names)
        for lname in tile_spec.data:
            trip = next(l.trip for l in loops if l.name == lname)
            tiles[str(lname)] = _int_choices(tile_spec, str(lname), 1, trip)
    unrolls = _int_choices(search, "unroll", 1, None) if search.has("unroll") else [1]
    active = (_int_choices(search, "active_cpes", 1, proc.max_cpes) if search.has("active_cpes")
              else [proc.cpes_per_cg])
    db = [False]
    if search.has("double_buffer"):
        raw = search.data["double_buffer"]
        values = raw if isinstance(raw, list) else [raw]
        if not values or not all(isinstance(v, bool) for v in values):
            raise search.error("double_buffer", "expected true, false or a list of them")
        db = sorted(set(values))

    compute = top.mapping("compute", required=True)
    assert compute is not None
    compute.check_keys(["floating", "fixed", "spm", "div_sqrt", "ilp", "loop_overhead"])
    counts = {t: compute.number(t, default=0, minimum=0) for t in ("floating", "fixed", "spm", "div_sqrt")}
    ilp: float | dict[int, float]
    raw_ilp = compute.require("ilp")
    if isinstance(raw_ilp, dict):
        ilp_fields = compute.mapping("ilp")
        assert ilp_fields is not None
        ilp = {}
        for key in raw_ilp:
            u = check_number(key, ilp_fields.error_for(str(key)), integer=True, minimum=1)
            ilp[u] = ilp_fields.number(key, minimum=1, maximum=proc.max_ilp)
        for u in set(unrolls) | {1}:
            if u not in ilp:
                raise compute.error("ilp", f"no ILP given for unroll factor {u}")
    else:
        ilp = compute.number("ilp", minimum=1, maximum=proc.max_ilp)
    body = Body(ilp=ilp, loop_overhead=compute.number("loop_overhead", default=0, minimum=0),
                max_ilp=proc.max_ilp, **counts)
    return TuningSpace(name=str(name), loops=tuple(loops), arrays=tuple(arrays), body=body,
                       tiles=tiles, unrolls=unrolls, active_cpes=active, double_buffer=db,
                       processor=proc, description=top.string("description", default="") or "",
                       source=str(file))


def _parse_array(item, names: list[str], proc: ProcessorSpec) -> ArrayRef:
    f = item.fields()
    f.check_keys(["name", "direction", "dims", "elem_bytes", "halo", "bytes", "loads"])
    name = str(f.string("name", required=True))
    direction = str(f.string("direction", required=True, choices=ARRAY_DIRECTIONS))
    if direction == "gload":
        for key in ("dims", "elem_bytes", "halo"):
            if f.has(key):
                raise f.error(key, "not used by a Gload array (give 'bytes' and 'loads')")
        size = f.number("bytes", required=True, integer=True, positive=True, maximum=proc.gload_max_bytes)
        return ArrayRef(name, direction, gload_bytes=size,
                        loads=f.number("loads", default=1, integer=True, minimum=1))
    for key in ("bytes", "loads"):
        if f.has(key):
            raise f.error(key, "only used by Gload arrays")
    raw = f.require("dims")
    if not isinstance(raw, list) or not raw:
        raise f.error("dims", "expected a non-empty list of loop names")
    for d in raw:
        if d not in names:
            raise f.error("dims", f"unknown loop '{d}' (loops: {', '.join(names)})")
    if len(set(raw)) != len(raw):
        raise f.error("dims", "a loop may index only one dimension")
    halo_raw = f.data.get("halo", [0] * len(raw))
    if not isinstance(halo_raw, list) or len(halo_raw) != len(raw):
        raise f.error("halo", f"expected a list of {len(raw)} integers (one per dimension)")
    halo = tuple(check_number(h, f.error_for("halo"), integer=True, minimum=0) for h in halo_raw)
    return ArrayRef(name, direction, tuple(str(d) for d in raw),
                    f.number("elem_bytes", default=8, integer=True, positive=True), halo)


def _int_choices(f: Fields, key: str, low: int, high: int | None) -> list[int]:
    raw = f.data[key]
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        raise f.error(key, "must not be empty")
    out = [check_number(v, f.error_for(key), integer=True, minimum=low, maximum=high) for v in values]
    return sorted(set(out))

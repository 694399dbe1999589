"""GPU specifications for the Pipeline model (Table 3's hardware characterization).

A spec gives the compute units P, the clock, the warp size, the issue limit IL,
occupancy limits, the subsystem set S and, per instruction class, mapper f:
class -> (subsystem, lambda = CPI, Lambda = latency). Specs live as YAML files in
``hardware/gpus/`` (every number with its source) or in a user's file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.util.yamlio import Document, load_document

GPU_DIR = Path(__file__).with_name("gpus")


@dataclass(frozen=True, slots=True)
class InstrClass:
    """Mapper f for one instruction class: its subsystem, CPI (lambda) and latency (Lambda)."""

    name: str
    subsystem: str
    cpi: float
    latency: float
    source: str = ""
    estimate: bool = False


@dataclass(frozen=True)
class GPUSpec:
    """Hardware characterization of one GPU (or toy machine) for the simulator and models."""

    name: str
    cores: int
    clock_ghz: float
    issue_limit: float
    classes: dict[str, InstrClass]
    warp_size: int = 32
    max_warps_per_core: int = 64
    max_groups_per_core: int = 32
    full_name: str = ""
    vendor: str = ""
    architecture: str = ""
    compute_capability: str = ""
    limits: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] = field(default_factory=dict)   # caches and DRAM (mapper g), see _MEMORY_KEYS
    launch: dict[str, Any] = field(default_factory=dict)   # overhead_us, block_dispatch_cycles
    atomics: dict[str, Any] = field(default_factory=dict)  # global_same_address_per_clk, ...
    sustained_clock_ghz: float | None = None               # the clock under load (else clock_ghz)
    sources: dict[str, str] = field(default_factory=dict)
    path: str = ""

    @property
    def subsystems(self) -> list[str]:
        """The subsystem set S, in first-use order."""
        seen: dict[str, None] = {}
        for c in self.classes.values():
            seen.setdefault(c.subsystem, None)
        return list(seen)

    def instr_class(self, name: str) -> InstrClass:
        try:
            return self.classes[name]
        except KeyError:
            raise PipeperfError(
                f"instruction class '{name}' is not defined for GPU '{self.name}' "
                f"(it has: {', '.join(sorted(self.classes))})", file=self.path or None) from None

    def with_classes(self, **overrides: InstrClass) -> "GPUSpec":
        """A copy with some classes replaced (what-if analyses, mapper g results)."""
        classes = dict(self.classes)
        classes.update(overrides)
        return replace(self, classes=classes)

    @property
    def run_clock_ghz(self) -> float:
        """The clock cycles are converted to seconds with: the sustained clock under load where
        the database gives one, else ``clock_ghz``."""
        return self.sustained_clock_ghz or self.clock_ghz

    def with_issue_limit(self, issue_limit: float) -> "GPUSpec":
        return replace(self, issue_limit=issue_limit)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "full_name": self.full_name, "cores": self.cores,
            "clock_ghz": self.clock_ghz, "issue_limit": self.issue_limit,
            "warp_size": self.warp_size, "max_warps_per_core": self.max_warps_per_core,
            "max_groups_per_core": self.max_groups_per_core,
            "classes": {k: {"subsystem": c.subsystem, "cpi": c.cpi, "latency": c.latency}
                        for k, c in self.classes.items()},
        }


def available_gpus() -> list[str]:
    """Names of the bundled GPU specs."""
    return sorted(p.stem for p in GPU_DIR.glob("*.yaml"))


def load_gpu(name_or_path: str | Path) -> GPUSpec:
    """Load a bundled GPU by name (e.g. ``pascal_gtx1060``) or a spec YAML by path."""
    text = str(name_or_path)
    p = Path(text)
    if p.suffix in (".yaml", ".yml", ".json") or p.exists():
        return parse_gpu(load_document(p))
    candidate = GPU_DIR / f"{text.lower()}.yaml"
    if candidate.exists():
        return parse_gpu(load_document(candidate))
    aliases = _aliases()
    if text.lower() in aliases:
        return parse_gpu(load_document(GPU_DIR / f"{aliases[text.lower()]}.yaml"))
    raise PipeperfError(f"unknown GPU '{text}': expected a spec file or one of {', '.join(available_gpus())}")


def _aliases() -> dict[str, str]:
    """Short names: the architecture ('pascal') and the part of the name after it ('gtx1060')."""
    out: dict[str, str] = {}
    for name in available_gpus():
        for piece in name.split("_"):
            out.setdefault(piece, name)
    return out


_TOP_KEYS = {"name", "full_name", "vendor", "architecture", "compute_capability", "cores", "clock_ghz",
             "issue_limit", "warp_size", "max_warps_per_core", "max_groups_per_core", "classes",
             "limits", "sources", "notes", "measured", "memory", "launch", "sustained_clock_ghz",
             "atomics"}
_CLASS_KEYS = {"subsystem", "cpi", "latency", "source", "estimate", "note"}


def parse_gpu(doc: Document) -> GPUSpec:
    """Validate a GPU spec document; every problem names the file and line."""
    d = doc.data
    if not isinstance(d, dict):
        raise doc.error("expected a mapping with name, cores, clock_ghz, issue_limit and classes")
    unknown = set(d) - _TOP_KEYS
    if unknown:
        raise doc.error(f"unknown key '{sorted(unknown)[0]}' in GPU spec (expected one of {', '.join(sorted(_TOP_KEYS))})", d)
    for key in ("name", "cores", "clock_ghz", "issue_limit", "classes"):
        if key not in d:
            raise doc.error(f"GPU spec lacks required key '{key}'", d)
    classes_raw = d["classes"]
    if not isinstance(classes_raw, dict) or not classes_raw:
        raise doc.error("'classes' must map class names to {subsystem, cpi, latency}", d)
    classes: dict[str, InstrClass] = {}
    for cname, c in classes_raw.items():
        if not isinstance(c, dict):
            raise doc.error(f"class '{cname}': expected a mapping {{subsystem, cpi, latency}}", classes_raw)
        bad = set(c) - _CLASS_KEYS
        if bad:
            raise doc.error(f"class '{cname}': unknown key '{sorted(bad)[0]}'", c)
        for key in ("subsystem", "cpi", "latency"):
            if key not in c:
                raise doc.error(f"class '{cname}' lacks '{key}'", c)
        cpi = _number(doc, c, "cpi", f"class '{cname}'")
        lat = _number(doc, c, "latency", f"class '{cname}'")
        if cpi <= 0:
            raise doc.error(f"class '{cname}': cpi must be > 0, got {cpi}", c)
        if lat < 0:
            raise doc.error(f"class '{cname}': latency must be >= 0, got {lat}", c)
        classes[str(cname)] = InstrClass(str(cname), str(c["subsystem"]), cpi, lat,
                                         str(c.get("source", "")), bool(c.get("estimate", False)))
    cores = _number(doc, d, "cores", "GPU spec")
    clock = _number(doc, d, "clock_ghz", "GPU spec")
    il = _number(doc, d, "issue_limit", "GPU spec")
    if cores < 1 or cores != int(cores):
        raise doc.error(f"'cores' must be a positive integer, got {cores}", d)
    if clock <= 0:
        raise doc.error(f"'clock_ghz' must be > 0, got {clock}", d)
    if il <= 0:
        raise doc.error(f"'issue_limit' must be > 0 (use .inf for none), got {il}", d)
    ints = {}
    for key, default in (("warp_size", 32), ("max_warps_per_core", 64), ("max_groups_per_core", 32)):
        v = d.get(key, default)
        if not isinstance(v, int) or v < 1:
            raise doc.error(f"'{key}' must be a positive integer, got {v!r}", d)
        ints[key] = v
    return GPUSpec(
        name=str(d["name"]), cores=int(cores), clock_ghz=clock, issue_limit=il, classes=classes,
        full_name=str(d.get("full_name", "")), vendor=str(d.get("vendor", "")),
        architecture=str(d.get("architecture", "")),
        compute_capability=str(d.get("compute_capability", "")),
        limits=dict(d.get("limits") or {}), memory=_memory(doc, d), sources=dict(d.get("sources") or {}),
        launch=_numbers(doc, d, "launch", _LAUNCH_KEYS), atomics=_numbers(doc, d, "atomics", _ATOMICS_KEYS),
        sustained_clock_ghz=_number(doc, d, "sustained_clock_ghz", "GPU spec") if "sustained_clock_ghz" in d else None,
        path=doc.path, **ints,
    )


#: the ``memory`` section: cache sizes for mapper g's cache models, achievable DRAM bandwidths
_MEMORY_KEYS = {"l1_bytes", "l1_line_bytes", "sector_bytes", "l2_bytes", "dram_peak_gbs", "dram_read_gbs",
                "dram_write_gbs", "dram_copy_gbs", "l2_bandwidth_bytes_per_clk"}
#: the ``launch`` section: fixed cost of a kernel launch, per-block dispatch cost on an SM
_LAUNCH_KEYS = {"overhead_us", "block_dispatch_cycles"}
#: the ``atomics`` section: same-address atomics' serialisation
_ATOMICS_KEYS = {"global_same_address_per_clk", "shared_same_address_cycles"}


def _memory(doc: Document, d: dict) -> dict[str, Any]:
    """The optional ``memory`` section (:data:`_MEMORY_KEYS`, each > 0, plus a ``source``)."""
    return _numbers(doc, d, "memory", _MEMORY_KEYS)


def _numbers(doc: Document, d: dict, key: str, allowed: set[str]) -> dict[str, Any]:
    """An optional section of positive numbers (and a free-text ``source``)."""
    m = d.get(key) or {}
    if not isinstance(m, dict):
        raise doc.error(f"'{key}' must be a mapping of {', '.join(sorted(allowed))}", d)
    bad = set(m) - allowed - {"source"}
    if bad:
        raise doc.error(f"{key}: unknown key '{sorted(bad)[0]}' (expected {', '.join(sorted(allowed))})", m)
    for k in set(m) & allowed:
        if _number(doc, m, k, key) < 0:
            raise doc.error(f"{key}: '{k}' must be >= 0", m)
    return dict(m)


def _number(doc: Document, mapping: dict, key: str, where: str) -> float:
    v = mapping[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
        raise doc.error(f"{where}: '{key}' must be a number, got {v!r}", mapping)
    return float(v)

"""GPU specifications for the Pipeline model (Table 3's hardware characterization).

A spec gives the compute units P, the clock, the warp size, the issue limit IL,
occupancy limits, the subsystem set S and, per instruction class, mapper f:
class -> (subsystem, lambda = CPI, Lambda = latency). Specs live as YAML files in
``hardware/gpus/`` (every number with its source) or in a user's file, given by path or found by
name in a user GPU folder (``$PIPEPERF_GPU_PATH``, then ``$XDG_CONFIG_HOME/pipeperf/gpus``; a bundled
name is never shadowed by a user file, see :func:`gpu_path`).

Besides the classes a spec may carry sourced machine facts for the memory and launch models:
``sustained_clock_ghz`` (the SM clock under sustained load; defaults to ``clock_ghz``), ``memory``
(cache sizes, line/sector bytes, DRAM peak and achievable stream bandwidths, whole-GPU L2
bytes/clk), ``launch`` (fixed kernel-launch overhead, per-SM block dispatch cost) and ``atomics``
(same-address atomic rates). ``sources`` maps each such field's dotted key (``clock_ghz``,
``memory.dram_read_gbs``) to its citation: a string, or ``{source: ..., estimate: true}`` for a
derived number (the string then says how it was derived).

A spec may say ``base: NAME`` (a bundled GPU) or ``base: PATH`` (relative to the file) and
override anything: the mappings ``classes``, ``memory``, ``launch``, ``atomics``, ``limits``,
``measured`` and ``sources`` merge key by key (a class named in the file replaces the base's
class of that name whole; ``key: null`` drops an inherited entry, and with it its citation),
every other key replaces the base's value.

Every file says which version of this format it is written in (``schema_version``,
:mod:`pipeperf.hardware.schema`; docs/gpu-schema.md): a newer one is refused, an older one migrated.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.hardware import schema
from pipeperf.util.files import read_text
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
    #: cycles a load that waits for an earlier load's fill (IDG.fill) still takes once that fill is
    #: in: its own L1 data cycles (mapper g's L1 hits); 0 for every other class
    after_fill: float = 0.0


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
    atomics: dict[str, Any] = field(default_factory=dict)  # same-address atomic rates, see _ATOMICS_KEYS
    peaks: dict[str, Any] = field(default_factory=dict)    # measured quantitative-roofline rates, _PEAKS_KEYS
    sustained_clock_ghz: float | None = None               # the clock under load; None -> clock_ghz
    base_clock_ghz: float | None = None                    # the vendor's base clock (reported, not simulated)
    sources: dict[str, str] = field(default_factory=dict)  # dotted field key -> citation
    estimates: frozenset[str] = frozenset()                # dotted keys whose numbers are derived
    base: str = ""                                         # the spec this one inherits from, if any
    path: str = ""

    def __post_init__(self) -> None:
        if self.sustained_clock_ghz is None:
            object.__setattr__(self, "sustained_clock_ghz", self.clock_ghz)

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

    def with_classes(self, **overrides: InstrClass) -> GPUSpec:
        """A copy with some classes replaced (what-if analyses, mapper g results)."""
        classes = dict(self.classes)
        classes.update(overrides)
        return replace(self, classes=classes)

    def clock_at(self, activity: float) -> float:
        """The SM clock of a kernel that keeps the arithmetic pipelines ``activity`` (0..1) busy:
        light loads (memory-bound kernels) run at the boost clock ``clock_ghz``, full arithmetic
        load at the measured ``sustained_clock_ghz`` (where power or thermal limits pull it down),
        linearly in between, as the power drawn grows with the arithmetic activity."""
        a = min(1.0, max(0.0, float(activity)))
        hi = max(self.clock_ghz, self.run_clock_ghz)    # a spec whose clock_ghz is a base clock: no drop
        return hi - (hi - self.run_clock_ghz) * a

    @property
    def run_clock_ghz(self) -> float:
        """The clock cycles are converted to seconds with under sustained load (``sustained_clock_ghz``)."""
        return self.sustained_clock_ghz or self.clock_ghz

    def fields(self) -> dict[str, float]:
        """Every numeric machine fact outside ``classes`` by dotted key (what ``sources`` cites)."""
        out: dict[str, float] = {k: getattr(self, k) for k in _NUMERIC_TOP if getattr(self, k) is not None}
        for section in _SECTIONS:
            for k, v in getattr(self, section).items():
                if k != "source" and isinstance(v, (int, float)) and not isinstance(v, bool):
                    out[f"{section}.{k}"] = v
        return out

    def with_issue_limit(self, issue_limit: float) -> GPUSpec:
        return replace(self, issue_limit=issue_limit)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "full_name": self.full_name, "cores": self.cores,
            "clock_ghz": self.clock_ghz, "issue_limit": self.issue_limit,
            "warp_size": self.warp_size, "max_warps_per_core": self.max_warps_per_core,
            "max_groups_per_core": self.max_groups_per_core,
            "sustained_clock_ghz": self.sustained_clock_ghz, "compute_capability": self.compute_capability,
            **({"base_clock_ghz": self.base_clock_ghz} if self.base_clock_ghz is not None else {}),
            "memory": {k: v for k, v in self.memory.items() if k != "source"}, "launch": dict(self.launch),
            "atomics": dict(self.atomics), **({"peaks": dict(self.peaks)} if self.peaks else {}),
            "sources": dict(self.sources), "estimates": sorted(self.estimates),
            **({"base": self.base} if self.base else {}),
            "classes": {k: {"subsystem": c.subsystem, "cpi": c.cpi, "latency": c.latency,
                            **({"after_fill": c.after_fill} if c.after_fill else {})}
                        for k, c in self.classes.items()},
        }


def available_gpus() -> list[str]:
    """Names of the bundled GPU specs."""
    return sorted(p.stem for p in GPU_DIR.glob("*.yaml"))


#: the per-user folders of GPU files: ``$PIPEPERF_GPU_PATH`` (os.pathsep-separated), then this one
#: under ``$XDG_CONFIG_HOME`` (default ``~/.config``)
USER_GPU_SUBDIR = Path("pipeperf") / "gpus"


def user_gpu_dirs() -> list[Path]:
    """The folders whose GPU files are available by name, in search order (the first folder holding
    a name wins, as on PATH): ``$PIPEPERF_GPU_PATH``'s, then ``$XDG_CONFIG_HOME/pipeperf/gpus``."""
    dirs = [Path(d).expanduser() for d in os.environ.get("PIPEPERF_GPU_PATH", "").split(os.pathsep) if d]
    config = os.environ.get("XDG_CONFIG_HOME")
    if not config:
        try:
            config = str(Path.home() / ".config")
        except RuntimeError:                         # no home folder: no per-user folder
            return dirs
    return dirs + [Path(config) / USER_GPU_SUBDIR]


def user_gpus() -> dict[str, Path]:
    """Every user GPU file by name (its file name without ``.yaml``/``.yml``), the first folder's
    file of a name winning; names of the bundled database included (:func:`gpu_path` skips those)."""
    out: dict[str, Path] = {}
    for d in user_gpu_dirs():
        if d.is_dir():
            for f in sorted(d.glob("*.y*ml")):
                if f.suffix in (".yaml", ".yml"):
                    out.setdefault(f.stem.lower(), f)
    return out


def all_gpus() -> dict[str, str]:
    """Every GPU available by name -> where it comes from (``bundled`` or the user folder holding it);
    a user file with a bundled name is left out (it is shadowed, see :func:`gpu_path`)."""
    out = dict.fromkeys(available_gpus(), "bundled")
    for name, f in user_gpus().items():
        if bundled_path(name) is None:
            out[name] = str(f.parent)
    return out


def shadowed_user_gpus() -> dict[Path, str]:
    """User GPU files not used because the bundled database has their name (or alias) -> that bundled GPU."""
    out = {}
    for name, f in user_gpus().items():
        bundled = bundled_path(name)
        if bundled is not None:
            out[f] = bundled.stem
    return out


def is_gpu_file(text: str) -> bool:
    """Whether a ``--gpu`` argument names a file (by its suffix, or as an existing path)."""
    p = Path(text)
    return p.suffix in (".yaml", ".yml", ".json") or p.exists()


def gpu_in_file(text: str, folder: Path) -> str:
    """A GPU as a file names it (a suite case, a tune space or batch): a GPU file's path, relative to
    ``folder`` (that file's, as its kernel's path), made absolute; a name as it is."""
    p = folder / text
    return str(p.resolve()) if is_gpu_file(str(p)) else text


def gpu_path(name: str) -> Path | None:
    """The spec file of a GPU name: the bundled database's name or alias first, then the user
    folders' (:func:`user_gpu_dirs`); None if neither has it. A bundled name is never shadowed: a
    user file of that name is not used, and a one-line warning says so (once per file)."""
    bundled = bundled_path(name)
    user = user_gpus().get(name.lower())
    if bundled is not None:
        if user is not None:
            _warn_shadowed(str(user), bundled.stem)
        return bundled
    return user


@functools.cache
def _warn_shadowed(path: str, bundled: str) -> None:
    print(f"pipeperf: warning: {path}: not used: '{Path(path).stem}' is the bundled GPU {bundled} "
          "(rename the file to use it by name, or give its path)", file=sys.stderr)


def _spec_file(text: str) -> Path:
    """The file a GPU argument (a path, or a name of :func:`gpu_path`) names; unknown: one-line error."""
    if is_gpu_file(text):
        return Path(text)
    path = gpu_path(text)
    if path is None:
        user = [n for n, where in all_gpus().items() if where != "bundled"]
        raise PipeperfError(f"unknown GPU '{text}': expected a spec file or one of {', '.join(available_gpus())}"
                            + (f"; user GPUs: {', '.join(user)}" if user else "")
                            + " (see 'pipeperf gpu list')")
    return path


def load_gpu(name_or_path: str | Path) -> GPUSpec:
    """Load a GPU by name (bundled, e.g. ``pascal_gtx1060``, or a user folder's) or a spec YAML by path."""
    return parse_gpu(_load(_spec_file(str(name_or_path))))


def _load(path: Path) -> Document:
    """A GPU file, parsed, from the JSON cache when this pipeperf and schema version parsed it before."""
    return load_document(path, cache=schema.cache_tag())


def spec_yaml(name_or_path: str | Path) -> str:
    """The whole spec of a GPU as one self-contained YAML file (its ``base`` chain merged in, every
    field and citation kept): what ``pipeperf gpu show NAME --yaml`` prints, for a user to copy
    and edit, and what :func:`load_gpu` loads back to the same spec."""
    import yaml

    path = _spec_file(str(name_or_path))
    doc = _resolve_base(load_document(path))
    parse_gpu(doc)                                       # only a valid spec is printed
    data = {schema.KEY: schema.SCHEMA_VERSION, **{k: v for k, v in doc.data.items() if k not in ("base", schema.KEY)}}
    header = (f"# GPU spec {data.get('name', path.stem)}, written by 'pipeperf gpu show --yaml' from {path.name}"
              + (f" (merged with its base {doc.data['base']})" if "base" in doc.data else "") + ".\n"
              "# Load it with --gpu FILE.yaml, or start a file of your own with 'base: FILE.yaml' and override.\n")
    return header + yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=True)


def bundled_path(name: str) -> Path | None:
    """The bundled spec file of a name or alias, or None."""
    candidate = GPU_DIR / f"{name.lower()}.yaml"
    if candidate.exists():
        return candidate
    aliases = _aliases()
    if name.lower() in aliases:
        return GPU_DIR / f"{aliases[name.lower()]}.yaml"
    return None


def _aliases() -> dict[str, str]:
    """Short names: the architecture ('pascal') and the part of the name after it ('gtx1060')."""
    out: dict[str, str] = {}
    for name in available_gpus():
        for piece in name.split("_"):
            out.setdefault(piece, name)
    return out


_TOP_KEYS = {schema.KEY, "name", "full_name", "vendor", "architecture", "compute_capability", "cores", "clock_ghz",
             "issue_limit", "warp_size", "max_warps_per_core", "max_groups_per_core", "classes",
             "limits", "sources", "notes", "measured", "memory", "launch", "atomics", "peaks",
             "sustained_clock_ghz", "base_clock_ghz", "base"}
_CLASS_KEYS = {"subsystem", "cpi", "latency", "source", "estimate", "note", "after_fill"}
#: the ``memory`` section: caches for mapper g's cache models, DRAM peak and achievable bandwidths
_MEMORY_KEYS = {"l1_bytes", "l1_line_bytes", "sector_bytes", "l2_bytes", "l2_section_bytes", "dram_peak_gbs",
                "dram_read_gbs", "dram_write_gbs", "dram_copy_gbs", "l2_bandwidth_bytes_per_clk", "dram_bytes"}
#: the ``launch`` section: fixed cost of a kernel launch, per-block dispatch cost on an SM
_LAUNCH_KEYS = {"overhead_us", "block_dispatch_cycles", "blocks_per_clk"}
#: the ``atomics`` section: whole-GPU same-address global atomics per clock (resolved in L2),
#: cycles per conflicting lane of a same-address shared-memory atomic
_ATOMICS_KEYS = {"global_same_address_per_clk", "shared_same_address_cycles"}
#: the ``peaks`` section: measured Table 3 rates of Konstantinidis' quantitative roofline (GFLOPS,
#: GIOPS, GOPS, GB/s; see :mod:`pipeperf.hardware.peaks`), which win over the rates derived from
#: the classes where a microbenchmark (mixbench) measured them
_PEAKS_KEYS = {"T_SP", "T_DP", "T_int", "T_add", "T_ldst", "B_mem"}
_SECTIONS = {"memory": _MEMORY_KEYS, "launch": _LAUNCH_KEYS, "atomics": _ATOMICS_KEYS, "peaks": _PEAKS_KEYS}
#: top-level numbers that ``sources`` cites by their own name
_NUMERIC_TOP = ("cores", "clock_ghz", "sustained_clock_ghz", "base_clock_ghz", "issue_limit", "warp_size",
                "max_warps_per_core", "max_groups_per_core")
#: mappings a spec with a ``base`` merges key by key with its base's
_MERGED = {"classes", "memory", "launch", "atomics", "peaks", "limits", "measured", "sources"}


class _ChainDocument(Document):
    """The merged data of a spec and its bases; errors name the file and line each value came from.

    ``origins`` maps the ``id`` of a mapping to the document it came from and the object whose
    line that document knows; lines are looked up only when asked (an error), as a Document's."""

    def __init__(self, data: Any, path: str, origins: dict[int, tuple[Document, Any]]):
        super().__init__(data, path, {})
        self._origins = origins

    def _where(self, obj: Any) -> tuple[str, int | None]:
        origin = self._origins.get(id(obj))
        if origin is None:
            return self.path, None
        part, source = origin
        return part.path, part.line_of(source)

    def line_of(self, obj: Any) -> int | None:
        return self._where(obj)[1]

    def error(self, message: str, obj: Any = None) -> PipeperfError:
        path, line = self._where(obj) if obj is not None else (self.path, None)
        return PipeperfError(message, file=path, line=line)


def _mappings(data: Any) -> list[Any]:
    """Every mapping in a parsed tree (the objects a Document knows the lines of)."""
    out, stack, seen = [], [data], set()
    while stack:
        x = stack.pop()
        if isinstance(x, dict) and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def _key_line(doc: Document, key: str) -> int | None:
    """The line of a top-level key (the loader keeps only mappings' lines)."""
    try:
        text = read_text(Path(doc.path))
    except PipeperfError:
        return doc.line_of(doc.data)
    m = re.search(rf"^{re.escape(key)}\s*:", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else doc.line_of(doc.data)


def _versioned(doc: Document) -> Document:
    """``doc`` in the current schema version (:func:`pipeperf.hardware.schema.migrate`); errors name
    the file and the line of its ``schema_version``."""
    d = doc.data
    if not isinstance(d, dict):
        return doc
    new = schema.migrate(d, lambda message: PipeperfError(message, file=doc.path, line=_key_line(doc, schema.KEY)))
    if new is d:
        return doc
    origins: dict[int, tuple[Document, Any]] = {id(m): (doc, m) for m in _mappings(d)}
    origins[id(new)] = (doc, d)
    return _ChainDocument(new, doc.path, origins)


def _resolve_base(doc: Document, chain: tuple[str, ...] = ()) -> Document:
    """``doc`` in the current schema version with its ``base`` chain merged in (or ``doc`` itself
    when it has neither)."""
    doc = _versioned(doc)
    d = doc.data
    if not isinstance(d, dict) or "base" not in d:
        return doc
    here = str(Path(doc.path).resolve())
    chain = chain + (here,)
    ref = d["base"]
    line = _key_line(doc, "base")
    if not isinstance(ref, str) or not ref:
        raise PipeperfError(f"'base' must name a bundled GPU or a spec file, got {ref!r}", file=doc.path, line=line)
    base_path: Path | None
    if ref.endswith((".yaml", ".yml", ".json")) or "/" in ref:
        base_path = Path(ref) if Path(ref).is_absolute() else Path(doc.path).parent / ref
        if not base_path.exists():
            raise PipeperfError(f"base spec file '{ref}' does not exist", file=doc.path, line=line)
    else:
        base_path = gpu_path(ref)
        if base_path is None:
            raise PipeperfError(f"unknown base GPU '{ref}' (expected a spec file or one of "
                                f"{', '.join(all_gpus())})", file=doc.path, line=line)
    if str(base_path.resolve()) in chain:
        names = " -> ".join(Path(p).name for p in chain + (str(base_path.resolve()),))
        raise PipeperfError(f"cycle of bases: {names}", file=doc.path, line=line)
    if "name" not in d:
        raise doc.error("a GPU spec with a 'base' must give its own 'name'", d)
    base = _resolve_base(_load(base_path), chain)
    if not isinstance(base.data, dict):
        raise base.error("expected a mapping with name, cores, clock_ghz, issue_limit and classes")
    origins: dict[int, tuple[Document, Any]] = {}
    for part in (base, doc):
        if isinstance(part, _ChainDocument):
            origins.update(part._origins)
        else:
            origins.update({id(m): (part, m) for m in _mappings(part.data)})
    merged = dict(base.data)
    removed: list[str] = []
    for key, value in d.items():
        if key == "base":
            continue
        old = merged.get(key)
        if key in _MERGED and isinstance(old, dict) and isinstance(value, dict):
            new = {**old, **value}
            for k in [k for k, v in value.items() if v is None]:   # `key: null` drops an inherited entry
                del new[k]
                if key in _SECTIONS and f"{key}.{k}" not in (d.get("sources") or {}):
                    removed.append(f"{key}.{k}")
            origins[id(new)] = (doc, value)
            merged[key] = new
        elif value is None and key in _NUMERIC_TOP:          # `key: null` at the top: the same
            merged.pop(key, None)
            if key not in (d.get("sources") or {}):
                removed.append(key)
        else:
            merged[key] = value
    if removed and isinstance(merged.get("sources"), dict):       # and the citation of a dropped field
        kept = {k: v for k, v in merged["sources"].items() if k not in removed}
        origins[id(kept)] = origins.get(id(merged["sources"]), (doc, None))
        merged["sources"] = kept
    merged["base"] = ref
    origins[id(merged)] = (doc, d)
    return _ChainDocument(merged, doc.path, origins)


def parse_gpu(doc: Document) -> GPUSpec:
    """Validate a GPU spec document (with its ``base`` chain merged in); every problem names the file and line."""
    doc = _resolve_base(doc)
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
        after = _number(doc, c, "after_fill", f"class '{cname}'") if "after_fill" in c else 0.0
        if after < 0:
            raise doc.error(f"class '{cname}': after_fill must be >= 0, got {after}", c)
        classes[str(cname)] = InstrClass(str(cname), str(c["subsystem"]), cpi, lat,
                                         str(c.get("source", "")), bool(c.get("estimate", False)), after)
    sections = {name: _section(doc, d, name, keys) for name, keys in _SECTIONS.items()}
    cores = _number(doc, d, "cores", "GPU spec")
    clock = _number(doc, d, "clock_ghz", "GPU spec")
    il = _number(doc, d, "issue_limit", "GPU spec")
    if cores < 1 or cores != int(cores):
        raise doc.error(f"'cores' must be a positive integer, got {cores}", d)
    if clock <= 0:
        raise doc.error(f"'clock_ghz' must be > 0, got {clock}", d)
    if il <= 0:
        raise doc.error(f"'issue_limit' must be > 0 (use .inf for none), got {il}", d)
    sustained = base_clock = None
    if "sustained_clock_ghz" in d:
        sustained = _number(doc, d, "sustained_clock_ghz", "GPU spec")
        if sustained <= 0:
            raise doc.error(f"'sustained_clock_ghz' must be > 0, got {sustained}", d)
    if d.get("base_clock_ghz") is not None:
        base_clock = _number(doc, d, "base_clock_ghz", "GPU spec")
        if base_clock <= 0:
            raise doc.error(f"'base_clock_ghz' must be > 0, got {base_clock}", d)
    ints: dict[str, int] = {}
    for key, default in (("warp_size", 32), ("max_warps_per_core", 64), ("max_groups_per_core", 32)):
        v = d.get(key, default)
        if not isinstance(v, int) or v < 1:
            raise doc.error(f"'{key}' must be a positive integer, got {v!r}", d)
        ints[key] = v
    sources, estimates = _sources(doc, d, sections)
    return GPUSpec(
        name=str(d["name"]), cores=int(cores), clock_ghz=clock, issue_limit=il, classes=classes,
        full_name=str(d.get("full_name", "")), vendor=str(d.get("vendor", "")),
        architecture=str(d.get("architecture", "")),
        compute_capability=str(d.get("compute_capability", "")),
        limits=dict(d.get("limits") or {}), path=doc.path, sustained_clock_ghz=sustained, base_clock_ghz=base_clock,
        base=str(d.get("base", "")), memory=sections["memory"], launch=sections["launch"],
        atomics=sections["atomics"], peaks=sections["peaks"], sources=sources, estimates=estimates,
        warp_size=ints["warp_size"], max_warps_per_core=ints["max_warps_per_core"],
        max_groups_per_core=ints["max_groups_per_core"],
    )


def _section(doc: Document, d: dict[str, Any], key: str, allowed: set[str]) -> dict[str, Any]:
    """An optional section of positive numbers (and, for old files, a free-text ``source``)."""
    m = d.get(key) or {}
    if not isinstance(m, dict):
        raise doc.error(f"'{key}' must be a mapping of {', '.join(sorted(allowed))}", d)
    bad = set(m) - allowed - {"source"}
    if bad:
        raise doc.error(f"{key}: unknown key '{sorted(bad)[0]}' (expected {', '.join(sorted(allowed))})", m)
    for k in set(m) & allowed:
        if _number(doc, m, k, key) < 0:
            raise doc.error(f"{key}: '{k}' must be >= 0, got {m[k]!r}", m)
    return dict(m)


def _sources(doc: Document, d: dict[str, Any],
             sections: dict[str, dict[str, Any]]) -> tuple[dict[str, str], frozenset[str]]:
    """``sources``: dotted key -> citation string or {source, estimate}; a ``memory.``/``launch.``/
    ``atomics.`` key must name a field of the spec (other keys, e.g. a fit's ``measurements``, are notes)."""
    raw = d.get("sources") or {}
    if not isinstance(raw, dict):
        raise doc.error("'sources' must map field names (e.g. memory.l2_bytes) to citations", d)
    known = set(_NUMERIC_TOP) | {"name", "full_name", "vendor", "architecture", "compute_capability"}
    present = {k for k in known if k in d} | {"sustained_clock_ghz"}
    present |= {f"{s}.{k}" for s, m in sections.items() for k in m if k != "source"}
    sources: dict[str, str] = {}
    estimates: set[str] = set()
    for key, value in raw.items():
        key = str(key)
        if key.split(".")[0] in _SECTIONS and key not in present:    # other keys are free-form notes
            raise doc.error(f"sources: '{key}' names no field of this GPU spec", raw)
        if isinstance(value, dict):
            bad = set(value) - {"source", "estimate"}
            if bad or not isinstance(value.get("source"), str):
                raise doc.error(f"sources: '{key}' must be a string or {{source: ..., estimate: true}}", value)
            sources[key] = value["source"]
            if value.get("estimate", False):
                estimates.add(key)
        elif isinstance(value, str):
            sources[key] = value
        else:
            raise doc.error(f"sources: '{key}' must be a string or {{source: ..., estimate: true}}", raw)
    return sources, frozenset(estimates)


def _number(doc: Document, mapping: dict[str, Any], key: str, where: str) -> float:
    v = mapping[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
        raise doc.error(f"{where}: '{key}' must be a number, got {v!r}", mapping)
    return float(v)

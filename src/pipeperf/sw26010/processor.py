"""SW26010 processor parameters (Table I) as a bundled, overridable spec.

The bundled file ``sw26010_cg.yaml`` cites Table I (or Sec. II-A) for every
number; kernels and the command line may override any of them, e.g. to model a
measured 34 GB/s instead of Table I's 32 GB/s.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from pipeperf.errors import PipeperfError
from pipeperf.util.yamlio import Fields, check_number, load_lines

BUNDLED = Path(__file__).with_name("sw26010_cg.yaml")

# name -> (must be an integer, lower bound is exclusive 0 / inclusive 0)
_INTEGER = {"trans_size", "cpes_per_cg", "max_core_groups", "spm_bytes", "gload_max_bytes"}
_ALLOW_ZERO = {"delta_delay", "l_base"}


@dataclass(frozen=True)
class ProcessorSpec:
    """Table I parameters of one SW26010 core group (units in field names)."""

    name: str
    mem_bw_gbs: float
    freq_ghz: float
    trans_size: int
    delta_delay: float
    l_base: float
    l_floating: float
    l_fixed: float
    l_spm: float
    l_div_sqrt: float
    max_ilp: float
    cpes_per_cg: int
    max_core_groups: int
    spm_bytes: int
    gload_max_bytes: int
    sources: Mapping[str, str] = None  # type: ignore[assignment]

    @classmethod
    def parameter_names(cls) -> list[str]:
        return [f.name for f in fields(cls) if f.name not in ("name", "sources")]

    @property
    def max_cpes(self) -> int:
        return self.cpes_per_cg * self.max_core_groups

    def cycles_to_us(self, cycles: Any) -> Any:
        return cycles / (self.freq_ghz * 1e3)

    def with_overrides(self, overrides: Mapping[str, Any], file: str | Path = "<overrides>",
                       path: str = "processor") -> ProcessorSpec:
        """A copy with some parameters replaced (validated like the bundled file)."""
        spec = Fields(overrides, path, file, getattr(overrides, "line", None))
        spec.check_keys(self.parameter_names())
        changes = {k: _check_param(k, overrides[k], spec) for k in overrides}
        sources = dict(self.sources or {})
        for key in changes:
            sources[key] = f"override from {file}"
        return replace(self, sources=sources, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {name: {"value": getattr(self, name), "source": (self.sources or {}).get(name, "")}
                for name in self.parameter_names()}


def _check_param(key: str, value: Any, spec: Fields) -> Any:
    return check_number(value, spec.error_for(key), integer=key in _INTEGER,
                        minimum=0 if key in _ALLOW_ZERO else None,
                        positive=key not in _ALLOW_ZERO)


def load_processor(path: str | Path | None = None) -> ProcessorSpec:
    """Load a processor file (default: the bundled Table I spec).

    Each parameter is either a plain number or ``{value: N, source: "..."}``.
    """
    path = Path(path) if path is not None else BUNDLED
    top = Fields(load_lines(path, "spec", strict=True), "", path)
    top.check_keys(["name", "parameters", "source"])
    params = top.mapping("parameters", required=True)
    assert params is not None
    names = ProcessorSpec.parameter_names()
    params.check_keys(names)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in names:
        params.require(key)
        raw = params.data[key]
        if isinstance(raw, dict):
            entry = params.mapping(key)
            assert entry is not None
            entry.check_keys(["value", "unit", "source"])
            values[key] = _check_param("value", entry.require("value"), entry)
            sources[key] = str(entry.data.get("source", ""))
        else:
            values[key] = _check_param(key, raw, params)
            sources[key] = str(top.data.get("source", path))
    name = top.string("name", default=str(path))
    return ProcessorSpec(name=name or str(path), sources=sources, **values)


_BUNDLED_CACHE: ProcessorSpec | None = None


def bundled_processor() -> ProcessorSpec:
    global _BUNDLED_CACHE
    if _BUNDLED_CACHE is None:
        _BUNDLED_CACHE = load_processor(BUNDLED)
    return _BUNDLED_CACHE


def resolve_processor(path: str | Path | None, overrides: Mapping[str, Any] | None,
                      file: str | Path) -> ProcessorSpec:
    """Base spec (bundled or ``path``) with a kernel file's overrides applied."""
    base = bundled_processor() if path is None else load_processor(path)
    if overrides:
        base = base.with_overrides(overrides, file=file)
    if base.max_ilp < 1:
        raise PipeperfError("processor max_ilp must be >= 1", file=file)
    return base

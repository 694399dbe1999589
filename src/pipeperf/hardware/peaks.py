"""Peak throughputs of a GPU: the device parameters of Konstantinidis' quantitative roofline.

Table 3 of the paper (seed 002) describes a target GPU by six micro-benchmarked rates. They live
in ``peaks.yaml`` beside this module (one entry per GPU, every number with its ``source``) or in
a user's YAML file of the same shape, e.g. one written by ``pipeperf gpu import-mixbench``:

.. code-block:: yaml

    gpus:
      my_gpu:
        description: free text
        aliases: [other_name]          # optional
        T_SP:   {value: 4521.0, source: "where the number comes from"}
        T_DP:   {value: 147.5,  source: "...", estimate: "why it is not measured"}
        T_int:  ...
        T_add:  ...
        T_ldst: ...
        B_mem:  ...

Units: T_SP and T_DP in GFLOPS and T_int in GIOPS, each counting a multiply-add as two
operations (what mixbench reports); T_add in GIOPS of integer additions and T_ldst in G shared-
memory load/store thread-instructions per second (one operation each); B_mem in GB/s (10^9 B/s).
"""

from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

import yaml

from pipeperf.errors import PipeperfError

PEAKS_FILE = Path(__file__).with_name("peaks.yaml")

# Paper notation (Table 3) -> attribute name, in the paper's order.
PARAMETERS: dict[str, str] = {
    "T_SP": "t_sp",
    "T_DP": "t_dp",
    "T_int": "t_int",
    "T_add": "t_add",
    "T_ldst": "t_ldst",
    "B_mem": "b_mem",
}
UNITS: dict[str, str] = {
    "T_SP": "GFLOPS",
    "T_DP": "GFLOPS",
    "T_int": "GIOPS",
    "T_add": "GIOPS",
    "T_ldst": "GOPS",
    "B_mem": "GB/s",
}


@dataclass(frozen=True)
class GpuPeaks:
    """Table 3's GPU parameters (G-units per second), each with where it came from."""

    name: str
    t_sp: float
    t_dp: float
    t_int: float
    t_add: float
    t_ldst: float
    b_mem: float
    description: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)
    estimates: Mapping[str, str] = field(default_factory=dict)

    def value(self, key: str) -> float:
        """Value of a parameter named in the paper's notation (``"T_SP"``, ``"B_mem"``...)."""
        return float(getattr(self, PARAMETERS[key]))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        for key in PARAMETERS:
            entry: dict[str, Any] = {"value": self.value(key), "unit": UNITS[key]}
            if key in self.sources:
                entry["source"] = self.sources[key]
            if key in self.estimates:
                entry["estimate"] = self.estimates[key]
            out[key] = entry
        return out


def peaks_to_yaml(peaks: list[GpuPeaks], header: str = "") -> str:
    """YAML text in the ``peaks.yaml`` shape, loadable again with :func:`load_peaks`."""
    gpus: dict[str, Any] = {}
    for p in peaks:
        entry: dict[str, Any] = {}
        if p.description:
            entry["description"] = p.description
        for key in PARAMETERS:
            item: dict[str, Any] = {"value": round(p.value(key), 6)}
            item["source"] = p.sources.get(key, "unknown")
            if key in p.estimates:
                item["estimate"] = p.estimates[key]
            entry[key] = item
        gpus[p.name] = entry
    body = yaml.safe_dump({"gpus": gpus}, sort_keys=False, width=100, allow_unicode=True)
    prefix = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return prefix + body


def _entry_to_peaks(name: str, entry: Any, file: Path) -> GpuPeaks:
    if not isinstance(entry, dict):
        raise PipeperfError(f"GPU entry {name!r} must be a mapping", file=file)
    values: dict[str, float] = {}
    sources: dict[str, str] = {}
    estimates: dict[str, str] = {}
    for key, attr in PARAMETERS.items():
        raw: Any
        item = entry.get(key)
        if item is None:
            raise PipeperfError(f"GPU {name!r}: missing parameter {key} ({UNITS[key]})", file=file)
        if isinstance(item, dict):
            raw = item.get("value")
            source = item.get("source")
            if not source:
                raise PipeperfError(f"GPU {name!r}: {key} has no 'source'", file=file)
            sources[key] = str(source)
            if item.get("estimate"):
                estimates[key] = str(item["estimate"])
        else:
            raise PipeperfError(
                f"GPU {name!r}: {key} must be {{value: ..., source: ...}}, got {item!r}", file=file
            )
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise PipeperfError(f"GPU {name!r}: {key} value {raw!r} is not a number", file=file) from None
        if not math.isfinite(number) or number <= 0:
            raise PipeperfError(f"GPU {name!r}: {key} must be positive and finite, got {raw!r}",
                                file=file)
        values[attr] = number
    return GpuPeaks(
        name=name,
        description=str(entry.get("description", "")),
        sources=sources,
        estimates=estimates,
        **values,
    )


def read_peaks_file(path: str | Path) -> dict[str, GpuPeaks]:
    """All GPU entries of a peaks YAML file, keyed by name and by alias."""
    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text())
    except OSError as exc:
        raise PipeperfError(f"cannot read GPU peaks file: {exc.strerror}", file=file) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise PipeperfError(f"invalid YAML: {getattr(exc, 'problem', exc)}", file=file, line=line) from exc
    if not isinstance(data, dict) or not isinstance(data.get("gpus"), dict) or not data["gpus"]:
        raise PipeperfError("a GPU peaks file needs a non-empty top-level 'gpus:' mapping",
                            file=file)
    table: dict[str, GpuPeaks] = {}
    for name, entry in data["gpus"].items():
        peaks = _entry_to_peaks(str(name), entry, file)
        table[str(name)] = peaks
        for alias in (entry.get("aliases") or []):
            table[str(alias)] = peaks
    return table


@lru_cache(maxsize=1)
def _builtin() -> dict[str, GpuPeaks]:
    return read_peaks_file(PEAKS_FILE)


def builtin_peaks() -> dict[str, GpuPeaks]:
    """The shipped peaks of the GPUs outside the GPU database (``peaks.yaml``: the quantitative
    roofline paper's own GPUs), keyed by name and alias; every database GPU's come from its entry."""
    return dict(_builtin())


def builtin_names() -> list[str]:
    """Canonical names (no aliases) of the GPUs that have only roofline peaks, in file order."""
    seen: list[str] = []
    for peaks in builtin_peaks().values():
        if peaks.name not in seen:
            seen.append(peaks.name)
    return seen


#: Table 3 parameter -> (the Pipeline database's classes that give it, first found wins;
#: operations per lane-instruction)
_FROM_CLASSES: dict[str, tuple[tuple[str, ...], int]] = {
    "T_SP": (("fma_f32", "mul_f32", "add_f32"), 2),
    "T_DP": (("fma_f64", "mul_f64", "add_f64"), 2),
    "T_int": (("mul_s32", "add_s32"), 2),
    "T_add": (("add_s32", "mul_s32"), 1),
    "T_ldst": (("ld_shared_f32", "st_shared"), 1),
}


def peaks_from_spec(name: str) -> GpuPeaks:
    """Table 3's parameters of a GPU of the Pipeline model's database (``pipeperf gpu list``),
    so the quantitative roofline and ``analyze`` read one GPU database. A rate the entry's
    ``peaks:`` section gives (a microbenchmark's measurement) is taken as it is; any other rate is
    SMs x the clock under full arithmetic load (``sustained_clock_ghz``) x 32 lanes / the class's
    CPI (x 2 for a multiply-add), and B_mem the achievable read bandwidth where the database has
    one, else the vendor peak. Each parameter's source names the field or class it came from."""
    from pipeperf.hardware.spec import load_gpu

    g = load_gpu(name)
    clock = g.clock_at(1.0)
    values: dict[str, float] = {}
    sources: dict[str, str] = {}
    estimates: dict[str, str] = {}
    for key, attr in PARAMETERS.items():
        if key in g.peaks:
            values[attr] = float(g.peaks[key])
            sources[key] = f"GPU database entry {g.name}, peaks.{key}: {g.sources.get(f'peaks.{key}', '')}"
            if f"peaks.{key}" in g.estimates:
                estimates[key] = "derived"
        elif key == "B_mem":
            m = g.memory
            which = next((k for k in ("dram_read_gbs", "dram_copy_gbs", "dram_peak_gbs") if m.get(k)), None)
            if which is None:
                raise PipeperfError(f"GPU {name!r} has no DRAM bandwidth (memory.dram_read_gbs or dram_peak_gbs) "
                                    "for the quantitative roofline")
            values[attr] = float(m[which])
            sources[key] = f"derived from the GPU database entry {g.name}: memory.{which} = {m[which]:g} GB/s"
            if which == "dram_peak_gbs":
                estimates[key] = "vendor peak"
        else:
            classes, ops = _FROM_CLASSES[key]
            c = next((g.classes[k] for k in classes if k in g.classes), None)
            if c is None:
                raise PipeperfError(f"GPU {name!r} has none of the classes {', '.join(classes)} that give {key} "
                                    "for the quantitative roofline")
            values[attr] = g.cores * clock * g.warp_size / c.cpi * ops
            sources[key] = (f"derived from the GPU database entry {g.name}: {g.cores} SMs x {clock:g} GHz x "
                            f"{g.warp_size}/{c.cpi:g} (class {c.name}){' x 2 (multiply-add)' if ops == 2 else ''}; "
                            f"class source: {c.source}")
            if c.estimate:
                estimates[key] = "database estimate"
    return GpuPeaks(name=g.name, description=f"{g.full_name or g.name} (from the GPU database)",
                    sources=sources, estimates=estimates, **values)


def _is_gpu_spec(path: Path) -> bool:
    """Whether a YAML file is a Pipeline-model GPU spec (``classes`` or ``base``) rather than a peaks file."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return False                       # read_peaks_file says why, in one line
    return isinstance(data, dict) and "gpus" not in data and ("classes" in data or "base" in data)


def has_spec(arg: str) -> bool:
    """Whether a ``--gpu`` argument names a Pipeline GPU spec (a database or user GPU, or a spec
    file), which ``analyze`` can model, rather than only Table 3 peaks."""
    from pipeperf.hardware.spec import gpu_path

    p = Path(arg)
    if arg.endswith((".yaml", ".yml")) or p.is_file():
        return p.is_file() and _is_gpu_spec(p)
    return gpu_path(arg.strip().lower()) is not None


def load_peaks(spec: str) -> GpuPeaks:
    """A GPU by peaks-table name/alias, by a name of the Pipeline GPU database (its peaks
    derived: :func:`peaks_from_spec`), or from a YAML file (``FILE.yaml`` or ``FILE.yaml:NAME``): a
    peaks file, or a GPU spec file (its peaks derived the same way)."""
    path_part, _, entry_name = spec.partition(".yaml:")
    if entry_name:
        path_part += ".yaml"
    candidate = Path(path_part)
    looks_like_file = spec.endswith((".yaml", ".yml")) or bool(entry_name) or candidate.is_file()
    if looks_like_file:
        if not candidate.is_file():
            raise PipeperfError("no such GPU peaks file", file=candidate)
        if not entry_name and _is_gpu_spec(candidate):   # a Pipeline GPU file (--gpu takes one everywhere)
            return peaks_from_spec(str(candidate))
        table = read_peaks_file(candidate)
        names = sorted({p.name for p in table.values()})
        if entry_name:
            if entry_name not in table:
                raise PipeperfError(f"no GPU {entry_name!r} in this file (it has: {', '.join(names)})",
                                    file=candidate)
            return table[entry_name]
        if len(names) != 1:
            raise PipeperfError(f"file holds several GPUs ({', '.join(names)}); use FILE.yaml:NAME",
                                file=candidate)
        return table[names[0]]
    table = builtin_peaks()
    key = spec.strip().lower()
    from pipeperf.hardware.spec import available_gpus, gpu_path

    if gpu_path(key) is not None:              # a database name or alias (v100, h100 ...), or a user GPU
        return peaks_from_spec(key)
    if key in table:
        return table[key]
    raise PipeperfError(
        f"unknown GPU {spec!r} for the quantitative roofline; known: {', '.join(builtin_names())}, and the "
        f"GPU database's {', '.join(available_gpus())} (or give a peaks YAML file, e.g. from "
        "'pipeperf gpu import-mixbench')"
    )

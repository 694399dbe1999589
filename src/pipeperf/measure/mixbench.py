"""Micro-benchmark output -> the GPU parameters of the quantitative roofline (Table 3).

Two formats:

* mixbench (github.com/ekondis/mixbench): a "Device specifications" block, a ``CSV data`` ruler,
  two header lines (``Experiment ID, Single Precision ops,,,, Double precision ops,,,, ...`` and
  ``Compute iters, Flops/byte, ex.time, GFLOPS, GB/sec, ...``), one row per compute-iteration
  count, a closing ruler. The groups (3 to 5: SP, DP, HP, Int...) are mapped from the first header
  line. Fixed-width numbers may run together after their comma (``,16371.37,404.23``);
  unsupported types print ``0.00, inf, inf``. We take measured maxima: T_SP, T_DP, T_int from
  their groups' GFLOPS/GIOPS, B_mem from the largest GB/sec of any group. mixbench measures
  neither integer-add nor shared-memory throughput, so T_add and T_ldst must be supplied.
* Konstantinidis' gpuroofperf-toolkit bench CSV: one row per GPU under the header
  "GPU","GFLOPS - SP","GFLOPS - DP","GIOPS - MAD","GBSEC - DRAM","GBSEC - L2","GOPS - SHMEM",
  "GIOPS - ADD", which holds all six parameters.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.hardware.peaks import PARAMETERS, GpuPeaks
from pipeperf.measure.csvnumbers import csv_records, parse_number

_UNMEASURED = {"T_add": "integer add", "T_ldst": "shared-memory load/store"}
_GROUPS = (("single", "sp"), ("double", "dp"), ("half", "hp"), ("integer", "int"))


@dataclass
class MixbenchResult:
    """Measured maxima of one mixbench run."""

    device: str
    peaks: dict[str, float]  # group ("sp", "dp", "hp", "int") -> max GFLOPS / GIOPS
    b_mem: float  # max GB/s over all groups
    b_mem_where: str  # which group and iteration gave it
    rows: int
    clock_mhz: float | None = None
    theoretical_bandwidth: float | None = None  # the header's figure, for a sanity check only
    warnings: list[str] = field(default_factory=list)


def _spec(text: str, label: str) -> str | None:
    match = re.search(rf"^\s*{re.escape(label)}:\s*(.+?)\s*$", text, re.MULTILINE)
    return match.group(1) if match else None


def parse_mixbench(text: str, file: str = "<mixbench>") -> MixbenchResult:
    """Maxima of a mixbench run's CSV block."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("Experiment ID")), None)
    if start is None or start + 1 >= len(lines):
        raise PipeperfError("not mixbench output: no 'Experiment ID, ...' header line", file=file)
    groups_line, columns_line = lines[start].split(","), lines[start + 1].split(",")
    if not columns_line[0].strip().lower().startswith("compute iters"):
        raise PipeperfError("mixbench header: second line should start with 'Compute iters'",
                            file=file, line=start + 2)
    width = len(columns_line)
    if (width - 1) % 4 != 0:
        raise PipeperfError(f"mixbench header: {width - 1} data columns, not groups of 4",
                            file=file, line=start + 2)
    groups: list[str] = []
    for g in range((width - 1) // 4):
        label = groups_line[1 + 4 * g].strip().lower() if 1 + 4 * g < len(groups_line) else ""
        key = next((k for word, k in _GROUPS if word in label), None)
        if key is None:
            raise PipeperfError(f"mixbench header: unknown operation group {label!r}",
                                file=file, line=start + 1)
        names = [c.strip().lower() for c in columns_line[1 + 4 * g: 5 + 4 * g]]
        if not (names[2] in ("gflops", "giops") and names[3] == "gb/sec"):
            raise PipeperfError(f"mixbench header: group {label!r} columns are {names}, expected "
                                "../byte, ex.time, GFLOPS|GIOPS, GB/sec", file=file, line=start + 2)
        groups.append(key)
    best = dict.fromkeys(groups, 0.0)
    b_mem, b_where, rows = 0.0, "", 0
    for number in range(start + 2, len(lines)):
        line = lines[number].strip()
        if not line:
            continue
        if line.startswith("---"):
            break
        fields = line.split(",")
        if len(fields) != width:
            raise PipeperfError(f"malformed mixbench row: {len(fields)} fields, header has {width}",
                                file=file, line=number + 1)
        values = [parse_number(f, ".", file, number + 1, what="mixbench value") for f in fields]
        if any(v is None for v in values):
            raise PipeperfError("malformed mixbench row: empty field", file=file, line=number + 1)
        rows += 1
        for g, key in enumerate(groups):
            ops, bandwidth = values[3 + 4 * g], values[4 + 4 * g]
            if ops is not None and math.isfinite(ops):
                best[key] = max(best[key], ops)
            if bandwidth is not None and math.isfinite(bandwidth) and bandwidth > b_mem:
                b_mem, b_where = bandwidth, f"{key} group, {fields[0].strip()} compute iterations"
    if rows == 0:
        raise PipeperfError("mixbench output has a header but no data rows", file=file)
    result = MixbenchResult(
        device=_spec(text, "Device") or "unknown device",
        peaks={k: v for k, v in best.items() if v > 0},
        b_mem=b_mem,
        b_mem_where=b_where,
        rows=rows,
    )
    clock = _spec(text, "GPU clock rate")
    if clock and (m := re.match(r"([0-9.]+)", clock)):
        result.clock_mhz = float(m.group(1))
    bandwidth_text = _spec(text, "Memory bandwidth")
    if bandwidth_text and (m := re.match(r"([0-9.]+)", bandwidth_text)):
        result.theoretical_bandwidth = float(m.group(1))
        if result.b_mem > 1.02 * result.theoretical_bandwidth:
            result.warnings.append(
                f"measured {result.b_mem:.2f} GB/s exceeds the header's theoretical "
                f"{result.theoretical_bandwidth:.2f} GB/s: caches served part of the traffic "
                "(use mixbench's read-only variant with a large buffer)")
    if b_mem <= 0:
        raise PipeperfError("mixbench output has no finite GB/sec value", file=file)
    return result


def default_name(device: str) -> str:
    """Database-style lowercase snake name of a device string."""
    name = re.sub(r"[^a-z0-9]+", "_", device.lower()).strip("_")
    return name or "gpu"


def peaks_from_mixbench(result: MixbenchResult, file: str, name: str | None = None,
                        t_add: float | None = None, t_ldst: float | None = None,
                        like: GpuPeaks | None = None) -> GpuPeaks:
    """Table 3 parameters: mixbench maxima plus T_add/T_ldst given or copied from ``like``."""
    sources: dict[str, str] = {}
    estimates: dict[str, str] = {}
    values: dict[str, float] = {}
    for key, group, what in (("T_SP", "sp", "SP GFLOPS"), ("T_DP", "dp", "DP GFLOPS"),
                             ("T_int", "int", "integer GIOPS")):
        if group not in result.peaks:
            raise PipeperfError(f"mixbench output has no {what} (group missing or unsupported); "
                                f"{key} is required", file=file)
        values[key] = result.peaks[group]
        sources[key] = f"mixbench {file}: max {what} over {result.rows} runs"
    values["B_mem"] = result.b_mem
    sources["B_mem"] = f"mixbench {file}: max GB/sec ({result.b_mem_where})"
    for key, given in (("T_add", t_add), ("T_ldst", t_ldst)):
        if given is not None:
            values[key] = float(given)
            sources[key] = "given on the command line"
        elif like is not None:
            values[key] = like.value(key)
            sources[key] = f"copied from {like.name}: {like.sources.get(key, 'unknown')}"
            estimates[key] = f"not measured on this GPU; value of {like.name}"
        else:
            raise PipeperfError(
                f"mixbench does not measure {key} ({_UNMEASURED[key]} throughput); give --t-add "
                "and --t-ldst, or --like GPU to copy them", file=file)
    for key, number in values.items():
        if not math.isfinite(number) or number <= 0:
            raise PipeperfError(f"{key} must be positive, got {number}", file=file)
    return GpuPeaks(
        name=name or default_name(result.device),
        description=f"{result.device}, imported from mixbench output {Path(file).name}",
        sources=sources,
        estimates=estimates,
        **{PARAMETERS[k]: v for k, v in values.items()},
    )


# gpuroofperf-toolkit bench CSV column -> Table 3 parameter
GPUROOFPERF_COLUMNS: dict[str, str] = {
    "GFLOPS - SP": "T_SP",
    "GFLOPS - DP": "T_DP",
    "GIOPS - MAD": "T_int",
    "GIOPS - ADD": "T_add",
    "GOPS - SHMEM": "T_ldst",
    "GBSEC - DRAM": "B_mem",
}


def parse_gpuroofperf_csv(text: str, file: str = "<gpuroofperf csv>") -> list[GpuPeaks]:
    """Every GPU row of a gpuroofperf-toolkit bench CSV."""
    records = csv_records(text, file)
    if not records:
        raise PipeperfError("empty gpuroofperf CSV", file=file)
    header_line, header = records[0]
    names = [h.strip().strip('"') for h in header]
    missing = [c for c in ("GPU", *GPUROOFPERF_COLUMNS) if c not in names]
    if missing:
        raise PipeperfError(f"gpuroofperf CSV header lacks {', '.join(missing)}", file=file,
                            line=header_line)
    out = []
    for line, fields in records[1:]:
        if len(fields) != len(names):
            raise PipeperfError(f"malformed gpuroofperf CSV row: {len(fields)} fields, header has "
                                f"{len(names)}", file=file, line=line)
        device = fields[names.index("GPU")].strip()
        values = {}
        for column, key in GPUROOFPERF_COLUMNS.items():
            value = parse_number(fields[names.index(column)], ".", file, line, what=column)
            if value is None or not math.isfinite(value) or value <= 0:
                raise PipeperfError(f"{column} must be a positive number", file=file, line=line)
            values[PARAMETERS[key]] = value
        sources = {key: f"gpuroofperf-toolkit bench {file}, column {column!r}"
                   for column, key in GPUROOFPERF_COLUMNS.items()}
        out.append(GpuPeaks(name=default_name(device), description=f"{device}, gpuroofperf bench",
                            sources=sources, t_sp=values["t_sp"], t_dp=values["t_dp"], t_int=values["t_int"],
                            t_add=values["t_add"], t_ldst=values["t_ldst"], b_mem=values["b_mem"]))
    if not out:
        raise PipeperfError("gpuroofperf CSV has no GPU rows", file=file)
    return out


def read_benchmark_file(path: str | Path, name: str | None = None, t_add: float | None = None,
                        t_ldst: float | None = None,
                        like: GpuPeaks | None = None) -> tuple[list[GpuPeaks], list[str]]:
    """GPU peaks from a mixbench log or a gpuroofperf CSV (detected), and warnings."""
    file = Path(path)
    try:
        text = file.read_text(errors="replace")
    except OSError as exc:
        raise PipeperfError(f"cannot read benchmark output: {exc.strerror}", file=file) from exc
    first = next((l for l in text.splitlines() if l.strip()), "")
    if "GFLOPS - SP" in first:
        peaks = parse_gpuroofperf_csv(text, str(file))
        if name is not None:
            if len(peaks) != 1:
                raise PipeperfError("--name needs a file with a single GPU row", file=file)
            peaks = [replace(peaks[0], name=name)]
        return peaks, []
    result = parse_mixbench(text, str(file))
    return [peaks_from_mixbench(result, str(file), name, t_add, t_ldst, like)], result.warnings

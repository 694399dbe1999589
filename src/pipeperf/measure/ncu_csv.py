"""Nsight Compute CSV -> Table 1 metrics of the quantitative roofline.

Collect the counts on the reference GPU with (one line; ``-k regex:NAME`` limits the kernels)::

    ncu --csv --print-units base --metrics \\
    smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,\\
    smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,\\
    smsp__sass_thread_inst_executed_op_memory_pred_on.sum,\\
    smsp__inst_executed.sum,\\
    smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,\\
    smsp__sass_thread_inst_executed_op_fp64_pred_on.sum,\\
    smsp__sass_thread_inst_executed_op_integer_pred_on.sum,\\
    dram__sectors_read.sum,dram__sectors_write.sum,\\
    smsp__sass_thread_inst_executed_op_fp16_pred_on.sum,gpu__time_duration.sum \\
    ./app ARGS > profile.csv

(or save a report with ``-o prof`` and export it with ``ncu --import prof.ncu-rep --csv
--page raw > profile.csv``). Both ncu layouts are read: the long one (one row per launch x
metric: "ID", ..., "Kernel Name", ..., "Metric Name", "Metric Unit", "Metric Value") and the raw
wide one (one column per metric, second row = units). ``==PROF==`` lines are skipped; the
application's own output must not be inside the table (use the ``--import`` route if it prints).
The mapping nvprof -> ncu follows NVIDIA's "Metric comparison" table (REFERENCE.md).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure.csvnumbers import read_csv_text, csv_records, detect_decimal, parse_number
from pipeperf.models.quantitative import SECTOR_BYTES, KernelMetrics

# ncu metric -> KernelMetrics attribute            (Table 1 / nvprof name)
NCU_METRICS: dict[str, str] = {
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "m_fma32",  # flop_count_sp_fma
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": "m_fma64",  # flop_count_dp_fma
    "smsp__sass_thread_inst_executed_op_memory_pred_on.sum": "m_ldst",  # inst_compute_ld_st
    "smsp__inst_executed.sum": "m_inst",  # inst_executed (warp level)
    "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum": "m_fp32",  # inst_fp_32
    "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum": "m_fp64",  # inst_fp_64
    "smsp__sass_thread_inst_executed_op_integer_pred_on.sum": "m_int",  # inst_integer
    "dram__sectors_read.sum": "m_tran_r",  # dram_read_transactions
    "dram__sectors_write.sum": "m_tran_w",  # dram_write_transactions
}
# Accepted instead of the sector counts (bytes / 32 = sectors).
NCU_BYTE_ALTERNATIVES: dict[str, str] = {
    "dram__bytes_read.sum": "m_tran_r",
    "dram__bytes_write.sum": "m_tran_w",
}
NCU_FP16 = "smsp__sass_thread_inst_executed_op_fp16_pred_on.sum"  # inst_fp_16 (optional)
NCU_DURATION = "gpu__time_duration.sum"  # optional, reported as measured_seconds
NCU_COMMAND = (
    "ncu --csv --print-units base --metrics "
    + ",".join([*NCU_METRICS, NCU_FP16, NCU_DURATION])
    + " ./app ARGS > profile.csv"
)

_INFO_COLUMNS = {"Device": "device", "CC": "cc", "Grid Size": "grid", "Block Size": "block"}
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_COUNT_UNITS = ("inst", "sector", "byte", "warp", "thread", "request")
_TIME_UNITS = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
               "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _scale(unit: str, metric: str, file: str, line: int) -> float:
    """Multiplier from a printed unit to the base unit (count, byte or second)."""
    unit = unit.strip()
    if metric == NCU_DURATION:
        if unit in _TIME_UNITS:
            return _TIME_UNITS[unit]
        raise PipeperfError(f"{metric}: unknown time unit {unit!r}", file=file, line=line)
    for base in _COUNT_UNITS:
        if unit.endswith(base) and unit[: -len(base)] in _PREFIX:
            return _PREFIX[unit[: -len(base)]]
    if unit in ("", "#"):
        return 1.0
    raise PipeperfError(f"{metric}: unexpected unit {unit!r} for a count (re-export with "
                        "--print-units base)", file=file, line=line)


class _Launch:
    def __init__(self, launch_id: str, kernel: str, info: dict[str, str]):
        self.launch_id = launch_id
        self.kernel = kernel
        self.info = info
        self.values: dict[str, tuple[str, str, int]] = {}  # metric -> (unit, raw value, line)


def read_ncu_csv(path: str | Path) -> list[KernelMetrics]:
    """Table 1 metrics of every kernel launch in an ncu CSV export (long or raw layout)."""
    return parse_ncu_csv(read_csv_text(path, "ncu CSV"), str(path))


def parse_ncu_csv(text: str, file: str = "<ncu csv>") -> list[KernelMetrics]:
    records = csv_records(text, file)
    for index, (_line, fields) in enumerate(records):
        names = [f.strip() for f in fields]
        if "Metric Name" in names and "Metric Value" in names:
            launches = _read_long(records[index:], file)
            break
        if ("Kernel Name" in names or "Function Name" in names) and any("__" in n for n in names):
            launches = _read_wide(records[index:], file)
            break
    else:
        raise PipeperfError(
            "not an Nsight Compute CSV: no header with \"Metric Name\"/\"Metric Value\" (ncu --csv) "
            "or with metric columns (ncu --page raw --csv)", file=file)
    if not launches:
        raise PipeperfError("ncu CSV has a header but no kernel launches", file=file)
    return _to_metrics(launches, file)


def _header_index(names: list[str], wanted: tuple[str, ...], file: str, line: int) -> int:
    for name in wanted:
        if name in names:
            return names.index(name)
    raise PipeperfError(f"ncu CSV header lacks a {wanted[0]!r} column", file=file, line=line)


def _check_width(fields: list[str], width: int, file: str, line: int) -> None:
    if len(fields) != width:
        raise PipeperfError(f"malformed ncu CSV row: {len(fields)} fields, header has {width}",
                            file=file, line=line)


def _read_long(records: list[tuple[int, list[str]]], file: str) -> list[_Launch]:
    header_line, header = records[0]
    names = [h.strip() for h in header]
    col_id = _header_index(names, ("ID",), file, header_line)
    col_kernel = _header_index(names, ("Kernel Name", "Function Name"), file, header_line)
    col_metric = names.index("Metric Name")
    col_value = names.index("Metric Value")
    col_unit = names.index("Metric Unit") if "Metric Unit" in names else None
    extra = {key: names.index(col) for col, key in _INFO_COLUMNS.items() if col in names}
    launches: dict[str, _Launch] = {}
    for line, fields in records[1:]:
        _check_width(fields, len(names), file, line)
        launch_id = fields[col_id].strip()
        launch = launches.get(launch_id)
        if launch is None:
            info = {k: fields[i].strip() for k, i in extra.items()}
            launch = launches[launch_id] = _Launch(launch_id, fields[col_kernel].strip(), info)
        metric = fields[col_metric].strip()
        unit = fields[col_unit] if col_unit is not None else ""
        launch.values[metric] = (unit, fields[col_value], line)
    return list(launches.values())


def _read_wide(records: list[tuple[int, list[str]]], file: str) -> list[_Launch]:
    header_line, header = records[0]
    names = [h.strip() for h in header]
    col_id = _header_index(names, ("ID",), file, header_line)
    col_kernel = _header_index(names, ("Kernel Name", "Function Name"), file, header_line)
    extra = {key: names.index(col) for col, key in _INFO_COLUMNS.items() if col in names}
    rows = records[1:]
    units = [""] * len(names)
    if rows:
        _check_width(rows[0][1], len(names), file, rows[0][0])
    if rows and not rows[0][1][col_id].strip():  # the units row has an empty ID
        units = rows[0][1]
        rows = rows[1:]
    launches: list[_Launch] = []
    for line, fields in rows:
        _check_width(fields, len(names), file, line)
        info = {k: fields[i].strip() for k, i in extra.items()}
        launch = _Launch(fields[col_id].strip(), fields[col_kernel].strip(), info)
        for i, name in enumerate(names):
            if "__" in name:
                launch.values[name] = (units[i], fields[i], line)
        launches.append(launch)
    return launches


def _to_metrics(launches: list[_Launch], file: str) -> list[KernelMetrics]:
    # Only the metrics we read vote on the decimal separator: a raw page also holds strings such
    # as driver versions ("535.104.05") that look like grouped numbers.
    used = {*NCU_METRICS, *NCU_BYTE_ALTERNATIVES, NCU_FP16, NCU_DURATION}
    decimal = detect_decimal((raw for launch in launches
                              for metric, (_, raw, _) in launch.values.items() if metric in used),
                             file)
    repeated = Counter(launch.kernel for launch in launches)
    out = []
    for launch in launches:
        values: dict[str, float] = {}
        missing = []
        for metric, attr in NCU_METRICS.items():
            alternative = next((m for m, a in NCU_BYTE_ALTERNATIVES.items()
                                if a == attr and m in launch.values), None)
            if metric in launch.values:
                values[attr] = _count(launch, metric, decimal, file)
            elif alternative is not None:
                values[attr] = _count(launch, alternative, decimal, file) / SECTOR_BYTES
            else:
                missing.append(metric)
        if missing:
            raise PipeperfError(
                f"kernel {launch.kernel!r} (ID {launch.launch_id}) lacks ncu metrics "
                f"{', '.join(missing)}; collect them with: {NCU_COMMAND}", file=file)
        fp16 = _optional(launch, NCU_FP16, decimal, file)
        duration = _optional(launch, NCU_DURATION, decimal, file)
        name = launch.kernel
        if repeated[name] > 1:
            name = f"{name} [ID {launch.launch_id}]"
        info = {"id": launch.launch_id, **launch.info}
        out.append(KernelMetrics(name=name, m_fp16=fp16, measured_seconds=duration,
                                 source=f"ncu CSV {file}", info=info, **values))
    return out


def _count(launch: _Launch, metric: str, decimal: str, file: str) -> float:
    unit, raw, line = launch.values[metric]
    value = parse_number(raw, decimal, file, line, what=metric)
    if value is None:
        raise PipeperfError(f"{metric} is {raw.strip() or 'empty'} for kernel {launch.kernel!r}; "
                            "the model needs this count", file=file, line=line)
    scale = _scale(unit, metric, file, line)
    if value < 0 or (scale == 1.0 and value != round(value)):
        raise PipeperfError(f"{metric} = {raw!r} is not a whole count (check the file's decimal "
                            "and thousands separators, or export with --print-units base)",
                            file=file, line=line)
    return value * scale


def _optional(launch: _Launch, metric: str, decimal: str, file: str) -> float | None:
    if metric not in launch.values:
        return None
    unit, raw, line = launch.values[metric]
    value = parse_number(raw, decimal, file, line, what=metric)
    return None if value is None else value * _scale(unit, metric, file, line)

"""nvprof ``--csv --metrics`` output -> Table 1 metrics of the quantitative roofline.

The paper's own route (seed 002, Table 1), for GPUs up to Volta/Turing that nvprof supports::

    nvprof --csv --metrics flop_count_sp_fma,flop_count_dp_fma,inst_compute_ld_st,inst_executed,\\
    inst_fp_32,inst_fp_64,inst_integer,dram_read_transactions,dram_write_transactions \\
    --log-file profile.csv ./app ARGS

The file has ``==PID==`` preamble lines, then "Device","Kernel","Invocations","Metric Name",
"Metric Description","Min","Max","Avg" with one row per kernel x metric. The prediction is for
one launch, from the ``Avg`` column (``Invocations`` is kept in the kernel's info).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure.csvnumbers import read_csv_text, csv_records, detect_decimal, parse_number
from pipeperf.models.quantitative import KernelMetrics

# nvprof metric (Table 1) -> KernelMetrics attribute
NVPROF_METRICS: dict[str, str] = {
    "flop_count_sp_fma": "m_fma32",
    "flop_count_dp_fma": "m_fma64",
    "inst_compute_ld_st": "m_ldst",
    "inst_executed": "m_inst",
    "inst_fp_32": "m_fp32",
    "inst_fp_64": "m_fp64",
    "inst_integer": "m_int",
    "dram_read_transactions": "m_tran_r",
    "dram_write_transactions": "m_tran_w",
}
NVPROF_FP16 = "inst_fp_16"  # optional
NVPROF_COMMAND = ("nvprof --csv --metrics " + ",".join(NVPROF_METRICS)
                  + " --log-file profile.csv ./app ARGS")
_COLUMNS = ("Device", "Kernel", "Invocations", "Metric Name", "Avg")


def read_nvprof_csv(path: str | Path) -> list[KernelMetrics]:
    """Table 1 metrics of every kernel in an nvprof metrics CSV."""
    return parse_nvprof_csv(read_csv_text(path, "nvprof CSV"), str(path))


def parse_nvprof_csv(text: str, file: str = "<nvprof csv>") -> list[KernelMetrics]:
    records = csv_records(text, file)
    start = next((i for i, (_, f) in enumerate(records)
                  if "Metric Name" in [x.strip() for x in f]), None)
    if start is None:
        raise PipeperfError('not an nvprof metrics CSV: no "Metric Name" header (run nvprof with '
                            "--csv --metrics ...)", file=file)
    header_line, header = records[start]
    names = [h.strip() for h in header]
    for column in _COLUMNS:
        if column not in names:
            raise PipeperfError(f"nvprof CSV header lacks a {column!r} column", file=file,
                                line=header_line)
    col = {c: names.index(c) for c in _COLUMNS}
    kernels: dict[tuple[str, str], dict[str, tuple[str, int]]] = {}
    invocations: dict[tuple[str, str], str] = {}
    for line, fields in records[start + 1:]:
        if any(f.strip() in ("Event Name", "Metric Name") for f in fields):
            break  # a following table (events) ends the metric table
        if len(fields) != len(names):
            raise PipeperfError(f"malformed nvprof CSV row: {len(fields)} fields, header has "
                                f"{len(names)}", file=file, line=line)
        key = (fields[col["Device"]].strip(), fields[col["Kernel"]].strip())
        kernels.setdefault(key, {})[fields[col["Metric Name"]].strip()] = (fields[col["Avg"]], line)
        invocations[key] = fields[col["Invocations"]].strip()
    if not kernels:
        raise PipeperfError("nvprof CSV has a header but no metric rows", file=file)
    wanted = [*NVPROF_METRICS, NVPROF_FP16]
    decimal = detect_decimal((raw for values in kernels.values()
                              for metric, (raw, _) in values.items() if metric in wanted), file)
    per_name = Counter(kernel for _, kernel in kernels)
    out = []
    for (device, kernel), values in kernels.items():
        missing = [m for m in NVPROF_METRICS if m not in values]
        if missing:
            raise PipeperfError(f"kernel {kernel!r} lacks nvprof metrics {', '.join(missing)}; "
                                f"collect them with: {NVPROF_COMMAND}", file=file)
        counts: dict[str, float] = {}
        for metric, attr in NVPROF_METRICS.items():
            raw, line = values[metric]
            value = parse_number(raw, decimal, file, line, what=metric)
            if value is None:
                raise PipeperfError(f"{metric} is {raw.strip() or 'empty'} for kernel {kernel!r}",
                                    file=file, line=line)
            counts[attr] = value
        fp16 = None
        if NVPROF_FP16 in values:
            fp16 = parse_number(values[NVPROF_FP16][0], decimal, file, values[NVPROF_FP16][1],
                                what=NVPROF_FP16)
        name = kernel if per_name[kernel] == 1 else f"{kernel} [{device}]"
        info = {"device": device, "invocations": invocations[(device, kernel)],
                "statistic": "Avg per invocation"}
        out.append(KernelMetrics(name=name, m_fp16=fp16, source=f"nvprof CSV {file}", info=info,
                                 **counts))
    return out

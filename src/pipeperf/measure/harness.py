"""Build and run the micro-benchmark harness on a CUDA GPU; read and write its CSV files.

Calibrating the lent H100 (one command)
---------------------------------------
With the device tool, from the repository root of the device machine (its image has nvcc 13.0
and Python 3.12 with NumPy, PyYAML, Numba and matplotlib; nothing needs installing), as one
``run`` call with ``timeout_s=600``::

    PYTHONPATH=src python3 -m pipeperf.cli.main calibrate --gpu-name h100 \\
        --raw-dir $OUT/h100 --out $OUT/hopper_h100.yaml

It checks for a GPU (``nvidia-smi``), builds the harness for the GPU's architecture (``nvcc
-arch=sm_90``, kernels split over up to 8 translation units compiled in parallel: well under a
minute on 16 cores), runs every benchmark (about 12,000 short launches plus 0.6 s of clock
warm-up and probes; a few minutes at most, and it stops starting benchmarks after
``--max-seconds``, 420 by default) and fits. The summary table and any warnings (occupancies
left out because an SM did not hold exactly W co-resident warps; classes whose curve had not
levelled off at 64 warps) are printed last, so they are in the reply's output tail. Files:

* ``$OUT/h100/chains.csv``: boat-hull curves, one row per instruction class x occupancy W = 1..64
  warps per SM (dependent chains of Eq. 1, pipeline-performance-model.txt Sec. III-B);
* ``$OUT/h100/mix.csv``: the instruction-mix kernel over beta at full occupancy and over occupancy
  at beta = 4 (analytical-models-and-pipeline-model.txt Sec. 4.2, 6.1);
* ``$OUT/h100/barrier.csv``: the iterative barrier kernel over group sizes 1..32 warps x groups per
  SM (Sec. 6.2);
* ``$OUT/h100/peaks.csv``: mixbench-style peaks T_SP, T_DP, T_int, T_add, T_ldst, B_mem
  (Table 3 of quantitative-roofline-microbenchmarks.txt);
* ``$OUT/h100/build.log``: nvcc/ptxas resource report (registers, spills) of the kernels;
* ``$OUT/hopper_h100.yaml``: the fitted GPU spec (lambda, Lambda per class, issue limit, clock;
  every class cites its CSV, date and command) and ``$OUT/hopper_h100_peaks.yaml``: the peaks
  for ``pipeperf roofline --gpu``. Seven files: the device tool returns at most eight.

Back on the development machine, copy the raw files into ``data/measurements/h100/`` and fit
again so the spec cites paths inside the repository (no GPU needed)::

    mkdir -p data/measurements/h100 && cp FILES_AT/h100/* data/measurements/h100/
    PYTHONPATH=src python3 -m pipeperf.cli.main calibrate --from-raw data/measurements/h100 \\
        --gpu-name h100 --out src/pipeperf/hardware/gpus/hopper_h100.yaml

Why cycles come from %clock64 and not from event time x clock: the SM clock of a boosting GPU
moves with power and temperature (the seeds name this as Pascal's main error source, Sec. IV-B),
so converting milliseconds with a nominal clock is off by the boost ratio. %clock64 counts the
SM's own cycles; the harness takes, per SM, max(end) - min(start) over the warps it held, and
the median over SMs and repetitions. The spec's ``clock_ghz`` (cycles -> seconds) is measured
too: one warp per SM counts %clock64 cycles over 50 ms of %globaltimer at the start and at the
end of the run; CUDA events still time every launch (``ms_median``), a cross-check.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
from typing import Any
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.ptx.toolkit import find_tool, release_of, supported_archs, tool_version
from pipeperf.util import cache
from pipeperf.util.files import read_text
from pipeperf.measure import microbench

EXE_NAME = "pipeperf-bench"
#: exit codes of the harness and the launcher
EXIT_USAGE, EXIT_CUDA, EXIT_NO_DEVICE = 2, 3, 4


# ---------------------------------------------------------------- toolchain

def find_nvcc() -> str | None:
    """nvcc where :func:`pipeperf.ptx.toolkit.find_tool` finds it (PATH, $CUDA_HOME, the pip wheels,
    /usr/local/cuda), else None."""
    try:
        return find_tool("nvcc")
    except PipeperfError:
        return None


def require_nvcc() -> str:
    return find_tool("nvcc")


def nvcc_version(nvcc: str) -> str:
    return release_of(tool_version(nvcc))


def cache_dir() -> Path:
    """Where built harnesses and launchers are kept (pipeperf's cache folder)."""
    return cache.cache_dir()


def run_nvcc(cmd: list[str], what: str, log: Path | None = None) -> str:
    """Run one nvcc command; a failure becomes a PipeperfError naming nvcc's first error."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=900)
    except OSError as exc:
        raise PipeperfError(f"{what}: cannot run nvcc: {exc.strerror}") from None
    except subprocess.TimeoutExpired:
        raise PipeperfError(f"{what}: nvcc ran longer than 15 minutes") from None
    text = proc.stdout + proc.stderr
    if log is not None:
        with open(log, "a", encoding="utf-8") as f:
            f.write("$ " + " ".join(cmd) + "\n" + text)
    if proc.returncode != 0:
        errors = [l for l in text.splitlines() if "error" in l.lower()] or text.splitlines()[-1:] or ["failed"]
        raise PipeperfError(f"{what}: {errors[0].strip()}")
    return text


# ---------------------------------------------------------------- the GPU

@dataclass(frozen=True)
class GpuInfo:
    """What nvidia-smi says about GPU 0."""

    name: str
    compute_capability: str
    driver: str
    max_sm_clock_mhz: float | None

    @property
    def arch(self) -> str:
        return "sm_" + self.compute_capability.replace(".", "")


def detect_gpu(hint: str = "run this on a machine with an NVIDIA GPU") -> GpuInfo:
    """The first CUDA GPU, or a PipeperfError that says why there is none (and ``hint``)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise PipeperfError(f"no CUDA GPU found (nvidia-smi is not on PATH): {hint}")
    try:
        proc = subprocess.run([smi, "--query-gpu=name,compute_cap,driver_version,clocks.max.sm",
                               "--format=csv,noheader,nounits"], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PipeperfError(f"no CUDA GPU found (nvidia-smi failed: {exc}): {hint}") from None
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if proc.returncode != 0 or not lines:
        why = (proc.stderr or proc.stdout).strip().splitlines()
        raise PipeperfError(f"no CUDA GPU found (nvidia-smi: {why[0] if why else 'no GPU listed'}): {hint}")
    parts = [p.strip() for p in lines[0].split(",")]
    if len(parts) < 4 or not re.fullmatch(r"\d+\.\d+", parts[1]):
        raise PipeperfError(f"cannot read nvidia-smi's answer: {lines[0]!r}")
    try:
        clock = float(parts[3])
    except ValueError:
        clock = None
    return GpuInfo(parts[0], parts[1], parts[2], clock)


def gpu_slug(name: str) -> str:
    """A short name for files: 'NVIDIA H100 80GB HBM3' -> 'h100', 'GeForce GTX 1060 6GB' -> 'gtx1060'."""
    words = [w for w in re.split(r"[\s_]+", name.lower()) if w not in ("nvidia", "geforce", "tesla", "quadro")]
    if not words:
        return "gpu"
    slug = words[0]
    if slug in ("gtx", "rtx", "titan") and len(words) > 1:
        slug += words[1]
    return re.sub(r"[^a-z0-9]+", "", slug) or "gpu"


# ---------------------------------------------------------------- building

def arch_flags(arch: str, nvcc: str) -> list[str]:
    """-arch for a real architecture nvcc knows; else PTX of the newest it knows (JIT on load)."""
    known = supported_archs(nvcc)
    if not known or arch in known:
        return [f"-arch={arch}"]
    newest = known[-1].replace("sm_", "compute_")
    return [f"-gencode=arch={newest},code={newest}"]


def build_harness(build_dir: str | Path, arch: str, benches: list[microbench.Bench] | None = None,
                  jobs: int | None = None, nvcc: str | None = None) -> Path:
    """Generate the sources, compile them in parallel (one unit per job) and link the harness."""
    nvcc = nvcc or require_nvcc()
    jobs = max(1, jobs or min(8, os.cpu_count() or 1))
    out = Path(build_dir)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "build.log"
    srcs = microbench.write_sources(out, benches, units=jobs)
    flags = [*arch_flags(arch, nvcc), "-O3", "-std=c++17", "-maxrregcount=32", "-Xptxas", "-v", "-lineinfo"]
    units = srcs["kernels"] + srcs["harness"]
    exe, stamp = out / EXE_NAME, out / (EXE_NAME + ".key")
    digest = hashlib.sha256(" ".join(flags + [nvcc_version(nvcc)]).encode())
    for src in [*units, out / "bench_common.cuh"]:
        digest.update(src.read_bytes())
    key = digest.hexdigest()
    if exe.is_file() and stamp.is_file() and stamp.read_text() == key and log.is_file():
        return exe                                  # same sources, flags and nvcc: already built
    objs = [u.with_suffix(".o") for u in units]
    log.write_text(f"# nvcc {nvcc_version(nvcc)}, arch {arch}\n")

    def compile_one(pair: tuple[Path, Path]) -> str:
        src, obj = pair
        return run_nvcc([nvcc, *flags, "-c", "-o", str(obj), str(src)], f"compiling {src.name}")

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        reports = list(pool.map(compile_one, zip(units, objs)))
    with open(log, "a", encoding="utf-8") as f:
        for src, text in zip(units, reports):
            f.write(f"## {src.name}\n{text}")
    run_nvcc([nvcc, *arch_flags(arch, nvcc), "-o", str(exe), *map(str, objs)], "linking the harness", log)
    stamp.write_text(key)
    return exe


def compile_cubins(build_dir: str | Path, archs: list[str], benches: list[microbench.Bench] | None = None,
                   units: int = 2, jobs: int = 2, nvcc: str | None = None) -> dict[str, list[Path]]:
    """Compile the generated kernels to one cubin per unit and architecture (no GPU needed).

    Returns ``{arch: [cubins]}``; the ptxas report of each goes to ``<cubin>.log``.
    """
    nvcc = nvcc or require_nvcc()
    out = Path(build_dir)
    srcs = microbench.write_sources(out, benches, units=units)["kernels"]
    work = [(src, arch) for arch in archs for src in srcs]

    def one(item: tuple[Path, str]) -> Path:
        src, arch = item
        cubin = src.with_name(f"{src.stem}.{arch}.cubin")
        text = run_nvcc([nvcc, f"-arch={arch}", "-cubin", "-O3", "-maxrregcount=32", "-Xptxas", "-v",
                         "-o", str(cubin), str(src)], f"compiling {src.name} for {arch}")
        cubin.with_suffix(".log").write_text(text)
        return cubin

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        cubins = list(pool.map(one, work))
    result: dict[str, list[Path]] = {a: [] for a in archs}
    for (_src, arch), cubin in zip(work, cubins):
        result[arch].append(cubin)
    return result


def cubin_functions(path: str | Path) -> dict[str, int]:
    """Bytes of machine code of each function in a cubin (its ``.text.<name>`` ELF sections).

    On sm_70 and later every instruction is 16 bytes, so size / 16 counts instructions: a check
    that a chain of N instructions was not folded, without a disassembler.
    """
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise PipeperfError("not a 64-bit ELF cubin", file=path)
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    out = {}
    for h in headers:
        end = data.index(b"\0", strtab + h[0])
        name = data[strtab + h[0]:end].decode()
        if name.startswith(".text."):
            out[name[len(".text."):]] = h[5]
    return out


def ptxas_resources(log_text: str) -> dict[str, dict[str, int]]:
    """Registers, stack and spill bytes per function from ``ptxas -v`` output."""
    out: dict[str, dict[str, int]] = {}
    current = None
    for line in log_text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
            out[current] = {"registers": 0, "stack": 0, "spill_stores": 0, "spill_loads": 0}
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            out[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[current]["registers"] = int(m.group(1))
    return out


# ---------------------------------------------------------------- running

def run_harness(exe: str | Path, out_dir: str | Path, reps: int = 5, only: str | None = None,
                kinds: str | None = None, quick: bool = False, max_seconds: float = 480,
                timeout: float | None = 580, echo: bool = True, label: str = "") -> list[Path]:
    """Run the harness (progress on stderr) and return the CSV files it wrote."""
    cmd = [str(exe), "--out-dir", str(out_dir), "--reps", str(reps), "--max-seconds", str(max_seconds)]
    if label:
        cmd += ["--label", label]
    if only:
        cmd += ["--only", only]
    if kinds:
        cmd += ["--kinds", kinds]
    if quick:
        cmd.append("--quick")
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if echo else subprocess.PIPE,
                              text=True, errors="replace", timeout=timeout)
    except OSError as exc:
        raise PipeperfError(f"cannot run the harness: {exc.strerror}", file=str(exe)) from None
    except subprocess.TimeoutExpired:
        raise PipeperfError(f"the harness ran longer than {timeout:.0f} s") from None
    if proc.returncode == EXIT_NO_DEVICE:
        raise PipeperfError("no CUDA GPU found (the harness could not open a device)")
    written = sorted(p for p in Path(out_dir).glob("*.csv"))
    if proc.returncode != 0:
        if (Path(out_dir) / "chains.csv").is_file():    # files are rewritten after every benchmark
            # (the parameter ``echo`` shadows the module's echo(): calling it raised TypeError)
            print(f"pipeperf: warning: the harness failed (exit code {proc.returncode}, see above); "
                  "fitting the benchmarks that finished", file=sys.stderr)
            return written
        raise PipeperfError(f"the harness failed with exit code {proc.returncode} (see its messages above)")
    return written


# ---------------------------------------------------------------- CSV files

SWEEP_COLUMNS = ("bench", "kind", "class", "class2", "subsystem", "param", "group_warps", "blocks_per_sm",
                 "warps_per_sm", "dyn_smem", "n1", "n2", "reps", "cycles_median", "cycles_min", "cycles_max",
                 "ms_median", "sm_used", "sm_warps_min", "sm_warps_max", "overlap_ok", "regs", "nvml_sm_mhz",
                 "cycles_per_instr_warp")
PEAK_COLUMNS = ("bench", "parameter", "value", "unit", "ms_median", "ms_min", "ms_max", "reps", "iters", "grid",
                "block", "amount", "ptx")


@dataclass(frozen=True)
class SweepRow:
    """One occupancy point of a chain, mix or barrier benchmark (cycles per SM)."""

    bench: str
    kind: str
    cls: str
    cls2: str
    subsystem: str
    param: int
    group_warps: int
    blocks_per_sm: int
    warps_per_sm: int
    dyn_smem: int
    n1: int                  # class-1 instructions per warp
    n2: int                  # class-2 instructions per warp
    reps: int
    cycles_median: float
    cycles_min: float
    cycles_max: float
    ms_median: float
    sm_used: int
    sm_warps_min: int
    sm_warps_max: int
    overlap_ok: bool
    regs: int
    nvml_sm_mhz: float
    cycles_per_instr_warp: float   # t / (N W): Eq. 1's time per instruction per warp

    @property
    def valid(self) -> bool:
        """Every SM held exactly the intended warps, all resident at once."""
        return self.overlap_ok and self.sm_warps_min == self.sm_warps_max == self.warps_per_sm


@dataclass(frozen=True)
class PeakRow:
    bench: str
    parameter: str
    value: float
    unit: str
    ms_median: float
    ms_min: float
    ms_max: float
    reps: int
    iters: int
    grid: int
    block: int
    amount: float
    ptx: str


@dataclass
class Table:
    """A harness CSV: its ``# key: value`` header and its rows."""

    path: str
    meta: dict[str, str]
    rows: list


_TYPES = {f.name: f.type for f in fields(SweepRow)}


def read_table(path: str | Path, columns: tuple[str, ...], make) -> Table:
    """A measurement CSV (``# key: value`` meta lines, then a header of ``columns``), each row made
    by ``make``; shared by the calibrate harness and the campaign's parser (``campaign/derive``)."""
    p = Path(path)
    text = read_text(p, "measurement")
    meta: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
        elif line.strip():
            body.append((i, line))
    if not body:
        raise PipeperfError("no header line", file=p)
    header_line, header = body[0][0], next(csv.reader([body[0][1]]))
    if tuple(header) != columns:
        raise PipeperfError(f"unexpected columns (expected {','.join(columns)})", file=p, line=header_line)
    rows = []
    for lineno, line in body[1:]:
        values = next(csv.reader([line]))
        if len(values) != len(columns):
            raise PipeperfError(f"expected {len(columns)} fields, got {len(values)}", file=p, line=lineno)
        try:
            rows.append(make(dict(zip(columns, values))))
        except ValueError as exc:
            raise PipeperfError(f"bad value: {exc}", file=p, line=lineno) from None
    return Table(str(p), meta, rows)


def _sweep_row(d: dict[str, str]) -> SweepRow:
    args: dict[str, Any] = {}
    for col in SWEEP_COLUMNS:
        name = "cls" if col == "class" else "cls2" if col == "class2" else col
        t = _TYPES[name]
        v = d[col]
        args[name] = (v == "1" if t == "bool" else int(v) if t == "int" else float(v) if t == "float" else v)
    return SweepRow(**args)


def _peak_row(d: dict[str, str]) -> PeakRow:
    return PeakRow(d["bench"], d["parameter"], float(d["value"]), d["unit"], float(d["ms_median"]),
                   float(d["ms_min"]), float(d["ms_max"]), int(d["reps"]), int(d["iters"]), int(d["grid"]),
                   int(d["block"]), float(d["amount"]), d["ptx"])


def read_sweep_csv(path: str | Path) -> Table:
    """chains.csv, mix.csv or barrier.csv."""
    return read_table(path, SWEEP_COLUMNS, _sweep_row)


def read_peaks_csv(path: str | Path) -> Table:
    return read_table(path, PEAK_COLUMNS, _peak_row)


def write_sweep_csv(path: str | Path, meta: dict[str, str], rows: list[SweepRow]) -> None:
    """Write rows in the harness's format (used for simulated calibrations and tests)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        for k, v in meta.items():
            f.write(f"# {k}: {v}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(SWEEP_COLUMNS)
        for r in rows:
            d = asdict(r)
            w.writerow([int(d["overlap_ok"]) if c == "overlap_ok" else
                        d["cls" if c == "class" else "cls2" if c == "class2" else c] for c in SWEEP_COLUMNS])


def simulate_raw(gpu, raw_dir: str | Path, n: int = 256, classes: list[str] | None = None,
                 betas: tuple[int, ...] = microbench.MIX_BETAS) -> list[Path]:
    """What the harness would write for ``gpu`` if the GPU were the Pipeline model itself.

    Chains of each class for W = 1..max warps (one-warp groups while the group limit allows,
    like the harness) and the instruction mix over beta at full occupancy, from the simulator.
    ``pipeperf calibrate --simulate GPU`` fits these: a check of the method that needs no GPU.
    """
    from pipeperf.idg.paper_kernels import chain, instruction_mix
    from pipeperf.simulate.simulator import PreparedKernel

    out = Path(raw_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"gpu": f"simulated {gpu.full_name or gpu.name}", "compute_capability": gpu.compute_capability or "0.0",
            "sms": str(gpu.cores), "max_warps_per_sm": str(gpu.max_warps_per_core),
            "max_blocks_per_sm": str(gpu.max_groups_per_core), "clock_khz": str(round(gpu.clock_ghz * 1e6)),
            "driver": "pipeperf simulator", "date": "simulated", "command": f"pipeperf calibrate --simulate {gpu.name}"}
    plan = microbench.occupancy_plan(gpu.max_warps_per_core, gpu.max_groups_per_core)
    rows = []
    for cls in classes or list(gpu.classes):
        ic = gpu.classes[cls]
        prep = PreparedKernel(chain(n, cls), gpu)
        for g, m in plan:
            r = prep.run(g, m, m * gpu.cores, "rr", check_limits=False)
            rows.append(_simulated_row(cls, "chain", cls, "", ic.subsystem, 0, g, m, n, 0, r.cycles, gpu))
    files = []
    write_sweep_csv(out / "chains.csv", meta, rows)
    files.append(out / "chains.csv")
    if "mul_f32" in gpu.classes and "cos_f32" in gpu.classes:
        g, m = plan[-1]
        mix = []
        for beta in (b for b in betas if b >= 1):       # the IDG generator needs beta >= 1
            reps = max(4, 256 // (beta + 1))
            r = PreparedKernel(instruction_mix(beta, reps), gpu).run(g, m, m * gpu.cores, "rr", check_limits=False)
            mix.append(_simulated_row(f"mix_b{beta}", "mix", "mul_f32", "cos_f32", "alu", beta, g, m, beta * reps,
                                      reps, r.cycles, gpu))
        write_sweep_csv(out / "mix.csv", meta, mix)
        files.append(out / "mix.csv")
    return files


def _simulated_row(bench, kind, cls, cls2, sub, param, g, m, n1, n2, cycles, gpu) -> SweepRow:
    ms = cycles / (gpu.clock_ghz * 1e6)
    return SweepRow(bench, kind, cls, cls2, sub, param, g, m, g * m, 0, n1, n2, 1, cycles, cycles, cycles, ms,
                    gpu.cores, g * m, g * m, True, 0, gpu.clock_ghz * 1e3, cycles / ((n1 + n2) * g * m))


def echo(message: str) -> None:
    print(message, file=sys.stderr)

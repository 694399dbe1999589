"""Generic kernel launcher for ``pipeperf measure``: build it, compile the user's kernel, run it.

``launcher.cpp`` beside this module is a small C++ program (CUDA driver API for the module and
the launch, runtime API for buffers and events) that runs one kernel of a cubin with arguments
given as specs and times it, optionally over occupancies (dynamic shared memory caps the blocks
per SM, as the seeds do for Rodinia, Table 9 of analytical-models-and-pipeline-model.txt). This
module validates the user's input first, so mistakes are reported without a GPU, then compiles
the kernel with nvcc for the GPU present, finds its entry by name and runs the launcher.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure import harness as toolchain

TYPES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8, "f32": 4, "f64": 8}
FILLS = ("rand", "zeros", "ones", "iota")


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument: a scalar literal, a generated buffer or a .npy file."""

    text: str
    label: str
    kind: str                 # scalar | buffer
    type: str = ""            # "" = from the parameter's width (scalars)
    fill: str = ""            # rand | zeros | ones | iota | npy
    value: str = ""           # scalar literal or .npy path
    count: int = 0
    lo: float | None = None
    hi: float | None = None

    def describe(self) -> str:
        """The launcher's ``--parse-only`` line for this spec (the two parsers must agree)."""
        if self.kind == "scalar":
            return f"scalar {self.type or 'auto'} {self.value}"
        if self.fill == "npy":
            return f"buffer npy {self.value}"
        tail = f" {self.lo:g} {self.hi:g}" if self.lo is not None else ""
        return f"buffer {self.fill} {self.type} {self.count}{tail}"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_arg(text: str) -> ArgSpec:
    """``n=1048576``, ``a=f32:2.5``, ``x=rand:f32:1048576[:LO:HI]``, ``y=zeros:f32:N``, ``a=file.npy``."""
    label, sep, body = text.partition("=")
    if not sep:
        label, body = "", text
    if not body:
        raise PipeperfError(f"--arg '{text}': no value")
    if body.endswith(".npy"):
        if not Path(body).is_file():
            raise PipeperfError(f"--arg '{text}': no such file", file=body)
        return ArgSpec(text, label, "buffer", fill="npy", value=body)
    parts = body.split(":")
    if len(parts) == 1:
        if _number(parts[0]) is None:
            raise PipeperfError(f"--arg '{text}': '{parts[0]}' is not a number, a buffer spec "
                                "(FILL:TYPE:COUNT) or a .npy file")
        return ArgSpec(text, label, "scalar", value=parts[0])
    if len(parts) == 2:
        if parts[0] not in TYPES:
            raise PipeperfError(f"--arg '{text}': unknown type '{parts[0]}' (expected {', '.join(TYPES)})")
        if _number(parts[1]) is None:
            raise PipeperfError(f"--arg '{text}': '{parts[1]}' is not a number")
        return ArgSpec(text, label, "scalar", type=parts[0], value=parts[1])
    fill, typ, count = parts[:3]
    if fill not in FILLS:
        raise PipeperfError(f"--arg '{text}': unknown buffer fill '{fill}' (expected {', '.join(FILLS)})")
    if typ not in TYPES:
        raise PipeperfError(f"--arg '{text}': unknown buffer type '{typ}' (expected {', '.join(TYPES)})")
    if not count.isdigit() or int(count) == 0:
        raise PipeperfError(f"--arg '{text}': count '{count}' must be a positive integer")
    if len(parts) == 5 and fill == "rand":
        lo, hi = _number(parts[3]), _number(parts[4])
        if lo is None or hi is None or not hi > lo:
            raise PipeperfError(f"--arg '{text}': range needs two numbers LO < HI")
        return ArgSpec(text, label, "buffer", type=typ, fill=fill, count=int(count), lo=lo, hi=hi)
    if len(parts) != 3:
        raise PipeperfError(f"--arg '{text}': expected FILL:TYPE:COUNT (rand may add :LO:HI)")
    return ArgSpec(text, label, "buffer", type=typ, fill=fill, count=int(count))


def parse_dims(text: str, what: str) -> tuple[int, int, int]:
    """``1024`` or ``32,32`` or ``8,8,8``: positive integers, at most three."""
    parts = text.split(",")
    if len(parts) > 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise PipeperfError(f"{what} '{text}': expected one to three positive integers, e.g. 1024 or 32,32")
    dims = [int(p) for p in parts] + [1] * (3 - len(parts))
    return dims[0], dims[1], dims[2]


def source_path() -> Path:
    """The launcher's C++ source (package data)."""
    return Path(str(resources.files("pipeperf.measure.launcher").joinpath("launcher.cpp")))


def build(build_dir: str | Path | None = None, nvcc: str | None = None) -> Path:
    """Compile the launcher with nvcc (host code only; cudart static, no libcuda at link time)."""
    nvcc = nvcc or toolchain.require_nvcc()
    src = source_path()
    text = src.read_bytes()
    key = hashlib.sha256(text + toolchain.nvcc_version(nvcc).encode()).hexdigest()[:16]
    out_dir = Path(build_dir) if build_dir else toolchain.cache_dir() / f"launcher-{key}"
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / "pipeperf-launch"
    stamp = out_dir / "pipeperf-launch.key"
    if exe.exists() and stamp.exists() and stamp.read_text() == key:
        return exe
    toolchain.run_nvcc([nvcc, "-O2", "-std=c++17", "-o", str(exe), str(src)], "building the launcher")
    stamp.write_text(key)
    return exe


_ENTRY = re.compile(r"^\s*(?:\.(?:visible|weak)\s+)?\.entry\s+([A-Za-z_$][\w$]*)", re.MULTILINE)


def ptx_entries(ptx_text: str) -> list[str]:
    """Kernel (entry) names in PTX text, mangled as the module holds them."""
    return _ENTRY.findall(ptx_text)


def resolve_kernel(entries: list[str], name: str, file: str | None = None) -> str:
    """The entry for ``name``: an exact (mangled or extern "C") name, or an Itanium-mangled one
    whose base name is ``name`` (``_Z<len><name>...``); ambiguity is an error."""
    if name in entries:
        return name
    mangled = [e for e in entries if e.startswith(f"_Z{len(name)}{name}")]
    if len(mangled) == 1:
        return mangled[0]
    if len(mangled) > 1:
        raise PipeperfError(f"kernel '{name}' is overloaded: pass one of {', '.join(mangled)}", file=file)
    raise PipeperfError(f"no kernel '{name}' (kernels: {', '.join(entries) or 'none'})", file=file)


def compile_kernel(cu: str | Path, arch: str, out_dir: str | Path, extra: list[str] | None = None,
                   nvcc: str | None = None) -> tuple[Path, list[str]]:
    """nvcc -cubin for ``arch`` (e.g. sm_90) plus -ptx to list the entries; returns (cubin, entries)."""
    nvcc = nvcc or toolchain.require_nvcc()
    cu = Path(cu)
    if not cu.is_file():
        raise PipeperfError("no such file", file=cu)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cubin, ptx = out / (cu.stem + ".cubin"), out / (cu.stem + ".ptx")
    flags = ["-O3", "-lineinfo", *(extra or [])]
    toolchain.run_nvcc([nvcc, f"-arch={arch}", "-cubin", *flags, "-o", str(cubin), str(cu)], f"compiling {cu}")
    virt = arch.replace("sm_", "compute_")
    toolchain.run_nvcc([nvcc, f"-arch={virt}", "-ptx", *flags, "-o", str(ptx), str(cu)], f"compiling {cu}")
    return cubin, ptx_entries(ptx.read_text())


def command_line(exe: Path, module: Path, entry: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                 args: list[ArgSpec], out: Path, sweep: bool, reps: int, smem: int, warmup: int,
                 command: str) -> list[str]:
    cmd = [str(exe), "--module", str(module), "--kernel", entry, "--grid", ",".join(map(str, grid)),
           "--block", ",".join(map(str, block)), "--reps", str(reps), "--warmup", str(warmup),
           "--smem", str(smem), "--out", str(out), "--command", command]
    for a in args:
        cmd += ["--arg", a.text]
    if sweep:
        cmd.append("--sweep-occupancy")
    return cmd


def run(cmd: list[str], timeout: float | None = None) -> None:
    """Run the launcher; its exit codes become one-line PipeperfErrors."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PipeperfError(f"the launcher ran longer than {timeout:.0f} s: {shlex.join(cmd[:5])} ...") from None
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.strip()] or [f"exit code {proc.returncode}"]
        message = lines[-1].removeprefix("pipeperf-launch: ")
        if proc.returncode == 4:
            message = f"no CUDA GPU: {message}"
        raise PipeperfError(message)

"""Generic kernel launcher for ``pipeperf measure``: build it, compile the user's kernel, run it.

``launcher.cpp`` beside this module is a small C++ program (CUDA driver API for the module and
the launch, runtime API for buffers and events) that runs one kernel of a cubin with arguments
given as specs and times it, optionally over occupancies (dynamic shared memory caps the blocks
per SM, as the seeds do for Rodinia, Table 9 of analytical-models-and-pipeline-model.txt). The
specs are the grammar of profile and analyze (:mod:`pipeperf.util.launch_args`), checked before
anything runs, so misspellings are reported without a GPU; the kernel is compiled with nvcc for
the GPU present, its entry found by name, the specs bound to its parameters (:func:`bind`) and
passed to the launcher in their canonical spelling.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
from importlib import resources
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure import harness as toolchain
from pipeperf.ptx.cuda_names import resolve_entry
from pipeperf.util.launch_args import ArgSpec, parse_arg  # noqa: F401  (the one grammar; tests use it here)


def bind(cu: str | Path, ptx_text: str, entry: str, specs: list[ArgSpec],
         allow_dtype_mismatch: bool = False) -> list[ArgSpec]:
    """The specs bound to ``entry``'s parameters in the PTX of ``cu`` (by CUDA name or position,
    :func:`pipeperf.ptx.params.bind_specs`), every scalar typed by its parameter: what the
    launcher is given, so ``a=2`` reaches a ``float`` parameter as 2.0f, as in the emulator.
    A struct passed by value is refused (the launcher passes buffers as pointers), and so is a
    ``.npy`` not of its pointer's element type unless ``allow_dtype_mismatch``."""
    from pipeperf.ptx import parse_ptx
    from pipeperf.ptx.params import ParamNames, bind_specs

    func = next((f for f in parse_ptx(ptx_text).kernels if f.name == entry), None)
    if func is None:
        raise PipeperfError(f"no kernel '{entry}' in the compiled PTX", file=str(cu))
    names = ParamNames.for_file(func, cu)
    bound = bind_specs(func, specs, names, str(cu), allow_dtype_mismatch)
    for k, (p, s) in enumerate(zip(func.params, bound)):
        # a one-element value passed by value (__half, a 1-element struct) is its element's bytes,
        # which the launcher passes as a typed scalar; wider structs it cannot build
        if p.dims and not (s.kind == "scalar" and len(s.values) == 1 and s.type in SCALAR_TYPES):
            raise PipeperfError(f"parameter {names.label(k)} of {names.kernel} is a struct or array passed by "
                                "value: pipeperf measure passes buffers as pointers and cannot launch it "
                                "(profile and analyze can)", file=str(cu))
    return bound


#: the scalar types the launcher's C++ parser packs (launcher.cpp, ``type_size``)
SCALAR_TYPES = frozenset({"i8", "u8", "i16", "u16", "f16", "i32", "u32", "f32", "i64", "u64", "f64"})


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


def resolve_kernel(entries: list[str], name: str | None, file: str | None = None) -> str:
    """The entry for ``--kernel name`` (as for profile and analyze: :func:`resolve_entry`)."""
    return resolve_entry(entries, name, file)


def ptx_path(cu: str | Path, out_dir: str | Path) -> Path:
    """Where :func:`compile_kernel` writes the PTX of ``cu`` (entries and parameter types)."""
    return Path(out_dir) / (Path(cu).stem + ".ptx")


def compile_kernel(cu: str | Path, arch: str, out_dir: str | Path, extra: list[str] | None = None,
                   nvcc: str | None = None) -> tuple[Path, list[str]]:
    """nvcc -cubin for ``arch`` (e.g. sm_90) plus -ptx (:func:`ptx_path`) to list the entries and
    their parameters; returns (cubin, entries)."""
    nvcc = nvcc or toolchain.require_nvcc()
    cu = Path(cu)
    if not cu.is_file():
        raise PipeperfError("no such file", file=cu)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cubin, ptx = out / (cu.stem + ".cubin"), ptx_path(cu, out)
    flags = ["-O3", "-lineinfo", *(extra or [])]
    toolchain.run_nvcc([nvcc, f"-arch={arch}", "-cubin", *flags, "-o", str(cubin), str(cu)], f"compiling {cu}")
    virt = arch.replace("sm_", "compute_")
    toolchain.run_nvcc([nvcc, f"-arch={virt}", "-ptx", *flags, "-o", str(ptx), str(cu)], f"compiling {cu}")
    return cubin, ptx_entries(ptx.read_text())


def command_line(exe: Path, module: Path, entry: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                 args: list[ArgSpec], out: Path, sweep: bool, reps: int, smem: int, warmup: int,
                 command: str, reset: bool = False) -> list[str]:
    cmd = [str(exe), "--module", str(module), "--kernel", entry, "--grid", ",".join(map(str, grid)),
           "--block", ",".join(map(str, block)), "--reps", str(reps), "--warmup", str(warmup),
           "--smem", str(smem), "--out", str(out), "--command", command]
    for a in args:
        cmd += ["--arg", a.canonical()]
    if sweep:
        cmd.append("--sweep-occupancy")
    if reset:                                    # every buffer back to its first contents before each launch
        cmd.append("--reset-buffers")
    return cmd


def run(cmd: list[str], timeout: float | None = None) -> None:
    """Run the launcher; its exit codes become one-line PipeperfErrors."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PipeperfError(f"the launcher ran longer than {timeout:.0f} s: {shlex.join(cmd[:5])} ...") from None
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.strip()] or [f"exit code {proc.returncode}"]
        message = lines[-1].removeprefix("pipeperf-launch: ")
        if proc.returncode == 4:
            message = f"no CUDA GPU: {message}"
        raise PipeperfError(message)

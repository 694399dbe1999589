"""Run corpus kernels on the CPU (g++ + host/cuda_host_shim.h) and compare with kernel_references.

Why: without a GPU, the only way to check that a NumPy reference matches what a kernel's source
really computes is to execute that source. The shim maps plain CUDA C++ onto threads and barriers;
kernels that need device-only features (cooperative groups, fp16 arithmetic, tensor cores, cp.async)
are listed in HOST_UNSUPPORTED and not checked here.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from kernel_corpus import CORPUS_DIR, Case, make_case

SHIM = CORPUS_DIR / "host" / "cuda_host_shim.h"
HOST_UNSUPPORTED = {
    "reduce_cg": "cooperative groups",
    "half_arith": "fp16 arithmetic intrinsics",
    "half2_axpy": "half2 arithmetic intrinsics",
    "half2_compare": "half2 comparison intrinsics",
    "wmma_gemm": "tensor cores (wmma)",
    "mma_sync_m16n8k16": "tensor cores (inline-asm mma.sync)",
    "async_copy_scale": "cp.async pipeline primitives",
}
C_TYPES = {"i32": "int", "u32": "unsigned", "i64": "long long", "u64": "unsigned long long",
           "f32": "float", "f64": "double"}


def have_compiler() -> bool:
    """g++ and the CUDA headers (none with ``PIPEPERF_NO_CUDA=1``, which stands for a machine without CUDA)."""
    if os.environ.get("PIPEPERF_NO_CUDA", "") not in ("", "0"):
        return False
    return shutil.which("g++") is not None and (Path("/usr/local/cuda/include") / "vector_types.h").exists()


def _host_source(src: str) -> str:
    """Dynamic shared memory has no host equivalent of `extern __shared__`: point it at a buffer."""
    return re.sub(r"extern\s+__shared__\s+(\w+)\s+(\w+)\s*\[\s*\]\s*;",
                  r"\1* \2 = (\1*)cuda_host_dynamic_shared.data();", src)


def _driver(case: Case) -> str:
    spec = case.spec
    lines = [f'#include "{SHIM}"', "#line 1 \"" + spec.file + "\"", _host_source(spec.source_path.read_text()),
             "int main(int argc, char** argv) {", "  const char* dir = argv[1];"]
    names = []
    for p, a in zip(spec.params, case.args):
        if p.pointer:
            lines.append(f'  auto buf_{p.name} = host_read(dir, "{p.name}", {a.nbytes});')
            lines.append(f"  void* arg_{p.name} = buf_{p.name}.data();")
        else:
            value = repr(a.item()) if p.dtype.kind == "f" else str(int(a))
            lines.append(f"  {C_TYPES[p.type]} arg_{p.name} = ({C_TYPES[p.type]}){value};")
        names.append(f"&arg_{p.name}")
    g, b = spec.grid, spec.block
    lines.append(f"  void* args[] = {{{', '.join(names)}}};")
    lines.append(f"  host_launch({spec.name}, dim3({g[0]}, {g[1]}, {g[2]}), dim3({b[0]}, {b[1]}, {b[2]}), "
                 f"{spec.shared}, args);")
    for out in spec.outputs:
        lines.append(f'  host_write(dir, "{out}", buf_{out});')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def run_on_host(name: str, seed: int = 0) -> tuple[Case, dict[str, np.ndarray]]:
    """Compile kernel ``name`` for the host, run it on its reference case, return the outputs."""
    if name in HOST_UNSUPPORTED:
        raise ValueError(f"{name} cannot run on the host shim: {HOST_UNSUPPORTED[name]}")
    case = make_case(name, seed)
    with tempfile.TemporaryDirectory(prefix="host_check_") as tmp:
        tmpd = Path(tmp)
        (tmpd / "driver.cpp").write_text(_driver(case))
        exe = tmpd / "driver"
        subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-fno-strict-aliasing", "-ffp-contract=off",
                        "-w", "-I/usr/local/cuda/include", "-o", str(exe), str(tmpd / "driver.cpp")],
                       check=True, capture_output=True, text=True)
        for p, a in zip(case.spec.params, case.args):
            if p.pointer:
                a.tofile(tmpd / f"{p.name}.bin")
        subprocess.run([str(exe), str(tmpd)], check=True, capture_output=True, text=True, timeout=120)
        results = {out: np.fromfile(tmpd / f"{out}.out", dtype=case.spec.param(out).dtype)
                   for out in case.spec.outputs}
    return case, results

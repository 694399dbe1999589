"""PTX -> the SASS ptxas makes of it for one target, as ``nvdisasm -gi -c`` lists it.

``ptxas -lineinfo`` keeps the source lines of nvcc's ``-lineinfo`` PTX, so every SASS instruction
names the CUDA line it came from and, for inlined code, the lines it is inlined at (``-gi``; the
PTX's ``.loc`` names the innermost and its caller). A header's line (``cuda_fp16.hpp``'s
``__hadd``) is one line for every call site: the chain tells them apart.
The listing is cached under both tools, the target and the PTX's bytes; where ptxas or nvdisasm is
missing it is looked up in the stores of ``$PIPEPERF_PREBUILT_DIR`` (:mod:`pipeperf.ptx.prebuilt`)
before the tool's one-line "not found" error.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.ptx import prebuilt
from pipeperf.ptx.compile import _condense, check_arch
from pipeperf.ptx.toolkit import find_tool, tool_version
from pipeperf.util import cache


def sass_listing(ptx: str, arch: str, timeout: float = 300, options: tuple[str, ...] = ()) -> str:
    """The ``nvdisasm -gi -c`` listing of ``ptx`` compiled by ``ptxas -lineinfo -arch=ARCH [OPTIONS]``
    (``options``: the ptxas options of the build's nvcc flags, e.g. ``--maxrregcount=32``)."""
    check_arch(arch)
    options = tuple(o for o in options if o not in ("-v", "--verbose"))
    body = ptx.encode()
    try:
        ptxas, nvdisasm = find_tool("ptxas"), find_tool("nvdisasm")
    except PipeperfError:
        stored = prebuilt.load_sass(body, arch, options)
        if stored is None:
            raise
        return stored
    key = cache.digest("sass-gi", ptxas, tool_version(ptxas), nvdisasm, tool_version(nvdisasm), arch, *options, body)
    hit = cache.load("sass", key)
    if hit is not None and isinstance(hit.get("listing"), str):
        prebuilt.record_sass(body, arch, hit["listing"], options)
        return hit["listing"]
    with tempfile.TemporaryDirectory(prefix="pipeperf-sass-") as tmp:
        src, cubin = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_bytes(body)
        for cmd in ([ptxas, f"-arch={arch}", "-lineinfo", *options, str(src), "-o", str(cubin)], [nvdisasm, "-gi", "-c", str(cubin)]):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
            except subprocess.TimeoutExpired:
                raise PipeperfError(f"{Path(cmd[0]).name} timed out after {timeout:.0f} s") from None
            if r.returncode != 0:
                raise PipeperfError(f"{Path(cmd[0]).name} failed: {_condense(r.stderr + r.stdout)}")
        listing = r.stdout
    cache.store("sass", key, {"listing": listing})
    prebuilt.record_sass(body, arch, listing, options)
    return listing

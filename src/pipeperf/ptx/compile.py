"""Running nvcc and ptxas: CUDA -> PTX, and ptxas' resource report.

The tools are found by :func:`pipeperf.ptx.toolkit.find_tool` (PATH, $CUDA_HOME, NVIDIA's pip
wheels); a missing tool or a failing compile is a :class:`PipeperfError` carrying the tool's
first error lines on one line. Results are kept in the on-disk cache (:mod:`pipeperf.util.cache`):
nvcc's PTX under a hash of the tool (path and ``--version``), the source's path and bytes, the
target, ``-lineinfo`` and the flags, and checked against the bytes of every header it included
(``nvcc -MMD``: the user's and the toolkit's, not the host compiler's system headers); ptxas'
report under a hash of the tool, the PTX text, the target and the options. Where nvcc (or ptxas)
is missing, a compile (or a resource report) is looked up in the stores of
``$PIPEPERF_PREBUILT_DIR`` (:mod:`pipeperf.ptx.prebuilt`) before the tool's "not found" error.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import cast

from pipeperf.errors import PipeperfError
from pipeperf.ptx import prebuilt
from pipeperf.ptx.toolkit import find_tool, supported_archs, tool_version
from pipeperf.util import cache

DEFAULT_ARCH = "sm_90"
_ARCH_RE = re.compile(r"(?:sm|compute)_\d+[a-z]?\Z")


def _condense(output: str, limit: int = 3) -> str:
    """The first few error lines of a tool's output, as one line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    text = " | ".join(errors[:limit])
    if len(errors) > limit:
        text += f" | ... ({len(errors) - limit} more)"
    return text or "no message"


#: compute capabilities nvcc 13 builds for (``nvcc --list-gpu-code``; sm_70 and older were
#: dropped): the targets when no nvcc answers
NVCC_TARGETS = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)


def nvcc_targets() -> tuple[int, ...]:
    """The compute capabilities (x10) the nvcc found builds plain ``sm_NN`` code for."""
    try:
        archs = supported_archs(find_tool("nvcc"))
    except PipeperfError:
        archs = []
    found = tuple(int(a[3:]) for a in archs if re.fullmatch(r"sm_\d+", a))
    return found or NVCC_TARGETS


def target_for(compute_capability: str) -> str:
    """The nvcc target a GPU of ``compute_capability`` (e.g. '8.6') is analysed from: its own
    when nvcc builds for it, else the nearest older one it builds for, else the oldest (sm_75 for
    Volta and older GPUs with nvcc 13: the report says which target was used)."""
    try:
        major, minor = (int(x) for x in str(compute_capability).split("."))
    except ValueError:
        return DEFAULT_ARCH
    cc = major * 10 + minor
    targets = nvcc_targets()
    older = [t for t in targets if t <= cc]
    return f"sm_{max(older) if older else min(targets)}"


def ptxas_options(nvcc_flags: list[str] | tuple[str, ...]) -> list[str]:
    """The ptxas options among nvcc flags (``-maxrregcount=N``, ``-Xptxas A,B``,
    ``--ptxas-options=A``, ...). Why: ``nvcc -ptx`` runs no ptxas, so these flags never reach the
    separate ptxas runs that give the registers and the SASS unless passed on to them here."""
    out: list[str] = []
    flags = list(nvcc_flags)
    i = 0
    while i < len(flags):
        f = flags[i]
        name, eq, value = f.partition("=")
        if name in ("-maxrregcount", "--maxrregcount"):
            if not eq:
                i += 1
                if i >= len(flags):
                    raise PipeperfError(f"nvcc flag {f} needs a value, e.g. {name}=64")
                value = flags[i]
            out.append(f"--maxrregcount={value}")
        elif name in ("-Xptxas", "--ptxas-options"):
            if not eq:
                i += 1
                if i >= len(flags):
                    raise PipeperfError(f"nvcc flag {f} needs a value, e.g. {name}=-O3")
                value = flags[i]
            out += [v for v in value.split(",") if v]
        i += 1
    return out


def check_arch(arch: str) -> str:
    if not _ARCH_RE.match(arch):
        raise PipeperfError(f"bad GPU architecture '{arch}': expected e.g. sm_75, sm_80, sm_90")
    return arch


def compile_cu(cu_path: str | Path, arch: str = DEFAULT_ARCH, lineinfo: bool = True,
               extra_args: tuple[str, ...] = (), timeout: float = 300) -> str:
    """Compile a CUDA file to PTX text with ``nvcc -ptx -arch=ARCH [-lineinfo]``, in a temporary
    folder; a cached result is used while the source, the flags, nvcc and every header it
    included are unchanged."""
    cu = Path(cu_path).resolve()
    if not cu.is_file():
        raise PipeperfError("no such CUDA file", file=str(cu))
    check_arch(arch)
    try:
        nvcc = find_tool("nvcc")
    except PipeperfError:
        stored = prebuilt.load_ptx(cu, arch, lineinfo, tuple(extra_args))
        if stored is None:
            raise
        return stored
    key = cache.digest("nvcc -ptx", nvcc, tool_version(nvcc), str(cu), cu.read_bytes(), arch,
                       "-lineinfo" if lineinfo else "", *extra_args)
    hit = cache.load("ptx", key)
    if hit is not None and isinstance(hit.get("ptx"), str) and _unchanged(hit.get("deps")):
        prebuilt.record_ptx(cu, arch, lineinfo, tuple(extra_args), hit["ptx"], hit["deps"])
        return hit["ptx"]
    with tempfile.TemporaryDirectory(prefix="pipeperf-nvcc-") as tmp:
        out, deps = Path(tmp) / (cu.stem + ".ptx"), Path(tmp) / "deps.d"
        cmd = [nvcc, "-ptx", f"-arch={arch}", str(cu), "-o", str(out), "-MMD", "-MF", str(deps), *extra_args]
        if lineinfo:
            cmd.insert(3, "-lineinfo")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise PipeperfError(f"nvcc timed out after {timeout:.0f} s", file=str(cu)) from None
        if r.returncode != 0 or not out.exists():
            raise PipeperfError(f"nvcc failed: {_condense(r.stderr + r.stdout)}", file=str(cu))
        text = out.read_text(errors="replace")
        included = _dependencies(deps, tmp)
    if included is not None:
        cache.store("ptx", key, {"ptx": text, "deps": included})
    prebuilt.record_ptx(cu, arch, lineinfo, tuple(extra_args), text, included)
    return text


def _file_sha256(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _dependencies(deps_file: Path, cwd: str) -> dict[str, str] | None:
    """{included file: SHA-256 of its bytes} from nvcc's ``-MMD`` make rule, paths relative to
    nvcc's ``cwd`` (None if unreadable: the PTX is then not cached, as its inputs are unknown)."""
    try:
        text = deps_file.read_text(errors="replace")
    except OSError:
        return None
    _, sep, rest = text.replace("\\\n", " ").partition(": ")
    if not sep:
        return None
    paths = [p.replace("\\ ", " ") for p in re.findall(r"(?:\\ |\S)+", rest)]
    sums = {p: _file_sha256(p) for p in (os.path.join(cwd, q) for q in paths)}
    return None if any(v is None for v in sums.values()) else cast(dict[str, str], sums)


def _unchanged(deps) -> bool:
    return isinstance(deps, dict) and all(_file_sha256(p) == h for p, h in deps.items())


def _run_ptxas(ptx: Path, arch: str | None, extra: list[str], timeout: float) -> str:
    """ptxas' report on ``ptx`` (cached under the tool, the PTX's bytes, the target and ``extra``;
    without ptxas, from the stores of ``$PIPEPERF_PREBUILT_DIR``)."""
    try:
        ptxas = find_tool("ptxas")
    except PipeperfError:
        ptxas = None
    if arch is None:
        arch = _target_of(ptx)
    check_arch(arch)
    try:
        body = ptx.read_bytes()
    except OSError as exc:
        raise PipeperfError(f"cannot read PTX file: {exc.strerror}", file=str(ptx)) from None
    if ptxas is None:
        report = prebuilt.load_ptxas(body, arch, tuple(extra))
        if report is None:
            find_tool("ptxas")                  # its one-line "not found" error
        return report  # type: ignore[return-value]  # None: find_tool raised above
    key = cache.digest("ptxas", ptxas, tool_version(ptxas), arch, *extra, body)
    hit = cache.load("ptxas", key)
    if hit is not None and isinstance(hit.get("output"), str):
        prebuilt.record_ptxas(body, arch, tuple(extra), hit["output"])
        return hit["output"]
    with tempfile.TemporaryDirectory(prefix="pipeperf-ptxas-") as tmp:
        cmd = [ptxas, f"-arch={arch}", *extra, str(ptx), "-o", str(Path(tmp) / "out.cubin")]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PipeperfError(f"ptxas timed out after {timeout:.0f} s", file=str(ptx)) from None
    if r.returncode != 0:
        raise PipeperfError(f"ptxas failed: {_condense(r.stderr + r.stdout)}", file=str(ptx))
    cache.store("ptxas", key, {"output": r.stdout + r.stderr})
    prebuilt.record_ptxas(body, arch, tuple(extra), r.stdout + r.stderr)
    return r.stdout + r.stderr


def _target_of(ptx: Path) -> str:
    try:
        head = ptx.read_text(errors="replace")[:4096]
    except OSError as exc:
        raise PipeperfError(f"cannot read PTX file: {exc.strerror}", file=str(ptx)) from None
    m = re.search(r"^\s*\.target\s+(sm_\d+[a-z]?)", head, re.M)
    if not m:
        raise PipeperfError("no .target directive: pass the architecture", file=str(ptx))
    return m.group(1)


_FUNC_RE = re.compile(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?")
_USED_RE = re.compile(r"Used (\d+) registers")
_BYTES_RE = re.compile(r"(\d+) bytes (smem|lmem|stack frame|spill stores|spill loads|cmem\[(\d+)\])")
_BARRIERS_RE = re.compile(r"used (\d+) barriers")
_MINCTA_RE = re.compile(r"threads per SM for entry ([\w$.]+) is out of range\. \.minnctapersm will be ignored")


def parse_ptxas_verbose(text: str) -> dict[str, dict[str, int]]:
    """Parse ``ptxas -v`` output into per-function resource counts.

    For each function: ``registers``, ``shared_bytes`` (static smem),
    ``local_bytes`` (stack frame, or lmem where older ptxas prints it),
    ``const_bytes`` (sum over constant banks), plus ``barriers``,
    ``spill_stores``, ``spill_loads`` and ``cmem`` per bank when printed; ``minnctapersm_ignored``
    where ptxas ignored the kernel's ``__launch_bounds__`` minimum blocks (more threads than the
    target's SM holds: e.g. 8 x 256 on sm_75).
    """
    out: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    ignored = set(_MINCTA_RE.findall(text))
    for line in text.splitlines():
        fm = _FUNC_RE.search(line)
        if fm:
            current = out.setdefault(fm.group(1), {
                "registers": 0, "shared_bytes": 0, "local_bytes": 0, "const_bytes": 0})
            continue
        if current is None:
            continue
        um = _USED_RE.search(line)
        if um:
            current["registers"] = int(um.group(1))
        bm = _BARRIERS_RE.search(line)
        if bm:
            current["barriers"] = int(bm.group(1))
        for n, what, bank in _BYTES_RE.findall(line):
            v = int(n)
            if what == "smem":
                current["shared_bytes"] = v
            elif what == "lmem" or what == "stack frame":
                current["local_bytes"] = max(current["local_bytes"], v)
            elif what == "spill stores":
                current["spill_stores"] = v
            elif what == "spill loads":
                current["spill_loads"] = v
            else:
                current[f"cmem{bank}"] = v
                current["const_bytes"] += v
    for name in ignored & set(out):
        out[name]["minnctapersm_ignored"] = 1
    return out


def ptxas_resources(ptx_path: str | Path, arch: str | None = None,
                    timeout: float = 300, options: list[str] | tuple[str, ...] = ()) -> dict[str, dict[str, int]]:
    """Per-kernel resource usage from ``ptxas -v -arch=ARCH [OPTIONS]`` (arch defaults to the
    file's ``.target``; ``options`` from :func:`ptxas_options`): registers, shared/local/const bytes."""
    extra = ["-v", *(o for o in options if o not in ("-v", "--verbose"))]
    return parse_ptxas_verbose(_run_ptxas(Path(ptx_path), arch, extra, timeout))

#!/usr/bin/env python3
"""Regenerate the committed PTX of the CUDA test corpus (tests/kernels/*.cu).

Every kernel source is compiled with ``nvcc -ptx -O3`` for three targets:

* ``sm_75`` (Turing) stands in for sm_70: CUDA 13's nvcc no longer targets Volta (sm_70), and
  PTX for sm_75 contains the same instruction forms, so it is what we use to model a V100;
* ``sm_80`` (Ampere);
* ``sm_90`` (Hopper), built with ``-lineinfo`` so that one variant carries the ``.loc`` / ``.file``
  debug directives a PTX parser must tolerate.

Output: ``tests/kernels/ptx/<stem>.<arch>.ptx`` and ``tests/kernels/ptx/INDEX.txt`` (nvcc version,
flags, the files, and the (stem, arch) pairs nvcc refused, with nvcc's reason).

Why the post-processing: nvcc writes absolute paths into ``.file`` directives; we rewrite corpus
sources relative to the repository root and CUDA headers as ``cuda/include/<header>``, so the
committed files depend neither on where the checkout lives nor on where the toolkit is installed.
For the same reason the 8-hex-digit hash nvcc derives from the absolute source path and puts into
internal symbol names (``_ZN43_INTERNAL_<hash>_12_reduce_cg_cu_...``, ``_GLOBAL__N__<hash>_...``) is
replaced by ``00000000`` (same length, so the mangled-name length prefixes stay valid), both in the
PTX text and in the byte-encoded names of the ``-lineinfo`` variant's ``.section .debug_str``.
Why ``ptxas`` after nvcc: ``nvcc -ptx`` does not assemble, so an inline-asm instruction the target
lacks would slip through; each generated file is assembled once (``ptxas -arch=<arch>``) and a file
ptxas rejects is recorded as refused instead of committed.

Usage:
    python3 scripts/gen_ptx.py            # regenerate everything (2 compiler processes at a time)
    python3 scripts/gen_ptx.py saxpy      # only the named stems
    python3 scripts/gen_ptx.py --check    # regenerate in a temporary folder, exit 1 if any differ
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KERNEL_DIR = REPO / "tests" / "kernels"
PTX_DIR = KERNEL_DIR / "ptx"
ARCHS = ("sm_75", "sm_80", "sm_90")
LINEINFO_ARCH = "sm_90"
MAX_JOBS = 2  # the build machine is shared: never more than two compilers at once


@dataclasses.dataclass(frozen=True)
class Result:
    """Outcome of compiling one source for one target."""

    stem: str
    arch: str
    ptx: str | None  # post-processed PTX text, None when refused
    reason: str = ""  # first diagnostic line when refused


def nvcc_flags(arch: str) -> list[str]:
    """The nvcc flags used for one target (recorded in INDEX.txt)."""
    flags = ["-ptx", f"-arch={arch}", "-O3"]
    if arch == LINEINFO_ARCH:
        flags.append("-lineinfo")
    return flags


def _first_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower():
            return ln.replace(str(REPO) + "/", "")
    return lines[0].replace(str(REPO) + "/", "") if lines else "unknown failure"


def compile_one(src: Path, arch: str, verify: bool) -> Result:
    """Compile ``src`` for ``arch``; return the relocatable PTX text or the refusal reason."""
    with tempfile.TemporaryDirectory(prefix="gen_ptx_") as tmp:
        out = Path(tmp) / f"{src.stem}.{arch}.ptx"
        proc = subprocess.run(
            ["nvcc", *nvcc_flags(arch), "-o", str(out), str(src.relative_to(REPO))],
            cwd=REPO, capture_output=True, text=True,
        )
        if proc.returncode != 0:
            return Result(src.stem, arch, None, "nvcc: " + _first_error(proc.stderr + proc.stdout))
        if verify:
            check = subprocess.run(
                ["ptxas", f"-arch={arch}", "-o", str(Path(tmp) / "out.cubin"), str(out)],
                capture_output=True, text=True,
            )
            if check.returncode != 0:
                return Result(src.stem, arch, None, "ptxas: " + _first_error(check.stderr + check.stdout))
        text = out.read_text()
    return Result(src.stem, arch, normalise_path_hash(relocate_file_paths(text)))


def normalise_path_hash(ptx: str) -> str:
    """Replace nvcc's per-path hash in internal symbol names by zeros (see module docstring)."""
    def zero(text: str) -> str:
        return re.sub(r"(_INTERNAL_|_GLOBAL__N__)[0-9a-f]{8}_", r"\g<1>00000000_", text)

    def fix_block(m: re.Match) -> str:
        # One $L__info_stringN: label followed by `.b8 n,n,...` lines; keep the line breaks.
        rows = [[int(v) for v in ln.split(None, 1)[1].split(",")] for ln in m.group(2).strip().splitlines()]
        data = zero(bytes(b for row in rows for b in row).decode("latin-1")).encode("latin-1")
        out, pos = [], 0
        for row in rows:
            out.append(".b8 " + ",".join(str(b) for b in data[pos:pos + len(row)]))
            pos += len(row)
        return m.group(1) + "\n".join(out) + "\n"

    ptx = re.sub(r"(\$L__info_string\d+:\n)((?:\.b8 [\d,]+\n)+)", fix_block, ptx)
    return zero(ptx)


def relocate_file_paths(ptx: str) -> str:
    """Make the paths of ``.file`` directives independent of the checkout and toolkit locations."""
    def fix(m: re.Match) -> str:
        path = m.group(2)
        if path.startswith(f"{REPO}/"):
            path = path[len(str(REPO)) + 1:]
        elif "/include/" in path:
            path = "cuda/include/" + path.rsplit("/include/", 1)[1]
        return f'{m.group(1)}"{path}"'
    return re.sub(r'^(\s*\.file\s+\d+\s+)"([^"]*)"', fix, ptx, flags=re.M)


def nvcc_version() -> str:
    """The 'release' line of ``nvcc --version``."""
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True).stdout
    lines = [ln.strip() for ln in out.splitlines() if "release" in ln]
    return lines[0] if lines else out.strip().splitlines()[-1]


def render_index(results: list[Result], version: str) -> str:
    """INDEX.txt: toolchain, flags per target, produced files and refusals."""
    lines = [
        "# PTX of the CUDA test corpus, generated by scripts/gen_ptx.py -- do not edit by hand.",
        f"# nvcc: {version}",
        "# sm_75 replaces sm_70, which CUDA 13 no longer targets.",
    ]
    for arch in ARCHS:
        lines.append(f"# flags {arch}: nvcc {' '.join(nvcc_flags(arch))}")
    lines.append("")
    lines.append("[files]")
    for r in results:
        if r.ptx is not None:
            lines.append(f"{r.stem}.{r.arch}.ptx")
    lines.append("")
    lines.append("[refused]")
    for r in results:
        if r.ptx is None:
            lines.append(f"{r.stem} {r.arch}: {r.reason}")
    return "\n".join(lines) + "\n"


def compile_all(sources: list[Path], jobs: int, verify: bool) -> list[Result]:
    """Compile every (source, target) pair, at most ``jobs`` compilers at a time, in a fixed order."""
    pairs = [(src, arch) for src in sources for arch in ARCHS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda p: compile_one(p[0], p[1], verify), pairs))


def write_outputs(results: list[Result], out_dir: Path, version: str, all_sources: bool) -> None:
    """Write the PTX files and INDEX.txt into ``out_dir``; drop stale PTX of the compiled stems."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stems = {r.stem for r in results}
    for old in out_dir.glob("*.ptx"):
        if all_sources or old.name.split(".")[0] in stems:
            old.unlink()
    for r in results:
        if r.ptx is not None:
            (out_dir / f"{r.stem}.{r.arch}.ptx").write_text(r.ptx)
    if all_sources:
        (out_dir / "INDEX.txt").write_text(render_index(results, version))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stems", nargs="*", help="only these kernel files (stem names); INDEX.txt is then left alone")
    ap.add_argument("--jobs", type=int, default=MAX_JOBS, help=f"parallel compilers (1..{MAX_JOBS})")
    ap.add_argument("--no-verify", action="store_true", help="skip the ptxas check of each file")
    ap.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = ap.parse_args(argv)
    if shutil.which("nvcc") is None:
        print("gen_ptx: error: nvcc not found on PATH", file=sys.stderr)
        return 2
    jobs = max(1, min(args.jobs, MAX_JOBS))
    sources = sorted(KERNEL_DIR.glob("*.cu"))
    if args.stems:
        wanted = set(args.stems)
        unknown = wanted - {s.stem for s in sources}
        if unknown:
            print(f"gen_ptx: error: no tests/kernels/<stem>.cu for: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        sources = [s for s in sources if s.stem in wanted]
    results = compile_all(sources, jobs, verify=not args.no_verify)
    version = nvcc_version()
    if args.check:
        with tempfile.TemporaryDirectory(prefix="gen_ptx_check_") as tmp:
            write_outputs(results, Path(tmp), version, all_sources=not args.stems)
            return _compare(Path(tmp), stems={s.stem for s in sources}, index=not args.stems)
    write_outputs(results, PTX_DIR, version, all_sources=not args.stems)
    made = sum(r.ptx is not None for r in results)
    for r in results:
        if r.ptx is None:
            print(f"refused: {r.stem} {r.arch}: {r.reason}")
    print(f"gen_ptx: wrote {made} PTX files to {PTX_DIR.relative_to(REPO)} ({len(results) - made} refused)")
    return 0


def _compare(fresh: Path, stems: set[str], index: bool) -> int:
    """Exit status 1 and a short diff when the committed PTX differs from a fresh build."""
    names = {p.name for p in fresh.glob("*.ptx")}
    names |= {p.name for p in PTX_DIR.glob("*.ptx") if p.name.split(".")[0] in stems}
    if index:
        names.add("INDEX.txt")
    bad = 0
    for name in sorted(names):
        a, b = PTX_DIR / name, fresh / name
        old = a.read_text().splitlines() if a.exists() else []
        new = b.read_text().splitlines() if b.exists() else []
        if old != new:
            bad += 1
            diff = list(difflib.unified_diff(old, new, f"committed/{name}", f"fresh/{name}", lineterm="", n=1))
            print("\n".join(diff[:20]))
    print(f"gen_ptx --check: {bad} of {len(names)} files differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Where ptxas widens the loads the PTX spells out: per suite kernel and source line, the width of
the shared- and global-memory loads in the PTX (what pipeperf models) against the SASS that ptxas
makes of that PTX (what the GPU runs).

pipeperf traces and times the PTX. ptxas may fuse scalar loads at adjacent, provably aligned
addresses into one vector load (LDS.128 for four ``ld.shared.f32``), also across the iterations of
a loop it unrolls; the GPU then issues a quarter of the load instructions the model charges. The
SGEMM 2D block-tiling kernel of the suite (RTX 4090, predicted 2x the measured time) is such a
case: its PTX has 16 scalar ``ld.shared.f32`` per inner iteration, its SASS 32 ``LDS.128`` per
8 (unrolled) iterations. This script measures how widespread that is in the suite; it changes
nothing in the tool (docs/experiments/2026-11-24-loads-ptxas-widens.md).

Per line, the same bytes are loaded in both (a widened load replaces narrower ones; ptxas does not
drop the data), so the dynamic count of load instructions falls by the ratio of the widths even
where unrolling makes the static counts incomparable: that ratio is the table's ``fewer`` column.

Run:  python3 benchmarks/sass_loads.py [--suite validation] [--case GLOB] [--out FILE]

Needs nvcc, ptxas and nvdisasm (``pip install "pipeperf[cuda]"`` brings all three).
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: a PTX load: ld[.weak|.volatile|...].SPACE[.qualifiers][.vN].TYPE
_PTX_LD = re.compile(r"^\s*(?:@!?%\w+\s+)?ld\.(?:[a-z]+\.)*?(shared|global)(?:::\w+)?((?:\.\w+)*?)(?:\.v(\d))?\.([busf])(\d+)\s")
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s")
_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
_PTX_ENTRY = re.compile(r"^\s*(?:\.visible\s+)?\.entry\s+([\w$.]+)")
#: a SASS load of shared (LDS) or global (LDG) memory, with its width suffixes
_SASS_LD = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?(LDS|LDG)((?:\.[\w]+)*)\s")
_SASS_LINE = re.compile(r'//## File "([^"]+)", line (\d+)')
_SASS_FUNC = re.compile(r"^\.text\.([\w$.]+):")
_SASS_WIDTH = {"128": 16, "64": 8, "U8": 1, "S8": 1, "U16": 2, "S16": 2}


@dataclass
class LineLoads:
    """The loads of one space on one source line: bytes per thread of each instruction."""

    ptx: list[int] = field(default_factory=list)
    sass: list[int] = field(default_factory=list)

    @staticmethod
    def mean(xs: list[int]) -> float:
        return sum(xs) / len(xs) if xs else 0.0


def _scan(text: str, kernel: str, function: re.Pattern[str], line_of: Callable[[str], tuple[str, int] | None],
          load_of: Callable[[str], tuple[str, int] | None]) -> dict[tuple[str, int, str], list[int]]:
    """{(file name, line, space): [bytes per thread of each load]} of function ``kernel`` in a
    listing: ``function`` matches a function's first line (group 1: its name), ``line_of`` a
    source-line marker, ``load_of`` a load ((space, bytes) or None)."""
    out: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    inside, where = False, ("", 0)
    for line in text.splitlines():
        f = function.match(line)
        if f:
            inside = f.group(1) == kernel
        elif inside and (loc := line_of(line)) is not None:
            where = loc
        elif inside and (ld := load_of(line)) is not None:
            out[(*where, ld[0])].append(ld[1])
    return out


def ptx_loads(ptx: str, kernel: str) -> dict[tuple[str, int, str], list[int]]:
    """:func:`_scan` of entry ``kernel`` in PTX text (loads in a ``.func`` the entry calls are not
    counted: nvcc inlines most device functions)."""
    files = {m.group(1): m.group(2) for m in map(_PTX_FILE.match, ptx.splitlines()) if m}

    def line_of(line: str) -> tuple[str, int] | None:
        m = _PTX_LOC.match(line)
        return None if m is None else (Path(files.get(m.group(1), "")).name, int(m.group(2)))

    def load_of(line: str) -> tuple[str, int] | None:
        m = _PTX_LD.match(line)
        return None if m is None else (m.group(1), int(m.group(3) or 1) * int(m.group(5)) // 8)
    return _scan(ptx, kernel, _PTX_ENTRY, line_of, load_of)


def sass_loads(sass: str, kernel: str) -> dict[tuple[str, int, str], list[int]]:
    """The same for the SASS of ``nvdisasm -g -c`` (LDS: shared, LDG: global)."""
    def line_of(line: str) -> tuple[str, int] | None:
        m = _SASS_LINE.search(line)
        return None if m is None else (Path(m.group(1)).name, int(m.group(2)))

    def load_of(line: str) -> tuple[str, int] | None:
        m = _SASS_LD.match(line)
        if m is None:
            return None
        widths = [_SASS_WIDTH[x] for x in m.group(2).split(".") if x in _SASS_WIDTH]
        return ("shared" if m.group(1) == "LDS" else "global", widths[0] if widths else 4)
    return _scan(sass, kernel, _SASS_FUNC, line_of, load_of)


def compare(ptx: str, sass: str, kernel: str) -> dict[tuple[str, int, str], LineLoads]:
    got: dict[tuple[str, int, str], LineLoads] = defaultdict(LineLoads)
    for k, v in ptx_loads(ptx, kernel).items():
        got[k].ptx = v
    for k, v in sass_loads(sass, kernel).items():
        got[k].sass = v
    return dict(got)


def build(cu: Path, arch: str, flags: tuple[str, ...], tmp: Path) -> tuple[str, str]:
    """(PTX, SASS) of ``cu`` for ``arch``: the PTX as pipeperf compiles it, the SASS of that PTX."""
    from pipeperf.ptx.compile import compile_cu
    from pipeperf.ptx.toolkit import find_tool

    ptx = compile_cu(cu, arch, lineinfo=True, extra_args=flags)
    src = tmp / f"{cu.stem}-{arch}.ptx"
    src.write_text(ptx)
    cubin = src.with_suffix(".cubin")
    subprocess.run([find_tool("ptxas"), f"-arch={arch}", str(src), "-o", str(cubin)], check=True,
                   capture_output=True)
    sass = subprocess.run([find_tool("nvdisasm"), "-g", "-c", str(cubin)], check=True, capture_output=True,
                          text=True).stdout
    return ptx, sass


def main(argv: list[str] | None = None) -> int:
    from pipeperf.measure.suite import _gpu_target, load_suite

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default=str(ROOT / "validation"))
    ap.add_argument("--case", action="append", default=[], help="case ids matching (repeat)")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args(argv)
    cases = [c for c in load_suite(a.suite) if not a.case or any(fnmatch.fnmatch(c.id, g) for g in a.case)]
    launches: dict[tuple[str, str, str, tuple[str, ...]], list[str]] = defaultdict(list)
    for c in cases:
        arch = c.launch.arch or _gpu_target(c.gpu) or ""
        launches[(c.launch.kernel_file, c.launch.kernel, arch, c.launch.nvcc_flags)].append(c.id)
    lines = ["where ptxas widens loads (bytes per thread per load instruction, PTX -> SASS; fewer: "
             "the load instructions the GPU issues per one the model charges on that line)",
             f"{'kernel':34s} {'arch':6s} {'line':>5s} {'space':6s} {'PTX B':>6s} {'SASS B':>7s} {'fewer':>6s}  cases"]
    widened = 0
    with tempfile.TemporaryDirectory(prefix="pipeperf-sass-") as t:
        builds: dict[tuple[str, str, tuple[str, ...]], tuple[str, str]] = {}
        for (cu, kernel, arch, flags), ids in sorted(launches.items()):
            key = (cu, arch, flags)
            if key not in builds:
                builds[key] = build(Path(cu), arch, flags, Path(t))
            ptx, sass = builds[key]
            for (_file, line, space), ld in sorted(compare(ptx, sass, kernel).items()):
                pw, sw = LineLoads.mean(ld.ptx), LineLoads.mean(ld.sass)
                if not ld.ptx or not ld.sass or sw <= pw * 1.01:
                    continue
                widened += 1
                first = ids[0] + (f" (+{len(ids) - 1})" if len(ids) > 1 else "")
                lines.append(f"{kernel[:34]:34s} {arch:6s} {line:5d} {space:6s} {pw:6.1f} {sw:7.1f} "
                             f"{pw / sw:6.2f}  {first}")
    lines.append(f"{widened} (kernel, line, space) with wider loads in the SASS than in the PTX, "
                 f"over {len(launches)} kernel launches of {len(cases)} cases")
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

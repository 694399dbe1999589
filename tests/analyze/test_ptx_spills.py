"""The PTX IDGs get the spill code ptxas adds, from the SASS (analysis/ptx_spills.py, issue 36);
nothing changes where ptxas spills nothing."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pipeperf.analysis.ptx_spills import PtxSpills, has_spill_code
from pipeperf.idg.build import inserted_entries
from pipeperf.sass.listing import SassBlock, SassInstr

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def _ins(k: int, opcode: str, line: int, *ops: str) -> SassInstr:
    return SassInstr(k, 16 * k, "", opcode, (), ops, "k.cu", line)


class _View:
    """A SassView's surface PtxSpills reads: one block run ``count`` times per warp."""

    def __init__(self, sass: list[SassInstr], ptx_lines: list[int], count: int):
        self.sass = SimpleNamespace(instructions=tuple(sass), blocks=(SassBlock(0, 0, len(sass), (-1,)),))
        self.sass_keys = tuple(("k.cu", s.line) for s in sass)
        self.ptx_keys = tuple(("k.cu", n) for n in ptx_lines)
        self.count = count

    def demand(self, entries):
        return np.zeros(1), {}

    def solve(self, demand):
        return np.array([float(self.count)]), np.zeros(0), False


def _func(spaces: list[str | None]):
    return SimpleNamespace(instructions=[SimpleNamespace(op=SimpleNamespace(root="fma", space=s)) for s in spaces])


def test_spills_are_spread_over_their_line_and_feed_its_instructions():
    # PTX: pc 0 line 10, pcs 1-2 line 20, pc 3 line 30; the SASS reloads and spills on line 20 and
    # reloads on line 99, which no PTX instruction has
    sass = [_ins(0, "FFMA", 20, "R1", "R2", "R3", "R4"), _ins(1, "LDL", 20, "R5", "[R1+0x10]"),
            _ins(2, "STL", 20, "[R1+0x10]", "R5"), _ins(3, "LDL", 99, "R6", "[R1+0x20]")]
    view = _View(sass, [10, 20, 20, 30], count=2)
    spills = PtxSpills(view, _func([None] * 4), lambda x: f"local.{x.opcode}")   # type: ignore[arg-type]
    trace = [{"pc": p, "opcode": "x"} for p in (0, 1, 2, 1, 2, 3)]
    out = spills.insert(trace)
    assert len(out) == len(trace) + 6
    ops = [e["opcode"] for e in out]
    assert ops.count("LDL") == 4 and ops.count("STL") == 2
    assert dict(spills.added) == {"LDL": 4, "STL": 2} and spills.spread == 2 and spills.warps == 1
    # line 20's four instructions (trace positions 1..4): a reload before the 2nd and 4th, which read it
    line20 = [e for e in out if "cls" not in e and e["pc"] in (1, 2)]
    fed = [e for e in line20 if e.get("also_reads")]
    assert [e["pc"] for e in fed] == [2, 2]
    for e in fed:
        j = next(k for k, x in enumerate(out) if x is e)
        reloads = []
        while out[j - 1 - len(reloads)]["opcode"] == "LDL":
            reloads.append(out[j - 1 - len(reloads)]["regs"][1][0])
        assert len(e["also_reads"]) == 1 and e["also_reads"][0] in reloads
    # each spill store right after one of line 20's instructions, reading what it wrote
    for j, e in enumerate(out):
        if e["opcode"] == "STL":
            assert out[j - 1]["pc"] in (1, 2) and e["regs"] == ("written", out[j - 1]["pc"])
            assert e["cls"] == "local.STL" and e["local"] == (0, 4)
    note = spills.note()
    assert note is not None and "2 LDL and 1 STL" not in note and "4 LDL and 2 STL per warp" in note
    assert "33% of them at lines the traced PTX does not have" in note


def test_inserted_entries_name_their_class_and_registers():
    def base_class(e):
        return "fma"

    def base_regs(e):
        return (("%f1",), ("%f2",)) if e["pc"] == 7 else ((), ())

    cls, regs = inserted_entries(base_class, base_regs)
    reload = {"pc": 7, "opcode": "LDL", "cls": "ld_local", "regs": ((), ("%spill.0",)), "local": (1, 4)}
    use = {"pc": 7, "opcode": "x", "also_reads": ("%spill.0",)}
    store = {"pc": 7, "opcode": "STL", "cls": "st_local", "regs": ("written", 7), "local": (0, 4)}
    assert cls(reload) == "ld_local" and cls(use) == "fma" and cls(store) == "st_local"
    assert regs(reload) == ((), ("%spill.0",))
    assert regs(use) == (("%f1", "%spill.0"), ("%f2",))
    assert regs(store) == (("%f2",), ())


STACK = """extern "C" __global__ void stack_array(const float* x, const int* sel, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float buf[64];
    for (int k = 0; k < 64; ++k) buf[k] = x[i] * (float)k;
    float s = 0.f;
    for (int k = 0; k < 8; ++k) s += buf[sel[i * 8 + k] & 63];
    out[i] = s;
}
"""


def test_a_stack_array_the_ptx_has_is_not_added_again(tmp_path):
    """A stack array indexed at run time is in the PTX's local memory (ld.local/st.local) and the
    SASS's (LDL/STL, no spills): those are the PTX's own accesses, so there is no spill code to add
    and the PTX path is as before."""
    from pipeperf.analysis.builds import Builds
    from pipeperf.emulate import select_kernel
    from pipeperf.hardware.spec import load_gpu

    src = tmp_path / "stack.cu"
    src.write_text(STACK)
    build = Builds(src, None, []).for_gpu(load_gpu("a100"))
    func = select_kernel(build.module, None)
    view = build.sass_view(func)
    assert build.resources[func.name]["local_bytes"] > 0 and not build.resources[func.name]["spill_stores"]
    assert {"LDL", "STL"} <= {x.opcode for x in view.sass.instructions}
    assert any(x.op.space == "local" for x in func.instructions)
    assert not has_spill_code(view, func, build.resources[func.name])
    # the same SASS with spills reported: the stack array's lines still add nothing
    assert not has_spill_code(view, func, {"spill_stores": 4, "spill_loads": 4})


def test_no_spill_code_without_spills():
    from pipeperf.analysis.builds import Builds
    from pipeperf.emulate import select_kernel
    from pipeperf.hardware.spec import load_gpu

    build = Builds(KERNELS / "matmul_tiled.cu", None, []).for_gpu(load_gpu("h100"))
    func = select_kernel(build.module, None)
    assert not build.resources[func.name].get("spill_stores")
    assert not has_spill_code(build.sass_view(func), func, build.resources[func.name])


#: 79 registers on sm_80 without a cap (tests/analyze/test_build_options.py's kernel); with
#: -maxrregcount=32 ptxas spills 252 B per thread
POLY = re.search(r'KERNEL = """(.*?)"""', (Path(__file__).parent / "test_build_options.py").read_text(), re.S)
N = 262144


@pytest.mark.slow
def test_the_ptx_path_times_the_spills_as_the_sass_path_does(tmp_path, monkeypatch):
    from pipeperf.analysis import analyze, ptx_spills

    assert POLY is not None
    src = tmp_path / "poly.cu"
    src.write_text(POLY.group(1))
    args = [f"rand:f32:{16 * N}", f"zeros:f32:{N}", str(N)]

    def run(isa: str):
        a = analyze(src, 1024, 256, args, ["a100"], isa=isa, models=False, what_if=False,
                    nvcc_flags=["-maxrregcount=32"])
        return a.predictions[0]

    ptx, sass = run("ptx"), run("sass")
    assert ptx.resources["spill_stores"] > 0
    note = next(n for n in ptx.notes if n.startswith("register spills"))
    assert "LDL" in note and "STL" in note and "per warp" in note
    assert any(n.startswith("local memory (register spills") for n in ptx.notes)
    monkeypatch.setattr(ptx_spills, "has_spill_code", lambda view, func, resources: False)
    without = run("ptx")
    assert not any(n.startswith("register spills") for n in without.notes)
    # the spill traffic triples the time (LDL/STL through L1 and L2); the SASS path agrees
    assert ptx.seconds > 2 * without.seconds
    assert abs(ptx.seconds / sass.seconds - 1) < 0.25

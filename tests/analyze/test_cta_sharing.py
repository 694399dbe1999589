"""Address structure: which %ctaid dimensions a global access depends on, from the PTX's def-use
slices, and how many CTAs of a wave therefore read the same sectors."""


import pytest

from pipeperf.analysis.cta_sharing import address_cta_dims, ctas_sharing, sharing_by_pc
from pipeperf.emulate import load_module, select_kernel
from pipeperf.hardware.accesses import PcMemory
from pipeperf.ptx.defuse import DefUse


def global_pcs(f):
    return [i for i, x in enumerate(f.instructions)
            if x.op.root in ("ld", "st", "atom", "red") and x.op.space in ("global", None, "generic")]


def test_matmul_rows_of_a_and_columns_of_b():
    f = select_kernel(load_module("tests/kernels/matmul_tiled.cu"), None)
    du = DefUse.of(f)
    dims = {f.instructions[pc].opcode + f"@{pc}": address_cta_dims(f, pc, du) for pc in global_pcs(f)}
    # A[row * n + t * TILE + tx]: row from blockIdx.y; B[(t * TILE + ty) * n + col]: col from blockIdx.x
    assert sorted(map(sorted, dims.values())) == [["x"], ["x", "y"], ["y"]]
    by_pc = sharing_by_pc(f, global_pcs(f), (64, 64, 1), 640)
    # a wave of 640 CTAs = 10 grid rows of 64: A rows shared by 64 CTAs, B columns by 10, C by 1
    assert sorted(s for _, s in by_pc.values()) == [1.0, 10.0, 64.0]


def test_addresses_loaded_from_memory_depend_on_everything():
    f = select_kernel(load_module("tests/kernels/histogram_global.cu"), None)
    du = DefUse.of(f)
    atoms = [pc for pc in global_pcs(f) if f.instructions[pc].op.root in ("atom", "red")]
    assert atoms and all(address_cta_dims(f, pc, du) == {"x", "y", "z"} for pc in atoms)


@pytest.mark.parametrize("dims, grid, wave, share", [
    ({"y"}, (64, 64, 1), 640, 64.0),
    ({"x"}, (64, 64, 1), 640, 10.0),
    ({"x", "y"}, (64, 64, 1), 640, 1.0),
    (set(), (64, 64, 1), 640, 640.0),          # the same address for every CTA
    ({"x"}, (1000, 1, 1), 100, 1.0),           # a 1-D grid: every CTA its own x
    ({"z"}, (4, 4, 8), 32, 16.0),              # 32 CTAs = 2 z-planes of 16
    ({"x"}, (8, 8, 1), 640, 8.0),              # the wave is capped at the grid (64 CTAs)
])
def test_ctas_sharing(dims, grid, wave, share):
    assert ctas_sharing(dims, grid, wave) == share


def test_shared_sectors_lower_the_miss_rate_but_never_raise_it():
    st = PcMemory(0, "global", requests=10, sectors=40, l2_hits=0, intra_hits=0, shared_by=10.0)
    assert st.hit_rate == pytest.approx(0.9) and st.traced_hit_rate == 0.0
    # the traced clusters already found more reuse than the structure gives: kept
    st = PcMemory(0, "global", requests=10, sectors=40, l2_hits=38, intra_hits=0, shared_by=4.0)
    assert st.hit_rate == pytest.approx(0.95)
    # intra-CTA reuse (7 of 8) and 2 CTAs sharing: miss = (1/8) / 2
    st = PcMemory(0, "global", requests=10, sectors=80, l2_hits=70, intra_hits=70, shared_by=2.0)
    assert st.hit_rate == pytest.approx(1 - 1 / 16)
    assert PcMemory(0, "global", requests=10, sectors=80, l2_hits=70, intra_hits=70).hit_rate == 70 / 80

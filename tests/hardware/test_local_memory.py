"""Local memory (spills, stack arrays) costs by where its footprint fits (hardware/local_memory.py)."""
from __future__ import annotations

import pytest

from pipeperf.hardware.local_memory import local_class, local_class_name, local_footprint
from pipeperf.hardware.sass_mapper import access_bytes
from pipeperf.hardware.spec import load_gpu
from pipeperf.sass.listing import SassInstr


def _ins(k: int, opcode: str, mods: tuple[str, ...], *ops: str) -> SassInstr:
    return SassInstr(k, 16 * k, "", opcode, mods, ops, "k.cu", 1)


def test_footprint_counts_the_stack_slots_the_sass_touches():
    code = [_ins(0, "STL", ("64",), "[R1+0x10]", "R2"), _ins(1, "LDL", ("LU", "64"), "R4", "[R1+0x10]"),
            _ins(2, "LDL", (), "R5", "[R1]"), _ins(3, "FFMA", (), "R1", "R2", "R3", "R4")]
    fp = local_footprint(code, 4096, access_bytes)
    assert fp is not None and fp.exact and fp.bytes_per_thread == 12 and fp.instructions == 3
    # an access at a run-time address (a stack array indexed by a variable): the whole frame counts
    fp = local_footprint(code + [_ins(4, "LDL", (), "R6", "[R7+0x8]")], 4096, access_bytes)
    assert fp is not None and not fp.exact and fp.bytes_per_thread == 4096
    assert local_footprint(code[3:], 4096, access_bytes) is None


def test_spills_that_fit_in_l1_cost_an_l1_hit_and_those_that_do_not_go_to_l2_and_dram():
    gpu = load_gpu("hopper_h100")
    base = gpu.classes["ld_local_s32"]
    small = local_footprint([_ins(0, "LDL", (), "R2", "[R1+0x20]")], 0, access_bytes)
    assert small is not None
    fits = local_class(gpu, "ld_local_s32", 4, small, 2048, 0, 132)
    assert fits.name == local_class_name("ld_local_s32", 4)
    assert (fits.cpi, fits.latency, fits.subsystem) == (base.cpi, base.latency, base.subsystem)
    big = local_footprint([_ins(0, "LDL", (), "R2", "[R9]")], 4520, access_bytes)   # ktpaper conv17's frame
    assert big is not None
    one_block = local_class(gpu, "ld_local_s32", 4, big, 256, 27648, 132)
    assert one_block.cpi > 2 * base.cpi and one_block.latency > 2 * base.latency
    assert "L1 keeps 20%" in one_block.source
    # more resident threads: a smaller share of the footprint in the caches, a dearer request
    two_blocks = local_class(gpu, "ld_local_s32", 4, big, 512, 2 * 27648, 132)
    assert two_blocks.cpi > one_block.cpi
    wide = local_class(gpu, "ld_local_s32", 8, big, 256, 27648, 132)      # LDL.64: two lines per request
    assert wide.cpi == pytest.approx(2 * one_block.cpi, rel=0.05)

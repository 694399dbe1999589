"""Mapper f (PTX opcode -> GPU database class) over the whole corpus."""

import glob

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware.mapper import class_of, map_instruction, resolve
from pipeperf.hardware.spec import load_gpu
from pipeperf.ptx import parse_file

TENSOR = {"mma", "wmma.mma"}   # Pascal has no tensor cores: the error names the class and the GPU


def test_mapper_covers_corpus_or_names_the_class():
    classes = set(load_gpu("pascal_gtx1060").classes)
    seen = 0
    for f in sorted(glob.glob("tests/kernels/ptx/*.sm_90.ptx")):
        for fn in parse_file(f).kernels:
            for ins in fn.instructions:
                if ins.op.root in TENSOR:
                    with pytest.raises(PipeperfError, match=r"pascal_gtx1060.*'mma_f16_f32_m16n"):
                        map_instruction(ins, classes, "pascal_gtx1060")
                    continue
                assert map_instruction(ins, classes, "pascal_gtx1060") in classes
                seen += 1
    assert seen > 1000


def test_mapper_table():
    assert class_of("fma", ("f32",)) == "fma_f32"
    assert class_of("add", ("f64",)) == "add_f64"
    assert class_of("div", ("s32",)) == "div_s32"
    assert class_of("div", ("f64",)) == "div_f64"
    assert class_of("cos", ("f32",), None, ("approx",)) == "cos_f32"
    assert class_of("ld", ("f32",), "shared") == "ld_shared_f32"
    assert class_of("st", ("f32",), "local") == "st_local"
    assert class_of("bar", (), None) == "bar_sync"
    assert class_of("mul", ("s32",), None, ("lo",)) == "mul_s32"


def test_missing_class_names_gpu():
    fermi = set(load_gpu("fermi_c2050").classes)
    assert resolve("ld_shared_f32", fermi, "fermi_c2050") in fermi
    with pytest.raises(PipeperfError, match=r"fermi_c2050.*tensor"):
        resolve("tensor", fermi, "fermi_c2050")

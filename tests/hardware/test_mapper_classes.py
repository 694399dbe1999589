"""Mapper f: specific classes, documented fallback chains, every corpus instruction on every GPU."""

from __future__ import annotations

import functools
import glob
import re

import pytest

from pipeperf.errors import PipeperfError
from pipeperf.hardware import mapper
from pipeperf.hardware.mapper import (FALLBACKS, class_of, class_of_opcode, fallbacks, map_instruction, resolve,
                                      state_space_of)
from pipeperf.hardware.spec import available_gpus, load_gpu
from pipeperf.ptx import parse_file
from pipeperf.ptx.opcodes import KNOWN

TOY = "example_table2"                      # Table 2's abstract two-class machine (comp, mem), not a GPU
GPUS = [g for g in available_gpus() if g != TOY]
MODERN = ["volta_v100", "ampere_a100", "hopper_h100"]
TENSOR_ROOTS = {"mma", "wmma.mma"}
SM80_SHAPE = re.compile(r"m16n8k\d+")       # mma.sync shapes PTX allows on sm_80+ only (V100 is sm_70)
SM75_MMA = re.compile(r"mma_f16_f(16|32)_m16n8k8$")   # ...but for f16 m16n8k8, which sm_75 has


@functools.lru_cache(maxsize=1)
def corpus() -> tuple:
    """(file, instruction) for every instruction of every committed corpus PTX file."""
    out = []
    for f in sorted(glob.glob("tests/kernels/ptx/*.ptx")):
        for fn in parse_file(f).functions:
            out.extend((f, ins) for ins in fn.instructions)
    return tuple(out)


@functools.cache
def _spec(gpu: str):
    return load_gpu(gpu)


def classes(gpu: str) -> frozenset[str]:
    return frozenset(load_gpu(gpu).classes)


def test_corpus_is_large_and_has_tensor_instructions():
    roots = {ins.op.root for _, ins in corpus()}
    assert len(corpus()) > 5000
    assert {"wmma.mma", "mma", "wmma.load", "wmma.store", "shfl", "atom", "cp.async", "div"} <= roots


def expected_error(gpu: str, ins) -> str | None:
    """Class the GPU cannot provide for ``ins``, or None. Seed files keep only the papers' numbers:
    no tensor-core classes (Fermi..Pascal, Tonga have no tensor cores; Turing's come from its
    whitepaper) and no fp64 division on Turing (Table 5: '-'). V100 (sm_70) cannot run mma.m16n8k*
    (sm_80+), nor Turing (sm_75) but its f16 mma.m16n8k8. GA102/AD102 (cc 8.6/8.9) have no FP64
    tensor cores: no fp64 mma class."""
    op = ins.op
    cls = class_of(op.root, op.types, op.space, op.modifiers)
    spec = _spec(gpu)
    modern = any(c.subsystem == "tensor" for c in spec.classes.values())
    if op.root in TENSOR_ROOTS:
        sm80 = op.root == "mma" and any(SM80_SHAPE.match(m) for m in op.modifiers)
        if spec.compute_capability == "7.5" and SM75_MMA.match(cls):
            sm80 = False
        if not modern or (spec.compute_capability in ("7.0", "7.5") and sm80):
            return cls
        if spec.compute_capability in ("8.6", "8.9") and cls.startswith("mma_f64"):
            return cls
    if gpu == "turing_rtx2070" and cls in ("div_f64", "rcp_f64", "sqrt_f64"):
        return cls
    return None


@pytest.mark.parametrize("gpu", GPUS)
def test_every_corpus_instruction_maps_on_every_gpu(gpu):
    """Each instruction resolves to a class the GPU defines; where the database cannot (expected_error)
    the error names the GPU and the class."""
    avail = classes(gpu)
    mapped = tensor = errors = 0
    for f, ins in corpus():
        bad = expected_error(gpu, ins)
        if bad:
            with pytest.raises(PipeperfError, match=f"GPU '{gpu}' has no instruction class '{bad}'"):
                map_instruction(ins, avail, gpu)
            errors += 1
            continue
        got = map_instruction(ins, avail, gpu)
        assert got in avail, (f, ins.opcode)
        mapped += 1
        tensor += ins.op.root in TENSOR_ROOTS
    assert mapped > 5000
    if gpu in MODERN:
        assert tensor > 0                                   # wmma maps on V100 too
    if load_gpu(gpu).compute_capability in ("8.0", "9.0"):
        assert errors == 0


def test_toy_machine_is_not_a_gpu_and_says_so():
    _, ins = next((f, i) for f, i in corpus() if i.op.root == "add")
    with pytest.raises(PipeperfError, match=f"GPU '{TOY}' has no instruction class"):
        map_instruction(ins, classes(TOY), TOY)


@pytest.mark.parametrize("opcode,cls", [
    ("add.s32", "add_s32"), ("add.u64", "add_s32"), ("shl.b32", "add_s32"), ("setp.lt.s32", "add_s32"),
    ("selp.f32", "add_s32"), ("mov.u32", "add_s32"), ("cvt.s64.s32", "add_s32"), ("lop3.b32", "add_s32"),
    ("setp.lt.f32", "add_f32"), ("abs.f32", "add_f32"), ("mul.rn.f32", "mul_f32"), ("fma.rn.f32", "fma_f32"),
    ("add.f64", "add_f64"), ("mul.f64", "mul_f64"), ("fma.rn.f64", "fma_f64"), ("fma.rn.f16x2", "fma_f16"),
    ("set.eq.f16x2.f16x2", "add_f16"), ("set.ltu.u32.f16x2", "add_f16"), ("setp.gt.f16x2", "add_f16"),
    ("set.nan.f16.f16", "add_f16"), ("max.NaN.f16x2", "add_f16"), ("neg.f16x2", "add_f16"),
    ("set.lt.u32.s32", "add_s32"), ("set.gt.f32.f32", "add_f32"),
    ("mul.lo.s32", "mul_s32"), ("mul.wide.u32", "mul_s32"), ("mul.lo.s64", "mul_s64"),
    ("div.s32", "div_s32"), ("rem.u64", "div_s64"),
    ("div.rn.f32", "div_f32"), ("div.approx.f32", "div_approx_f32"), ("div.full.f32", "div_approx_f32"),
    ("rcp.rn.f32", "rcp_f32"), ("rcp.approx.ftz.f32", "rcp_approx_f32"), ("sqrt.rn.f32", "sqrt_f32"),
    ("sqrt.approx.f32", "sqrt_approx_f32"), ("div.rn.f64", "div_f64"), ("sqrt.rn.f64", "sqrt_f64"),
    ("rcp.approx.ftz.f64", "rcp_approx_f64"), ("ex2.approx.ftz.f32", "ex2_f32"), ("sin.approx.f32", "sin_f32"),
    ("cvt.rn.f32.s32", "cvt_i2f"), ("cvt.rn.f32.u16", "cvt_i2f"), ("cvt.rn.f32.s64", "cvt"),
    ("cvt.rzi.u32.f32", "cvt"), ("cvt.rn.f32.f64", "cvt_f64"),
    ("ld.global.nc.v4.f32", "ld_global_s32"), ("ld.u32", "ld_global_s32"), ("st.global.f32", "st_global"),
    ("atom.global.add.u32", "atom_global"), ("red.global.add.u32", "atom_global"),
    ("ld.shared.f32", "ld_shared_f32"), ("st.shared.u32", "st_shared"), ("atom.shared.add.u32", "atom_shared"),
    ("ld.local.u32", "ld_local_s32"), ("st.local.v4.f32", "st_local"), ("ld.const.f32", "ld_const"),
    ("ld.param.u64", "ld_param"), ("cp.async.ca.shared.global", "cp_async"), ("cp.async.wait_group", "add_s32"),
    ("shfl.sync.bfly.b32", "shfl"), ("redux.sync.add.s32", "shfl"), ("vote.sync.ballot.b32", "add_s32"),
    ("bar.sync", "bar_sync"), ("barrier.sync.aligned", "bar_sync"), ("bar.warp.sync", "add_s32"),
    ("membar.gl", "membar"), ("mbarrier.arrive.shared.b64", "atom_shared"),
    ("bra.uni", "control"), ("ret", "control"), ("call.uni", "control"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ld_shared_f32"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", "ld_shared_f32"),
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32", "st_global"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", "mma_f16_f32_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m32n8k16.f16.f16", "mma_f16_f16_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32", "mma_bf16_f32_m16n16k16"),
    # the forms the emulator runs since issue 36: mixed f16/f32 C and D are f32 accumulation
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32", "mma_f16_f32_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16", "mma_f16_f32_m16n16k16"),
    ("wmma.mma.sync.aligned.col.row.m8n32k16.f32.f32", "mma_f16_f32_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.s32.u8.u8.s32", "mma_i8_s32_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m8n32k16.s32.s8.s8.s32.satfinite", "mma_i8_s32_m16n16k16"),
    ("wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", "mma_tf32_f32_m16n16k8"),
    ("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn", "mma_f64_f64_m8n8k4"),
    ("cvt.rna.tf32.f32", "cvt"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma_f16_f32_m16n8k16"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma_bf16_f32_m16n8k16"),
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "mma_tf32_f32_m16n8k8"),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "mma_i8_s32_m16n8k32"),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "mma_f64_f64_m8n8k4"),
])
def test_most_specific_class(opcode, cls):
    assert class_of_opcode(opcode) == cls


def test_specific_class_where_the_gpu_has_it_fallback_elsewhere():
    assert resolve("add_s32", classes("hopper_h100"), "hopper_h100") == "add_s32"
    assert resolve("add_s32", classes("pascal_gtx1060"), "pascal_gtx1060") == "add_f32"
    assert resolve("add_s32", classes("kepler_gtx650ti"), "kepler_gtx650ti") == "mul_f32"   # no add_f32 in Table 5
    assert resolve("st_shared", classes("hopper_h100"), "hopper_h100") == "st_shared"
    assert resolve("st_shared", classes("pascal_gtx1060"), "pascal_gtx1060") == "ld_shared_f32"
    assert resolve("st_shared", classes("kepler_gtx650ti"), "kepler_gtx650ti") == "ld_local_s32"
    assert resolve("shfl", classes("ampere_a100"), "ampere_a100") == "shfl"
    assert resolve("shfl", classes("maxwell_k620"), "maxwell_k620") == "ld_local_s32"
    assert resolve("fma_f64", classes("pascal_gtx1060"), "pascal_gtx1060") == "mul_f64"
    assert resolve("cvt", classes("pascal_gtx1060"), "pascal_gtx1060") == "cos_f32"
    assert resolve("cvt_f64", classes("pascal_gtx1060"), "pascal_gtx1060") == "mul_f64"
    assert resolve("cvt_f64", classes("ampere_a100"), "ampere_a100") == "cvt"
    # an integer into f32: an I2FP from cc 8.6 (its own class, the integer ALU's rate), an I2F before
    assert resolve("cvt_i2f", classes("ampere_a100"), "ampere_a100") == "cvt"
    for gpu in ("ampere_rtx3090", "ada_rtx4090", "hopper_h200_lent"):
        assert resolve("cvt_i2f", classes(gpu), gpu) == "cvt_i2f"
        g = load_gpu(gpu)
        assert g.classes["cvt_i2f"].cpi == g.classes["add_s32"].cpi < g.classes["cvt"].cpi
    # f16 accumulate falls back to f32 accumulate of the same type and shape
    a100 = classes("ampere_a100")
    assert resolve("mma_f16_f16_m16n8k16", a100, "ampere_a100") == "mma_f16_f32_m16n8k16"
    assert resolve("mma_f16_f16_m16n16k16", classes("volta_v100"), "volta_v100") == "mma_f16_f32_m16n16k16"
    assert resolve("mma_bf16_f32_m16n16k16", a100, "ampere_a100") == "mma_bf16_f32_m16n16k16"


def test_ieee_and_approximate_division_differ():
    div, approx = class_of_opcode("div.rn.f32"), class_of_opcode("div.approx.f32")
    assert (div, approx) == ("div_f32", "div_approx_f32")
    for gpu in MODERN:
        g = load_gpu(gpu)
        assert g.classes[div].latency > 5 * g.classes[approx].latency   # ~225 vs ~29 cycles
    # seed GPUs: Table 5's div.f32 is the approximate division; IEEE div falls back to it
    pascal = load_gpu("pascal_gtx1060")
    assert "div_f32" not in pascal.classes and pascal.classes["div_approx_f32"].latency == 18
    assert resolve(div, set(pascal.classes), pascal.name) == "div_approx_f32"
    assert class_of_opcode("sqrt.rn.f32") != class_of_opcode("sqrt.approx.f32")
    assert class_of_opcode("rcp.rn.f32") != class_of_opcode("rcp.approx.f32")


def test_missing_class_and_fallbacks_is_one_line_error_naming_both(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text("name: tiny\ncores: 1\nclock_ghz: 1\nissue_limit: 1\n"
                 "classes: {mul_f32: {subsystem: alu, cpi: 1, latency: 4, source: test}}\n")
    tiny = set(load_gpu(p).classes)
    assert resolve("shfl", tiny, "tiny") == "mul_f32"          # end of the shfl chain
    with pytest.raises(PipeperfError) as e:
        resolve("st_global", tiny, "tiny")
    msg = str(e.value)
    assert "\n" not in msg and "GPU 'tiny'" in msg and "'st_global'" in msg and "ld_global_s32" in msg
    with pytest.raises(PipeperfError, match=r"GPU 'tiny' has no instruction class 'bar_sync' .and it has no fallback"):
        resolve("bar_sync", tiny, "tiny")


def test_tensor_instructions_need_tensor_cores():
    fermi = classes("fermi_c2050")
    with pytest.raises(PipeperfError, match=r"GPU 'fermi_c2050' has no instruction class "
                                            "'mma_f16_f32_m16n8k16' .*tensor-core"):
        resolve("mma_f16_f32_m16n8k16", fermi, "fermi_c2050")
    with pytest.raises(PipeperfError, match="'volta_v100' has no instruction class 'mma_bf16_f32_m16n16k16'"):
        resolve("mma_bf16_f32_m16n16k16", classes("volta_v100"), "volta_v100")       # bf16 needs sm_80


def test_every_class_of_output_has_a_documented_chain():
    """Every class the mapper can name is in the one table (or follows the tensor rule), every chain
    member is itself a table class, no chain repeats its class, and the docstring names each class."""
    doc = mapper.__doc__
    for cls, chain in FALLBACKS.items():
        assert cls not in chain and len(set(chain)) == len(chain), cls
        assert all(c in FALLBACKS for c in chain), (cls, chain)
        assert f"``{cls}``" in doc or cls in doc, cls
    types = {"rcp": ("f32",), "sqrt": ("f32",), "copysign": ("f32",), "testp": ("f32",), "fma": ("f32",), "div": ("s32",), "rem": ("s32",), "cvt": ("f32", "s32"),
             "wmma.mma": ("f32", "f32"), "mma": ("f32", "f16", "f16", "f32"),
             "wgmma.mma_async": ("f32", "f16", "f16")}
    seen = set()
    for root in KNOWN:
        mods = ("m16n8k16",) if "mma" in root and not root.startswith(("wgmma.f", "wgmma.c", "wgmma.w")) else ()
        cls = class_of(root, types.get(root, ("s32",)), None, mods)
        seen.add(cls)
        assert cls in FALLBACKS or mapper._MMA.match(cls) or cls == "tcgen05", (root, cls)
    assert len(seen) > 25


@pytest.mark.parametrize("gpu", MODERN)
def test_modern_gpus_define_their_specific_classes(gpu):
    have = classes(gpu)
    assert {"add_s32", "add_f64", "fma_f64", "div_f32", "div_approx_f32", "cvt", "shfl", "st_global",
            "atom_global", "st_shared", "ex2_f32", "rsqrt_f32", "sqrt_f32", "mma_f16_f32_m16n16k16"} <= have
    g = load_gpu(gpu)
    assert g.classes["fma_f64"].cpi == g.classes["mul_f64"].cpi
    tensor = [c for c in g.classes.values() if c.subsystem == "tensor"]
    assert tensor and all(c.estimate and "whitepaper" in c.source for c in tensor)


def test_tensor_cpi_follows_whitepaper_rates():
    """cpi = MACs per instruction / dense MACs per clock per SM: 512 (V100), 1024 (A100), 2048 (H100) FP16."""
    for gpu, macs_per_clk in (("volta_v100", 512), ("ampere_a100", 1024), ("hopper_h100", 2048)):
        assert load_gpu(gpu).classes["mma_f16_f32_m16n16k16"].cpi == 4096 / macs_per_clk
    a100 = load_gpu("ampere_a100").classes
    assert a100["mma_tf32_f32_m16n8k8"].cpi == 2 * a100["mma_f16_f32_m16n8k8"].cpi     # TF32 at half the FP16 rate


def test_state_space_of_memory_classes():
    assert state_space_of("ld_global_s32") == state_space_of("atom_global") == "global"
    assert state_space_of("st_shared") == state_space_of("atom_shared") == "shared"
    assert state_space_of("st_local") == "local" and state_space_of("ld_param") == "param"
    assert state_space_of("add_s32") is None
    for cls in mapper.STATE_SPACE:
        assert cls in FALLBACKS


def test_fallbacks_function_matches_table():
    assert fallbacks("st_shared") == ("ld_shared_f32", "ld_local_s32")
    assert fallbacks("mma_bf16_f16_m16n8k16") == ("mma_bf16_f32_m16n8k16",)
    assert fallbacks("mma_bf16_f32_m16n8k16") == ()           # V100 has f16 but no bf16 tensor cores
    assert fallbacks("no_such_class") == ()


def test_unknown_opcode_and_untyped_division_are_named():
    with pytest.raises(PipeperfError, match=r"unknown PTX opcode 'frobnicate.f32'"):
        class_of_opcode("frobnicate.f32")
    with pytest.raises(PipeperfError, match="'div' with float type needs"):
        class_of_opcode("div.f32")

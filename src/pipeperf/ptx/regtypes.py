"""PTX operand type checking (PTX ISA 9.0, 5.4.1 "Operand Type Information"): which registers an
instruction type takes, and the sizes and kinds of the PTX types.

Why a module: the PTX check (:mod:`pipeperf.ptx.check`) and the resolution of opcodes against
their forms (:mod:`pipeperf.ptx.opcode_rules`) share these rules. A ``.bN`` register fits an
instruction of any type of N bits, ``.sN``/``.uN`` fit each other's, ``.fN`` only floats, and half
or packed floats live in bit registers; ``ld``, ``st`` and ``cvt`` also take wider registers (the
"relaxed" rules of 5.4.1.2; a float register there must still match a float type exactly).
"""

from __future__ import annotations

#: bits of each type
SIZES: dict[str, int] = {"pred": 1, "b128": 128, "f16x2": 32, "bf16": 16, "bf16x2": 32, "tf32": 32, "e4m3x2": 16,
                         "e5m2x2": 16, "e2m3x2": 16, "e3m2x2": 16, "e2m1x2": 8, "ue8m0x2": 16, "u16x2": 32,
                         "s16x2": 32}
SIZES.update({f"{k}{n}": n for k in "bsuf" for n in (8, 16, 32, 64)})
#: register types a ``.reg`` may declare (ptxas refuses ``.reg .bf16``)
REG_TYPES = frozenset({"pred", "b128", "f16", "f16x2", "f32", "f64"} | {f"{k}{n}" for k in "bsu" for n in (8, 16, 32, 64)})
#: floating-point types held in bit registers (ptxas refuses a .f32 register for .f16x2)
PACKED = frozenset({"f16", "f16x2", "bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2",
                    "ue8m0x2"})
#: the type twice as wide (``mul.wide``, ``mad.wide``)
WIDE = {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}
#: roots whose data operands follow the relaxed rules
RELAXED_ROOTS = frozenset({"ld", "ldu", "st", "cvt"})


def kind(t: str) -> str:
    """'b', 's', 'u', 'f' or 'p' (predicate)."""
    if t == "pred":
        return "p"
    if t in ("u16x2", "s16x2"):
        return t[0]
    if t[0] in "bsu":
        return t[0]
    return "f"


def compatible(itype: str, rtype: str, relaxed: bool) -> bool:
    """Whether a register of ``rtype`` may be an operand of an instruction of ``itype``: the strict
    rules, or the relaxed ones of ``ld``/``st``/``cvt`` data."""
    if itype == "pred" or rtype == "pred":
        return itype == rtype
    if itype in PACKED:
        return rtype == itype or (rtype[0] == "b" and (SIZES[rtype] >= SIZES[itype] if relaxed
                                                       else SIZES[rtype] == SIZES[itype]))
    ik, rk = kind(itype), kind(rtype)
    if rtype in PACKED and ik == "f":         # a .f16/.f16x2 register: its own type (above) only
        return False
    if not (ik == "b" or rk == "b" or (ik in "su" and rk in "su") or (ik == "f" and rk == "f")):
        return False
    isz, rsz = SIZES[itype], SIZES[rtype]
    if relaxed and not (ik == "f" and rk == "f"):
        return rsz >= isz
    return rsz == isz


def allowed(itype: str | None, relaxed: bool) -> frozenset[str] | None:
    """The register types an operand of ``itype`` may have (None: any, for no or an unknown type)."""
    if itype is None or itype not in SIZES:
        return None
    return frozenset(t for t in REG_TYPES if compatible(itype, t, relaxed))


def _order(t: str) -> tuple[str, int, str]:
    return kind(t), SIZES.get(t, 0), t


def type_list(types: frozenset[str]) -> str:
    """'.b16, .b32, .b64' for messages."""
    return ", ".join("." + t for t in sorted(types, key=_order))


def expect_register(types: frozenset[str]) -> str:
    """'a .b32 or .f32 register' for messages."""
    return "a " + " or ".join("." + t for t in sorted(types, key=_order)) + " register"

"""How each PTX instruction is written: the one table the PTX check (:mod:`pipeperf.ptx.check`)
reads (PTX ISA 9.0, chapter 9.7, each instruction's "Syntax"; checked against ptxas 13.0).

A row of :data:`TABLE` is one form of an instruction::

    root | when | types | modifiers | needs one of | operands

``when``: the row applies when one of these modifiers is written (``mul`` has a ``.wide`` row,
a ``.lo .hi`` row and a float row with no ``when``); ``types``: the instruction types the row
takes (``cvt`` and ``set`` take two, written ``dst/src``; ``*`` any, ``-`` none); ``modifiers``:
what else may be written (state spaces included); ``needs one of``: a modifier that must be
written (rounding of ``fma``). ``$NAME`` expands from :data:`MACROS`. Operands, one code each,
``?`` when it may be left out:

====  ==================================================================================
d     destination of the instruction type (type-checked strictly, PTX ISA 5.4.1)
D     destination twice as wide (``mul.wide``)           o   destination .u32 (``popc``)
R     destination of the type, relaxed (``ld``, ``cvt``: wider registers allowed; vectors)
P     predicate destination, ``p|q`` allowed            Q   destination, ``d|p`` allowed
a     source of the type (register or constant)          A   source twice as wide
B     source of the second type (``set``)                Z   source of the second type, relaxed
S     source of the type, relaxed (``st``; vectors)      u   source .u32 (shift amounts, lanes)
p     predicate source (``!p`` allowed)                  m   memory operand ``[...]``
h     the .b64 cache policy, written only with ``.L2::cache_hint``
x     an address value: register, constant, variable, function or special register (``mov``)
\\*   anything (only that its registers are declared)
====  ==================================================================================

An instruction whose root has no row is checked only for what every instruction must satisfy
(declared registers and symbols, a predicate guard): missing a row never refuses valid PTX.
"""

from __future__ import annotations

from dataclasses import dataclass

MACROS = {
    "$INT": "s16 u16 s32 u32 s64 u64",
    "$I3264": "s32 u32 s64 u64",
    "$HALF": "f16 f16x2 bf16 bf16x2",
    "$RND": "rn rz rm rp",
    "$IRND": "rni rzi rmi rpi",
    "$SCOPE": "cta cluster gpu sys",
    "$CMP": "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan",
    "$BOOL": "and or xor",
    "$MEMT": "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64",
    "$CVTT": "u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64 bf16 f16x2 bf16x2 tf32 e4m3x2 e5m2x2 e2m3x2 e3m2x2 "
             "e2m1x2 ue8m0x2",
    "$SETT": "b16 b32 b64 s16 u16 s32 u32 s64 u64 f32 f64 f16 f16x2 bf16 bf16x2",
    "$L1": "L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate",
    "$L2": "L2::evict_normal L2::evict_first L2::evict_last L2::64B L2::128B L2::256B L2::cache_hint",
    "$LDSP": "global shared shared::cta shared::cluster local const param param::entry param::func",
    "$STSP": "global shared shared::cta shared::cluster local param param::func",
    "$ATSP": "global shared shared::cta shared::cluster",
    "$CVTASP": "global shared shared::cta shared::cluster local const param param::entry",
    "$ATSEM": "relaxed acquire release acq_rel",
    "$VEC": "v2 v4 v8",
}

TABLE = """
add     | -         | s32                      | sat cc                                 | -           | d a a
add     | -         | s16 u16 u32 s64 u64      | cc                                     | -           | d a a
add     | -         | u16x2 s16x2              | -                                      | -           | d a a
add     | -         | f32                      | $RND ftz sat                           | -           | d a a
add     | -         | f64                      | $RND                                   | -           | d a a
add     | -         | f16 f16x2                | rn ftz sat                             | -           | d a a
add     | -         | bf16 bf16x2              | rn                                     | -           | d a a
sub     | -         | s32                      | sat cc                                 | -           | d a a
sub     | -         | s16 u16 u32 s64 u64      | cc                                     | -           | d a a
sub     | -         | u16x2 s16x2              | -                                      | -           | d a a
sub     | -         | f32                      | $RND ftz sat                           | -           | d a a
sub     | -         | f64                      | $RND                                   | -           | d a a
sub     | -         | f16 f16x2                | rn ftz sat                             | -           | d a a
sub     | -         | bf16 bf16x2              | rn                                     | -           | d a a
addc    | -         | $I3264                   | cc                                     | -           | d a a
subc    | -         | $I3264                   | cc                                     | -           | d a a
mul     | wide      | s16 u16 s32 u32          | -                                      | -           | D a a
mul     | lo hi     | $INT                     | -                                      | -           | d a a
mul     | -         | f32                      | $RND ftz sat                           | -           | d a a
mul     | -         | f64                      | $RND                                   | -           | d a a
mul     | -         | f16 f16x2                | rn ftz sat                             | -           | d a a
mul     | -         | bf16 bf16x2              | rn                                     | -           | d a a
mad     | wide      | s16 u16 s32 u32          | cc                                     | -           | D a a A
mad     | hi        | s32                      | sat cc                                 | -           | d a a a
mad     | lo hi     | $INT                     | cc                                     | -           | d a a a
mad     | -         | f32                      | $RND ftz sat                           | $RND        | d a a a
mad     | -         | f64                      | $RND                                   | $RND        | d a a a
madc    | lo hi     | $I3264                   | cc                                     | -           | d a a a
mul24   | lo hi     | s32 u32                  | -                                      | -           | d a a
mad24   | hi        | s32                      | sat                                    | -           | d a a a
mad24   | lo hi     | s32 u32                  | -                                      | -           | d a a a
sad     | -         | $INT                     | -                                      | -           | d a a a
div     | -         | $INT                     | -                                      | -           | d a a
div     | -         | f32                      | approx full $RND ftz                   | approx full $RND | d a a
div     | -         | f64                      | $RND                                   | $RND        | d a a
rem     | -         | $INT                     | -                                      | -           | d a a
abs     | -         | s16 s32 s64              | -                                      | -           | d a
abs     | -         | f32 f16 f16x2            | ftz                                    | -           | d a
abs     | -         | f64 bf16 bf16x2          | -                                      | -           | d a
neg     | -         | s16 s32 s64              | -                                      | -           | d a
neg     | -         | f32 f16 f16x2            | ftz                                    | -           | d a
neg     | -         | f64 bf16 bf16x2          | -                                      | -           | d a
min     | -         | $INT                     | relu                                   | -           | d a a
min     | -         | u16x2 s16x2              | relu                                   | -           | d a a
min     | -         | f32                      | ftz NaN xorsign abs                    | -           | d a a a?
min     | -         | f64                      | -                                      | -           | d a a
min     | -         | $HALF                    | ftz NaN xorsign abs                    | -           | d a a
max     | -         | $INT                     | relu                                   | -           | d a a
max     | -         | u16x2 s16x2              | relu                                   | -           | d a a
max     | -         | f32                      | ftz NaN xorsign abs                    | -           | d a a a?
max     | -         | f64                      | -                                      | -           | d a a
max     | -         | $HALF                    | ftz NaN xorsign abs                    | -           | d a a
popc    | -         | b32 b64                  | -                                      | -           | o a
clz     | -         | b32 b64                  | -                                      | -           | o a
bfind   | -         | u32 u64 s32 s64          | shiftamt                               | -           | o a
brev    | -         | b32 b64                  | -                                      | -           | d a
bfe     | -         | u32 u64 s32 s64          | -                                      | -           | d a u u
bfi     | -         | b32 b64                  | -                                      | -           | d a a u u
prmt    | -         | b32                      | f4e b4e rc8 ecl ecr rc16               | -           | d a a a
testp   | -         | f32 f64                  | finite infinite number notanumber normal subnormal | - | P a
copysign | -        | f32 f64                  | -                                      | -           | d a a
and     | -         | pred b16 b32 b64         | -                                      | -           | d a a
or      | -         | pred b16 b32 b64         | -                                      | -           | d a a
xor     | -         | pred b16 b32 b64         | -                                      | -           | d a a
not     | -         | pred b16 b32 b64         | -                                      | -           | d a
cnot    | -         | b16 b32 b64              | -                                      | -           | d a
shl     | -         | b16 b32 b64              | -                                      | -           | d a u
shr     | -         | b16 b32 b64 $INT         | -                                      | -           | d a u
shf     | l r       | b32                      | wrap clamp                             | wrap clamp  | d a a u
setp    | -         | $SETT                    | $CMP $BOOL ftz                         | $CMP        | P a a p?
set     | -         | u32 s32 f32 $HALF/$SETT  | $CMP $BOOL ftz                         | $CMP        | d B B p?
selp    | -         | b16 b32 b64 $INT f32 f64 | -                                      | -           | d a a p
mov     | -         | pred b16 b32 b64 b128 $INT f32 f64 | -                            | -           | d x
cvt     | -         | $CVTT/$CVTT              | $RND $IRND rna rs ftz sat relu satfinite | -         | R Z Z? Z?
cvta    | to        | u32 u64                  | $CVTASP                                | $CVTASP     | d a
cvta    | -         | u32 u64                  | $CVTASP                                | $CVTASP     | d x
ld      | -         | $MEMT                    | $LDSP volatile relaxed acquire weak mmio $SCOPE ca cg cs lu cv nc unified $L1 $L2 $VEC | - | R m h?
ldu     | -         | $MEMT                    | global $VEC                            | -           | R m
st      | -         | $MEMT                    | $STSP volatile relaxed release weak mmio $SCOPE wb cg cs wt $L1 $L2 $VEC | - | m S h?
atom    | and or xor | b32 b64                 | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | d m a h?
atom    | cas       | b16 b32 b64 b128         | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | d m a a h?
atom    | exch      | b32 b64 b128             | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | d m a h?
atom    | add       | u32 s32 u64 f32 f64 $HALF | $ATSP $ATSEM $SCOPE noftz L2::cache_hint $VEC | -    | R m S h?
atom    | inc dec   | u32                      | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | d m a h?
atom    | min max   | u32 s32 u64 s64 $HALF    | $ATSP $ATSEM $SCOPE noftz L2::cache_hint $VEC | -    | R m S h?
red     | and or xor | b32 b64                 | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | m a h?
red     | add       | u32 s32 u64 f32 f64 $HALF | $ATSP $ATSEM $SCOPE noftz L2::cache_hint $VEC | -    | m S h?
red     | inc dec   | u32                      | $ATSP $ATSEM $SCOPE L2::cache_hint     | -           | m a h?
red     | min max   | u32 s32 u64 s64 $HALF    | $ATSP $ATSEM $SCOPE noftz L2::cache_hint $VEC | -    | m S h?
bra     | -         | -                        | uni                                    | -           | *
ret     | -         | -                        | uni                                    | -           |
exit    | -         | -                        | -                                      | -           |
bar     | sync      | -                        | aligned cta                            | -           | u u?
bar     | arrive    | -                        | aligned cta                            | -           | u u
bar     | red       | *                        | *                                      | -           | * * * *?
barrier | sync      | -                        | aligned cta                            | -           | u u?
barrier | arrive    | -                        | aligned cta                            | -           | u u
barrier | red       | *                        | *                                      | -           | * * * *?
membar  | -         | -                        | cta gl sys proxy alias                 | cta gl sys proxy | 
shfl    | sync      | b32                      | up down bfly idx                       | up down bfly idx | Q a u u u
shfl    | -         | b32                      | up down bfly idx                       | up down bfly idx | Q a u u
vote    | ballot    | b32                      | sync                                   | -           | d p u?
vote    | all any uni | pred                   | sync                                   | -           | d p u?
redux   | sync      | u32 s32 b32              | add min max and or xor                 | add min max and or xor | d a u
redux   | sync      | f32                      | min max abs NaN                        | min max     | d a u
activemask | -      | b32                      | -                                      | -           | d
rcp     | -         | f32                      | approx $RND ftz                        | approx $RND | d a
rcp     | -         | f64                      | approx $RND ftz                        | approx $RND | d a
sqrt    | -         | f32                      | approx $RND ftz                        | approx $RND | d a
sqrt    | -         | f64                      | $RND                                   | $RND        | d a
rsqrt   | -         | f32 f64                  | approx ftz                             | approx      | d a
sin     | -         | f32                      | approx ftz                             | approx      | d a
cos     | -         | f32                      | approx ftz                             | approx      | d a
lg2     | -         | f32                      | approx ftz                             | approx      | d a
ex2     | -         | f32                      | approx ftz                             | approx      | d a
ex2     | -         | $HALF                    | approx                                 | approx      | d a
tanh    | -         | f32 $HALF                | approx                                 | approx      | d a
fma     | -         | f32                      | $RND ftz sat                           | $RND        | d a a a
fma     | -         | f64                      | $RND                                   | $RND        | d a a a
fma     | -         | f16 f16x2                | rn ftz sat relu oob                    | rn          | d a a a
fma     | -         | bf16 bf16x2              | rn relu oob                            | rn          | d a a a
nanosleep | -       | u32                      | -                                      | -           | u
"""

#: the oldest target (sm_NN) that takes a modifier or type (PTX ISA, each instruction's "Target ISA notes")
MIN_SM = {"shared::cluster": 90, "cluster": 90, "u16x2": 90, "s16x2": 90, "L2::cache_hint": 80, "relu": 80,
          "NaN": 80, "xorsign": 86, "abs": 86, "bf16": 80, "bf16x2": 80, "tf32": 80, "e4m3x2": 89, "e5m2x2": 89, "oob": 90,
          "b128": 90}

#: codes of destination operands (the first operand of a row)
DESTINATIONS = frozenset("dDRoPQ")


@dataclass(frozen=True, slots=True)
class Form:
    """One row of :data:`TABLE`: ``types`` None takes any type list, () none; ``modifiers``
    None any; ``operands`` the codes, ``required`` how many may not be left out."""

    root: str
    when: frozenset[str]
    types: tuple[frozenset[str], ...] | None
    modifiers: frozenset[str] | None
    needs: frozenset[str]
    operands: tuple[str, ...]
    required: int


def _words(text: str) -> list[str]:
    out: list[str] = []
    for w in text.split():
        out += MACROS[w].split() if w.startswith("$") else [w]
    return out


def _row(line: str) -> Form:
    root, when, types, mods, needs, ops = (c.strip() for c in line.split("|"))
    tys: tuple[frozenset[str], ...] | None
    if types == "*":
        tys = None
    elif types == "-":
        tys = ()
    else:
        tys = tuple(frozenset(_words(t)) for t in types.split("/"))
    codes = ops.split()
    operands = tuple(c.rstrip("?") for c in codes)
    required = sum(not c.endswith("?") for c in codes)
    wh = frozenset() if when == "-" else frozenset(_words(when))
    return Form(root, wh, tys, None if mods == "*" else frozenset(_words(mods)) | wh,
                frozenset() if needs == "-" else frozenset(_words(needs)), operands, required)


def _forms() -> dict[str, tuple[Form, ...]]:
    out: dict[str, list[Form]] = {}
    for line in TABLE.strip().splitlines():
        f = _row(line)
        out.setdefault(f.root, []).append(f)
    # rows with a `when` are tried first
    return {r: tuple(sorted(rows, key=lambda f: not f.when)) for r, rows in out.items()}


#: root -> its rows, those with a ``when`` first
FORMS: dict[str, tuple[Form, ...]] = _forms()

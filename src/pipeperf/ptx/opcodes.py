"""The PTX instruction set known to the IR, and static instruction categories.

Source: PTX ISA 8.x/9.x (NVIDIA, "Parallel Thread Execution ISA", chapter 9.7
"Instructions"). An opcode whose instruction name is not in :data:`KNOWN` is a
user error naming it -- never silently dropped.

Categories (used for static counts; one per instruction):

``int`` ``fp32`` ``fp64`` ``fp16``
    arithmetic, comparison, logic and bit operations, by the float type among
    the type modifiers (f64 > f32 > f16/bf16, otherwise int);
``sfu``
    special-function unit: sin, cos, lg2, ex2, tanh, rsqrt, and ``.approx``
    rcp/sqrt below f64;
``convert`` ``move``
    cvt/cvt.pack; mov;
``ld.<space>`` ``st.<space>`` ``atom.<space>``
    memory by state space (``generic`` when none is written); atom and red
    count as ``atom``; ``cp.async`` copies are ``cp.async``;
``tex``
    texture and surface instructions;
``barrier``
    bar, barrier, membar, fence, mbarrier, async-copy waits;
``control``
    bra, brx, call, ret, exit, trap, brkpt;
``warp``
    shfl, vote, match, redux, activemask, elect;
``tensor``
    wmma, mma, wgmma, ldmatrix, stmatrix, movmatrix, tcgen05;
``other``
    everything else (prefetch, nanosleep, stack, cache policy...).
"""

from __future__ import annotations

from pipeperf.ptx.ir import OpInfo

# Kind of each known instruction name; the kind decides the category.
ARITH = "arith"      # category from the type modifiers
SFU = "sfu"
APPROX = "approx"    # sfu when .approx and not f64, else by type
CONVERT = "convert"
MOVE = "move"
LD = "ld"
ST = "st"
ATOM = "atom"
CPASYNC = "cp.async"
TEX = "tex"
BARRIER = "barrier"
CONTROL = "control"
WARP = "warp"
TENSOR = "tensor"
INT = "int"
OTHER = "other"

KNOWN: dict[str, str] = {}


def _add(kind: str, names: str) -> None:
    for n in names.split():
        KNOWN[n] = kind


_add(ARITH, """
    add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi
    bmsk szext dp4a dp2a addc subc madc copysign testp fma set setp selp slct and or xor not
    cnot lop3 shf shl shr prmt
    vadd vsub vabsdiff vmin vmax vshl vshr vmad vset
    vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2
    vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4
""")
_add(SFU, "sin cos lg2 ex2 tanh rsqrt")
_add(APPROX, "rcp sqrt")
_add(CONVERT, "cvt cvt.pack")
_add(MOVE, "mov")
_add(INT, "cvta isspacep mapa getctarank istypep")
_add(LD, "ld ldu multimem.ld_reduce")
_add(ST, "st st.async st.bulk multimem.st")
_add(ATOM, "atom red red.async multimem.red")
_add(CPASYNC, """
    cp.async cp.async.bulk cp.async.bulk.tensor cp.reduce.async.bulk
    cp.reduce.async.bulk.tensor cp.async.bulk.prefetch cp.async.bulk.prefetch.tensor
    multimem.cp.async.bulk multimem.cp.reduce.async.bulk
""")
_add(TEX, "tex tld4 txq suld sust sured suq")
_add(BARRIER, """
    bar barrier bar.warp barrier.cluster membar fence
    mbarrier.init mbarrier.inval mbarrier.arrive mbarrier.arrive_drop mbarrier.test_wait
    mbarrier.try_wait mbarrier.pending_count mbarrier.expect_tx mbarrier.complete_tx
    cp.async.commit_group cp.async.wait_group cp.async.wait_all cp.async.mbarrier.arrive
    cp.async.bulk.commit_group cp.async.bulk.wait_group
    wgmma.fence wgmma.commit_group wgmma.wait_group griddepcontrol
    tensormap.cp_fenceproxy
""")
_add(CONTROL, "bra brx call ret exit trap brkpt")
_add(WARP, "shfl vote match redux activemask elect")
_add(TENSOR, """
    wmma.load wmma.store wmma.mma mma ldmatrix stmatrix movmatrix wgmma.mma_async
    tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit tcgen05.ld tcgen05.st
    tcgen05.wait tcgen05.cp tcgen05.shift tcgen05.mma tcgen05.commit tcgen05.fence
""")
_add(OTHER, """
    prefetch prefetchu applypriority discard createpolicy nanosleep pmevent setmaxnreg
    alloca stacksave stackrestore tensormap.replace clusterlaunchcontrol.try_cancel
    clusterlaunchcontrol.query_cancel
""")

# Instruction names made of several dot-components, longest first when matching.
_MULTI_MAX = max(n.count(".") for n in KNOWN) + 1

TYPES = frozenset("""
    s8 s16 s32 s64 u8 u16 u32 u64 b8 b16 b32 b64 b128 f16 f16x2 bf16 bf16x2 tf32 f32 f64
    pred e4m3 e5m2 e4m3x2 e5m2x2 e2m1 e2m1x2 e2m3 e3m2 e2m3x2 e3m2x2 ue8m0 ue8m0x2 ue4m3
    s4 u4 b1 s2 u2 f8f6f4 b4x16 b4x16_p64 b6x16_p32 b8x16 s16x2 u16x2
""".split())  # noqa: SIM905 -- a word list reads better than a list of quoted names

SPACES = {
    "global": "global", "shared": "shared", "shared::cta": "shared", "shared::cluster": "shared",
    "local": "local", "const": "const", "param": "param", "param::entry": "param",
    "param::func": "param", "generic": "generic",
}

_FP64 = frozenset({"f64"})
_FP32 = frozenset({"f32", "tf32"})
_FP16 = frozenset({"f16", "f16x2", "bf16", "bf16x2", "e4m3", "e5m2", "e4m3x2", "e5m2x2"})


def _arith_category(types: tuple[str, ...]) -> str:
    ts = set(types)
    if ts & _FP64:
        return "fp64"
    if ts & _FP32:
        return "fp32"
    if ts & _FP16:
        return "fp16"
    return "int"


def _category(kind: str, root: str, mods: tuple[str, ...], types: tuple[str, ...],
              space: str | None) -> str:
    if kind == ARITH:
        return _arith_category(types)
    if kind == APPROX:
        if "approx" in mods and "f64" not in types:
            return "sfu"
        return _arith_category(types)
    if kind in (LD, ST, ATOM):
        if root.startswith("multimem"):
            return f"{kind}.global"
        if root == "st.async" or root == "st.bulk":
            return f"{kind}.shared"
        return f"{kind}.{space or 'generic'}"
    if kind == INT:
        return "int"
    return kind


class UnknownOpcode(ValueError):
    """Raised by :func:`decode_opcode` for an instruction name PTX does not have."""


def decode_opcode(text: str) -> OpInfo:
    """Split ``ld.global.nc.v4.f32`` into root, modifiers, types, space, category."""
    parts = text.split(".")
    root = None
    n = min(len(parts), _MULTI_MAX)
    while n > 0:
        cand = ".".join(parts[:n])
        if cand in KNOWN:
            root = cand
            break
        n -= 1
    if root is None:
        raise UnknownOpcode(text)
    mods = tuple(parts[n:])
    types = tuple(m for m in mods if m in TYPES)
    space = None
    for m in mods:
        s = SPACES.get(m)
        if s is not None:
            space = s
            break
    return OpInfo(text, root, mods, types, space, _category(KNOWN[root], root, mods, types, space))


CATEGORY_ORDER = (
    "int", "fp32", "fp64", "fp16", "sfu", "convert", "move",
    "ld.global", "ld.shared", "ld.local", "ld.const", "ld.param", "ld.generic",
    "st.global", "st.shared", "st.local", "st.param", "st.generic",
    "atom.global", "atom.shared", "atom.generic", "cp.async", "tex",
    "barrier", "control", "warp", "tensor", "other",
)

"""Semantic mutants of the corpus PTX and ptxas' recorded verdict on each (issue 38).

Why: pipeperf's PTX check (:mod:`pipeperf.ptx.check`) must refuse what ptxas refuses and never
refuse what ptxas takes. A mutant changes one line of a corpus file (``tests/kernels/ptx``) in a
way that is often, not always, invalid: an undeclared register or one of the wrong class, another
type suffix, state space or opcode, an immediate or special register in place of an operand, one
operand too few or too many, a duplicated label or declaration, a token of the corpus'
vocabulary. ptxas' verdicts are recorded once, here, where ptxas is, into
``ptxas_verdicts.jsonl`` (one mutant a line: the source file, the line, its old text, the new
lines, the mutation kind and ptxas' first error or ``ok``); ``test_ptxas_verdicts.py`` replays
them without ptxas.

    python3 tests/fuzz/ptx_mutants.py [--count 1500] [--seed 38] [--jobs 2] [--out FILE]

rewrites the record (deterministic for a seed and corpus: mutant n draws from Random(seed, n));
``PYTHONPATH=src python3 tests/fuzz/ptx_mutants.py --score [FILE]`` scores pipeperf on a record,
with its check and without (the parser alone).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "kernels" / "ptx"
RECORD = Path(__file__).with_name("ptxas_verdicts.jsonl")

_INS = re.compile(r"^(\s*)(@!?%?[\w$]+\s+)?([a-z][\w:]*(?:\.[\w:]+)*)([ \t]+)(.*?)(\s*;\s*)$")
_REG = re.compile(r"%[a-zA-Z_]+\d+\b")
_REG_DECL = re.compile(r"\.reg\s+\.(\w+)\s+(%[A-Za-z_]+)<(\d+)>")
_LABEL = re.compile(r"^\s*\$?[\w$]+:\s*$")
_DECL = re.compile(r"^\s*(?:\.reg|\.shared|\.local|\.global|\.const|\.param)\b.*;\s*$")
_SYMBOL = re.compile(r"\[([A-Za-z_$][\w$]*)(?:\+\d+)?\]")

TYPES = ("b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 f32 f64 pred").split()  # noqa: SIM905
SPACES = ("global shared local const param generic shared::cta shared::cluster tex").split()  # noqa: SIM905
ROOTS = ("add sub mul mad min max and or xor shl shr not neg abs mov cvt cvta ld st setp selp popc clz "  # noqa: SIM905
         "brev rcp sqrt div rem fma bfe prmt atom red shfl.sync vote.sync").split()
MODIFIERS = ("rn rz lo hi wide approx ftz sat uni sync aligned nc full volatile relaxed gpu cta "  # noqa: SIM905
             "down bfly idx up all any ballot eq ne lt ge and").split()
IMMEDIATES = ("0", "1", "-1", "7", "0f3F800000", "0d3FF0000000000000", "4294967296", "0x7fffffff", "1.5")
SPECIALS = ("%tid.x", "%ntid.y", "%ctaid.x", "%laneid", "%warpid", "%clock", "%clock64", "%nctaid.z", "%smid",
            "%lanemask_lt", "%tid.w", "%envreg3", "%globaltimer", "%dynamic_smem_size")


@dataclass(frozen=True)
class Mutant:
    """One line of corpus file ``src`` (1-based ``line``, text ``old``) replaced by ``new``."""

    src: str
    line: int
    old: str
    new: tuple[str, ...]
    kind: str

    def text(self, corpus: Path = CORPUS) -> str:
        """The mutated file; a KeyError-free ValueError if the corpus line changed since."""
        lines = (corpus / self.src).read_text().split("\n")
        if lines[self.line - 1] != self.old:
            raise ValueError(f"{self.src}:{self.line} is no longer {self.old!r}: regenerate {RECORD.name} "
                             f"(python3 tests/fuzz/ptx_mutants.py)")
        return "\n".join(lines[:self.line - 1] + list(self.new) + lines[self.line:])

    def target(self) -> str:
        return self.src.split(".")[-2]


@dataclass(frozen=True)
class _File:
    """What the mutators draw from: the lines, the instruction lines, declared register ranges."""

    name: str
    lines: list[str]
    instructions: list[int]
    ranges: dict[str, int]          # '%r' -> N of '.reg .b32 %r<N>'
    symbols: list[str]


def _scan(path: Path) -> _File:
    lines = path.read_text().split("\n")
    ins = [i for i, ln in enumerate(lines) if _INS.match(ln) and not ln.lstrip().startswith(".")]
    ranges: dict[str, int] = {}
    for ln in lines:
        for m in _REG_DECL.finditer(ln):
            ranges[m.group(2)] = max(ranges.get(m.group(2), 0), int(m.group(3)))
    syms = sorted({m.group(1) for ln in lines for m in _SYMBOL.finditer(ln)})
    return _File(path.name, lines, ins, ranges, syms)


def _operand_spans(args: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level comma-separated operand of ``args``."""
    spans, depth, start = [], 0, 0
    for i, c in enumerate(args):
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(args)))
    out = []
    for s, e in spans:
        while s < e and args[s].isspace():
            s += 1
        while e > s and args[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out


Edit = tuple[int, tuple[str, ...]] | None


def _ins_line(f: _File, rng: random.Random) -> tuple[int, re.Match[str]] | None:
    if not f.instructions:
        return None
    i = rng.choice(f.instructions)
    m = _INS.match(f.lines[i])
    return (i, m) if m else None


def _rebuild(m: re.Match[str], opcode: str | None = None, args: str | None = None, guard: str | None = None) -> str:
    indent, g, op, ws, a, end = m.groups()
    return f"{indent}{guard if guard is not None else (g or '')}{opcode or op}{ws}{a if args is None else args}{end}"


def _replace_operand(f: _File, rng: random.Random, make: Callable[[str, random.Random], str | None]) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    args = m.group(5)
    spans = _operand_spans(args)
    if not args.strip():
        return None
    s, e = rng.choice(spans)
    new = make(args[s:e], rng)
    if new is None:
        return None
    return i, (_rebuild(m, args=args[:s] + new + args[e:]),)


def _replace_register(f: _File, rng: random.Random, make: Callable[[str, random.Random], str | None]) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    regs = list(_REG.finditer(m.group(5)))
    if not regs:
        return None
    r = rng.choice(regs)
    new = make(r.group(), rng)
    if new is None:
        return None
    a = m.group(5)
    return i, (_rebuild(m, args=a[:r.start()] + new + a[r.end():]),)


def _undeclared(f: _File, rng: random.Random) -> Edit:
    def make(reg: str, rng: random.Random) -> str | None:
        prefix = re.match(r"%[A-Za-z_]+", reg).group()  # type: ignore[union-attr]
        n = f.ranges.get(prefix)
        return f"{prefix}{n if n is not None and rng.random() < 0.5 else 99999}"
    return _replace_register(f, rng, make)


def _other_class(f: _File, rng: random.Random) -> Edit:
    def make(reg: str, rng: random.Random) -> str | None:
        prefix = re.match(r"%[A-Za-z_]+", reg).group()  # type: ignore[union-attr]
        others = [p for p in f.ranges if p != prefix and f.ranges[p] > 1]
        if not others:
            return None
        p = rng.choice(others)
        return f"{p}{rng.randrange(1, f.ranges[p])}"
    return _replace_register(f, rng, make)


def _same_class(f: _File, rng: random.Random) -> Edit:
    def make(reg: str, rng: random.Random) -> str | None:
        prefix = re.match(r"%[A-Za-z_]+", reg).group()  # type: ignore[union-attr]
        n = f.ranges.get(prefix, 0)
        return f"{prefix}{rng.randrange(n)}" if n > 1 else None
    return _replace_register(f, rng, make)


def _opcode_part(f: _File, rng: random.Random, pool: tuple[str, ...] | list[str], allow_add: bool) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    parts = m.group(3).split(".")
    idx = [k for k, p in enumerate(parts) if k and p in pool]
    if idx and (not allow_add or rng.random() < 0.7):
        k = rng.choice(idx)
        if rng.random() < 0.15 and len(parts) > 2:
            del parts[k]
        else:
            parts[k] = rng.choice(pool)
    elif allow_add:
        parts.insert(rng.randrange(1, len(parts) + 1), rng.choice(pool))
    else:
        return None
    return i, (_rebuild(m, opcode=".".join(parts)),)


def _type(f: _File, rng: random.Random) -> Edit:
    return _opcode_part(f, rng, TYPES, allow_add=False)


def _kin_type(f: _File, rng: random.Random) -> Edit:
    """A type suffix replaced by one of its size (b32 -> u32, f32 -> b32): mostly valid PTX."""
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    parts = m.group(3).split(".")
    idx = [k for k, p in enumerate(parts) if k and p in TYPES and p != "pred"]
    if not idx:
        return None
    k = rng.choice(idx)
    size = re.sub(r"\D", "", parts[k]) or "8"
    kin = [t for t in TYPES if t != parts[k] and re.sub(r"\D", "", t) == size and "x" not in t]
    if not kin:
        return None
    parts[k] = rng.choice(kin)
    return i, (_rebuild(m, opcode=".".join(parts)),)


def _space(f: _File, rng: random.Random) -> Edit:
    return _opcode_part(f, rng, SPACES, allow_add=True)


def _modifier(f: _File, rng: random.Random) -> Edit:
    return _opcode_part(f, rng, MODIFIERS, allow_add=True)


def _opcode(f: _File, rng: random.Random) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    parts = m.group(3).split(".")
    root = rng.choice(ROOTS)
    return i, (_rebuild(m, opcode=".".join([root, *parts[1:]])),)


def _immediate(f: _File, rng: random.Random) -> Edit:
    return _replace_operand(f, rng, lambda _o, r: r.choice(IMMEDIATES))


def _special(f: _File, rng: random.Random) -> Edit:
    return _replace_operand(f, rng, lambda _o, r: r.choice(SPECIALS))


def _symbol(f: _File, rng: random.Random) -> Edit:
    def make(op: str, rng: random.Random) -> str | None:
        pool = [*f.symbols, "no_such_symbol"]
        return f"[{rng.choice(pool)}]" if op.startswith("[") else rng.choice(pool)
    return _replace_operand(f, rng, make)


def _operand_count(f: _File, rng: random.Random) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    args = m.group(5)
    spans = _operand_spans(args)
    ops = [args[s:e] for s, e in spans]
    if not args.strip():
        return None
    k = rng.randrange(len(ops))
    r = rng.random()
    if r < 0.4 and len(ops) > 1:
        del ops[k]
    elif r < 0.8:
        ops.insert(k, ops[k])
    else:
        j = rng.randrange(len(ops))
        ops[k], ops[j] = ops[j], ops[k]
    return i, (_rebuild(m, args=", ".join(ops)),)


def _vector(f: _File, rng: random.Random) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    op, args = m.group(3), m.group(5)
    if ".v2" in op or ".v4" in op:
        old = ".v2" if ".v2" in op else ".v4"
        return i, (_rebuild(m, opcode=op.replace(old, rng.choice([x for x in (".v2", ".v4", ".v8", "") if x != old]))),)
    vec = re.search(r"\{([^{}]*)\}", args)
    if not vec:
        return None
    items = [t.strip() for t in vec.group(1).split(",")]
    if rng.random() < 0.5 and len(items) > 1:
        items.pop(rng.randrange(len(items)))
    else:
        items.append(rng.choice(items))
    return i, (_rebuild(m, args=args[:vec.start(1)] + ", ".join(items) + args[vec.end(1):]),)


def _guard(f: _File, rng: random.Random) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    regs = [f"{p}1" for p in f.ranges] + ["%p99999", "%tid.x"]
    return i, (_rebuild(m, guard=f"@{rng.choice(['', '!'])}{rng.choice(regs)} "),)


def _duplicate(f: _File, rng: random.Random) -> Edit:
    cands = [i for i, ln in enumerate(f.lines) if _LABEL.match(ln) or _DECL.match(ln)]
    if not cands:
        return None
    i = rng.choice(cands)
    return i, (f.lines[i], f.lines[i])


def _label(f: _File, rng: random.Random) -> Edit:
    labels = [ln.strip()[:-1] for ln in f.lines if _LABEL.match(ln)]
    branches = [i for i in f.instructions if re.search(r"\bbra(\.uni)?\s", f.lines[i])]
    if not branches:
        return None
    i = rng.choice(branches)
    m = _INS.match(f.lines[i])
    assert m is not None
    return i, (_rebuild(m, args=rng.choice([*labels, "$L__nowhere", "%r1"])),)


def _token(f: _File, rng: random.Random, vocab: list[str]) -> Edit:
    hit = _ins_line(f, rng)
    if hit is None:
        return None
    i, m = hit
    line = f.lines[i]
    toks = list(re.finditer(r"%[A-Za-z_]\w*|\.[A-Za-z_]\w*|[A-Za-z_]\w*|-?\d+", line))
    if not toks:
        return None
    t = rng.choice(toks)
    return i, (line[:t.start()] + rng.choice(vocab) + line[t.end():],)


MUTATORS: dict[str, Callable[[_File, random.Random], Edit]] = {
    "undeclared": _undeclared, "other_class": _other_class, "same_class": _same_class, "type": _type,
    "space": _space, "modifier": _modifier, "opcode": _opcode, "immediate": _immediate, "special": _special,
    "symbol": _symbol, "operand_count": _operand_count, "vector": _vector, "guard": _guard,
    "duplicate": _duplicate, "label": _label, "kin_type": _kin_type,
}
#: how often each kind is drawn ("token" is the vocabulary mutation of tests/fuzz/fuzz_cases)
WEIGHTS = {"undeclared": 2, "other_class": 3, "same_class": 3, "kin_type": 3, "type": 3, "space": 2, "modifier": 2, "opcode": 2,
           "immediate": 2, "special": 1, "symbol": 1, "operand_count": 2, "vector": 1, "guard": 1, "duplicate": 1,
           "label": 1, "token": 2}


def generate(count: int, seed: int, corpus: Path = CORPUS) -> list[Mutant]:
    """``count`` distinct mutants; mutant n draws from its own Random(seed, n)."""
    files = [_scan(p) for p in sorted(corpus.glob("*.ptx"))]
    vocab = sorted({t for f in files for ln in f.lines
                    for t in re.findall(r"%[A-Za-z_]\w*|\.[A-Za-z_]\w*|[A-Za-z_]\w*", ln)})
    kinds = sorted(WEIGHTS)
    weights = [WEIGHTS[k] for k in kinds]
    out: list[Mutant] = []
    seen: set[tuple[str, int, tuple[str, ...]]] = set()
    n = 0
    while len(out) < count:
        rng = random.Random(seed * 1_000_003 + n)
        n += 1
        f = rng.choice(files)
        kind = rng.choices(kinds, weights)[0]
        edit = _token(f, rng, vocab) if kind == "token" else MUTATORS[kind](f, rng)
        if edit is None:
            continue
        i, new = edit
        if new == (f.lines[i],) or (f.name, i, new) in seen:
            continue
        seen.add((f.name, i, new))
        out.append(Mutant(f.name, i + 1, f.lines[i], new, kind))
    return out


def ptxas_verdict(text: str, arch: str, tmp: Path, name: str) -> str:
    """'ok', or ptxas' first error line without the file name."""
    src = tmp / name
    src.write_text(text)
    r = subprocess.run(["ptxas", f"-arch={arch}", str(src), "-o", str(src) + ".cubin"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode == 0:
        return "ok"
    errs = [ln for ln in r.stderr.splitlines() if "error" in ln or "fatal" in ln] or r.stderr.splitlines() or ["?"]
    return "error: " + errs[0].replace(str(src), "FILE")[:200]


def load_record(path: Path = RECORD) -> list[tuple[Mutant, str]]:
    """The recorded (mutant, ptxas verdict) pairs."""
    out = []
    for ln in path.read_text().splitlines():
        d = json.loads(ln)
        out.append((Mutant(d["src"], d["line"], d["old"], tuple(d["new"]), d["kind"]), d["ptxas"]))
    return out


def score(path: Path) -> str:
    """How pipeperf's parse (with and without the check) agrees with ptxas on the record at ``path``."""
    from pipeperf.errors import PipeperfError
    from pipeperf.ptx.parser import parse_ptx

    recs = load_record(path)
    bad = [m for m, v in recs if v != "ok"]
    good = [m for m, v in recs if v == "ok"]

    def accepted(m: Mutant, check: bool) -> bool:
        try:
            parse_ptx(m.text(), m.src, check=check)
            return True
        except PipeperfError:
            return False

    out = []
    for check in (False, True):
        missed = sum(accepted(m, check) for m in bad)
        wrong = sum(not accepted(m, check) for m in good)
        out.append(f"{'with' if check else 'without'} the check: {missed} of {len(bad)} ptxas-refused mutants "
                   f"accepted ({100 * missed / len(bad):.1f} %), {wrong} of {len(good)} ptxas-accepted refused")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=RECORD)
    ap.add_argument("--score", nargs="?", const=RECORD, type=Path, metavar="FILE",
                    help="score pipeperf on a record (default the committed one) instead of writing one")
    a = ap.parse_args(argv)
    if a.score:
        print(score(a.score))
        return 0
    mutants = generate(a.count, a.seed)
    with tempfile.TemporaryDirectory() as d, ThreadPoolExecutor(a.jobs) as pool:
        verdicts = list(pool.map(lambda nm: ptxas_verdict(nm[1].text(), nm[1].target(), Path(d), f"m{nm[0]}.ptx"),
                                 enumerate(mutants)))
    with a.out.open("w") as fh:
        for m, v in zip(mutants, verdicts):
            fh.write(json.dumps({"src": m.src, "line": m.line, "old": m.old, "new": list(m.new), "kind": m.kind,
                                 "ptxas": v}) + "\n")
    bad = sum(v != "ok" for v in verdicts)
    print(f"{len(mutants)} mutants (seed {a.seed}): ptxas rejects {bad}, accepts {len(mutants) - bad}; "
          f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

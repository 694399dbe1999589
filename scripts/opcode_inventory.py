#!/usr/bin/env python3
"""Write tests/kernels/OPCODES.md: the opcode inventory of the committed corpus PTX.

Why: the PTX parser and the SIMT emulator must handle every instruction form the corpus contains,
and nothing guides that work better than a reproducible count of what nvcc actually emitted. This
is a deliberately small, independent scanner (comments stripped, statements split at ';', labels,
braces and guards removed), so it does not depend on the project's parser it is meant to guide.

Usage: python3 scripts/opcode_inventory.py            # rewrite tests/kernels/OPCODES.md
       python3 scripts/opcode_inventory.py --check    # exit 1 if the file is out of date
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PTX_DIR = REPO / "tests" / "kernels" / "ptx"
OUT = REPO / "tests" / "kernels" / "OPCODES.md"
ARCHS = ("sm_75", "sm_80", "sm_90")

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DEBUG_LINE = re.compile(r"^\s*\.(?:loc|file)\b[^\n]*$", re.M)  # .loc / .file end at the newline, not at ';'
_LEAD = re.compile(r"^(?:\s+|[{}]|[$%\w.]+:(?!:))+")  # whitespace, braces, labels before a statement
_GUARD = re.compile(r"^@!?%?\w+\s+")

# Notable forms: label -> predicate on (opcode, statement text).
NOTABLE: list[tuple[str, callable]] = [
    ("call (with .param argument passing)", lambda op, s: op.startswith("call")),
    ("brx.idx (indirect branch)", lambda op, s: op.startswith("brx")),
    ("ret / exit / trap", lambda op, s: op.split(".")[0] in {"ret", "exit", "trap"}),
    ("bar.sync", lambda op, s: op.startswith("bar.sync")),
    ("barrier.sync", lambda op, s: op.startswith("barrier.sync")),
    ("bar.warp.sync", lambda op, s: op.startswith("bar.warp")),
    ("membar / fence", lambda op, s: op.split(".")[0] in {"membar", "fence"}),
    ("shfl.sync", lambda op, s: op.startswith("shfl.sync")),
    ("vote.sync", lambda op, s: op.startswith("vote")),
    ("redux.sync", lambda op, s: op.startswith("redux")),
    ("atom.global", lambda op, s: op.startswith("atom.global")),
    ("atom.shared", lambda op, s: op.startswith("atom.shared")),
    ("atom (generic address)", lambda op, s: op.startswith("atom.") and op.split(".")[1] not in {"global", "shared"}),
    ("red.*", lambda op, s: op.split(".")[0] == "red"),
    ("cp.async", lambda op, s: op.startswith("cp.async")),
    ("wmma.*", lambda op, s: op.startswith("wmma")),
    ("mma.sync", lambda op, s: op.startswith("mma")),
    ("ld.global.nc (read-only path)", lambda op, s: op.startswith("ld.global.nc")),
    ("ld.volatile / st.volatile", lambda op, s: ".volatile" in op),
    ("ld/st .local", lambda op, s: op.split(".")[0] in {"ld", "st"} and ".local" in op),
    ("ld/st .shared", lambda op, s: op.split(".")[0] in {"ld", "st"} and ".shared" in op),
    ("ld.const", lambda op, s: op.startswith("ld.const")),
    ("ld/st .param (incl. call sequences)", lambda op, s: op.split(".")[0] in {"ld", "st"} and ".param" in op),
    ("vector ld/st .v2", lambda op, s: ".v2" in op),
    ("vector ld/st .v4", lambda op, s: ".v4" in op),
    ("cvt involving f16", lambda op, s: op.startswith("cvt") and "f16" in op),
    ("fp16 arithmetic (.f16 / .f16x2)", lambda op, s: op.split(".")[0] in {"add", "sub", "mul", "fma", "neg", "abs", "min", "max"} and ".f16" in op),
    ("mul.wide", lambda op, s: op.startswith("mul.wide")),
    ("mul.hi / mad.hi", lambda op, s: op.startswith(("mul.hi", "mad.hi"))),
    ("carry chain (.cc / addc / subc / madc)", lambda op, s: ".cc" in op or op.split(".")[0] in {"addc", "subc", "madc"}),
    ("approximate SFU ops (.approx)", lambda op, s: ".approx" in op),
    ("div (any)", lambda op, s: op.split(".")[0] == "div"),
    ("rem (any)", lambda op, s: op.split(".")[0] == "rem"),
    ("selp", lambda op, s: op.startswith("selp")),
    ("setp with unordered compare (.nan .num .equ .neu .ltu .leu .gtu .geu)",
     lambda op, s: op.startswith("setp") and any(f".{c}." in op + "." for c in ("nan", "num", "equ", "neu", "ltu", "leu", "gtu", "geu"))),
    ("set (compare to a value; .f16x2: per 16-bit lane)", lambda op, s: op.split(".")[0] == "set"),
    ("setp with .and / .or / .xor combine", lambda op, s: op.startswith("setp") and any(f".{c}." in op + "." for c in ("and", "or", "xor"))),
    ("predicate logic (and/or/xor/not .pred)", lambda op, s: op.endswith(".pred") and op.split(".")[0] in {"and", "or", "xor", "not"}),
    ("prmt / bfe / bfi / bfind / brev / popc / clz", lambda op, s: op.split(".")[0] in {"prmt", "bfe", "bfi", "bfind", "brev", "popc", "clz"}),
    ("shf (funnel shift)", lambda op, s: op.split(".")[0] == "shf"),
    ("mov with vector braces (pack/unpack)", lambda op, s: op.startswith("mov") and "{" in s),
    ("mov of a symbol address (shared/const/global variable)",
     lambda op, s: op.startswith("mov") and re.search(r",\s*(?!WARP_SZ\b)[A-Za-z_]\w*\s*$", s) is not None),
    ("mov of WARP_SZ (warpSize)", lambda op, s: op.startswith("mov") and re.search(r",\s*WARP_SZ\s*$", s) is not None),
    ("cvta (generic <-> state space)", lambda op, s: op.startswith("cvta")),
    ("predicated (guarded @p / @!p) instructions", None),
]
SPECIAL_REGS = re.compile(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|lanemask_\w+|clock\w*|globaltimer\w*|smid|nsmid|envreg\d+|dynamic_smem_size|total_smem_size)\b(\.[xyz])?")
DIRECTIVES = re.compile(r"^\s*((?:\.(?:visible|extern|weak)\s+)?\.(?:entry|func|reg|shared|local|const|global|param|loc|file|pragma|maxntid|reqntid|minnctapersm|maxnreg|version|target|address_size))\b", re.M)


def statements(text: str) -> list[tuple[str, str, bool, bool]]:
    """(opcode, statement, guarded, spans several lines) of every instruction in a PTX text, in order."""
    out = []
    for chunk in _DEBUG_LINE.sub("", _COMMENT.sub("", text)).split(";"):
        s = _LEAD.sub("", chunk).strip()
        if not s or s.startswith("."):
            continue
        guarded = bool(_GUARD.match(s))
        s = _GUARD.sub("", s)
        op = s.split(None, 1)[0]
        if not re.match(r"^[a-z][\w.]*$", op):
            continue
        out.append((op, " ".join(s.split()), guarded, "\n" in s))
    return out


def count_scoped_blocks(text: str) -> int:
    """'{' opening a line that does not start a function body or a .section: a nested scope."""
    count, prev = 0, ""
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("{") and not prev.endswith(")") and not prev.startswith(".section"):
            count += 1
        prev = s
    return count


def scan(ptx_dir: Path) -> dict:
    """Counts per arch: roots, full forms, notable forms (+ files), directives, special registers."""
    data = {a: {"roots": collections.Counter(), "forms": collections.Counter(), "notable": collections.Counter(),
                "notable_files": collections.defaultdict(set), "directives": collections.Counter(),
                "sregs": collections.Counter(), "files": 0, "statements": 0, "guarded": 0,
                "multiline": 0, "scoped_blocks": 0, "spl_files": set(), "inlined_at": 0, "sections": 0,
                "pragmas": collections.Counter()} for a in ARCHS}
    for path in sorted(ptx_dir.glob("*.ptx")):
        arch = path.name.split(".")[1]
        d = data[arch]
        text = path.read_text()
        d["files"] += 1
        if "%SPL" in text:
            d["spl_files"].add(path.name.split(".")[0])
        for m in DIRECTIVES.finditer(_COMMENT.sub("", text)):
            d["directives"][" ".join(m.group(1).split())] += 1
        for m in SPECIAL_REGS.finditer(text):
            d["sregs"]["%" + m.group(1) + (m.group(2) or "")] += 1
        d["inlined_at"] += len(re.findall(r"^\s*\.loc\b.*\binlined_at\b", text, re.M))
        d["sections"] += len(re.findall(r"^\s*\.section\b", text, re.M))
        for p in re.findall(r'^\s*\.pragma\s+("[^"]*")', text, re.M):
            d["pragmas"][p] += 1
        # scoped blocks inside function bodies: inline-asm wrappers and call sequences open '{' mid-body
        d["scoped_blocks"] += count_scoped_blocks(text)
        for op, s, guarded, multiline in statements(text):
            d["statements"] += 1
            d["multiline"] += multiline
            d["guarded"] += guarded
            d["roots"][op.split(".")[0]] += 1
            d["forms"][op] += 1
            for label, pred in NOTABLE:
                if pred is not None and pred(op, s):
                    d["notable"][label] += 1
                    d["notable_files"][label].add(path.name.split(".")[0])
    for a in ARCHS:
        data[a]["notable"]["predicated (guarded @p / @!p) instructions"] = data[a]["guarded"]
    return data


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render(data: dict) -> str:
    """The Markdown report."""
    nkern = len({p.stem.split(".")[0] for p in PTX_DIR.glob("*.ptx")})
    lines = [
        "# Opcode inventory of the CUDA test corpus",
        "",
        "Generated by `python3 scripts/opcode_inventory.py` from `tests/kernels/ptx/*.ptx` (nvcc 13, see",
        "`ptx/INDEX.txt`); do not edit by hand. Counts are static instruction statements (not executed ones).",
        "",
        _row(["", *ARCHS]),
        _row(["---"] * (len(ARCHS) + 1)),
        _row(["PTX files", *(data[a]["files"] for a in ARCHS)]),
        _row(["instruction statements", *(data[a]["statements"] for a in ARCHS)]),
        _row(["guarded (@p / @!p)", *(f"{data[a]['guarded']} ({100 * data[a]['guarded'] / max(1, data[a]['statements']):.1f} %)" for a in ARCHS)]),
        _row(["statements spanning several lines (calls)", *(data[a]["multiline"] for a in ARCHS)]),
        _row(["`{ ... }` scoped blocks inside bodies", *(data[a]["scoped_blocks"] for a in ARCHS)]),
        _row(["sources with a %SPL local stack", *(len(data[a]["spl_files"]) for a in ARCHS)]),
        _row(["`.loc ..., function_name ..., inlined_at ...`", *(data[a]["inlined_at"] for a in ARCHS)]),
        _row(["`.section .debug_str { ... }` blocks", *(data[a]["sections"] for a in ARCHS)]),
        _row(["`.pragma` strings", *(", ".join(f"{k} x{v}" for k, v in sorted(data[a]["pragmas"].items())) or "-" for a in ARCHS)]),
        "",
        f"Sources: {nkern}. Kernels with a `.local` stack frame (`%SPL`): "
        + ", ".join(sorted(set().union(*(data[a]["spl_files"] for a in ARCHS)))) + ".",
        "",
        "Things a statement scanner trips over here: `.loc` / `.file` lines end at the newline, not at",
        "`;`; `call` statements span several lines; inline-asm wrappers and call sequences open `{ ... }`",
        "scopes with their own `.reg` declarations mid-body; the sm_90 (`-lineinfo`) files end with a",
        "`.section .debug_str` block of `.b8` byte lists and labels.",
        "",
        "## Notable forms",
        "",
        "Sources listed are those where the form occurs for any target.",
        "",
        _row(["form", *ARCHS, "sources"]),
        _row(["---"] * (len(ARCHS) + 2)),
    ]
    for label, _ in NOTABLE:
        files = sorted(set().union(*(data[a]["notable_files"].get(label, set()) for a in ARCHS)))
        shown = ", ".join(files[:8]) + (f", ... ({len(files)} sources)" if len(files) > 8 else "")
        if label.startswith("predicated"):
            shown = "(most)"
        lines.append(_row([label, *(data[a]["notable"][label] for a in ARCHS), shown or "-"]))
    roots = collections.Counter()
    for a in ARCHS:
        roots.update(data[a]["roots"])
    lines += ["", "## Opcode roots", "", _row(["root", *ARCHS]), _row(["---"] * (len(ARCHS) + 1))]
    for root, _ in sorted(roots.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(_row([f"`{root}`", *(data[a]["roots"][root] for a in ARCHS)]))
    forms = collections.Counter()
    for a in ARCHS:
        forms.update(data[a]["forms"])
    lines += ["", "## Every instruction form", "", f"{len(forms)} distinct opcode spellings (opcode with all modifiers).",
              "", _row(["form", *ARCHS]), _row(["---"] * (len(ARCHS) + 1))]
    for form in sorted(forms):
        lines.append(_row([f"`{form}`", *(data[a]["forms"][form] for a in ARCHS)]))
    directives, sregs = collections.Counter(), collections.Counter()
    for a in ARCHS:
        directives.update(data[a]["directives"])
        sregs.update(data[a]["sregs"])
    lines += ["", "## Directives", "", _row(["directive", *ARCHS]), _row(["---"] * (len(ARCHS) + 1))]
    for dname in sorted(directives):
        lines.append(_row([f"`{dname}`", *(data[a]["directives"][dname] for a in ARCHS)]))
    lines += ["", "## Special registers", "", _row(["register", *ARCHS]), _row(["---"] * (len(ARCHS) + 1))]
    for r in sorted(sregs):
        lines.append(_row([f"`{r}`", *(data[a]["sregs"][r] for a in ARCHS)]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if OPCODES.md is out of date")
    args = ap.parse_args(argv)
    text = render(scan(PTX_DIR))
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print(f"{OUT.relative_to(REPO)} is {'up to date' if same else 'OUT OF DATE'}")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

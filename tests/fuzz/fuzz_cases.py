"""Seeded fuzzing of pipeperf's user-facing inputs: mutated PTX and CLI argument vectors.

Why: a user's PTX or command line may be anything; the tool must answer every one with a result
or a one-line error (``PipeperfError``), never a traceback, and never run past its step budget.
The PTX cases start from the corpus PTX (``tests/kernels/ptx``, as nvcc emits it) and apply a few
textual mutations each (drop, duplicate or swap lines; replace a token by another of the corpus'
vocabulary or an extreme number; truncate; garble a character), then emulate the mutated file
with the kernel's manifest launch. The argument vectors take a corpus kernel and draw its
command line from the argument grammar's pieces, valid and broken.

``PIPEPERF_FUZZ_PTX`` / ``PIPEPERF_FUZZ_ARGS`` set how many cases run (``benchmarks/fuzz.py``
runs thousands; the default tests a few hundred); ``PIPEPERF_FUZZ_SEED`` the seed.
"""

from __future__ import annotations

import os
import random
import re
import signal
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parents[1] / "kernels"
PTX_DIR = CORPUS / "ptx"
#: wall seconds one case may take before it counts as a hang (the emulator's step budget must stop it)
CASE_SECONDS = 20
#: the emulator's step budget for a mutated kernel
MAX_STEPS = 200_000

_TOKEN = re.compile(r"%[A-Za-z_]\w*|\.[A-Za-z_]\w*|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|-?\d+(?:\.\d+)?|\S")
_EXTREMES = ["0", "-1", "1", "2147483647", "-2147483648", "4294967295", "18446744073709551615",
             "0x7fffffffffffffff", "0f7F800000", "0d7FF8000000000000", "99999999999999999999999", "1e308"]


@dataclass(frozen=True)
class Kernel:
    """A corpus kernel: its PTX file per target, entry name and a legal launch as CLI strings."""

    name: str
    stem: str
    grid: str
    block: str
    shared: int
    args: tuple[str, ...]

    def ptx(self, arch: str = "sm_80") -> Path:
        return PTX_DIR / f"{self.stem}.{arch}.ptx"


def corpus_kernels() -> list[Kernel]:
    """Every manifest kernel with committed PTX, its launch and arguments in the CLI grammar."""
    doc = yaml.safe_load((CORPUS / "manifest.yaml").read_text())
    out = []
    for k in doc["kernels"]:
        launch, buffers = k.get("launch", {}), k.get("buffers", {})
        args = []
        for p in k["params"]:
            t = p["type"]
            if t.endswith("*"):
                n = int(buffers.get(p["name"], 1)) * int(p.get("vector", 1))
                args.append(f"zeros:{t.rstrip('*')}:{n}")     # by position: PTX keeps no CUDA names
            else:
                args.append(str(launch.get(p['name'], 1)))
        dims = lambda v: ",".join(str(x) for x in (v if isinstance(v, list) else [v]))
        stem = Path(k["file"]).stem
        if (PTX_DIR / f"{stem}.sm_80.ptx").exists():
            out.append(Kernel(k["kernel"], stem, dims(launch.get("grid", [1])), dims(launch.get("block", [32])),
                              int(launch.get("shared", 0)), tuple(args)))
    return out


def mutate(text: str, rng: random.Random, vocabulary: list[str]) -> tuple[str, list[str]]:
    """``text`` with 1-3 random mutations, and what they were (for the failure report)."""
    lines = text.split("\n")
    done = []
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.choice(["drop", "dup", "swap", "token", "extreme", "truncate", "garble", "token", "extreme"])
        if kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind in ("token", "extreme"):
            toks = list(_TOKEN.finditer(lines[i]))
            if not toks:
                continue
            t = rng.choice(toks)
            new = rng.choice(vocabulary) if kind == "token" else rng.choice(_EXTREMES)
            lines[i] = lines[i][:t.start()] + new + lines[i][t.end():]
        elif kind == "truncate":
            lines = lines[:i] + [lines[i][:rng.randrange(len(lines[i]) + 1)]]
        else:
            line = lines[i]
            k = rng.randrange(len(line) + 1)
            lines[i] = line[:k] + rng.choice(";{}[]()%.,:-+@!\"\\\t ") + line[k:]
        done.append(f"{kind} at line {i + 1}")
    return "\n".join(lines), done


def vocabulary(kernels: list[Kernel]) -> list[str]:
    """The distinct tokens of the corpus PTX (opcodes, types, registers, numbers, punctuation)."""
    seen: dict[str, None] = {}
    for k in kernels:
        for m in _TOKEN.finditer(k.ptx().read_text()):
            seen.setdefault(m.group(0), None)
    return list(seen)


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Timeout()


@dataclass
class Outcome:
    """How a batch of cases ended: ran, refused with a one-line error, or failed (with why)."""

    ran: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)
    messages: dict[str, int] = field(default_factory=dict)   # first words of the errors -> count

    def add_error(self, message: str) -> None:
        key = " ".join(message.split(":")[-1].split()[:4]) if message else "?"
        self.messages[key] = self.messages.get(key, 0) + 1


#: the address space a fuzz run may use: a case that would exhaust the machine's memory fails
#: with MemoryError instead (soft limit only, restored afterwards)
ADDRESS_SPACE = 12 << 30


class memory_cap:
    """Context manager: cap the process's address space at ADDRESS_SPACE while fuzzing."""

    def __enter__(self):
        import resource

        self.old = resource.getrlimit(resource.RLIMIT_AS)
        hard = self.old[1]
        cap = ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(ADDRESS_SPACE, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        return self

    def __exit__(self, *exc):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, self.old)
        return False


def run_guarded(fn, what: str, outcome: Outcome) -> None:
    """Run ``fn()``: a PipeperfError of one line is a refusal; any other exception, a multi-line
    message or a run past CASE_SECONDS is a failure recorded with ``what``."""
    from pipeperf.errors import PipeperfError

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with memory_cap():
            fn()
        outcome.ran += 1
    except PipeperfError as e:
        text = str(e)
        if "\n" in text.strip() or not text.strip():
            outcome.failures.append(f"{what}: error message is not one line: {text!r}")
        else:
            outcome.refused += 1
            outcome.add_error(text)
    except _Timeout:
        outcome.failures.append(f"{what}: ran past {CASE_SECONDS} s")
    except RecursionError:
        outcome.failures.append(f"{what}: RecursionError\n{traceback.format_exc(limit=8)}")
    except Exception:
        outcome.failures.append(f"{what}:\n{traceback.format_exc(limit=12)}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fuzz_ptx(count: int, seed: int, workdir: Path, analyze_every: int = 10, start: int = 0) -> Outcome:
    """Emulate ``count`` mutated corpus PTX files with their kernel's launch; every
    ``analyze_every``-th one that emulates is also analysed (IDGs, simulation, models). Case n
    draws from its own generator (seed, n), so ``start=n, count=1`` replays it alone."""
    from pipeperf.analysis import analyze
    from pipeperf.emulate import run_kernel

    kernels = corpus_kernels()
    vocab = vocabulary(kernels)
    out = Outcome()
    emulated = 0
    for n in range(start, start + count):
        rng = random.Random(seed * 1_000_003 + n)
        k = rng.choice(kernels)
        arch = rng.choice(["sm_75", "sm_80", "sm_90"])
        src = k.ptx(arch) if k.ptx(arch).exists() else k.ptx()
        text, how = mutate(src.read_text(), rng, vocab)
        path = workdir / f"case{n}_{k.stem}.ptx"
        path.write_text(text)
        what = f"case {n} ({src.name}: {', '.join(how)}; seed {seed})"
        before = out.ran
        run_guarded(lambda: run_kernel(path, k.grid, k.block, list(k.args), kernel=None, shared=k.shared,
                                       mode=rng.choice(["full", "hybrid"]), max_steps=MAX_STEPS), what, out)
        if out.ran > before:
            emulated += 1
            if analyze_every and emulated % analyze_every == 0:
                out.ran -= 1
                run_guarded(lambda: analyze(path, k.grid, k.block, list(k.args), ["ampere_a100"], shared=k.shared,
                                            trace_warps=8, what_if=False), what + " [analyze]", out)
        path.unlink(missing_ok=True)
    return out


_BAD_DIMS = ["0", "-1", "1,2,3,4", "abc", "", "65536,70000", "2147483648", "1.5", "1,,2", "4,0", "1024", "33,33",
             "2,2,2", "1e3", " 8", "0x10"]
_BAD_SPECS = ["rand:f32:-5", "zeros:q7:10", "=3", "", "nan", "inf", "1e999", "missing_file.npy", "zeros:u8:0",
              "ones:f64", "iota:i32:10", "arange:f32:7", "rand::4", "zeros:f32:99999999999999", "f32:2.5",
              "u8:300", "-0", "0x", "[1,2]", "zeros:f16:33", "rand:f64:1"]


def fuzz_args(count: int, seed: int) -> Outcome:
    """Run ``count`` random command lines of analyze / profile / roofline / measure (which, with no
    GPU here, must say so in one line) on corpus kernels: each
    must end with exit status 0 or 2 (argparse's usage errors included) and no traceback."""
    import contextlib
    import io

    from pipeperf.cli.main import main

    kernels = corpus_kernels()
    out = Outcome()
    for n in range(count):
        rng = random.Random(seed * 1_000_003 + n)
        k = rng.choice(kernels)
        cmd = rng.choice(["analyze", "profile", "roofline", "measure"])
        argv = [cmd, str(k.ptx(rng.choice(["sm_75", "sm_80", "sm_90"])))]
        grid = k.grid if rng.random() < 0.6 else rng.choice(_BAD_DIMS)
        block = k.block if rng.random() < 0.6 else rng.choice(_BAD_DIMS)
        argv += ["--grid", grid, "--block", block]
        args = list(k.args)
        for _ in range(rng.randint(0, 2)):
            r = rng.random()
            if r < 0.3 and args:
                args.pop(rng.randrange(len(args)))
            elif r < 0.6 and args:
                args[rng.randrange(len(args))] = rng.choice(_BAD_SPECS)
            else:
                args.append(rng.choice(_BAD_SPECS))
        for a in args:
            argv += ["--arg", a]
        if cmd in ("analyze", "roofline"):
            argv += ["--gpu", rng.choice(["ampere_a100", "h100", "v100", "nope_gpu", "volta_v100"])]
        if cmd == "analyze":
            argv += ["--trace-warps", "8", "--no-what-if"]
        if rng.random() < 0.2 and cmd != "roofline":
            argv += ["--shared", rng.choice(["-4", "0", "48", "1000000", "x"])]
        what = f"vector {n}: pipeperf {' '.join(argv)} (seed {seed})"
        err = io.StringIO()

        def call() -> None:
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    rc = main(argv)
            except SystemExit as e:          # argparse usage errors exit 2
                rc = e.code
            if rc not in (0, 2):
                raise AssertionError(f"exit status {rc}")
            if "Traceback" in err.getvalue():
                raise AssertionError(err.getvalue())
            if rc == 2:
                msg = err.getvalue().strip().splitlines()
                out.add_error(msg[-1] if msg else "")
                out.refused += 1
                out.ran -= 1                  # counted by run_guarded as ran: a refusal instead

        run_guarded(call, what, out)
    return out


def counts_from_env() -> tuple[int, int, int]:
    """(PTX cases, argument vectors, seed) for this run."""
    return (int(os.environ.get("PIPEPERF_FUZZ_PTX", "200")), int(os.environ.get("PIPEPERF_FUZZ_ARGS", "120")),
            int(os.environ.get("PIPEPERF_FUZZ_SEED", "20261124")))

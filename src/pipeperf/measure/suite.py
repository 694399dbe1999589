"""The validation suite: published real-hardware measurements against every model's prediction.

A suite is a folder (``validation/``) of case files (``cases/*.yaml``, schema in its README): each
case is one launch of a kernel on one GPU with a time a third party measured. ``run_suite``
analyses every distinct launch once for all the GPUs it was measured on (:mod:`pipeperf.analysis`),
and ``summarise`` gives each model's absolute percentage error per case and MAPE overall, per GPU
and per kernel family, plus whether every ``order_group`` of variants is predicted in the
measured order.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import hashlib
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Sequence

from pipeperf.errors import PipeperfError
from pipeperf.util.yamlio import Document, load_document

# A case's family says what it measures. Microbenchmark families name the unit a kernel was
# written to stress; application families name the computation of a kernel people write (its
# bound is for the model to find). The suite's headline is the mean of the per-family MAPEs, so
# a family with many cases (one streaming kernel at many sizes, say) weighs as much as any other.
MICRO_FAMILIES = ("dram", "l2", "l1", "shared", "compute-fp32", "compute-fp64", "compute-int", "latency",
                  "launch", "atomics")
APPLICATION_FAMILIES = ("gemm-fp32", "gemm-fp16", "gemm-tensor", "gemv", "reduction", "scan", "histogram",
                        "softmax", "normalization", "transpose", "convolution", "stencil", "spmv", "attention",
                        "elementwise", "sort", "graph", "nbody")
FAMILIES = MICRO_FAMILIES + APPLICATION_FAMILIES
PARTS = ("development", "held-out")


def part_of(source_name: str) -> str:
    """The suite part of every case of one source: ``held-out`` for about one source in three, by a
    fixed rule on the source's name (its repository ``owner/name`` or its paper/page title, case and
    surrounding blanks ignored: SHA-256 as a big-endian integer, held out when divisible by 3).
    Model work is judged on the development part; the held-out part tells whether it generalises.
    Splitting by source, not by case, keeps a source's sibling cases (one kernel at other sizes, one
    benchmark harness) from leaking what the held-out part should test."""
    digest = hashlib.sha256(source_name.strip().lower().encode()).digest()
    return "held-out" if int.from_bytes(digest, "big") % 3 == 0 else "development"
_CASE_KEYS = {"id", "family", "kernel_file", "kernel", "gpu", "launch", "measured", "order_group", "notes",
              "calibrates"}
_LAUNCH_KEYS = {"grid", "block", "args", "shared", "max_blocks_per_sm", "nvcc_flags", "arch", "notes", "warm_l2"}
_MEASURED_KEYS = {"seconds", "how", "quote", "file", "includes_launch", "notes", "timed_launches"}


@dataclass(frozen=True)
class Launch:
    """What ``pipeperf analyze`` needs to predict a case: identical launches are analysed once."""

    kernel_file: str              # absolute path
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: tuple[str, ...]
    shared: int = 0
    max_blocks_per_sm: int | None = None
    nvcc_flags: tuple[str, ...] = ()
    arch: str | None = None
    warm_l2: bool = False         # the measured launch followed one over the same buffers


@dataclass(frozen=True)
class Case:
    """One published measurement: a launch on a GPU and the time the source states."""

    id: str
    family: str
    gpu: str
    launch: Launch
    seconds: float                # measured
    includes_launch: bool         # the measured time includes the kernel launch's fixed cost
    source: str                   # file:line of the case, for messages
    order_group: str | None = None
    quote: str = ""
    reference: str = ""           # repository@commit:path (or paper, table)
    source_name: str = ""         # the source's repository (owner/name) or paper: what part_of splits on
    calibrates: tuple[str, ...] = ()   # GPU database fields this measurement is the source of
    timed_launches: int | None = None  # launches of the kernel the benchmark ran for this number
    gpu_spec: str = ""            # what analyze loads: the GPU file's absolute path when ``gpu`` names one

    @property
    def gpu_ref(self) -> str:
        """The GPU as analyze is given it (and keys its predictions by): a name, or a file's path."""
        return self.gpu_spec or self.gpu

    @property
    def part(self) -> str:
        """``development`` or ``held-out`` (``part_of`` the case's source)."""
        return part_of(self.source_name)

    @property
    def kind(self) -> str:
        """``micro`` (a microbenchmark family) or ``application``."""
        return "micro" if self.family in MICRO_FAMILIES else "application"


@dataclass
class CaseResult:
    case: Case
    predicted: dict[str, float | None]          # model -> seconds (launch overhead added where measured)
    launch_overhead: float = 0.0                # seconds added to every model's kernel time
    error: str | None = None                    # why the case could not be predicted
    analysis_seconds: float = 0.0
    phase_spread: float | None = None           # the Pipeline time's lock-step spread (order-group cases)

    def ape(self, model: str) -> float | None:
        p = self.predicted.get(model)
        if p is None or not math.isfinite(p):
            return None
        return abs(p - self.case.seconds) / self.case.seconds


def load_suite(folder: str | Path, select: Callable[[Case], bool] | None = None) -> list[Case]:
    """Every case of ``folder/cases/*.yaml`` (optionally only those ``select`` keeps); ids unique."""
    root = Path(folder)
    files = sorted((root / "cases").glob("*.yaml"))
    if not files:
        raise PipeperfError(f"no case files: expected {root / 'cases'}/*.yaml", file=str(root))
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for f in files:
        for c in _cases_of(load_document(f), root):
            if c.id in seen:
                raise PipeperfError(f"case id '{c.id}' already used at {seen[c.id]}", file=c.source)
            seen[c.id] = c.source
            if select is None or select(c):
                cases.append(c)
    return cases


def _cases_of(doc: Document, root: Path) -> Iterable[Case]:
    d = doc.data
    if not isinstance(d, dict) or not isinstance(d.get("cases"), list):
        raise doc.error("expected a mapping with 'source' and a list 'cases'", d)
    src = d.get("source") or {}
    if not isinstance(src, dict):
        raise doc.error("'source' must be a mapping (repository, commit, ... or paper, table)", d)
    reference = name = str(src.get("repository") or src.get("paper") or "")
    if src.get("commit"):
        reference += f"@{str(src['commit'])[:12]}"
    timed = src.get("timed_launches")
    if timed is not None and (isinstance(timed, bool) or not isinstance(timed, (int, str))):
        raise doc.error("source.timed_launches must be an integer or an expression over the cases' integer args",
                        src)
    for c in d["cases"]:
        yield _case(doc, c, root, reference, name, timed)


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: a // b}


def launches_of(expr: int | str, args: Sequence[str]) -> int:
    """The launches a benchmark ran for one number: ``expr`` is an integer or an integer expression
    (+ - * //, min, max) over the case's integer arguments (``size=4096`` -> size), as the benchmark's
    timing loop computes it; e.g. gpu-small-kernels' ``2 + 3 * 2 * ((min(30000, max(2000, 1000000000 //
    size)) + 1) // 2)``. Nothing else is evaluated."""
    if isinstance(expr, int):
        return expr
    env = {}
    for a in args:
        name, eq, value = a.partition("=")
        if eq and name.isidentifier() and value.lstrip("-").isdigit():
            env[name] = int(value)

    def ev(n: ast.AST) -> int:
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name) and n.id in env:
            return env[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max")
                and n.args and not n.keywords):
            return (min if n.func.id == "min" else max)(ev(x) for x in n.args)
        raise ValueError(f"'{ast.unparse(n)}' is not an integer, an integer argument of the case, + - * //, min or max")

    try:
        return ev(ast.parse(expr, mode="eval").body)
    except (SyntaxError, ValueError) as e:
        raise PipeperfError(f"timed_launches '{expr}': {e}") from None


def _case(doc: Document, c: Any, root: Path, reference: str, source_name: str,
          timed: int | str | None = None) -> Case:
    if not isinstance(c, dict):
        raise doc.error("each case must be a mapping (id, family, kernel_file, kernel, gpu, launch, measured)", c)
    where = f"case '{c.get('id', '?')}'"
    for keys, m, what in ((_CASE_KEYS, c, where), (_LAUNCH_KEYS, c.get("launch"), f"{where} launch"),
                          (_MEASURED_KEYS, c.get("measured"), f"{where} measured")):
        if not isinstance(m, dict):
            raise doc.error(f"{what}: expected a mapping", c)
        bad = set(m) - keys
        if bad:
            raise doc.error(f"{what}: unknown key '{sorted(bad)[0]}' (expected {', '.join(sorted(keys))})", m)
    for key in ("id", "family", "kernel_file", "kernel", "gpu", "launch", "measured"):
        if key not in c:
            raise doc.error(f"{where} lacks '{key}'", c)
    if c["family"] not in FAMILIES:
        raise doc.error(f"{where}: family '{c['family']}' is not one of {', '.join(FAMILIES)}", c)
    ln, ms = c["launch"], c["measured"]
    kfile = (root / str(c["kernel_file"])).resolve()
    if not kfile.is_file():
        raise doc.error(f"{where}: kernel_file '{c['kernel_file']}' does not exist under {root}", c)
    seconds = ms.get("seconds")
    if isinstance(seconds, str):              # YAML 1.1 reads 1e-5 (no dot) as a string
        try:
            seconds = float(seconds)
        except ValueError:
            pass
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise doc.error(f"{where}: measured.seconds must be a positive number, got {seconds!r}", ms)

    def dims(key: str) -> tuple[int, ...]:
        v = ln.get(key)
        v = [v] if isinstance(v, int) else v
        if not isinstance(v, list) or not 1 <= len(v) <= 3 or not all(isinstance(x, int) and x > 0 for x in v):
            raise doc.error(f"{where}: launch.{key} must be 1-3 positive integers, got {ln.get(key)!r}", ln)
        return tuple(v)

    from pipeperf.hardware.spec import gpu_in_file

    gpu = str(c["gpu"])
    spec = gpu_in_file(gpu, root)             # a GPU file: relative to the suite folder (as kernel_file)
    if spec == gpu:
        spec = ""
    elif not Path(spec).is_file():
        raise doc.error(f"{where}: gpu file '{gpu}' does not exist under {root}", c)
    mb = ln.get("max_blocks_per_sm")
    arch = ln.get("arch") or _gpu_target(spec or gpu)
    launch = Launch(str(kfile), str(c["kernel"]), dims("grid"), dims("block"),
                    tuple(_suite_path(str(a), root) for a in ln.get("args") or ()), int(ln.get("shared") or 0),
                    None if mb is None else int(mb), tuple(str(x) for x in ln.get("nvcc_flags") or ()), arch,
                    bool(ln.get("warm_l2", False)))
    own = ms.get("timed_launches")                  # this measurement's own count (NvBench's "Nx")
    if own is not None and (isinstance(own, bool) or not isinstance(own, int) or own < 1):
        raise doc.error(f"{where}: measured.timed_launches must be a positive integer, got {own!r}", ms)
    timed = own if own is not None else timed
    try:
        launches = None if timed is None else launches_of(timed, launch.args)
    except PipeperfError as e:
        raise doc.error(f"{where}: {e}", c) from None
    return Case(str(c["id"]), str(c["family"]), gpu, launch, float(seconds),
                bool(ms.get("includes_launch", True)), f"{doc.path}:{doc.line_of(c) or '?'}",
                c.get("order_group"), str(ms.get("quote", "")), reference, source_name,
                tuple(str(x) for x in (c.get("calibrates") or ())), launches, spec)


def _suite_path(arg: str, root: Path) -> str:
    """An argument whose value is a relative ``.npy`` path names a file of the suite folder
    (``shifts=data/x.npy`` -> ``validation/data/x.npy``), wherever validate runs from."""
    name, eq, value = arg.rpartition("=")
    if value.endswith(".npy") and not Path(value).is_absolute():
        return f"{name}{eq}{(root / value).resolve()}"
    return arg


@functools.cache
def _gpu_target(gpu: str) -> str | None:
    """The nvcc target of a case on ``gpu`` that names none: the GPU's own compute capability or
    the nearest one nvcc builds for (None for an unknown GPU: the case then fails with analyze's error)."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.ptx.compile import target_for

    try:
        return target_for(load_gpu(gpu).compute_capability)
    except PipeperfError:
        return None


def selector(gpus: Sequence[str] = (), families: Sequence[str] = (), ids: Sequence[str] = ()
             ) -> Callable[[Case], bool]:
    """Keep the cases on one of ``gpus``, in one of ``families``, whose id matches one of ``ids`` (globs)."""
    def keep(c: Case) -> bool:
        return ((not gpus or c.gpu in gpus) and (not families or c.family in families)
                and (not ids or any(fnmatch.fnmatch(c.id, p) for p in ids)))
    return keep


#: seconds one launch's analysis may take in a suite run before it is stopped and reported as failed
LAUNCH_TIMEOUT = 900.0


def run_suite(cases: Sequence[Case], jobs: int = 1, progress: Callable[[int, int], None] | None = None,
              timeout: float | None = LAUNCH_TIMEOUT, isa: str = "ptx") -> list[CaseResult]:
    """Predict every case: one ``analyze`` per distinct launch, for all its GPUs at once, each in a
    worker process of its own (``jobs`` at a time) that is stopped after ``timeout`` seconds, so one
    launch the tool cannot finish is a failed case, not a stalled suite. ``isa``: what the IDGs
    are built from (``AnalyzeOptions.isa``)."""
    groups: dict[Launch, list[Case]] = defaultdict(list)
    for c in cases:
        groups[c.launch].append(c)
    # launches of order-group cases are also simulated at +-1 % bandwidth (analysis/lockstep.py): a
    # pair the model puts out of order within that spread is a limit of the model, said as such
    work = [(launch, sorted({c.gpu_ref for c in cs}), any(c.order_group for c in cs), isa)
            for launch, cs in groups.items()]
    results: list[CaseResult] = []
    for k, (item, out) in enumerate(_in_workers(work, max(1, jobs), timeout)):
        results += _results_of(groups[item[0]], out)
        if progress:
            progress(k + 1, len(work))
    order = {c.id: i for i, c in enumerate(cases)}
    return sorted(results, key=lambda r: order[r.case.id])


def _in_workers(work: list, jobs: int, timeout: float | None) -> Iterable[tuple[Any, dict[str, Any]]]:
    """(item, _predict_launch(item)) for every item, ``jobs`` forked processes at a time; a process
    still running after ``timeout`` seconds is killed and its launch reported as an error."""
    import multiprocessing as mp
    import time

    ctx = mp.get_context("fork")
    pending = list(enumerate(work))
    running: dict[int, tuple[Any, Any, float]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            k, item = pending.pop(0)
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_worker, args=(item, send), daemon=True)
            proc.start()
            send.close()
            running[k] = (proc, recv, time.monotonic())
        time.sleep(0.05)
        for k in list(running):
            proc, recv, t0 = running[k]
            item = work[k]
            if recv.poll():
                try:
                    out = recv.recv()
                except EOFError:
                    out = {g: {"error": "the analysis process ended without a result"} for g in item[1]}
                proc.join()
            elif not proc.is_alive():
                out = {g: {"error": f"the analysis process died (exit code {proc.exitcode})"} for g in item[1]}
            elif timeout is not None and time.monotonic() - t0 > timeout:
                proc.kill()
                proc.join()
                out = {g: {"error": f"the analysis ran past {timeout:.0f} s and was stopped"} for g in item[1]}
                out["_seconds"] = timeout
            else:
                continue
            recv.close()
            del running[k]
            yield item, out


def _worker(item: Any, send: Any) -> None:
    try:
        send.send(_predict_launch(item))
    finally:
        send.close()


def _predict_launch(item: tuple[Launch, list[str], bool, str]) -> dict[str, Any]:
    """{gpu: {"models": {model: kernel seconds}, "overhead": s} | {"error": msg}}, plus "_seconds".
    All GPUs are analysed in one run; when that fails, each GPU alone, so one GPU's error (a class
    it lacks, say) does not hide the others' results."""
    import time

    t0 = time.perf_counter()
    out: dict[str, Any] = {}
    try:
        out.update(_analyze_launch(launch := item[0], item[1], item[2], item[3]))
    except PipeperfError as e:
        if len(item[1]) == 1:
            out[item[1][0]] = {"error": str(e)}
        for g in item[1] if len(item[1]) > 1 else ():
            try:
                out.update(_analyze_launch(launch, [g], item[2], item[3]))
            except PipeperfError as e1:
                out[g] = {"error": str(e1)}
    out["_seconds"] = time.perf_counter() - t0
    return out


#: a suite run's step budget (emulate/budget.py), in effect none: a case is scored on what the model
#: predicts when it may finish, and the per-case timeout (``timeout`` of run_suite) stops a runaway
SUITE_STEPS = 10**15


def _analyze_launch(launch: Launch, gpus: list[str], phase_check: bool = False, isa: str = "ptx") -> dict[str, Any]:
    from pipeperf.analysis import analyze

    a = analyze(launch.kernel_file, list(launch.grid), list(launch.block), list(launch.args), gpus,
                kernel=launch.kernel, shared=launch.shared, arch=launch.arch,
                max_blocks_per_sm=launch.max_blocks_per_sm, nvcc_flags=list(launch.nvcc_flags), what_if=False,
                warm_l2=launch.warm_l2, phase_check=phase_check, isa=isa, max_steps=SUITE_STEPS)
    # keyed by the GPU as the case names it (a file's spec has a name of its own): one prediction per GPU, in order
    return {g: {"models": {m: v.get("seconds") for m, v in p.predictions.items()},
                "overhead": p.launch_overhead_seconds,
                "phase_spread": p.phase_sensitivity.spread if p.phase_sensitivity else None}
            for g, p in zip(gpus, a.predictions, strict=True)}


def _results_of(cases: list[Case], out: dict[str, Any]) -> list[CaseResult]:
    res = []
    share = out.get("_seconds", 0.0) / max(1, len(cases))
    for c in cases:
        o = out.get(c.gpu_ref, {"error": f"analyze returned no prediction for GPU '{c.gpu}'"})
        if "error" in o:
            res.append(CaseResult(c, {}, error=o["error"], analysis_seconds=share))
            continue
        extra = o["overhead"] if c.includes_launch else 0.0
        pred = {m: (s + extra if s is not None else None) for m, s in o["models"].items()}
        res.append(CaseResult(c, pred, extra, analysis_seconds=share, phase_spread=o.get("phase_spread")))
    return res


@dataclass
class SuiteSummary:
    """MAPE (%) per model: the headline (the mean of the per-family MAPEs), over all cases, per GPU
    and per family, and the same per part (development, held-out); the order groups' verdicts."""

    models: list[str]
    overall: dict[str, float | None]            # over all scored cases (a big family dominates it)
    by_gpu: dict[str, dict[str, float | None]]
    by_family: dict[str, dict[str, float | None]]
    counts: dict[str, Any]
    orders: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    headline: dict[str, float | None] = field(default_factory=dict)   # mean of the per-family MAPEs
    by_part: dict[str, dict[str, Any]] = field(default_factory=dict)  # part -> headline, by_family, counts

    def to_dict(self) -> dict[str, Any]:
        return {"models": self.models, "mape_headline": self.headline, "mape_overall": self.overall,
                "mape_by_gpu": self.by_gpu, "mape_by_family": self.by_family, "by_part": self.by_part,
                "counts": self.counts, "order_groups": self.orders, "failed": self.failed}


def _mape(values: list[float | None]) -> float | None:
    v = [x for x in values if x is not None]
    return round(100.0 * sum(v) / len(v), 2) if v else None


def _mean_of_families(by_family: dict[str, dict[str, float | None]], models: Sequence[str]
                      ) -> dict[str, float | None]:
    """Per model, the mean of its per-family MAPEs (families it predicted no case of are left out)."""
    out: dict[str, float | None] = {}
    for m in models:
        v = [x for f in by_family.values() if (x := f.get(m)) is not None]
        out[m] = round(sum(v) / len(v), 2) if v else None
    return out


def summarise(results: Sequence[CaseResult]) -> SuiteSummary:
    """MAPE over the predicted cases, leaving out those a database constant was read from
    (``calibrates``): predicting the number a constant was derived from tests nothing."""
    ok = [r for r in results if r.error is None and not r.case.calibrates]
    models = sorted({m for r in ok for m in r.predicted}, key=lambda m: (m != "pipeline", m))

    def table(key: Callable[[CaseResult], str]) -> dict[str, dict[str, float | None]]:
        groups: dict[str, list[CaseResult]] = defaultdict(list)
        for r in ok:
            groups[key(r)].append(r)
        return {k: {m: _mape([r.ape(m) for r in rs]) for m in models} for k, rs in sorted(groups.items())}

    calib = [r.case.id for r in results if r.error is None and r.case.calibrates]
    counts = {"cases": len(results), "predicted": len(ok), "calibration": len(calib),
              "failed": sum(1 for r in results if r.error is not None),
              "by_gpu": _count(r.case.gpu for r in ok), "by_family": _count(r.case.family for r in ok),
              "kernels": len({(r.case.launch.kernel_file, r.case.launch.kernel) for r in ok})}
    by_family = table(lambda r: r.case.family)
    by_part: dict[str, dict[str, Any]] = {}
    for part in PARTS:
        rs = [r for r in ok if r.case.part == part]
        fams = {f: {m: _mape([r.ape(m) for r in rs if r.case.family == f]) for m in models}
                for f in sorted({r.case.family for r in rs})}
        by_part[part] = {
            "headline": _mean_of_families(fams, models), "by_family": fams,
            "counts": {"predicted": len(rs), "by_family": _count(r.case.family for r in rs),
                       "sources": sorted({r.case.source_name for r in rs}),
                       "cases": sum(1 for r in results if r.case.part == part)}}
    return SuiteSummary(models, {m: _mape([r.ape(m) for r in ok]) for m in models},
                        table(lambda r: r.case.gpu), by_family, counts,
                        order_checks(ok, models),
                        [{"id": r.case.id, "error": r.error or ""} for r in results if r.error],
                        _mean_of_families(by_family, models), by_part)


def _count(items: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for x in items:
        out[x] += 1
    return dict(sorted(out.items()))


def order_checks(results: Sequence[CaseResult], models: Sequence[str]) -> list[dict[str, Any]]:
    """Per order group: the measured order of its variants (fastest first), whether each model
    predicts the same order (ties within 1 % of the measured time count as either order;
    ``in_order_5pct``: the same with pairs measured within 5 % of each other let go) and, per
    model out of order, the pair it inverts most (``worst_inversion``: the measured-faster and
    -slower case and both gaps, as shares of the faster one's time; for the Pipeline model also
    both cases' lock-step spreads, ``phase_spreads``, and ``within_phase_spread``: its predicted
    gap is no larger than the larger spread, so the model does not resolve the pair)."""
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        if r.case.order_group:
            groups[r.case.order_group].append(r)
    out = []
    for name, rs in sorted(groups.items()):
        if len(rs) < 2:
            continue
        rs = sorted(rs, key=lambda r: r.case.seconds)
        verdict: dict[str, bool | None] = {}
        loose: dict[str, bool | None] = {}
        worst: dict[str, dict[str, Any]] = {}
        for m in models:
            got = [r.predicted.get(m) for r in rs]
            p = [x for x in got if x is not None]
            if len(p) < len(got):
                verdict[m] = loose[m] = None
                continue
            bad = [(p[i] / p[j] - 1.0, i, j) for i in range(len(rs)) for j in range(i + 1, len(rs))
                   if p[i] > p[j] and abs(rs[i].case.seconds - rs[j].case.seconds) > 0.01 * rs[j].case.seconds]
            verdict[m] = not bad
            # issue 36's rule: pairs measured within 5 % of each other may come in either order
            loose[m] = not [b for b in bad if rs[b[2]].case.seconds > 1.05 * rs[b[1]].case.seconds]
            if bad:
                gap, i, j = max(bad)
                worst[m] = {"measured_faster": rs[i].case.id, "measured_slower": rs[j].case.id,
                            "measured_gap": rs[j].case.seconds / rs[i].case.seconds - 1.0, "predicted_gap": -gap}
                sa, sb = rs[i].phase_spread, rs[j].phase_spread
                if m == "pipeline" and sa is not None and sb is not None:
                    worst[m]["phase_spreads"] = [sa, sb]
                    worst[m]["within_phase_spread"] = gap <= max(sa, sb)
        out.append({"group": name, "measured_order": [r.case.id for r in rs], "in_order": verdict,
                    "in_order_5pct": loose, "worst_inversion": worst})
    return out


def results_json(results: Sequence[CaseResult], summary: SuiteSummary) -> str:
    cases = [{"id": r.case.id, "gpu": r.case.gpu, "family": r.case.family, "part": r.case.part,
              "measured_seconds": r.case.seconds,
              "predicted_seconds": r.predicted, "launch_overhead_seconds": r.launch_overhead,
              "ape_percent": {m: (None if (a := r.ape(m)) is None else round(100 * a, 2)) for m in r.predicted},
              "error": r.error, "source": r.case.source, "reference": r.case.reference,
              **({"phase_spread": round(r.phase_spread, 4)} if r.phase_spread is not None else {})}
             for r in results]
    return json.dumps({"summary": summary.to_dict(), "cases": cases}, indent=1)

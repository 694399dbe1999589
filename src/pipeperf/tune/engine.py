"""From launches to one outcome per (launch, GPU): look each up in the results cache, group what
is missing into compile units and analysis jobs, run them (:mod:`pipeperf.tune.execute`) and
store each result as it arrives. ``pipeperf tune`` (a space's variants) and ``pipeperf analyze
--batch`` (an application's launches) both come through here."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from pipeperf.emulate.budget import DEFAULT_STEPS
from pipeperf.errors import PipeperfError
from pipeperf.tune.cache import ResultCache, canonical, result_key, sha256
from pipeperf.tune.execute import RunInfo, execute
from pipeperf.tune.variants import Launch, Refused
from pipeperf.tune.work import COMPILE, EXCLUDED, LAUNCH, OK, CompileUnit, Job, Outcome

log = logging.getLogger(__name__)

#: the version of the cached Outcome records: 2 added the launch overhead, HyPA's metrics and DRAM bytes
OUTCOME_VERSION = 2

#: analyze()'s defaults for the options a space or batch may set: part of every cache key, so
#: an option left out and the same option given explicitly find the same entry
DEFAULT_OPTIONS: dict[str, Any] = {"trace_warps": 256, "mode": "hybrid", "max_nodes": 200_000, "fast_forward": 4,
                                   "phase_check": False, "max_steps": DEFAULT_STEPS}


@dataclass
class Item:
    """A launch to analyse, with what it is reported as: a variant's parameters or a batch entry."""

    index: int
    label: dict[str, Any]
    launch: Launch | Refused | None          # None: excluded (``excluded`` says why)
    gpus: tuple[str, ...]
    excluded: str = ""
    options: dict[str, Any] = field(default_factory=dict)   # analyze() keywords for this item alone (warm_l2)


@dataclass
class Row:
    """One item on one GPU."""

    item: Item
    gpu: str
    outcome: Outcome
    cached: bool = False


@dataclass
class EngineResult:
    rows: list[Row]
    run: RunInfo | None                      # None when everything came from the cache
    computed: int = 0                        # (launch, GPU) pairs analysed by this run
    cached: int = 0                          # ... and found in the cache
    cache_path: str | None = None
    failed_jobs: list[str] = field(default_factory=list)


def run_items(items: Sequence[Item], options: dict[str, Any] | None = None, scheduler: str = "local",
              workers: int | None = None, cache: ResultCache | None = None) -> EngineResult:
    """Every item on each of its GPUs: from the cache where it is there, else computed."""
    from pipeperf._version import __version__

    opts = {**DEFAULT_OPTIONS, **(options or {})}
    cache = ResultCache(None) if cache is None else cache      # (an empty cache is falsy: len 0)
    gpu_digest = {g: _gpu_digest(g) for g in dict.fromkeys(g for it in items for g in it.gpus)}
    launches = [it for it in items if isinstance(it.launch, Launch)]
    nvcc = _nvcc_version() if any(it.launch.path.endswith(".cu") for it in launches) else ""   # type: ignore[union-attr]
    bundles: dict[tuple[str, tuple[str, ...]], Any] = {}
    keys: dict[tuple[int, str], str] = {}
    for it in launches:
        la = it.launch
        b = _bundle(bundles, la)                       # type: ignore[arg-type]
        base = {"pipeperf": __version__, "nvcc": nvcc, "source": b if isinstance(b, str) else b.digest,
                "kernel": la.kernel, "flags": list(la.flags), "template": list(la.template),   # type: ignore[union-attr]
                "launch": la.describe() | {"args": list(la.args)}, "options": opts | it.options,   # type: ignore[union-attr]
                "outcome": OUTCOME_VERSION}
        for g in it.gpus:
            keys[(it.index, g)] = result_key(base | {"gpu": gpu_digest[g]})
    hits = cache.get_many(keys.values())
    rows: dict[tuple[int, str], Row] = {}
    for it in items:
        for g in it.gpus:
            if it.launch is None:
                rows[(it.index, g)] = Row(it, g, Outcome(g, EXCLUDED, it.excluded))
            elif isinstance(it.launch, Refused):
                rows[(it.index, g)] = Row(it, g, Outcome(g, LAUNCH, it.launch.reason))
            elif keys[(it.index, g)] in hits:
                rows[(it.index, g)] = Row(it, g, Outcome.from_dict(hits[keys[(it.index, g)]]), cached=True)
    jobs = _jobs([it for it in launches if any((it.index, g) not in rows for g in it.gpus)], rows,
                 bundles, opts)
    by_job = {j.id: it for j, it in jobs}
    computed = 0

    def on_result(job: Job, outcomes: list[Outcome]) -> None:
        nonlocal computed
        it = by_job[job.id]
        for o in outcomes:
            rows[(it.index, o.gpu)] = Row(it, o.gpu, o)
            computed += 1
            if o.status in (OK, COMPILE, LAUNCH):      # deterministic: cached; errors (bugs) are not
                cache.put(keys[(it.index, o.gpu)], o.to_dict())

    run = execute([j for j, _ in jobs], scheduler, workers, on_result) if jobs else None
    ordered = [rows[(it.index, g)] for it in items for g in it.gpus]
    return EngineResult(ordered, run, computed, sum(r.cached for r in ordered),
                        None if cache.path is None else str(cache.path))


def _jobs(items: list[Item], rows: dict[tuple[int, str], Row], bundles: dict, opts: dict[str, Any]
          ) -> list[tuple[Job, Item]]:
    """One job per launch with the GPUs it lacks; one compile unit per distinct (source, kernel,
    template arguments, flags), for every target its jobs' GPUs need."""
    groups: dict[str, list[tuple[Item, tuple[str, ...]]]] = {}
    for it in items:
        la: Launch = it.launch                          # type: ignore[assignment]
        missing = tuple(g for g in it.gpus if (it.index, g) not in rows)
        b = _bundle(bundles, la)
        uid = sha256(canonical([b if isinstance(b, str) else b.digest, la.kernel, list(la.template),
                                list(la.flags)]))
        groups.setdefault(uid, []).append((it, missing))
    out = []
    analyze_opts = dict(opts)
    if not analyze_opts.get("fast_forward"):
        analyze_opts["fast_forward"] = None
    for uid, members in groups.items():
        la0: Launch = members[0][0].launch              # type: ignore[assignment]
        b = _bundle(bundles, la0)
        gpus = tuple(dict.fromkeys(g for _, m in members for g in m))
        arch = analyze_opts.get("arch")              # one build for every GPU (analyze --arch)
        targets = () if isinstance(b, str) else (str(arch),) if arch else targets_for(gpus)
        unit = CompileUnit(uid, None if isinstance(b, str) else b, la0.path, la0.kernel, la0.template,
                           la0.flags, targets)
        for it, missing in members:
            la: Launch = it.launch                      # type: ignore[no-redef]
            job_opts = analyze_opts | it.options
            jid = sha256(canonical([uid, la.describe(), list(la.args), list(missing), job_opts]))
            out.append((Job(jid, unit, la.grid, la.block, la.shared, la.args, missing, job_opts), it))
    return out


def targets_for(gpus: Sequence[str]) -> tuple[str, ...]:
    """The nvcc targets ``analyze`` builds for these GPUs: the default one (its reference build)
    and each GPU's (:func:`pipeperf.ptx.compile.target_for`)."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.ptx.compile import DEFAULT_ARCH, target_for

    out = [DEFAULT_ARCH]
    for g in gpus:
        cc = str(getattr(load_gpu(g), "compute_capability", "") or "")
        out.append(target_for(cc) if cc else DEFAULT_ARCH)
    return tuple(dict.fromkeys(out))


def _bundle(bundles: dict, la: Launch):
    """The launch's source bundle (a .cu), or the SHA-256 of the file's bytes (a .ptx file)."""
    from pipeperf.tune.sources import bundle

    k = (la.path, la.include_dirs)
    if k not in bundles:
        if la.path.endswith(".cu"):
            bundles[k] = bundle(la.path, la.include_dirs)
        else:
            from pipeperf.util.files import read_text

            bundles[k] = sha256(read_text(la.path))
    return bundles[k]


def _gpu_digest(name: str) -> str:
    """SHA-256 of the GPU's whole spec (its ``base`` files merged in): editing a GPU file, or a
    base it inherits from, changes the key. An unknown GPU is the one-line error of load_gpu."""
    from pipeperf.hardware.spec import load_gpu, spec_yaml

    load_gpu(name)
    return sha256(spec_yaml(name).split("\n", 2)[-1])


def _nvcc_version() -> str:
    """nvcc's version for the results' key; without nvcc, the PTX comes from a committed store of
    compiles (:mod:`pipeperf.ptx.prebuilt`) or each variant is listed with nvcc's one-line error."""
    from pipeperf.ptx.toolkit import find_tool, tool_version

    try:
        return tool_version(find_tool("nvcc"))
    except PipeperfError:
        return "no nvcc"

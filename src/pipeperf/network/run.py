"""Analysing a network's launches: each distinct launch once per GPU (identical layers share one
analysis), on the engine of ``pipeperf tune`` and ``analyze --batch`` (Dask for many launches,
the results cache, progress), cold or with a warm L2.

Warm L2 (stated in the report per layer): a layer runs warm on a GPU when every activation it
reads was written by the layer just before it and its inputs, weights and output together fit
in that GPU's L2; ``analyze`` then starts it with its buffers in L2 (``warm_l2``), weights
included, which makes a layer with large weights optimistic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeperf.network.lower import KernelLaunch, Plan

#: distinct launch x GPU analyses from which a local Dask cluster pays for its start (~5 s)
DASK_FROM = 24


@dataclass(frozen=True)
class RunOptions:
    """How the launches are analysed: the GPUs, the warps traced per launch (the IDGs' sample;
    fewer is faster), the Dask scheduler (``auto``: a local cluster from :data:`DASK_FROM`
    analyses on, else this process), the results cache, the warm-L2 rule on or off, and one
    nvcc target for all GPUs (``arch``: one compile per kernel file instead of one per target,
    every GPU's occupancy from that target's registers)."""

    gpus: tuple[str, ...]
    trace_warps: int = 64
    scheduler: str = "auto"
    workers: int | None = None
    cache: Any = None
    warm_l2: bool = True
    arch: str | None = None             # one nvcc target for every GPU (analyze --arch); None: each GPU's own


@dataclass(frozen=True)
class Analysed:
    """Every (launch key, GPU)'s outcome (:class:`pipeperf.tune.work.Outcome`), which layers run
    warm on which GPU, and how the work ran."""

    outcomes: dict[tuple[Any, str], Any] = field(hash=False)
    warm: dict[str, frozenset[int]] = field(hash=False)
    distinct: int
    computed: int
    cached: int
    backend: str
    seconds: float


def warm_layers(plan: Plan, gpu: str) -> frozenset[int]:
    """Indices of the layers that run with a warm L2 on ``gpu`` (module docstring)."""
    from pipeperf.hardware.spec import load_gpu

    l2 = float(load_gpu(gpu).memory.get("l2_bytes") or 0)
    out = set()
    prev_output: str | None = None
    for i, layer in enumerate(plan.layers):
        if not layer.launches:
            continue            # a view: the tensor it passes on is its input's
        total = layer.input_bytes + layer.weight_bytes + layer.output_bytes
        if prev_output is not None and layer.inputs and l2 and total <= l2 and \
                all(_source(plan, t) == prev_output for t in layer.inputs):
            out.add(i)
        prev_output = layer.output
    return frozenset(out)


def _source(plan: Plan, tensor: str) -> str:
    """The tensor a view chain ends at (a Flatten's output is its input's data)."""
    views = {layer.output: layer.inputs[0] for layer in plan.layers if not layer.launches and layer.inputs}
    while tensor in views:
        tensor = views[tensor]
    return tensor


def analyse(plan: Plan, opts: RunOptions) -> Analysed:
    """Run every distinct (launch, warm or cold) on the GPUs that need it."""
    import time

    from pipeperf.tune.engine import Item, run_items

    t0 = time.perf_counter()
    warm = {g: warm_layers(plan, g) if opts.warm_l2 else frozenset() for g in opts.gpus}
    groups: dict[tuple[Any, bool], tuple[KernelLaunch, str, list[str]]] = {}
    for i, layer in enumerate(plan.layers):
        for la in layer.launches:
            for g in opts.gpus:
                w = i in warm[g]
                entry = groups.setdefault((la.key(), w), (la, layer.name, []))
                if g not in entry[2]:
                    entry[2].append(g)
    items = []
    for n, ((_, w), (la, name, gpus)) in enumerate(groups.items()):
        items.append(Item(n, {"name": name, "kernel": la.kernel}, _engine_launch(la), tuple(gpus),
                          options={"warm_l2": True} if w else {}))
    pairs = sum(len(it.gpus) for it in items)
    scheduler = opts.scheduler
    if scheduler == "auto":
        import os

        scheduler = "local" if pairs >= DASK_FROM and (opts.workers or os.cpu_count() or 1) > 1 else "none"
    options: dict[str, Any] = {"trace_warps": opts.trace_warps} | ({"arch": opts.arch} if opts.arch else {})
    result = run_items(items, options, scheduler, opts.workers, opts.cache)
    outcomes: dict[tuple[Any, str], Any] = {}
    by_index = {it.index: key for it, key in zip(items, groups)}
    for row in result.rows:
        key, w = by_index[row.item.index]
        outcomes[(key, w, row.gpu)] = row.outcome           # type: ignore[index]
    backend = result.run.backend if result.run is not None else "the results cache"
    return Analysed(outcomes, warm, len({k for k, _ in groups}), result.computed, result.cached, backend,
                    time.perf_counter() - t0)


def _engine_launch(la: KernelLaunch) -> Any:
    from pipeperf.tune.variants import Launch

    return Launch(str(la.path), la.kernel, la.grid, la.block, 0, la.args, la.defines)

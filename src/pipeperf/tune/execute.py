"""Running the compile and analysis tasks: in this process (``--cluster none``), on a local
Dask cluster of worker processes (the default, one per core), or on an existing Dask cluster
(``--cluster tcp://HOST:PORT``).

On Dask each distinct compile is one task and each launch's analysis (all its GPUs) one task
that depends on it, so a compile runs once, before its analyses, and its result travels to
whichever worker runs them. Results are handed to ``on_result`` as they complete (the caller
stores each at once), under a progress bar. A worker that dies (killed, out of memory) loses
its tasks to the scheduler, which runs them again on the workers left, as it re-runs the
compile results the worker held; an analysis that fails with an exception, or whose workers
keep dying, comes back as an ``error`` outcome, so no variant is dropped.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from collections.abc import Callable, Sequence

from pipeperf.errors import PipeperfError
from pipeperf.tune.work import ERROR, Compiled, Job, Outcome, analyze_job, compile_unit, warm_up
from pipeperf.util.progress import progress

log = logging.getLogger(__name__)

OnResult = Callable[[Job, list[Outcome]], None]


@dataclass
class RunInfo:
    """How the work ran: the backend in words, its workers, the wall time (start-up included:
    the cluster's start and the workers' imports of the analysis)."""

    backend: str
    workers: int
    seconds: float
    jobs: int
    compiles: int
    startup_seconds: float = 0.0


def execute(jobs: Sequence[Job], scheduler: str = "local", workers: int | None = None,
            on_result: OnResult | None = None) -> RunInfo:
    """Run ``jobs`` (and their compiles) on ``scheduler``: "none" (this process), "local" (a Dask
    cluster of ``workers`` processes, default one per core) or a Dask scheduler's address."""
    on_result = on_result or (lambda job, outcomes: None)
    jobs = sorted(jobs, key=lambda j: j.unit.id)          # a compile's analyses together
    if scheduler == "none":
        return _run_plain(jobs, on_result)
    return _run_dask(jobs, scheduler, workers, on_result)


def _run_plain(jobs: Sequence[Job], on_result: OnResult) -> RunInfo:
    """The plain loop: each compile once (kept while its analyses run), each analysis in turn."""
    t0 = time.perf_counter()
    compiled: dict[str, Compiled] = {}
    for job in progress(list(jobs), "tune", "launch"):
        c = compiled.get(job.unit.id)
        if c is None:
            compiled.clear()                               # jobs are sorted by unit: the last one is done
            c = compiled[job.unit.id] = compile_unit(job.unit)
        on_result(job, _guarded(analyze_job, job, c))
    units = len({j.unit.id for j in jobs})
    return RunInfo("in-process loop", 1, time.perf_counter() - t0, len(jobs), units)


def _guarded(fn, job: Job, compiled: Compiled) -> list[Outcome]:
    try:
        return fn(job, compiled)
    except Exception as e:              # a bug: listed with its variant, not lost
        log.debug("analysis failed", exc_info=True)
        return [Outcome(g, ERROR, f"{type(e).__name__}: {e}") for g in job.gpus]


def _run_dask(jobs: Sequence[Job], scheduler: str, workers: int | None, on_result: OnResult) -> RunInfo:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise PipeperfError("Dask is not installed: pip install 'pipeperf[tune]' (dask[distributed]), "
                            "or --cluster none for the in-process loop") from None
    t0 = time.perf_counter()
    cluster = None
    if scheduler == "local":
        import dask

        n = workers or os.cpu_count() or 1
        # Dask's statistical profiler walks the running task's Python stack every 10 ms: for these
        # deep pure-Python analyses that is CPU taken from them, and nothing here reads it. The
        # HTTP server on a free port: the default 8787 may be taken (a warning on stderr then)
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        client = Client(cluster)
        where = f"Dask, a local cluster of {n} worker process{'es' if n != 1 else ''}"
    else:
        if workers:
            raise PipeperfError("--workers sets the size of the local cluster: an existing cluster "
                                f"({scheduler}) has the workers it has")
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as e:
            raise PipeperfError(f"--cluster {scheduler}: cannot reach a Dask scheduler there ({e}); "
                                "expected tcp://HOST:PORT of a running 'dask scheduler', 'local' or 'none'") from None
        n = len(client.scheduler_info().get("workers", {}))
        where = f"Dask at {scheduler} ({n} worker{'s' if n != 1 else ''} at the start)"
    try:
        client.run(warm_up)                 # every worker imports the analysis now, not in its first task
    except Exception as e:                  # a worker without pipeperf: say so before any task fails
        client.close()
        if cluster is not None:
            cluster.close()
        raise PipeperfError(f"the Dask workers cannot import pipeperf's analysis ({type(e).__name__}: {e}): "
                            "install pipeperf where the workers run") from None
    startup = time.perf_counter() - t0
    try:
        units = {}
        for job in jobs:
            if job.unit.id not in units:
                units[job.unit.id] = client.submit(compile_unit, job.unit, key=f"pipeperf-compile-{job.unit.id}")
        futures = {client.submit(analyze_job, job, units[job.unit.id], key=f"pipeperf-analyze-{job.id}"): job
                   for job in jobs}
        for fut in progress(as_completed(futures), "tune", "launch", total=len(futures)):
            job = futures[fut]
            try:
                outcomes = fut.result()
            except Exception as e:      # a bug in the task, or its workers kept dying (KilledWorker)
                outcomes = [Outcome(g, ERROR, f"{type(e).__name__}: {e}") for g in job.gpus]
            on_result(job, outcomes)
            fut.release()
        return RunInfo(where, n, time.perf_counter() - t0, len(jobs), len(units), startup)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

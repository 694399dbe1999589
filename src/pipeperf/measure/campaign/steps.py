"""The campaign's named steps, each time-boxed and resumable, and the run over a budget.

A step writes files under the campaign folder and is recorded in the manifest; a step already
``done`` with its files present is skipped (``redo`` names steps to run again). Before a step
starts, its time box is weighed against what is left of ``--budget-minutes``: a step that would
not fit is skipped and says so, and the steps that can stop early (calibrate, sweeps) are run
shortened when at least a third of their box is left.
"""

from __future__ import annotations

import datetime
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

from pipeperf.errors import PipeperfError
from pipeperf.measure.campaign import derive
from pipeperf.measure.campaign.backends import GpuBackend, SimBackend
from pipeperf.measure.campaign.launches import (Launch, atomics_launches, dispatch_launches, dram_launches,
                                                l2_launches, latency_launches, sweep_launches)
from pipeperf.measure.campaign.manifest import Manifest, StepRecord

#: smallest piece of a shortened step worth starting (seconds)
MIN_SHORTENED = 60.0


@dataclass
class Campaign:
    """Everything a step needs: where files go, who runs launches, the budget."""

    folder: Path
    backend: GpuBackend | SimBackend | None   # set before the steps run
    manifest: Manifest
    reference: str                        # the published GPU entry that validate scores models with
    clock_ghz: float
    simulate: str | None = None
    scale: float = 1.0                    # grid scale of the memory/dispatch/atomics launches
    sweep_factor: int = 4096
    sweep_names: tuple[str, ...] | None = None
    calibrate_classes: list[str] | None = None
    deadline: float = float("inf")        # time.monotonic() at which the budget is spent
    log: Callable[[str], None] = print
    archive: Path | None = None

    def raw(self, name: str) -> Path:
        d = self.folder / "raw"
        d.mkdir(parents=True, exist_ok=True)
        return d / f"{name}.csv"

    def rel(self, p: Path) -> str:
        return str(p.relative_to(self.folder))


@dataclass(frozen=True)
class Step:
    name: str
    box_s: float                          # its time box; no step over 10 minutes (one device command)
    what: str
    run: Callable[[Campaign, float], tuple[list[Path], str]]    # (campaign, box) -> (files, note)
    shortenable: bool = False
    always: bool = False                  # rerun every time (the archive reflects the latest files)
    needs_gpu: bool = True                # fit, validate and archive run on any machine
    after: tuple[str, ...] = ()           # steps whose new results make this one run again


# ------------------------------------------------------------------ steps

def _device(c: Campaign, box: float) -> tuple[list[Path], str]:
    """nvidia-smi's facts (and the clocks it reports), or the spec's when simulated."""
    facts: dict[str, str] = {}
    if c.simulate:
        from pipeperf.hardware.spec import load_gpu
        g = load_gpu(c.simulate)
        facts = {"name": f"simulated {g.full_name or g.name}", "compute_cap": g.compute_capability or "",
                 "sms": str(g.cores), "clocks.max.sm_mhz": f"{g.clock_ghz * 1e3:.0f}",
                 "clocks.sustained_sm_mhz": f"{(g.sustained_clock_ghz or g.clock_ghz) * 1e3:.0f}",
                 "memory.total_mib": "", "driver_version": "pipeperf simulator"}
    else:
        keys = ("name", "compute_cap", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem",
                "clocks.max.mem", "memory.total", "power.limit", "temperature.gpu", "pstate")
        proc = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(keys)}", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, errors="replace", timeout=min(box, 60))
        if proc.returncode != 0 or not proc.stdout.strip():
            raise PipeperfError(f"nvidia-smi: {(proc.stderr or proc.stdout).strip()[:200]}")
        values = [v.strip() for v in proc.stdout.splitlines()[0].split(",")]
        facts = dict(zip(keys, values))
    c.manifest.device.update(facts)
    c.manifest.driver = facts.get("driver_version", "")
    out = c.folder / "device.csv"
    out.write_text("key,value\n" + "".join(f"{k},{shlex.quote(v)}\n" for k, v in facts.items()), encoding="utf-8")
    return [out], facts.get("name", "")


def _calibrate(c: Campaign, box: float) -> tuple[list[Path], str]:
    """lambda/Lambda of every class (the calibrate harness); fitted once here to report on it."""
    from pipeperf.measure import fit, harness
    raw = c.folder / "calibrate"
    if c.simulate:
        from pipeperf.hardware.spec import load_gpu
        files = harness.simulate_raw(load_gpu(c.simulate), raw, classes=c.calibrate_classes)
    else:
        assert isinstance(c.backend, GpuBackend)
        build = harness.cache_dir() / f"bench-{c.backend.arch}"
        exe = harness.build_harness(build, c.backend.arch, nvcc=c.backend.nvcc)
        files = harness.run_harness(exe, raw, reps=3, quick=True, max_seconds=max(30.0, box - 90),
                                    timeout=box, label="pipeperf campaign --step calibrate")
    cal = fit.calibrate_directory(raw, f"{c.manifest.gpu}_measured")
    mhz = sorted(r.nvml_sm_mhz for r in harness.read_sweep_csv(raw / "chains.csv").rows if r.nvml_sm_mhz > 0)
    if mhz:                                   # NVML's SM clock while the chains ran: the clock under load
        c.manifest.device["clocks.sm_under_load_mhz"] = f"{mhz[len(mhz) // 2]:.0f} (median of {len(mhz)} runs)"
    note = f"{len(cal.fits)} classes fitted" + (f"; {len(cal.warnings)} warnings" if cal.warnings else "")
    return files, note


def _fit(c: Campaign, box: float) -> tuple[list[Path], str]:
    """The GPU file of the campaign (what 'calibrate --from-raw FOLDER' writes) and its diff
    against the published entry."""
    from pipeperf.hardware.spec import load_gpu
    from pipeperf.hardware.spec_diff import spec_diff
    from pipeperf.measure.campaign.fitted import fitted_yaml

    name = f"{c.manifest.gpu}_measured"
    text, cal = fitted_yaml(c.folder, name, f"pipeperf calibrate --from-raw {c.folder}")
    fitted = c.folder / f"{name}.yaml"
    fitted.write_text(text, encoding="utf-8")
    rows = spec_diff(load_gpu(c.reference), load_gpu(fitted), common=True)
    diff = c.folder / "diff.txt"
    width = max([len(r[0]) for r in rows] + [8])
    diff.write_text(f"pipeperf gpu diff {c.reference} {fitted.name} --common\n"
                    + "".join(f"{k:<{width}} {x:>12} {y:>12} {r:>7}\n" for k, x, y, r in rows), encoding="utf-8")
    return [fitted, diff], f"{fitted.name}: {len(cal.fits)} classes; {len(rows)} numbers differ from {c.reference}"


def _timed(launches: list[Launch], summary: str) -> Callable[[Campaign, float], tuple[list[Path], str]]:
    def run(c: Campaign, box: float) -> tuple[list[Path], str]:
        assert c.backend is not None
        results, files = [], []
        for launch in launches:
            out = c.backend.run(launch, c.raw(launch.name), timeout=box)
            files.append(out)
            results += derive.derive(launch, out, c.clock_ghz)
        files.append(derive.write_results(c.folder / f"{summary}.csv", results))
        return files, "; ".join(f"{r.quantity} {r.value:.4g} {r.unit}" for r in results)
    return run


def _sweeps(c: Campaign, box: float) -> tuple[list[Path], str]:
    """Occupancy sweeps of the corpus kernels; stops starting kernels when the box is spent."""
    launches = sweep_launches(c.sweep_factor, *([c.sweep_names] if c.sweep_names else []))
    start, files, left, swept = time.monotonic(), [], [], 0
    assert c.backend is not None
    gpu_backend = c.backend if isinstance(c.backend, GpuBackend) else None     # ncu profiles only on a GPU
    ncu_note = "" if gpu_backend is not None else "ncu: not with --simulate"
    for launch in launches:
        if time.monotonic() - start > box:
            left.append(launch.kernel)
            continue
        files.append(c.backend.run(launch, c.raw(launch.name), sweep=True, timeout=box))
        swept += 1
        if gpu_backend is not None and not ncu_note and time.monotonic() - start < box:
            prof, ncu_note = gpu_backend.profile(launch, c.raw(f"ncu_{launch.kernel}"))
            files += [prof] if prof else []
    note = f"{swept} kernels swept" + (f"; {ncu_note}" if ncu_note else "; ncu metrics of each")
    return files, note + (f"; out of time, not swept: {', '.join(left)}" if left else "")


def _validate(c: Campaign, box: float) -> tuple[list[Path], str]:
    from pipeperf.measure.campaign.score import score_sweeps
    sweeps = [c.folder / f for f in c.manifest.steps.get("sweeps", StepRecord("")).files]
    if not sweeps:
        raise PipeperfError("no sweeps to validate: run the sweeps step first")
    return score_sweeps(c, sweeps, box)


def _archive(c: Campaign, box: float) -> tuple[list[Path], str]:
    from pipeperf.measure.campaign.archive import write_archive
    target = c.archive or c.folder.parent / f"{c.folder.name}-campaign.tar.gz"
    left_out = write_archive(c.folder, target)
    c.archive = target
    note = f"{target} ({target.stat().st_size / 2**20:.2f} MiB)"
    return [], note + (f"; left out: {', '.join(left_out)}" if left_out else "")


STEPS: tuple[Step, ...] = (
    Step("device", 60, "device facts from nvidia-smi: name, CC, driver, clocks, memory", _device),
    Step("calibrate", 480, "lambda/Lambda of every class, issue limit, peaks (the calibrate harness), fitted",
         _calibrate, shortenable=True),
    Step("dram", 60, "achievable DRAM bandwidth: read, write, copy of 1 GiB buffers", _timed(dram_launches(), "dram")),
    Step("latency", 60, "L1/L2/DRAM load latency (pointer chase)", _timed(latency_launches(), "latency")),
    Step("l2", 60, "L2 read bandwidth over a 4 MiB footprint", _timed(l2_launches(), "l2")),
    Step("dispatch", 60, "block-dispatch cost: 4 Mi empty blocks", _timed(dispatch_launches(), "dispatch")),
    Step("atomics", 60, "same-address atomic throughput", _timed(atomics_launches(), "atomics")),
    Step("fit", 30, "the measured GPU file (calibrate --from-raw) and its diff against the published entry",
         _fit, needs_gpu=False, after=("calibrate", "dram", "latency", "l2", "dispatch", "atomics")),
    Step("sweeps", 540, "occupancy sweeps of 14 corpus kernels (CUDA events)", _sweeps, shortenable=True),
    Step("validate", 240, "every model's MAPE against the sweeps (no GPU needed)", _validate, shortenable=True,
         needs_gpu=False, after=("sweeps",)),
    Step("archive", 30, "results as one .tar.gz within 16 MiB", _archive, always=True, needs_gpu=False),
)
NAMES = tuple(s.name for s in STEPS)


def scaled_steps(scale: float) -> tuple[Step, ...]:
    """The steps with the launches' grids scaled (``--simulate`` runs them smaller)."""
    if scale == 1.0:
        return STEPS
    sized = {"dram": dram_launches(scale), "latency": latency_launches(scale),
             "l2": l2_launches(scale), "dispatch": dispatch_launches(scale), "atomics": atomics_launches(scale)}
    return tuple(Step(s.name, s.box_s, s.what, _timed(sized[s.name], s.name), s.shortenable, s.always,
                      s.needs_gpu, s.after)
                 if s.name in sized else s for s in STEPS)


# ------------------------------------------------------------------ the run

@dataclass
class Outcome:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def pending(c: Campaign, steps: tuple[Step, ...], only: list[str] | None, redo: Sequence[str]) -> list[Step]:
    """The steps this run would start (named, and not done before unless redone or always run)."""
    return [s for s in steps if (not only or s.name in only)
            and (s.always or s.name in redo or not c.manifest.done(s.name, c.folder))]


def run_steps(c: Campaign, steps: tuple[Step, ...], only: list[str] | None = None, redo: Sequence[str] = (),
              command: str = "") -> Outcome:
    """Run the steps in order (or only those named), within the budget; record each in the manifest."""
    m = c.manifest
    m.commands.append(command)
    m.date = m.date or datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    out = Outcome()
    for step in steps:
        if only and step.name not in only:
            continue
        stale = any(a in out.ran for a in step.after)
        if not step.always and not stale and step.name not in redo and m.done(step.name, c.folder):
            c.log(f"{step.name:<9} done before ({m.steps[step.name].seconds:.0f} s): skipped "
                  f"(--redo {step.name} runs it again)")
            out.skipped.append(step.name)
            continue
        left = c.deadline - time.monotonic()
        box = step.box_s
        if box > left:
            if step.shortenable and left >= max(MIN_SHORTENED, box / 3):
                box = left
                c.log(f"{step.name:<9} shortened to {box:.0f} s of its {step.box_s:.0f} s box (budget)")
            else:
                note = f"skipped: its {step.box_s:.0f} s box does not fit the {max(0, left):.0f} s left of the budget"
                c.log(f"{step.name:<9} {note}")
                m.steps[step.name] = StepRecord("skipped", 0.0, [], note)
                m.save(c.folder)
                out.skipped.append(step.name)
                continue
        t0 = time.monotonic()
        try:
            files, note = step.run(c, box)
            status = "done"
        except PipeperfError as exc:
            files, note, status = [], str(exc), "failed"
        dt = time.monotonic() - t0
        m.steps[step.name] = StepRecord(status, round(dt, 1), [c.rel(Path(f)) for f in files], note)
        m.save(c.folder)
        (out.ran if status == "done" else out.failed).append(step.name)
        c.log(f"{step.name:<9} {status} in {dt:.1f} s: {note}")
    return out


def nvcc_release() -> str:
    from pipeperf.measure import harness
    nvcc = harness.find_nvcc()
    return harness.nvcc_version(nvcc) if nvcc else ""



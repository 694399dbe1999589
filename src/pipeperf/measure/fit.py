"""lambda and Lambda from boat-hull curves, the issue limit from the instruction mix, a spec YAML.

Eq. 1 of pipeline-performance-model.txt gives the time of W warps of N dependent instructions:

    t = N Lambda + (W - 1) lambda      if W <= Lambda / lambda   (latency bound)
    t = Lambda + (N W - 1) lambda      if W >= Lambda / lambda   (throughput bound)

so the time per instruction per warp t / (N W) is Lambda at W = 1 and falls towards lambda: the
boat hull. "The completion and issue latency are derived from the maximal and minimal run time"
(Sec. III-B): Lambda = max_W t / (N W), and lambda from the W that minimises t / (N W), with
Eq. 1's second branch inverted there, lambda = (t - Lambda) / (N W - 1), which removes the
pipeline-fill term (for the real N it changes lambda by well under 1 %). Both are then "rounded
to the closest multiple of 1/N where N is the issue limit" (Sec. 4.3 of
analytical-models-and-pipeline-model.txt).

The issue limit IL itself comes from the instruction-mix kernel (Sec. 4.2): the measured
type-1 IPC over beta is compared with Eqs. 43-45; Eq. 44/45 use beta / lambda_2 for the type-2
bound (the seed's printed 1/lambda_2 cannot produce its Fig. 12 curves; the simulator's tests
use beta / lambda_2 too).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.hardware.schema import SCHEMA_VERSION
from pipeperf.measure.harness import PeakRow, SweepRow, Table, read_peaks_csv, read_sweep_csv

#: issue-limit candidates tried against the instruction mix (warp instructions per cycle per SM)
IL_CANDIDATES = (1, 2, 3, 4, 5, 6, 7, 8)
#: four warp schedulers, one instruction each per cycle, per SM on every NVIDIA architecture
#: nvcc 13 builds for (CUDA C++ Programming Guide, "Compute Capabilities": 7.x, 8.x, 9.0 SMs have
#: four partitions); used when no instruction-mix data is at hand
DEFAULT_IL = 4


@dataclass
class ClassFit:
    """lambda/Lambda of one instruction class from its boat-hull curve."""

    cls: str
    subsystem: str
    lam_raw: float
    Lam_raw: float
    w_lam: int                # occupancy whose t / (N W) is minimal
    w_Lam: int                # occupancy whose t / (N W) is maximal
    n: int                    # chain instructions per warp
    points: int               # occupancies used
    dropped: int = 0          # rows dropped as invalid (wrong warps per SM, not co-resident)
    lam: float = 0.0          # rounded
    Lam: float = 0.0
    bench: str = ""
    saturated: bool = True    # t / (N W) had levelled off before the highest occupancy

    def rounded(self, il: float) -> ClassFit:
        self.lam = round_to_issue_limit(self.lam_raw, il, positive=True)
        self.Lam = round_to_issue_limit(self.Lam_raw, il)
        return self


def round_to_issue_limit(x: float, il: float, positive: bool = False) -> float:
    """Closest multiple of 1 / IL (Sec. 4.3), ties upwards; with ``positive``, never below 1 / IL."""
    if not math.isfinite(il) or il <= 0:
        return float(x)
    r = math.floor(x * il + 0.5) / il
    if positive and r <= 0:
        r = 1.0 / il
    return float(r)


def boat_hull(warps: list[int], cycles: list[float], n: int) -> tuple[float, float, int, int]:
    """(lambda, Lambda, W at lambda, W at Lambda) from t(W) of N dependent instructions per warp."""
    if len(warps) != len(cycles) or not warps:
        raise PipeperfError("a boat-hull fit needs at least one (occupancy, cycles) point")
    if n < 1:
        raise PipeperfError(f"chain length must be >= 1, got {n}")
    per = [t / (n * w) for w, t in zip(warps, cycles)]            # t / (N W)
    i_max = max(range(len(per)), key=per.__getitem__)
    i_min = min(range(len(per)), key=per.__getitem__)
    Lam = per[i_max]                                               # Eq. 1, W = 1: t = N Lambda
    w, t = warps[i_min], cycles[i_min]
    lam = (t - Lam) / (n * w - 1) if n * w > 1 else per[i_min]     # Eq. 1, second branch
    if not lam > 0:
        lam = per[i_min]
    return lam, Lam, warps[i_min], warps[i_max]


def saturated(warps: list[int], cycles: list[float], n: int, tolerance: float = 0.05) -> bool:
    """Whether t / (N W) at the highest occupancy is within ``tolerance`` of its value at half of
    it: past W = Lambda / lambda Eq. 1 is flat, so a curve still falling has not reached lambda."""
    pts = sorted(zip(warps, cycles))
    w_hi, t_hi = pts[-1]
    below = [(w, t) for w, t in pts if w <= w_hi / 2]
    if not below:
        return True
    w_half, t_half = below[-1]
    return t_hi / (n * w_hi) >= (1 - tolerance) * t_half / (n * w_half)


def fit_chains(rows: list[SweepRow]) -> tuple[list[ClassFit], list[str]]:
    """One ClassFit per chain benchmark; rows that failed the residency checks are left out."""
    warnings: list[str] = []
    by_bench: dict[str, list[SweepRow]] = {}
    for r in rows:
        if r.kind == "chain":
            by_bench.setdefault(r.bench, []).append(r)
    fits = []
    for bench, rs in by_bench.items():
        good = [r for r in rs if r.valid and r.cycles_median > 0]
        dropped = len(rs) - len(good)
        if dropped:
            bad = sorted({r.warps_per_sm for r in rs if r not in good})
            warnings.append(f"{bench}: {dropped} occupancies left out (SMs did not hold exactly W co-resident "
                            f"warps): W = {', '.join(map(str, bad[:8]))}{' ...' if len(bad) > 8 else ''}")
        if not good:
            warnings.append(f"{bench}: no valid occupancy; class not fitted")
            continue
        ns = {r.n1 for r in good}
        if len(ns) > 1:
            raise PipeperfError(f"{bench}: rows disagree on the chain length ({sorted(ns)})")
        n = ns.pop()
        warps = [r.warps_per_sm for r in good]
        lam, Lam, w_lam, w_Lam = boat_hull(warps, [r.cycles_median for r in good], n)
        if min(warps) > 1:
            warnings.append(f"{bench}: no W = 1 point, Lambda is a lower bound")
        sat = saturated(warps, [r.cycles_median for r in good], n)
        if not sat:
            warnings.append(f"{bench}: t/(N W) still falls at the highest occupancy: lambda is an upper bound "
                            "(the pipeline needs more warps than an SM holds)")
        fits.append(ClassFit(good[0].cls, good[0].subsystem, lam, Lam, w_lam, w_Lam, n, len(good), dropped,
                             bench=bench, saturated=sat))
    return fits, warnings


# ---------------------------------------------------------------- issue limit (Eqs. 43-45)

def mix_models(beta: float, lam1: float, lam2: float, il: float) -> dict[str, float]:
    """Type-1 IPC of the instruction mix under the three models of Sec. 4.2."""
    one = beta / (beta * lam1 + lam2)                                      # Eq. 43
    two = min(1 / lam1, beta / lam2)                                       # Eq. 44
    with_il = min(1 / lam1, beta / lam2, il * beta / (beta + 1))           # Eq. 45
    return {"one": one, "two": two, "two_il": with_il}


@dataclass
class IssueLimitFit:
    issue_limit: float
    model: str                 # one | two | two_il: the best of Eqs. 43, 44, 45
    errors: dict[str, float]   # RMS relative error of each model (two_il at the chosen IL)
    il_errors: dict[int, float] = field(default_factory=dict)
    points: int = 0


def fit_issue_limit(betas: list[float], ipc1: list[float], lam1: float, lam2: float,
                    candidates: tuple[int, ...] = IL_CANDIDATES, prefer: int = DEFAULT_IL) -> IssueLimitFit:
    """The issue limit (and model) that best explains the mix's type-1 IPC over beta.

    Among issue limits whose error is within 0.5 % of the best, ``prefer`` (the scheduler count)
    wins, else the smallest: with a large IL Eq. 45 is Eq. 44 and the data cannot tell them apart.
    """
    pts = [(b, y) for b, y in zip(betas, ipc1) if b > 0 and y > 0]
    if len(pts) < 3:
        raise PipeperfError("the instruction-mix fit needs at least three beta > 0 points")

    def rms(model: str, il: float) -> float:
        return math.sqrt(sum((mix_models(b, lam1, lam2, il)[model] / y - 1) ** 2 for b, y in pts) / len(pts))

    il_err = {il: rms("two_il", il) for il in candidates}
    best = min(il_err.values())
    close = [il for il in candidates if il_err[il] <= best + 0.005]
    il = prefer if prefer in close else min(close)
    errors = {"one": rms("one", 1), "two": rms("two", 1), "two_il": il_err[il]}
    model = min(errors, key=errors.__getitem__)
    if model == "two" and errors["two_il"] <= errors["two"] + 0.005:
        model = "two_il"
    return IssueLimitFit(float(il), model, errors, il_err, len(pts))


def mix_ipc(rows: list[SweepRow]) -> tuple[list[float], list[float]]:
    """(beta, type-1 IPC per SM) at the highest occupancy measured for each beta."""
    best: dict[int, SweepRow] = {}
    for r in rows:
        if r.kind == "mix" and r.valid and (r.param not in best or r.warps_per_sm > best[r.param].warps_per_sm):
            best[r.param] = r
    betas = sorted(best)
    return [float(b) for b in betas], [best[b].n1 * best[b].warps_per_sm / best[b].cycles_median for b in betas]


# ---------------------------------------------------------------- clock and peaks

def effective_clock_ghz(rows: list[SweepRow], min_ms: float = 1.0) -> tuple[float | None, int]:
    """Median of SM cycles / event time over runs of at least ``min_ms`` (the launch overhead
    inside the event time is then under ~0.5 %); (None, 0) if there are none. Used when the
    harness's clock probe is missing from the header."""
    vals = [r.cycles_median / (r.ms_median * 1e6) for r in rows if r.ms_median >= min_ms and r.cycles_median > 0]
    if not vals:
        return None, 0
    return statistics.median(vals), len(vals)


def peaks_from_rows(rows: list[PeakRow]) -> dict[str, tuple[float, str]]:
    """Table 3's parameters: the best measured rate of each (B_mem: copy or read-only)."""
    out: dict[str, tuple[float, str]] = {}
    for r in rows:
        if r.parameter not in out or r.value > out[r.parameter][0]:
            out[r.parameter] = (r.value, r.bench)
    return out


# ---------------------------------------------------------------- the spec YAML

_ARCH = {"7.0": "Volta", "7.2": "Volta", "7.5": "Turing", "8.0": "Ampere", "8.6": "Ampere", "8.7": "Ampere",
         "8.9": "Ada", "9.0": "Hopper", "10.0": "Blackwell", "12.0": "Blackwell"}


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)    # a JSON string is a valid YAML scalar


def _num(x: float) -> str:
    return f"{x:.6g}"


@dataclass
class Calibration:
    """Everything fitted from one directory of harness output."""

    name: str
    meta: dict[str, str]
    fits: list[ClassFit]
    il: IssueLimitFit | None
    issue_limit: float
    clock_ghz: float
    clock_source: str
    peaks: dict[str, tuple[float, str]]
    files: dict[str, str]
    warnings: list[str]


def calibrate_directory(raw_dir: str | Path, name: str | None = None) -> Calibration:
    """Fit chains.csv (+ mix.csv, peaks.csv when present) of one harness run."""
    d = Path(raw_dir)
    chains_path = d / "chains.csv"
    if not chains_path.is_file():
        raise PipeperfError("no chains.csv here (expected the output of 'pipeperf calibrate')", file=d)
    chains = read_sweep_csv(chains_path)
    files = {"chains": str(chains_path)}
    fits, warnings = fit_chains(chains.rows)
    if not fits:
        raise PipeperfError("no instruction class could be fitted", file=chains_path)
    meta = dict(chains.meta)
    if meta.get("truncated") == "1":
        warnings.append("the harness ran out of its time budget: some benchmarks are missing")
    if meta.get("complete") == "0":
        warnings.append("the harness stopped before the end (an error): some benchmarks are missing")
    by_cls = {f.cls: f for f in fits}
    il_fit = None
    mix_path = d / "mix.csv"
    if mix_path.is_file() and "mul_f32" in by_cls and "cos_f32" in by_cls:
        files["mix"] = str(mix_path)
        betas, ipc = mix_ipc(read_sweep_csv(mix_path).rows)
        if len(betas) >= 3:
            il_fit = fit_issue_limit(betas, ipc, by_cls["mul_f32"].lam_raw, by_cls["cos_f32"].lam_raw)
    issue_limit = il_fit.issue_limit if il_fit else float(DEFAULT_IL)
    if il_fit is None:
        warnings.append(f"no instruction-mix data: issue limit set to {DEFAULT_IL} (four schedulers per SM)")
    for f in fits:
        f.rounded(issue_limit)
        if il_fit is not None and il_fit.model == "one" and f.subsystem == "sfu":
            f.subsystem = "alu"          # Sec. 4.2: ALU and SFU behave as one pipeline (Eq. 43)
    probes = [float(meta.get(k, "0") or 0) for k in ("sm_clock_ghz_start", "sm_clock_ghz_end")]
    probes = [p for p in probes if p > 0]
    clock, n_clock = effective_clock_ghz(chains.rows)
    if probes:
        clock = sum(probes) / len(probes)
        clock_source = (f"measured: %clock64 cycles per %globaltimer ns on every SM over 50 ms, mean of "
                        f"{' and '.join(f'{p:.4f}' for p in probes)} GHz at the start and end of the run "
                        f"({chains_path})")
    elif clock is not None:
        clock_source = f"measured: median SM cycles / event time of {n_clock} runs >= 1 ms in {chains_path}"
    else:
        khz = float(meta.get("clock_khz", "0") or 0)
        if khz <= 0:
            raise PipeperfError("no run long enough to measure the clock and no clock_khz in the header",
                                file=chains_path)
        clock = khz / 1e6
        clock_source = f"cudaDevAttrClockRate (peak clock) in {chains_path}: no run >= 1 ms to measure it"
    peaks: dict[str, tuple[float, str]] = {}
    peaks_path = d / "peaks.csv"
    if peaks_path.is_file():
        files["peaks"] = str(peaks_path)
        peaks = peaks_from_rows(read_peaks_csv(peaks_path).rows)
    for extra in ("barrier", "build"):
        p = d / (f"{extra}.csv" if extra == "barrier" else "build.log")
        if p.is_file():
            files[extra] = str(p)
    from pipeperf.measure.harness import gpu_slug
    return Calibration(name or gpu_slug(meta.get("gpu", "gpu")), meta, fits, il_fit, issue_limit, clock,
                       clock_source, peaks, files, warnings)


def spec_yaml(cal: Calibration, command: str = "") -> str:
    """A GPU spec in the shape of ``hardware/gpus/*.yaml``; every number says where it is from."""
    m = cal.meta
    chains = cal.files["chains"]
    stamp = f"{m.get('date', 'unknown date')}, {m.get('gpu', 'unknown GPU')}, driver {m.get('driver', 'unknown')}"
    cmd = m.get("pipeperf_command") or m.get("command", "")   # the command that measured
    cc = m.get("compute_capability", "")
    lines = [
        f"# {m.get('gpu', cal.name)} for the Pipeline model, fitted by 'pipeperf calibrate' from micro-benchmarks.",
        "# lambda = min over occupancy W of (t - Lambda)/(N W - 1), Lambda = max over W of t/(N W): the boat hull",
        "# of Eq. 1 (pipeline-performance-model.txt Sec. III-B); both rounded to the closest multiple of 1/IL",
        "# (analytical-models-and-pipeline-model.txt Sec. 4.3). t: SM cycles (%clock64) of W warps per SM, each",
        "# running N dependent instructions of the class.",
        f"# Raw data: {', '.join(cal.files.values())} ({stamp}).",
        f"# Measured by: {cmd}" if cmd else "# Measured by: unknown command",
        f"# Fitted by: {command}" if command else "# Fitted by: pipeperf.measure.fit",
        f"schema_version: {SCHEMA_VERSION}",
        f"name: {cal.name}",
        f"full_name: {_q(m.get('gpu', cal.name))}",
        "vendor: nvidia",
    ]
    if cc in _ARCH:
        lines.append(f"architecture: {_ARCH[cc]}   # from compute capability {cc}")
    if cc:
        lines.append(f"compute_capability: '{cc}'")
    lines += [
        f"cores: {int(m.get('sms', '0') or 0)}            # cudaDeviceProp.multiProcessorCount, {chains}",
        f"clock_ghz: {cal.clock_ghz:.4f}   # {cal.clock_source}",
    ]
    if cal.il is not None:
        errs = ", ".join(f"Eq. {43 if k == 'one' else 44 if k == 'two' else 45} {v:.1%}" for k, v in cal.il.errors.items())
        lines.append(f"issue_limit: {_num(cal.issue_limit)}   # measured: instruction mix over beta "
                     f"({cal.files.get('mix')}), best of Eqs. 43-45 (RMS error {errs})")
    else:
        lines.append(f"issue_limit: {_num(cal.issue_limit)}   # not measured: four warp schedulers per SM "
                     "(CUDA C++ Programming Guide, Compute Capabilities)")
    lines += [
        "warp_size: 32",
        f"max_warps_per_core: {int(m.get('max_warps_per_sm', '64') or 64)}   # cudaDeviceProp.maxThreadsPerMultiProcessor / 32",
        f"max_groups_per_core: {int(m.get('max_blocks_per_sm', '32') or 32)}  # cudaDeviceProp.maxBlocksPerMultiProcessor",
        "sources:",
        f"  measurements: {_q(', '.join(cal.files.values()))}",
        f"  measured_on: {_q(stamp)}",
        f"  command: {_q(cmd)}",
    ]
    if cal.peaks or cal.il:
        lines.append("measured:")
        for key, (value, bench) in cal.peaks.items():
            lines.append(f"  {key}: {_num(value)}   # {bench}, {cal.files.get('peaks')}")
        if cal.il:
            lines.append(f"  mix_model: {cal.il.model}   # one = Eq. 43, two = Eq. 44, two_il = Eq. 45")
    lines.append("classes:")
    for f in cal.fits:
        src = (f"measured: {chains} ({stamp}) by '{cmd}': benchmark {f.bench}, N = {f.n}, {f.points} occupancies; "
               f"lambda {f.lam_raw:.4g} at W = {f.w_lam}, Lambda {f.Lam_raw:.4g} at W = {f.w_Lam}, "
               f"rounded to 1/{_num(cal.issue_limit)}")
        lines.append(f"  {f.cls}: {{subsystem: {f.subsystem}, cpi: {_num(f.lam)}, latency: {_num(f.Lam)}, "
                     f"source: {_q(src)}}}")
    return "\n".join(lines) + "\n"


def peaks_yaml(cal: Calibration) -> str | None:
    """The peaks in ``hardware/peaks.yaml`` shape (for ``pipeperf roofline --gpu``), if all six exist."""
    from pipeperf.hardware.peaks import PARAMETERS, GpuPeaks, peaks_to_yaml
    if not all(k in cal.peaks for k in PARAMETERS):
        return None
    m = cal.meta
    where = f"{cal.files.get('peaks')} ({m.get('date', '')}, {m.get('gpu', '')}, driver {m.get('driver', '')})"
    sources = {k: f"measured by pipeperf calibrate: {cal.peaks[k][1]}, {where}" for k in PARAMETERS}
    v = {k: cal.peaks[k][0] for k in PARAMETERS}
    p = GpuPeaks(cal.name, t_sp=v["T_SP"], t_dp=v["T_DP"], t_int=v["T_int"], t_add=v["T_add"], t_ldst=v["T_ldst"],
                 b_mem=v["B_mem"],
                 description=f"{m.get('gpu', cal.name)} (CC {m.get('compute_capability', '?')}, "
                             f"{m.get('sms', '?')} SMs), measured", sources=sources)
    return peaks_to_yaml([p], header=f"GPU peaks measured by 'pipeperf calibrate' ({where})")


def summary(cal: Calibration) -> list[str]:
    """Terminal table of the fitted classes."""
    rows = [("class", "subsystem", "lambda", "Lambda", "raw lambda", "raw Lambda", "W(lambda)", "points")]
    for f in cal.fits:
        rows.append((f.cls, f.subsystem, _num(f.lam), _num(f.Lam), f"{f.lam_raw:.4g}", f"{f.Lam_raw:.4g}",
                     str(f.w_lam), str(f.points)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    il = cal.il
    out.append(f"issue limit {_num(cal.issue_limit)}" + (f" (instruction mix: best model {il.model})" if il else
                                                         " (default: no instruction-mix data)"))
    out.append(f"clock {cal.clock_ghz:.4f} GHz ({cal.clock_source.split(':')[0]})")
    for key, (value, bench) in cal.peaks.items():
        out.append(f"{key} = {value:,.1f}  ({bench})")
    return out


__all__ = ["ClassFit", "IssueLimitFit", "Calibration", "boat_hull", "fit_chains", "round_to_issue_limit",
           "mix_models", "fit_issue_limit", "mix_ipc", "effective_clock_ghz", "peaks_from_rows",
           "calibrate_directory", "spec_yaml", "peaks_yaml", "summary", "Table"]

"""``pipeperf analyze --batch LAUNCHES.yaml``: many launches of an application's kernels on many
GPUs, through the engine of ``pipeperf tune`` (one compile per distinct source and flags, Dask or
the plain loop, the results cache). The file::

    gpus: [volta_v100, ampere_a100]          # for every launch (--gpu adds to them)
    analysis: {trace_warps: 256}             # optional: trace_warps, mode, max_nodes, fast_forward, phase_check, max_steps
    launches:
      - name: matmul-512                     # optional (default: the file's stem and its position)
        file: ../analyze/matmul_tiled.cu     # .cu or .ptx, relative to this file
        kernel: matmul_tiled                 # needed when the file has several kernels
        grid: [32, 32]                       # or "32,32"
        block: [16, 16]
        shared: 0                            # dynamic shared memory, bytes
        args: [A=rand:f32:262144, B=rand:f32:262144, C=zeros:f32:262144, n=512]
        defines: [TILE=16]                   # -D for nvcc
        nvcc_flags: [-std=c++17]
        include: [include]                   # -I folders, relative to this file
        gpus: [hopper_h100]                  # this launch's GPUs instead of the file's

Every mistake is one line naming the file and line and what was expected."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeperf.errors import PipeperfError
from pipeperf.tune.engine import EngineResult, Item, run_items
from pipeperf.tune.expr import Where
from pipeperf.tune.variants import Launch, Refused

TOP_KEYS = ("gpus", "analysis", "launches")
LAUNCH_KEYS = ("name", "file", "kernel", "grid", "block", "shared", "args", "defines", "nvcc_flags", "include", "gpus")


def load_batch(path: str, extra_gpus: Sequence[str] = ()) -> tuple[list[Item], dict[str, Any]]:
    """The launches of a batch file as engine items (GPUs: the launch's, else the file's, plus
    ``extra_gpus``), and its analysis options."""
    from pipeperf.tune.spacefile import _analysis_option
    from pipeperf.util.yamlio import load_lines
    from pipeperf.util.yamllines import LineList, LineMap

    doc = load_lines(path, "batch file", strict=True)
    if not isinstance(doc, LineMap):
        raise PipeperfError(f"expected a mapping with keys {', '.join(TOP_KEYS)}", file=path)
    base = Path(path).resolve().parent
    at = _locator(path)
    for k in doc:
        if k not in TOP_KEYS:
            raise at(doc, k).error(f"unknown key {k!r}: expected one of {', '.join(TOP_KEYS)}")
    default_gpus = _names(doc.get("gpus", []), at(doc, "gpus"), base)
    options = {}
    if "analysis" in doc:
        if not isinstance(doc["analysis"], LineMap):
            raise at(doc, "analysis").error("analysis: expected a mapping, e.g. {trace_warps: 256}")
        options = {k: _analysis_option(k, v, at(doc["analysis"], k)) for k, v in doc["analysis"].items()}
    launches = doc.get("launches")
    if not isinstance(launches, LineList) or not launches:
        raise at(doc, "launches").error("launches: expected a list of launches (file, grid, block, args, ...)")
    gpus = (default_gpus, list(extra_gpus))
    items = [_launch_item(i, entry, Where(path, launches.item_lines[i]), at, base, gpus)
             for i, entry in enumerate(launches)]
    return items, options


_At = Callable[..., Where]


def _locator(path: str) -> _At:
    """``at(node, key=None)``: the Where of a key of a mapping (else of the node) in ``path``."""
    from pipeperf.util.yamllines import LineMap

    def at(m: Any, key: Any = None) -> Where:
        return Where(path, m.key_lines.get(key, m.line) if isinstance(m, LineMap) else getattr(m, "line", None))
    return at


def _launch_item(i: int, entry: Any, where: Where, at: _At, base: Path,
                 gpus: tuple[list[str], list[str]]) -> Item:
    """Launch ``i`` of the file as an engine item, checked key by key; ``gpus``: (the file's
    GPUs, the extra ones). A launch beyond CUDA's limits is an item with a Refused launch."""
    from pipeperf.util.launch_args import check_cuda_limits, dim3

    file = _launch_file(entry, where, at, base)
    name = str(entry.get("name") or f"{file.stem}#{i + 1}")
    args = _launch_args(entry, where.file, at)
    defines = tuple(f"-D{d}" for d in _strings(entry.get("defines", []), at(entry, "defines"), "defines"))
    flags = tuple(_strings(entry.get("nvcc_flags", []), at(entry, "nvcc_flags"), "nvcc_flags"))
    includes = tuple(str(base / d) for d in _strings(entry.get("include", []), at(entry, "include"), "include"))
    if file.suffix == ".ptx" and (defines or flags or includes):
        raise at(entry, "defines" if defines else "nvcc_flags" if flags else "include").error(
            "a .ptx file is not compiled: defines, nvcc_flags and include apply to .cu files")
    default_gpus, extra_gpus = gpus
    named = _names(entry["gpus"], at(entry, "gpus"), base) if "gpus" in entry else list(default_gpus)
    launch_gpus = tuple(dict.fromkeys(named + extra_gpus))
    if not launch_gpus:
        raise where.error("no GPU for this launch: give 'gpus:' (the file's or the launch's) or --gpu NAME")
    shared = entry.get("shared", 0)
    if isinstance(shared, bool) or not isinstance(shared, int) or shared < 0:
        raise at(entry, "shared").error(f"shared: expected bytes >= 0, got {shared!r}")
    try:
        grid = dim3(_dims(entry["grid"]), "grid")
        block = dim3(_dims(entry["block"]), "block")
    except PipeperfError as e:
        raise at(entry, "grid").error(e.message) from None
    launch: Launch | Refused
    try:
        check_cuda_limits(grid, block)
        launch = Launch(str(file), entry.get("kernel"), grid, block, shared, tuple(args), defines, (),
                        tuple(f"-I{d}" for d in includes) + flags, includes)
    except PipeperfError as e:
        launch = Refused(e.message)
    return Item(i, {"name": name, "kernel": entry.get("kernel") or ""}, launch, launch_gpus)


def _launch_file(entry: Any, where: Where, at: _At, base: Path) -> Path:
    """A launch's keys checked (known ones; file, grid and block present), and its source file:
    a .cu or .ptx file that exists, relative to the batch file's folder."""
    from pipeperf.util.yamllines import LineMap

    if not isinstance(entry, LineMap):
        raise where.error("a launch: expected a mapping with file, grid, block, args, ...")
    for k in entry:
        if k not in LAUNCH_KEYS:
            raise at(entry, k).error(f"unknown key {k!r} of a launch: expected one of {', '.join(LAUNCH_KEYS)}")
    for k in ("file", "grid", "block"):
        if k not in entry:
            raise where.error(f"a launch without {k!r}: expected file, grid and block at least")
    if not isinstance(entry["file"], str):
        raise at(entry, "file").error("file: expected a .cu or .ptx file, relative to this file")
    file = (base / entry["file"]).resolve()
    if not file.is_file():
        raise at(entry, "file").error(f"no such file: {file}")
    if file.suffix not in (".cu", ".ptx"):
        raise at(entry, "file").error(f"{file.name}: expected a .cu or .ptx file")
    return file


def _launch_args(entry: Any, path: str | None, at: _At) -> list[str]:
    """A launch's kernel arguments as text, each checked by parse_arg (errors at its own line)."""
    from pipeperf.util.launch_args import parse_arg
    from pipeperf.util.yamllines import LineList

    args = []
    for j, a in enumerate(_list(entry.get("args", []))):
        text = str(a)
        w = Where(path, entry["args"].item_lines[j]) if isinstance(entry.get("args"), LineList) else at(entry, "args")
        try:
            parse_arg(text)
        except PipeperfError as e:
            raise w.error(e.message) from None
        args.append(text)
    return args


def _dims(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _list(v: Any) -> list:
    return list(v) if isinstance(v, list) else [v]


def _strings(v: Any, where: Where, key: str) -> list[str]:
    items = _list(v)
    if not all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in items):
        raise where.error(f"{key}: expected a list of strings")
    return [str(x) for x in items]


def _names(v: Any, where: Where, base: Path) -> list[str]:
    """The GPUs of a ``gpus:`` list: names, or GPU files relative to the batch file."""
    from pipeperf.hardware.spec import gpu_in_file

    return [gpu_in_file(g, base) for g in _strings(v, where, "gpus")]


def run_batch(path: str, extra_gpus: Sequence[str] = (), scheduler: str = "local", workers: int | None = None,
              cache: Any = None, options: dict[str, Any] | None = None) -> EngineResult:
    items, file_options = load_batch(path, list(extra_gpus))
    return run_items(items, {**file_options, **(options or {})}, scheduler, workers, cache)


#: HyPA's metrics each batch record carries (pipeperf.emulate.profile.hypa_metrics), as ``pipeperf network``'s layers
HYPA_FIELDS = ("inst_executed", "flop_count_sp", "flop_count_hp", "flop_count_dp", "branch_efficiency", "fraction_emulated")


def batch_records(result: EngineResult) -> list[dict[str, Any]]:
    """One flat record per launch x GPU (the --out file's rows): the prediction, the launch
    overhead, HyPA's metrics and the energy (:mod:`pipeperf.tune.totals`, as ``pipeperf network``)."""
    from pipeperf.tune.totals import launch_energy

    out = []
    for r in result.rows:
        o, la = r.outcome, r.item.launch
        launch = la if isinstance(la, Launch) else None
        joules, joules_tdp = launch_energy(o)
        hypa = o.hypa or {}
        out.append({"launch": r.item.label["name"], "file": launch.path if launch else None,
                    "kernel": r.item.label.get("kernel") or None, "gpu": r.gpu, "status": o.status,
                    "reason": o.reason, "time_us": None if o.seconds is None else o.seconds * 1e6,
                    "cycles": o.cycles, "bound": o.bound, "bound_text": o.bound_text,
                    "occupancy_pct": None if o.occupancy is None else 100 * o.occupancy,
                    "warps_per_sm": o.warps_per_sm, "limited_by": o.limited_by, "registers": o.registers,
                    "gflop_per_s": o.gflops, "dram_gb_per_s": o.dram_gbs, "cached": r.cached,
                    "launch_overhead_us": None if o.launch_overhead is None else o.launch_overhead * 1e6,
                    **{k: hypa.get(k) for k in HYPA_FIELDS}, "joules": joules, "joules_tdp": joules_tdp,
                    "grid": "x".join(map(str, launch.grid)) if launch else None,
                    "block": "x".join(map(str, launch.block)) if launch else None})
    return out


def format_batch(result: EngineResult) -> str:
    """One line per launch x GPU: predicted time, occupancy and bound, or the reason there is none;
    and the total predicted time per GPU of the launches that were predicted."""
    from pipeperf.tune.report import _table
    from pipeperf.tune.work import OK

    head = (f"batch: {len({r.item.index for r in result.rows})} launches, {len(result.rows)} launch x GPU: "
            f"{result.computed} computed, {result.cached} from the cache")
    lines = [head]
    if result.run is not None:
        lines.append(f"ran on {result.run.backend}: {result.run.compiles} compile units, {result.run.jobs} "
                     f"analysis tasks in {result.run.seconds:.1f} s")
    body = []
    for r in result.rows:
        o = r.outcome
        if o.status == OK and o.seconds is not None:
            body.append([r.item.label["name"], r.gpu, f"{o.seconds * 1e6:.4g}",
                         f"{100 * (o.occupancy or 0):.0f}% ({o.limited_by})", o.bound_text or o.bound])
        else:
            body.append([r.item.label["name"], r.gpu, "-", "-", f"{o.status}: {o.reason}"])
    lines.append("")
    lines += _table(["launch", "gpu", "time (us)", "occupancy", "bound"], body)
    totals = batch_totals(result)
    if totals:
        from pipeperf.tune.totals import ranking, ranking_lines

        lines.append("")
        lines += _table(["gpu", "launches", "kernels (us)", "overheads (us)", "total (us)", "energy (J)", "J (TDP x t)",
                         "inst_executed", "flop_count_sp", "flop_count_hp", "flop_count_dp", "branch eff. %"],
                        [[g, str(t["launches"]), f"{t['kernel_seconds'] * 1e6:.4g}", f"{t['overhead_seconds'] * 1e6:.4g}",
                          f"{t['seconds'] * 1e6:.4g}", _g(t["joules"]), _g(t["joules_tdp"]), _g(t["inst_executed"]),
                          _g(t["flop_count_sp"]), _g(t["flop_count_hp"]), _g(t["flop_count_dp"]),
                          f"{t['branch_efficiency']:.2f}"] for g, t in totals.items()])
        lines += ranking_lines(ranking(totals, list(totals)))
        lines.append("(totals over the predicted launches; time = kernels + each launch's overhead (launch.overhead_us); "
                     "energy: pipeperf network's model, hardware/power.py)")
    return "\n".join(lines)


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def batch_totals(result: EngineResult) -> dict[str, dict[str, Any]]:
    """Per GPU over its predicted launches: kernel and overhead time, energy, HyPA's metrics summed
    (branch efficiency over all branches); the ``totals`` of ``--json``."""
    from pipeperf.tune.totals import launch_energy
    from pipeperf.tune.work import OK

    totals: dict[str, dict[str, Any]] = {}
    for r in result.rows:
        o = r.outcome
        if o.status != OK or o.seconds is None:
            continue
        t = totals.setdefault(r.gpu, {"launches": 0, "kernel_seconds": 0.0, "overhead_seconds": 0.0, "joules": 0.0,
                                      "joules_tdp": 0.0, "inst_executed": 0.0, "flop_count_sp": 0.0, "flop_count_hp": 0.0,
                                      "flop_count_dp": 0.0, "branches": 0.0, "divergent_branches": 0.0})
        t["launches"] += 1
        t["kernel_seconds"] += o.seconds
        t["overhead_seconds"] += o.launch_overhead or 0.0
        e, et = launch_energy(o)
        t["joules"] = None if e is None or t["joules"] is None else t["joules"] + e
        t["joules_tdp"] = None if et is None or t["joules_tdp"] is None else t["joules_tdp"] + et
        for k in ("inst_executed", "flop_count_sp", "flop_count_hp", "flop_count_dp", "branches", "divergent_branches"):
            t[k] += float((o.hypa or {}).get(k, 0.0))
    for t in totals.values():
        t["seconds"] = t["kernel_seconds"] + t["overhead_seconds"]
        b, d = t["branches"], t["divergent_branches"]
        t["branch_efficiency"] = 100.0 * (b - d) / b if b else 100.0
    return totals

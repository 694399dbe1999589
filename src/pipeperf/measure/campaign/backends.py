"""Who runs a launch: the GPU (``pipeperf measure``'s launcher, CUDA events) or ``analyze`` on a
GPU spec (``--simulate``). Both write the launcher's CSV, so everything after is one code path."""

from __future__ import annotations

from pathlib import Path

from pipeperf.errors import PipeperfError
from pipeperf.measure.campaign.derive import COLUMNS
from pipeperf.measure.campaign.launches import Launch
from pipeperf.util.launch_args import parse_arg


class GpuBackend:
    """Compiles each .cu once for ``arch`` and times launches with the generic launcher."""

    def __init__(self, arch: str, build_dir: Path, nvcc: str, reps: int = 10):
        self.arch, self.build_dir, self.nvcc, self.reps = arch, build_dir, nvcc, reps
        self._modules: dict[Path, tuple[Path, list[str]]] = {}
        self._exe: Path | None = None

    def compile(self, launch: Launch) -> tuple[Path, list[str]]:
        from pipeperf.measure import launcher
        if launch.cu not in self._modules:
            out = self.build_dir / launch.cu.stem
            self._modules[launch.cu] = launcher.compile_kernel(launch.cu, self.arch, out, nvcc=self.nvcc)
        return self._modules[launch.cu]

    def command(self, launch: Launch, out: Path, sweep: bool, reps: int, warmup: int) -> list[str]:
        """The launcher's command line for ``launch`` (compiled and bound on first use)."""
        from pipeperf.measure import launcher
        cubin, entries = self.compile(launch)
        entry = launcher.resolve_kernel(entries, launch.kernel, str(launch.cu))
        ptx = launcher.ptx_path(launch.cu, cubin.parent).read_text()
        bound = launcher.bind(launch.cu, ptx, entry, [parse_arg(a) for a in launch.args])
        if self._exe is None:
            self._exe = launcher.build(nvcc=self.nvcc)
        return launcher.command_line(self._exe, cubin, entry, launch.grid, launch.block, bound, out, sweep,
                                     reps, 0, warmup, f"pipeperf campaign: {launch.name}")

    def run(self, launch: Launch, out: Path, sweep: bool = False, timeout: float = 300) -> Path:
        from pipeperf.measure import launcher
        launcher.run(self.command(launch, out, sweep, self.reps, 2), timeout=timeout)
        return out

    def profile(self, launch: Launch, out: Path, timeout: float = 120) -> tuple[Path | None, str]:
        """Nsight Compute's counts of one launch at its natural occupancy, the clocks left alone
        (``--clock-control none``: the boost clock the events saw); (None, why) where ncu is
        missing or not allowed to read the counters."""
        import shutil
        import subprocess

        from pipeperf.measure.ncu_csv import NCU_METRICS, read_ncu_csv
        ncu = shutil.which("ncu") or next((str(p) for p in (Path("/usr/local/cuda/bin/ncu"),) if p.is_file()), None)
        if ncu is None:
            return None, "ncu not found"
        cmd = [ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--metrics",
               ",".join(dict.fromkeys([*NCU_METRICS, "gpu__time_duration.sum"])),
               *self.command(launch, out.with_suffix(".run.csv"), False, 1, 0)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"ncu: {exc}"
        table = [l for l in proc.stdout.splitlines() if l.startswith('"')]
        if proc.returncode != 0 or not table:
            why = [l for l in (proc.stderr + proc.stdout).splitlines() if "ERR" in l or "rror" in l]
            return None, f"ncu: {(why or [f'exit code {proc.returncode}'])[0].strip()[:160]}"
        out.write_text("\n".join(table) + "\n", encoding="utf-8")
        read_ncu_csv(out)                     # a table the quantitative roofline's reader takes
        return out, ""


class SimBackend:
    """``analyze`` of the same launch on a GPU spec; its Pipeline time stands for the measurement."""

    def __init__(self, gpu: str):
        self.gpu = gpu

    def run(self, launch: Launch, out: Path, sweep: bool = False, timeout: float = 300) -> Path:
        from pipeperf.analysis import analyze
        a = analyze(launch.cu, launch.grid, launch.block, list(launch.args), [self.gpu], kernel=launch.kernel,
                    what_if=False, sweep=sweep)
        p = a.predictions[0]
        wpb = p.warps_per_block
        if sweep and p.sweep:
            rows = [(g, w, s) for g, w, s in zip(p.sweep["groups_per_sm"], p.sweep["warps_per_sm"],
                                                 p.sweep["seconds"]["pipeline"])]
        else:
            rows = [(p.blocks_per_sm, p.blocks_per_sm * wpb, p.seconds)]
        from pipeperf.hardware.spec import load_gpu

        head = {"gpu": f"simulated {self.gpu}", "sms": load_gpu(self.gpu).cores, "kernel": launch.kernel,
                "module": str(launch.cu),
                "grid": ",".join(map(str, launch.grid)), "block": ",".join(map(str, launch.block)),
                "date": "simulated", "command": f"pipeperf campaign --simulate {self.gpu}: {launch.name}"}
        try:
            with open(out, "w", encoding="utf-8") as f:
                f.write("# pipeperf campaign, simulated with analyze (Pipeline model)\n")
                f.writelines(f"# {k}: {v}\n" for k, v in head.items())
                f.write(",".join(COLUMNS) + "\n")
                for g, w, s in sorted(rows, reverse=True):
                    ms = s * 1e3
                    f.write(f"{g},{w},0,1,{ms:.6g},{ms:.6g},{ms:.6g}\n")
        except OSError as exc:
            raise PipeperfError(f"cannot write: {exc.strerror}", file=out) from None
        return out

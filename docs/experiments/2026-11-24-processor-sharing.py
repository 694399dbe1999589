"""Re-run the validation suite (or the sensitivity script) with the bandwidth-share pipelines
served by processor sharing instead of one request after another: the experiment of
docs/experiments/2026-11-24-processor-sharing.md (tried 2026-11-24, not adopted; the figures are there).

Processor sharing (PS): the n requests in service on a pipeline each progress at 1/n of its rate,
so a burst of requests all finish near the end of the burst (the "bunching" the A100 80 GB
alignedTypes periods show) and the time no longer jumps with the phase in which warps meet the
pipeline. The engine change is a patch, kept out of the tool because the suite got worse with it
(bandwidth-bound launches of 2 blocks per SM retire their blocks in step and leave DRAM idle
during the latency). To reproduce, on a checkout of commit 4ac62ec (the engine the patch was last
rebased on; it is not kept applying to later engines), with this file and the patch copied to
benchmarks/experiments/processor_sharing.{py,patch}:

    git apply benchmarks/experiments/processor_sharing.patch
    python3 setup.py build_ext --inplace -q --force
    python3 benchmarks/experiments/processor_sharing.py --share DRAM -- \\
        benchmarks/validation_suite.py --jobs 2 --out /tmp/ps
    python3 benchmarks/experiments/processor_sharing.py --share DRAM --share L2 -- \\
        benchmarks/sensitivity.py --case 'aligned-types/a100_80gb/*' --factors 0.99,1,1.01
    git apply -R benchmarks/experiments/processor_sharing.patch
    python3 setup.py build_ext --inplace -q --force

The patched engine reads the PS pipelines from PIPEPERF_PS (a bit mask over the GPU's
subsystems); this script sets it per GPU from the pipelines that share the named bandwidths
(:func:`pipeperf.analysis.lockstep.bandwidth_pipelines`) and runs the given script.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def install(shares: set[str]) -> None:
    """Make every engine run set PIPEPERF_PS to the GPU's pipelines sharing ``shares``."""
    from pipeperf.analysis.lockstep import bandwidth_pipelines
    import pipeperf.simulate.simulator as sim

    run = sim.PreparedKernel._engine

    def engine(self, *args, **kwargs):
        subs = list(self.subsystems)
        mask = sum(1 << subs.index(s) for s, what in bandwidth_pipelines(self.gpu).items()
                   if what in shares and s in subs)
        os.environ["PIPEPERF_PS"] = str(mask)
        return run(self, *args, **kwargs)

    sim.PreparedKernel._engine = engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--share", action="append", choices=["DRAM", "L2"], required=True,
                    help="a bandwidth whose pipeline serves by processor sharing (repeatable)")
    ap.add_argument("script", help="the benchmark script to run, then its arguments after --")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    install(set(a.share))
    sys.argv = [a.script, *a.args]
    runpy.run_path(str(ROOT / a.script) if not os.path.isabs(a.script) else a.script, run_name="__main__")


if __name__ == "__main__":
    main()

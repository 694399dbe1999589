"""``analyze --batch`` reports what ``pipeperf network`` does per launch (one implementation,
pipeperf.tune.totals): HyPA's metrics, the launch overhead, energy, totals per GPU, the
ranking by time and by energy."""

from __future__ import annotations

import json

import pytest

from pipeperf.network.lower import KERNEL_DIR

pytestmark = pytest.mark.requires_nvcc


@pytest.mark.slow
def test_batch_json_has_hypa_metrics_overheads_totals_and_ranking(cli, tmp_path):
    batch = tmp_path / "launches.yaml"
    batch.write_text(f"""gpus: [volta_v100, hopper_h100]
analysis: {{trace_warps: 16}}
launches:
  - name: relu
    file: {KERNEL_DIR / 'eltwise.cu'}
    kernel: unary
    grid: 64
    block: 256
    args: [x=rand:f32:16384, y=zeros:f32:16384, total=16384, act=1, lo=0.0, hi=0.0]
""")
    rc, out, err = cli("analyze", "--batch", str(batch), "--cluster", "none", "--no-cache", "--json")
    assert rc == 0, err
    d = json.loads(out)
    rec = {r["gpu"]: r for r in d["launches"]}
    v = rec["volta_v100"]
    assert v["inst_executed"] > 0 and v["flop_count_sp"] == 0 and v["branch_efficiency"] == pytest.approx(100.0)
    assert v["launch_overhead_us"] == pytest.approx(2.18) and 0 < v["joules"] < v["joules_tdp"]
    t = d["totals"]["hopper_h100"]
    assert t["seconds"] == pytest.approx(t["kernel_seconds"] + 2.43e-6) and t["launches"] == 1
    assert {x["gpu"] for x in d["ranking"]} == {"volta_v100", "hopper_h100"}
    rc, out, err = cli("analyze", "--batch", str(batch), "--cluster", "none", "--no-cache")
    assert rc == 0 and "ranking by time:" in out and "ranking by energy:" in out and "overheads (us)" in out

"""analyze refuses, in one line, a launch whose buffers do not fit in a GPU's device memory
(memory.dram_bytes, schema version 2): no time is predicted for a launch that cannot run."""

from __future__ import annotations

from pathlib import Path

KERNEL = Path(__file__).resolve().parents[1] / "kernels" / "matmul_tiled.cu"


def _launch(gpu: str, n: int) -> list[str]:
    return ["analyze", str(KERNEL), "--grid", "4,4", "--block", "16,16", "--arg", f"A=rand:f32:{n}",
            "--arg", f"B=rand:f32:{n}", "--arg", f"C=zeros:f32:{n}", "--arg", "n=64", "--gpu", gpu,
            "--no-what-if"]


def test_buffers_larger_than_the_device_memory_are_one_line(cli, tmp_path):
    small = tmp_path / "small.yaml"            # 40 KiB of device memory: three 16 KiB buffers do not fit
    small.write_text("base: volta_v100\nname: small\nschema_version: 2\nmemory: {dram_bytes: 40960}\n")
    rc, out, err = cli(*_launch(str(small), 4096))
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "the launch's buffers take 4.58e-05 GiB, more than the 3.81e-05 GiB of device memory of small" in err


def test_buffers_that_fit_are_analyzed(cli, tmp_path):
    roomy = tmp_path / "roomy.yaml"
    roomy.write_text("base: volta_v100\nname: roomy\nschema_version: 2\nmemory: {dram_bytes: 49152}\n")
    rc, _, err = cli(*_launch(str(roomy), 4096))          # exactly 3 x 16 KiB: fits
    assert rc == 0, err


def test_the_bundled_modern_gpus_know_their_memory():
    from pipeperf.hardware.spec import load_gpu

    for name, gib in (("hopper_h200", 141), ("hopper_h100", 80), ("ampere_a100", 40), ("ada_rtx4090", 24)):
        assert load_gpu(name).memory["dram_bytes"] == gib * 2**30, name

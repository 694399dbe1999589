"""--nvcc-flag's ptxas options reach every ptxas run (the registers, the SASS), each GPU's build
shows the registers it got, and the register-cap advice is built with the cap (issue 38)."""

from __future__ import annotations

import json

import pytest

from pipeperf.ptx.compile import ptxas_options

#: 79 registers on sm_80 (occupancy limited by registers); each load's address depends on the value
#: loaded before it (x 0.f: no fast math, so not folded), so a warp waits for each in turn and more
#: resident blocks hide that: the register cap is worth advising (with independent loads, ptxas
#: issues all 16 at once and the cap gains nothing: the block-size advice wins)
KERNEL = """extern "C" __global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a[16];
#pragma unroll
    for (int k = 0; k < 16; k++) a[k] = x[i + k * n + (k ? (int)(a[k - 1] * 0.f) : 0)];
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 16; k++)
#pragma unroll
        for (int j = 0; j < 16; j++) s += a[k] * a[j] * (k + j);
    y[i] = s;
}
"""
N = 262144
ARGS = ["--arg", f"rand:f32:{16 * N}", "--arg", f"zeros:f32:{N}", "--arg", str(N)]


@pytest.fixture
def poly(tmp_path):
    src = tmp_path / "poly.cu"
    src.write_text(KERNEL)
    return src


def test_ptxas_options_of_nvcc_flags():
    assert ptxas_options(["-maxrregcount=32", "-use_fast_math"]) == ["--maxrregcount=32"]
    assert ptxas_options(["-maxrregcount", "40", "-Xptxas", "-O2,-dlcm=cg"]) == ["--maxrregcount=40", "-O2", "-dlcm=cg"]
    assert ptxas_options(["--ptxas-options=-v"]) == ["-v"]


def _kernels(cli, poly, *flags):
    rc, out, err = cli("analyze", str(poly), "--grid", "1024", "--block", "256", *ARGS, "--gpu", "a100",
                       "--gpu", "v100", "--no-what-if", "--json", *flags)
    assert rc == 0, err
    return json.loads(out)["kernels"]


@pytest.mark.slow
def test_maxrregcount_reaches_the_register_count(cli, poly):
    before = _kernels(cli, poly)
    after = _kernels(cli, poly, "--nvcc-flag=-maxrregcount=32")
    for b, a in zip(before, after):
        assert b["resources"]["registers"] > 32 >= a["resources"]["registers"]
        assert a["resources"]["local_bytes"] > b["resources"].get("local_bytes", 0)      # spills
        assert a["build"]["ptxas_options"] == ["--maxrregcount=32"]
        assert a["occupancy"]["block_limit"] > b["occupancy"]["block_limit"]
    assert [k["build"]["target"] for k in after] == ["sm_80", "sm_75"]
    assert "nvcc builds no sm_70" in after[1]["build"]["note"]        # nvcc 13 dropped Volta


@pytest.mark.slow
def test_per_gpu_registers_in_the_text_report(cli, poly):
    rc, out, err = cli("analyze", str(poly), "--grid", "1024", "--block", "256", *ARGS, "--gpu", "a100",
                       "--no-what-if", "--nvcc-flag=-Xptxas", "--nvcc-flag=-maxrregcount=32")
    assert rc == 0, err
    assert "ampere_a100: 32 registers/thread" in out and "sm_80 build with -maxrregcount=32" in out


@pytest.mark.slow
def test_register_cap_advice_is_built_with_the_cap(cli, poly):
    rc, out, err = cli("analyze", str(poly), "--grid", "1024", "--block", "256", *ARGS, "--gpu", "a100", "--json")
    assert rc == 0, err
    advice = [a for a in json.loads(out)["kernels"][0]["advice"] if "max_registers" in a["change"]]
    assert advice, "registers limit occupancy: a cap is advised"
    a = advice[0]
    ch = a["change"]
    assert ch["target"] == "sm_80" and ch["registers"] <= ch["max_registers"]
    assert f"-maxrregcount={ch['max_registers']} for sm_80" in a["text"]
    assert f"__launch_bounds__(256, {ch['blocks_per_sm']})" in a["text"]
    assert "ptxas with -maxrregcount" in a["how"] and a["seconds_after"] < a["seconds_before"]


@pytest.mark.slow
def test_launch_bounds_on_a_v100_built_for_sm75(cli, tmp_path):
    """nvcc 13 builds no sm_70; ptxas ignores __launch_bounds__(256, 8) for sm_75 (1024 threads per
    SM), so the V100's registers come from the sm_75 build capped as sm_70's ptxas would."""
    src = tmp_path / "bounded.cu"
    src.write_text(KERNEL.replace("__global__ void", "__global__ void __launch_bounds__(256, 8)"))
    rc, out, err = cli("analyze", str(src), "--grid", "1024", "--block", "256", *ARGS, "--gpu", "v100",
                       "--no-what-if", "--json")
    assert rc == 0, err
    k = json.loads(out)["kernels"][0]
    assert k["build"]["target"] == "sm_75" and k["resources"]["registers"] <= 32
    assert k["occupancy"]["groups_per_sm"] == 8
    assert "__launch_bounds__(256, 8)" in k["build"]["note"] and "-maxrregcount=32" in k["build"]["note"]


@pytest.mark.slow
def test_register_cap_advice_on_the_sass_path_times_the_spills(poly, monkeypatch):
    """With isa="sass" the capped build's own SASS (its LDL/STL spill code) is timed."""
    from pipeperf.analysis import advice, analyze

    monkeypatch.setattr(advice, "MIN_GAIN", -1.0)        # keep the advice whatever its gain
    a = analyze(poly, 1024, 256, [f"rand:f32:{16 * N}", f"zeros:f32:{N}", str(N)], ["a100"], isa="sass",
                models=False)
    cap = [x for x in a.predictions[0].advice if "max_registers" in x.change]
    assert cap and "re-predicted from that build's SASS" in cap[0].how
    assert cap[0].change["local_bytes"] > 0

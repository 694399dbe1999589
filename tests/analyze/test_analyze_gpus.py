"""`pipeperf analyze` end to end on the bundled example for every GPU of the database that the
issue names: the six seed GPUs (Fermi, Kepler, Maxwell, Pascal, Turing, AMD R9 380) and V100,
A100, H100; the JSON schema; the occupancy sweep and its plot; 64-wide AMD wavefronts."""

import json

import pytest

from pipeperf.analysis import analyze
from pipeperf.analysis.wavefronts import wide_warp_traces
from pipeperf.cli.main import main
from pipeperf.hardware.spec import load_gpu

EXAMPLE = "examples/analyze/matmul_tiled.cu"
N = 128
ARGS = [f"A=rand:f32:{N * N}", f"B=rand:f32:{N * N}", f"C=zeros:f32:{N * N}", f"n={N}"]
SEED = ["fermi_c2050", "kepler_gtx650ti", "maxwell_k620", "pascal_gtx1060", "turing_rtx2070", "amd_r9_380"]
MODERN = ["volta_v100", "ampere_a100", "hopper_h100"]
MODELS = {"pipeline", "roofline", "volkov", "transit", "mwp_cwp", "mwp_cwp_corr", "wfg", "wfg_corr",
          "gpumech_rr", "gpumech_gto", "gpumech_rr_corr", "quantitative_roofline"}


def cli_args(*extra):
    return ["analyze", EXAMPLE, "--grid", f"{N // 16},{N // 16}", "--block", "16,16",
            *[x for a in ARGS for x in ("--arg", a)], *extra]


@pytest.fixture(scope="module")
def doc():
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(cli_args(*[x for g in SEED + MODERN for x in ("--gpu", g)], "--json"))
    assert rc == 0
    return json.loads(buf.getvalue())


@pytest.mark.slow
def test_every_gpu_gets_every_model(doc):
    ks = {k["gpu"]: k for k in doc["kernels"]}
    assert list(ks) == SEED + MODERN
    for gpu, k in ks.items():
        assert k["name"] == "matmul_tiled"
        assert set(k["predictions"]) == MODELS
        q = k["predictions"]["quantitative_roofline"]   # every GPU whose Table 3 rates derive; else said why
        assert (q["seconds"] or 0) > 0 or "for the quantitative roofline" in q.get("unsupported", ""), gpu
        p = k["predictions"]["pipeline"]
        spec, clock = load_gpu(gpu), k["profile"]["clock_ghz"]
        assert p["cycles"] > 0 and p["seconds"] == pytest.approx(p["cycles"] / (clock * 1e9))
        lo, hi = sorted((spec.clock_ghz, spec.run_clock_ghz))
        assert lo - 1e-9 <= clock <= max(hi, spec.run_clock_ghz) + 1e-9   # between boost and sustained
        occ = k["occupancy"]
        assert occ["warps_per_sm"] == occ["groups_per_sm"] * (4 if gpu == "amd_r9_380" else 8)
        assert occ["limited_by"] in {"warps", "blocks", "registers", "shared memory"}
        assert k["bound"]["by"] and 0 <= k["bound"]["idle_share"] <= 1
        assert k["profile"]["instructions_on_core"] > 0
    # modern GPUs: the CUDA occupancy rules from ptxas' registers and shared memory
    for gpu in MODERN:
        assert "CUDA occupancy rules" in ks[gpu]["occupancy"]["source"]
    assert doc["launch"]["resources"]["shared_bytes"] == 2048
    # 256 traced warps = 32 of the 64 CTAs; matmul's paths and addresses never read what it
    # writes, so only those are emulated
    launch = doc["launch"]
    assert (launch["warps_traced"], launch["ctas_emulated"], launch["ctas_total"]) == (256, 32, 64)
    assert "no branch or address depends" in launch["sampling"]


@pytest.mark.slow
def test_newer_gpus_are_faster_on_the_same_launch(doc):
    t = {k["gpu"]: k["predictions"]["pipeline"]["seconds"] for k in doc["kernels"]}
    assert t["hopper_h100"] < t["volta_v100"] < t["pascal_gtx1060"] < t["kepler_gtx650ti"]


@pytest.mark.slow
def test_sweep_curves_and_plot(tmp_path, capsys):
    png = tmp_path / "sweep.png"
    assert main(cli_args("--gpu", "volta_v100", "--gpu", "pascal_gtx1060", "--sweep-occupancy",
                         "--plot", str(png))) == 0
    out = capsys.readouterr().out
    assert "pipeline" in out and str(png) in out
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    a = analyze(EXAMPLE, f"{N // 16},{N // 16}", "16,16", ARGS, ["volta_v100"], sweep=True)
    sw = a.predictions[0].sweep
    # 64 blocks on 80 SMs: one block per SM exists, so the sweep stops at one resident block
    assert sw["groups_per_sm"] == [1] and sw["warps_per_sm"] == [8]
    a = analyze(EXAMPLE, "32,32", "16,16", [f"A=rand:f32:{512 * 512}", f"B=rand:f32:{512 * 512}",
                                            f"C=zeros:f32:{512 * 512}", "n=512"], ["volta_v100"], sweep=True)
    sw = a.predictions[0].sweep
    # a build for the V100's own target (sm_75: 38 registers/thread) fits 6 blocks of 256 threads
    assert sw["warps_per_sm"] == [8, 16, 24, 32, 40, 48]
    assert set(sw["seconds"]) == MODELS and all(len(v) == 6 for v in sw["seconds"].values())
    pipe = sw["seconds"]["pipeline"]
    assert pipe[0] > 2 * pipe[-1]                 # more resident blocks hide latency
    assert pipe[-1] == pytest.approx(a.predictions[0].seconds)


def test_plot_needs_the_sweep(capsys):
    assert main(cli_args("--gpu", "volta_v100", "--plot", "x.png")) == 2
    assert "--sweep-occupancy" in capsys.readouterr().err


def test_wide_warps_merge_identical_halves_and_issue_the_union_of_divergent_ones():
    e = lambda pc, m: {"pc": pc, "opcode": "add.f32", "active": m}
    # block of 128 threads = 4 warps of 32 = 2 wavefronts of 64; two blocks traced
    traces = {w: [e(0, 0xFFFFFFFF), e(1, 0xFFFF)] for w in range(8)}
    wide = wide_warp_traces(traces, 128, 64)
    assert sorted(wide) == [0, 1, 2, 3]
    assert [x["active"] for x in wide[0]] == [0xFFFFFFFFFFFFFFFF, 0xFFFF0000FFFF]
    # warp 5 (upper half of block 1's wavefront 0) takes the other side of a branch and loops
    # once more: the wavefront issues 0, 1 (lower lanes), 2 (upper lanes), then 3 twice
    traces[4] = [e(0, 1), e(1, 1), e(3, 1)]
    traces[5] = [e(0, 1), e(2, 1), e(3, 1), e(3, 1)]
    merged = wide_warp_traces(traces, 128, 64)[2]
    assert [(x["pc"], x["active"]) for x in merged] == [
        (0, 1 | 1 << 32), (1, 1), (2, 1 << 32), (3, 1 | 1 << 32), (3, 1 << 32)]


@pytest.mark.slow
@pytest.mark.parametrize("kernel, args", [
    ("divergent", ["x=rand:f32:1000", "out=zeros:f32:1000", "n=1000"]),
    ("collatz_steps", ["start=arange:u32:1000", "steps=zeros:u32:1000", "n=1000", "max_steps=200"]),
])
def test_divergent_kernels_on_64_wide_wavefronts(kernel, args):
    a = analyze(f"tests/kernels/{kernel}.cu", "4", "256", args, ["amd_r9_380", "pascal_gtx1060"])
    amd, pascal = a.predictions
    assert amd.warps_per_block == 4 and pascal.warps_per_block == 8 and amd.cycles > 0
    # a wavefront issues at least as many instructions as the longer of its two halves
    assert max(c["instructions"] for c in amd.warp_classes) >= max(c["instructions"] for c in pascal.warp_classes)


def test_registers_above_an_old_gpus_limit_are_capped_and_said():
    from pipeperf.hardware.occupancy import resident_blocks

    # 80 registers (an sm_90 build) on Fermi: counted as 63 -> 2016 -> 2048 per warp (64-register
    # units); 32768 / 2048 = 16 warps (granularity 2) = 2 blocks of 8 warps
    blocks, occ, limiter, source = resident_blocks(load_gpu("fermi_c2050"), 8, 256, {"registers": 80})
    assert (blocks, limiter) == (2, "registers") and "counted as the cc's limit of 63" in source
    blocks, _, _, source = resident_blocks(load_gpu("pascal_gtx1060"), 8, 256, {"registers": 80})
    assert blocks == 3 and "counted" not in source          # 80 x 32 = 2560: 65536 / 2560 = 25 -> 24 warps

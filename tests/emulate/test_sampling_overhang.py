"""Counts of a sampled launch equal the full emulation's where the grid overhangs its data: the
CTAs a bounds check masks in part (``if (x >= w || y >= h) return;`` with ``w`` not a multiple
of the block) form strata of their own, always emulated, and every emulated CTA's counts weigh
the grid CTAs it stands for (:class:`pipeperf.emulate.sampling.Strata`). A launch without
overhang keeps its sample and its counts."""

from __future__ import annotations

import pytest

from pipeperf.emulate import run_kernel
from pipeperf.emulate.profile import hypa_metrics
from pipeperf.emulate.sampling import Strata, sample_weights, spread_ctas

CONV = r'''
extern "C" __global__ void conv5x5(const float* in, const float* k, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            int xx = min(max(x + dx, 0), w - 1);
            int yy = min(max(y + dy, 0), h - 1);
            acc += in[yy * w + xx] * k[(dy + 2) * 5 + dx + 2];
        }
    out[y * w + x] = acc;
}
'''

SCALE = r'''
extern "C" __global__ void scale(const float* a, float* b, float s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = s * a[i] + 1.0f; }
'''

KEYS = ("flop_count_sp", "inst_executed", "inst_executed_thread", "branches")


def _runs(src, grid, block, args):
    """(the sampled emulation ``analyze`` runs, the full one)."""
    sampled = run_kernel(src, grid, block, args, mode="hybrid", trace_warps=256, trace_blocks="spread",
                         ctas="traced", memory=True)
    full = run_kernel(src, grid, block, args, mode="hybrid", memory=True)
    return sampled, full


def _uniform(counts, key):
    """The count as a uniform scale from the emulated CTAs gives it (what sampling did before)."""
    return counts[key] * counts["ctas_total"] / counts["ctas_emulated"]


@pytest.mark.slow
def test_conv5x5_over_an_overhanging_grid_counts_as_the_full_emulation(tmp_path):
    """1000 x 1000 pixels on 64 x 64 blocks of 16 x 16: block column and row 62 are partly masked,
    63 wholly. Uniform scaling from the spread sample counted 19.7 M FMAs of 25.0 M (-21 %)."""
    src = tmp_path / "conv5x5.cu"
    src.write_text(CONV)
    n = 1000 * 1000
    args = [f"in=rand:f32:{n}", "k=rand:f32:25", f"out=zeros:f32:{n}", "w=1000", "h=1000"]
    sampled, full = _runs(src, (64, 64), (16, 16), args)
    c = sampled.counts
    assert c["partial"] and c["ctas_emulated"] < 64
    assert "127 CTAs partly masked by bounds checks (block x 62, block y 62)" in c["sampling"]
    got, want = hypa_metrics(c), hypa_metrics(full.counts)
    assert want["flop_count_sp"] == 2 * 25 * n
    for k in KEYS:
        assert got[k] == pytest.approx(want[k], rel=1e-3), k
    assert _uniform(c, "flop_count_sp") < 0.9 * want["flop_count_sp"]      # the strata matter


def test_guarded_1d_launch_with_n_not_a_multiple_of_the_block(tmp_path):
    """n = 1000003 over 3907 blocks of 256: the last block has 67 threads in bounds; it is its own
    stratum, so the sample's counts weigh it once, not as 1/32 of the grid."""
    src = tmp_path / "scale.cu"
    src.write_text(SCALE)
    n = 1000003
    args = [f"a=rand:f32:{n}", f"b=zeros:f32:{n}", "s=2", f"n={n}"]
    sampled, full = _runs(src, 3907, 256, args)
    c = sampled.counts
    assert c["partial"] and "1 CTA partly masked by bounds checks (block x 3906)" in c["sampling"]
    got, want = hypa_metrics(c), hypa_metrics(full.counts)
    assert want["flop_count_sp"] == 2 * n
    for k in KEYS:
        assert got[k] == pytest.approx(want[k], rel=1e-3), k


def test_a_launch_without_overhang_keeps_its_sample_and_counts(tmp_path):
    """n = 2^20 on 4096 x 256 threads: no CTA is partly masked, so no CTA is added to the spread
    sample, the strata are the old ones (interior or last) and the counts scale uniformly."""
    src = tmp_path / "scale.cu"
    src.write_text(SCALE)
    n = 1 << 20
    args = [f"a=rand:f32:{n}", f"b=zeros:f32:{n}", "s=2", f"n={n}"]
    prof = run_kernel(src, 4096, 256, args, mode="hybrid", trace_warps=256, trace_blocks="spread",
                      ctas="traced", memory=True)
    c = prof.counts
    assert prof.strata is not None and not any(prof.strata.masked)
    assert c["ctas_emulated"] == len(spread_ctas(4096, 256 // 8))
    assert "partly masked" not in c["sampling"]
    assert "launch" not in c                     # no weighted rerun: the uniform scale, as before
    assert hypa_metrics(c)["flop_count_sp"] == 2 * n


def test_strata_split_the_guarded_blocks_and_weigh_the_grid():
    """The strata of a 64 x 64 grid cut at block 62 on both axes: 9 of them (runs 0-61, block 62,
    block 63 per axis), one representative each; weights of any sample sum to the grid, and
    without cuts they are the interior/last ones."""
    st = Strata((64, 64, 1), [{62}, {62}, set()])
    assert st.split == 127
    reps = st.representatives()
    assert len(reps) == 9 and {int(b) % 64 for b in reps} == {31, 62, 63}
    sample = sorted(set(spread_ctas(4096, 32)) | {int(b) for b in reps})
    w = sample_weights(sample, (64, 64), st)
    assert sum(w.values()) == pytest.approx(4096)
    assert w[62 + 64 * 62] == 1.0 and w[62 + 64 * 31] == 62.0
    old = sample_weights(spread_ctas(4096, 32), (64, 64))
    assert old == sample_weights(spread_ctas(4096, 32), (64, 64), Strata((64, 64, 1)))

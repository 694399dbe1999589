// Pooling, NCHW. pool2d: MaxPool / AveragePool, one thread per output element over its window
// (pads, strides, dilations; average over the window's in-image elements unless count_pad).
// global_avg: GlobalAveragePool, one warp per (n, c) plane, lanes striding over H*W and summing by
// shuffles.
#include "pp_common.cuh"

extern "C" __global__ void pool2d(const T* __restrict__ x, T* __restrict__ y, int N, int C, int H, int W,
                                  int P, int Q, int R, int S, int sh, int sw, int ph, int pw, int dh, int dw,
                                  int is_max, int count_pad) {
    long total = (long)N * C * P * Q;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int q = i % Q; long t = i / Q;
    int p = t % P; t /= P;                         // t: the plane n * C + c
    const T* xp = x + t * H * W;
    float acc = is_max ? -3.0e38f : 0.0f;
    int n = 0;
    for (int r = 0; r < R; ++r) {
        int h = p * sh - ph + r * dh;
        for (int s = 0; s < S; ++s) {
            int ww = q * sw - pw + s * dw;
            bool in = h >= 0 && h < H && ww >= 0 && ww < W;
            float v = PP_TO_F(xp[in ? h * W + ww : 0]);
            if (in) { acc = is_max ? fmaxf(acc, v) : acc + v; ++n; }
        }
    }
    if (!is_max) acc /= (float)(count_pad ? R * S : (n > 0 ? n : 1));
    y[i] = PP_FROM_F(acc);
}

extern "C" __global__ void global_avg(const T* __restrict__ x, T* __restrict__ y, int planes, int HW) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= planes) return;
    const T* xp = x + (long)warp * HW;
    float acc = 0.0f;
    for (int i = lane; i < HW; i += 32) acc += PP_TO_F(xp[i]);
    for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) y[warp] = PP_FROM_F(acc / (float)HW);
}

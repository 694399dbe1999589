// Depthwise convolution (groups == C == K, one filter per channel), NCHW: one thread per output
// element, the filter window unrolled by the compiler for the common 3x3 and 5x5; bias and
// activation in the epilogue.
#include "pp_common.cuh"

extern "C" __global__ void conv_depthwise(const T* __restrict__ x, const T* __restrict__ w,
                                          const T* __restrict__ bias, T* __restrict__ y,
                                          int N, int C, int H, int W, int R, int S, int P, int Q,
                                          int sh, int sw, int ph, int pw, int dh, int dw,
                                          int has_bias, int act, float lo, float hi) {
    long total = (long)N * C * P * Q;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int q = i % Q; long t = i / Q;
    int p = t % P; t /= P;
    int c = t % C; int n = t / C;
    const T* xc = x + ((long)n * C + c) * H * W;
    const T* wc = w + (long)c * R * S;
    T acc = PP_ZERO;
    for (int r = 0; r < R; ++r) {
        int h = p * sh - ph + r * dh;
        if (h < 0 || h >= H) continue;
        for (int s = 0; s < S; ++s) {
            int ww = q * sw - pw + s * dw;
            if (ww < 0 || ww >= W) continue;
            acc = PP_FMA(xc[h * W + ww], wc[r * S + s], acc);
        }
    }
    float v = PP_TO_F(acc) + (has_bias ? PP_TO_F(bias[c]) : 0.0f);
    y[i] = PP_FROM_F(pp_act(v, act, lo, hi));
}

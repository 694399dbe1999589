// Direct convolution, NCHW: one thread per output element, looping over the filter window and,
// innermost, its group's input channels. Any groups, strides, dilations and pads; bias (a folded
// BatchNormalization's shift, or the Conv's own) and an activation in the epilogue.
#include "pp_common.cuh"

extern "C" __global__ void conv_direct(const T* __restrict__ x, const T* __restrict__ w,
                                       const T* __restrict__ bias, T* __restrict__ y,
                                       int N, int C, int H, int W, int K, int R, int S, int P, int Q,
                                       int sh, int sw, int ph, int pw, int dh, int dw, int groups,
                                       int has_bias, int act, float lo, float hi) {
    long total = (long)N * K * P * Q;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int q = i % Q; long t = i / Q;
    int p = t % P; t /= P;
    int k = t % K; int n = t / K;
    int cg = C / groups, kg = K / groups;
    int c0 = (k / kg) * cg;
    T acc = PP_ZERO;
    // no branch around the channel loop: a window position in the padding reads zeros (a load from
    // inside the image, its value replaced by a select), so a warp's threads stay together and the emulator's periodic-loop skipping
    // (emulate/loops.py) jumps over the loop's iterations; the padding's multiply-adds are counted,
    // as published multiply-add counts (K*C*R*S*P*Q) count them
    const T* xn = x + ((long)n * C + c0) * H * W;
    const T* wk = w + (long)k * cg * R * S;
    for (int r = 0; r < R; ++r) {
        int h = p * sh - ph + r * dh;
        for (int s = 0; s < S; ++s) {
            int ww = q * sw - pw + s * dw;
            bool in = h >= 0 && h < H && ww >= 0 && ww < W;
            const T* xp = xn + (in ? h * W + ww : 0);
            const T* wp = wk + r * S + s;
            // 8 channels per iteration: 8 planes are a whole number of 32-byte sectors whatever H*W,
            // so every iteration touches as many sectors as the last and the loop is periodic
#pragma unroll 8
            for (int c = 0; c < cg; ++c) {
                T xv = xp[(long)c * H * W];           // in the image (the clamped pointer) either way
                acc = PP_FMA(in ? xv : PP_ZERO, wp[c * R * S], acc);
            }
        }
    }
    float v = PP_TO_F(acc) + (has_bias ? PP_TO_F(bias[k]) : 0.0f);
    y[i] = PP_FROM_F(pp_act(v, act, lo, hi));
}

// Implicit-GEMM convolution, NCHW, groups == 1: the output channels (K) are the GEMM's rows,
// the output pixels of all images (N*P*Q) its columns and C*R*S its depth; the input tile is
// gathered from x as im2col would lay it out, through shared memory (pp_tile_gemm.cuh).
// Grid: (ceil(N*P*Q / 64), ceil(K / 64)), block 256.
#include "pp_tile_gemm.cuh"

extern "C" __global__ void conv_igemm(const T* __restrict__ x, const T* __restrict__ w,
                                      const T* __restrict__ bias, T* __restrict__ y,
                                      int N, int C, int H, int W, int K, int R, int S, int P, int Q,
                                      int sh, int sw, int ph, int pw, int dh, int dw,
                                      int has_bias, int act, float lo, float hi) {
    int RS = R * S, PQ = P * Q;
    auto load_a = [&](int m, int k) { return w[(long)m * C * RS + k]; };
    auto load_b = [&](int k, int col) {
        int n = col / PQ, pq = col % PQ, p = pq / Q, q = pq % Q;
        int c = k / RS, rs = k % RS, r = rs / S, s = rs % S;
        int h = p * sh - ph + r * dh, ww = q * sw - pw + s * dw;
        return (h >= 0 && h < H && ww >= 0 && ww < W) ? x[((long)n * C + c) * H * W + h * W + ww] : PP_ZERO;
    };
    auto store = [&](int m, int col, float v) {
        int n = col / PQ, pq = col % PQ;
        v += has_bias ? PP_TO_F(bias[m]) : 0.0f;
        y[((long)n * K + m) * PQ + pq] = PP_FROM_F(pp_act(v, act, lo, hi));
    };
    pp_tile_gemm(K, N * PQ, C * RS, load_a, load_b, store);
}

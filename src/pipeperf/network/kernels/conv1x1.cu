// 1x1 convolution with stride 1 and no padding, NCHW: a plain GEMM of the filter matrix (K x C)
// and each image's C x (H*W) activations, no gather arithmetic (pp_tile_gemm.cuh).
// Grid: (ceil(N*H*W / 64), ceil(K / 64)), block 256.
#include "pp_tile_gemm.cuh"

extern "C" __global__ void conv1x1(const T* __restrict__ x, const T* __restrict__ w,
                                   const T* __restrict__ bias, T* __restrict__ y,
                                   int N, int C, int HW, int K, int has_bias, int act, float lo, float hi) {
    auto load_a = [&](int m, int k) { return w[(long)m * C + k]; };
    auto load_b = [&](int k, int col) { int n = col / HW; return x[((long)n * C + k) * HW + col % HW]; };
    auto store = [&](int m, int col, float v) {
        int n = col / HW;
        v += has_bias ? PP_TO_F(bias[m]) : 0.0f;
        y[((long)n * K + m) * HW + col % HW] = PP_FROM_F(pp_act(v, act, lo, hi));
    };
    pp_tile_gemm(K, N * HW, C, load_a, load_b, store);
}

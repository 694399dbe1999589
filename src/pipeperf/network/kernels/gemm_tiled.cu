// Gemm / MatMul: Y[M x N] = A[M x K] * B[K x N] (+ bias[N]), A and B read through strides so that
// ONNX's transA/transB need no copy (pp_tile_gemm.cuh; the tile's rows are Y's columns so that
// the bias is per row of the tile). Grid: (ceil(M / 64), ceil(N / 64)), block 256.
#include "pp_tile_gemm.cuh"

extern "C" __global__ void gemm_tiled(const T* __restrict__ a, const T* __restrict__ b,
                                      const T* __restrict__ bias, T* __restrict__ y,
                                      int M, int N, int K, int sam, int sak, int sbk, int sbn,
                                      int has_bias, int act, float lo, float hi) {
    // the tile computes Y^T = B^T A^T: rows n (N), columns m (M)
    auto load_a = [&](int n, int k) { return b[(long)k * sbk + (long)n * sbn]; };
    auto load_b = [&](int k, int m) { return a[(long)m * sam + (long)k * sak]; };
    auto store = [&](int n, int m, float v) {
        v += has_bias ? PP_TO_F(bias[n]) : 0.0f;
        y[(long)m * N + n] = PP_FROM_F(pp_act(v, act, lo, hi));
    };
    pp_tile_gemm(N, M, K, load_a, load_b, store);
}

// Gemm / MatMul in half precision on the tensor cores (--dtype fp16): Y[M x N] = A[M x K] * B
// (+ bias), one warp per 16 x 16 output tile through WMMA fragments (m16n16k16, fp16 inputs, fp32
// accumulators), A row-major (stride lda) and B given as N x K row-major (ONNX Gemm's transB=1),
// i.e. column-major K x N. M, N and K are padded to multiples of 16 by the caller's buffers.
// Grid: (ceil(N / 16), ceil(M / 16)), block 32.
#include <mma.h>
#include "pp_common.cuh"
using namespace nvcuda;

extern "C" __global__ void gemm_wmma(const __half* __restrict__ a, const __half* __restrict__ b,
                                     const __half* __restrict__ bias, __half* __restrict__ y,
                                     int M, int N, int K, int has_bias, int act, float lo, float hi) {
    __shared__ float tile[16 * 16];
    int n0 = blockIdx.x * 16, m0 = blockIdx.y * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + (long)m0 * K + k, K);
        wmma::load_matrix_sync(fb, b + (long)n0 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(tile, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m < M && n < N) {
            float v = tile[e] + (has_bias ? __half2float(bias[n]) : 0.0f);
            y[(long)m * N + n] = __float2half(pp_act(v, act, lo, hi));
        }
    }
}

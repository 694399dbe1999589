// The shared-memory tiled GEMM every GEMM-shaped kernel of the library runs: C[M x Nc] =
// A[M x Kd] * B[Kd x Nc], a 64 x 64 output tile per 256-thread block, 4 x 4 outputs per thread,
// Kd in steps of 8 through shared memory. The callers give how to read A and B (a filter matrix,
// an implicit im2col gather, a strided matrix) and how to store an output: one tile loop for
// implicit-GEMM convolution, 1x1 convolution and Gemm/MatMul.
#pragma once
#include "pp_common.cuh"

#define PP_BM 64
#define PP_BN 64
#define PP_BK 8

template <class LoadA, class LoadB, class Store>
__device__ __forceinline__ void pp_tile_gemm(int M, int Nc, int Kd, LoadA load_a, LoadB load_b, Store store) {
    __shared__ T As[PP_BK][PP_BM + 4];     // padded: the A loads of 8 consecutive k hit 8 banks apart
    __shared__ T Bs[PP_BK][PP_BN];
    int tid = threadIdx.x;
    int tx = tid % 16, ty = tid / 16;
    int m0 = blockIdx.y * PP_BM, n0 = blockIdx.x * PP_BN;
    T acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = PP_ZERO;
    for (int k0 = 0; k0 < Kd; k0 += PP_BK) {
#pragma unroll
        for (int e = tid; e < PP_BM * PP_BK; e += 256) {
            int mm = e / PP_BK, kk = e % PP_BK;
            int m = m0 + mm, k = k0 + kk;
            As[kk][mm] = (m < M && k < Kd) ? load_a(m, k) : PP_ZERO;
        }
#pragma unroll
        for (int e = tid; e < PP_BN * PP_BK; e += 256) {
            int kk = e / PP_BN, nn = e % PP_BN;
            int n = n0 + nn, k = k0 + kk;
            Bs[kk][nn] = (n < Nc && k < Kd) ? load_b(k, n) : PP_ZERO;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < PP_BK; ++kk) {
            T a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[kk][ty * 4 + i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = PP_FMA(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int m = m0 + ty * 4 + i, n = n0 + tx * 4 + j;
            if (m < M && n < Nc) store(m, n, PP_TO_F(acc[i][j]));
        }
}

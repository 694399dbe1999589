// Gemm / MatMul with few rows (M <= 8, e.g. a classifier at batch 1): one warp per output
// element, its lanes striding over K and summing by shuffles; a 64 x 64 tile would leave most
// of its threads idle. Grid: ceil(M * N / 8), block 256 (8 warps).
#include "pp_common.cuh"

extern "C" __global__ void gemv(const T* __restrict__ a, const T* __restrict__ b,
                                const T* __restrict__ bias, T* __restrict__ y,
                                int M, int N, int K, int sam, int sak, int sbk, int sbn,
                                int has_bias, int act, float lo, float hi) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= M * N) return;
    int m = warp / N, n = warp % N;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc = fmaf(PP_TO_F(a[(long)m * sam + (long)k * sak]), PP_TO_F(b[(long)k * sbk + (long)n * sbn]), acc);
    for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) {
        float v = acc + (has_bias ? PP_TO_F(bias[n]) : 0.0f);
        y[(long)m * N + n] = PP_FROM_F(pp_act(v, act, lo, hi));
    }
}

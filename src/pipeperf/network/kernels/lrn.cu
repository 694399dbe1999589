// LRN across channels (AlexNet), NCHW: y = x / (bias + alpha / size * sum of x^2 over the
// size channels around c) ^ beta. One thread per element.
#include "pp_common.cuh"

extern "C" __global__ void lrn(const T* __restrict__ x, T* __restrict__ y, int N, int C, int HW, int size,
                               float alpha, float beta, float bias) {
    long total = (long)N * C * HW;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int hw = i % HW; long t = i / HW;
    int c = t % C; int n = t / C;
    int lo = c - (size - 1) / 2, hi = c + size / 2;
    float sum = 0.0f;
    for (int j = max(lo, 0); j <= min(hi, C - 1); ++j) {
        float v = PP_TO_F(x[((long)n * C + j) * HW + hw]);
        sum = fmaf(v, v, sum);
    }
    y[i] = PP_FROM_F(PP_TO_F(x[i]) * __powf(bias + alpha / size * sum, -beta));
}

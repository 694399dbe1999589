// Instruction-mix micro-benchmark with memory: per outer iteration one coalesced global load
// v = in[k*n + i] followed by BETA = 8 dependent FMAs acc = acc*0.5 + v (fp32 ops per load = 8).
// in holds n * iters values; out[i] = acc after `iters` iterations from acc = 0.
#define BETA 8

extern "C" __global__ void fma_chain(const float* in, float* out, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < iters; ++k) {
        float v = in[k * n + i];
#pragma unroll
        for (int j = 0; j < BETA; ++j) acc = fmaf(acc, 0.5f, v);
    }
    out[i] = acc;
}

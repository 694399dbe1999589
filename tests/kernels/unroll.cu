// Horner-style recurrence acc = acc * v + (k + 1) from acc = 0, v = x[i]:
// poly_unrolled runs a fixed 16 steps with #pragma unroll (straight-line code);
// loop_unroll1 runs `iters` steps with #pragma unroll 1 (a real loop: loop-overhead benchmark).
extern "C" __global__ void poly_unrolled(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = acc * v + (float)(k + 1);
    y[i] = acc;
}

extern "C" __global__ void loop_unroll1(const float* x, float* y, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; ++k) acc = acc * v + (float)(k + 1);
    y[i] = acc;
}

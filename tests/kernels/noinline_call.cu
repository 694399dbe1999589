// Calls to non-inlined device functions (PTX .func + call with .param arguments and return value):
// y[i] = poly3(x, a, b, c) + poly3(-x, c, b, a) where poly3(x, a, b, c) = (a*x + b)*x + c, and
// k[i] = clamp_index(i * 3 - 7, 0, n - 1). The function names stay C++-mangled in the PTX.
__device__ __noinline__ float poly3(float x, float a, float b, float c)
{
    return (a * x + b) * x + c;
}

__device__ __noinline__ int clamp_index(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

extern "C" __global__ void noinline_call(const float* x, float* y, int* k, int n, float a, float b, float c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = poly3(v, a, b, c) + poly3(-v, c, b, a);
        k[i] = clamp_index(i * 3 - 7, 0, n - 1);
    }
}

// fp64 math: for v = x[i]: out[i] = sqrt(v), out[n+i] = exp(v), out[2n+i] = 1.0 / v,
// out[3n+i] = fma(v, v, -1.0). exp is inlined library code; sqrt and the reciprocal are single
// IEEE-rounded PTX instructions.
extern "C" __global__ void math_fp64(const double* x, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    out[i] = sqrt(v);
    out[n + i] = exp(v);
    out[2 * n + i] = 1.0 / v;
    out[3 * n + i] = fma(v, v, -1.0);
}

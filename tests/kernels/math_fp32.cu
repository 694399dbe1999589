// fp32 math-library calls (accurate versions, inlined by nvcc into polynomial code with slow paths):
// for v = x[i], out[k*n + i] = sinf, cosf, expf, logf, sqrtf, rsqrtf (k = 0..5) of v.
extern "C" __global__ void math_fp32(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = sinf(v);
    out[n + i] = cosf(v);
    out[2 * n + i] = expf(v);
    out[3 * n + i] = logf(v);
    out[4 * n + i] = sqrtf(v);
    out[5 * n + i] = rsqrtf(v);
}

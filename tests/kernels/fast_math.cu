// Fast-math intrinsics that map onto single SFU instructions (sin/cos/ex2/lg2 .approx, div.approx):
// for v = x[i], w = y[i]: out[k*n + i] = __sinf(v), __cosf(v), __expf(v), __logf(v), __fdividef(v, w)
// (k = 0..4).
extern "C" __global__ void fast_math(const float* x, const float* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], w = y[i];
    out[i] = __sinf(v);
    out[n + i] = __cosf(v);
    out[2 * n + i] = __expf(v);
    out[3 * n + i] = __logf(v);
    out[4 * n + i] = __fdividef(v, w);
}

// Scalar fp16 arithmetic and conversions. For x = a[i], y = b[i] (__half):
// c[i] = fma(x, y, x) rounded once to fp16 (__hfma); d[i] = fp16(fp16(x + y) * x) (__hadd, __hmul);
// f[i] = float(x) + 0.5f * float(y) (cvt.f32.f16); g[i] = __float2half_rn(f[i] * 0.1f) (cvt.rn.f16.f32).
#include <cuda_fp16.h>

extern "C" __global__ void half_arith(const __half* a, const __half* b, __half* c, __half* d,
                                      float* f, __half* g, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i];
    c[i] = __hfma(x, y, x);
    d[i] = __hmul(__hadd(x, y), x);
    float fv = __half2float(x) + 0.5f * __half2float(y);
    f[i] = fv;
    g[i] = __float2half_rn(fv * 0.1f);
}

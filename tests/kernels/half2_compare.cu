// Packed half2 comparisons, min/max, NaN tests, a half2 shuffle and warpSize -- the PTX forms nvcc
// emits for them: set.<cmp>.f16x2.f16x2 (1.0 per true lane: __heq2, __hgt2, __hneu2, __hisnan2),
// set.<cmp>.u32.f16x2 (0xFFFF per true lane: the *_mask forms and the bool __hbeq2/__hbgt2/__hble2),
// max.f16x2 / min.NaN.f16x2 (sm_80+; sm_75 goes through f32 and set.nan.f16.f16), and
// `mov.u32 %r, WARP_SZ` (warpSize, also inside the half2 __shfl_xor_sync wrapper).
#include <cuda_fp16.h>

// Per thread i < n2, with x = a[i], y = b[i]:
//   h[7i .. 7i+6] = heq2, hgt2, hneu2, hisnan2(x), hmax2, hmin2_nan, shfl_xor(x, 1)
//   u[3i .. 3i+2] = hltu2_mask, hbeq2 | hbgt2 << 1 | hble2 << 2, warpSize * 1000 + lane
extern "C" __global__ void half2_compare(int n2, const __half2* a, const __half2* b, __half2* h,
                                         unsigned* u)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 x = a[i < n2 ? i : 0], y = b[i < n2 ? i : 0];
    __half2 s = __shfl_xor_sync(0xffffffffu, x, 1);   // every lane takes part
    if (i >= n2) return;
    h[7 * i + 0] = __heq2(x, y);
    h[7 * i + 1] = __hgt2(x, y);
    h[7 * i + 2] = __hneu2(x, y);
    h[7 * i + 3] = __hisnan2(x);
    h[7 * i + 4] = __hmax2(x, y);
    h[7 * i + 5] = __hmin2_nan(x, y);
    h[7 * i + 6] = s;
    u[3 * i + 0] = __hltu2_mask(x, y);
    u[3 * i + 1] = (__hbeq2(x, y) ? 1u : 0u) | (__hbgt2(x, y) ? 2u : 0u) | (__hble2(x, y) ? 4u : 0u);
    u[3 * i + 2] = warpSize * 1000u + threadIdx.x % warpSize;
}

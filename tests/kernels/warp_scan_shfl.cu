// Warp-level inclusive scan with __shfl_up_sync, a butterfly max with __shfl_xor_sync and a
// broadcast with __shfl_sync. With v = in (0 past n) and s = inclusive scan of v within each warp:
// scan[i] = s[i], spread[i] = max(s over the warp) - s[lane 0]. blockDim.x a multiple of 32.
#define FULL 0xffffffffu

extern "C" __global__ void warp_scan_shfl(const int* in, int* scan, int* spread, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = (i < n) ? in[i] : 0;
    for (int off = 1; off < 32; off <<= 1) {
        int u = __shfl_up_sync(FULL, v, off);
        if (lane >= off) v += u;
    }
    int m = v;
    for (int off = 16; off > 0; off >>= 1) m = max(m, __shfl_xor_sync(FULL, m, off));
    int first = __shfl_sync(FULL, v, 0);
    if (i < n) {
        scan[i] = v;
        spread[i] = m - first;
    }
}

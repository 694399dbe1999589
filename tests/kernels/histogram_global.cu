// Histogram with atomicAdd on global memory: bins[data[i] & 63] += 1 for i < n. Counting is
// order-independent, so the result is deterministic; `bins` must hold 64 counters (zeroed or not:
// the kernel adds to what is there).
#define NBINS 64

extern "C" __global__ void histogram_global(const unsigned* data, unsigned* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] & (NBINS - 1)], 1u);
}

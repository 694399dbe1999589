// Privatised histogram: each block counts into 64 shared bins with shared-memory atomics over a
// grid-stride loop, then adds its non-zero bins to the global bins with global atomics.
// Same contract as histogram_global: bins[data[i] & 63] += 1 for i < n.
#define NBINS 64

extern "C" __global__ void histogram_shared(const unsigned* data, unsigned* bins, int n)
{
    __shared__ unsigned s[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) s[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s[data[i] & (NBINS - 1)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (s[b] != 0) atomicAdd(&bins[b], s[b]);
}

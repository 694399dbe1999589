// Gather with a configurable stride, for coalescing / sector-count analysis: out[i] = in[(i*stride) % n].
// stride 1 is a perfectly coalesced copy; stride 32 touches one 32-byte sector per thread.
extern "C" __global__ void strided_copy(const float* in, float* out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(i * stride) % n];
}

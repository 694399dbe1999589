// Dynamic shared memory (extern __shared__, size given at launch = blockDim.x * 4 bytes): each block
// reverses its segment: out[base + t] = in[base + blockDim.x - 1 - t], reading -1 for sources >= n.
extern "C" __global__ void dynamic_smem_reverse(const int* in, int* out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    s[t] = (base + t < n) ? in[base + t] : -1;
    __syncthreads();
    if (base + t < n) out[base + t] = s[blockDim.x - 1 - t];
}

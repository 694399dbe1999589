// Block-level tree reduction in shared memory with __syncthreads between levels.
// Requires blockDim.x == 256; out[blockIdx.x] = sum of the block's 256 inputs (0 past n).
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK) reduce_shared(const float* in, float* out, int n)
{
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + t;
    s[t] = (i < (unsigned)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

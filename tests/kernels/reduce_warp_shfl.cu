// Warp reduction with __shfl_down_sync: lane 0 of every warp writes the sum of its 32 inputs
// (0 past n) to out[global_thread_index / 32]. blockDim.x must be a multiple of 32.
extern "C" __global__ void reduce_warp_shfl(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) out[i >> 5] = v;
}

// Asynchronous global->shared copy with the pipeline primitives (cp.async + commit/wait groups on
// sm_80+, an ordinary load/store on sm_75): each block of 256 threads stages its 256 inputs
// (0 past n) in shared memory, then out[base + t] = a * tile[255 - t] for base + t < n.
// Requires blockDim.x == 256.
#include <cuda_pipeline.h>
#define BLOCK 256

extern "C" __global__ void async_copy_scale(const float* in, float* out, float a, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    if (base + t < n)
        __pipeline_memcpy_async(&tile[t], &in[base + t], sizeof(float));
    else
        tile[t] = 0.0f;
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (base + t < n) out[base + t] = a * tile[BLOCK - 1 - t];
}

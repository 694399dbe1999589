// "Last block" reduction (CUDA sample threadFenceReduction): every block writes its partial sum,
// __threadfence(), takes a ticket with atomicInc on a module-scope counter; the block that draws the
// last ticket adds the partials in a fixed order and resets the counter. Requires blockDim.x == 256.
// Results: partial[b] = sum of block b's inputs, *total = sum of all inputs (integers: exact).
#define BLOCK 256

__device__ unsigned int g_blocks_done = 0;

__device__ void block_sum(int* s, unsigned t)
{
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
}

extern "C" __global__ void reduce_threadfence(const int* in, int* partial, int* total, int n)
{
    __shared__ int s[BLOCK];
    __shared__ bool is_last;
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + t;
    s[t] = (i < (unsigned)n) ? in[i] : 0;
    __syncthreads();
    block_sum(s, t);
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last) {
        int acc = 0;
        for (unsigned b = t; b < gridDim.x; b += BLOCK) acc += ((volatile int*)partial)[b];
        s[t] = acc;
        __syncthreads();
        block_sum(s, t);
        if (t == 0) {
            *total = s[0];
            g_blocks_done = 0;
        }
    }
}

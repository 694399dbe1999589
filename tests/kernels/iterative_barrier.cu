// The Iterative Barrier kernel of the pipeline-model papers: `iters` rounds of one dependent
// computation separated by barriers. Each block works on its own blockDim.x values s (<= 1024):
// per round s[t] <- 0.5*s[t] + 0.25*s[(t+1) mod blockDim.x], all reads before all writes.
// data is updated in place; no bounds check (one thread per element).
extern "C" __global__ void iterative_barrier(float* data, int iters)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int next = (t + 1 == (int)blockDim.x) ? 0 : t + 1;
    s[t] = data[g];
    __syncthreads();
    for (int k = 0; k < iters; ++k) {
        float v = 0.5f * s[t] + 0.25f * s[next];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    data[g] = s[t];
}

// A double-buffered loop: the tile alternates between two halves of shared memory, so iteration j
// repeats what iteration j - 2 did, not j - 1 (a period of two iterations: the loop skipper's
// ping-pong case, tests/emulate/test_loop_skipping.py and tests/analyze/test_fast_vs_exact.py).
extern "C" __global__ void pingpong(const float* x, float* y, int n)
{
    __shared__ float t[2][128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    t[0][threadIdx.x] = x[i];
    __syncthreads();
    #pragma unroll 1
    for (int j = 0; j < n; j++) {
        int cur = j & 1;
        t[cur ^ 1][threadIdx.x] = x[(j + 1) * 512 + i];
        s += t[cur][127 - threadIdx.x];
        __syncthreads();
    }
    y[i] = s;
}

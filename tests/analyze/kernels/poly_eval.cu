// A latency-bound kernel for the occupancy advice: each thread loads x[i] and evaluates a
// polynomial by Horner's rule (a chain of 32 dependent FMAs), so throughput needs many resident
// warps. Launched with blocks of 32 threads, the blocks-per-SM limit caps occupancy; blocks of
// 256 threads do not.
extern "C" __global__ void poly_eval(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i], acc = 1.0f;
#pragma unroll
        for (int k = 0; k < 32; k++)
            acc = acc * v + 0.5f;
        y[i] = acc;
    }
}

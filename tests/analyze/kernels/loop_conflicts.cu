// Bank conflicts inside a long loop (whose periods the emulator skips and the analysis
// extrapolates): each thread sums a row of a 32x32 shared tile m times (the inner loop unrolled,
// so every outer iteration is alike: the skipper jumps it). conflicted: a warp's lanes read words
// 32 apart, all in one bank (32-way); padded: rows of 33 words, 32 banks.
extern "C" __global__ void conflicted(float* out, int m)
{
    __shared__ float t[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    t[ty][tx] = (float)(tx + ty);
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < m; j++) {
        asm volatile("" ::: "memory");          // the loads stay in the loop (no hoisting)
#pragma unroll
        for (int k = 0; k < 32; k++) acc += t[tx][k];
    }
    out[(blockIdx.x * blockDim.y + ty) * 32 + tx] = acc;
}
extern "C" __global__ void padded(float* out, int m)
{
    __shared__ float t[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    t[ty][tx] = (float)(tx + ty);
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < m; j++) {
        asm volatile("" ::: "memory");          // the loads stay in the loop (no hoisting)
#pragma unroll
        for (int k = 0; k < 32; k++) acc += t[tx][k];
    }
    out[(blockIdx.x * blockDim.y + ty) * 32 + tx] = acc;
}

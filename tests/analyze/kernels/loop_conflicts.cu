// Bank conflicts inside a long loop (whose periods the emulator skips and the analysis
// extrapolates): each thread sums a column of a 32x32 shared tile m times. conflicted: the
// column's words lie 32 apart, all in one bank (32-way); padded: rows of 33 words, 32 banks.
extern "C" __global__ void conflicted(float* out, int m)
{
    __shared__ float t[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    t[ty][tx] = (float)(tx + ty);
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < m; k++) acc += t[tx][k & 31];
    out[(blockIdx.x * blockDim.y + ty) * 32 + tx] = acc;
}
extern "C" __global__ void padded(float* out, int m)
{
    __shared__ float t[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    t[ty][tx] = (float)(tx + ty);
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < m; k++) acc += t[tx][k & 31];
    out[(blockIdx.x * blockDim.y + ty) * 32 + tx] = acc;
}

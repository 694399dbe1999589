// Column-wise global accesses (one sector per lane), the pattern the "coalesced" what-if fixes:
// a naive transpose (uncoalesced stores) and a column gather whose sectors the block's other warps re-read.
extern "C" __global__ void transpose_naive(const float* in, float* out, int n)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[x * n + (y + j)] = in[(y + j) * n + x];
}
extern "C" __global__ void gather_cols(const float* in, float* out, int n)
{
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    float s = 0.f;
    for (int j = 0; j < 32; j += 8)
        s += in[x * n + (y + j)];
    out[y * n + x] = s;
}

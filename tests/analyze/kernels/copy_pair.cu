// A copy pair for the coalescing advice: copy_columns reads `in` down its columns (lane k of a
// warp reads row k: one 32-byte sector per lane), copy_rows reads it along its rows (a warp reads
// 128 consecutive bytes). Both write out[i] coalesced; n x n floats, one thread per element.
extern "C" __global__ void copy_columns(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * n) out[i] = in[(i % n) * n + i / n];
}
extern "C" __global__ void copy_rows(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * n) out[i] = in[i];
}

// Naive transpose: out (cols x rows) = in (rows x cols)^T, both row-major. Block (32, 8) handles a
// 32x32 tile, each thread 4 elements; reads are coalesced, writes are strided by `rows`.
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) out[x * rows + (y + j)] = in[(y + j) * cols + x];
}

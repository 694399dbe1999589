// Transpose through a 32x32 shared tile padded to 33 columns, so the column-wise
// tile reads fall in 32 different banks (conflict-free). Same contract as transpose_naive: out = in^T,
// in is rows x cols, block (32, 8), grid (ceil(cols/32), ceil(rows/32)).
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_padded(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;  // column of out = row of in
    y = blockIdx.x * TILE_DIM + threadIdx.y;  // row of out = column of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

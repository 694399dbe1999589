// Bundled example for `pipeperf tune` (examples/tune/matmul.yaml; README, "Tuning"):
//   pipeperf tune examples/tune/matmul.yaml --out tune.csv --plot tune.png
// Tiled matrix multiply C = A @ B of square row-major n x n matrices, n a multiple of TILE.
// Tunables: TILE (-D TILE=..., compile time), the block shape (TILE, BY) with BY dividing TILE
// (each thread loads and computes TILE / BY rows of the block's TILE x TILE tile of C), and the
// pitch of the shared-memory tiles (TILE + PAD floats: dynamic shared memory, 2 * TILE * pitch * 4
// bytes). Grid (n / TILE, n / TILE).
#ifndef TILE
#define TILE 16
#endif

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n, int pitch)
{
    extern __shared__ float smem[];
    float* As = smem;                       // TILE rows of `pitch` floats
    float* Bs = smem + TILE * pitch;
    int tx = threadIdx.x, ty = threadIdx.y, by = blockDim.y;
    int rows = TILE / by;                   // rows of C per thread: ty, ty + by, ...
    int col = blockIdx.x * TILE + tx;
    int row0 = blockIdx.y * TILE;
    float acc[TILE];
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc[i] = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        for (int r = ty; r < TILE; r += by) {
            As[r * pitch + tx] = A[(row0 + r) * n + t * TILE + tx];
            Bs[r * pitch + tx] = B[(t * TILE + r) * n + col];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TILE; ++i) {
            if (i < rows) {
                const float* a = As + (ty + i * by) * pitch;
#pragma unroll
                for (int k = 0; k < TILE; ++k) acc[i] += a[k] * Bs[k * pitch + tx];
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TILE; ++i)
        if (i < rows) C[(row0 + ty + i * by) * n + col] = acc[i];
}

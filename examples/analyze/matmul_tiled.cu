// Bundled example for `pipeperf analyze` (the README's first command):
//   pipeperf analyze examples/analyze/matmul_tiled.cu --grid 32,32 --block 16,16 \
//     --arg A=rand:f32:262144 --arg B=rand:f32:262144 --arg C=zeros:f32:262144 --arg n=512 \
//     --gpu volta_v100 --gpu ampere_a100 --gpu hopper_h100
// Tiled matrix multiply C = A @ B (CUDA SDK style) with 16x16 shared-memory tiles: square row-major
// n x n matrices, n a multiple of 16, block (16, 16), grid (n/16, n/16); two barriers per tile step.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

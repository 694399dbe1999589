// Tensor-core GEMM through the WMMA API (wmma.load / wmma.mma / wmma.store, 16x16x16, fp16 inputs,
// fp32 accumulation): C = A @ B with A (M x K), B (K x N), C (M x N) all row-major, M, N, K
// multiples of 16. One warp computes one 16x16 tile of C; warp w takes tile row w / (N/16),
// tile column w % (N/16). Launch at least (M/16)*(N/16) warps.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm >= M / 16) return;  // warp-uniform
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + k * N + tn * 16, N);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, c, N, wmma::mem_row_major);
}

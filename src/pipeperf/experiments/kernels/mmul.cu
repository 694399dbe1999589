// The Pipeline-model paper's matrix multiplication (Listing 1), re-written for pipeperf.
//
// Original: Lemeire et al., pipeline-performance-model.txt, Listing 1 ("CUDA SDK matrix
// multiplication in OpenCL", kernel mmul_08 with BLOCK_SIZE 8; Sec. IV-C also runs the same kernel
// with 16 x 16 work groups, mmul_16). The paper prints the source; its licence is the paper's.
// What differs: OpenCL -> CUDA (get_global_id/get_local_id/get_group_id -> blockIdx/threadIdx,
// __local -> __shared__, barrier -> __syncthreads); the unused `extra` __local argument (which the
// paper's host sizes to limit occupancy) is dropped, since pipeperf varies occupancy by limiting
// resident blocks; the outer loop carries `#pragma unroll 1` as the paper's simulated version
// does ("we removed unrolling of the outer loop for both kernels").

template <int BLOCK_SIZE>
__device__ void mmul(float *C, const float *A, const float *B, int WA, int WB) {
  __shared__ float SA[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float SB[BLOCK_SIZE][BLOCK_SIZE];
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int ly = threadIdx.y;
  int lx = threadIdx.x;
  int aIdx = y * WA + lx;
  int aDelta = BLOCK_SIZE;
  int aEnd = (y + 1) * WA;
  int bIdx = ly * WB + x;
  int bDelta = BLOCK_SIZE * WB;
  float sum = 0;
#pragma unroll 1
  for (; aIdx < aEnd; aIdx += aDelta, bIdx += bDelta) {
    SA[ly][lx] = A[aIdx];
    SB[ly][lx] = B[bIdx];
    __syncthreads();
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += SA[ly][k] * SB[k][lx];
    __syncthreads();
  }
  C[y * WB + x] = sum;
}

extern "C" __global__ void mmul_08(float *C, const float *A, const float *B, int WA, int WB) { mmul<8>(C, A, B, WA, WB); }
extern "C" __global__ void mmul_16(float *C, const float *A, const float *B, int WA, int WB) { mmul<16>(C, A, B, WA, WB); }

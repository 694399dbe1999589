// Re-written for pipeperf (not copied) from wangzyon/NVIDIA_SGEMM_PRACTICE
//   https://github.com/wangzyon/NVIDIA_SGEMM_PRACTICE  commit d6068b13e9997ccff51c9d3cb773afd176fb7d8f
//   (the kernels and test/ results are unchanged since the first commit 2e99d5c; later commits
//   touch README.md, images and .gitignore only)
//   files src/kernel/kernel_1.cuh ... kernel_7.cuh, launch shapes from src/utils.cu
//   (test_mysgemm_v1 ... test_mysgemm_v7)
//   licence: none stated (no LICENSE file, no licence header in the files); this file re-writes
//   the kernels' code paths, it does not copy the files.
//
// SGEMM C = alpha * A @ B + beta * C (the program: alpha 1.0, beta 0.0), square m = n = k,
// row-major, one launch of one kernel:
//
//   entry        original                              grid                       block
//   mysgemm_v1   mysgemm_v1 (__launch_bounds__(1024))   (m/32, m/32)              (32, 32)
//   mysgemm_v2   mysgemm_v2<32>                         (m/32, m/32)              1024
//   mysgemm_v3   mysgemm_v3<64, 64, 8, 8>               (m/64, m/64)              512
//   mysgemm_v4   mysgemm_v4<128, 128, 8, 8, 8>          (m/128, m/128)            256
//   mysgemm_v5   mysgemm_v5<128, 128, 8, 8, 8>          (m/128, m/128)            256
//   mysgemm_v6   mysgemm_v6<128, 128, 8, 8, 8>          (m/128, m/128)            256
//   mysgemm_v7   mysgemm_v7<128, 128, 8, 8, 8>          (m/128, m/128)            256
//
// What differs from the original, and why it does not change the measured path's code:
// - each template kernel is written once for the one instance utils.cu launches: the template
//   parameters (const int) become function-local `const int` constants with the same values, so
//   every expression keeps its type and compile-time value; #pragma unroll, the index macros
//   OFFSET and FETCH_FLOAT4 and all loads, stores, barriers and loop structures are kept; the
//   entries are extern "C" (only the symbol names change).
// - host code (test_* launch functions, cuBLAS, timing, checks) is dropped.
// - the measured build was CUDA 10.2 with -arch=compute_70 -code=compute_70 (PTX only, JIT-
//   compiled by the driver for the RTX 3090); pipeperf compiles the same source with its own nvcc
//   for the GPU's target. The source-level code is the measured one; the compiler is not.
// Checked: nvcc 13 -arch=sm_86 -ptx gives each entry the same PTX instruction sequence as the
// original's template instance (registers, labels and names aside).

#define OFFSET(row, col, ld) ((row) * (ld) + (col))
#define FETCH_FLOAT4(pointer) (reinterpret_cast<float4 *>(&(pointer))[0])

// ---- src/kernel/kernel_1.cuh: naive, one C element per thread
extern "C" __global__ __launch_bounds__(1024) void mysgemm_v1(int M, int N, int K, float alpha,
                                                              float *A, float *B, float beta,
                                                              float *C) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;

  float tmp = 0.;
  for (int i = 0; i < K; i++) {
    tmp += A[gy * K + i] * B[i * N + gx];
  }
  C[gy * N + gx] = alpha * tmp + beta * C[gy * N + gx];
}

// ---- src/kernel/kernel_2.cuh: mysgemm_v2<BLOCK_SIZE = 32>, 32 x 32 shared tiles
extern "C" __global__ void mysgemm_v2(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BLOCK_SIZE = 32;
  int bx = blockIdx.x;
  int by = blockIdx.y;

  const int BM = BLOCK_SIZE;
  const int BN = BLOCK_SIZE;
  const int BK = BLOCK_SIZE;

  int tx = threadIdx.x % BN;
  int ty = threadIdx.x / BN;

  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

  float tmp = 0.;
  for (int k = 0; k < K; k += BK) {
    As[ty * BK + tx] = A[ty * K + tx];
    Bs[ty * BN + tx] = B[ty * N + tx];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (int i = 0; i < BK; i++) {
      tmp += As[ty * BK + i] * Bs[i * BN + tx];
    }
    __syncthreads();
  }
  C[ty * N + tx] = alpha * tmp + beta * C[ty * N + tx];
}

// ---- src/kernel/kernel_3.cuh: mysgemm_v3<BM 64, BN 64, BK 8, TM 8>, 1-D thread tile
extern "C" __global__ void mysgemm_v3(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BM = 64, BN = 64, BK = 8, TM = 8;
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int thread_num = BM * BN / TM;

  int tx = threadIdx.x % BN;
  int ty = threadIdx.x / BN * TM;

  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

  int a_tile_row = threadIdx.x / BK;
  int a_tile_col = threadIdx.x % BK;
  int a_tile_stride = thread_num / BK;

  int b_tile_row = threadIdx.x / BN;
  int b_tile_col = threadIdx.x % BN;
  int b_tile_stride = thread_num / BN;

  float tmp[TM + 1] = {0.};
#pragma unroll
  for (int k = 0; k < K; k += BK) {
#pragma unroll
    for (int i = 0; i < BM; i += a_tile_stride) {
      As[(a_tile_row + i) * BK + a_tile_col] = A[(a_tile_row + i) * K + a_tile_col];
    }
#pragma unroll
    for (int i = 0; i < BK; i += b_tile_stride) {
      Bs[(b_tile_row + i) * BN + b_tile_col] = B[(b_tile_row + i) * N + b_tile_col];
    }
    __syncthreads();
    A += BK;
    B += BK * N;
#pragma unroll
    for (int i = 0; i < BK; i++) {
      tmp[TM] = Bs[tx + i * BN];
#pragma unroll
      for (int j = 0; j < TM; j++) {
        tmp[j] += As[(ty + j) * BK + i] * tmp[TM];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TM; j++) {
    C[(ty + j) * N + tx] = alpha * tmp[j] + beta * C[(ty + j) * N + tx];
  }
}

// ---- src/kernel/kernel_4.cuh: mysgemm_v4<128, 128, 8, 8, 8>, 2-D thread tile
extern "C" __global__ void mysgemm_v4(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  int bx = blockIdx.x;
  int by = blockIdx.y;

  int block_row_thread = BN / TN;
  int block_col_thread = BM / TM;
  int thread_num = block_row_thread * block_col_thread;

  int tx = (threadIdx.x % block_row_thread) * TN;
  int ty = (threadIdx.x / block_row_thread) * TM;

  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

  int a_tile_row = threadIdx.x / BK;
  int a_tile_col = threadIdx.x % BK;
  int a_tile_stride = thread_num / BK;

  int b_tile_row = threadIdx.x / BN;
  int b_tile_col = threadIdx.x % BN;
  int b_tile_stride = thread_num / BN;

  float tmp[TM][TN] = {0.};
#pragma unroll
  for (int k = 0; k < K; k += BK) {
#pragma unroll
    for (int i = 0; i < BM; i += a_tile_stride) {
      As[(a_tile_row + i) * BK + a_tile_col] = A[(a_tile_row + i) * K + a_tile_col];
    }
#pragma unroll
    for (int i = 0; i < BK; i += b_tile_stride) {
      Bs[(b_tile_row + i) * BN + b_tile_col] = B[(b_tile_row + i) * N + b_tile_col];
    }
    __syncthreads();
    A += BK;
    B += BK * N;
#pragma unroll
    for (int i = 0; i < BK; i++) {
#pragma unroll
      for (int j = 0; j < TM; j++) {
        for (int l = 0; l < TN; l++)
          tmp[j][l] += As[(ty + j) * BK + i] * Bs[tx + l + i * BN];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TM; j++) {
    for (int l = 0; l < TN; l++)
      C[(ty + j) * N + tx + l] = alpha * tmp[j][l] + beta * C[(ty + j) * N + tx + l];
  }
}

// ---- src/kernel/kernel_5.cuh: mysgemm_v5<128, 128, 8, 8, 8>, register fragments
extern "C" __global__ void mysgemm_v5(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  int bx = blockIdx.x;
  int by = blockIdx.y;

  int block_row_thread = BN / TN;
  int block_col_thread = BM / TM;
  int thread_num = block_row_thread * block_col_thread;

  int tx = (threadIdx.x % block_row_thread) * TN;
  int ty = (threadIdx.x / block_row_thread) * TM;

  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

  int a_tile_row = threadIdx.x / BK;
  int a_tile_col = threadIdx.x % BK;
  int a_tile_stride = thread_num / BK;

  int b_tile_row = threadIdx.x / BN;
  int b_tile_col = threadIdx.x % BN;
  int b_tile_stride = thread_num / BN;

  float tmp[TM][TN] = {0.};
  float a_frag[TM] = {0.};
  float b_frag[TN] = {0.};

#pragma unroll
  for (int k = 0; k < K; k += BK) {
#pragma unroll
    for (int i = 0; i < BM; i += a_tile_stride) {
      As[(a_tile_row + i) * BK + a_tile_col] = A[(a_tile_row + i) * K + a_tile_col];
    }
#pragma unroll
    for (int i = 0; i < BK; i += b_tile_stride) {
      Bs[(b_tile_row + i) * BN + b_tile_col] = B[(b_tile_row + i) * N + b_tile_col];
    }
    __syncthreads();
    A += BK;
    B += BK * N;
#pragma unroll
    for (int i = 0; i < BK; i++) {
#pragma unroll
      for (int j = 0; j < TM; j++) {
        a_frag[j] = As[(ty + j) * BK + i];
      }
#pragma unroll
      for (int l = 0; l < TN; l++) {
        b_frag[l] = Bs[tx + l + i * BN];
      }
#pragma unroll
      for (int j = 0; j < TM; j++) {
#pragma unroll
        for (int l = 0; l < TN; l++)
          tmp[j][l] += a_frag[j] * b_frag[l];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TM; j++) {
    for (int l = 0; l < TN; l++)
      C[(ty + j) * N + tx + l] = alpha * tmp[j][l] + beta * C[(ty + j) * N + tx + l];
  }
}

// ---- src/kernel/kernel_6.cuh: mysgemm_v6<128, 128, 8, 8, 8>, float4 loads, As transposed
extern "C" __global__ void mysgemm_v6(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  int bx = blockIdx.x;
  int by = blockIdx.y;

  const int block_row_thread = BN / TN;
  const int block_col_thread = BM / TM;
  const int thread_num = block_row_thread * block_col_thread;

  int tx = (threadIdx.x % block_row_thread) * TN;
  int ty = (threadIdx.x / block_row_thread) * TM;

  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];

  const int ldg_a_num = BK * BM / thread_num / 4;
  const int ldg_b_num = BK * BN / thread_num / 4;

  int a_tile_row = threadIdx.x / (BK / 4);
  int a_tile_col = threadIdx.x % (BK / 4) * 4;
  int a_tile_stride = BM / ldg_a_num;

  int b_tile_row = threadIdx.x / (BN / 4);
  int b_tile_col = threadIdx.x % (BN / 4) * 4;
  int b_tile_stride = BK / ldg_b_num;

  float accum[TM][TN] = {0.};

  float ldg_a_reg[4 * ldg_a_num] = {0.};

  float a_frag[TM];
  float b_frag[TN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

#pragma unroll
  for (int k = 0; k < K; k += BK) {
#pragma unroll
    for (int i = 0; i < BM; i += a_tile_stride) {
      int ldg_index = i / a_tile_stride * 4;
      FETCH_FLOAT4(ldg_a_reg[ldg_index]) = FETCH_FLOAT4(A[OFFSET(a_tile_row + i, a_tile_col, K)]);
      As[OFFSET(a_tile_col, i + a_tile_row, BM)] = ldg_a_reg[ldg_index];
      As[OFFSET(a_tile_col + 1, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 1];
      As[OFFSET(a_tile_col + 2, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 2];
      As[OFFSET(a_tile_col + 3, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 3];
    }
#pragma unroll
    for (int i = 0; i < BK; i += b_tile_stride) {
      FETCH_FLOAT4(Bs[OFFSET(b_tile_row + i, b_tile_col, BN)]) =
          FETCH_FLOAT4(B[OFFSET(b_tile_row + i, b_tile_col, N)]);
    }
    __syncthreads();
    A += BK;
    B += BK * N;
#pragma unroll
    for (int i = 0; i < BK; i++) {
#pragma unroll
      for (int m = 0; m < TM; m += 4) {
        FETCH_FLOAT4(a_frag[m]) = FETCH_FLOAT4(As[OFFSET(i, ty + m, BM)]);
      }
#pragma unroll
      for (int n = 0; n < TN; n += 4) {
        FETCH_FLOAT4(b_frag[n]) = FETCH_FLOAT4(Bs[OFFSET(i, tx + n, BN)]);
      }
#pragma unroll
      for (int m = 0; m < TM; m++) {
#pragma unroll
        for (int n = 0; n < TN; n++) {
          accum[m][n] += a_frag[m] * b_frag[n];
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < TM; m++) {
#pragma unroll
    for (int n = 0; n < TN; n += 4) {
      float4 ctmp = FETCH_FLOAT4(C[OFFSET(ty + m, tx + n, N)]);
      ctmp.x = alpha * accum[m][n] + beta * ctmp.x;
      ctmp.y = alpha * accum[m][n + 1] + beta * ctmp.y;
      ctmp.z = alpha * accum[m][n + 2] + beta * ctmp.z;
      ctmp.w = alpha * accum[m][n + 3] + beta * ctmp.w;
      FETCH_FLOAT4(C[OFFSET(ty + m, tx + n, N)]) = ctmp;
    }
  }
}

// ---- src/kernel/kernel_7.cuh: mysgemm_v7<128, 128, 8, 8, 8>, double-buffered shared tiles and
// register fragments (global -> register prefetch of the next tile)
extern "C" __global__ void mysgemm_v7(int M, int N, int K, float alpha, float *A, float *B,
                                      float beta, float *C) {
  const int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  int bx = blockIdx.x;
  int by = blockIdx.y;

  const int block_row_thread = BN / TN;
  const int block_col_thread = BM / TM;
  const int thread_num = block_row_thread * block_col_thread;

  int tx = (threadIdx.x % block_row_thread) * TN;
  int ty = (threadIdx.x / block_row_thread) * TM;

  __shared__ float As[2][BK * BM];
  __shared__ float Bs[2][BK * BN];

  const int ldg_a_num = BK * BM / thread_num / 4;
  const int ldg_b_num = BK * BN / thread_num / 4;

  int a_tile_row = threadIdx.x / (BK / 4);
  int a_tile_col = threadIdx.x % (BK / 4) * 4;
  int a_tile_stride = BM / ldg_a_num;

  int b_tile_row = threadIdx.x / (BN / 4);
  int b_tile_col = threadIdx.x % (BN / 4) * 4;
  int b_tile_stride = BK / ldg_b_num;

  float accum[TM][TN] = {0.};

  float ldg_a_reg[4 * ldg_a_num] = {0.};
  float ldg_b_reg[4 * ldg_b_num] = {0.};

  float a_frag[2][TM];
  float b_frag[2][TN];

  A = &A[by * BM * K];
  B = &B[bx * BN];
  C = &C[by * BM * N + bx * BN];

  // first tile: global -> shared
#pragma unroll
  for (int i = 0; i < BM; i += a_tile_stride) {
    int ldg_index = i / a_tile_stride * 4;
    FETCH_FLOAT4(ldg_a_reg[ldg_index]) = FETCH_FLOAT4(A[OFFSET(a_tile_row + i, a_tile_col, K)]);
    As[0][OFFSET(a_tile_col, i + a_tile_row, BM)] = ldg_a_reg[ldg_index];
    As[0][OFFSET(a_tile_col + 1, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 1];
    As[0][OFFSET(a_tile_col + 2, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 2];
    As[0][OFFSET(a_tile_col + 3, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 3];
  }
#pragma unroll
  for (int i = 0; i < BK; i += b_tile_stride) {
    FETCH_FLOAT4(Bs[0][OFFSET(b_tile_row + i, b_tile_col, BN)]) =
        FETCH_FLOAT4(B[OFFSET(b_tile_row + i, b_tile_col, N)]);
  }
  __syncthreads();

  // first fragments: shared -> registers
#pragma unroll
  for (int m = 0; m < TM; m += 4) {
    FETCH_FLOAT4(a_frag[0][m]) = FETCH_FLOAT4(As[0][OFFSET(0, ty + m, BM)]);
  }
#pragma unroll
  for (int n = 0; n < TN; n += 4) {
    FETCH_FLOAT4(b_frag[0][n]) = FETCH_FLOAT4(Bs[0][OFFSET(0, tx + n, BN)]);
  }

  int write_index = 1;
  int load_index;
  int k = 0;
  do {
    k += BK;
    // next tile: global -> registers
    if (k < K) {
#pragma unroll
      for (int i = 0; i < BM; i += a_tile_stride) {
        int ldg_index = i / a_tile_stride * 4;
        FETCH_FLOAT4(ldg_a_reg[ldg_index]) =
            FETCH_FLOAT4(A[OFFSET(a_tile_row + i, k + a_tile_col, K)]);
      }
#pragma unroll
      for (int i = 0; i < BK; i += b_tile_stride) {
        int ldg_index = i / b_tile_stride * 4;
        FETCH_FLOAT4(ldg_b_reg[ldg_index]) =
            FETCH_FLOAT4(B[OFFSET(k + b_tile_row + i, b_tile_col, N)]);
      }
    }

    load_index = write_index ^ 1;
#pragma unroll
    for (int bk = 0; bk < BK - 1; bk++) {
      for (int m = 0; m < TM; m += 4) {
        FETCH_FLOAT4(a_frag[(bk + 1) % 2][m]) =
            FETCH_FLOAT4(As[load_index][OFFSET(bk + 1, ty + m, BM)]);
      }
#pragma unroll
      for (int n = 0; n < TN; n += 4) {
        FETCH_FLOAT4(b_frag[(bk + 1) % 2][n]) =
            FETCH_FLOAT4(Bs[load_index][OFFSET(bk + 1, tx + n, BN)]);
      }
#pragma unroll
      for (int m = 0; m < TM; m++) {
        for (int n = 0; n < TN; n++) {
          accum[m][n] += a_frag[bk % 2][m] * b_frag[bk % 2][n];
        }
      }
    }
    if (k < K) {
#pragma unroll
      for (int i = 0; i < BM; i += a_tile_stride) {
        int ldg_index = i / a_tile_stride * 4;
        As[write_index][OFFSET(a_tile_col, i + a_tile_row, BM)] = ldg_a_reg[ldg_index];
        As[write_index][OFFSET(a_tile_col + 1, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 1];
        As[write_index][OFFSET(a_tile_col + 2, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 2];
        As[write_index][OFFSET(a_tile_col + 3, i + a_tile_row, BM)] = ldg_a_reg[ldg_index + 3];
      }
#pragma unroll
      for (int i = 0; i < BK; i += b_tile_stride) {
        int ldg_index = i / b_tile_stride * 4;
        FETCH_FLOAT4(Bs[write_index][OFFSET(b_tile_row + i, b_tile_col, BN)]) =
            FETCH_FLOAT4(ldg_b_reg[ldg_index]);
      }
      __syncthreads();
#pragma unroll
      for (int m = 0; m < TM; m += 4) {
        FETCH_FLOAT4(a_frag[0][m]) = FETCH_FLOAT4(As[write_index][OFFSET(0, ty + m, BM)]);
      }
#pragma unroll
      for (int n = 0; n < TN; n += 4) {
        FETCH_FLOAT4(b_frag[0][n]) = FETCH_FLOAT4(Bs[write_index][OFFSET(0, tx + n, BN)]);
      }

      write_index ^= 1;
    }
#pragma unroll
    for (int m = 0; m < TM; m++) {
#pragma unroll
      for (int n = 0; n < TN; n++) {
        accum[m][n] += a_frag[(BK - 1) % 2][m] * b_frag[(BK - 1) % 2][n];
      }
    }

  } while (k < K);

#pragma unroll
  for (int m = 0; m < TM; m++) {
#pragma unroll
    for (int n = 0; n < TN; n += 4) {
      float4 ctmp = FETCH_FLOAT4(C[OFFSET(ty + m, tx + n, N)]);
      ctmp.x = alpha * accum[m][n] + beta * ctmp.x;
      ctmp.y = alpha * accum[m][n + 1] + beta * ctmp.y;
      ctmp.z = alpha * accum[m][n + 2] + beta * ctmp.z;
      ctmp.w = alpha * accum[m][n + 3] + beta * ctmp.w;
      FETCH_FLOAT4(C[OFFSET(ty + m, tx + n, N)]) = ctmp;
    }
  }
}

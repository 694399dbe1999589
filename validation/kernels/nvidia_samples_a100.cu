// Re-written for pipeperf (not copied) from NVIDIA/cuda-samples
//   https://github.com/NVIDIA/cuda-samples  tag v13.0 (commit 3f1c50965017932fc81e6d94a3fc9e04c105b312);
//   the device code of all six kernels is the same at the repository's HEAD of 2025-09-05
//   (c94ff366aed18c797b8a85dfaac7817b0228b420): no commit touches these files after v13.0.
//   licence: BSD-3-Clause, Copyright (c) NVIDIA CORPORATION; this file re-writes the device code of
//   the measured kernels, it does not copy the files.
//
//   entry                 original kernel (file under Samples/)                          launch of the measured run
//   mm_matrix_mul_32      MatrixMulCUDA<32>        0_Introduction/matrixMul/matrixMul.cu   <<<(20, 10), (32, 32)>>>
//                         (C = A * B, A 320 x 320, B 640 wide x 320 high; 32x32 shared tiles)
//   smc_inc_kernel        incKernel                0_Introduction/simpleMultiCopy/          <<<(8192, 1), 512>>>
//                         (N = 4194304 ints, inner_reps = 5)  simpleMultiCopy.cu
//   tc_gemm_f16           compute_gemm             3_CUDA_Features/cudaTensorCoreGemm/      <<<108, 256, 65536>>>
//                         (4096^3 half WMMA 16x16x16, fp32 accumulate, CHUNK_K 4, C/D fp32)
//   tc_gemm_bf16_async    compute_bf16gemm_async_copy  3_CUDA_Features/bf16TensorCoreGemm/  <<<216, 256, 73728>>>
//                         (8192^3 bf16 WMMA 16x16x16, fp32 accumulate, CHUNK_K 8, cuda::memcpy_async)
//   tc_gemm_tf32_async    compute_tf32gemm_async_copy  3_CUDA_Features/tf32TensorCoreGemm/  <<<216, 256, 73728>>>
//                         (M = N = 8192, K = 4096, tf32 WMMA 16x16x8, fp32 accumulate, memcpy_async)
//   tc_gemm_imma          compute_gemm_imma        3_CUDA_Features/immaTensorCoreGemm/      <<<108, 256, 65536>>>
//                         (4096^3 uint8 WMMA 16x16x16, int32 accumulate, CHUNK_K 8, C/D int32)
//
// What differs from the original, and why it does not change the measured path's code:
// - extern "C" entry points with new names; MatrixMulCUDA<BLOCK_SIZE> is instantiated for the
//   BLOCK_SIZE 32 the program uses (main: block_size = 32).
// - the compile-time constants (the samples' M/N/K, M_TILES.., CHUNK_K, SKEW, warp layout) keep the
//   samples' values under prefixed names; each kernel's shared-memory view, index arithmetic,
//   loop structure, copies and WMMA calls are those of the original, in the same order.
// - the dynamic shared arrays (each sample's `extern __shared__ ... shmem[][...]`) get distinct
//   names, as the kernels share one file and their element types differ; the bf16/tf32 bodies keep
//   the originals' `#if __CUDA_ARCH__ >= 800` guard.
// - host code (initialisation, timing, checks) is dropped.
// Checked: nvcc 13.0 -arch=sm_80 -ptx gives every entry the same PTX instruction sequence as the
// original kernel compiled from the sample file (registers, labels and names aside).

#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

// ---- 0_Introduction/matrixMul: MatrixMulCUDA<32>
extern "C" __global__ void mm_matrix_mul_32(float *C, float *A, float *B, int wA, int wB) {
  const int T = 32;
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aFirst = wA * T * by;
  int aLast = aFirst + wA - 1;
  int aInc = T;
  int bFirst = T * bx;
  int bInc = T * wB;
  float acc = 0;
  for (int a = aFirst, b = bFirst; a <= aLast; a += aInc, b += bInc) {
    __shared__ float sa[T][T];
    __shared__ float sb[T][T];
    sa[ty][tx] = A[a + wA * ty + tx];
    sb[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc += sa[ty][k] * sb[k][tx];
    __syncthreads();
  }
  int c0 = wB * T * by + T * bx;
  C[c0 + wB * ty + tx] = acc;
}

// ---- 0_Introduction/simpleMultiCopy: incKernel
extern "C" __global__ void smc_inc_kernel(int *g_out, int *g_in, int N, int inner_reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    for (int r = 0; r < inner_reps; ++r) g_out[i] = g_in[i] + 1;
  }
}

// ---- 3_CUDA_Features/cudaTensorCoreGemm: compute_gemm (SHARED_MEMORY_LIMIT_64K 1 -> CHUNK_K 4)
#define TCH_M 16
#define TCH_N 16
#define TCH_K 16
#define TCH_M_TILES 256
#define TCH_N_TILES 256
#define TCH_K_TILES 256
#define TCH_N_GLOBAL (TCH_N * TCH_N_TILES)
#define TCH_K_GLOBAL (TCH_K * TCH_K_TILES)
#define TCH_WARPS 8
#define TCH_CHUNK_K 4
#define TCH_LINE_BYTES (TCH_CHUNK_K * TCH_K * sizeof(half))
#define TCH_LINES_PER_WARP ((32 * sizeof(int4)) / TCH_LINE_BYTES)
#define TCH_LINE_LANES (32 / TCH_LINES_PER_WARP)
#define TCH_ROW_WARPS 2
#define TCH_COL_WARPS 4
#define TCH_WROW_TILES 4
#define TCH_WCOL_TILES 2
#define TCH_BROW_TILES (TCH_WROW_TILES * TCH_ROW_WARPS)
#define TCH_BCOL_TILES (TCH_WCOL_TILES * TCH_COL_WARPS)
#define TCH_GSTRIDE TCH_N_GLOBAL
#define TCH_SSTRIDE (TCH_N * TCH_BROW_TILES)
#define TCH_SOFFSET (TCH_N * TCH_WROW_TILES)
#define TCH_SKEW 16

extern "C" __global__ void tc_gemm_f16(const half *A, const half *B, const float *C, float *D,
                                       float alpha, float beta) {
  extern __shared__ half sm[][TCH_CHUNK_K * TCH_K + TCH_SKEW];
  const unsigned int warp = threadIdx.x / 32;
  const unsigned int lane = threadIdx.x % 32;
  const size_t b_rows_off = TCH_BCOL_TILES * TCH_M;
  float *warp_tile = (float *)&sm[0][0] + (warp / 2) * TCH_SSTRIDE * TCH_K * 2 + (warp % 2) * TCH_SOFFSET;
  float *warp_stream = (float *)&sm[0][0] + warp * TCH_SSTRIDE * TCH_K;
  beta /= alpha;

  for (unsigned int pos = blockIdx.x;; pos += gridDim.x) {
    const unsigned int ti = ((pos * TCH_BROW_TILES) / TCH_N_TILES) * (TCH_BCOL_TILES);
    const unsigned int tj = (pos * TCH_BROW_TILES) % TCH_N_TILES;
    if (ti >= TCH_M_TILES) break;

    const size_t g = (ti + warp) * TCH_M * TCH_GSTRIDE + tj * TCH_N;
    const float *csrc = &C[g];
#pragma unroll
    for (int r = 0; r < TCH_K; r++)
      *((int4 *)(warp_stream + TCH_SSTRIDE * r) + lane) = *((int4 *)(csrc + TCH_GSTRIDE * r) + lane);
    __syncthreads();

    wmma::fragment<wmma::accumulator, TCH_M, TCH_N, TCH_K, float> acc[TCH_WCOL_TILES][TCH_WROW_TILES];
#pragma unroll
    for (int i = 0; i < TCH_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCH_WROW_TILES; j++)
        wmma::load_matrix_sync(acc[i][j], warp_tile + i * TCH_SSTRIDE * TCH_K + j * TCH_N, TCH_SSTRIDE,
                               wmma::mem_row_major);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TCH_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCH_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= beta;
      }
    }

    const half *src = (warp < 4) ? (&A[ti * TCH_M * TCH_K_GLOBAL] + TCH_M * TCH_K_GLOBAL * (warp % 4) * 2)
                                 : (&B[tj * TCH_N * TCH_K_GLOBAL] + TCH_N * TCH_K_GLOBAL * (warp % 4) * 2);
#pragma unroll
    for (int kt = 0; kt < TCH_K_TILES; kt += TCH_CHUNK_K) {
      size_t row = warp < (TCH_WARPS / 2) ? (TCH_M * (warp % (TCH_WARPS / 2)) * 2)
                                          : (TCH_N * (warp % (TCH_WARPS / 2)) * 2 + b_rows_off);
      int4 *gp = (int4 *)(src + kt * TCH_K + (lane / TCH_LINE_LANES) * TCH_K_GLOBAL) + (lane % TCH_LINE_LANES);
      row += lane / TCH_LINE_LANES;
#pragma unroll
      for (int c = 0; c < ((32 / 2) / TCH_LINES_PER_WARP) * 2; c++) {
        *((int4 *)&sm[row][0] + (lane % TCH_LINE_LANES)) = *gp;
        gp = (int4 *)((half *)gp + TCH_K_GLOBAL * TCH_LINES_PER_WARP);
        row += TCH_LINES_PER_WARP;
      }
      __syncthreads();
#pragma unroll
      for (int ks = 0; ks < TCH_CHUNK_K; ks++) {
        wmma::fragment<wmma::matrix_a, TCH_M, TCH_N, TCH_K, half, wmma::row_major> fa[TCH_WCOL_TILES];
        wmma::fragment<wmma::matrix_b, TCH_M, TCH_N, TCH_K, half, wmma::col_major> fb[TCH_WROW_TILES];
#pragma unroll
        for (int i = 0; i < TCH_WCOL_TILES; i++) {
          size_t ra = (warp / 2) * TCH_M * 2 + (i * TCH_M);
          wmma::load_matrix_sync(fa[i], &sm[ra][ks * TCH_K], TCH_K * TCH_CHUNK_K + TCH_SKEW);
#pragma unroll
          for (int j = 0; j < TCH_WROW_TILES; j++) {
            if (i == 0) {
              size_t rb = b_rows_off + (TCH_WROW_TILES * TCH_N) * (warp % 2) + (j * TCH_N);
              wmma::load_matrix_sync(fb[j], &sm[rb][ks * TCH_K], TCH_K * TCH_CHUNK_K + TCH_SKEW);
            }
            wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
          }
        }
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TCH_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCH_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= alpha;
        wmma::store_matrix_sync(warp_tile + i * TCH_SSTRIDE * TCH_K + j * TCH_N, acc[i][j], TCH_SSTRIDE,
                                wmma::mem_row_major);
      }
    }
    __syncthreads();
    float *dst = &D[g];
#pragma unroll
    for (int r = 0; r < TCH_K; r++)
      *((int4 *)(dst + TCH_GSTRIDE * r) + lane) = *((int4 *)(warp_stream + TCH_SSTRIDE * r) + lane);
    __syncthreads();
  }
}

// ---- 3_CUDA_Features/immaTensorCoreGemm: compute_gemm_imma (SHARED_MEMORY_LIMIT_64K 1 -> CHUNK_K 8)
// the same structure as compute_gemm with uint8 A/B (WMMA u8 16x16x16), int32 C/D and accumulators,
// int alpha/beta, CHUNK_K 8 and a 32-byte skew
#define TCI_M 16
#define TCI_N 16
#define TCI_K 16
#define TCI_M_TILES 256
#define TCI_N_TILES 256
#define TCI_K_TILES 256
#define TCI_N_GLOBAL (TCI_N * TCI_N_TILES)
#define TCI_K_GLOBAL (TCI_K * TCI_K_TILES)
#define TCI_WARPS 8
#define TCI_CHUNK_K 8
#define TCI_LINE_BYTES (TCI_CHUNK_K * TCI_K * sizeof(uint8_t))
#define TCI_LINES_PER_WARP ((32 * sizeof(int4)) / TCI_LINE_BYTES)
#define TCI_LINE_LANES (32 / TCI_LINES_PER_WARP)
#define TCI_ROW_WARPS 2
#define TCI_COL_WARPS 4
#define TCI_WROW_TILES 4
#define TCI_WCOL_TILES 2
#define TCI_BROW_TILES (TCI_WROW_TILES * TCI_ROW_WARPS)
#define TCI_BCOL_TILES (TCI_WCOL_TILES * TCI_COL_WARPS)
#define TCI_GSTRIDE TCI_N_GLOBAL
#define TCI_SSTRIDE (TCI_N * TCI_BROW_TILES)
#define TCI_SOFFSET (TCI_N * TCI_WROW_TILES)
#define TCI_SKEW 32

extern "C" __global__ void tc_gemm_imma(const uint8_t *A, const uint8_t *B, const int *C, int *D,
                                        int alpha, int beta) {
  extern __shared__ uint8_t smi[][TCI_CHUNK_K * TCI_K + TCI_SKEW];
  const unsigned int warp = threadIdx.x / 32;
  const unsigned int lane = threadIdx.x % 32;
  const size_t b_rows_off = TCI_BCOL_TILES * TCI_M;
  int *warp_tile = (int *)&smi[0][0] + (warp / 2) * TCI_SSTRIDE * TCI_K * 2 + (warp % 2) * TCI_SOFFSET;
  int *warp_stream = (int *)&smi[0][0] + warp * TCI_SSTRIDE * TCI_K;
  beta /= alpha;

  for (unsigned int pos = blockIdx.x;; pos += gridDim.x) {
    const unsigned int ti = ((pos * TCI_BROW_TILES) / TCI_N_TILES) * (TCI_BCOL_TILES);
    const unsigned int tj = (pos * TCI_BCOL_TILES) % TCI_N_TILES;
    if (ti >= TCI_M_TILES) break;

    const size_t g = (ti + warp) * TCI_M * TCI_GSTRIDE + tj * TCI_N;
    const int *csrc = &C[g];
#pragma unroll
    for (int r = 0; r < TCI_K; r++)
      *((int4 *)(warp_stream + TCI_SSTRIDE * r) + lane) = *((int4 *)(csrc + TCI_GSTRIDE * r) + lane);
    __syncthreads();

    wmma::fragment<wmma::accumulator, TCI_M, TCI_N, TCI_K, int> acc[TCI_WCOL_TILES][TCI_WROW_TILES];
#pragma unroll
    for (int i = 0; i < TCI_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCI_WROW_TILES; j++)
        wmma::load_matrix_sync(acc[i][j], warp_tile + i * TCI_SSTRIDE * TCI_K + j * TCI_N, TCI_SSTRIDE,
                               wmma::mem_row_major);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TCI_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCI_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= beta;
      }
    }

    const uint8_t *src = (warp < 4) ? (&A[ti * TCI_M * TCI_K_GLOBAL] + TCI_M * TCI_K_GLOBAL * (warp % 4) * 2)
                                 : (&B[tj * TCI_N * TCI_K_GLOBAL] + TCI_N * TCI_K_GLOBAL * (warp % 4) * 2);
#pragma unroll
    for (int kt = 0; kt < TCI_K_TILES; kt += TCI_CHUNK_K) {
      size_t row = warp < (TCI_WARPS / 2) ? (TCI_M * (warp % (TCI_WARPS / 2)) * 2)
                                          : (TCI_N * (warp % (TCI_WARPS / 2)) * 2 + b_rows_off);
      int4 *gp = (int4 *)(src + kt * TCI_K + (lane / TCI_LINE_LANES) * TCI_K_GLOBAL) + (lane % TCI_LINE_LANES);
      row += lane / TCI_LINE_LANES;
#pragma unroll
      for (int c = 0; c < ((32 / 2) / TCI_LINES_PER_WARP) * 2; c++) {
        *((int4 *)&smi[row][0] + (lane % TCI_LINE_LANES)) = *gp;
        gp = (int4 *)((uint8_t *)gp + TCI_K_GLOBAL * TCI_LINES_PER_WARP);
        row += TCI_LINES_PER_WARP;
      }
      __syncthreads();
#pragma unroll
      for (int ks = 0; ks < TCI_CHUNK_K; ks++) {
        wmma::fragment<wmma::matrix_a, TCI_M, TCI_N, TCI_K, uint8_t, wmma::row_major> fa[TCI_WCOL_TILES];
        wmma::fragment<wmma::matrix_b, TCI_M, TCI_N, TCI_K, uint8_t, wmma::col_major> fb[TCI_WROW_TILES];
#pragma unroll
        for (int i = 0; i < TCI_WCOL_TILES; i++) {
          size_t ra = (warp / 2) * TCI_M * 2 + (i * TCI_M);
          wmma::load_matrix_sync(fa[i], &smi[ra][ks * TCI_K], TCI_K * TCI_CHUNK_K + TCI_SKEW);
#pragma unroll
          for (int j = 0; j < TCI_WROW_TILES; j++) {
            if (i == 0) {
              size_t rb = b_rows_off + (TCI_WROW_TILES * TCI_N) * (warp % 2) + (j * TCI_N);
              wmma::load_matrix_sync(fb[j], &smi[rb][ks * TCI_K], TCI_K * TCI_CHUNK_K + TCI_SKEW);
            }
            wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
          }
        }
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TCI_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < TCI_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= alpha;
        wmma::store_matrix_sync(warp_tile + i * TCI_SSTRIDE * TCI_K + j * TCI_N, acc[i][j], TCI_SSTRIDE,
                                wmma::mem_row_major);
      }
    }
    __syncthreads();
    int *dst = &D[g];
#pragma unroll
    for (int r = 0; r < TCI_K; r++)
      *((int4 *)(dst + TCI_GSTRIDE * r) + lane) = *((int4 *)(warp_stream + TCI_SSTRIDE * r) + lane);
    __syncthreads();
  }
}

// ---- 3_CUDA_Features/bf16TensorCoreGemm and tf32TensorCoreGemm: the async-copy kernels
// (SHARED_MEMORY_LIMIT_64K 0 -> CHUNK_K 8). Both samples use 16 x 16 output tiles, 512 x 512 of
// them, 8 warps (2 x 4) of 2 x 4 tiles each; they differ in the element type, the WMMA K (16 for
// bf16, 8 for tf32), K_TILES (512 both: K = 8192 for bf16, 4096 for tf32), the shared-memory skew
// (16 bf16 / 8 floats) and the lane offset shift of the A/B copy (8 bf16 or 4 floats = 16 bytes).
#define AC_M 16
#define AC_N 16
#define AC_M_TILES 512
#define AC_N_TILES 512
#define AC_K_TILES 512
#define AC_N_GLOBAL (AC_N * AC_N_TILES)
#define AC_WARPS 8
#define AC_CHUNK_K 8
#define AC_ROW_WARPS 2
#define AC_COL_WARPS 4
#define AC_WROW_TILES 4
#define AC_WCOL_TILES 2
#define AC_BROW_TILES (AC_WROW_TILES * AC_ROW_WARPS)
#define AC_BCOL_TILES (AC_WCOL_TILES * AC_COL_WARPS)
#define AC_GSTRIDE AC_N_GLOBAL
#define AC_SSTRIDE (AC_N * AC_BROW_TILES)
#define AC_SOFFSET (AC_N * AC_WROW_TILES)

// bf16: K = 16
#define BF_K 16
#define BF_K_GLOBAL (BF_K * AC_K_TILES)
#define BF_SKEW 16
#define BF_LINES_PER_WARP ((32 * sizeof(int4)) / (AC_CHUNK_K * BF_K * sizeof(__nv_bfloat16)))
#define BF_LINE_LANES (32 / BF_LINES_PER_WARP)

extern "C" __global__ void tc_gemm_bf16_async(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *C,
                                              float *D, float alpha, float beta) {
#if __CUDA_ARCH__ >= 800
  extern __shared__ __nv_bfloat16 sbf[][AC_CHUNK_K * BF_K + BF_SKEW];
  const unsigned int warp = threadIdx.x / 32;
  const unsigned int lane = threadIdx.x % 32;
  constexpr size_t b_rows_off = AC_BCOL_TILES * AC_M;
  float *warp_tile = (float *)&sbf[0][0] + (warp / AC_ROW_WARPS) * AC_SSTRIDE * AC_N * AC_ROW_WARPS +
                     (warp % AC_ROW_WARPS) * AC_SOFFSET;
  float *warp_stream = (float *)&sbf[0][0] + warp * AC_SSTRIDE * AC_N;
  beta /= alpha;

  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const auto sz16 = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
  constexpr int f4shift = 2;

  for (unsigned int pos = blockIdx.x;; pos += gridDim.x) {
    const unsigned int ti = ((pos * AC_BROW_TILES) / AC_N_TILES) * (AC_BCOL_TILES);
    const unsigned int tj = (pos * AC_BCOL_TILES) % AC_N_TILES;
    if (ti >= AC_M_TILES) break;

    const size_t g = (ti + warp) * AC_M * AC_GSTRIDE + tj * AC_N;
    const float *csrc = &C[g];
#pragma unroll
    for (int r = 0; r < AC_N; r++) {
      pipe.producer_acquire();
      cuda::memcpy_async(&warp_stream[(AC_SSTRIDE * r) + (lane << f4shift)],
                         &csrc[(AC_GSTRIDE * r) + (lane << f4shift)], sz16, pipe);
      pipe.producer_commit();
    }
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    __syncthreads();

    wmma::fragment<wmma::accumulator, AC_M, AC_N, BF_K, float> acc[AC_WCOL_TILES][AC_WROW_TILES];
#pragma unroll
    for (int i = 0; i < AC_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < AC_WROW_TILES; j++) {
        wmma::load_matrix_sync(acc[i][j], warp_tile + i * AC_SSTRIDE * AC_N + j * AC_N, AC_SSTRIDE,
                               wmma::mem_row_major);
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= beta;
      }
    }
    pipe.consumer_release();
    __syncthreads();

    const __nv_bfloat16 *src =
        (warp < (AC_WARPS / 2)) ? (&A[ti * AC_M * BF_K_GLOBAL] + AC_M * BF_K_GLOBAL * (warp % (AC_WARPS / 2)) * 2)
                                : (&B[tj * AC_N * BF_K_GLOBAL] + AC_N * BF_K_GLOBAL * (warp % (AC_WARPS / 2)) * 2);
    constexpr int per_lane = ((32 / 2) / BF_LINES_PER_WARP) * 2;
    const int lane_elem = (lane % BF_LINE_LANES) << 3;
    const int lane_line = (lane / BF_LINE_LANES);

#pragma unroll
    for (int kt = 0; kt < AC_K_TILES; kt += AC_CHUNK_K) {
      size_t row = (AC_M * (warp % (AC_WARPS / 2)) * 2) + ((warp / (AC_WARPS / 2)) * b_rows_off);
      const __nv_bfloat16 *gp = src + kt * BF_K + lane_line * BF_K_GLOBAL + lane_elem;
      row += lane_line;
#pragma unroll
      for (int c = 0; c < per_lane; c++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&sbf[row][lane_elem], gp, sz16, pipe);
        pipe.producer_commit();
        gp = gp + BF_K_GLOBAL * BF_LINES_PER_WARP;
        row += BF_LINES_PER_WARP;
      }
      cuda::pipeline_consumer_wait_prior<0>(pipe);
      __syncthreads();
#pragma unroll
      for (int ks = 0; ks < AC_CHUNK_K; ks++) {
        wmma::fragment<wmma::matrix_a, AC_M, AC_N, BF_K, __nv_bfloat16, wmma::row_major> fa[AC_WCOL_TILES];
        wmma::fragment<wmma::matrix_b, AC_M, AC_N, BF_K, __nv_bfloat16, wmma::col_major> fb[AC_WROW_TILES];
#pragma unroll
        for (int i = 0; i < AC_WCOL_TILES; i++) {
          size_t ra = (warp / AC_ROW_WARPS) * AC_M * AC_ROW_WARPS + (i * AC_M);
          wmma::load_matrix_sync(fa[i], &sbf[ra][ks * BF_K], BF_K * AC_CHUNK_K + BF_SKEW);
#pragma unroll
          for (int j = 0; j < AC_WROW_TILES; j++) {
            if (i == 0) {
              size_t rb = b_rows_off + (AC_WROW_TILES * AC_N) * (warp % 2) + (j * AC_N);
              wmma::load_matrix_sync(fb[j], &sbf[rb][ks * BF_K], BF_K * AC_CHUNK_K + BF_SKEW);
            }
            wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
          }
        }
      }
      pipe.consumer_release();
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < AC_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < AC_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= alpha;
        wmma::store_matrix_sync(warp_tile + i * AC_SSTRIDE * BF_K + j * AC_N, acc[i][j], AC_SSTRIDE,
                                wmma::mem_row_major);
      }
    }
    __syncthreads();
    float *dst = &D[g];
#pragma unroll
    for (int r = 0; r < AC_N; r++)
      *((int4 *)(dst + AC_GSTRIDE * r) + lane) = *((int4 *)(warp_stream + AC_SSTRIDE * r) + lane);
    __syncthreads();
  }
#endif
}

// tf32: K = 8
#define TF_K 8
#define TF_K_GLOBAL (TF_K * AC_K_TILES)
#define TF_SKEW 8
#define TF_LINES_PER_WARP ((32 * sizeof(int4)) / (AC_CHUNK_K * TF_K * sizeof(float)))
#define TF_LINE_LANES (32 / TF_LINES_PER_WARP)

extern "C" __global__ void tc_gemm_tf32_async(const float *A, const float *B, const float *C, float *D,
                                              const float alpha, float beta) {
#if __CUDA_ARCH__ >= 800
  extern __shared__ float stf[][AC_CHUNK_K * TF_K + TF_SKEW];
  const unsigned int warp = threadIdx.x / 32;
  const unsigned int lane = threadIdx.x % 32;
  float *warp_tile = (float *)&stf[0][0] + (warp / AC_ROW_WARPS) * AC_SSTRIDE * AC_N * AC_ROW_WARPS +
                     (warp % AC_ROW_WARPS) * AC_SOFFSET;
  float *warp_stream = (float *)&stf[0][0] + warp * AC_SSTRIDE * AC_N;
  constexpr size_t b_rows_off = AC_BCOL_TILES * AC_M;
  beta /= alpha;

  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const auto sz16 = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
  constexpr int f4shift = 2;

  for (unsigned int pos = blockIdx.x;; pos += gridDim.x) {
    const unsigned int ti = ((pos * AC_BROW_TILES) / AC_N_TILES) * (AC_BCOL_TILES);
    const unsigned int tj = (pos * AC_BCOL_TILES) % AC_N_TILES;
    if (ti >= AC_M_TILES) break;

    const size_t g = (ti + warp) * AC_M * AC_GSTRIDE + tj * AC_N;
    const float *csrc = &C[g];
#pragma unroll
    for (int r = 0; r < AC_N; r++) {
      pipe.producer_acquire();
      cuda::memcpy_async(&warp_stream[(AC_SSTRIDE * r) + (lane << f4shift)],
                         &csrc[(AC_GSTRIDE * r) + (lane << f4shift)], sz16, pipe);
      pipe.producer_commit();
    }
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    __syncthreads();

    wmma::fragment<wmma::accumulator, AC_M, AC_N, TF_K, float> acc[AC_WCOL_TILES][AC_WROW_TILES];
#pragma unroll
    for (int i = 0; i < AC_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < AC_WROW_TILES; j++) {
        wmma::load_matrix_sync(acc[i][j], warp_tile + i * AC_SSTRIDE * AC_N + j * AC_N, AC_SSTRIDE,
                               wmma::mem_row_major);
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= beta;
      }
    }
    pipe.consumer_release();
    __syncthreads();

    const float *src =
        (warp < (AC_WARPS / 2)) ? (&A[ti * AC_M * TF_K_GLOBAL] + AC_M * TF_K_GLOBAL * (warp % (AC_WARPS / 2)) * 2)
                                : (&B[tj * AC_N * TF_K_GLOBAL] + AC_N * TF_K_GLOBAL * (warp % (AC_WARPS / 2)) * 2);
    constexpr int per_lane = ((32 / 2) / TF_LINES_PER_WARP) * 2;
    const int lane_elem = (lane % TF_LINE_LANES) << f4shift;
    const int lane_line = (lane / TF_LINE_LANES);

#pragma unroll
    for (int kt = 0; kt < AC_K_TILES; kt += AC_CHUNK_K) {
      size_t row = (AC_M * (warp % (AC_WARPS / 2)) * 2) + ((warp / (AC_WARPS / 2)) * b_rows_off);
      const float *gp = (src + kt * TF_K + lane_line * TF_K_GLOBAL + lane_elem);
      row += lane_line;
#pragma unroll
      for (int c = 0; c < per_lane; c++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&stf[row][lane_elem], gp, sz16, pipe);
        pipe.producer_commit();
        gp = gp + TF_K_GLOBAL * TF_LINES_PER_WARP;
        row += TF_LINES_PER_WARP;
      }
      cuda::pipeline_consumer_wait_prior<0>(pipe);
      __syncthreads();
#pragma unroll
      for (int ks = 0; ks < AC_CHUNK_K; ks++) {
        wmma::fragment<wmma::matrix_a, AC_M, AC_N, TF_K, wmma::precision::tf32, wmma::row_major> fa[AC_WCOL_TILES];
        wmma::fragment<wmma::matrix_b, AC_M, AC_N, TF_K, wmma::precision::tf32, wmma::col_major> fb[AC_WROW_TILES];
#pragma unroll
        for (int i = 0; i < AC_WCOL_TILES; i++) {
          size_t ra = (warp / AC_ROW_WARPS) * AC_M * AC_ROW_WARPS + (i * AC_M);
          wmma::load_matrix_sync(fa[i], &stf[ra][ks * TF_K], TF_K * AC_CHUNK_K + TF_SKEW);
#pragma unroll
          for (int e = 0; e < fa[i].num_elements; e++) fa[i].x[e] = wmma::__float_to_tf32(fa[i].x[e]);
#pragma unroll
          for (int j = 0; j < AC_WROW_TILES; j++) {
            if (i == 0) {
              size_t rb = b_rows_off + (AC_WROW_TILES * AC_N) * (warp % 2) + (j * AC_N);
              wmma::load_matrix_sync(fb[j], &stf[rb][ks * TF_K], TF_K * AC_CHUNK_K + TF_SKEW);
#pragma unroll
              for (int e = 0; e < fb[j].num_elements; e++) fb[j].x[e] = wmma::__float_to_tf32(fb[j].x[e]);
            }
            wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
          }
        }
      }
      pipe.consumer_release();
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < AC_WCOL_TILES; i++) {
#pragma unroll
      for (int j = 0; j < AC_WROW_TILES; j++) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] *= alpha;
        wmma::store_matrix_sync(warp_tile + i * AC_SSTRIDE * AC_N + j * AC_N, acc[i][j], AC_SSTRIDE,
                                wmma::mem_row_major);
      }
    }
    __syncthreads();
    float *dst = &D[g];
#pragma unroll
    for (int r = 0; r < AC_N; r++)
      *((float4 *)(dst + AC_GSTRIDE * r) + lane) = *((float4 *)(warp_stream + AC_SSTRIDE * r) + lane);
    __syncthreads();
  }
#endif
}

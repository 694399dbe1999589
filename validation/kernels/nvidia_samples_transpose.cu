// Re-written for pipeperf (not copied) from NVIDIA/cuda-samples, sample "transpose"
//   https://github.com/NVIDIA/cuda-samples  file Samples/transpose/transpose.cu at tag v11.5
//   (commit 1f76a2d110b1d251896b7a4d20998328761ad168, the first public GitHub version); the file is
//   unchanged except for its copyright year up to tag v12.8 (Samples/6_Performance/transpose/
//   transpose.cu, commit db3eea23946bca2e90a75eca2b5b3e07158a9e11): TILE_DIM 16, BLOCK_ROWS 16.
//   (Tag v12.9 and later use TILE_DIM 32; those are not the kernels here.)
//   licence: BSD-3-Clause, Copyright (c) 2021 NVIDIA CORPORATION; this file re-writes the device
//   code of the eight kernels, it does not copy the file.
//
// The program transposes (or copies) a width x height = 1024 x 1024 fp32 matrix; every kernel is
// launched <<<dim3(1024/16, 1024/16), dim3(16, 16)>>>(odata, idata, 1024, 1024). Each entry
// below mirrors the kernel of the same name in the sample:
//
//   ts_copy                  copy                      coalesced read, coalesced write
//   ts_copy_shared_mem       copySharedMem             one element via a 16x16 shared tile
//   ts_transpose_naive       transposeNaive            coalesced read, stride-height write
//   ts_transpose_coalesced   transposeCoalesced        16x16 tile, column read of the tile
//                                                      (2-way bank conflicts with 32 banks)
//   ts_transpose_no_bank     transposeNoBankConflicts  16x17 padded tile
//   ts_transpose_coarse      transposeCoarseGrained    padded tile, tile written untransposed
//                                                      to the transposed block (partial transpose)
//   ts_transpose_fine        transposeFineGrained      padded tile transposed in place of the
//                                                      same block (partial transpose)
//   ts_transpose_diagonal    transposeDiagonal         padded tile, diagonal block reordering
//
// What differs from the original, and why it does not change the measured path's code:
// - extern "C" entry points with new names (the originals are C++ __global__ functions).
// - the block barrier is cg::sync(cg::this_thread_block()) as in the original (PTX barrier.sync 0).
// - TILE_DIM == BLOCK_ROWS == 16, so the original's `for (i = 0; i < TILE_DIM; i += BLOCK_ROWS)`
//   loops run exactly once (i = 0); they are kept as loops with the same bounds, so the compiler
//   sees the same code (it removes them in both versions).
// - host code (set-up, the timing loop, the result check) is dropped.
// Checked: nvcc 13.0 -arch=sm_75 -ptx gives every entry the same PTX instruction sequence as the
// original's kernel (registers, labels and names aside).

#include <cooperative_groups.h>

#define TS_TILE 16
#define TS_ROWS 16

extern "C" __global__ void ts_copy(float *out, float *in, int width, int height) {
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int at = col + width * row;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[at + r * width] = in[at + r * width];
}

extern "C" __global__ void ts_copy_shared_mem(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE];
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int at = col + width * row;
  // the sample's loops ignore their counter here (the 2024 fix added it); with one trip it is moot
  for (int r = 0; r < TS_TILE; r += TS_ROWS) {
    if (col < width && row < height) buf[threadIdx.y][threadIdx.x] = in[at];
  }
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) {
    if (col < height && row < width) out[at] = buf[threadIdx.y][threadIdx.x];
  }
}

extern "C" __global__ void ts_transpose_naive(float *out, float *in, int width, int height) {
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int src = col + width * row;
  int dst = row + height * col;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[dst + r] = in[src + r * width];
}

extern "C" __global__ void ts_transpose_coalesced(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE];
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int src = col + row * width;
  col = blockIdx.y * TS_TILE + threadIdx.x;
  row = blockIdx.x * TS_TILE + threadIdx.y;
  int dst = col + row * height;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) buf[threadIdx.y + r][threadIdx.x] = in[src + r * width];
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[dst + r * height] = buf[threadIdx.x][threadIdx.y + r];
}

extern "C" __global__ void ts_transpose_no_bank(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE + 1];
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int src = col + row * width;
  col = blockIdx.y * TS_TILE + threadIdx.x;
  row = blockIdx.x * TS_TILE + threadIdx.y;
  int dst = col + row * height;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) buf[threadIdx.y + r][threadIdx.x] = in[src + r * width];
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[dst + r * height] = buf[threadIdx.x][threadIdx.y + r];
}

extern "C" __global__ void ts_transpose_diagonal(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE + 1];
  int bx, by;
  if (width == height) {
    by = blockIdx.x;
    bx = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    int linear = blockIdx.x + gridDim.x * blockIdx.y;
    by = linear % gridDim.y;
    bx = ((linear / gridDim.y) + by) % gridDim.x;
  }
  int col = bx * TS_TILE + threadIdx.x;
  int row = by * TS_TILE + threadIdx.y;
  int src = col + row * width;
  col = by * TS_TILE + threadIdx.x;
  row = bx * TS_TILE + threadIdx.y;
  int dst = col + row * height;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) buf[threadIdx.y + r][threadIdx.x] = in[src + r * width];
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[dst + r * height] = buf[threadIdx.x][threadIdx.y + r];
}

extern "C" __global__ void ts_transpose_fine(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE + 1];
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int at = col + row * width;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) buf[threadIdx.y + r][threadIdx.x] = in[at + r * width];
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[at + r * height] = buf[threadIdx.x][threadIdx.y + r];
}

extern "C" __global__ void ts_transpose_coarse(float *out, float *in, int width, int height) {
  __shared__ float buf[TS_TILE][TS_TILE + 1];
  int col = blockIdx.x * TS_TILE + threadIdx.x;
  int row = blockIdx.y * TS_TILE + threadIdx.y;
  int src = col + row * width;
  col = blockIdx.y * TS_TILE + threadIdx.x;
  row = blockIdx.x * TS_TILE + threadIdx.y;
  int dst = col + row * height;
  for (int r = 0; r < TS_TILE; r += TS_ROWS) buf[threadIdx.y + r][threadIdx.x] = in[src + r * width];
  cooperative_groups::sync(cooperative_groups::this_thread_block());
  for (int r = 0; r < TS_TILE; r += TS_ROWS) out[dst + r * height] = buf[threadIdx.y + r][threadIdx.x];
}

// Re-written for pipeperf (not copied) from 1fni/cuda-spmv-benchmark
//   https://github.com/1fni/cuda-spmv-benchmark  commit e717e6ceafc365efda7ae07e13c36b8bcb4acd4a
//   file src/spmv/spmv_stencil.cu, kernel stencil5_ellpack_kernel (the operator of
//   `--mode=stencil5`, SPMV_STENCIL5: stencil5_run_timed launches it with 32 threads per block)
//   licence: MIT (c) 2025 Stephane Bouhrour
//
// y = alpha * A x for the 5-point-stencil matrix of a grid_size x grid_size grid stored as
// ELLPACK (width max_nonzero_per_row = 5, doubles). One thread per row: interior rows
// (0 < i, j < grid_size - 1) compute the 5 products from the row's 5 consecutive values and the
// neighbour indices row-1, row, row+1, row-grid_size, row+grid_size (no column-index loads);
// boundary rows loop over the 5 ELLPACK slots, reading the column index and skipping col < 0.
//
// What differs from the original, and why it does not change the measured path's code:
// - nothing in the device code: the kernel is already extern "C" in the original; the
//   statements, their order (West, Centre, East, North, South), `double sum = 0.0f`, the
//   #pragma unroll over the ELLPACK slots and the unused beta parameter are kept. Comments and
//   commented-out code are dropped; host code (matrix build, memcpys, timing) is dropped.

extern "C" __global__ void stencil5_ellpack_kernel(const double *data, const int *col_indices,
                                                   const double *vec, double *result,
                                                   int num_rows, int max_nonzero_per_row,
                                                   const double alpha, const double beta,
                                                   int grid_size) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    int i = row / grid_size;
    int j = row % grid_size;
    if (i > 0 && i < grid_size - 1 && j > 0 && j < grid_size - 1) {
      double sum = 0.0f;
      int offset = row * max_nonzero_per_row;
      sum += data[offset + 1] * vec[row - 1];
      sum += data[offset + 2] * vec[row];
      sum += data[offset + 3] * vec[row + 1];
      sum += data[offset] * vec[row - grid_size];
      sum += data[offset + 4] * vec[row + grid_size];
      result[row] = alpha * sum;
    } else {
      double sum = 0.0f;
      int offset = row * max_nonzero_per_row;
#pragma unroll
      for (int k = 0; k < max_nonzero_per_row; ++k) {
        int col = col_indices[row * max_nonzero_per_row + k];
        if (col >= 0) {
          sum += data[offset + k] * vec[col];
        }
      }
      result[row] = alpha * sum;
    }
  }
}

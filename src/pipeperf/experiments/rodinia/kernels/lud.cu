// LU decomposition's perimeter and internal kernels, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/lud/lud_kernel.cl, kernel(s) lud_perimeter, lud_internal, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/lud/lud.cpp, BLOCK_SIZE 16): lud_perimeter runs (matrix_dim - offset)/16 - 1
// groups of 2 x 16 = 32 work-items (1 warp, Table 9's minimum); lud_internal a 2D grid of the
// same count squared, groups of 16 x 16 (8 warps). The __local arguments hold 16 x 16 floats each.

#define BLOCK_SIZE 16

extern "C" __global__ void lud_perimeter(float *m, int matrix_dim, int offset) {
  __shared__ float dia[BLOCK_SIZE * BLOCK_SIZE];
  __shared__ float peri_row[BLOCK_SIZE * BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE * BLOCK_SIZE];
  int i, j, array_offset;
  int idx;
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  if (tx < BLOCK_SIZE) {
    idx = tx;
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE / 2; i++) {
      dia[i * BLOCK_SIZE + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_row[i * BLOCK_SIZE + idx] = m[array_offset + (bx + 1) * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BLOCK_SIZE;
    array_offset = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
    for (i = BLOCK_SIZE / 2; i < BLOCK_SIZE; i++) {
      dia[i * BLOCK_SIZE + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (bx + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_col[i * BLOCK_SIZE + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  __syncthreads();
  if (tx < BLOCK_SIZE) {
    idx = tx;
    for (i = 1; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++)
        peri_row[i * BLOCK_SIZE + idx] -= dia[i * BLOCK_SIZE + j] * peri_row[j * BLOCK_SIZE + idx];
    }
  } else {
    idx = tx - BLOCK_SIZE;
    for (i = 0; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++)
        peri_col[idx * BLOCK_SIZE + i] -= peri_col[idx * BLOCK_SIZE + j] * dia[j * BLOCK_SIZE + i];
      peri_col[idx * BLOCK_SIZE + i] /= dia[i * BLOCK_SIZE + i];
    }
  }
  __syncthreads();
  if (tx < BLOCK_SIZE) {
    idx = tx;
    array_offset = (offset + 1) * matrix_dim + offset;
    for (i = 1; i < BLOCK_SIZE; i++) {
      m[array_offset + (bx + 1) * BLOCK_SIZE + idx] = peri_row[i * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BLOCK_SIZE;
    array_offset = (offset + (bx + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      m[array_offset + idx] = peri_col[i * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  }
}

extern "C" __global__ void lud_internal(float *m, int matrix_dim, int offset) {
  __shared__ float peri_row[BLOCK_SIZE * BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE * BLOCK_SIZE];
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int i;
  float sum;
  int global_row_id = offset + (by + 1) * BLOCK_SIZE;
  int global_col_id = offset + (bx + 1) * BLOCK_SIZE;
  peri_row[ty * BLOCK_SIZE + tx] = m[(offset + ty) * matrix_dim + global_col_id + tx];
  peri_col[ty * BLOCK_SIZE + tx] = m[(global_row_id + ty) * matrix_dim + offset + tx];
  __syncthreads();
  sum = 0;
  for (i = 0; i < BLOCK_SIZE; i++)
    sum += peri_col[ty * BLOCK_SIZE + i] * peri_row[i * BLOCK_SIZE + tx];
  m[(global_row_id + ty) * matrix_dim + global_col_id + tx] -= sum;
}

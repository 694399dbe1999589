// Hotspot's temperature stencil, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/hotspot/hotspot_kernel.cl, kernel(s) hotspot, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/hotspot/hotspot.c, BLOCK_SIZE 16): groups of 16 x 16 (8 warps), one group per
// (16 - 2 x iteration)^2 cells of the grid; pyramid height (iteration) 1 by default.

#define BLOCK_SIZE 16
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))

extern "C" __global__ void hotspot(int iteration, float *power, float *temp_src, float *temp_dst, int grid_cols,
                                   int grid_rows, int border_cols, int border_rows, float Cap, float Rx, float Ry,
                                   float Rz, float step) {
  __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];
  float amb_temp = 80.0f;
  float step_div_Cap;
  float Rx_1, Ry_1, Rz_1;
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  step_div_Cap = step / Cap;
  Rx_1 = 1 / Rx;
  Ry_1 = 1 / Ry;
  Rz_1 = 1 / Rz;
  int small_block_rows = BLOCK_SIZE - iteration * 2;
  int small_block_cols = BLOCK_SIZE - iteration * 2;
  int blkY = small_block_rows * by - border_rows;
  int blkX = small_block_cols * bx - border_cols;
  int blkYmax = blkY + BLOCK_SIZE - 1;
  int blkXmax = blkX + BLOCK_SIZE - 1;
  int yidx = blkY + ty;
  int xidx = blkX + tx;
  int loadYidx = yidx, loadXidx = xidx;
  int index = grid_cols * loadYidx + loadXidx;
  if (IN_RANGE(loadYidx, 0, grid_rows - 1) && IN_RANGE(loadXidx, 0, grid_cols - 1)) {
    temp_on_cuda[ty][tx] = temp_src[index];
    power_on_cuda[ty][tx] = power[index];
  }
  __syncthreads();
  int validYmin = (blkY < 0) ? -blkY : 0;
  int validYmax = (blkYmax > grid_rows - 1) ? BLOCK_SIZE - 1 - (blkYmax - grid_rows + 1) : BLOCK_SIZE - 1;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > grid_cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - grid_cols + 1) : BLOCK_SIZE - 1;
  int N = ty - 1;
  int S = ty + 1;
  int W = tx - 1;
  int E = tx + 1;
  N = (N < validYmin) ? validYmin : N;
  S = (S > validYmax) ? validYmax : S;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;
  bool computed;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
        IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
      computed = true;
      temp_t[ty][tx] = temp_on_cuda[ty][tx] +
                       step_div_Cap * (power_on_cuda[ty][tx] +
                                       (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0f * temp_on_cuda[ty][tx]) * Ry_1 +
                                       (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0f * temp_on_cuda[ty][tx]) * Rx_1 +
                                       (amb_temp - temp_on_cuda[ty][tx]) * Rz_1);
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
    __syncthreads();
  }
  if (computed) {
    temp_dst[index] = temp_t[ty][tx];
  }
}

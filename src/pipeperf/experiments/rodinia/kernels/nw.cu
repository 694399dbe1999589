// Needleman-Wunsch's first (upper-left) diagonal kernel, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/nw/nw.cl, kernel(s) nw_kernel1 (and its helper maximum), as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/nw/nw.c, BLOCK_SIZE 16): blk groups of 16 work-items (1 warp, Table 9's
// minimum) on the blk-th anti-diagonal of 16 x 16 tiles. __local: (16+1)^2 and 16^2 ints.

#define BLOCK_SIZE 16
#define SCORE(i, j) input_itemsets_l[j + i * (BLOCK_SIZE + 1)]
#define REF(i, j) reference_l[j + i * BLOCK_SIZE]

__device__ int maximum(int a, int b, int c) {
  int k;
  if (a <= b)
    k = b;
  else
    k = a;
  if (k <= c)
    return (c);
  else
    return (k);
}

extern "C" __global__ void nw_kernel1(int *reference_d, int *input_itemsets_d, int *output_itemsets_d, int cols,
                                      int penalty, int blk, int block_width, int worksize, int offset_r,
                                      int offset_c) {
  __shared__ int input_itemsets_l[(BLOCK_SIZE + 1) * (BLOCK_SIZE + 1)];
  __shared__ int reference_l[BLOCK_SIZE * BLOCK_SIZE];
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int base = offset_r * cols + offset_c;
  int b_index_x = bx;
  int b_index_y = blk - 1 - bx;
  int index = base + cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x + tx + (cols + 1);
  int index_n = base + cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x + tx + (1);
  int index_w = base + cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x + (cols);
  int index_nw = base + cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x;
  if (tx == 0) {
    SCORE(tx, 0) = input_itemsets_d[index_nw + tx];
  }
  __syncthreads();
  for (int ty = 0; ty < BLOCK_SIZE; ty++) REF(ty, tx) = reference_d[index + cols * ty];
  __syncthreads();
  SCORE((tx + 1), 0) = input_itemsets_d[index_w + cols * tx];
  __syncthreads();
  SCORE(0, (tx + 1)) = input_itemsets_d[index_n];
  __syncthreads();
  for (int m = 0; m < BLOCK_SIZE; m++) {
    if (tx <= m) {
      int t_index_x = tx + 1;
      int t_index_y = m - tx + 1;
      SCORE(t_index_y, t_index_x) =
          maximum(SCORE((t_index_y - 1), (t_index_x - 1)) + REF((t_index_y - 1), (t_index_x - 1)),
                  SCORE((t_index_y), (t_index_x - 1)) - (penalty), SCORE((t_index_y - 1), (t_index_x)) - (penalty));
    }
    __syncthreads();
  }
  __syncthreads();
  for (int m = BLOCK_SIZE - 2; m >= 0; m--) {
    if (tx <= m) {
      int t_index_x = tx + BLOCK_SIZE - m;
      int t_index_y = BLOCK_SIZE - tx;
      SCORE(t_index_y, t_index_x) =
          maximum(SCORE((t_index_y - 1), (t_index_x - 1)) + REF((t_index_y - 1), (t_index_x - 1)),
                  SCORE((t_index_y), (t_index_x - 1)) - (penalty), SCORE((t_index_y - 1), (t_index_x)) - (penalty));
    }
    __syncthreads();
  }
  for (int ty = 0; ty < BLOCK_SIZE; ty++) input_itemsets_d[index + cols * ty] = SCORE((ty + 1), (tx + 1));
}

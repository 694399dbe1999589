// lavaMD's particle-interaction kernel (Konstantinidis' "lvmd-krn"), re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/lavaMD/kernel/kernel_gpu_opencl.cl, kernel kernel_gpu_opencl, and the
// types of opencl/lavaMD/main.h, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// What differs: OpenCL -> CUDA (get_group_id/get_local_id -> blockIdx/threadIdx, __local -> __shared__,
// barrier -> __syncthreads, exp -> expf: OpenCL's exp of a float is single precision); OpenCL's 64-bit
// long is long long; extern "C" keeps the entry name. The structs are passed and laid out as in the
// original (par_str and dim_str by value). Host: one group of NUMBER_THREADS = 128 work-items per box
// (main.h), boxes1d^3 boxes of NUMBER_PAR_PER_BOX = 100 particles; the host's box list (offsets and up
// to 26 neighbours per box) is rebuilt by the experiment that launches it.

#define fp float
#define NUMBER_PAR_PER_BOX 100
#define NUMBER_THREADS 128
#define DOT(A, B) ((A.x) * (B.x) + (A.y) * (B.y) + (A.z) * (B.z))

typedef struct {
  fp x, y, z;
} THREE_VECTOR;

typedef struct {
  fp v, x, y, z;
} FOUR_VECTOR;

typedef struct nei_str {
  int x, y, z;
  int number;
  long long offset;
} nei_str;

typedef struct box_str {
  int x, y, z;
  int number;
  long long offset;
  int nn;
  nei_str nei[26];
} box_str;

typedef struct par_str {
  fp alpha;
} par_str;

typedef struct dim_str {
  int cur_arg;
  int arch_arg;
  int cores_arg;
  int boxes1d_arg;
  long long number_boxes;
  long long box_mem;
  long long space_elem;
  long long space_mem;
  long long space_mem2;
} dim_str;

extern "C" __global__ void kernel_gpu_opencl(par_str d_par_gpu, dim_str d_dim_gpu, box_str *d_box_gpu,
                                             FOUR_VECTOR *d_rv_gpu, fp *d_qv_gpu, FOUR_VECTOR *d_fv_gpu) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int wtx = tx;
  __shared__ FOUR_VECTOR rA_shared[100];
  __shared__ FOUR_VECTOR rB_shared[100];
  __shared__ fp qB_shared[100];
  if (bx < d_dim_gpu.number_boxes) {
    fp a2 = 2 * d_par_gpu.alpha * d_par_gpu.alpha;
    int first_i;
    int pointer;
    int k = 0;
    int first_j;
    int j = 0;
    fp r2;
    fp u2;
    fp vij;
    fp fs;
    fp fxij;
    fp fyij;
    fp fzij;
    THREE_VECTOR d;
    first_i = d_box_gpu[bx].offset;
    while (wtx < NUMBER_PAR_PER_BOX) {
      rA_shared[wtx] = d_rv_gpu[first_i + wtx];
      wtx = wtx + NUMBER_THREADS;
    }
    wtx = tx;
    __syncthreads();
    for (k = 0; k < (1 + d_box_gpu[bx].nn); k++) {
      if (k == 0) {
        pointer = bx;
      } else {
        pointer = d_box_gpu[bx].nei[k - 1].number;
      }
      first_j = d_box_gpu[pointer].offset;
      while (wtx < NUMBER_PAR_PER_BOX) {
        rB_shared[wtx] = d_rv_gpu[first_j + wtx];
        qB_shared[wtx] = d_qv_gpu[first_j + wtx];
        wtx = wtx + NUMBER_THREADS;
      }
      wtx = tx;
      __syncthreads();
      while (wtx < NUMBER_PAR_PER_BOX) {
        for (j = 0; j < NUMBER_PAR_PER_BOX; j++) {
          r2 = rA_shared[wtx].v + rB_shared[j].v - DOT(rA_shared[wtx], rB_shared[j]);
          u2 = a2 * r2;
          vij = expf(-u2);
          fs = 2 * vij;
          d.x = rA_shared[wtx].x - rB_shared[j].x;
          fxij = fs * d.x;
          d.y = rA_shared[wtx].y - rB_shared[j].y;
          fyij = fs * d.y;
          d.z = rA_shared[wtx].z - rB_shared[j].z;
          fzij = fs * d.z;
          d_fv_gpu[first_i + wtx].v += qB_shared[j] * vij;
          d_fv_gpu[first_i + wtx].x += qB_shared[j] * fxij;
          d_fv_gpu[first_i + wtx].y += qB_shared[j] * fyij;
          d_fv_gpu[first_i + wtx].z += qB_shared[j] * fzij;
        }
        wtx = wtx + NUMBER_THREADS;
      }
      wtx = tx;
      __syncthreads();
    }
  }
}

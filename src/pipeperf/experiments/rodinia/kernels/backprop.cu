// Back propagation's layer-forward and weight-adjust kernels, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/backprop/backprop_kernel.cl, kernel(s) bpnn_layerforward_ocl, bpnn_adjust_weights_ocl, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/backprop/backprop_ocl.cpp): local work (16, 16), global (16, 16 x in/16):
// grid (1, in/16), 8 warps per group. The two dynamic __local arguments are HEIGHT and
// HEIGHT x WIDTH floats (the host's sizes).

#define WIDTH 16
#define HEIGHT 16
#define ETA 0.3f
#define MOMENTUM 0.3f

extern "C" __global__ void bpnn_layerforward_ocl(float *input_cuda, float *output_hidden_cuda,
                                                 float *input_hidden_cuda, float *hidden_partial_sum,
                                                 int in, int hid) {
  __shared__ float input_node[HEIGHT];
  __shared__ float weight_matrix[HEIGHT * WIDTH];
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = HEIGHT * by + ty + 1;
  if (tx == 0) input_node[ty] = input_cuda[index_in];
  __syncthreads();
  weight_matrix[ty * WIDTH + tx] = input_hidden_cuda[index];
  __syncthreads();
  weight_matrix[ty * WIDTH + tx] = weight_matrix[ty * WIDTH + tx] * input_node[ty];
  __syncthreads();
  for (int i = 1; i <= HEIGHT; i = i * 2) {
    int power_two = i;
    if (ty % power_two == 0)
      weight_matrix[ty * WIDTH + tx] = weight_matrix[ty * WIDTH + tx] + weight_matrix[(ty + power_two / 2) * WIDTH + tx];
    __syncthreads();
  }
  input_hidden_cuda[index] = weight_matrix[ty * WIDTH + tx];
  __syncthreads();
  if (tx == 0) {
    hidden_partial_sum[by * hid + ty] = weight_matrix[tx * WIDTH + ty];
  }
}

extern "C" __global__ void bpnn_adjust_weights_ocl(float *delta, int hid, float *ly, int in, float *w, float *oldw) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = HEIGHT * by + ty + 1;
  int index_x = tx + 1;
  w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  __syncthreads();
  if (ty == 0 && by == 0) {
    w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
  }
}

// Gaussian elimination's Fan2, re-written for pipeperf (not copied).
//
// Original: yuhc/gpu-rodinia (Rodinia 3.1; licence: the University of Virginia's Rodinia licence, LICENSE
// at the repository root), opencl/gaussian/gaussianElim_kernels.cl, kernel(s) Fan2, as of commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4.
// The Pipeline-model paper (Lemeire et al., Table 9) evaluated the OpenCL versions, so these follow
// the OpenCL kernels: get_global_id/get_group_id/get_local_id become blockIdx/blockDim/threadIdx,
// __local becomes __shared__ (dynamic __local arguments become static arrays of the size the host
// passes), barrier() becomes __syncthreads(), and each kernel is extern "C" so the PTX entry keeps
// its name. Memory accesses, arithmetic and control flow are kept; host code is dropped.
// Launch (host: opencl/gaussian/gaussianElim.cpp): a 2D NDRange over (size, size); the work-group
// shape is left to the runtime there (BLOCK_SIZE_1_X/Y = 0), so we use 8 x 8 = 2 warps, Table 9's
// minimum occupancy of Fan2.

extern "C" __global__ void Fan2(float *m_dev, float *a_dev, float *b_dev, const int size, const int t) {
  int globalIdx = blockIdx.x * blockDim.x + threadIdx.x;
  int globalIdy = blockIdx.y * blockDim.y + threadIdx.y;
  if (globalIdx < size - 1 - t && globalIdy < size - t) {
    a_dev[size * (globalIdx + 1 + t) + (globalIdy + t)] -=
        m_dev[size * (globalIdx + 1 + t) + t] * a_dev[size * t + (globalIdy + t)];
    if (globalIdy == 0) {
      b_dev[globalIdx + 1 + t] -= m_dev[size * (globalIdx + 1 + t) + (globalIdy + t)] * b_dev[t];
    }
  }
}

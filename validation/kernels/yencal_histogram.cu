// Re-written for pipeperf (not copied) from yencal/gpu-histogram-optimization
//   https://github.com/yencal/gpu-histogram-optimization  commit b71f5c0444b70f7ce464e778a9cb7bd9f20e4118
//   file src/histogram_kernels.cuh; licence: MIT (c) 2026 Caleb Yenusah
//
// 256-bin histogram of n unsigned chars with a grid-stride loop (main.cu: BLOCK_SIZE 512,
// NUM_BINS 256, grid = min(ceil(n / 512), 32 * SMs)):
//
//   hist_global_atomic      HistogramGlobalAtomic<256>: one atomicAdd(&histogram[data[i]], 1) in
//                           global memory per byte
//   hist_shared_atomic      HistogramSharedAtomic<256>: block-private 256-int shared histogram,
//                           one shared atomicAdd per byte, then one global atomicAdd per non-zero bin
//   hist_shared_atomic_vec  HistogramSharedAtomicVec<256>: as hist_shared_atomic, the bytes read
//                           16 at a time as one uint4 (then 16 shared atomics), scalar tail loop
//
// What differs from the original, and why it does not change the measured path's code:
// - the templates are instantiated by hand as extern "C" kernels with NUM_BINS = 256; loads,
//   atomics, loops, barriers and the `bin_value > 0` test are kept. The vectorised kernel keeps
//   the original's unsigned char values[16] array filled through a uint4 store and read back
//   byte by byte.
// - host code (curand input, cudaMemset of the histogram before each launch, timing,
//   verification) is dropped.

#define NUM_BINS 256

extern "C" __global__ void hist_global_atomic(const unsigned char *__restrict__ data,
                                              int num_elements, int *__restrict__ histogram) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int i = idx; i < num_elements; i += stride) {
    atomicAdd(&histogram[data[i]], 1);
  }
}

extern "C" __global__ void hist_shared_atomic(const unsigned char *__restrict__ data,
                                              int num_elements, int *__restrict__ histogram) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  __shared__ int hist_s[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    hist_s[b] = 0;
  }
  __syncthreads();
  for (int i = idx; i < num_elements; i += stride) {
    atomicAdd(&hist_s[data[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    int v = hist_s[b];
    if (v > 0) {
      atomicAdd(&histogram[b], v);
    }
  }
}

extern "C" __global__ void hist_shared_atomic_vec(const unsigned char *__restrict__ data,
                                                  int num_elements, int *__restrict__ histogram) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  __shared__ int hist_s[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    hist_s[b] = 0;
  }
  __syncthreads();

  constexpr int VEC = sizeof(uint4);
  unsigned char bytes[VEC];
  const int num_vecs = num_elements * sizeof(unsigned char) / VEC;
  const uint4 *data4 = reinterpret_cast<const uint4 *>(data);
  for (int i = idx; i < num_vecs; i += stride) {
    *reinterpret_cast<uint4 *>(bytes) = data4[i];
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      atomicAdd(&hist_s[bytes[j]], 1);
    }
  }
  const int tail_start = num_vecs * VEC;
  for (int i = tail_start + idx; i < num_elements; i += stride) {
    atomicAdd(&hist_s[data[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    int v = hist_s[b];
    if (v > 0) {
      atomicAdd(&histogram[b], v);
    }
  }
}

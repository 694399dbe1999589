// Re-written for pipeperf (not copied) from Liu-xiandong/How_to_optimize_in_GPU
//   https://github.com/Liu-xiandong/How_to_optimize_in_GPU  commit 5d2def3e082c4e1364c3ade54451b7b9d1d6f044
//   files reduce/reduce_v0_baseline.cu .. reduce/reduce_v5_completely_unroll.cu,
//   sgemv/Sgemv_v0.cu, sgemv/Sgemv_v1.cu, sgemv/Sgemv_v2.cu; licence: Apache-2.0
//
// Reduction ladder (first pass of a block-sum reduction of N = 32 * 1024 * 1024 floats; every
// block writes its partial sum to d_out[blockIdx.x]; THREAD_PER_BLOCK 256, a 256-float static
// shared array):
//   reduce0  interleaved addressing, tid % (2s) == 0           grid 131072 x 256
//   reduce1  interleaved addressing, index = 2 * s * tid         grid 131072 x 256
//   reduce2  sequential addressing                                grid 131072 x 256
//   reduce3  first add during the global load (2 floats/thread)  grid  65536 x 256
//   reduce4  as reduce3, last warp unrolled through a volatile pointer
//   reduce5  as reduce4, the whole tree unrolled (template blockSize = 256)
// SGEMV y = A x, A row-major M x N, one warp per row (v0, v1) or per 2 rows (v2), warp-shuffle sum:
//   sgemv_v0  Sgemv_v0 (N == 32): N / 32 scalar loads per lane        grid M/4 x (32, 4)
//   sgemv_v1  Sgemv_v1 (N >= 128): (N / 32) / 4 float4 loads per lane   grid M/4 x (32, 4)
//   sgemv_v2  Sgemv_v2<ROW_PER_WARP = 2> (N <= 16): 16 lanes per row   grid M/8 x (32, 4)
//
// What differs from the original, and why it does not change the measured path's code:
// - reduce5's and Sgemv_v2's templates are instantiated by hand (blockSize 256, ROW_PER_WARP 2:
//   the values the programs use); warpReduce / warpReduceSum keep the original's statements
//   (the blockSize / WarpSize tests fold at compile time in both).
// - the original names every kernel `reduceN`/`Sgemv_vN` in its own file and has two different
//   `warpReduce` helpers (reduce4's plain, reduce5's templated); here they are renamed
//   warp_reduce_v4 / warp_reduce_v5 so that one file holds all of them.
// - host code (data set-up, cuBLAS comparison, checks) is dropped.

#define THREAD_PER_BLOCK 256

extern "C" __global__ void reduce0(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = d_in[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce1(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = d_in[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce2(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = d_in[i];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce3(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = d_in[i] + d_in[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

__device__ void warp_reduce_v4(volatile float *cache, unsigned int tid) {
  cache[tid] += cache[tid + 32];
  cache[tid] += cache[tid + 16];
  cache[tid] += cache[tid + 8];
  cache[tid] += cache[tid + 4];
  cache[tid] += cache[tid + 2];
  cache[tid] += cache[tid + 1];
}

extern "C" __global__ void reduce4(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = d_in[i] + d_in[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid < 32) warp_reduce_v4(sdata, tid);
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

template <unsigned int blockSize>
__device__ void warp_reduce_v5(volatile float *cache, unsigned int tid) {
  if (blockSize >= 64) cache[tid] += cache[tid + 32];
  if (blockSize >= 32) cache[tid] += cache[tid + 16];
  if (blockSize >= 16) cache[tid] += cache[tid + 8];
  if (blockSize >= 8) cache[tid] += cache[tid + 4];
  if (blockSize >= 4) cache[tid] += cache[tid + 2];
  if (blockSize >= 2) cache[tid] += cache[tid + 1];
}

template <unsigned int blockSize>
__device__ __forceinline__ void reduce5_body(float *d_in, float *d_out) {
  __shared__ float sdata[THREAD_PER_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = d_in[i] + d_in[i + blockDim.x];
  __syncthreads();
  if (blockSize >= 512) {
    if (tid < 256) {
      sdata[tid] += sdata[tid + 256];
    }
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) {
      sdata[tid] += sdata[tid + 128];
    }
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) {
      sdata[tid] += sdata[tid + 64];
    }
    __syncthreads();
  }
  if (tid < 32) warp_reduce_v5<blockSize>(sdata, tid);
  if (tid == 0) d_out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce5(float *d_in, float *d_out) {
  reduce5_body<THREAD_PER_BLOCK>(d_in, d_out);
}

// ---------------------------------------------------------------- SGEMV
template <unsigned int WarpSize>
__device__ __forceinline__ float warp_reduce_sum(float sum) {
  if (WarpSize >= 32) sum += __shfl_down_sync(0xffffffff, sum, 16);
  if (WarpSize >= 16) sum += __shfl_down_sync(0xffffffff, sum, 8);
  if (WarpSize >= 8) sum += __shfl_down_sync(0xffffffff, sum, 4);
  if (WarpSize >= 4) sum += __shfl_down_sync(0xffffffff, sum, 2);
  if (WarpSize >= 2) sum += __shfl_down_sync(0xffffffff, sum, 1);
  return sum;
}

extern "C" __global__ void sgemv_v0(float *__restrict__ A, float *__restrict__ x,
                                    float *__restrict__ y, const int M, const int N) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  const int warp_size = 32;
  int laneId = tx % warp_size;
  int current_row = blockDim.y * bx + ty;
  if (current_row < M) {
    float res = 0;
    int kIteration = N / warp_size;
    if (kIteration == 0) kIteration = 1;
#pragma unroll
    for (int i = 0; i < kIteration; i++) {
      int current_col = i * warp_size + laneId;
      res += A[current_row * N + current_col] * x[current_col];
    }
    res = warp_reduce_sum<warp_size>(res);
    if (laneId == 0) y[current_row] = res;
  }
}

extern "C" __global__ void sgemv_v1(float *__restrict__ A, float *__restrict__ x,
                                    float *__restrict__ y, const int M, const int N) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  const int warp_size = 32;
  int laneId = tx % warp_size;
  int current_row = blockDim.y * bx + ty;
  if (current_row < M) {
    float res = 0;
    int kIteration = (N / warp_size) / 4;
    if (kIteration == 0) kIteration = 1;
    A = &A[current_row * N];
#pragma unroll
    for (int i = 0; i < kIteration; i++) {
      int current_col_vec = (i * warp_size + laneId);
      float4 current_val = reinterpret_cast<float4 *>(A)[current_col_vec];
      float4 current_x = reinterpret_cast<float4 *>(x)[current_col_vec];
      res += current_val.x * current_x.x;
      res += current_val.y * current_x.y;
      res += current_val.z * current_x.z;
      res += current_val.w * current_x.w;
    }
    res = warp_reduce_sum<warp_size>(res);
    if (laneId == 0) y[current_row] = res;
  }
}

template <const int ROW_PER_WARP>
__device__ __forceinline__ void sgemv_v2_body(float *__restrict__ A, float *__restrict__ x,
                                              float *__restrict__ y, const int M, const int N) {
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  const int warp_size = 32;
  int laneId = tx % warp_size;
  int current_warp_row = (blockDim.y * bx + ty) * ROW_PER_WARP;
  const int kWarp_size = warp_size / ROW_PER_WARP;
  int kLaneId = laneId % kWarp_size;
  int current_thread_row = current_warp_row + laneId / kWarp_size;
  if (current_thread_row < M) {
    float res = 0;
    int current_col = kLaneId;
    res += A[current_thread_row * N + current_col] * x[current_col];
    res = warp_reduce_sum<kWarp_size>(res);
    if (kLaneId == 0) y[current_thread_row] = res;
  }
}

extern "C" __global__ void sgemv_v2(float *__restrict__ A, float *__restrict__ x,
                                    float *__restrict__ y, const int M, const int N) {
  sgemv_v2_body<2>(A, x, y, M, N);
}

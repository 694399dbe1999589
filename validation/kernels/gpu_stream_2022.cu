// gpu-stream kernels of the 2022 version, re-written for pipeperf (not copied).
//
// Original: te42kyfo/gpu-benches, cuda-stream/main.cu (GPL-3.0), functions init_kernel<T>,
// read_kernel<T>, scale_kernel<T>, triad_kernel<T>, stencil1d3pt_kernel<T>,
// stencil1d5pt_kernel<T>, as of commit 3f57da70ffeb897352e9c88cbe780bf5de996053. That is the
// version whose output format matches gpu-stream/a100_40.txt (header "... triad 1pt 3pt",
// threads column = SMs * blockSize); later versions print "3pt 5pt" (cdcc732) or
// SMs * blockSize * blocksPerSM (473c1e3).
//
// Differences from gpu_stream.cu (the 2023 version): no `secretlyFalse` parameter; the
// never-taken guards are `threadIdx.x > 1243` (blockDim.x <= 1024), and read_kernel stores only
// `if (temp == 123.33) A[tidx] = temp;`.
// What differs from the original: the templates are instantiated once, for T = double, as
// extern "C" functions; host code is dropped. The benchmark launches
// grid = max_buffer_size / blockSize + 1, block = blockSize, N = max_buffer_size
// = 128*1024*1024 + 2, with residency limited to 2 blocks/SM by a shared-memory carve-out of
// 9 % (main.cu printed "!" when the occupancy API did not report 2 blocks/SM; the file has none).
// The memory accesses, arithmetic, guards and the static shared array (768 doubles) are kept.

#define SPOILER_SIZE 768

extern "C" __global__ void init_kernel(double *A, const double *__restrict__ B,
                                       const double *__restrict__ C,
                                       const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.23;
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void read_kernel(double *A, const double *__restrict__ B,
                                       const double *__restrict__ C,
                                       const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  double v = B[tidx];
  if (v == 123.33) A[tidx] = v;
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void scale_kernel(double *A, const double *__restrict__ B,
                                        const double *__restrict__ C,
                                        const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = B[tidx] * 1.2;
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void triad_kernel(double *A, const double *__restrict__ B,
                                        const double *__restrict__ C,
                                        const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = B[tidx] * 1.2 + C[tidx];
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void stencil1d3pt_kernel(double *A, const double *__restrict__ B,
                                               const double *__restrict__ C,
                                               const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N - 1 || tidx == 0) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.5 * B[tidx - 1] - 1.0 * B[tidx] + 0.5 * B[tidx + 1];
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void stencil1d5pt_kernel(double *A, const double *__restrict__ B,
                                               const double *__restrict__ C,
                                               const double *__restrict__ D, const size_t N) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N - 2 || tidx < 2) return;
  if (threadIdx.x > 1243) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.25 * B[tidx - 2] + 0.25 * B[tidx - 1] - 1.0 * B[tidx] + 0.5 * B[tidx + 1] +
            0.5 * B[tidx + 2];
  if (threadIdx.x > 1243) A[tidx] = spoiler[tidx];
}

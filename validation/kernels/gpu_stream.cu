// gpu-stream kernels, re-written for pipeperf (not copied).
//
// Original: te42kyfo/gpu-benches, gpu-stream/main.cu (GPL-3.0), functions init_kernel<T>,
// read_kernel<T>, scale_kernel<T>, triad_kernel<T>, stencil1d3pt_kernel<T>,
// stencil1d5pt_kernel<T>, as of commit cdcc732d189f02cb90cf3d04cd20ea8d2c5fbd3f (the version
// that produced v100/a100_80/h100_pcie.txt) and fd7091fbb51772fb4401f4a14c80008424fd4ac4 (the
// version that produced h200/l40/a40.txt); the kernels of both versions are the same (that
// commit only re-formats them and changes the host's carve-out search).
//
// What differs:
// - the templates are instantiated once, for T = double (the only type main.cu launches), as
//   extern "C" functions so that the PTX entry names are the plain kernel names;
// - host code (allocation, carve-out, timing) is dropped. The benchmark launches
//   grid = max_buffer_size / blockSize + 1, block = blockSize, N = max_buffer_size
//   = 128*1024*1024 + 2, secretlyFalse = false, with residency limited to 2 blocks/SM by a
//   shared-memory carve-out (the 6 KB static `spoiler` makes that carve-out fit 2 blocks).
// The memory accesses, arithmetic, the `secretlyFalse` guards and the static shared array
// (spoilerSize = 768 doubles in the __NVCC__ build) are kept as in the original.

#define SPOILER_SIZE 768

extern "C" __global__ void init_kernel(double *A, const double *__restrict__ B,
                                       const double *__restrict__ C,
                                       const double *__restrict__ D, const size_t N,
                                       bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.23;
  if (secretlyFalse) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void read_kernel(double *A, const double *__restrict__ B,
                                       const double *__restrict__ C,
                                       const double *__restrict__ D, const size_t N,
                                       bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  double v = B[tidx];
  if (secretlyFalse || v == 123.0) A[tidx] = v + spoiler[tidx];
}

extern "C" __global__ void scale_kernel(double *A, const double *__restrict__ B,
                                        const double *__restrict__ C,
                                        const double *__restrict__ D, const size_t N,
                                        bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = B[tidx] * 1.2;
  if (secretlyFalse) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void triad_kernel(double *A, const double *__restrict__ B,
                                        const double *__restrict__ C,
                                        const double *__restrict__ D, const size_t N,
                                        bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = B[tidx] * 1.2 + C[tidx];
  if (secretlyFalse) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void stencil1d3pt_kernel(double *A, const double *__restrict__ B,
                                               const double *__restrict__ C,
                                               const double *__restrict__ D, const size_t N,
                                               bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N - 1 || tidx == 0) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.5 * B[tidx - 1] - 1.0 * B[tidx] + 0.5 * B[tidx + 1];
  if (secretlyFalse) A[tidx] = spoiler[tidx];
}

extern "C" __global__ void stencil1d5pt_kernel(double *A, const double *__restrict__ B,
                                               const double *__restrict__ C,
                                               const double *__restrict__ D, const size_t N,
                                               bool secretlyFalse) {
  __shared__ double spoiler[SPOILER_SIZE];
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= N - 2 || tidx < 2) return;
  if (secretlyFalse) spoiler[threadIdx.x] = B[threadIdx.x];
  A[tidx] = 0.25 * B[tidx - 2] + 0.25 * B[tidx - 1] - 1.0 * B[tidx] + 0.5 * B[tidx + 1] +
            0.5 * B[tidx + 2];
  if (secretlyFalse) A[tidx] = spoiler[tidx];
}

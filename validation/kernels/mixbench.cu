// mixbench "read-only" (block strided) mixed compute/memory kernel, re-written for pipeperf.
//
// Original: ekondis/mixbench (GPL-2.0), function template `benchmark_func` of the CUDA
// read-only variant, at two versions (the measured logs name the version they were built from):
//
//   v0.02: mix_kernels_cuda_ro.cu at commit 91ceeeb63d097c2fb420173054cec89970cbdaf1
//          (tag v0.02 + 7, "mixbench/read-only (v0.02-7-g91ceeeb)"): the compute loop has no
//          unroll pragma; the reduction is `sum += tmps[j]*tmps[j+1]`; the never-taken dummy
//          store is a `#pragma unroll` loop of `granularity` identical stores.
//   v0.03: mix_kernels_cuda_ro.cu at tag v0.03 (commit f9666429fdee1868f86d5f0b0a2a8f4341e08b80),
//          unchanged up to 4c6d108b32ec1a29c5d324670b7a2e49d6726dce (v0.03-4, where it moved to
//          mixbench-cuda/), so also the "v0.03-2-gbccfd71" build of the RTX 2070 log; the same body
//          is today's mixbench-cuda/mix_kernels_cuda.cu. The compute loop carries
//          `#pragma unroll TemperateUnroll ? 4 : 128` (TemperateUnroll = true only for int), the
//          reduction and the guard go through mad()/conv_int()/equal() (a*b+c, static_cast, ==).
//
// Launch (runbench<compute_iterations> in both versions, main-cuda.cpp VECTOR_SIZE 32*1024*1024
// doubles = "Buffer size: 256MB"): blockdim = 256, granularity = ELEMENTS_PER_THREAD = 8,
// fusion_degree = FUSION_DEGREE = 4, grid = VECTOR_SIZE/8/4/256 = 4096 blocks of 256 threads;
// g_data is the 256 MB cudaMalloc'd buffer, cudaMemset to 0, read as T (the kernel touches
// 4096*256*8*4 = 33554432 elements of T); seed = 1 (1.0f, 1.0, 1). ex.time is one launch timed
// with CUDA events (cudaEventRecord before the launch, after it, cudaEventElapsedTime).
//
// What differs from the original: the __global__ template <T, blockdim, granularity,
// fusion_degree, compute_iterations, TemperateUnroll> becomes a __forceinline__ __device__
// template on <T, TemperateUnroll> called by one extern "C" kernel per (version, T), with
// blockdim/granularity/fusion_degree as the constants above and compute_iterations as the macro
// COMPUTE_ITERATIONS (a compile-time constant, as the template argument was), so each case sets
// nvcc_flags: ["-DCOMPUTE_ITERATIONS=N"]. The forced inlining leaves the kernel's code that of
// the original instantiation. The half2 kernels are
// not written (no case uses them). Host code is dropped. The measured binaries were built with the
// nvcc of their time (CUDA 8 for v0.02 / CUDA 10.2 for v0.03); nvcc 13 may unroll and schedule the
// v0.02 loop (no pragma) differently.

#ifndef COMPUTE_ITERATIONS
#error "COMPUTE_ITERATIONS must be set (-DCOMPUTE_ITERATIONS=N), as the case's nvcc_flags do"
#endif

#define ELEMENTS_PER_THREAD 8
#define FUSION_DEGREE 4
#define BLOCK_SIZE 256

// ---------------------------------------------------------------- v0.02 (91ceeeb) read-only
template <class T>
__device__ __forceinline__ void benchmark_func_v002(T seed, T *g_data) {
    const unsigned int blockSize = BLOCK_SIZE;
    const unsigned int granularity = ELEMENTS_PER_THREAD;
    const int stride = blockSize;
    int idx = blockIdx.x * blockSize * granularity + threadIdx.x;
    const int big_stride = gridDim.x * blockSize * granularity;

    T tmps[granularity];
    for (int k = 0; k < FUSION_DEGREE; k++) {
#pragma unroll
        for (int j = 0; j < granularity; j++) {
            // Load elements (memory intensive part)
            tmps[j] = g_data[idx + j * stride + k * big_stride];
            // Perform computations (compute intensive part)
            for (int i = 0; i < COMPUTE_ITERATIONS; i++) {
                tmps[j] = tmps[j] * tmps[j] + seed;
            }
        }
        // Multiply add reduction
        T sum = (T)0;
#pragma unroll
        for (int j = 0; j < granularity; j += 2)
            sum += tmps[j] * tmps[j + 1];
        // Dummy code, never executes
        if (sum == (T)-1) {
#pragma unroll
            for (int j = 0; j < granularity; j++)
                g_data[idx + k * big_stride] = sum;
        }
    }
}

extern "C" __global__ void mixbench_v002_float(float seed, float *g_data) {
    benchmark_func_v002<float>(seed, g_data);
}
extern "C" __global__ void mixbench_v002_double(double seed, double *g_data) {
    benchmark_func_v002<double>(seed, g_data);
}
extern "C" __global__ void mixbench_v002_int(int seed, int *g_data) {
    benchmark_func_v002<int>(seed, g_data);
}

// ---------------------------------------------------------------- v0.03 (f966642) read-only
// The generic mad(a,b,c) = a*b+c, conv_int<T>(i) = static_cast<T>(i), equal(a,b) = a==b are
// written inline. TemperateUnroll: false for float/double, true for int (runbench).
template <class T, bool TemperateUnroll>
__device__ __forceinline__ void benchmark_func_v003(T seed, T *g_data) {
    const unsigned int blockSize = BLOCK_SIZE;
    const unsigned int granularity = ELEMENTS_PER_THREAD;
    const int stride = blockSize;
    int idx = blockIdx.x * blockSize * granularity + threadIdx.x;
    const int big_stride = gridDim.x * blockSize * granularity;

    T tmps[granularity];
    for (int k = 0; k < FUSION_DEGREE; k++) {
#pragma unroll
        for (int j = 0; j < granularity; j++) {
            // Load elements (memory intensive part)
            tmps[j] = g_data[idx + j * stride + k * big_stride];
            // Perform computations (compute intensive part)
#pragma unroll TemperateUnroll ? 4 : 128
            for (int i = 0; i < COMPUTE_ITERATIONS; i++) {
                tmps[j] = tmps[j] * tmps[j] + seed;
            }
        }
        // Multiply add reduction
        T sum = static_cast<T>(0);
#pragma unroll
        for (int j = 0; j < granularity; j += 2)
            sum = tmps[j] * tmps[j + 1] + sum;
        // Dummy code, designed so it never executes
        if (sum == static_cast<T>(-1))
            g_data[idx + k * big_stride] = sum;
    }
}

extern "C" __global__ void mixbench_v003_float(float seed, float *g_data) {
    benchmark_func_v003<float, false>(seed, g_data);
}
extern "C" __global__ void mixbench_v003_double(double seed, double *g_data) {
    benchmark_func_v003<double, false>(seed, g_data);
}
extern "C" __global__ void mixbench_v003_int(int seed, int *g_data) {
    benchmark_func_v003<int, true>(seed, g_data);
}

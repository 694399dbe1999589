// gpu-l2-cache kernel, re-written for pipeperf (not copied).
//
// Original: te42kyfo/gpu-benches, gpu-l2-cache/main.cu (GPL-3.0), function
// sumKernel<N, BLOCKSIZE> with dtype = double, as of commit
// 3088b33 ("use FMA instead of ADD to avoid FLOP rate limit, use DP for all cards"), the commit
// that produced gpu-l2-cache/{a100_80,h200,l40}.txt. main.cu launches measure<64>(blockRun):
// sumKernel<64, 1024><<<200000, 1024>>>(dA, dB, blockRun), with dA and dB of
// blockRun * 1024 * 64 (+ i * 128, i = 0..10) doubles.
//
// What differs: the template is instantiated once, N = 64 and BLOCKSIZE = 1024 (the only
// instantiation main.cu launches), as the extern "C" function sumKernel_64_1024; host code is
// dropped. Loads, the FMA, the index arithmetic (int), and the never-taken store guard
// (threadIdx.x > 1233 || localSum == 23.12) are as in the original.

#define SUM_N 64
#define SUM_BLOCKSIZE 1024

extern "C" __global__ void sumKernel_64_1024(double *__restrict__ A,
                                             const double *__restrict__ B, int blockRun) {
  double localSum = 0.0;
  for (int i = 0; i < SUM_N / 2; i++) {
    int idx = (blockDim.x * blockRun * i + (blockIdx.x % blockRun) * SUM_BLOCKSIZE) * 2 +
              threadIdx.x;
    localSum += B[idx] * B[idx + SUM_BLOCKSIZE];
  }
  localSum *= 1.3;
  if (threadIdx.x > 1233 || localSum == 23.12) A[threadIdx.x] += localSum;
}

// gpu-small-kernels SCALE kernel, re-written for pipeperf (not copied).
//
// Original: te42kyfo/gpu-benches, gpu-small-kernels/main.cu (GPL-3.0), function scale<T>
// with T = double, as of commit c35574e ("add persistent threads mode ..."), the commit that
// produced gpu-small-kernels/{a40,h200,l40}.txt (default mode: no -graph/-pta/-pt-gsync).
// main.cu launches scale<double><<<size / blockSize + 1, blockSize>>>(A, B, size) iters times
// back to back, alternating (dA, dB) and (dB, dA), blockSize 32 .. 1024.
//
// What differs: the template is instantiated once, for T = double, as the extern "C" function
// scale_f64; host code is dropped. The load, the multiply by 0.25, the store and the bounds
// check are as in the original.

extern "C" __global__ void scale_f64(double *__restrict__ A, const double *__restrict__ B,
                                     const int size) {
  int tidx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tidx >= size) return;
  A[tidx] = B[tidx] * 0.25;
}

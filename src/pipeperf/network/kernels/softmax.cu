// Softmax over the last axis: one 256-thread block per row; the row's maximum and then the sum
// of exponentials reduced in shared memory, then each element written.
#include "pp_common.cuh"

extern "C" __global__ void softmax(const T* __restrict__ x, T* __restrict__ y, int cols) {
    __shared__ float red[256];
    const T* xr = x + (long)blockIdx.x * cols;
    T* yr = y + (long)blockIdx.x * cols;
    int tid = threadIdx.x;
    float m = -3.0e38f;
    for (int i = tid; i < cols; i += 256) m = fmaxf(m, PP_TO_F(xr[i]));
    red[tid] = m;
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = tid; i < cols; i += 256) sum += __expf(PP_TO_F(xr[i]) - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int i = tid; i < cols; i += 256) yr[i] = PP_FROM_F(__expf(PP_TO_F(xr[i]) - m) * inv);
}

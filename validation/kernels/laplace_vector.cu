// Re-written for pipeperf (not copied) from reguly/laplace_vector
//   https://github.com/reguly/laplace_vector  commit 817851e3f9bb4432aa2ab82e1703ad2a675d5401
//   files laplace2d.cu, laplace2d_half.cu, laplace2d_vector.cu, laplace2d_half_vector.cu
//   (kernel code unchanged since af97dc7 "Initial versions"; README.md results at 817851e)
//   licence: MIT (repository LICENSE, (c) 2025 Istvan Zoltan Reguly); each .cu file also carries the
//   BSD-3-Clause header of NVIDIA's 2012 Jacobi/Laplace example it derives from.
//
// One Jacobi step of the 2D Laplace equation on an 8192 x 8192 grid (imax = jmax = 8190 interior
// points plus a one-point boundary; row pitch imax + 2 = 8192 elements), in four versions, each a
// pair of kernels launched once per iteration (stencil, then copy back), block (32, 8):
//
//   laplace_stencil_f32          <- stencil(int, int, float*, float*)      laplace2d.cu
//   laplace_copy_f32             <- copy(int, int, float*, float*)          laplace2d.cu
//   laplace_stencil_f16          <- stencil(int, int, __half*, __half*)     laplace2d_half.cu
//   laplace_copy_f16             <- copy(int, int, __half*, __half*)        laplace2d_half.cu
//   laplace_stencil_vector_f4    <- stencil_vector(int, int, float4*, float4*)        laplace2d_vector.cu (VECTOR_SIZE 4)
//   laplace_copy_vector_f4       <- copy_vector(int, int, float4*, float4*)           laplace2d_vector.cu
//   laplace_stencil_vector_half2 <- stencil_vector_half2(int, int, __half2*, __half2*) laplace2d_half_vector.cu
//   laplace_copy_vector_half2    <- copy_vector_half(int, int, __half2*, __half2*)    laplace2d_half_vector.cu
//
// Grids (host code of each file): scalar (8192/32, 8192/8) = (256, 1024); float4 (8192/4/32, 1024)
// = (64, 1024); half2 (8192/2/32, 1024) = (128, 1024).
//
// What differs from the original, and why it does not change the measured path's code:
// - the kernels are declared extern "C" with distinct names (the originals are C++ __global__
//   functions named stencil / copy in separate programs): only the symbol name changes.
// - laplace2d_vector.cu selects float4 through `#define VECTOR_SIZE 4` (vec_t = float4,
//   VEC_ELEMENTS 4): the float4 branch is written out here, the unused float2 branch is dropped.
// - laplace2d_half_vector.cu's unused kernel stencil_vector_half (never launched) is dropped.
// - host code (initialisation, boundary set-up, timing loop, clean-up) is dropped.

#include <cuda_fp16.h>

// ---- laplace2d.cu
extern "C" __global__ void laplace_stencil_f32(int imax, int jmax, float *Anew, float *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < imax + 1 && j < jmax + 1 && i > 0 && j > 0)
    Anew[(j) * (imax + 2) + i] = 0.25f * (A[(j) * (imax + 2) + i + 1] + A[(j) * (imax + 2) + i - 1]
                                          + A[(j - 1) * (imax + 2) + i] + A[(j + 1) * (imax + 2) + i]);
}

extern "C" __global__ void laplace_copy_f32(int imax, int jmax, float *Anew, float *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < imax + 1 && j < jmax + 1 && i > 0 && j > 0)
    A[(j) * (imax + 2) + i] = Anew[(j) * (imax + 2) + i];
}

// ---- laplace2d_half.cu
extern "C" __global__ void laplace_stencil_f16(int imax, int jmax, __half *Anew, __half *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < imax + 1 && j < jmax + 1 && i > 0 && j > 0) {
    __half val = __hadd(__hadd(A[(j) * (imax + 2) + i + 1], A[(j) * (imax + 2) + i - 1]),
                        __hadd(A[(j - 1) * (imax + 2) + i], A[(j + 1) * (imax + 2) + i]));
    Anew[(j) * (imax + 2) + i] = __hmul(val, __float2half(0.25f));
  }
}

extern "C" __global__ void laplace_copy_f16(int imax, int jmax, __half *Anew, __half *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < imax + 1 && j < jmax + 1 && i > 0 && j > 0)
    A[(j) * (imax + 2) + i] = Anew[(j) * (imax + 2) + i];
}

// ---- laplace2d_vector.cu (VECTOR_SIZE 4: vec_t = float4, VEC_ELEMENTS 4)
#define LV_VEC4 4
extern "C" __global__ void laplace_stencil_vector_f4(int imax, int jmax, float4 *Anew, float4 *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < (imax + 2) / LV_VEC4 && j < jmax + 1 && i > 0 && j > 0) {
    float4 current = A[j * (imax + 2) / LV_VEC4 + i];
    float4 left = A[j * (imax + 2) / LV_VEC4 + (i - 1)];
    float4 right = A[j * (imax + 2) / LV_VEC4 + (i + 1)];
    float4 up = A[(j - 1) * (imax + 2) / LV_VEC4 + i];
    float4 down = A[(j + 1) * (imax + 2) / LV_VEC4 + i];
    float4 result;
    result.x = 0.25f * (left.w + current.y + up.x + down.x);
    result.y = 0.25f * (current.x + current.z + up.y + down.y);
    result.z = 0.25f * (current.y + current.w + up.z + down.z);
    result.w = 0.25f * (current.z + right.x + up.w + down.w);
    Anew[j * (imax + 2) / LV_VEC4 + i] = result;
  }
}

extern "C" __global__ void laplace_copy_vector_f4(int imax, int jmax, float4 *Anew, float4 *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < (imax + 2) / LV_VEC4 && j < jmax + 1 && i > 0 && j > 0) {
    A[j * (imax + 2) / LV_VEC4 + i] = Anew[j * (imax + 2) / LV_VEC4 + i];
  }
}

// ---- laplace2d_half_vector.cu (vec_t = __half2, VEC_ELEMENTS 2)
#define LV_VEC2 2
extern "C" __global__ void laplace_stencil_vector_half2(int imax, int jmax, __half2 *Anew, __half2 *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < (imax + 2) / LV_VEC2 && j < jmax + 1 && i > 0 && j > 0) {
    __half2 current = A[j * (imax + 2) / LV_VEC2 + i];
    __half2 left_vec = A[j * (imax + 2) / LV_VEC2 + (i - 1)];
    __half2 right_vec = A[j * (imax + 2) / LV_VEC2 + (i + 1)];
    __half2 up = A[(j - 1) * (imax + 2) / LV_VEC2 + i];
    __half2 down = A[(j + 1) * (imax + 2) / LV_VEC2 + i];
    __half2 left = __halves2half2(left_vec.y, current.x);
    __half2 right = __halves2half2(current.y, right_vec.x);
    __half2 quarter = __float2half2_rn(0.25f);
    __half2 sum1 = __hadd2(left, right);
    __half2 sum2 = __hadd2(up, down);
    __half2 total_sum = __hadd2(sum1, sum2);
    __half2 result = __hmul2(quarter, total_sum);
    Anew[j * (imax + 2) / LV_VEC2 + i] = result;
  }
}

extern "C" __global__ void laplace_copy_vector_half2(int imax, int jmax, __half2 *Anew, __half2 *A) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < (imax + 2) / LV_VEC2 && j < jmax + 1 && i > 0 && j > 0) {
    A[j * (imax + 2) / LV_VEC2 + i] = Anew[j * (imax + 2) / LV_VEC2 + i];
  }
}

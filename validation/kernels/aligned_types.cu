// Re-written for pipeperf (not copied) from NVIDIA/cuda-samples
//   https://github.com/NVIDIA/cuda-samples  Samples/6_Performance/alignedTypes/alignedTypes.cu
//   tag v12.4 = commit 3559ca4d088e12db33d6918621cab5c998ccecf1 and tag v13.0 = commit
//   3f1c50965017932fc81e6d94a3fc9e04c105b312: the device code (types, testKernel) and the launch are
//   the same at both (the file changed in between only by clang-format, ceab6e8b).
//   licence: BSD-3-Clause ("Copyright (c) 2022, NVIDIA CORPORATION. All rights reserved.", the
//   file's header).
//
// Copy of one 49999872-byte buffer (MEM_SIZE = 50000000 rounded down to a multiple of 256 B) by a
// grid-stride loop, one element per iteration, with 12 element types: the sample's point is the
// gap between structures with and without __align__ (a misaligned 4/8/12/16-byte struct is copied
// field by field with narrow loads/stores; the aligned one with one 4/8/16-byte access, or two 16-B
// accesses for the 32-B RGBA32_2). Launch <<<64, 256>>>, numElements = 49999872 / sizeof(T).
//
//   copy_uint8              testKernel<uint8>               1 B
//   copy_uint16             testKernel<uint16>              2 B
//   copy_rgba8_misaligned   testKernel<RGBA8_misaligned>    4 B, 4 x u8 fields
//   copy_la32_misaligned    testKernel<LA32_misaligned>     8 B, 2 x u32
//   copy_rgb32_misaligned   testKernel<RGB32_misaligned>   12 B, 3 x u32
//   copy_rgba32_misaligned  testKernel<RGBA32_misaligned>  16 B, 4 x u32
//   copy_rgba8              testKernel<RGBA8>               4 B, __align__(4)
//   copy_i32                testKernel<I32>                 4 B (unsigned int)
//   copy_la32               testKernel<LA32>                8 B, __align__(8)
//   copy_rgb32              testKernel<RGB32>              16 B (12 B + padding), __align__(16)
//   copy_rgba32             testKernel<RGBA32>             16 B, __align__(16)
//   copy_rgba32_2           testKernel<RGBA32_2>           32 B, __align__(16), two RGBA32
//
// What differs from the original, and why it does not change the measured path's code:
// - the template testKernel<TData> is instantiated by hand, once per type, as an extern "C" kernel
//   with the original body and TData replaced by the type; the types are declared exactly as in the
//   original (same members, same __align__).
// - host code (data set-up, cudaMemset of the output, timing loop, validation) is dropped.
// Checked: nvcc 13 -arch=sm_80 -ptx gives each copy_* the same PTX instruction sequence as the
// original's testKernel<T> instance (registers, labels and names aside).

typedef unsigned char uint8;
typedef unsigned short int uint16;

// Misaligned types (no __align__: alignment of the widest member)
typedef struct {
  unsigned char r, g, b, a;
} RGBA8_misaligned;

typedef struct {
  unsigned int l, a;
} LA32_misaligned;

typedef struct {
  unsigned int r, g, b;
} RGB32_misaligned;

typedef struct {
  unsigned int r, g, b, a;
} RGBA32_misaligned;

// Aligned types
typedef struct __align__(4) {
  unsigned char r, g, b, a;
} RGBA8;

typedef unsigned int I32;

typedef struct __align__(8) {
  unsigned int l, a;
} LA32;

typedef struct __align__(16) {
  unsigned int r, g, b;
} RGB32;

typedef struct __align__(16) {
  unsigned int r, g, b, a;
} RGBA32;

typedef struct __align__(16) {
  RGBA32 c1, c2;
} RGBA32_2;

// testKernel<TData> of the original, written out once per type (TData -> the type): per-element
// copy by a grid-stride loop.

extern "C" __global__ void copy_uint8(uint8 *d_odata, uint8 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_uint16(uint16 *d_odata, uint16 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgba8_misaligned(RGBA8_misaligned *d_odata, RGBA8_misaligned *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_la32_misaligned(LA32_misaligned *d_odata, LA32_misaligned *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgb32_misaligned(RGB32_misaligned *d_odata, RGB32_misaligned *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgba32_misaligned(RGBA32_misaligned *d_odata, RGBA32_misaligned *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgba8(RGBA8 *d_odata, RGBA8 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_i32(I32 *d_odata, I32 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_la32(LA32 *d_odata, LA32 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgb32(RGB32 *d_odata, RGB32 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgba32(RGBA32 *d_odata, RGBA32 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

extern "C" __global__ void copy_rgba32_2(RGBA32_2 *d_odata, RGBA32_2 *d_idata, int numElements) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int numThreads = blockDim.x * gridDim.x;
  for (int pos = tid; pos < numElements; pos += numThreads) {
    d_odata[pos] = d_idata[pos];
  }
}

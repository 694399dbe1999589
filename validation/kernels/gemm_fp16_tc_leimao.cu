// Re-written for pipeperf (not copied) from leimao/CUDA-GEMM-Optimization
//   https://github.com/leimao/CUDA-GEMM-Optimization
//   licence: MIT (Copyright (c) 2023 Lei Mao); this file re-writes the kernels' code paths, it
//   does not copy the files.
//   Two versions of the repository are mirrored:
//   * commit 36bef3c7f7b17f928252b45793218e9896572b8c (2023-12-27), the code of the README's
//     FP32 table and of the FP16 program output pasted into README.md at that commit:
//       include/cuda_gemm_utils.cuh      load_data_to_shared_memory{,_transposed}{,_vectorized}
//                                        -> lm_load{,_tr}{,_vec}
//       src/00_non_coalesced_global_memory_access.cu                  gemm_v00   -> lm_v00
//       src/01_coalesced_global_memory_access.cu                      gemm_v01   -> lm_v01
//       src/02_2d_block_tiling{,_vectorized_memory_access}.cu         gemm_v02{,_vectorized}
//       src/03_2d_block_tiling_1d_thread_tiling{,_vectorized...}.cu   gemm_v03{,_vectorized}
//       src/04_2d_block_tiling_2d_thread_tiling{,_vectorized...}.cu   gemm_v04{,_vectorized}
//       src/05_..._matrix_transpose{,_vectorized...}.cu               gemm_v05{,_vectorized}
//       src/06_..._2d_warp_tiling_..._matrix_transpose{,_vect...}.cu  gemm_v06{,_vectorized}
//       src/07_..._matrix_transpose_wmma{,_vectorized...}.cu          gemm_v07{,_vectorized}
//   * commit 6076635f73d21b0d784e3a90f3cf777b42846aad (2024-07-17, "Create Helper Device
//     Functions"), the code of the README's two V07 FP16 rows (35.2312 / 55.0298 TFLOPS):
//       src/07_..._matrix_transpose_wmma{,_vectorized...}.cu          gemm_v07{,_vectorized}
//                                        -> lm_v07_2024 (its loaders were only renamed and
//                                           re-formatted in that commit: the same lm_load_tr*)
//
// GEMM C = alpha * A * B + beta * C, row-major, m = n = k = 4096, lda = ldb = ldc = 4096,
// alpha 1, beta 0 (profile_utils.cuh profile_gemm), all kernels take (m, n, k, alpha, A, lda,
// B, ldb, beta, C, ldc) with alpha and beta BY VALUE of the element type T (float or __half).
// Entry points (extern "C"): lm_gemm_<version>_{f32,f16}; launch shapes (launch_gemm_kernel_*):
//   v00, v01, v02, v02_vec   block (32, 32)  grid (128, 128)    [v00: grid.x over m, y over n]
//   v03, v03_vec             block 512       grid (64, 64)      64x64 tile, BK 8, 8 rows/thread
//   v04, v04_vec, v05, v05_vec  block 256    grid (32, 32)      128x128 tile, BK 16, 8x8/thread
//   v06, v06_vec             block 256       grid (32, 32)      warp tile 32x64, 4x8 threads/warp
//   v07, v07_vec (+ _2024)   block 256       grid (32, 32)      8 warps, WMMA 16x16x16 __half
//                                                               inputs, __half accumulators
//
// What differs from the original, and why it does not change the measured path's code:
// - each measured instantiation (T = float / __half with the launcher's compile-time tile
//   sizes) is an extern "C" __global__ wrapper around a __forceinline__ __device__ template
//   that holds the original kernel body (the originals are __global__ templates instantiated by
//   the host launchers). The body's loads, stores, arithmetic, loops, #pragma unroll placement,
//   barriers and index expressions (size_t arithmetic, the same operand order and precedence)
//   are those of the original; variable names are shortened.
// - v04/v05 and their vectorized forms are one template each with a compile-time switch
//   (TRANSPOSED_A) for the only difference between the two files (A tile stored transposed,
//   loaded with the transposed loader); v07 likewise (VEC: which loader). `if constexpr` leaves
//   exactly one branch in the generated code.
// - static_asserts of the originals that only check the tile constants are dropped (they
//   generate no code); the host launchers, the double instantiations and the profiling
//   program are dropped.
// - measured bugs are kept: in the 2023 v06/v07 kernels the k-tile loop ends with __syncwarp()
//   (not __syncthreads()), so the next tile's shared-memory stores are not fenced against
//   other warps' reads (fixed in 2024; lm_v07_2024 has the fixed loop).
// Checked: nvcc 13.0 -arch=sm_86 -ptx gives each entry the same PTX instruction sequence as the
// original instantiation at its commit (registers, labels and names aside); see the report.

#include <cuda_fp16.h>
#include <mma.h>

// ------------------------------------------------------------------------------------------
// Shared-memory tile loaders (include/cuda_gemm_utils.cuh)
// ------------------------------------------------------------------------------------------

// A tile [BY][BK] and B tile [BK][BX], one element per thread per step, zero-filled outside.
template <typename T, size_t BX, size_t BY, size_t BK, size_t NT, size_t SKEW_X = 0U,
          size_t SKEW_K = 0U>
__device__ void lm_load(T const* A, size_t lda, T const* B, size_t ldb,
                        T As[BY][BK + SKEW_K], T Bs[BK][BX + SKEW_X], size_t tile,
                        size_t tid, size_t m, size_t n, size_t k)
{
#pragma unroll
    for (size_t s{0U}; s < (BY * BK + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / BK};
        size_t const c{(tid + s * NT) % BK};
        size_t const gr{blockIdx.y * BY + r};
        size_t const gc{tile * BK + c};
        T v{static_cast<T>(0)};
        if (gr < m && gc < k)
        {
            v = A[gr * lda + gc];
        }
        As[r][c] = v;
    }
#pragma unroll
    for (size_t s{0U}; s < (BK * BX + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / BX};
        size_t const c{(tid + s * NT) % BX};
        size_t const gr{tile * BK + r};
        size_t const gc{blockIdx.x * BX + c};
        T v{static_cast<T>(0)};
        if (gr < k && gc < n)
        {
            v = B[gr * ldb + gc];
        }
        Bs[r][c] = v;
    }
}

// As lm_load, but the A tile is stored transposed: At[BK][BY].
template <typename T, size_t BX, size_t BY, size_t BK, size_t NT, size_t SKEW_X = 0U,
          size_t SKEW_Y = 0U>
__device__ void lm_load_tr(T const* A, size_t lda, T const* B, size_t ldb,
                           T At[BK][BY + SKEW_Y], T Bs[BK][BX + SKEW_X], size_t tile,
                           size_t tid, size_t m, size_t n, size_t k)
{
#pragma unroll
    for (size_t s{0U}; s < (BY * BK + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / BK};
        size_t const c{(tid + s * NT) % BK};
        size_t const gr{blockIdx.y * BY + r};
        size_t const gc{tile * BK + c};
        T v{static_cast<T>(0)};
        if (gr < m && gc < k)
        {
            v = A[gr * lda + gc];
        }
        At[c][r] = v;
    }
#pragma unroll
    for (size_t s{0U}; s < (BK * BX + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / BX};
        size_t const c{(tid + s * NT) % BX};
        size_t const gr{tile * BK + r};
        size_t const gc{blockIdx.x * BX + c};
        T v{static_cast<T>(0)};
        if (gr < k && gc < n)
        {
            v = B[gr * ldb + gc];
        }
        Bs[r][c] = v;
    }
}

// 16-byte (int4) global loads; masked tail; guarded 16-byte shared stores.
template <typename T, size_t BX, size_t BY, size_t BK, size_t NT, size_t SKEW_X = 0U,
          size_t SKEW_K = 0U, typename V = int4>
__device__ void lm_load_vec(T const* A, size_t lda, T const* B, size_t ldb,
                            T As[BY][BK + SKEW_K], T Bs[BK][BX + SKEW_X], size_t tile,
                            size_t tid, size_t m, size_t n, size_t k)
{
    constexpr size_t NV{sizeof(V) / sizeof(T)};
    constexpr size_t VK{BK / NV};
    constexpr size_t VX{BX / NV};
#pragma unroll
    for (size_t s{0U}; s < (BY * VK + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / VK};
        size_t const c{(tid + s * NT) % VK * NV};
        size_t const gr{blockIdx.y * BY + r};
        size_t const gc{tile * BK + c};
        V v{0, 0, 0, 0};
        if (gr < m && gc < k)
        {
            v = *reinterpret_cast<V const*>(&A[gr * lda + gc]);
        }
        if (gc + NV > k)
        {
            size_t const bad{gc + NV - k};
            T* const pv{reinterpret_cast<T*>(&v)};
            for (size_t i{0U}; i < bad; ++i)
            {
                pv[NV - 1U - i] = static_cast<T>(0);
            }
        }
        if (r < BY && c < BK)
        {
            *reinterpret_cast<int4*>(&As[r][c]) = v;
        }
    }
#pragma unroll
    for (size_t s{0U}; s < (BK * VX + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / VX};
        size_t const c{(tid + s * NT) % VX * NV};
        size_t const gr{tile * BK + r};
        size_t const gc{blockIdx.x * BX + c};
        V v{0, 0, 0, 0};
        if (gr < k && gc < n)
        {
            v = *reinterpret_cast<V const*>(&B[gr * ldb + gc]);
        }
        if (gc + NV > n)
        {
            size_t const bad{gc + NV - n};
            T* const pv{reinterpret_cast<T*>(&v)};
            for (size_t i{0U}; i < bad; ++i)
            {
                pv[NV - 1U - i] = static_cast<T>(0);
            }
        }
        if (r < BK && c < BX)
        {
            *reinterpret_cast<int4*>(&Bs[r][c]) = v;
        }
    }
}

// Vectorized global loads, A scattered element-wise into the transposed tile At[BK][BY].
template <typename T, size_t BX, size_t BY, size_t BK, size_t NT, size_t SKEW_X = 0U,
          size_t SKEW_Y = 0U, typename V = int4>
__device__ void lm_load_tr_vec(T const* A, size_t lda, T const* B, size_t ldb,
                               T At[BK][BY + SKEW_Y], T Bs[BK][BX + SKEW_X], size_t tile,
                               size_t tid, size_t m, size_t n, size_t k)
{
    constexpr size_t NV{sizeof(V) / sizeof(T)};
    constexpr size_t VK{BK / NV};
    constexpr size_t VX{BX / NV};
#pragma unroll
    for (size_t s{0U}; s < (BY * VK + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / VK};
        size_t const c{(tid + s * NT) % VK * NV};
        size_t const gr{blockIdx.y * BY + r};
        size_t const gc{tile * BK + c};
        int4 v{0, 0, 0, 0};
        if (gr < m && gc < k)
        {
            v = *reinterpret_cast<int4 const*>(&A[gr * lda + gc]);
        }
        if (gc + NV > k)
        {
            size_t const bad{gc + NV - k};
            T* const pv{reinterpret_cast<T*>(&v)};
            for (size_t i{0U}; i < bad; ++i)
            {
                pv[NV - 1U - i] = static_cast<T>(0);
            }
        }
        if (r < BY && c < BK)
        {
            for (size_t i{0U}; i < NV; ++i)
            {
                At[c + i][r] = reinterpret_cast<T const*>(&v)[i];
            }
        }
    }
#pragma unroll
    for (size_t s{0U}; s < (BK * VX + NT - 1U) / NT; ++s)
    {
        size_t const r{(tid + s * NT) / VX};
        size_t const c{(tid + s * NT) % VX * NV};
        size_t const gr{tile * BK + r};
        size_t const gc{blockIdx.x * BX + c};
        int4 v{0, 0, 0, 0};
        if (gr < k && gc < n)
        {
            v = *reinterpret_cast<int4 const*>(&B[gr * ldb + gc]);
        }
        if (gc + NV > n)
        {
            size_t const bad{gc + NV - n};
            T* const pv{reinterpret_cast<T*>(&v)};
            for (size_t i{0U}; i < bad; ++i)
            {
                pv[NV - 1U - i] = static_cast<T>(0);
            }
        }
        if (r < BK && c < BX)
        {
            *reinterpret_cast<int4*>(&Bs[r][c]) = v;
        }
    }
}

// ------------------------------------------------------------------------------------------
// v00 / v01: one C element per thread, straight from global memory
// ------------------------------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ void lm_v00(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    // row from x: a warp walks down a column of C (non-coalesced A reads and C writes)
    size_t const row{blockIdx.x * blockDim.x + threadIdx.x};
    size_t const col{blockIdx.y * blockDim.y + threadIdx.y};
    if (row < m && col < n)
    {
        T acc{static_cast<T>(0)};
        for (size_t i{0U}; i < k; ++i)
        {
            acc += A[row * lda + i] * B[i * ldb + col];
        }
        C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
    }
}

template <typename T>
__device__ __forceinline__ void lm_v01(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    size_t const col{blockIdx.x * blockDim.x + threadIdx.x};
    size_t const row{blockIdx.y * blockDim.y + threadIdx.y};
    if (row < m && col < n)
    {
        T acc{static_cast<T>(0)};
        for (size_t i{0U}; i < k; ++i)
        {
            acc += A[row * lda + i] * B[i * ldb + col];
        }
        C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
    }
}

// ------------------------------------------------------------------------------------------
// v02: 32x32 shared tiles, one C element per thread (VEC: 16-byte tile loads)
// ------------------------------------------------------------------------------------------
template <typename T, size_t BX, size_t BY, size_t BK, bool VEC>
__device__ __forceinline__ void lm_v02(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    constexpr size_t NT{BX * BY};
    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};
    size_t const col{blockIdx.x * blockDim.x + threadIdx.x};
    size_t const row{blockIdx.y * blockDim.y + threadIdx.y};

    __shared__ T As[BY][BK];
    __shared__ T Bs[BK][BX];

    size_t const tiles{(k + BK - 1) / BK};
    T acc{static_cast<T>(0)};
    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (VEC)
        {
            lm_load_vec<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        else
        {
            lm_load<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        __syncthreads();
#pragma unroll
        for (size_t ki{0U}; ki < BK; ++ki)
        {
            acc += As[threadIdx.y][ki] * Bs[ki][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n)
    {
        C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
    }
}

// ------------------------------------------------------------------------------------------
// v03: 64x64 tile, BK 8, each thread a column strip of TY C elements
// ------------------------------------------------------------------------------------------
template <typename T, size_t BX, size_t BY, size_t BK, size_t TY, bool VEC>
__device__ __forceinline__ void lm_v03(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    constexpr size_t NT{BX * BY / TY};
    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};

    __shared__ T As[BY][BK];
    __shared__ T Bs[BK][BX];

    size_t const tiles{(k + BK - 1) / BK};
    T acc[TY] = {static_cast<T>(0)};

    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (VEC)
        {
            lm_load_vec<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        else
        {
            lm_load<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        __syncthreads();
#pragma unroll
        for (size_t ki{0U}; ki < BK; ++ki)
        {
            size_t const b_row{ki};
            T const b{Bs[b_row][tid % BX]};
#pragma unroll
            for (size_t y{0U}; y < TY; ++y)
            {
                size_t const a_row{tid / BX * TY + y};
                size_t const a_col{ki};
                T const a{As[a_row][a_col]};
                acc[y] += a * b;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (size_t y{0U}; y < TY; ++y)
    {
        size_t const row{blockIdx.y * BY + tid / BX * TY + y};
        size_t const col{blockIdx.x * BX + tid % BX};
        if (row < m && col < n)
        {
            C[row * ldc + col] = alpha * acc[y] + beta * C[row * ldc + col];
        }
    }
}

// ------------------------------------------------------------------------------------------
// v04 / v05: 128x128 tile, BK 16, TY x TX outer products per thread from registers.
// TRANSPOSED_A false: v04 (A tile [BY][BK]); true: v05 (A tile stored [BK][BY]).
// ------------------------------------------------------------------------------------------
template <typename T, size_t BX, size_t BY, size_t BK, size_t TX, size_t TY, bool TRANSPOSED_A>
__device__ __forceinline__ void lm_v04(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    constexpr size_t NT{BX * BY / (TX * TY)};
    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};

    __shared__ T As[TRANSPOSED_A ? BK : BY][TRANSPOSED_A ? BY : BK];
    __shared__ T Bs[BK][BX];

    size_t const tiles{(k + BK - 1) / BK};
    T acc[TY][TX] = {static_cast<T>(0)};
    T a_reg[TY] = {static_cast<T>(0)};
    T b_reg[TX] = {static_cast<T>(0)};

    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (TRANSPOSED_A)
        {
            lm_load_tr<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        else
        {
            lm_load<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        __syncthreads();
#pragma unroll
        for (size_t ki{0U}; ki < BK; ++ki)
        {
            size_t const a_row{tid / (BX / TX) * TY};
            size_t const a_col{ki};
#pragma unroll
            for (size_t y{0U}; y < TY; ++y)
            {
                if constexpr (TRANSPOSED_A)
                {
                    a_reg[y] = As[a_col][a_row + y];
                }
                else
                {
                    a_reg[y] = As[a_row + y][a_col];
                }
            }
            size_t const b_row{ki};
            size_t const b_col{tid % (BX / TX) * TX};
#pragma unroll
            for (size_t x{0U}; x < TX; ++x)
            {
                b_reg[x] = Bs[b_row][b_col + x];
            }
            for (size_t y{0U}; y < TY; ++y)
            {
                for (size_t x{0U}; x < TX; ++x)
                {
                    acc[y][x] += a_reg[y] * b_reg[x];
                }
            }
        }
        __syncthreads();
    }
    for (size_t y{0U}; y < TY; ++y)
    {
        for (size_t x{0U}; x < TX; ++x)
        {
            size_t const row{blockIdx.y * BY + threadIdx.x / (BX / TX) * TY + y};
            size_t const col{blockIdx.x * BX + threadIdx.x % (BX / TX) * TX + x};
            if (row < m && col < n)
            {
                C[row * ldc + col] = alpha * acc[y][x] + beta * C[row * ldc + col];
            }
        }
    }
}

// Vectorized v04 / v05: 16-byte shared reads of the B row slice (v05: also the transposed
// tile is filled by the vectorized transposed loader), 16-byte read-modify-write of C
// (C is read before the bounds check, as in the original).
template <typename T, size_t BX, size_t BY, size_t BK, size_t TX, size_t TY, bool TRANSPOSED_A>
__device__ __forceinline__ void lm_v04_vec(size_t m, size_t n, size_t k, T alpha, T const* A,
                                           size_t lda, T const* B, size_t ldb, T beta, T* C,
                                           size_t ldc)
{
    constexpr size_t NT{BX * BY / (TX * TY)};
    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};

    __shared__ T As[TRANSPOSED_A ? BK : BY][TRANSPOSED_A ? BY : BK];
    __shared__ T Bs[BK][BX];

    size_t const tiles{(k + BK - 1) / BK};
    T acc[TY][TX] = {static_cast<T>(0)};
    T a_reg[TY] = {static_cast<T>(0)};
    T b_reg[TX] = {static_cast<T>(0)};

    constexpr size_t NV{sizeof(int4) / sizeof(T)};
    constexpr size_t VTX{TX / NV};

    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (TRANSPOSED_A)
        {
            lm_load_tr_vec<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        else
        {
            lm_load<T, BX, BY, BK, NT>(A, lda, B, ldb, As, Bs, t, tid, m, n, k);
        }
        __syncthreads();
#pragma unroll
        for (size_t ki{0U}; ki < BK; ++ki)
        {
            size_t const a_row{tid / (BX / TX) * TY};
            size_t const a_col{ki};
#pragma unroll
            for (size_t y{0U}; y < TY; ++y)
            {
                if constexpr (TRANSPOSED_A)
                {
                    a_reg[y] = As[a_col][a_row + y];
                }
                else
                {
                    a_reg[y] = As[a_row + y][a_col];
                }
            }
            size_t const b_row{ki};
            size_t const b_col{tid % (BX / TX) * TX};
#pragma unroll
            for (size_t xv{0U}; xv < VTX; ++xv)
            {
                *reinterpret_cast<int4*>(&b_reg[xv * NV]) =
                    *reinterpret_cast<int4 const*>(&Bs[b_row][b_col + xv * NV]);
            }
            for (size_t y{0U}; y < TY; ++y)
            {
                for (size_t x{0U}; x < TX; ++x)
                {
                    acc[y][x] += a_reg[y] * b_reg[x];
                }
            }
        }
        __syncthreads();
    }
    for (size_t y{0U}; y < TY; ++y)
    {
        for (size_t xv{0U}; xv < VTX; ++xv)
        {
            size_t const row{blockIdx.y * BY + tid / (BX / TX) * TY + y};
            size_t const col{blockIdx.x * BX + tid % (BX / TX) * TX + xv * NV};
            int4 c4{*reinterpret_cast<int4 const*>(&C[row * ldc + col])};
            int4 const r4{*reinterpret_cast<int4 const*>(&acc[y][xv * NV])};
            for (size_t i{0U}; i < NV; ++i)
            {
                reinterpret_cast<T*>(&c4)[i] = alpha * reinterpret_cast<T const*>(&r4)[i] +
                                               beta * reinterpret_cast<T const*>(&c4)[i];
            }
            if (row < m && col < n)
            {
                *reinterpret_cast<int4*>(&C[row * ldc + col]) = c4;
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// v06: 128x128 block tile, 32(x) x 64(y) warp tiles, 4 x 8 threads per warp, each thread
// NRY x NRX repeats of an 8x8 thread tile; A stored transposed. VEC: vectorized loader,
// 16-byte shared reads into the register tiles, 16-byte read-modify-write of C.
// ------------------------------------------------------------------------------------------
template <typename T, size_t BX, size_t BY, size_t BK, size_t WX, size_t WY, size_t TX,
          size_t TY, size_t NTWX, size_t NTWY, bool VEC>
__device__ __forceinline__ void lm_v06(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    constexpr size_t NWX{BX / WX};
    constexpr size_t NWY{BY / WY};
    constexpr unsigned int NRX{WX / (TX * NTWX)};
    constexpr unsigned int NRY{WY / (TY * NTWY)};
    constexpr unsigned int NTX{NWX * NTWX};
    constexpr unsigned int NTY{NWY * NTWY};
    constexpr size_t NT{NTX * NTY};

    __shared__ T At[BK][BY];
    __shared__ T Bs[BK][BX];

    T a_reg[NRY][TY] = {static_cast<T>(0)};
    T b_reg[NRX][TX] = {static_cast<T>(0)};

    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};
    size_t const warp{tid / 32U};
    size_t const warp_row{warp / NWX};
    size_t const warp_col{warp % NWX};
    size_t const lane{tid % 32U};
    size_t const lane_row{lane / NTWX};
    size_t const lane_col{lane % NTWX};

    size_t const tiles{(k + BK - 1) / BK};
    T acc[NRY][NRX][TY][TX] = {static_cast<T>(0)};

    constexpr size_t NV{sizeof(int4) / sizeof(T)};
    constexpr size_t VTX{TX / NV};
    constexpr size_t VTY{TY / NV};

    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (VEC)
        {
            lm_load_tr_vec<T, BX, BY, BK, NT>(A, lda, B, ldb, At, Bs, t, tid, m, n, k);
        }
        else
        {
            lm_load_tr<T, BX, BY, BK, NT>(A, lda, B, ldb, At, Bs, t, tid, m, n, k);
        }
        __syncthreads();
#pragma unroll
        for (size_t ki{0U}; ki < BK; ++ki)
        {
#pragma unroll
            for (size_t ry{0U}; ry < NRY; ++ry)
            {
                size_t const a_row{warp_row * WY + ry * (WY / NRY) + lane_row * TY};
                size_t const a_col{ki};
                if constexpr (VEC)
                {
#pragma unroll
                    for (size_t yv{0U}; yv < VTY; ++yv)
                    {
                        *reinterpret_cast<int4*>(&a_reg[ry][yv * NV]) =
                            *reinterpret_cast<int4 const*>(&At[a_col][a_row + yv * NV]);
                    }
                }
                else
                {
#pragma unroll
                    for (size_t y{0U}; y < TY; ++y)
                    {
                        a_reg[ry][y] = At[a_col][a_row + y];
                    }
                }
            }
#pragma unroll
            for (size_t rx{0U}; rx < NRX; ++rx)
            {
                size_t const b_row{ki};
                size_t const b_col{warp_col * WX + rx * (WX / NRX) + lane_col * TX};
                if constexpr (VEC)
                {
#pragma unroll
                    for (size_t xv{0U}; xv < VTX; ++xv)
                    {
                        *reinterpret_cast<int4*>(&b_reg[rx][xv * NV]) =
                            *reinterpret_cast<int4 const*>(&Bs[b_row][b_col + xv * NV]);
                    }
                }
                else
                {
#pragma unroll
                    for (size_t x{0U}; x < TX; ++x)
                    {
                        b_reg[rx][x] = Bs[b_row][b_col + x];
                    }
                }
            }
#pragma unroll
            for (size_t ry{0U}; ry < NRY; ++ry)
            {
#pragma unroll
                for (size_t rx{0U}; rx < NRX; ++rx)
                {
#pragma unroll
                    for (size_t y{0U}; y < TY; ++y)
                    {
#pragma unroll
                        for (size_t x{0U}; x < TX; ++x)
                        {
                            acc[ry][rx][y][x] += a_reg[ry][y] * b_reg[rx][x];
                        }
                    }
                }
            }
        }
        // as measured: only a warp barrier before the next tile's shared stores
        __syncwarp();
    }
    __syncthreads();

#pragma unroll
    for (size_t ry{0U}; ry < NRY; ++ry)
    {
#pragma unroll
        for (size_t rx{0U}; rx < NRX; ++rx)
        {
#pragma unroll
            for (size_t y{0U}; y < TY; ++y)
            {
                if constexpr (VEC)
                {
#pragma unroll
                    for (size_t xv{0U}; xv < VTX; ++xv)
                    {
                        size_t const row{blockIdx.y * BY + warp_row * WY + ry * (WY / NRY) +
                                         lane_row * TY + y};
                        size_t const col{blockIdx.x * BX + warp_col * WX + rx * (WX / NRX) +
                                         lane_col * TX + xv * NV};
                        if (row < m && col < n)
                        {
                            int4 c4{*reinterpret_cast<int4 const*>(&C[row * ldc + col])};
#pragma unroll
                            for (size_t i{0U}; i < NV; ++i)
                            {
                                reinterpret_cast<T*>(&c4)[i] =
                                    alpha * acc[ry][rx][y][xv * NV + i] +
                                    beta * reinterpret_cast<T const*>(&c4)[i];
                            }
                            *reinterpret_cast<int4*>(&C[row * ldc + col]) = c4;
                        }
                    }
                }
                else
                {
#pragma unroll
                    for (size_t x{0U}; x < TX; ++x)
                    {
                        size_t const row{blockIdx.y * BY + warp_row * WY + ry * (WY / NRY) +
                                         lane_row * TY + y};
                        size_t const col{blockIdx.x * BX + warp_col * WX + rx * (WX / NRX) +
                                         lane_col * TX + x};
                        if (row < m && col < n)
                        {
                            C[row * ldc + col] =
                                alpha * acc[ry][rx][y][x] + beta * C[row * ldc + col];
                        }
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// v07: WMMA 16x16x16, __half inputs AND __half accumulators; 8 warps of 32(x) x 64(y) warp
// tiles, skewed (+16) shared tiles, A stored transposed (col_major matrix_a fragments).
// FIXED2024 false: the 2023 loop (b fragment loaded inside the row loop, __syncwarp at the end
// of a k tile); true: the 2024 loop (a and b fragments loaded once per k step, then the
// 4 x 2 mma_syncs, __syncthreads at the end of each k tile). VEC: vectorized loader.
// Epilogue: C tile loaded with ld = n (row-major), scaled, stored back.
// ------------------------------------------------------------------------------------------
template <typename T, size_t BX, size_t BY, size_t BK, size_t SKX, size_t SKY, size_t WX,
          size_t WY, size_t MX, size_t MY, size_t MK, size_t NT, bool VEC, bool FIXED2024>
__device__ __forceinline__ void lm_v07(size_t m, size_t n, size_t k, T alpha, T const* A,
                                       size_t lda, T const* B, size_t ldb, T beta, T* C,
                                       size_t ldc)
{
    namespace wm = nvcuda::wmma;
    constexpr size_t NWX{BX / WX};

    __shared__ T At[BK][BY + SKY];
    __shared__ T Bs[BK][BX + SKX];

    constexpr size_t NMX{WX / MX};
    constexpr size_t NMY{WY / MY};
    constexpr size_t NMK{BK / MK};

    wm::fragment<wm::matrix_a, MY, MX, MK, T, wm::col_major> fa[NMY];
    wm::fragment<wm::matrix_b, MY, MX, MK, T, wm::row_major> fb[NMX];
    wm::fragment<wm::accumulator, MY, MX, MK, T> facc[NMY][NMX];
    wm::fragment<wm::accumulator, MY, MX, MK, T> fc;

#pragma unroll
    for (size_t i{0U}; i < NMY; ++i)
    {
        for (size_t j{0U}; j < NMX; ++j)
        {
            wm::fill_fragment(facc[i][j], static_cast<T>(0));
        }
    }

    size_t const tid{threadIdx.y * blockDim.x + threadIdx.x};
    size_t const warp{tid / 32U};
    size_t const warp_row{warp / NWX};
    size_t const warp_col{warp % NWX};

    size_t const tiles{(k + BK - 1) / BK};
    for (size_t t{0U}; t < tiles; ++t)
    {
        if constexpr (VEC)
        {
            lm_load_tr_vec<T, BX, BY, BK, NT, SKX, SKY>(A, lda, B, ldb, At, Bs, t, tid, m, n,
                                                        k);
        }
        else
        {
            lm_load_tr<T, BX, BY, BK, NT, SKX, SKY>(A, lda, B, ldb, At, Bs, t, tid, m, n, k);
        }
        __syncthreads();
        if constexpr (!FIXED2024)
        {
#pragma unroll
            for (size_t ki{0U}; ki < NMK; ++ki)
            {
#pragma unroll
                for (size_t i{0U}; i < NMY; ++i)
                {
                    wm::load_matrix_sync(fa[i], &At[ki * MK][warp_row * WY + i * MY],
                                         BY + SKY);
#pragma unroll
                    for (size_t j{0U}; j < NMX; ++j)
                    {
                        // 2023: column offset j * MY (16, the same value as MX)
                        wm::load_matrix_sync(fb[j], &Bs[ki * MK][warp_col * WX + j * MY],
                                             BX + SKX);
                        wm::mma_sync(facc[i][j], fa[i], fb[j], facc[i][j]);
                    }
                }
            }
            __syncwarp();
        }
        else
        {
#pragma unroll
            for (size_t ki{0U}; ki < NMK; ++ki)
            {
#pragma unroll
                for (size_t i{0U}; i < NMY; ++i)
                {
                    wm::load_matrix_sync(fa[i], &At[ki * MK][warp_row * WY + i * MY],
                                         BY + SKY);
                }
#pragma unroll
                for (size_t j{0U}; j < NMX; ++j)
                {
                    wm::load_matrix_sync(fb[j], &Bs[ki * MK][warp_col * WX + j * MX],
                                         BX + SKX);
                }
#pragma unroll
                for (size_t i{0U}; i < NMY; ++i)
                {
#pragma unroll
                    for (size_t j{0U}; j < NMX; ++j)
                    {
                        wm::mma_sync(facc[i][j], fa[i], fb[j], facc[i][j]);
                    }
                }
            }
            __syncthreads();
        }
    }
    if constexpr (!FIXED2024)
    {
        __syncthreads();
    }

#pragma unroll
    for (size_t i{0U}; i < NMY; ++i)
    {
#pragma unroll
        for (size_t j{0U}; j < NMX; ++j)
        {
            wm::load_matrix_sync(fc,
                                 &C[(blockIdx.y * BY + warp_row * WY + i * MY) * n +
                                    blockIdx.x * BX + warp_col * WX + j * MX],
                                 n, wm::mem_row_major);
            for (size_t e{0}; e < fc.num_elements; ++e)
            {
                fc.x[e] = alpha * facc[i][j].x[e] + beta * fc.x[e];
            }
            wm::store_matrix_sync(&C[(blockIdx.y * BY + warp_row * WY + i * MY) * n +
                                     blockIdx.x * BX + warp_col * WX + j * MX],
                                  fc, n, wm::mem_row_major);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Entry points: the instantiations the launchers make (launch_gemm_kernel_*); the parameter
// lists are written out (not by a macro) so that the CUDA parameter names can be read.
// v00-v06 tile constants: v02 32/32/32; v03 64/64/8, 8 rows per thread; v04/v05 128/128/16,
// 8 x 8 per thread; v06 128/128/16, warp tile 32 x 64, 8 x 8 per thread, 4 x 8 threads per warp.
// ------------------------------------------------------------------------------------------
extern "C" __global__ void lm_gemm_v00_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v00<float>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v01_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v01<float>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v02_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v02<float, 32U, 32U, 32U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v02_vec_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v02<float, 32U, 32U, 32U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v03_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v03<float, 64U, 64U, 8U, 8U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v03_vec_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v03<float, 64U, 64U, 8U, 8U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v04_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v04<float, 128U, 128U, 16U, 8U, 8U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v04_vec_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v04_vec<float, 128U, 128U, 16U, 8U, 8U, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v05_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v04<float, 128U, 128U, 16U, 8U, 8U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v05_vec_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v04_vec<float, 128U, 128U, 16U, 8U, 8U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v06_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v06<float, 128U, 128U, 16U, 32U, 64U, 8U, 8U, 4U, 8U, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v06_vec_f32(size_t m, size_t n, size_t k, float alpha,
    float const* A, size_t lda, float const* B, size_t ldb, float beta, float* C, size_t ldc)
{
    lm_v06<float, 128U, 128U, 16U, 32U, 64U, 8U, 8U, 4U, 8U, true>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v00_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v00<__half>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v01_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v01<__half>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v02_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v02<__half, 32U, 32U, 32U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v02_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v02<__half, 32U, 32U, 32U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v03_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v03<__half, 64U, 64U, 8U, 8U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v03_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v03<__half, 64U, 64U, 8U, 8U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v04_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v04<__half, 128U, 128U, 16U, 8U, 8U, false>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v04_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v04_vec<__half, 128U, 128U, 16U, 8U, 8U, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v05_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v04<__half, 128U, 128U, 16U, 8U, 8U, true>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v05_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v04_vec<__half, 128U, 128U, 16U, 8U, 8U, true>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v06_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v06<__half, 128U, 128U, 16U, 32U, 64U, 8U, 8U, 4U, 8U, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v06_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v06<__half, 128U, 128U, 16U, 32U, 64U, 8U, 8U, 4U, 8U, true>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// v07 (FP16 only): BX = BY = 128, BK 16, skew 16/16, warp tile 32 x 64, WMMA 16x16x16, 256 threads
extern "C" __global__ void lm_gemm_v07_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v07<__half, 128U, 128U, 16U, 16U, 16U, 32U, 64U, 16U, 16U, 16U, 256U, false, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v07_vec_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v07<__half, 128U, 128U, 16U, 16U, 16U, 32U, 64U, 16U, 16U, 16U, 256U, true, false>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v07_2024_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v07<__half, 128U, 128U, 16U, 16U, 16U, 32U, 64U, 16U, 16U, 16U, 256U, false, true>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void lm_gemm_v07_vec_2024_f16(size_t m, size_t n, size_t k, __half alpha,
    __half const* A, size_t lda, __half const* B, size_t ldb, __half beta, __half* C, size_t ldc)
{
    lm_v07<__half, 128U, 128U, 16U, 16U, 16U, 32U, 64U, 16U, 16U, 16U, 256U, true, true>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

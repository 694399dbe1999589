// Tensor-core GEMM with inline-asm mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (sm_80+; nvcc
// is made to refuse older targets): C = A @ B with A (M x K) and B (K x N) fp16 row-major,
// C (M x N) fp32 row-major, M % 16 == 0, N % 8 == 0, K % 16 == 0. One warp per 16x8 tile of C
// (warp w: tile row w / (N/8), tile column w % (N/8)). Fragments follow the PTX ISA layout for
// m16n8k16: groupID g = lane >> 2, t = lane & 3; A regs hold rows g / g+8, columns 2t, 2t+1 (+8);
// B regs hold rows 2t, 2t+1 (+8) of column g; C/D hold rows g / g+8, columns 2t, 2t+1.
#include <cuda_fp16.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "mma_sync_m16n8k16 needs sm_80 or newer (mma.sync.m16n8k16 with f16 inputs)"
#endif

__device__ __forceinline__ unsigned pack_half2(__half lo, __half hi)
{
    return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}

extern "C" __global__ void mma_sync_m16n8k16(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm >= M / 16) return;  // warp-uniform
    int g = lane >> 2, t = lane & 3;
    int r0 = tm * 16 + g, r1 = r0 + 8;
    int bcol = tn * 8 + g;
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        int ka = k0 + 2 * t;
        // Two consecutive fp16 of a row, lower address in the low half.
        unsigned a0 = *(const unsigned*)&A[r0 * K + ka];
        unsigned a1 = *(const unsigned*)&A[r1 * K + ka];
        unsigned a2 = *(const unsigned*)&A[r0 * K + ka + 8];
        unsigned a3 = *(const unsigned*)&A[r1 * K + ka + 8];
        unsigned b0 = pack_half2(B[ka * N + bcol], B[(ka + 1) * N + bcol]);
        unsigned b1 = pack_half2(B[(ka + 8) * N + bcol], B[(ka + 9) * N + bcol]);
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    int c0 = tn * 8 + 2 * t;
    C[r0 * N + c0] = d0;
    C[r0 * N + c0 + 1] = d1;
    C[r1 * N + c0] = d2;
    C[r1 * N + c0 + 1] = d3;
}

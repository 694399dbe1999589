// Re-written for pipeperf (not copied) from karpathy/llm.c, folder dev/cuda/
//   https://github.com/karpathy/llm.c   licence: MIT (Copyright (c) 2024 Andrej Karpathy)
//   this file re-writes the measured kernels' code paths; it does not copy the files.
//
// Each entry mirrors one kernel of one dev/cuda file at the commit named below (the commit each
// validation case file gives as source.commit):
//
//   encoder_forward_kernel2         dev/cuda/encoder_forward.cu   @ 1c7d23ab3c015674728b38d114d92418c5217e80
//   residual_forward_kernel         dev/cuda/residual_forward.cu  @ 99b42c1 (unchanged up to 2024-04-29,
//                                                                    e.g. d7813d2^ = the last commit without L2 flush)
//   adamw_kernel1, adamw_kernel2    dev/cuda/adamw.cu             @ 97e61e2 (PR #159 head, merged as bfa6980)
//   softmax_forward_online_kernel2, softmax_forward_kernel7, softmax_forward_online_kernel8
//                                   dev/cuda/softmax_forward.cu   @ 6d7a99c (PR #383 head) and 72a2158 (2024-06-22);
//                                                                    these three kernels are identical at both
//   layernorm_forward_kernel3, layernorm_forward_kernel5
//                                   dev/cuda/layernorm_forward.cu @ d5601d1 (PR #600), identical at 6ecc52e, 68535cb
//   layernorm_forward_kernel6       dev/cuda/layernorm_forward.cu @ 6ecc52e (2024-06-18) = 68535cb (2024-06-26)
//
// Helpers of dev/cuda/common.h and of the kernels' own files (warpReduceSum, warpReduceMax, the
// SumMax pair and its combine op, Packed128<float> with load128 / load128cs / store128cs) are
// re-written below with the same operations.
//
// What differs from the original, and why it does not change the measured path's code:
// - every kernel is declared extern "C" (the originals are C++ __global__ functions): only the
//   symbol name changes. Templates of common.h (Packed128<ElementType>, load128<...>) are written
//   for the only instantiation the measured programs use (float; the programs were built without
//   -DENABLE_BF16, so floatX = float and x128 = Packed128<float>, 4 floats).
// - the host code (data set-up, CPU reference, validation, benchmark loop, the launchers) is
//   dropped; each case's launch (grid, block, dynamic shared memory) is the launcher's, see the
//   case files.
// - layernorm_forward.cu redefines WARP_SIZE as the int 32 after including common.h (whose
//   WARP_SIZE is 32U); the kernels below use the int 32, as the measured file did.
// - adamw.cu's helper lerp() is kept under the name lerp_fma (same two fma operations) so it cannot
//   clash with any library lerp; a device function's name does not change its inlined code.
// - the measured programs were built with nvcc without -arch (PTX for the default target, JIT-
//   compiled by the driver for the GPU); pipeperf compiles for the case GPU's own target. The
//   -O3 --use_fast_math of each file's compile line is kept in the cases' nvcc_flags (adamw.cu's
//   compile line has no --use_fast_math, so its cases have none).

#include <assert.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#define LLMC_WARP_SIZE 32

// ---------------------------------------------------------------------------------------------
// common.h helpers

__device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}

// Packed128<float>: four floats moved with one 128-bit load or store
struct alignas(16) x128 {
    static constexpr const int size = 4;
    float payload[size];
    x128() = default;
    __device__ explicit x128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
    __device__ float& operator[](int i) { return payload[i]; }
    __device__ const float& operator[](int i) const { return payload[i]; }
    __device__ int4 get_bits() const {
        int4 bits;
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
};
__device__ x128 load128(const float* address) {
    return x128{*reinterpret_cast<const int4*>(address)};
}
__device__ x128 load128cs(const float* address) {
    return x128{__ldcs(reinterpret_cast<const int4*>(address))};
}
__device__ void store128cs(float* target, x128 value) {
    __stcs(reinterpret_cast<int4*>(target), value.get_bits());
}

// ---------------------------------------------------------------------------------------------
// encoder_forward.cu, version 2: one thread per (b, t, c) element, out = wte[token] + wpe[t]

extern "C" __global__ void encoder_forward_kernel2(float* out, const int* inp, const float* wte,
                                                   const float* wpe, int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;
    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;
        int ix = inp[b * T + t];
        float* out_btc = out + b * T * C + t * C + c;
        const float* wte_ix = wte + ix * C + c;
        const float* wpe_tc = wpe + t * C + c;
        *out_btc = *wte_ix + *wpe_tc;
    }
}

// ---------------------------------------------------------------------------------------------
// residual_forward.cu, version 1: out = inp1 + inp2, one element per thread

extern "C" __global__ void residual_forward_kernel(float* out, const float* inp1, const float* inp2,
                                                   int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        out[idx] = inp1[idx] + inp2[idx];
    }
}

// ---------------------------------------------------------------------------------------------
// adamw.cu

// two-fma linear interpolation (adamw.cu's lerp)
__device__ inline float lerp_fma(float start, float end, float weight) {
    return fma(weight, end, fma(-weight, start, start));
}

// version 1: the naive fused update, every operand re-read from global memory
extern "C" __global__ void adamw_kernel1(float* params_memory, float* grads_memory, float* m_memory,
                                         float* v_memory, long num_parameters, float learning_rate,
                                         float beta1, float beta2, float beta1_correction,
                                         float beta2_correction, float eps, float weight_decay) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    m_memory[i] = beta1 * m_memory[i] + (1.0f - beta1) * grads_memory[i];
    v_memory[i] = beta2 * v_memory[i] + (1.0f - beta2) * grads_memory[i] * grads_memory[i];
    float m_hat = m_memory[i] / beta1_correction;
    float v_hat = v_memory[i] / beta2_correction;
    params_memory[i] -= learning_rate * (m_hat / (sqrtf(v_hat) + eps) + weight_decay * params_memory[i]);
}

// version 2: operands read once into registers, moments by two-fma lerp
extern "C" __global__ void adamw_kernel2(float* params_memory, float* grads_memory, float* m_memory,
                                         float* v_memory, long num_parameters, float learning_rate,
                                         float beta1, float beta2, float beta1_correction,
                                         float beta2_correction, float eps, float weight_decay) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    float grad = grads_memory[i];
    float m = m_memory[i];
    float v = v_memory[i];
    m = lerp_fma(grad, m, beta1);
    m_memory[i] = m;
    v = lerp_fma(grad * grad, v, beta2);
    v_memory[i] = v;
    m /= beta1_correction;
    v /= beta2_correction;
    params_memory[i] -= learning_rate * (m / (sqrtf(v) + eps) + weight_decay * params_memory[i]);
}

// ---------------------------------------------------------------------------------------------
// softmax_forward.cu

__device__ float warpReduceMax(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val = fmaxf(val, __shfl_down_sync(0xFFFFFFFF, val, offset));
    }
    return val;
}

struct __align__(8) SumMax {
    float maxval;
    float sum;
};

// combine two partial (max, sum of exp) pairs, rescaling the smaller one's sum
__device__ __forceinline__ SumMax reduce_sum_max_op(SumMax a, SumMax b) {
    bool a_bigger = (a.maxval > b.maxval);
    SumMax bigger_m = a_bigger ? a : b;
    SumMax smaller_m = a_bigger ? b : a;
    SumMax res;
    res.maxval = bigger_m.maxval;
    res.sum = bigger_m.sum + smaller_m.sum * expf(smaller_m.maxval - bigger_m.maxval);
    return res;
}

// version 6 (launcher softmax_forward_online2): online softmax, one warp per row, cooperative
// groups reduction of the (max, sum) pairs, streaming stores
extern "C" __global__ void softmax_forward_online_kernel2(float* out, const float* inp, int N, int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N) {
        return;
    }
    const float* x = inp + idx * C;

    SumMax partial;
    partial.maxval = -INFINITY;
    partial.sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        partial = reduce_sum_max_op(partial, {x[i], 1.0f});
    }
    SumMax total = cg::reduce(warp, partial, reduce_sum_max_op);

    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        __stcs(out + idx * C + i, expf(x[i] - total.maxval) / total.sum);
    }
}

// version 7: one block per row, loads unrolled 8 times (indices clamped to C-1), warp shuffles
// plus 2 * warps floats of dynamic shared memory for the block-wide max and sum
extern "C" __global__ void softmax_forward_kernel7(float* out, const float* inp, int N, int C) {
    const int UNROLL_FACTOR = 8;
    const int warpsPerBlock = blockDim.x / 32;

    extern __shared__ float shared[];
    int idx = blockIdx.x;
    int tid = threadIdx.x;
    int warpId = threadIdx.x / 32;
    int laneId = threadIdx.x % 32;

    float* maxvals = shared;
    float* sumvals = &shared[warpsPerBlock];

    if (tid >= C) {
        maxvals[warpId] = -INFINITY;
        sumvals[warpId] = 0.0f;
        return;
    }

    const float* x = inp + idx * C;
    float* y = out + idx * C;

    // pass 1: the row maximum
    float maxval = -INFINITY;
    for (int i = tid; i < C; i += blockDim.x * UNROLL_FACTOR) {
#pragma unroll
        for (int u = 0; u < UNROLL_FACTOR; u++) {
            maxval = fmaxf(maxval, x[min(C - 1, i + u * blockDim.x)]);
        }
    }
    maxval = warpReduceMax(maxval);
    if (laneId == 0) maxvals[warpId] = maxval;
    __syncthreads();
    if (tid == 0) {
        float val = maxvals[tid];
#pragma unroll
        for (int i = 1; i < warpsPerBlock; i++) {
            val = fmaxf(val, maxvals[i]);
        }
        maxvals[0] = val;
    }
    __syncthreads();
    float offset = maxvals[0];

    // pass 2: exp(x - max) written to out, summed on the way
    float sumval = 0.0f;
    for (int i = tid; i < C; i += blockDim.x * UNROLL_FACTOR) {
        float reg_array[UNROLL_FACTOR];
#pragma unroll
        for (int u = 0; u < UNROLL_FACTOR; u++) {
            reg_array[u] = __ldcs(&x[min(C - 1, i + u * blockDim.x)]);
        }
#pragma unroll
        for (int u = 0; u < UNROLL_FACTOR; u++) {
            if (i + u * blockDim.x < C) {
                float output = expf(reg_array[u] - offset);
                y[min(C - 1, i + u * blockDim.x)] = output;
                sumval += output;
            }
        }
    }
    sumval = warpReduceSum(sumval);
    if (laneId == 0) sumvals[warpId] = sumval;
    __syncthreads();
    if (tid == 0) {
        float val = sumvals[tid];
#pragma unroll
        for (int i = 1; i < warpsPerBlock; ++i) {
            val += sumvals[i];
        }
        sumvals[0] = val;
    }
    __syncthreads();
    float sum = sumvals[0];

    // pass 3: out /= sum
    for (int i = tid; i < C; i += blockDim.x * UNROLL_FACTOR) {
        float reg_array[UNROLL_FACTOR];
#pragma unroll
        for (int u = 0; u < UNROLL_FACTOR; u++) {
            reg_array[u] = y[min(C - 1, i + u * blockDim.x)];
        }
#pragma unroll
        for (int u = 0; u < UNROLL_FACTOR; u++) {
            if (i + u * blockDim.x < C) {
                y[i + u * blockDim.x] = reg_array[u] / sum;
            }
        }
    }
}

// version 8: online softmax, one warp per row, without cooperative groups (shuffle-down
// combination of the (max, sum) pairs, then a broadcast from lane 0)
extern "C" __global__ void softmax_forward_online_kernel8(float* out, const float* inp, int N, int C) {
    const int warpsPerBlock = blockDim.x / warpSize;
    int tid = threadIdx.x;
    if (tid >= C) {
        return;
    }
    int warpId = tid / warpSize;
    int laneId = tid % warpSize;
    int row = blockIdx.x * warpsPerBlock + warpId;
    if (row >= N) {
        return;
    }
    const float* x = inp + row * C;
    float* const y = out + row * C;

    float maxval = -INFINITY, sumval = 0.0f, bigger;
    for (int i = laneId; i < C; i += warpSize) {
        bigger = fmaxf(maxval, x[i]);
        sumval = sumval * expf(maxval - bigger) + expf(x[i] - bigger);
        maxval = bigger;
    }

    float offsetMaxval, offsetSumval;
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
        __syncwarp();
        offsetMaxval = __shfl_down_sync(0xFFFFFFFF, maxval, offset);
        offsetSumval = __shfl_down_sync(0xFFFFFFFF, sumval, offset);
        if (offsetMaxval > maxval) {
            sumval *= expf(maxval - offsetMaxval);
            maxval = offsetMaxval;
        } else {
            offsetSumval *= expf(offsetMaxval - maxval);
        }
        sumval += offsetSumval;
    }
    maxval = __shfl_sync(0xFFFFFFFF, maxval, 0);
    sumval = __shfl_sync(0xFFFFFFFF, sumval, 0);

    for (int i = laneId; i < C; i += warpSize) {
        y[i] = expf(x[i] - maxval) / sumval;
    }
}

// ---------------------------------------------------------------------------------------------
// layernorm_forward.cu

// version 3: one warp per row, three passes (mean, variance, normalise) with cooperative groups
// warp reductions; streaming loads/stores of the row, weight and bias through the caches
extern "C" __global__ void layernorm_forward_kernel3(float* __restrict__ out, float* __restrict__ mean,
                                                     float* __restrict__ rstd, const float* __restrict__ inp,
                                                     const float* __restrict__ weight,
                                                     const float* __restrict__ bias, int N, int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N) {
        return;
    }
    const float* x = inp + idx * C;

    float sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        sum += x[i];
    }
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float m = sum / C;
    if (warp.thread_rank() == 0 && mean != nullptr) {
        __stcs(mean + idx, m);
    }

    sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        float diff = x[i] - m;
        sum += diff * diff;
    }
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float s = rsqrtf(sum / C + 1e-5f);
    if (warp.thread_rank() == 0 && rstd != nullptr) {
        __stcs(rstd + idx, s);
    }

    float* o = out + idx * C;
    for (int c = warp.thread_rank(); c < C; c += warp.size()) {
        float n = s * (__ldcs(x + c) - m);
        __stcs(o + c, n * weight[c] + bias[c]);
    }
}

// version 5: one block per row; sum(x) and sum(x^2) in one pass, warp then block reduction
// through 2 x 32 floats of static shared memory; var = E[x^2] - E[x]^2
extern "C" __global__ void layernorm_forward_kernel5(float* __restrict__ out, float* __restrict__ mean,
                                                     float* __restrict__ rstd, const float* __restrict__ inp,
                                                     const float* __restrict__ weight,
                                                     const float* __restrict__ bias, int N, int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float shared_sum[32];
    __shared__ float shared_sum2[32];
    int num_warps = blockDim.x / 32;
    int warp_id = threadIdx.x / 32;
    int lane_id = threadIdx.x % 32;
    int idx = blockIdx.x;
    const float* x = inp + idx * C;

    float thread_sum = 0.0;
    float thread_sum2 = 0.0;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        float xi = x[i];
        thread_sum += xi;
        thread_sum2 += xi * xi;
    }
    float warp_sum = cg::reduce(warp, thread_sum, cg::plus<float>{});
    float warp_sum2 = cg::reduce(warp, thread_sum2, cg::plus<float>{});
    shared_sum[warp_id] = warp_sum;
    shared_sum2[warp_id] = warp_sum2;
    __syncthreads();
    warp_sum = (lane_id < num_warps) ? shared_sum[lane_id] : 0.0f;
    warp_sum2 = (lane_id < num_warps) ? shared_sum2[lane_id] : 0.0f;
    float block_sum = cg::reduce(warp, warp_sum, cg::plus<float>{});
    float block_sum2 = cg::reduce(warp, warp_sum2, cg::plus<float>{});
    block_sum /= C;
    block_sum2 /= C;
    float m = block_sum;
    float var = block_sum2 - m * m;
    float s = rsqrtf(var + 1e-5f);
    if (threadIdx.x == 0 && mean != nullptr) {
        __stcs(mean + idx, m);
    }
    if (threadIdx.x == 0 && rstd != nullptr) {
        __stcs(rstd + idx, s);
    }
    float* o = out + idx * C;
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        float n = s * (__ldcs(x + i) - m);
        __stcs(o + i, n * weight[i] + bias[i]);
    }
}

// version 6: block (32, block_size/32), one warp per row; weight, bias and each warp's row are
// staged in dynamic shared memory ((2 + blockDim.y) * C floats) with 128-bit loads, warp-shuffle
// reductions, 128-bit streaming stores
extern "C" __global__ void layernorm_forward_kernel6(float* __restrict__ out, float* __restrict__ mean,
                                                     float* __restrict__ rstd, const float* __restrict__ inp,
                                                     const float* __restrict__ weight,
                                                     const float* __restrict__ bias, int N, int C) {
    assert(blockDim.x == LLMC_WARP_SIZE);

    extern __shared__ char params[];
    x128* s_weight = reinterpret_cast<x128*>(params);
    x128* s_bias = reinterpret_cast<x128*>(params) + (C / x128::size);
    x128* s_in = reinterpret_cast<x128*>(params) + ((2 + threadIdx.y) * C / x128::size);

    int sidx = (threadIdx.x + LLMC_WARP_SIZE * threadIdx.y) * x128::size;
    for (int i = sidx; i < C; i += blockDim.y * LLMC_WARP_SIZE * x128::size) {
        s_weight[i / x128::size] = load128(weight + i);
        s_bias[i / x128::size] = load128(bias + i);
    }
    __syncthreads();

    int idx = blockIdx.x * blockDim.y + threadIdx.y;
    if (idx >= N) { return; }

    inp += idx * C;
    out += idx * C;

    const float eps = 1e-5f;
    float sum = 0.0f;
    for (int c = threadIdx.x * x128::size; c < C; c += LLMC_WARP_SIZE * x128::size) {
        const x128 in_data = load128cs(inp + c);
        for (int k = 0; k < x128::size; ++k) {
            sum += (float)in_data[k];
        }
        s_in[c / x128::size] = in_data;
    }

    sum = warpReduceSum(sum);
    float m = sum / C;
    float v = 0.f;

    for (int c = threadIdx.x * x128::size; c < C; c += LLMC_WARP_SIZE * x128::size) {
        const x128 in_data = s_in[c / x128::size];
        for (int k = 0; k < x128::size; ++k) {
            v += ((float)in_data[k] - m) * ((float)in_data[k] - m);
        }
    }

    v = warpReduceSum(v) / C;
    float s = rsqrtf(v + eps);

    for (int c = threadIdx.x * x128::size; c < C; c += LLMC_WARP_SIZE * x128::size) {
        const x128 in_data = s_in[c / x128::size];
        const x128 w = s_weight[c / x128::size];
        const x128 b = s_bias[c / x128::size];
        x128 out_data;
        for (int k = 0; k < x128::size; ++k) {
            float n = s * ((float)in_data[k] - m);
            float o = n * (float)w[k] + (float)b[k];
            out_data[k] = o;
        }
        store128cs(out + c, out_data);
    }
    if (threadIdx.x == 0 && mean != nullptr) {
        __stcs(mean + idx, m);
    }
    if (threadIdx.x == 0 && rstd != nullptr) {
        __stcs(rstd + idx, s);
    }
}

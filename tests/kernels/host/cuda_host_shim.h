// Minimal CUDA-on-CPU shim: lets g++ compile and run the corpus kernels that use only plain CUDA C++
// (no cooperative groups, fp16, tensor cores, cp.async), to cross-check kernel_references.py against
// the real kernel source without a GPU. One OS thread per CUDA thread, blocks one after another;
// __shared__ becomes a function-local static (shared by the block's threads, and safe because blocks
// do not overlap); __syncthreads and the warp primitives use std::barrier; atomics take one mutex.
// Floating point follows the host (no fma contraction), so only results the references claim to be
// exact, or within their stated tolerance, are compared.
#pragma once
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <vector_types.h>
#include <vector_functions.h>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
#define __launch_bounds__(...)

inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::vector<unsigned char> cuda_host_dynamic_shared;

struct HostWarp {
    explicit HostWarp(std::ptrdiff_t lanes) : bar(lanes) {}
    std::barrier<> bar;
    uint64_t slot[32];
};
inline std::barrier<>* host_block_barrier;
inline thread_local HostWarp* host_warp;
inline thread_local int host_lane;
inline std::mutex host_atomic_mutex;

inline void __syncthreads() { host_block_barrier->arrive_and_wait(); }
inline void __threadfence() {}

// ---- warp exchange: every lane publishes a value, then reads another lane's ----
template <class T, class F>
T host_exchange(T v, F src_of)
{
    static_assert(sizeof(T) <= 8, "warp exchange of at most 64 bits");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    host_warp->slot[host_lane] = bits;
    host_warp->bar.arrive_and_wait();
    int src = src_of(host_lane);
    T r;
    uint64_t got = host_warp->slot[(src >= 0 && src < 32) ? src : host_lane];
    std::memcpy(&r, &got, sizeof(T));
    host_warp->bar.arrive_and_wait();
    return r;
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d) { return host_exchange(v, [d](int l) { return l + (int)d; }); }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d) { return host_exchange(v, [d](int l) { return l - (int)d; }); }
template <class T> T __shfl_xor_sync(unsigned, T v, int m) { return host_exchange(v, [m](int l) { return l ^ m; }); }
template <class T> T __shfl_sync(unsigned, T v, int s) { return host_exchange(v, [s](int) { return s & 31; }); }
inline unsigned __ballot_sync(unsigned, int p)
{
    host_warp->slot[host_lane] = p ? 1 : 0;
    host_warp->bar.arrive_and_wait();
    unsigned b = 0;
    for (int l = 0; l < 32; ++l) b |= (unsigned)(host_warp->slot[l] & 1) << l;
    host_warp->bar.arrive_and_wait();
    return b;
}
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == 0xffffffffu; }

// ---- atomics (one lock: order-independent results only) ----
#define HOST_ATOMIC(name, expr)                                          \
    template <class T, class U> T name(T* a, U v)                       \
    {                                                                    \
        std::lock_guard<std::mutex> g(host_atomic_mutex);                \
        T old = *a;                                                      \
        *a = (expr);                                                     \
        return old;                                                      \
    }
HOST_ATOMIC(atomicAdd, old + (T)v)
HOST_ATOMIC(atomicMax, std::max(old, (T)v))
HOST_ATOMIC(atomicMin, std::min(old, (T)v))
HOST_ATOMIC(atomicOr, old | (T)v)
HOST_ATOMIC(atomicExch, (T)v)
HOST_ATOMIC(atomicInc, (old >= (T)v) ? (T)0 : (T)(old + 1))
template <class T> T atomicCAS(T* a, T cmp, T v)
{
    std::lock_guard<std::mutex> g(host_atomic_mutex);
    T old = *a;
    if (old == cmp) *a = v;
    return old;
}

// ---- intrinsics ----
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __clz(int v) { return v ? __builtin_clz((unsigned)v) : 32; }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline unsigned __brev(unsigned v)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{
    uint64_t w = ((uint64_t)hi << 32) | lo;
    return (unsigned)((w << (s & 31)) >> 32);
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }

// ---- launch: args[i] points at the i-th argument, as with cudaLaunchKernel ----
template <class... P, std::size_t... I>
void host_call(void (*k)(P...), void** args, std::index_sequence<I...>)
{
    k(*(std::remove_cv_t<std::remove_reference_t<P>>*)args[I]...);
}

template <class... P>
void host_launch(void (*k)(P...), dim3 grid, dim3 block, std::size_t shared_bytes, void** args)
{
    gridDim = grid;
    blockDim = block;
    cuda_host_dynamic_shared.assign(shared_bytes, 0);
    unsigned nt = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                std::barrier<> block_bar(nt);
                host_block_barrier = &block_bar;
                std::vector<std::unique_ptr<HostWarp>> warps;
                for (unsigned w = 0; w * 32 < nt; ++w)
                    warps.push_back(std::make_unique<HostWarp>(std::min(32u, nt - w * 32)));
                std::vector<std::thread> pool;
                for (unsigned t = 0; t < nt; ++t)
                    pool.emplace_back([&, t] {
                        blockIdx = uint3{bx, by, bz};
                        threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        host_warp = warps[t / 32].get();
                        host_lane = (int)(t % 32);
                        host_call(k, args, std::index_sequence_for<P...>{});
                        host_warp->bar.arrive_and_drop();  // threads that returned early stop counting
                        block_bar.arrive_and_drop();
                    });
                for (auto& th : pool) th.join();
            }
}

inline std::vector<unsigned char> host_read(const char* dir, const char* name, std::size_t bytes)
{
    std::vector<unsigned char> buf(bytes);
    std::string path = std::string(dir) + "/" + name + ".bin";
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f || std::fread(buf.data(), 1, bytes, f) != bytes) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(3);
    }
    std::fclose(f);
    return buf;
}

inline void host_write(const char* dir, const char* name, const std::vector<unsigned char>& buf)
{
    std::string path = std::string(dir) + "/" + name + ".out";
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(buf.data(), 1, buf.size(), f);
    std::fclose(f);
}

// pipeperf micro-benchmarks: declarations shared by the generated kernels and the host harness.
//
// Every benchmark kernel takes one PPArgs by value. Lane 0 of every warp records the SM cycle
// counter (%clock64) right before and right after its dependent chain, plus %smid and %warpid;
// the harness turns these into cycles per SM (see harness.cu). Seeds are kernel parameters and
// are mixed with threadIdx so the compiler can neither constant-fold the chains nor move them to
// the uniform (one-per-warp) datapath.
#pragma once
#include <cstdint>

struct PPArgs {
  unsigned long long* rec;    // 3 words per warp: clock64 before, clock64 after, warpid<<32 | smid
  void* buf;                  // global buffer of the memory benchmarks (inside one 4 GiB window)
  float* sink;                // one float per thread: keeps results alive
  unsigned long long chunk;   // memory chains: 32-bit words owned by one warp
  int iters;                  // outer (rolled) iterations; N = iters * instructions per iteration
  unsigned prime;             // ring chains: untimed steps before the clock starts (one lap)
  unsigned* gate;             // per-SM arrival counters (zeroed before each launch), or null
  unsigned gate_warps;        // warps each SM is meant to hold: the gate opens when all arrived
  float f1, f2, f3;
  double d1, d2, d3;
  unsigned u1, u2, u3;
};

// Kinds and memory layouts of a benchmark (PPBench::kind, PPBench::memory).
enum { PP_CHAIN = 0, PP_MIX = 1, PP_BARRIER = 2, PP_PEAK = 3 };
enum { PP_MEM_NONE = 0, PP_MEM_STREAM = 1, PP_MEM_RING = 2, PP_MEM_WORDS = 3, PP_MEM_COPY = 4 };

struct PPBench {
  const char* name;        // unique name; for chains the instruction class it measures
  int kind;                // PP_CHAIN, PP_MIX, PP_BARRIER, PP_PEAK
  const char* cls;         // instruction class (type 1 for the mix, the compute class for barriers)
  const char* cls2;        // second class (mix: type 2, barrier: the barrier), "" if none
  const char* subsystem;   // subsystem the class is mapped to in the fitted spec
  const void* func;        // the __global__ function
  int n1_per_iter;         // class-1 instructions per thread per outer iteration
  int n2_per_iter;         // class-2 instructions per thread per outer iteration
  int iters;               // default outer iterations
  int param;               // beta (mix), lane stride in words (memory), conflict degree (shared)
  int memory;              // PP_MEM_*
  int ring_lines;          // PP_MEM_RING: 128-byte lines per warp ring; 0 = fit half of L2
  int smem_bytes;          // dynamic shared memory the kernel itself needs
  int block;               // peaks: threads per block (0: chains choose their own)
  double ops_per_iter;     // peaks: operations per thread per outer iteration
  double bytes_per_iter;   // peaks: bytes moved per thread per outer iteration
  const char* unit;        // peaks: GFLOPS, GIOPS, GOPS or GB/s
  const char* ptx;         // the PTX of one step, for the record
  int order;               // run order (the registration order depends on the unit split)
};

// Called by the static registrars of the generated translation units.
int pp_register(const PPBench& b);

__device__ __forceinline__ unsigned long long pp_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
  return t;
}

__device__ __forceinline__ void pp_record(const PPArgs& a, unsigned long long t0, unsigned long long t1) {
  if ((threadIdx.x & 31) == 0) {
    unsigned smid, warpid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    const unsigned gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    a.rec[3ull * gw + 0] = t0;
    a.rec[3ull * gw + 1] = t1;
    a.rec[3ull * gw + 2] = ((unsigned long long)warpid << 32) | smid;
  }
}

// Start gate: every warp waits until all gate_warps warps of its SM have arrived, so that block
// dispatch (thousands of blocks at high occupancy) does not stagger the timed regions. A warp
// gives up after ~4M cycles (an SM that never fills is then flagged by the residency checks).
__device__ __forceinline__ void pp_gate(const PPArgs& a) {
  if (a.gate == nullptr) return;
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if ((threadIdx.x & 31) == 0) atomicAdd(&a.gate[smid], 1u);
  __syncwarp();
  const unsigned long long t = pp_clock();
  while (*(volatile unsigned*)&a.gate[smid] < a.gate_warps && pp_clock() - t < 4000000ull) {
  }
  __syncwarp();
}

// Warp index in the grid and lane: used by the memory chains to find their chunk.
__device__ __forceinline__ unsigned pp_gwarp() { return blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); }
__device__ __forceinline__ unsigned pp_lane() { return threadIdx.x & 31; }
__device__ __forceinline__ unsigned pp_gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }

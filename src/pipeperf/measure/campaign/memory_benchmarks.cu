// Memory-system micro-benchmarks of `pipeperf campaign` (issue 19), run with the generic
// launcher of `pipeperf measure` (CUDA events, median of the repetitions) on a GPU, or analyzed
// on a GPU spec with --simulate. One element per thread where a launch streams, so the grid is
// the amount of data; results are written only under an impossible condition so the loads are
// kept (mixbench's trick) without a store stream.
extern "C" {

// DRAM read bandwidth: n float4 loads, 16 B per thread.
__global__ void stream_read(const float4* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = a[i];
    float s = v.x + v.y + v.z + v.w;
    if (s == -12345.f) out[0] = s;
  }
}

// DRAM write bandwidth: n float4 stores.
__global__ void stream_write(float4* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = make_float4(1.f, 2.f, 3.f, (float)i);
}

// DRAM copy bandwidth: n float4 loads and n stores (counted as 2 x 16 B per thread).
__global__ void stream_copy(const float4* a, float4* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

// Load latency: one thread follows p = (buf[p] + stride) & mask; with buf[i] = i (iota fill)
// every load depends on the one before. The footprint (mask + 1 words) picks the level: L1
// (through the L1, ld.global.ca), L2 (ld.global.cg bypasses L1) or DRAM (beyond L2).
__global__ void chase_ca(const unsigned* buf, unsigned* out, int steps, unsigned stride, unsigned mask) {
  unsigned p = 0;
  for (int k = 0; k < steps; ++k) p = (__ldca(buf + p) + stride) & mask;
  if (p == 0xffffffffu) out[0] = p;
}

__global__ void chase_cg(const unsigned* buf, unsigned* out, int steps, unsigned stride, unsigned mask) {
  unsigned p = 0;
  for (int k = 0; k < steps; ++k) p = (__ldcg(buf + p) + stride) & mask;
  if (p == 0xffffffffu) out[0] = p;
}

// L2 bandwidth: every thread reads `reps` times over a footprint of mask + 1 float4 that fits
// in L2 (ld.global.cg: L1 bypassed), 16 B per read; each repetition moves the whole grid on by
// 4099 float4 (odd, so a thread sweeps the footprint: the grid's stride is a multiple of the
// footprint, and a thread re-reading one address measured 2.45x below gpu-l2-cache's H200 rate).
__global__ void l2_read(const float4* a, float* out, int reps, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int r = 0; r < reps; ++r) {
    float4 v = __ldcg(a + (i & mask));
    s += v.x + v.w;
    i += 4099u;
  }
  if (s == -12345.f) out[0] = s;
}

// Block-dispatch cost: millions of empty blocks; time / blocks is what the block scheduler costs.
__global__ void empty_blocks(int unused) {}

// Global atomics a thread at a time: word (threadIdx.x * 7 + k) & mask of `words`, so ptxas cannot
// prove the address warp-uniform and combine the lanes (mask comes at run time). mask 0: every
// lane on one word (a non-aggregated histogram of one bin); mask 255: 256 words in 1 KiB, 8 lines
// (a 256-bin histogram's counters: contention by line and L2 slice, not by address).
__global__ void atomic_lanes(unsigned* words, int iters, unsigned mask) {
  for (int k = 0; k < iters; ++k) atomicAdd(&words[(threadIdx.x * 7u + (unsigned)k) & mask], 1u);
}

// Shared-memory atomics a thread at a time, on word (threadIdx.x * 7 + k) & mask of the block's
// 1024 words (mask 0: one word for the whole block, a privatised histogram of constant input).
__global__ void atomic_shared_lanes(unsigned* out, int iters, unsigned mask) {
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int k = 0; k < iters; ++k) atomicAdd(&s[(threadIdx.x * 7u + (unsigned)k) & mask], 1u);
  __syncthreads();
  if (threadIdx.x == 0 && s[0] == 0xffffffffu) out[0] = s[0];
}

// Global atomics on 8 L2 lines `stride` words apart: lane l of a warp adds 1 to word
// ((l + k) & 7) * stride + (l >> 3) + 4 * (k & 7), so each warp request puts 4 lanes on each of
// 8 lines (as a 256-bin histogram of random bytes does) while every line's words are updated by
// every warp. stride 32 puts the lines side by side (1 KiB); larger strides move them apart, so
// the rate against stride shows how the GPU spreads lines over its L2 slices' atomic units.
__global__ void atomic_lines(unsigned* words, int iters, unsigned stride) {
  const unsigned l = threadIdx.x & 31u;
  for (int k = 0; k < iters; ++k)
    atomicAdd(&words[((l + (unsigned)k) & 7u) * stride + (l >> 3) + 4u * ((unsigned)k & 7u)], 1u);
}

// Same-address atomic throughput: every thread adds 1 to one word `iters` times.
__global__ void atomic_same(unsigned* counter, int iters) {
  for (int k = 0; k < iters; ++k) atomicAdd(counter, 1u);
}

}  // extern "C"

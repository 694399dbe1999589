// Atomic operations whose final memory state does not depend on thread order. For v = x[i], i < n:
// stats[0] = max(stats[0], v) (atomicMax), stats[1] = min(stats[1], v) (atomicMin),
// stats[2] += (unsigned)v * (unsigned)v modulo 2^32 through an atomicCAS retry loop,
// stats[3] |= 1 << (v & 31) (atomicOr), flags[v & 31] = 1 (atomicExch).
__device__ void atomic_add_square(unsigned* addr, unsigned v)
{
    unsigned old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed + v * v);
    } while (old != assumed);
}

extern "C" __global__ void atomics_mix(const int* x, int* stats, unsigned* flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    atomicMax(&stats[0], v);
    atomicMin(&stats[1], v);
    atomic_add_square((unsigned*)&stats[2], (unsigned)v);
    atomicOr(&stats[3], 1 << (v & 31));
    atomicExch(&flags[v & 31], 1u);
}

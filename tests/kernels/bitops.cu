// Bit operations on v = x[i] (unsigned 32-bit): out[k*n + i] for k = 0..6 is
// __popc(v), __clz(v), __brev(v), __ffs(v) (1-based lowest set bit, 0 for v == 0),
// (v << 7) ^ (v >> 3) (logical shifts), (unsigned)((int)v >> 5) (arithmetic shift),
// rotate-left by 13 via __funnelshift_l(v, v, 13).
extern "C" __global__ void bitops(const unsigned* x, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = x[i];
    out[i] = __popc(v);
    out[n + i] = __clz(v);
    out[2 * n + i] = __brev(v);
    out[3 * n + i] = __ffs(v);
    out[4 * n + i] = (v << 7) ^ (v >> 3);
    out[5 * n + i] = (unsigned)((int)v >> 5);
    out[6 * n + i] = __funnelshift_l(v, v, 13);
}

// Warp votes on p = (i < n && x[i] > 0): lane 0 of warp w (w = global thread index / 32) writes
// ballot[w] = __ballot_sync mask (bit l = p of lane l), any[w] = __any_sync(p), all[w] = __all_sync(p)
// (as 0/1). Every thread takes part (no early return); blockDim.x a multiple of 32.
extern "C" __global__ void vote(const int* x, unsigned* ballot, int* any, int* all, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool p = (i < n) && (x[i] > 0);
    unsigned b = __ballot_sync(0xffffffffu, p);
    int an = __any_sync(0xffffffffu, p);
    int al = __all_sync(0xffffffffu, p);
    if ((threadIdx.x & 31) == 0) {
        int w = i >> 5;
        ballot[w] = b;
        any[w] = an;
        all[w] = al != 0;
    }
}

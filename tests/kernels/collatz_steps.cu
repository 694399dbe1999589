// Data-dependent loop: steps[i] = number of Collatz steps (x -> x/2 if even, 3x+1 if odd) from
// start[i] until x == 1, capped at max_steps (so start = 0 gives max_steps). Loop trip counts
// differ per thread, so warps diverge inside the loop. 32-bit unsigned arithmetic.
extern "C" __global__ void collatz_steps(const unsigned* start, unsigned* steps, int n, unsigned max_steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = start[i];
    unsigned s = 0;
    while (x != 1u && s < max_steps) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        ++s;
    }
    steps[i] = s;
}

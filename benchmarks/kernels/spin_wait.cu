// A kernel that spins on a flag nobody sets (issue 39): on hardware it hangs; the emulation
// must stop on its step budget with one line naming this loop.
extern "C" __global__ void spin_wait(volatile int *flag, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (*flag == 0) {
    }
    out[i] = 1.0f;
}

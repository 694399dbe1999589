// A clock-wait loop (issue 39): each thread spins until clock64() has advanced by `cycles`,
// counting its iterations; the emulated clocks advance with the issued instructions.
extern "C" __global__ void clock_wait(long long cycles, int *iterations)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    long long t0 = clock64();
    int n = 0;
    while (clock64() - t0 < cycles) {
        ++n;
    }
    iterations[i] = n;
}

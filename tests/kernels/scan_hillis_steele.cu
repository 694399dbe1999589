// Block-level inclusive scan (Hillis-Steele, double-buffered in shared memory): each block of 256
// threads scans its own 256 elements (0 past n); out[i] = sum of in[block_start .. i].
// Requires blockDim.x == 256.
#define BLOCK 256

extern "C" __global__ void scan_hillis_steele(const int* in, int* out, int n)
{
    __shared__ int buf[2][BLOCK];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    int pout = 0;
    buf[pout][t] = (g < n) ? in[g] : 0;
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        int pin = pout;
        pout = 1 - pout;
        int v = buf[pin][t];
        if (t >= off) v += buf[pin][t - off];
        buf[pout][t] = v;
        __syncthreads();
    }
    if (g < n) out[g] = buf[pout][t];
}

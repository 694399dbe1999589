// Multi-way data-dependent branch: a switch on op[i] & 7 picks one of eight integer operations on
// x = a[i], y = b[i]: 0 x+y, 1 x-y, 2 x*y, 3 x&y, 4 x|y, 5 x^y, 6 x<<(y&31), 7 x>>(y&31) (arithmetic),
// all with 32-bit two's-complement wrap-around.
extern "C" __global__ void switch_case(const int* op, const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i], r;
    switch (op[i] & 7) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x & y; break;
    case 4: r = x | y; break;
    case 5: r = x ^ y; break;
    case 6: r = (int)((unsigned)x << (y & 31)); break;
    default: r = x >> (y & 31); break;
    }
    out[i] = r;
}

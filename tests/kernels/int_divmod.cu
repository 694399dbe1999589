// Integer division and remainder with C semantics (quotient truncated toward zero, remainder has
// the dividend's sign): q[i] = a/b, r[i] = a%b for a = a[i], b = b[i] != 0 (div.s32 / rem.s32), and
// u[i] = (unsigned)a / 10 + (unsigned)a % 7, whose constant divisors become mul.hi sequences.
extern "C" __global__ void int_divmod(const int* a, const int* b, int* q, int* r, unsigned* u, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    unsigned ux = (unsigned)x;
    u[i] = ux / 10u + ux % 7u;
}

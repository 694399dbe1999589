// Integer hashing with wide and high multiplies (mul.wide.u32, mul.lo/hi.u64, mul.hi.u32) and
// xorshift steps; all arithmetic wraps modulo 2^32 / 2^64. For s = seed[i]:
//   w  = (u64)s * 2654435761                          (mul.wide.u32)
//   z  = w * 6364136223846793005 + 1442695040888963407 (64-bit LCG step)
//   z ^= z >> 33; z *= 0xff51afd7ed558ccd; z ^= z >> 33
//   h  = umulhi(s, 0x9E3779B9) ^ (u32)(z >> 32); h ^= h << 13; h ^= h >> 17; h ^= h << 5
//   out32[i] = h;  out64[i] = z + umul64hi(z, 0x9E3779B97F4A7C15)
extern "C" __global__ void hash_lcg(const unsigned* seed, unsigned* out32, unsigned long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = seed[i];
    unsigned long long w = (unsigned long long)s * 2654435761u;
    unsigned long long z = w * 6364136223846793005ULL + 1442695040888963407ULL;
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdULL;
    z ^= z >> 33;
    unsigned h = __umulhi(s, 0x9E3779B9u) ^ (unsigned)(z >> 32);
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    out32[i] = h;
    out64[i] = z + __umul64hi(z, 0x9E3779B97F4A7C15ULL);
}

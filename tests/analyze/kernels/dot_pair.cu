// A pair for the dependency-chain advice: each thread adds, m times over, the products of its 8
// values (held in registers) into one accumulator (chain_one: every add waits for the one before)
// or into two (chain_two, added at the end). x holds 8 values per thread; m even.
extern "C" __global__ void chain_one(const double* x, double* out, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    double v[8], acc = 0.0;
    for (int j = 0; j < 8; j++) v[j] = x[j * n + i];
    for (int r = 0; r < m; r++)
        for (int j = 0; j < 8; j++) acc += v[j] * v[(j + 1) & 7];
    out[i] = acc;
}
extern "C" __global__ void chain_two(const double* x, double* out, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    double v[8], acc0 = 0.0, acc1 = 0.0;
    for (int j = 0; j < 8; j++) v[j] = x[j * n + i];
    for (int r = 0; r < m; r += 2)
        for (int j = 0; j < 8; j++) {
            acc0 += v[j] * v[(j + 1) & 7];
            acc1 += v[j] * v[(j + 1) & 7];
        }
    out[i] = acc0 + acc1;
}

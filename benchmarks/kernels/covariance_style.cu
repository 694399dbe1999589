// A covariance-style kernel (pipeperf's own code, written for benchmarks/analyze_suite.py): the
// shape of PolyBench/GPU's covariance "covar" step, one thread per column j1, each looping over
// the columns j2 >= j1 and, inside, over all n rows: long per-thread loops (n * (m - j1)
// multiply-adds per thread), the case that used to cut traces at the step budget.
extern "C" __global__ void covar_kernel(int m, int n, const float* data, float* symmat)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m) return;
    for (int j2 = j1; j2 < m; j2++) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) s += data[i * m + j1] * data[i * m + j2];
        symmat[j1 * m + j2] = s;
        symmat[j2 * m + j1] = s;
    }
}

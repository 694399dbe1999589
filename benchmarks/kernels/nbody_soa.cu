// An all-pairs n-body force step on a struct of arrays (pipeperf's own code, written for
// benchmarks/analyze_suite.py): every thread loops over all n bodies, reading x, y, z, mass
// from four arrays; a long, regular per-thread loop of fp32 arithmetic and rsqrtf.
extern "C" __global__ void nbody_soa(int n, const float* x, const float* y, const float* z,
                                     const float* mass, float* ax, float* ay, float* az)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = x[i], yi = y[i], zi = z[i], fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
        float r2 = dx * dx + dy * dy + dz * dz + 1e-9f;
        float inv = rsqrtf(r2);
        float s = mass[j] * inv * inv * inv;
        fx += dx * s; fy += dy * s; fz += dz * s;
    }
    ax[i] = fx; ay[i] = fy; az[i] = fz;
}

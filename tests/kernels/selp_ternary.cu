// Ternaries that nvcc turns into selp / min / max instead of branches. For v = x[i], m = k[i]:
// c = clamp(v, lo, hi) (v < lo ? lo : v > hi ? hi : v); out[i] = (m & 1) ? 2*c : c + 3;
// iout[i] = v > 0 ? m : -m.
extern "C" __global__ void selp_ternary(const float* x, const int* k, float* out, int* iout,
                                        float lo, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int m = k[i];
    float c = v < lo ? lo : (v > hi ? hi : v);
    out[i] = (m & 1) ? c * 2.0f : c + 3.0f;
    iout[i] = (v > 0.0f) ? m : -m;
}

// Divergent branch: odd and even global thread indices do different amounts of work, so every
// warp executes both sides. Odd: 8 steps of v = v*0.5 + k (k = 0..7); even: v = v*v - 3.
extern "C" __global__ void divergent(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (i & 1) {
        for (int k = 0; k < 8; ++k) v = v * 0.5f + (float)k;
    } else {
        v = v * v - 3.0f;
    }
    out[i] = v;
}

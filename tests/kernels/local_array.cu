// A per-thread array indexed with data-dependent indices, which forces it into .local memory
// (the %SPL stack frame): buf[k] = x*k + k*k for k = 0..15, out[i] = buf[s & 15] + buf[(s >> 4) & 15]
// with x = x[i], s = sel[i].
extern "C" __global__ void local_array(const float* x, const int* sel, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float buf[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) buf[k] = v * (float)k + (float)(k * k);
    int s = sel[i];
    out[i] = buf[s & 15] + buf[(s >> 4) & 15];
}

// Constant memory with initialisers: an 8-tap FIR filter out[i] = sum_k taps[k] * in[i + k]
// (in holds n + 7 values), and a lookup lut_out[i] = lut[sel[i] & 15] with a register index.
// taps = {0.5, -0.25, 0.125, 1, 2, -1, 0.75, 0.0625}; lut[j] = j*j - 5*j + 3.
__constant__ float c_taps[8] = {0.5f, -0.25f, 0.125f, 1.0f, 2.0f, -1.0f, 0.75f, 0.0625f};
__constant__ int c_lut[16] = {3, -1, -3, -3, -1, 3, 9, 17, 27, 39, 53, 69, 87, 107, 129, 153};

extern "C" __global__ void const_fir(const float* in, const int* sel, float* out, int* lut_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += c_taps[k] * in[i + k];
    out[i] = acc;
    lut_out[i] = c_lut[sel[i] & 15];
}

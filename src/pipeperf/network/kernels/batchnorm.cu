// BatchNormalization (inference), NCHW, when it is not folded into the preceding convolution:
// y = x * scale[c] + shift[c] with scale = gamma / sqrt(var + eps) and shift = beta - mean * scale
// precomputed on the host (as inference engines do), then the activation. One thread per element.
#include "pp_common.cuh"

extern "C" __global__ void batchnorm(const T* __restrict__ x, const T* __restrict__ scale,
                                     const T* __restrict__ shift, T* __restrict__ y,
                                     int total, int C, int HW, int act, float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int c = (i / HW) % C;
    float v = PP_TO_F(PP_FMA(x[i], scale[c], shift[c]));
    y[i] = PP_FROM_F(pp_act(v, act, lo, hi));
}

// Resize (upsampling / downsampling) of the two spatial axes, NCHW: nearest (mode 0: floor of
// the asymmetric source coordinate, ONNX's default nearest_mode 'round_prefer_floor' differs only
// at exact halves) or bilinear (mode 1, half_pixel coordinates). One thread per output element.
#include "pp_common.cuh"

extern "C" __global__ void resize(const T* __restrict__ x, T* __restrict__ y, int planes, int H, int W,
                                  int P, int Q, int mode) {
    long total = (long)planes * P * Q;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int q = i % Q; long t = i / Q;
    int p = t % P; t /= P;
    const T* xp = x + t * H * W;
    float fh = (float)H / P, fw = (float)W / Q;
    if (mode == 0) {
        int h = min((int)floorf(p * fh), H - 1), w = min((int)floorf(q * fw), W - 1);
        y[i] = xp[h * W + w];
        return;
    }
    float sy = fmaxf((p + 0.5f) * fh - 0.5f, 0.0f), sx = fmaxf((q + 0.5f) * fw - 0.5f, 0.0f);
    int h0 = min((int)sy, H - 1), w0 = min((int)sx, W - 1);
    int h1 = min(h0 + 1, H - 1), w1 = min(w0 + 1, W - 1);
    float ay = sy - h0, ax = sx - w0;
    float top = PP_TO_F(xp[h0 * W + w0]) * (1.0f - ax) + PP_TO_F(xp[h0 * W + w1]) * ax;
    float bot = PP_TO_F(xp[h1 * W + w0]) * (1.0f - ax) + PP_TO_F(xp[h1 * W + w1]) * ax;
    y[i] = PP_FROM_F(top * (1.0f - ay) + bot * ay);
}

// pipeperf's network kernel library: the element type and the epilogue every kernel shares.
// -DPP_FP16 builds the half-precision variant (storage and inner-loop arithmetic in __half,
// the epilogue's activation in float); otherwise everything is float.
#pragma once
#ifdef PP_FP16
#include <cuda_fp16.h>
typedef __half T;
#define PP_TO_F(v) __half2float(v)
#define PP_FROM_F(v) __float2half(v)
#define PP_FMA(a, b, c) __hfma((a), (b), (c))
#define PP_ZERO __float2half(0.0f)
#else
typedef float T;
#define PP_TO_F(v) (v)
#define PP_FROM_F(v) (v)
#define PP_FMA(a, b, c) fmaf((a), (b), (c))
#define PP_ZERO 0.0f
#endif

// Activation codes (network/lower.py ACT): 0 none, 1 relu, 2 clip(lo, hi), 3 sigmoid,
// 4 hardswish (x * relu6(x + 3) / 6), 5 hardsigmoid (clip(alpha x + beta, 0, 1) with alpha=lo, beta=hi),
// 6 tanh, 7 leaky relu (slope lo below zero)
__device__ __forceinline__ float pp_act(float v, int act, float lo, float hi) {
    if (act == 1) return fmaxf(v, 0.0f);
    if (act == 2) return fminf(fmaxf(v, lo), hi);
    if (act == 3) return 1.0f / (1.0f + __expf(-v));
    if (act == 4) return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);
    if (act == 5) return fminf(fmaxf(lo * v + hi, 0.0f), 1.0f);
    if (act == 6) return 2.0f / (1.0f + __expf(-2.0f * v)) - 1.0f;    // tanh (tanhf needs copysign)
    if (act == 7) return v > 0.0f ? v : lo * v;
    return v;
}

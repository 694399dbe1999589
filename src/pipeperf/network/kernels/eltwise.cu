// Element-wise kernels, one thread per output element.
// unary: y = act(x) (Relu, Clip, Sigmoid, HardSwish, HardSigmoid; network/lower.py ACT codes).
// binary: y = act(a op b), op 0 add, 1 mul, with ONNX broadcasting over up to 4 dimensions: each
// operand read through its own strides (0 where it is broadcast), the output dense (d0..d3).
#include "pp_common.cuh"

extern "C" __global__ void unary(const T* __restrict__ x, T* __restrict__ y, int total, int act, float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    y[i] = PP_FROM_F(pp_act(PP_TO_F(x[i]), act, lo, hi));
}

extern "C" __global__ void binary(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y,
                                  int d1, int d2, int d3, int total,
                                  int sa0, int sa1, int sa2, int sa3, int sb0, int sb1, int sb2, int sb3,
                                  int op, int act, float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int i3 = i % d3, t = i / d3;
    int i2 = t % d2; t /= d2;
    int i1 = t % d1, i0 = t / d1;
    T av = a[i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3];
    T bv = b[i0 * sb0 + i1 * sb1 + i2 * sb2 + i3 * sb3];
#ifdef PP_FP16
    T r = op == 0 ? __hadd(av, bv) : __hmul(av, bv);
#else
    T r = op == 0 ? av + bv : av * bv;
#endif
    y[i] = PP_FROM_F(pp_act(PP_TO_F(r), act, lo, hi));
}

// Concat: one launch per input, copying it into its slice of the output along the axis:
// the input is outer x len (x inner), placed at offset within the output's outer x out_len rows.
#include "pp_common.cuh"

extern "C" __global__ void concat_copy(const T* __restrict__ x, T* __restrict__ y, int total,
                                       int len_inner, int out_len_inner, int offset_inner) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int o = i / len_inner, j = i % len_inner;
    y[(long)o * out_len_inner + offset_inner + j] = x[i];
}

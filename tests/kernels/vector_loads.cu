// Vector loads/stores (ld/st .v4.f32 and .v2.u32/.v2.s32).
// vec4_scale: x, y hold n4 float4; y[i] = (a*x.x, a*x.y, a*x.z, x.w + x.x).
// int2_swizzle: in, out hold n int2; out[i] = (in.y, in.x + in.y).
extern "C" __global__ void vec4_scale(const float4* __restrict__ x, float4* __restrict__ y, float a, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(a * v.x, a * v.y, a * v.z, v.w + v.x);
    }
}

extern "C" __global__ void int2_swizzle(const int2* in, int2* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int2 v = in[i];
        out[i] = make_int2(v.y, v.x + v.y);
    }
}

// IEEE-rounded floating-point division (div.rn.f32 / div.rn.f64, expanded by ptxas into
// reciprocal + Newton steps): q[i] = a[i] / b[i].
extern "C" __global__ void div_f32(const float* a, const float* b, float* q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = a[i] / b[i];
}

extern "C" __global__ void div_f64(const double* a, const double* b, double* q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = a[i] / b[i];
}

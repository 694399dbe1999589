// daxpy: the fp64 twin of saxpy (fp64 vector update, fma.rn.f64).
extern "C" __global__ void daxpy(int n, double a, const double* x, double* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

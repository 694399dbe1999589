// A templated kernel for pipeperf tune's template arguments: y = a * x over n elements, each
// thread handling PER consecutive elements of type T.
template <int PER, typename T>
__global__ void scale(const T* x, T* y, T a, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * PER;
#pragma unroll
    for (int k = 0; k < PER; ++k)
        if (i + k < n) y[i + k] = a * x[i + k];
}

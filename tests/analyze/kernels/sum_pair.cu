// A sum pair for the atomics advice: sum_atomic adds every element to one global counter with
// atomicAdd (the operations on one address serialise in L2); sum_warp first adds each warp's 32
// values with shuffles and issues one atomicAdd per warp. n a multiple of 32.
extern "C" __global__ void sum_atomic(const float* x, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, x[i]);
}
extern "C" __global__ void sum_warp(const float* x, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int k = 16; k > 0; k >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, k);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, v);
}

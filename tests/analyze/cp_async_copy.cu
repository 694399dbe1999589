// cp.async copies (sm_80+) for mapper g's tests (tests/analyze/test_cp_async_memory.py): a 4-byte .ca copy,
// a 16-byte .cg copy and a 16-byte .ca copy each made twice from the same source
extern "C" __global__ void copy_ca4(const float* x, float* y)
{   // one 4-byte cp.async.ca per lane, coalesced
    __shared__ float t[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = (unsigned)__cvta_generic_to_shared(&t[threadIdx.x]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(x + i));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    y[i] = t[255 - threadIdx.x];
}
extern "C" __global__ void copy_cg16_twice(const float4* x, float* y)
{   // the same 16 bytes per lane copied twice with cp.async.cg (L2 only)
    __shared__ float4 t[2][256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s0 = (unsigned)__cvta_generic_to_shared(&t[0][threadIdx.x]);
    unsigned s1 = (unsigned)__cvta_generic_to_shared(&t[1][threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s0), "l"(x + i));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s1), "l"(x + i));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    float4 a = t[0][255 - threadIdx.x], b = t[1][threadIdx.x];
    y[i] = a.x + a.y + a.z + a.w + b.x;
}
extern "C" __global__ void copy_ca16_twice(const float4* x, float* y)
{   // the same with cp.async.ca (through L1)
    __shared__ float4 t[2][256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s0 = (unsigned)__cvta_generic_to_shared(&t[0][threadIdx.x]);
    unsigned s1 = (unsigned)__cvta_generic_to_shared(&t[1][threadIdx.x]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s0), "l"(x + i));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s1), "l"(x + i));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    float4 a = t[0][255 - threadIdx.x], b = t[1][threadIdx.x];
    y[i] = a.x + a.y + a.z + a.w + b.x;
}

// Barriers as the hardware counts them: a barrier is its id (and thread count), not the
// bar.sync instruction that reaches it (issue 38).

// Two halves of a block reach barrier 0 through different __syncthreads() (double buffering).
extern "C" __global__ void two_paths(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float v = i < n ? in[i] : 0.0f;
    if (tid < 128) {
        buf[tid] = v * 2.0f;
        __syncthreads();
        v = buf[255 - tid];
    } else {
        buf[tid] = v + 1.0f;
        __syncthreads();
        v = buf[255 - tid] * 3.0f;
    }
    if (i < n) out[i] = v;
}

// Warp specialised: warps 0..3 produce a tile and bar.arrive; warps 4..7 bar.sync on the same id.
extern "C" __global__ void producer_consumer(const float *in, float *out, int n, int tiles)
{
    __shared__ float buf[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        if (tid < 128) {
            int i = (blockIdx.x * tiles + t) * 128 + tid;
            buf[tid] = i < n ? in[i] : 0.0f;
            asm volatile("bar.arrive 1, 256;" ::: "memory");
            asm volatile("bar.sync 2, 256;" ::: "memory");
        } else {
            asm volatile("bar.sync 1, 256;" ::: "memory");
            acc += buf[tid - 128];
            asm volatile("bar.arrive 2, 256;" ::: "memory");
        }
    }
    if (tid >= 128) out[blockIdx.x * 128 + tid - 128] = acc;
}

// Warp specialised with a named barrier of the consumer warps only (bar.sync 3, 128): consumers
// reach three barriers a tile, producers two.
extern "C" __global__ void consumer_group(const float *in, float *out, int n, int tiles)
{
    __shared__ float buf[128];
    __shared__ float part[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        if (tid < 128) {
            int i = (blockIdx.x * tiles + t) * 128 + tid;
            buf[tid] = i < n ? in[i] : 0.0f;
            asm volatile("bar.arrive 1, 256;" ::: "memory");
            asm volatile("bar.sync 2, 256;" ::: "memory");
        } else {
            asm volatile("bar.sync 1, 256;" ::: "memory");
            part[tid - 128] = buf[tid - 128];
            asm volatile("bar.sync 3, 128;" ::: "memory");
            acc += part[255 - tid];
            asm volatile("bar.arrive 2, 256;" ::: "memory");
        }
    }
    if (tid >= 128) out[blockIdx.x * 128 + tid - 128] = acc;
}

// consumer_group with barrier ids and counts in registers (CUTLASS's NamedBarrier helpers).
__device__ __forceinline__ void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void named_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(n) : "memory"); }

extern "C" __global__ void register_ids(const float *in, float *out, int n, int tiles)
{
    __shared__ float buf[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        if (tid < 128) {
            int i = (blockIdx.x * tiles + t) * 128 + tid;
            buf[tid] = i < n ? in[i] : 0.0f;
            named_arrive(1, 256);
            named_sync(2, 256);
        } else {
            named_sync(1, 256);
            acc += buf[tid - 128];
            named_sync(3, 128);
            named_arrive(2, 256);
        }
    }
    if (tid >= 128) out[blockIdx.x * 128 + tid - 128] = acc;
}

// A real deadlock: only the first warp reaches the barrier, the second leaves.
extern "C" __global__ void first_warp_only(float *out)
{
    if (threadIdx.x < 32) {
        out[threadIdx.x] = 1.0f;
        __syncthreads();
    }
}

// Counts that never meet: two warps wait at a barrier of 128 threads, the other two leave.
extern "C" __global__ void counts_never_meet(float *out)
{
    if (threadIdx.x < 64) {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[threadIdx.x] = 1.0f;
    }
}
